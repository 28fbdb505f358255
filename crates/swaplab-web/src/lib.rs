//! Swap Lab's web app: a Yew front end over `swaplab-core`.
//!
//! `start` is the whole entry point; `main.rs` only calls it. Pages live in `pages/`,
//! reusable pieces in `components/`, result panes in `panes/`, and every direct
//! browser call in `browser.rs` and `panic_banner.rs`.

pub mod app;
pub mod browser;
pub mod components;
pub mod draft;
pub mod hooks;
pub mod pages;
pub mod panes;
pub mod panic_banner;
#[cfg(all(feature = "prerender", not(target_arch = "wasm32")))]
pub mod prerender;
pub mod route;
pub mod router;
pub mod state;
pub mod theme;

/// Starts the app in the page's `#app` element (or `<body>` when there is none).
pub fn start() {
    panic_banner::install();
    honour_reset_request();
    // A prerendered page (`cargo xtask dist`) is replaced by the app's own rendering of
    // the same page: keep its chapter text, the reader's place on it and the focus.
    if let Some((path, markdown)) = browser::take_prerendered_markdown() {
        pages::learn::adopt_prerendered_chapter(&path, markdown);
    }
    let place = browser::scroll_y();
    // A reader who tabbed into the prerendered page keeps their place in it.
    let focused = browser::focused_selector();
    let root =
        browser::window().and_then(|w| w.document()).and_then(|d| d.get_element_by_id("app"));
    // Yew empties the element before it renders into it: hold the element's height
    // meanwhile, so the page never gets shorter than the place the reader scrolled to
    // (the browser would clamp it, and the page would jump to its top).
    if let Some(root) = &root {
        let _ = root.set_attribute("style", &format!("min-height:{}px", root.scroll_height()));
    }
    match root.clone() {
        Some(root) => yew::Renderer::<app::App>::with_root(root).render(),
        None => yew::Renderer::<app::App>::new().render(),
    };
    gloo::timers::callback::Timeout::new(0, move || {
        if let Some(root) = root {
            let _ = root.remove_attribute("style");
        }
        if let Some(window) = browser::window()
            && place > 0.0
            && (browser::scroll_y() - place).abs() > 1.0
        {
            window.scroll_to_with_x_and_y(0.0, place);
        }
        if let Some(selector) = &focused {
            browser::focus_selector(selector);
        }
    })
    .forget();
}

/// `?reset-draft` (the crash banner's last resort) starts without the stored drafts,
/// which are set aside rather than deleted.
fn honour_reset_request() {
    let query = browser::query_string();
    let mut kept = Vec::new();
    let mut reset = false;
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        if pair.split('=').next() == Some(panic_banner::RESET_DRAFT_PARAM) {
            reset = true;
        } else {
            kept.push(pair);
        }
    }
    if reset {
        browser::set_aside_drafts();
        browser::replace_query(&kept.join("&"));
    }
}
