//! `/play`: the playground. Files on the left, the editor in the middle, results on
//! the right. Every edit goes through the core's reducer and is kept as a draft in
//! this browser, one draft per example, so switching examples never loses work.

use std::rc::Rc;

use gloo::events::EventListener;
use swaplab_content::{DEFAULT_EXAMPLE, ExampleInfo, example};
use swaplab_core::diff::{ChangesMemo, project_changes_with};
use swaplab_core::permalink::{Link, decode, encode, is_private};
use swaplab_core::session::{Action, Session, decode_draft, encode_draft};
use swaplab_core::sim::Side;
use swaplab_core::sim::conversation::Policy;
use swaplab_core::{FileRef, Workspace};
use yew::prelude::*;

use super::use_title;
use crate::browser::{
    LocalStorage, draft_key, fragment, json_data_url, load, replace_fragment, set_aside_key,
    url_with_fragment,
};
use crate::components::{FileTree, NoticeKind, file_statuses};
use crate::draft::{DraftSlot, Restored};
use crate::hooks::use_draft;
use crate::panes::{Goto, InitialRun, ResultsPanel, Tab};
use crate::route::Route;
use crate::router::{current_route, use_query};
use crate::state::PlayState;

mod bar;
mod editor_pane;
mod notices;
mod overlay;
mod rerun;

