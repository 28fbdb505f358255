//! The no-data-loss protocol for the reader's drafts, as plain logic over a key-value
//! store: what a save may write over, and where the version the reader did not choose
//! goes when two tabs edit one draft. The playground and the exercise pages both use
//! it through the `use_draft` hook ([`crate::hooks`]); it is tested natively against
//! [`MemoryStore`] (`tests/logic/draft.rs`) and in Chromium against `localStorage`.
//!
//! Every tab of the site shares one storage. A [`DraftSlot`] remembers what its key
//! held when this tab last read or wrote it — its *baseline*. A save that finds
//! anything else there has met another tab's work, writes nothing and reports
//! [`Saved::Conflict`]; the reader then chooses ([`DraftSlot::take_theirs`],
//! [`DraftSlot::keep_mine`]), and the version not chosen goes to the *set-aside* slot
//! beside the draft ([`SET_ASIDE_SUFFIX`]), never away. Edits that could not be stored
//! stay *unsaved* ([`DraftSlot::is_unsaved`]), so leaving the page still puts them
//! somewhere ([`DraftSlot::flush`]).

use std::collections::BTreeMap;
use std::rc::Rc;

use swaplab_core::Workspace;
use swaplab_core::session::{DraftError, Session, decode_draft, encode_draft};

/// Suffix of the slot beside a draft that holds the version not on screen: the other
/// tab's or this tab's, whichever the reader did not choose, or what the crash banner's
/// "Reset draft" moved away.
pub const SET_ASIDE_SUFFIX: &str = ".set-aside";
/// Suffix of a stored draft that could not be read, kept for the reader.
pub const DAMAGED_SUFFIX: &str = ".damaged";

/// A key-value storage every tab of the site shares: `localStorage` in the browser
/// (`browser::LocalStorage`), a map in tests ([`MemoryStore`]).
pub trait Store {
    /// What `key` holds.
    fn get(&self, key: &str) -> Option<String>;
    /// Stores `value` under `key`, or says why the storage refused, as a sentence for
    /// the reader.
    fn set(&mut self, key: &str, value: &str) -> Result<(), String>;
    /// Removes `key`, or says why the storage refused.
    fn remove(&mut self, key: &str) -> Result<(), String>;
}

/// A store in memory that can be told to refuse writes, as a full storage does.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MemoryStore {
    entries: BTreeMap<String, String>,
    /// While set, every write is refused with this reason.
    pub refusing: Option<String>,
}

impl MemoryStore {
    /// Every key and what it holds, in key order.
    pub fn entries(&self) -> impl Iterator<Item = (&str, &str)> {
        self.entries.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }
}

impl Store for MemoryStore {
    fn get(&self, key: &str) -> Option<String> {
        self.entries.get(key).cloned()
    }

    fn set(&mut self, key: &str, value: &str) -> Result<(), String> {
        if let Some(reason) = &self.refusing {
            return Err(reason.clone());
        }
        self.entries.insert(key.to_owned(), value.to_owned());
        Ok(())
    }

    fn remove(&mut self, key: &str) -> Result<(), String> {
        if let Some(reason) = &self.refusing {
            return Err(reason.clone());
        }
        self.entries.remove(key);
        Ok(())
    }
}

/// What became of one save.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Saved {
    /// The draft is stored.
    Stored,
    /// The session is the example as shipped, so no draft is kept (any is removed).
    Removed,
    /// Another tab saved this draft since this tab last read or wrote it: nothing was
    /// written, and the edits stay unsaved until the reader chooses.
    Conflict,
    /// The storage refused; why.
    Failed(String),
}

/// What the store held for a draft when the page opened.
#[derive(Clone, Debug, PartialEq)]
pub enum Restored {
    /// No draft, or one that was the example itself (it is removed).
    Nothing,
    /// The reader's draft.
    Draft(Session),
    /// A draft that could not be read. Its text is copied to `kept_as` (the damaged
    /// slot) where the next save cannot overwrite it — unless the storage refused.
    Damaged { error: DraftError, kept_as: Option<String> },
}

