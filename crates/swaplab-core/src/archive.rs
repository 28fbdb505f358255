//! A project the reader brings: a `.zip` archive or a set of picked files, read into
//! text files, then split into the workspace's areas.
//!
//! Pure: the shell hands over bytes, this returns paths and texts. Nothing is trusted.
//! A zip's central directory is parsed with bounds checks, `stored` (0) and `deflate`
//! (8) entries are inflated with miniz_oxide under caps checked while inflating (a zip
//! bomb stops at [`MAX_FILE_BYTES`]), each entry's CRC-32 is checked, and the whole
//! import stops at [`MAX_TOTAL_BYTES`] and [`MAX_PROJECT_FILES`] files. Encrypted, ZIP64
//! and split archives are refused with a message. Folders, hidden files, `__MACOSX/`,
//! `.git/` and `__pycache__/` are left out; binary or non-UTF-8 files, unsafe paths and
//! oversized files are skipped and reported, not errors. A single folder holding every
//! file is stripped, so a zipped project folder imports as the project.

use std::fmt;

use crate::layout::{VARIANT_DIR, tutorial_layout};
use crate::rasa::project::{MAX_FILE_BYTES, MAX_PROJECT_FILES};
use crate::session::{Action, path_problem};
use crate::workspace::{Area, FileRef, Project, Workspace};

/// Largest archive read, in bytes; a larger one is refused unread.
pub const MAX_ARCHIVE_BYTES: usize = 64 * 1024 * 1024;
/// Most text one import may hold, all files together.
pub const MAX_TOTAL_BYTES: usize = 16 * 1024 * 1024;

/// The text files of an archive or a set of picked files.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Archive {
    /// Path → text, sorted by path, the common top-level folder stripped.
    pub files: Vec<(String, String)>,
    /// Files that were not imported, and why, in archive order.
    pub skipped: Vec<Skipped>,
    /// How many hidden or tooling files (`.git/`, `__MACOSX/`, `__pycache__/`,
    /// dotfiles) were left out without a report.
    pub ignored: usize,
}

/// A file that was not imported.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skipped {
    /// Its path as the archive names it (the common folder stripped when it applies).
    pub path: String,
    /// Why.
    pub reason: SkipReason,
}

/// Why a file was not imported.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SkipReason {
    /// Not UTF-8 text, or holds NUL bytes: an image, a compiled file.
    NotText,
    /// Larger than [`MAX_FILE_BYTES`] (as declared, or found while inflating).
    TooLarge,
    /// Compressed with a method other than stored or deflate.
    Method(u16),
    /// Its path is not a valid file path, e.g. `../x`.
    BadPath(&'static str),
    /// Its name is not UTF-8.
    BadName,
    /// The same path appeared earlier in the archive.
    Duplicate,
    /// A symbolic link.
    Link,
}

impl fmt::Display for SkipReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SkipReason::NotText => f.write_str("not UTF-8 text"),
            SkipReason::TooLarge => write!(f, "over {} MiB", MAX_FILE_BYTES >> 20),
            SkipReason::Method(method) => write!(f, "compressed with method {method}"),
            SkipReason::BadPath(problem) => write!(f, "its path {problem}"),
            SkipReason::BadName => f.write_str("its name is not UTF-8"),
            SkipReason::Duplicate => f.write_str("listed twice"),
            SkipReason::Link => f.write_str("a symbolic link"),
        }
    }
}

/// Why nothing could be imported.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ArchiveError {
    /// The archive is larger than [`MAX_ARCHIVE_BYTES`].
    TooLarge {
        /// Its size.
        bytes: usize,
    },
    /// The bytes are not a zip archive.
    NotZip,
    /// A zip archive whose end (its table of contents) is missing.
    Truncated,
    /// The archive's structure or an entry's data is broken.
    Damaged(String),
    /// An entry is encrypted.
    Encrypted {
        /// The entry.
        path: String,
    },
    /// The archive uses ZIP64 records.
    Zip64,
    /// The archive spans several files.
    MultiDisk,
    /// More than [`MAX_PROJECT_FILES`] files.
    TooManyFiles {
        /// How many files there are.
        count: usize,
    },
    /// The texts together exceed [`MAX_TOTAL_BYTES`].
    TotalTooLarge,
}

