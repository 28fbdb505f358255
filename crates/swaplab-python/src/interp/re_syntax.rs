//! Python's regular-expression syntax, read as CPython 3.11's `sre_parse` reads a `str`
//! pattern (its errors with its messages and positions) and written out in `regex-lite`'s
//! syntax, which differs in many small ways: every literal is re-escaped, `.`, `^`, `$`,
//! `\Z`, `\s` and the classes get explicit forms, `{,n}` gets its `0`, verbose patterns
//! lose their whitespace and comments, and group names stay here (regex-lite sees plain
//! numbered groups).
//!
//! What regex-lite cannot express is refused, never approximated: lookarounds,
//! backreferences (`\1`, `(?P=name)`), atomic groups, possessive repeats, conditionals and
//! `\N{…}` names. What it expresses only on ASCII subjects is recorded so that the caller
//! can refuse a non-ASCII subject: Python's `\d`, `\w`, `\s`, `\b` (and their negations)
//! are Unicode-aware without `re.ASCII`, as is `re.IGNORECASE`.
//!
//! Alongside, the translation records what the runtime needs: the number of groups and
//! their names, the position of each group's `)` (for `lastindex`), an estimate of the
//! compiled size (to charge matching), whether an empty match may hide a longer one at
//! the same position (CPython would retry there), and whether the engine may read past a
//! match's end. Nesting is capped at [`MAX_GROUP_NESTING`], so the recursion is bounded.

/// `re.IGNORECASE`.
pub(crate) const IGNORECASE: i64 = 2;
/// `re.LOCALE`.
pub(crate) const LOCALE: i64 = 4;
/// `re.MULTILINE`.
pub(crate) const MULTILINE: i64 = 8;
/// `re.DOTALL`.
pub(crate) const DOTALL: i64 = 16;
/// `re.UNICODE`.
pub(crate) const UNICODE: i64 = 32;
/// `re.VERBOSE`.
pub(crate) const VERBOSE: i64 = 64;
/// `re.DEBUG`.
pub(crate) const DEBUG: i64 = 128;
/// `re.ASCII`.
pub(crate) const ASCII: i64 = 256;

/// Deepest nesting of groups a pattern may have.
pub(crate) const MAX_GROUP_NESTING: usize = 50;

/// CPython's `MAXREPEAT`: a repeat count at or past it is an `OverflowError`.
const MAX_REPEAT: u64 = 4_294_967_295;

/// Marks a `$` outside multi-line mode in the translation: it becomes `\z`, or a
/// multi-line `$` when the subject's only newline ends it (see [`Translation::source`]).
const DOLLAR: char = '\u{1}';

/// Marks a `\B` in the translation: CPython's never matches in an empty string, where
/// regex-lite's does, so it becomes a class that matches nothing there.
const NOT_BOUNDARY: char = '\u{2}';

/// Why a pattern does not translate.
#[derive(Debug)]
pub(crate) enum Fault {
    /// CPython raises `re.error` with this message (its position included).
    Error(String),
    /// CPython raises this exception class with this message.
    Raise(&'static str, String),
    /// A construct regex-lite cannot express: what it is, and where it stands in the
    /// pattern (character offsets).
    Refused { what: String, start: usize, len: usize },
    /// Groups nested deeper than [`MAX_GROUP_NESTING`], at this character offset.
    TooDeep(usize),
}

/// A construct used without `re.ASCII` that matches differently on non-ASCII text.
#[derive(Clone, Debug)]
pub(crate) struct Sensitive {
    /// The construct as written (`\w`, `re.IGNORECASE`).
    pub(crate) what: String,
    /// Its character offset and length in the pattern.
    pub(crate) start: usize,
    pub(crate) len: usize,
}

/// A pattern in regex-lite's syntax, and what the runtime needs to know about it.
#[derive(Debug)]
pub(crate) struct Translation {
    /// The translation, with [`DOLLAR`] for each `$` outside multi-line mode.
    body: String,
    /// The flags in force, inline global flags and `re.UNICODE` included (`.flags`).
    pub(crate) flags: i64,
    /// Capturing groups.
    pub(crate) groups: usize,
    /// Named groups and their numbers, in the order they open.
    pub(crate) names: Vec<(String, usize)>,
    /// The character offset of each group's `)`, by group number less one.
    pub(crate) closes: Vec<usize>,
    /// The first construct that is Unicode-aware in CPython and ASCII-only here.
    pub(crate) unicode_class: Option<Sensitive>,
    /// `re.IGNORECASE` without `re.ASCII` somewhere: CPython folds Unicode case.
    pub(crate) fold_unicode: Option<Sensitive>,
    /// The pattern names one of the non-ASCII letters that CPython's Unicode case folding
    /// matches with an ASCII one (`İ`, `ı`, `ſ`, the Kelvin sign), in a literal or range.
    pub(crate) folds_to_ascii: bool,
    /// An estimate of the compiled program's size, in states.
    pub(crate) weight: usize,
    /// An empty match may be preferred where a longer one exists at the same position
    /// (a lazy repeat, an empty first branch, a repeated group that may match empty).
    pub(crate) ambiguous_empty: bool,
    /// An unbounded greedy repeat can go on past where the match ends, so the engine may
    /// read beyond it.
    pub(crate) may_overrun: bool,
}

/// Where a regex-lite program must match.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Anchor {
    /// Anywhere (`search`, and `match` past the start).
    None,
    /// At the start of the subject (`match`).
    Start,
    /// The whole subject (`fullmatch`).
    Both,
    /// Up to the end of the subject (`fullmatch` past the start).
    End,
}

impl Translation {
    /// The regex-lite source: `$` (outside multi-line mode) as `\z`, or as a multi-line
    /// `$` when `last_line` (the subject's only newline is its last character, so the two
    /// agree with CPython's `$`, which matches at the end and before a final newline).
    /// For an `empty` subject, `\B` matches nothing, as in CPython.
    pub(crate) fn source(&self, last_line: bool, empty: bool, anchor: Anchor) -> String {
        let dollar = if last_line { "(?m:$)" } else { r"\z" };
        let not_boundary = if empty { r"[^\x00-\x{10FFFF}]" } else { r"\B" };
        let body = self.body.replace(DOLLAR, dollar).replace(NOT_BOUNDARY, not_boundary);
        match anchor {
            Anchor::None => body,
            Anchor::Start => format!(r"\A(?:{body})"),
            Anchor::Both => format!(r"\A(?:{body})\z"),
            Anchor::End => format!(r"(?:{body})\z"),
        }
    }

