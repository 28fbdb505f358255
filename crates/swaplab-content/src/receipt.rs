//! Receipts: the short code a workshop participant copies when they finish exercises,
//! and the facilitator's reading of many pasted codes ([`read_paste`], [`roster`]).
//!
//! A receipt is **self-reported, not proof**. There is no server and no secret: anyone
//! can make a receipt for any name and any exercise with this very function. The
//! checksum catches typos, nothing more. Use receipts to see who got where in a room of
//! people who want to tell you, never to grade or certify anyone.
//!
//! Nothing here panics or reads past a cap, whatever is pasted.
//!
//! ## The format, version 1
//!
//! `SL1-` then the payload in Crockford's base32 (digits and the letters other than
//! I, L, O and U; read case-insensitively, with `O` as `0` and `I`/`L` as `1`), in
//! groups of four joined by `-`:
//!
//! ```text
//! byte 0       how many bitmap bytes follow, 0..=8
//! bytes 1..    the bitmap, little-endian: bit k of byte j is exercise 8j + k + 1
//! then         the participant's name, UTF-8 (at most 40 characters)
//! last 2       CRC-16/CCITT (polynomial 0x1021, start 0xFFFF, big-endian) of "SL1",
//!              the length of the bytes above as two bytes big-endian, and those bytes
//! ```
//!
//! Only letters, digits and `-` appear, so chat apps neither linkify nor reformat a
//! receipt, and autocorrect's capitals do not matter. The CRC covers every bit, so any
//! single mistyped character, and any swap of two neighbours, is caught; a missing or
//! extra character slips through at most once in 65,536 times.

use std::collections::BTreeMap;

use crate::progress::Progress;

/// The version this module writes and reads.
pub const VERSION: u32 = 1;
/// What every version-1 receipt starts with (before its `-`).
pub const PREFIX: &str = "SL1";
/// The longest participant name a receipt carries, in characters.
pub const MAX_PARTICIPANT_CHARS: usize = 40;
/// The highest exercise number a receipt can say is done.
pub const MAX_EXERCISE: u32 = 64;
/// The most characters [`read_paste`] reads; the rest is left out and said so.
pub const MAX_PASTE_CHARS: usize = 200_000;
/// The longest text [`decode_receipt`] looks at: a receipt with the longest name fits.
const MAX_CODE_CHARS: usize = 600;

const ALPHABET: &[u8; 32] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";
const GROUP: usize = 4;

/// What a receipt says: who, and which exercises (by number) they report as done.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Receipt {
    /// The participant's name as they typed it (trimmed, at most 40 characters).
    pub participant: String,
    /// Exercise numbers, ascending, each in `1..=64`.
    pub done: Vec<u32>,
}

/// A participant's name as a receipt carries it: whitespace runs become one space,
/// control and bidirectional-override characters are dropped, the ends are trimmed and
/// the rest is cut to [`MAX_PARTICIPANT_CHARS`] characters.
pub fn clean_participant(name: &str) -> String {
    let mut out = String::new();
    let mut space = false;
    for ch in name.chars() {
        if ch.is_whitespace() {
            space = true;
        } else if !ch.is_control() && !is_bidi_control(ch) {
            if space && !out.is_empty() {
                out.push(' ');
            }
            space = false;
            out.push(ch);
        }
    }
    match out.char_indices().nth(MAX_PARTICIPANT_CHARS) {
        Some((cut, _)) => out[..cut].trim_end().to_owned(),
        None => out,
    }
}

/// Characters that reorder the text around them; a name has no use for them and they
/// could make one row of the facilitator's table look like another.
fn is_bidi_control(ch: char) -> bool {
    matches!(ch, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}')
}

