//! `/exercises`, `/exercises/<id>` and `/x/<number>`: the exercises.
//!
//! An exercise page is a small playground: the brief and the goal's checklist, ticked
//! live by `swaplab_content::exercise::Evaluation`; the reader's files in the tree and
//! the editor; hints one at a time, then the solution beside the reader's work as a
//! diff — never written over it. The work is kept as a draft per exercise and the
//! progress under a versioned key; nothing here decides whether a goal is met.

use std::rc::Rc;

use gloo::timers::callback::Timeout;
use swaplab_content::exercise::{Evaluation, Exercise, ExerciseInfo, Style, exercise_by_number};
use swaplab_content::progress::{PROGRESS_KEY, Progress, exercise_draft_key};
use swaplab_content::{exercise, exercises};
use swaplab_core::diff::{DEFAULT_CONTEXT, diff_text, project_changes};
use swaplab_core::markdown::render;
use swaplab_core::session::{Action, Session, encode_draft};
use swaplab_core::{FileRef, Workspace};
use yew::prelude::*;

use super::use_title;
use crate::browser::{LocalStorage, json_data_url, load, save};
use crate::components::{
    DiffView, Editor, EditorDiagnostic, FileTree, Markdown, NoticeKind, file_statuses, inline_code,
};
use crate::draft::{DraftSlot, Restored};
use crate::hooks::{DraftStatus, use_draft};
use crate::panes::{Analysis, SharedAnalysis};
use crate::route::Route;
use crate::router::{Link, use_navigator};
use crate::state::PlayState;

/// How long typing must pause before the goal is checked again.
const CHECK_DELAY_MS: u32 = 120;

fn load_progress() -> Progress {
    load(PROGRESS_KEY).map(|text| Progress::decode(&text)).unwrap_or_default()
}

/// Changes one exercise's progress and stores it, re-reading storage first so another
/// tab's progress on other exercises is kept.
fn record_progress(
    id: &str,
    change: impl FnOnce(&mut swaplab_content::progress::ExerciseProgress),
) -> Progress {
    let mut progress = load_progress();
    progress.update(id, change);
    // Progress that cannot be stored (quota, private mode) still shows on this page.
    let _ = save(PROGRESS_KEY, &progress.encode());
    progress
}

/// The list of exercises.
#[component]
pub fn ExercisesPage() -> Html {
    use_title(Some("Exercises".to_owned()));
    let progress = use_memo((), |_| load_progress());
    let list = match exercises() {
        Ok(list) => list,
        Err(error) => {
            return html! {
                <div class="page narrow"><h1>{ "Exercises" }</h1>
                    <p class="notice error">{ format!("The exercises could not be read: {error}") }</p></div>
            };
        }
    };
    let done = list.iter().filter(|e| progress.of(e.id).done).count();
    html! {
        <div class="page narrow exercises-page">
            <h1>{ "Exercises" }</h1>
            <p>{ "Each exercise hands you a swap with something wrong in it and a goal. The page \
                  checks the goal as you type; hints come first, the solution last, and it is \
                  shown beside your work, never over it. Your work and progress stay in this \
                  browser." }</p>
            <p class="exercise-tally">{ format!("{done} of {} done", list.len()) }</p>
            <ol class="exercise-list">
                { for list.iter().map(|info| exercise_row(info, &progress)) }
            </ol>
            <crate::components::ReceiptBox />
        </div>
    }
}

fn exercise_row(info: &ExerciseInfo, progress: &Progress) -> Html {
    let state = progress.of(info.id);
    let (mark, label) = if state.done {
        ("✓", "done")
    } else if state.hints_shown > 0 || state.solution_shown {
        ("…", "started")
    } else {
        ("", "not started")
    };
    html! {
        <li value={info.number.to_string()} class={classes!(state.done.then_some("done"))} data-exercise={info.id}>
            <Link to={Route::Exercise { id: info.id.to_owned() }}>{ info.title.clone() }</Link>
            <span class="exercise-meta">
                <span class={classes!("badge", info.style.as_str())}>{ info.style.as_str() }</span>
                { format!(" {} min · ", info.minutes) }
                <span class="exercise-status" aria-label={label}>{ if mark.is_empty() { label } else { mark } }</span>
            </span>
        </li>
    }
}

