//! Expected verdicts: what `expect:` in an `example.yml` says the proof, the review and
//! the attack make of the example, and the same verdicts observed on a workspace.
//!
//! ```yaml
//! expect:
//!   proof: fail                  # pass | fail
//!   proof_failed:                # optional: the labels of the failing proof checks
//!     - check_tickets imports list_open_tickets
//!   proof_stopped: scripts/mcp_crm_server.py did not come up on 8931
//!                                # where the script stops early, if it does (its last line)
//!   review: fail                 # pass | fail | incomplete (nothing fails, something
//!                                #   could not be tested)
//!   review_failed:               # the ids of the failing review checks, in order
//!     - startup
//!   leaks_before: 0              # leaks the attack finds before the swap
//!   leaks_after: 0               # … and after it
//!   tested_after: false          # optional, default true: whether the attack after
//!                                #   the swap tested anything (`tested_before` too)
//!   starts: false                # whether the after project's agent starts
//! ```
//!
//! A leak count of 0 from an attack that did not run is not "no leak": the example says
//! `tested_after: false` (or `tested_before: false`), and the content tests hold it to
//! that, as to every other key. They replay every example and compare with
//! [`Expectation::observe`].

use swaplab_core::Workspace;
use swaplab_core::analysis::Analysis;
use swaplab_core::review::{ReviewOutcome, Verdict};
use swaplab_core::sim::Side;
use swaplab_core::yaml::{Node, YamlValue};

/// Whether a proof or a review passes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Every check holds (the review: none fails, and every one could be made).
    Pass,
    /// At least one check fails.
    Fail,
    /// A review only: no check fails, but at least one could not be made (the attack
    /// could not run). Not a pass.
    Incomplete,
}

impl Outcome {
    /// `Pass` when `passed`.
    pub fn of(passed: bool) -> Outcome {
        if passed { Outcome::Pass } else { Outcome::Fail }
    }

    /// A review's outcome.
    pub fn of_review(outcome: ReviewOutcome) -> Outcome {
        match outcome {
            ReviewOutcome::Passed => Outcome::Pass,
            ReviewOutcome::Failed => Outcome::Fail,
            ReviewOutcome::Incomplete => Outcome::Incomplete,
        }
    }

    /// `pass`, `fail` or `incomplete`, as written in `example.yml`.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Pass => "pass",
            Outcome::Fail => "fail",
            Outcome::Incomplete => "incomplete",
        }
    }

    /// Whether this is [`Outcome::Pass`].
    pub fn passed(self) -> bool {
        self == Outcome::Pass
    }
}

/// The verdicts an example is expected to get (or, from [`Expectation::observe`], got).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expectation {
    /// The companion proof's overall verdict.
    pub proof: Outcome,
    /// The labels of the failing proof checks, in order; `None` leaves them unchecked.
    pub proof_failed: Option<Vec<String>>,
    /// The last line of a proof that stops before its last group; always compared.
    pub proof_stopped: Option<String>,
    /// The review's overall verdict.
    pub review: Outcome,
    /// The ids of the failing review checks, exactly and in order.
    pub review_failed: Vec<String>,
    /// How many leaks the attack finds on the project before the swap.
    pub leaks_before: usize,
    /// How many leaks the attack finds on the project after the swap.
    pub leaks_after: usize,
    /// Whether the attack before the swap tested anything ([`AttackVerdict::tested`]):
    /// `false` makes `leaks_before: 0` mean "not tested", not "no leak".
    ///
    /// [`AttackVerdict::tested`]: swaplab_core::sim::attack::AttackVerdict::tested
    pub tested_before: bool,
    /// The same after the swap.
    pub tested_after: bool,
    /// Whether the after project's agent starts.
    pub starts: bool,
}

impl Expectation {
    /// Runs the proof, the review (with the default attack) and the after project's
    /// start-up on a workspace, and records what they say.
    pub fn observe(workspace: &Workspace) -> Expectation {
        let Analysis { sim, proof, review, .. } = Analysis::of(workspace);
        Expectation {
            proof: Outcome::of(proof.passed()),
            proof_failed: Some(proof.failed().iter().map(|c| c.label.clone()).collect()),
            proof_stopped: proof.stop.as_ref().map(|stop| stop.headline()),
            review: Outcome::of_review(review.outcome()),
            review_failed: review
                .checks
                .iter()
                .filter(|c| c.verdict == Verdict::Fail)
                .map(|c| c.id.clone())
                .collect(),
            leaks_before: review.attack.before.leaks.len(),
            leaks_after: review.attack.after.leaks.len(),
            tested_before: review.attack.before.verdict.tested(),
            tested_after: review.attack.after.verdict.tested(),
            starts: sim.start(Side::After).is_ok(),
        }
    }

