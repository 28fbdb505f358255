//! The workspace's files, grouped by area and folder, with what the swap did to each;
//! and the reader's file operations: add a file to an area, rename or delete one (all
//! inline, keyboard first: Enter confirms, Escape cancels), and import a project from a
//! `.zip`, files or a folder, picked or dropped on the tree. [`file_statuses`] works
//! out each file's marks, without the DOM.
//!
//! Every operation is an `Action` for the core's reducer, checked with
//! `swaplab_core::session::check` first so that a refusal shows here, next to the input,
//! and the shell only dispatches what will apply.

use std::cell::RefCell;
use std::rc::Rc;

use swaplab_core::diff::{FileChange, swap_marks};
use swaplab_core::session::{Action, check};
use swaplab_core::{Area, FileRef, Workspace};
use wasm_bindgen::JsCast;
use web_sys::{File, HtmlInputElement};
use yew::platform::spawn_local;
use yew::prelude::*;

use super::import::{
    ImportPanel, Loaded, carries_files, describe, file_list, focus_in, read_picked, reveal,
};

/// What sets a file apart in the tree.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FileStatus {
    /// The reader changed it from the example.
    pub edited: bool,
    /// For a before/after file: the swap changed (`M`), added (`A`) or removed (`D`) it.
    pub swap: Option<char>,
}

/// Props for [`FileTree`].
#[derive(Properties)]
pub struct FileTreeProps {
    /// The files.
    pub workspace: Rc<Workspace>,
    /// The session's `files_revision`: it changes whenever the paths do.
    pub files_revision: u64,
    /// The file shown in the editor.
    pub open: Option<FileRef>,
    /// Badges per file.
    pub status: Rc<Vec<(FileRef, FileStatus)>>,
    /// Called when the reader picks a file.
    pub on_open: Callback<FileRef>,
    /// Called with what the reader confirms: `AddFile`, `Rename`, `Delete`, `Import`.
    /// Each has passed `session::check` against `workspace`: dispatch it as it is.
    #[prop_or_default]
    pub on_action: Callback<Action>,
}

/// Two trees are the same when they list the same paths: the tree reads nothing of a
/// file but its path (its rows, and the checks of a rename, an addition or an import
/// are all about paths), so typing in a file, which changes the workspace on every
/// keystroke but not its `files_revision`, does not rebuild a tree of hundreds of rows
/// (nor compare thousands of paths to find that out).
impl PartialEq for FileTreeProps {
    fn eq(&self, other: &Self) -> bool {
        let same_paths = Rc::ptr_eq(&self.workspace, &other.workspace)
            || self.files_revision == other.files_revision;
        same_paths
            && self.open == other.open
            && self.status == other.status
            && self.on_open == other.on_open
            && self.on_action == other.on_action
    }
}

/// The inline operation in progress.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Editing {
    /// A path input at the end of an area.
    Add(Area),
    /// A path input in place of a file's row.
    Rename(FileRef),
    /// “Delete it?” under a file's row.
    Delete(FileRef),
}

/// Where an import stands.
#[derive(Clone, Debug, PartialEq, Eq)]
enum ImportState {
    Idle,
    Reading(String),
    Ready(Rc<Loaded>),
    Done(String),
    Failed(String),
}

/// What to focus after the next render: a selector inside the tree and, for an input,
/// the range to select.
type Focus = Rc<RefCell<Option<(String, Option<(u32, u32)>)>>>;

