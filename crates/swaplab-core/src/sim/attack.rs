//! The attack: identify as one customer, then call every tool the model can reach that
//! takes an id-like argument with another customer's id, and report each time another
//! customer's records came back into the conversation (a read) or a record was created
//! on another customer (a write).
//!
//! A tool that reads the id from server-held memory instead is probed with the id as an
//! extra argument, which the runtime refuses (`Unexpected argument(s): …`): that refusal
//! is the contrast the *before* project shows. A confirmation on the way is answered yes
//! — the caller is the one attacking, so the question stops nothing.
//!
//! Each skill's probes run in a conversation of their own, from the same point: the
//! caller identified, nothing else done. A note one skill's probe wrote is not there for
//! another skill's, and no probe's turn or JSON-RPC id depends on the skills before it —
//! so editing one skill changes only that skill's probes, and a memo can keep the rest
//! ([`KeptProbes`]).
//!
//! A side's [`AttackVerdict`] is worked out from its report: [`AttackVerdict::Leaked`]
//! when any probe leaked, [`AttackVerdict::NoLeak`] only when probes ran and every one
//! of them ran to its end, and [`AttackVerdict::NotTested`] with the reason otherwise —
//! the agent did not start, the seed has no other customer, no tool could be probed, or
//! a probed tool's body stopped outside the Python subset Swap Lab runs (then the probe
//! is [`ProbeOutcome::CouldNotRun`], never a refusal). Nothing under a verdict never
//! reads as "no leak".

use std::collections::BTreeMap;
use std::ops::Range;
use std::sync::Arc;

use serde::Serialize;

use super::agent::{Agent, Bound, StartupFailure};
use super::crm::{Access, Contact, CrmRequest, CrmSeed, Touched};
use super::json::{self, JsonValue};
use super::run::{CallRecord, RESOLVE_TOOL, Run, Status};
use crate::python::{ArgOrigin, CrmCall, Program};
use crate::rasa::project::{ProjectReport, SkillEntry, ToolFile};
use crate::rasa::responses::placeholders;
use crate::words::count;

/// Who attacks whom; `None` picks by the rule in [`pick`].
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct AttackOptions {
    /// The caller's contact id.
    pub caller: Option<String>,
    /// The other customer's contact id.
    pub victim: Option<String>,
}

/// How a probe passed the other customer's id.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ProbeKind {
    /// Through the tool's own id-like argument.
    IdArgument,
    /// As an extra argument to a tool that reads the id from memory.
    ExtraArgument,
}

/// What a probe achieved.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ProbeOutcome {
    /// Another customer's data was read or written.
    Leaked,
    /// The runtime or the tool refused.
    Blocked {
        /// What the model was told.
        reason: String,
    },
    /// It ran and touched nothing of the other customer.
    NoEffect,
    /// The tool's body stopped outside the Python subset Swap Lab runs: the probe says
    /// nothing about what the real tool would do.
    CouldNotRun {
        /// Where and what (`file:line:col: error[swaplab.python.unsupported] …`).
        reason: String,
    },
}

/// One probe.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Probe {
    /// The skill it ran in.
    pub skill: String,
    /// The tool.
    pub tool: String,
    /// The arguments that carried the other customer's id.
    pub id_arguments: Vec<String>,
    /// How.
    pub kind: ProbeKind,
    /// The call.
    pub call: CallRecord,
    /// The `resolve_tool_confirmation` that answered its pause, if it paused.
    pub confirmation: Option<CallRecord>,
    /// The result.
    pub outcome: ProbeOutcome,
}

impl Probe {
    /// Every CRM request the probe made: its call's, then its confirmation's.
    pub fn requests(&self) -> impl Iterator<Item = &CrmRequest> {
        self.call.requests().chain(self.confirmation.iter().flat_map(CallRecord::requests))
    }
}

/// Read or write.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LeakKind {
    /// Another customer's records came back to the model.
    Read,
    /// A record was created on another customer.
    Write,
}