/// One draft's place in the store, and what this tab knows of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DraftSlot {
    key: String,
    /// A session showing exactly this is "no draft": the example as shipped. `None`
    /// (an exercise): every version is stored.
    pristine: Option<Rc<Workspace>>,
    /// What `key` held when this tab last read or wrote it. Shared, not copied: the
    /// crash banner keeps a clone of the slot at every keystroke, and a large
    /// workspace's draft is megabytes.
    baseline: Option<Rc<str>>,
    /// The reader changed something that is not stored yet.
    unsaved: bool,
}

impl DraftSlot {
    /// The slot for `key`, reading what it holds now as the baseline.
    pub fn open(
        store: &impl Store,
        key: impl Into<String>,
        pristine: Option<Rc<Workspace>>,
    ) -> Self {
        let key = key.into();
        let baseline = store.get(&key).map(Rc::from);
        DraftSlot { key, pristine, baseline, unsaved: false }
    }

    /// The draft's key.
    pub fn key(&self) -> &str {
        &self.key
    }

    /// The key of the slot beside the draft that holds the version not on screen.
    pub fn aside_key(&self) -> String {
        format!("{}{SET_ASIDE_SUFFIX}", self.key)
    }

    /// What the draft's key held when this tab last read or wrote it.
    pub fn baseline(&self) -> Option<&str> {
        self.baseline.as_deref()
    }

    /// Whether the reader changed something that is not stored yet.
    pub fn is_unsaved(&self) -> bool {
        self.unsaved
    }

    /// Notes that the reader changed something.
    pub fn edited(&mut self) {
        self.unsaved = true;
    }

    /// Whether `session` is the example as shipped, which is stored as no draft.
    pub fn is_pristine(&self, session: &Session) -> bool {
        self.pristine.as_ref().is_some_and(|pristine| session.workspace == *pristine)
    }

    /// Whether the store holds a draft this tab has not seen: another tab saved it.
    pub fn changed_elsewhere(&self, store: &impl Store) -> bool {
        store.get(&self.key).as_deref() != self.baseline.as_deref()
    }

    /// Reads the stored draft as the page opens. A draft that is the example itself is
    /// removed; one that cannot be read is copied to the damaged slot first.
    pub fn restore(&mut self, store: &mut impl Store) -> Restored {
        let Some(text) = store.get(&self.key) else { return Restored::Nothing };
        match decode_draft(&text) {
            Ok(session) if self.is_pristine(&session) => {
                if store.remove(&self.key).is_ok() {
                    self.baseline = None;
                }
                Restored::Nothing
            }
            Ok(session) => Restored::Draft(session),
            Err(error) => {
                let damaged = format!("{}{DAMAGED_SUFFIX}", self.key);
                let kept_as = store.set(&damaged, &text).ok().map(|()| damaged);
                Restored::Damaged { error, kept_as }
            }
        }
    }

    /// Stores `mine` as the draft — or removes the draft when `mine` is the example
    /// itself — unless another tab saved the draft since this tab last read or wrote
    /// it: then nothing is written ([`Saved::Conflict`]).
    pub fn save(&mut self, store: &mut impl Store, mine: &Session) -> Saved {
        if self.changed_elsewhere(store) {
            return Saved::Conflict;
        }
        let text = (!self.is_pristine(mine)).then(|| encode_draft(mine));
        let written = match &text {
            Some(text) => store.set(&self.key, text),
            None => store.remove(&self.key),
        };
        match written {
            Ok(()) => {
                let saved = if text.is_some() { Saved::Stored } else { Saved::Removed };
                self.baseline = text.map(Rc::from);
                self.unsaved = false;
                saved
            }
            Err(reason) => Saved::Failed(reason),
        }
    }