/// The file tree.
#[component]
pub fn FileTree(props: &FileTreeProps) -> Html {
    let editing = use_state_eq(|| None::<Editing>);
    let draft = use_state_eq(String::new);
    let error = use_state_eq(|| None::<String>);
    let import = use_state_eq(|| ImportState::Idle);
    let dragging = use_state_eq(|| false);
    let root = use_node_ref();
    let focus: Focus = use_mut_ref(|| None);
    {
        let (root, focus) = (root.clone(), focus.clone());
        use_effect(move || {
            if let Some((selector, range)) = focus.borrow_mut().take() {
                focus_in(&root, &selector, range);
            }
        });
    }

    // The inline row (input, error, buttons) stays in view as it opens or says why not.
    {
        let root = root.clone();
        use_effect_with(((*editing).clone(), (*error).clone()), move |(editing, _)| {
            if editing.is_some() {
                reveal(&root, "li.editing, li.tree-confirm");
            }
        });
    }
    let path_ref = use_node_ref();
    let tree = Tree {
        props,
        h: Handles {
            workspace: props.workspace.clone(),
            on_action: props.on_action.clone(),
            editing,
            draft,
            error,
            focus: focus.clone(),
            input: path_ref,
        },
    };

    let read = {
        let (import, focus) = (import.clone(), focus.clone());
        Callback::from(move |files: Vec<File>| {
            if files.is_empty() {
                return;
            }
            import.set(ImportState::Reading(format!("Reading {}…", describe(&files))));
            let (import, focus) = (import.clone(), focus.clone());
            spawn_local(async move {
                match read_picked(files).await {
                    Ok(loaded) => {
                        *focus.borrow_mut() =
                            Some((".import-panel select, .import-panel input".to_owned(), None));
                        import.set(ImportState::Ready(Rc::new(loaded)));
                    }
                    Err(message) => import.set(ImportState::Failed(message)),
                }
            });
        })
    };
    let files_input = use_node_ref();
    let folder_input = use_node_ref();
    let pick = |input: &NodeRef| {
        let input = input.clone();
        Callback::from(move |_: MouseEvent| {
            if let Some(input) = input.cast::<HtmlInputElement>() {
                input.click();
            }
        })
    };
    let picked = {
        let read = read.clone();
        Callback::from(move |e: Event| {
            let input: HtmlInputElement = e.target_unchecked_into();
            let files = file_list(input.files());
            // Cleared, so that picking the same file again is a change too.
            input.set_value("");
            read.emit(files);
        })
    };
    let ondragover = {
        let dragging = dragging.clone();
        Callback::from(move |e: DragEvent| {
            if carries_files(&e) {
                e.prevent_default();
                dragging.set(true);
            }
        })
    };
    let ondragleave = {
        let (dragging, root) = (dragging.clone(), root.clone());
        Callback::from(move |e: DragEvent| {
            let inside = root.get().zip(e.related_target()).is_some_and(|(root, to)| {
                to.dyn_ref::<web_sys::Node>().is_some_and(|to| root.contains(Some(to)))
            });
            if !inside {
                dragging.set(false);
            }
        })
    };
    let ondrop = {
        let (dragging, read) = (dragging.clone(), read);
        Callback::from(move |e: DragEvent| {
            if !carries_files(&e) {
                return;
            }
            e.prevent_default();
            dragging.set(false);
            read.emit(file_list(e.data_transfer().and_then(|t| t.files())));
        })
    };
    let dismiss = {
        let import = import.clone();
        Callback::from(move |_: MouseEvent| import.set(ImportState::Idle))
    };
    let busy = matches!(*import, ImportState::Reading(_));
    // One live region, always there, so that screen readers hear each change in it.
    let (said, failed) = match &*import {
        ImportState::Reading(text) | ImportState::Done(text) => (text.clone(), None),
        ImportState::Failed(text) => (String::new(), Some(text.clone())),
        ImportState::Idle | ImportState::Ready(_) => (String::new(), None),
    };
    let dismissable = matches!(*import, ImportState::Done(_) | ImportState::Failed(_));
    let panel = match &*import {
        ImportState::Ready(loaded) => {
            let on_done = {
                let import = import.clone();
                Callback::from(move |text: String| import.set(ImportState::Done(text)))
            };
            let on_cancel = {
                let (import, focus) = (import.clone(), focus);
                Callback::from(move |()| {
                    *focus.borrow_mut() = Some(("[data-import-button]".to_owned(), None));
                    import.set(ImportState::Idle);
                })
            };
            html! {
                <ImportPanel key={Rc::as_ptr(loaded).addr()} loaded={loaded.clone()} workspace={props.workspace.clone()}
                             on_action={props.on_action.clone()} {on_done} {on_cancel} />
            }
        }
        _ => html! {},
    };

    html! {
        <nav class={classes!("file-tree", dragging.then_some("dropping"))} aria-label="Files" ref={root.clone()}
             {ondragover} {ondragleave} {ondrop}>
            <div class="tree-import">
                <div class="tree-import-buttons">
                    <button type="button" class="tree-tool" data-import-button="" disabled={busy}
                            aria-describedby="import-hint" onclick={pick(&files_input)}>{ "Import…" }</button>
                    <button type="button" class="tree-tool" disabled={busy}
                            aria-describedby="import-hint" onclick={pick(&folder_input)}>{ "Import folder…" }</button>
                </div>
                <input type="file" multiple=true hidden=true data-import="files" ref={files_input}
                       onchange={picked.clone()} />
                <input type="file" multiple=true webkitdirectory=true hidden=true data-import="folder"
                       ref={folder_input} onchange={picked} />
                <p class="tree-hint" id="import-hint">{ "A .zip, files or a folder — or drop them here." }</p>
                <div class="import-status">
                    <p role="status">{ said }</p>
                    if let Some(reason) = failed {
                        <p class="tree-error" role="alert">{ reason }</p>
                    }
                    if dismissable {
                        <button type="button" class="link-button" onclick={dismiss}>{ "Dismiss" }</button>
                    }
                </div>
                { panel }
            </div>
            { for Area::ALL.into_iter().map(|area| tree.area_section(area)) }
        </nav>
    }
}

