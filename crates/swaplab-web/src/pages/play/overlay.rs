//! The playground's dialogs and shortcuts: the keyboard shortcuts (`use_shortcuts`),
//! the list of them, and "Go to a file", in a modal box that keeps the focus inside
//! while it is open and gives it back when it closes.

use std::rc::Rc;

use gloo::events::EventListener;
use swaplab_core::{FileRef, Workspace};
use yew::prelude::*;

/// The dialog shown over the playground, if any.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Overlay {
    /// Nothing.
    None,
    /// The keyboard shortcuts.
    Help,
    /// Go to a file by name.
    GoTo,
}

#[derive(Properties, PartialEq)]
struct DialogProps {
    labelled_by: AttrValue,
    on_key: Callback<KeyboardEvent>,
    children: Html,
}

/// A modal box over the page. It takes the focus when it opens, keeps Tab and Shift+Tab
/// among its own controls (the page behind it is out of reach, as `aria-modal` says),
/// and gives the focus back to where it was (the editor, the button that opened it)
/// when it closes.
#[component]
fn Dialog(props: &DialogProps) -> Html {
    let boxed = use_node_ref();
    {
        let boxed = boxed.clone();
        use_effect_with((), move |_| {
            let opener = crate::browser::window()
                .and_then(|w| w.document())
                .and_then(|d| d.active_element())
                .and_then(|el| wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlElement>(el).ok());
            if let Some(first) = focusable(&boxed).into_iter().next() {
                let _ = first.focus();
            }
            move || {
                if let Some(opener) = opener.filter(|el| el.is_connected()) {
                    let _ = opener.focus();
                }
            }
        });
    }
    let onkeydown = {
        let (boxed, on_key) = (boxed.clone(), props.on_key.clone());
        Callback::from(move |e: KeyboardEvent| {
            if e.key() == "Tab" {
                keep_tab_inside(&e, &focusable(&boxed));
            }
            on_key.emit(e);
        })
    };
    html! {
        <div class="overlay" role="dialog" aria-modal="true" aria-labelledby={props.labelled_by.clone()} {onkeydown}>
            <div class="overlay-box" ref={boxed}>{ props.children.clone() }</div>
        </div>
    }
}

/// The controls inside a dialog's box, in Tab order.
fn focusable(boxed: &NodeRef) -> Vec<web_sys::HtmlElement> {
    let Some(list) =
        boxed.cast::<web_sys::Element>().and_then(|el| el.query_selector_all("input, button").ok())
    else {
        return Vec::new();
    };
    (0..list.length())
        .filter_map(|i| list.item(i))
        .filter_map(|node| wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlElement>(node).ok())
        .collect()
}

/// Tab from a dialog's last control goes to its first, Shift+Tab from its first to its
/// last: the focus goes round the dialog instead of to the page behind it.
fn keep_tab_inside(e: &KeyboardEvent, controls: &[web_sys::HtmlElement]) {
    let (Some(first), Some(last)) = (controls.first(), controls.last()) else { return };
    let active =
        crate::browser::window().and_then(|w| w.document()).and_then(|d| d.active_element());
    let at = |el: &web_sys::HtmlElement| active.as_ref().is_some_and(|a| a == &**el);
    let inside = controls.iter().any(&at);
    let wrap_to = match (e.shift_key(), inside) {
        (_, false) => Some(first),
        (true, true) if at(first) => Some(last),
        (false, true) if at(last) => Some(first),
        _ => None,
    };
    if let Some(target) = wrap_to {
        e.prevent_default();
        let _ = target.focus();
    }
}

/// The keyboard shortcuts, as the help overlay lists them.
const SHORTCUTS: [(&str, &str); 7] = [
    ("Ctrl+Enter", "rerun every check now (they also rerun when typing pauses)"),
    ("Ctrl+Shift+S", "share: put the whole workspace in a link"),
    ("Ctrl+P", "go to a file by name"),
    ("Alt+→ / Alt+←", "next / previous result pane (or ← → on the focused tab)"),
    ("Tab / Shift+Tab in the editor", "indent / outdent; Esc then Tab leaves the editor"),
    ("?", "this list"),
    ("Esc", "close this dialog"),
];