    /// Whether the pattern has a `$` outside multi-line mode.
    pub(crate) fn has_dollar(&self) -> bool {
        self.body.contains(DOLLAR)
    }
}

/// The non-ASCII letters CPython's case-insensitive matching takes for ASCII ones.
const FOLD_TO_ASCII: [char; 4] = ['\u{130}', '\u{131}', '\u{17F}', '\u{212A}'];

/// Characters a part of the pattern may consume: the ASCII ones exactly, the rest as
/// one flag.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Chars {
    ascii: u128,
    other: bool,
}

impl Chars {
    const ALL: Chars = Chars { ascii: u128::MAX, other: true };

    fn one(c: char, fold: bool) -> Chars {
        let mut set = Chars::default();
        set.add_range(c, c, fold);
        set
    }

    fn add_range(&mut self, lo: char, hi: char, fold: bool) {
        if u32::from(hi) > 0x7F {
            self.other = true;
        }
        let (lo, hi) = (u32::from(lo).min(0x80), u32::from(hi).min(0x7F));
        for code in lo..=hi {
            self.ascii |= 1u128 << code;
            if fold && let Some(c) = char::from_u32(code) {
                if c.is_ascii_lowercase() {
                    self.ascii |= 1u128 << u32::from(c.to_ascii_uppercase());
                } else if c.is_ascii_uppercase() {
                    self.ascii |= 1u128 << u32::from(c.to_ascii_lowercase());
                }
            }
        }
    }

    fn union(self, other: Chars) -> Chars {
        Chars { ascii: self.ascii | other.ascii, other: self.other || other.other }
    }

    fn negate(self) -> Chars {
        Chars { ascii: !self.ascii, other: true }
    }

    fn meets(self, other: Chars) -> bool {
        self.ascii & other.ascii != 0 || (self.other && other.other)
    }
}

/// What a parsed piece of the pattern is, for the checks on what follows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// An assertion (`^`, `$`, `\A`, `\Z`, `\b`, `\B`): nothing to repeat.
    At,
    /// A repeat: repeating it again is a "multiple repeat".
    Repeat,
    Other,
}

/// What the checks need to know about a piece.
#[derive(Clone, Copy, Debug)]
struct Info {
    /// It may match the empty string.
    nullable: bool,
    /// The characters it may consume.
    chars: Chars,
    /// The characters unbounded greedy repeats at its end may go on consuming.
    tail: Chars,
    /// Its estimated size.
    weight: usize,
}

impl Info {
    const EMPTY: Info = Info {
        nullable: true,
        chars: Chars { ascii: 0, other: false },
        tail: Chars { ascii: 0, other: false },
        weight: 0,
    };

    fn atom(chars: Chars) -> Info {
        Info { nullable: false, chars, tail: Chars::default(), weight: 1 }
    }
}

/// One piece of a sequence: where its translation starts, and what it is.
struct Piece {
    out_start: usize,
    kind: Kind,
    info: Info,
}

/// A class item: a character, or a category (`\d`…) as the code point ranges it takes
/// in (regex-lite has no nested classes, so a negated one is spelled out).
enum ClassItem {
    Char(char),
    Category(Vec<(u32, u32)>, Chars),
}

/// Code point ranges: sorted, merged.
fn merge(mut ranges: Vec<(u32, u32)>) -> Vec<(u32, u32)> {
    swaplab_base::order::sort(&mut ranges);
    let mut out: Vec<(u32, u32)> = Vec::with_capacity(ranges.len());
    for (lo, hi) in ranges {
        match out.last_mut() {
            Some(last) if lo <= last.1.saturating_add(1) => last.1 = last.1.max(hi),
            _ => out.push((lo, hi)),
        }
    }
    out
}

/// The code points not in `ranges` (sorted and merged).
fn complement(ranges: &[(u32, u32)]) -> Vec<(u32, u32)> {
    let mut out = Vec::with_capacity(ranges.len() + 1);
    let mut next = 0u32;
    for (lo, hi) in ranges {
        if *lo > next {
            out.push((next, lo - 1));
        }
        next = hi.saturating_add(1);
    }
    if next <= 0x10_FFFF {
        out.push((next, 0x10_FFFF));
    }
    out
}

/// Writes one range of a class for regex-lite.
fn push_range(out: &mut String, lo: u32, hi: u32) {
    let (Some(lo), Some(hi)) = (char::from_u32(lo), char::from_u32(hi)) else {
        // A range that starts or ends on a surrogate: move its ends onto scalar values.
        let lo = if (0xD800..=0xDFFF).contains(&lo) { 0xE000 } else { lo };
        let hi = if (0xD800..=0xDFFF).contains(&hi) { 0xD7FF } else { hi };
        if lo <= hi {
            push_range(out, lo, hi);
        }
        return;
    };
    push_literal(out, lo);
    if hi != lo {
        out.push('-');
        push_literal(out, hi);
    }
}

/// The parser: the pattern's characters, the position, the flags in force.
struct Parser<'a> {
    chars: &'a [char],
    pos: usize,
    flags: i64,
    verbose: bool,
    out: String,
    groups: usize,
    names: Vec<(String, usize)>,
    /// `Some(offset of ')')` once each group has closed.
    closes: Vec<Option<usize>>,
    unicode_class: Option<Sensitive>,
    fold_unicode: Option<Sensitive>,
    /// Where case-insensitive matching was last turned on.
    fold_source: Sensitive,
    folds_to_ascii: bool,
    ambiguous_empty: bool,
    may_overrun: bool,
    depth: usize,
}