    /// Stores unsaved edits before the page goes away, wherever they can go: in the
    /// draft's place, or — if another tab saved the draft meanwhile — beside it, in the
    /// set-aside slot the page offers back on the next visit. `None` when nothing was
    /// unsaved; otherwise the key they went to, or why the storage refused.
    pub fn flush(
        &mut self,
        store: &mut impl Store,
        mine: &Session,
    ) -> Option<Result<String, String>> {
        self.unsaved.then(|| self.keep_somewhere(store, mine))
    }

    /// Stores `mine` in the draft's place, or beside it when another tab saved there
    /// since: the crash banner's rescue and the page's last save.
    pub fn keep_somewhere(
        &mut self,
        store: &mut impl Store,
        mine: &Session,
    ) -> Result<String, String> {
        match self.save(store, mine) {
            Saved::Stored | Saved::Removed => Ok(self.key.clone()),
            Saved::Failed(reason) => Err(reason),
            Saved::Conflict => {
                let aside = self.aside_key();
                store.set(&aside, &encode_draft(mine))?;
                self.unsaved = false;
                Ok(aside)
            }
        }
    }

    /// The reader chose the other tab's version. This tab's goes aside first (unless
    /// it is the example itself); if it cannot, nothing changes. Returns the other
    /// tab's session, or `None` when the other tab went back to the example.
    pub fn take_theirs(
        &mut self,
        store: &mut impl Store,
        mine: &Session,
    ) -> Result<Option<Session>, String> {
        let theirs_text = store.get(&self.key);
        let theirs = match theirs_text.as_deref().map(decode_draft) {
            None => None,
            Some(Ok(session)) => Some(session),
            Some(Err(error)) => {
                return Err(format!("The other tab's version could not be opened: {error}."));
            }
        };
        if !self.is_pristine(mine) {
            store.set(&self.aside_key(), &encode_draft(mine)).map_err(|reason| {
                format!(
                    "This tab's version could not be kept aside, so nothing changed ({reason})."
                )
            })?;
        }
        self.baseline = theirs_text.map(Rc::from);
        self.unsaved = false;
        Ok(theirs)
    }

    /// The reader kept this tab's version: the other tab's goes aside first (if it
    /// cannot, nothing changes), then this tab's is saved in its place.
    pub fn keep_mine(&mut self, store: &mut impl Store, mine: &Session) -> Result<Saved, String> {
        let theirs = store.get(&self.key);
        if let Some(text) = &theirs {
            store.set(&self.aside_key(), text).map_err(|reason| {
                format!(
                    "The other tab's version could not be kept aside, so nothing changed ({reason})."
                )
            })?;
        }
        self.baseline = theirs.map(Rc::from);
        Ok(self.save(store, mine))
    }

    /// Whether a version is kept aside.
    pub fn has_aside(&self, store: &impl Store) -> bool {
        store.get(&self.aside_key()).is_some()
    }

    /// Puts `mine` aside, as before a link replaces it on screen.
    pub fn set_aside(&self, store: &mut impl Store, mine: &Session) -> Result<(), String> {
        store.set(&self.aside_key(), &encode_draft(mine))
    }

    /// Brings back the version kept aside; `mine` takes its place (or the slot is
    /// emptied when `mine` is the example itself), so nothing is lost either way.
    pub fn swap_aside(&self, store: &mut impl Store, mine: &Session) -> Result<Session, String> {
        let aside = self.aside_key();
        let text = store
            .get(&aside)
            .ok_or("The version kept aside is no longer in this browser's storage.")?;
        let kept = decode_draft(&text)
            .map_err(|e| format!("The version kept aside could not be opened: {e}."))?;
        if self.is_pristine(mine) {
            store.remove(&aside)
        } else {
            store.set(&aside, &encode_draft(mine))
        }
        .map_err(|e| format!("What is on screen could not be kept aside in its place: {e}."))?;
        Ok(kept)
    }

    /// Deletes the version kept aside, when the reader asks.
    pub fn delete_aside(&self, store: &mut impl Store) -> Result<(), String> {
        store.remove(&self.aside_key())
    }
}