impl fmt::Display for ArchiveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ArchiveError::TooLarge { bytes } => write!(
                f,
                "The archive is {bytes} bytes; Swap Lab opens archives of up to {} MiB.",
                MAX_ARCHIVE_BYTES >> 20
            ),
            ArchiveError::NotZip => f.write_str("This is not a zip archive."),
            ArchiveError::Truncated => f.write_str(
                "The zip archive is cut short: its table of contents, at the end, is missing.",
            ),
            ArchiveError::Damaged(what) => write!(f, "The zip archive is damaged: {what}."),
            ArchiveError::Encrypted { path } => write!(
                f,
                "The zip archive is encrypted ({path} needs a password). Swap Lab cannot open \
                 encrypted archives: zip the files again without a password."
            ),
            ArchiveError::Zip64 => f.write_str(
                "The zip archive uses ZIP64 records (made for archives over 4 GiB or 65,535 \
                 entries), which Swap Lab does not read: zip the project alone, without ZIP64.",
            ),
            ArchiveError::MultiDisk => f.write_str(
                "The zip archive is split across several files; Swap Lab opens single-file \
                 archives only.",
            ),
            ArchiveError::TooManyFiles { count } => write!(
                f,
                "The import holds {}; Swap Lab imports at most {MAX_PROJECT_FILES}.",
                crate::words::count(*count, "file", "files")
            ),
            ArchiveError::TotalTooLarge => write!(
                f,
                "The files hold more than {} MiB of text together, the most Swap Lab imports \
                 at once.",
                MAX_TOTAL_BYTES >> 20
            ),
        }
    }
}

impl std::error::Error for ArchiveError {}

/// One file a shell picked from the reader's disk.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Picked {
    /// Its bytes.
    Bytes(Vec<u8>),
    /// Not read, because it is ignored ([`is_ignored`]) or too large; its size in bytes.
    Unread {
        /// Its size.
        bytes: u64,
    },
}

/// The hidden files a project's own set-up reads, kept by every import: `.env`, where
/// `os.getenv` finds the CRM's base URL and token, and `.env.example`, the file the
/// tutorial's set-up copies to `.env`.
pub const KEPT_DOTFILES: [&str; 2] = [".env", ".env.example"];

/// True for a path an import leaves out without a report: anything under `__MACOSX/`,
/// `__pycache__/` or a hidden folder (`.git/`), and hidden files other than
/// [`KEPT_DOTFILES`]. A shell can skip reading such files.
pub fn is_ignored(path: &str) -> bool {
    let segments: Vec<&str> = path.split(['/', '\\']).collect();
    let last = segments.len() - 1;
    segments.iter().enumerate().any(|(at, segment)| {
        *segment == "__MACOSX"
            || *segment == "__pycache__"
            || (segment.starts_with('.')
                && *segment != "."
                && *segment != ".."
                && !(at == last && KEPT_DOTFILES.contains(segment)))
    })
}

/// True when `bytes` start like a zip archive (a local header or an empty archive).
pub fn looks_like_zip(bytes: &[u8]) -> bool {
    bytes.starts_with(b"PK\x03\x04") || bytes.starts_with(b"PK\x05\x06")
}

/// Reads picked files (path relative to the picked folder, or a bare name): the same
/// rules as [`read_zip`], without the archive.
pub fn read_files(files: Vec<(String, Picked)>) -> Result<Archive, ArchiveError> {
    let entries = files.into_iter().map(|(path, picked)| (Ok(path), Source::Picked(picked)));
    collect(entries.collect(), &[])
}

/// Where an entry's bytes come from. One type, so that [`collect`] is compiled once.
enum Source {
    Zip(ZipEntry),
    Picked(Picked),
}

