//! The results panel: tabs over the panes, a verdict on each tab, the shared run
//! controls, and a live region that tells screen-reader users what changed.

use std::rc::Rc;

use swaplab_core::FileRef;
use swaplab_core::diff::FileChange;
use swaplab_core::proof::Stop;
use swaplab_core::review::{ReviewOutcome, Verdict};
use swaplab_core::sim::attack::AttackVerdict;
use swaplab_core::sim::conversation::{Policy, RunOptions, run_script};
use swaplab_core::sim::trace::trace;
use swaplab_core::sim::{Side, Simulation};
use swaplab_core::words::count;
use yew::prelude::*;

use super::analysis::SharedAnalysis;
use super::attack::AttackPane;
use super::conversation::{ConversationPane, ConversationPaneProps, RunChoice};
use super::proof::ProofPane;
use super::review::ReviewPane;
use super::tools::ToolsPane;
use super::trace::TracePane;
use super::{DiffPane, Goto, Played, PlayedRun};

/// The panes, in tab order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tab {
    /// The companion proof.
    Proof,
    /// The review.
    Review,
    /// The diff.
    Diff,
    /// The server's tools.
    Tools,
    /// A scripted conversation.
    Conversation,
    /// Cross-customer reads and writes.
    Attack,
    /// Each id's path.
    Trace,
}

impl Tab {
    const ALL: [Tab; 7] = [
        Tab::Proof,
        Tab::Review,
        Tab::Diff,
        Tab::Tools,
        Tab::Conversation,
        Tab::Attack,
        Tab::Trace,
    ];

    fn name(self) -> &'static str {
        match self {
            Tab::Proof => "Proof",
            Tab::Review => "Review",
            Tab::Diff => "Diff",
            Tab::Tools => "Tools",
            Tab::Conversation => "Conversation",
            Tab::Attack => "Attack",
            Tab::Trace => "Trace",
        }
    }

    /// The tab whose id (`proof`, `review`, …) is `id`.
    pub fn parse(id: &str) -> Option<Tab> {
        Tab::ALL.into_iter().find(|t| t.id() == id)
    }

    fn id(self) -> &'static str {
        match self {
            Tab::Proof => "proof",
            Tab::Review => "review",
            Tab::Diff => "diff",
            Tab::Tools => "tools",
            Tab::Conversation => "conversation",
            Tab::Attack => "attack",
            Tab::Trace => "trace",
        }
    }
}

/// Props for [`ResultsPanel`].
#[derive(Properties, PartialEq)]
pub struct ResultsPanelProps {
    /// The analysis of the current files (possibly a few keystrokes behind).
    pub analysis: SharedAnalysis,
    /// Whether the files changed since the analysis was made.
    pub stale: bool,
    /// How the analysed projects differ, for the diff pane.
    pub changes: Rc<Vec<FileChange>>,
    /// The file in the editor.
    pub open: Option<FileRef>,
    /// Opens a file.
    pub on_open: Callback<FileRef>,
    /// Opens a file at a line.
    pub on_goto: Callback<Goto>,
    /// The pane shown first (from `?tab=`).
    #[prop_or_default]
    pub initial_tab: Option<Tab>,
    /// The run shown first (from `?policy=`, `?side=`, `?script=`).
    #[prop_or_default]
    pub initial_run: Option<InitialRun>,
}

/// The run a link asks the panel to show first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InitialRun {
    /// How the model fills arguments.
    pub policy: Policy,
    /// Which project runs.
    pub side: Side,
    /// The script's file stem, when named.
    pub script: Option<String>,
}

/// A value as the trace shows it: a secret's first four characters only.
fn shown_value(name: &str, value: &str) -> String {
    let secret =
        ["TOKEN", "KEY", "SECRET", "PASSWORD"].iter().any(|w| name.to_uppercase().contains(w));
    if secret && value.chars().count() > 4 {
        format!("{}…", value.chars().take(4).collect::<String>())
    } else {
        value.to_owned()
    }
}

