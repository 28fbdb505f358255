//! Permalinks: the playground's whole state in a URL fragment, so that a link reproduces
//! a workspace in a fresh browser. The fragment never reaches a server.
//!
//! A link is `v1` (the format version), a one-character form tag, then a zlib-deflated
//! payload in URL-safe base64 without padding:
//!
//! - `v1e…` — the *example* form: a built-in example's id plus a patch against its
//!   pristine workspace (per changed file: line edits, or the whole text when that is
//!   shorter; deleted files; added files). Untouched files come from the example.
//! - `v1f…` — the *full* form: every file's text.
//!
//! The payload is a small hand-written format (see [`encode`]); lengths and counts are
//! LEB128 varints, strings are a length and UTF-8 bytes, and files are in file-tree order,
//! so the same link always encodes to the same string. The deflate encoder is a page of
//! code here (fixed Huffman codes, see `deflate_zlib`); inflating is miniz_oxide's.
//!
//! Decoding trusts nothing: the fragment's length, its alphabet and the inflated size are
//! checked before the work they guard (inflating stops at [`MAX_INFLATED_BYTES`], so a
//! deflate bomb costs at most that much memory), then the structure: file count, file
//! sizes, paths and UTF-8. Every failure is a [`LinkError`]; no input panics.

use std::fmt;

use crate::diff::diff_text;
use crate::rasa::project::{MAX_FILE_BYTES, MAX_PROJECT_FILES};
use crate::workspace::{Area, FileRef, Workspace, path_problem};

/// The format version every link starts with: fragments look like `#v1…`.
pub const VERSION_PREFIX: &str = "v1";

/// Fragments longer than this are refused before they are decoded.
pub const MAX_FRAGMENT_CHARS: usize = 64 * 1024;

/// Inflating stops at this many bytes: the cap a deflate bomb runs into.
pub const MAX_INFLATED_BYTES: usize = 2 * 1024 * 1024;

/// Links longer than this work, but the UI warns that some tools truncate them.
pub const WARN_LINK_CHARS: usize = 2_000;

/// A link holds at most this many files (the cap on a project's files).
pub const MAX_FILES: usize = MAX_PROJECT_FILES;

/// Example ids longer than this are refused: ids are folder names.
const MAX_EXAMPLE_ID_BYTES: usize = 100;

/// Above this many changed lines on either side, a file's patch replaces the changed
/// middle in one edit instead of diffing it, so that encoding stays fast on any input.
const MAX_DIFF_LINES: usize = 2_000;

/// What a permalink restores: the example the workspace started from, the files and the
/// file shown in the editor.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Link {
    /// The built-in example the workspace started from, if any.
    pub example: Option<String>,
    /// The files.
    pub workspace: Workspace,
    /// The file shown in the editor, if any.
    pub open: Option<FileRef>,
}

/// The two shapes a v1 payload takes, named by the character after the version.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// An example id and a patch against its pristine workspace (`e`).
    Example,
    /// Every file's text (`f`).
    Full,
}

impl Form {
    /// The tag written after the version prefix.
    pub fn tag(self) -> char {
        match self {
            Form::Example => 'e',
            Form::Full => 'f',
        }
    }

    /// Parses [`Form::tag`] back.
    pub fn from_tag(tag: char) -> Option<Form> {
        match tag {
            'e' => Some(Form::Example),
            'f' => Some(Form::Full),
            _ => None,
        }
    }
}

/// Why a fragment could not be turned into a [`Link`]. Its [`fmt::Display`] is one
/// sentence for a banner, saying what is wrong and that the page kept the default example.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LinkError {
    /// The fragment is empty.
    Empty,
    /// The fragment does not start with a version this build reads.
    UnknownVersion {
        /// The version it starts with (`v2`), or empty when it has none.
        version: String,
    },
    /// The fragment is longer than [`MAX_FRAGMENT_CHARS`].
    TooLong {
        /// Its length in characters.
        chars: usize,
    },
    /// A character outside URL-safe base64, or a length base64 cannot have.
    NotBase64 {
        /// 0-based character position in the fragment as given.
        at: usize,
    },
    /// The compressed data is damaged.
    Inflate {
        /// What the inflater found.
        reason: String,
    },
    /// The data inflates to more than [`MAX_INFLATED_BYTES`].
    TooLarge {
        /// How far inflating got before it stopped (the cap).
        bytes: usize,
    },
    /// The inflated data is not a payload this build can read.
    Malformed {
        /// What was wrong.
        what: String,
    },
    /// The link holds more than [`MAX_FILES`] files.
    TooManyFiles {
        /// How many it declares.
        count: usize,
    },
    /// A file is larger than [`MAX_FILE_BYTES`].
    FileTooLarge {
        /// The file, as `area/path`.
        path: String,
        /// Its size in bytes (at least; a patch stops growing it at the cap).
        bytes: usize,
    },
    /// A path breaks [`FileRef`]'s rules.
    BadPath {
        /// The path (lossily decoded when it is not UTF-8).
        path: String,
        /// The rule it breaks.
        reason: &'static str,
    },
    /// A file's text or an id is not valid UTF-8.
    NotUtf8 {
        /// Which text.
        what: String,
    },
    /// The link names a built-in example this build does not have.
    UnknownExample {
        /// The id it names.
        id: String,
    },
    /// A file's patch does not fit the example's file as this build has it.
    PatchDoesNotApply {
        /// The file, as `area/path`.
        file: String,
        /// Why it does not fit.
        reason: String,
    },
}

