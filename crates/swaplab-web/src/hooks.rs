//! `use_draft`: the draft protocol ([`crate::draft`]) wired to a page's session. It
//! saves once typing pauses, saves what still waits when the page goes away (closing
//! or reloading the tab, or leaving for another page of the app), notices another
//! tab's save at once, and registers unsaved edits with the crash banner. The
//! playground and the exercise pages both keep their work through it.

use std::cell::RefCell;
use std::rc::Rc;

use gloo::events::EventListener;
use gloo::timers::callback::Timeout;
use swaplab_core::Workspace;
use swaplab_core::session::{Session, decode_draft};
use yew::prelude::*;

use crate::browser::{LocalStorage, on_written_elsewhere};
use crate::draft::{DraftSlot, Saved};
use crate::panic_banner;

/// How long typing must pause before the draft is written.
pub const SAVE_DELAY_MS: u32 = 400;

/// Where the reader's work stands, for the page to show.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DraftStatus {
    /// The example as shipped: there is nothing to keep.
    Unchanged,
    /// Edits wait for the typing pause.
    Pending,
    /// On screen but not stored: a link's workspace, or an exercise's start, before the
    /// reader edits it.
    Shown,
    /// Stored in this browser.
    Saved,
    /// The browser refused; why.
    Failed(String),
    /// Another tab saved this draft since this tab last read or wrote it: this tab's
    /// edits are not written over it until the reader chooses.
    Conflict,
}

impl DraftStatus {
    /// Whether the work is on screen only, so the page should offer it as a download.
    pub fn is_unkept(&self) -> bool {
        matches!(self, DraftStatus::Failed(_) | DraftStatus::Conflict)
    }
}

impl From<Saved> for DraftStatus {
    fn from(saved: Saved) -> DraftStatus {
        match saved {
            Saved::Stored => DraftStatus::Saved,
            Saved::Removed => DraftStatus::Unchanged,
            Saved::Conflict => DraftStatus::Conflict,
            Saved::Failed(reason) => DraftStatus::Failed(reason),
        }
    }
}

/// A page's draft: its status, whether another tab's version waits for the reader's
/// choice, and the reader's choices.
#[derive(Clone)]
pub struct DraftHandle {
    slot: Rc<RefCell<DraftSlot>>,
    latest: Rc<RefCell<Session>>,
    status: UseStateHandle<DraftStatus>,
    conflict: UseStateHandle<bool>,
    aside: UseStateHandle<bool>,
}

impl DraftHandle {
    /// Where the reader's work stands.
    pub fn status(&self) -> &DraftStatus {
        &self.status
    }

    /// Whether another tab saved this draft and the reader has not chosen yet.
    pub fn conflict(&self) -> bool {
        *self.conflict
    }

    /// Whether a version of the work is kept aside in this browser.
    pub fn has_aside(&self) -> bool {
        *self.aside
    }

    /// The draft's storage key.
    pub fn key(&self) -> String {
        self.slot.borrow().key().to_owned()
    }

    /// Saves at once what still waits for the typing pause (see [`DraftSlot::flush`]).
    pub fn flush(&self) {
        flush(&self.slot, &self.latest);
    }

    /// Shows the other tab's version; this tab's goes aside. The session to load, or
    /// `None` when the other tab went back to the example.
    pub fn take_theirs(&self) -> Result<Option<Session>, String> {
        let theirs =
            self.slot.borrow_mut().take_theirs(&mut LocalStorage, &self.latest.borrow())?;
        self.conflict.set(false);
        self.aside.set(self.slot.borrow().has_aside(&LocalStorage));
        Ok(theirs)
    }

    /// Keeps this tab's version; the other tab's goes aside.
    pub fn keep_mine(&self) -> Result<(), String> {
        let saved = self.slot.borrow_mut().keep_mine(&mut LocalStorage, &self.latest.borrow())?;
        self.conflict.set(saved == Saved::Conflict);
        self.status.set(saved.into());
        self.aside.set(self.slot.borrow().has_aside(&LocalStorage));
        Ok(())
    }

    /// Puts what is on screen aside, before something else replaces it.
    pub fn set_aside(&self) -> Result<(), String> {
        self.slot.borrow().set_aside(&mut LocalStorage, &self.latest.borrow())?;
        self.aside.set(true);
        Ok(())
    }

