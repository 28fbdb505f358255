//! What the playground tells the reader above the files — a restored draft, a link
//! that could not be opened, a version kept aside — and the choices some notices offer:
//! which tab's version to keep, whether to open a link over a draft, and what to do
//! with a version kept aside. Every choice keeps the version not chosen.

use std::rc::Rc;

use swaplab_core::permalink::Link;
use swaplab_core::session::Action;
use yew::prelude::*;

use super::{Origin, link_session};
use crate::browser::replace_fragment;
use crate::components::NoticeKind;
use crate::hooks::DraftHandle;
use crate::state::PlayState;

/// Something the playground tells the reader above the files.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct PlayNotice {
    pub kind: NoticeKind,
    pub text: String,
    /// Offers the draft the crash banner set aside: restore it or delete it.
    pub offers_set_aside: bool,
    /// Asks whether to open this link over the reader's draft.
    pub offers_link: Option<Rc<Link>>,
}

impl PlayNotice {
    pub fn new(kind: NoticeKind, text: impl Into<String>) -> PlayNotice {
        PlayNotice { kind, text: text.into(), offers_set_aside: false, offers_link: None }
    }
}

/// What the notices' choices act on.
pub(super) struct NoticeContext {
    pub state: UseReducerHandle<PlayState>,
    pub origin: Rc<Origin>,
    pub draft: DraftHandle,
    pub notices: UseStateHandle<Vec<PlayNotice>>,
}

/// The question asked when another tab saved this example's draft: which version to
/// keep here.
pub(super) fn conflict_notice(context: &NoticeContext) -> Option<Html> {
    let NoticeContext { state, origin, draft, notices } = context;
    draft.conflict().then(|| {
        let take_theirs = {
            let (state, origin, notices) = (state.clone(), origin.clone(), notices.clone());
            let draft = draft.clone();
            Callback::from(move |_: MouseEvent| {
                let mut kept = (*notices).clone();
                match draft.take_theirs() {
                    Ok(theirs) => {
                        state.dispatch(match theirs {
                            Some(theirs) => Action::Load {
                                example: Some(origin.id.clone()),
                                imported: theirs.imported,
                                workspace: Rc::unwrap_or_clone(theirs.workspace),
                                open: theirs.open,
                            },
                            // The other tab went back to the example.
                            None => Action::Load {
                                example: Some(origin.id.clone()),
                                imported: None,
                                workspace: (*origin.pristine).clone(),
                                open: state.0.open.clone(),
                            },
                        });
                        kept.push(PlayNotice {
                            kind: NoticeKind::Info,
                            text: "Showing the other tab's version. This tab's edits are kept \
                                   aside in this browser."
                                .to_owned(),
                            offers_set_aside: true,
                            offers_link: None,
                        });
                    }
                    Err(message) => kept.push(PlayNotice::new(NoticeKind::Warning, message)),
                }
                notices.set(kept);
            })
        };
        let keep_mine = {
            let (notices, draft) = (notices.clone(), draft.clone());
            Callback::from(move |_: MouseEvent| {
                let mut kept = (*notices).clone();
                match draft.keep_mine() {
                    Ok(()) => {
                        kept.push(PlayNotice {
                            kind: NoticeKind::Info,
                            text: "Kept this tab's version. The other tab's draft is kept aside \
                                   in this browser."
                                .to_owned(),
                            offers_set_aside: true,
                            offers_link: None,
                        });
                    }
                    Err(message) => kept.push(PlayNotice::new(NoticeKind::Warning, message)),
                }
                notices.set(kept);
            })
        };
        html! {
            <div class="notice warning conflict" role="alert">
                <div class="notice-body">
                    { "Another tab changed this example's draft after this tab opened it. \
                       Nothing has been written over either version. Which one do you want here? \
                       The other is kept aside, to restore later." }
                    <span class="notice-actions">
                        <button type="button" onclick={take_theirs}>{ "Show the other tab's version" }</button>
                        <button type="button" onclick={keep_mine}>{ "Keep this tab's version" }</button>
                    </span>
                </div>
            </div>
        }
    })
}

/// The notices, each with its choices and a way to dismiss it.
pub(super) fn notice_list(context: &NoticeContext) -> Html {
    let NoticeContext { state, origin, draft, notices } = context;
    notices.iter().enumerate().map(|(i, notice)| {

        let dismiss = {
            let notices = notices.clone();
            Callback::from(move |()| {
                let mut kept = (*notices).clone();
                kept.remove(i);
                notices.set(kept);
            })
        };
        let link_actions = notice.offers_link.clone().map(|link| {
            let open_it = {
                let (state, origin, notices) = (state.clone(), origin.clone(), notices.clone());
                let draft = draft.clone();
                Callback::from(move |_: MouseEvent| {
                    let mut kept = (*notices).clone();
                    match draft.set_aside() {
                        Ok(()) => {
                            kept[i] = PlayNotice {
                                kind: NoticeKind::Info,
                                text: "Opened the link. Your draft is kept aside in this browser.".to_owned(),
                                offers_set_aside: true,
                                offers_link: None,
                            };
                            let session = link_session(&origin, &link);
                            state.dispatch(Action::Load { example: session.example, imported: session.imported, workspace: Rc::unwrap_or_clone(session.workspace), open: session.open });
                        }
                        Err(reason) => {
                            kept[i] = PlayNotice::new(NoticeKind::Warning, format!(
                                "The link was not opened: your draft could not be kept aside first ({reason})."
                            ));
                        }
                    }
                    notices.set(kept);
                })
            };
            let keep = {
                let dismiss = dismiss.clone();
                Callback::from(move |_: MouseEvent| {
                    replace_fragment("");
                    dismiss.emit(());
                })
            };
            html! {
                <span class="notice-actions">
                    <button type="button" onclick={open_it}>{ "Open the link" }</button>
                    <button type="button" onclick={keep}>{ "Keep my draft" }</button>
                </span>
            }
        });
        let actions = notice.offers_set_aside.then(|| {
            let restore = {
                let (state, origin, notices) = (state.clone(), origin.clone(), notices.clone());
                let draft = draft.clone();
                Callback::from(move |_: MouseEvent| {
                    let mut kept = (*notices).clone();
                    match draft.swap_aside() {
                        Ok(aside) => {
                            kept.remove(i);
                            state.dispatch(Action::Load {
                                example: Some(origin.id.clone()),
                                imported: aside.imported,
                                workspace: Rc::unwrap_or_clone(aside.workspace),
                                open: aside.open,
                            });
                        }
                        Err(message) => kept[i] = PlayNotice::new(NoticeKind::Warning, message),
                    }
                    notices.set(kept);
                })
            };
            let delete = {
                let (draft, dismiss) = (draft.clone(), dismiss.clone());
                Callback::from(move |_: MouseEvent| {
                    draft.delete_aside();
                    dismiss.emit(());
                })
            };
            html! {
                <span class="notice-actions">
                    <button type="button" onclick={restore}>{ "Restore it" }</button>
                    <button type="button" class="danger" onclick={delete}>{ "Delete it" }</button>
                </span>
            }
        });
        html! {
            { crate::components::notice(notice.kind, Some(dismiss), html! { <>
                { notice.text.clone() }
                { for link_actions }
                { for actions }
            </> }) }
        }
    }).collect()
}
