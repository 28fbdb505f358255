//! The draft protocol, tab by tab, over one shared store: every case in which the e2e
//! suite checks that no work is lost (`e2e/storage.spec.mjs`, `e2e/play.spec.mjs`,
//! `e2e/share.spec.mjs`), and the ones a browser makes hard to stage.

use std::rc::Rc;

use swaplab_core::session::{Action, DraftError, Session, decode_draft, encode_draft};
use swaplab_core::{Area, FileRef, Workspace};
use swaplab_web::draft::{DraftSlot, MemoryStore, Restored, Saved, Store};

const KEY: &str = "swaplab.draft.v1.tutorial";
const ASIDE: &str = "swaplab.draft.v1.tutorial.set-aside";

fn example() -> Rc<Workspace> {
    let mut workspace = Workspace::default();
    workspace.set_file(&skill(), "---\ndescription: Check a ticket\n---\nShipped.\n".to_owned());
    Rc::new(workspace)
}

fn skill() -> FileRef {
    FileRef::new(Area::After, "skills/check_tickets/skill.md")
}

/// A tab showing the example, with `text` typed into the skill (the example itself
/// when `None`).
fn tab_with(text: Option<&str>) -> Session {
    let mut session = Session::new(Some("tutorial".to_owned()), (*example()).clone());
    if let Some(text) = text {
        session.apply(Action::Edit { file: skill(), text: text.to_owned() });
    }
    session
}

fn skill_text(session: &Session) -> &str {
    session.workspace.file(&skill()).unwrap()
}

fn stored(store: &MemoryStore, key: &str) -> Option<String> {
    store.get(key).map(|text| skill_text(&decode_draft(&text).unwrap()).to_owned())
}

fn open(store: &MemoryStore) -> DraftSlot {
    DraftSlot::open(store, KEY, Some(example()))
}

#[test]
fn opening_a_page_writes_nothing_and_the_first_pause_after_an_edit_saves() {
    let mut store = MemoryStore::default();
    let mut slot = open(&store);
    assert_eq!(slot.restore(&mut store), Restored::Nothing);
    assert_eq!(slot.flush(&mut store, &tab_with(None)), None, "nothing was edited");
    assert_eq!(store.entries().count(), 0);

    slot.edited();
    assert!(slot.is_unsaved());
    assert_eq!(slot.save(&mut store, &tab_with(Some("mine"))), Saved::Stored);
    assert!(!slot.is_unsaved());
    assert_eq!(stored(&store, KEY).as_deref(), Some("mine"));
}

#[test]
fn a_draft_survives_a_reload_and_reset_removes_it() {
    let mut store = MemoryStore::default();
    let mut slot = open(&store);
    slot.edited();
    slot.save(&mut store, &tab_with(Some("mine")));

    let mut reloaded = open(&store);
    let Restored::Draft(session) = reloaded.restore(&mut store) else { panic!("no draft") };
    assert_eq!(skill_text(&session), "mine");

    // Reset: the example itself is stored as no draft at all.
    reloaded.edited();
    assert_eq!(reloaded.save(&mut store, &tab_with(None)), Saved::Removed);
    assert_eq!(store.get(KEY), None);
    assert_eq!(open(&store).restore(&mut store), Restored::Nothing);
}

#[test]
fn a_stored_draft_that_is_the_example_itself_is_removed_on_opening() {
    let mut store = MemoryStore::default();
    store.set(KEY, &encode_draft(&tab_with(None))).unwrap();
    let mut slot = open(&store);
    assert_eq!(slot.restore(&mut store), Restored::Nothing);
    assert_eq!(store.get(KEY), None);
    // Its baseline follows: the next save is not mistaken for another tab's.
    slot.edited();
    assert_eq!(slot.save(&mut store, &tab_with(Some("mine"))), Saved::Stored);
}

