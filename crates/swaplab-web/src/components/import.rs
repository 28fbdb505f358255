//! Importing a project into the workspace: reading the files the reader picked or
//! dropped (a `.zip`, loose files or a folder) through `Blob.arrayBuffer()`, and the
//! inline panel that says what was found and where it goes before anything changes.
//!
//! Everything after the bytes is the core's: `swaplab_core::archive` reads and splits,
//! `swaplab_core::session::Action::Import` loads, checked first on a scratch session so
//! that an import happens whole or not at all.

use std::rc::Rc;

use swaplab_core::archive::{
    ArchiveError, MAX_ARCHIVE_BYTES, MAX_TOTAL_BYTES, Picked, Skipped, Split, is_ignored,
    looks_like_zip, read_files, read_zip, split_project,
};
use swaplab_core::rasa::project::{MAX_FILE_BYTES, MAX_PROJECT_FILES};
use swaplab_core::session::{Action, check_all};
use swaplab_core::words::count;
use swaplab_core::{Area, Workspace};
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{File, HtmlSelectElement};
use yew::prelude::*;

/// What an import found, waiting for the reader to confirm where it goes.
#[derive(Debug, PartialEq, Eq)]
pub struct Loaded {
    /// Where it came from, for the messages: a file name, a folder, “3 files”.
    source: String,
    /// The files and the areas they go to.
    split: Split,
    /// Files that were not imported, and why.
    skipped: Vec<Skipped>,
    /// Hidden and cache files left out.
    ignored: usize,
    /// Loose files (not a zip or a folder): merged by default, not replacing an area.
    loose: bool,
}

/// Reads what the reader picked or dropped. `Err` is the message to show.
pub async fn read_picked(files: Vec<File>) -> Result<Loaded, String> {
    let source = describe(&files);
    let zip_named = |file: &File| {
        file.name().to_lowercase().ends_with(".zip") || file.type_() == "application/zip"
    };
    let (archive, loose) = match files.as_slice() {
        [file] if zip_named(file) => {
            if file.size() > MAX_ARCHIVE_BYTES as f64 {
                let bytes = file.size() as usize;
                return Err(ArchiveError::TooLarge { bytes }.to_string());
            }
            (read_zip(&read_bytes(file).await?), false)
        }
        _ => {
            let folder = files.iter().any(|file| relative_path(file).is_some());
            let entries: Vec<(String, &File)> = files
                .iter()
                .map(|file| (relative_path(file).unwrap_or_else(|| file.name()), file))
                .collect();
            // Count first, so that a folder over the cap is refused before it is read.
            let counted = entries.iter().filter(|(path, _)| !is_ignored(path)).count();
            let mut total = 0.0;
            let mut picked = Vec::with_capacity(entries.len());
            for (path, file) in entries {
                let size = file.size();
                let read = !is_ignored(&path)
                    && counted <= MAX_PROJECT_FILES
                    && size <= MAX_FILE_BYTES as f64
                    && total + size <= MAX_TOTAL_BYTES as f64;
                let content = if read {
                    total += size;
                    Picked::Bytes(read_bytes(file).await?)
                } else {
                    Picked::Unread { bytes: size as u64 }
                };
                picked.push((path, content));
            }
            match picked.as_slice() {
                // One file that is a zip under another name.
                [(_, Picked::Bytes(bytes))] if looks_like_zip(bytes) => (read_zip(bytes), false),
                _ => (read_files(picked), !folder),
            }
        }
    };
    let archive = archive.map_err(|error| format!("{source} was not imported. {error}"))?;
    if archive.files.is_empty() {
        let mut message = format!("Nothing to import from {source}: it holds no text files.");
        if let Some(skips) = skipped_summary(&archive.skipped, archive.ignored) {
            message.push(' ');
            message.push_str(&skips);
        }
        return Err(message);
    }
    Ok(Loaded {
        source,
        split: split_project(archive.files),
        skipped: archive.skipped,
        ignored: archive.ignored,
        loose,
    })
}

/// A file's path inside the folder the reader picked, when it came from a folder.
fn relative_path(file: &File) -> Option<String> {
    js_sys::Reflect::get(file, &"webkitRelativePath".into())
        .ok()
        .and_then(|value| value.as_string())
        .filter(|path| !path.is_empty())
}

/// What the reader picked, in a few words: a file name, a folder, “3 files”.
pub fn describe(files: &[File]) -> String {
    match files {
        [file] => file.name(),
        [first, ..] => match relative_path(first).as_deref().and_then(|p| p.split_once('/')) {
            Some((folder, _)) => format!("the folder {folder}"),
            None => count(files.len(), "file", "files"),
        },
        [] => "nothing".to_owned(),
    }
}

