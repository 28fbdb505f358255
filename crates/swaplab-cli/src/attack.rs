//! `swaplab attack`: one customer on the line passes another customer's id to every
//! tool the model can reach, on the project before the swap and after it.
//!
//! The text report says who called and whose id was passed, then for each side whether
//! the agent started, each probe (skill, tool, arguments, and whether the runtime or
//! the tool blocked it, it leaked, it had no effect, or its body could not run in Swap
//! Lab) and each leak with its evidence: the records touched, the CRM requests, and what
//! the model saw. A side with no leak says "no leak" only when its verdict is
//! [`AttackVerdict::NoLeak`] (every probe ran to its end); otherwise it says "not tested"
//! and why. `--json` prints the [`AttackPair`] as the simulation produced it, each side's
//! `verdict` included.
//!
//! Exit status: 1 when the project after the swap leaks (or either side does not
//! start); 3 when neither, but a side's attack tested nothing or some of its probes
//! could not run; 0 only when both sides were tested and nothing leaked after the swap;
//! 2 on an error.

use std::io::Write;
use std::process::ExitCode;

use anyhow::{Result, bail};
use swaplab_core::Workspace;
use swaplab_core::sim::attack::{
    AttackOptions, AttackReport, AttackVerdict, Leak, LeakKind, NotTested, Probe, ProbeKind,
    ProbeOutcome,
};
use swaplab_core::sim::crm::{Contact, CrmSeed};
use swaplab_core::sim::run::{CallRecord, Status};
use swaplab_core::sim::{AttackPair, Simulation};

use crate::options::Options;
use crate::style::Style;
use crate::words::route;
use swaplab_core::crossing::touched_text;
use swaplab_core::words::count;

/// Runs the command.
pub fn run(
    workspace: &Workspace,
    options: &Options,
    style: Style,
    out: &mut dyn Write,
) -> Result<ExitCode> {
    let simulation = Simulation::new(workspace);
    check_ids(&simulation.seed, options)?;
    let attack_options =
        AttackOptions { caller: options.caller.clone(), victim: options.victim.clone() };
    let pair = simulation.attack(&attack_options);
    if options.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&pair)?)?;
    } else {
        write_report(&pair, style, out)?;
    }
    Ok(exit_code(&pair))
}

/// What the whole attack says, for the exit status and the summary's colour.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Outcome {
    /// Both sides tested; nothing leaked after the swap.
    Clean,
    /// Nothing failed, but a side tested nothing or some of its probes could not run.
    NotTested,
    /// A leak after the swap, or a side that does not start.
    Failed,
}

fn outcome(pair: &AttackPair) -> Outcome {
    let sides = [&pair.before, &pair.after];
    if pair.after.verdict.leaked() || sides.iter().any(|s| s.startup.is_some()) {
        Outcome::Failed
    } else if sides.iter().any(|s| !s.verdict.tested()) || sides.iter().any(|s| stopped(s) > 0) {
        Outcome::NotTested
    } else {
        Outcome::Clean
    }
}

/// 1 when the project after the swap leaks or either side did not start; 3 when a side
/// was not (wholly) tested; else 0.
pub fn exit_code(pair: &AttackPair) -> ExitCode {
    match outcome(pair) {
        Outcome::Clean => ExitCode::SUCCESS,
        Outcome::Failed => ExitCode::from(1),
        Outcome::NotTested => ExitCode::from(3),
    }
}

/// How many of a side's probes could not run.
fn stopped(side: &AttackReport) -> usize {
    side.probes.iter().filter(|p| matches!(p.outcome, ProbeOutcome::CouldNotRun { .. })).count()
}

/// `--caller` and `--victim` must name different contacts of the CRM seed.
fn check_ids(seed: &CrmSeed, options: &Options) -> Result<()> {
    for (flag, id) in [("--caller", &options.caller), ("--victim", &options.victim)] {
        if let Some(id) = id
            && seed.contact(id).is_none()
        {
            let known: Vec<&str> = seed.contacts.iter().map(|c| c.id.as_str()).collect();
            let source = seed.file.as_deref().unwrap_or("the tutorial's CRM seed");
            bail!(
                "{flag} {id}: there is no contact {id} in {source}; its contacts are {}",
                if known.is_empty() { "none".to_owned() } else { known.join(", ") }
            );
        }
    }
    if let (Some(caller), Some(victim)) = (&options.caller, &options.victim)
        && caller == victim
    {
        bail!("--caller and --victim are both {caller}: give two different contacts");
    }
    Ok(())
}