/// The receipt for `participant` having done the exercises numbered `done`. The name
/// goes through [`clean_participant`]; numbers outside `1..=64` are left out.
pub fn encode_receipt(participant: &str, done: &[u32]) -> String {
    let name = clean_participant(participant);
    let bits = done
        .iter()
        .filter(|n| (1..=MAX_EXERCISE).contains(n))
        .fold(0u64, |bits, n| bits | (1u64 << (n - 1)));
    let width = (64 - bits.leading_zeros() as usize).div_ceil(8);
    let mut payload = Vec::with_capacity(1 + width + name.len() + 2);
    payload.push(u8::try_from(width).unwrap_or(8));
    payload.extend_from_slice(&bits.to_le_bytes()[..width]);
    payload.extend_from_slice(name.as_bytes());
    let crc = checksum(&payload);
    payload.extend_from_slice(&crc.to_be_bytes());
    let symbols = to_base32(&payload);
    let groups: Vec<&str> = symbols
        .as_bytes()
        .chunks(GROUP)
        .map(|chunk| std::str::from_utf8(chunk).unwrap_or_default())
        .collect();
    format!("{PREFIX}-{}", groups.join("-"))
}

/// The numbers of the exercises `progress` has as done (an id's `NN-` prefix), for
/// [`encode_receipt`].
pub fn done_numbers(progress: &Progress) -> Vec<u32> {
    let mut numbers: Vec<u32> = progress
        .done()
        .iter()
        .filter_map(|id| id.split_once('-')?.0.parse().ok())
        .filter(|n| (1..=MAX_EXERCISE).contains(n))
        .collect();
    swaplab_core::order::sort(&mut numbers);
    numbers.dedup();
    numbers
}

/// The same typo-guidance for every checksum failure: the reader cannot tell which
/// character is wrong, so the message says what to do instead.
const TYPO: &str = "this receipt has a typo: a character is wrong, missing or extra \
                    (its checksum does not match); ask for it again, copied with the Copy button";

/// Reads one receipt. Surrounding whitespace, quotes, brackets and a final full stop are
/// ignored, as are `-` and spaces inside; case does not matter.
pub fn decode_receipt(code: &str) -> Result<Receipt, String> {
    let code = trim_wrapping(code);
    if code.is_empty() {
        return Err(format!("nothing to read: a receipt starts with {PREFIX}-"));
    }
    if code.chars().count() > MAX_CODE_CHARS {
        return Err(format!("too long for a receipt (over {MAX_CODE_CHARS} characters)"));
    }
    let Some((head, body)) = code.split_once(is_dash) else {
        return Err(format!("a receipt starts with {PREFIX}- (this has no “-”)"));
    };
    let head = head.trim();
    let version = match head.get(..2) {
        Some(sl) if sl.eq_ignore_ascii_case("SL") => &head[2..],
        _ => return Err(format!("a receipt starts with {PREFIX}- (this starts with “{head}”)")),
    };
    let digits = !version.is_empty() && version.bytes().all(|b| b.is_ascii_digit());
    match version.parse::<u32>() {
        Ok(VERSION) if digits => {}
        _ if digits => {
            return Err(format!(
                "this is a version-{version} receipt, from another Swap Lab; this page reads \
                 version {VERSION} ({PREFIX}-…)"
            ));
        }
        _ => return Err(format!("a receipt starts with {PREFIX}- (this starts with “{head}”)")),
    }
    let mut symbols = Vec::with_capacity(body.len());
    for (index, ch) in body.chars().enumerate() {
        if is_dash(ch) || ch.is_whitespace() {
            continue;
        }
        match symbol_value(ch) {
            Some(value) => symbols.push(value),
            None => {
                return Err(format!(
                    "“{ch}” (character {} after {PREFIX}-) cannot be in a receipt, which holds \
                     only digits, letters other than U, and dashes",
                    index + 1
                ));
            }
        }
    }
    let bytes = from_base32(&symbols).ok_or_else(|| TYPO.to_owned())?;
    let Some((payload, crc)) = bytes.split_last_chunk::<2>() else {
        return Err("too short to be a receipt".to_owned());
    };
    if checksum(payload) != u16::from_be_bytes(*crc) {
        return Err(TYPO.to_owned());
    }
    let Some((&width, rest)) = payload.split_first() else {
        return Err("too short to be a receipt".to_owned());
    };
    let width = usize::from(width);
    if width > 8 || rest.len() < width {
        return Err("this receipt's layout is not one this page knows".to_owned());
    }
    let (bitmap, name) = rest.split_at(width);
    let mut word = [0u8; 8];
    word[..width].copy_from_slice(bitmap);
    let bits = u64::from_le_bytes(word);
    let done = (1..=MAX_EXERCISE).filter(|n| bits & (1u64 << (n - 1)) != 0).collect();
    let participant = std::str::from_utf8(name)
        .map_err(|_| "the name in this receipt is not readable text".to_owned())?;
    if clean_participant(participant) != participant {
        return Err(format!(
            "the name in this receipt was not written by Swap Lab (it is over \
             {MAX_PARTICIPANT_CHARS} characters, or holds control characters or extra spaces)"
        ));
    }
    Ok(Receipt { participant: participant.to_owned(), done })
}

