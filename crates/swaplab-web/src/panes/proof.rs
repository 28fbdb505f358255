//! The proof pane: the companion proof as its script prints it, marks in colour.

use yew::prelude::*;

use super::analysis::Shared;

/// Props for [`ProofPane`].
#[derive(Properties, PartialEq)]
pub struct ProofPaneProps {
    /// The analysis shown.
    pub analysis: Shared,
}

/// The proof pane.
#[component]
pub fn ProofPane(props: &ProofPaneProps) -> Html {
    let proof = &props.analysis.proof;
    let failed = proof.failed().len();
    let summary = if failed == 0 {
        format!("All {} checks pass — the proof says the swap is safe.", proof.count())
    } else {
        format!("{failed} of {} checks fail.", proof.count())
    };
    let text = proof.to_text();
    html! {
        <div class="result proof-pane">
            <p class={classes!("verdict", if failed == 0 { "pass" } else { "fail" })}>{ summary }</p>
            <p class="muted small">
                { "The tutorial's own proof, re-run on these files. It checks that the instructions survived, not where each id comes from — see the review." }
            </p>
            <pre class="terminal" aria-label="Proof output">
                { for text.lines().map(|line| {
                    let class = if line.starts_with("  ✓") { "ok" } else if line.starts_with("  ✗") || line.starts_with("    ✗") { "bad" } else { "" };
                    html! { <span class={class}>{ line }{ "\n" }</span> }
                }) }
            </pre>
        </div>
    }
}
