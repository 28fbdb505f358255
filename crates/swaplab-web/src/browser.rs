//! The only module that touches browser APIs directly: storage, the document's title
//! and theme attribute, the URL, and fetching the site's own files.
//!
//! Every call tolerates a browser that refuses (private mode, full quota, a sandboxed
//! frame): it returns `None` or an error message instead of panicking. Off the web
//! there is no window at all, so the same calls answer as a browser with nothing
//! stored would: that is how the prerendered pages (`prerender.rs`) render the app's
//! own components natively.

use wasm_bindgen::{JsCast, JsValue};

use crate::draft::{DAMAGED_SUFFIX, SET_ASIDE_SUFFIX};

/// Prefix of every key Swap Lab writes to `localStorage`.
pub const KEY_PREFIX: &str = "swaplab.";
/// Prefix of the keys that hold playground drafts, one per example.
pub const DRAFT_PREFIX: &str = "swaplab.draft.v1.";
/// The key that remembers the reader's theme choice.
pub const THEME_KEY: &str = "swaplab.theme.v1";

/// The page's window; none off the web, where calling into the browser would panic.
pub fn window() -> Option<web_sys::Window> {
    if cfg!(target_arch = "wasm32") { web_sys::window() } else { None }
}

fn storage() -> Option<web_sys::Storage> {
    window()?.local_storage().ok().flatten()
}

/// Reads a stored string.
pub fn load(key: &str) -> Option<String> {
    storage()?.get_item(key).ok().flatten()
}

/// Stores a string, or says why the browser refused.
pub fn save(key: &str, value: &str) -> Result<(), String> {
    let storage =
        storage().ok_or_else(|| "this browser does not offer local storage here".to_owned())?;
    storage.set_item(key, value).map_err(|e| describe_js_error(&e))
}

/// `localStorage`, as the draft protocol ([`crate::draft`]) sees it.
#[derive(Clone, Copy, Debug, Default)]
pub struct LocalStorage;

impl crate::draft::Store for LocalStorage {
    fn get(&self, key: &str) -> Option<String> {
        load(key)
    }

    fn set(&mut self, key: &str, value: &str) -> Result<(), String> {
        save(key, value)
    }

    fn remove(&mut self, key: &str) -> Result<(), String> {
        let storage =
            storage().ok_or_else(|| "this browser does not offer local storage here".to_owned())?;
        storage.remove_item(key).map_err(|e| describe_js_error(&e))
    }
}

/// Calls `changed` whenever another tab (or window) of the site writes `key`, or
/// clears the whole storage. Browsers fire `storage` only in the other tabs, so this
/// tab's own saves never trigger it. The listener lives as long as the returned value.
pub fn on_written_elsewhere(
    key: String,
    changed: impl Fn() + 'static,
) -> Option<gloo::events::EventListener> {
    let window = window()?;
    Some(gloo::events::EventListener::new(&window, "storage", move |event| {
        let Some(event) = event.dyn_ref::<web_sys::StorageEvent>() else { return };
        // No key: the other tab cleared the whole storage.
        if event.key().is_none_or(|k| k == key) {
            changed();
        }
    }))
}

/// A `data:` URL holding `json`, for a download link (`<a download href=…>`) that needs
/// no more of the app's code to work — the crash banner relies on that.
pub fn json_data_url(json: &str) -> String {
    format!(
        "data:application/json;charset=utf-8,{}",
        String::from(js_sys::encode_uri_component(json))
    )
}

/// Removes a stored string; a browser that refuses leaves it in place.
pub fn remove(key: &str) {
    if let Some(storage) = storage() {
        let _ = storage.remove_item(key);
    }
}

/// Every stored key that starts with `prefix`.
pub fn keys_with_prefix(prefix: &str) -> Vec<String> {
    let Some(storage) = storage() else { return Vec::new() };
    let len = storage.length().unwrap_or(0);
    (0..len)
        .filter_map(|i| storage.key(i).ok().flatten())
        .filter(|k| k.starts_with(prefix))
        .collect()
}

