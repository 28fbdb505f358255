//! `/play`: the playground. Files on the left, the editor in the middle, results on
//! the right. Every edit goes through the core's reducer and is kept as a draft in
//! this browser, one draft per example, so switching examples never loses work.

use std::cell::RefCell;
use std::rc::Rc;

use gloo::events::EventListener;
use gloo::timers::callback::Timeout;
use swaplab_content::{DEFAULT_EXAMPLE, ExampleInfo, example};
use swaplab_core::diff::{FileChange, project_changes, swap_marks};
use swaplab_core::memo::Memo;
use swaplab_core::permalink::{Link, WARN_LINK_CHARS, decode, encode, is_private};
use swaplab_core::session::{Action, Session, decode_draft, encode_draft};
use swaplab_core::sim::Side;
use swaplab_core::sim::conversation::Policy;
use swaplab_core::{FileRef, Workspace};
use yew::prelude::*;

use super::use_title;
use crate::browser::{
    DAMAGED_SUFFIX, SaveRefused, draft_key, fragment, json_data_url, load, now_ms,
    on_changed_elsewhere, record_timing, remove, replace_fragment, save, save_over, set_aside_key,
    url_with_fragment,
};
use crate::components::{Editor, EditorDiagnostic, FileStatus, FileTree, NoticeKind};
use crate::panes::{Analysis, Goto, InitialRun, ResultsPanel, SharedAnalysis, Tab};
use crate::panic_banner;
use crate::route::Route;
use crate::router::{current_route, use_query};
use crate::state::PlayState;

/// How long typing must pause before the draft is written.
const SAVE_DELAY_MS: u32 = 400;
/// How long typing must pause before every result is recomputed.
const ANALYSE_DELAY_MS: u32 = 120;

/// What the playground's query asks for (`?example=…&tab=…&file=…&line=…`).
#[derive(Default)]
struct PlayQuery {
    example: Option<String>,
    /// The result pane to show first.
    tab: Option<String>,
    /// The run to show first: policy, side and script stem.
    policy: Option<String>,
    side: Option<String>,
    script: Option<String>,
    /// A file to open, `<area>/<path>`, and a line in it.
    file: Option<String>,
    line: Option<u32>,
}

/// What a link asks the playground to show first, besides the files.
#[derive(Clone, Debug, Default, PartialEq)]
struct FirstView {
    tab: Option<Tab>,
    run: Option<InitialRun>,
    goto: Option<Goto>,
}

impl PlayQuery {
    /// The query from its pairs: a name it does not know is ignored, a repeated one
    /// keeps its last value, and a `line` that is not a number is no line.
    fn from_pairs(pairs: Vec<(String, String)>) -> PlayQuery {
        let mut query = PlayQuery::default();
        for (key, value) in pairs {
            let slot = match key.as_str() {
                "example" => &mut query.example,
                "tab" => &mut query.tab,
                "policy" => &mut query.policy,
                "side" => &mut query.side,
                "script" => &mut query.script,
                "file" => &mut query.file,
                "line" => {
                    query.line = value.parse().ok();
                    continue;
                }
                _ => continue,
            };
            *slot = Some(value);
        }
        query
    }
}

impl FirstView {
    fn of(query: &PlayQuery) -> FirstView {
        let run =
            (query.policy.is_some() || query.side.is_some() || query.script.is_some()).then(|| {
                InitialRun {
                    policy: query.policy.as_deref().and_then(Policy::parse).unwrap_or_default(),
                    side: if query.side.as_deref() == Some("before") {
                        Side::Before
                    } else {
                        Side::After
                    },
                    script: query.script.clone(),
                }
            });
        FirstView {
            tab: query.tab.as_deref().and_then(Tab::parse),
            run,
            goto: query
                .file
                .as_deref()
                .and_then(FileRef::parse)
                .map(|file| Goto { file, line: query.line }),
        }
    }
}

/// The playground route: picks the example from `?example=` and remounts the
/// playground when it changes.
#[component]
pub fn PlayPage() -> Html {
    use_title(Some("Playground".to_owned()));
    let query = PlayQuery::from_pairs(use_query());
    let first = Rc::new(FirstView::of(&query));
    let mut requested = query.example;
    // A permalink in the fragment wins over `?example=`; it is read once per visit.
    let opened = use_memo((), |_| read_link());
    if let Some(Ok(link)) = opened.as_ref() {
        requested = Some(link.example.clone().unwrap_or_else(|| DEFAULT_EXAMPLE.to_owned()));
    }
    let key = requested.clone().unwrap_or_else(|| DEFAULT_EXAMPLE.to_owned());
    html! { <Playground key={key} requested={requested} opened={opened} first={first} /> }
}

/// The link in the URL fragment, if there is one: the workspace it holds, or why it
/// cannot be opened.
fn read_link() -> Option<Result<Link, String>> {
    let fragment = fragment();
    if fragment.is_empty() {
        return None;
    }
    let base = |id: &str| example(id).ok().flatten().map(|ex| ex.workspace);
    Some(decode(&fragment, &base).map_err(|error| error.to_string()))
}

/// Props that share the decoded link between the page and the playground.
type Opened = Rc<Option<Result<Link, String>>>;

/// The example a playground starts from, and anything the reader should know about it.
#[derive(PartialEq)]
struct Origin {
    id: String,
    info: Option<ExampleInfo>,
    pristine: Rc<Workspace>,
    notice: Option<String>,
}

