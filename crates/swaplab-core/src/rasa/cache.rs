//! The readers' results kept between reruns: each skill directory read, each shared
//! tool module and the MCP server scanned, and each project's whole report, keyed by
//! the exact files they were read from. The memo ([`crate::memo`]) owns one and numbers
//! its runs; a one-off reading uses an empty one, which keeps nothing.

use std::sync::Arc;

use crate::cache::Table;
use crate::python::{McpServerModule, ToolModule};
use crate::rasa::project::{ProjectReport, SkillEntry};

/// What the readers keep from one run for the next.
#[derive(Default)]
pub struct ReadCache {
    /// The run results are kept for; 0 keeps nothing.
    pub(crate) run: u64,
    skill_dirs: Table<SkillEntry>,
    tool_modules: Table<ToolModule>,
    server_modules: Table<McpServerModule>,
    projects: Table<ProjectReport>,
}

impl ReadCache {
    /// A skill directory read from `files` (its every file, by path).
    pub(crate) fn skill_dir(
        &mut self,
        files: &[(&str, &str)],
        make: impl FnOnce() -> SkillEntry,
    ) -> Arc<SkillEntry> {
        self.skill_dirs.get_or_make(self.run, files, make)
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

    /// Drops what `run` did not use.
    pub(crate) fn keep_only(&mut self, run: u64) {
        self.skill_dirs.keep_only(run);
        self.tool_modules.keep_only(run);
        self.server_modules.keep_only(run);
        self.projects.keep_only(run);
    }

    /// How many results it holds.
    pub(crate) fn len(&self) -> usize {
        self.skill_dirs.len()
            + self.tool_modules.len()
            + self.server_modules.len()
            + self.projects.len()
    }
}
