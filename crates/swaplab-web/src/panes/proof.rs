//! The proof pane: the companion proof as its script prints it, marks in colour.

use yew::prelude::*;

use swaplab_core::proof::Stop;
use swaplab_core::words::count;

use super::analysis::SharedAnalysis;

/// Props for [`ProofPane`].
#[derive(Properties, PartialEq)]
pub struct ProofPaneProps {
    /// The analysis shown.
    pub analysis: SharedAnalysis,
}

/// The proof pane.
#[component]
pub fn ProofPane(props: &ProofPaneProps) -> Html {
    let proof = &props.analysis.proof;
    let failed = proof.failed().len();
    let (summary, class) = match &proof.stop {
        Some(Stop::CouldNotRun { reason }) => (
            format!("Not tested: Swap Lab could not run the rest of the proof ({reason})."),
            "not-tested",
        ),
        Some(stop) => (format!("The script stops early: {}", stop.headline()), "fail"),
        None if failed == 0 => (
            format!(
                "All {} pass — the proof says the swap is safe.",
                count(proof.count(), "check", "checks")
            ),
            "pass",
        ),
        None => (format!("{failed} of {} fail.", count(proof.count(), "check", "checks")), "fail"),
    };
    let text = proof.to_text();
    html! {
        <div class="result proof-pane">
            <p class={classes!("verdict", class)}>{ summary }</p>
            <p class="muted small">
                { "The tutorial repository's proof script, re-run on these files with its fixed skill, tool and server names. It checks that the instructions survived, not where each id comes from — see the review." }
            </p>
            <pre class="terminal" aria-label="Proof output">
                { for text.lines().map(|line| {
                    let stopped = proof.stop.as_ref().is_some_and(|stop| stop.text().lines().any(|l| l == line));
                    let class = if line.starts_with("  ✓") { "ok" } else if line.starts_with("  ✗") || line.starts_with("    - ") || stopped { "bad" } else { "" };
                    html! { <span class={class}>{ line }{ "\n" }</span> }
                }) }
            </pre>
        </div>
    }
}