impl fmt::Display for LinkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const KEPT: &str = "so the page kept the default example";
        match self {
            LinkError::Empty => write!(f, "This link's workspace part is empty, {KEPT}."),
            LinkError::UnknownVersion { version } if version.is_empty() => write!(
                f,
                "This link does not start with a Swap Lab format version (like \
                 {VERSION_PREFIX}), {KEPT}."
            ),
            LinkError::UnknownVersion { version } if is_newer(version) => write!(
                f,
                "This link was made by a newer version of Swap Lab ({version}) than this page \
                 ({VERSION_PREFIX}), {KEPT}."
            ),
            LinkError::UnknownVersion { version } => write!(
                f,
                "This link uses a format ({version}) this version of Swap Lab does not read, \
                 {KEPT}."
            ),
            LinkError::TooLong { chars } => write!(
                f,
                "This link's workspace part is {chars} characters long, over the \
                 {MAX_FRAGMENT_CHARS}-character limit, {KEPT}."
            ),
            LinkError::NotBase64 { at } => write!(
                f,
                "This link is damaged (character {} is not one a Swap Lab link uses), {KEPT}.",
                at + 1
            ),
            LinkError::Inflate { reason } => {
                write!(f, "This link is damaged ({reason}), {KEPT}.")
            }
            LinkError::TooLarge { .. } => write!(
                f,
                "This link unpacks to more than {MAX_INFLATED_BYTES} bytes, the most a link may \
                 hold, {KEPT}."
            ),
            LinkError::Malformed { what } => {
                write!(f, "This link is damaged ({what}), {KEPT}.")
            }
            LinkError::TooManyFiles { count } => {
                let files = crate::words::count(*count, "file", "files");
                write!(f, "This link holds {files}, over the {MAX_FILES}-file limit, {KEPT}.")
            }
            LinkError::FileTooLarge { path, bytes } => write!(
                f,
                "This link's file {path} is {bytes} bytes, over the {MAX_FILE_BYTES}-byte limit, \
                 {KEPT}."
            ),
            LinkError::BadPath { path, reason } => {
                write!(f, "This link names a file {path:?} that {reason}, {KEPT}.")
            }
            LinkError::NotUtf8 { what } => {
                write!(f, "This link's {what} is not valid UTF-8 text, {KEPT}.")
            }
            LinkError::UnknownExample { id } => write!(
                f,
                "This link starts from an example ({id:?}) this version of Swap Lab does not \
                 have, {KEPT}."
            ),
            LinkError::PatchDoesNotApply { file, reason } => write!(
                f,
                "This link's changes to {file} do not fit this version's example ({reason}), \
                 {KEPT}."
            ),
        }
    }
}

impl std::error::Error for LinkError {}

/// True when `version` (`v` and digits) is above this build's.
fn is_newer(version: &str) -> bool {
    let digits = version.strip_prefix('v').unwrap_or_default();
    let current = VERSION_PREFIX.strip_prefix('v').unwrap_or_default();
    // Compared as numbers written without leading zeros, so no parse can overflow.
    let digits = digits.trim_start_matches('0');
    (digits.len(), digits) > (current.len(), current)
}

// --- encoding ---------------------------------------------------------------------------

/// Encodes a link as a fragment, without the leading `#`.
///
/// When `base` (the pristine built-in example's workspace) is given, `link.example` names
/// it, and the patch against it is smaller than the whole state, the link takes the
/// example form (`v1e…`); else the full form (`v1f…`), which keeps `link.example` as a
/// label. An example id that is not a folder name (ASCII letters, digits, `-`, `_`, at
/// most 100 bytes) is not written. The payload, inside the deflate stream:
///
/// ```text
/// full    = str(example, empty for none) open varint(n) { area str(path) str(text) }
/// example = str(example) open varint(n) { area str(path) change }
/// open    = 0 | 1 + area, str(path)
/// change  = 0                    deleted
///         | 1 str(text)          added, or replaced whole
///         | 2 u32le(fnv1a(base text)) varint(m) { varint(skip) varint(remove) str(insert) }
/// area    = 0 before | 1 after | 2 server | 3 crm
/// str     = varint(byte length) bytes
/// ```
///
/// Files and changes are in file-tree order; a patch's edits skip and remove whole lines
/// (`\n`-terminated, the last one maybe not) of the base text and insert text. The open
/// file is written only when the workspace holds it. A workspace whose paths break
/// [`FileRef`]'s rules encodes, but [`decode`] refuses it.
///
/// Files named `.env` stay out of every link ([`is_private`]): an imported project's
/// `.env` may hold a real token, and a link is meant to be pasted into a chat.
pub fn encode(link: &Link, base: Option<&Workspace>) -> String {
    let shared;
    let workspace = if link.workspace.files().any(|(file, _)| is_private(&file)) {
        let mut public = link.workspace.clone();
        let private: Vec<FileRef> =
            public.files().map(|(file, _)| file).filter(is_private).collect();
        for file in &private {
            public.remove_file(file);
        }
        shared = public;
        &shared
    } else {
        &link.workspace
    };
    let open = link.open.as_ref().filter(|file| workspace.file(file).is_some());
    let id = link.example.as_deref().filter(|id| valid_example_id(id));
    let full = full_payload(id, open, workspace);
    let example = match (id, base) {
        (Some(id), Some(base)) => Some(example_payload(id, open, workspace, base)),
        _ => None,
    };
    match example {
        Some(example) if example.len() < full.len() => pack(Form::Example, &example),
        _ => pack(Form::Full, &full),
    }
}

