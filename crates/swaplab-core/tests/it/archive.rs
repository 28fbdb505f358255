//! Reading a project the reader brings: zip archives built here by a tiny writer
//! (stored entries, and deflated ones through miniz_oxide's compressor), picked files,
//! the caps, the refusals, and a seeded mutation run in which no byte string panics.

use swaplab_core::archive::{
    Archive, ArchiveError, MAX_TOTAL_BYTES, Picked, SkipReason, Skipped, Split, is_ignored,
    looks_like_zip, read_files, read_zip, split_project,
};
use swaplab_core::layout::SERVER_PATH;
use swaplab_core::rasa::project::{MAX_FILE_BYTES, MAX_PROJECT_FILES};
use swaplab_core::session::{Action, path_problem};
use swaplab_core::{Area, FileRef};

use crate::support::tutorial_workspace;

// --- a tiny zip writer -------------------------------------------------------------------

/// One entry as the writer lays it out; every field can lie, to build broken archives.
#[derive(Clone)]
struct Entry {
    name: Vec<u8>,
    data: Vec<u8>,
    method: u16,
    flags: u16,
    crc: u32,
    size: u32,
    made_by: u16,
    external: u32,
}

fn stored(name: &str, bytes: &[u8]) -> Entry {
    Entry {
        name: name.as_bytes().to_vec(),
        data: bytes.to_vec(),
        method: 0,
        flags: 0x800,
        crc: crc32(bytes),
        size: bytes.len() as u32,
        made_by: 0x031e,
        external: 0o100_644 << 16,
    }
}

fn deflated(name: &str, bytes: &[u8]) -> Entry {
    Entry {
        data: miniz_oxide::deflate::compress_to_vec(bytes, 6),
        method: 8,
        ..stored(name, bytes)
    }
}

fn folder(name: &str) -> Entry {
    Entry { external: 0o040_755 << 16, ..stored(name, b"") }
}

/// The bitwise CRC-32, independent of the reader's table.
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &byte in bytes {
        crc ^= u32::from(byte);
        for _ in 0..8 {
            crc = if crc & 1 == 1 { 0xEDB8_8320 ^ (crc >> 1) } else { crc >> 1 };
        }
    }
    !crc
}

fn zip(entries: &[Entry]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut directory = Vec::new();
    for entry in entries {
        let offset = out.len() as u32;
        let put = |buf: &mut Vec<u8>, central: bool| {
            if central {
                buf.extend(0x0201_4b50u32.to_le_bytes());
                buf.extend(entry.made_by.to_le_bytes());
            } else {
                buf.extend(0x0403_4b50u32.to_le_bytes());
            }
            buf.extend(20u16.to_le_bytes()); // version needed
            buf.extend(entry.flags.to_le_bytes());
            buf.extend(entry.method.to_le_bytes());
            buf.extend([0, 0, 0x21, 0]); // time, date
            buf.extend(entry.crc.to_le_bytes());
            buf.extend((entry.data.len() as u32).to_le_bytes());
            buf.extend(entry.size.to_le_bytes());
            buf.extend((entry.name.len() as u16).to_le_bytes());
            buf.extend(0u16.to_le_bytes()); // extra
            if central {
                buf.extend(0u16.to_le_bytes()); // comment
                buf.extend(0u16.to_le_bytes()); // disk
                buf.extend(0u16.to_le_bytes()); // internal attributes
                buf.extend(entry.external.to_le_bytes());
                buf.extend(offset.to_le_bytes());
            }
            buf.extend(&entry.name);
        };
        put(&mut out, false);
        out.extend(&entry.data);
        put(&mut directory, true);
    }
    let directory_offset = out.len() as u32;
    out.extend(&directory);
    out.extend(0x0605_4b50u32.to_le_bytes());
    out.extend([0, 0, 0, 0]); // disks
    out.extend((entries.len() as u16).to_le_bytes());
    out.extend((entries.len() as u16).to_le_bytes());
    out.extend((directory.len() as u32).to_le_bytes());
    out.extend(directory_offset.to_le_bytes());
    out.extend(0u16.to_le_bytes());
    out
}

