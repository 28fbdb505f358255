//! The playground's middle pane: the open file's path, whether the reader edited it
//! (with a way back to the example's text), and the editor with the latest analysis's
//! diagnostics for that file.

use std::rc::Rc;

use swaplab_core::{FileRef, Workspace};
use yew::prelude::*;

use crate::components::{Editor, EditorDiagnostic};
use crate::panes::SharedAnalysis;

/// Props for [`EditorPane`].
#[derive(Properties, PartialEq)]
pub(super) struct EditorPaneProps {
    /// The open file and its text; `None` when the workspace has no files.
    pub open: Option<(FileRef, AttrValue)>,
    /// The example as shipped, for "edited" and "Revert this file".
    pub pristine: Rc<Workspace>,
    /// The latest analysis, for the file's diagnostics.
    pub analysis: SharedAnalysis,
    /// A line to put the caret on, and a nonce so the same line can be asked again.
    pub focus_line: Option<(u32, u64)>,
    /// The reader changed a file's text.
    pub on_edit: Callback<(FileRef, String)>,
}

/// The editor and its bar.
#[component]
pub(super) fn EditorPane(props: &EditorPaneProps) -> Html {
    let Some((file, text)) = props.open.clone() else {
        return html! {
            <section class="pane editor-pane"><p class="muted">{ "This workspace has no files." }</p></section>
        };
    };
    let on_change = {
        let (on_edit, file) = (props.on_edit.clone(), file.clone());
        Callback::from(move |text: String| on_edit.emit((file.clone(), text)))
    };
    let diagnostics: Vec<EditorDiagnostic> =
        props.analysis.diagnostics_for(&file).into_iter().map(EditorDiagnostic::from).collect();
    let pristine_text = props.pristine.file(&file).map(str::to_owned);
    let edited = pristine_text.as_deref() != Some(&*text);
    let revert = pristine_text.filter(|_| edited).map(|original| {
        let (on_edit, file) = (props.on_edit.clone(), file.clone());
        Callback::from(move |_: MouseEvent| on_edit.emit((file.clone(), original.clone())))
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
            <Editor {text} label={format!("Contents of {file}")} {on_change} focus_line={props.focus_line}
                    path={file.to_string()} {diagnostics} />
        </section>
    }
}
