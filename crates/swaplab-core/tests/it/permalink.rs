//! Permalinks: round trips in both forms, golden v1 links that must keep decoding, every
//! refusal, a deflate bomb that stops at the cap, and a seeded mutation run in which no
//! link panics.
// Tests read the golden links from disk, time the mutation run and print link lengths;
// the core does none of that.
#![allow(clippy::disallowed_methods, clippy::disallowed_types, clippy::disallowed_macros)]

use std::path::PathBuf;
use std::sync::OnceLock;

use swaplab_core::permalink::{
    Form, Link, LinkError, MAX_FILES, MAX_FRAGMENT_CHARS, MAX_INFLATED_BYTES, WARN_LINK_CHARS,
    decode, encode, pack, unpack,
};
use swaplab_core::rasa::project::MAX_FILE_BYTES;
use swaplab_core::{FileRef, Workspace};

use crate::support::{edit, read_optional, tutorial_workspace};

const LOG_SKILL: &str = "after/skills/log_interaction/skill.md";

fn file(text: &str) -> FileRef {
    FileRef::parse(text).expect("a file ref")
}

/// The lookup the web app does: the built-in examples by id (the tutorial is read from
/// disk once).
fn examples(id: &str) -> Option<Workspace> {
    static TUTORIAL: OnceLock<Workspace> = OnceLock::new();
    (id == "tutorial").then(|| TUTORIAL.get_or_init(tutorial_workspace).clone())
}

fn no_examples(_: &str) -> Option<Workspace> {
    None
}

fn tutorial_link(workspace: Workspace, open: Option<&str>) -> Link {
    Link { example: Some("tutorial".into()), workspace, open: open.map(file) }
}

/// Encodes against the pristine tutorial, checks the form, decodes, and compares.
fn round_trip(link: &Link, base: Option<&Workspace>, form: Form) -> String {
    let encoded = encode(link, base);
    let tag = encoded.chars().nth(2).expect("a form tag");
    assert_eq!(Form::from_tag(tag), Some(form), "{encoded}");
    assert!(encoded.starts_with("v1"), "{encoded}");
    let decoded = decode(&encoded, &examples).unwrap_or_else(|e| panic!("{e}: {encoded}"));
    assert_eq!(&decoded, link);
    assert_eq!(decode(&format!("#{encoded}"), &examples).as_ref(), Ok(link), "with the '#'");
    assert_eq!(encode(&decoded, base), encoded, "deterministic");
    encoded
}

/// The tutorial with one prose line of the log_interaction skill changed.
fn one_line_edit() -> Workspace {
    let mut workspace = tutorial_workspace();
    edit(&mut workspace, LOG_SKILL, "Keep them short and factual", "Keep them brief and factual");
    workspace
}

#[test]
fn the_untouched_tutorial_is_a_very_short_example_link() {
    let pristine = tutorial_workspace();
    let encoded =
        round_trip(&tutorial_link(pristine.clone(), None), Some(&pristine), Form::Example);
    println!("untouched tutorial: {} characters: {encoded}", encoded.len());
    assert!(encoded.len() < 40, "{encoded}");
}

#[test]
fn one_edited_line_is_an_example_link_well_under_the_warning_length() {
    let pristine = tutorial_workspace();
    let link = tutorial_link(one_line_edit(), Some(LOG_SKILL));
    let encoded = round_trip(&link, Some(&pristine), Form::Example);
    println!("one edited line: {} characters: {encoded}", encoded.len());
    assert!(encoded.len() < WARN_LINK_CHARS / 10, "{}: {encoded}", encoded.len());
    let full = encode(&link, None);
    println!("the same workspace in the full form: {} characters", full.len());
    assert!(full.len() > 4 * encoded.len());
}

#[test]
fn a_moved_confirmation_round_trips() {
    let pristine = tutorial_workspace();
    let mut workspace = pristine.clone();
    let block = "tool_constraints:\n  - add_timeline_note:\n      requires_confirmation:\n        \
                 enabled: true\n        utter_for_confirmation: utter_confirm_note\n        \
                 utter_on_user_denial: utter_note_cancelled\n";
    edit(&mut workspace, LOG_SKILL, block, "");
    edit(
        &mut workspace,
        "after/skills/check_tickets/skill.md",
        "  - mcp/hubspot_crm:list_open_tickets\n",
        &format!(
            "  - mcp/hubspot_crm:list_open_tickets\n{}",
            block.replace("add_timeline_note", "list_open_tickets")
        ),
    );
    let link = tutorial_link(workspace, Some("after/skills/check_tickets/skill.md"));
    let encoded = round_trip(&link, Some(&pristine), Form::Example);
    println!("confirmation moved: {} characters", encoded.len());
    assert!(encoded.len() < WARN_LINK_CHARS / 4, "{encoded}");
}

#[test]
fn an_added_and_a_deleted_file_round_trip() {
    let pristine = tutorial_workspace();
    let mut workspace = pristine.clone();
    let removed = file("before/skills/check_tickets/tools.py");
    assert!(workspace.remove_file(&removed).is_some());
    workspace.set_file(&file("server/scripts/notes.py"), "def note():\n    return 1\n");
    workspace.set_file(&file("crm/extra.yml"), "");
    let link = tutorial_link(workspace, Some("server/scripts/notes.py"));
    let encoded = round_trip(&link, Some(&pristine), Form::Example);
    println!("added and deleted: {} characters", encoded.len());
}

