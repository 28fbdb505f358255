//! Offline support after Trunk has built the site: writes the list of built files and a
//! hash of their contents into `dist/sw.js`, the service worker that precaches them
//! (`www/sw.js` says what it does with them).
//!
//! The committed `www/sw.js` holds one placeholder line, `const PRECACHE = {…};`; the
//! built copy's line names every file in `dist/` (relative to `sw.js`, with `/`) except
//! `sw.js` itself and hidden files (`404.html`, the app's shell, included). The version is a
//! hash of those names and contents, so a deploy that changes any file changes `sw.js`,
//! which is what makes browsers install the new cache.

use std::fs;
use std::path::Path;

use anyhow::{Context, Result, bail};

/// The service worker's file name in `dist/`.
const SERVICE_WORKER: &str = "sw.js";
/// How the placeholder line starts, in `www/sw.js` and after filling alike.
const PLACEHOLDER: &str = "const PRECACHE = ";

/// Writes the precache manifest into `dist/sw.js`. Returns how many files it lists.
pub fn write_manifest(dist: &Path) -> Result<usize> {
    let worker = dist.join(SERVICE_WORKER);
    let script = fs::read_to_string(&worker).with_context(|| {
        format!(
            "reading {}; www/index.html must copy it with <link data-trunk rel=\"copy-file\" \
             href=\"sw.js\">",
            worker.display()
        )
    })?;
    let mut files = served_files(dist)?;
    files.retain(|file| file != SERVICE_WORKER);
    let mut contents = Vec::with_capacity(files.len());
    for file in &files {
        contents.push(fs::read(dist.join(file)).with_context(|| format!("reading {file}"))?);
    }
    let version =
        content_hash(files.iter().map(String::as_str).zip(contents.iter().map(Vec::as_slice)));
    let filled = fill_manifest(&script, &version, &files)?;
    fs::write(&worker, filled).with_context(|| format!("writing {}", worker.display()))?;
    Ok(files.len())
}

/// Every file the built site serves, as paths relative to `dist` joined with `/`, sorted:
/// all but hidden files. The worker precaches
/// these but itself; the budget stage measures them all.
pub fn served_files(dist: &Path) -> Result<Vec<String>> {
    let mut files = Vec::new();
    list_files(dist, "", &mut files)?;
    files.sort();
    Ok(files)
}

fn list_files(dir: &Path, prefix: &str, out: &mut Vec<String>) -> Result<()> {
    for entry in fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let relative = format!("{prefix}{name}");
        if name.starts_with('.') {
            continue;
        }
        let kind = entry.file_type()?;
        if kind.is_dir() {
            list_files(&entry.path(), &format!("{relative}/"), out)?;
        } else if kind.is_file() {
            out.push(relative);
        }
    }
    Ok(())
}

/// FNV-1a (64 bits) over each file's name, length and bytes, in the order given: the
/// same files give the same version on every machine and Rust release.
fn content_hash<'a>(files: impl IntoIterator<Item = (&'a str, &'a [u8])>) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut feed = |bytes: &[u8]| {
        for &byte in bytes {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
        }
    };
    for (name, bytes) in files {
        feed(name.as_bytes());
        feed(&[0]);
        feed(&(bytes.len() as u64).to_le_bytes());
        feed(bytes);
    }
    format!("{hash:016x}")
}

/// Replaces the one line that starts with [`PLACEHOLDER`] with the manifest.
fn fill_manifest(script: &str, version: &str, files: &[String]) -> Result<String> {
    // Written by hand so the key order never depends on serde_json's features.
    let manifest = format!(
        "{{\"version\":{},\"files\":{}}}",
        serde_json::Value::from(version),
        serde_json::Value::from(files.to_vec())
    );
    let mut replaced = 0;
    let mut out = String::with_capacity(script.len() + files.len() * 48);
    for line in script.split_inclusive('\n') {
        if line.starts_with(PLACEHOLDER) {
            replaced += 1;
            out.push_str(&format!("{PLACEHOLDER}{manifest};"));
            if line.ends_with('\n') {
                out.push('\n');
            }
        } else {
            out.push_str(line);
        }
    }
    if replaced != 1 {
        bail!(
            "sw.js must have exactly one line starting with `{PLACEHOLDER}` for the list of \
             built files; found {replaced}"
        );
    }
    Ok(out)
}