/// Reads one entry's bytes: `Ok(Err(_))` skips the file, `Err(_)` refuses the import.
fn read_source(
    zip: &[u8],
    path: &str,
    source: Source,
) -> Result<Result<Vec<u8>, SkipReason>, ArchiveError> {
    match source {
        Source::Zip(entry) => read_entry(zip, path, &entry),
        Source::Picked(Picked::Bytes(bytes)) if bytes.len() > MAX_FILE_BYTES => {
            Ok(Err(SkipReason::TooLarge))
        }
        Source::Picked(Picked::Bytes(bytes)) => Ok(Ok(bytes)),
        Source::Picked(Picked::Unread { bytes }) if bytes > MAX_FILE_BYTES as u64 => {
            Ok(Err(SkipReason::TooLarge))
        }
        // Ignored files arrive unread and never get here; the rest was left unread for
        // the total cap, which this size now counts toward.
        Source::Picked(Picked::Unread { .. }) => Err(ArchiveError::TotalTooLarge),
    }
}

const LOCAL_HEADER: u32 = 0x0403_4b50;
const CENTRAL_HEADER: u32 = 0x0201_4b50;
const END_OF_DIRECTORY: u32 = 0x0605_4b50;
const ZIP64_LOCATOR: u32 = 0x0706_4b50;

/// One central-directory entry, as much as reading it needs.
struct ZipEntry {
    method: u16,
    crc: u32,
    compressed: usize,
    size: usize,
    local_offset: usize,
    link: bool,
}

/// Reads a zip archive's text files.
pub fn read_zip(bytes: &[u8]) -> Result<Archive, ArchiveError> {
    if bytes.len() > MAX_ARCHIVE_BYTES {
        return Err(ArchiveError::TooLarge { bytes: bytes.len() });
    }
    let end = find_end(bytes)?;
    if end >= 20 && u32_at(bytes, end - 20) == Some(ZIP64_LOCATOR) {
        return Err(ArchiveError::Zip64);
    }
    let (disk, directory_disk) = (u16_at(bytes, end + 4), u16_at(bytes, end + 6));
    let (on_disk, count) = (u16_at(bytes, end + 8), u16_at(bytes, end + 10));
    let (size, offset) = (u32_at(bytes, end + 12), u32_at(bytes, end + 16));
    let (Some(disk), Some(directory_disk), Some(on_disk), Some(count), Some(size), Some(offset)) =
        (disk, directory_disk, on_disk, count, size, offset)
    else {
        return Err(ArchiveError::Truncated);
    };
    if count == u16::MAX || size == u32::MAX || offset == u32::MAX {
        return Err(ArchiveError::Zip64);
    }
    if disk != 0 || directory_disk != 0 || on_disk != count {
        return Err(ArchiveError::MultiDisk);
    }
    let (offset, size) = (offset as usize, size as usize);
    if offset.checked_add(size).is_none_or(|directory_end| directory_end > end) {
        return Err(damaged("its table of contents points outside the file"));
    }
    let directory = &bytes[..offset + size];
    let mut at = offset;
    let mut entries = Vec::with_capacity(usize::from(count).min(MAX_PROJECT_FILES + 1));
    for index in 0..count {
        let (name, entry) = central_entry(directory, &mut at).ok_or_else(|| {
            damaged(&format!("entry {} of its table of contents is cut short", index + 1))
        })?;
        entries.push((name, Source::Zip(entry?)));
    }
    collect(entries, bytes)
}

/// Where the end-of-central-directory record starts.
fn find_end(bytes: &[u8]) -> Result<usize, ArchiveError> {
    let missing =
        || if looks_like_zip(bytes) { ArchiveError::Truncated } else { ArchiveError::NotZip };
    let last = bytes.len().checked_sub(22).ok_or_else(missing)?;
    // The record ends with a comment of up to 65,535 bytes.
    let first = last.saturating_sub(usize::from(u16::MAX));
    let found = (first..=last).rev().find(|&at| {
        u32_at(bytes, at) == Some(END_OF_DIRECTORY)
            && u16_at(bytes, at + 20)
                .is_some_and(|comment| at + 22 + usize::from(comment) <= bytes.len())
    });
    found.ok_or_else(missing)
}