/// Whether `file` is left out of links: a `.env`, which may hold secrets (its
/// `.env.example`, the project's documented defaults, travels).
pub fn is_private(file: &FileRef) -> bool {
    file.file_name() == ".env"
}

/// Wraps a raw payload: the version, `form`'s tag, then the payload deflated (a zlib
/// stream of one fixed-Huffman block) and written in URL-safe base64 without padding.
/// [`encode`] builds the payload; this is the envelope alone.
pub fn pack(form: Form, payload: &[u8]) -> String {
    let deflated = deflate_zlib(payload);
    let mut out = String::with_capacity(VERSION_PREFIX.len() + 1 + deflated.len() * 4 / 3 + 3);
    out.push_str(VERSION_PREFIX);
    out.push(form.tag());
    base64_encode(&deflated, &mut out);
    out
}

// --- deflate ----------------------------------------------------------------------------
//
// A zlib stream (RFC 1950) around one deflate block with the fixed Huffman codes
// (RFC 1951 §3.2.6), matched by LZ77 with hash chains and one-step lazy matching, as
// zlib's own levels do. Fixed codes cost nothing on the small payloads most links carry
// (zlib picks them there too) and about a sixth more on whole workspaces; in exchange
// the encoder is a page of code instead of a Huffman-tree builder in the wasm. Any
// inflater reads it; `decode` uses miniz_oxide's.

/// Deflate's window: the farthest a match may reach back.
const WINDOW: usize = 32 * 1024;
const MIN_MATCH: usize = 3;
const MAX_MATCH: usize = 258;
/// Candidates tried per position, and the match length that ends the search early.
const MAX_CHAIN: usize = 64;
const NICE_MATCH: usize = 128;
/// A match this long is taken without looking one byte further for a longer one.
const LAZY_MATCH: usize = 32;

const LENGTH_BASE: [u16; 29] = [
    3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131,
    163, 195, 227, 258,
];
const LENGTH_EXTRA: [u8; 29] =
    [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0];
const DISTANCE_BASE: [u16; 30] = [
    1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537,
    2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577,
];
const DISTANCE_EXTRA: [u8; 30] = [
    0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13,
    13,
];

/// Bits, least significant first, as deflate packs them.
struct BitWriter {
    out: Vec<u8>,
    acc: u64,
    count: u32,
}

impl BitWriter {
    fn put(&mut self, value: u32, count: u32) {
        self.acc |= u64::from(value) << self.count;
        self.count += count;
        while self.count >= 8 {
            self.out.push(self.acc as u8);
            self.acc >>= 8;
            self.count -= 8;
        }
    }

    /// A Huffman code: most significant bit first.
    fn code(&mut self, code: u32, len: u32) {
        self.put(code.reverse_bits() >> (32 - len), len);
    }

    fn literal(&mut self, byte: u8) {
        match byte {
            0..=143 => self.code(0x30 + u32::from(byte), 8),
            _ => self.code(0x190 + u32::from(byte) - 144, 9),
        }
    }

    /// Symbols 256–287 of the literal/length alphabet.
    fn symbol(&mut self, symbol: u32) {
        if symbol < 280 { self.code(symbol - 256, 7) } else { self.code(0xc0 + symbol - 280, 8) }
    }

    fn copy(&mut self, len: usize, distance: usize) {
        let index = LENGTH_BASE.partition_point(|&base| usize::from(base) <= len) - 1;
        self.symbol(257 + index as u32);
        self.put((len - usize::from(LENGTH_BASE[index])) as u32, LENGTH_EXTRA[index].into());
        let index = DISTANCE_BASE.partition_point(|&base| usize::from(base) <= distance) - 1;
        self.code(index as u32, 5);
        let extra = (distance - usize::from(DISTANCE_BASE[index])) as u32;
        self.put(extra, DISTANCE_EXTRA[index].into());
    }
}

/// Hash chains over the last [`WINDOW`] positions; entries hold position + 1, 0 for none.
struct Chains {
    head: Vec<usize>,
    prev: Vec<usize>,
    bits: u32,
}