#[test]
fn many_scattered_edits_and_a_rewritten_file_round_trip() {
    let pristine = tutorial_workspace();
    let mut workspace = pristine.clone();
    let server = file("server/scripts/mcp_crm_server.py");
    let text = workspace.file(&server).unwrap().to_owned();
    let edited: String = text
        .split_inclusive('\n')
        .enumerate()
        .filter(|(n, _)| n % 7 != 3)
        .map(|(n, line)| if n % 5 == 0 { format!("# {n}\n{line}") } else { line.to_owned() })
        .collect();
    workspace.set_file(&server, edited.trim_end_matches('\n'));
    workspace.set_file(&file("after/memory.yml"), "all: new\n");
    round_trip(&tutorial_link(workspace, None), Some(&pristine), Form::Example);
}

#[test]
fn without_a_base_the_link_is_the_full_state() {
    let link = tutorial_link(one_line_edit(), Some(LOG_SKILL));
    let encoded = round_trip(&link, None, Form::Full);
    println!("full tutorial: {} characters", encoded.len());
    assert!(encoded.len() > WARN_LINK_CHARS, "the full tutorial is a long link");
    // A workspace with no example at all.
    let mut workspace = Workspace::default();
    workspace.set_file(&file("before/agent.yml"), "x: 1\n");
    round_trip(&Link { example: None, workspace, open: None }, None, Form::Full);
    // An empty workspace.
    round_trip(&Link::default(), None, Form::Full);
}

#[test]
fn a_rewritten_workspace_falls_back_to_the_full_form() {
    let pristine = tutorial_workspace();
    let mut workspace = Workspace::default();
    workspace.set_file(&file("before/agent.yml"), "tiny: true\n");
    round_trip(&tutorial_link(workspace, None), Some(&pristine), Form::Full);
}

#[test]
fn unicode_text_and_paths_round_trip() {
    let pristine = tutorial_workspace();
    let mut workspace = pristine.clone();
    edit(&mut workspace, LOG_SKILL, "Keep them short", "Halte sie kurz — «ça va» 日本語 🚀\r\n");
    workspace.set_file(&file("crm/données/é.yml"), "name: Zoë 👩‍💻\nno newline at end");
    let link = tutorial_link(workspace.clone(), Some("crm/données/é.yml"));
    round_trip(&link, Some(&pristine), Form::Example);
    round_trip(&link, None, Form::Full);
}

#[test]
fn encoding_does_not_depend_on_insertion_order_and_drops_a_missing_open_file() {
    let files = [("after/b.md", "b\n"), ("before/a.md", "a\n"), ("after/a.md", "é\n")];
    let mut forward = Workspace::default();
    let mut backward = Workspace::default();
    for (path, text) in files {
        forward.set_file(&file(path), text);
    }
    for (path, text) in files.iter().rev() {
        backward.set_file(&file(path), *text);
    }
    let link = |workspace| Link { example: None, workspace, open: Some(file("crm/none.yml")) };
    let (a, b) = (encode(&link(forward), None), encode(&link(backward), None));
    assert_eq!(a, b);
    assert_eq!(decode(&a, &no_examples).unwrap().open, None);
}

// --- golden links -----------------------------------------------------------------------

fn golden_dir() -> PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/permalinks")
}

/// A committed v1 link. Golden links are never rewritten (old links must keep decoding);
/// `SWAPLAB_BLESS=1` only writes one that is missing.
fn golden(name: &str, make: impl FnOnce() -> String) -> String {
    let path = golden_dir().join(name);
    if let Some(text) = read_optional(&path) {
        return text.trim_end().to_owned();
    }
    assert!(
        std::env::var_os("SWAPLAB_BLESS").is_some(),
        "{} is missing (SWAPLAB_BLESS=1 writes a missing golden link)",
        path.display()
    );
    let link = make();
    std::fs::create_dir_all(golden_dir()).unwrap();
    std::fs::write(&path, format!("{link}\n")).unwrap();
    link
}

fn golden_full_workspace() -> Workspace {
    let mut workspace = Workspace::default();
    workspace.set_file(&file("before/skills/greet/skill.md"), "---\nname: greet\n---\nSay hi.\n");
    workspace
        .set_file(&file("after/skills/greet/skill.md"), "---\nname: greet\n---\nGrüß Gott 👋\n");
    workspace.set_file(&file("server/server.py"), "# no newline at the end");
    workspace
}