/// `Dana Okafor (contact 701, dana.okafor@example.com, Okafor Logistics)`.
fn who(contact: &Contact) -> String {
    let mut details = vec![format!("contact {}", contact.id)];
    if !contact.email.is_empty() {
        details.push(contact.email.clone());
    }
    if !contact.company.is_empty() {
        details.push(contact.company.clone());
    }
    let name = contact.full_name();
    let name = if name.trim().is_empty() { "someone".to_owned() } else { name };
    format!("{name} ({})", details.join(", "))
}

fn write_report(pair: &AttackPair, style: Style, out: &mut dyn Write) -> Result<()> {
    // Both sides pick from the same seed with the same options: the after side's pick
    // stands for both.
    let report = &pair.after;
    match (&report.caller, &report.victim) {
        (Some(caller), Some(victim)) => {
            writeln!(out, "{} {}", style.bold("Caller:"), who(caller))?;
            writeln!(out, "  identifies with their own email, then passes the other id")?;
            writeln!(out, "{} {}", style.bold("Victim:"), who(victim))?;
            writeln!(out, "  whose id {} goes into every id-like argument", victim.id)?;
        }
        _ => {
            writeln!(
                out,
                "{}",
                style.warn(
                    "The CRM seed has fewer than two contacts: there is no other customer to \
                     attack with."
                )
            )?;
        }
    }
    let victim = report.victim.as_ref().map(|v| v.id.as_str()).unwrap_or_default();
    let mut numbered = 0;
    for (label, side) in [("Before the swap", &pair.before), ("After the swap", &pair.after)] {
        writeln!(out)?;
        writeln!(out, "{}", style.bold(&format!("== {label} ==")))?;
        write_side(side, victim, style, &mut numbered, out)?;
    }
    writeln!(out)?;
    writeln!(out, "{}", summary(pair, style))?;
    Ok(())
}

fn write_side(
    side: &AttackReport,
    victim: &str,
    style: Style,
    numbered: &mut usize,
    out: &mut dyn Write,
) -> Result<()> {
    if let Some(failure) = &side.startup {
        crate::words::startup_failure(out, style, failure)?;
        writeln!(out, "{}", style.warn("? not tested: no probe ran"))?;
        return Ok(());
    }
    if let Some(reason @ NotTested::NoOtherCustomer) = side.verdict.not_tested() {
        writeln!(out, "{}", style.warn(&format!("? not tested: {}", reason.text())))?;
        return Ok(());
    }
    match &side.identification {
        Some(call) => {
            writeln!(
                out,
                "identify  {} · {} {}{}",
                call.skill,
                call.tool,
                call.args.to_python_json(),
                route(call)
            )?;
            writeln!(out, "          {}; the model saw {}", call.status_words(), seen(call))?;
        }
        None => writeln!(
            out,
            "identify  {}",
            style.warn(
                "no reachable tool looks a contact up by email: the caller is not identified"
            )
        )?,
    }
    for probe in &side.probes {
        let leaks: Vec<String> = side
            .leaks
            .iter()
            .enumerate()
            .filter(|(_, l)| l.skill == probe.skill && l.tool == probe.tool)
            .map(|(i, l)| format!("{} leak {}", kind_word(l.kind), *numbered + i + 1))
            .collect();
        write_probe(probe, victim, &leaks, style, out)?;
    }
    match &side.verdict {
        AttackVerdict::NoLeak { .. } => writeln!(out, "{}", style.pass("✓ no leak"))?,
        AttackVerdict::NotTested { reason } => {
            writeln!(out, "{}", style.warn(&format!("? not tested: {}", reason.text())))?;
        }
        AttackVerdict::Leaked { .. } => {}
    }
    for leak in &side.leaks {
        *numbered += 1;
        write_leak(leak, *numbered, style, out)?;
    }
    Ok(())
}