fn resolve_origin(requested: Option<&str>) -> Origin {
    let wanted = requested.unwrap_or(DEFAULT_EXAMPLE);
    let fallback_notice = match example(wanted) {
        Ok(Some(ex)) => {
            return Origin {
                id: wanted.to_owned(),
                info: Some(ex.info),
                pristine: Rc::new(ex.workspace),
                notice: None,
            };
        }
        Ok(None) => format!(
            "There is no example called “{wanted}”, so the playground opened the tutorial's swap."
        ),
        Err(error) => format!(
            "The example “{wanted}” could not be read ({error}), so the playground opened the tutorial's swap."
        ),
    };
    match example(DEFAULT_EXAMPLE) {
        Ok(Some(ex)) => Origin {
            id: DEFAULT_EXAMPLE.to_owned(),
            info: Some(ex.info),
            pristine: Rc::new(ex.workspace),
            notice: Some(fallback_notice),
        },
        _ => Origin {
            id: DEFAULT_EXAMPLE.to_owned(),
            info: None,
            pristine: Rc::default(),
            notice: Some(
                "The built-in examples could not be read; the playground starts empty.".to_owned(),
            ),
        },
    }
}

/// Something the playground tells the reader above the files.
#[derive(Clone, Debug, PartialEq, Eq)]
struct PlayNotice {
    kind: NoticeKind,
    text: String,
    /// Offers the draft the crash banner set aside: restore it or delete it.
    offers_set_aside: bool,
    /// Asks whether to open this link over the reader's draft.
    offers_link: Option<Rc<Link>>,
}

impl PlayNotice {
    fn new(kind: NoticeKind, text: impl Into<String>) -> PlayNotice {
        PlayNotice { kind, text: text.into(), offers_set_aside: false, offers_link: None }
    }
}

/// A restored draft, or the example itself, plus what to tell the reader.
fn restore(origin: &Origin) -> (Session, Option<PlayNotice>) {
    let fresh = || Session::new(Some(origin.id.clone()), (*origin.pristine).clone());
    let key = draft_key(&origin.id);
    let Some(text) = load(&key) else { return (fresh(), None) };
    match decode_draft(&text) {
        Ok(session) if session.workspace == origin.pristine => {
            remove(&key);
            (fresh(), None)
        }
        Ok(session) => (
            session,
            Some(PlayNotice::new(
                NoticeKind::Info,
                "Your draft of this example was restored from this browser.",
            )),
        ),
        Err(error) => {
            // Keep the damaged text where the next save cannot overwrite it.
            let backup = format!("{key}{DAMAGED_SUFFIX}");
            let kept = save(&backup, &text).is_ok();
            let mut message = format!("Your saved draft could not be opened: {error}.");
            if kept {
                message.push_str(&format!(
                    " Its text is kept in this browser's storage as “{backup}”."
                ));
            }
            (fresh(), Some(PlayNotice::new(NoticeKind::Warning, message)))
        }
    }
}

/// A session showing a link's workspace — unless the reader has a different draft of
/// the same example: then the draft stays on screen and the reader is asked.
fn open_link(origin: &Origin, link: &Link) -> (Session, Option<PlayNotice>) {
    let key = draft_key(&origin.id);
    let differs = load(&key).is_some_and(|text| {
        decode_draft(&text)
            .map_or(true, |d| *d.workspace != link.workspace && d.workspace != origin.pristine)
    });
    if differs {
        let (draft, _) = restore(origin);
        let notice = PlayNotice {
            kind: NoticeKind::Info,
            text: "This link holds a different version of this example than your draft, which \
                   is still on screen. Open the link? Your draft is kept aside, to restore later."
                .to_owned(),
            offers_set_aside: false,
            offers_link: Some(Rc::new(link.clone())),
        };
        return (draft, Some(notice));
    }
    (link_session(origin, link), Some(PlayNotice::new(NoticeKind::Info, "Opened from a link.")))
}