async fn read_bytes(file: &File) -> Result<Vec<u8>, String> {
    let buffer = JsFuture::from(file.array_buffer())
        .await
        .map_err(|_| format!("{} could not be read.", file.name()))?;
    Ok(js_sys::Uint8Array::new(&buffer).to_vec())
}

/// “Skipped 2: logo.png (not UTF-8 text), …. 3 hidden or cache files left out.”
fn skipped_summary(skipped: &[Skipped], ignored: usize) -> Option<String> {
    const SHOWN: usize = 4;
    let mut parts = Vec::new();
    if !skipped.is_empty() {
        let listed: Vec<String> = skipped
            .iter()
            .take(SHOWN)
            .map(|skip| format!("{} ({})", skip.path, skip.reason))
            .collect();
        let more = match skipped.len().saturating_sub(SHOWN) {
            0 => String::new(),
            n => format!(" and {n} more"),
        };
        parts.push(format!("Skipped {}: {}{more}.", skipped.len(), listed.join(", ")));
    }
    if ignored > 0 {
        parts.push(format!(
            "{} left out.",
            count(ignored, "hidden or cache file", "hidden or cache files")
        ));
    }
    (!parts.is_empty()).then(|| parts.join(" "))
}

fn files_count(n: usize) -> String {
    count(n, "file", "files")
}

impl Loaded {
    /// What the reader is told once the import is done.
    fn done_message(&self, area: Area, replace: bool) -> String {
        let how = if replace { "replacing" } else { "added to" };
        let mut message = match &self.split {
            Split::Project(files) => format!(
                "Imported {} from {} into {}, {how} its files.",
                files_count(files.len()),
                self.source,
                area.title()
            ),
            Split::Areas { areas, .. } | Split::Tutorial { areas, .. } => {
                let each: Vec<String> = areas
                    .iter()
                    .map(|(area, files)| format!("{} {}", area.title(), files_count(files.len())))
                    .collect();
                format!("Imported {}: {}, {how} their files.", self.source, each.join(", "))
            }
        };
        for note in self.notes() {
            message.push(' ');
            message.push_str(&note);
        }
        message
    }

    /// What was left out, and what the layout rule set aside.
    fn notes(&self) -> Vec<String> {
        let mut notes = Vec::new();
        if let Split::Areas { outside, .. } = &self.split
            && !outside.is_empty()
        {
            notes.push(format!(
                "Left out {} outside before/, after/, server/ and crm/: {}.",
                files_count(outside.len()),
                outside.join(", ")
            ));
        }
        if let Split::Tutorial { set_aside, .. } = &self.split
            && !set_aside.is_empty()
        {
            notes.push(format!(
                "The swap set aside from after (their tools moved to MCP): {}.",
                set_aside.join(", ")
            ));
        }
        notes.extend(skipped_summary(&self.skipped, self.ignored));
        notes
    }
}

/// Props for [`ImportPanel`].
#[derive(Properties, PartialEq)]
pub struct ImportPanelProps {
    /// What was read.
    pub loaded: Rc<Loaded>,
    /// The files now, to check the import against.
    pub workspace: Rc<Workspace>,
    /// Receives the imports once the reader confirms and they all pass.
    pub on_action: Callback<Action>,
    /// Called after the import with the message to show.
    pub on_done: Callback<String>,
    /// Called when the reader cancels.
    pub on_cancel: Callback<()>,
}

