//! The simulation's results kept between reruns: the tool modules and the server
//! compiled for the interpreter, and each side's attack ([`KeptAttacks`]). The memo
//! ([`crate::memo`]) owns one and numbers its runs.

use std::sync::{Arc, Mutex, PoisonError};

use crate::cache::Table;
use crate::python::Program;
use crate::rasa::project::ProjectReport;
use crate::sim::attack::{AttackOptions, AttackReport, EarlierAttack, KeptProbes};
use crate::sim::crm::CrmSeed;
use crate::sim::mcp::McpServer;

/// What the simulation keeps from one run for the next.
#[derive(Default)]
pub struct SimCache {
    /// The run results are kept for; 0 keeps nothing.
    pub(crate) run: u64,
    programs: Table<Program>,
    servers: Table<McpServer>,
    attacks: Arc<Mutex<KeptAttacks>>,
}

impl SimCache {
    /// A module compiled for the interpreter.
    pub(crate) fn program(
        &mut self,
        path: &str,
        text: &str,
        make: impl FnOnce() -> Program,
    ) -> Arc<Program> {
        self.programs.get_or_make(self.run, &[(path, text)], make)
    }

    /// The MCP server, ready to answer: its module compiled, and what it has worked out
    /// once (each tool's offered schema, the `tools/list` result) kept with it.
    pub(crate) fn server(
        &mut self,
        path: &str,
        text: &str,
        make: impl FnOnce() -> McpServer,
    ) -> Arc<McpServer> {
        self.servers.get_or_make(self.run, &[(path, text)], make)
    }

    /// The table of attacks, shared with the simulation this run builds, and the run's
    /// number; `None` when nothing is kept.
    pub(crate) fn attacks(&self) -> Option<(Arc<Mutex<KeptAttacks>>, u64)> {
        (self.run != 0).then(|| (self.attacks.clone(), self.run))
    }

    /// Drops what `run` did not use (kept attacks age by themselves, see
    /// [`KeptAttacks`]).
    pub(crate) fn keep_only(&mut self, run: u64) {
        self.programs.keep_only(run);
        self.servers.keep_only(run);
    }

    /// How many programs and servers it holds.
    pub(crate) fn len(&self) -> usize {
        self.programs.len() + self.servers.len()
    }

    /// How many attacks it keeps.
    pub(crate) fn attacks_kept(&self) -> usize {
        self.attacks.lock().map_or(0, |kept| kept.entries.len())
    }

    /// How many skills' probes the latest attack that ran took from an earlier one.
    pub(crate) fn attack_skills_reused(&self) -> usize {
        self.attacks.lock().map_or(0, |kept| kept.reused)
    }
}

/// Each side's attack from the latest runs. An edit on one side leaves the other side's
/// project report the very same `Arc` (see the readers' cache, [`crate::rasa::cache`]), so that side's attack —
/// a quarter of a rerun at 300 skills, every probe running a tool body — is found here
/// instead of run again.
///
/// A side whose project changed is attacked again, but each entry also keeps what its
/// attack saw ([`KeptProbes`]): a skill whose directory the readers' cache handed back unchanged,
/// in a project whose project-wide parts are unchanged, gets its probes from the kept
/// report instead of running them (an edit to one `skill.md` at 300 skills reruns 2 of
/// 600 probes).
///
/// An entry holds the report and server it was made from, so their addresses cannot be
/// reused by other values while it is kept: the same address means the same value, and
/// the memo made that value from the same bytes. The seed and the options are compared
/// in full. Entries that the latest two runs did not use are dropped (an attack is asked
/// for after its run's the memo's `finish_run`), and at most [`KeptAttacks::MOST`] are kept.
#[derive(Default)]
pub(crate) struct KeptAttacks {
    entries: Vec<KeptAttack>,
    /// How many skills' probes the latest attack run took from earlier ones.
    reused: usize,
}

impl std::fmt::Debug for KeptAttacks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KeptAttacks").field("entries", &self.entries.len()).finish()
    }
}

struct KeptAttack {
    project: Arc<ProjectReport>,
    server: Option<Arc<McpServer>>,
    seed: CrmSeed,
    options: AttackOptions,
    report: Arc<AttackReport>,
    /// What the next attack on an edited project can take from this one.
    probes: Option<Arc<KeptProbes>>,
    used: u64,
}

impl KeptAttacks {
    /// Enough for both sides of two runs, with room for a reader trying options.
    const MOST: usize = 8;

    /// The attack on `project` (with `server`, `seed` and `options`), run now by `run`
    /// unless an earlier attack had the same inputs. `run` is handed the kept attacks
    /// with the same server, seed and options, to take unchanged skills' probes from
    /// ([`attack_reusing`]). `table` is not locked while `run` runs.
    ///
    /// [`attack_reusing`]: crate::sim::attack::attack_reusing
    pub(crate) fn get_or_run(
        table: &Mutex<KeptAttacks>,
        used: u64,
        project: &Arc<ProjectReport>,
        server: Option<&Arc<McpServer>>,
        seed: &CrmSeed,
        options: &AttackOptions,
        run: impl FnOnce(&[EarlierAttack]) -> (AttackReport, Option<KeptProbes>),
    ) -> Arc<AttackReport> {
        let same_run = |kept: &KeptAttack| {
            let same_server = match (&kept.server, server) {
                (Some(a), Some(b)) => Arc::ptr_eq(a, b),
                (None, None) => true,
                _ => false,
            };
            same_server && kept.options == *options && kept.seed == *seed
        };
        let earlier: Vec<EarlierAttack> = {
            let mut kept = table.lock().unwrap_or_else(PoisonError::into_inner);
            kept.entries.retain(|entry| entry.used + 1 >= used);
            let same = |entry: &KeptAttack| Arc::ptr_eq(&entry.project, project) && same_run(entry);
            if let Some(entry) = kept.entries.iter_mut().find(|entry| same(entry)) {
                entry.used = used;
                return entry.report.clone();
            }
            // The most recently used first: the likeliest to match the most skills.
            let mut donors: Vec<&KeptAttack> =
                kept.entries.iter().filter(|entry| same_run(entry)).collect();
            crate::order::sort_by_key(&mut donors, |entry| std::cmp::Reverse(entry.used));
            donors
                .into_iter()
                .filter_map(|entry| {
                    Some((entry.report.clone(), entry.probes.clone()?, entry.project.clone()))
                })
                .collect()
        };
        let (report, probes) = run(&earlier);
        let report = Arc::new(report);
        let mut kept = table.lock().unwrap_or_else(PoisonError::into_inner);
        kept.reused = probes.as_ref().map_or(0, |probes| probes.reused);
        while kept.entries.len() >= KeptAttacks::MOST {
            let oldest = kept.entries.iter().enumerate().min_by_key(|(_, entry)| entry.used);
            let Some((at, _)) = oldest else { break };
            kept.entries.swap_remove(at);
        }
        kept.entries.push(KeptAttack {
            project: project.clone(),
            server: server.cloned(),
            seed: seed.clone(),
            options: options.clone(),
            report: report.clone(),
            probes: probes.map(Arc::new),
            used,
        });
        report
    }
}