/// Runs the chosen script under the chosen policy on the chosen side.
pub(crate) fn play(sim: &Simulation, choice: &RunChoice) -> PlayedRun {
    let scripts: Vec<String> = sim.scripts.iter().map(|s| s.file.clone()).collect();
    let script = sim.scripts.get(choice.script).or_else(|| sim.scripts.first());
    let mut played = PlayedRun {
        transcript: None,
        traces: Vec::new(),
        startup: None,
        scripts,
        caller: script.and_then(|s| s.caller.clone()),
        server_file: sim.report.server_file.clone(),
        environment: sim
            .seed
            .network
            .env
            .iter()
            .map(|v| (v.name.clone(), shown_value(&v.name, &v.value), v.from.clone()))
            .collect(),
        crm: match &sim.seed.network.mock {
            Some(mock) => format!(
                "the project's own mock, {}/{} (class {}), at {}:{}",
                mock.area.prefix(),
                mock.file,
                mock.class,
                mock.host,
                mock.port
            ),
            None => match &sim.seed.file {
                Some(file) => format!("the seed {file}, answering HubSpot v3 at 127.0.0.1:8787"),
                None => {
                    "the built-in example's seed, answering HubSpot v3 at 127.0.0.1:8787".to_owned()
                }
            },
        },
    };
    let Some(script) = script else { return played };
    match sim.start(choice.side) {
        Ok(agent) => {
            let options = RunOptions { policy: choice.policy, answers: choice.answers.clone() };
            let transcript = run_script(&agent, &sim.seed, script, &options);
            played.traces = trace(&agent, &sim.seed, &transcript);
            played.transcript = Some(transcript);
        }
        Err(failure) => played.startup = Some(failure.message.clone()),
    }
    played
}

