//! A chapter's live widget: one of the playground's panes on a named example, with a
//! link that opens the same state and pane in the playground.
//!
//! Each example is analysed once per page load and shared by every widget that names
//! it. Conversation, attack and trace widgets wait for the reader's *Run*, so a reader
//! can guess first, and a page of widgets costs nothing until it is read.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

use swaplab_content::widget::{WidgetKind, WidgetSpec, parse_widget};
use swaplab_core::diff::project_changes;
use swaplab_core::sim::Side;
use swaplab_core::{Area, FileRef, Workspace};
use yew::prelude::*;

use super::attack::AttackPane;
use super::conversation::{ConversationPane, ConversationPaneProps, RunChoice};
use super::proof::ProofPane;
use super::results::play;
use super::review::ReviewPane;
use super::tools::ToolsPane;
use super::trace::TracePane;
use super::{Analysis, DiffPane, Goto, Played, SharedAnalysis};
use crate::route::Route;
use crate::router::{plain_click, use_navigator};

/// An example's files and analysis, shared by the widgets on a page.
#[derive(Clone)]
struct State {
    title: String,
    workspace: Rc<Workspace>,
    analysis: SharedAnalysis,
}

/// Whether the widget runs in the browser, rather than being prerendered natively.
const LIVE: bool = cfg!(target_arch = "wasm32");

thread_local! {
    static STATES: RefCell<BTreeMap<String, Option<State>>> = const { RefCell::new(BTreeMap::new()) };
}

/// The example `id`, analysed once.
fn state(id: &str) -> Option<State> {
    if let Some(found) = STATES.with(|s| s.borrow().get(id).cloned()) {
        return found;
    }
    let made = swaplab_content::example(id).ok().flatten().map(|example| {
        let workspace = Rc::new(example.workspace);
        State {
            title: example.info.title,
            analysis: SharedAnalysis(Rc::new(Analysis::of(&workspace, 0))),
            workspace,
        }
    });
    STATES.with(|s| s.borrow_mut().insert(id.to_owned(), made.clone()));
    made
}

/// Props for [`WidgetBlock`].
#[derive(Properties, PartialEq)]
pub struct WidgetBlockProps {
    /// The block's YAML.
    pub body: AttrValue,
    /// The line of the block's first body line in the chapter.
    pub line: u32,
}

/// A ```` ```widget ```` block: the widget, or why it cannot be shown.
#[component]
pub fn WidgetBlock(props: &WidgetBlockProps) -> Html {
    let spec = use_memo((props.body.clone(), props.line), |(body, line)| {
        parse_widget(body, *line).map(Rc::new)
    });
    match &*spec {
        Ok(spec) => html! { <Widget spec={spec.clone()} /> },
        Err(error) => html! {
            <div class="widget widget-error" role="note">
                <p>{ format!("This widget cannot be shown (chapter {error}).") }</p>
            </div>
        },
    }
}

/// Props for [`Widget`].
#[derive(Properties, PartialEq)]
pub struct WidgetProps {
    /// What to show.
    pub spec: Rc<WidgetSpec>,
}

fn kind_title(kind: WidgetKind) -> &'static str {
    match kind {
        WidgetKind::Diff => "Diff",
        WidgetKind::Proof => "Companion proof",
        WidgetKind::Review => "Review",
        WidgetKind::Tools => "Server tools",
        WidgetKind::Conversation => "Conversation",
        WidgetKind::Attack => "Attack",
        WidgetKind::Trace => "Trace",
    }
}

