//! The conversation pane: a scripted call under the chosen policy, the confirmation
//! questions the reader answers, and the transcript — what the model sent, where each
//! argument came from, what it saw, memory and CRM requests after each step.

use swaplab_core::sim::Side;
use swaplab_core::sim::conversation::{ArgSource, Event as Step, Policy};
use swaplab_core::sim::run::{Caller, Status};
use yew::prelude::*;

use super::Played;

/// What the reader can change about the run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunChoice {
    /// The model policy.
    pub policy: Policy,
    /// Which project.
    pub side: Side,
    /// Which script.
    pub script: usize,
    /// The reader's answers to confirmations, in order.
    pub answers: Vec<bool>,
}

/// Props for [`ConversationPane`].
#[derive(Properties, PartialEq, Clone)]
pub struct ConversationPaneProps {
    /// The run shown.
    pub played: Played,
    /// The reader's choices.
    pub choice: RunChoice,
    /// Changes them.
    pub on_choice: Callback<RunChoice>,
}

/// The policy picker and the project switch, shared by the conversation, attack and
/// trace panes. A function, not a component: each component type links ~2 KB of Yew's
/// lifecycle code, and these controls re-render with their pane anyway.
pub fn run_controls(props: &ConversationPaneProps) -> Html {
    let choice = &props.choice;
    let scripts = &props.played.scripts;
    html! {
        <div class="run-controls">
            <fieldset class="policy">
                <legend>{ "The model fills ids" }</legend>
                { for Policy::ALL.iter().map(|policy| {
                    let on_choice = props.on_choice.clone();
                    let mut next = choice.clone();
                    next.policy = *policy;
                    next.answers.clear();
                    let onchange = Callback::from(move |_: Event| on_choice.emit(next.clone()));
                    let hint = match policy {
                        Policy::Faithful => "with the identified caller",
                        Policy::Confused => "with the customer named last",
                        Policy::Adversarial => "with another customer's id",
                    };
                    html! {
                        <label title={hint}>
                            <input type="radio" name="policy" value={policy.name()} checked={choice.policy == *policy} {onchange} />
                            { policy.name() }
                        </label>
                    }
                }) }
            </fieldset>
            <label>{ "Project " }
                <select aria-label="Project" onchange={{
                    let on_choice = props.on_choice.clone();
                    let choice = choice.clone();
                    Callback::from(move |e: Event| {
                        let select: web_sys::HtmlSelectElement = e.target_unchecked_into();
                        let mut next = choice.clone();
                        next.side = if select.value() == "before" { Side::Before } else { Side::After };
                        next.answers.clear();
                        on_choice.emit(next);
                    })
                }}>
                    <option value="after" selected={choice.side == Side::After}>{ "after the swap" }</option>
                    <option value="before" selected={choice.side == Side::Before}>{ "before the swap" }</option>
                </select>
            </label>
            if scripts.len() > 1 {
                <label>{ "Script " }
                    <select aria-label="Script" onchange={{
                        let on_choice = props.on_choice.clone();
                        let choice = choice.clone();
                        Callback::from(move |e: Event| {
                            let select: web_sys::HtmlSelectElement = e.target_unchecked_into();
                            let mut next = choice.clone();
                            next.script = select.selected_index().max(0).unsigned_abs() as usize;
                            next.answers.clear();
                            on_choice.emit(next);
                        })
                    }}>
                        { for scripts.iter().enumerate().map(|(i, s)| html! { <option selected={i == choice.script}>{ s.clone() }</option> }) }
                    </select>
                </label>
            }
        </div>
    }
}

