//! `swaplab converse`: conversation tests. Each scripted conversation of the workspace
//! (`crm/conversations/*.yml`, or Swap Lab's default script when there is none) runs
//! under the chosen model policies on the chosen sides, and each run gets a verdict:
//! did any CRM request touch a record owned by a customer other than the script's
//! caller (the contact whose email is the script's `caller:`)?
//!
//! This module owns the command: choosing scripts, policies and sides from the flags,
//! running them through `swaplab_core::sim` (`Simulation::start`, `run_script`,
//! `trace`), judging each run from its CRM request log, and printing the transcripts,
//! verdicts and summary table as text or one JSON document. Nothing it prints is
//! written here; every line is read off the simulation's transcript.
//!
//! Scripts read from disk (a tutorial-layout folder's `conversations/`, or
//! `--conversations DIR`) are named by their files on disk, in the text, the JSON
//! (`source`) and the errors, so `file:line:col` leads to the line to fix.
//!
//! Exit status: 1 when a run after the swap crosses customers or a chosen side does not
//! start (as `swaplab attack` counts a start-up failure), 0 otherwise; 2 on an error —
//! a bad flag, an unknown script, or a script that cannot be judged (it has problems or
//! names no caller), after the runs are printed.

use std::io::Write;
use std::process::ExitCode;

use anyhow::{Result, bail};
use serde::Serialize;
use swaplab_core::Workspace;
use swaplab_core::diagnostic::Diagnostic;
use swaplab_core::sim::agent::StartupFailure;
use swaplab_core::sim::conversation::{
    Entry, Event, Policy, RunOptions, Script, Transcript, run_script,
};
use swaplab_core::sim::crm::{Contact, CrmRequest, CrmSeed};
use swaplab_core::sim::run::{CallRecord, Caller, RESOLVE_TOOL, Status};
use swaplab_core::sim::trace::trace;
use swaplab_core::sim::{CONVERSATIONS_DIR, Side, Simulation};

use crate::load::CrmSources;
use crate::options::Options;
use crate::style::Style;
use crate::words::route;
use swaplab_core::crossing::{Crossing, crossing, touched_text};
use swaplab_core::words::count;

/// Characters of a tool result shown before it is cut.
const SEEN_CHARS: usize = 160;
/// Characters of a user turn or an utterance shown before it is cut.
const SAID_CHARS: usize = 200;

/// What to run, read from the flags before the workspace is loaded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// `--script STEM`: one script (all when `None`).
    pub script: Option<String>,
    /// `--policy`: the policies, in `Policy::ALL` order.
    pub policies: Vec<Policy>,
    /// `--side`: the sides, before first.
    pub sides: Vec<Side>,
    /// `--json`.
    pub json: bool,
}

impl Plan {
    /// Reads `--script`, `--policy`, `--side` and `--json`.
    pub fn from_options(options: &Options) -> Result<Plan> {
        let policies = match options.policy.as_deref() {
            None | Some("all") => Policy::ALL.to_vec(),
            Some(name) => match Policy::parse(name) {
                Some(policy) => vec![policy],
                None => bail!("--policy {name}: choose faithful, confused, adversarial or all"),
            },
        };
        let sides = match options.side.as_deref() {
            None | Some("both") => vec![Side::Before, Side::After],
            Some("before") => vec![Side::Before],
            Some("after") => vec![Side::After],
            Some(other) => bail!("--side {other}: choose before, after or both"),
        };
        if options.script.as_deref().is_some_and(str::is_empty) {
            bail!("--script needs a script's file stem, such as caller-names-another");
        }
        Ok(Plan { script: options.script.clone(), policies, sides, json: options.json })
    }
}

/// Who the script says is on the line.
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum CallerIs<'s> {
    /// A contact of the CRM seed: their records are the only ones the run may touch.
    Contact { email: &'s str, contact: &'s Contact },
    /// An email no contact has: the caller owns no record, so every record touched is
    /// another customer's.
    Stranger { email: &'s str },
    /// The script has no `caller:`: there is no one to compare owners with.
    Missing,
}

impl CallerIs<'_> {
    fn id(&self) -> Option<&str> {
        match self {
            CallerIs::Contact { contact, .. } => Some(&contact.id),
            _ => None,
        }
    }
}

