//! Any path the site does not have.

use yew::prelude::*;
use yew_router::prelude::*;

use super::use_title;
use crate::route::Route;

/// The not-found page.
#[component]
pub fn NotFoundPage() -> Html {
    use_title(Some("Page not found".to_owned()));
    html! {
        <div class="page narrow">
            <h1>{ "There is no page here" }</h1>
            <p>{ "The link may be mistyped, or the page may have moved. From here you can go to:" }</p>
            <ul>
                <li><Link<Route> to={Route::Home}>{ "the start page" }</Link<Route>></li>
                <li><Link<Route> to={Route::LearnIndex}>{ "the chapters" }</Link<Route>></li>
                <li><Link<Route> to={Route::Play}>{ "the playground" }</Link<Route>></li>
            </ul>
        </div>
    }
}