/// Props for [`ShortExerciseLink`].
#[derive(Properties, PartialEq)]
pub struct ShortExerciseLinkProps {
    /// The number from the URL.
    pub number: AttrValue,
}

/// `/x/<number>`: sends the reader on to the exercise, keeping the short link out of
/// the history.
#[component]
pub fn ShortExerciseLink(props: &ShortExerciseLinkProps) -> Html {
    let target =
        props.number.trim_start_matches('0').parse::<u32>().ok().and_then(exercise_by_number);
    let navigator = use_navigator();
    use_title(Some(if target.is_some() { "Exercise" } else { "Exercise not found" }.to_owned()));
    {
        let target = target.map(str::to_owned);
        use_effect_with(target, move |target| {
            if let (Some(id), Some(navigator)) = (target, navigator) {
                navigator.replace(&Route::Exercise { id: id.clone() });
            }
        });
    }
    match target {
        Some(_) => {
            html! { <div class="page narrow"><p class="loading">{ "Opening the exercise…" }</p></div> }
        }
        None => html! {
            <div class="page narrow">
                <h1>{ "No such exercise" }</h1>
                <p>{ format!("There is no exercise number “{}”.", props.number) }</p>
                <p><Link to={Route::Exercises}>{ "See every exercise" }</Link></p>
            </div>
        },
    }
}

/// Props for [`ExercisePage`].
#[derive(Properties, PartialEq)]
pub struct ExercisePageProps {
    /// The exercise's id.
    pub id: AttrValue,
}

/// One exercise.
#[component]
pub fn ExercisePage(props: &ExercisePageProps) -> Html {
    let loaded = use_memo(props.id.clone(), |id| exercise(id).map(|e| e.map(Rc::new)));
    use_title(Some(match &*loaded {
        Ok(Some(ex)) => ex.info.title.clone(),
        _ => "Exercise not found".to_owned(),
    }));
    match &*loaded {
        Ok(Some(ex)) => html! { <ExerciseView exercise={ExerciseRef(ex.clone())} /> },
        Ok(None) => html! {
            <div class="page narrow">
                <h1>{ "No such exercise" }</h1>
                <p>{ format!("There is no exercise called “{}”.", props.id) }</p>
                <p><Link to={Route::Exercises}>{ "See every exercise" }</Link></p>
            </div>
        },
        Err(error) => html! {
            <div class="page narrow"><h1>{ "Exercise" }</h1>
                <p class="notice error">{ format!("This exercise could not be read: {error}") }</p></div>
        },
    }
}

/// An exercise shared by pointer.
#[derive(Clone)]
pub struct ExerciseRef(Rc<Exercise>);