/// Translates `pattern` compiled with `flags` (already checked: no `LOCALE`, not both
/// `ASCII` and `UNICODE`).
pub(crate) fn translate(pattern: &str, flags: i64) -> Result<Translation, Fault> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut parser = Parser {
        chars: &chars,
        pos: 0,
        flags,
        verbose: flags & VERBOSE != 0,
        out: String::with_capacity(pattern.len() + 8),
        groups: 0,
        names: Vec::new(),
        closes: Vec::new(),
        unicode_class: None,
        fold_unicode: None,
        fold_source: Sensitive { what: "re.IGNORECASE".into(), start: 0, len: 0 },
        folds_to_ascii: false,
        ambiguous_empty: false,
        may_overrun: false,
        depth: 0,
    };
    let info = parser.alternation(true)?;
    if parser.peek().is_some() {
        return Err(parser.error("unbalanced parenthesis", parser.pos));
    }
    // Global inline flags apply to the whole pattern: they stand at its start.
    let mut final_flags = parser.flags;
    if final_flags & LOCALE != 0 {
        return Err(Fault::Raise("ValueError", "cannot use LOCALE flag with a str pattern".into()));
    }
    if final_flags & ASCII == 0 {
        final_flags |= UNICODE;
    } else if final_flags & UNICODE != 0 {
        return Err(Fault::Raise("ValueError", "ASCII and UNICODE flags are incompatible".into()));
    }
    let mut body = parser.out;
    if final_flags & IGNORECASE != 0 {
        body = format!("(?i:{body})");
    }
    let closes = parser.closes.iter().map(|c| c.unwrap_or(0)).collect();
    Ok(Translation {
        body,
        flags: final_flags,
        groups: parser.groups,
        names: parser.names,
        closes,
        unicode_class: parser.unicode_class,
        fold_unicode: parser.fold_unicode,
        folds_to_ascii: parser.folds_to_ascii,
        weight: info.weight.max(1),
        ambiguous_empty: parser.ambiguous_empty,
        may_overrun: parser.may_overrun,
    })
}

/// `re.escape(pattern)`: CPython 3.7's escaping of the special characters.
pub(crate) fn escape(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len());
    for c in pattern.chars() {
        match c {
            '(' | ')' | '[' | ']' | '{' | '}' | '?' | '*' | '+' | '-' | '|' | '^' | '$' | '\\'
            | '.' | '&' | '~' | '#' | ' ' => {
                out.push('\\');
                out.push(c);
            }
            '\t' => out.push_str("\\\t"),
            '\n' => out.push_str("\\\n"),
            '\r' => out.push_str("\\\r"),
            '\u{b}' => out.push_str("\\\u{b}"),
            '\u{c}' => out.push_str("\\\u{c}"),
            _ => out.push(c),
        }
    }
    out
}

/// `message at position N` as `sre_parse` words it, with the line and column when the
/// pattern has several lines.
pub(crate) fn at_position(message: &str, chars: &[char], pos: usize) -> String {
    if chars.contains(&'\n') {
        let before = chars.get(..pos).unwrap_or(chars);
        let line = before.iter().filter(|c| **c == '\n').count() + 1;
        let column = pos - before.iter().rposition(|c| *c == '\n').map_or(0, |i| i + 1) + 1;
        format!("{message} at position {pos} (line {line}, column {column})")
    } else {
        format!("{message} at position {pos}")
    }
}

/// Writes `c` so that regex-lite reads it as itself, inside a class or not: letters and
/// digits as they are (an escaped letter would become a class under `(?i)`), other
/// printable ASCII escaped, the rest as a hex escape.
fn push_literal(out: &mut String, c: char) {
    if c.is_ascii_alphanumeric() || c == '<' || c == '>' {
        out.push(c);
    } else if c.is_ascii_graphic() || c == ' ' {
        out.push('\\');
        out.push(c);
    } else {
        out.push_str(&format!("\\x{{{:X}}}", u32::from(c)));
    }
}

/// The characters of Python's `\s` for a `str`: ASCII whitespace and, without
/// `re.ASCII`, the separators `\x1c`–`\x1f` that `str.isspace()` counts.
fn space_chars(ascii: bool) -> Chars {
    let mut set = Chars::default();
    for c in ['\t', '\n', '\u{b}', '\u{c}', '\r', ' '] {
        set.add_range(c, c, false);
    }
    if !ascii {
        set.add_range('\u{1c}', '\u{1f}', false);
        set.other = true;
    }
    set
}

fn word_chars() -> Chars {
    let mut set = Chars::default();
    set.add_range('0', '9', false);
    set.add_range('A', 'Z', false);
    set.add_range('a', 'z', false);
    set.add_range('_', '_', false);
    set
}

fn digit_chars() -> Chars {
    let mut set = Chars::default();
    set.add_range('0', '9', false);
    set
}

fn is_octal(c: Option<char>) -> bool {
    c.is_some_and(|c| ('0'..='7').contains(&c))
}

fn flag_bit(c: char) -> Option<i64> {
    Some(match c {
        'i' => IGNORECASE,
        'L' => LOCALE,
        'm' => MULTILINE,
        's' => DOTALL,
        'x' => VERBOSE,
        'a' => ASCII,
        'u' => UNICODE,
        't' => 1,
        _ => return None,
    })
}

/// Whether `name` is a Python identifier (as `str.isidentifier()`, for the names the
/// subset's characters allow).
fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c == '_' || c.is_alphabetic())
        && chars.all(|c| c == '_' || c.is_alphanumeric())
}

