//! `/`: what Swap Lab is, in two sentences, and where to start.

use yew::prelude::*;
use yew_router::prelude::*;

use super::use_title;
use crate::route::Route;

/// The home page.
#[component]
pub fn HomePage() -> Html {
    use_title(None);
    let first_chapter = swaplab_content::chapters().into_iter().next();
    html! {
        <div class="page home">
            <section class="hero">
                <h1>{ "Is the MCP server a drop-in replacement for your agent's tools?" }</h1>
                <p class="lede">
                    { "Swap Lab takes a Rasa agent whose tools move from local Python onto an MCP \
                       server and shows, live in your browser, what survives the move and what \
                       does not. The instructions come through word for word; the customer id a \
                       local tool read from server-held memory becomes an argument the model fills \
                       in, and one customer's tickets or notes can reach another's record." }
                </p>
            </section>
            <section class="start" aria-labelledby="start-heading">
                <h2 id="start-heading">{ "Where to start" }</h2>
                <ul class="cards">
                    if let Some(chapter) = first_chapter {
                        <li class="card">
                            <h3>
                                <Link<Route> to={Route::Chapter { chapter: chapter.slug.to_owned() }}>
                                    { "Read the tutorial" }
                                </Link<Route>>
                            </h3>
                            <p>{ format!("Start with chapter {}, “{}”: the agent, its three skills, \
                                          and where each customer id comes from before the swap.",
                                         chapter.number, chapter.title) }</p>
                        </li>
                    }
                    <li class="card">
                        <h3><Link<Route> to={Route::Play}>{ "Open the playground" }</Link<Route>></h3>
                        <p>{ "The tutorial's project before and after the swap, the MCP server and the \
                              mock CRM, side by side. Edit any file and see what changed." }</p>
                    </li>
                    <li class="card">
                        <h3><Link<Route> to={Route::Examples}>{ "Browse the examples" }</Link<Route>></h3>
                        <p>{ "Swaps to study, each opening in the playground with its files loaded." }</p>
                    </li>
                </ul>
            </section>
        </div>
    }
}