/// The storage key of the draft for one example.
pub fn draft_key(example: &str) -> String {
    format!("{DRAFT_PREFIX}{example}")
}

/// Where a draft goes when it is set aside.
pub fn set_aside_key(example: &str) -> String {
    format!("{}{SET_ASIDE_SUFFIX}", draft_key(example))
}

/// Moves every draft aside, so the page starts from the examples without deleting
/// anyone's work: a link that asks for this cannot destroy a draft. A draft that cannot
/// be copied (a full storage) stays where it is.
pub fn set_aside_drafts() {
    for key in keys_with_prefix(DRAFT_PREFIX) {
        if key.ends_with(SET_ASIDE_SUFFIX) || key.ends_with(DAMAGED_SUFFIX) {
            continue;
        }
        if let Some(text) = load(&key)
            && save(&format!("{key}{SET_ASIDE_SUFFIX}"), &text).is_ok()
        {
            remove(&key);
        }
    }
}

/// Sets `document.title`.
pub fn set_title(title: &str) {
    if let Some(document) = window().and_then(|w| w.document()) {
        document.set_title(title);
    }
}

/// Sets or clears `data-theme` on `<html>`; the stylesheet follows it.
pub fn set_theme_attribute(value: Option<&str>) {
    let Some(root) = window().and_then(|w| w.document()).and_then(|d| d.document_element()) else {
        return;
    };
    let _ = match value {
        Some(value) => root.set_attribute("data-theme", value),
        None => root.remove_attribute("data-theme"),
    };
}

/// The query string of the current URL, without its `?`.
pub fn query_string() -> String {
    window()
        .and_then(|w| w.location().search().ok())
        .map(|s| s.trim_start_matches('?').to_owned())
        .unwrap_or_default()
}

/// Replaces the current URL's query string without adding a history entry.
pub fn replace_query(query: &str) {
    let Some(window) = window() else { return };
    let location = window.location();
    let path = location.pathname().unwrap_or_default();
    let hash = location.hash().unwrap_or_default();
    let url =
        if query.is_empty() { format!("{path}{hash}") } else { format!("{path}?{query}{hash}") };
    replace_url(&url);
}

/// A JavaScript exception as a sentence a reader can act on.
pub fn describe_js_error(error: &JsValue) -> String {
    let name =
        js_sys::Reflect::get(error, &JsValue::from_str("name")).ok().and_then(|v| v.as_string());
    let message =
        js_sys::Reflect::get(error, &JsValue::from_str("message")).ok().and_then(|v| v.as_string());
    match (name.as_deref(), message) {
        (Some("QuotaExceededError"), _) => {
            "the browser's storage for this site is full; download your draft or remove other drafts"
                .to_owned()
        }
        (_, Some(message)) if !message.is_empty() => message,
        _ => format!("{error:?}"),
    }
}

/// Fetches one of the site's own files as text. `url` is relative to the document's
/// base (`<base href>`), so it works at the root and under a sub-path alike. A network
/// failure or an HTTP error status is an `Err` with a phrase for the reader.
pub async fn fetch_text(url: &str) -> Result<String, String> {
    use wasm_bindgen_futures::JsFuture;
    let window = window().ok_or_else(|| "there is no window to fetch from".to_owned())?;
    let response = JsFuture::from(window.fetch_with_str(url))
        .await
        .map_err(|e| describe_js_error(&e))?
        .dyn_into::<web_sys::Response>()
        .map_err(|_| "the browser's answer is not a response".to_owned())?;
    if !response.ok() {
        return Err(format!("the site answered HTTP {}", response.status()));
    }
    let text = response.text().map_err(|e| describe_js_error(&e))?;
    let text = JsFuture::from(text).await.map_err(|e| describe_js_error(&e))?;
    text.as_string().ok_or_else(|| "the answer is not text".to_owned())
}

