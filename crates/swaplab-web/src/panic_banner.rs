//! What a reader sees when Swap Lab hits a bug: a banner over the frozen page with a
//! way to reload, to download their drafts, and to start without them.
//!
//! Built with plain DOM calls, because after a panic the Yew app is gone. The banner's
//! controls are links, so they work without running any more of the app's code.
//!
//! Edits not yet saved (the playground saves once typing pauses) are registered here as
//! they happen, so the hook can store them before the banner goes up: a crash loses
//! nothing the reader typed.

use std::cell::RefCell;
use std::panic::PanicHookInfo;

use swaplab_core::session::Session;
use wasm_bindgen::JsCast;

use crate::browser::{DRAFT_PREFIX, LocalStorage, json_data_url, keys_with_prefix, load};
use crate::draft::{DraftSlot, SET_ASIDE_SUFFIX};

/// The query parameter that starts the page without any stored draft.
pub const RESET_DRAFT_PARAM: &str = "reset-draft";

/// The debugging trigger: with this key set to [`CRASH_ON_EDIT`] in the site's
/// `localStorage`, the playground panics in the rerun after the next edit, before that
/// edit is saved — as a bug in the analysis would. Only someone at the browser's console
/// (or a test) can set it: no link, file or page of the site writes this key.
pub const DEBUG_KEY: &str = "swaplab.debug.v1";
/// The value of [`DEBUG_KEY`] that asks for the crash.
pub const CRASH_ON_EDIT: &str = "crash-on-edit";

/// Panics when the debugging trigger is set (see [`DEBUG_KEY`]).
pub fn crash_if_requested() {
    if load(DEBUG_KEY).as_deref() == Some(CRASH_ON_EDIT) {
        panic!("a crash requested with {DEBUG_KEY} = {CRASH_ON_EDIT}");
    }
}

/// Edits that wait for the typing pause to be saved: the draft's slot as this tab
/// knows it, and the session to store there.
type Unsaved = (DraftSlot, Session);

thread_local! {
    static UNSAVED: RefCell<Option<Unsaved>> = const { RefCell::new(None) };
    static CRASHED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether the app has crashed. A trap in WebAssembly does not stop the module: timers
/// and listeners set up before the crash still call into it, so code that writes (the
/// playground's saves) asks this first and leaves the storage as the crash left it.
pub fn has_crashed() -> bool {
    CRASHED.with(std::cell::Cell::get)
}

/// Registers edits that are not saved yet (`None` once they are). Cheap: a session
/// and a slot share their files.
pub fn note_unsaved(unsaved: Option<(&DraftSlot, &Session)>) {
    let value = unsaved.map(|(slot, session)| (slot.clone(), session.clone()));
    UNSAVED.with(|cell| {
        if let Ok(mut slot) = cell.try_borrow_mut() {
            *slot = value;
        }
    });
}

/// What became of the unsaved edits when the app crashed.
enum Rescue {
    /// There were none.
    Nothing,
    /// Stored under this key.
    Saved(String),
    /// The browser refused; the reason.
    Failed(String),
}

/// Stores the registered unsaved edits: in the draft's place, or — if another tab saved
/// that draft meanwhile — beside it, in the set-aside slot the page offers back.
fn rescue_unsaved() -> Rescue {
    let unsaved = UNSAVED.with(|cell| cell.try_borrow_mut().ok().and_then(|mut slot| slot.take()));
    let Some((mut slot, session)) = unsaved else { return Rescue::Nothing };
    match slot.keep_somewhere(&mut LocalStorage, &session) {
        Ok(key) => Rescue::Saved(key),
        Err(reason) => Rescue::Failed(reason),
    }
}

/// Installs the hook; Yew would otherwise install its own.
pub fn install() {
    yew::set_custom_panic_hook(Box::new(|info: &PanicHookInfo<'_>| {
        CRASHED.with(|crashed| crashed.set(true));
        web_sys::console::error_1(&format!("Swap Lab crashed: {info}").into());
        let rescue = rescue_unsaved();
        let _ = try_show(&info.to_string(), &rescue);
    }));
}

/// Freezes the app and shows the crash banner with `detail` as the technical message.
pub fn show(detail: &str) {
    // Best effort: a hook must not panic again, so every DOM failure just stops here.
    let _ = try_show(detail, &Rescue::Nothing);
}

fn try_show(detail: &str, rescue: &Rescue) -> Option<()> {
    let document = crate::browser::window()?.document()?;
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
    let latest = match rescue {
        Rescue::Nothing => "",
        Rescue::Saved(key) if key.ends_with(SET_ASIDE_SUFFIX) => {
            "Your latest edits were saved just now, beside the draft another tab had saved. "
        }
        Rescue::Saved(_) => "Your latest edits were saved just now. ",
        Rescue::Failed(_) => {
            "Your latest edits could not be saved (see the details); the download below \
             holds the drafts stored before them. "
        }
    };
    text.set_text_content(Some(&format!(
        "{latest}Your drafts are still stored in this browser. Reload to carry on, download \
         them to keep a copy, or reset to start from the examples if this page keeps \
         breaking: the drafts are set aside, and the playground offers them back."
    )));

    let actions = element("p")?;
    actions.set_class_name("crash-actions");
    let location = crate::browser::window().map(|w| w.location());
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
        let download = link("Download drafts", &json_data_url(&drafts), "button secondary")?;
        let _ = download.set_attribute("download", "swaplab-drafts.json");
        let _ = actions.append_child(&download);
    }
    let reset = link("Reset draft", &format!("{path}?{RESET_DRAFT_PARAM}"), "button danger")?;
    let _ = actions.append_child(&reset);

    let details = element("details")?;
    let summary = element("summary")?;
    summary.set_text_content(Some("Technical details"));
    let pre = element("pre")?;
    let detail = match rescue {
        Rescue::Failed(reason) => format!("{detail}\n\nSaving the latest edits: {reason}"),
        _ => detail.to_owned(),
    };
    pre.set_text_content(Some(&detail));
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
pub fn drafts_as_json() -> String {
    let mut map = serde_json::Map::new();
    for key in keys_with_prefix(DRAFT_PREFIX) {
        if let Some(value) = load(&key) {
            map.insert(key, serde_json::Value::String(value));
        }
    }
    serde_json::Value::Object(map).to_string()
}