#[test]
fn a_damaged_draft_is_kept_beside_with_its_error_and_the_next_save_does_not_touch_it() {
    let mut store = MemoryStore::default();
    store.set(KEY, "{ not a draft").unwrap();
    let mut slot = open(&store);
    let Restored::Damaged { error, kept_as } = slot.restore(&mut store) else { panic!() };
    assert!(matches!(error, DraftError::Malformed { line: 1, .. }), "{error:?}");
    assert_eq!(kept_as.as_deref(), Some("swaplab.draft.v1.tutorial.damaged"));

    slot.edited();
    assert_eq!(slot.save(&mut store, &tab_with(Some("new work"))), Saved::Stored);
    assert_eq!(store.get("swaplab.draft.v1.tutorial.damaged").as_deref(), Some("{ not a draft"));
}

#[test]
fn a_damaged_draft_in_a_full_storage_stays_where_it_is() {
    let mut store = MemoryStore::default();
    store.set(KEY, "{ not a draft").unwrap();
    store.refusing = Some("the storage for this site is full".to_owned());
    let mut slot = open(&store);
    let Restored::Damaged { kept_as, .. } = slot.restore(&mut store) else { panic!() };
    assert_eq!(kept_as, None, "the reader is not told of a copy that does not exist");
    assert_eq!(store.get(KEY).as_deref(), Some("{ not a draft"));
}

/// `e2e/storage.spec.mjs`: "two tabs editing one draft: the later save is held back,
/// and either choice keeps both".
#[test]
fn two_tabs_the_later_save_is_held_back_and_taking_theirs_keeps_mine_aside() {
    let mut store = MemoryStore::default();
    let (mut a, mut b) = (open(&store), open(&store));
    a.edited();
    assert_eq!(a.save(&mut store, &tab_with(Some("tab A"))), Saved::Stored);

    b.edited();
    assert!(b.changed_elsewhere(&store), "the storage event says so at once");
    assert_eq!(b.save(&mut store, &tab_with(Some("tab B"))), Saved::Conflict);
    assert_eq!(stored(&store, KEY).as_deref(), Some("tab A"), "nothing was written over");
    assert!(b.is_unsaved(), "B's edits still wait for a place");

    let theirs = b.take_theirs(&mut store, &tab_with(Some("tab B"))).unwrap();
    assert_eq!(theirs.as_ref().map(skill_text), Some("tab A"));
    assert_eq!(stored(&store, ASIDE).as_deref(), Some("tab B"));
    assert!(!b.changed_elsewhere(&store));
    // B now shows A's version; its next edit saves normally.
    b.edited();
    assert_eq!(b.save(&mut store, &tab_with(Some("tab A, then B"))), Saved::Stored);

    // And B can swap its own version back in: what is on screen goes aside.
    let kept = b.swap_aside(&mut store, &tab_with(Some("tab A, then B"))).unwrap();
    assert_eq!(skill_text(&kept), "tab B");
    assert_eq!(stored(&store, ASIDE).as_deref(), Some("tab A, then B"));
}

#[test]
fn two_tabs_keeping_mine_puts_theirs_aside_then_saves_mine() {
    let mut store = MemoryStore::default();
    let (mut a, mut b) = (open(&store), open(&store));
    a.edited();
    a.save(&mut store, &tab_with(Some("tab A")));
    b.edited();
    assert_eq!(b.save(&mut store, &tab_with(Some("tab B"))), Saved::Conflict);

    assert_eq!(b.keep_mine(&mut store, &tab_with(Some("tab B"))), Ok(Saved::Stored));
    assert_eq!(stored(&store, KEY).as_deref(), Some("tab B"));
    assert_eq!(stored(&store, ASIDE).as_deref(), Some("tab A"));
    // Tab A is now the one that has not seen the latest save.
    a.edited();
    assert_eq!(a.save(&mut store, &tab_with(Some("tab A again"))), Saved::Conflict);
}

#[test]
fn taking_theirs_after_the_other_tab_reset_shows_the_example_and_keeps_mine_aside() {
    let mut store = MemoryStore::default();
    let mut a = open(&store);
    a.edited();
    a.save(&mut store, &tab_with(Some("tab A")));
    // B opens on A's draft; then A goes back to the example.
    let mut b = open(&store);
    a.edited();
    assert_eq!(a.save(&mut store, &tab_with(None)), Saved::Removed, "A resets");
    b.edited();
    assert_eq!(b.save(&mut store, &tab_with(Some("tab B"))), Saved::Conflict);
    assert_eq!(b.take_theirs(&mut store, &tab_with(Some("tab B"))), Ok(None));
    assert_eq!(stored(&store, ASIDE).as_deref(), Some("tab B"));
}