/// One leak, with its evidence.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Leak {
    /// Read or write.
    pub kind: LeakKind,
    /// The skill.
    pub skill: String,
    /// The tool.
    pub tool: String,
    /// The argument that carried the id.
    pub argument: String,
    /// The id passed.
    pub value: String,
    /// The records of the other customer touched.
    pub records: Vec<Touched>,
    /// The CRM requests that touched them (`GET /crm/v3/…`).
    pub requests: Vec<String>,
    /// What the model received.
    pub model_saw: Option<String>,
}

/// Why an attack says nothing about a project's safety.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "why", rename_all = "snake_case")]
pub enum NotTested {
    /// The agent did not start, so no probe ran.
    DidNotStart {
        /// Rasa's message.
        message: String,
    },
    /// The CRM seed has fewer than two contacts: there is no other customer's id to pass.
    NoOtherCustomer,
    /// No tool the model can reach takes an id-like argument or reads one from memory.
    NoProbes,
    /// The CRM answering the requests does not know the other customer: a probe sent
    /// their id and the CRM answered that nothing has it, so nothing of theirs could
    /// come back. The seed's customers and the project's own mock disagree.
    UnknownToCrm {
        /// The other customer, as the seed names them (`Dana Okafor (701)`).
        victim: String,
        /// The request that found nothing (`GET /crm/v3/objects/contacts/701/…`).
        request: String,
        /// The status it got.
        status: u16,
    },
    /// Some probes' tool bodies stopped outside the Python subset Swap Lab runs (the
    /// others, if any, leaked nothing).
    CouldNotRun {
        /// The tools whose probes could not run, each once, in probe order.
        tools: Vec<String>,
        /// How many probes could not run.
        could_not_run: usize,
        /// How many probes there were in all.
        probes: usize,
    },
}

impl NotTested {
    /// The reason in words, to follow "not tested: ".
    pub fn text(&self) -> String {
        match self {
            NotTested::DidNotStart { message } => {
                format!("the agent does not start ({message})")
            }
            NotTested::NoOtherCustomer => "the CRM seed has fewer than two contacts, so there is \
                                           no other customer's id to pass"
                .to_owned(),
            NotTested::NoProbes => {
                "no tool the model can reach takes an id, so there was nothing to probe".to_owned()
            }
            NotTested::UnknownToCrm { victim, request, status } => format!(
                "the CRM does not know {victim}: `{request}` got {status}, so nothing of \
                 theirs could come back (the seed's customers and the CRM's records disagree)"
            ),
            NotTested::CouldNotRun { tools, could_not_run, probes } => format!(
                "{} of {} could not run: the {} of {} stopped outside the Python subset \
                 Swap Lab runs",
                could_not_run,
                count(*probes, "probe", "probes"),
                if tools.len() == 1 { "body" } else { "bodies" },
                tools.join(", ")
            ),
        }
    }
}

/// What the attack on one project found, judged from its report.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum AttackVerdict {
    /// Another customer's records were read or written.
    Leaked {
        /// How many leaks.
        leaks: usize,
    },
    /// Probes ran, every one to its end, and none leaked.
    NoLeak {
        /// How many probes ran.
        probes: usize,
    },
    /// The attack says nothing either way: no leak was found, but not because the
    /// probes were refused or harmless.
    NotTested {
        /// Why.
        reason: NotTested,
    },
}

/// A probe's request that carried the other customer's id and found nothing (404),
/// when no probe touched any record of theirs: the CRM does not know them, so "no leak"
/// would only mean there was nothing to leak.
fn unknown_to_crm(report: &AttackReport) -> Option<NotTested> {
    let victim = report.victim.as_ref()?;
    let id = victim.id.as_str();
    let requests = || report.probes.iter().flat_map(Probe::requests);
    if requests().any(|r| r.touched.iter().any(|t| t.owner == id)) {
        return None;
    }
    let missed = requests().find(|r| {
        r.status == 404
            && (super::trace::mentions(&r.path, id)
                || r.body.as_ref().is_some_and(|b| super::trace::contains_id(b, id)))
    })?;
    Some(NotTested::UnknownToCrm {
        victim: format!("{} ({id})", victim.full_name()),
        request: missed.line(),
        status: missed.status,
    })
}