/// A link to an anchor on the current page. A bare `#id` would resolve against the
/// page's `<base href>` and leave the page.
pub fn page_anchor(id: &str) -> String {
    let location = window().map(|w| w.location());
    let path = location.as_ref().and_then(|l| l.pathname().ok()).unwrap_or_default();
    let search = location.as_ref().and_then(|l| l.search().ok()).unwrap_or_default();
    format!("{path}{search}#{id}")
}

/// The URL fragment without its `#`, as typed (not percent-decoded).
pub fn location_hash() -> String {
    window()
        .and_then(|w| w.location().hash().ok())
        .map(|h| h.trim_start_matches('#').to_owned())
        .unwrap_or_default()
}

/// Scrolls the element with this id to the top of the view, when it exists, and puts
/// the anchor in the address bar so the place can be bookmarked.
pub fn scroll_to_anchor(id: &str) -> bool {
    let Some(element) = window().and_then(|w| w.document()).and_then(|d| d.get_element_by_id(id))
    else {
        return false;
    };
    element.scroll_into_view();
    set_anchor(id);
    true
}

/// Puts `#id` in the address bar without scrolling or adding a history entry: a page
/// whose content arrives later (a chapter being fetched) finds it there once it has.
pub fn set_anchor(id: &str) {
    replace_url(&page_anchor(id));
}

/// Changes the address bar's URL in place: no navigation, no history entry, and the
/// entry keeps its state (the scroll position `router.rs` remembers for Back).
pub fn replace_url(url: &str) {
    if let Some(history) = window().and_then(|w| w.history().ok()) {
        let state = history.state().unwrap_or(JsValue::NULL);
        let _ = history.replace_state_with_url(&state, "", Some(url));
    }
}

/// Whether a key press belongs to a form field (so page shortcuts leave it alone).
pub fn typing_into_field(event: &web_sys::KeyboardEvent) -> bool {
    let Some(target) = event.target() else { return false };
    let Some(element) = target.dyn_ref::<web_sys::Element>() else {
        return false;
    };
    matches!(element.tag_name().as_str(), "INPUT" | "TEXTAREA" | "SELECT")
        || element.get_attribute("contenteditable").is_some_and(|v| v != "false")
}

/// Milliseconds since the page started (`performance.now()`), for measurements the e2e
/// suite reads; 0 when the browser has no performance clock.
pub fn now_ms() -> f64 {
    window().and_then(|w| w.performance()).map_or(0.0, |p| p.now())
}

/// Appends one measurement to `window.swaplabTimings[name]`, where the e2e suite reads
/// it. Measuring is the shell's job: the core never reads a clock.
pub fn record_timing(name: &str, ms: f64) {
    let Some(window) = window() else { return };
    let key = JsValue::from_str("swaplabTimings");
    let timings =
        js_sys::Reflect::get(&window, &key).ok().filter(|v| v.is_object()).unwrap_or_else(|| {
            let fresh = js_sys::Object::new();
            let _ = js_sys::Reflect::set(&window, &key, &fresh);
            fresh.into()
        });
    let name = JsValue::from_str(name);
    let list = js_sys::Reflect::get(&timings, &name)
        .ok()
        .filter(js_sys::Array::is_array)
        .unwrap_or_else(|| {
            let fresh = js_sys::Array::new();
            let _ = js_sys::Reflect::set(&timings, &name, &fresh);
            fresh.into()
        });
    list.unchecked_into::<js_sys::Array>().push(&JsValue::from_f64(ms));
}

/// The URL fragment without its `#` (empty when there is none).
pub fn fragment() -> String {
    window()
        .and_then(|w| w.location().hash().ok())
        .map(|h| h.trim_start_matches('#').to_owned())
        .unwrap_or_default()
}

/// Loads the page again from its current URL.
pub fn reload() {
    if let Some(window) = window() {
        let _ = window.location().reload();
    }
}