impl Parser<'_> {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    fn next(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += 1;
        Some(c)
    }

    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn error(&self, message: &str, pos: usize) -> Fault {
        Fault::Error(at_position(message, self.chars, pos))
    }

    fn refuse(what: &str, start: usize, end: usize) -> Fault {
        Fault::Refused { what: what.to_owned(), start, len: end.saturating_sub(start).max(1) }
    }

    fn text(&self, start: usize, end: usize) -> String {
        self.chars.get(start..end.min(self.chars.len())).unwrap_or_default().iter().collect()
    }

    fn ascii(&self) -> bool {
        self.flags & ASCII != 0
    }

    fn fold(&self) -> bool {
        self.flags & IGNORECASE != 0
    }

    fn note_unicode(&mut self, start: usize, end: usize) {
        if !self.ascii() && self.unicode_class.is_none() {
            self.unicode_class =
                Some(Sensitive { what: self.text(start, end), start, len: end - start });
        }
    }

    /// Records that a literal or class is matched under `flags`.
    fn note_fold(&mut self, flags: i64) {
        if flags & IGNORECASE != 0 && flags & ASCII == 0 && self.fold_unicode.is_none() {
            self.fold_unicode = Some(self.fold_source.clone());
        }
    }

    /// Records the characters `lo..=hi` named by a literal or a class.
    fn note_range(&mut self, lo: char, hi: char) {
        if FOLD_TO_ASCII.iter().any(|c| (lo..=hi).contains(c)) {
            self.folds_to_ascii = true;
        }
    }

    /// `a|b|…` up to a `)` or the end. `top` is the pattern's outer level, where the
    /// first branch may open with global flags.
    fn alternation(&mut self, top: bool) -> Result<Info, Fault> {
        let mut branches: Vec<Info> = Vec::new();
        loop {
            let first = top && branches.is_empty();
            let branch = self.sequence(first)?;
            branches.push(branch);
            if !self.eat('|') {
                break;
            }
            self.out.push('|');
        }
        let last = branches.len() - 1;
        let mut info = Info::EMPTY;
        info.nullable = false;
        for (i, branch) in branches.iter().enumerate() {
            if branch.nullable && i < last {
                self.ambiguous_empty = true;
            }
            info.nullable |= branch.nullable;
            info.chars = info.chars.union(branch.chars);
            info.tail = info.tail.union(branch.tail);
            info.weight = info.weight.saturating_add(branch.weight).saturating_add(1);
        }
        Ok(info)
    }

    /// A branch: pieces up to `|`, `)` or the end.
    fn sequence(&mut self, first: bool) -> Result<Info, Fault> {
        let mut pieces: Vec<Piece> = Vec::new();
        while let Some(c) = self.peek() {
            if c == '|' || c == ')' {
                break;
            }
            self.pos += 1;
            if self.verbose {
                if matches!(c, ' ' | '\t' | '\n' | '\r' | '\u{b}' | '\u{c}') {
                    continue;
                }
                if c == '#' {
                    while let Some(c) = self.next() {
                        if c == '\n' {
                            break;
                        }
                    }
                    continue;
                }
            }
            let out_start = self.out.len();
            let start = self.pos - 1;
            match c {
                '*' | '+' | '?' | '{' => {
                    if c == '{' && !self.counted_repeat_ahead() {
                        self.literal(c, out_start, &mut pieces);
                        continue;
                    }
                    self.repeat(c, start, &mut pieces)?;
                }
                '.' => {
                    let chars = if self.flags & DOTALL != 0 {
                        self.out.push_str("(?s:.)");
                        Chars::ALL
                    } else {
                        self.out.push_str(r"[^\n]");
                        let mut all = Chars::ALL;
                        all.ascii &= !(1u128 << 10);
                        all
                    };
                    pieces.push(Piece { out_start, kind: Kind::Other, info: Info::atom(chars) });
                }
                '^' => {
                    self.out.push_str(if self.flags & MULTILINE != 0 { "(?m:^)" } else { r"\A" });
                    pieces.push(Piece { out_start, kind: Kind::At, info: Info::EMPTY });
                }
                '$' => {
                    if self.flags & MULTILINE != 0 {
                        self.out.push_str("(?m:$)");
                    } else {
                        self.out.push(DOLLAR);
                    }
                    pieces.push(Piece { out_start, kind: Kind::At, info: Info::EMPTY });
                }
                '[' => {
                    let info = self.class(start)?;
                    pieces.push(Piece { out_start, kind: Kind::Other, info });
                }
                '(' => {
                    if let Some(piece) = self.group(start, first && pieces.is_empty())? {
                        pieces.push(Piece { out_start, kind: piece.0, info: piece.1 });
                    }
                }
                '\\' => {
                    let (kind, info) = self.escape(start)?;
                    pieces.push(Piece { out_start, kind, info });
                }
                _ => self.literal(c, out_start, &mut pieces),
            }
        }
        // What follows each piece, for the pieces whose greedy repeats may go on.
        let mut info = Info::EMPTY;
        let mut after = Chars::default();
        for piece in pieces.iter().rev() {
            if piece.info.tail.meets(after) {
                self.may_overrun = true;
            }
            after = after.union(piece.info.chars);
        }
        let mut tail = Chars::default();
        for piece in &pieces {
            info.weight = info.weight.saturating_add(piece.info.weight);
            info.chars = info.chars.union(piece.info.chars);
            if !piece.info.nullable || piece.kind == Kind::At {
                tail = Chars::default();
            }
            tail = tail.union(piece.info.tail);
        }
        info.nullable = pieces.iter().all(|p| p.info.nullable);
        info.tail = tail;
        Ok(info)
    }

    fn literal(&mut self, c: char, out_start: usize, pieces: &mut Vec<Piece>) {
        self.note_range(c, c);
        let flags = self.flags;
        self.note_fold(flags);
        push_literal(&mut self.out, c);
        let info = Info::atom(Chars::one(c, self.fold()));
        pieces.push(Piece { out_start, kind: Kind::Other, info });
    }

    /// Whether a `{` (just read) opens a valid `{m}`, `{m,}`, `{,n}` or `{m,n}`.
    fn counted_repeat_ahead(&self) -> bool {
        let mut i = self.pos;
        if self.chars.get(i) == Some(&'}') {
            return false;
        }
        while self.chars.get(i).is_some_and(char::is_ascii_digit) {
            i += 1;
        }
        if self.chars.get(i) == Some(&',') {
            i += 1;
            while self.chars.get(i).is_some_and(char::is_ascii_digit) {
                i += 1;
            }
        }
        self.chars.get(i) == Some(&'}')
    }

    fn count(&mut self) -> Result<Option<u64>, Fault> {
        let start = self.pos;
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.pos += 1;
        }
        if self.pos == start {
            return Ok(None);
        }
        let digits = self.text(start, self.pos);
        match digits.parse::<u64>() {
            Ok(n) if n < MAX_REPEAT => Ok(Some(n)),
            _ => Err(Fault::Raise("OverflowError", "the repetition number is too large".into())),
        }
    }

    /// A repeat operator (just read at `start`) applied to the last piece.
    fn repeat(&mut self, op: char, start: usize, pieces: &mut [Piece]) -> Result<(), Fault> {
        let (min, max) = match op {
            '?' => (0, Some(1)),
            '*' => (0, None),
            '+' => (1, None),
            _ => {
                let min = self.count()?.unwrap_or(0);
                let max = if self.eat(',') { self.count()? } else { Some(min) };
                self.eat('}');
                if max.is_some_and(|max| max < min) {
                    return Err(self.error("min repeat greater than max repeat", start + 1));
                }
                (min, max)
            }
        };
        let Some(piece) = pieces.last_mut().filter(|p| p.kind != Kind::At) else {
            return Err(self.error("nothing to repeat", start));
        };
        if piece.kind == Kind::Repeat {
            return Err(self.error("multiple repeat", start));
        }
        let lazy = self.eat('?');
        if !lazy && self.peek() == Some('+') {
            return Err(Self::refuse(
                "a possessive repeat (`*+`, `++`, `?+`, `{m,n}+`)",
                start,
                self.pos + 1,
            ));
        }
        let body = self.out.split_off(piece.out_start);
        self.out.push_str("(?:");
        self.out.push_str(&body);
        self.out.push(')');
        match (op, max) {
            ('?' | '*' | '+', _) => self.out.push(op),
            (_, Some(max)) if max == min => self.out.push_str(&format!("{{{min}}}")),
            (_, Some(max)) => self.out.push_str(&format!("{{{min},{max}}}")),
            (_, None) => self.out.push_str(&format!("{{{min},}}")),
        }
        if lazy {
            self.out.push('?');
            self.ambiguous_empty = true;
        }
        let inner = piece.info;
        if inner.nullable && max != Some(1) {
            self.ambiguous_empty = true;
        }
        let copies = usize::try_from(max.unwrap_or(min.saturating_add(1)).clamp(1, 1 << 20))
            .unwrap_or(1 << 20);
        let mut info = inner;
        info.weight = inner.weight.saturating_mul(copies).saturating_add(1);
        info.nullable = inner.nullable || min == 0;
        if max.is_none() && !lazy {
            if inner.tail.meets(inner.chars) {
                self.may_overrun = true;
            }
            info.tail = inner.tail.union(inner.chars);
        }
        piece.info = info;
        piece.kind = Kind::Repeat;
        Ok(())
    }

    /// A character class; `start` is its `[`.
    fn class(&mut self, start: usize) -> Result<Info, Fault> {
        let negate = self.eat('^');
        let mut items: Vec<(ClassItem, Option<char>)> = Vec::new();
        loop {
            let Some(c) = self.next() else {
                return Err(self.error("unterminated character set", start));
            };
            if c == ']' && !items.is_empty() {
                break;
            }
            let this_start = self.pos - 1;
            let first = if c == '\\' { self.class_escape(this_start)? } else { ClassItem::Char(c) };
            if self.eat('-') {
                let Some(that) = self.next() else {
                    return Err(self.error("unterminated character set", start));
                };
                if that == ']' {
                    items.push((first, None));
                    items.push((ClassItem::Char('-'), None));
                    break;
                }
                let that_start = self.pos - 1;
                let second = if that == '\\' {
                    self.class_escape(that_start)?
                } else {
                    ClassItem::Char(that)
                };
                let (ClassItem::Char(lo), ClassItem::Char(hi)) = (&first, &second) else {
                    let message =
                        format!("bad character range {}", self.text(this_start, self.pos));
                    return Err(self.error(&message, this_start));
                };
                if hi < lo {
                    let message =
                        format!("bad character range {}", self.text(this_start, self.pos));
                    return Err(self.error(&message, this_start));
                }
                let hi = *hi;
                items.push((first, Some(hi)));
            } else {
                items.push((first, None));
            }
        }
        let fold = self.fold();
        let flags = self.flags;
        self.note_fold(flags);
        let mut chars = Chars::default();
        let mut ranges = Vec::with_capacity(items.len());
        for (item, hi) in items {
            match (item, hi) {
                (ClassItem::Char(lo), hi) => {
                    let hi = hi.unwrap_or(lo);
                    self.note_range(lo, hi);
                    ranges.push((u32::from(lo), u32::from(hi)));
                    chars.add_range(lo, hi, fold);
                }
                (ClassItem::Category(category, set), _) => {
                    ranges.extend(category);
                    chars = chars.union(set);
                }
            }
        }
        self.out.push('[');
        if negate {
            self.out.push('^');
        }
        for (lo, hi) in merge(ranges) {
            push_range(&mut self.out, lo, hi);
        }
        self.out.push(']');
        let chars = if negate { chars.negate() } else { chars };
        Ok(Info::atom(chars))
    }

    /// The category escapes, in a class or not: the code points they take in (on ASCII
    /// subjects, without `re.ASCII`), and their characters.
    fn category(&self, c: char) -> Option<(Vec<(u32, u32)>, Chars)> {
        let digits = vec![(0x30, 0x39)];
        let word = vec![(0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A)];
        let mut space = vec![(0x09, 0x0D), (0x20, 0x20)];
        if !self.ascii() {
            space.insert(1, (0x1C, 0x1F));
        }
        let spaces = space_chars(self.ascii());
        Some(match c {
            'd' => (digits, digit_chars()),
            'D' => (complement(&digits), digit_chars().negate()),
            'w' => (word, word_chars()),
            'W' => (complement(&word), word_chars().negate()),
            's' => (space, spaces),
            'S' => (complement(&space), spaces.negate()),
            _ => return None,
        })
    }

    /// An escape inside a class; the `\` was at `start`.
    fn class_escape(&mut self, start: usize) -> Result<ClassItem, Fault> {
        let Some(c) = self.next() else {
            return Err(self.error("bad escape (end of pattern)", start));
        };
        if let Some((ranges, chars)) = self.category(c) {
            self.note_unicode(start, self.pos);
            return Ok(ClassItem::Category(ranges, chars));
        }
        if c == 'b' {
            return Ok(ClassItem::Char('\u{8}'));
        }
        if let Some(literal) = self.simple_escape(c) {
            return Ok(ClassItem::Char(literal));
        }
        match c {
            'x' | 'u' | 'U' | 'N' => self.hex_escape(c, start).map(ClassItem::Char),
            '0'..='7' => {
                let mut value = c.to_digit(8).unwrap_or(0);
                for _ in 0..2 {
                    if !is_octal(self.peek()) {
                        break;
                    }
                    value = value * 8 + self.next().and_then(|d| d.to_digit(8)).unwrap_or(0);
                }
                self.octal(value, start).map(ClassItem::Char)
            }
            c if c.is_ascii_alphanumeric() => Err(self.error(&format!("bad escape \\{c}"), start)),
            c => Ok(ClassItem::Char(c)),
        }
    }

    fn simple_escape(&self, c: char) -> Option<char> {
        Some(match c {
            'a' => '\u{7}',
            'f' => '\u{c}',
            'n' => '\n',
            'r' => '\r',
            't' => '\t',
            'v' => '\u{b}',
            '\\' => '\\',
            _ => return None,
        })
    }

    fn octal(&self, value: u32, start: usize) -> Result<char, Fault> {
        if value > 0o377 {
            let message = format!(
                "octal escape value {} outside of range 0-0o377",
                self.text(start, self.pos)
            );
            return Err(self.error(&message, start));
        }
        Ok(char::from_u32(value).unwrap_or('\0'))
    }

    /// `\xhh`, `\uhhhh`, `\Uhhhhhhhh` (the letter just read), or `\N{…}` (refused).
    fn hex_escape(&mut self, letter: char, start: usize) -> Result<char, Fault> {
        if letter == 'N' {
            return Err(Self::refuse("a named character escape `\\N{…}`", start, self.pos));
        }
        let digits = match letter {
            'x' => 2,
            'u' => 4,
            _ => 8,
        };
        let mut value: u32 = 0;
        let mut read = 0;
        while read < digits && self.peek().is_some_and(|c| c.is_ascii_hexdigit()) {
            value =
                value.saturating_mul(16) + self.next().and_then(|d| d.to_digit(16)).unwrap_or(0);
            read += 1;
        }
        let written = self.text(start, self.pos);
        if read < digits {
            return Err(self.error(&format!("incomplete escape {written}"), start));
        }
        char::from_u32(value).ok_or_else(|| self.error(&format!("bad escape {written}"), start))
    }

    /// An escape outside a class; the `\` was at `start`.
    fn escape(&mut self, start: usize) -> Result<(Kind, Info), Fault> {
        let Some(c) = self.next() else {
            return Err(self.error("bad escape (end of pattern)", start));
        };
        let out_text = match c {
            'A' => Some(r"\A"),
            'Z' => Some(r"\z"),
            'b' => Some(r"\b"),
            'B' => Some("\u{2}"),
            _ => None,
        };
        if let Some(text) = out_text {
            if c == 'b' || c == 'B' {
                self.note_unicode(start, self.pos);
            }
            self.out.push_str(text);
            return Ok((Kind::At, Info::EMPTY));
        }
        if let Some((ranges, chars)) = self.category(c) {
            self.note_unicode(start, self.pos);
            self.out.push('[');
            for (lo, hi) in ranges {
                push_range(&mut self.out, lo, hi);
            }
            self.out.push(']');
            return Ok((Kind::Other, Info::atom(chars)));
        }
        let literal = match c {
            'x' | 'u' | 'U' | 'N' => self.hex_escape(c, start)?,
            '0' => {
                let mut value = 0;
                for _ in 0..2 {
                    if !is_octal(self.peek()) {
                        break;
                    }
                    value = value * 8 + self.next().and_then(|d| d.to_digit(8)).unwrap_or(0);
                }
                char::from_u32(value).unwrap_or('\0')
            }
            '1'..='9' => {
                let mut digits = c.to_string();
                if self.peek().is_some_and(|d| d.is_ascii_digit()) {
                    let d = self.next().unwrap_or('0');
                    digits.push(d);
                    if is_octal(Some(c)) && is_octal(Some(d)) && is_octal(self.peek()) {
                        let e = self.next().unwrap_or('0');
                        digits.push(e);
                        let value = u32::from_str_radix(&digits, 8).unwrap_or(0);
                        let literal = self.octal(value, start)?;
                        return Ok(self.literal_piece(literal));
                    }
                }
                let group: usize = digits.parse().unwrap_or(usize::MAX);
                if group <= self.groups {
                    if self.closes.get(group - 1).is_some_and(Option::is_none) {
                        return Err(self.error("cannot refer to an open group", start));
                    }
                    return Err(Self::refuse("a backreference (`\\1`)", start, self.pos));
                }
                return Err(self.error(&format!("invalid group reference {group}"), start + 1));
            }
            c => match self.simple_escape(c) {
                Some(literal) => literal,
                None if c.is_ascii_alphanumeric() => {
                    return Err(self.error(&format!("bad escape \\{c}"), start));
                }
                None => c,
            },
        };
        Ok(self.literal_piece(literal))
    }

    fn literal_piece(&mut self, c: char) -> (Kind, Info) {
        self.note_range(c, c);
        let flags = self.flags;
        self.note_fold(flags);
        push_literal(&mut self.out, c);
        (Kind::Other, Info::atom(Chars::one(c, self.fold())))
    }

    /// A group name up to `end` (after `(?P<` or `(?P=`).
    fn group_name(&mut self, end: char) -> Result<String, Fault> {
        let name_start = self.pos;
        loop {
            match self.next() {
                None => {
                    if self.pos == name_start {
                        return Err(self.error("missing group name", self.pos));
                    }
                    let message = format!("missing {end}, unterminated name");
                    return Err(self.error(&message, name_start));
                }
                Some(c) if c == end => {
                    if self.pos - 1 == name_start {
                        return Err(self.error("missing group name", name_start));
                    }
                    break;
                }
                Some(_) => {}
            }
        }
        let name = self.text(name_start, self.pos - 1);
        if !is_identifier(&name) {
            let message = format!("bad character in group name '{name}'");
            return Err(self.error(&message, name_start));
        }
        Ok(name)
    }

    /// A group; `start` is its `(`. `None` for what translates to nothing (a comment,
    /// global flags).
    fn group(&mut self, start: usize, first: bool) -> Result<Option<(Kind, Info)>, Fault> {
        let mut name = None;
        let mut capture = true;
        let mut add = 0;
        let mut remove = 0;
        if self.eat('?') {
            let Some(c) = self.next() else {
                return Err(self.error("unexpected end of pattern", self.pos));
            };
            match c {
                'P' => {
                    if self.eat('<') {
                        let name_start = self.pos;
                        let text = self.group_name('>')?;
                        if let Some((_, was)) = self.names.iter().find(|(n, _)| *n == text) {
                            let message = format!(
                                "redefinition of group name '{text}' as group {}; was group {was}",
                                self.groups + 1
                            );
                            return Err(self.error(&message, name_start));
                        }
                        name = Some(text);
                    } else if self.eat('=') {
                        let name_start = self.pos;
                        let text = self.group_name(')')?;
                        let Some((_, group)) = self.names.iter().find(|(n, _)| *n == text) else {
                            let message = format!("unknown group name '{text}'");
                            return Err(self.error(&message, name_start));
                        };
                        if self.closes.get(group - 1).is_some_and(Option::is_none) {
                            return Err(self.error("cannot refer to an open group", name_start));
                        }
                        return Err(Self::refuse(
                            "a named backreference `(?P=name)`",
                            start,
                            self.pos,
                        ));
                    } else {
                        let Some(c) = self.next() else {
                            return Err(self.error("unexpected end of pattern", self.pos));
                        };
                        return Err(self.error(&format!("unknown extension ?P{c}"), start + 1));
                    }
                }
                ':' => capture = false,
                '#' => {
                    loop {
                        match self.next() {
                            None => {
                                let message = "missing ), unterminated comment";
                                return Err(self.error(message, start));
                            }
                            Some(')') => break,
                            Some(_) => {}
                        }
                    }
                    return Ok(None);
                }
                '=' | '!' => {
                    return Err(Self::refuse(
                        "a lookahead assertion (`(?=…)`, `(?!…)`)",
                        start,
                        start + 3,
                    ));
                }
                '<' => {
                    return match self.next() {
                        Some('=' | '!') => Err(Self::refuse(
                            "a lookbehind assertion (`(?<=…)`, `(?<!…)`)",
                            start,
                            start + 4,
                        )),
                        Some(c) => Err(self.error(&format!("unknown extension ?<{c}"), start + 1)),
                        None => Err(self.error("unexpected end of pattern", self.pos)),
                    };
                }
                '(' => {
                    return Err(Self::refuse("a conditional group `(?(…)…|…)`", start, start + 3));
                }
                '>' => return Err(Self::refuse("an atomic group `(?>…)`", start, start + 3)),
                c if flag_bit(c).is_some() || c == '-' => match self.flags_spec(c, start)? {
                    None => {
                        if !first {
                            let message = "global flags not at the start of the expression";
                            return Err(self.error(message, start));
                        }
                        return Ok(None);
                    }
                    Some((on, off)) => {
                        add = on;
                        remove = off;
                        capture = false;
                    }
                },
                c => return Err(self.error(&format!("unknown extension ?{c}"), start + 1)),
            }
        }
        if self.depth >= MAX_GROUP_NESTING {
            return Err(Fault::TooDeep(start));
        }
        let group = if capture {
            self.groups += 1;
            self.closes.push(None);
            if let Some(name) = name {
                self.names.push((name, self.groups));
            }
            Some(self.groups)
        } else {
            None
        };
        let saved = (self.flags, self.verbose);
        self.flags = (self.flags | add) & !remove;
        self.verbose = self.flags & VERBOSE != 0;
        if group.is_some() {
            self.out.push('(');
        } else if add & IGNORECASE != 0 {
            self.out.push_str("(?i:");
        } else if remove & IGNORECASE != 0 {
            self.out.push_str("(?-i:");
        } else {
            self.out.push_str("(?:");
        }
        self.depth += 1;
        let info = self.alternation(false)?;
        self.depth -= 1;
        (self.flags, self.verbose) = saved;
        if !self.eat(')') {
            return Err(self.error("missing ), unterminated subpattern", start));
        }
        self.out.push(')');
        if let Some(group) = group
            && let Some(slot) = self.closes.get_mut(group - 1)
        {
            *slot = Some(self.pos - 1);
        }
        let mut info = info;
        info.weight = info.weight.saturating_add(2);
        Ok(Some((Kind::Other, info)))
    }

    /// Inline flags after `(?`, the first character `c` read: `None` for global flags
    /// (`(?i)`), or the flags a scoped group turns on and off (`(?i-s:…)`).
    fn flags_spec(&mut self, mut c: char, start: usize) -> Result<Option<(i64, i64)>, Fault> {
        let mut add = 0;
        let mut remove = 0;
        if c != '-' {
            loop {
                let flag = flag_bit(c).unwrap_or(0);
                if c == 'L' {
                    let message = "bad inline flags: cannot use 'L' flag with a str pattern";
                    return Err(self.error(message, self.pos));
                }
                if c == 't' {
                    return Err(Self::refuse("the template flag `(?t)`", start, self.pos));
                }
                add |= flag;
                if flag & (ASCII | UNICODE) != 0 && add & (ASCII | UNICODE) != flag {
                    let message = "bad inline flags: flags 'a', 'u' and 'L' are incompatible";
                    return Err(self.error(message, self.pos));
                }
                let Some(next) = self.next() else {
                    return Err(self.error("missing -, : or )", self.pos));
                };
                c = next;
                if matches!(c, ')' | '-' | ':') {
                    break;
                }
                if flag_bit(c).is_none() {
                    let message =
                        if c.is_alphabetic() { "unknown flag" } else { "missing -, : or )" };
                    return Err(self.error(message, self.pos - 1));
                }
            }
        }
        if c == ')' {
            // Global flags: they stand at the start and apply to the whole pattern
            // (`translate` wraps it in `(?i:…)` for `i`).
            if add & IGNORECASE != 0 {
                self.fold_source = Sensitive { what: "(?i)".into(), start, len: self.pos - start };
            }
            self.flags |= add;
            self.verbose = self.flags & VERBOSE != 0;
            return Ok(None);
        }
        if c == '-' {
            let Some(next) = self.next() else {
                return Err(self.error("missing flag", self.pos));
            };
            c = next;
            if flag_bit(c).is_none() {
                let message = if c.is_alphabetic() { "unknown flag" } else { "missing flag" };
                return Err(self.error(message, self.pos - 1));
            }
            loop {
                let flag = flag_bit(c).unwrap_or(0);
                if flag & (ASCII | UNICODE | LOCALE) != 0 {
                    let message = "bad inline flags: cannot turn off flags 'a', 'u' and 'L'";
                    return Err(self.error(message, self.pos));
                }
                remove |= flag;
                let Some(next) = self.next() else {
                    return Err(self.error("missing :", self.pos));
                };
                c = next;
                if c == ':' {
                    break;
                }
                if flag_bit(c).is_none() {
                    let message = if c.is_alphabetic() { "unknown flag" } else { "missing :" };
                    return Err(self.error(message, self.pos - 1));
                }
            }
        }
        if add & remove != 0 {
            return Err(self.error("bad inline flags: flag turned on and off", self.pos - 1));
        }
        if add & IGNORECASE != 0 {
            let len = self.pos - start;
            self.fold_source = Sensitive { what: self.text(start, self.pos), start, len };
        }
        Ok(Some((add, remove)))
    }
}