impl AttackVerdict {
    /// The verdict of a report: leaks first (a leak found is found, whatever else could
    /// not run), then every reason the attack could not say "no leak".
    pub fn of(report: &AttackReport) -> AttackVerdict {
        if !report.leaks.is_empty() {
            return AttackVerdict::Leaked { leaks: report.leaks.len() };
        }
        let reason = if let Some(failure) = &report.startup {
            NotTested::DidNotStart { message: failure.message.clone() }
        } else if report.caller.is_none() || report.victim.is_none() {
            NotTested::NoOtherCustomer
        } else if report.probes.is_empty() {
            NotTested::NoProbes
        } else {
            let stopped: Vec<&Probe> = report
                .probes
                .iter()
                .filter(|p| matches!(p.outcome, ProbeOutcome::CouldNotRun { .. }))
                .collect();
            if stopped.is_empty() {
                if let Some(reason) = unknown_to_crm(report) {
                    return AttackVerdict::NotTested { reason };
                }
                return AttackVerdict::NoLeak { probes: report.probes.len() };
            }
            let mut tools: Vec<String> = Vec::new();
            for probe in &stopped {
                if !tools.contains(&probe.tool) {
                    tools.push(probe.tool.clone());
                }
            }
            NotTested::CouldNotRun {
                tools,
                could_not_run: stopped.len(),
                probes: report.probes.len(),
            }
        };
        AttackVerdict::NotTested { reason }
    }

    /// Whether the attack tested the project: it leaked, or every probe ran and none
    /// leaked.
    pub fn tested(&self) -> bool {
        !matches!(self, AttackVerdict::NotTested { .. })
    }

    /// Whether the attack found a leak.
    pub fn leaked(&self) -> bool {
        matches!(self, AttackVerdict::Leaked { .. })
    }

    /// The reason the attack says nothing, if it does.
    pub fn not_tested(&self) -> Option<&NotTested> {
        match self {
            AttackVerdict::NotTested { reason } => Some(reason),
            _ => None,
        }
    }
}

/// The attack on one project.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AttackReport {
    /// What it found, worked out from the rest of the report ([`AttackVerdict::of`]).
    pub verdict: AttackVerdict,
    /// The customer on the line.
    pub caller: Option<Contact>,
    /// The customer whose id is passed.
    pub victim: Option<Contact>,
    /// Why the agent did not start (no probes then).
    pub startup: Option<StartupFailure>,
    /// The identification call.
    pub identification: Option<CallRecord>,
    /// Every probe.
    pub probes: Vec<Probe>,
    /// Every leak, reads before writes within a tool, in probe order.
    pub leaks: Vec<Leak>,
}

/// Whether an argument name carries an id (`id`, `*_id`, `*Id`, `*_ids`).
pub fn is_id_like(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    lower == "id"
        || lower == "ids"
        || lower.ends_with("_id")
        || lower.ends_with("_ids")
        || name.ends_with("Id")
        || name.ends_with("Ids")
}

/// The caller and the other customer: by default the victim is the customer with the
/// most records and the caller the first other customer in the seed.
pub fn pick<'s>(
    seed: &'s CrmSeed,
    options: &AttackOptions,
) -> (Option<&'s Contact>, Option<&'s Contact>) {
    let by_id = |id: &String| seed.contact(id);
    let victim = options.victim.as_ref().and_then(by_id).or_else(|| {
        // Every record counted once (not `records_of` per contact, which is quadratic in
        // the seed); ties go to the first contact in seed order.
        let mut records: BTreeMap<&str, usize> = BTreeMap::new();
        let owners =
            seed.tickets.iter().map(|t| &t.contact).chain(seed.notes.iter().map(|n| &n.contact));
        for owner in owners {
            *records.entry(owner.as_str()).or_default() += 1;
        }
        let count = |c: &Contact| records.get(c.id.as_str()).copied().unwrap_or(0);
        seed.contacts.iter().filter(|c| options.caller.as_ref() != Some(&c.id)).fold(
            None,
            |best: Option<&Contact>, c| match best {
                Some(b) if count(b) >= count(c) => Some(b),
                _ => Some(c),
            },
        )
    });
    let caller = options.caller.as_ref().and_then(by_id).or_else(|| {
        seed.contacts.iter().find(|c| Some(c.id.as_str()) != victim.map(|v| v.id.as_str()))
    });
    (caller, victim)
}