/// One script chosen to run.
#[derive(Serialize)]
struct ScriptInfo<'s> {
    /// The stem the script is chosen by (`caller-names-another`).
    name: String,
    /// Its path in the CRM area.
    file: &'s str,
    /// The file on disk it was read from, when it was.
    #[serde(skip_serializing_if = "Option::is_none")]
    source: Option<String>,
    /// Swap Lab wrote it, because the workspace has no conversations.
    written_by_swaplab: bool,
    caller: CallerIs<'s>,
    /// Problems reading it (a turn with a problem was left out).
    diagnostics: &'s [Diagnostic],
    #[serde(skip)]
    script: &'s Script,
}

impl ScriptInfo<'_> {
    /// The file as the reader knows it: on disk when it came from there.
    fn shown_file(&self) -> &str {
        self.source.as_deref().unwrap_or(self.file)
    }

    /// A diagnostic as `file:line:col: …`, naming the file on disk when there is one.
    fn shown(&self, diagnostic: &Diagnostic) -> String {
        match &self.source {
            Some(source) => Diagnostic { file: source.clone(), ..diagnostic.clone() }.to_string(),
            None => diagnostic.to_string(),
        }
    }

    /// Why no verdict on its runs can be trusted, or `None` when they can: a summary
    /// (`x.yml has 1 problem`) and each problem as `file:line:col: …`.
    fn unjudged(&self) -> Option<(String, Vec<String>)> {
        let errors: Vec<String> =
            self.diagnostics.iter().filter(|d| d.is_error()).map(|d| self.shown(d)).collect();
        if !errors.is_empty() {
            let summary =
                format!("{} has {}", self.shown_file(), count(errors.len(), "problem", "problems"));
            return Some((summary, errors));
        }
        matches!(self.caller, CallerIs::Missing).then(|| {
            (format!("{} names no caller (add `caller: <email>`)", self.shown_file()), Vec::new())
        })
    }
}

/// The verdict of one run.
#[derive(Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Verdict<'t> {
    /// Every record touched is the caller's.
    Ok {
        requests: usize,
        /// Tool calls the runtime refused: a run whose calls were refused proves little.
        refused_calls: usize,
    },
    /// Records of other customers were touched.
    Crossed {
        /// The records and the requests that touched them, by the core's one rule.
        #[serde(flatten)]
        crossing: Crossing,
        /// For each other customer whose id the model chose and sent to the CRM, the hop
        /// where it became the model's choice (the trace's words).
        how: Vec<String>,
    },
    /// The agent did not start.
    DidNotStart { failure: &'t StartupFailure },
    /// The script names no caller: nothing to compare with.
    NoCaller,
}

/// One run: a script under a policy on a side.
#[derive(Serialize)]
struct RunReport<'t> {
    script: String,
    policy: Policy,
    side: Side,
    verdict: Verdict<'t>,
    /// The transcript, as the simulation produced it (absent when the agent did not start).
    transcript: Option<&'t Transcript>,
}

#[derive(Serialize)]
struct Document<'t> {
    /// No run after the swap crossed customers and every chosen side started (exit 0).
    passed: bool,
    /// How many runs after the swap crossed customers.
    crossed_after: usize,
    /// The chosen sides whose agent did not start.
    did_not_start: Vec<Side>,
    scripts: &'t [ScriptInfo<'t>],
    runs: &'t [RunReport<'t>],
}

/// A run's transcript with the trace's crossing hops, or why its side did not start.
type Played<'s> = Result<(Transcript, Vec<String>), &'s StartupFailure>;