/// A replacement template of `sub()` and `Match.expand()`: literal text and group
/// references, or CPython's error.
#[derive(Debug)]
pub(crate) enum TemplatePart {
    Text(String),
    Group(usize),
}

/// Why a template does not parse.
#[derive(Debug)]
pub(crate) enum TemplateFault {
    /// `re.error` with this message.
    Error(String),
    /// `IndexError` with this message (an unknown group name).
    Index(String),
}

/// Parses a replacement template as CPython's `sre_parse.parse_template` does.
pub(crate) fn parse_template(
    template: &str,
    groups: usize,
    names: &[(String, usize)],
) -> Result<Vec<TemplatePart>, TemplateFault> {
    let chars: Vec<char> = template.chars().collect();
    let error =
        |message: String, pos: usize| TemplateFault::Error(at_position(&message, &chars, pos));
    let mut parts = Vec::new();
    let mut text = String::new();
    let mut i = 0;
    let push_group = |text: &mut String, parts: &mut Vec<TemplatePart>, group: usize| {
        if !text.is_empty() {
            parts.push(TemplatePart::Text(std::mem::take(text)));
        }
        parts.push(TemplatePart::Group(group));
    };
    while let Some(&c) = chars.get(i) {
        i += 1;
        if c != '\\' {
            text.push(c);
            continue;
        }
        let start = i - 1;
        let Some(&e) = chars.get(i) else {
            return Err(error("bad escape (end of pattern)".into(), start));
        };
        i += 1;
        match e {
            'g' => {
                if chars.get(i) != Some(&'<') {
                    return Err(error("missing <".into(), i));
                }
                i += 1;
                let name_start = i;
                while chars.get(i).is_some_and(|c| *c != '>') {
                    i += 1;
                }
                if chars.get(i).is_none() {
                    if i == name_start {
                        return Err(error("missing group name".into(), i));
                    }
                    return Err(error("missing >, unterminated name".into(), name_start));
                }
                let name: String = chars.get(name_start..i).unwrap_or_default().iter().collect();
                i += 1;
                if name.is_empty() {
                    return Err(error("missing group name".into(), name_start));
                }
                let group = if name.chars().all(|c| c.is_ascii_digit()) {
                    let Ok(group) = name.parse::<usize>() else {
                        return Err(error(format!("invalid group reference {name}"), name_start));
                    };
                    if group > groups {
                        return Err(error(format!("invalid group reference {group}"), name_start));
                    }
                    group
                } else {
                    if !is_identifier(&name) {
                        let message = format!("bad character in group name '{name}'");
                        return Err(error(message, name_start));
                    }
                    match names.iter().find(|(n, _)| *n == name) {
                        Some((_, group)) => *group,
                        None => {
                            return Err(TemplateFault::Index(format!(
                                "unknown group name '{name}'"
                            )));
                        }
                    }
                };
                push_group(&mut text, &mut parts, group);
            }
            '0' => {
                let mut value = 0;
                for _ in 0..2 {
                    match chars.get(i).and_then(|d| d.to_digit(8)) {
                        Some(d) => {
                            value = value * 8 + d;
                            i += 1;
                        }
                        None => break,
                    }
                }
                text.push(char::from_u32(value).unwrap_or('\0'));
            }
            '1'..='9' => {
                let mut digits = e.to_string();
                if let Some(&d) = chars.get(i).filter(|d| d.is_ascii_digit()) {
                    digits.push(d);
                    i += 1;
                    let third = chars.get(i).copied();
                    if e <= '7' && d <= '7' && is_octal(third) {
                        digits.push(third.unwrap_or('0'));
                        i += 1;
                        let value = u32::from_str_radix(&digits, 8).unwrap_or(0);
                        if value > 0o377 {
                            let message =
                                format!("octal escape value \\{digits} outside of range 0-0o377");
                            return Err(error(message, start));
                        }
                        text.push(char::from_u32(value).unwrap_or('\0'));
                        continue;
                    }
                }
                let group: usize = digits.parse().unwrap_or(usize::MAX);
                if group > groups {
                    return Err(error(format!("invalid group reference {group}"), start + 1));
                }
                push_group(&mut text, &mut parts, group);
            }
            'a' => text.push('\u{7}'),
            'b' => text.push('\u{8}'),
            'f' => text.push('\u{c}'),
            'n' => text.push('\n'),
            'r' => text.push('\r'),
            't' => text.push('\t'),
            'v' => text.push('\u{b}'),
            '\\' => text.push('\\'),
            e if e.is_ascii_alphabetic() => {
                return Err(error(format!("bad escape \\{e}"), start));
            }
            e => {
                text.push('\\');
                text.push(e);
            }
        }
    }
    if !text.is_empty() {
        parts.push(TemplatePart::Text(text));
    }
    Ok(parts)
}
