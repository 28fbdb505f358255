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

/// Props for [`Notice`].
#[derive(Properties, PartialEq)]
pub struct NoticeProps {
    /// Info or warning.
    pub kind: NoticeKind,
    /// What to show.
    pub children: Html,
    /// When set, a "Dismiss" button calls it.
    #[prop_or_default]
    pub on_dismiss: Option<Callback<()>>,
}

/// A notice banner.
#[component]
pub fn Notice(props: &NoticeProps) -> Html {
    let class = match props.kind {
        NoticeKind::Info => "notice info",
        NoticeKind::Warning => "notice warning",
    };
    let role = match props.kind {
        NoticeKind::Info => "status",
        NoticeKind::Warning => "alert",
    };
    html! {
        <div class={class} role={role}>
            <div class="notice-body">{ props.children.clone() }</div>
            if let Some(on_dismiss) = props.on_dismiss.clone() {
                <button type="button" class="link-button" onclick={move |_| on_dismiss.emit(())}>
                    { "Dismiss" }
                </button>
            }
        </div>
    }
}