fn paths(archive: &Archive) -> Vec<&str> {
    archive.files.iter().map(|(p, _)| p.as_str()).collect()
}

fn skipped(archive: &Archive) -> Vec<(&str, SkipReason)> {
    archive.skipped.iter().map(|s| (s.path.as_str(), s.reason)).collect()
}

/// A project zipped from its folder on a Mac: a top folder, folder entries, the
/// `__MACOSX` shadow, a `.git`, a cache and a logo.
fn mac_zip() -> Vec<u8> {
    zip(&[
        folder("proj/"),
        folder("proj/skills/"),
        deflated("proj/skills/a/skill.md", b"---\nname: a\n---\nHello \xe2\x9c\x93\n"),
        stored("proj/config.yml", b"recipe: default.v1\n"),
        deflated("proj/tools/crm.py", "def f():\n    return 1\n".repeat(50).as_bytes()),
        stored("proj/empty/__init__.py", b""),
        stored("__MACOSX/proj/._config.yml", b"\x00\x05\x16\x07"),
        stored("proj/.git/HEAD", b"ref: refs/heads/main\n"),
        stored("proj/tools/__pycache__/crm.cpython-311.pyc", b"\xa7\x0d\x0d\x0a"),
        stored("proj/.DS_Store", b"\x00\x00\x00\x01Bud1"),
        stored("proj/logo.png", b"\x89PNG\r\n\x1a\n\x00\x00"),
        stored("proj/nul.txt", b"looks like text\x00but is not"),
    ])
}

#[test]
fn a_zipped_project_folder_imports_its_text_files_and_reports_the_rest() {
    let archive = read_zip(&mac_zip()).expect("a good zip");
    assert_eq!(
        paths(&archive),
        ["config.yml", "empty/__init__.py", "skills/a/skill.md", "tools/crm.py"]
    );
    assert_eq!(archive.files[2].1, "---\nname: a\n---\nHello ✓\n");
    assert_eq!(archive.files[3].1.len(), 22 * 50, "deflated text inflates whole");
    assert_eq!(
        skipped(&archive),
        [("logo.png", SkipReason::NotText), ("nul.txt", SkipReason::NotText)]
    );
    assert_eq!(archive.ignored, 4, "__MACOSX, .git, __pycache__, .DS_Store");
    assert_eq!(SkipReason::NotText.to_string(), "not UTF-8 text");
    assert!(looks_like_zip(&mac_zip()));
}

#[test]
fn a_top_folder_named_like_an_area_is_kept_and_the_archive_splits_by_area() {
    let only_after = read_zip(&zip(&[stored("after/a.yml", b"a: 1\n")])).unwrap();
    assert_eq!(paths(&only_after), ["after/a.yml"], "an area folder is not stripped");

    let archive = read_zip(&zip(&[
        stored("swap/README.md", b"read me\n"),
        stored("swap/crm/crm.yml", b"contacts: []\n"),
        deflated("swap/before/skills/a/skill.md", b"before\n"),
        deflated("swap/after/skills/a/skill.md", b"after\n"),
        stored("swap/server/server.py", b"# server\n"),
    ]))
    .unwrap();
    let Split::Areas { areas, outside } = split_project(archive.files) else { panic!() };
    let listed: Vec<(Area, Vec<&str>)> = areas
        .iter()
        .map(|(area, files)| (*area, files.iter().map(|(p, _)| p.as_str()).collect()))
        .collect();
    assert_eq!(
        listed,
        [
            (Area::Before, vec!["skills/a/skill.md"]),
            (Area::After, vec!["skills/a/skill.md"]),
            (Area::Server, vec!["server.py"]),
            (Area::Crm, vec!["crm.yml"]),
        ]
    );
    assert_eq!(areas[1].1[0].1, "after\n");
    assert_eq!(outside, ["README.md"]);
}