    /// Brings back the version kept aside; what is on screen takes its place.
    pub fn swap_aside(&self) -> Result<Session, String> {
        let kept = self.slot.borrow().swap_aside(&mut LocalStorage, &self.latest.borrow())?;
        self.aside.set(self.slot.borrow().has_aside(&LocalStorage));
        Ok(kept)
    }

    /// Deletes the version kept aside.
    pub fn delete_aside(&self) {
        let _ = self.slot.borrow().delete_aside(&mut LocalStorage);
        self.aside.set(self.slot.borrow().has_aside(&LocalStorage));
    }
}

fn flush(slot: &RefCell<DraftSlot>, latest: &RefCell<Session>) {
    // After a crash the banner saved what there was; this tab's state is not to be
    // trusted, so nothing more is written.
    if !panic_banner::has_crashed() {
        let _ = slot.borrow_mut().flush(&mut LocalStorage, &latest.borrow());
    }
}

/// Keeps `session` as the draft under `key`. `pristine` is the example as shipped
/// (stored as no draft), `None` where every version is kept. `loaded_revision` is the
/// revision the page opened with: nothing is written until the reader changes
/// something, so opening a page never touches a draft another tab may be writing.
/// `on_stored` runs after each successful save.
#[hook]
pub fn use_draft(
    key: &str,
    pristine: Option<Rc<Workspace>>,
    session: &Session,
    loaded_revision: u64,
    on_stored: Callback<()>,
) -> DraftHandle {
    let slot = use_mut_ref({
        let key = key.to_owned();
        move || DraftSlot::open(&LocalStorage, key, pristine)
    });
    let latest = use_mut_ref(|| session.clone());
    *latest.borrow_mut() = session.clone();
    // Compared before it is set: every keystroke sets it to `Pending`, and only the first
    // of them changes it, so the rest must not render the page a second time.
    let status = use_state_eq(|| {
        let slot = slot.borrow();
        let stored = slot.baseline().and_then(|text| decode_draft(text).ok());
        if slot.is_pristine(session) {
            DraftStatus::Unchanged
        } else if stored.is_some_and(|draft| draft.workspace == session.workspace) {
            DraftStatus::Saved
        } else {
            DraftStatus::Shown
        }
    });
    let conflict = use_state(|| false);
    let aside = use_state(|| slot.borrow().has_aside(&LocalStorage));

    // Save once typing pauses.
    {
        let (slot, latest) = (slot.clone(), latest.clone());
        let (status, conflict) = (status.clone(), conflict.clone());
        use_effect_with(session.revision, move |revision| {
            let timeout = (*revision != loaded_revision).then(|| {
                slot.borrow_mut().edited();
                status.set(DraftStatus::Pending);
                // Until the timer fires, a crash must still be able to save these edits.
                panic_banner::note_unsaved(Some((&slot.borrow(), &latest.borrow())));
                Timeout::new(SAVE_DELAY_MS, move || {
                    if panic_banner::has_crashed() {
                        return;
                    }
                    let saved = slot.borrow_mut().save(&mut LocalStorage, &latest.borrow());
                    match saved {
                        Saved::Stored | Saved::Removed => panic_banner::note_unsaved(None),
                        Saved::Conflict => conflict.set(true),
                        Saved::Failed(_) => {}
                    }
                    if saved == Saved::Stored {
                        on_stored.emit(());
                    }
                    status.set(saved.into());
                })
            });
            move || drop(timeout)
        });
    }
    // Leaving must not lose the keystrokes that still wait for the timer: neither
    // closing or reloading the tab (`pagehide`) nor going to another page of the app
    // (the page unmounts and its timer is dropped).
    {
        let (slot, latest) = (slot.clone(), latest.clone());
        use_effect_with((), move |_| {
            let listener = crate::browser::window().map(|window| {
                let (slot, latest) = (slot.clone(), latest.clone());
                EventListener::new(&window, "pagehide", move |_| flush(&slot, &latest))
            });
            move || {
                drop(listener);
                flush(&slot, &latest);
            }
        });
    }
    // Another tab saving this draft fires `storage` here: say so at once rather than at
    // this tab's next save.
    {
        let (slot, conflict, aside) = (slot.clone(), conflict.clone(), aside.clone());
        use_effect_with(key.to_owned(), move |key| {
            let listener = on_written_elsewhere(key.clone(), move || {
                if slot.borrow().changed_elsewhere(&LocalStorage) {
                    conflict.set(true);
                }
                aside.set(slot.borrow().has_aside(&LocalStorage));
            });
            move || drop(listener)
        });
    }
    DraftHandle { slot, latest, status, conflict, aside }
}
