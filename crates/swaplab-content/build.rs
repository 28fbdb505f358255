//! Embeds every file under `content/` but its README into the crate as `(path, text)`
//! pairs, so the web app and the CLI carry the chapters and examples without reading a
//! disk.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::{env, fs};

fn main() {
    let manifest_dir = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let content = manifest_dir.join("../../content").canonicalize().expect("content/ exists");
    println!("cargo:rerun-if-changed={}", content.display());

    let mut files = Vec::new();
    collect(&content, &content, &mut files);
    // `content/README.md` documents the formats for authors; nothing reads it at run
    // time, and embedding it cost the site's wasm ~3 KB brotli.
    files.retain(|(relative, _)| relative != "README.md");
    files.sort();

    let mut out = String::from("/// Every file under `content/` but its README, sorted by path.\n");
    out.push_str("pub static FILES: &[(&str, &str)] = &[\n");
    for (relative, absolute) in &files {
        writeln!(out, "    ({relative:?}, include_str!({absolute:?})),")
            .expect("writing to a String");
    }
    out.push_str("];\n");
    let out_dir = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets it"));
    fs::write(out_dir.join("embedded.rs"), out).expect("OUT_DIR is writable");
}

fn collect(root: &Path, dir: &Path, files: &mut Vec<(String, String)>) {
    let entries = fs::read_dir(dir).unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()));
    for entry in entries {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            collect(root, &path, files);
        } else {
            let relative = path.strip_prefix(root).expect("under root");
            let relative: Vec<String> = relative
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            files.push((relative.join("/"), path.display().to_string()));
        }
    }
}
