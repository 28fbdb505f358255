//! Everything the result panes show, computed from one workspace by the core's one
//! entry point (`swaplab_core::analysis::Analysis`): the simulation read once, the
//! proof, the review (with its attack) and the semantic diff. SharedAnalysis by pointer: two
//! analyses are equal only when they are the same computation.

use std::rc::Rc;

use swaplab_core::diagnostic::Diagnostic;
use swaplab_core::memo::Memo;
use swaplab_core::proof::Proof;
use swaplab_core::review::Review;
use swaplab_core::semantic::SemanticChange;
use swaplab_core::sim::Simulation;
use swaplab_core::{Area, FileRef, Workspace};

/// One workspace, analysed.
pub struct Analysis {
    /// The files analysed.
    pub workspace: Rc<Workspace>,
    /// The simulation's reading of the workspace.
    pub sim: Simulation,
    /// The companion proof.
    pub proof: Proof,
    /// The review, its attack included.
    pub review: Review,
    /// What the swap changes, in Rasa's terms.
    pub semantic: Vec<SemanticChange>,
    /// The session revision this analysis is of.
    pub revision: u64,
}

impl Analysis {
    /// Every finding about one file of the workspace: the project it belongs to, the
    /// server file, the CRM seed or a conversation script.
    pub fn diagnostics_for(&self, file: &FileRef) -> Vec<&Diagnostic> {
        let report = &self.sim.report;
        let found: Vec<&Diagnostic> = match file.area {
            Area::Before => report.before.diagnostics.iter().collect(),
            Area::After => report.after.diagnostics.iter().collect(),
            Area::Server => report.server.iter().flat_map(|s| s.diagnostics.iter()).collect(),
            Area::Crm => self
                .sim
                .seed
                .diagnostics
                .iter()
                .chain(self.sim.scripts.iter().flat_map(|s| s.diagnostics.iter()))
                .collect(),
        };
        found.into_iter().filter(|d| d.file == file.path).collect()
    }

    /// Analyses a workspace.
    pub fn of(workspace: &Rc<Workspace>, revision: u64) -> Analysis {
        Analysis::with_memo(workspace, revision, &mut Memo::new())
    }

    /// [`Analysis::of`], reusing what `memo` kept from the previous analysis: the page
    /// that reruns after every edit keeps one, so an edit reads only the file it changed.
    pub fn with_memo(workspace: &Rc<Workspace>, revision: u64, memo: &mut Memo) -> Analysis {
        let swaplab_core::analysis::Analysis { sim, proof, review, semantic } =
            swaplab_core::analysis::Analysis::with_memo(workspace, memo);
        Analysis { workspace: workspace.clone(), sim, proof, review, semantic, revision }
    }
}

/// An [`Analysis`] behind an `Rc`, compared by identity (props need `PartialEq`).
#[derive(Clone)]
pub struct SharedAnalysis(pub Rc<Analysis>);

impl PartialEq for SharedAnalysis {
    fn eq(&self, other: &SharedAnalysis) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

impl std::ops::Deref for SharedAnalysis {
    type Target = Analysis;
    fn deref(&self) -> &Analysis {
        &self.0
    }
}