/// The tree's props and state, for rendering its rows.
struct Tree<'a> {
    props: &'a FileTreeProps,
    h: Handles,
}

/// Rows per block of a long list.
const BLOCK_ROWS: usize = 64;

/// An area's rows as one list. A long one is cut into blocks that the browser skips
/// while they are out of view (`content-visibility: auto` on `li.block`): on a
/// 300-skill workspace every keystroke's frame painted and hit-tested thousands of
/// rows nobody could see. The blocks are presentational (`role="none"`), and each row
/// says it is a list item (a row under a presentational list would not be), so the
/// list is still one list of its rows to a screen reader; every row stays in the page
/// for find-in-page.
fn row_list(rows: Vec<Html>) -> Html {
    if rows.len() <= BLOCK_ROWS {
        return html! { <ul>{ for rows }</ul> };
    }
    let mut blocks = Vec::with_capacity(rows.len().div_ceil(BLOCK_ROWS));
    let mut rows = rows.into_iter().peekable();
    while rows.peek().is_some() {
        let block: Vec<Html> = rows.by_ref().take(BLOCK_ROWS).collect();
        blocks
            .push(html! { <li class="block" role="none"><ul role="none">{ for block }</ul></li> });
    }
    html! { <ul>{ for blocks }</ul> }
}

/// `[name="value"]`, with the value escaped for CSS.
fn attr(name: &str, value: &str) -> String {
    let escaped = value.replace('\\', "\\\\").replace('"', "\\\"");
    format!("[{name}=\"{escaped}\"]")
}

