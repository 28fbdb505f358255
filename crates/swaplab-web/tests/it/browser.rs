//! Storage and the crash banner, against the real browser APIs.

use swaplab_core::session::{Session, encode_draft};
use swaplab_core::{Area, FileRef, Workspace};
use swaplab_web::browser::{
    LocalStorage, describe_js_error, draft_key, keys_with_prefix, load, remove, save,
};
use swaplab_web::draft::{DraftSlot, Saved};
use swaplab_web::panic_banner;
use wasm_bindgen_test::wasm_bindgen_test;

fn document() -> web_sys::Document {
    web_sys::window().unwrap().document().unwrap()
}

#[wasm_bindgen_test]
fn storage_round_trips_and_lists_by_prefix() {
    let key = draft_key("storage-test");
    save(&key, "hello").expect("a small value fits");
    assert_eq!(load(&key).as_deref(), Some("hello"));
    assert!(keys_with_prefix("swaplab.draft.v1.").contains(&key));
    remove(&key);
    assert_eq!(load(&key), None);
}

fn session_with(text: &str) -> Session {
    let mut workspace = Workspace::default();
    workspace.set_file(&FileRef::new(Area::After, "skills/x/skill.md"), text.to_owned());
    Session::new(None, workspace)
}

/// The draft protocol (tested natively over a map) against the real `localStorage`.
#[wasm_bindgen_test]
fn a_save_over_work_this_tab_has_not_seen_is_refused_and_writes_nothing() {
    let key = draft_key("save-over-test");
    remove(&key);
    remove(&format!("{key}.set-aside"));
    let mut slot = DraftSlot::open(&LocalStorage, key.clone(), None);
    // Nothing stored, nothing expected: the first save goes through.
    assert_eq!(slot.save(&mut LocalStorage, &session_with("mine")), Saved::Stored);
    // Another tab writes; this tab has not seen it.
    save(&key, "theirs").unwrap();
    slot.edited();
    assert_eq!(slot.save(&mut LocalStorage, &session_with("mine, edited")), Saved::Conflict);
    assert_eq!(load(&key).as_deref(), Some("theirs"), "the other tab's work is untouched");
    // Leaving now puts this tab's edits beside it.
    let aside = slot.flush(&mut LocalStorage, &session_with("mine, edited"));
    assert_eq!(aside, Some(Ok(format!("{key}.set-aside"))));
    assert_eq!(load(&key).as_deref(), Some("theirs"), "nor written over by the flush");
    assert_eq!(
        load(&format!("{key}.set-aside")),
        Some(encode_draft(&session_with("mine, edited")))
    );
    remove(&key);
    remove(&format!("{key}.set-aside"));
}

#[wasm_bindgen_test]
fn a_full_storage_gives_a_message_a_reader_can_act_on() {
    // Chromium allows about 5 M characters per origin; 6 M cannot fit.
    let huge = "x".repeat(6 * 1024 * 1024);
    let error = save("swaplab.test.huge", &huge).expect_err("the quota refuses it");
    assert!(error.contains("storage for this site is full"), "{error}");
    assert_eq!(load("swaplab.test.huge"), None);
}

#[wasm_bindgen_test]
fn js_errors_are_described_by_their_message() {
    let error = js_sys::Error::new("something specific");
    assert_eq!(describe_js_error(&error.into()), "something specific");
}

#[wasm_bindgen_test]
fn the_crash_banner_freezes_the_app_and_offers_a_way_out() {
    let document = document();
    let body = document.body().unwrap();
    let app = document.create_element("div").unwrap();
    app.set_id("app");
    body.append_child(&app).unwrap();
    save(&draft_key("banner-test"), "{\"version\":1}").unwrap();

    panic_banner::show("panicked at src/lib.rs:1:1:\nboom");

    let banner = document.get_element_by_id("crash-banner").expect("the banner is shown");
    assert_eq!(banner.get_attribute("role").as_deref(), Some("alert"));
    let text = banner.text_content().unwrap_or_default();
    assert!(text.contains("Something broke"), "{text}");
    assert!(text.contains("boom"), "the technical detail is there: {text}");
    assert!(app.has_attribute("inert"), "the dead app no longer takes input");

    let links = banner.query_selector_all("a").unwrap();
    let mut labels = Vec::new();
    for i in 0..links.length() {
        let link: web_sys::Element = wasm_bindgen::JsCast::unchecked_into(links.item(i).unwrap());
        labels.push((
            link.text_content().unwrap_or_default(),
            link.get_attribute("href").unwrap_or_default(),
        ));
    }
    let label_names: Vec<&str> = labels.iter().map(|(l, _)| l.as_str()).collect();
    assert_eq!(label_names, ["Reload", "Download drafts", "Reset draft"]);
    let download = &labels[1].1;
    assert!(download.starts_with("data:application/json"), "{download}");
    assert!(download.contains("banner-test"), "the stored draft is in the download");
    assert!(labels[2].1.ends_with("?reset-draft"), "{}", labels[2].1);

    // A second panic does not stack a second banner.
    panic_banner::show("again");
    assert_eq!(document.query_selector_all("#crash-banner").unwrap().length(), 1);

    banner.remove();
    app.remove();
    remove(&draft_key("banner-test"));
}
