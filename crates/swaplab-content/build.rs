//! Embeds the files under `content/` into the crate as `(path, text)` pairs, so the web
//! app and the CLI carry the examples and exercises without reading a disk, and writes
//! an index of the chapters (number, slug, title, path).
//!
//! The chapters' markdown is embedded only with the `chapter-text` feature (on by
//! default, for the CLI and the content tests). The web app turns it off: the built
//! site serves `content/chapters/` as files and the chapter page fetches them.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::{env, fs};

/// Where the chapters sit under `content/`.
const CHAPTERS: &str = "chapters/";

fn main() {
    let manifest_dir = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let content = manifest_dir.join("../../content").canonicalize().expect("content/ exists");
    println!("cargo:rerun-if-changed={}", content.display());
    // Cargo sets `CARGO_FEATURE_<NAME>` for each enabled feature of this crate.
    let chapter_text = env::var_os("CARGO_FEATURE_CHAPTER_TEXT").is_some();

    let mut files = Vec::new();
    collect(&content, &content, &mut files);
    // `content/README.md` documents the formats for authors; nothing reads it at run
    // time, and embedding it cost the site's wasm ~3 KB brotli.
    files.retain(|(relative, _)| relative != "README.md");
    files.sort();

    let mut chapters: Vec<Chapter> = files
        .iter()
        .filter_map(|(relative, absolute)| Chapter::read(relative, Path::new(absolute)))
        .collect();
    // Stable: two chapters with one number keep their path order (a content test
    // refuses them).
    chapters.sort_by_key(|c| c.number);

    let mut out = String::from(
        "/// Every file under `content/` but its README, sorted by path; the chapters only \
         with\n/// the `chapter-text` feature.\n",
    );
    out.push_str("pub static FILES: &[(&str, &str)] = &[\n");
    for (relative, absolute) in &files {
        if !chapter_text && relative.starts_with(CHAPTERS) {
            continue;
        }
        writeln!(out, "    ({relative:?}, include_str!({absolute:?})),")
            .expect("writing to a String");
    }
    out.push_str("];\n\n");

    out.push_str("/// Every chapter, in reading order.\npub static CHAPTERS: &[Chapter] = &[\n");
    for Chapter { number, slug, title, path, absolute } in &chapters {
        write!(
            out,
            "    Chapter {{ number: {number}, slug: {slug:?}, title: {title:?}, path: {path:?}, "
        )
        .expect("writing to a String");
        if chapter_text {
            write!(out, "markdown: include_str!({absolute:?}) ").expect("writing to a String");
        }
        out.push_str("},\n");
    }
    out.push_str("];\n");

    let out_dir = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets it"));
    fs::write(out_dir.join("embedded.rs"), out).expect("OUT_DIR is writable");
}

/// A chapter file as the index lists it.
struct Chapter {
    number: u32,
    slug: String,
    title: String,
    /// The path under `content/`.
    path: String,
    /// The path on this disk, for `include_str!`.
    absolute: String,
}

impl Chapter {
    /// Reads `chapters/NN-slug.md`; any other file is not a chapter.
    fn read(relative: &str, absolute: &Path) -> Option<Chapter> {
        let name = relative.strip_prefix(CHAPTERS)?.strip_suffix(".md")?;
        let (number, slug) = name.split_once('-')?;
        let number = number.parse().ok()?;
        let text = fs::read_to_string(absolute)
            .unwrap_or_else(|e| panic!("reading {}: {e}", absolute.display()));
        let title = text
            .lines()
            .find_map(|line| line.strip_prefix("# "))
            .map_or(slug, str::trim)
            .to_owned();
        Some(Chapter {
            number,
            slug: slug.to_owned(),
            title,
            path: relative.to_owned(),
            absolute: absolute.display().to_string(),
        })
    }
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
