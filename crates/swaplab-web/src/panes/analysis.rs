//! Everything the result panes show, computed from one workspace: the simulation read
//! once, the proof, the review (with its attack) and the semantic diff. Shared by
//! pointer: two analyses are equal only when they are the same computation.

use std::rc::Rc;

use swaplab_core::diagnostic::Diagnostic;
use swaplab_core::memo::Memo;
use swaplab_core::proof::{Proof, prove_with};
use swaplab_core::review::{Review, review_with};
use swaplab_core::semantic::{SemanticChange, semantic_changes};
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
        let sim = Simulation::with_memo(workspace, memo);
        let proof = prove_with(workspace, &sim);
        let review = review_with(&sim, &Default::default());
        let semantic = semantic_changes(&sim.report);
        Analysis { workspace: workspace.clone(), sim, proof, review, semantic, revision }
    }
}

/// An [`Analysis`] behind an `Rc`, compared by identity (props need `PartialEq`).
#[derive(Clone)]
pub struct Shared(pub Rc<Analysis>);

impl PartialEq for Shared {
    fn eq(&self, other: &Shared) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

impl std::ops::Deref for Shared {
    type Target = Analysis;
    fn deref(&self) -> &Analysis {
        &self.0
    }
}
