//! A unified diff with line numbers and the changed words marked.

use std::rc::Rc;

use swaplab_core::diff::{DiffLine, FileDiff, LineKind};
use yew::prelude::*;

/// Props for [`DiffView`].
#[derive(Properties, PartialEq)]
pub struct DiffViewProps {
    /// The diff.
    pub diff: Rc<FileDiff>,
}

/// The diff as a table: old line, new line, marker, text.
#[component]
pub fn DiffView(props: &DiffViewProps) -> Html {
    html! {
        <table class="diff">
            { for props.diff.hunks.iter().map(|hunk| html! {
                <tbody>
                    <tr class="hunk"><td colspan="4">{ hunk.header() }</td></tr>
                    { for hunk.lines.iter().map(line) }
                </tbody>
            }) }
        </table>
    }
}

fn line(line: &DiffLine) -> Html {
    let class = match line.kind {
        LineKind::Context => "context",
        LineKind::Removed => "removed",
        LineKind::Added => "added",
    };
    let number = |n: Option<usize>| n.map(|n| n.to_string()).unwrap_or_default();
    html! {
        <tr class={class}>
            <td class="ln">{ number(line.old_line) }</td>
            <td class="ln">{ number(line.new_line) }</td>
            <td class="marker" aria-hidden="true">{ line.kind.marker().to_string() }</td>
            <td class="text">
                { for line.segments.iter().map(|s| if s.emphasized {
                    html! { <mark>{ s.text.clone() }</mark> }
                } else {
                    html! { { s.text.clone() } }
                }) }
                if line.missing_newline {
                    <span class="no-newline" title="no newline at end of file">{ " ⏎̸" }</span>
                }
            </td>
        </tr>
    }
}
