//! The playground's editor: a textarea over a highlighted copy of its text.
//!
//! The textarea stays the input (assistive technology, IME, undo, selection), with its
//! text transparent and its caret visible. Behind it, a `<pre aria-hidden="true">` with
//! the same font metrics shows the same text coloured by `swaplab_core::highlight`, with a
//! wavy underline under each diagnostic, and follows its scrolling, as the line-number
//! gutter does. Only the lines around the visible ones are drawn (the copy is padded to
//! the height of those above, and as wide as the widest line could be), so a 1 MiB file
//! costs the browser no second layout of all its text on every keystroke.
//!
//! Keys: Tab indents (two spaces, or every selected line), Shift-Tab outdents, Enter keeps
//! the line's indentation, through `document.execCommand("insertText")` where the browser
//! has it so that undo keeps working. Escape then Tab leaves the editor, so it is no
//! keyboard trap; a line under the editor says so. The file's diagnostics are listed
//! there too, as buttons that put the caret on the spot.

use std::fmt::Write as _;

use swaplab_core::diagnostic::{Diagnostic, Severity};
use swaplab_core::highlight::{Language, Token, highlight};
use wasm_bindgen::{JsCast, JsValue};
use web_sys::HtmlTextAreaElement;
use yew::prelude::*;
use yew::virtual_dom::VText;

/// One finding to show in the editor, placed as `swaplab_core::diagnostic::Span` places
/// it: 1-based lines and columns counted in characters, the end exclusive (a zero-width
/// range marks the character at its start, or the end of its line).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EditorDiagnostic {
    /// First line, from 1.
    pub line: u32,
    /// First column, from 1.
    pub column: u32,
    /// Line of the end.
    pub end_line: u32,
    /// Column one past the last character.
    pub end_column: u32,
    /// Error (red), warning (amber) or info.
    pub severity: Severity,
    /// What the reader is told, on hover and in the list.
    pub message: String,
}

impl From<&Diagnostic> for EditorDiagnostic {
    fn from(diagnostic: &Diagnostic) -> EditorDiagnostic {
        let span = diagnostic.span;
        EditorDiagnostic {
            line: span.start.line,
            column: span.start.column,
            end_line: span.end.line,
            end_column: span.end.column,
            severity: diagnostic.severity,
            message: diagnostic.message.clone(),
        }
    }
}

/// Props for [`Editor`].
#[derive(Properties, PartialEq)]
pub struct EditorProps {
    /// The text shown.
    pub text: AttrValue,
    /// A name for assistive technology, e.g. the file's path.
    pub label: AttrValue,
    /// Called with the whole new text on every input.
    pub on_change: Callback<String>,
    /// A line to show and select, with a counter that changes on every request (so the
    /// same line can be asked for twice).
    #[prop_or_default]
    pub focus_line: Option<(u32, u64)>,
    /// The file's path: picks the highlighting (`.yml`, `.md`, `.py`) and names the file in
    /// the list of diagnostics. Without it, both come from the end of `label`.
    #[prop_or_default]
    pub path: AttrValue,
    /// The open file's diagnostics, underlined in the text and listed under it.
    #[prop_or_default]
    pub diagnostics: Vec<EditorDiagnostic>,
    /// Called with the 1-based line the caret is on whenever it may have moved.
    #[prop_or_default]
    pub on_cursor: Option<Callback<u32>>,
}

/// Lines of spans kept before the first visible line, and after it.
const BEFORE: usize = 200;
const AFTER: usize = 300;
/// Scrolling re-renders only when the first visible line crosses a multiple of this.
const STEP: usize = 100;
/// The `id` of the line that tells how to use Tab, which the textarea points to.
const KEYS_HINT_ID: &str = "editor-keys";

