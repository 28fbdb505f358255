//! One workspace, analysed: the simulation read once, the companion proof, the review
//! with its attack, and the semantic changes. Every shell asks for these through this
//! one call — the playground's panes (with a memo kept between reruns), the exercises'
//! goal checks, the examples' expectations, the CLI's `prove` and `review` and the wasm
//! size probe — so they cannot compose them differently.

use crate::memo::Memo;
use crate::proof::{Proof, prove_with};
use crate::review::{Review, review_with};
use crate::semantic::{SemanticChange, semantic_changes};
use crate::sim::Simulation;
use crate::sim::attack::AttackOptions;
use crate::workspace::Workspace;

/// Everything the checks say about one workspace.
#[derive(Debug)]
pub struct Analysis {
    /// The simulation's reading of the workspace.
    pub sim: Simulation,
    /// The companion proof.
    pub proof: Proof,
    /// The review, its attack (with the default options) included.
    pub review: Review,
    /// What the swap changes, in Rasa's terms.
    pub semantic: Vec<SemanticChange>,
}

impl Analysis {
    /// Analyses a workspace once.
    pub fn of(workspace: &Workspace) -> Analysis {
        Analysis::with_attack(workspace, &AttackOptions::default())
    }

    /// The analysis with the review's attack aimed at the caller and the victim named
    /// in `attack` (the CLI's `--caller` and `--victim`), rather than the seed's first two.
    pub fn with_attack(workspace: &Workspace, attack: &AttackOptions) -> Analysis {
        Analysis::of_simulation(workspace, Simulation::new(workspace), attack)
    }

    /// [`Analysis::of`], reusing what `memo` kept from the previous analysis: a page
    /// that reruns after every edit keeps one, so an edit reads only what it changed.
    pub fn with_memo(workspace: &Workspace, memo: &mut Memo) -> Analysis {
        Analysis::of_simulation(
            workspace,
            Simulation::with_memo(workspace, memo),
            &AttackOptions::default(),
        )
    }

    fn of_simulation(workspace: &Workspace, sim: Simulation, attack: &AttackOptions) -> Analysis {
        let proof = prove_with(workspace, &sim);
        let review = review_with(&sim, attack);
        let semantic = semantic_changes(&sim.report);
        Analysis { sim, proof, review, semantic }
    }
}
