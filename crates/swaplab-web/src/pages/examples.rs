//! `/examples`: the built-in examples, each with what its swap changes.

use swaplab_content::{example, examples};
use swaplab_core::diff::{ChangeStatus, project_changes};
use yew::prelude::*;
use yew_router::prelude::*;

use super::use_title;
use crate::route::Route;

/// The examples gallery.
#[component]
pub fn ExamplesPage() -> Html {
    use_title(Some("Examples".to_owned()));
    let infos = match examples() {
        Ok(infos) => infos,
        Err(error) => {
            return html! {
                <div class="page narrow"><h1>{ "Examples" }</h1><p>{ error.to_string() }</p></div>
            };
        }
    };
    html! {
        <div class="page narrow">
            <h1>{ "Examples" }</h1>
            <p>{ "Each example is a whole workspace: the project before the swap, the project \
                  after it, the MCP server and the mock CRM. Open one in the playground to read \
                  and edit its files." }</p>
            <ul class="cards examples">
                { for infos.into_iter().map(|info| {
                    let counts = example(info.id).ok().flatten().map(|ex| {
                        let changes = project_changes(&ex.workspace.before, &ex.workspace.after);
                        let count = |status| changes.iter().filter(|c| c.status == status).count();
                        format!(
                            "{} files before, {} after: {} changed, {} added, {} removed by the swap.",
                            ex.workspace.before.len(),
                            ex.workspace.after.len(),
                            count(ChangeStatus::Modified),
                            count(ChangeStatus::Added),
                            count(ChangeStatus::Removed),
                        )
                    });
                    let query = [("example", info.id)];
                    html! {
                        <li class="card" data-example={info.id}>
                            <h2>{ info.title.clone() }</h2>
                            <p>{ info.summary.clone() }</p>
                            if let Some(counts) = counts { <p class="meta">{ counts }</p> }
                            <p>
                                <Link<Route, [(&'static str, &'static str); 1]>
                                    to={Route::Play}
                                    query={Some(query)}
                                    classes="button"
                                >
                                    { "Open in the playground" }
                                </Link<Route, [(&'static str, &'static str); 1]>>
                            </p>
                        </li>
                    }
                }) }
            </ul>
        </div>
    }
}