/// Reads one central-directory entry: its name (or the lossy name when it is not UTF-8)
/// and the entry, or why the archive is refused. `None` when the directory ends early.
#[allow(clippy::type_complexity)]
fn central_entry(
    bytes: &[u8],
    at: &mut usize,
) -> Option<(Result<String, String>, Result<ZipEntry, ArchiveError>)> {
    let start = *at;
    if u32_at(bytes, start)? != CENTRAL_HEADER {
        return None;
    }
    let made_by = *bytes.get(start + 5)?;
    let field = |offset: usize, width: usize| {
        if width == 2 {
            u16_at(bytes, start + offset).map(u32::from)
        } else {
            u32_at(bytes, start + offset)
        }
    };
    let flags = field(8, 2)?;
    let method = field(10, 2)?;
    let crc = field(16, 4)?;
    let compressed = field(20, 4)?;
    let size = field(24, 4)?;
    let name_len = field(28, 2)? as usize;
    let extra_len = field(30, 2)? as usize;
    let comment_len = field(32, 2)? as usize;
    let external = field(38, 4)?;
    let local_offset = field(42, 4)?;
    let name_at = start + 46;
    let name = bytes.get(name_at..name_at + name_len)?;
    *at = name_at + name_len + extra_len + comment_len;
    if *at > bytes.len() {
        return None;
    }
    let name = std::str::from_utf8(name)
        .map(str::to_owned)
        .map_err(|_| String::from_utf8_lossy(name).into_owned());
    let shown = name.clone().unwrap_or_else(|lossy| lossy);
    let entry = if flags & 1 != 0 || method == 99 {
        Err(ArchiveError::Encrypted { path: shown })
    } else if compressed == u32::MAX || size == u32::MAX || local_offset == u32::MAX {
        Err(ArchiveError::Zip64)
    } else {
        Ok(ZipEntry {
            method: method as u16,
            crc,
            compressed: compressed as usize,
            size: size as usize,
            local_offset: local_offset as usize,
            // Made on Unix (3), with a symbolic link's file type in the mode bits.
            link: made_by == 3 && (external >> 16) & 0o170_000 == 0o120_000,
        })
    };
    Some((name, entry))
}

/// Reads one entry's bytes: `Ok(Err(_))` skips the file, `Err(_)` refuses the archive.
fn read_entry(
    bytes: &[u8],
    path: &str,
    entry: &ZipEntry,
) -> Result<Result<Vec<u8>, SkipReason>, ArchiveError> {
    if entry.link {
        return Ok(Err(SkipReason::Link));
    }
    if entry.size > MAX_FILE_BYTES {
        return Ok(Err(SkipReason::TooLarge));
    }
    if entry.method != 0 && entry.method != 8 {
        return Ok(Err(SkipReason::Method(entry.method)));
    }
    // Bounded by the archive's size before any arithmetic on it (usize is 32 bits in wasm).
    if entry.local_offset >= bytes.len() || u32_at(bytes, entry.local_offset) != Some(LOCAL_HEADER)
    {
        return Err(damaged(&format!("{path} is not where its table of contents says")));
    }
    let name_len = u16_at(bytes, entry.local_offset + 26);
    let extra_len = u16_at(bytes, entry.local_offset + 28);
    let (Some(name_len), Some(extra_len)) = (name_len, extra_len) else {
        return Err(damaged(&format!("{path} is cut short")));
    };
    let start = entry.local_offset + 30 + usize::from(name_len) + usize::from(extra_len);
    let data = start
        .checked_add(entry.compressed)
        .and_then(|end| bytes.get(start..end))
        .ok_or_else(|| damaged(&format!("{path} is cut short")))?;
    let out = if entry.method == 0 {
        data.to_vec()
    } else {
        use miniz_oxide::inflate::{TINFLStatus, decompress_to_vec_with_limit};
        match decompress_to_vec_with_limit(data, MAX_FILE_BYTES + 1) {
            Ok(out) if out.len() <= MAX_FILE_BYTES => out,
            Ok(_) => return Ok(Err(SkipReason::TooLarge)),
            Err(error) if error.status == TINFLStatus::HasMoreOutput => {
                return Ok(Err(SkipReason::TooLarge));
            }
            Err(_) => return Err(damaged(&format!("{path}'s compressed data is broken"))),
        }
    };
    if out.len() != entry.size {
        return Err(damaged(&format!(
            "{path} holds {} bytes, not the {} its table of contents declares",
            out.len(),
            entry.size
        )));
    }
    if crc32(&out) != entry.crc {
        return Err(damaged(&format!("{path} fails its checksum")));
    }
    Ok(Ok(out))
}