#[test]
fn a_tutorial_layout_project_splits_by_the_layout_rule() {
    let workspace = tutorial_workspace();
    let mut entries = Vec::new();
    for (path, text) in workspace.before.files() {
        entries.push(deflated(&format!("rasa-tutorial/{path}"), text.as_bytes()));
        if let Some(after) = workspace.after.file(path).filter(|after| *after != text) {
            entries.push(deflated(&format!("rasa-tutorial/mcp_variant/{path}"), after.as_bytes()));
        }
    }
    let server = workspace.server.file(SERVER_PATH).expect("the tutorial's server");
    entries.push(deflated(&format!("rasa-tutorial/{SERVER_PATH}"), server.as_bytes()));
    let archive = read_zip(&zip(&entries)).expect("reads");
    assert!(archive.skipped.is_empty(), "{:?}", archive.skipped);
    let Split::Tutorial { areas, set_aside } = split_project(archive.files) else { panic!() };
    assert_eq!(
        set_aside,
        ["skills/check_tickets/tools.py", "skills/log_interaction/tools.py", "tools/crm.py"]
    );
    let names: Vec<Area> = areas.iter().map(|(area, _)| *area).collect();
    assert_eq!(names, [Area::Before, Area::After, Area::Server], "no crm.yml: no CRM area");
    // The server comes with the project's own modules it may import (lib/).
    let mut server_area: Vec<(String, String)> = workspace
        .before
        .files()
        .filter(|(p, _)| p.starts_with("lib/"))
        .map(|(p, t)| (p.to_owned(), t.to_owned()))
        .collect();
    server_area.push((SERVER_PATH.to_owned(), server.to_owned()));
    server_area.sort();
    assert_eq!(areas[2].1, server_area);
    let after = &areas[1].1;
    let check = FileRef::new(Area::After, "skills/check_tickets/skill.md");
    let text = after.iter().find(|(p, _)| *p == check.path).map(|(_, t)| t.as_str());
    assert_eq!(text, workspace.file(&check));
}

#[test]
fn a_plain_project_is_left_for_the_reader_to_place() {
    let files = vec![("skills/a/skill.md".to_owned(), "x".to_owned())];
    let split = split_project(files.clone());
    assert_eq!(split, Split::Project(files.clone()));
    assert_eq!(
        split.imports(Area::After, true),
        [Action::Import { area: Area::After, files, replace: true }]
    );
}

#[test]
fn an_archive_by_area_imports_into_each_area_it_names() {
    let split = split_project(vec![
        ("server/app.py".to_owned(), "# app".to_owned()),
        ("before/a.yml".to_owned(), "a".to_owned()),
    ]);
    let imports = split.imports(Area::Crm, false);
    let expected = [
        Action::Import {
            area: Area::Before,
            files: vec![("a.yml".into(), "a".into())],
            replace: false,
        },
        Action::Import {
            area: Area::Server,
            files: vec![("app.py".into(), "# app".into())],
            replace: false,
        },
    ];
    assert_eq!(imports, expected, "the chosen area only places a plain project");
}

#[test]
fn a_zip_bomb_stops_at_the_file_cap() {
    let zeros = vec![0u8; 8 * 1024 * 1024];
    let honest = deflated("big.txt", &zeros);
    assert!(honest.data.len() < 20_000, "{} compressed bytes", honest.data.len());
    // Declares 100 bytes, inflates to 8 MiB: inflating stops at the cap, the file is skipped.
    let bomb = Entry { name: b"bomb.txt".to_vec(), size: 100, crc: 0, ..honest.clone() };
    // `honest` declares its real size: it is refused unread.
    let archive = read_zip(&zip(&[bomb, honest, stored("ok.txt", b"ok")])).unwrap();
    assert_eq!(paths(&archive), ["ok.txt"]);
    assert_eq!(
        skipped(&archive),
        [("bomb.txt", SkipReason::TooLarge), ("big.txt", SkipReason::TooLarge)]
    );
    assert_eq!(SkipReason::TooLarge.to_string(), "over 1 MiB");

    // Many files just under the cap stop at the total.
    let text = "a".repeat(MAX_FILE_BYTES);
    let one = deflated("x", text.as_bytes());
    let many: Vec<Entry> = (0..=MAX_TOTAL_BYTES / MAX_FILE_BYTES)
        .map(|i| Entry { name: format!("f{i}.txt").into_bytes(), ..one.clone() })
        .collect();
    assert_eq!(read_zip(&zip(&many)), Err(ArchiveError::TotalTooLarge));
    assert!(read_zip(&zip(&many[..MAX_TOTAL_BYTES / MAX_FILE_BYTES])).is_ok(), "16 fit");
}