/// A memory path ending in an id-like name that a local tool reads (`context.memory.get
/// ("project.contact_id")`): where its id comes from when the scanner cannot follow
/// the client it hands the id to.
fn memory_id_read(bound: &Bound<'_>) -> Option<String> {
    let Bound::Local(local) = bound else { return None };
    local.function.memory.iter().find_map(|access| {
        let path = access.path.as_deref()?;
        (access.op == crate::python::MemoryOp::Get
            && path.rsplit('.').next().is_some_and(is_id_like))
        .then(|| path.to_owned())
    })
}

fn crm_calls(bound: &Bound<'_>, agent: &Agent<'_>) -> Vec<CrmCall> {
    match bound {
        Bound::Local(local) => local.function.crm_calls.clone(),
        Bound::Mcp(remote) => agent
            .servers
            .get(remote.server)
            .and_then(|s| s.tool(remote.tool))
            .map(|t| t.crm_calls.clone())
            .unwrap_or_default(),
    }
}

/// What the probe writes wherever the model fills in text.
const PROBE_TEXT: &str = "Attack probe: written with another customer's id.";

/// Fills the skill entries the tool's confirmation question shows (`{note_summary}`),
/// as the model would before calling it, so the question reads as the caller hears it.
fn fill_confirmation_entries(run: &mut Run<'_, '_>, skill: &str, tool: &str) {
    let report = run.agent.report;
    let Some(name) = report
        .skill(skill)
        .and_then(|s| s.gate(tool))
        .and_then(|g| g.requires_confirmation.as_ref())
        .and_then(|c| c.utter_for_confirmation.clone())
    else {
        return;
    };
    let text = report
        .entry(skill)
        .and_then(|e| e.responses.as_ref())
        .and_then(|r| r.get(&name))
        .or_else(|| report.responses.as_ref().and_then(|r| r.get(&name)))
        .and_then(|r| r.first_text())
        .unwrap_or_default()
        .to_owned();
    for entry in placeholders(&text) {
        // Only the active skill's own entries: the model cannot write anything else.
        if !entry.contains('.') {
            let _ = run.remember(&entry, JsonValue::Str(PROBE_TEXT.to_owned()));
        }
    }
}

/// A placeholder value of the schema's type for a required argument the probe does not
/// aim at.
fn filler(schema: &JsonValue) -> JsonValue {
    let json_type = match json::get(schema, "type") {
        Some(JsonValue::Str(t)) => t.clone(),
        _ => "string".to_owned(),
    };
    match json_type.as_str() {
        "integer" => JsonValue::Int(1),
        "number" => JsonValue::Float(1.0),
        "boolean" => JsonValue::Bool(true),
        "array" => JsonValue::Array(Vec::new()),
        "object" => JsonValue::Object(Vec::new()),
        _ => JsonValue::Str(PROBE_TEXT.to_owned()),
    }
}

fn properties(schema: &JsonValue) -> Vec<(String, JsonValue)> {
    match json::get(schema, "properties") {
        Some(JsonValue::Object(entries)) => entries.clone(),
        _ => Vec::new(),
    }
}