/// The results panel.
#[component]
pub fn ResultsPanel(props: &ResultsPanelProps) -> Html {
    let tab = use_state(|| props.initial_tab.unwrap_or(Tab::Proof));
    let choice = use_state(|| {
        let run = props.initial_run.clone();
        let script = run.as_ref().and_then(|r| r.script.as_ref()).and_then(|stem| {
            let path = format!("conversations/{stem}.yml");
            props.analysis.sim.scripts.iter().position(|s| s.file == path)
        });
        RunChoice {
            policy: run.as_ref().map_or(Policy::Faithful, |r| r.policy),
            side: run.as_ref().map_or(Side::After, |r| r.side),
            script: script.unwrap_or(0),
            answers: Vec::new(),
        }
    });
    let played = use_memo((props.analysis.clone(), (*choice).clone()), |(analysis, choice)| {
        Played(Rc::new(play(&analysis.sim, choice)))
    });
    let on_choice = {
        let choice = choice.clone();
        Callback::from(move |next: RunChoice| choice.set(next))
    };
    let run =
        ConversationPaneProps { played: (*played).clone(), choice: (*choice).clone(), on_choice };
    // Alt+arrows move between panes from anywhere on the page.
    {
        let tab = tab.clone();
        use_effect_with(*tab, move |current| {
            let current = *current;
            let listener = crate::browser::window().map(|window| {
                gloo::events::EventListener::new_with_options(
                    &window,
                    "keydown",
                    gloo::events::EventListenerOptions::enable_prevent_default(),
                    move |event| {
                        let Some(event) = wasm_bindgen::JsCast::dyn_ref::<KeyboardEvent>(event)
                        else {
                            return;
                        };
                        if !event.alt_key() {
                            return;
                        }
                        let at = Tab::ALL.iter().position(|t| *t == current).unwrap_or(0);
                        let next = match event.key().as_str() {
                            "ArrowRight" => Tab::ALL[(at + 1) % Tab::ALL.len()],
                            "ArrowLeft" => Tab::ALL[(at + Tab::ALL.len() - 1) % Tab::ALL.len()],
                            _ => return,
                        };
                        event.prevent_default();
                        tab.set(next);
                    },
                )
            });
            move || drop(listener)
        });
    }

    let analysis = &props.analysis;
    let proof_failed = analysis.proof.failed().len();
    let review_failed = analysis.review.count(Verdict::Fail);
    let review_untested = analysis.review.count(Verdict::NotTested);
    let attack = &analysis.review.attack.after.verdict;
    // A verdict with nothing under it is neutral, never green.
    let badge = |tab: Tab| -> Option<(String, &'static str)> {
        match tab {
            Tab::Proof => Some(match &analysis.proof.stop {
                Some(Stop::CouldNotRun { .. }) => ("not run".into(), "not-tested"),
                Some(_) => ("✗ stopped".into(), "fail"),
                None if proof_failed == 0 => ("✓".into(), "pass"),
                None => (format!("✗ {proof_failed}"), "fail"),
            }),
            Tab::Review => Some(if review_failed > 0 {
                (format!("✗ {review_failed}"), "fail")
            } else if review_untested > 0 {
                ("?".into(), "not-tested")
            } else {
                ("✓".into(), "pass")
            }),
            Tab::Attack => Some(match attack {
                AttackVerdict::Leaked { leaks } => (count(*leaks, "leak", "leaks"), "fail"),
                AttackVerdict::NoLeak { .. } => ("0".into(), "pass"),
                AttackVerdict::NotTested { .. } => ("not tested".into(), "not-tested"),
            }),
            _ => None,
        }
    };
    let announcement = format!(
        "Proof: {}. Review: {}. Attack: {}.",
        match &analysis.proof.stop {
            Some(Stop::CouldNotRun { .. }) => "could not run".to_owned(),
            Some(stop) => format!("stopped, {}", stop.headline()),
            None if proof_failed == 0 => "all checks pass".to_owned(),
            None => count(proof_failed, "check fails", "checks fail"),
        },
        match analysis.review.outcome() {
            ReviewOutcome::Passed => "passes".to_owned(),
            ReviewOutcome::Incomplete => format!(
                "nothing fails, but {} could not be tested",
                count(review_untested, "check", "checks")
            ),
            ReviewOutcome::Failed => count(review_failed, "check fails", "checks fail"),
        },
        match attack {
            AttackVerdict::Leaked { leaks } => {
                format!("{} after the swap", count(*leaks, "leak", "leaks"))
            }
            AttackVerdict::NoLeak { .. } => "no leak".to_owned(),
            AttackVerdict::NotTested { reason } => {
                format!("not tested after the swap, because {}", reason.text())
            }
        },
    );
    let onkeydown = {
        let tab = tab.clone();
        Callback::from(move |e: KeyboardEvent| {
            let at = Tab::ALL.iter().position(|t| *t == *tab).unwrap_or(0);
            let next = match e.key().as_str() {
                "ArrowRight" => Tab::ALL[(at + 1) % Tab::ALL.len()],
                "ArrowLeft" => Tab::ALL[(at + Tab::ALL.len() - 1) % Tab::ALL.len()],
                "Home" => Tab::ALL[0],
                "End" => Tab::ALL[Tab::ALL.len() - 1],
                _ => return,
            };
            e.prevent_default();
            tab.set(next);
            if let Some(button) = crate::browser::window()
                .and_then(|w| w.document())
                .and_then(|d| d.get_element_by_id(&format!("tab-{}", next.id())))
                .and_then(|el| wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlElement>(el).ok())
            {
                let _ = button.focus();
            }
        })
    };
    let body = match *tab {
        Tab::Proof => html! { <ProofPane analysis={analysis.clone()} /> },
        Tab::Review => {
            html! { <ReviewPane analysis={analysis.clone()} on_goto={props.on_goto.clone()} /> }
        }
        Tab::Diff => html! {
            <DiffPane workspace={props.analysis.workspace.clone()} changes={props.changes.clone()} open={props.open.clone()}
                      on_open={props.on_open.clone()} semantic={Rc::new(analysis.semantic.clone())} on_goto={props.on_goto.clone()} />
        },
        Tab::Tools => html! { <ToolsPane analysis={analysis.clone()} /> },
        Tab::Conversation => html! { <ConversationPane ..run /> },
        Tab::Attack => html! { <AttackPane analysis={analysis.clone()} run={run} /> },
        Tab::Trace => html! { <TracePane {run} on_goto={props.on_goto.clone()} /> },
    };
    html! {
        <section class={classes!("pane", "results", props.stale.then_some("stale"))} aria-label="Results">
            <div class="tabs" role="tablist" aria-label="Result panes" {onkeydown}>
                { for Tab::ALL.iter().map(|t| {
                    let selected = *tab == *t;
                    let onclick = { let tab = tab.clone(); let t = *t; Callback::from(move |_: MouseEvent| tab.set(t)) };
                    html! {
                        <button type="button" role="tab" id={format!("tab-{}", t.id())} aria-selected={selected.to_string()}
                                aria-controls="result-panel" tabindex={if selected { "0" } else { "-1" }} {onclick}
                                class={classes!("tab", selected.then_some("current"))}>
                            { t.name() }
                            if let Some((text, class)) = badge(*t) { <span class={classes!("tab-badge", class)}>{ text }</span> }
                        </button>
                    }
                }) }
            </div>
            <div class="sr-only" aria-live="polite">{ announcement }</div>
            <div id="result-panel" role="tabpanel" aria-labelledby={format!("tab-{}", tab.id())} class="tab-panel">
                { body }
            </div>
        </section>
    }
}
