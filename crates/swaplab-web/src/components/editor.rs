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
}

/// The editor.
#[component]
pub fn Editor(props: &EditorProps) -> Html {
    let gutter = use_node_ref();
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
