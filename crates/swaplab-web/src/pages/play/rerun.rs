//! The playground's results, kept up to date: the first analysis as the page opens,
//! a rerun once typing pauses (typing never waits for it), and "run now" (Ctrl+Enter).
//! Each reuses what the last one read and compiled (`Memo`), and records its time for
//! the budgets (`record_timing`: first-analysis, rerun, run-now).

use std::rc::Rc;

use gloo::timers::callback::Timeout;
use swaplab_core::memo::Memo;
use swaplab_core::session::Session;
use yew::prelude::*;

use crate::browser::{now_ms, record_timing};
use crate::panes::{Analysis, SharedAnalysis};
use crate::panic_banner;

/// How long typing must pause before every result is recomputed.
const ANALYSE_DELAY_MS: u32 = 120;

/// The latest results, and a way to recompute them at once.
pub(super) struct Rerun {
    /// The analysis of the session at some revision, maybe an older one than shown.
    pub analysis: UseStateHandle<SharedAnalysis>,
    /// Recomputes every result now.
    pub run_now: Callback<()>,
}

/// Keeps an analysis of `session` that follows its edits.
#[hook]
pub(super) fn use_rerun(session: &Session) -> Rerun {
    let workspace = session.workspace.clone();
    // What the last analysis read and compiled, for the next one to reuse.
    let memo = use_mut_ref(Memo::new);
    let analysis = use_state({
        let (workspace, revision, memo) = (workspace.clone(), session.revision, memo.clone());
        move || {
            let start = now_ms();
            let analysis = Analysis::with_memo(&workspace, revision, &mut memo.borrow_mut());
            record_timing("first-analysis", now_ms() - start);
            SharedAnalysis(Rc::new(analysis))
        }
    });
    // When the latest rerun started, so the render that shows it can time the whole.
    let rerun_started = use_mut_ref(|| None::<f64>);
    {
        let (analysis, rerun_started, memo) =
            (analysis.clone(), rerun_started.clone(), memo.clone());
        let workspace = workspace.clone();
        use_effect_with(session.revision, move |revision| {
            let revision = *revision;
            let timeout = (analysis.revision != revision).then(|| {
                Timeout::new(ANALYSE_DELAY_MS, move || {
                    panic_banner::crash_if_requested();
                    *rerun_started.borrow_mut() = Some(now_ms());
                    let next = Analysis::with_memo(&workspace, revision, &mut memo.borrow_mut());
                    analysis.set(SharedAnalysis(Rc::new(next)));
                })
            });
            move || drop(timeout)
        });
    }
    // A rerun is done when the panes showing it have rendered: record compute + render.
    use_effect_with((*analysis).clone(), move |_| {
        if let Some(start) = rerun_started.borrow_mut().take() {
            record_timing("rerun", now_ms() - start);
        }
    });
    let run_now = {
        let (analysis, revision) = (analysis.clone(), session.revision);
        Callback::from(move |()| {
            let start = now_ms();
            let next = Analysis::with_memo(&workspace, revision, &mut memo.borrow_mut());
            analysis.set(SharedAnalysis(Rc::new(next)));
            record_timing("run-now", now_ms() - start);
        })
    };
    Rerun { analysis, run_now }
}