/// One widget.
#[component]
pub fn Widget(props: &WidgetProps) -> Html {
    let spec = props.spec.clone();
    let ran = use_state(|| !spec.kind.runs());
    let found = use_memo(spec.state.clone(), |id| state(id));
    let open = use_state(|| spec.file.clone().or_else(|| first_changed(found.as_ref().as_ref())));
    let choice = {
        let spec = spec.clone();
        let found = found.clone();
        use_state(move || RunChoice {
            policy: spec.policy,
            side: spec.side,
            script: script_index(found.as_ref().as_ref(), spec.script.as_deref()),
            answers: Vec::new(),
        })
    };
    let played = use_memo(((*choice).clone(), *ran, spec.state.clone()), {
        let found = found.clone();
        move |(choice, ran, _)| {
            found
                .as_ref()
                .as_ref()
                .filter(|_| *ran)
                .map(|state| Played(Rc::new(play(&state.analysis.sim, choice))))
        }
    });
    let changes = use_memo(spec.state.clone(), {
        let found = found.clone();
        move |_| {
            Rc::new(
                found
                    .as_ref()
                    .as_ref()
                    .map(|s| project_changes(&s.workspace.before, &s.workspace.after))
                    .unwrap_or_default(),
            )
        }
    });
    let navigator = use_navigator();

    let Some(state) = found.as_ref().clone() else {
        return html! {
            <div class="widget widget-error" role="note">
                <p>{ format!("This widget names the example “{}”, which does not exist.", spec.state) }</p>
            </div>
        };
    };
    let playground = spec.playground_href();
    let on_goto = {
        let (navigator, state_id) = (navigator.clone(), spec.state.clone());
        Callback::from(move |goto: Goto| {
            let Some(navigator) = &navigator else { return };
            let mut query = vec![("example", state_id.clone()), ("file", goto.file.to_string())];
            if let Some(line) = goto.line {
                query.push(("line", line.to_string()));
            }
            navigator.push_with_query(&Route::Play, &query);
        })
    };
    let on_open = {
        let open = open.clone();
        Callback::from(move |file: FileRef| open.set(Some(file)))
    };
    let on_run = {
        let ran = ran;
        Callback::from(move |_: MouseEvent| ran.set(true))
    };
    let on_choice = {
        let choice = choice.clone();
        Callback::from(move |next: RunChoice| choice.set(next))
    };
    let analysis = state.analysis.clone();
    let body = match (spec.kind, (*played).clone()) {
        (WidgetKind::Proof, _) => html! { <ProofPane analysis={analysis} /> },
        (WidgetKind::Review, _) => html! {
            <ReviewPane analysis={analysis} on_goto={on_goto} only={spec.check.clone().map(AttrValue::from)} />
        },
        (WidgetKind::Diff, _) => html! {
            <DiffPane workspace={state.workspace.clone()} changes={(*changes).clone()} open={(*open).clone()}
                      on_open={on_open} semantic={Rc::new(analysis.semantic.clone())} on_goto={on_goto} />
        },
        (WidgetKind::Tools, _) => html! {
            <ToolsPane analysis={analysis} tool={spec.tool.clone().map(AttrValue::from)}
                       arguments={spec.arguments.clone().map(AttrValue::from)} />
        },
        (kind, Some(played)) => {
            let run = ConversationPaneProps { played, choice: (*choice).clone(), on_choice };
            match kind {
                WidgetKind::Attack => html! { <AttackPane analysis={analysis} run={run} /> },
                WidgetKind::Trace => html! { <TracePane {run} on_goto={on_goto} /> },
                _ => html! { <ConversationPane ..run /> },
            }
        }
        (_, None) => html! {
            <div class="widget-idle">
                <p>{ run_description(&spec, &state) }</p>
                // Prerendered (`prerender.rs`), the button waits for the app to take over.
                <button type="button" class="button primary widget-run" onclick={on_run}
                        disabled={!LIVE} title={(!LIVE).then_some("Runs once Swap Lab's script has loaded")}>{ "▶ Run" }</button>
            </div>
        },
    };
    let href = playground.trim_start_matches('/').to_owned();
    let onclick_open = {
        let navigator = navigator;
        let spec = spec.clone();
        Callback::from(move |e: MouseEvent| {
            if !plain_click(&e) {
                return;
            }
            let Some(navigator) = &navigator else { return };
            e.prevent_default();
            let query = spec.playground_query();
            navigator.push_with_query(&Route::Play, &query);
        })
    };
    html! {
        <figure class={classes!("widget", format!("widget-{}", spec.kind.name()))}
                data-widget={spec.kind.name()} data-state={spec.state.clone()}>
            <div class="widget-head">
                <span class="widget-kind">{ kind_title(spec.kind) }</span>
                <span class="widget-state">{ state.title.clone() }</span>
                <a class="widget-open" href={href} onclick={onclick_open}>{ "Open in playground ↗" }</a>
            </div>
            <div class="widget-body">{ body }</div>
            if let Some(caption) = &spec.caption {
                <figcaption class="widget-caption">{ caption.clone() }</figcaption>
            }
        </figure>
    }
}

/// What pressing *Run* will do, in a sentence.
fn run_description(spec: &WidgetSpec, state: &State) -> String {
    let sim = &state.analysis.sim;
    let script = spec
        .script
        .clone()
        .or_else(|| {
            sim.scripts.first().map(|s| {
                s.file.trim_start_matches("conversations/").trim_end_matches(".yml").to_owned()
            })
        })
        .unwrap_or_else(|| "the default conversation".to_owned());
    let side = if spec.side == Side::Before { "before" } else { "after" };
    let what = match spec.kind {
        WidgetKind::Attack => "and the attack on both projects",
        WidgetKind::Trace => "and traces every customer id through it",
        _ => "turn by turn",
    };
    format!(
        "Runs the conversation “{script}” on the project {side} the swap, with a {} model, {what}.",
        spec.policy.name()
    )
}

/// The first file the swap changes, for a diff widget without `file:`.
fn first_changed(state: Option<&State>) -> Option<FileRef> {
    let ws = &state?.workspace;
    project_changes(&ws.before, &ws.after)
        .into_iter()
        .find(|c| c.status != swaplab_core::diff::ChangeStatus::Unchanged)
        .map(|c| {
            let area = if c.status == swaplab_core::diff::ChangeStatus::Removed {
                Area::Before
            } else {
                Area::After
            };
            FileRef::new(area, c.path)
        })
}

fn script_index(state: Option<&State>, stem: Option<&str>) -> usize {
    let (Some(state), Some(stem)) = (state, stem) else { return 0 };
    let path = format!("conversations/{stem}.yml");
    state.analysis.sim.scripts.iter().position(|s| s.file == path).unwrap_or(0)
}