#[test]
fn golden_v1_links_still_decode() {
    let pristine = tutorial_workspace();

    let untouched = golden("v1-tutorial-untouched.txt", || {
        encode(&tutorial_link(pristine.clone(), None), Some(&pristine))
    });
    assert!(untouched.starts_with("v1e"));
    assert_eq!(decode(&untouched, &examples), Ok(tutorial_link(pristine.clone(), None)));

    let one_line = golden("v1-tutorial-one-line.txt", || {
        encode(&tutorial_link(one_line_edit(), Some(LOG_SKILL)), Some(&pristine))
    });
    assert!(one_line.starts_with("v1e"));
    assert_eq!(
        decode(&one_line, &examples),
        Ok(tutorial_link(one_line_edit(), Some(LOG_SKILL))),
        "v1-tutorial-one-line.txt patches the tutorial's {LOG_SKILL}: if that file changed, \
         old links to it are refused (PatchDoesNotApply), which is a decision to make knowingly"
    );

    let full = golden("v1-full-unicode.txt", || {
        let link = Link {
            example: None,
            workspace: golden_full_workspace(),
            open: Some(file("after/skills/greet/skill.md")),
        };
        encode(&link, None)
    });
    assert!(full.starts_with("v1f"));
    // Written by miniz_oxide at level 9, a dynamic-Huffman block: the decoder reads any
    // zlib stream, not only the fixed-code blocks this encoder writes.
    assert_eq!(base64_decode(&full[3..])[2] >> 1 & 3, 2, "a dynamic-Huffman block");
    assert_eq!(
        decode(&full, &no_examples),
        Ok(Link {
            example: None,
            workspace: golden_full_workspace(),
            open: Some(file("after/skills/greet/skill.md")),
        })
    );

    // The example form's other two changes: a file deleted and one added whole.
    let added_deleted = golden("v1-tutorial-added-deleted.txt", || {
        encode(&tutorial_link(added_and_deleted(), Some(ADDED)), Some(&pristine))
    });
    assert!(added_deleted.starts_with("v1e"));
    assert_eq!(
        decode(&added_deleted, &examples),
        Ok(tutorial_link(added_and_deleted(), Some(ADDED))),
        "v1-tutorial-added-deleted.txt deletes {DELETED} from the tutorial: if the tutorial \
         loses that file, the link is refused (PatchDoesNotApply)"
    );

    // The full form as this encoder writes it (fixed Huffman codes), with an example id
    // as its label and no open file.
    let labelled = golden("v1-full-labelled.txt", || {
        encode(
            &Link { example: Some("tutorial".into()), workspace: labelled_workspace(), open: None },
            None,
        )
    });
    assert!(labelled.starts_with("v1f"));
    assert_eq!(base64_decode(&labelled[3..])[2] >> 1 & 3, 1, "a fixed-Huffman block");
    assert_eq!(
        decode(&labelled, &no_examples),
        Ok(Link { example: Some("tutorial".into()), workspace: labelled_workspace(), open: None })
    );
}

const DELETED: &str = "before/skills/check_tickets/tools.py";
const ADDED: &str = "crm/notes/added.yml";

/// The tutorial with one tool module deleted and a CRM file added.
fn added_and_deleted() -> Workspace {
    let mut workspace = tutorial_workspace();
    assert!(workspace.remove_file(&file(DELETED)).is_some());
    workspace.set_file(&file(ADDED), "name: Zoë\nnote: added by a link\n");
    workspace
}

fn labelled_workspace() -> Workspace {
    let mut workspace = Workspace::default();
    workspace.set_file(&file("after/agent.yml"), "language: en\n");
    workspace.set_file(&file("crm/crm.yml"), "contacts: []\ntickets: []\n");
    workspace
}

#[test]
fn golden_links_cover_every_version_and_form() {
    // Each file is `v<version>-…`; each form of each version this build reads has one.
    let mut forms = std::collections::BTreeSet::new();
    for entry in std::fs::read_dir(golden_dir()).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        let link = read_optional(&golden_dir().join(&name)).unwrap();
        let link = link.trim_end();
        assert!(name.starts_with(&link[..2]), "{name} holds a {} link", &link[..2]);
        forms.insert(link[..3].to_owned());
    }
    assert_eq!(forms.into_iter().collect::<Vec<_>>(), ["v1e", "v1f"]);
}

// --- refusals ---------------------------------------------------------------------------

