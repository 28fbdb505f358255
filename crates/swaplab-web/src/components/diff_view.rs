//! A diff with line numbers and the changed words marked: unified, or side by side.

use std::rc::Rc;

use swaplab_core::diff::{Cell, DiffLine, FileDiff, LineKind, Row, RowKind, side_by_side};
use yew::prelude::*;

/// Props for [`DiffView`].
#[derive(Properties, PartialEq)]
pub struct DiffViewProps {
    /// The diff.
    pub diff: Rc<FileDiff>,
    /// Old and new in two columns instead of one.
    #[prop_or_default]
    pub side_by_side: bool,
}

/// The diff as a table: old line, new line, marker, text.
#[component]
pub fn DiffView(props: &DiffViewProps) -> Html {
    if props.side_by_side {
        return html! {
            <table class="diff side-by-side">
                { for side_by_side(&props.diff).iter().map(|hunk| html! {
                    <tbody>
                        <tr class="hunk"><td colspan="4">{ hunk.header.clone() }</td></tr>
                        { for hunk.rows.iter().map(row) }
                    </tbody>
                }) }
            </table>
        };
    }
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

fn cell(cell: Option<&Cell>, class: &'static str) -> Html {
    let Some(cell) = cell else {
        return html! { <><td class="ln"></td><td class="text empty"></td></> };
    };
    let mut parts = Vec::new();
    let mut at = 0;
    for emphasis in &cell.emphasis {
        let (start, end) = (emphasis.start.min(cell.text.len()), emphasis.end.min(cell.text.len()));
        if start < at || !cell.text.is_char_boundary(start) || !cell.text.is_char_boundary(end) {
            continue;
        }
        parts.push(html! { { cell.text[at..start].to_owned() } });
        parts.push(html! { <mark>{ cell.text[start..end].to_owned() }</mark> });
        at = end;
    }
    parts.push(html! { { cell.text[at..].to_owned() } });
    html! {
        <>
            <td class="ln">{ cell.line.to_string() }</td>
            <td class={classes!("text", class)}>{ for parts }</td>
        </>
    }
}

fn row(row: &Row) -> Html {
    let (old, new) = match row.kind {
        RowKind::Context => ("", ""),
        _ => ("removed", "added"),
    };
    html! { <tr>{ cell(row.old.as_ref(), old) }{ cell(row.new.as_ref(), new) }</tr> }
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