/// Props for [`PlayOverlay`].
#[derive(Properties, PartialEq)]
pub(super) struct PlayOverlayProps {
    /// The dialog to show.
    pub current: Overlay,
    /// Closes it.
    pub on_close: Callback<()>,
    /// The files "Go to a file" offers.
    pub workspace: Rc<Workspace>,
    /// Opens a file in the editor.
    pub on_open: Callback<FileRef>,
}

/// The dialog over the playground: the shortcuts, or "Go to a file".
#[component]
pub(super) fn PlayOverlay(props: &PlayOverlayProps) -> Html {
    let PlayOverlayProps { current, on_close, workspace, on_open } = props;
    let close = on_close.reform(|_: MouseEvent| ());
    let escape = {
        let on_close = on_close.clone();
        Callback::from(move |e: KeyboardEvent| {
            if e.key() == "Escape" {
                on_close.emit(());
            }
        })
    };
    match current {
        Overlay::None => html! {},
        Overlay::Help => html! {
            <Dialog labelled_by="help-title" on_key={escape}>
                    <h2 id="help-title">{ "Keyboard shortcuts" }</h2>
                    <dl class="shortcuts">
                        { for SHORTCUTS.iter().map(|(keys, what)| html! { <><dt><kbd>{ *keys }</kbd></dt><dd>{ *what }</dd></> }) }
                    </dl>
                    <button type="button" onclick={close}>{ "Close" }</button>
            </Dialog>
        },
        Overlay::GoTo => {
            let files: Vec<String> = workspace.files().map(|(f, _)| f.to_string()).collect();
            let onkeydown = {
                let (on_close, on_open) = (on_close.clone(), on_open.clone());
                Callback::from(move |e: KeyboardEvent| {
                    if e.key() != "Enter" {
                        return;
                    }
                    let input: web_sys::HtmlInputElement = e.target_unchecked_into();
                    let wanted = input.value().to_lowercase();
                    let found = files
                        .iter()
                        .find(|f| f.to_lowercase() == wanted)
                        .or_else(|| files.iter().find(|f| f.to_lowercase().contains(&wanted)));
                    if let Some(file) = found.and_then(|f| FileRef::parse(f)) {
                        on_open.emit(file);
                        on_close.emit(());
                    }
                })
            };
            html! {
                <Dialog labelled_by="goto-title" on_key={escape}>
                        <h2 id="goto-title">{ "Go to a file" }</h2>
                        <input type="text" list="goto-files" aria-label="File name" {onkeydown}
                               placeholder="type part of a path, then Enter" />
                        <datalist id="goto-files">
                            { for workspace.files().map(|(f, _)| html! { <option value={f.to_string()} /> }) }
                        </datalist>
                        <button type="button" onclick={close}>{ "Cancel" }</button>
                </Dialog>
            }
        }
    }
}

/// The page's keyboard shortcuts, as [`SHORTCUTS`] lists them: run every check now,
/// share, go to a file, and this list. The listener is added once and calls the
/// callbacks of the latest render, so a shortcut acts on what is on screen.
#[hook]
pub(super) fn use_shortcuts(
    run_now: Callback<()>,
    share: Callback<MouseEvent>,
    overlay: UseStateHandle<Overlay>,
) {
    let latest = use_mut_ref(|| (run_now.clone(), share.clone(), overlay.clone()));
    *latest.borrow_mut() = (run_now, share, overlay);
    use_effect_with((), move |_| {
        let listener = crate::browser::window().map(|window| {
            EventListener::new_with_options(
                &window,
                "keydown",
                gloo::events::EventListenerOptions::enable_prevent_default(),
                move |event| {
                    let Some(event) = wasm_bindgen::JsCast::dyn_ref::<KeyboardEvent>(event) else {
                        return;
                    };
                    let command = event.ctrl_key() || event.meta_key();
                    let typing = crate::browser::typing_into_field(event);
                    let (run_now, share, overlay) = latest.borrow().clone();
                    match (command, event.shift_key(), event.key().as_str()) {
                        (true, _, "Enter") => run_now.emit(()),
                        (true, true, "S" | "s") => {
                            if let Ok(click) = MouseEvent::new("click") {
                                share.emit(click);
                            }
                        }
                        (true, false, "p" | "P") => overlay.set(Overlay::GoTo),
                        (false, _, "?") if !typing => overlay.set(Overlay::Help),
                        _ => return,
                    }
                    event.prevent_default();
                },
            )
        });
        move || drop(listener)
    });
}
