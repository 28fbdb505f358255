//! A plain-text editor: a textarea with a line-number gutter that scrolls with it.
//!
//! Tab is left to the browser, so keyboard users can always move on.

use web_sys::HtmlTextAreaElement;
use yew::prelude::*;

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
}

/// The editor.
#[component]
pub fn Editor(props: &EditorProps) -> Html {
    let gutter = use_node_ref();
    let area_ref = use_node_ref();
    {
        let area_ref = area_ref.clone();
        let text = props.text.clone();
        use_effect_with(props.focus_line, move |focus| {
            if let (Some((line, _)), Some(area)) = (focus, area_ref.cast::<HtmlTextAreaElement>()) {
                let line = usize::try_from(*line).unwrap_or(1).max(1);
                // Selection offsets count UTF-16 units, as the textarea does.
                let mut start = 0u32;
                let mut end = 0u32;
                for (n, text_line) in text.split('\n').enumerate() {
                    let width = u32::try_from(text_line.encode_utf16().count()).unwrap_or(0);
                    if n + 1 == line {
                        end = start + width;
                        break;
                    }
                    start += width + 1;
                }
                let _ = area.focus();
                let _ = area.set_selection_range(start, end);
                let height = f64::from(area.client_height());
                let per_line =
                    f64::from(area.scroll_height()) / text.split('\n').count().max(1) as f64;
                let top = (line as f64 - 1.0) * per_line - height / 3.0;
                area.set_scroll_top(top.max(0.0) as i32);
            }
        });
    }
    let lines = props.text.split('\n').count().max(1);
    let numbers: String = (1..=lines).map(|n| format!("{n}\n")).collect();

    let oninput = {
        let on_change = props.on_change.clone();
        Callback::from(move |e: InputEvent| {
            let area: HtmlTextAreaElement = e.target_unchecked_into();
            on_change.emit(area.value());
        })
    };
    let onscroll = {
        let gutter = gutter.clone();
        Callback::from(move |e: Event| {
            let area: HtmlTextAreaElement = e.target_unchecked_into();
            if let Some(gutter) = gutter.cast::<web_sys::Element>() {
                gutter.set_scroll_top(area.scroll_top());
            }
        })
    };
    html! {
        <div class="editor">
            <pre class="gutter" ref={gutter} aria-hidden="true">{ numbers }</pre>
            <textarea
                ref={area_ref}
                class="code"
                aria-label={props.label.clone()}
                spellcheck="false"
                autocapitalize="off"
                autocomplete="off"
                wrap="off"
                value={props.text.clone()}
                {oninput}
                {onscroll}
            />
        </div>
    }
}