/// LEB128, as the payload writes lengths and counts.
fn varint(out: &mut Vec<u8>, mut value: usize) {
    loop {
        let byte = (value & 0x7f) as u8;
        value >>= 7;
        if value == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

fn string(out: &mut Vec<u8>, bytes: &[u8]) {
    varint(out, bytes.len());
    out.extend_from_slice(bytes);
}

/// A full-form payload: no example, no open file, then `files` as (area, path, text).
fn full_payload(files: &[(u8, &[u8], &[u8])]) -> Vec<u8> {
    let mut out = vec![0, 0];
    varint(&mut out, files.len());
    for (area, path, text) in files {
        out.push(*area);
        string(&mut out, path);
        string(&mut out, text);
    }
    out
}

/// An example-form payload for the tutorial with one change entry (area, path, change).
fn example_payload(id: &str, area: u8, path: &str, change: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    string(&mut out, id.as_bytes());
    out.push(0);
    varint(&mut out, 1);
    out.push(area);
    string(&mut out, path.as_bytes());
    out.extend_from_slice(change);
    out
}

fn fnv1a(bytes: &[u8]) -> u32 {
    bytes.iter().fold(0x811c_9dc5, |hash, &b| (hash ^ u32::from(b)).wrapping_mul(0x0100_0193))
}

fn decode_payload(form: Form, payload: &[u8]) -> Result<Link, LinkError> {
    decode(&pack(form, payload), &examples)
}

/// Checks the error and that its banner text is one sentence saying the page kept the
/// default example.
fn refused(result: Result<Link, LinkError>) -> LinkError {
    let error = result.expect_err("refused");
    let text = error.to_string();
    assert!(text.starts_with("This link"), "{text}");
    assert!(text.ends_with("so the page kept the default example."), "{text}");
    assert_eq!(text.matches(". ").count(), 0, "one sentence: {text}");
    error
}

#[test]
fn an_empty_fragment_is_refused() {
    assert_eq!(refused(decode("", &examples)), LinkError::Empty);
    assert_eq!(refused(decode("#", &examples)), LinkError::Empty);
}

#[test]
fn unknown_versions_are_named() {
    let newer = refused(decode("#v2eAAAA", &examples));
    assert_eq!(newer, LinkError::UnknownVersion { version: "v2".into() });
    assert_eq!(
        newer.to_string(),
        "This link was made by a newer version of Swap Lab (v2) than this page (v1), so the \
         page kept the default example."
    );
    let v10 = refused(decode("v10fAAAA", &examples));
    assert_eq!(v10, LinkError::UnknownVersion { version: "v10".into() });
    assert!(v10.to_string().contains("newer"));
    let v0 = refused(decode("v0fAAAA", &examples));
    assert_eq!(v0, LinkError::UnknownVersion { version: "v0".into() });
    assert!(!v0.to_string().contains("newer"), "{v0}");
    let none = refused(decode("eJzLSM3JyVcozy_KSQEAGgQEXQ", &examples));
    assert_eq!(none, LinkError::UnknownVersion { version: String::new() });
    assert!(none.to_string().contains("does not start with a Swap Lab format version"));
    assert_eq!(
        refused(decode("v99999999999999999999e", &examples)),
        LinkError::UnknownVersion { version: format!("v{}", "9".repeat(11)) },
        "a long version is cut, not parsed"
    );
}

#[test]
fn an_oversized_fragment_is_refused_before_decoding() {
    let long = format!("v1f{}", "A".repeat(MAX_FRAGMENT_CHARS));
    assert_eq!(
        refused(decode(&long, &examples)),
        LinkError::TooLong { chars: MAX_FRAGMENT_CHARS + 3 }
    );
    // Garbage past the cap is not even looked at.
    let long = format!("v1f{}", "!".repeat(10 * MAX_FRAGMENT_CHARS));
    assert!(matches!(refused(decode(&long, &examples)), LinkError::TooLong { .. }));
}

#[test]
fn characters_outside_url_safe_base64_are_refused_with_their_position() {
    assert_eq!(refused(decode("v1f!!!!", &examples)), LinkError::NotBase64 { at: 3 });
    assert_eq!(refused(decode("#v1fAB+/", &examples)), LinkError::NotBase64 { at: 6 });
    assert_eq!(refused(decode("v1fAAAA=", &examples)), LinkError::NotBase64 { at: 7 });
    assert_eq!(refused(decode("v1fAAé", &examples)), LinkError::NotBase64 { at: 5 });
    // Lengths and trailing bits that the encoder never writes.
    assert_eq!(refused(decode("v1fAAAAA", &examples)), LinkError::NotBase64 { at: 7 });
    assert_eq!(refused(decode("v1fAB", &examples)), LinkError::NotBase64 { at: 4 });
}

#[test]
fn damaged_compressed_data_is_refused() {
    let link = encode(&tutorial_link(one_line_edit(), None), Some(&tutorial_workspace()));
    // Cut short, in the compressed bytes (a cut in the text is usually not base64).
    let deflated = base64_decode(&link[3..]);
    for keep in [0, 1, 2, deflated.len() / 2, deflated.len() - 5, deflated.len() - 1] {
        let cut = format!("v1e{}", base64_encode(&deflated[..keep]));
        assert!(matches!(refused(decode(&cut, &examples)), LinkError::Inflate { .. }), "{keep}");
    }
    // Not a zlib stream at all.
    assert!(matches!(refused(decode("v1fAAAA", &examples)), LinkError::Inflate { .. }));
    assert!(matches!(refused(decode("v1e", &examples)), LinkError::Inflate { .. }));
    // The checksum catches a flipped bit in the compressed data.
    let mut deflated = deflated;
    let last = deflated.len() - 1;
    deflated[last] ^= 0x10;
    let flipped = format!("v1e{}", base64_encode(&deflated));
    let error = refused(decode(&flipped, &examples));
    assert_eq!(error, LinkError::Inflate { reason: "its checksum does not match".into() });
}

#[test]
fn a_deflate_bomb_stops_at_the_cap() {
    let started = std::time::Instant::now();
    // 25,000 matches of 258 zeros: 6.4 MB from a 54,000-character link.
    let bomb = format!("v1f{}", base64_encode(&zeros_stream(25_000)));
    assert!(bomb.len() < MAX_FRAGMENT_CHARS, "{}", bomb.len());
    assert_eq!(
        refused(decode(&bomb, &examples)),
        LinkError::TooLarge { bytes: MAX_INFLATED_BYTES }
    );
    // 100 MB of zeros: the link alone is over the length cap.
    let bomb = format!("v1f{}", base64_encode(&zeros_stream(100 * 1024 * 1024 / 258)));
    assert!(matches!(refused(decode(&bomb, &examples)), LinkError::TooLong { .. }));
    // And what the encoder itself makes of 3 MiB of zeros.
    let packed = pack(Form::Full, &vec![0; 3 * 1024 * 1024]);
    assert!(packed.len() < MAX_FRAGMENT_CHARS);
    assert_eq!(unpack(&packed).unwrap_err(), LinkError::TooLarge { bytes: MAX_INFLATED_BYTES });
    println!("bombs refused in {:?}", started.elapsed());
}

#[test]
fn malformed_payloads_are_refused() {
    let cases: [(Form, Vec<u8>, &str); 9] = [
        (Form::Full, vec![], "its data ends inside example id"),
        (Form::Full, vec![0, 0, 0, 7], "1 bytes follow the last file"),
        (
            Form::Full,
            vec![0, 0, 0xff, 0xff, 0xff, 0xff, 0x7f],
            "the file count is an impossible number",
        ),
        (Form::Full, vec![0, 0, 1, 0, 5, b'a'], "its data ends inside a path"),
        (
            Form::Full,
            [&[3, b'a', b'/', b'b'][..], &[0, 0]].concat(),
            "\"a/b\" is not an example id",
        ),
        (Form::Example, vec![0, 0, 0], "the example form names no example"),
        (Form::Example, example_payload("tutorial", 0, "x.md", &[9]), "9 is not a kind of change"),
        (
            Form::Full,
            full_payload(&[(1, b"b.md", b""), (1, b"a.md", b"")]),
            "after/a.md is out of order or repeated",
        ),
        (
            Form::Full,
            full_payload(&[(1, b"a.md", b""), (1, b"a.md", b"")]),
            "after/a.md is out of order or repeated",
        ),
    ];
    for (form, payload, what) in cases {
        assert_eq!(
            refused(decode_payload(form, &payload)),
            LinkError::Malformed { what: what.into() },
            "{payload:?}"
        );
    }
    assert_eq!(
        refused(decode("v1", &examples)),
        LinkError::Malformed { what: "nothing follows the version".into() }
    );
    assert_eq!(
        refused(decode("v1xAAAA", &examples)),
        LinkError::Malformed { what: "'x' is not a link form".into() }
    );
}

#[test]
fn too_many_files_are_refused_before_they_are_read() {
    let mut payload = vec![0, 0];
    varint(&mut payload, MAX_FILES + 1);
    assert_eq!(
        refused(decode_payload(Form::Full, &payload)),
        LinkError::TooManyFiles { count: MAX_FILES + 1 }
    );
    // Exactly the cap is fine.
    let paths: Vec<String> = (0..MAX_FILES).map(|n| format!("f{n:05}")).collect();
    let files: Vec<(u8, &[u8], &[u8])> =
        paths.iter().map(|p| (2, p.as_bytes(), &b""[..])).collect();
    assert_eq!(
        decode_payload(Form::Full, &full_payload(&files)).unwrap().workspace.len(),
        MAX_FILES
    );
    // Added files on top of the example's count too.
    let mut payload = Vec::new();
    string(&mut payload, b"tutorial");
    payload.push(0);
    varint(&mut payload, MAX_FILES);
    for path in &paths {
        payload.push(2);
        string(&mut payload, path.as_bytes());
        payload.extend_from_slice(&[1, 0]);
    }
    let count = MAX_FILES + tutorial_workspace().len();
    assert_eq!(refused(decode_payload(Form::Example, &payload)), LinkError::TooManyFiles { count });
}

#[test]
fn oversized_files_are_refused_by_their_declared_length() {
    let mut payload = vec![0, 0, 1, 2];
    string(&mut payload, b"big.md");
    varint(&mut payload, MAX_FILE_BYTES + 1);
    assert_eq!(
        refused(decode_payload(Form::Full, &payload)),
        LinkError::FileTooLarge { path: "server/big.md".into(), bytes: MAX_FILE_BYTES + 1 }
    );
    // A patch cannot grow a file past the cap either.
    let base = tutorial_workspace().file(&file(LOG_SKILL)).unwrap().to_owned();
    let mut change = vec![2];
    change.extend_from_slice(&fnv1a(base.as_bytes()).to_le_bytes());
    varint(&mut change, 1);
    varint(&mut change, 0);
    varint(&mut change, 0);
    string(&mut change, &vec![b'x'; MAX_FILE_BYTES]);
    let payload = example_payload("tutorial", 1, "skills/log_interaction/skill.md", &change);
    assert_eq!(
        refused(decode_payload(Form::Example, &payload)),
        LinkError::FileTooLarge { path: LOG_SKILL.into(), bytes: MAX_FILE_BYTES + base.len() }
    );
}

#[test]
fn paths_that_break_the_file_ref_rules_are_refused() {
    // The one path rule the editor, the import and every load use (`path_problem`).
    let cases: [(u8, &[u8], &str); 13] = [
        (0, b"../etc/passwd", "climbs out of its folder with “..”"),
        (0, b"skills/../../x", "climbs out of its folder with “..”"),
        (1, b"..", "climbs out of its folder with “..”"),
        (1, b"/etc/passwd", "starts with “/”"),
        (2, b"a\0b", "contains a control character"),
        (2, b"a\x1b[31mb", "contains a control character"),
        (0, b"skills\\x\\skill.md", "contains “\\”: folders are separated by “/”"),
        (0, b"skills//skill.md", "has an empty folder name (“//”)"),
        (0, b"skills/", "ends with “/”, which names a folder"),
        (0, b"./skill.md", "has a “.” folder"),
        (2, b"", "is empty"),
        (9, b"x.md", "is in no known area"),
        (3, b"\xff.yml", "is not valid UTF-8"),
    ];
    for (area, path, reason) in cases {
        let error = refused(decode_payload(Form::Full, &full_payload(&[(area, path, b"x")])));
        assert_eq!(
            error,
            LinkError::BadPath { path: String::from_utf8_lossy(path).into_owned(), reason },
        );
    }
    // The open file is held to the same rules.
    let payload = [&[0, 2][..], &[1, b'/'][..], &[0]].concat();
    assert!(matches!(
        refused(decode_payload(Form::Full, &payload)),
        LinkError::BadPath { reason: "starts with “/”", .. }
    ));
    // `..` inside a name is a name.
    let ok = decode_payload(Form::Full, &full_payload(&[(0, b"a..b/..c", b"x")])).unwrap();
    assert_eq!(ok.workspace.len(), 1);
}

#[test]
fn text_that_is_not_utf8_is_refused() {
    let error = refused(decode_payload(Form::Full, &full_payload(&[(0, b"a.md", b"ok \xc3\x28")])));
    assert_eq!(error, LinkError::NotUtf8 { what: "file before/a.md".into() });
    let error = refused(decode_payload(Form::Full, &[1, 0xff, 0, 0]));
    assert_eq!(error, LinkError::NotUtf8 { what: "example id".into() });
}

#[test]
fn an_unknown_example_is_named() {
    let link = encode(&tutorial_link(one_line_edit(), None), Some(&tutorial_workspace()));
    let error = refused(decode(&link, &no_examples));
    assert_eq!(error, LinkError::UnknownExample { id: "tutorial".into() });
    assert!(error.to_string().contains("\"tutorial\""), "{error}");
    // The full form carries the id as a label and needs no lookup.
    let full = encode(&tutorial_link(one_line_edit(), None), None);
    assert_eq!(decode(&full, &no_examples).unwrap().example.as_deref(), Some("tutorial"));
}

#[test]
fn patches_that_do_not_apply_are_refused() {
    // Made against another version of the example.
    let mut older = tutorial_workspace();
    edit(&mut older, LOG_SKILL, "Write one or two", "Write two or three");
    let mut workspace = older.clone();
    edit(&mut workspace, LOG_SKILL, "Keep them short", "Keep them brief");
    let link = encode(&tutorial_link(workspace, None), Some(&older));
    assert!(link.starts_with("v1e"));
    let error = refused(decode(&link, &examples));
    assert_eq!(
        error,
        LinkError::PatchDoesNotApply {
            file: LOG_SKILL.into(),
            reason: "the example's file has changed since the link was made".into()
        }
    );

    let base = tutorial_workspace().file(&file(LOG_SKILL)).unwrap().to_owned();
    let lines = base.lines().count();
    let patch = |skip: usize, remove: usize| {
        let mut change = vec![2];
        change.extend_from_slice(&fnv1a(base.as_bytes()).to_le_bytes());
        varint(&mut change, 1);
        varint(&mut change, skip);
        varint(&mut change, remove);
        string(&mut change, b"x\n");
        example_payload("tutorial", 1, "skills/log_interaction/skill.md", &change)
    };
    // Up to the last line applies; one more does not.
    assert!(decode_payload(Form::Example, &patch(lines - 1, 1)).is_ok());
    assert!(decode_payload(Form::Example, &patch(lines, 0)).is_ok());
    assert_eq!(
        refused(decode_payload(Form::Example, &patch(lines, 1))),
        LinkError::PatchDoesNotApply {
            file: LOG_SKILL.into(),
            reason: format!("edit 1 reaches past the file's {lines} lines")
        }
    );
    assert!(matches!(
        refused(decode_payload(Form::Example, &patch(u32::MAX as usize, u32::MAX as usize))),
        LinkError::PatchDoesNotApply { .. }
    ));
    // Deleting or patching a file the example does not have.
    for (change, reason) in [
        (vec![0], "it deletes a file the example does not have"),
        (vec![2, 0, 0, 0, 0, 0], "it patches a file the example does not have"),
    ] {
        let payload = example_payload("tutorial", 1, "skills/none.md", &change);
        assert_eq!(
            refused(decode_payload(Form::Example, &payload)),
            LinkError::PatchDoesNotApply {
                file: "after/skills/none.md".into(),
                reason: reason.into()
            }
        );
    }
}

#[test]
fn every_refusal_reads_as_one_banner_sentence() {
    let errors = [
        LinkError::Empty,
        LinkError::UnknownVersion { version: "v2".into() },
        LinkError::UnknownVersion { version: "v0".into() },
        LinkError::UnknownVersion { version: String::new() },
        LinkError::TooLong { chars: 70_000 },
        LinkError::NotBase64 { at: 3 },
        LinkError::Inflate { reason: "it is cut short".into() },
        LinkError::TooLarge { bytes: MAX_INFLATED_BYTES },
        LinkError::Malformed { what: "x".into() },
        LinkError::TooManyFiles { count: 2_001 },
        LinkError::FileTooLarge { path: "after/a.md".into(), bytes: 2 << 20 },
        LinkError::BadPath {
            path: "../a".into(), reason: "climbs out of its folder with “..”"
        },
        LinkError::NotUtf8 { what: "file after/a.md".into() },
        LinkError::UnknownExample { id: "nope".into() },
        LinkError::PatchDoesNotApply { file: "after/a.md".into(), reason: "x".into() },
    ];
    for error in errors {
        let text = refused(Err(error));
        println!("{text}");
    }
}

/// The encoder's own deflate, read back by miniz_oxide's inflater: every edge of LZ77
/// (no bytes, fewer than three, the longest match, the farthest distance, runs, noise).
#[test]
fn the_deflate_encoder_round_trips_through_an_independent_inflater() {
    let mut rng = Rng(0x5eed_de17);
    let mut noise = |len: usize, alphabet: usize| -> Vec<u8> {
        (0..len).map(|_| rng.below(alphabet) as u8).collect()
    };
    let text = tutorial_workspace().files().map(|(_, t)| t).collect::<String>().into_bytes();
    // A repeat exactly as far back as deflate reaches, and one a byte too far.
    let mut farthest = noise(32_768, 256);
    farthest.extend_from_within(..300);
    let mut too_far = noise(32_769, 256);
    too_far.extend_from_within(..300);
    let inputs: Vec<Vec<u8>> = vec![
        vec![],
        vec![7],
        vec![1, 2],
        b"aaa".to_vec(),
        vec![0; 258],
        vec![0; 259],
        vec![0; 100_000],
        (0..=255).collect(),
        noise(20_000, 256),
        noise(70_000, 3),
        b"abcabcabcabd".repeat(500),
        farthest,
        too_far,
        text.clone(),
    ];
    // The repeat at 32,768 bytes is a match; the one at 32,769 is 300 literals.
    assert!(pack(Form::Full, &inputs[11]).len() + 300 < pack(Form::Full, &inputs[12]).len());
    for input in inputs {
        let packed = pack(Form::Full, &input);
        let (form, payload) = unpack(&packed).expect("inflates");
        assert_eq!(form, Form::Full);
        assert!(payload == input, "{} bytes did not round trip", input.len());
    }
    let packed = pack(Form::Full, &text);
    println!("the tutorial's {} bytes pack into {} characters", text.len(), packed.len());
    assert!(packed.len() < text.len() / 2);
}

// --- the mutation run -------------------------------------------------------------------

/// A small deterministic generator (xorshift64*), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        usize::try_from(self.next() % (n.max(1) as u64)).unwrap_or(0)
    }
}

