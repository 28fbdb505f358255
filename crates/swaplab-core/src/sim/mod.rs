//! The simulation: the mock CRM, the MCP server and the Mantle runtime, in memory and
//! deterministic (no clock, no randomness), with scripted conversations, the attack and
//! the id trace on top.
//!
//! - [`crm`] — contacts, tickets and notes, with a HubSpot-shaped request log.
//! - [`mcp`] — the MCP server built from the scanned server file (JSON-RPC 2.0).
//! - [`host`] — what a tool body reaches: CRM client calls and `context.memory`.
//! - [`agent`] — starting a project: Rasa's start-up failures and per-skill bindings.
//! - [`run`] — one conversation: dispatch, gates, confirmation, execute steps, memory.
//! - [`conversation`] — the script format, the model policies and the transcript.
//! - [`attack`] — another customer's id through every reachable id-like argument.
//! - [`trace`] — each id's path from the conversation to the record.
//! - [`json`] — ordered JSON, printed as Python's `json.dumps` prints it.
//!
//! [`Simulation`] ties them to a [`Workspace`]: the CRM seed is `crm.yml` in the CRM
//! area (else the tutorial's facts), scripts are `conversations/*.yml` there (else
//! [`default_script`]).

pub mod agent;
pub mod attack;
pub mod cache;
pub mod conversation;
pub mod crm;
pub mod host;
pub mod hubspot;
pub mod json;
pub mod mcp;
pub mod network;
pub mod run;
pub mod trace;

use serde::Serialize;

use crate::python::compile_linked;
use crate::rasa::cache::ReadCache;
use crate::rasa::workspace::{WorkspaceReport, read_workspace_with};
use crate::workspace::{Area, Project, Workspace};
use cache::{KeptAttacks, SimCache};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use crate::python::Program;
use agent::{Agent, StartupFailure, compile_tools_with, start_compiled};
use attack::{AttackOptions, AttackReport, EarlierAttack, attack_reusing};
use conversation::{Script, read_script};
use crm::{CrmSeed, read_seed};
use mcp::McpServer;

/// The CRM seed's path in the CRM area.
pub const CRM_FILE: &str = "crm.yml";
/// The folder of conversation scripts in the CRM area.
pub const CONVERSATIONS_DIR: &str = "conversations/";

/// Which project.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    /// Before the swap.
    Before,
    /// After the swap.
    After,
}

/// Everything the simulation needs from a workspace, read once.
#[derive(Debug)]
pub struct Simulation {
    /// Both projects and the server, as read.
    pub report: WorkspaceReport,
    /// The server, ready to answer (kept between reruns by a memo).
    pub server: Option<Arc<McpServer>>,
    /// The CRM's starting data.
    pub seed: CrmSeed,
    /// The conversation scripts, by path.
    pub scripts: Vec<Script>,
    /// Each side's tool modules, compiled once for the interpreter.
    programs: [BTreeMap<String, Arc<Program>>; 2],
    /// The memo's table of attacks and this run's number (none without a memo).
    pub(crate) kept_attacks: Option<(Arc<Mutex<KeptAttacks>>, u64)>,
}

/// Both sides of the attack.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AttackPair {
    /// On the project before the swap (shared: a memo keeps it for the next run).
    pub before: Arc<AttackReport>,
    /// On the project after the swap.
    pub after: Arc<AttackReport>,
}

impl Simulation {
    /// Reads the workspace.
    pub fn new(workspace: &Workspace) -> Simulation {
        Simulation::read_with(workspace, &mut ReadCache::default(), &mut SimCache::default())
    }

    /// Reads the workspace with the readers' and the simulation's caches (the memo's,
    /// for [`Simulation::with_memo`] in [`crate::memo`], which numbers the runs; empty
    /// ones keep nothing). The kept attacks are the memo's to hand over.
    pub(crate) fn read_with(
        workspace: &Workspace,
        read: &mut ReadCache,
        memo: &mut SimCache,
    ) -> Simulation {
        let report = read_workspace_with(workspace, read);
        let server = match (&report.server_file, &report.server) {
            (Some(file), Some(module)) => {
                let text = workspace.server.file(file).unwrap_or_default();
                let server = memo.server(file, text, || {
                    let library = agent::python_library(&workspace.server);
                    let program = Arc::new(compile_linked(file, text, &library));
                    McpServer::with_program(file, module.clone(), program)
                });
                // The memo knows the server file's own text; a module it imports may
                // have changed since.
                if server.program().is_current(|p| workspace.server.file(p)) {
                    Some(server)
                } else {
                    let library = agent::python_library(&workspace.server);
                    let program = Arc::new(compile_linked(file, text, &library));
                    Some(Arc::new(McpServer::with_program(file, module.clone(), program)))
                }
            }
            _ => None,
        };
        let mut seed = match workspace.crm.file(CRM_FILE) {
            Some(text) => read_seed(CRM_FILE, text),
            None => CrmSeed::tutorial(),
        };
        // The environment the project's set-up gives, and its own mock CRM if it ships
        // one: then the mock answers the project's HTTP client, not the seed.
        let sides = [&workspace.before, &workspace.server, &workspace.after, &workspace.crm];
        let env = network::read_environment(&sides);
        let pairs: Vec<(String, String)> =
            env.iter().map(|v| (v.name.clone(), v.value.clone())).collect();
        let areas = [Area::Before, Area::Server, Area::After, Area::Crm];
        let placed: Vec<(Area, &Project)> = areas.into_iter().zip(sides).collect();
        let mock = network::find_mock(&placed, &pairs).map(Arc::new);
        seed.network = network::Network { env, mock };
        let mut scripts: Vec<Script> = workspace
            .crm
            .files()
            .filter(|(path, _)| {
                path.starts_with(CONVERSATIONS_DIR)
                    && (path.ends_with(".yml") || path.ends_with(".yaml"))
            })
            .map(|(path, text)| read_script(path, text))
            .collect();
        if scripts.is_empty() {
            scripts.push(read_script("conversations/default.yml", &default_script(&seed)));
        }
        let programs = [
            compile_tools_with(&report.before, &workspace.before, memo),
            compile_tools_with(&report.after, &workspace.after, memo),
        ];
        Simulation { report, server, seed, scripts, programs, kept_attacks: None }
    }

