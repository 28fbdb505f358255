//! Every documented cap, held at its edge: an input exactly at the limit is accepted and
//! one past it is refused (or cut) with a message that names the limit and, for a file's
//! content, the file, line and column. Inputs are built in code, at the size each cap
//! needs and no larger. RELIABILITY.md lists these caps with the test for each.

use swaplab_core::archive::{
    self, ArchiveError, MAX_ARCHIVE_BYTES, MAX_TOTAL_BYTES, Picked, read_files, read_zip,
};
use swaplab_core::diagnostic::{Diagnostic, Position, Span};
use swaplab_core::markdown::{self, Node, render, render_with_directives};
use swaplab_core::permalink::{
    self, Form, Link, LinkError, MAX_FILES, MAX_FRAGMENT_CHARS, MAX_INFLATED_BYTES, decode, encode,
    pack,
};
use swaplab_core::python::limits::{MAX_BRACKETS, MAX_INDENTS, MAX_NESTING, MAX_SIZE};
use swaplab_core::python::{Host, HostError, Outcome, PyValue, compile_module, tokenize};
use swaplab_core::rasa::condition;
use swaplab_core::rasa::project::{MAX_FILE_BYTES, MAX_PROJECT_FILES, read_project};
use swaplab_core::rasa::responses::read_responses;
use swaplab_core::rasa::skill::{MAX_SKILL_BYTES, compile_skill};
use swaplab_core::session::{
    Action, DraftError, MAX_DRAFT_BYTES, MAX_PATH_BYTES, Session, check, decode_draft, encode_draft,
};
use swaplab_core::sim::conversation::{MAX_TURNS, read_script};
use swaplab_core::sim::crm::{Crm, MAX_CRM_RECORDS, MAX_NOTES, read_seed};
use swaplab_core::sim::json::{self, MAX_JSON_BYTES, MAX_JSON_DEPTH};
use swaplab_core::yaml::{self, MAX_NODES};
use swaplab_core::{Area, FileRef, Project, Workspace};

fn file(text: &str) -> FileRef {
    FileRef::parse(text).expect("a file ref")
}

/// The one diagnostic with `code`, checked to name `file` at `line`:`column`.
fn one_at<'d>(
    diagnostics: &'d [Diagnostic],
    code: &str,
    file: &str,
    line: u32,
    column: u32,
) -> &'d Diagnostic {
    let found: Vec<&Diagnostic> = diagnostics.iter().filter(|d| d.code == code).collect();
    assert_eq!(found.len(), 1, "one {code}: {diagnostics:#?}");
    let diagnostic = found[0];
    assert_eq!(diagnostic.file, file, "{diagnostic}");
    assert_eq!(
        (diagnostic.span.start.line, diagnostic.span.start.column),
        (line, column),
        "{diagnostic}"
    );
    diagnostic
}

fn none_with(diagnostics: &[Diagnostic], code: &str) {
    let found: Vec<String> =
        diagnostics.iter().filter(|d| d.code == code).map(ToString::to_string).collect();
    assert!(found.is_empty(), "{found:#?}");
}

/// A skill of exactly `len` bytes.
fn skill(len: usize) -> String {
    let head = "---\ndescription: x\n---\n";
    format!("{head}{}", "y".repeat(len - head.len()))
}

// --- files: size and count -------------------------------------------------------------

#[test]
fn a_project_file_of_the_cap_is_read_and_one_byte_more_is_refused() {
    let at = read_project(&Project::from_files([("skills/a/skill.md", skill(MAX_FILE_BYTES))]));
    assert_eq!(at.loaded_skills().count(), 1);
    none_with(&at.diagnostics, "swaplab.limits.file_too_large");
    let over =
        read_project(&Project::from_files([("skills/a/skill.md", skill(MAX_FILE_BYTES + 1))]));
    assert_eq!(over.loaded_skills().count(), 0);
    let refusal =
        one_at(&over.diagnostics, "swaplab.limits.file_too_large", "skills/a/skill.md", 1, 1);
    assert_eq!(
        refusal.message,
        "skills/a/skill.md is 1048577 bytes; Swap Lab reads project files up to 1048576 bytes \
         and skipped it."
    );
}