impl Chains {
    fn new(len: usize) -> Chains {
        // Small inputs get small tables: most links carry a few hundred bytes.
        let bits = (usize::BITS - len.leading_zeros()).clamp(8, 15);
        let prev = len.next_power_of_two().clamp(256, WINDOW);
        Chains { head: vec![0; 1 << bits], prev: vec![0; prev], bits }
    }

    /// Records position `at` (which has three bytes to hash) and returns the chain's
    /// previous head.
    fn insert(&mut self, input: &[u8], at: usize) -> usize {
        let key = u32::from_le_bytes([input[at], input[at + 1], input[at + 2], 0]);
        let hash = (key.wrapping_mul(0x9e37_79b1) >> (32 - self.bits)) as usize;
        let previous = self.head[hash];
        let slot = at & (self.prev.len() - 1);
        self.prev[slot] = previous;
        self.head[hash] = at + 1;
        previous
    }

    /// The longest earlier match for `at` along the chain starting at `candidate`.
    fn longest(&self, input: &[u8], at: usize, mut candidate: usize) -> (usize, usize) {
        let max = (input.len() - at).min(MAX_MATCH);
        let (mut best, mut distance) = (0, 0);
        for _ in 0..MAX_CHAIN {
            let Some(from) = candidate.checked_sub(1) else { break };
            if from >= at || at - from > WINDOW {
                break;
            }
            if input.get(from + best) == input.get(at + best) {
                let len = input[from..from + max]
                    .iter()
                    .zip(&input[at..at + max])
                    .take_while(|(a, b)| a == b)
                    .count();
                if len > best {
                    (best, distance) = (len, at - from);
                    if len >= NICE_MATCH.min(max) {
                        break;
                    }
                }
            }
            let next = self.prev[from & (self.prev.len() - 1)];
            // A ring slot overwritten by a newer position ends the chain.
            if next > from {
                break;
            }
            candidate = next;
        }
        (best, distance)
    }
}

/// `input` as a zlib stream of one fixed-Huffman block.
fn deflate_zlib(input: &[u8]) -> Vec<u8> {
    let mut bits = BitWriter { out: Vec::with_capacity(input.len() / 2 + 16), acc: 0, count: 0 };
    bits.out.extend_from_slice(&[0x78, 0xda]);
    bits.put(0b011, 3); // the final block, fixed codes
    let mut chains = Chains::new(input.len());
    // zlib's lazy evaluation: a match found at `at - 1` is held until `at` shows whether
    // starting one byte later matches longer.
    let (mut held, mut held_distance, mut literal_pending) = (0, 0, false);
    let mut at = 0;
    while at < input.len() {
        let candidate = if at + MIN_MATCH <= input.len() { chains.insert(input, at) } else { 0 };
        let (len, distance) = if held < LAZY_MATCH && candidate != 0 {
            chains.longest(input, at, candidate)
        } else {
            (0, 0)
        };
        let len = if len >= MIN_MATCH { len } else { 0 };
        if held >= MIN_MATCH && len <= held {
            bits.copy(held, held_distance);
            // The held match started at `at - 1`; index what it covers, then skip it.
            let end = at - 1 + held;
            for inside in at + 1..end {
                if inside + MIN_MATCH <= input.len() {
                    chains.insert(input, inside);
                }
            }
            at = end;
            (held, literal_pending) = (0, false);
            continue;
        }
        if literal_pending {
            bits.literal(input[at - 1]);
        }
        (held, held_distance, literal_pending) = (len, distance, true);
        at += 1;
    }
    if literal_pending {
        bits.literal(input[at - 1]);
    }
    bits.symbol(256);
    if bits.count > 0 {
        bits.put(0, 8 - bits.count);
    }
    bits.out.extend_from_slice(&adler32(input).to_be_bytes());
    bits.out
}

/// zlib's checksum (RFC 1950 §9).
fn adler32(bytes: &[u8]) -> u32 {
    let (mut a, mut b) = (1u32, 0u32);
    // 5,552 bytes is the most that cannot overflow `b` before the modulo.
    for chunk in bytes.chunks(5_552) {
        for &byte in chunk {
            a += u32::from(byte);
            b += a;
        }
        (a, b) = (a % 65_521, b % 65_521);
    }
    b << 16 | a
}

fn full_payload(example: Option<&str>, open: Option<&FileRef>, workspace: &Workspace) -> Vec<u8> {
    let mut out = Vec::new();
    put_str(&mut out, example.unwrap_or_default().as_bytes());
    put_open(&mut out, open);
    put_varint(&mut out, workspace.len());
    for (file, text) in workspace.files() {
        put_file_ref(&mut out, &file);
        put_str(&mut out, text.as_bytes());
    }
    out
}