fn is_dash(ch: char) -> bool {
    // Autocorrect and some fonts turn `-` into one of these.
    matches!(ch, '-' | '‐' | '‑' | '‒' | '–' | '—' | '−' | '_')
}

/// Strips whitespace, quotes (straight, curly, guillemets, backticks), brackets and
/// sentence punctuation from both ends.
fn trim_wrapping(code: &str) -> &str {
    code.trim_matches(|ch: char| {
        ch.is_whitespace()
            || matches!(
                ch,
                '"' | '\''
                    | '`'
                    | '“'
                    | '”'
                    | '„'
                    | '‘'
                    | '’'
                    | '‚'
                    | '«'
                    | '»'
                    | '‹'
                    | '›'
                    | '「'
                    | '」'
                    | '('
                    | ')'
                    | '['
                    | ']'
                    | '<'
                    | '>'
                    | '{'
                    | '}'
                    | '.'
                    | ','
                    | ';'
                    | ':'
                    | '!'
                    | '?'
                    | '*'
            )
    })
}

/// Crockford's decoding: case-insensitive, `O` is `0`, `I` and `L` are `1`.
fn symbol_value(ch: char) -> Option<u8> {
    let upper = match ch.to_ascii_uppercase() {
        'O' => '0',
        'I' | 'L' => '1',
        other => other,
    };
    let byte = u8::try_from(upper).ok()?;
    ALPHABET.iter().position(|&a| a == byte).and_then(|i| u8::try_from(i).ok())
}

fn to_base32(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() * 8 / 5 + 1);
    let (mut buffer, mut bits) = (0u32, 0u32);
    for &byte in bytes {
        buffer = (buffer << 8) | u32::from(byte);
        bits += 8;
        while bits >= 5 {
            bits -= 5;
            out.push(char::from(ALPHABET[((buffer >> bits) & 31) as usize]));
        }
        buffer &= (1 << bits) - 1;
    }
    if bits > 0 {
        out.push(char::from(ALPHABET[((buffer << (5 - bits)) & 31) as usize]));
    }
    out
}

/// The bytes `symbols` spell, or `None` when they cannot have come from [`to_base32`]:
/// a length no byte count gives, or padding bits that are not zero.
fn from_base32(symbols: &[u8]) -> Option<Vec<u8>> {
    let total_bits = symbols.len() * 5;
    let count = total_bits / 8;
    if total_bits - count * 8 >= 5 {
        return None;
    }
    let mut out = Vec::with_capacity(count);
    let (mut buffer, mut bits) = (0u32, 0u32);
    for &symbol in symbols {
        buffer = (buffer << 5) | u32::from(symbol & 31);
        bits += 5;
        if bits >= 8 {
            bits -= 8;
            out.push(u8::try_from((buffer >> bits) & 0xFF).ok()?);
        }
        buffer &= (1 << bits) - 1;
    }
    (buffer == 0).then_some(out)
}

/// CRC-16/CCITT-FALSE over the version prefix, the payload's length (two bytes,
/// big-endian) and the payload, so a receipt of another version never passes as this one.
fn checksum(payload: &[u8]) -> u16 {
    // The length goes in first: without it, a `0` typed after a receipt would make one
    // whose last byte is the old checksum's and whose checksum still matched.
    let length = u16::try_from(payload.len()).unwrap_or(u16::MAX).to_be_bytes();
    let mut crc: u16 = 0xFFFF;
    for &byte in PREFIX.as_bytes().iter().chain(&length).chain(payload) {
        crc ^= u16::from(byte) << 8;
        for _ in 0..8 {
            crc = if crc & 0x8000 != 0 { (crc << 1) ^ 0x1021 } else { crc << 1 };
        }
    }
    crc
}