/// Replaces the URL fragment without a navigation or a history entry; `""` removes it.
/// The fragment never reaches a server.
pub fn replace_fragment(fragment: &str) {
    let Some(window) = window() else { return };
    let location = window.location();
    let (Ok(path), Ok(search)) = (location.pathname(), location.search()) else { return };
    let url = if fragment.is_empty() {
        format!("{path}{search}")
    } else {
        format!("{path}{search}#{fragment}")
    };
    replace_url(&url);
}

/// The page's address with this fragment, for a share box.
pub fn url_with_fragment(fragment: &str) -> String {
    let Some(window) = window() else { return format!("#{fragment}") };
    let location = window.location();
    let base = format!(
        "{}{}{}",
        location.origin().unwrap_or_default(),
        location.pathname().unwrap_or_default(),
        location.search().unwrap_or_default()
    );
    format!("{base}#{fragment}")
}

/// Starts `navigator.clipboard.writeText(text)`; `None` where the browser has no
/// asynchronous clipboard (an insecure context, an old browser).
pub fn clipboard_write(text: &str) -> Option<js_sys::Promise> {
    let window = window()?;
    let navigator = js_sys::Reflect::get(&window, &JsValue::from_str("navigator")).ok()?;
    let clipboard = js_sys::Reflect::get(&navigator, &JsValue::from_str("clipboard"))
        .ok()
        .filter(JsValue::is_object)?;
    let write = js_sys::Reflect::get(&clipboard, &JsValue::from_str("writeText"))
        .ok()?
        .dyn_into::<js_sys::Function>()
        .ok()?;
    write.call1(&clipboard, &JsValue::from_str(text)).ok()?.dyn_into::<js_sys::Promise>().ok()
}

/// Opens the browser's print dialog.
pub fn print_page() {
    if let Some(window) = window() {
        let _ = window.print();
    }
}

/// The page's origin, `http://host:port`, or empty when there is none.
pub fn origin() -> String {
    window().and_then(|w| w.location().origin().ok()).unwrap_or_default()
}

/// The markdown a prerendered chapter page carries (`<template id="prerendered-markdown"
/// data-path="learn/<slug>">`, written by `cargo xtask dist`), with the page's path:
/// read once, before the app replaces the prerendered page, so the chapter shows at
/// once instead of being fetched again.
pub fn take_prerendered_markdown() -> Option<(String, String)> {
    let document = window()?.document()?;
    let template = document
        .get_element_by_id("prerendered-markdown")?
        .dyn_into::<web_sys::HtmlTemplateElement>()
        .ok()?;
    let path = template.get_attribute("data-path")?;
    let markdown = template.content().text_content()?;
    template.remove();
    Some((path, markdown))
}

/// How far the page is scrolled down, in CSS pixels.
pub fn scroll_y() -> f64 {
    window().and_then(|w| w.scroll_y().ok()).unwrap_or(0.0)
}

/// A CSS selector for the element that has the keyboard focus, when it can be found
/// again in a page rendered anew: by its id, else by its tag and `aria-label`. `None`
/// when nothing (or only the page itself) has the focus.
pub fn focused_selector() -> Option<String> {
    let active = window()?.document()?.active_element()?;
    let tag = active.tag_name().to_ascii_lowercase();
    if tag == "body" || tag == "html" {
        return None;
    }
    let quoted = |text: &str| text.replace('\\', "\\\\").replace('"', "\\\"");
    match (active.id(), active.get_attribute("aria-label")) {
        (id, _) if !id.is_empty() => Some(format!("[id=\"{}\"]", quoted(&id))),
        (_, Some(label)) => Some(format!("{tag}[aria-label=\"{}\"]", quoted(&label))),
        _ => None,
    }
}

/// Gives the keyboard focus to the first element `selector` finds, without scrolling.
pub fn focus_selector(selector: &str) {
    let found = window().and_then(|w| w.document()).and_then(|d| d.query_selector(selector).ok());
    if let Some(element) = found.flatten().and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok()) {
        let options = web_sys::FocusOptions::new();
        options.set_prevent_scroll(true);
        let _ = element.focus_with_options(&options);
    }
}
