//! The application frame: router, header, the current page and the footer.

use yew::prelude::*;

use crate::browser::{location_hash, scroll_to_anchor};
use crate::components::Header;
use crate::route::{Route, switch};
use crate::router::{Router, return_after_reload, take_remembered_scroll, use_route};

/// The whole app.
#[component]
pub fn App() -> Html {
    // A bare `#main` resolves against the `<base href>`: followed, it would leave for
    // the start page. The link moves the focus itself and stays where it is.
    let skip_to_content = Callback::from(|e: MouseEvent| {
        e.prevent_default();
        focus_main();
    });
    html! {
        <Router>
            <a class="skip-link" href="#main" onclick={skip_to_content}>{ "Skip to content" }</a>
            <Header />
            <ScrollOnNavigation />
            <main id="main" tabindex="-1">
                <CurrentPage />
            </main>
            <footer class="site-footer">
                <p>{ "Swap Lab runs entirely in your browser: no server, no LLM, no account. \
                      Your edits stay in this browser's storage." }</p>
            </footer>
        </Router>
    }
}

/// The page of the current route.
#[component]
fn CurrentPage() -> Html {
    switch(&use_route().unwrap_or(Route::NotFound))
}

/// Moving to another page starts at its top, or at the anchor the URL names, and puts
/// keyboard focus at the start of the content, as a full page load would. Back and
/// Forward return to where the reader was on the page instead, as a browser does, and
/// so does a reload. A page that puts the focus somewhere itself (the playground's
/// editor at a line a link names) keeps it, and the view it scrolled to, as it would on
/// a full load.
#[component]
fn ScrollOnNavigation() -> Html {
    let route = use_route();
    let first = use_mut_ref(|| true);
    use_effect_with(route, move |route| {
        let initial = std::mem::replace(&mut *first.borrow_mut(), false);
        // A chapter's text arrives later; its page finishes a return after a reload.
        let complete = !matches!(route, Some(Route::Chapter { .. }));
        // The page renders its content after this effect: look once it has.
        let timeout = gloo::timers::callback::Timeout::new(0, move || {
            if initial && return_after_reload(complete) {
                return;
            }
            if !initial && page_took_focus() {
                return;
            }
            if !initial && let Some(y) = take_remembered_scroll() {
                focus_main();
                if let Some(window) = crate::browser::window() {
                    window.scroll_to_with_x_and_y(0.0, y);
                }
                return;
            }
            let hash = location_hash();
            if !hash.is_empty() && scroll_to_anchor(&hash) {
                return;
            }
            if initial {
                return;
            }
            // Focus first: focusing scrolls the element into view, and the page must
            // start at its very top.
            focus_main();
            if let Some(window) = crate::browser::window() {
                window.scroll_to_with_x_and_y(0.0, 0.0);
            }
        });
        move || drop(timeout)
    });
    html! {}
}

/// Whether the focus is on something inside the page's content: the page that just
/// opened put it there (whatever had it on the page before went with that page).
fn page_took_focus() -> bool {
    crate::browser::window()
        .and_then(|w| w.document())
        .and_then(|d| d.active_element())
        .is_some_and(|active| {
            active.id() != "main" && active.closest("main").ok().flatten().is_some()
        })
}

/// Puts the keyboard focus at the start of the page's content (`<main>`).
fn focus_main() {
    if let Some(main) = crate::browser::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id("main"))
        .and_then(|e| wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlElement>(e).ok())
    {
        let _ = main.focus();
    }
}