#[test]
fn a_skill_of_the_cap_compiles_and_one_byte_more_is_refused_unparsed() {
    assert!(compile_skill("skills/a/skill.md", "a", &skill(MAX_SKILL_BYTES)).error.is_none());
    let over = compile_skill("skills/a/skill.md", "a", &skill(MAX_SKILL_BYTES + 1));
    let refusal =
        one_at(&over.diagnostics, "swaplab.limits.file_too_large", "skills/a/skill.md", 1, 1);
    assert_eq!(
        refusal.message,
        "skill.md is 1048577 bytes; Swap Lab reads skill files up to 1048576 bytes."
    );
}

#[test]
fn a_project_of_the_file_cap_is_read_and_one_file_more_is_cut_with_a_message() {
    let project = |count: usize| {
        Project::from_files((0..count).map(|n| (format!("notes/{n:05}.md"), String::new())))
    };
    none_with(
        &read_project(&project(MAX_PROJECT_FILES)).diagnostics,
        "swaplab.limits.too_many_files",
    );
    let over = read_project(&project(MAX_PROJECT_FILES + 1));
    let cut = one_at(&over.diagnostics, "swaplab.limits.too_many_files", "notes/02000.md", 1, 1);
    assert_eq!(
        cut.message,
        "The project has 2001 files; Swap Lab reads the first 2000 in path order and skipped \
         the other 1, from this one on."
    );
}

#[test]
fn an_area_takes_files_up_to_the_cap_by_adding_or_importing() {
    let area_of = |count: usize| {
        let mut workspace = Workspace::default();
        for n in 0..count {
            workspace.set_file(&FileRef::new(Area::After, format!("f{n:05}")), "");
        }
        workspace
    };
    // Adding the last file that fits, then one more.
    let add =
        |workspace: &Workspace| check(workspace, &Action::AddFile { file: file("after/new.md") });
    assert_eq!(add(&area_of(MAX_PROJECT_FILES - 1)), Ok(()));
    assert_eq!(
        add(&area_of(MAX_PROJECT_FILES)),
        Err("After the swap already holds 2000 files, the most an area can hold.".to_owned())
    );
    // Importing as many files as the cap, then one more.
    let import = |count: usize| Action::Import {
        area: Area::Server,
        files: (0..count).map(|n| (format!("g{n:05}.py"), String::new())).collect(),
        replace: true,
    };
    assert_eq!(check(&Workspace::default(), &import(MAX_PROJECT_FILES)), Ok(()));
    assert_eq!(
        check(&Workspace::default(), &import(MAX_PROJECT_FILES + 1)),
        Err("MCP server would hold 2001 files, over the limit of 2000, so nothing was imported."
            .to_owned())
    );
}

#[test]
fn an_import_takes_files_of_the_cap_and_refuses_one_byte_more() {
    let import = |len: usize| Action::Import {
        area: Area::Before,
        files: vec![("skills/a/skill.md".to_owned(), skill(len))],
        replace: false,
    };
    assert_eq!(check(&Workspace::default(), &import(MAX_FILE_BYTES)), Ok(()));
    assert_eq!(
        check(&Workspace::default(), &import(MAX_FILE_BYTES + 1)),
        Err("The import's file skills/a/skill.md is 1048577 bytes, over the 1048576-byte \
             limit, so nothing was imported."
            .to_owned())
    );
}