/// One code found in pasted text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PastedCode {
    /// The line it is on, from 1.
    pub line: u32,
    /// The code as pasted.
    pub text: String,
    /// What it says, or why it could not be read.
    pub result: Result<Receipt, String>,
}

/// Everything [`read_paste`] found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Paste {
    /// Every code, in the order pasted.
    pub codes: Vec<PastedCode>,
    /// Lines that hold text but no code, as `(line, text)`: chat names, times, chatter.
    pub skipped: Vec<(u32, String)>,
    /// Whether the text was longer than [`MAX_PASTE_CHARS`] and its end left out.
    pub truncated: bool,
}

impl Paste {
    /// The codes that could not be read.
    pub fn errors(&self) -> impl Iterator<Item = &PastedCode> {
        self.codes.iter().filter(|c| c.result.is_err())
    }
}

/// Finds every receipt in pasted text, however it is separated: a code starts with
/// `SL<digits>-` after something that is not a letter or digit and runs over letters,
/// digits and dashes.
pub fn read_paste(text: &str) -> Paste {
    let mut paste = Paste::default();
    let text = match text.char_indices().nth(MAX_PASTE_CHARS) {
        Some((cut, _)) => {
            paste.truncated = true;
            &text[..cut]
        }
        None => text,
    };
    for (line, number) in text.lines().zip(1u32..) {
        let found = codes_in(line);
        if found.is_empty() {
            if !line.trim().is_empty() {
                paste.skipped.push((number, line.trim().to_owned()));
            }
            continue;
        }
        for code in found {
            paste.codes.push(PastedCode {
                line: number,
                text: code.to_owned(),
                result: decode_receipt(code),
            });
        }
    }
    paste
}

/// The receipt-shaped pieces of one line.
fn codes_in(line: &str) -> Vec<&str> {
    let chars: Vec<(usize, char)> = line.char_indices().collect();
    let mut found = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let at_boundary = i == 0 || !chars[i - 1].1.is_alphanumeric();
        let starts = at_boundary
            && chars.get(i).is_some_and(|(_, c)| c.eq_ignore_ascii_case(&'s'))
            && chars.get(i + 1).is_some_and(|(_, c)| c.eq_ignore_ascii_case(&'l'));
        if !starts {
            i += 1;
            continue;
        }
        let mut j = i + 2;
        while chars.get(j).is_some_and(|(_, c)| c.is_ascii_digit()) {
            j += 1;
        }
        if j == i + 2 || !chars.get(j).is_some_and(|(_, c)| is_dash(*c)) {
            i += 1;
            continue;
        }
        let body = chars.get(j + 1).map_or(line.len(), |(at, _)| *at);
        while chars.get(j).is_some_and(|(_, c)| c.is_ascii_alphanumeric() || is_dash(*c)) {
            j += 1;
        }
        let start = chars[i].0;
        let end = chars.get(j).map_or(line.len(), |(at, _)| *at);
        // Dashes at the end are punctuation, not part of the code (but the prefix's stays).
        let trimmed = line[body..end].trim_end_matches(is_dash).len();
        found.push(&line[start..body + trimmed]);
        i = j;
    }
    found
}

/// One participant across every receipt of theirs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Participant {
    /// The name, as the latest receipt spells it.
    pub name: String,
    /// Every exercise any of their receipts reports, ascending.
    pub done: Vec<u32>,
    /// How many of their receipts were pasted.
    pub receipts: usize,
}

/// The participants of every readable code, by name (compared without case), with
/// their receipts merged: the latest spelling of the name, the union of the exercises.
/// Sorted by name, without case.
pub fn roster(paste: &Paste) -> Vec<Participant> {
    let mut by_name: BTreeMap<String, Participant> = BTreeMap::new();
    for receipt in paste.codes.iter().filter_map(|c| c.result.as_ref().ok()) {
        let entry = by_name
            .entry(receipt.participant.to_lowercase())
            .or_insert_with(|| Participant { name: String::new(), done: Vec::new(), receipts: 0 });
        entry.name.clone_from(&receipt.participant);
        entry.done.extend(&receipt.done);
        swaplab_core::order::sort(&mut entry.done);
        entry.done.dedup();
        entry.receipts += 1;
    }
    by_name.into_values().collect()
}
