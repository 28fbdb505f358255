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
pub mod route;
pub mod router;
pub mod state;
pub mod theme;

/// Starts the app in the page's `#app` element (or `<body>` when there is none).
pub fn start() {
    panic_banner::install();
    honour_reset_request();
    let root =
        web_sys::window().and_then(|w| w.document()).and_then(|d| d.get_element_by_id("app"));
    match root {
        Some(root) => yew::Renderer::<app::App>::with_root(root).render(),
        None => yew::Renderer::<app::App>::new().render(),
    };
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