/// What an import found, where it will go, and the buttons to do it or not.
#[component]
pub fn ImportPanel(props: &ImportPanelProps) -> Html {
    let loaded = &props.loaded;
    let area = use_state_eq(|| Area::Before);
    let replace = use_state_eq(|| !loaded.loose);
    let error = use_state_eq(|| None::<String>);

    let confirm = {
        let (loaded, workspace) = (loaded.clone(), props.workspace.clone());
        let (on_action, on_done) = (props.on_action.clone(), props.on_done.clone());
        let (area, replace, error) = (area.clone(), replace.clone(), error.clone());
        Callback::from(move |_: MouseEvent| {
            let actions = loaded.split.imports(*area, *replace);
            // All or nothing: an import into several areas must pass as a whole.
            if let Err(reason) = check_all(&workspace, &actions) {
                error.set(Some(reason));
                return;
            }
            for action in actions {
                on_action.emit(action);
            }
            // The workspace is no longer the example: the header names the import.
            on_action.emit(Action::Imported { source: loaded.source.clone() });
            on_done.emit(loaded.done_message(*area, *replace));
        })
    };
    let cancel = {
        let on_cancel = props.on_cancel.clone();
        Callback::from(move |_: MouseEvent| on_cancel.emit(()))
    };
    let onkeydown = {
        let on_cancel = props.on_cancel.clone();
        Callback::from(move |e: KeyboardEvent| {
            if e.key() == "Escape" {
                e.prevent_default();
                on_cancel.emit(());
            }
        })
    };
    let (what, plural) = match &loaded.split {
        Split::Project(files) => (format!("{}, one project.", files_count(files.len())), false),
        Split::Areas { .. } => ("files for each area it names:".to_owned(), true),
        Split::Tutorial { .. } => ("a tutorial-layout project (mcp_variant/):".to_owned(), true),
    };
    let target = match &loaded.split {
        Split::Project(_) => {
            let onchange = {
                let area = area.clone();
                Callback::from(move |e: Event| {
                    let select: HtmlSelectElement = e.target_unchecked_into();
                    if let Some(chosen) = Area::from_prefix(&select.value()) {
                        area.set(chosen);
                    }
                })
            };
            html! {
                <label class="import-into">
                    { "Into " }
                    <select {onchange}>
                        { for Area::ALL.into_iter().map(|a| html! {
                            <option value={a.prefix()} selected={a == *area}>{ a.title() }</option>
                        }) }
                    </select>
                </label>
            }
        }
        Split::Areas { areas, .. } | Split::Tutorial { areas, .. } => html! {
            <ul class="import-areas">
                { for areas.iter().map(|(a, files)| html! {
                    <li>{ format!("{}: {}", a.title(), files_count(files.len())) }</li>
                }) }
            </ul>
        },
    };
    let mode = |value: bool, label: String| {
        let replace = replace.clone();
        html! {
            <label>
                <input type="radio" name="import-mode" checked={*replace == value}
                       onchange={Callback::from(move |_: Event| replace.set(value))} />
                { label }
            </label>
        }
    };
    let (its, area_word) = if plural { ("their", "those areas'") } else { ("its", "the area's") };
    html! {
        <section class="import-panel" aria-label="Import" {onkeydown}>
            <p class="import-what"><strong>{ loaded.source.clone() }</strong>{ format!(": {what}") }</p>
            { target }
            <fieldset class="import-mode">
                <legend class="sr-only">{ "Replace or add" }</legend>
                { mode(true, format!("Replace {area_word} files")) } // not a count
                { mode(false, format!("Add to {its} files")) } // not a count
            </fieldset>
            { for loaded.notes().into_iter().map(|note| html! { <p class="import-note">{ note }</p> }) }
            if let Some(reason) = &*error {
                <p class="tree-error" role="alert">{ reason.clone() }</p>
            }
            <div class="tree-buttons">
                <button type="button" class="primary" onclick={confirm}>{ "Import" }</button>
                <button type="button" onclick={cancel}>{ "Cancel" }</button>
            </div>
        </section>
    }
}

/// The files of a `FileList`.
pub fn file_list(list: Option<web_sys::FileList>) -> Vec<File> {
    let Some(list) = list else { return Vec::new() };
    (0..list.length()).filter_map(|i| list.get(i)).collect()
}

/// True when a drag carries files (not text dragged out of the editor).
pub fn carries_files(event: &DragEvent) -> bool {
    event.data_transfer().is_some_and(|transfer| {
        transfer.types().iter().any(|kind| kind.as_string().as_deref() == Some("Files"))
    })
}

/// Focuses the first element matching `selector` inside `root`, selecting `range` (in
/// UTF-16 units) when it is an input.
pub fn focus_in(root: &NodeRef, selector: &str, range: Option<(u32, u32)>) {
    let Some(root) = root.cast::<web_sys::Element>() else { return };
    let Some(element) = root.query_selector(selector).ok().flatten() else { return };
    if let Some(element) = element.dyn_ref::<web_sys::HtmlElement>() {
        let _ = element.focus();
    }
    if let (Some(input), Some((start, end))) =
        (element.dyn_ref::<web_sys::HtmlInputElement>(), range)
    {
        let _ = input.set_selection_range(start, end);
    }
}

/// Scrolls the first element matching `selector` inside `root` into view, as little as
/// needed.
pub fn reveal(root: &NodeRef, selector: &str) {
    let Some(root) = root.cast::<web_sys::Element>() else { return };
    if let Some(element) = root.query_selector(selector).ok().flatten() {
        let options = web_sys::ScrollIntoViewOptions::new();
        options.set_block(web_sys::ScrollLogicalPosition::Nearest);
        element.scroll_into_view_with_scroll_into_view_options(&options);
    }
}