fn example_payload(
    id: &str,
    open: Option<&FileRef>,
    workspace: &Workspace,
    base: &Workspace,
) -> Vec<u8> {
    // Both lists are in file-tree order: merge them.
    let mut changes: Vec<(FileRef, Vec<u8>)> = Vec::new();
    for (file, text) in workspace.files() {
        let change = match base.file(&file) {
            Some(old) if old == text => continue,
            Some(old) => replacement(old, text),
            None => whole(text),
        };
        changes.push((file, change));
    }
    changes.extend(
        base.files()
            .filter(|(file, _)| workspace.file(file).is_none())
            .map(|(file, _)| (file, vec![0])),
    );
    crate::order::sort_by(&mut changes, |a, b| a.0.cmp(&b.0));

    let mut out = Vec::new();
    put_str(&mut out, id.as_bytes());
    put_open(&mut out, open);
    put_varint(&mut out, changes.len());
    for (file, change) in &changes {
        put_file_ref(&mut out, file);
        out.extend_from_slice(change);
    }
    out
}

fn whole(text: &str) -> Vec<u8> {
    let mut out = vec![1];
    put_str(&mut out, text.as_bytes());
    out
}

/// The shorter of a line patch and the whole text.
fn replacement(old: &str, new: &str) -> Vec<u8> {
    let whole = whole(new);
    let edits = line_edits(old, new);
    // A patch that would not rebuild the text exactly is never written.
    if apply_edits(old, &edits).as_deref() != Ok(new) {
        return whole;
    }
    let mut patch = vec![2];
    patch.extend_from_slice(&fnv1a(old.as_bytes()).to_le_bytes());
    put_varint(&mut patch, edits.len());
    for edit in &edits {
        put_varint(&mut patch, edit.skip);
        put_varint(&mut patch, edit.remove);
        put_str(&mut patch, edit.insert.as_bytes());
    }
    if patch.len() < whole.len() { patch } else { whole }
}

/// One edit of a patch: keep `skip` lines, drop `remove` lines, insert `insert`.
#[derive(Debug)]
struct Edit<S> {
    skip: usize,
    remove: usize,
    insert: S,
}

/// The line edits that turn `old` into `new`: common leading and trailing lines are
/// trimmed, and the middle is diffed by [`diff_text`] (the one diff the wasm carries)
/// unless it is too long to diff quickly, when it is replaced in one edit.
fn line_edits<'a>(old: &str, new: &'a str) -> Vec<Edit<&'a str>> {
    let old_lines: Vec<&str> = old.split_inclusive('\n').collect();
    let new_lines: Vec<&str> = new.split_inclusive('\n').collect();
    let prefix = old_lines.iter().zip(&new_lines).take_while(|(a, b)| a == b).count();
    let suffix = old_lines[prefix..]
        .iter()
        .rev()
        .zip(new_lines[prefix..].iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    let old_mid = &old_lines[prefix..old_lines.len() - suffix];
    let new_mid = &new_lines[prefix..new_lines.len() - suffix];
    if old_mid.is_empty() && new_mid.is_empty() {
        return Vec::new();
    }
    // Byte offsets of the middles, and of every line of the new middle.
    let old_start: usize = old_lines[..prefix].iter().map(|l| l.len()).sum();
    let old_len: usize = old_mid.iter().map(|l| l.len()).sum();
    let mut new_offsets = Vec::with_capacity(new_mid.len() + 1);
    let mut at: usize = new_lines[..prefix].iter().map(|l| l.len()).sum();
    new_offsets.push(at);
    for line in new_mid {
        at += line.len();
        new_offsets.push(at);
    }
    let new_slice = |from: usize, to: usize| &new[new_offsets[from]..new_offsets[to]];

    if old_mid.len() > MAX_DIFF_LINES || new_mid.len() > MAX_DIFF_LINES {
        return vec![Edit {
            skip: prefix,
            remove: old_mid.len(),
            insert: new_slice(0, new_mid.len()),
        }];
    }
    let diff = diff_text(&old[old_start..old_start + old_len], new_slice(0, new_mid.len()), 0);
    let mut edits = Vec::with_capacity(diff.hunks.len());
    let mut old_cursor = 0;
    for hunk in &diff.hunks {
        if hunk.old_len == 0 && hunk.new_len == 0 {
            continue;
        }
        // `Hunk` starts are 1-based, or name the line before an empty range.
        let old_from = if hunk.old_len == 0 { hunk.old_start } else { hunk.old_start - 1 };
        let new_from = if hunk.new_len == 0 { hunk.new_start } else { hunk.new_start - 1 };
        let skip = old_from.saturating_sub(old_cursor);
        let skip = if edits.is_empty() { skip + prefix } else { skip };
        edits.push(Edit {
            skip,
            remove: hunk.old_len,
            insert: new_slice(
                new_from.min(new_mid.len()),
                (new_from + hunk.new_len).min(new_mid.len()),
            ),
        });
        old_cursor = old_from + hunk.old_len;
    }
    edits
}

