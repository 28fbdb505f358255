//! `str.encode` and `bytes.decode`: UTF-8 (and `utf-8-sig`), ASCII and Latin-1, with
//! the error handlers `strict`, `ignore` and `replace`, CPython's codec names and its
//! `UnicodeEncodeError`/`UnicodeDecodeError` messages. Other codecs Python has stop the
//! run as outside the subset; unknown names raise `LookupError` as in Python.

use std::rc::Rc;

use super::ast::At;
use super::eval::{Interp, R};
use super::runtime::RunValue;
use super::value::escape_char;

/// A codec the subset runs.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Codec {
    Utf8,
    Utf8Sig,
    Ascii,
    Latin1,
}

impl Codec {
    /// The name CPython's messages give the codec.
    fn name(self) -> &'static str {
        match self {
            Codec::Utf8 | Codec::Utf8Sig => "utf-8",
            Codec::Ascii => "ascii",
            Codec::Latin1 => "latin-1",
        }
    }

    /// The first code point the codec cannot represent (one byte per character).
    fn limit(self) -> u32 {
        if self == Codec::Ascii { 128 } else { 256 }
    }
}

/// Python's `encodings.normalize_encoding` and the aliases of the codecs the subset runs.
fn codec_of(name: &str) -> Option<Result<Codec, ()>> {
    let mut normal = String::with_capacity(name.len());
    let mut gap = false;
    for c in name.chars() {
        if c.is_alphanumeric() || c == '.' {
            if gap && !normal.is_empty() {
                normal.push('_');
            }
            normal.extend(c.to_lowercase());
            gap = false;
        } else {
            gap = true;
        }
    }
    Some(Ok(match normal.as_str() {
        "utf_8" | "utf8" | "u8" | "utf" | "utf8_ucs2" | "utf8_ucs4" | "cp65001" => Codec::Utf8,
        "utf_8_sig" | "utf8_sig" => Codec::Utf8Sig,
        "ascii" | "646" | "us_ascii" | "us" | "cp367" | "csascii" | "ibm367" | "iso646_us"
        | "iso_ir_6" | "ansi_x3.4_1968" | "ansi_x3_4_1968" | "ansi_x3.4_1986" => Codec::Ascii,
        "latin_1" | "latin1" | "latin" | "l1" | "iso8859_1" | "iso_8859_1" | "iso8859" | "8859"
        | "cp819" | "ibm819" | "csisolatin1" | "iso_ir_100" | "iso_8859_1_1987" => Codec::Latin1,
        other if OTHER_CODECS.contains(&other) || other.starts_with("cp") => return Some(Err(())),
        other if other.starts_with("iso8859_") || other.starts_with("iso_8859_") => {
            return Some(Err(()));
        }
        _ => return None,
    }))
}

/// Codecs Python has that the subset does not run.
const OTHER_CODECS: [&str; 32] = [
    "utf_16",
    "utf16",
    "utf_16_le",
    "utf_16le",
    "utf_16_be",
    "utf_16be",
    "utf_32",
    "utf32",
    "utf_32_le",
    "utf_32_be",
    "utf_7",
    "utf7",
    "latin_9",
    "latin9",
    "mac_roman",
    "macroman",
    "big5",
    "gbk",
    "gb2312",
    "gb18030",
    "shift_jis",
    "sjis",
    "euc_jp",
    "euc_kr",
    "koi8_r",
    "koi8_u",
    "idna",
    "punycode",
    "raw_unicode_escape",
    "unicode_escape",
    "windows_1252",
    "hz",
];

/// An error handler.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Handler {
    Strict,
    Ignore,
    Replace,
}

/// Error handlers Python has that the subset does not run.
const OTHER_HANDLERS: [&str; 5] =
    ["backslashreplace", "xmlcharrefreplace", "namereplace", "surrogateescape", "surrogatepass"];

impl Interp<'_, '_> {
    /// The codec named `encoding`: `LookupError` for a name Python does not know.
    fn codec(&self, encoding: &str, at: At) -> R<Codec> {
        match codec_of(encoding) {
            Some(Ok(codec)) => Ok(codec),
            Some(Err(())) => Err(self.unsupported(&format!("the codec `{encoding}`"), at)),
            None => Err(self.raise("LookupError", format!("unknown encoding: {encoding}"), at)),
        }
    }

    /// The handler named `errors`, looked up when an error needs it, as Python does.
    fn handler(&self, errors: &str, at: At) -> R<Handler> {
        match errors {
            "strict" => Ok(Handler::Strict),
            "ignore" => Ok(Handler::Ignore),
            "replace" => Ok(Handler::Replace),
            other if OTHER_HANDLERS.contains(&other) => {
                Err(self.unsupported(&format!("the error handler `{other}`"), at))
            }
            other => {
                let message = format!("unknown error handler name '{other}'");
                Err(self.raise("LookupError", message, at))
            }
        }
    }