impl PartialEq for ExerciseRef {
    fn eq(&self, other: &ExerciseRef) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

#[derive(Properties, PartialEq)]
struct ExerciseViewProps {
    exercise: ExerciseRef,
}

/// The file an exercise opens on: the find-it file, else the first file the solution
/// changes, else the first file.
fn first_file(ex: &Exercise) -> Option<FileRef> {
    if let Some(find) = &ex.info.find {
        return Some(find.file.clone());
    }
    ex.solution
        .files()
        .map(|(file, _)| file)
        .find(|file| ex.start.file(file) != ex.solution.file(file))
        .or_else(|| ex.start.files().next().map(|(file, _)| file))
}

/// The reader's work: the stored draft when it reads, else the start. A stored draft
/// that cannot be read is kept aside, never dropped, and the reader is told.
fn restore(ex: &Exercise) -> (Session, Option<String>) {
    let fresh = || {
        let mut session = Session::new(None, ex.start.clone());
        if let Some(file) = first_file(ex) {
            session.apply(Action::Open(file));
        }
        session
    };
    let mut slot = DraftSlot::open(&LocalStorage, exercise_draft_key(ex.info.id), None);
    match slot.restore(&mut LocalStorage) {
        Restored::Nothing => (fresh(), None),
        Restored::Draft(session) => (session, None),
        Restored::Damaged { error, kept_as } => {
            let mut message = format!("Your saved work could not be opened: {error}.");
            if let Some(backup) = kept_as {
                message.push_str(&format!(
                    " Its text is kept in this browser's storage as “{backup}”."
                ));
            }
            (fresh(), Some(message))
        }
    }
}

#[component]
fn ExerciseView(props: &ExerciseViewProps) -> Html {
    let ex = props.exercise.0.clone();
    let id = ex.info.id;
    let restored = use_memo((), {
        let ex = ex.clone();
        move |_| restore(&ex)
    });
    let loaded_revision = restored.0.revision;
    let state = use_reducer({
        let restored = restored.clone();
        move || PlayState(restored.0.clone())
    });
    let progress = use_state(load_progress);
    let cursor = use_state(|| 1u32);
    let pointed = use_state(|| None::<(FileRef, u32)>);
    let confirming_reset = use_state(|| false);
    let workspace = state.0.workspace.clone();

    // The goal is checked once typing pauses; typing never waits for it.
    let analysis = use_state({
        let workspace = workspace.clone();
        let revision = state.0.revision;
        move || SharedAnalysis(Rc::new(Analysis::of(&workspace, revision)))
    });
    {
        let (analysis, workspace) = (analysis.clone(), workspace.clone());
        use_effect_with(state.0.revision, move |revision| {
            let revision = *revision;
            let timeout = (analysis.revision != revision).then(|| {
                Timeout::new(CHECK_DELAY_MS, move || {
                    analysis.set(SharedAnalysis(Rc::new(Analysis::of(&workspace, revision))));
                })
            });
            move || drop(timeout)
        });
    }
    let evaluation = use_memo(((*analysis).clone(), (*pointed).clone()), {
        let ex = ex.clone();
        move |(analysis, pointed)| {
            // The analysis is of the workspace at its revision: check that same text.
            Evaluation::of(
                &ex,
                &analysis.workspace,
                &analysis.sim,
                &analysis.proof,
                &analysis.review,
                pointed.as_ref(),
            )
        }
    });
    let done_now = evaluation.done();
    {
        let progress = progress.clone();
        use_effect_with(done_now, move |done| {
            if *done && !progress.of(id).done {
                progress.set(record_progress(id, |p| p.done = true));
            }
        });
    }

    // Save the work once typing pauses and when the page is left — never over work
    // another tab saved meanwhile.
    let draft =
        use_draft(&exercise_draft_key(id), None, &state.0, loaded_revision, Callback::noop());
    // What the reader should know about the work's storage: a damaged draft, a choice
    // that could not be carried out.
    let problem = use_state(|| restored.1.clone());
    let problem_notice = (*problem).clone().map(|text| {
        let dismiss = {
            let problem = problem.clone();
            Callback::from(move |()| problem.set(None))
        };
        crate::components::notice(NoticeKind::Warning, Some(dismiss), html! { { text } })
    });
    let save_notice = match draft.status() {
        DraftStatus::Failed(reason) => {
            let href = json_data_url(
                &serde_json::json!({ exercise_draft_key(id): encode_draft(&state.0) }).to_string(),
            );
            Some(html! {
                <div class="notice warning" role="alert"><div class="notice-body">
                    { format!("Your work is not saved: {reason}. It stays on this page; ") }
                    <a {href} download={format!("swaplab-exercise-{id}.json")}>{ "download it" }</a>
                    { " to keep a copy." }
                </div></div>
            })
        }
        _ => None,
    };
    let conflict_notice = draft.conflict().then(|| {
        let take_theirs = {
            let (state, ex, draft, problem) =
                (state.clone(), ex.clone(), draft.clone(), problem.clone());
            Callback::from(move |_: MouseEvent| match draft.take_theirs() {
                Ok(theirs) => {
                    let (workspace, open) = match theirs {
                        Some(theirs) => (Rc::unwrap_or_clone(theirs.workspace), theirs.open),
                        None => (ex.start.clone(), first_file(&ex)),
                    };
                    state.dispatch(Action::Load { example: None, imported: None, workspace, open });
                }
                Err(message) => problem.set(Some(message)),
            })
        };
        let keep_mine = {
            let (draft, problem) = (draft.clone(), problem.clone());
            Callback::from(move |_: MouseEvent| {
                if let Err(message) = draft.keep_mine() {
                    problem.set(Some(message));
                }
            })
        };
        html! {
            <div class="notice warning conflict" role="alert"><div class="notice-body">
                { "Another tab saved work on this exercise after this page opened it. Nothing \
                   has been written over either version. Which one do you want here? The other \
                   is kept aside, to restore later." }
                <span class="notice-actions">
                    <button type="button" onclick={take_theirs}>{ "Use the other tab's work" }</button>
                    <button type="button" onclick={keep_mine}>{ "Keep this tab's work" }</button>
                </span>
            </div></div>
        }
    });
    let aside_notice = draft.has_aside().then(|| {
        let restore = {
            let (state, draft, problem) = (state.clone(), draft.clone(), problem.clone());
            Callback::from(move |_: MouseEvent| match draft.swap_aside() {
                // What is on screen takes its place: a swap, so nothing is lost.
                Ok(kept) => state.dispatch(Action::Load {
                    example: None,
                    imported: kept.imported,
                    workspace: Rc::unwrap_or_clone(kept.workspace),
                    open: kept.open,
                }),
                Err(message) => problem.set(Some(message)),
            })
        };
        let delete = {
            let draft = draft.clone();
            Callback::from(move |_: MouseEvent| draft.delete_aside())
        };
        html! {
            <div class="notice info set-aside" role="status"><div class="notice-body">
                { "Another version of your work on this exercise is kept aside in this browser." }
                <span class="notice-actions">
                    <button type="button" onclick={restore}>{ "Swap it in" }</button>
                    <button type="button" class="danger" onclick={delete}>{ "Delete it" }</button>
                </span>
            </div></div>
        }
    });

    let mine = progress.of(id);
    let on_hint = {
        let progress = progress.clone();
        let total = u32::try_from(ex.info.hints.len()).unwrap_or(u32::MAX);
        Callback::from(move |_: MouseEvent| {
            progress.set(record_progress(id, |p| p.hints_shown = (p.hints_shown + 1).min(total)));
        })
    };
    let on_solution = {
        let progress = progress;
        Callback::from(move |_: MouseEvent| {
            progress.set(record_progress(id, |p| p.solution_shown = true));
        })
    };
    let on_point = {
        let (pointed, cursor, state) = (pointed.clone(), cursor.clone(), state.clone());
        Callback::from(move |_: MouseEvent| {
            if let Some(file) = state.0.open.clone() {
                pointed.set(Some((file, *cursor)));
            }
        })
    };
    let on_reset = {
        let (state, ex, confirming_reset, pointed) =
            (state.clone(), ex.clone(), confirming_reset.clone(), pointed);
        Callback::from(move |_: MouseEvent| {
            if !*confirming_reset {
                confirming_reset.set(true);
                return;
            }
            state.dispatch(Action::Load {
                example: None,
                imported: None,
                workspace: ex.start.clone(),
                open: first_file(&ex),
            });
            pointed.set(None);
            confirming_reset.set(false);
        })
    };
    let on_cancel_reset = {
        let confirming_reset = confirming_reset.clone();
        Callback::from(move |_: MouseEvent| confirming_reset.set(false))
    };
    let on_open = {
        let state = state.clone();
        Callback::from(move |file: FileRef| state.dispatch(Action::Open(file)))
    };
    let on_cursor = {
        let cursor = cursor.clone();
        Callback::from(move |line: u32| cursor.set(line))
    };

    let statuses = use_memo(workspace.clone(), {
        let ex = ex.clone();
        move |ws| {
            let changes = project_changes(&ws.before, &ws.after);
            Rc::new(file_statuses(ws, &changes, &ex.start))
        }
    });

    let editor = match state.0.open_file() {
        Some((file, text)) => {
            let on_change = {
                let (state, file) = (state.clone(), file.clone());
                Callback::from(move |text: String| {
                    state.dispatch(Action::Edit { file: file.clone(), text });
                })
            };
            let diagnostics: Vec<EditorDiagnostic> =
                analysis.diagnostics_for(file).into_iter().map(EditorDiagnostic::from).collect();
            html! {
                <section class="pane editor-pane" aria-label="Editor">
                    <div class="pane-head"><h2 class="file-name">{ file.to_string() }</h2></div>
                    <Editor text={AttrValue::from(text.to_owned())} label={format!("Contents of {file}")}
                            {on_change} path={file.to_string()} {diagnostics} on_cursor={on_cursor} />
                </section>
            }
        }
        None => {
            html! { <section class="pane editor-pane"><p class="muted">{ "No file is open." }</p></section> }
        }
    };

    let all = exercises().unwrap_or_default();
    let at = all.iter().position(|e| e.id == id);
    let previous = at.and_then(|i| i.checked_sub(1)).and_then(|i| all.get(i));
    let next = at.and_then(|i| all.get(i + 1));
    let hints_shown = (mine.hints_shown as usize).min(ex.info.hints.len());
    let all_hints = hints_shown == ex.info.hints.len();
    let info = &ex.info;
    let checklist = evaluation.results.iter().map(|r| {
        html! {
            <li class={classes!(if r.met { "pass" } else { "fail" })}>
                <span class="mark" aria-label={if r.met { "met" } else { "not yet" }}>{ if r.met { "✓" } else { "✗" } }</span>
                { inline_code(&r.label) }
                if let Some(detail) = &r.detail { <span class="check-detail">{ " — " }{ inline_code(detail) }</span> }
            </li>
        }
    });
    html! {
        <div class="page exercise-page" data-exercise={id}>
            <nav class="exercise-crumbs" aria-label="Exercises">
                <Link to={Route::Exercises}>{ "Exercises" }</Link>
                { format!(" › {} of {}", info.number, all.len()) }
            </nav>
            <header class="exercise-head">
                <p class="chapter-number">
                    <span class={classes!("badge", info.style.as_str())}>{ info.style.as_str() }</span>
                    { format!(" about {} minutes", info.minutes) }
                </p>
                <h1>{ info.title.clone() }</h1>
            </header>
            <div class="exercise-layout">
                <section class="exercise-brief" aria-label="The exercise">
                    <Markdown doc={Rc::new(render(&info.brief))} />
                    <h2>{ "Goal" }</h2>
                    <p class="goal">{ info.goal.clone() }</p>
                    <ul class={classes!("goal-checks", done_now.then_some("done"))} aria-live="polite">{ for checklist }</ul>
                    if info.style == Style::FindIt {
                        <p class="point">
                            <button type="button" class="button primary" onclick={on_point}>{ "This line" }</button>
                            { format!(" The caret is on {}:{}.", state.0.open.as_ref().map(ToString::to_string).unwrap_or_default(), *cursor) }
                        </p>
                    }
                    if done_now || mine.done {
                        <div class={classes!("exercise-done", done_now.then_some("now"))} role="status">
                            <p class="done-mark">{ if done_now { "✓ Done — the goal holds." } else { "✓ You have solved this one before." } }</p>
                            <Markdown doc={Rc::new(render(&info.explanation))} />
                            <crate::components::ReceiptBox />
                        </div>
                    }
                    <section class="hints" aria-label="Hints">
                        { for info.hints.iter().take(hints_shown).enumerate().map(|(i, hint)| html! {
                            <div class="hint"><p class="hint-number">{ format!("Hint {}", i + 1) }</p>
                                <Markdown doc={Rc::new(render(hint))} /></div>
                        }) }
                        if !all_hints {
                            <button type="button" class="button" onclick={on_hint}>
                                { format!("Show a hint ({} of {})", hints_shown + 1, info.hints.len()) }
                            </button>
                        } else if !mine.solution_shown {
                            <button type="button" class="button" onclick={on_solution}>{ "Show the solution" }</button>
                        }
                    </section>
                    <p class="reset">
                        if *confirming_reset {
                            { "Start over from the exercise's files? Your changes here will be lost. " }
                            <button type="button" class="button danger" onclick={on_reset}>{ "Start over" }</button>
                            { " " }
                            <button type="button" class="button" onclick={on_cancel_reset}>{ "Keep my work" }</button>
                        } else {
                            <button type="button" class="link-button" onclick={on_reset}>{ "Start over…" }</button>
                        }
                    </p>
                </section>
                <div class="exercise-work">
                    { for problem_notice }
                    { for save_notice }
                    { for conflict_notice }
                    { for aside_notice }
                    <FileTree workspace={workspace.clone()} files_revision={state.0.files_revision} open={state.0.open.clone()} status={(*statuses).clone()}
                              on_open={on_open} on_action={state.dispatcher().to_callback()} />
                    { editor }
                </div>
                if mine.solution_shown {
                    { solution_view(&ex, &workspace) }
                }
            </div>
            <nav class="prev-next" aria-label="Exercise navigation">
                { neighbour(previous, "prev", "← Previous") }
                { neighbour(next, "next", "Next →") }
            </nav>
        </div>
    }
}

/// The solution beside the reader's work: for each file the solution changes, the diff
/// from the reader's text to the solution's; for find-it, the line itself.
fn solution_view(ex: &Exercise, workspace: &Workspace) -> Html {
    if let Some(find) = &ex.info.find {
        let lines = find.accepted_lines(&ex.start);
        let text = ex.start.file(&find.file).unwrap_or_default();
        return html! {
            <section class="exercise-solution" aria-label="Solution">
                <h2>{ "Solution" }</h2>
                { for lines.iter().map(|line| html! {
                    <>
                        <p><code>{ format!("{}:{line}", find.file) }</code></p>
                        <pre class="solution-line"><code>{ text.lines().nth(*line as usize - 1).unwrap_or_default().to_owned() }</code></pre>
                    </>
                }) }
            </section>
        };
    }
    let files: Vec<FileRef> = swaplab_core::order::set_of(
        ex.solution
            .files()
            .map(|(file, _)| file)
            .chain(ex.start.files().map(|(file, _)| file))
            .filter(|file| ex.start.file(file) != ex.solution.file(file)),
    )
    .into_iter()
    .collect();
    html! {
        <section class="exercise-solution" aria-label="Solution">
            <h2>{ "Solution" }</h2>
            <p class="muted">{ "Each file the solution changes, as a diff from your text to the solution's. \
                                 Your files are not touched." }</p>
            { for files.iter().map(|file| {
                let mine = workspace.file(file).unwrap_or_default();
                let theirs = ex.solution.file(file).unwrap_or_default();
                let diff = Rc::new(diff_text(mine, theirs, DEFAULT_CONTEXT));
                html! {
                    <div class="file-diff">
                        <h3>{ format!("{file}: yours → solution") }</h3>
                        if diff.is_empty() {
                            <p class="muted">{ "Yours already matches." }</p>
                        } else {
                            <DiffView diff={diff} />
                        }
                    </div>
                }
            }) }
        </section>
    }
}

fn neighbour(info: Option<&ExerciseInfo>, class: &'static str, label: &'static str) -> Html {
    match info {
        Some(e) => html! {
            <Link to={Route::Exercise { id: e.id.to_owned() }} classes={class}>
                <span class="label">{ label }</span>
                <span class="title">{ e.title.clone() }</span>
            </Link>
        },
        None => html! { <span class={class}></span> },
    }
}