#[test]
fn a_choice_that_cannot_keep_the_other_version_changes_nothing() {
    let mut store = MemoryStore::default();
    let (mut a, mut b) = (open(&store), open(&store));
    a.edited();
    a.save(&mut store, &tab_with(Some("tab A")));
    b.edited();
    b.save(&mut store, &tab_with(Some("tab B")));
    let before = store.clone();

    store.refusing = Some("the storage for this site is full".to_owned());
    let err = b.take_theirs(&mut store, &tab_with(Some("tab B"))).unwrap_err();
    assert!(err.contains("could not be kept aside, so nothing changed"), "{err}");
    let err = b.keep_mine(&mut store, &tab_with(Some("tab B"))).unwrap_err();
    assert!(err.contains("could not be kept aside, so nothing changed"), "{err}");
    store.refusing = None;
    assert_eq!(store, before);
    assert!(b.changed_elsewhere(&store), "B still has to choose");
}

#[test]
fn another_tabs_damaged_draft_is_not_taken_and_nothing_changes() {
    let mut store = MemoryStore::default();
    let mut b = open(&store);
    store.set(KEY, "{ damaged by the other tab").unwrap();
    b.edited();
    assert_eq!(b.save(&mut store, &tab_with(Some("tab B"))), Saved::Conflict);
    let err = b.take_theirs(&mut store, &tab_with(Some("tab B"))).unwrap_err();
    assert!(err.starts_with("The other tab's version could not be opened"), "{err}");
    assert_eq!(store.get(ASIDE), None);
    // Keeping mine still works, and keeps the damaged text aside.
    assert_eq!(b.keep_mine(&mut store, &tab_with(Some("tab B"))), Ok(Saved::Stored));
    assert_eq!(store.get(ASIDE).as_deref(), Some("{ damaged by the other tab"));
}

/// A tab whose save was held back, closed before the reader chose: its edits used to be
/// marked saved and dropped. They go aside.
#[test]
fn a_tab_that_leaves_while_its_save_is_held_back_puts_its_edits_aside() {
    let mut store = MemoryStore::default();
    let (mut a, mut b) = (open(&store), open(&store));
    a.edited();
    a.save(&mut store, &tab_with(Some("tab A")));
    b.edited();
    assert_eq!(b.save(&mut store, &tab_with(Some("tab B"))), Saved::Conflict);

    assert_eq!(b.flush(&mut store, &tab_with(Some("tab B"))), Some(Ok(ASIDE.to_owned())));
    assert_eq!(stored(&store, KEY).as_deref(), Some("tab A"));
    assert_eq!(stored(&store, ASIDE).as_deref(), Some("tab B"));
}

/// `e2e/storage.spec.mjs`: "leaving for another page of the app before the typing
/// pause saves the edits first", and "a link pasted over edits not yet saved".
#[test]
fn leaving_before_the_typing_pause_saves_the_edits_first() {
    let mut store = MemoryStore::default();
    let mut slot = open(&store);
    slot.edited();
    assert_eq!(slot.flush(&mut store, &tab_with(Some("typed"))), Some(Ok(KEY.to_owned())));
    assert_eq!(stored(&store, KEY).as_deref(), Some("typed"));
    assert_eq!(slot.flush(&mut store, &tab_with(Some("typed"))), None, "once is enough");
}

/// `e2e/storage.spec.mjs`: "a full storage: the edits stay on screen, can be
/// downloaded, and save once there is room".
#[test]
fn a_full_storage_keeps_the_edits_unsaved_until_there_is_room() {
    let mut store = MemoryStore::default();
    let mut slot = open(&store);
    store.refusing = Some("the storage for this site is full".to_owned());
    slot.edited();
    assert_eq!(
        slot.save(&mut store, &tab_with(Some("mine"))),
        Saved::Failed("the storage for this site is full".to_owned())
    );
    assert!(slot.is_unsaved());
    assert_eq!(
        slot.flush(&mut store, &tab_with(Some("mine"))),
        Some(Err("the storage for this site is full".to_owned()))
    );
    store.refusing = None;
    assert_eq!(slot.save(&mut store, &tab_with(Some("mine, more"))), Saved::Stored);
    assert_eq!(stored(&store, KEY).as_deref(), Some("mine, more"));
}

