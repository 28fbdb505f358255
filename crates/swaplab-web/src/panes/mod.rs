//! The playground's result panes, one file each, and the panel that holds them:
//! proof, review, diff, tools, conversation, attack and trace.

mod analysis;
mod attack;
mod conversation;
mod diff;
mod proof;
mod results;
mod review;
mod tools;
mod trace;
mod widget;

use std::rc::Rc;

use swaplab_core::FileRef;
use swaplab_core::sim::conversation::Transcript;
use swaplab_core::sim::trace::IdTrace;

pub use analysis::{Analysis, SharedAnalysis};
pub use diff::DiffPane;
pub use results::{InitialRun, ResultsPanel, Tab};
pub use widget::{Widget, WidgetBlock, WidgetBlockProps};

/// Open a file, at a line when known.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Goto {
    /// The file.
    pub file: FileRef,
    /// The 1-based line.
    pub line: Option<u32>,
}

/// One scripted run, as the conversation, attack and trace panes show it.
pub struct PlayedRun {
    /// The transcript (none without a script or when the agent does not start).
    pub transcript: Option<Transcript>,
    /// Each id's path through it.
    pub traces: Vec<IdTrace>,
    /// Why the agent did not start.
    pub startup: Option<String>,
    /// The scripts' paths, for the picker.
    pub scripts: Vec<String>,
    /// The script's `caller:` email.
    pub caller: Option<String>,
    /// The server file's path.
    pub server_file: Option<String>,
    /// The environment the project's processes start with: name, value as shown
    /// (secrets shortened), and where it came from.
    pub environment: Vec<(String, String, String)>,
    /// Which CRM answers the project's HTTP client.
    pub crm: String,
}

/// A [`PlayedRun`] shared by pointer.
#[derive(Clone)]
pub struct Played(pub Rc<PlayedRun>);

impl PartialEq for Played {
    fn eq(&self, other: &Played) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

impl std::ops::Deref for Played {
    type Target = PlayedRun;
    fn deref(&self) -> &PlayedRun {
        &self.0
    }
}