/// The editor.
#[component]
pub fn Editor(props: &EditorProps) -> Html {
    let gutter = use_node_ref();
    let view = use_node_ref();
    let area_ref = use_node_ref();
    let escaped = use_mut_ref(|| false);
    let top = use_state_eq(|| 0usize);
    let named = if props.path.is_empty() {
        props.label.strip_prefix("Contents of ").unwrap_or(&props.label)
    } else {
        &props.path
    };
    let language = Language::for_path(named);
    let text = props.text.clone();
    let tokens = use_memo((language, text.clone()), |(language, text)| highlight(*language, text));
    let layout = use_memo(text.clone(), |text| Layout::new(text));
    let starts = &layout.starts;
    let lines = starts.len();
    let marks = marks(&text, starts, &props.diagnostics);

    {
        let area_ref = area_ref.clone();
        let text = text.clone();
        use_effect_with(props.focus_line, move |focus| {
            if let (Some((line, _)), Some(area)) = (focus, area_ref.cast::<HtmlTextAreaElement>()) {
                let (start, end) = utf16_range(&text, *line, 1, None);
                let _ = area.focus();
                let _ = area.set_selection_range(start, end);
                reveal(&area, *line, &text);
            }
        });
    }
    {
        let (area_ref, view, gutter) = (area_ref.clone(), view.clone(), gutter.clone());
        use_effect(move || {
            sync_scroll(&area_ref, &view, &gutter);
        });
    }

    let oninput = {
        let on_change = props.on_change.clone();
        Callback::from(move |e: InputEvent| {
            let area: HtmlTextAreaElement = e.target_unchecked_into();
            on_change.emit(area.value());
        })
    };
    let onscroll = {
        let (area_ref, view, gutter, top) =
            (area_ref.clone(), view.clone(), gutter.clone(), top.clone());
        Callback::from(move |_: Event| {
            if let Some(area) = sync_scroll(&area_ref, &view, &gutter) {
                let per_line = (f64::from(area.scroll_height()) / lines as f64).max(1.0);
                let line = (f64::from(area.scroll_top()) / per_line) as usize;
                top.set(line / STEP * STEP);
            }
        })
    };
    let onkeydown = {
        let escaped = escaped.clone();
        Callback::from(move |e: KeyboardEvent| on_key(&e, &escaped))
    };
    let onblur = Callback::from(move |_: FocusEvent| *escaped.borrow_mut() = false);
    let report_cursor = props.on_cursor.clone().map(|on_cursor| {
        Callback::from(move |e: Event| {
            let area: HtmlTextAreaElement = e.target_unchecked_into();
            if let Ok(Some(at)) = area.selection_start() {
                on_cursor.emit(line_at(&area.value(), at));
            }
        })
    });
    let onkeyup = report_cursor.clone().map(|c| c.reform(|e: KeyboardEvent| e.into()));
    let onclick = report_cursor.clone().map(|c| c.reform(|e: MouseEvent| e.into()));
    let onselect = report_cursor;
    let onmousemove = {
        let any = !props.diagnostics.is_empty();
        Callback::from(move |e: MouseEvent| hover_message(&e, any))
    };

    let first = top.saturating_sub(BEFORE).min(lines - 1);
    let window = (starts[first], starts.get(*top + AFTER).copied().unwrap_or(text.len()));
    let overlay = overlay(&text, &tokens, &marks, window);
    // Each char is at most four `ch` wide (a tab), and has at least one byte.
    let extent = format!("--skip:{first};--width:{}", layout.widest.saturating_mul(4));
    let numbers = gutter_numbers(lines, &props.diagnostics);
    let problems = props.diagnostics.iter().map(|d| {
        let onclick = {
            let area_ref = area_ref.clone();
            let (line, column) = (d.line, d.column);
            Callback::from(move |_: MouseEvent| {
                if let Some(area) = area_ref.cast::<HtmlTextAreaElement>() {
                    // The textarea's own value, which is what the reader typed.
                    let value = area.value();
                    let (at, _) = utf16_range(&value, line, column, Some(column));
                    let _ = area.focus();
                    let _ = area.set_selection_range(at, at);
                    reveal(&area, line, &value);
                }
            })
        };
        let word = d.severity.word();
        html! {
            <li class={word}>
                <span class="severity">{ word }</span>
                <button type="button" class="link-button" {onclick}>
                    { format!("{named}:{}:{}: {}", d.line, d.column, d.message) }
                </button>
            </li>
        }
    });
    let problems: Vec<Html> = problems.collect();
    html! {
        <>
            <div class="editor">
                <pre class="gutter" ref={gutter} aria-hidden="true">{ numbers }</pre>
                <div class="code-stack">
                    <pre class="code-view" ref={view} aria-hidden="true" style={extent}>
                        <span class="lines" data-first={(first + 1).to_string()}>{ overlay }</span>
                    </pre>
                    <textarea
                        ref={area_ref}
                        class="code"
                        aria-label={props.label.clone()}
                        aria-describedby={KEYS_HINT_ID}
                        spellcheck="false"
                        autocapitalize="off"
                        autocomplete="off"
                        wrap="off"
                        // Prerendered (`prerender.rs`), typing would be lost when the app
                        // takes the page over: the text can be read and selected until then.
                        readonly={!cfg!(target_arch = "wasm32")}
                        value={text.clone()}
                        {oninput}
                        {onscroll}
                        {onkeydown}
                        {onblur}
                        {onmousemove}
                        {onkeyup}
                        {onclick}
                        {onselect}
                    />
                </div>
            </div>
            if !props.diagnostics.is_empty() {
                <ul class="editor-problems" aria-label="Problems in this file">{ for problems }</ul>
            }
            <p class="editor-keys" id={KEYS_HINT_ID}>
                { "Tab indents, Shift+Tab outdents. To leave the editor, press Esc, then Tab." }
            </p>
        </>
    }
}