fn damaged(what: &str) -> ArchiveError {
    ArchiveError::Damaged(what.to_owned())
}

/// The import rules shared by archives and picked files: paths cleaned and checked,
/// ignored files dropped, the file count capped before anything is read, the common
/// folder stripped, each file read from its source and kept when it is text.
fn collect(
    entries: Vec<(Result<String, String>, Source)>,
    zip: &[u8],
) -> Result<Archive, ArchiveError> {
    let mut archive = Archive::default();
    let mut candidates = Vec::new();
    for (name, payload) in entries {
        let name = match name {
            Ok(name) => name,
            Err(lossy) => {
                archive.skipped.push(Skipped { path: lossy, reason: SkipReason::BadName });
                continue;
            }
        };
        let mut path = name.replace('\\', "/");
        while let Some(rest) = path.strip_prefix("./") {
            path = rest.to_owned();
        }
        if path.is_empty() || path.ends_with('/') {
            continue; // a folder: its files are entries of their own
        }
        if let Some(problem) = path_problem(&path) {
            archive.skipped.push(Skipped { path, reason: SkipReason::BadPath(problem) });
        } else if is_ignored(&path) {
            archive.ignored += 1;
        } else {
            candidates.push((path, payload));
        }
    }
    if candidates.len() > MAX_PROJECT_FILES {
        return Err(ArchiveError::TooManyFiles { count: candidates.len() });
    }
    let strip = common_folder(candidates.iter().map(|(path, _)| path.as_str())).map(str::len);
    // Collected as a workspace area: sorted by path as it grows, without a sort.
    let mut texts = Workspace::default();
    let mut total = 0usize;
    for (path, payload) in candidates {
        let path = match strip {
            Some(len) => path[len + 1..].to_owned(),
            None => path,
        };
        let file = FileRef::new(Area::Before, path);
        let path = file.path.clone();
        if texts.file(&file).is_some() || archive.skipped.iter().any(|skip| skip.path == path) {
            archive.skipped.push(Skipped { path, reason: SkipReason::Duplicate });
            continue;
        }
        let bytes = match read_source(zip, &path, payload)? {
            Ok(bytes) => bytes,
            Err(reason) => {
                archive.skipped.push(Skipped { path, reason });
                continue;
            }
        };
        total += bytes.len();
        if total > MAX_TOTAL_BYTES {
            return Err(ArchiveError::TotalTooLarge);
        }
        match String::from_utf8(bytes) {
            Ok(text) if !text.contains('\0') => texts.set_file(&file, text),
            _ => archive.skipped.push(Skipped { path, reason: SkipReason::NotText }),
        }
    }
    archive.files = owned(&texts.before);
    Ok(archive)
}

/// The one top-level folder every path is in, unless it names an area (then the
/// archive is laid out by area).
fn common_folder<'a>(mut paths: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    let first = paths.next()?.split_once('/')?.0;
    if Area::from_prefix(first).is_some() {
        return None;
    }
    paths.all(|path| path.split_once('/').is_some_and(|(top, _)| top == first)).then_some(first)
}

/// How an import's files map onto the workspace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Split {
    /// The paths start with `before/`, `after/`, `server/` or `crm/`: each file goes to
    /// its area. Listed in area order, only the areas the import names.
    Areas {
        /// Area → its files, paths without the area folder.
        areas: Vec<(Area, Vec<(String, String)>)>,
        /// Files outside the area folders, left out.
        outside: Vec<String>,
    },
    /// A tutorial-layout project (it has `mcp_variant/`), split by
    /// [`tutorial_layout`]: *before*, *after*, and the server and CRM seed when present.
    Tutorial {
        /// Area → its files, only the areas the rule filled.
        areas: Vec<(Area, Vec<(String, String)>)>,
        /// Tool modules the swap took out of *after*.
        set_aside: Vec<String>,
    },
    /// One Rasa project: the reader chooses its area.
    Project(Vec<(String, String)>),
}