/// Decoding either succeeds with a link that re-encodes and decodes to itself, or fails
/// with an error whose banner text is well formed; it never panics.
fn check_mutant(fragment: &str, outcomes: &mut [usize; 2]) {
    match decode(fragment, &examples) {
        Ok(link) => {
            outcomes[0] += 1;
            let base = link.example.as_deref().and_then(examples);
            let again = encode(&link, base.as_ref());
            assert_eq!(decode(&again, &examples).as_ref(), Ok(&link), "{fragment}");
        }
        Err(error) => {
            outcomes[1] += 1;
            assert!(error.to_string().ends_with("kept the default example."));
        }
    }
}

#[test]
fn mutated_links_decode_or_are_refused_never_panic() {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let pristine = tutorial_workspace();
    let mut small = Workspace::default();
    small.set_file(&file("before/a.md"), "one\ntwo\n");
    small.set_file(&file("after/a.md"), "one\nthree\n");
    let seeds = [
        encode(&tutorial_link(pristine.clone(), None), Some(&pristine)),
        encode(&tutorial_link(one_line_edit(), Some(LOG_SKILL)), Some(&pristine)),
        encode(&Link { example: None, workspace: small, open: Some(file("after/a.md")) }, None),
        encode(&Link { example: None, workspace: golden_full_workspace(), open: None }, None),
    ];
    let mut rng = Rng(0x5eed_0104);
    let mut outcomes = [0usize; 2];
    let started = std::time::Instant::now();
    let mut runs = 0;
    // Text-level mutations: truncations, swapped characters, insertions, deletions.
    for _ in 0..1_500 {
        let seed = seeds[rng.below(seeds.len())].as_bytes();
        let mut copy = seed.to_vec();
        match rng.below(4) {
            0 => copy.truncate(rng.below(seed.len() + 1)),
            _ => {
                for _ in 0..=rng.below(3) {
                    let at = rng.below(copy.len());
                    match rng.below(3) {
                        0 => copy[at] = ALPHABET[rng.below(64)],
                        1 => copy.insert(at, ALPHABET[rng.below(64)]),
                        _ => {
                            copy.remove(at);
                        }
                    }
                    if rng.below(20) == 0 {
                        copy.insert(at, b"#!=+/ \x00\xc3"[rng.below(8)]);
                    }
                }
            }
        }
        check_mutant(&String::from_utf8_lossy(&copy), &mut outcomes);
        runs += 1;
    }
    // Payload-level mutations behind a valid checksum, to reach the structure checks.
    let payloads: Vec<(Form, Vec<u8>)> = seeds.iter().map(|s| unpack(s).unwrap()).collect();
    for _ in 0..1_500 {
        let (form, payload) = &payloads[rng.below(payloads.len())];
        let mut copy = payload.clone();
        for _ in 0..=rng.below(3) {
            if copy.is_empty() {
                break;
            }
            let at = rng.below(copy.len());
            match rng.below(4) {
                0 => copy[at] ^= 1 << rng.below(8),
                1 => copy[at] = [0, 1, 2, 3, 0x7f, 0x80, 0xff][rng.below(7)],
                2 => copy.truncate(at),
                _ => copy.insert(at, rng.next() as u8),
            }
        }
        check_mutant(&pack(*form, &copy), &mut outcomes);
        runs += 1;
    }
    let elapsed = started.elapsed();
    println!(
        "{runs} mutated links in {elapsed:?} ({:?} per thousand): {} decoded, {} refused",
        elapsed / (runs / 1_000),
        outcomes[0],
        outcomes[1]
    );
    assert_eq!(runs, 3_000);
    assert!(outcomes[0] > 0 && outcomes[1] > 1_000, "{outcomes:?}");
}