#[test]
fn a_path_of_the_cap_is_a_file_name_and_one_byte_more_is_refused() {
    let path = |len: usize| format!("after/{}", "p".repeat(len));
    let add =
        |len: usize| check(&Workspace::default(), &Action::AddFile { file: file(&path(len)) });
    assert_eq!(add(MAX_PATH_BYTES), Ok(()));
    let refused = add(MAX_PATH_BYTES + 1).expect_err("refused");
    assert!(refused.ends_with("” is longer than 1024 bytes."), "{refused}");
}

#[test]
fn picked_files_are_imported_up_to_the_count_and_total_caps() {
    let picked = |count: usize| -> Vec<(String, Picked)> {
        (0..count).map(|n| (format!("f{n:05}.md"), Picked::Bytes(b"x".to_vec()))).collect()
    };
    assert_eq!(read_files(picked(MAX_PROJECT_FILES)).unwrap().files.len(), MAX_PROJECT_FILES);
    let over = read_files(picked(MAX_PROJECT_FILES + 1)).unwrap_err();
    assert_eq!(over, ArchiveError::TooManyFiles { count: MAX_PROJECT_FILES + 1 });
    assert_eq!(over.to_string(), "The import holds 2001 files; Swap Lab imports at most 2000.");

    // Sixteen files of the per-file cap are the total cap exactly.
    let big = |n: usize, len: usize| (format!("big{n:02}.md"), Picked::Bytes(vec![b'x'; len]));
    let full: Vec<(String, Picked)> =
        (0..MAX_TOTAL_BYTES / MAX_FILE_BYTES).map(|n| big(n, MAX_FILE_BYTES)).collect();
    let read = read_files(full.clone()).unwrap();
    assert_eq!(read.files.iter().map(|(_, t)| t.len()).sum::<usize>(), MAX_TOTAL_BYTES);
    let mut over = full;
    over.push(big(99, 1));
    let refused = read_files(over).unwrap_err();
    assert_eq!(refused, ArchiveError::TotalTooLarge);
    assert_eq!(
        refused.to_string(),
        "The files hold more than 16 MiB of text together, the most Swap Lab imports at once."
    );
    // A file over the per-file cap is skipped and named, not read.
    let skipped = read_files(vec![big(0, MAX_FILE_BYTES + 1), big(1, 1)]).unwrap();
    assert_eq!(skipped.files.len(), 1);
    assert_eq!(skipped.skipped[0].path, "big00.md");
    assert_eq!(skipped.skipped[0].reason.to_string(), "over 1 MiB");
}

#[test]
fn an_archive_of_the_cap_is_opened_and_one_byte_more_is_refused_unread() {
    // The bytes are no zip, so the one at the cap is looked at (and found not to be one).
    let at = read_zip(&vec![0; MAX_ARCHIVE_BYTES]).unwrap_err();
    assert!(matches!(at, ArchiveError::NotZip | ArchiveError::Truncated), "{at:?}");
    let over = read_zip(&vec![0; MAX_ARCHIVE_BYTES + 1]).unwrap_err();
    assert_eq!(over, ArchiveError::TooLarge { bytes: MAX_ARCHIVE_BYTES + 1 });
    assert_eq!(
        over.to_string(),
        "The archive is 67108865 bytes; Swap Lab opens archives of up to 64 MiB."
    );
    assert!(!archive::looks_like_zip(&[0; 4]));
}

#[test]
fn a_draft_of_the_cap_is_read_and_one_byte_more_is_refused_unparsed() {
    // A draft whose one file makes the whole exactly the cap.
    let draft_of = |len: usize| {
        let mut workspace = Workspace::default();
        workspace.set_file(&file("after/a.md"), "z".repeat(len));
        encode_draft(&Session::new(None, workspace))
    };
    let overhead = draft_of(0).len();
    let at = draft_of(MAX_DRAFT_BYTES - overhead);
    assert_eq!(at.len(), MAX_DRAFT_BYTES);
    assert!(decode_draft(&at).is_ok());
    let over = draft_of(MAX_DRAFT_BYTES - overhead + 1);
    let refused = decode_draft(&over).unwrap_err();
    assert_eq!(refused, DraftError::TooLarge { bytes: MAX_DRAFT_BYTES + 1 });
    assert_eq!(
        refused.to_string(),
        "the saved draft is 8388609 bytes, over the 8388608-byte limit, so it was not opened"
    );
}

