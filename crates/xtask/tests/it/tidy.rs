//! The rules: every Rust file opens with `//!`; no `dbg!`, `todo!` or `unimplemented!`
//! is committed; `swaplab-core` depends only on crates from an allowlist, never on
//! anything that reaches a browser, a runtime, a clock or randomness; and the crates in
//! the site's wasm sort through `swaplab_core::order`, never the standard sort; every
//! counted noun goes through `words::count`; and the core's layers point one way
//! (`CORE_LAYERS`, with the upward uses still to remove listed in `KNOWN_UPWARD`).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The crates `swaplab-core` may depend on, directly or not. Adding one is a decision:
/// the core must stay pure, small (it ships in the wasm) and free of I/O.
const CORE_ALLOWLIST: &[&str] = &[
    "swaplab-core",
    // the leaves and the Python runtime, split out of the core and as pure as it
    "swaplab-base",
    "swaplab-python",
    // serialisation
    "serde",
    "serde_core",
    "serde_derive",
    "serde_json",
    "itoa",
    "ryu",
    "zmij",
    "memchr",
    // YAML events with positions, resolved as PyYAML does in `swaplab_core::yaml`
    "saphyr-parser",
    "arraydeque",
    "thiserror",
    "thiserror-impl",
    // diffs and markdown
    "similar",
    "pulldown-cmark",
    "bitflags",
    "unicase",
    // inflating permalinks (`permalink.rs`), without the `simd` feature
    "miniz_oxide",
    "adler2",
    // the interpreter's `re` module: a small regex engine with no Unicode tables and no
    // dependencies of its own, linear-time matching (`swaplab-python/src/interp/re.rs`)
    "regex-lite",
    // proc-macro support for serde_derive
    "proc-macro2",
    "quote",
    "syn",
    "unicode-ident",
];

/// Crates that must never appear, even if someone adds them to the allowlist.
const CORE_FORBIDDEN: &[&str] = &[
    "yew",
    "web-sys",
    "js-sys",
    "wasm-bindgen",
    "gloo",
    "tokio",
    "rand",
    "getrandom",
    "web-time",
    "chrono",
];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).ancestors().nth(2).expect("crates/xtask").to_path_buf()
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).expect("readable") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

fn all_rust_files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    rust_files(&root().join("crates"), &mut files);
    assert!(files.len() > 10, "found the sources");
    files
}

/// The names in `cargo tree` output that are not on the allowlist or are forbidden.
fn core_violations(tree: &str) -> Vec<String> {
    let mut names: Vec<&str> = tree.lines().filter_map(|l| l.split_whitespace().next()).collect();
    names.sort_unstable();
    names.dedup();
    names
        .into_iter()
        .filter(|name| !CORE_ALLOWLIST.contains(name) || CORE_FORBIDDEN.contains(name))
        .map(str::to_owned)
        .collect()
}

#[test]
fn every_rust_file_says_what_it_owns() {
    let missing: Vec<String> = all_rust_files()
        .into_iter()
        .filter(|path| {
            let text = fs::read_to_string(path).expect("readable");
            !text.trim_start().starts_with("//!")
        })
        .map(|p| p.display().to_string())
        .collect();
    assert!(
        missing.is_empty(),
        "these files do not start with a `//!` comment:\n{}",
        missing.join("\n")
    );
}

