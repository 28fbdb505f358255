//! A banner inside a page: something the reader should know, with an optional action.

use yew::prelude::*;

/// How serious a notice is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoticeKind {
    /// Worth knowing.
    Info,
    /// Something went wrong but the page still works.
    Warning,
}

/// A notice banner showing `children`; with `on_dismiss`, a "Dismiss" button calls it.
/// A function, not a component: each component type links ~2 KB of Yew's lifecycle
/// code, and a notice has no state of its own.
pub fn notice(kind: NoticeKind, on_dismiss: Option<Callback<()>>, children: Html) -> Html {
    let class = match kind {
        NoticeKind::Info => "notice info",
        NoticeKind::Warning => "notice warning",
    };
    let role = match kind {
        NoticeKind::Info => "status",
        NoticeKind::Warning => "alert",
    };
    html! {
        <div class={class} role={role}>
            <div class="notice-body">{ children }</div>
            if let Some(on_dismiss) = on_dismiss {
                <button type="button" class="link-button" onclick={move |_| on_dismiss.emit(())}>
                    { "Dismiss" }
                </button>
            }
        </div>
    }
}