fn required(schema: &JsonValue) -> Vec<String> {
    match json::get(schema, "required") {
        Some(JsonValue::Array(names)) => names
            .iter()
            .filter_map(|n| match n {
                JsonValue::Str(s) => Some(s.clone()),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// Runs the attack on a started agent (or reports why it could not start).
pub fn attack(
    agent: Result<&Agent<'_>, &StartupFailure>,
    seed: &CrmSeed,
    options: &AttackOptions,
) -> AttackReport {
    attack_reusing(agent, seed, options, None).0
}

/// An earlier attack, for [`attack_reusing`] to take unchanged skills' probes from: its
/// report, what it kept, and the project it ran on.
pub(crate) type EarlierAttack = (Arc<AttackReport>, Arc<KeptProbes>, Arc<ProjectReport>);

/// What an attack keeps so that the next one, on the project after an edit, can take an
/// unchanged skill's probes instead of running them again: at 300 skills, running them
/// was a quarter of a rerun, and an edit to one `skill.md` changes two of 600 probes.
///
/// Every skill is probed from the same point — the caller identified, nothing else done
/// (see [`attack`]) — so a skill's probes are a function of the agent's project-wide
/// parts, of the identifying skill's directory (which decide that point) and of the
/// skill's own directory. The project-wide parts are compared in full
/// ([`same_project_wide`]) or by address ([`Basis`]); a directory is the memo's
/// [`SkillEntry`], which is the same `Arc` only when every byte of the directory is (see
/// [`crate::memo`]). Whoever passes earlier attacks in makes sure they had the same seed,
/// options and server.
#[derive(Debug)]
pub(crate) struct KeptProbes {
    basis: Basis,
    /// By skill: its entry and where its probes and leaks are in the report.
    skills: BTreeMap<String, KeptSkill>,
    /// How many skills' probes this attack took from earlier ones.
    pub(crate) reused: usize,
}

#[derive(Debug)]
struct KeptSkill {
    entry: Arc<SkillEntry>,
    probes: Range<usize>,
    leaks: Range<usize>,
}

/// What a skill's probes can see that the project report does not hold: which tool
/// identifies the caller and in which skill's directory, which servers are connected,
/// and each tool module as compiled. Shared parts compare by address, and are kept here
/// so that no other value can take the address.
#[derive(Debug, PartialEq)]
struct Basis {
    identify: Option<(String, String, String)>,
    identify_entry: Option<Same<SkillEntry>>,
    servers: Vec<String>,
    programs: Vec<(String, Same<Program>)>,
}

/// A shared value compared by address: the same `Arc`, not an equal value.
#[derive(Debug)]
struct Same<T>(Arc<T>);

impl<T> PartialEq for Same<T> {
    fn eq(&self, other: &Same<T>) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Basis {
    fn of(agent: &Agent<'_>, identify: Option<(String, String, String)>) -> Basis {
        let identify_entry = identify
            .as_ref()
            .and_then(|(skill, _, _)| agent.report.shared_entry(skill))
            .map(|entry| Same(entry.clone()));
        Basis {
            identify,
            identify_entry,
            servers: agent.servers.keys().cloned().collect(),
            programs: agent
                .programs
                .iter()
                .map(|(path, program)| (path.clone(), Same(program.clone())))
                .collect(),
        }
    }
}

/// Whether two projects agree on everything a skill's probes can see outside its own
/// directory: project memory (the identification writes it), root responses,
/// integrations, the shared tool modules, and every skill's memory contract (which
/// decides what each skill may read).
fn same_project_wide(a: &ProjectReport, b: &ProjectReport) -> bool {
    let same_skill_memory = |(x, y): (&Arc<SkillEntry>, &Arc<SkillEntry>)| {
        Arc::ptr_eq(x, y) || (x.dir == y.dir && x.memory == y.memory)
    };
    let same_module =
        |(x, y): (&ToolFile, &ToolFile)| x.path == y.path && Arc::ptr_eq(&x.module, &y.module);
    a.project_memory == b.project_memory
        && a.responses == b.responses
        && a.integrations == b.integrations
        && a.shared_tools.len() == b.shared_tools.len()
        && a.shared_tools.iter().zip(&b.shared_tools).all(same_module)
        && a.skills.len() == b.skills.len()
        && a.skills.iter().zip(&b.skills).all(same_skill_memory)
}

/// [`attack`], taking each skill's probes from an `earlier` attack whose [`Basis`] is this
/// one's and whose skill had the same directory entry. With `earlier` it also returns
/// what the next attack can take from this one; without, it keeps nothing.
pub(crate) fn attack_reusing(
    agent: Result<&Agent<'_>, &StartupFailure>,
    seed: &CrmSeed,
    options: &AttackOptions,
    earlier: Option<&[EarlierAttack]>,
) -> (AttackReport, Option<KeptProbes>) {
    let (caller, victim) = pick(seed, options);
    let mut report = AttackReport {
        // Set from the finished report below, on every way out.
        verdict: AttackVerdict::NotTested { reason: NotTested::NoProbes },
        caller: caller.cloned(),
        victim: victim.cloned(),
        startup: None,
        identification: None,
        probes: Vec::new(),
        leaks: Vec::new(),
    };
    let agent = match agent {
        Ok(agent) => agent,
        Err(failure) => {
            report.startup = Some(failure.clone());
            return (judged(report), None);
        }
    };
    let (Some(caller), Some(victim)) = (caller, victim) else { return (judged(report), None) };
    let mut run = Run::new(agent, seed.clone());

    // Identify: the first skill whose tool looks a contact up by email: one that calls
    // the client's email search, else (a project's own client, which the scanner does
    // not follow) the first whose only required argument is an email.
    let mut identify_tool = None;
    'find: for (skill, tools) in &agent.bindings {
        for (name, bound) in tools {
            let calls = crm_calls(bound, agent);
            let Some(search) = calls.iter().find(|c| c.function == "search_contact_by_email")
            else {
                continue;
            };
            let param = search
                .args
                .iter()
                .find(|a| a.origin == ArgOrigin::Parameter)
                .map(|a| a.text.clone())
                .or_else(|| required(bound.schema()).first().cloned())
                .unwrap_or_else(|| "email".to_owned());
            identify_tool = Some((skill.clone(), name.clone(), param));
            break 'find;
        }
    }
    if identify_tool.is_none() {
        'by_argument: for (skill, tools) in &agent.bindings {
            for (name, bound) in tools {
                if let [only] = required(bound.schema()).as_slice()
                    && (only == "email" || only.ends_with("_email"))
                {
                    identify_tool = Some((skill.clone(), name.clone(), only.clone()));
                    break 'by_argument;
                }
            }
        }
    }
    if let Some((skill, tool, param)) = &identify_tool
        && run.activate(skill, None).is_ok()
    {
        let args = JsonValue::Object(vec![(param.clone(), JsonValue::Str(caller.email.clone()))]);
        let mut record = run.model_call(tool, &args);
        if record.status == Status::Paused {
            run.user_turn();
            record = run.model_call(
                RESOLVE_TOOL,
                &JsonValue::Object(vec![("confirmed".into(), JsonValue::Bool(true))]),
            );
        }
        report.identification = Some(record);
    }
    let identify_name = identify_tool.as_ref().map(|(_, t, _)| t.clone());
    let identified = run;

    let basis = earlier.map(|_| Basis::of(agent, identify_tool.clone()));
    let donors: Vec<&EarlierAttack> = earlier
        .unwrap_or_default()
        .iter()
        .filter(|(_, kept, project)| {
            Some(&kept.basis) == basis.as_ref() && same_project_wide(project, agent.report)
        })
        .collect();
    let mut kept = BTreeMap::new();
    let mut reused = 0;
    for (skill_id, tools) in &agent.bindings {
        let entry = agent.report.shared_entry(skill_id);
        let probes_at = report.probes.len();
        let leaks_at = report.leaks.len();
        let donor = entry.and_then(|entry| {
            donors.iter().find_map(|(earlier, kept, _)| {
                let skill = kept.skills.get(skill_id).filter(|s| Arc::ptr_eq(&s.entry, entry))?;
                Some((&earlier.probes[skill.probes.clone()], &earlier.leaks[skill.leaks.clone()]))
            })
        });
        match donor {
            Some((probes, leaks)) => {
                report.probes.extend_from_slice(probes);
                report.leaks.extend_from_slice(leaks);
                reused += 1;
            }
            None => probe_skill(
                identified.clone(),
                skill_id,
                tools,
                identify_name.as_deref(),
                &victim.id,
                &mut report,
            ),
        }
        if let (Some(entry), Some(_)) = (entry, &basis) {
            let probes = probes_at..report.probes.len();
            let leaks = leaks_at..report.leaks.len();
            kept.insert(skill_id.clone(), KeptSkill { entry: entry.clone(), probes, leaks });
        }
    }
    let kept = basis.map(|basis| KeptProbes { basis, skills: kept, reused });
    (judged(report), kept)
}

/// The report with its verdict set from the rest of it.
fn judged(mut report: AttackReport) -> AttackReport {
    report.verdict = AttackVerdict::of(&report);
    report
}

/// Probes one skill's tools, in a conversation of their own from `run` (the caller just
/// identified), and adds the probes and leaks to `report`.
fn probe_skill(
    mut run: Run<'_, '_>,
    skill_id: &str,
    tools: &BTreeMap<String, Bound<'_>>,
    identify_name: Option<&str>,
    victim: &str,
    report: &mut AttackReport,
) {
    let agent = run.agent;
    run.user_turn();
    if run.activate(skill_id, None).is_err() {
        return;
    }
    let offered = run.visible_tools();
    for (name, bound) in tools {
        if Some(name.as_str()) == identify_name || !offered.contains(name) {
            continue;
        }
        let schema = bound.schema();
        let props = properties(schema);
        let needed = required(schema);
        let ids: Vec<String> =
            props.iter().map(|(n, _)| n.clone()).filter(|n| is_id_like(n)).collect();
        let memory_id = crm_calls(bound, agent)
            .iter()
            .flat_map(|c| c.args.clone())
            .find_map(|a| match a.origin {
                ArgOrigin::Memory { path } => Some(path.unwrap_or_default()),
                _ => None,
            })
            .or_else(|| memory_id_read(bound));
        let (kind, id_args) = if !ids.is_empty() {
            (ProbeKind::IdArgument, ids)
        } else if let Some(path) = memory_id {
            let entry = path
                .rsplit('.')
                .next()
                .filter(|e| is_id_like(e))
                .unwrap_or("contact_id")
                .to_owned();
            (ProbeKind::ExtraArgument, vec![entry])
        } else {
            continue;
        };
        let mut args: Vec<(String, JsonValue)> = Vec::new();
        for (prop, prop_schema) in &props {
            if id_args.contains(prop) {
                args.push((prop.clone(), JsonValue::Str(victim.to_owned())));
            } else if needed.contains(prop) {
                args.push((prop.clone(), filler(prop_schema)));
            }
        }
        for id in &id_args {
            if !args.iter().any(|(n, _)| n == id) {
                args.push((id.clone(), JsonValue::Str(victim.to_owned())));
            }
        }
        run.user_turn();
        fill_confirmation_entries(&mut run, skill_id, name);
        let call = run.model_call(name, &JsonValue::Object(args));
        let mut confirmation = None;
        if call.status == Status::Paused {
            run.user_turn();
            confirmation = Some(run.model_call(
                RESOLVE_TOOL,
                &JsonValue::Object(vec![("confirmed".into(), JsonValue::Bool(true))]),
            ));
        }
        let effective = confirmation.as_ref().unwrap_or(&call);
        let leaks = leaks_of(skill_id, name, &id_args, victim, effective);
        let outcome = if !leaks.is_empty() {
            ProbeOutcome::Leaked
        } else if let Some(note) = &effective.unsupported {
            // Not a refusal: the tool never got to decide.
            ProbeOutcome::CouldNotRun { reason: note.clone() }
        } else if effective.status == Status::Ran && !effective.is_error {
            ProbeOutcome::NoEffect
        } else {
            ProbeOutcome::Blocked { reason: effective.model_sees.clone().unwrap_or_default() }
        };
        report.leaks.extend(leaks);
        report.probes.push(Probe {
            skill: skill_id.to_owned(),
            tool: name.clone(),
            id_arguments: id_args,
            kind,
            call,
            confirmation,
            outcome,
        });
    }
}

fn leaks_of(
    skill: &str,
    tool: &str,
    id_args: &[String],
    victim: &str,
    call: &CallRecord,
) -> Vec<Leak> {
    let mut out = Vec::new();
    for (kind, access) in [(LeakKind::Read, Access::Read), (LeakKind::Write, Access::Write)] {
        let mut records = Vec::new();
        let mut requests = Vec::new();
        for request in call.requests() {
            let hits: Vec<Touched> = request
                .touched
                .iter()
                .filter(|t| t.owner == victim && t.access == access)
                .cloned()
                .collect();
            if !hits.is_empty() {
                requests.push(request.line());
                records.extend(hits);
            }
        }
        // A read leaks only when its result reached the model; a write leaks regardless.
        let reached = call.status == Status::Ran && !call.is_error;
        if records.is_empty() || (kind == LeakKind::Read && !reached) {
            continue;
        }
        out.push(Leak {
            kind,
            skill: skill.to_owned(),
            tool: tool.to_owned(),
            argument: id_args.join(", "),
            value: victim.to_owned(),
            records,
            requests,
            model_saw: call.model_sees.clone(),
        });
    }
    out
}
