//! The review pane: every check with its verdict, evidence that opens the file at the
//! line, and a link to the chapter section that explains it (followed inside the app).

use swaplab_core::FileRef;
use swaplab_core::review::{ReviewOutcome, Verdict};
use swaplab_core::words::count;
use yew::prelude::*;

use super::Goto;
use super::analysis::SharedAnalysis;
use crate::components::site_link;
use crate::router::use_navigator;

/// Props for [`ReviewPane`].
#[derive(Properties, PartialEq)]
pub struct ReviewPaneProps {
    /// The analysis shown.
    pub analysis: SharedAnalysis,
    /// Opens a file at a line.
    pub on_goto: Callback<Goto>,
    /// Show only the checks whose id starts with this (a chapter widget's `check:`).
    #[prop_or_default]
    pub only: Option<AttrValue>,
}

/// The verdict's mark, class and word, all the core's (`Verdict::mark`, `class`,
/// `word`), so the pane and the terminal mark a check alike.
fn mark(verdict: Verdict) -> (&'static str, &'static str, &'static str) {
    (verdict.mark(), verdict.class(), verdict.word())
}

/// The review pane.
#[component]
pub fn ReviewPane(props: &ReviewPaneProps) -> Html {
    let navigator = use_navigator();
    let review = &props.analysis.review;
    let failed = review.count(Verdict::Fail);
    let warnings = count(review.count(Verdict::Warn), "warning", "warnings");
    let outcome = review.outcome();
    let summary = match outcome {
        ReviewOutcome::Passed => format!("The review passes ({warnings})."),
        ReviewOutcome::Incomplete => format!(
            "Nothing fails, but {} could not be tested, so the review does not pass ({warnings}).",
            count(review.count(Verdict::NotTested), "check", "checks")
        ),
        ReviewOutcome::Failed => {
            format!("{}, {warnings}.", count(failed, "check fails", "checks fail"))
        }
    };
    let verdict_class = match outcome {
        ReviewOutcome::Passed => "pass",
        ReviewOutcome::Incomplete => "not-tested",
        ReviewOutcome::Failed => "fail",
    };
    // Groups in the review's order, the ones with a failure first, then warnings.
    let mut groups: Vec<(&str, Verdict)> = Vec::new();
    for check in &review.checks {
        match groups.iter_mut().find(|(t, _)| *t == check.title) {
            Some(group) => group.1 = group.1.min(check.verdict),
            None => groups.push((&check.title, check.verdict)),
        }
    }
    swaplab_core::order::sort_by_key(&mut groups, |(_, worst)| *worst);
    let only = props.only.as_deref();
    let ordered = groups.iter().flat_map(|(title, _)| {
        review
            .checks
            .iter()
            .filter(move |c| c.title == *title && only.is_none_or(|p| c.id.starts_with(p)))
    });
    let mut title = String::new();
    let mut items = Vec::new();
    for check in ordered {
        if check.title != title {
            title.clone_from(&check.title);
            items.push(html! { <h3 class="check-group">{ check.title.clone() }</h3> });
        }
        let (symbol, class, word) = mark(check.verdict);
        let evidence = check.evidence.iter().map(|e| {
            let target = Goto {
                file: FileRef::new(e.area, e.file.clone()),
                line: e.span.map(|s| s.start.line),
            };
            let on_goto = props.on_goto.clone();
            let onclick = Callback::from(move |_: MouseEvent| on_goto.emit(target.clone()));
            html! {
                <li>
                    <button type="button" class="link-button place" {onclick}>{ e.place() }</button>
                    <span class="evidence-text">{ e.text.clone() }</span>
                </li>
            }
        });
        items.push(html! {
            <article class={classes!("check", class)} data-check={check.id.clone()}>
                <p class="check-summary">
                    <span class="mark" aria-label={word}>{ symbol }</span>
                    { crate::components::inline_code(&check.summary) }
                </p>
                <p class="check-id">{ check.id.clone() }</p>
                if !check.evidence.is_empty() { <ul class="evidence">{ for evidence }</ul> }
                if check.verdict.explained() {
                    { site_link(navigator.as_ref(), check.why, Some("why"), vec![html! { "Why this matters" }]) }
                }
            </article>
        });
    }
    html! {
        <div class="result review-pane">
            <p class={classes!("verdict", verdict_class)}>{ summary }</p>
            { for items }
        </div>
    }
}
