//! The diff pane: which files the swap changes, and the open file before and after.

use std::rc::Rc;

use swaplab_core::diff::{ChangeStatus, DEFAULT_CONTEXT, FileChange, diff_text};
use swaplab_core::{Area, FileRef, Workspace};
use yew::prelude::*;

use swaplab_core::semantic::SemanticChange;
use swaplab_core::words::count;

use super::Goto;
use crate::components::DiffView;

/// Props for [`DiffPane`].
#[derive(Properties, PartialEq)]
pub struct DiffPaneProps {
    /// The files.
    pub workspace: Rc<Workspace>,
    /// How the two projects differ, path by path.
    pub changes: Rc<Vec<FileChange>>,
    /// The file open in the editor.
    pub open: Option<FileRef>,
    /// Called when the reader picks a changed file.
    pub on_open: Callback<FileRef>,
    /// What the swap changes in Rasa's terms.
    pub semantic: Rc<Vec<SemanticChange>>,
    /// Opens a file at a line.
    pub on_goto: Callback<Goto>,
}

/// The diff pane.
#[component]
pub fn DiffPane(props: &DiffPaneProps) -> Html {
    let changes: Vec<&FileChange> =
        props.changes.iter().filter(|c| c.status != ChangeStatus::Unchanged).collect();
    let two_columns = use_state(|| false);
    let file_diff = use_memo((props.workspace.clone(), props.open.clone()), |(ws, open)| {
        let open = open.as_ref().filter(|f| matches!(f.area, Area::Before | Area::After))?;
        let old = ws.before.file(&open.path);
        let new = ws.after.file(&open.path);
        Some((
            open.path.clone(),
            old.is_some(),
            new.is_some(),
            Rc::new(diff_text(old.unwrap_or(""), new.unwrap_or(""), DEFAULT_CONTEXT)),
        ))
    });

    html! {
        <section class="result diff-pane" aria-labelledby="diff-heading">
            <h2 id="diff-heading">{ "What the swap changes" }</h2>
            if !props.semantic.is_empty() {
                <ul class="semantic">
                    { for props.semantic.iter().map(|change| {
                        let place = change.after.as_ref().or(change.before.as_ref()).map(|p| {
                            let target = Goto { file: p.file.clone(), line: Some(p.span.start.line) };
                            let on_goto = props.on_goto.clone();
                            let label = format!("{}:{}", p.file, p.span.start.line);
                            html! { <button type="button" class="link-button place" onclick={move |_: MouseEvent| on_goto.emit(target.clone())}>{ label }</button> }
                        });
                        html! { <li><span class="semantic-text">{ crate::components::inline_code(&change.text) }</span>{ for place }</li> }
                    }) }
                </ul>
            }
            if changes.is_empty() {
                <p class="muted">{ "The two projects are identical." }</p>
            } else {
                <ul class="changes">
                    { for changes.iter().map(|change| change_row(change, &props.on_open)) }
                </ul>
            }
            { match (*file_diff).clone() {
                Some((path, in_before, in_after, diff)) => {
                    let title = match (in_before, in_after) {
                        (true, true) => format!("before/{path} → after/{path}"),
                        (true, false) => format!("before/{path}, removed by the swap"),
                        (false, true) => format!("after/{path}, added by the swap"),
                        (false, false) => path.clone(),
                    };
                    html! {
                        <div class="file-diff">
                            <h3>{ title }</h3>
                            if diff.is_empty() {
                                <p class="muted">{ "This file is the same before and after the swap." }</p>
                            } else {
                                <p class="meta">
                                    { format!("{} added, {} removed ", count(diff.added, "line", "lines"), diff.removed) }
                                    <label class="view-toggle">
                                        <input type="checkbox" checked={*two_columns}
                                               onchange={let t = two_columns.clone(); move |_| t.set(!*t)} />
                                        { " side by side" }
                                    </label>
                                </p>
                                <DiffView diff={diff} side_by_side={*two_columns} />
                            }
                        </div>
                    }
                }
                None => html! {
                    <p class="muted">{ "The MCP server and the CRM seed have no before and after: \
                                        open a project file to see its diff." }</p>
                },
            } }
        </section>
    }
}

fn change_row(change: &FileChange, on_open: &Callback<FileRef>) -> Html {
    let area = if change.status == ChangeStatus::Removed { Area::Before } else { Area::After };
    let file = FileRef::new(area, change.path.clone());
    let verb = match change.status {
        ChangeStatus::Added => "added",
        ChangeStatus::Removed => "removed",
        ChangeStatus::Modified => "changed",
        ChangeStatus::Unchanged => "unchanged",
    };
    let onclick = {
        let on_open = on_open.clone();
        Callback::from(move |_: MouseEvent| on_open.emit(file.clone()))
    };
    html! {
        <li>
            <button type="button" class="link-button" {onclick}>
                <span class={classes!("badge", "swap", change.status.code().to_string())}>
                    { change.status.code().to_string() }
                </span>
                { format!(" {} ", change.path) }
                <span class="muted">{ format!("{verb}, +{} −{}", change.added, change.removed) }</span>
            </button>
        </li>
    }
}