#[test]
fn no_debugging_or_placeholder_macros_are_committed() {
    let banned = [concat!("dbg", "!("), concat!("todo", "!("), concat!("unimplemented", "!(")];
    let mut found = Vec::new();
    for path in all_rust_files() {
        let text = fs::read_to_string(&path).expect("readable");
        for (number, line) in text.lines().enumerate() {
            if banned.iter().any(|b| line.contains(b)) {
                found.push(format!("{}:{}: {}", path.display(), number + 1, line.trim()));
            }
        }
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}

#[test]
fn the_site_sorts_through_one_shared_sort() {
    // Each standard sort links its own ~4 KB copy per element type and comparison into
    // the wasm; `swaplab_core::order` shares one (its own use is the only one allowed).
    let banned = [
        ".sort()",
        ".sort_by(",
        ".sort_by_key(",
        ".sort_by_cached_key(",
        ".sort_unstable",
        "collect::<BTreeMap",
        "collect::<BTreeSet",
        "collect::<std::collections::BTree",
    ];
    let order = root().join("crates/swaplab-base/src/order.rs");
    let mut found = Vec::new();
    for krate in
        ["swaplab-base", "swaplab-python", "swaplab-core", "swaplab-content", "swaplab-web"]
    {
        let mut files = Vec::new();
        rust_files(&root().join("crates").join(krate).join("src"), &mut files);
        for path in files.into_iter().filter(|path| *path != order) {
            let text = fs::read_to_string(&path).expect("readable");
            for (number, line) in text.lines().enumerate() {
                if banned.iter().any(|b| line.contains(b)) {
                    found.push(format!("{}:{}: {}", path.display(), number + 1, line.trim()));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "sort with swaplab_core::order (sort, sort_by, sort_by_key, map_of, set_of):\n{}",
        found.join("\n")
    );
}

#[test]
fn swaplab_core_depends_only_on_allowlisted_crates() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let output = Command::new(cargo)
        .args(["tree", "-p", "swaplab-core", "-e", "normal", "--prefix", "none", "--target", "all"])
        .args(["--format", "{p}"])
        .current_dir(root())
        .output()
        .expect("cargo tree runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let tree = String::from_utf8(output.stdout).expect("utf-8");
    assert!(tree.contains("similar"), "the tree lists core's dependencies:\n{tree}");
    let violations = core_violations(&tree);
    assert!(
        violations.is_empty(),
        "swaplab-core depends on {violations:?}, which the allowlist in {} does not allow. \
         The core must stay free of browser, runtime, clock and randomness crates.",
        file!()
    );
}

#[test]
fn the_dependency_check_catches_forbidden_and_unknown_crates() {
    let tree =
        "swaplab-core v0.1.0\nserde v1.0.0\ngetrandom v0.3.0\nleft-pad v1.0.0\nserde v1.0.0 (*)\n";
    assert_eq!(core_violations(tree), ["getrandom", "left-pad"]);
}

#[test]
fn the_core_clippy_config_bans_clock_filesystem_environment_and_process_calls() {
    for krate in ["swaplab-base", "swaplab-python", "swaplab-core"] {
        let config = fs::read_to_string(root().join("crates").join(krate).join("clippy.toml"))
            .expect("clippy.toml exists");
        banned_in(krate, &config);
    }
}

fn banned_in(krate: &str, config: &str) {
    for banned in [
        "std::time::Instant::now",
        "std::time::SystemTime::now",
        "std::fs::read_to_string",
        "std::fs::File",
        "std::env::var",
        "std::process::Command",
        "similar::TextDiffConfig::timeout",
    ] {
        assert!(
            config.contains(&format!("\"{banned}\"")),
            "{krate}'s clippy.toml must ban {banned}"
        );
    }
}

/// Plural nouns the site and the command line count. A count printed as `{n} probes`
/// reads "1 probes" when n is 1; `words::count(n, "probe", "probes")` spells both.
const COUNTED_NOUNS: &[&str] = &[
    "files",
    "skills",
    "errors",
    "warnings",
    "checks",
    "probes",
    "leaks",
    "tools",
    "notes",
    "records",
    "requests",
    "changes",
    "problems",
    "scripts",
    "turns",
    "tickets",
    "contacts",
    "customers",
    "lines",
    "seeds",
    "snippets",
    "examples",
    "exercises",
];

/// `{…} <plural noun>` inside a line of `text`: a count that bypasses `words::count`.
/// A constant's placeholder (`{MAX_FILES} files`) is always plural and passes; a line
/// whose placeholder is not a number says so with a `// not a count` comment.
fn uncounted_plurals(text: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("//") || line.contains("// not a count") {
            continue;
        }
        let mut rest = line;
        while let Some(close) = rest.find("} ") {
            let after = &rest[close + 2..];
            let word: String = after.chars().take_while(char::is_ascii_alphabetic).collect();
            let opened = rest[..close].rfind('{').is_some_and(|open| {
                let name = &rest[open + 1..close];
                let constant = name.starts_with(|c: char| c.is_ascii_uppercase())
                    && name
                        .chars()
                        .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
                !constant && name.chars().all(|c| c.is_ascii_alphanumeric() || "_.:?".contains(c))
            });
            if opened && COUNTED_NOUNS.contains(&word.as_str()) {
                found.push((number + 1, line.trim().to_owned()));
            }
            rest = after;
        }
    }
    found
}

#[test]
fn counted_nouns_go_through_words_count() {
    let mut stragglers = Vec::new();
    for path in all_rust_files() {
        let relative = path.strip_prefix(root()).unwrap().to_string_lossy().replace('\\', "/");
        // xtask's own output keeps the fixed `N passed, N failed` lines CI reads; tests
        // may spell what they expect however they like.
        if relative.starts_with("crates/xtask/")
            || relative.contains("/tests/")
            || relative.contains("/benches/")
        {
            continue;
        }
        let text = fs::read_to_string(&path).unwrap();
        for (line, code) in uncounted_plurals(&text) {
            stragglers.push(format!("{relative}:{line}: {code}"));
        }
    }
    assert!(
        stragglers.is_empty(),
        "counts that bypass words::count (say `count(n, \"file\", \"files\")`):\n{}",
        stragglers.join("\n")
    );
}

#[test]
fn the_counted_noun_check_finds_a_straggler_and_passes_a_counted_one() {
    assert_eq!(
        uncounted_plurals("    format!(\"{} files before\", n)\n"),
        [(1, "format!(\"{} files before\", n)".to_owned())]
    );
    assert_eq!(uncounted_plurals("    format!(\"{n_files} checks fail\")\n").len(), 1);
    assert!(uncounted_plurals("    count(n, \"file\", \"files\")\n").is_empty());
    assert!(uncounted_plurals("    // {} files in a comment\n").is_empty());
    assert!(uncounted_plurals("    format!(\"at most {MAX_FILES} files\")\n").is_empty());
    assert!(uncounted_plurals("    format!(\"{its} files\") // not a count\n").is_empty());
    assert!(uncounted_plurals("    format!(\"{name} filesystem\")\n").is_empty());
}

/// The core's layers, lowest first: a module may use its own layer and the ones below,
/// never one above. Leaves know nothing of Swap Lab; the readers read files; the
/// simulation runs what they read; the judgements judge a simulation; the top composes
/// them for the shells.
const CORE_LAYERS: &[(&str, &[&str])] = &[
    (
        "leaves",
        &["diagnostic", "order", "words", "workspace", "cache", "difflib", "markdown", "highlight"],
    ),
    ("readers", &["yaml", "python", "rasa"]),
    ("the simulation", &["sim"]),
    ("judgements", &["proof", "review", "semantic", "diff", "crossing"]),
    ("the top", &["analysis", "memo", "session", "permalink", "archive", "layout"]),
];

/// Upward uses still allowed, each (file, module it uses): none since the memo moved to
/// the top as two caches, the readers' and the simulation's. The test fails on any
/// upward use not listed, and on a listed one that is gone, so the list only shrinks.
const KNOWN_UPWARD: &[(&str, &str)] = &[];

fn layer_of(module: &str) -> Option<usize> {
    let module = match module {
        "Area" | "FileRef" | "Project" | "Workspace" => "workspace",
        other => other,
    };
    CORE_LAYERS.iter().position(|(_, modules)| modules.contains(&module))
}

/// The core modules `text`'s code names through `crate::`, including inside
/// `use crate::{…}` (comments, doc links included, are not code).
fn crate_uses(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    let code: String = text
        .lines()
        .filter(|line| !line.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n");
    let mut rest = code.as_str();
    while let Some(at) = rest.find("crate::") {
        let after = &rest[at + "crate::".len()..];
        if let Some(group) = after.strip_prefix('{') {
            let inner = &group[..group.find('}').unwrap_or(group.len())];
            for part in inner.split(',') {
                let name: String = part
                    .trim()
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                if !name.is_empty() {
                    found.push(name);
                }
            }
        } else {
            let name: String =
                after.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
            found.push(name);
        }
        rest = after;
    }
    found
}

/// Every use of a higher layer in `files` (path under `src/`, text): (path, module).
fn upward_uses(files: &[(String, String)]) -> Vec<(String, String)> {
    let mut found = Vec::new();
    for (path, text) in files {
        let module = path.split('/').next().unwrap_or_default().trim_end_matches(".rs");
        let Some(own) = layer_of(module) else { continue };
        for used in crate_uses(text) {
            if layer_of(&used).is_some_and(|layer| layer > own)
                && !found.contains(&(path.clone(), used.clone()))
            {
                found.push((path.clone(), used));
            }
        }
    }
    found.sort();
    found
}

#[test]
fn the_cores_layers_point_one_way() {
    let src = root().join("crates/swaplab-core/src");
    let mut files = Vec::new();
    let mut paths = Vec::new();
    rust_files(&src, &mut paths);
    for path in paths {
        let relative = path.strip_prefix(&src).unwrap().to_string_lossy().replace('\\', "/");
        if relative == "lib.rs" {
            continue;
        }
        let module = relative.split('/').next().unwrap().trim_end_matches(".rs").to_owned();
        assert!(
            layer_of(&module).is_some(),
            "{relative}: `{module}` is in no layer of CORE_LAYERS"
        );
        files.push((relative, fs::read_to_string(&path).unwrap()));
    }
    let found = upward_uses(&files);
    let known: Vec<(String, String)> =
        KNOWN_UPWARD.iter().map(|(p, m)| ((*p).to_owned(), (*m).to_owned())).collect();
    let new: Vec<String> = found
        .iter()
        .filter(|use_| !known.contains(use_))
        .map(|(path, module)| format!("crates/swaplab-core/src/{path} uses crate::{module}"))
        .collect();
    assert!(new.is_empty(), "a module uses a layer above its own:\n{}", new.join("\n"));
    let gone: Vec<String> = known
        .iter()
        .filter(|use_| !found.contains(use_))
        .map(|(path, module)| format!("{path} -> {module}"))
        .collect();
    assert!(gone.is_empty(), "fixed, so take them out of KNOWN_UPWARD: {}", gone.join(", "));
}

#[test]
fn the_layer_check_catches_a_deliberate_upward_import() {
    // A reader that reached into the simulation, and a leaf into the judgements.
    let files = vec![
        ("rasa/skill/mod.rs".to_owned(), "use crate::sim::attack::is_id_like;\n".to_owned()),
        ("words.rs".to_owned(), "use crate::{order, review::Verdict};\n".to_owned()),
        ("order.rs".to_owned(), "//! See [`crate::sim`].\nuse crate::words;\n".to_owned()),
        ("review.rs".to_owned(), "use crate::sim::Simulation;\nuse crate::yaml;\n".to_owned()),
    ];
    assert_eq!(
        upward_uses(&files),
        [
            ("rasa/skill/mod.rs".to_owned(), "sim".to_owned()),
            ("words.rs".to_owned(), "review".to_owned()),
        ]
    );
}

#[test]
fn the_shells_ask_the_one_analysis() {
    // The composition "simulation, then proof, review and semantic changes" is
    // `swaplab_core::analysis::Analysis`; the page, content, the CLI's judgements and the
    // size probe ask it rather than compose their own.
    let mut found = Vec::new();
    for krate in ["swaplab-web", "swaplab-content", "swaplab-size-probe", "swaplab-cli"] {
        let mut paths = Vec::new();
        rust_files(&root().join("crates").join(krate).join("src"), &mut paths);
        for path in paths {
            let text = fs::read_to_string(&path).unwrap();
            for call in
                ["prove_with(", "review_with(", "semantic_changes(", "Simulation::with_memo("]
            {
                if text.contains(call) {
                    found.push(format!("{}: {call}", path.display()));
                }
            }
            // The one-shot `proof::prove` and `review::review` read the workspace again
            // for one judgement: a shell imports neither.
            for line in text.lines().filter(|l| l.trim_start().starts_with("use swaplab_core::")) {
                for (module, item) in [("proof::", "prove"), ("review::", "review")] {
                    let Some((_, items)) = line.split_once(module) else { continue };
                    let imported = items
                        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                        .any(|name| name == item);
                    if imported {
                        found.push(format!("{}: imports {module}{item}", path.display()));
                    }
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "use swaplab_core::analysis::Analysis instead:\n{}",
        found.join("\n")
    );
}
