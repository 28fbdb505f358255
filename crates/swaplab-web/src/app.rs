//! The application frame: router, header, the current page and the footer.

use yew::prelude::*;
use yew_router::prelude::*;

use crate::browser::{location_hash, scroll_to_anchor};
use crate::components::Header;
use crate::route::{Route, switch};

/// The whole app.
#[component]
pub fn App() -> Html {
    html! {
        <BrowserRouter>
            <a class="skip-link" href="#main">{ "Skip to content" }</a>
            <Header />
            <ScrollOnNavigation />
            <main id="main" tabindex="-1">
                <Switch<Route> render={switch} />
            </main>
            <footer class="site-footer">
                <p>{ "Swap Lab runs entirely in your browser: no server, no LLM, no account. \
                      Your edits stay in this browser's storage." }</p>
            </footer>
        </BrowserRouter>
    }
}

/// Moving to another page starts at its top, or at the anchor the URL names, and puts
/// keyboard focus at the start of the content, as a full page load would.
#[component]
fn ScrollOnNavigation() -> Html {
    let location = use_location();
    let path = location.map(|l| l.path().to_owned()).unwrap_or_default();
    let first = use_mut_ref(|| true);
    use_effect_with(path, move |_| {
        let initial = std::mem::replace(&mut *first.borrow_mut(), false);
        // The page renders its content after this effect: look once it has.
        let timeout = gloo::timers::callback::Timeout::new(0, move || {
            let hash = location_hash();
            if !hash.is_empty() && scroll_to_anchor(&hash) {
                return;
            }
            if initial {
                return;
            }
            let Some(window) = web_sys::window() else { return };
            // Focus first: focusing scrolls the element into view, and the page must
            // start at its very top.
            if let Some(main) = window
                .document()
                .and_then(|d| d.get_element_by_id("main"))
                .and_then(|e| wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlElement>(e).ok())
            {
                let _ = main.focus();
            }
            window.scroll_to_with_x_and_y(0.0, 0.0);
        });
        move || drop(timeout)
    });
    html! {}
}