    /// Where `observed` differs from this expectation, one line each; empty when it
    /// matches. `proof_failed` is compared only when this expectation lists it.
    pub fn differences(&self, observed: &Expectation) -> Vec<String> {
        let mut out = Vec::new();
        let mut compare = |field: &str, expected: String, got: String| {
            if expected != got {
                out.push(format!("{field}: expected {expected}, got {got}"));
            }
        };
        compare("proof", self.proof.as_str().into(), observed.proof.as_str().into());
        if let Some(expected) = &self.proof_failed {
            let got = observed.proof_failed.clone().unwrap_or_default();
            compare("proof_failed", flow(expected), flow(&got));
        }
        let stopped = |stop: &Option<String>| stop.clone().unwrap_or_else(|| "(none)".to_owned());
        compare("proof_stopped", stopped(&self.proof_stopped), stopped(&observed.proof_stopped));
        compare("review", self.review.as_str().into(), observed.review.as_str().into());
        compare("review_failed", flow(&self.review_failed), flow(&observed.review_failed));
        compare("leaks_before", self.leaks_before.to_string(), observed.leaks_before.to_string());
        compare("leaks_after", self.leaks_after.to_string(), observed.leaks_after.to_string());
        compare(
            "tested_before",
            self.tested_before.to_string(),
            observed.tested_before.to_string(),
        );
        compare("tested_after", self.tested_after.to_string(), observed.tested_after.to_string());
        compare("starts", self.starts.to_string(), observed.starts.to_string());
        out
    }

    /// The `expect:` block that records these verdicts, ready to paste into
    /// `example.yml` once they have been read and make sense.
    pub fn to_yaml(&self) -> String {
        let list = |out: &mut String, key: &str, items: &[String]| {
            if items.is_empty() {
                out.push_str(&format!("  {key}: []\n"));
            } else {
                out.push_str(&format!("  {key}:\n"));
                for item in items {
                    out.push_str(&format!("    - {}\n", quoted(item)));
                }
            }
        };
        let mut out = String::from("expect:\n");
        out.push_str(&format!("  proof: {}\n", self.proof.as_str()));
        if let Some(failed) = &self.proof_failed {
            list(&mut out, "proof_failed", failed);
        }
        if let Some(stop) = &self.proof_stopped {
            out.push_str(&format!("  proof_stopped: {}\n", quoted(stop)));
        }
        out.push_str(&format!("  review: {}\n", self.review.as_str()));
        list(&mut out, "review_failed", &self.review_failed);
        out.push_str(&format!("  leaks_before: {}\n", self.leaks_before));
        out.push_str(&format!("  leaks_after: {}\n", self.leaks_after));
        // Written when false only: a leak count from an attack that did not run.
        for (key, tested) in
            [("tested_before", self.tested_before), ("tested_after", self.tested_after)]
        {
            if !tested {
                out.push_str(&format!("  {key}: false\n"));
            }
        }
        out.push_str(&format!("  starts: {}\n", self.starts));
        out
    }
}

/// `[a, b]` with each item quoted, for messages.
fn flow(items: &[String]) -> String {
    format!("[{}]", items.iter().map(|i| quoted(i)).collect::<Vec<_>>().join(", "))
}

/// A YAML double-quoted string.
fn quoted(text: &str) -> String {
    format!("\"{}\"", text.replace('\\', "\\\\").replace('"', "\\\""))
}

const KEYS: [&str; 10] = [
    "proof",
    "proof_failed",
    "proof_stopped",
    "review",
    "review_failed",
    "leaks_before",
    "leaks_after",
    "tested_before",
    "tested_after",
    "starts",
];