/// The 1-based line of a UTF-16 offset into `text` (a textarea's selection).
fn line_at(text: &str, utf16_offset: u32) -> u32 {
    let mut seen = 0u32;
    let mut line = 1u32;
    for c in text.chars() {
        if seen >= utf16_offset {
            break;
        }
        seen += u32::try_from(c.len_utf16()).unwrap_or(1);
        if c == '\n' {
            line += 1;
        }
    }
    line
}

/// Scrolls the highlighted copy and the gutter to where the textarea is.
fn sync_scroll(area: &NodeRef, view: &NodeRef, gutter: &NodeRef) -> Option<HtmlTextAreaElement> {
    let area = area.cast::<HtmlTextAreaElement>()?;
    if let Some(view) = view.cast::<web_sys::Element>() {
        view.set_scroll_top(area.scroll_top());
        view.set_scroll_left(area.scroll_left());
    }
    if let Some(gutter) = gutter.cast::<web_sys::Element>() {
        gutter.set_scroll_top(area.scroll_top());
    }
    Some(area)
}

/// Where each line starts (bytes), and how long the longest one is.
struct Layout {
    starts: Vec<usize>,
    widest: usize,
}

impl Layout {
    fn new(text: &str) -> Layout {
        let mut starts = vec![0];
        let mut widest = 0;
        for (at, _) in text.match_indices('\n') {
            widest = widest.max(at - starts[starts.len() - 1]);
            starts.push(at + 1);
        }
        widest = widest.max(text.len() - starts[starts.len() - 1]);
        Layout { starts, widest }
    }
}

/// The byte offset of a 1-based line and column (in characters), clamped to the line.
fn byte_at(text: &str, starts: &[usize], line: u32, column: u32) -> usize {
    let line = usize::try_from(line.max(1)).unwrap_or(usize::MAX);
    let Some(&start) = starts.get(line - 1) else { return text.len() };
    let end = starts.get(line).map_or(text.len(), |next| next - 1);
    let skip = usize::try_from(column.max(1) - 1).unwrap_or(usize::MAX);
    start + text[start..end].char_indices().nth(skip).map_or(end - start, |(at, _)| at)
}

/// From a 1-based line and column, the textarea's selection offsets (UTF-16 units): the
/// start at `column`, the end at `end_column` on the same line or, without one, at the
/// line's end.
fn utf16_range(text: &str, line: u32, column: u32, end_column: Option<u32>) -> (u32, u32) {
    let wanted = usize::try_from(line.max(1)).unwrap_or(usize::MAX);
    let mut at = 0usize;
    let mut found = "";
    for (n, text_line) in text.split('\n').enumerate() {
        found = text_line;
        if n + 1 == wanted {
            break;
        }
        at += text_line.encode_utf16().count() + 1;
    }
    let offset = |column: u32| {
        let skip = usize::try_from(column.max(1) - 1).unwrap_or(usize::MAX);
        at + found.chars().take(skip).map(char::len_utf16).sum::<usize>()
    };
    let start = offset(column);
    let end = end_column.map_or(at + found.encode_utf16().count(), offset);
    (to_u32(start), to_u32(end.max(start)))
}

fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// Scrolls the textarea so that `line` sits a third of the way down.
fn reveal(area: &HtmlTextAreaElement, line: u32, text: &str) {
    let height = f64::from(area.client_height());
    let per_line = f64::from(area.scroll_height()) / text.split('\n').count().max(1) as f64;
    let top = (f64::from(line.max(1)) - 1.0) * per_line - height / 3.0;
    area.set_scroll_top(top.max(0.0) as i32);
}

/// A diagnostic as a byte range to underline.
struct Mark<'d> {
    start: usize,
    end: usize,
    /// A zero-width range at the end of a line, shown as a marker after its last character.
    eol: bool,
    severity: Severity,
    message: &'d str,
}

fn marks<'d>(text: &str, starts: &[usize], diagnostics: &'d [EditorDiagnostic]) -> Vec<Mark<'d>> {
    diagnostics
        .iter()
        .map(|d| {
            let start = byte_at(text, starts, d.line, d.column);
            let mut end = byte_at(text, starts, d.end_line, d.end_column).max(start);
            let mut eol = false;
            if end == start {
                match text[start..].chars().next() {
                    Some(c) if c != '\n' && c != '\r' => end += c.len_utf8(),
                    _ => eol = true,
                }
            }
            Mark { start, end, eol, severity: d.severity, message: &d.message }
        })
        .collect()
}