impl Tree<'_> {
    fn area_section(&self, area: Area) -> Html {
        let project = self.props.workspace.area(area);
        let mut rows = Vec::new();
        let mut open_dirs: Vec<&str> = Vec::new();
        for (path, _) in project.files() {
            let parts: Vec<&str> = path.split('/').collect();
            let dirs = &parts[..parts.len() - 1];
            let common = open_dirs.iter().zip(dirs).take_while(|(a, b)| a == b).count();
            open_dirs.truncate(common);
            for (depth, dir) in dirs.iter().enumerate().skip(common) {
                rows.push(html! {
                    <li class="dir" role="listitem" style={format!("--depth:{depth}")}>{ format!("{dir}/") }</li>
                });
                open_dirs.push(dir);
            }
            let file = FileRef::new(area, path);
            let depth = dirs.len();
            match &*self.h.editing {
                Some(Editing::Rename(renaming)) if *renaming == file => {
                    rows.push(self.path_input(depth, &format!("New path of {file}"), "Rename"));
                }
                Some(Editing::Delete(deleting)) if *deleting == file => {
                    rows.push(self.file_row(&file, depth, parts[parts.len() - 1]));
                    rows.push(self.confirm_delete(&file, depth));
                }
                _ => rows.push(self.file_row(&file, depth, parts[parts.len() - 1])),
            }
        }
        if project.is_empty() {
            rows.push(html! { <li class="empty muted" role="listitem">{ "No files" }</li> });
        }
        if *self.h.editing == Some(Editing::Add(area)) {
            rows.push(self.path_input(
                0,
                &format!("Path of the new file in {}", area.title()),
                "Add",
            ));
        }
        let start_add = self.start(Editing::Add(area), String::new(), "input.tree-input", None);
        html! {
            <section class={classes!("area", area.prefix())}>
                <div class="area-head">
                    <h3>{ area.title() }</h3>
                    <button type="button" class="tree-tool" data-add={area.prefix()}
                            aria-label={format!("Add file to {}", area.title())}
                            title="Add a file" onclick={start_add}>{ "+ Add file" }</button>
                </div>
                { row_list(rows) }
            </section>
        }
    }

    /// A callback that begins an inline operation and moves the focus into it.
    fn start(
        &self,
        what: Editing,
        text: String,
        selector: &str,
        range: Option<(u32, u32)>,
    ) -> Callback<MouseEvent> {
        let Handles { editing, draft, error, focus, .. } = self.h.clone();
        let selector = selector.to_owned();
        Callback::from(move |_: MouseEvent| {
            editing.set(Some(what.clone()));
            draft.set(text.clone());
            error.set(None);
            *focus.borrow_mut() = Some((selector.clone(), range));
        })
    }

    fn file_row(&self, file: &FileRef, depth: usize, name: &str) -> Html {
        let props = self.props;
        // `status` comes from `file_statuses`, in the workspace's order, which is the
        // files' order: a binary search, not a scan of the list per row.
        let status = props
            .status
            .binary_search_by(|(f, _)| f.cmp(file))
            .map(|at| props.status[at].1)
            .unwrap_or_default();
        let current = props.open.as_ref() == Some(file);
        let title = match status.swap {
            Some('M') => "changed by the swap",
            Some('A') => "added by the swap",
            Some('D') => "removed by the swap",
            _ => "",
        };
        let onclick = {
            let on_open = props.on_open.clone();
            let file = file.clone();
            Callback::from(move |_: MouseEvent| on_open.emit(file.clone()))
        };
        // Select the name without its extension, as file managers do.
        let name_at = file.path.len() - name.len();
        let stem = name.rfind('.').filter(|at| *at > 0).unwrap_or(name.len());
        let utf16 = |text: &str| text.encode_utf16().count() as u32;
        let range = (utf16(&file.path[..name_at]), utf16(&file.path[..name_at + stem]));
        let rename = self.start(
            Editing::Rename(file.clone()),
            file.path.clone(),
            "input.tree-input",
            Some(range),
        );
        let delete =
            self.start(Editing::Delete(file.clone()), String::new(), ".tree-confirm .keep", None);
        html! {
            <li class={classes!("file", current.then_some("current"))} role="listitem" style={format!("--depth:{depth}")}>
                <button
                    type="button"
                    class={classes!("open", current.then_some("current"))}
                    aria-current={current.then_some("true")}
                    data-file={file.to_string()}
                    {onclick}
                >
                    <span class="name">{ name.to_owned() }</span>
                    if status.edited {
                        <span class="badge edited" title="you edited this file">{ "●" }<span class="sr-only">{ " (edited)" }</span></span>
                    }
                    if let Some(code) = status.swap {
                        <span class={classes!("badge", "swap", code.to_string())} title={title}>{ code.to_string() }</span>
                    }
                </button>
                <span class="row-tools">
                    <button type="button" aria-label={format!("Rename {file}")} title="Rename" onclick={rename}>{ "✎" }</button>
                    <button type="button" aria-label={format!("Delete {file}")} title="Delete" onclick={delete}>{ "×" }</button>
                </span>
            </li>
        }
    }

    /// Where the focus goes back to when the operation is cancelled.
    fn origin(&self) -> String {
        match &*self.h.editing {
            Some(Editing::Add(area)) => attr("data-add", area.prefix()),
            Some(Editing::Rename(file) | Editing::Delete(file)) => {
                attr("data-file", &file.to_string())
            }
            None => "[data-import-button]".to_owned(),
        }
    }

    fn path_input(&self, depth: usize, label: &str, verb: &'static str) -> Html {
        let confirm = {
            let tree = self.h.clone();
            Callback::from(move |()| {
                let typed = tree.input.cast::<HtmlInputElement>().map(|input| input.value());
                let path = typed.unwrap_or_else(|| (*tree.draft).clone()).trim().to_owned();
                let action = match &*tree.editing {
                    Some(Editing::Add(area)) => Action::AddFile { file: FileRef::new(*area, path) },
                    Some(Editing::Rename(from)) if from.path == path => {
                        return tree.close(attr("data-file", &from.to_string())).emit(());
                    }
                    Some(Editing::Rename(from)) => {
                        Action::Rename { from: from.clone(), to: FileRef::new(from.area, path) }
                    }
                    _ => return,
                };
                let target = match &action {
                    Action::AddFile { file } | Action::Rename { to: file, .. } => {
                        attr("data-file", &file.to_string())
                    }
                    _ => String::new(),
                };
                tree.submit(action, target);
            })
        };
        let cancel = self.h.close(self.origin());
        let onkeydown = {
            let (confirm, cancel) = (confirm.clone(), cancel.clone());
            Callback::from(move |e: KeyboardEvent| match e.key().as_str() {
                // Not while an input method is composing: its Enter picks a candidate.
                "Enter" if !e.is_composing() => {
                    e.prevent_default();
                    confirm.emit(());
                }
                "Escape" => {
                    e.prevent_default();
                    cancel.emit(());
                }
                _ => {}
            })
        };
        let oninput = {
            let (draft, error) = (self.h.draft.clone(), self.h.error.clone());
            Callback::from(move |e: InputEvent| {
                let input: HtmlInputElement = e.target_unchecked_into();
                draft.set(input.value());
                error.set(None);
            })
        };
        let invalid = self.h.error.is_some();
        html! {
            <li class="editing" role="listitem" style={format!("--depth:{depth}")}>
                <input type="text" class="tree-input" aria-label={label.to_owned()}
                       placeholder="folder/file.yml" spellcheck="false" autocomplete="off"
                       value={(*self.h.draft).clone()} {oninput} {onkeydown} ref={self.h.input.clone()}
                       aria-invalid={invalid.then_some("true")}
                       aria-describedby={invalid.then_some("tree-edit-error")} />
                if let Some(reason) = &*self.h.error {
                    <p class="tree-error" id="tree-edit-error" role="alert">{ reason.clone() }</p>
                }
                <span class="tree-buttons">
                    <button type="button" class="primary" onclick={move |_| confirm.emit(())}>{ verb }</button>
                    <button type="button" onclick={move |_| cancel.emit(())}>{ "Cancel" }</button>
                </span>
            </li>
        }
    }

    fn confirm_delete(&self, file: &FileRef, depth: usize) -> Html {
        // The focus goes to the file that opens instead, else to the area's add button.
        let paths: Vec<&str> =
            self.props.workspace.area(file.area).files().map(|(p, _)| p).collect();
        let at = paths.iter().position(|p| *p == file.path).unwrap_or_default();
        let next = paths.get(at + 1).or_else(|| at.checked_sub(1).and_then(|i| paths.get(i)));
        let then_focus = match next {
            Some(path) => attr("data-file", &FileRef::new(file.area, *path).to_string()),
            None => attr("data-add", file.area.prefix()),
        };
        let delete = {
            let tree = self.h.clone();
            let file = file.clone();
            Callback::from(move |_: MouseEvent| {
                tree.submit(Action::Delete { file: file.clone() }, then_focus.clone());
            })
        };
        let cancel = self.h.close(self.origin());
        let onkeydown = {
            let cancel = cancel.clone();
            Callback::from(move |e: KeyboardEvent| {
                if e.key() == "Escape" {
                    e.prevent_default();
                    cancel.emit(());
                }
            })
        };
        html! {
            <li class="tree-confirm" style={format!("--depth:{depth}")} role="group"
                aria-label={format!("Delete {file}?")} {onkeydown}>
                <span>{ format!("Delete {}?", file.file_name()) }</span>
                if let Some(reason) = &*self.h.error {
                    <p class="tree-error" role="alert">{ reason.clone() }</p>
                }
                <span class="tree-buttons">
                    <button type="button" class="danger" onclick={delete}>{ "Delete" }</button>
                    <button type="button" class="keep" onclick={move |_| cancel.emit(())}>{ "Keep" }</button>
                </span>
            </li>
        }
    }
}