#[test]
fn a_truncated_zip_says_it_is_cut_short() {
    let good = mac_zip();
    for cut in [good.len() - 1, good.len() / 2, 30, 4] {
        assert_eq!(read_zip(&good[..cut]), Err(ArchiveError::Truncated), "cut at {cut}");
    }
    assert_eq!(
        ArchiveError::Truncated.to_string(),
        "The zip archive is cut short: its table of contents, at the end, is missing."
    );
    // Cut inside an entry's data, the table of contents kept: the entry is damaged.
    let mut torn = zip(&[stored("a.txt", b"hello")]);
    torn.drain(30 + 5..30 + 5 + 3);
    assert!(matches!(read_zip(&torn), Err(ArchiveError::Damaged(_))), "{:?}", read_zip(&torn));
    assert_eq!(read_zip(b""), Err(ArchiveError::NotZip));
    assert_eq!(
        read_zip(b"name: not a zip at all, just some yaml text\n"),
        Err(ArchiveError::NotZip)
    );
    assert_eq!(ArchiveError::NotZip.to_string(), "This is not a zip archive.");
}

#[test]
fn encrypted_zip64_and_split_archives_are_refused_with_a_reason() {
    let secret = Entry { flags: 0x801, ..stored("proj/secret.yml", b"k: v\n") };
    let error = read_zip(&zip(&[stored("proj/a.yml", b""), secret])).unwrap_err();
    assert_eq!(error, ArchiveError::Encrypted { path: "proj/secret.yml".into() });
    assert!(error.to_string().contains("needs a password"), "{error}");

    let huge = Entry { size: u32::MAX, ..stored("a.yml", b"") };
    assert_eq!(read_zip(&zip(&[huge])), Err(ArchiveError::Zip64));
    let mut counted = zip(&[stored("a.yml", b"")]);
    let end = counted.len() - 22;
    counted[end + 8..end + 12].copy_from_slice(&[0xff; 4]);
    assert_eq!(read_zip(&counted), Err(ArchiveError::Zip64));
    assert!(ArchiveError::Zip64.to_string().contains("ZIP64"));

    let mut split = zip(&[stored("a.yml", b"")]);
    let end = split.len() - 22;
    split[end + 4] = 1;
    assert_eq!(read_zip(&split), Err(ArchiveError::MultiDisk));
}

#[test]
fn unsafe_paths_are_skipped_and_never_imported() {
    let archive = read_zip(&zip(&[
        stored("../x", b"escape"),
        stored("a/../../x", b"escape"),
        stored("/etc/passwd", b"root"),
        stored("..\\windows\\x", b"escape"),
        stored("a//b", b"empty segment"),
        stored("./fine.yml", b"kept"),
        stored("dir\\file.yml", b"backslashes become folders"),
    ]))
    .unwrap();
    assert_eq!(paths(&archive), ["dir/file.yml", "fine.yml"]);
    let reasons: Vec<String> =
        archive.skipped.iter().map(|s| format!("{}: {}", s.path, s.reason)).collect();
    assert_eq!(
        reasons,
        [
            "../x: its path climbs out of its folder with “..”",
            "a/../../x: its path climbs out of its folder with “..”",
            "/etc/passwd: its path starts with “/”",
            "../windows/x: its path climbs out of its folder with “..”",
            "a//b: its path has an empty folder name (“//”)",
        ]
    );
}

#[test]
fn more_files_than_an_area_holds_are_refused_before_reading() {
    let entries: Vec<Entry> =
        (0..MAX_PROJECT_FILES).map(|i| stored(&format!("f{i:04}.yml"), b"x: 1\n")).collect();
    assert_eq!(read_zip(&zip(&entries)).unwrap().files.len(), MAX_PROJECT_FILES);
    let mut over = entries;
    over.push(stored("one-more.yml", b""));
    assert_eq!(read_zip(&zip(&over)), Err(ArchiveError::TooManyFiles { count: 2001 }));
    assert_eq!(
        ArchiveError::TooManyFiles { count: 2001 }.to_string(),
        "The import holds 2001 files; Swap Lab imports at most 2000."
    );
    // Ignored files do not count.
    let mut with_git: Vec<Entry> =
        (0..MAX_PROJECT_FILES).map(|i| stored(&format!(".git/objects/{i}"), b"x")).collect();
    with_git.push(stored("a.yml", b""));
    assert_eq!(read_zip(&zip(&with_git)).unwrap().ignored, MAX_PROJECT_FILES);
}