/// Applies line edits to `base`; `Err` says why they do not fit.
fn apply_edits<S: AsRef<str>>(base: &str, edits: &[Edit<S>]) -> Result<String, String> {
    let lines: Vec<&str> = base.split_inclusive('\n').collect();
    let mut out = String::with_capacity(base.len());
    let mut cursor = 0usize;
    for (number, edit) in edits.iter().enumerate() {
        let keep_end = cursor.checked_add(edit.skip).filter(|&end| end <= lines.len());
        let remove_end =
            keep_end.and_then(|k| k.checked_add(edit.remove)).filter(|&end| end <= lines.len());
        let (Some(keep_end), Some(remove_end)) = (keep_end, remove_end) else {
            return Err(format!(
                "edit {} reaches past the file's {}",
                number + 1,
                crate::words::count(lines.len(), "line", "lines")
            ));
        };
        lines[cursor..keep_end].iter().for_each(|line| out.push_str(line));
        out.push_str(edit.insert.as_ref());
        cursor = remove_end;
        if out.len() > MAX_FILE_BYTES {
            // Stop growing: the caller reports the file as too large.
            return Ok(out);
        }
    }
    lines[cursor..].iter().for_each(|line| out.push_str(line));
    Ok(out)
}

fn put_varint(out: &mut Vec<u8>, value: usize) {
    let mut value = value as u64;
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

fn put_str(out: &mut Vec<u8>, bytes: &[u8]) {
    put_varint(out, bytes.len());
    out.extend_from_slice(bytes);
}

fn area_index(area: Area) -> u8 {
    match area {
        Area::Before => 0,
        Area::After => 1,
        Area::Server => 2,
        Area::Crm => 3,
    }
}

fn put_file_ref(out: &mut Vec<u8>, file: &FileRef) {
    out.push(area_index(file.area));
    put_str(out, file.path.as_bytes());
}

fn put_open(out: &mut Vec<u8>, open: Option<&FileRef>) {
    match open {
        None => out.push(0),
        Some(file) => {
            out.push(1 + area_index(file.area));
            put_str(out, file.path.as_bytes());
        }
    }
}

/// FNV-1a, 32 bits: enough to tell that an example's file changed since a link was made.
fn fnv1a(bytes: &[u8]) -> u32 {
    bytes.iter().fold(0x811c_9dc5, |hash, &b| (hash ^ u32::from(b)).wrapping_mul(0x0100_0193))
}

const BASE64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

fn base64_encode(bytes: &[u8], out: &mut String) {
    for chunk in bytes.chunks(3) {
        let b = [chunk[0], chunk.get(1).copied().unwrap_or(0), chunk.get(2).copied().unwrap_or(0)];
        let n = u32::from(b[0]) << 16 | u32::from(b[1]) << 8 | u32::from(b[2]);
        for i in 0..=chunk.len() {
            out.push(char::from(BASE64[(n >> (18 - 6 * i) & 63) as usize]));
        }
    }
}

// --- decoding ---------------------------------------------------------------------------

/// Decodes a fragment (with or without the leading `#`). `base` looks up a built-in
/// example's pristine workspace by id; only the example form calls it.
///
/// An open file the workspace does not hold is dropped, not refused.
pub fn decode(fragment: &str, base: &dyn Fn(&str) -> Option<Workspace>) -> Result<Link, LinkError> {
    let (form, payload) = unpack(fragment)?;
    let mut reader = Reader { bytes: &payload, at: 0 };
    let link = match form {
        Form::Full => read_full(&mut reader)?,
        Form::Example => read_example(&mut reader, base)?,
    };
    if reader.at != payload.len() {
        return Err(malformed(format!("{} bytes follow the last file", payload.len() - reader.at)));
    }
    Ok(link)
}

/// Opens the envelope [`pack`] writes: checks the version, the length, the form tag and
/// the base64, and inflates with the [`MAX_INFLATED_BYTES`] cap. Returns the raw payload.
pub fn unpack(fragment: &str) -> Result<(Form, Vec<u8>), LinkError> {
    let hash = usize::from(fragment.starts_with('#'));
    let text = &fragment[hash..];
    if text.is_empty() {
        return Err(LinkError::Empty);
    }
    let version = version_of(text);
    if version != VERSION_PREFIX {
        return Err(LinkError::UnknownVersion { version: version.to_owned() });
    }
    if text.len() > MAX_FRAGMENT_CHARS {
        let chars = text.chars().count();
        if chars > MAX_FRAGMENT_CHARS {
            return Err(LinkError::TooLong { chars });
        }
    }
    let rest = &text[version.len()..];
    let Some(tag) = rest.chars().next() else {
        return Err(malformed("nothing follows the version".to_owned()));
    };
    let Some(form) = Form::from_tag(tag) else {
        return Err(malformed(format!("{tag:?} is not a link form")));
    };
    let body = &rest[tag.len_utf8()..];
    let offset = hash + version.len() + tag.len_utf8();
    // Every byte before a bad one is base64, so byte offsets are character positions.
    let deflated = base64_decode(body).map_err(|at| LinkError::NotBase64 { at: offset + at })?;
    let payload = inflate(&deflated)?;
    Ok((form, payload))
}

/// The leading `v` and digits (at most 12 characters), or "" when the text has none.
fn version_of(text: &str) -> &str {
    let digits = text.bytes().skip(1).take(11).take_while(u8::is_ascii_digit).count();
    if text.starts_with('v') && digits > 0 { &text[..1 + digits] } else { "" }
}

/// Decodes URL-safe base64 without padding; `Err` holds the byte offset of the problem.
fn base64_decode(text: &str) -> Result<Vec<u8>, usize> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len() / 4 * 3 + 2);
    let mut acc: u32 = 0;
    let mut bits = 0;
    for (at, &c) in bytes.iter().enumerate() {
        let value = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'-' => 62,
            b'_' => 63,
            _ => return Err(at),
        };
        acc = (acc << 6 | u32::from(value)) & 0xff_ffff;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    // A lone trailing character, or leftover bits that are not zero, is not what
    // `base64_encode` writes: refusing it keeps one string per payload.
    if bytes.len() % 4 == 1 || acc & ((1 << bits) - 1) != 0 {
        return Err(bytes.len().saturating_sub(1));
    }
    Ok(out)
}

