//! Reuse between reruns. A reader's edit changes one file, yet every edit used to read,
//! scan and compile all of them again: at 300 skills that was most of a rerun. A
//! [`Memo`] remembers the per-file results — a skill directory read
//! (`read_skill_dir`), a tool module compiled for the interpreter, the MCP server scanned
//! and compiled — and each project's whole report (an edit on one side leaves the other
//! project's files as they were), keyed by the exact paths and texts they were made
//! from, and hands back the same shared value when those inputs come again.
//!
//! Still a pure function of its inputs: a result is reused only when every byte it was
//! made from is equal (the key is compared in full, not only its hash), so a rerun with a
//! memo returns exactly what a rerun without one would. The shell that owns the memo
//! (the playground keeps one per page) passes it in; nothing here is global.
//!
//! Entries not used by the latest run are dropped at its end ([`Memo::finish_run`]), so
//! the memo holds one workspace's worth of results, not every version ever typed.
//!
//! The memo is two caches and a run counter: the readers' ([`ReadCache`]: skill
//! directories, tool modules, the server scanned, whole project reports) and the
//! simulation's ([`SimCache`]: programs, the server compiled, kept attacks). It sits at
//! the top of the core's layers, so the readers and the simulation never depend on it.
//!
//! One kind of result is made after the reading, from a [`Simulation`] that no longer
//! holds the memo: each side's attack ([`KeptAttacks`]). The memo shares that table with
//! the simulation; it is keyed by the very project report and server the memo handed
//! out (the same `Arc`, so made from the same bytes) and by the seed and options. When a
//! side's project changed, its attack runs again but takes every unchanged skill's
//! probes from the kept one ([`KeptProbes`]).
//!
//! [`KeptProbes`]: crate::sim::attack::KeptProbes
//!
//! [`KeptAttacks`]: crate::sim::cache::KeptAttacks
//!
//! [`Simulation`]: crate::sim::Simulation

use crate::rasa::cache::ReadCache;
use crate::sim::Simulation;
use crate::sim::cache::SimCache;
use crate::workspace::Workspace;

/// Results kept from one run for the next. See the module documentation.
#[derive(Default)]
pub struct Memo {
    /// Whether results are kept at all; run 0 keeps nothing.
    keeps: bool,
    run: u64,
    read: ReadCache,
    sim: SimCache,
}

impl std::fmt::Debug for Memo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Memo")
            .field("run", &self.run)
            .field("read", &self.read.len())
            .field("sim", &self.sim.len())
            .field("attacks", &self.attacks_kept())
            .finish()
    }
}

impl Memo {
    /// An empty memo: the first run makes everything.
    pub fn new() -> Memo {
        Memo { keeps: true, ..Memo::default() }
    }

    /// Starts a run: what it uses is kept by [`Memo::finish_run`], the rest dropped.
    pub fn start_run(&mut self) {
        if self.keeps {
            self.run += 1;
        }
        self.read.run = self.run;
        self.sim.run = self.run;
    }

    /// Ends a run: drops every result it did not use.
    pub fn finish_run(&mut self) {
        self.read.keep_only(self.run);
        self.sim.keep_only(self.run);
    }

    /// How many results of the reading it holds (skill directories, programs, servers,
    /// projects). Kept attacks are not counted: they outlive a run by one.
    pub fn len(&self) -> usize {
        self.read.len() + self.sim.len()
    }

    /// How many attacks it keeps.
    pub fn attacks_kept(&self) -> usize {
        self.sim.attacks_kept()
    }

    /// How many skills' probes the latest attack that ran took from an earlier attack
    /// instead of running them.
    pub fn attack_skills_reused(&self) -> usize {
        self.sim.attack_skills_reused()
    }

    /// Whether it holds nothing.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl Simulation {
    /// Reads the workspace, reusing whatever `memo` made before from the same files —
    /// the same simulation [`Simulation::new`] builds, made faster by a memo the caller
    /// keeps between reruns (one edit changes one file). Drops from `memo` what this
    /// workspace no longer uses.
    pub fn with_memo(workspace: &Workspace, memo: &mut Memo) -> Simulation {
        memo.start_run();
        let mut simulation = Simulation::read_with(workspace, &mut memo.read, &mut memo.sim);
        memo.finish_run();
        simulation.kept_attacks = memo.sim.attacks();
        simulation
    }
}