// --- nesting ---------------------------------------------------------------------------

/// `depth` nested flow sequences on one line: `[[[]]]`.
fn nested_yaml(depth: usize) -> String {
    format!("{}{}", "[".repeat(depth), "]".repeat(depth))
}

#[test]
fn yaml_nests_to_the_cap_and_one_level_more_is_refused_where_it_opens() {
    assert!(yaml::parse(&nested_yaml(yaml::MAX_DEPTH), Position::START).is_ok());
    let error = yaml::parse(&nested_yaml(yaml::MAX_DEPTH + 1), Position::START).unwrap_err();
    assert_eq!(error.at, Position::new(1, 129), "the 129th bracket");
    assert_eq!(error.message, "collections nest deeper than 128 levels; Swap Lab refuses it");
    // Through a project file, the refusal names the file, line and column.
    let text = format!("responses:\n  x: {}\n", nested_yaml(yaml::MAX_DEPTH + 1));
    let read = read_responses("responses.yml", &text);
    let refusal = read.diagnostics.first().expect("refused");
    assert_eq!(refusal.file, "responses.yml");
    assert_eq!(refusal.span.start, Position::new(2, 132), "{refusal}");
    assert!(refusal.message.contains("deeper than 128 levels"), "{refusal}");
    let fine = read_responses("responses.yml", "responses:\n  x: []\n");
    assert!(fine.diagnostics.iter().all(|d| !d.message.contains("deeper")));
}

#[test]
fn yaml_holds_the_node_cap_and_refuses_one_node_more() {
    let flow = |n: usize| format!("[{}]", vec!["0"; n].join(","));
    assert!(yaml::parse(&flow(MAX_NODES), Position::START).is_ok());
    let error = yaml::parse(&flow(MAX_NODES + 1), Position::START).unwrap_err();
    assert_eq!(error.at, Position::new(1, 2 + 2 * MAX_NODES as u32), "the extra node");
    assert_eq!(
        error.message,
        "the document holds more than 200000 values once aliases are expanded; Swap Lab \
         refuses it"
    );
    // Aliases count as what they expand to: 8 × 8 × 8 × … quickly passes the cap.
    let laughs = "a: &a [0, 0, 0, 0, 0, 0, 0, 0, 0, 0]\n\
                  b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n\
                  c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n\
                  d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n\
                  e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\n\
                  f: [*e, *e]\n";
    let error = yaml::parse(laughs, Position::START).unwrap_err();
    assert_eq!(error.at.line, 6, "{error:?}");
}

#[test]
fn json_nests_to_the_cap_and_holds_the_byte_cap() {
    let nested = |depth: usize| format!("{}{}", "[".repeat(depth), "]".repeat(depth));
    assert!(json::parse(&nested(MAX_JSON_DEPTH)).is_ok());
    let error = json::parse(&nested(MAX_JSON_DEPTH + 1)).unwrap_err();
    assert!(error.contains("nested deeper than 64 levels"), "{error}");
    assert!(error.ends_with("at line 1 column 66"), "the place: {error}");
    // A JSON string of the byte cap, quotes included, then one byte more.
    let text = |len: usize| format!("\"{}\"", "j".repeat(len - 2));
    assert!(json::parse(&text(MAX_JSON_BYTES)).is_ok());
    assert_eq!(
        json::parse(&text(MAX_JSON_BYTES + 1)).unwrap_err(),
        "the JSON is 1048577 bytes; at most 1048576 are read"
    );
}