fn inflate(deflated: &[u8]) -> Result<Vec<u8>, LinkError> {
    use miniz_oxide::inflate::TINFLStatus;
    miniz_oxide::inflate::decompress_to_vec_zlib_with_limit(deflated, MAX_INFLATED_BYTES).map_err(
        |error| {
            let reason = match error.status {
                TINFLStatus::HasMoreOutput => {
                    return LinkError::TooLarge { bytes: error.output.len() };
                }
                TINFLStatus::Adler32Mismatch => "its checksum does not match",
                TINFLStatus::NeedsMoreInput | TINFLStatus::FailedCannotMakeProgress => {
                    "it is cut short"
                }
                _ => "its compressed data is corrupt",
            };
            LinkError::Inflate { reason: reason.to_owned() }
        },
    )
}

fn malformed(what: String) -> LinkError {
    LinkError::Malformed { what }
}

/// A cursor over the payload; every read checks what is left first.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn byte(&mut self, what: &str) -> Result<u8, LinkError> {
        let byte = *self.bytes.get(self.at).ok_or_else(|| ends_early(what))?;
        self.at += 1;
        Ok(byte)
    }

    /// A LEB128 varint of at most 32 bits.
    fn varint(&mut self, what: &str) -> Result<usize, LinkError> {
        let mut value: u32 = 0;
        for shift in (0..35).step_by(7) {
            let byte = self.byte(what)?;
            let part = u32::from(byte & 0x7f);
            if shift == 28 && part > 0x0f {
                break;
            }
            value |= part << shift;
            if byte & 0x80 == 0 {
                return usize::try_from(value).map_err(|_| too_big(what));
            }
        }
        Err(too_big(what))
    }

    /// `len` bytes, checked against what is left before anything is copied.
    fn take(&mut self, len: usize, what: &str) -> Result<&'a [u8], LinkError> {
        let end = self.at.checked_add(len).filter(|&end| end <= self.bytes.len());
        let end = end.ok_or_else(|| ends_early(what))?;
        let slice = &self.bytes[self.at..end];
        self.at = end;
        Ok(slice)
    }

    fn bytes_with_len(&mut self, what: &str) -> Result<&'a [u8], LinkError> {
        let len = self.varint(what)?;
        self.take(len, what)
    }

    fn str(&mut self, what: &str) -> Result<&'a str, LinkError> {
        let bytes = self.bytes_with_len(what)?;
        std::str::from_utf8(bytes).map_err(|_| LinkError::NotUtf8 { what: what.to_owned() })
    }

    fn count(&mut self, limit: usize) -> Result<usize, LinkError> {
        let count = self.varint("the file count")?;
        if count > limit {
            return Err(LinkError::TooManyFiles { count });
        }
        Ok(count)
    }

    fn file_ref(&mut self, area: u8) -> Result<FileRef, LinkError> {
        let path = self.bytes_with_len("a path")?;
        let shown = || String::from_utf8_lossy(path).into_owned();
        let area = match area {
            0 => Area::Before,
            1 => Area::After,
            2 => Area::Server,
            3 => Area::Crm,
            _ => return Err(LinkError::BadPath { path: shown(), reason: "is in no known area" }),
        };
        let Ok(path) = std::str::from_utf8(path) else {
            return Err(LinkError::BadPath { path: shown(), reason: "is not valid UTF-8" });
        };
        if let Some(reason) = path_problem(path) {
            return Err(LinkError::BadPath { path: path.to_owned(), reason });
        }
        Ok(FileRef::new(area, path))
    }

    /// A file text of at most [`MAX_FILE_BYTES`], refused by its declared length.
    fn text(&mut self, file: &FileRef) -> Result<&'a str, LinkError> {
        let len = self.varint("a file's length")?;
        if len > MAX_FILE_BYTES {
            return Err(LinkError::FileTooLarge { path: file.to_string(), bytes: len });
        }
        let bytes = self.take(len, "a file's text")?;
        std::str::from_utf8(bytes).map_err(|_| LinkError::NotUtf8 { what: format!("file {file}") })
    }

    fn open(&mut self) -> Result<Option<FileRef>, LinkError> {
        match self.byte("the open file")? {
            0 => Ok(None),
            tag => self.file_ref(tag - 1).map(Some),
        }
    }

    fn example_id(&mut self) -> Result<&'a str, LinkError> {
        let id = self.str("example id")?;
        if !id.is_empty() && !valid_example_id(id) {
            return Err(malformed(format!("{id:?} is not an example id")));
        }
        Ok(id)
    }
}

