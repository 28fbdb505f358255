//! The application frame: router, header, the current page and the footer.

use yew::prelude::*;
use yew_router::prelude::*;

use crate::components::Header;
use crate::route::{Route, switch};

/// The whole app.
#[component]
pub fn App() -> Html {
    html! {
        <BrowserRouter>
            <a class="skip-link" href="#main">{ "Skip to content" }</a>
            <Header />
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
