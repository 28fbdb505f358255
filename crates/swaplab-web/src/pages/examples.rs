//! `/examples`: the built-in examples, each with what its swap changes.

use swaplab_content::{Outcome, example, examples};
use swaplab_core::diff::{ChangeStatus, project_changes};
use swaplab_core::words::count;
use yew::prelude::*;

use super::use_title;
use crate::components::internal_link;
use crate::route::Route;
use crate::router::use_navigator;

fn verdict_word(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Pass => "passes",
        Outcome::Fail => "fails",
        Outcome::Incomplete => "is incomplete",
    }
}

fn verdict_class(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Pass => "pass",
        Outcome::Fail => "fail",
        Outcome::Incomplete => "not-tested",
    }
}

/// The examples gallery.
#[component]
pub fn ExamplesPage() -> Html {
    use_title(Some("Examples".to_owned()));
    // Always there: pages render inside the router.
    let navigator = use_navigator();
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
                  after it, the MCP server and the mock CRM. Each card says what the proof, the \
                  review and the attack find in it — the test suite replays every one. Open one \
                  in the playground to read and edit its files." }</p>
            <ul class="cards examples">
                { for infos.into_iter().map(|info| {
                    let counts = example(info.id).ok().flatten().map(|ex| {
                        let changes = project_changes(&ex.workspace.before, &ex.workspace.after);
                        let with = |status| changes.iter().filter(|c| c.status == status).count();
                        format!(
                            "{} before, {} after: {} changed, {} added, {} removed by the swap.",
                            count(ex.workspace.before.len(), "file", "files"),
                            ex.workspace.after.len(),
                            with(ChangeStatus::Modified),
                            with(ChangeStatus::Added),
                            with(ChangeStatus::Removed),
                        )
                    });
                    let query = vec![("example".to_owned(), info.id.to_owned())];
                    html! {
                        <li class="card" data-example={info.id}>
                            <h2>{ info.title.clone() }</h2>
                            <p>{ info.summary.clone() }</p>
                            if let Some(counts) = counts { <p class="meta">{ counts }</p> }
                            if let Some(expect) = &info.expect {
                                <ul class="expected" aria-label="Expected verdicts">
                                    <li class={verdict_class(expect.proof)}>{ format!("proof {}", verdict_word(expect.proof)) }</li>
                                    <li class={verdict_class(expect.review)}>{
                                        if expect.review_failed.is_empty() { format!("review {}", verdict_word(expect.review)) }
                                        else { format!("review fails ({})", expect.review_failed.len()) }
                                    }</li>
                                    // A count of 0 from an attack that did not run is not "no leak".
                                    if !expect.tested_after {
                                        <li class="not-tested">{ "attack not tested after the swap" }</li>
                                    } else {
                                        <li class={if expect.leaks_after == 0 { "pass" } else { "fail" }}>{
                                            format!("{} after the swap", count(expect.leaks_after, "leak", "leaks"))
                                        }</li>
                                    }
                                    if !expect.starts { <li class="fail">{ "the agent does not start" }</li> }
                                </ul>
                            }
                            <p>
                                if let Some(navigator) = &navigator {
                                    { internal_link(navigator, Route::Play, query, None, Some("button"),
                                                    vec![html! { "Open in the playground" }]) }
                                }
                            </p>
                        </li>
                    }
                }) }
            </ul>
        </div>
    }
}
