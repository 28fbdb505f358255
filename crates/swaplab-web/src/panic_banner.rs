//! What a reader sees when Swap Lab hits a bug: a banner over the frozen page with a
//! way to reload, to download their drafts, and to start without them.
//!
//! Built with plain DOM calls, because after a panic the Yew app is gone. The banner's
//! controls are links, so they work without running any more of the app's code.

use std::panic::PanicHookInfo;

use wasm_bindgen::JsCast;

use crate::browser::{DRAFT_PREFIX, keys_with_prefix, load};

/// The query parameter that starts the page without any stored draft.
pub const RESET_DRAFT_PARAM: &str = "reset-draft";

/// Installs the hook; Yew would otherwise install its own.
pub fn install() {
    yew::set_custom_panic_hook(Box::new(|info: &PanicHookInfo<'_>| {
        web_sys::console::error_1(&format!("Swap Lab crashed: {info}").into());
        show(&info.to_string());
    }));
}

/// Freezes the app and shows the crash banner with `detail` as the technical message.
pub fn show(detail: &str) {
    // Best effort: a hook must not panic again, so every DOM failure just stops here.
    let _ = try_show(detail);
}

fn try_show(detail: &str) -> Option<()> {
    let document = web_sys::window()?.document()?;
    let body = document.body()?;
    if document.get_element_by_id("crash-banner").is_some() {
        return Some(());
    }
    // Nobody should keep typing into a page that can no longer save.
    if let Some(app) = document.get_element_by_id("app") {
        let _ = app.set_attribute("inert", "");
        let _ = app.class_list().add_1("crashed");
    }

    let element = |tag: &str| document.create_element(tag).ok();
    let banner = element("div")?;
    banner.set_id("crash-banner");
    let _ = banner.set_attribute("role", "alert");
    let _ = banner.set_attribute("tabindex", "-1");

    let title = element("strong")?;
    title.set_text_content(Some("Something broke — Swap Lab stopped."));
    let text = element("p")?;
    text.set_text_content(Some(
        "Your drafts are still stored in this browser. Reload to carry on, download them to \
         keep a copy, or reset to start from the examples if this page keeps breaking: the \
         drafts are set aside, and the playground offers them back.",
    ));

    let actions = element("p")?;
    actions.set_class_name("crash-actions");
    let location = web_sys::window().map(|w| w.location());
    let here = location.as_ref().and_then(|l| l.href().ok()).unwrap_or_default();
    let path = location.as_ref().and_then(|l| l.pathname().ok()).unwrap_or_default();

    let link = |label: &str, href: &str, class: &str| {
        let a = element("a")?;
        a.set_text_content(Some(label));
        let _ = a.set_attribute("href", href);
        a.set_class_name(class);
        Some(a)
    };
    let reload = link("Reload", &here, "button")?;
    let _ = actions.append_child(&reload);
    let drafts = drafts_as_json();
    if drafts != "{}" {
        let href = format!(
            "data:application/json;charset=utf-8,{}",
            String::from(js_sys::encode_uri_component(&drafts))
        );
        let download = link("Download drafts", &href, "button secondary")?;
        let _ = download.set_attribute("download", "swaplab-drafts.json");
        let _ = actions.append_child(&download);
    }
    let reset = link("Reset draft", &format!("{path}?{RESET_DRAFT_PARAM}"), "button danger")?;
    let _ = actions.append_child(&reset);

    let details = element("details")?;
    let summary = element("summary")?;
    summary.set_text_content(Some("Technical details"));
    let pre = element("pre")?;
    pre.set_text_content(Some(detail));
    let _ = details.append_child(&summary);
    let _ = details.append_child(&pre);

    for child in [&title, &text, &actions, &details] {
        let _ = banner.append_child(child);
    }
    let _ = body.insert_before(&banner, body.first_child().as_ref());
    if let Ok(html) = banner.dyn_into::<web_sys::HtmlElement>() {
        let _ = html.focus();
    }
    Some(())
}

/// Every stored draft as one JSON object, key → draft.
fn drafts_as_json() -> String {
    let mut map = serde_json::Map::new();
    for key in keys_with_prefix(DRAFT_PREFIX) {
        if let Some(value) = load(&key) {
            map.insert(key, serde_json::Value::String(value));
        }
    }
    serde_json::Value::Object(map).to_string()
}