fn ends_early(what: &str) -> LinkError {
    malformed(format!("its data ends inside {what}"))
}

fn too_big(what: &str) -> LinkError {
    malformed(format!("{what} is an impossible number"))
}

fn valid_example_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= MAX_EXAMPLE_ID_BYTES
        && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// Files (or changes) must come in strictly increasing file-tree order: the one order
/// [`encode`] writes, and no path twice.
fn check_order(previous: Option<&FileRef>, file: &FileRef) -> Result<(), LinkError> {
    match previous {
        Some(previous) if previous >= file => {
            Err(malformed(format!("{file} is out of order or repeated")))
        }
        _ => Ok(()),
    }
}

fn with_open(example: Option<String>, workspace: Workspace, open: Option<FileRef>) -> Link {
    let open = open.filter(|file| workspace.file(file).is_some());
    Link { example, workspace, open }
}

fn read_full(reader: &mut Reader<'_>) -> Result<Link, LinkError> {
    let example = reader.example_id()?;
    let example = (!example.is_empty()).then(|| example.to_owned());
    let open = reader.open()?;
    let count = reader.count(MAX_FILES)?;
    let mut workspace = Workspace::default();
    let mut previous: Option<FileRef> = None;
    for _ in 0..count {
        let area = reader.byte("a file's area")?;
        let file = reader.file_ref(area)?;
        check_order(previous.as_ref(), &file)?;
        let text = reader.text(&file)?;
        workspace.set_file(&file, text);
        previous = Some(file);
    }
    Ok(with_open(example, workspace, open))
}

fn read_example(
    reader: &mut Reader<'_>,
    base: &dyn Fn(&str) -> Option<Workspace>,
) -> Result<Link, LinkError> {
    let id = reader.example_id()?;
    if id.is_empty() {
        return Err(malformed("the example form names no example".to_owned()));
    }
    let open = reader.open()?;
    let Some(mut workspace) = base(id) else {
        return Err(LinkError::UnknownExample { id: id.to_owned() });
    };
    // Each change touches one file: the example's files plus as many new ones as a
    // workspace may hold.
    let count = reader.count(MAX_FILES.saturating_add(workspace.len()))?;
    let mut previous: Option<FileRef> = None;
    for _ in 0..count {
        let area = reader.byte("a file's area")?;
        let file = reader.file_ref(area)?;
        check_order(previous.as_ref(), &file)?;
        let does_not_apply = |reason: &str| LinkError::PatchDoesNotApply {
            file: file.to_string(),
            reason: reason.to_owned(),
        };
        match reader.byte("a change")? {
            0 => {
                if workspace.remove_file(&file).is_none() {
                    return Err(does_not_apply("it deletes a file the example does not have"));
                }
            }
            1 => {
                let text = reader.text(&file)?;
                workspace.set_file(&file, text);
            }
            2 => {
                let hash = reader.take(4, "a patch")?;
                let hash = u32::from_le_bytes([hash[0], hash[1], hash[2], hash[3]]);
                // Every edit takes at least three bytes: the count cannot promise more.
                let edits = reader.varint("a patch's edit count")?;
                if edits > (reader.bytes.len() - reader.at) / 3 {
                    return Err(ends_early("a patch"));
                }
                let mut patch = Vec::with_capacity(edits);
                for _ in 0..edits {
                    let skip = reader.varint("a patch")?;
                    let remove = reader.varint("a patch")?;
                    let insert = reader.str("a patch's text")?;
                    patch.push(Edit { skip, remove, insert });
                }
                let Some(old) = workspace.file(&file) else {
                    return Err(does_not_apply("it patches a file the example does not have"));
                };
                if fnv1a(old.as_bytes()) != hash {
                    return Err(does_not_apply(
                        "the example's file has changed since the link was made",
                    ));
                }
                let text = apply_edits(old, &patch).map_err(|reason| does_not_apply(&reason))?;
                if text.len() > MAX_FILE_BYTES {
                    return Err(LinkError::FileTooLarge {
                        path: file.to_string(),
                        bytes: text.len(),
                    });
                }
                workspace.set_file(&file, text);
            }
            other => return Err(malformed(format!("{other} is not a kind of change"))),
        }
        previous = Some(file);
    }
    if workspace.len() > MAX_FILES {
        return Err(LinkError::TooManyFiles { count: workspace.len() });
    }
    Ok(with_open(Some(id.to_owned()), workspace, open))
}