#[test]
fn python_brackets_and_indentation_nest_to_the_cap_as_cpython_does() {
    let syntax = |text: &str| -> Vec<Diagnostic> {
        tokenize("tools.py", text)
            .diagnostics
            .into_iter()
            .filter(|d| d.code == "swaplab.python.syntax")
            .collect()
    };
    let brackets = |depth: usize| format!("x = {}{}\n", "(".repeat(depth), ")".repeat(depth));
    assert_eq!(syntax(&brackets(MAX_BRACKETS)), []);
    let over = syntax(&brackets(MAX_BRACKETS + 1));
    assert_eq!(over.len(), 1, "{over:#?}");
    assert_eq!(
        over[0].to_string(),
        "tools.py:1:205: error[swaplab.python.syntax] (read): too many nested parentheses"
    );

    // `depth` nested `if` blocks: the body of the last is `depth` levels in.
    let blocks = |depth: usize| {
        (0..depth)
            .map(|n| format!("{}if x:\n", " ".repeat(n)))
            .chain([format!("{}pass\n", " ".repeat(depth))])
            .collect::<String>()
    };
    assert_eq!(syntax(&blocks(MAX_INDENTS)), []);
    let over = syntax(&blocks(MAX_INDENTS + 1));
    assert_eq!(over.len(), 1, "{over:#?}");
    assert_eq!(
        over[0].to_string(),
        "tools.py:102:1: error[swaplab.python.syntax] (read): too many levels of indentation"
    );
}

#[test]
fn a_python_expression_nests_to_the_cap_and_one_level_more_is_a_limit() {
    let module = |depth: usize| {
        format!("def f():\n    return {}1{}\n", "(".repeat(depth), ")".repeat(depth))
    };
    let limits = |text: &str| -> Vec<Diagnostic> {
        compile_module("tools.py", text)
            .diagnostics
            .into_iter()
            .filter(|d| d.code == "swaplab.python.limit")
            .collect()
    };
    assert_eq!(limits(&module(MAX_NESTING)), []);
    let over = limits(&module(MAX_NESTING + 1));
    assert_eq!(over.len(), 1, "{over:#?}");
    assert_eq!(
        over[0].to_string(),
        "tools.py:2:112: error[swaplab.python.limit] (read): this expression nests more than \
         100 levels deep"
    );
}

#[test]
fn a_condition_nests_to_the_cap_and_one_level_more_is_refused() {
    let nested = |depth: usize| format!("{}session.a.b{}", "(".repeat(depth), ")".repeat(depth));
    assert!(condition::parse(&nested(condition::MAX_DEPTH)).is_ok());
    assert_eq!(
        condition::parse(&nested(condition::MAX_DEPTH + 1)).unwrap_err(),
        "condition nests deeper than 64 levels"
    );
}

/// The depth of the deepest element in a document.
fn depth(nodes: &[Node]) -> usize {
    nodes
        .iter()
        .map(|node| match node {
            Node::Element { children, .. } => 1 + depth(children),
            _ => 0,
        })
        .max()
        .unwrap_or(0)
}

#[test]
fn markdown_nests_to_the_cap_and_deeper_markdown_is_flattened_with_a_note() {
    // `>` × n is n blockquotes around one paragraph: n + 1 elements deep.
    let quotes = |n: usize| format!("intro\n\n{} deep text", ">".repeat(n));
    let at = render(&quotes(markdown::MAX_DEPTH - 1));
    assert_eq!(depth(&at.nodes), markdown::MAX_DEPTH);
    assert_eq!(at.limits, []);
    let over = render(&quotes(markdown::MAX_DEPTH));
    assert_eq!(depth(&over.nodes), markdown::MAX_DEPTH);
    assert_eq!(over.limits.len(), 1);
    assert_eq!(over.limits[0].line, 3);
    assert_eq!(
        over.limits[0].message,
        "The markdown nests deeper than 64 levels here; what is deeper is shown flat, as text \
         of the element at that depth."
    );
    assert!(over.nodes.iter().map(Node::text).collect::<String>().contains("deep text"));
    // A megabyte of nesting renders, shows and drops in bounded depth.
    for text in [">".repeat(1 << 20), format!("{0}x{0}", "*".repeat(1 << 19))] {
        let doc = render_with_directives(&text, &["widget"]);
        assert_eq!(depth(&doc.nodes), markdown::MAX_DEPTH);
        assert_eq!(doc.limits.len(), 1);
    }
}