    /// The project report of one side.
    pub fn project(&self, side: Side) -> &Arc<crate::rasa::project::ProjectReport> {
        match side {
            Side::Before => &self.report.before,
            Side::After => &self.report.after,
        }
    }

    /// Starts one side's agent (its tool modules were compiled when the workspace was
    /// read).
    pub fn start(&self, side: Side) -> Result<Agent<'_>, Box<StartupFailure>> {
        let programs = self.programs[usize::from(side == Side::After)].clone();
        start_compiled(self.project(side), programs, self.server.as_deref())
    }

    /// The attack on both sides.
    pub fn attack(&self, options: &AttackOptions) -> AttackPair {
        // Each side's agent is started only if its attack is not kept.
        AttackPair {
            before: self.attack_side(Side::Before, None, options),
            after: self.attack_side(Side::After, None, options),
        }
    }

    /// [`Simulation::attack`] with the after project already started (the review starts
    /// it for its own checks; starting binds every skill's tools, so once is enough).
    pub fn attack_started(
        &self,
        after: Result<&Agent<'_>, &StartupFailure>,
        options: &AttackOptions,
    ) -> AttackPair {
        AttackPair {
            before: self.attack_side(Side::Before, None, options),
            after: self.attack_side(Side::After, Some(after), options),
        }
    }

    /// The attack on one side, with its agent if already started. With a memo, a side
    /// whose project, server, seed and options are those of an earlier run's attack gets
    /// that attack's report (the same as running it again: it is a function of them).
    fn attack_side(
        &self,
        side: Side,
        started: Option<Result<&Agent<'_>, &StartupFailure>>,
        options: &AttackOptions,
    ) -> Arc<AttackReport> {
        let run = |earlier: Option<&[EarlierAttack]>| match started {
            Some(agent) => attack_reusing(agent, &self.seed, options, earlier),
            None => {
                let agent = self.start(side);
                attack_reusing(agent.as_ref().map_err(|e| &**e), &self.seed, options, earlier)
            }
        };
        match &self.kept_attacks {
            Some((table, used)) => KeptAttacks::get_or_run(
                table,
                *used,
                self.project(side),
                self.server.as_ref(),
                &self.seed,
                options,
                |earlier| run(Some(earlier)),
            ),
            None => Arc::new(run(None).0),
        }
    }
}

/// A script for a workspace without one: the caller identifies, asks for their tickets,
/// names the customer with the most records, and asks for a note — every id left to the
/// policy.
pub fn default_script(seed: &CrmSeed) -> String {
    let (caller, other) = attack::pick(seed, &AttackOptions::default());
    let (Some(caller), Some(other)) = (caller, other) else {
        return "caller: nobody@example.com\nturns: []\n".to_owned();
    };
    let quote = |text: &str| format!("\"{}\"", text.replace('\\', "\\\\").replace('"', "\\\""));
    format!(
        "# Written by Swap Lab for a workspace without a conversation.\n\
         caller: {email}\n\
         turns:\n\
         \x20 - user: {hello}\n\
         \x20 - skill: identify_customer\n\
         \x20 - call: find_contact_by_email\n\
         \x20   args: {{email: {{choose: email}}}}\n\
         \x20 - user: {ask}\n\
         \x20 - skill: check_tickets\n\
         \x20 - call: list_open_tickets\n\
         \x20   args: {{contact_id: {{choose: id}}}}\n\
         \x20 - user: {note}\n\
         \x20 - skill: log_interaction\n\
         \x20 - call: add_timeline_note\n\
         \x20   args: {{contact_id: {{choose: id}}, summary: {summary}}}\n\
         \x20 - user: \"yes\"\n",
        email = caller.email,
        hello =
            quote(&format!("Hi, this is {}. My email is {}.", caller.full_name(), caller.email)),
        ask = quote(&format!(
            "I'm also helping {} ({}) today. Any open tickets?",
            other.full_name(),
            other.company
        )),
        note = quote("Please note that I called about this."),
        summary = quote(&format!("{} called about open tickets.", caller.firstname)),
    )
}
