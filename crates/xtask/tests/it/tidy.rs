//! The rules: every Rust file opens with `//!`; no `dbg!`, `todo!` or `unimplemented!`
//! is committed; `swaplab-core` depends only on crates from an allowlist, never on
//! anything that reaches a browser, a runtime, a clock or randomness; and the crates in
//! the site's wasm sort through `swaplab_core::order`, never the standard sort.

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