#[test]
fn bad_checksums_unknown_methods_links_and_duplicates() {
    let corrupt = Entry { crc: 1, ..deflated("a.yml", b"a: 1\n") };
    assert_eq!(
        read_zip(&zip(&[corrupt])).unwrap_err().to_string(),
        "The zip archive is damaged: a.yml fails its checksum."
    );
    let bzip2 = Entry { method: 12, ..stored("b.yml", b"b") };
    let link = Entry { external: 0o120_777 << 16, ..stored("c.yml", b"b.yml") };
    let latin1 = Entry { name: b"caf\xe9.yml".to_vec(), flags: 0, ..stored("", b"x") };
    let archive =
        read_zip(&zip(&[bzip2, link, latin1, stored("d.yml", b"1"), stored("d.yml", b"2")]))
            .unwrap();
    assert_eq!(archive.files, [("d.yml".to_owned(), "1".to_owned())]);
    assert_eq!(
        skipped(&archive),
        [
            ("caf\u{fffd}.yml", SkipReason::BadName),
            ("b.yml", SkipReason::Method(12)),
            ("c.yml", SkipReason::Link),
            ("d.yml", SkipReason::Duplicate),
        ]
    );
}

#[test]
fn picked_files_follow_the_same_rules() {
    let archive = read_files(vec![
        ("proj/a.yml".into(), Picked::Bytes(b"a: 1\n".to_vec())),
        ("proj/.git/HEAD".into(), Picked::Unread { bytes: 21 }),
        ("proj/big.json".into(), Picked::Unread { bytes: 2 << 20 }),
        ("proj/logo.png".into(), Picked::Bytes(vec![0x89, b'P', b'N', b'G', 0xff])),
    ])
    .unwrap();
    assert_eq!(archive.files, [("a.yml".to_owned(), "a: 1\n".to_owned())]);
    assert_eq!(
        skipped(&archive),
        [("big.json", SkipReason::TooLarge), ("logo.png", SkipReason::NotText)]
    );
    assert_eq!(archive.ignored, 1);
    // Files a shell left unread for the total cap make the import too large.
    let over = read_files(vec![("a".into(), Picked::Unread { bytes: 10 })]);
    assert_eq!(over, Err(ArchiveError::TotalTooLarge));
    assert!(is_ignored("proj/.git/HEAD") && is_ignored("__MACOSX/x") && is_ignored(".envrc"));
    assert!(is_ignored(".DS_Store") && is_ignored(".env/x") && is_ignored(".git/.env"));
    assert!(!is_ignored(".env") && !is_ignored("proj/.env.example") && !is_ignored("a/.env"));
    assert!(!is_ignored("skills/a/skill.md") && !is_ignored("../x"));
}

#[test]
fn skipped_reports_say_which_file_and_why() {
    let skip = Skipped { path: "a.bin".into(), reason: SkipReason::Method(14) };
    assert_eq!(format!("{}: {}", skip.path, skip.reason), "a.bin: compressed with method 14");
}

// --- the mutation run -------------------------------------------------------------------

/// A small deterministic generator (xorshift64*), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Whatever comes back keeps the promises: valid paths, capped sizes and counts.
fn check_invariants(result: &Result<Archive, ArchiveError>) {
    let Ok(archive) = result else { return };
    assert!(archive.files.len() <= MAX_PROJECT_FILES);
    let mut total = 0;
    for (path, text) in &archive.files {
        assert_eq!(path_problem(path), None, "{path:?}");
        assert!(text.len() <= MAX_FILE_BYTES);
        total += text.len();
    }
    assert!(total <= MAX_TOTAL_BYTES);
}