/// A fresh folder under the system's temporary directory holding `files` (path under
/// the folder, text), for tests of what reads a built site; `label` keeps tests apart.
#[cfg(test)]
pub(crate) fn scratch_dist(label: &str, files: &[(&str, &str)]) -> std::path::PathBuf {
    let dist = std::env::temp_dir().join(format!("xtask-{label}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dist);
    for (path, text) in files {
        let file = dist.join(path);
        fs::create_dir_all(file.parent().unwrap_or(&dist)).unwrap();
        fs::write(file, text).unwrap();
    }
    dist
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCRIPT: &str = "//! a worker\n// the list:\nconst PRECACHE = { version: \"unbuilt\", files: [] };\nconst CACHE = PRECACHE.version;\n";

    #[test]
    fn the_placeholder_line_becomes_the_manifest_and_nothing_else_changes() {
        let files = ["index.html".to_owned(), "snippets/a b.js".to_owned()];
        let filled = fill_manifest(SCRIPT, "0123456789abcdef", &files).unwrap();
        assert_eq!(
            filled,
            "//! a worker\n// the list:\nconst PRECACHE = \
             {\"version\":\"0123456789abcdef\",\"files\":[\"index.html\",\"snippets/a b.js\"]};\n\
             const CACHE = PRECACHE.version;\n"
        );
        // Filling again (a rebuilt dist whose sw.js was already filled) still works.
        assert_eq!(fill_manifest(&filled, "0123456789abcdef", &files).unwrap(), filled);
    }

    #[test]
    fn a_missing_or_doubled_placeholder_is_an_error() {
        assert!(fill_manifest("self.addEventListener('fetch', f);\n", "v", &[]).is_err());
        let doubled = format!("{SCRIPT}{SCRIPT}");
        assert!(fill_manifest(&doubled, "v", &[]).is_err());
    }

    #[test]
    fn the_version_follows_every_name_and_byte() {
        let base = content_hash([("a.js", &b"x"[..]), ("b.wasm", &b"yz"[..])]);
        assert_eq!(base, content_hash([("a.js", &b"x"[..]), ("b.wasm", &b"yz"[..])]));
        assert_ne!(base, content_hash([("a.js", &b"x"[..]), ("b.wasm", &b"yZ"[..])]));
        assert_ne!(base, content_hash([("a.js", &b"x"[..]), ("c.wasm", &b"yz"[..])]));
        // Moving a byte from one file to the next is a different site.
        assert_ne!(base, content_hash([("a.js", &b"xy"[..]), ("b.wasm", &b"z"[..])]));
        assert_eq!(base.len(), 16);
    }

    #[test]
    fn the_manifest_lists_built_files_and_the_shell_but_not_the_worker_or_hidden_files() {
        let dist = scratch_dist(
            "offline",
            &[
                ("index.html", "<html>"),
                ("404.html", "<html>"),
                ("app-1234.wasm", "\0asm"),
                ("snippets/x/inline0.js", "export {}"),
                (".stage/partial.js", ""),
                ("sw.js", SCRIPT),
            ],
        );
        assert_eq!(write_manifest(&dist).unwrap(), 4);
        let written = fs::read_to_string(dist.join("sw.js")).unwrap();
        let line = written.lines().find(|l| l.starts_with(PLACEHOLDER)).unwrap();
        let json = line.strip_prefix(PLACEHOLDER).unwrap().strip_suffix(';').unwrap();
        let manifest: serde_json::Value = serde_json::from_str(json).unwrap();
        assert_eq!(
            manifest["files"],
            serde_json::json!(["404.html", "app-1234.wasm", "index.html", "snippets/x/inline0.js"])
        );
        let version = manifest["version"].as_str().unwrap().to_owned();
        // A changed file is a new version; an unchanged site keeps its version.
        assert_eq!(write_manifest(&dist).unwrap(), 4);
        assert!(fs::read_to_string(dist.join("sw.js")).unwrap().contains(&version));
        fs::write(dist.join("index.html"), "<html lang=en>").unwrap();
        write_manifest(&dist).unwrap();
        assert!(!fs::read_to_string(dist.join("sw.js")).unwrap().contains(&version));
        fs::remove_dir_all(&dist).unwrap();
    }
}
