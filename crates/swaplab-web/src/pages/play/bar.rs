//! The playground's bar: what is loaded, where the reader's draft stands (with a
//! download when it could not be stored), sharing, the shortcuts, and going back to the
//! example after a confirmation.

use swaplab_core::permalink::WARN_LINK_CHARS;
use yew::prelude::*;

use crate::hooks::DraftStatus;

/// Props for [`PlayBar`].
#[derive(Properties, PartialEq)]
pub(super) struct PlayBarProps {
    /// The example's title.
    pub title: AttrValue,
    /// Where the files came from, after an import.
    pub imported: Option<AttrValue>,
    /// The example's id, for the download's file name.
    pub example: AttrValue,
    /// Where the draft stands.
    pub status: DraftStatus,
    /// A `data:` URL holding the draft, when it could not be stored.
    pub download: Option<AttrValue>,
    /// The link the last "Share" made.
    pub shared: Option<AttrValue>,
    /// Whether the link left out a file that may hold secrets (`.env`).
    pub private_left_out: bool,
    /// Puts the workspace in a link.
    pub on_share: Callback<MouseEvent>,
    /// Shows the shortcuts.
    pub on_help: Callback<()>,
    /// Goes back to the example, once the reader confirmed.
    pub on_reset: Callback<()>,
}

/// The words for where the draft stands.
fn status_words(status: &DraftStatus) -> String {
    match status {
        DraftStatus::Unchanged => "The example as shipped".to_owned(),
        DraftStatus::Pending => "Unsaved changes…".to_owned(),
        DraftStatus::Shown => "From the link; your first edit keeps it in this browser".to_owned(),
        DraftStatus::Saved => "Draft saved in this browser".to_owned(),
        DraftStatus::Failed(reason) => format!("Not saved: {reason}"),
        DraftStatus::Conflict => "Not saved: another tab changed this draft".to_owned(),
    }
}

/// The bar above the files.
#[component]
pub(super) fn PlayBar(props: &PlayBarProps) -> Html {
    let confirming_reset = use_state(|| false);
    let confirm = {
        let c = confirming_reset.clone();
        Callback::from(move |_: MouseEvent| c.set(true))
    };
    let reset = {
        let (c, on_reset) = (confirming_reset.clone(), props.on_reset.clone());
        Callback::from(move |_: MouseEvent| {
            on_reset.emit(());
            c.set(false);
        })
    };
    let title = &props.title;
    let imported = props.imported.is_some();
    html! {
        <div class="play-bar">
            // After an import the files are no longer the example: name what is loaded.
            if let Some(source) = &props.imported {
                <h1>{ "Playground" }<span class="example-title">{ format!(" — Imported: {source}") }</span></h1>
                <button type="button" class="link-button back-to-example"
                        title="Discard the imported files and open the built-in example again"
                        onclick={confirm.clone()}>
                    { format!("Back to “{title}”") }
                </button>
            } else {
                <h1>{ "Playground" }<span class="example-title">{ format!(" — {title}") }</span></h1>
            }
            <span class={classes!("save-status", props.status.is_unkept().then_some("failed"))}
                  role="status">{ status_words(&props.status) }</span>
            if let Some(href) = props.download.clone() {
                <a class="button secondary" {href} download={format!("swaplab-draft-{}.json", props.example)}>{ "Download draft" }</a>
            }
            <button type="button" onclick={props.on_share.clone()} title="Put the whole workspace in a link (Ctrl+Shift+S)">{ "Share" }</button>
            <button type="button" class="link-button" aria-haspopup="dialog"
                    onclick={props.on_help.reform(|_: MouseEvent| ())}>{ "Shortcuts (?)" }</button>
            if let Some(url) = &props.shared {
                <span class="share-box">
                    <input type="text" readonly=true value={url.clone()} aria-label="Link to this workspace"
                           onfocus={Callback::from(|e: FocusEvent| {
                               let input: web_sys::HtmlInputElement = e.target_unchecked_into();
                               input.select();
                           })} />
                    <span class={classes!("link-length", (url.chars().count() > WARN_LINK_CHARS).then_some("long"))} role="status">
                        { if url.chars().count() > WARN_LINK_CHARS {
                            format!("{} characters — long links may not survive chat apps", url.chars().count())
                        } else {
                            format!("{} characters", url.chars().count())
                        } }
                        { if props.private_left_out { " · .env left out: it may hold secrets" } else { "" } }
                    </span>
                </span>
            }
            if props.status != DraftStatus::Unchanged || imported {
                if *confirming_reset {
                    <span class="confirm">
                        if imported {
                            { format!("Discard the imported files and open “{title}” again? ") }
                        } else {
                            { "Discard your edits to this example? " }
                        }
                        <button type="button" class="danger" onclick={reset}>{ "Discard edits" }</button>
                        <button type="button" onclick={let c = confirming_reset.clone(); move |_| c.set(false)}>{ "Keep them" }</button>
                    </span>
                } else if !imported {
                    <button type="button" onclick={confirm}>
                        { "Reset to the example" }
                    </button>
                }
            }
        </div>
    }
}