/// `e2e/storage.spec.mjs`: "a crash while typing … saves the latest edits": the
/// banner's rescue stores them in the draft's place, or beside another tab's save.
#[test]
fn a_crash_rescue_keeps_the_edits_in_place_or_beside_another_tabs_save() {
    let mut store = MemoryStore::default();
    let mut slot = open(&store);
    slot.edited();
    assert_eq!(
        slot.clone().keep_somewhere(&mut store, &tab_with(Some("typed"))),
        Ok(KEY.to_owned())
    );

    store.set(KEY, &encode_draft(&tab_with(Some("other tab")))).unwrap();
    let mut stale = open(&MemoryStore::default());
    assert_eq!(stale.keep_somewhere(&mut store, &tab_with(Some("typed"))), Ok(ASIDE.to_owned()));
    assert_eq!(stored(&store, KEY).as_deref(), Some("other tab"));
    assert_eq!(stored(&store, ASIDE).as_deref(), Some("typed"));
}

/// `e2e/share.spec.mjs`: "a link over a different draft asks first, and either answer
/// keeps the draft": opening the link puts the draft aside first.
#[test]
fn opening_a_link_over_a_draft_puts_the_draft_aside_first() {
    let mut store = MemoryStore::default();
    let mut slot = open(&store);
    slot.edited();
    slot.save(&mut store, &tab_with(Some("my draft")));
    slot.set_aside(&mut store, &tab_with(Some("my draft"))).unwrap();
    assert!(slot.has_aside(&store));
    assert_eq!(stored(&store, ASIDE).as_deref(), Some("my draft"));
}

#[test]
fn swapping_in_the_version_kept_aside_over_the_example_empties_the_slot() {
    let mut store = MemoryStore::default();
    store.set(ASIDE, &encode_draft(&tab_with(Some("set aside by a reset")))).unwrap();
    let slot = open(&store);
    let kept = slot.swap_aside(&mut store, &tab_with(None)).unwrap();
    assert_eq!(skill_text(&kept), "set aside by a reset");
    assert!(!slot.has_aside(&store), "the example itself is not kept aside");

    let err = slot.swap_aside(&mut store, &tab_with(None)).unwrap_err();
    assert!(err.contains("no longer in this browser's storage"), "{err}");
    store.set(ASIDE, "{ damaged").unwrap();
    let err = slot.swap_aside(&mut store, &tab_with(Some("x"))).unwrap_err();
    assert!(err.starts_with("The version kept aside could not be opened"), "{err}");
    assert_eq!(store.get(ASIDE).as_deref(), Some("{ damaged"), "nothing changed");
    slot.delete_aside(&mut store).unwrap();
    assert!(!slot.has_aside(&store));
}

/// `e2e/storage.spec.mjs`: "an exercise open in two tabs: the later save is held back,
/// and either version can be swapped back in". An exercise has no pristine version:
/// every version is stored.
#[test]
fn an_exercise_keeps_every_version_even_its_start() {
    let key = "swaplab.exercise.v1.01-point-at-the-leak";
    let mut store = MemoryStore::default();
    let mut a = DraftSlot::open(&store, key, None);
    let mut b = DraftSlot::open(&store, key, None);
    a.edited();
    assert_eq!(a.save(&mut store, &tab_with(None)), Saved::Stored, "the start is stored too");
    b.edited();
    assert_eq!(b.save(&mut store, &tab_with(Some("B's work"))), Saved::Conflict);
    let theirs = b.take_theirs(&mut store, &tab_with(Some("B's work"))).unwrap().unwrap();
    assert_eq!(skill_text(&theirs), skill_text(&tab_with(None)));
    let aside = format!("{key}.set-aside");
    assert_eq!(stored(&store, &aside).as_deref(), Some("B's work"));
    let kept = b.swap_aside(&mut store, &theirs).unwrap();
    assert_eq!(skill_text(&kept), "B's work");
    assert!(b.has_aside(&store), "the start went aside in its place");
}