use bar::PlayBar;
use editor_pane::EditorPane;
use notices::{NoticeContext, PlayNotice, conflict_notice, notice_list};
use overlay::{Overlay, PlayOverlay, use_shortcuts};
use rerun::{Rerun, use_rerun};

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
pub(super) struct Origin {
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

/// A restored draft, or the example itself, plus what to tell the reader.
fn restore(origin: &Origin) -> (Session, Option<PlayNotice>) {
    let fresh = || Session::new(Some(origin.id.clone()), (*origin.pristine).clone());
    let mut slot =
        DraftSlot::open(&LocalStorage, draft_key(&origin.id), Some(origin.pristine.clone()));
    match slot.restore(&mut LocalStorage) {
        Restored::Nothing => (fresh(), None),
        Restored::Draft(session) => (
            session,
            Some(PlayNotice::new(
                NoticeKind::Info,
                "Your draft of this example was restored from this browser.",
            )),
        ),
        Restored::Damaged { error, kept_as } => {
            let mut message = format!("Your saved draft could not be opened: {error}.");
            if let Some(backup) = kept_as {
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

pub(super) fn link_session(origin: &Origin, link: &Link) -> Session {
    let mut session = Session::new(Some(origin.id.clone()), link.workspace.clone());
    if let Some(open) = link.open.clone().filter(|f| link.workspace.file(f).is_some()) {
        session.open = Some(open);
    }
    session
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
    // The draft: saved once typing pauses and when the page goes away, never over
    // another tab's newer save.
    let draft = use_draft(
        &draft_key(&origin.id),
        Some(origin.pristine.clone()),
        &state.0,
        restored.0.revision,
        Callback::from(|()| {
            // The draft now holds what a link in the address bar showed: a reload must
            // restore the edits, not reopen the link over them. Only on the playground:
            // the save as the reader leaves for a chapter's section keeps that anchor.
            if !fragment().is_empty() && current_route() == Route::Play {
                replace_fragment("");
            }
        }),
    );
    let shared = use_state(|| None::<String>);

    let workspace = state.0.workspace.clone();
    // Every result, recomputed once typing pauses: typing never waits for it.
    let Rerun { analysis, run_now } = use_rerun(&state.0);
    // How the two projects differ, shared by the tree's marks and the diff pane: of the
    // files analysed, like every other result, so a keystroke compares nothing (on 300
    // skills that was a walk of every file per key). The memo keeps each file's
    // comparison, so a rerun compares only the files it changed.
    let changes_memo = use_mut_ref(ChangesMemo::default);
    let changes = use_memo(analysis.workspace.clone(), move |ws| {
        project_changes_with(&ws.before, &ws.after, &mut changes_memo.borrow_mut())
    });
    let goto = use_state(|| None::<(u32, u64)>);
    // The same callback on every render: a new one would make the results panel, which
    // compares its props, render itself again at every keystroke.
    let gotos = use_mut_ref(|| 0_u64);
    let on_goto = use_callback(state.dispatcher(), {
        let goto = goto.setter();
        move |target: Goto, to| {
            // Each request moves the editor, even to the line it moved to last time.
            let nonce = {
                let mut gotos = gotos.borrow_mut();
                *gotos += 1;
                *gotos
            };
            to.dispatch(Action::Open(target.file));
            goto.set(target.line.map(|line| (line, nonce)));
        }
    });
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

    // A link pasted into this tab's address bar changes only the fragment: no new page
    // load, so nothing would read it. Save what waits for the typing pause, then load the
    // page again: the load reads the link and, over a different draft, asks first.
    {
        let draft = draft.clone();
        use_effect_with((), move |_| {
            let listener = crate::browser::window().map(|window| {
                EventListener::new(&window, "hashchange", move |_| {
                    // An anchor on the page is not a link to open.
                    let text = fragment();
                    if !is_link_fragment(&text) {
                        return;
                    }
                    draft.flush();
                    // Saving clears the fragment (it takes a link already opened for the
                    // draft's); this one is still to be opened.
                    replace_fragment(&text);
                    crate::browser::reload();
                })
            });
            move || drop(listener)
        });
    }
    // The same callbacks on every render, so the file tree (which compares its props)
    // is not rebuilt as the reader types.
    let on_open =
        use_callback(state.dispatcher(), |file: FileRef, to| to.dispatch(Action::Open(file)));
    let on_action = use_callback(state.dispatcher(), |action: Action, to| to.dispatch(action));
    let statuses = use_memo((changes.clone(), origin.pristine.clone()), {
        let analysed = analysis.workspace.clone();
        move |(changes, pristine)| Rc::new(file_statuses(&analysed, changes, pristine))
    });

    let on_edit = {
        let state = state.clone();
        Callback::from(move |(file, text): (FileRef, String)| {
            state.dispatch(Action::Edit { file, text });
        })
    };
    let open_file =
        state.0.open_file().map(|(file, text)| (file.clone(), AttrValue::from(text.to_owned())));
    let editor = html! {
        <EditorPane open={open_file} pristine={origin.pristine.clone()} analysis={(*analysis).clone()}
                    focus_line={*goto} {on_edit} />
    };

    let reset = {
        let (state, origin) = (state.clone(), origin.clone());
        Callback::from(move |()| {
            // The save that follows removes the draft — if it is still the one this tab
            // knows: another tab's newer draft is never removed unasked.
            state.dispatch(Action::Load {
                example: Some(origin.id.clone()),
                imported: None,
                workspace: (*origin.pristine).clone(),
                open: state.0.open.clone(),
            });
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
    // Shortcuts for the whole page; the help overlay lists them.
    use_shortcuts(run_now, share.clone(), overlay.clone());
    let title = AttrValue::from(origin.info.as_ref().map(|i| i.title.clone()).unwrap_or_default());
    // Whatever stops a save, the reader can still take the edits away as a file.
    let download = draft.status().is_unkept().then(|| {
        let mut drafts = serde_json::Map::new();
        drafts.insert(draft_key(&origin.id), serde_json::Value::String(encode_draft(&state.0)));
        AttrValue::from(json_data_url(&serde_json::Value::Object(drafts).to_string()))
    });
    let notice_context = NoticeContext {
        state: state.clone(),
        origin: origin.clone(),
        draft: draft.clone(),
        notices,
    };
    html! {
        <div class="page play">
            <PlayBar title={title} imported={state.0.imported.clone().map(AttrValue::from)}
                     example={AttrValue::from(origin.id.clone())} status={draft.status().clone()} {download}
                     shared={(*shared).clone().map(AttrValue::from)}
                     private_left_out={shared.is_some() && state.0.workspace.files().any(|(file, _)| is_private(&file))}
                     on_share={share} on_help={let o = overlay.clone(); Callback::from(move |()| o.set(Overlay::Help))}
                     on_reset={reset} />
            { for conflict_notice(&notice_context) }
            { notice_list(&notice_context) }
            <div class="play-grid">
                <FileTree workspace={workspace.clone()} files_revision={state.0.files_revision} open={state.0.open.clone()} status={(*statuses).clone()} on_open={on_open.clone()} {on_action} />
                { editor }
                <ResultsPanel analysis={(*analysis).clone()} stale={analysis.revision != state.0.revision}
                              changes={changes} open={state.0.open.clone()} on_open={on_open.clone()} {on_goto}
                              initial_tab={props.first.tab} initial_run={props.first.run.clone()} />
            </div>
            <PlayOverlay current={*overlay} on_close={let o = overlay.clone(); Callback::from(move |()| o.set(Overlay::None))}
                         workspace={workspace.clone()} on_open={on_open.clone()} />
        </div>
    }
}

/// Whether a URL fragment is a Swap Lab link: it starts with its format version (`v1…`).
fn is_link_fragment(text: &str) -> bool {
    let mut chars = text.chars();
    chars.next() == Some('v') && chars.next().is_some_and(|c| c.is_ascii_digit())
}