/// The tree's state, owned, for callbacks.
#[derive(Clone)]
struct Handles {
    workspace: Rc<Workspace>,
    on_action: Callback<Action>,
    editing: UseStateHandle<Option<Editing>>,
    draft: UseStateHandle<String>,
    error: UseStateHandle<Option<String>>,
    focus: Focus,
    /// The inline path input, read when the reader confirms.
    input: NodeRef,
}

impl Handles {
    fn close(&self, selector: String) -> Callback<()> {
        let (editing, error, focus) =
            (self.editing.clone(), self.error.clone(), self.focus.clone());
        Callback::from(move |()| {
            editing.set(None);
            error.set(None);
            *focus.borrow_mut() = Some((selector.clone(), None));
        })
    }

    fn submit(&self, action: Action, then_focus: String) {
        match check(&self.workspace, &action) {
            Ok(()) => {
                self.on_action.emit(action);
                self.close(then_focus).emit(());
            }
            Err(reason) => self.error.set(Some(reason)),
        }
    }
}

/// Each file's marks in the tree: edited since `pristine`, and what the swap does to it
/// (`changes` are `workspace`'s).
pub fn file_statuses(
    workspace: &Workspace,
    changes: &[FileChange],
    pristine: &Workspace,
) -> Vec<(FileRef, FileStatus)> {
    // Both sorted by file, so each file is a binary search: searching the lists from
    // the start cost a 300-skill workspace a million comparisons per keystroke.
    let edited = workspace.edited_files(pristine);
    let marks = swap_marks(changes);
    workspace
        .files()
        .map(|(file, _)| {
            let status = FileStatus {
                edited: edited.binary_search(&file).is_ok(),
                swap: marks
                    .binary_search_by(|(f, _)| f.cmp(&file))
                    .ok()
                    .map(|at| marks[at].1.code()),
            };
            (file, status)
        })
        .collect()
}