    /// `text.encode(encoding, errors)`.
    pub(crate) fn encode(
        &mut self,
        text: &str,
        encoding: &str,
        errors: &str,
        at: At,
    ) -> R<Vec<u8>> {
        let codec = self.codec(encoding, at)?;
        self.charge(text.len(), at)?;
        match codec {
            Codec::Utf8 => return Ok(text.as_bytes().to_vec()),
            Codec::Utf8Sig => {
                let mut out = vec![0xef, 0xbb, 0xbf];
                out.extend_from_slice(text.as_bytes());
                return Ok(out);
            }
            Codec::Ascii | Codec::Latin1 => {}
        }
        let limit = codec.limit();
        let chars: Vec<char> = text.chars().collect();
        let mut out = Vec::with_capacity(chars.len());
        let mut i = 0;
        while let Some(&c) = chars.get(i) {
            if u32::from(c) < limit {
                out.push(u8::try_from(u32::from(c)).unwrap_or(b'?'));
                i += 1;
                continue;
            }
            let start = i;
            while chars.get(i).is_some_and(|&c| u32::from(c) >= limit) {
                i += 1;
            }
            match self.handler(errors, at)? {
                Handler::Strict => {
                    let reason = format!("ordinal not in range({limit})");
                    let args = unicode_error_args(codec, RunValue::str(text), (start, i), &reason);
                    return Err(self.raise_with("UnicodeEncodeError", args, at));
                }
                Handler::Ignore => {}
                Handler::Replace => out.extend(std::iter::repeat_n(b'?', i - start)),
            }
        }
        Ok(out)
    }

    /// `data.decode(encoding, errors)`.
    pub(crate) fn decode(
        &mut self,
        data: &[u8],
        encoding: &str,
        errors: &str,
        at: At,
    ) -> R<String> {
        let codec = self.codec(encoding, at)?;
        self.charge(data.len(), at)?;
        let data = match codec {
            Codec::Latin1 => return Ok(data.iter().map(|&b| char::from(b)).collect()),
            Codec::Utf8Sig => data.strip_prefix(&[0xef, 0xbb, 0xbf][..]).unwrap_or(data),
            Codec::Utf8 | Codec::Ascii => data,
        };
        let mut out = String::with_capacity(data.len());
        let mut i = 0;
        while i < data.len() {
            let (length, error) = if codec == Codec::Ascii {
                match data.get(i) {
                    Some(&b) if b < 0x80 => (1, None),
                    _ => (1, Some("ordinal not in range(128)")),
                }
            } else {
                utf8_sequence(data, i)
            };
            let end = (i + length).min(data.len());
            let Some(reason) = error else {
                out.push_str(
                    std::str::from_utf8(data.get(i..end).unwrap_or_default()).unwrap_or("\u{fffd}"),
                );
                i = end;
                continue;
            };
            match self.handler(errors, at)? {
                Handler::Strict => {
                    let object = RunValue::Bytes(Rc::from(data));
                    let args = unicode_error_args(codec, object, (i, end), reason);
                    return Err(self.raise_with("UnicodeDecodeError", args, at));
                }
                Handler::Ignore => {}
                Handler::Replace => out.push('\u{fffd}'),
            }
            i = end;
        }
        Ok(out)
    }
}

/// The arguments CPython gives a `UnicodeEncodeError` or `UnicodeDecodeError`:
/// `(encoding, object, start, end, reason)`.
fn unicode_error_args(
    codec: Codec,
    object: RunValue,
    (start, end): (usize, usize),
    reason: &str,
) -> Vec<RunValue> {
    let index = |n: usize| RunValue::Int(i64::try_from(n).unwrap_or(i64::MAX));
    vec![RunValue::str(codec.name()), object, index(start), index(end), RunValue::str(reason)]
}

/// `str()` of a `UnicodeEncodeError` or `UnicodeDecodeError` made from its arguments, as
/// CPython words it; `None` when the arguments are not of that form.
pub(crate) fn unicode_error_str(args: &[RunValue]) -> Option<String> {
    let [
        RunValue::Str(codec),
        object,
        RunValue::Int(start),
        RunValue::Int(end),
        RunValue::Str(reason),
    ] = args
    else {
        return None;
    };
    let (start, end) = (usize::try_from(*start).ok()?, usize::try_from(*end).ok()?);
    let what = match object {
        RunValue::Bytes(data) if end == start + 1 => {
            format!("decode byte 0x{:02x} in position {start}", data.get(start)?)
        }
        RunValue::Bytes(_) => format!("decode bytes in position {start}-{}", end.checked_sub(1)?),
        RunValue::Str(text) if end == start + 1 => {
            let mut escaped = String::new();
            escape_char(text.chars().nth(start)?, &mut escaped);
            format!("encode character '{escaped}' in position {start}")
        }
        RunValue::Str(_) => {
            format!("encode characters in position {start}-{}", end.checked_sub(1)?)
        }
        _ => return None,
    };
    Some(format!("'{codec}' codec can't {what}: {reason}"))
}

/// The UTF-8 sequence at `data[i]`: its length and, when it is invalid, CPython's reason
/// (the length is then the bytes the error covers).
fn utf8_sequence(data: &[u8], i: usize) -> (usize, Option<&'static str>) {
    let Some(&lead) = data.get(i) else { return (1, None) };
    let (length, second) = match lead {
        0x00..=0x7f => return (1, None),
        0xc2..=0xdf => (2, 0x80..=0xbf),
        0xe0 => (3, 0xa0..=0xbf),
        0xed => (3, 0x80..=0x9f),
        0xe1..=0xef => (3, 0x80..=0xbf),
        0xf0 => (4, 0x90..=0xbf),
        0xf4 => (4, 0x80..=0x8f),
        0xf1..=0xf3 => (4, 0x80..=0xbf),
        _ => return (1, Some("invalid start byte")),
    };
    for k in 1..length {
        let Some(&b) = data.get(i + k) else {
            return (k, Some("unexpected end of data"));
        };
        let valid = if k == 1 { second.contains(&b) } else { (0x80..=0xbf).contains(&b) };
        if !valid {
            return (k, Some("invalid continuation byte"));
        }
    }
    (length, None)
}
