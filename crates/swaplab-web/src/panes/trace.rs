//! The trace pane: each customer id's path through the run, from the conversation to
//! the record, with the hop where it became the model's choice highlighted and every
//! hop that has a place linked to its file and line.

use swaplab_core::FileRef;
use swaplab_core::sim::trace::HopKind;
use swaplab_core::workspace::Area;
use yew::prelude::*;

use super::Goto;
use super::conversation::{ConversationPaneProps, run_controls};

/// Props for [`TracePane`].
#[derive(Properties, PartialEq)]
pub struct TracePaneProps {
    /// The conversation controls and run.
    pub run: ConversationPaneProps,
    /// Opens a file at a line.
    pub on_goto: Callback<Goto>,
}

fn area_of(path: &str, side_after: bool) -> Area {
    if path.starts_with("scripts/") || path.ends_with("server.py") {
        Area::Server
    } else if side_after {
        Area::After
    } else {
        Area::Before
    }
}

/// The trace pane.
#[component]
pub fn TracePane(props: &TracePaneProps) -> Html {
    let run = &props.run;
    let side_after = run.choice.side == swaplab_core::sim::Side::After;
    let server_file = run.played.server_file.clone();
    html! {
        <div class="result trace-pane">
            { run_controls(run) }
            <details class="run-settings">
                <summary>{ "Where this run's settings came from" }</summary>
                <p>{ "CRM: " }{ run.played.crm.clone() }</p>
                if run.played.environment.is_empty() {
                    <p class="muted">{ "No .env or .env.example: the project's processes start with an empty environment." }</p>
                } else {
                    <ul class="env">
                        { for run.played.environment.iter().map(|(name, value, from)| html! {
                            <li><code>{ format!("{name}={value}") }</code>{ format!(" — from {from}") }</li>
                        }) }
                    </ul>
                }
            </details>
            if run.played.traces.is_empty() {
                <p class="muted">{ "No customer id appears in this run." }</p>
            }
            { for run.played.traces.iter().map(|trace| html! {
                <section class="id-trace">
                    <h3>{ format!("{} — {}", trace.id, trace.owner.clone().unwrap_or_default()) }
                        if trace.crossed.is_some() { <span class="badge warn-badge">{ "became the model's choice" }</span> }
                        else { <span class="badge">{ "stayed server-held" }</span> }
                    </h3>
                    <ol class="hops">
                        { for trace.hops.iter().enumerate().map(|(i, hop)| {
                            let crossed = trace.crossed == Some(i);
                            let place = hop.file.as_ref().map(|file| {
                                let area = if Some(file) == server_file.as_ref() { Area::Server } else { area_of(file, side_after) };
                                let target = Goto { file: FileRef::new(area, file.clone()), line: hop.span.map(|s| s.start.line) };
                                let on_goto = props.on_goto.clone();
                                let label = format!("{}/{}{}", area.prefix(), file, hop.span.map(|s| format!(":{}", s.start.line)).unwrap_or_default());
                                html! { <button type="button" class="link-button place" onclick={move |_: MouseEvent| on_goto.emit(target.clone())}>{ label }</button> }
                            });
                            html! {
                                <li class={classes!(format!("hop-{}", format!("{:?}", hop.kind).to_lowercase()), crossed.then_some("crossed"), hop.model_choice.then_some("model"))}>
                                    if crossed { <strong class="crossed-label">{ "here the id left server-held state: " }</strong> }
                                    { hop.text.clone() }
                                    { for place }
                                    if matches!(hop.kind, HopKind::Record) { <span class="badge">{ "record" }</span> }
                                </li>
                            }
                        }) }
                    </ol>
                </section>
            }) }
        </div>
    }
}