/// Runs the command.
pub fn run(
    workspace: &Workspace,
    sources: &CrmSources,
    plan: &Plan,
    style: Style,
    out: &mut dyn Write,
) -> Result<ExitCode> {
    let simulation = Simulation::new(workspace);
    let scripts = choose_scripts(&simulation, workspace, sources, plan.script.as_deref())?;
    // Each side starts once; its agent serves every script and policy.
    let agents: Vec<(Side, Result<_, Box<StartupFailure>>)> =
        plan.sides.iter().map(|&side| (side, simulation.start(side))).collect();
    // Each run: its script, policy and side, and the transcript (with the trace's
    // crossing hops) or why the side did not start.
    let mut played: Vec<(usize, Policy, Side, Played<'_>)> = Vec::new();
    for (index, info) in scripts.iter().enumerate() {
        for &policy in &plan.policies {
            for (side, agent) in &agents {
                let outcome = match agent {
                    Err(failure) => Err(&**failure),
                    Ok(agent) => {
                        let options = RunOptions { policy, answers: Vec::new() };
                        let transcript = run_script(agent, &simulation.seed, info.script, &options);
                        let crossed = crossing(&transcript, info.caller.id(), &simulation.seed);
                        let owners = crossed.owners();
                        let how = trace(agent, &simulation.seed, &transcript)
                            .into_iter()
                            .filter(|t| owners.contains(&t.id.as_str()))
                            .filter_map(|t| {
                                t.crossed.and_then(|at| t.hops.get(at)).map(|h| h.text.clone())
                            })
                            .collect();
                        Ok((transcript, how))
                    }
                };
                played.push((index, policy, *side, outcome));
            }
        }
    }
    let runs: Vec<RunReport<'_>> = played
        .iter()
        .map(|(index, policy, side, outcome)| {
            let info = &scripts[*index];
            let (verdict, transcript) = match outcome {
                Err(failure) => (Verdict::DidNotStart { failure }, None),
                Ok((transcript, _)) if matches!(info.caller, CallerIs::Missing) => {
                    (Verdict::NoCaller, Some(transcript))
                }
                Ok((transcript, how)) => {
                    let verdict =
                        judge(transcript, info.caller.id(), &simulation.seed, how.clone());
                    (verdict, Some(transcript))
                }
            };
            RunReport {
                script: info.name.clone(),
                policy: *policy,
                side: *side,
                verdict,
                transcript,
            }
        })
        .collect();
    let failed = failed(&runs);
    if plan.json {
        let crossed_after = runs
            .iter()
            .filter(|r| r.side == Side::After && matches!(r.verdict, Verdict::Crossed { .. }))
            .count();
        let did_not_start = agents.iter().filter(|(_, a)| a.is_err()).map(|(s, _)| *s).collect();
        let document = Document {
            passed: !failed,
            crossed_after,
            did_not_start,
            scripts: &scripts,
            runs: &runs,
        };
        serde_json::to_writer_pretty(&mut *out, &document)?;
        writeln!(out)?;
    } else {
        write_text(&scripts, &runs, plan, sources, style, out)?;
    }
    out.flush()?;
    let unjudged: Vec<(String, Vec<String>)> =
        scripts.iter().filter_map(ScriptInfo::unjudged).collect();
    if !unjudged.is_empty() {
        let summaries: Vec<&str> = unjudged.iter().map(|(summary, _)| summary.as_str()).collect();
        let mut message = format!("the verdicts cannot be trusted: {}", summaries.join("; "));
        if unjudged.iter().any(|(_, problems)| !problems.is_empty()) {
            message.push_str(" (turns with a problem were left out):");
        }
        for problem in unjudged.iter().flat_map(|(_, problems)| problems) {
            message.push_str("\n  ");
            message.push_str(problem);
        }
        bail!(message);
    }
    Ok(if failed { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

/// The name a script is chosen by: its path under `conversations/`, without `.yml`.
fn script_name(file: &str) -> String {
    let inner = file.strip_prefix(CONVERSATIONS_DIR).unwrap_or(file);
    let inner = inner.strip_suffix(".yml").or_else(|| inner.strip_suffix(".yaml")).unwrap_or(inner);
    inner.to_owned()
}

/// The file stem: the name after its last folder.
fn stem(name: &str) -> &str {
    name.rsplit('/').next().unwrap_or(name)
}

fn choose_scripts<'s>(
    simulation: &'s Simulation,
    workspace: &Workspace,
    sources: &CrmSources,
    wanted: Option<&str>,
) -> Result<Vec<ScriptInfo<'s>>> {
    let mut chosen = Vec::new();
    for script in &simulation.scripts {
        let name = script_name(&script.file);
        if wanted.is_some_and(|w| w != name && w != stem(&name)) {
            continue;
        }
        let caller = match script.caller.as_deref() {
            None => CallerIs::Missing,
            Some(email) => {
                match simulation.seed.contacts.iter().find(|c| c.email.eq_ignore_ascii_case(email))
                {
                    Some(contact) => CallerIs::Contact { email, contact },
                    None => CallerIs::Stranger { email },
                }
            }
        };
        chosen.push(ScriptInfo {
            written_by_swaplab: workspace.crm.file(&script.file).is_none(),
            name,
            file: &script.file,
            source: sources.file(&script.file),
            caller,
            diagnostics: &script.diagnostics,
            script,
        });
    }
    if let Some(wanted) = wanted
        && chosen.is_empty()
    {
        let names: Vec<String> = simulation.scripts.iter().map(|s| script_name(&s.file)).collect();
        let written = simulation.scripts.iter().all(|s| workspace.crm.file(&s.file).is_none());
        if written {
            let why = match &sources.scripts_go {
                Some(go) => format!("the workspace has no conversation script ({go})"),
                None => format!("the workspace has no crm/{CONVERSATIONS_DIR}"),
            };
            bail!(
                "--script {wanted}: {why}; the only script is Swap Lab's own, `{}`",
                names.join(", ")
            );
        }
        if simulation.scripts.iter().any(|s| sources.files.contains_key(&s.file)) {
            bail!(
                "--script {wanted}: none of your scripts is called {wanted}; they are: {}",
                names.join(", ")
            );
        }
        bail!(
            "--script {wanted}: there is no crm/{CONVERSATIONS_DIR}{wanted}.yml; the scripts \
             are: {}",
            names.join(", ")
        );
    }
    Ok(chosen)
}

/// The contact ids, other than the caller's, that own a record the run touched.
fn judge<'t>(
    transcript: &Transcript,
    caller: Option<&str>,
    seed: &CrmSeed,
    how: Vec<String>,
) -> Verdict<'t> {
    let crossing = crossing(transcript, caller, seed);
    if crossing.is_empty() {
        let refused_calls = transcript
            .entries
            .iter()
            .filter(|e| matches!(&e.event, Event::Call { record, .. } if record.status == Status::Refused))
            .count();
        Verdict::Ok { requests: transcript.crm_log.len(), refused_calls }
    } else {
        Verdict::Crossed { crossing, how }
    }
}

