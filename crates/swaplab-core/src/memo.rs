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
//! One kind of result is made after the reading, from a [`Simulation`] that no longer
//! holds the memo: each side's attack ([`KeptAttacks`]). The memo shares that table with
//! the simulation; it is keyed by the very project report and server the memo handed
//! out (the same `Arc`, so made from the same bytes) and by the seed and options. When a
//! side's project changed, its attack runs again but takes every unchanged skill's
//! probes from the kept one ([`KeptProbes`]).
//!
//! [`KeptProbes`]: crate::sim::attack::KeptProbes
//!
//! [`Simulation`]: crate::sim::Simulation

use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex, PoisonError};

use crate::python::{McpServerModule, Program, ToolModule};
use crate::rasa::project::{ProjectReport, SkillEntry};
use crate::sim::attack::{AttackOptions, AttackReport, Earlier, KeptProbes};
use crate::sim::crm::CrmSeed;
use crate::sim::mcp::McpServer;

/// The inputs a result was made from: (path, text) pairs, in a fixed order.
type Key = Vec<(String, String)>;

/// One kind of result, by the hash of its inputs.
struct Table<T> {
    entries: BTreeMap<u64, Vec<Entry<T>>>,
}

struct Entry<T> {
    key: Key,
    value: Arc<T>,
    /// The run that last used it.
    used: u64,
}

impl<T> Default for Table<T> {
    fn default() -> Table<T> {
        Table { entries: BTreeMap::new() }
    }
}

impl<T> Table<T> {
    /// The value made from `inputs`, made now by `make` if no earlier run made it. With
    /// `run` 0 (a [`Memo::once`]) nothing is looked up or kept.
    fn get_or_make(
        &mut self,
        run: u64,
        inputs: &[(&str, &str)],
        make: impl FnOnce() -> T,
    ) -> Arc<T> {
        if run == 0 {
            return Arc::new(make());
        }
        let bucket = self.entries.entry(fingerprint(inputs)).or_default();
        let same = |entry: &&mut Entry<T>| {
            entry.key.len() == inputs.len()
                && entry.key.iter().zip(inputs).all(|((p, t), (q, u))| p == q && t == u)
        };
        if let Some(entry) = bucket.iter_mut().find(|e| same(e)) {
            entry.used = run;
            return entry.value.clone();
        }
        let value = Arc::new(make());
        let key = inputs.iter().map(|(p, t)| ((*p).to_owned(), (*t).to_owned())).collect();
        bucket.push(Entry { key, value: value.clone(), used: run });
        value
    }

    /// Drops what `run` did not use.
    fn keep_only(&mut self, run: u64) {
        self.entries.retain(|_, bucket| {
            bucket.retain(|entry| entry.used == run);
            !bucket.is_empty()
        });
    }

    fn len(&self) -> usize {
        self.entries.values().map(Vec::len).sum()
    }
}

/// The bucket for `inputs`: each path with its text's length and ends. The hash only
/// picks a bucket and the key decides, so it need not read every byte, nor resist
/// crafted collisions (they would only share a bucket): hashing whole texts cost more
/// than the lookups it served once whole projects became keys, and SipHash on paths and
/// ends still cost 2 K instructions per 300-skill project key. [`WordHasher`] has no
/// random state, so the same inputs hash alike on every run and every machine.
fn fingerprint(inputs: &[(&str, &str)]) -> u64 {
    const END: usize = 32;
    let mut hasher = WordHasher::default();
    for (path, text) in inputs {
        let bytes = text.as_bytes();
        path.hash(&mut hasher);
        bytes.len().hash(&mut hasher);
        bytes[..bytes.len().min(END)].hash(&mut hasher);
        bytes[bytes.len().saturating_sub(END)..].hash(&mut hasher);
    }
    hasher.finish()
}

/// A fast, non-cryptographic hasher for [`fingerprint`]: eight bytes at a time, each
/// word folded in by a rotate, an xor and a multiply (the scheme of rustc's FxHasher).
#[derive(Default)]
struct WordHasher {
    hash: u64,
}

impl WordHasher {
    const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(WordHasher::SEED);
    }
}

impl Hasher for WordHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0; 8];
            word.copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut word = [0; 8];
            word[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(word) ^ (rest.len() as u64) << 56);
        }
    }

    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }

    fn finish(&self) -> u64 {
        self.hash
    }
}

/// Results kept from one run for the next. See the module documentation.
#[derive(Default)]
pub struct Memo {
    /// Whether results are kept at all (see [`Memo::once`]); run 0 keeps nothing.
    keeps: bool,
    run: u64,
    skill_dirs: Table<SkillEntry>,
    programs: Table<Program>,
    tool_modules: Table<ToolModule>,
    server_modules: Table<McpServerModule>,
    servers: Table<McpServer>,
    projects: Table<ProjectReport>,
    attacks: Arc<Mutex<KeptAttacks>>,
}

impl std::fmt::Debug for Memo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Memo")
            .field("run", &self.run)
            .field("skill_dirs", &self.skill_dirs.len())
            .field("programs", &self.programs.len())
            .field("tool_modules", &self.tool_modules.len())
            .field("servers", &(self.server_modules.len() + self.servers.len()))
            .field("projects", &self.projects.len())
            .field("attacks", &self.attacks_kept())
            .finish()
    }
}