fn link_session(origin: &Origin, link: &Link) -> Session {
    let mut session = Session::new(Some(origin.id.clone()), link.workspace.clone());
    if let Some(open) = link.open.clone().filter(|f| link.workspace.file(f).is_some()) {
        session.open = Some(open);
    }
    session
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum SaveStatus {
    /// The workspace is the example, untouched.
    Pristine,
    /// Edits wait for the typing to pause.
    Pending,
    /// Shown, not stored: a link's workspace before the reader edits it.
    FromLink,
    /// The draft is stored.
    Saved,
    /// The browser refused the draft.
    Failed(String),
    /// Another tab saved this example's draft since this tab last read or wrote it; this
    /// tab's edits are not written over it until the reader chooses.
    Conflict,
}

#[derive(Properties, PartialEq)]
struct PlaygroundProps {
    requested: Option<String>,
    opened: Opened,
    first: Rc<FirstView>,
}

#[component]
fn Playground(props: &PlaygroundProps) -> Html {
    let origin =
        use_memo(props.requested.clone(), |requested| resolve_origin(requested.as_deref()));
    let restored = use_memo((), {
        let origin = origin.clone();
        let opened = props.opened.clone();
        move |_| match opened.as_ref() {
            Some(Ok(link)) => open_link(&origin, link),
            Some(Err(error)) => {
                let (session, notice) = restore(&origin);
                let mut text = format!("The link could not be opened: {error}");
                if let Some(notice) = notice {
                    text.push(' ');
                    text.push_str(&notice.text);
                }
                (session, Some(PlayNotice::new(NoticeKind::Warning, text)))
            }
            None => restore(&origin),
        }
    });
    let state = use_reducer({
        let restored = restored.clone();
        move || PlayState(restored.0.clone())
    });
    let notices = use_state({
        let origin = origin.clone();
        let restored = restored.clone();
        move || {
            let mut notices = Vec::new();
            if let Some(text) = &origin.notice {
                notices.push(PlayNotice::new(NoticeKind::Warning, text.clone()));
            }
            notices.extend(restored.1.clone());
            if load(&set_aside_key(&origin.id)).is_some() {
                notices.push(PlayNotice {
                    kind: NoticeKind::Info,
                    text: "A draft of this example was set aside when the page was reset after \
                           a crash."
                        .to_owned(),
                    offers_set_aside: true,
                    offers_link: None,
                });
            }
            notices
        }
    });
    let save_status = use_state(|| {
        let stored = load(&draft_key(&origin.id)).and_then(|text| decode_draft(&text).ok());
        if state.0.workspace == origin.pristine {
            SaveStatus::Pristine
        } else if stored.is_some_and(|draft| draft.workspace == state.0.workspace) {
            SaveStatus::Saved
        } else {
            SaveStatus::FromLink
        }
    });
    // What the draft's key held when this tab last read or wrote it: a save that finds
    // anything else there has met another tab's work (see `store_draft`).
    let baseline: Baseline = use_mut_ref({
        let origin = origin.clone();
        move || load(&draft_key(&origin.id))
    });
    // Another tab saved this example's draft; shown until the reader picks a version.
    let conflict = use_state(|| false);
    let confirming_reset = use_state(|| false);
    let shared = use_state(|| None::<String>);

    let workspace = state.0.workspace.clone();
    // One comparison of the two projects per change, shared by the tree and the diff.
    let changes = use_memo(workspace.clone(), |ws| project_changes(&ws.before, &ws.after));
    // Every result, recomputed once typing pauses: typing never waits for it.
    // What the last analysis read and compiled, for the next one to reuse.
    let memo = use_mut_ref(Memo::new);
    let analysis = use_state({
        let workspace = workspace.clone();
        let revision = state.0.revision;
        let memo = memo.clone();
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
        let analysis = analysis.clone();
        let workspace = workspace.clone();
        let rerun_started = rerun_started.clone();
        let memo = memo.clone();
        use_effect_with(state.0.revision, move |revision| {
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
    {
        use_effect_with((*analysis).clone(), move |_| {
            if let Some(start) = rerun_started.borrow_mut().take() {
                record_timing("rerun", now_ms() - start);
            }
        });
    }
    let goto = use_state(|| None::<(u32, u64)>);
    let on_goto = {
        let state = state.clone();
        let goto = goto.clone();
        Callback::from(move |target: Goto| {
            let nonce = goto.map_or(1, |(_, n)| n + 1);
            state.dispatch(Action::Open(target.file));
            goto.set(target.line.map(|line| (line, nonce)));
        })
    };
    // A link that names a file (a widget's evidence, a chapter) opens it once.
    {
        let (on_goto, first) = (on_goto.clone(), props.first.clone());
        let workspace = state.0.workspace.clone();
        use_effect_with((), move |_| {
            if let Some(target) = first.goto.clone().filter(|g| workspace.file(&g.file).is_some()) {
                on_goto.emit(target);
            }
        });
    }

    // The latest session and whether it waits to be saved, where the timer and the
    // page-hide listener can reach them.
    let latest = use_mut_ref(|| None::<UseReducerHandle<PlayState>>);
    *latest.borrow_mut() = Some(state.clone());
    let dirty = use_mut_ref(|| false);
    let loaded_revision = restored.0.revision;

    // Save the draft once typing pauses. Nothing happens until the reader changes
    // something: opening the page must never touch a draft another tab may be writing.
    {
        let origin = origin.clone();
        let save_status = save_status.clone();
        let latest = latest.clone();
        let dirty = dirty.clone();
        let (baseline, conflict) = (baseline.clone(), conflict.clone());
        use_effect_with(state.0.revision, move |revision| {
            let timeout = (*revision != loaded_revision).then(|| {
                *dirty.borrow_mut() = true;
                save_status.set(SaveStatus::Pending);
                // Until the timer fires, a crash must still be able to save these edits.
                if let Some(state) = latest.borrow().as_ref() {
                    let expected = baseline.borrow();
                    panic_banner::note_unsaved(
                        &draft_key(&origin.id),
                        expected.as_deref(),
                        Some(&state.0),
                    );
                }
                Timeout::new(SAVE_DELAY_MS, move || {
                    let status = store_draft(&origin, &latest, &baseline);
                    if status == SaveStatus::Conflict {
                        conflict.set(true);
                    }
                    save_status.set(status);
                    *dirty.borrow_mut() = false;
                })
            });
            move || drop(timeout)
        });
    }
    // Leaving the page must not lose the keystrokes that still wait for the timer:
    // neither closing or reloading the tab (`pagehide`) nor going to another page of
    // the app or another example (this component unmounts; the timer is dropped). If
    // another tab saved meanwhile, they go beside its draft, where the playground offers
    // them back.
    {
        let (origin, latest) = (origin.clone(), latest.clone());
        let (baseline, dirty) = (baseline.clone(), dirty.clone());
        use_effect_with((), move |_| {
            let listener = web_sys::window().map(|window| {
                let (origin, latest) = (origin.clone(), latest.clone());
                let (baseline, dirty) = (baseline.clone(), dirty.clone());
                EventListener::new(&window, "pagehide", move |_| {
                    flush_draft(&origin, &latest, &baseline, &dirty);
                })
            });
            move || {
                drop(listener);
                flush_draft(&origin, &latest, &baseline, &dirty);
            }
        });
    }
    // A link pasted into this tab's address bar changes only the fragment: no new page
    // load, so nothing would read it. Save what waits for the typing pause, then load the
    // page again: the load reads the link and, over a different draft, asks first.
    {
        let (origin, latest, baseline) = (origin.clone(), latest.clone(), baseline.clone());
        use_effect_with((), move |_| {
            let listener = web_sys::window().map(|window| {
                EventListener::new(&window, "hashchange", move |_| {
                    // An anchor on the page is not a link to open.
                    let text = fragment();
                    if !is_link_fragment(&text) {
                        return;
                    }
                    flush_draft(&origin, &latest, &baseline, &dirty);
                    // Saving clears the fragment (it takes a link already opened for the
                    // draft's); this one is still to be opened.
                    replace_fragment(&text);
                    crate::browser::reload();
                })
            });
            move || drop(listener)
        });
    }
    // Another tab of the site saving this example's draft fires `storage` here: say so at
    // once rather than at this tab's next save.
    {
        let (origin, baseline, conflict) = (origin.clone(), baseline.clone(), conflict.clone());
        use_effect_with((), move |_| {
            let listener = on_changed_elsewhere(draft_key(&origin.id), baseline, move || {
                conflict.set(true);
            });
            move || drop(listener)
        });
    }

    let on_open = {
        let state = state.clone();
        Callback::from(move |file: FileRef| state.dispatch(Action::Open(file)))
    };
    let statuses = use_memo((changes.clone(), origin.pristine.clone()), {
        let state = state.clone();
        move |(changes, pristine)| Rc::new(file_statuses(&state.0, changes, pristine))
    });

    let open = state.0.open_file().map(|(file, text)| (file.clone(), text.to_owned()));
    let editor = match open {
        Some((file, text)) => {
            let on_change = {
                let state = state.clone();
                let file = file.clone();
                Callback::from(move |text: String| {
                    state.dispatch(Action::Edit { file: file.clone(), text });
                })
            };
            let editor_diagnostics: Vec<EditorDiagnostic> =
                analysis.diagnostics_for(&file).into_iter().map(EditorDiagnostic::from).collect();
            let pristine_text = origin.pristine.file(&file).map(str::to_owned);
            let edited = pristine_text.as_deref() != Some(text.as_str());
            let revert = pristine_text.filter(|_| edited).map(|original| {
                let state = state.clone();
                let file = file.clone();
                Callback::from(move |_: MouseEvent| {
                    state.dispatch(Action::Edit { file: file.clone(), text: original.clone() });
                })
            });
            html! {
                <section class="pane editor-pane" aria-label="Editor">
                    <header class="editor-bar">
                        <span class="path" title={file.to_string()}>
                            <span class={classes!("area-tag", file.area.prefix())}>{ file.area.prefix() }</span>
                            { file.path.clone() }
                        </span>
                        if edited { <span class="badge edited">{ "edited" }</span> }
                        if let Some(revert) = revert {
                            <button type="button" class="link-button" onclick={revert}>{ "Revert this file" }</button>
                        }
                    </header>
                    <Editor text={AttrValue::from(text)} label={format!("Contents of {file}")} {on_change} focus_line={*goto}
                            path={file.to_string()} diagnostics={editor_diagnostics} />
                </section>
            }
        }
        None => html! {
            <section class="pane editor-pane"><p class="muted">{ "This workspace has no files." }</p></section>
        },
    };

    let reset = {
        let state = state.clone();
        let origin = origin.clone();
        let confirming_reset = confirming_reset.clone();
        Callback::from(move |_: MouseEvent| {
            // The save that follows removes the draft — if it is still the one this tab
            // knows: another tab's newer draft is never removed unasked.
            state.dispatch(Action::Load {
                example: Some(origin.id.clone()),
                imported: None,
                workspace: (*origin.pristine).clone(),
                open: state.0.open.clone(),
            });
            confirming_reset.set(false);
        })
    };
    let share = {
        let (state, origin, shared) = (state.clone(), origin.clone(), shared.clone());
        Callback::from(move |_: MouseEvent| {
            let session = &state.0;
            let link = Link {
                example: session.example.clone(),
                workspace: (*session.workspace).clone(),
                open: session.open.clone(),
            };
            let base = (session.example.as_deref() == Some(origin.id.as_str()))
                .then_some(&*origin.pristine);
            let fragment = encode(&link, base);
            replace_fragment(&fragment);
            shared.set(Some(url_with_fragment(&fragment)));
        })
    };
    let overlay = use_state(|| Overlay::None);
    let run_now = {
        let (analysis, state) = (analysis.clone(), state.clone());
        Callback::from(move |()| {
            let start = now_ms();
            let next =
                Analysis::with_memo(&state.0.workspace, state.0.revision, &mut memo.borrow_mut());
            analysis.set(SharedAnalysis(Rc::new(next)));
            record_timing("run-now", now_ms() - start);
        })
    };
    // Shortcuts for the whole page; the help overlay lists them.
    {
        let (overlay, share) = (overlay.clone(), share.clone());
        use_effect_with((), move |_| {
            let listener = web_sys::window().map(|window| {
                EventListener::new_with_options(
                    &window,
                    "keydown",
                    gloo::events::EventListenerOptions::enable_prevent_default(),
                    move |event| {
                        let Some(event) = wasm_bindgen::JsCast::dyn_ref::<KeyboardEvent>(event)
                        else {
                            return;
                        };
                        let command = event.ctrl_key() || event.meta_key();
                        let typing = event
                            .target()
                            .and_then(|t| {
                                wasm_bindgen::JsCast::dyn_into::<web_sys::Element>(t).ok()
                            })
                            .is_some_and(|el| {
                                matches!(el.tag_name().as_str(), "TEXTAREA" | "INPUT" | "SELECT")
                            });
                        match (command, event.shift_key(), event.key().as_str()) {
                            (true, _, "Enter") => run_now.emit(()),
                            (true, true, "S" | "s") => {
                                if let Ok(click) = MouseEvent::new("click") {
                                    share.emit(click);
                                }
                            }
                            (true, false, "p" | "P") => overlay.set(Overlay::GoTo),
                            (false, _, "?") if !typing => overlay.set(Overlay::Help),
                            _ => return,
                        }
                        event.prevent_default();
                    },
                )
            });
            move || drop(listener)
        });
    }
    let title = origin.info.as_ref().map(|i| i.title.clone()).unwrap_or_default();
    let status_text = match &*save_status {
        SaveStatus::Pristine => "The example as shipped".to_owned(),
        SaveStatus::Pending => "Unsaved changes…".to_owned(),
        SaveStatus::FromLink => {
            "From the link; your first edit keeps it in this browser".to_owned()
        }
        SaveStatus::Saved => "Draft saved in this browser".to_owned(),
        SaveStatus::Failed(reason) => format!("Not saved: {reason}"),
        SaveStatus::Conflict => "Not saved: another tab changed this draft".to_owned(),
    };
    // Whatever stops a save, the reader can still take the edits away as a file.
    let download =
        matches!(*save_status, SaveStatus::Failed(_) | SaveStatus::Conflict).then(|| {
            let mut drafts = serde_json::Map::new();
            drafts.insert(draft_key(&origin.id), serde_json::Value::String(encode_draft(&state.0)));
            json_data_url(&serde_json::Value::Object(drafts).to_string())
        });
    let conflict_notice = conflict.then(|| {
        let take_theirs = {
            let (state, origin, notices) = (state.clone(), origin.clone(), notices.clone());
            let (baseline, conflict) = (baseline.clone(), conflict.clone());
            Callback::from(move |_: MouseEvent| {
                let mut kept = (*notices).clone();
                match take_other_tab(&origin, &state.0, &baseline) {
                    Ok(action) => {
                        state.dispatch(action);
                        kept.push(PlayNotice {
                            kind: NoticeKind::Info,
                            text: "Showing the other tab's version. This tab's edits are kept \
                                   aside in this browser."
                                .to_owned(),
                            offers_set_aside: true,
                            offers_link: None,
                        });
                        conflict.set(false);
                    }
                    Err(message) => kept.push(PlayNotice::new(NoticeKind::Warning, message)),
                }
                notices.set(kept);
            })
        };
        let keep_mine = {
            let (origin, notices, latest) = (origin.clone(), notices.clone(), latest.clone());
            let (baseline, conflict, save_status) =
                (baseline.clone(), conflict.clone(), save_status.clone());
            Callback::from(move |_: MouseEvent| {
                let mut kept = (*notices).clone();
                match keep_this_tab(&origin, &latest, &baseline) {
                    Ok(status) => {
                        save_status.set(status);
                        kept.push(PlayNotice {
                            kind: NoticeKind::Info,
                            text: "Kept this tab's version. The other tab's draft is kept aside \
                                   in this browser."
                                .to_owned(),
                            offers_set_aside: true,
                            offers_link: None,
                        });
                        conflict.set(false);
                    }
                    Err(message) => kept.push(PlayNotice::new(NoticeKind::Warning, message)),
                }
                notices.set(kept);
            })
        };
        html! {
            <div class="notice warning conflict" role="alert">
                <div class="notice-body">
                    { "Another tab changed this example's draft after this tab opened it. \
                       Nothing has been written over either version. Which one do you want here? \
                       The other is kept aside, to restore later." }
                    <span class="notice-actions">
                        <button type="button" onclick={take_theirs}>{ "Show the other tab's version" }</button>
                        <button type="button" onclick={keep_mine}>{ "Keep this tab's version" }</button>
                    </span>
                </div>
            </div>
        }
    });

    html! {
        <div class="page play">
            <div class="play-bar">
                // After an import the files are no longer the example: name what is loaded.
                if let Some(source) = &state.0.imported {
                    <h1>{ "Playground" }<span class="example-title">{ format!(" — Imported: {source}") }</span></h1>
                    <button type="button" class="link-button back-to-example"
                            title="Discard the imported files and open the built-in example again"
                            onclick={let c = confirming_reset.clone(); move |_| c.set(true)}>
                        { format!("Back to “{title}”") }
                    </button>
                } else {
                    <h1>{ "Playground" }<span class="example-title">{ format!(" — {title}") }</span></h1>
                }
                <span class={classes!("save-status", matches!(*save_status, SaveStatus::Failed(_) | SaveStatus::Conflict).then_some("failed"))}
                      role="status">{ status_text }</span>
                if let Some(href) = download {
                    <a class="button secondary" {href} download={format!("swaplab-draft-{}.json", origin.id)}>{ "Download draft" }</a>
                }
                <button type="button" onclick={share} title="Put the whole workspace in a link (Ctrl+Shift+S)">{ "Share" }</button>
                <button type="button" class="link-button" aria-haspopup="dialog"
                        onclick={let o = overlay.clone(); move |_| o.set(Overlay::Help)}>{ "Shortcuts (?)" }</button>
                if let Some(url) = &*shared {
                    <span class="share-box">
                        <input type="text" readonly=true value={url.clone()} aria-label="Link to this workspace"
                               onfocus={Callback::from(|e: FocusEvent| {
                                   let input: web_sys::HtmlInputElement = e.target_unchecked_into();
                                   input.select();
                               })} />
                        <span class={classes!("link-length", (url.chars().count() > WARN_LINK_CHARS).then_some("long"))} role="status">
                            { if url.chars().count() > WARN_LINK_CHARS {
                                format!("{} characters — long links may not survive chat apps", url.chars().count())
                            } else {
                                format!("{} characters", url.chars().count())
                            } }
                            { if state.0.workspace.files().any(|(file, _)| is_private(&file)) {
                                " · .env left out: it may hold secrets"
                            } else { "" } }
                        </span>
                    </span>
                }
                if *save_status != SaveStatus::Pristine || state.0.imported.is_some() {
                    if *confirming_reset {
                        <span class="confirm">
                            if state.0.imported.is_some() {
                                { format!("Discard the imported files and open “{title}” again? ") }
                            } else {
                                { "Discard your edits to this example? " }
                            }
                            <button type="button" class="danger" onclick={reset}>{ "Discard edits" }</button>
                            <button type="button" onclick={let c = confirming_reset.clone(); move |_| c.set(false)}>{ "Keep them" }</button>
                        </span>
                    } else if state.0.imported.is_none() {
                        <button type="button" onclick={let c = confirming_reset.clone(); move |_| c.set(true)}>
                            { "Reset to the example" }
                        </button>
                    }
                }
            </div>
            { for conflict_notice }
            { for notices.iter().enumerate().map(|(i, notice)| {
                let dismiss = {
                    let notices = notices.clone();
                    Callback::from(move |()| {
                        let mut kept = (*notices).clone();
                        kept.remove(i);
                        notices.set(kept);
                    })
                };
                let link_actions = notice.offers_link.clone().map(|link| {
                    let open_it = {
                        let (state, origin, notices) = (state.clone(), origin.clone(), notices.clone());
                        let link = link.clone();
                        Callback::from(move |_: MouseEvent| {
                            let mut kept = (*notices).clone();
                            match save(&set_aside_key(&origin.id), &encode_draft(&state.0)) {
                                Ok(()) => {
                                    kept[i] = PlayNotice {
                                        kind: NoticeKind::Info,
                                        text: "Opened the link. Your draft is kept aside in this browser.".to_owned(),
                                        offers_set_aside: true,
                                        offers_link: None,
                                    };
                                    let session = link_session(&origin, &link);
                                    state.dispatch(Action::Load { example: session.example, imported: session.imported, workspace: Rc::unwrap_or_clone(session.workspace), open: session.open });
                                }
                                Err(reason) => {
                                    kept[i] = PlayNotice::new(NoticeKind::Warning, format!(
                                        "The link was not opened: your draft could not be kept aside first ({reason})."
                                    ));
                                }
                            }
                            notices.set(kept);
                        })
                    };
                    let keep = {
                        let dismiss = dismiss.clone();
                        Callback::from(move |_: MouseEvent| {
                            replace_fragment("");
                            dismiss.emit(());
                        })
                    };
                    html! {
                        <span class="notice-actions">
                            <button type="button" onclick={open_it}>{ "Open the link" }</button>
                            <button type="button" onclick={keep}>{ "Keep my draft" }</button>
                        </span>
                    }
                });
                let actions = notice.offers_set_aside.then(|| {
                    let restore = {
                        let (state, origin, notices) = (state.clone(), origin.clone(), notices.clone());
                        Callback::from(move |_: MouseEvent| {
                            let outcome = restore_set_aside(&origin, &state.0);
                            let mut kept = (*notices).clone();
                            match outcome {
                                Ok(action) => {
                                    kept.remove(i);
                                    state.dispatch(action);
                                }
                                Err(message) => kept[i] = PlayNotice::new(NoticeKind::Warning, message),
                            }
                            notices.set(kept);
                        })
                    };
                    let delete = {
                        let (origin, dismiss) = (origin.clone(), dismiss.clone());
                        Callback::from(move |_: MouseEvent| {
                            remove(&set_aside_key(&origin.id));
                            dismiss.emit(());
                        })
                    };
                    html! {
                        <span class="notice-actions">
                            <button type="button" onclick={restore}>{ "Restore it" }</button>
                            <button type="button" class="danger" onclick={delete}>{ "Delete it" }</button>
                        </span>
                    }
                });
                html! {
                    { crate::components::notice(notice.kind, Some(dismiss), html! { <>
                        { notice.text.clone() }
                        { for link_actions }
                        { for actions }
                    </> }) }
                }
            }) }
            <div class="play-grid">
                <FileTree workspace={workspace.clone()} open={state.0.open.clone()} status={(*statuses).clone()} on_open={on_open.clone()} on_action={state.dispatcher().to_callback()} />
                { editor }
                <ResultsPanel analysis={(*analysis).clone()} stale={analysis.revision != state.0.revision}
                              workspace={workspace.clone()} changes={changes} open={state.0.open.clone()} on_open={on_open.clone()} {on_goto}
                              initial_tab={props.first.tab} initial_run={props.first.run.clone()} />
            </div>
            { overlay_view(*overlay, &overlay, &workspace, &on_open) }
        </div>
    }
}

/// The dialog shown over the playground, if any.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Overlay {
    /// Nothing.
    None,
    /// The keyboard shortcuts.
    Help,
    /// Go to a file by name.
    GoTo,
}

#[derive(Properties, PartialEq)]
struct DialogProps {
    labelled_by: AttrValue,
    on_key: Callback<KeyboardEvent>,
    children: Html,
}

/// A modal box over the page. It takes the focus when it opens, keeps Tab and Shift+Tab
/// among its own controls (the page behind it is out of reach, as `aria-modal` says),
/// and gives the focus back to where it was (the editor, the button that opened it)
/// when it closes.
#[component]
fn Dialog(props: &DialogProps) -> Html {
    let boxed = use_node_ref();
    {
        let boxed = boxed.clone();
        use_effect_with((), move |_| {
            let opener = web_sys::window()
                .and_then(|w| w.document())
                .and_then(|d| d.active_element())
                .and_then(|el| wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlElement>(el).ok());
            if let Some(first) = focusable(&boxed).into_iter().next() {
                let _ = first.focus();
            }
            move || {
                if let Some(opener) = opener.filter(|el| el.is_connected()) {
                    let _ = opener.focus();
                }
            }
        });
    }
    let onkeydown = {
        let (boxed, on_key) = (boxed.clone(), props.on_key.clone());
        Callback::from(move |e: KeyboardEvent| {
            if e.key() == "Tab" {
                keep_tab_inside(&e, &focusable(&boxed));
            }
            on_key.emit(e);
        })
    };
    html! {
        <div class="overlay" role="dialog" aria-modal="true" aria-labelledby={props.labelled_by.clone()} {onkeydown}>
            <div class="overlay-box" ref={boxed}>{ props.children.clone() }</div>
        </div>
    }
}

/// The controls inside a dialog's box, in Tab order.
fn focusable(boxed: &NodeRef) -> Vec<web_sys::HtmlElement> {
    let Some(list) =
        boxed.cast::<web_sys::Element>().and_then(|el| el.query_selector_all("input, button").ok())
    else {
        return Vec::new();
    };
    (0..list.length())
        .filter_map(|i| list.item(i))
        .filter_map(|node| wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlElement>(node).ok())
        .collect()
}

/// Tab from a dialog's last control goes to its first, Shift+Tab from its first to its
/// last: the focus goes round the dialog instead of to the page behind it.
fn keep_tab_inside(e: &KeyboardEvent, controls: &[web_sys::HtmlElement]) {
    let (Some(first), Some(last)) = (controls.first(), controls.last()) else { return };
    let active = web_sys::window().and_then(|w| w.document()).and_then(|d| d.active_element());
    let at = |el: &web_sys::HtmlElement| active.as_ref().is_some_and(|a| a == &**el);
    let inside = controls.iter().any(&at);
    let wrap_to = match (e.shift_key(), inside) {
        (_, false) => Some(first),
        (true, true) if at(first) => Some(last),
        (false, true) if at(last) => Some(first),
        _ => None,
    };
    if let Some(target) = wrap_to {
        e.prevent_default();
        let _ = target.focus();
    }
}

/// The keyboard shortcuts, as the help overlay lists them.
const SHORTCUTS: [(&str, &str); 7] = [
    ("Ctrl+Enter", "rerun every check now (they also rerun when typing pauses)"),
    ("Ctrl+Shift+S", "share: put the whole workspace in a link"),
    ("Ctrl+P", "go to a file by name"),
    ("Alt+→ / Alt+←", "next / previous result pane (or ← → on the focused tab)"),
    ("Tab / Shift+Tab in the editor", "indent / outdent; Esc then Tab leaves the editor"),
    ("?", "this list"),
    ("Esc", "close this dialog"),
];

fn overlay_view(
    current: Overlay,
    overlay: &UseStateHandle<Overlay>,
    workspace: &Rc<Workspace>,
    on_open: &Callback<FileRef>,
) -> Html {
    let close = {
        let overlay = overlay.clone();
        Callback::from(move |_: MouseEvent| overlay.set(Overlay::None))
    };
    let escape = {
        let overlay = overlay.clone();
        Callback::from(move |e: KeyboardEvent| {
            if e.key() == "Escape" {
                overlay.set(Overlay::None);
            }
        })
    };
    match current {
        Overlay::None => html! {},
        Overlay::Help => html! {
            <Dialog labelled_by="help-title" on_key={escape}>
                    <h2 id="help-title">{ "Keyboard shortcuts" }</h2>
                    <dl class="shortcuts">
                        { for SHORTCUTS.iter().map(|(keys, what)| html! { <><dt><kbd>{ *keys }</kbd></dt><dd>{ *what }</dd></> }) }
                    </dl>
                    <button type="button" onclick={close}>{ "Close" }</button>
            </Dialog>
        },
        Overlay::GoTo => {
            let files: Vec<String> = workspace.files().map(|(f, _)| f.to_string()).collect();
            let onkeydown = {
                let (overlay, on_open) = (overlay.clone(), on_open.clone());
                Callback::from(move |e: KeyboardEvent| {
                    if e.key() != "Enter" {
                        return;
                    }
                    let input: web_sys::HtmlInputElement = e.target_unchecked_into();
                    let wanted = input.value().to_lowercase();
                    let found = files
                        .iter()
                        .find(|f| f.to_lowercase() == wanted)
                        .or_else(|| files.iter().find(|f| f.to_lowercase().contains(&wanted)));
                    if let Some(file) = found.and_then(|f| FileRef::parse(f)) {
                        on_open.emit(file);
                        overlay.set(Overlay::None);
                    }
                })
            };
            html! {
                <Dialog labelled_by="goto-title" on_key={escape}>
                        <h2 id="goto-title">{ "Go to a file" }</h2>
                        <input type="text" list="goto-files" aria-label="File name" {onkeydown}
                               placeholder="type part of a path, then Enter" />
                        <datalist id="goto-files">
                            { for workspace.files().map(|(f, _)| html! { <option value={f.to_string()} /> }) }
                        </datalist>
                        <button type="button" onclick={close}>{ "Cancel" }</button>
                </Dialog>
            }
        }
    }
}

/// Brings back the draft the crash banner set aside. Whatever the reader has edited
/// since takes its place, so nothing is lost either way.
fn restore_set_aside(origin: &Origin, current: &Session) -> Result<Action, String> {
    let key = set_aside_key(&origin.id);
    let text = load(&key).ok_or("The set-aside draft is no longer in this browser's storage.")?;
    let draft = decode_draft(&text)
        .map_err(|e| format!("The set-aside draft could not be opened: {e}."))?;
    if current.workspace == origin.pristine {
        remove(&key);
    } else {
        save(&key, &encode_draft(current))
            .map_err(|e| format!("Your current edits could not be set aside in its place: {e}."))?;
    }
    Ok(Action::Load {
        example: Some(origin.id.clone()),
        imported: draft.imported,
        workspace: Rc::unwrap_or_clone(draft.workspace),
        open: draft.open,
    })
}

/// The newest state, where timers and event listeners can read it after later renders.
type LatestState = Rc<RefCell<Option<UseReducerHandle<PlayState>>>>;

/// What the draft's key held when this tab last read or wrote it.
type Baseline = Rc<RefCell<Option<String>>>;

/// Whether a URL fragment is a Swap Lab link: it starts with its format version (`v1…`).
fn is_link_fragment(text: &str) -> bool {
    let mut chars = text.chars();
    chars.next() == Some('v') && chars.next().is_some_and(|c| c.is_ascii_digit())
}

/// Saves the session as this example's draft — or removes the draft when the session is
/// the example itself — unless another tab saved the draft since this tab last read or
/// wrote it: then nothing is written and the reader is asked ([`SaveStatus::Conflict`]).
fn store_draft(origin: &Origin, latest: &LatestState, baseline: &Baseline) -> SaveStatus {
    if panic_banner::has_crashed() {
        // The crash banner saved what there was; this tab's state is not to be trusted.
        return SaveStatus::Pending;
    }
    let latest = latest.borrow();
    let Some(state) = latest.as_ref() else { return SaveStatus::Pristine };
    let session = &state.0;
    let key = draft_key(&origin.id);
    let pristine = session.workspace == origin.pristine;
    let text = (!pristine).then(|| encode_draft(session));
    let expected = baseline.borrow().clone();
    match save_over(&key, expected.as_deref(), text.as_deref()) {
        Ok(()) => {
            *baseline.borrow_mut() = text;
            panic_banner::note_unsaved(&key, None, None);
            if pristine {
                return SaveStatus::Pristine;
            }
            // The draft now holds what a link in the address bar showed: a reload must
            // restore the edits, not reopen the link over them. Only on the playground:
            // the save as the reader leaves for a chapter's section keeps that anchor.
            if !fragment().is_empty() && current_route() == Route::Play {
                replace_fragment("");
            }
            SaveStatus::Saved
        }
        Err(SaveRefused::ChangedElsewhere) => SaveStatus::Conflict,
        Err(SaveRefused::Browser(reason)) => SaveStatus::Failed(reason),
    }
}

/// Saves, before the page goes away, edits still waiting for the typing pause. If another
/// tab saved this example's draft meanwhile, they go beside it, in the set-aside slot the
/// playground offers back on the next visit.
fn flush_draft(origin: &Origin, latest: &LatestState, baseline: &Baseline, dirty: &RefCell<bool>) {
    if !dirty.replace(false) {
        return;
    }
    if store_draft(origin, latest, baseline) == SaveStatus::Conflict
        && let Some(state) = latest.borrow().as_ref()
    {
        let _ = save(&set_aside_key(&origin.id), &encode_draft(&state.0));
    }
}

/// The reader picked the other tab's version: this tab's edits go aside (unless they
/// are the example itself) and the stored draft is loaded.
fn take_other_tab(
    origin: &Origin,
    current: &Session,
    baseline: &Baseline,
) -> Result<Action, String> {
    let key = draft_key(&origin.id);
    let theirs = load(&key);
    let action = match theirs.as_deref().map(decode_draft) {
        Some(Ok(draft)) => Action::Load {
            example: Some(origin.id.clone()),
            imported: draft.imported,
            workspace: Rc::unwrap_or_clone(draft.workspace),
            open: draft.open,
        },
        // The other tab reset the example.
        None => Action::Load {
            example: Some(origin.id.clone()),
            imported: None,
            workspace: (*origin.pristine).clone(),
            open: current.open.clone(),
        },
        Some(Err(error)) => {
            return Err(format!("The other tab's draft could not be opened: {error}."));
        }
    };
    if current.workspace != origin.pristine {
        save(&set_aside_key(&origin.id), &encode_draft(current)).map_err(|reason| {
            format!("This tab's edits could not be kept aside, so nothing changed ({reason}).")
        })?;
    }
    *baseline.borrow_mut() = theirs;
    Ok(action)
}

/// The reader kept this tab's version: the other tab's draft goes aside, then this tab's
/// edits are saved in its place.
fn keep_this_tab(
    origin: &Origin,
    latest: &LatestState,
    baseline: &Baseline,
) -> Result<SaveStatus, String> {
    let theirs = load(&draft_key(&origin.id));
    if let Some(text) = &theirs {
        save(&set_aside_key(&origin.id), text).map_err(|reason| {
            format!("The other tab's draft could not be kept aside, so nothing changed ({reason}).")
        })?;
    }
    *baseline.borrow_mut() = theirs;
    Ok(store_draft(origin, latest, baseline))
}

/// Each file's marks in the tree: edited since `pristine`, and what the swap does to it.
pub(super) fn file_statuses(
    session: &Session,
    changes: &[FileChange],
    pristine: &Workspace,
) -> Vec<(FileRef, FileStatus)> {
    let edited = session.edited_files(pristine);
    let marks = swap_marks(changes);
    session
        .workspace
        .files()
        .map(|(file, _)| {
            let status = FileStatus {
                edited: edited.contains(&file),
                swap: marks.iter().find(|(f, _)| *f == file).map(|(_, status)| status.code()),
            };
            (file, status)
        })
        .collect()
}