/// At most `max` characters of `text`, on one line, with what was cut counted.
fn one_line(text: &str, max: usize) -> String {
    let flat = text.replace('\n', "⏎");
    let total = flat.chars().count();
    if total <= max {
        return flat;
    }
    let kept: String = flat.chars().take(max).collect();
    format!("{kept}… ({} more characters)", total - max)
}

fn side_words(side: Side) -> &'static str {
    match side {
        Side::Before => "before the swap",
        Side::After => "after the swap",
    }
}

/// `Sam Rivera (contact 702, Rivera Foods)`.
fn contact_words(contact: &Contact) -> String {
    let name = contact.full_name();
    let name = if name.is_empty() { "someone".to_owned() } else { name };
    if contact.company.is_empty() {
        format!("{name} (contact {})", contact.id)
    } else {
        format!("{name} (contact {}, {})", contact.id, contact.company)
    }
}

fn write_text(
    scripts: &[ScriptInfo<'_>],
    runs: &[RunReport<'_>],
    plan: &Plan,
    sources: &CrmSources,
    style: Style,
    out: &mut dyn Write,
) -> Result<()> {
    for info in scripts {
        write_script(info, sources, style, out)?;
        for run in runs.iter().filter(|r| r.script == info.name) {
            writeln!(out)?;
            write_run(info, run, style, out)?;
        }
        writeln!(out)?;
    }
    write_summary(runs, plan, style, out)
}

fn write_script(
    info: &ScriptInfo<'_>,
    sources: &CrmSources,
    style: Style,
    out: &mut dyn Write,
) -> Result<()> {
    writeln!(out, "{}", style.bold(&format!("Script {} ({})", info.name, info.shown_file())))?;
    if info.written_by_swaplab {
        let why = match &sources.scripts_go {
            Some(go) => format!("the workspace has no conversation script; {go}"),
            None => format!("the workspace has no crm/{CONVERSATIONS_DIR}*.yml"),
        };
        writeln!(out, "  {}", style.dim(&format!("written by Swap Lab: {why}")))?;
    }
    match &info.caller {
        CallerIs::Contact { email, contact } => {
            writeln!(out, "  caller: {email}, {}", contact_words(contact))?;
        }
        CallerIs::Stranger { email } => writeln!(
            out,
            "  caller: {email}, {}",
            style.warn(
                "no contact of the CRM seed has this email: every record touched is another \
                 customer's"
            )
        )?,
        CallerIs::Missing => writeln!(
            out,
            "  {}",
            style.fail("no caller: the script has no `caller:`, so no run can be judged")
        )?,
    }
    for diagnostic in info.diagnostics {
        writeln!(out, "  {}", style.warn(&info.shown(diagnostic)))?;
    }
    Ok(())
}

fn write_run(
    info: &ScriptInfo<'_>,
    run: &RunReport<'_>,
    style: Style,
    out: &mut dyn Write,
) -> Result<()> {
    let title = format!("== {} · {} · {} ==", info.name, run.policy.name(), side_words(run.side));
    writeln!(out, "{}", style.bold(&title))?;
    let caller = info.caller.id();
    if let Some(transcript) = run.transcript {
        write_transcript(transcript, caller, style, out)?;
    }
    match &run.verdict {
        Verdict::Ok { requests, refused_calls } => {
            let mut detail = match (caller, requests) {
                (_, 0) => "no CRM request was made".to_owned(),
                (Some(id), n) => format!(
                    "{} touched only contact {id}'s records",
                    count(*n, "CRM request", "CRM requests")
                ),
                (None, n) => {
                    format!("{} touched no record", count(*n, "CRM request", "CRM requests"))
                }
            };
            if *refused_calls > 0 {
                let refused = count(*refused_calls, "tool call was", "tool calls were");
                detail.push_str(&format!("; {}", style.warn(&format!("{refused} refused"))));
            }
            writeln!(out, "verdict   {} — {detail}", style.pass("✓ ok"))?;
        }
        Verdict::Crossed { crossing, how } => {
            writeln!(out, "verdict   {} — {}", style.fail("✗ CROSSED"), crossing.summary())?;
            for record in &crossing.records {
                writeln!(out, "            {}", record.text())?;
            }
            for hop in how {
                writeln!(out, "          {}", style.dim(&format!("how: {hop}")))?;
            }
        }
        Verdict::DidNotStart { failure } => {
            crate::words::startup_failure(out, style, failure)?;
            writeln!(out, "verdict   {} — nothing ran", style.fail("did not start"))?;
        }
        Verdict::NoCaller => {
            writeln!(out, "verdict   {} — the script names no caller", style.warn("no verdict"))?;
        }
    }
    Ok(())
}

fn write_transcript(
    transcript: &Transcript,
    caller: Option<&str>,
    style: Style,
    out: &mut dyn Write,
) -> Result<()> {
    // The call a `resolve_tool_confirmation` answers: the latest one that paused.
    let mut paused: Option<&CallRecord> = None;
    for entry in &transcript.entries {
        match &entry.event {
            Event::User { text, answer } => {
                let answered = match answer {
                    Some(true) => style.dim(" (answers the confirmation: yes)"),
                    Some(false) => style.dim(" (answers the confirmation: no)"),
                    None => String::new(),
                };
                writeln!(out, "user      {}{answered}", one_line(text, SAID_CHARS))?;
            }
            Event::Skill { skill, block, error, offered } => {
                let block = block.as_ref().map(|b| format!(", block {b}")).unwrap_or_default();
                match error {
                    Some(error) => writeln!(
                        out,
                        "skill     {skill}{block} — {}",
                        style.warn(&format!("refused: {error}"))
                    )?,
                    None => {
                        let offered = if offered.is_empty() {
                            "no tool".to_owned()
                        } else {
                            offered.join(", ")
                        };
                        writeln!(
                            out,
                            "skill     {skill}{block} {}",
                            style.dim(&format!("(offered: {offered})"))
                        )?;
                    }
                }
            }
            Event::Remember { key, value, error } => match error {
                None => writeln!(out, "remember  {key} = {}", value.to_python_json())?,
                Some(error) => writeln!(
                    out,
                    "remember  {key} = {} — {}",
                    value.to_python_json(),
                    style.warn(&format!("refused: {error}"))
                )?,
            },
            Event::Call { record, args, unfilled } => {
                let label = match &record.caller {
                    Caller::Step { block, step } => format!("step      {block}.{step}: "),
                    _ => "call      ".to_owned(),
                };
                writeln!(
                    out,
                    "{label}{} {}{}",
                    record.tool,
                    record.args.to_python_json(),
                    if record.tool == RESOLVE_TOOL { String::new() } else { route(record) }
                )?;
                if record.tool == RESOLVE_TOOL {
                    if let Some(call) = paused.filter(|_| record.status != Status::Refused) {
                        writeln!(
                            out,
                            "          answers the paused {} {}{}",
                            call.tool,
                            call.args.to_python_json(),
                            route(record)
                        )?;
                    }
                } else {
                    for arg in args {
                        let from = arg.source.text(&transcript.entries);
                        writeln!(
                            out,
                            "          {}",
                            style.dim(&format!("{} ← {from}", arg.name))
                        )?;
                    }
                }
                for left in unfilled {
                    writeln!(
                        out,
                        "          {}",
                        style.warn(&format!("{} left out: {}", left.name, left.reason))
                    )?;
                }
                writeln!(
                    out,
                    "          {}; the model saw {}",
                    record.status_words(),
                    seen(record)
                )?;
                for said in &record.utterances {
                    writeln!(out, "          the assistant says: {}", one_line(said, SAID_CHARS))?;
                }
                if let Some(unsupported) = &record.unsupported {
                    writeln!(
                        out,
                        "          {}",
                        style.warn(&format!("outside the Python Swap Lab runs: {unsupported}"))
                    )?;
                }
                if record.status == Status::Paused {
                    paused = Some(record);
                }
            }
        }
        write_requests(entry, caller, style, out)?;
    }
    if let Some(waiting) = &transcript.waiting {
        writeln!(
            out,
            "waiting   {}",
            style.warn(&format!(
                "{} {} still waits for the user's confirmation",
                waiting.tool,
                waiting.args.to_python_json()
            ))
        )?;
    }
    Ok(())
}

fn write_requests(
    entry: &Entry,
    caller: Option<&str>,
    style: Style,
    out: &mut dyn Write,
) -> Result<()> {
    for request in &entry.crm_requests {
        writeln!(out, "          crm {}", request_text(request, caller, style))?;
    }
    Ok(())
}

/// `GET /crm/v3/… → 200: ticket 9001 of contact 701 (read) ✗`, the other customer's
/// records marked.
fn request_text(request: &CrmRequest, caller: Option<&str>, style: Style) -> String {
    let records: Vec<String> = request
        .touched
        .iter()
        .map(|t| {
            let text = touched_text(t);
            if Some(t.owner.as_str()) == caller { text } else { style.fail(&format!("{text} ✗")) }
        })
        .collect();
    let records = if records.is_empty() { "no record".to_owned() } else { records.join(", ") };
    format!("{} → {}: {records}", request.line(), request.status)
}

fn seen(call: &CallRecord) -> String {
    call.model_sees.as_deref().map_or_else(|| "nothing".to_owned(), |t| one_line(t, SEEN_CHARS))
}

/// The cell of the summary table.
fn cell(verdict: &Verdict<'_>) -> String {
    match verdict {
        Verdict::Ok { refused_calls: 0, .. } => "ok".to_owned(),
        Verdict::Ok { refused_calls, .. } => {
            format!("ok ({} refused)", count(*refused_calls, "call", "calls"))
        }
        Verdict::Crossed { crossing, .. } => {
            format!("crossed ({})", count(crossing.records.len(), "record", "records"))
        }
        Verdict::DidNotStart { failure } => format!("did not start ({} stage)", failure.stage),
        Verdict::NoCaller => "no verdict (no caller)".to_owned(),
    }
}

fn paint(verdict: &Verdict<'_>, text: &str, style: Style) -> String {
    match verdict {
        Verdict::Ok { .. } => style.pass(text),
        Verdict::Crossed { .. } | Verdict::DidNotStart { .. } => style.fail(text),
        Verdict::NoCaller => style.warn(text),
    }
}

fn write_summary(
    runs: &[RunReport<'_>],
    plan: &Plan,
    style: Style,
    out: &mut dyn Write,
) -> Result<()> {
    writeln!(out, "{}", style.bold("Verdicts"))?;
    // One row per script and policy, one column per side.
    let mut rows: Vec<(&str, Policy, Vec<&RunReport<'_>>)> = Vec::new();
    for run in runs {
        match rows.iter_mut().find(|(s, p, _)| *s == run.script && *p == run.policy) {
            Some((_, _, cells)) => cells.push(run),
            None => rows.push((&run.script, run.policy, vec![run])),
        }
    }
    let mut widths = vec![
        rows.iter().map(|r| r.0.chars().count()).max().unwrap_or(0).max("script".len()),
        "adversarial".len(),
    ];
    for (i, side) in plan.sides.iter().enumerate() {
        let widest = rows
            .iter()
            .filter_map(|r| r.2.get(i))
            .map(|run| cell(&run.verdict).chars().count())
            .max()
            .unwrap_or(0);
        widths.push(widest.max(side_words(*side).len()));
    }
    let pad = |text: &str, width: usize| {
        format!("{text}{}", " ".repeat(width.saturating_sub(text.chars().count())))
    };
    let mut header = vec![pad("script", widths[0]), pad("policy", widths[1])];
    for (i, side) in plan.sides.iter().enumerate() {
        header.push(pad(side_words(*side), widths[i + 2]));
    }
    writeln!(out, "  {}", style.dim(header.join("   ").trim_end()))?;
    for (script, policy, cells) in &rows {
        let mut line = vec![pad(script, widths[0]), pad(policy.name(), widths[1])];
        for (i, run) in cells.iter().enumerate() {
            let text = cell(&run.verdict);
            let padded =
                if i + 1 == cells.len() { text.clone() } else { pad(&text, widths[i + 2]) };
            line.push(paint(&run.verdict, &padded, style));
        }
        writeln!(out, "  {}", line.join("   "))?;
    }
    writeln!(out)?;
    let mut parts = Vec::new();
    for side in &plan.sides {
        let of_side: Vec<&RunReport<'_>> = runs.iter().filter(|r| r.side == *side).collect();
        let failure = of_side.iter().find_map(|r| match &r.verdict {
            Verdict::DidNotStart { failure } => Some(failure),
            _ => None,
        });
        let text = if let Some(failure) = failure {
            let reason = failure.message.trim_end_matches('.');
            format!("{} the agent did not start: {reason}", side_words(*side))
        } else {
            let crossed =
                of_side.iter().filter(|r| matches!(r.verdict, Verdict::Crossed { .. })).count();
            format!(
                "{} {crossed} of {} crossed customers",
                side_words(*side),
                count(of_side.len(), "run", "runs")
            )
        };
        parts.push(text);
    }
    let line = format!("Summary: {}.", parts.join("; "));
    writeln!(out, "{}", if failed(runs) { style.fail(&line) } else { style.pass(&line) })?;
    Ok(())
}

/// Exit 1: a run after the swap crossed customers, or a chosen side did not start.
fn failed(runs: &[RunReport<'_>]) -> bool {
    runs.iter().any(|r| {
        matches!(r.verdict, Verdict::DidNotStart { .. })
            || (r.side == Side::After && matches!(r.verdict, Verdict::Crossed { .. }))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(pairs: &[(&str, &str)]) -> Options {
        let mut options = Options::default();
        for (flag, value) in pairs {
            match *flag {
                "--policy" => options.policy = Some((*value).to_owned()),
                "--side" => options.side = Some((*value).to_owned()),
                "--script" => options.script = Some((*value).to_owned()),
                _ => unreachable!(),
            }
        }
        options
    }

    #[test]
    fn the_plan_defaults_to_every_policy_on_both_sides() {
        let plan = Plan::from_options(&options(&[])).expect("defaults");
        assert_eq!(plan.policies, Policy::ALL);
        assert_eq!(plan.sides, [Side::Before, Side::After]);
        let plan = Plan::from_options(&options(&[("--policy", "confused"), ("--side", "after")]))
            .expect("one of each");
        assert_eq!((plan.policies, plan.sides), (vec![Policy::Confused], vec![Side::After]));
    }

    /// The tutorial with more files in its CRM area.
    fn tutorial_with(extra: &[(&str, &str)]) -> Workspace {
        let mut workspace = swaplab_content::example("tutorial")
            .expect("examples load")
            .expect("the tutorial")
            .workspace;
        let mut files: Vec<(String, String)> =
            workspace.crm.files().map(|(p, t)| (p.to_owned(), t.to_owned())).collect();
        files.extend(extra.iter().map(|(p, t)| ((*p).to_owned(), (*t).to_owned())));
        workspace.crm = swaplab_core::Project::from_files(files);
        workspace
    }

    fn converse(
        workspace: &Workspace,
        flags: &[(&str, &str)],
        style: Style,
    ) -> (String, Result<ExitCode>) {
        let plan = Plan::from_options(&options(flags)).expect("a plan");
        let mut out = Vec::new();
        let result = run(workspace, &CrmSources::default(), &plan, style, &mut out);
        (String::from_utf8(out).expect("utf-8"), result)
    }

    const STRANGER: &str = "caller: nobody@example.com
turns:
  - user: Hi, I'm asking about Dana Okafor's account, id 701.
  - skill: check_tickets
  - call: list_open_tickets
    args: {contact_id: {choose: id}}
";

    #[test]
    fn a_caller_no_contact_has_owns_nothing_so_every_record_touched_crosses() {
        let workspace = tutorial_with(&[("conversations/stranger.yml", STRANGER)]);
        let flags = [("--script", "stranger"), ("--policy", "confused")];
        let (text, result) = converse(&workspace, &flags, Style::default());
        assert_eq!(result.expect("runs"), ExitCode::from(1), "{text}");
        assert!(text.contains("caller: nobody@example.com, no contact of the CRM seed"), "{text}");
        // Before the swap the tool reads project memory, which nobody filled: no request.
        assert!(text.contains("stranger   confused      ok "), "{text}");
        assert!(text.contains("crossed (3 records)"), "{text}");
    }

    #[test]
    fn a_script_without_a_caller_or_with_a_broken_turn_is_an_error_after_its_runs() {
        let no_caller = "turns:\n  - user: hello\n";
        let broken = "caller: sam.rivera@example.com\nturns:\n  - dance: now\n";
        let workspace = tutorial_with(&[
            ("conversations/no-caller.yml", no_caller),
            ("conversations/broken.yml", broken),
        ]);
        let (text, result) = converse(&workspace, &[("--script", "no-caller")], Style::default());
        let error = result.expect_err("no caller, no verdict").to_string();
        assert!(error.contains("conversations/no-caller.yml names no caller"), "{error}");
        assert!(text.contains("no verdict (no caller)"), "{text}");
        let (text, result) = converse(&workspace, &[("--script", "broken")], Style::default());
        let error = result.expect_err("a broken turn").to_string();
        assert!(error.contains("conversations/broken.yml has 1 problem"), "{error}");
        assert!(text.contains("unknown turn 'dance'"), "{text}");
    }

    #[test]
    fn colour_only_when_asked_for() {
        let workspace = tutorial_with(&[]);
        let flags = [("--policy", "confused"), ("--side", "after")];
        let (plain, _) = converse(&workspace, &flags, Style { color: false });
        let (painted, _) = converse(&workspace, &flags, Style { color: true });
        assert!(!plain.contains('\x1b'));
        assert!(painted.contains("\x1b[31m✗ CROSSED\x1b[0m"), "{painted}");
    }

    #[test]
    fn one_line_counts_what_it_leaves_out() {
        assert_eq!(one_line("short", 10), "short");
        assert_eq!(one_line("abcdefghij", 4), "abcd… (6 more characters)");
        assert_eq!(one_line("a\nb", 10), "a⏎b");
    }

    #[test]
    fn script_names_are_paths_under_conversations_without_the_extension() {
        assert_eq!(script_name("conversations/caller-names-another.yml"), "caller-names-another");
        assert_eq!(script_name("conversations/team/a.yaml"), "team/a");
        assert_eq!(stem("team/a"), "a");
    }
}