// --- permalinks --------------------------------------------------------------------------

fn no_examples(_: &str) -> Option<Workspace> {
    None
}

#[test]
fn a_link_of_the_length_cap_is_read_and_one_character_more_is_refused_unread() {
    // Incompressible text, grown until the link is as long as a link can be within the
    // cap: `v1f` and unpadded base64 is never 1 more than a multiple of 4 characters, so
    // no valid link is exactly 65,536 long; 65,535 is the longest.
    let mut rng = 0x5eed_cab5_u64;
    let noise: String = (0..60_000)
        .map(|_| {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            char::from(b'!' + (rng % 90) as u8)
        })
        .collect();
    let link_of = |len: usize| {
        let mut workspace = Workspace::default();
        workspace.set_file(&file("crm/noise.txt"), &noise[..len]);
        encode(&Link { example: None, workspace, open: None }, None)
    };
    let (mut low, mut high) = (0, noise.len());
    while low < high {
        let mid = (low + high).div_ceil(2);
        if link_of(mid).len() < MAX_FRAGMENT_CHARS { low = mid } else { high = mid - 1 }
    }
    let longest = link_of(low);
    assert_eq!(longest.len(), MAX_FRAGMENT_CHARS - 1);
    let decoded = decode(&longest, &no_examples).expect("the longest link opens");
    assert_eq!(decoded.workspace.len(), 1);
    assert_eq!(decode(&format!("#{longest}"), &no_examples), Ok(decoded), "'#' is not counted");
    // Exactly the cap passes the length check and is read (and found damaged: no zlib
    // stream ends that way); one more character is refused before anything is read.
    let at = format!("{longest}A");
    assert_eq!(at.len(), MAX_FRAGMENT_CHARS);
    assert_eq!(decode(&at, &no_examples), Err(LinkError::NotBase64 { at: MAX_FRAGMENT_CHARS - 1 }));
    let over = format!("{at}A");
    let refused = decode(&over, &no_examples).unwrap_err();
    assert_eq!(refused, LinkError::TooLong { chars: MAX_FRAGMENT_CHARS + 1 });
    assert_eq!(
        refused.to_string(),
        "This link's workspace part is 65537 characters long, over the 65536-character limit, \
         so the page kept the default example."
    );
}

/// A full-form payload of files (area 3, path, text), as `permalink::encode` writes it.
fn full_payload(files: &[(&str, usize)]) -> Vec<u8> {
    fn varint(out: &mut Vec<u8>, mut value: usize) {
        while value >= 0x80 {
            out.push((value as u8 & 0x7f) | 0x80);
            value >>= 7;
        }
        out.push(value as u8);
    }
    let mut out = vec![0, 0];
    varint(&mut out, files.len());
    for (path, len) in files {
        out.push(3);
        varint(&mut out, path.len());
        out.extend_from_slice(path.as_bytes());
        varint(&mut out, *len);
        out.extend(std::iter::repeat_n(b'a', *len));
    }
    out
}