/// Reads the `expect:` mapping.
pub(crate) fn parse_expectation(node: &Node) -> Result<Expectation, String> {
    let Some(entries) = node.as_map() else {
        return Err("`expect` must be a mapping".to_owned());
    };
    if let Some((key, _)) =
        entries.iter().find(|(k, _)| !k.as_str().is_some_and(|k| KEYS.contains(&k)))
    {
        return Err(format!(
            "`expect` has an unknown key `{}` (known: {})",
            key.key_text(),
            KEYS.join(", ")
        ));
    }
    let outcome = |key: &str| -> Result<Outcome, String> {
        match node.get(key).and_then(Node::as_str) {
            Some("pass") => Ok(Outcome::Pass),
            Some("fail") => Ok(Outcome::Fail),
            Some("incomplete") if key == "review" => Ok(Outcome::Incomplete),
            _ if key == "review" => {
                Err(format!("`expect.{key}` must be `pass`, `fail` or `incomplete`"))
            }
            _ => Err(format!("`expect.{key}` must be `pass` or `fail`")),
        }
    };
    let flag = |key: &str| -> Result<bool, String> {
        match node.get(key).map(|n| &n.value) {
            None => Ok(true),
            Some(YamlValue::Bool(b)) => Ok(*b),
            Some(_) => Err(format!("`expect.{key}` must be `true` or `false`")),
        }
    };
    let count = |key: &str| -> Result<usize, String> {
        match node.get(key).map(|n| &n.value) {
            Some(YamlValue::Int(n)) => {
                usize::try_from(*n).map_err(|_| format!("`expect.{key}` must not be negative"))
            }
            _ => Err(format!("`expect.{key}` must be a whole number")),
        }
    };
    let list = |key: &str| -> Result<Option<Vec<String>>, String> {
        let Some(value) = node.get(key) else { return Ok(None) };
        let items = value
            .as_seq()
            .ok_or_else(|| format!("`expect.{key}` must be a list"))?
            .iter()
            .map(|item| {
                item.as_str()
                    .map(str::to_owned)
                    .ok_or_else(|| format!("`expect.{key}` must list strings"))
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Some(items))
    };
    let starts = match node.get("starts").map(|n| &n.value) {
        Some(YamlValue::Bool(b)) => *b,
        _ => return Err("`expect.starts` must be `true` or `false`".to_owned()),
    };
    let expectation = Expectation {
        proof: outcome("proof")?,
        proof_failed: list("proof_failed")?,
        proof_stopped: match node.get("proof_stopped") {
            None => None,
            Some(value) => Some(
                value
                    .as_str()
                    .map(str::to_owned)
                    .ok_or("`expect.proof_stopped` must be a string")?,
            ),
        },
        review: outcome("review")?,
        review_failed: list("review_failed")?.unwrap_or_default(),
        leaks_before: count("leaks_before")?,
        leaks_after: count("leaks_after")?,
        tested_before: flag("tested_before")?,
        tested_after: flag("tested_after")?,
        starts,
    };
    for (side, leaks, tested) in [
        ("before", expectation.leaks_before, expectation.tested_before),
        ("after", expectation.leaks_after, expectation.tested_after),
    ] {
        if leaks > 0 && !tested {
            return Err(format!(
                "`expect.leaks_{side}` is {leaks} but `tested_{side}` is false: a leak found \
                 is a tested attack"
            ));
        }
    }
    match (&expectation.proof, &expectation.proof_failed) {
        (Outcome::Pass, Some(failed)) if !failed.is_empty() => {
            return Err("`expect.proof` is pass but `proof_failed` lists checks".to_owned());
        }
        (Outcome::Fail, Some(failed))
            if failed.is_empty() && expectation.proof_stopped.is_none() =>
        {
            return Err(
                "`expect.proof` is fail but `proof_failed` is empty and `proof_stopped` unset"
                    .to_owned(),
            );
        }
        _ => {}
    }
    if expectation.proof.passed() && expectation.proof_stopped.is_some() {
        return Err("`expect.proof` is pass but `proof_stopped` is set".to_owned());
    }
    if (expectation.review == Outcome::Fail) == expectation.review_failed.is_empty() {
        return Err(format!(
            "`expect.review` is {} but `review_failed` {}",
            expectation.review.as_str(),
            if expectation.review_failed.is_empty() { "is empty" } else { "lists checks" }
        ));
    }
    Ok(expectation)
}
