//! Any path the site does not have.

use yew::prelude::*;

use super::use_title;
use crate::route::Route;
use crate::router::Link;

/// The not-found page.
#[component]
pub fn NotFoundPage() -> Html {
    use_title(Some("Page not found".to_owned()));
    html! {
        <div class="page narrow">
            <h1>{ "There is no page here" }</h1>
            <p>{ "The link may be mistyped, or the page may have moved. From here you can go to:" }</p>
            <ul>
                <li><Link to={Route::Home}>{ "the start page" }</Link></li>
                <li><Link to={Route::LearnIndex}>{ "the chapters" }</Link></li>
                <li><Link to={Route::Play}>{ "the playground" }</Link></li>
            </ul>
        </div>
    }
}