#[test]
fn mutated_zips_are_read_or_refused_never_panic() {
    let seeds = [
        mac_zip(),
        zip(&[
            deflated("p/skills/a/skill.md", "line\n".repeat(300).as_bytes()),
            stored("p/b.yml", b"b: 2\n"),
            Entry { size: 10, ..deflated("p/bomb", &[b'z'; 20_000]) },
        ]),
    ];
    let mut rng = Rng(0x5eed_0021);
    let (mut read, mut refused) = (0, 0);
    for _ in 0..6_000 {
        let seed = &seeds[rng.below(seeds.len())];
        let mut bytes = seed.clone();
        for _ in 0..=rng.below(3) {
            let at = rng.below(bytes.len());
            match rng.below(6) {
                0 => bytes.truncate(rng.below(bytes.len() + 1)),
                1 => {
                    if let Some(byte) = bytes.get_mut(at) {
                        *byte ^= 1 << rng.below(8);
                    }
                }
                2 => {
                    let extreme: [u8; 4] = match rng.below(4) {
                        0 => [0xff; 4],
                        1 => [0; 4],
                        2 => [0xfe, 0xff, 0xff, 0x7f],
                        _ => (rng.next() as u32).to_le_bytes(),
                    };
                    let end = (at + 4).min(bytes.len());
                    bytes[at..end].copy_from_slice(&extreme[..end - at]);
                }
                3 => {
                    let len = rng.below(16);
                    bytes.drain(at..(at + len).min(bytes.len()));
                }
                4 => {
                    let noise: Vec<u8> = (0..rng.below(16)).map(|_| rng.next() as u8).collect();
                    bytes.splice(at..at, noise);
                }
                _ => {
                    // Copy a slice from elsewhere, e.g. a header over data.
                    let from = rng.below(bytes.len());
                    let len = rng.below(46).min(bytes.len() - from).min(bytes.len() - at);
                    let chunk = bytes[from..from + len].to_vec();
                    bytes[at..at + len].copy_from_slice(&chunk);
                }
            }
        }
        let result = read_zip(&bytes);
        check_invariants(&result);
        match result {
            // Whatever is read can be split without a panic too.
            Ok(archive) => {
                read += 1;
                let _ = split_project(archive.files);
            }
            Err(_) => refused += 1,
        }
    }
    assert!(
        read > 100 && refused > 100,
        "both outcomes are exercised: {read} read, {refused} refused"
    );
}

#[test]
fn the_exported_tutorial_zipped_imports_with_the_built_in_verdicts() {
    // `swaplab export tutorial DIR` writes each file at DIR/<area>/<path>; a reader
    // zips DIR (one top folder) and drops it on the playground.
    let workspace = tutorial_workspace();
    let entries: Vec<Entry> = workspace
        .files()
        .map(|(file, text)| {
            deflated(
                &format!("swaplab-tutorial/{}/{}", file.area.prefix(), file.path),
                text.as_bytes(),
            )
        })
        .collect();
    let archive = read_zip(&zip(&entries)).expect("reads");
    assert!(archive.skipped.is_empty(), "{:?}", archive.skipped);
    assert_eq!(archive.ignored, 0, ".env.example is kept");
    let Split::Areas { areas, outside } = split_project(archive.files) else { panic!() };
    assert!(outside.is_empty(), "{outside:?}");
    let mut imported = swaplab_core::Workspace::default();
    for (area, files) in areas {
        for (path, text) in files {
            imported.set_file(&FileRef::new(area, path), text);
        }
    }
    assert_eq!(imported, workspace, "every file, dotfiles and the mock included");
    let options = Default::default();
    let (built_in, from_zip) = (
        swaplab_core::review::review(&workspace, &options),
        swaplab_core::review::review(&imported, &options),
    );
    assert_eq!(from_zip.to_text(), built_in.to_text());
    assert_eq!(
        swaplab_core::proof::prove(&imported).to_text(),
        swaplab_core::proof::prove(&workspace).to_text()
    );
    assert_eq!(from_zip.attack.after.leaks.len(), 2, "the two leaks, read through the mock");
}