fn write_probe(
    probe: &Probe,
    victim: &str,
    leaks: &[String],
    style: Style,
    out: &mut dyn Write,
) -> Result<()> {
    let routed = probe.confirmation.as_ref().filter(|_| probe.call.route.is_none());
    writeln!(
        out,
        "probe     {} · {} {}{}",
        probe.skill,
        probe.tool,
        probe.call.args.to_python_json(),
        route(routed.unwrap_or(&probe.call))
    )?;
    let how = match probe.kind {
        ProbeKind::IdArgument => format!(
            "{} = {victim}: the tool's own argument{}",
            probe.id_arguments.join(", "),
            if probe.id_arguments.len() == 1 { "" } else { "s" }
        ),
        ProbeKind::ExtraArgument => format!(
            "{} = {victim} added: the tool reads the id from memory and takes no such argument",
            probe.id_arguments.join(", ")
        ),
    };
    writeln!(out, "          {}", style.dim(&how))?;
    if let Some(confirmation) = &probe.confirmation {
        let asked = probe.call.utterances.first().map(String::as_str).unwrap_or_default();
        let asked = if asked.is_empty() { String::new() } else { format!(" ({asked})") };
        let answer = match confirmation.status {
            Status::Ran if confirmation.unsupported.is_some() => {
                "the caller said yes; its body could not run in Swap Lab"
            }
            Status::Ran => "the caller said yes and it ran",
            Status::Refused => "the caller said yes; the runtime refused",
            _ => "the caller said yes",
        };
        writeln!(out, "          {}", style.dim(&format!("confirmation asked{asked}; {answer}")))?;
    }
    let outcome = match &probe.outcome {
        ProbeOutcome::Leaked => format!("{}: {}", style.fail("LEAKED"), leaks.join(", ")),
        ProbeOutcome::Blocked { reason } => {
            let reason = if reason.is_empty() { "(nothing)" } else { reason };
            format!("{} — the model saw {reason}", style.pass("blocked"))
        }
        ProbeOutcome::NoEffect => {
            let call = probe.confirmation.as_ref().unwrap_or(&probe.call);
            format!(
                "{} — it ran and touched nothing of contact {victim}; the model saw {}",
                style.warn("no effect"),
                seen(call)
            )
        }
        ProbeOutcome::CouldNotRun { reason } => format!(
            "{} — the tool's body left the Python Swap Lab runs, so this probe tests \
             nothing: {reason}",
            style.warn("could not run")
        ),
    };
    writeln!(out, "          → {outcome}")?;
    Ok(())
}

fn write_leak(leak: &Leak, number: usize, style: Style, out: &mut dyn Write) -> Result<()> {
    let kind = kind_word(leak.kind);
    let what = match leak.kind {
        LeakKind::Read => "another customer's records came back to the model",
        LeakKind::Write => "a record was written on another customer",
    };
    writeln!(
        out,
        "{}",
        style.fail(&format!(
            "✗ LEAK {number} — {kind}: {} · {} with {} = {}",
            leak.skill, leak.tool, leak.argument, leak.value
        ))
    )?;
    writeln!(out, "    {what}")?;
    let mut label = "records:  ";
    for record in &leak.records {
        writeln!(out, "    {label}{}", touched_text(record))?;
        label = "          ";
    }
    let mut label = "requests: ";
    for request in &leak.requests {
        writeln!(out, "    {label}{request}")?;
        label = "          ";
    }
    match &leak.model_saw {
        Some(text) => writeln!(out, "    model saw: {text}")?,
        None => writeln!(out, "    model saw: nothing")?,
    }
    Ok(())
}

/// `READ` or `WRITE`.
fn kind_word(kind: LeakKind) -> &'static str {
    match kind {
        LeakKind::Read => "READ",
        LeakKind::Write => "WRITE",
    }
}

fn seen(call: &CallRecord) -> String {
    call.model_sees.clone().unwrap_or_else(|| "nothing".to_owned())
}

fn side_summary(side: &AttackReport) -> String {
    if side.startup.is_some() {
        return "did not start, so not tested".to_owned();
    }
    match &side.verdict {
        AttackVerdict::NotTested { reason } => return format!("not tested ({})", reason.text()),
        AttackVerdict::Leaked { .. } | AttackVerdict::NoLeak { .. } => {}
    }
    let reads = side.leaks.iter().filter(|l| l.kind == LeakKind::Read).count();
    let writes = side.leaks.len() - reads;
    let blocked =
        side.probes.iter().filter(|p| matches!(p.outcome, ProbeOutcome::Blocked { .. })).count();
    let mut text = count(side.leaks.len(), "leak", "leaks");
    if !side.leaks.is_empty() {
        text.push_str(&format!(" ({reads} read, {writes} write)"));
    }
    text.push_str(&format!(
        ", {} of {} blocked",
        blocked,
        count(side.probes.len(), "probe", "probes")
    ));
    match stopped(side) {
        0 => {}
        n => text.push_str(&format!(", {n} could not run (not tested)")),
    }
    text
}

/// The last line: both sides in one sentence, red when the swap opened a leak (or a side
/// does not start), yellow when a side was not wholly tested, green only when both were
/// and nothing leaked.
fn summary(pair: &AttackPair, style: Style) -> String {
    let line = format!(
        "Summary: before the swap {}; after the swap {}.",
        side_summary(&pair.before),
        side_summary(&pair.after)
    );
    match outcome(pair) {
        Outcome::Failed => style.fail(&line),
        Outcome::NotTested => style.warn(&line),
        Outcome::Clean => style.pass(&line),
    }
}