#[test]
fn a_link_that_inflates_to_the_cap_opens_and_one_byte_more_is_refused() {
    // Three files whose payload is exactly the inflated cap.
    let payload_of = |last: usize| {
        full_payload(&[("a.txt", MAX_FILE_BYTES), ("b.txt", MAX_FILE_BYTES - 64), ("c.txt", last)])
    };
    let last = MAX_INFLATED_BYTES - payload_of(0).len();
    assert!(last < 128, "its length is one byte whatever it is: {last}");
    let at = payload_of(last);
    assert_eq!(at.len(), MAX_INFLATED_BYTES);
    let link = pack(Form::Full, &at);
    assert!(link.len() < MAX_FRAGMENT_CHARS, "{}", link.len());
    let opened = decode(&link, &no_examples).expect("a link of the inflated cap opens");
    assert_eq!(opened.workspace.len(), 3);
    let over = pack(Form::Full, &payload_of(last + 1));
    let refused = decode(&over, &no_examples).unwrap_err();
    assert_eq!(refused, LinkError::TooLarge { bytes: MAX_INFLATED_BYTES });
    assert_eq!(
        refused.to_string(),
        "This link unpacks to more than 2097152 bytes, the most a link may hold, so the page \
         kept the default example."
    );
}

#[test]
fn a_link_holds_the_file_cap_and_file_size_cap_and_refuses_one_more() {
    let names: Vec<String> = (0..=MAX_FILES).map(|n| format!("f{n:05}")).collect();
    let many = |count: usize| {
        let files: Vec<(&str, usize)> = names[..count].iter().map(|n| (n.as_str(), 0)).collect();
        decode(&pack(Form::Full, &full_payload(&files)), &no_examples)
    };
    assert_eq!(many(MAX_FILES).unwrap().workspace.len(), MAX_FILES);
    let refused = many(MAX_FILES + 1).unwrap_err();
    assert_eq!(refused, LinkError::TooManyFiles { count: MAX_FILES + 1 });
    assert!(refused.to_string().contains("2001 files, over the 2000-file limit"), "{refused}");

    let sized =
        |len: usize| decode(&pack(Form::Full, &full_payload(&[("big.md", len)])), &no_examples);
    assert_eq!(sized(MAX_FILE_BYTES).unwrap().workspace.len(), 1);
    let refused = sized(MAX_FILE_BYTES + 1).unwrap_err();
    assert_eq!(
        refused,
        LinkError::FileTooLarge { path: "crm/big.md".into(), bytes: MAX_FILE_BYTES + 1 }
    );
    assert_eq!(
        refused.to_string(),
        "This link's file crm/big.md is 1048577 bytes, over the 1048576-byte limit, so the \
         page kept the default example."
    );
}

#[test]
fn an_unknown_link_version_is_named_not_read() {
    for (fragment, version) in [("#v2eAAAA", "v2"), ("v9f", "v9"), ("v1000f", "v1000")] {
        let refused = decode(fragment, &no_examples).unwrap_err();
        assert_eq!(refused, LinkError::UnknownVersion { version: version.into() });
        assert!(refused.to_string().contains("newer version of Swap Lab"), "{refused}");
    }
    assert_eq!(permalink::VERSION_PREFIX, "v1", "a new version needs golden links of its own");
}

// --- the CRM and conversations ---------------------------------------------------------

/// A seed of `count` contacts, one line each.
fn seed(count: usize) -> String {
    let mut text = String::from("contacts:\n");
    for n in 0..count {
        text.push_str(&format!("  - {{id: '{n}', email: c{n}@example.com}}\n"));
    }
    text
}

#[test]
fn a_seed_of_the_record_cap_loads_and_the_next_record_is_refused_where_it_stands() {
    let at = read_seed("crm.yml", &seed(MAX_CRM_RECORDS));
    assert_eq!(at.contacts.len(), MAX_CRM_RECORDS);
    none_with(&at.diagnostics, "swaplab.crm.limit");
    let over = read_seed("crm.yml", &seed(MAX_CRM_RECORDS + 1));
    assert_eq!(over.contacts.len(), MAX_CRM_RECORDS);
    let refusal = one_at(&over.diagnostics, "swaplab.crm.limit", "crm.yml", 10_002, 5);
    assert_eq!(refusal.message, "crm.yml holds more than 10000 records; the rest are not loaded");
}