// --- helpers: raw deflate and base64, written independently of the core's -----------

fn base64_encode(bytes: &[u8]) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut bits = 0u32;
    let mut count = 0;
    let mut out = String::new();
    for &byte in bytes {
        bits = bits << 8 | u32::from(byte);
        count += 8;
        while count >= 6 {
            count -= 6;
            out.push(char::from(ALPHABET[(bits >> count & 63) as usize]));
        }
    }
    if count > 0 {
        out.push(char::from(ALPHABET[(bits << (6 - count) & 63) as usize]));
    }
    out
}

fn base64_decode(text: &str) -> Vec<u8> {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut bits = 0u32;
    let mut count = 0;
    let mut out = Vec::new();
    for c in text.bytes() {
        let value = ALPHABET.iter().position(|&a| a == c).expect("base64") as u32;
        bits = bits << 6 | value;
        count += 6;
        if count >= 8 {
            count -= 8;
            out.push((bits >> count) as u8);
        }
    }
    out
}

/// A zlib stream in one fixed-Huffman block: a literal zero, then `matches` copies of
/// 258 bytes at distance 1 — 13 bits for every 258 zeros.
fn zeros_stream(matches: usize) -> Vec<u8> {
    struct Bits {
        out: Vec<u8>,
        acc: u32,
        count: u32,
    }
    impl Bits {
        fn put(&mut self, value: u32, count: u32) {
            self.acc |= value << self.count;
            self.count += count;
            while self.count >= 8 {
                self.out.push(self.acc as u8);
                self.acc >>= 8;
                self.count -= 8;
            }
        }
        /// Huffman codes go most significant bit first.
        fn code(&mut self, code: u32, len: u32) {
            self.put(code.reverse_bits() >> (32 - len), len);
        }
    }
    let mut bits = Bits { out: vec![0x78, 0x01], acc: 0, count: 0 };
    bits.put(1, 1); // BFINAL
    bits.put(1, 2); // BTYPE = fixed Huffman
    bits.code(0b0011_0000, 8); // literal 0
    for _ in 0..matches {
        bits.code(0b1100_0101, 8); // length 258 (symbol 285)
        bits.code(0, 5); // distance 1
    }
    bits.code(0, 7); // end of block
    if bits.count > 0 {
        bits.put(0, 8 - bits.count);
    }
    let len = 1 + 258 * matches as u64;
    let adler = ((len % 65_521) << 16 | 1) as u32;
    bits.out.extend_from_slice(&adler.to_be_bytes());
    bits.out
}