/// The lines of `text` in `window`, coloured and underlined.
fn overlay(text: &str, tokens: &[Token], marks: &[Mark<'_>], window: (usize, usize)) -> Html {
    let (from, to) = window;
    let plain = |s: &str| Html::from(VText::new(s.to_owned()));
    let tokens = &tokens[tokens.partition_point(|t| t.end <= from)..];
    let marks: Vec<&Mark<'_>> = marks.iter().filter(|m| m.start <= to && m.end >= from).collect();
    let line_end_markers = |at: usize, nodes: &mut Vec<Html>| {
        for mark in marks.iter().filter(|m| m.eol && m.start == at) {
            nodes.push(html! {
                <span class={classes!("diag", "eol", mark.severity.word())} title={mark.message.to_owned()} />
            });
        }
    };
    let mut nodes = Vec::new();
    let mut next_token = 0;
    let mut a = from;
    while a < to {
        line_end_markers(a, &mut nodes);
        while tokens.get(next_token).is_some_and(|t| t.end <= a) {
            next_token += 1;
        }
        // The piece runs to the next place where a token or an underline starts or ends.
        let token = tokens.get(next_token).filter(|t| t.start <= a);
        let token_edge =
            tokens.get(next_token).map_or(to, |t| if t.start <= a { t.end } else { t.start });
        let mark_edge = marks.iter().flat_map(|m| [m.start, m.end]).filter(|&at| at > a).min();
        let b = token_edge.min(mark_edge.unwrap_or(to)).min(to);
        let mark = marks
            .iter()
            .filter(|m| !m.eol && m.start <= a && b <= m.end)
            .min_by_key(|m| m.severity);
        let piece = &text[a..b];
        nodes.push(match (token, mark) {
            (None, None) => plain(piece),
            (token, None) => html! { <span class={token.map(|t| t.kind.name())}>{ piece }</span> },
            (token, Some(mark)) => html! {
                <span
                    class={classes!(token.map(|t| t.kind.name()), "diag", mark.severity.word())}
                    title={mark.message.to_owned()}
                >{ piece }</span>
            },
        });
        a = b;
    }
    line_end_markers(to, &mut nodes);
    // A last line the textarea shows even when empty.
    nodes.push(plain("\n"));
    nodes.into_iter().collect()
}

/// The line numbers, the first line of each diagnostic marked with its worst severity.
fn gutter_numbers(lines: usize, diagnostics: &[EditorDiagnostic]) -> Html {
    let mut worst: Vec<Option<Severity>> = Vec::new();
    for d in diagnostics {
        let line = usize::try_from(d.line.max(1)).unwrap_or(usize::MAX).min(lines);
        if worst.len() <= line {
            worst.resize(line + 1, None);
        }
        worst[line] = Some(worst[line].map_or(d.severity, |s| s.min(d.severity)));
    }
    let mut nodes = Vec::new();
    let mut run = String::new();
    for n in 1..=lines {
        match worst.get(n).copied().flatten() {
            None => {
                let _ = writeln!(run, "{n}");
            }
            Some(severity) => {
                nodes.push(Html::from(VText::new(std::mem::take(&mut run))));
                nodes.push(html! { <span class={classes!("mark", severity.word())}>{ n }</span> });
                run.push('\n');
            }
        }
    }
    nodes.push(Html::from(VText::new(run)));
    nodes.into_iter().collect()
}

/// Shows the message of the diagnostic under the pointer as the textarea's tooltip: the
/// underlined spans lie under the textarea, so their own `title` never shows.
fn hover_message(e: &MouseEvent, any: bool) {
    let area: HtmlTextAreaElement = e.target_unchecked_into();
    let message =
        any.then(|| crate::browser::window()?.document()).flatten().and_then(|document| {
            let under = document.elements_from_point(e.client_x() as f32, e.client_y() as f32);
            under.iter().find_map(|node| {
                let element = node.dyn_into::<web_sys::Element>().ok()?;
                element.class_list().contains("diag").then(|| element.get_attribute("title"))?
            })
        });
    match message {
        Some(message) if area.title() != message => area.set_title(&message),
        None if area.has_attribute("title") => {
            let _ = area.remove_attribute("title");
        }
        _ => {}
    }
}

/// Tab, Shift-Tab, Enter and Escape in the textarea.
fn on_key(e: &KeyboardEvent, escaped: &std::cell::RefCell<bool>) {
    let key = e.key();
    if e.is_composing()
        || e.key_code() == 229
        || matches!(key.as_str(), "Shift" | "Control" | "Alt" | "Meta")
    {
        return;
    }
    // After Escape the next key is the browser's: Tab moves on.
    let after_escape = std::mem::replace(&mut *escaped.borrow_mut(), key == "Escape");
    if after_escape || e.ctrl_key() || e.alt_key() || e.meta_key() {
        return;
    }
    let area: HtmlTextAreaElement = e.target_unchecked_into();
    let units: Vec<u16> = area.value().encode_utf16().collect();
    let start = area.selection_start().ok().flatten().unwrap_or(0) as usize;
    let end = area.selection_end().ok().flatten().unwrap_or(0) as usize;
    let edit = match key.as_str() {
        "Tab" => {
            e.prevent_default();
            tab_edit(&units, start, end, e.shift_key())
        }
        "Enter" if !e.shift_key() => newline_edit(&units, start, end),
        _ => None,
    };
    if let Some(edit) = edit {
        e.prevent_default();
        apply(&area, &edit);
    }
}

/// A change to the textarea: replace UTF-16 units `from..to` with `insert`, then select.
struct Edit {
    from: usize,
    to: usize,
    insert: String,
    select: (usize, usize),
}

const NEWLINE: u16 = b'\n' as u16;
const SPACE: u16 = b' ' as u16;
const TAB: u16 = b'\t' as u16;

fn line_start(units: &[u16], at: usize) -> usize {
    units[..at].iter().rposition(|&c| c == NEWLINE).map_or(0, |n| n + 1)
}

fn line_end(units: &[u16], at: usize) -> usize {
    units[at..].iter().position(|&c| c == NEWLINE).map_or(units.len(), |n| at + n)
}

/// Tab: two spaces at the caret, or two more at the start of every selected line that has
/// text. Shift-Tab: up to two spaces (or one tab) fewer on each. The selection follows the
/// text; a selection ending at the start of a line leaves that line alone.
fn tab_edit(units: &[u16], start: usize, end: usize, outdent: bool) -> Option<Edit> {
    let end = end.min(units.len());
    let start = start.min(end);
    if start == end && !outdent {
        let caret = start + 2;
        return Some(Edit { from: start, to: end, insert: "  ".into(), select: (caret, caret) });
    }
    let first = line_start(units, start);
    let last = if end > start && units[end - 1] == NEWLINE { end - 1 } else { end };
    let block_end = line_end(units, last);
    let mut out = Vec::with_capacity(block_end - first + 16);
    let (mut new_start, mut new_end) = (start, end);
    let mut line = first;
    loop {
        let line_end = line_end(units, line).min(block_end);
        if outdent {
            let removed = if units.get(line) == Some(&TAB) {
                1
            } else {
                units[line..line_end].iter().take(2).take_while(|&&c| c == SPACE).count()
            };
            let shift = |at: usize| at.clamp(line, line + removed) - line;
            new_start -= shift(start);
            new_end -= shift(end);
            out.extend_from_slice(&units[line + removed..line_end]);
        } else {
            if line_end > line {
                out.extend_from_slice(&[SPACE, SPACE]);
                new_start += if start > line { 2 } else { 0 };
                new_end += if end > line { 2 } else { 0 };
            }
            out.extend_from_slice(&units[line..line_end]);
        }
        if line_end >= block_end {
            break;
        }
        out.push(NEWLINE);
        line = line_end + 1;
    }
    (out != units[first..block_end]).then(|| Edit {
        from: first,
        to: block_end,
        insert: String::from_utf16_lossy(&out),
        select: (new_start, new_end),
    })
}

/// Enter on an indented line: a newline and the same indentation (up to the caret), less
/// the blanks already after the selection, so text that carries its own indentation is
/// not indented twice.
fn newline_edit(units: &[u16], start: usize, end: usize) -> Option<Edit> {
    let end = end.min(units.len());
    let start = start.min(end);
    let blank = |c: &&u16| **c == SPACE || **c == TAB;
    let line = line_start(units, start);
    let indent = units[line..start].iter().take_while(blank).count();
    let keep = indent.saturating_sub(units[end..].iter().take_while(blank).count());
    if keep == 0 {
        return None;
    }
    let mut insert = vec![NEWLINE];
    insert.extend_from_slice(&units[line..line + keep]);
    let caret = start + insert.len();
    Some(Edit {
        from: start,
        to: end,
        insert: String::from_utf16_lossy(&insert),
        select: (caret, caret),
    })
}

/// Makes an edit as typing would: through `execCommand`, which keeps the browser's undo
/// history and fires `input`; where that is missing, by replacing the range and firing
/// `input` by hand.
fn apply(area: &HtmlTextAreaElement, edit: &Edit) {
    let (from, to) = (to_u32(edit.from), to_u32(edit.to));
    let _ = area.set_selection_range(from, to);
    let command = if edit.insert.is_empty() { "delete" } else { "insertText" };
    if !exec_command(command, &edit.insert) {
        let _ = area.set_range_text_with_start_and_end(&edit.insert, from, to);
        let init = web_sys::EventInit::new();
        init.set_bubbles(true);
        if let Ok(event) = Event::new_with_event_init_dict("input", &init) {
            let _ = area.dispatch_event(&event);
        }
    }
    let _ = area.set_selection_range(to_u32(edit.select.0), to_u32(edit.select.1));
}

/// `document.execCommand(command, false, value)`, when the browser has it and does it.
fn exec_command(command: &str, value: &str) -> bool {
    let Some(document) = crate::browser::window().and_then(|w| w.document()) else { return false };
    let Ok(exec) = js_sys::Reflect::get(&document, &JsValue::from_str("execCommand")) else {
        return false;
    };
    let Ok(exec) = exec.dyn_into::<js_sys::Function>() else { return false };
    exec.call3(&document, &command.into(), &JsValue::FALSE, &value.into())
        .ok()
        .and_then(|done| done.as_bool())
        .unwrap_or(false)
}