impl Memo {
    /// An empty memo: the first run makes everything.
    pub fn new() -> Memo {
        Memo { keeps: true, ..Memo::default() }
    }

    /// A memo for one run that will not be repeated: it keeps nothing, so a one-off
    /// reading (the command line, a test) does not pay for copying every file's text
    /// into keys.
    pub(crate) fn once() -> Memo {
        Memo::default()
    }

    /// Starts a run: what it uses is kept by [`Memo::finish_run`], the rest dropped.
    pub fn start_run(&mut self) {
        if self.keeps {
            self.run += 1;
        }
    }

    /// Ends a run: drops every result it did not use.
    pub fn finish_run(&mut self) {
        let run = self.run;
        self.skill_dirs.keep_only(run);
        self.programs.keep_only(run);
        self.tool_modules.keep_only(run);
        self.server_modules.keep_only(run);
        self.servers.keep_only(run);
        self.projects.keep_only(run);
    }

    /// How many results of the reading it holds (skill directories, programs, servers,
    /// projects). Kept attacks are not counted: they outlive a run by one (see
    /// [`KeptAttacks`]).
    pub fn len(&self) -> usize {
        self.skill_dirs.len()
            + self.programs.len()
            + self.tool_modules.len()
            + self.server_modules.len()
            + self.servers.len()
            + self.projects.len()
    }

    /// How many attacks it keeps (see [`KeptAttacks`]).
    pub fn attacks_kept(&self) -> usize {
        self.attacks.lock().map_or(0, |kept| kept.entries.len())
    }

    /// How many skills' probes the latest attack that ran took from an earlier attack
    /// instead of running them (see [`KeptAttacks`]).
    pub fn attack_skills_reused(&self) -> usize {
        self.attacks.lock().map_or(0, |kept| kept.reused)
    }

    /// Whether it holds nothing.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// A skill directory read from `files` (its every file, by path).
    pub(crate) fn skill_dir(
        &mut self,
        files: &[(&str, &str)],
        make: impl FnOnce() -> SkillEntry,
    ) -> Arc<SkillEntry> {
        self.skill_dirs.get_or_make(self.run, files, make)
    }

    /// A module compiled for the interpreter.
    pub(crate) fn program(
        &mut self,
        path: &str,
        text: &str,
        make: impl FnOnce() -> Program,
    ) -> Arc<Program> {
        self.programs.get_or_make(self.run, &[(path, text)], make)
    }

    /// A shared tool module (`tools/*.py`), scanned. (A skill's own modules are part of
    /// its directory's entry.)
    pub(crate) fn tool_module(
        &mut self,
        path: &str,
        text: &str,
        make: impl FnOnce() -> ToolModule,
    ) -> Arc<ToolModule> {
        self.tool_modules.get_or_make(self.run, &[(path, text)], make)
    }

    /// The MCP server's source, scanned.
    pub(crate) fn server_module(
        &mut self,
        path: &str,
        text: &str,
        make: impl FnOnce() -> McpServerModule,
    ) -> Arc<McpServerModule> {
        self.server_modules.get_or_make(self.run, &[(path, text)], make)
    }

    /// The table of attacks, shared with the simulation this run builds, and the run's
    /// number; `None` for a memo that keeps nothing.
    pub(crate) fn attacks(&self) -> Option<(Arc<Mutex<KeptAttacks>>, u64)> {
        self.keeps.then(|| (self.attacks.clone(), self.run))
    }

    /// A whole project's report, from `files` (its every file within the limits, by
    /// path). A project without files is made afresh: there is nothing to save.
    pub(crate) fn project(
        &mut self,
        files: &[(&str, &str)],
        make: impl FnOnce() -> ProjectReport,
    ) -> Arc<ProjectReport> {
        if files.is_empty() {
            return Arc::new(make());
        }
        self.projects.get_or_make(self.run, files, make)
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
}

/// Each side's attack from the latest runs. An edit on one side leaves the other side's
/// project report the very same `Arc` (see [`Memo::project`]), so that side's attack —
/// a quarter of a rerun at 300 skills, every probe running a tool body — is found here
/// instead of run again.
///
/// A side whose project changed is attacked again, but each entry also keeps what its
/// attack saw ([`KeptProbes`]): a skill whose directory the memo handed back unchanged,
/// in a project whose project-wide parts are unchanged, gets its probes from the kept
/// report instead of running them (an edit to one `skill.md` at 300 skills reruns 2 of
/// 600 probes).
///
/// An entry holds the report and server it was made from, so their addresses cannot be
/// reused by other values while it is kept: the same address means the same value, and
/// the memo made that value from the same bytes. The seed and the options are compared
/// in full. Entries that the latest two runs did not use are dropped (an attack is asked
/// for after its run's [`Memo::finish_run`]), and at most [`KeptAttacks::MOST`] are kept.
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
        run: impl FnOnce(&[Earlier]) -> (AttackReport, Option<KeptProbes>),
    ) -> Arc<AttackReport> {
        let same_run = |kept: &KeptAttack| {
            let same_server = match (&kept.server, server) {
                (Some(a), Some(b)) => Arc::ptr_eq(a, b),
                (None, None) => true,
                _ => false,
            };
            same_server && kept.options == *options && kept.seed == *seed
        };
        let earlier: Vec<Earlier> = {
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