impl Split {
    /// The imports that load this split, in area order: a [`Split::Project`] goes to
    /// `area`; the other layouts go to the areas they name. `replace` says whether each
    /// area's files are replaced or merged.
    pub fn imports(&self, area: Area, replace: bool) -> Vec<Action> {
        let import = |area: Area, files: &Vec<(String, String)>| Action::Import {
            area,
            files: files.clone(),
            replace,
        };
        match self {
            Split::Project(files) => vec![import(area, files)],
            Split::Areas { areas, .. } | Split::Tutorial { areas, .. } => {
                areas.iter().map(|(area, files)| import(*area, files)).collect()
            }
        }
    }
}

/// Decides how an import's files map onto the workspace (see [`Split`]).
pub fn split_project(files: Vec<(String, String)>) -> Split {
    let by_area = |path: &str| {
        let (top, rest) = path.split_once('/')?;
        Some((Area::from_prefix(top)?, rest.len()))
    };
    if files.iter().any(|(path, _)| by_area(path).is_some()) {
        let mut split = Workspace::default();
        let mut outside = Vec::new();
        for (path, text) in files {
            match by_area(&path) {
                Some((area, rest)) => {
                    split.set_file(&FileRef::new(area, &path[path.len() - rest..]), text);
                }
                None => outside.push(path),
            }
        }
        return Split::Areas { areas: non_empty_areas(split), outside };
    }
    if !files.iter().any(|(path, _)| path.starts_with(VARIANT_DIR)) {
        return Split::Project(files);
    }
    let mut root = Workspace::default();
    for (path, text) in files {
        root.set_file(&FileRef::new(Area::Before, path), text);
    }
    match tutorial_layout(&root.before) {
        Ok(swap) => Split::Tutorial {
            areas: non_empty_areas(swap.workspace),
            set_aside: swap.set_aside.into_iter().map(|s| s.path).collect(),
        },
        Err(_) => Split::Project(owned(&root.before)),
    }
}

/// The workspace's non-empty areas with their files, in area order.
fn non_empty_areas(workspace: Workspace) -> Vec<(Area, Vec<(String, String)>)> {
    let Workspace { before, after, server, crm } = workspace;
    Area::ALL
        .into_iter()
        .zip([before, after, server, crm])
        .filter(|(_, project)| !project.is_empty())
        .map(|(area, project)| (area, owned(&project)))
        .collect()
}

fn owned(project: &Project) -> Vec<(String, String)> {
    project.files().map(|(path, text)| (path.to_owned(), text.to_owned())).collect()
}

/// The little-endian `u16` at `at`, `None` past the end.
fn u16_at(bytes: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(bytes.get(at..at.checked_add(2)?)?.try_into().ok()?))
}

/// The little-endian `u32` at `at`, `None` past the end.
fn u32_at(bytes: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(bytes.get(at..at.checked_add(4)?)?.try_into().ok()?))
}

/// CRC-32 (IEEE, as zip uses it), four bits at a time: a 64-byte table.
fn crc32(bytes: &[u8]) -> u32 {
    const TABLE: [u32; 16] = {
        let mut table = [0u32; 16];
        let mut i = 0;
        while i < 16 {
            let mut crc = i as u32;
            let mut bit = 0;
            while bit < 4 {
                crc = if crc & 1 == 1 { 0xEDB8_8320 ^ (crc >> 1) } else { crc >> 1 };
                bit += 1;
            }
            table[i] = crc;
            i += 1;
        }
        table
    };
    let mut crc = !0u32;
    for &byte in bytes {
        crc = TABLE[((crc ^ u32::from(byte)) & 15) as usize] ^ (crc >> 4);
        crc = TABLE[((crc ^ u32::from(byte >> 4)) & 15) as usize] ^ (crc >> 4);
    }
    !crc
}
