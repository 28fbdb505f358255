//! The attack pane: whose records reached this conversation under the chosen policy —
//! impossible to miss — and the systematic attack on both projects. A side says "no
//! leak" only on the core's [`AttackVerdict::NoLeak`]; an attack or a conversation that
//! did not run says "not tested" and why, in neutral colours, never in green.

use swaplab_core::crossing::{CrossedRecord, crossing};
use swaplab_core::sim::attack::{AttackReport, AttackVerdict, LeakKind, ProbeKind, ProbeOutcome};
use swaplab_core::words::count;
use yew::prelude::*;

use super::analysis::SharedAnalysis;
use super::conversation::{ConversationPaneProps, run_controls};

/// Props for [`AttackPane`].
#[derive(Properties, PartialEq)]
pub struct AttackPaneProps {
    /// The analysis (for the systematic attack).
    pub analysis: SharedAnalysis,
    /// The conversation controls and run.
    pub run: ConversationPaneProps,
}

fn side_summary(name: &str, report: &AttackReport) -> Html {
    let (class, text) = match &report.verdict {
        AttackVerdict::NotTested { reason } => {
            ("not-tested", format!("not tested — {}", reason.text()))
        }
        AttackVerdict::NoLeak { probes } => (
            "pass",
            format!("no leak — {}, each refused or harmless", count(*probes, "probe", "probes")),
        ),
        AttackVerdict::Leaked { .. } => {
            let reads = report.leaks.iter().filter(|l| l.kind == LeakKind::Read).count();
            let writes = report.leaks.len() - reads;
            (
                "fail",
                format!(
                    "{} and {} reached another customer: {}",
                    count(reads, "read", "reads"),
                    count(writes, "write", "writes"),
                    report
                        .leaks
                        .iter()
                        .map(|l| format!("{} via {}", l.tool, l.argument))
                        .collect::<Vec<_>>()
                        .join("; ")
                ),
            )
        }
    };
    let stopped = report
        .probes
        .iter()
        .filter(|p| matches!(p.outcome, ProbeOutcome::CouldNotRun { .. }))
        .count();
    html! {
        <li class={class}>
            <strong>{ format!("{name}: ") }</strong>
            { text }
            if report.verdict.leaked() && stopped > 0 {
                <span class="not-tested">{ format!(" ({} could not run, so not tested)", count(stopped, "other probe", "other probes")) }</span>
            }
        </li>
    }
}

/// Each probe of one side: the call, and what the model was told or what leaked.
fn probes(title: &str, report: &AttackReport) -> Html {
    if report.probes.is_empty() {
        return html! {};
    }
    html! {
        <details class="probes">
            <summary>{ format!("{title} ({})", report.probes.len()) }</summary>
            <ul>
                { for report.probes.iter().map(|probe| {
                    let how = match probe.kind {
                        ProbeKind::IdArgument => "through its own argument",
                        ProbeKind::ExtraArgument => "as an extra argument",
                    };
                    let (class, outcome) = match &probe.outcome {
                        ProbeOutcome::Leaked => ("fail", "reached the other customer's records".to_owned()),
                        ProbeOutcome::Blocked { reason } => ("pass", format!("refused — the model is told: {reason}")),
                        ProbeOutcome::NoEffect => ("pass", "ran, and touched nothing of the other customer".to_owned()),
                        ProbeOutcome::CouldNotRun { reason } => ("not-tested", format!("could not run, so not tested — {reason}")),
                    };
                    html! {
                        <li class={class}>
                            <code>{ format!("{} {}", probe.tool, probe.call.args.to_python_json()) }</code>
                            <span class="muted">{ format!(" in {}, {how} ({}): ", probe.skill, probe.id_arguments.join(", ")) }</span>
                            { outcome }
                        </li>
                    }
                }) }
            </ul>
        </details>
    }
}

/// The attack pane.
#[component]
pub fn AttackPane(props: &AttackPaneProps) -> Html {
    let run = &props.run;
    let seed = &props.analysis.sim.seed;
    let caller = run
        .played
        .caller
        .as_ref()
        .and_then(|email| seed.contacts.iter().find(|c| c.email.eq_ignore_ascii_case(email)));
    let name_of = |id: &str| {
        seed.contact(id)
            .map_or_else(|| format!("contact {id}"), |c| format!("{} ({id})", c.full_name()))
    };
    // Who crossed into whose records: the core's one rule, as `swaplab converse` prints
    // it. A caller the seed does not know owns no record, so every record is another's.
    let crossed = run
        .played
        .transcript
        .as_ref()
        .filter(|_| run.played.caller.is_some())
        .map(|transcript| crossing(transcript, caller.map(|c| c.id.as_str()), seed))
        .unwrap_or_default();
    let (writes, reads): (Vec<&CrossedRecord>, Vec<&CrossedRecord>) =
        crossed.records.iter().partition(|record| record.written());
    let caller_name =
        caller.map_or_else(|| "the caller".to_owned(), |c| format!("{} ({})", c.full_name(), c.id));
    let attack = &props.analysis.review.attack;
    html! {
        <div class="result attack-pane">
            { run_controls(run) }
            <h3>{ format!("In this conversation — the caller is {caller_name}") }</h3>
            if let Some(failure) = &run.played.startup {
                <p class="verdict not-tested">{ format!("Not tested: the conversation could not run, because the agent does not start — {failure}") }</p>
            } else if run.played.transcript.is_none() {
                <p class="verdict not-tested">{ "Not tested: no conversation ran." }</p>
            } else if run.played.caller.is_none() {
                <p class="verdict not-tested">{ "Not tested: the script names no caller, so there is no one to tell other customers from." }</p>
            } else if crossed.is_empty() {
                <p class="verdict pass">{ "No other customer's record reached this conversation." }</p>
            } else {
                <div class="leak-box" role="alert">
                    if !reads.is_empty() {
                        <p class="leak-title">{ format!("Another customer's records reached {caller_name}'s conversation:") }</p>
                        <ul>{ for reads.iter().map(|record| html! { <li><strong>{ name_of(&record.owner) }</strong>{ format!(": {}", record.label()) }</li> }) }</ul>
                    }
                    if !writes.is_empty() {
                        <p class="leak-title">{ "Written during this call on another customer's record:" }</p>
                        <ul>{ for writes.iter().map(|record| html! { <li><strong>{ name_of(&record.owner) }</strong>{ format!(": {}", record.label()) }</li> }) }</ul>
                    }
                </div>
            }
            <h3>{ "The attack: another customer's id in every id-like argument" }</h3>
            <p class="muted small">{ format!(
                "Identified as {}, the attack passes {}'s id to every tool the model can reach; \
                 each skill's probes start afresh from that identification.",
                attack.after.caller.as_ref().map_or("—".to_owned(), |c| c.full_name()),
                attack.after.victim.as_ref().map_or("—".to_owned(), |c| c.full_name()),
            ) }</p>
            <ul class="attack-sides">
                { side_summary("Before the swap", &attack.before) }
                { side_summary("After the swap", &attack.after) }
            </ul>
            { probes("Every probe before the swap", &attack.before) }
            { probes("Every probe after the swap", &attack.after) }
        </div>
    }
}