/// The conversation pane.
#[component]
pub fn ConversationPane(props: &ConversationPaneProps) -> Html {
    let played = &props.played;
    let controls = run_controls(props);
    let transcript = match (&played.transcript, &played.startup) {
        (_, Some(failure)) => {
            return html! {
                <div class="result conversation-pane">
                    { controls }
                    <p class="verdict fail">{ format!("The agent does not start: {failure}") }</p>
                </div>
            };
        }
        (Some(t), None) => t,
        (None, None) => {
            return html! { <div class="result conversation-pane">{ controls }<p class="muted">{ "No conversation script." }</p></div> };
        }
    };
    let mut pause_index = 0usize;
    let entries = transcript.entries.iter().map(|entry| match &entry.event {
        Step::User { text, answer } => html! {
            <li class="turn user"><span class="who">{ "caller" }</span><span class="said">{ text.clone() }</span>
                if let Some(a) = answer { <span class="badge">{ if *a { "answers yes" } else { "answers no" } }</span> }
            </li>
        },
        Step::Skill { skill, block, error, offered } => html! {
            <li class="turn skill">
                { format!("model activates {skill}{}", block.as_ref().map(|b| format!(" › {b}")).unwrap_or_default()) }
                if let Some(error) = error { <span class="bad">{ format!(" — refused: {error}") }</span> }
                else { <span class="muted">{ format!(" — offered: {}", if offered.is_empty() { "no tools".to_owned() } else { offered.join(", ") }) }</span> }
            </li>
        },
        Step::Remember { key, value, error } => html! {
            <li class="turn remember">{ format!("model sets {key} = {}", value.to_python_json()) }
                if let Some(e) = error { <span class="bad">{ format!(" — refused: {e}") }</span> }
            </li>
        },
        Step::Call { record, args, unfilled } => {
            let who = match &record.caller {
                Caller::Model => "model calls".to_owned(),
                Caller::Step { block, step } => format!("runtime runs step {block}.{step}:"),
                Caller::Confirmed => "runtime runs the confirmed call".to_owned(),
            };
            let question = (record.status == Status::Paused).then(|| {
                let k = pause_index;
                pause_index += 1;
                let answered = props.choice.answers.get(k).copied();
                let answer = |yes: bool| {
                    let on_choice = props.on_choice.clone();
                    let mut next = props.choice.clone();
                    next.answers.truncate(k);
                    while next.answers.len() < k { next.answers.push(true); }
                    next.answers.push(yes);
                    Callback::from(move |_: MouseEvent| on_choice.emit(next.clone()))
                };
                html! {
                    <div class="confirm-ask" role="group" aria-label="Confirmation">
                        <span>{ "The runtime pauses and asks the caller: " }<q>{ record.utterances.first().cloned().unwrap_or_else(|| "(the model words the question)".into()) }</q></span>
                        <button type="button" class={classes!((answered == Some(true)).then_some("chosen"))} onclick={answer(true)}>{ "Yes" }</button>
                        <button type="button" class={classes!((answered == Some(false)).then_some("chosen"))} onclick={answer(false)}>{ "No" }</button>
                    </div>
                }
            });
            html! {
                <li class={classes!("turn", "call", record.is_error.then_some("error"))}>
                    <div class="call-head"><span class="who">{ who }</span> <code>{ record.tool.clone() }</code> <code class="args">{ record.args.to_python_json() }</code></div>
                    if !args.is_empty() {
                        <ul class="arg-sources">{ for args.iter().filter(|a| !matches!(a.source, ArgSource::Literal)).map(|a| html! {
                            <li><code>{ a.name.clone() }</code>{ format!(" = {} — {}", swaplab_core::sim::json::plain(&a.value), a.source.text(&transcript.entries)) }</li>
                        }) }</ul>
                    }
                    { for unfilled.iter().map(|u| html! { <p class="muted small">{ format!("{} left out: {}", u.name, u.reason) }</p> }) }
                    if let Some(seen) = &record.model_sees { <div class="seen"><span class="muted">{ "model sees " }</span><code>{ seen.clone() }</code></div> }
                    { for record.utterances.iter().filter(|_| record.status != Status::Paused).map(|u| html! { <p class="bot"><span class="who">{ "assistant" }</span>{ u.clone() }</p> }) }
                    { for question }
                    { for record.log.iter().map(|l| html! { <p class="log small">{ l.clone() }</p> }) }
                    if !entry.crm_requests.is_empty() {
                        <ul class="requests">{ for entry.crm_requests.iter().map(|r| html! { <li><code>{ r.line() }</code></li> }) }</ul>
                    }
                    <details class="memory"><summary>{ format!("memory ({} set)", entry.memory.len()) }</summary>
                        <ul>{ for entry.memory.iter().map(|(k, v)| html! { <li><code>{ format!("{k} = {}", v.to_python_json()) }</code></li> }) }</ul>
                    </details>
                </li>
            }
        }
    });
    html! {
        <div class="result conversation-pane">
            { controls }
            <ol class="transcript">{ for entries }</ol>
            if let Some(waiting) = &transcript.waiting {
                <p class="verdict warn">{ format!("Waiting for the caller's answer about {}.", waiting.tool) }</p>
            }
        </div>
    }
}