#[test]
fn a_seed_file_of_the_size_cap_is_read_and_one_byte_more_is_refused() {
    let padded = |len: usize| {
        let head = "contacts:\n  - {id: '1', email: a@example.com}\n";
        format!("{head}#{}", "x".repeat(len - head.len() - 1))
    };
    let at = read_seed("crm.yml", &padded(MAX_FILE_BYTES));
    assert_eq!((at.contacts.len(), at.diagnostics.len()), (1, 0), "{:#?}", at.diagnostics);
    let over = read_seed("crm.yml", &padded(MAX_FILE_BYTES + 1));
    assert_eq!(over.contacts.len(), 0);
    let refusal = one_at(&over.diagnostics, "swaplab.crm.seed", "crm.yml", 1, 1);
    assert_eq!(refusal.message, "crm.yml is 1048577 bytes; files above 1048576 bytes are not read");
}

#[test]
fn a_run_creates_notes_up_to_the_cap_and_the_next_is_refused() {
    let mut crm = Crm::new(read_seed("crm.yml", &seed(1)));
    for n in 0..MAX_NOTES {
        crm.create_note("0", "x").unwrap_or_else(|e| panic!("note {n}: {e:?}"));
    }
    let refused = crm.create_note("0", "one too many").unwrap_err();
    assert_eq!(refused.message, "crm_limit: at most 10000 notes per run");
    assert_eq!(crm.created_notes().count(), MAX_NOTES);
}

#[test]
fn a_script_of_the_turn_cap_is_read_and_the_next_turn_is_refused_where_it_stands() {
    let script = |turns: usize| {
        let mut text = String::from("caller: c0@example.com\nturns:\n");
        for n in 0..turns {
            text.push_str(&format!("  - user: turn {n}\n"));
        }
        text
    };
    let at = read_script("conversations/long.yml", &script(MAX_TURNS));
    assert_eq!((at.turns.len(), at.diagnostics.len()), (MAX_TURNS, 0));
    let over = read_script("conversations/long.yml", &script(MAX_TURNS + 1));
    assert_eq!(over.turns.len(), MAX_TURNS);
    let refusal =
        one_at(&over.diagnostics, &over.diagnostics[0].code, "conversations/long.yml", 503, 5);
    assert_eq!(refusal.message, "a script holds at most 500 turns; the rest are ignored");
}

// --- what a tool body may build ---------------------------------------------------------

struct NoHost;

impl Host for NoHost {
    fn crm_call(
        &mut self,
        function: &str,
        _: &[PyValue],
        _: &[(String, PyValue)],
        _: Span,
    ) -> Result<PyValue, HostError> {
        Err(HostError::new("RuntimeError", format!("no CRM here for {function}")))
    }

    fn memory_get(&mut self, _: &str, default: PyValue, _: Span) -> PyValue {
        default
    }

    fn memory_set(&mut self, _: &str, _: PyValue, _: Span) -> Result<(), HostError> {
        Ok(())
    }
}

#[test]
fn a_tool_body_builds_a_str_of_the_size_cap_and_not_one_character_more() {
    let run = |len: usize| {
        let program =
            compile_module("tools.py", &format!("def f():\n    return len('x' * {len})\n"));
        assert_eq!(program.diagnostics, []);
        program.call("f", &[], false, &mut NoHost)
    };
    assert_eq!(run(MAX_SIZE), Outcome::Returned(PyValue::Int(MAX_SIZE as i64)));
    match run(MAX_SIZE + 1) {
        Outcome::Raised { exc_type, message, span, .. } => {
            assert_eq!(exc_type, "MemoryError");
            assert_eq!(
                message,
                "a str, list or dict of more than 1000000 items is beyond what Swap Lab runs"
            );
            assert_eq!(span.start.line, 2);
        }
        other => panic!("{other:?}"),
    }
}