#[test]
fn the_zeros_stream_is_a_valid_zlib_stream() {
    // Small enough to inflate whole: the bomb above is refused for its size, not its form.
    let packed = format!("v1f{}", base64_encode(&zeros_stream(10)));
    let (form, payload) = unpack(&packed).unwrap();
    assert_eq!((form, payload.len()), (Form::Full, 2_581));
    assert!(payload.iter().all(|&b| b == 0));
}

#[test]
fn a_dotenv_file_stays_out_of_every_link_and_its_example_travels() {
    let mut workspace = Workspace::default();
    workspace.set_file(&file("before/.env"), "HUBSPOT_ACCESS_TOKEN=pat-na1-real-secret\n");
    workspace.set_file(&file("before/.env.example"), "HUBSPOT_ACCESS_TOKEN=mock-token\n");
    workspace.set_file(&file("before/agent.yml"), "name: a\n");
    let link = Link { example: None, workspace, open: Some(file("before/.env")) };
    let encoded = encode(&link, None);
    let decoded = decode(&encoded, &no_examples).expect("decodes");
    let paths: Vec<String> = decoded.workspace.files().map(|(f, _)| f.to_string()).collect();
    assert_eq!(paths, ["before/.env.example", "before/agent.yml"]);
    assert_eq!(decoded.open, None, "the open file went with the .env");
    assert!(swaplab_core::permalink::is_private(&file("after/.env")));
    assert!(!swaplab_core::permalink::is_private(&file("after/.env.example")));
}
