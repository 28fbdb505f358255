//! Small pieces of the standard library that real clients use: `urllib.parse`
//! (`urlparse`, `urlsplit`, `parse_qs`, `parse_qsl`, `urlencode`, `quote`,
//! `quote_plus`, `unquote`, `unquote_plus`) with CPython 3.12's algorithms over `str`,
//! and `contextlib.suppress`.
//!
//! What these functions take beyond the common cases (another `encoding`, `bytes` to
//! parse, a bracketed IPv6 host, a non-ASCII host that NFKC normalisation could
//! change) stops the run rather than being guessed.

use std::rc::Rc;

use super::ast::At;
use super::eval::{Interp, R};
use super::net::Native;
use super::runtime::{Builtin, RunValue};

/// A `ParseResult` (6 parts) or a `SplitResult` (5 parts) of `urllib.parse`: a named
/// tuple of strings.
pub(crate) struct UrlParts {
    /// `urlsplit`'s result (no `params`).
    pub(crate) split: bool,
    pub(crate) parts: Vec<String>,
}

/// The fields of a `ParseResult`.
const PARSE_FIELDS: [&str; 6] = ["scheme", "netloc", "path", "params", "query", "fragment"];

/// The fields of a `SplitResult`.
const SPLIT_FIELDS: [&str; 5] = ["scheme", "netloc", "path", "query", "fragment"];

/// The characters a URL scheme is made of.
fn scheme_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')
}

/// Schemes whose path may carry `;params`.
const USES_PARAMS: [&str; 15] = [
    "", "ftp", "hdl", "prospero", "http", "imap", "https", "shttp", "rtsp", "rtspu", "sip", "sips",
    "mms", "sftp", "tel",
];

/// Schemes that have a network location.
const USES_NETLOC: [&str; 25] = [
    "", "ftp", "http", "gopher", "nntp", "telnet", "imap", "wais", "file", "mms", "https", "shttp",
    "snews", "prospero", "rtsp", "rtspu", "rsync", "svn", "svn+ssh", "sftp", "nfs", "git",
    "git+ssh", "ws", "wss",
];

impl UrlParts {
    fn fields(&self) -> &'static [&'static str] {
        if self.split { &SPLIT_FIELDS } else { &PARSE_FIELDS }
    }

    fn part(&self, name: &str) -> &str {
        let index = self.fields().iter().position(|f| *f == name);
        index.and_then(|i| self.parts.get(i)).map_or("", String::as_str)
    }

    /// The class's name.
    pub(crate) fn type_name(&self) -> &'static str {
        if self.split { "SplitResult" } else { "ParseResult" }
    }

    /// `geturl()`: `urlunparse` or `urlunsplit` of the parts.
    fn url(&self) -> String {
        let scheme = self.part("scheme");
        let netloc = self.part("netloc");
        let mut url = self.part("path").to_owned();
        let params = self.part("params");
        if !self.split && !params.is_empty() {
            url = format!("{url};{params}");
        }
        if !netloc.is_empty()
            || (!scheme.is_empty() && USES_NETLOC.contains(&scheme) && !url.starts_with("//"))
        {
            if !url.is_empty() && !url.starts_with('/') {
                url.insert(0, '/');
            }
            url = format!("//{netloc}{url}");
        }
        if !scheme.is_empty() {
            url = format!("{scheme}:{url}");
        }
        let query = self.part("query");
        if !query.is_empty() {
            url = format!("{url}?{query}");
        }
        let fragment = self.part("fragment");
        if !fragment.is_empty() {
            url = format!("{url}#{fragment}");
        }
        url
    }

    /// `(hostname, port)` of the network location, as `_hostinfo` reads it.
    fn host_info(&self) -> (String, Option<String>) {
        let netloc = self.part("netloc");
        let hostinfo = netloc.rsplit_once('@').map_or(netloc, |(_, h)| h);
        let (hostname, port) = match hostinfo.split_once('[') {
            Some((_, bracketed)) => {
                let (host, rest) = bracketed.split_once(']').unwrap_or((bracketed, ""));
                (host, rest.split_once(':').map_or("", |(_, p)| p))
            }
            None => hostinfo.split_once(':').unwrap_or((hostinfo, "")),
        };
        (hostname.to_owned(), (!port.is_empty()).then(|| port.to_owned()))
    }
}

/// `urlsplit(url)`: scheme, netloc, path, query, fragment; `Err` with what is outside
/// the subset.
fn split_url(url: &str, allow_fragments: bool) -> Result<Vec<String>, &'static str> {
    let url: String = url
        .trim_start_matches(|c: char| c <= ' ')
        .chars()
        .filter(|c| !matches!(c, '\t' | '\r' | '\n'))
        .collect();
    let mut scheme = String::new();
    let mut rest = url.as_str();
    if let Some(i) = rest.find(':')
        && i > 0
        && rest.starts_with(|c: char| c.is_ascii_alphabetic())
        && rest[..i].chars().all(scheme_char)
    {
        scheme = rest[..i].to_ascii_lowercase();
        rest = &rest[i + 1..];
    }
    let mut netloc = "";
    if let Some(after) = rest.strip_prefix("//") {
        let end = after.find(['/', '?', '#']).unwrap_or(after.len());
        netloc = &after[..end];
        rest = &after[end..];
        if netloc.contains('[') || netloc.contains(']') {
            return Err("a bracketed (IPv6) host in a URL");
        }
        if !netloc.is_ascii() {
            return Err("a non-ASCII host in a URL");
        }
    }
    let mut fragment = "";
    if allow_fragments && let Some((before, after)) = rest.split_once('#') {
        rest = before;
        fragment = after;
    }
    let mut query = "";
    if let Some((before, after)) = rest.split_once('?') {
        rest = before;
        query = after;
    }
    Ok(vec![scheme, netloc.to_owned(), rest.to_owned(), query.to_owned(), fragment.to_owned()])
}

/// `quote_from_bytes`: every byte but ASCII letters, digits, `_.-~` and `safe` as
/// `%XX`.
fn quote_bytes(data: &[u8], safe: &[u8]) -> String {
    let mut out = String::with_capacity(data.len());
    for &byte in data {
        if byte.is_ascii_alphanumeric() || b"_.-~".contains(&byte) || safe.contains(&byte) {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// `quote_plus`: `quote` with spaces as `+`.
fn quote_plus_bytes(data: &[u8], safe: &[u8]) -> String {
    if !data.contains(&b' ') {
        return quote_bytes(data, safe);
    }
    let mut safe = safe.to_vec();
    safe.push(b' ');
    quote_bytes(data, &safe).replace(' ', "+")
}

/// `unquote`: `%XX` escapes decoded as UTF-8, invalid sequences replaced.
fn unquote(text: &str) -> String {
    if !text.contains('%') {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    let mut pending: Vec<u8> = Vec::new();
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if !c.is_ascii() {
            out.push_str(&String::from_utf8_lossy(&std::mem::take(&mut pending)));
            out.push(c);
            continue;
        }
        let hex = text.get(i + 1..i + 3).filter(|h| h.bytes().all(|b| b.is_ascii_hexdigit()));
        match hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
            Some(byte) if c == '%' => {
                pending.push(byte);
                chars.next();
                chars.next();
            }
            _ => pending.push(c as u8),
        }
    }
    out.push_str(&String::from_utf8_lossy(&pending));
    out
}

impl Interp<'_, '_> {
    /// A function of `urllib.parse`.
    pub(crate) fn call_urllib(
        &mut self,
        builtin: Builtin,
        args: Vec<RunValue>,
        kwargs: Vec<(String, RunValue)>,
        at: At,
    ) -> R<RunValue> {
        let name = builtin.name();
        match builtin {
            Builtin::Urlparse | Builtin::Urlsplit => {
                let [url, scheme, fragments] = self.url_args(
                    name,
                    args,
                    kwargs,
                    &["url", "scheme", "allow_fragments"],
                    1,
                    at,
                )?;
                let url = self.str_param(name, url, at)?;
                let default_scheme = match scheme {
                    None => String::new(),
                    Some(RunValue::Str(s)) => s.to_string(),
                    Some(_) => return Err(self.unsupported("a `scheme` other than a str", at)),
                };
                let allow = fragments.is_none_or(|v| v.truthy());
                let mut parts = match split_url(&url, allow) {
                    Ok(parts) => parts,
                    Err(what) => return Err(self.unsupported(what, at)),
                };
                if let Some(first) = parts.first_mut()
                    && first.is_empty()
                {
                    first.push_str(default_scheme.trim_matches(|c: char| c <= ' '));
                }
                if builtin == Builtin::Urlparse {
                    let scheme = parts.first().cloned().unwrap_or_default();
                    let path = parts.get(2).cloned().unwrap_or_default();
                    let (path, params) =
                        if USES_PARAMS.contains(&scheme.as_str()) && path.contains(';') {
                            let from = path.rfind('/').unwrap_or(0);
                            match path[from..].find(';') {
                                Some(i) => {
                                    (path[..from + i].to_owned(), path[from + i + 1..].to_owned())
                                }
                                None => (path.clone(), String::new()),
                            }
                        } else {
                            (path, String::new())
                        };
                    if let Some(slot) = parts.get_mut(2) {
                        *slot = path;
                    }
                    parts.insert(3, params);
                }
                let split = builtin == Builtin::Urlsplit;
                Ok(RunValue::Native(Rc::new(Native::Url(UrlParts { split, parts }))))
            }
            Builtin::ParseQs | Builtin::ParseQsl => {
                let pairs = self.parse_qsl(name, args, kwargs, at)?;
                if builtin == Builtin::ParseQsl {
                    let items = pairs
                        .into_iter()
                        .map(|(k, v)| RunValue::tuple(vec![RunValue::str(&k), RunValue::str(&v)]))
                        .collect();
                    return Ok(self.new_list(items));
                }
                let mut entries: Vec<(String, Vec<RunValue>)> = Vec::new();
                for (key, value) in pairs {
                    match entries.iter_mut().find(|(k, _)| *k == key) {
                        Some((_, values)) => values.push(RunValue::str(&value)),
                        None => entries.push((key, vec![RunValue::str(&value)])),
                    }
                }
                let mut dict = Vec::with_capacity(entries.len());
                for (key, values) in entries {
                    dict.push((RunValue::str(&key), self.new_list(values)));
                }
                Ok(self.new_dict(dict))
            }
            Builtin::Quote | Builtin::QuotePlus => {
                let default_safe = if builtin == Builtin::Quote { "/" } else { "" };
                let [string, safe, encoding, errors] = self.url_args(
                    name,
                    args,
                    kwargs,
                    &["string", "safe", "encoding", "errors"],
                    1,
                    at,
                )?;
                self.utf8_only(name, encoding.as_ref(), errors.as_ref(), at)?;
                let safe = self.safe_arg(safe, default_safe, at)?;
                let data = self.quoted_bytes(string, at)?;
                Ok(RunValue::str(&if builtin == Builtin::Quote {
                    quote_bytes(&data, &safe)
                } else {
                    quote_plus_bytes(&data, &safe)
                }))
            }
            Builtin::Unquote | Builtin::UnquotePlus => {
                let [string, encoding, errors] =
                    self.url_args(name, args, kwargs, &["string", "encoding", "errors"], 1, at)?;
                if encoding.as_ref().is_some_and(|e| !matches!(e, RunValue::Str(s) if is_utf8(s)))
                    || errors
                        .as_ref()
                        .is_some_and(|e| !matches!(e, RunValue::Str(s) if &**s == "replace"))
                {
                    return Err(self.unsupported(&format!("`{name}()` with this encoding"), at));
                }
                let text = self.str_param(name, string, at)?;
                let text =
                    if builtin == Builtin::UnquotePlus { text.replace('+', " ") } else { text };
                Ok(RunValue::str(&unquote(&text)))
            }
            Builtin::Urlencode => self.urlencode(args, kwargs, at),
            _ => Err(self.unsupported(&format!("`urllib.parse.{name}`"), at)),
        }
    }

    /// Binds the arguments of a `urllib.parse` function: `required` of them.
    fn url_args<const N: usize>(
        &mut self,
        name: &str,
        args: Vec<RunValue>,
        kwargs: Vec<(String, RunValue)>,
        params: &[&str; N],
        required: usize,
        at: At,
    ) -> R<[Option<RunValue>; N]> {
        let spec: Vec<(&str, bool)> =
            params.iter().enumerate().map(|(i, p)| (*p, i >= required)).collect();
        let slots = self.bind_args(name, &spec, args, kwargs, at)?;
        let mut out: [Option<RunValue>; N] = std::array::from_fn(|_| None);
        for (slot, value) in out.iter_mut().zip(slots) {
            *slot = value;
        }
        Ok(out)
    }

    /// A `str` argument; `bytes` and other types are outside the subset.
    fn str_param(&self, name: &str, value: Option<RunValue>, at: At) -> R<String> {
        match value {
            Some(RunValue::Str(s)) => Ok(s.to_string()),
            Some(other) => {
                let what = format!("`{name}()` of a `{}`", self.type_name(&other));
                Err(self.unsupported(&what, at))
            }
            None => Ok(String::new()),
        }
    }

    /// Refuses an `encoding` or `errors` other than UTF-8's strict default.
    fn utf8_only(
        &self,
        name: &str,
        encoding: Option<&RunValue>,
        errors: Option<&RunValue>,
        at: At,
    ) -> R<()> {
        let plain = |v: Option<&RunValue>, ok: &dyn Fn(&str) -> bool| match v {
            None | Some(RunValue::None) => true,
            Some(RunValue::Str(s)) => ok(s),
            Some(_) => false,
        };
        if plain(encoding, &is_utf8) && plain(errors, &|e| e == "strict") {
            return Ok(());
        }
        Err(self.unsupported(&format!("`{name}()` with this encoding"), at))
    }

    /// The `safe` argument as ASCII bytes.
    fn safe_arg(&self, safe: Option<RunValue>, default: &str, at: At) -> R<Vec<u8>> {
        match safe {
            None => Ok(default.as_bytes().to_vec()),
            Some(RunValue::Str(s)) => Ok(s.bytes().filter(u8::is_ascii).collect()),
            Some(RunValue::Bytes(b)) => Ok(b.iter().copied().filter(u8::is_ascii).collect()),
            Some(other) => {
                let what = format!("a `safe` argument of type `{}`", self.type_name(&other));
                Err(self.unsupported(&what, at))
            }
        }
    }

    /// What `quote` encodes: a `str` as UTF-8, or `bytes`.
    fn quoted_bytes(&self, value: Option<RunValue>, at: At) -> R<Vec<u8>> {
        match value {
            Some(RunValue::Str(s)) => Ok(s.as_bytes().to_vec()),
            Some(RunValue::Bytes(b)) => Ok(b.to_vec()),
            Some(_) => Err(self.raise("TypeError", "quote_from_bytes() expected bytes", at)),
            None => Ok(Vec::new()),
        }
    }

    /// `parse_qsl(qs, keep_blank_values, strict_parsing, …, separator)`.
    fn parse_qsl(
        &mut self,
        name: &str,
        args: Vec<RunValue>,
        kwargs: Vec<(String, RunValue)>,
        at: At,
    ) -> R<Vec<(String, String)>> {
        let [qs, keep, strict, encoding, errors, max_fields, separator] = self.url_args(
            name,
            args,
            kwargs,
            &[
                "qs",
                "keep_blank_values",
                "strict_parsing",
                "encoding",
                "errors",
                "max_num_fields",
                "separator",
            ],
            1,
            at,
        )?;
        if encoding.as_ref().is_some_and(|e| !matches!(e, RunValue::Str(s) if is_utf8(s)))
            || errors.as_ref().is_some_and(|e| !matches!(e, RunValue::Str(s) if &**s == "replace"))
        {
            return Err(self.unsupported(&format!("`{name}()` with this encoding"), at));
        }
        let qs = match qs {
            Some(RunValue::Str(s)) => s.to_string(),
            Some(RunValue::None) | None => String::new(),
            Some(other) => {
                let what = format!("`{name}()` of a `{}`", self.type_name(&other));
                return Err(self.unsupported(&what, at));
            }
        };
        let keep = keep.is_some_and(|v| v.truthy());
        let strict = strict.is_some_and(|v| v.truthy());
        let separator = match separator {
            None => "&".to_owned(),
            Some(RunValue::Str(s)) if !s.is_empty() => s.to_string(),
            Some(_) => {
                return Err(self.raise(
                    "ValueError",
                    "Separator must be of type string or bytes.",
                    at,
                ));
            }
        };
        if let Some(max) = max_fields.filter(|v| !matches!(v, RunValue::None)) {
            let Some(max) = max.as_int() else {
                return Err(self.unsupported("a `max_num_fields` that is not an int", at));
            };
            let count = if qs.is_empty() { 0 } else { 1 + qs.matches(&separator).count() };
            if max < i64::try_from(count).unwrap_or(i64::MAX) {
                return Err(self.raise("ValueError", "Max number of fields exceeded", at));
            }
        }
        self.charge(qs.len(), at)?;
        let mut out = Vec::new();
        if qs.is_empty() {
            return Ok(out);
        }
        for field in qs.split(separator.as_str()) {
            if field.is_empty() && !strict {
                continue;
            }
            let (key, value) = match field.split_once('=') {
                Some((k, v)) => (k, v),
                None if strict => {
                    let message =
                        format!("bad query field: {}", self.repr(&RunValue::str(field), at)?);
                    return Err(self.raise("ValueError", message, at));
                }
                None if keep => (field, ""),
                None => continue,
            };
            if !value.is_empty() || keep {
                out.push((unquote(&key.replace('+', " ")), unquote(&value.replace('+', " "))));
            }
        }
        Ok(out)
    }

    /// `urlencode(query, doseq=False, safe='', encoding=None, errors=None,
    /// quote_via=quote_plus)`.
    fn urlencode(
        &mut self,
        args: Vec<RunValue>,
        kwargs: Vec<(String, RunValue)>,
        at: At,
    ) -> R<RunValue> {
        let [query, doseq, safe, encoding, errors, quote_via] = self.url_args(
            "urlencode",
            args,
            kwargs,
            &["query", "doseq", "safe", "encoding", "errors", "quote_via"],
            1,
            at,
        )?;
        self.utf8_only("urlencode", encoding.as_ref(), errors.as_ref(), at)?;
        let plus = match quote_via {
            None | Some(RunValue::Builtin(Builtin::QuotePlus)) => true,
            Some(RunValue::Builtin(Builtin::Quote)) => false,
            Some(_) => return Err(self.unsupported("this `quote_via` of `urlencode()`", at)),
        };
        let safe = self.safe_arg(safe, "", at)?;
        let doseq = doseq.is_some_and(|v| v.truthy());
        let invalid = |interp: &Self| {
            interp.raise("TypeError", "not a valid non-string sequence or mapping object", at)
        };
        let pairs: Vec<RunValue> = match query.unwrap_or(RunValue::None) {
            RunValue::Dict(dict) => dict
                .entries
                .borrow()
                .iter()
                .map(|(k, v)| RunValue::tuple(vec![k.clone(), v.clone()]))
                .collect(),
            RunValue::List(list) => list.items.borrow().clone(),
            RunValue::Tuple(tuple) => tuple.items.clone(),
            RunValue::Str(s) if s.is_empty() => Vec::new(),
            RunValue::Str(_)
            | RunValue::Int(_)
            | RunValue::Float(_)
            | RunValue::Bool(_)
            | RunValue::None => {
                return Err(invalid(self));
            }
            other => {
                let what = format!("`urlencode()` of a `{}`", self.type_name(&other));
                return Err(self.unsupported(&what, at));
            }
        };
        if pairs.first().is_some_and(|p| !matches!(p, RunValue::Tuple(_))) {
            return Err(invalid(self));
        }
        let quote = |data: &[u8]| {
            if plus { quote_plus_bytes(data, &safe) } else { quote_bytes(data, &safe) }
        };
        let mut out: Vec<String> = Vec::new();
        for pair in pairs {
            self.step(at)?;
            let [key, value]: [RunValue; 2] = match self.unpack(&pair, 2, at)?.try_into() {
                Ok(kv) => kv,
                Err(_) => return Err(invalid(self)),
            };
            let key = quote(&self.url_text(&key, at)?);
            let sequence = match &value {
                RunValue::List(list) if doseq => Some(list.items.borrow().clone()),
                RunValue::Tuple(tuple) if doseq => Some(tuple.items.clone()),
                RunValue::Dict(_) if doseq => Some(self.collect(&value, at)?),
                _ => None,
            };
            match sequence {
                Some(items) => {
                    for item in items {
                        out.push(format!("{key}={}", quote(&self.url_text(&item, at)?)));
                    }
                }
                None => out.push(format!("{key}={}", quote(&self.url_text(&value, at)?))),
            }
        }
        let text = out.join("&");
        self.check_str(&text, at)?;
        Ok(RunValue::str(&text))
    }

    /// What `urlencode` quotes of a key or value: bytes as they are, anything else as
    /// `str()` in UTF-8.
    fn url_text(&mut self, value: &RunValue, at: At) -> R<Vec<u8>> {
        match value {
            RunValue::Bytes(b) => Ok(b.to_vec()),
            other => Ok(self.str_of(other, at)?.into_bytes()),
        }
    }

    /// `parts.name` of a `ParseResult` or `SplitResult`.
    pub(crate) fn url_attr(
        &mut self,
        value: &RunValue,
        url: &UrlParts,
        name: &str,
        at: At,
    ) -> R<RunValue> {
        if let Some(i) = url.fields().iter().position(|f| *f == name) {
            return Ok(RunValue::str(url.parts.get(i).map_or("", String::as_str)));
        }
        match name {
            "geturl" => Ok(RunValue::bound(value.clone(), name)),
            "hostname" => {
                let (host, _) = url.host_info();
                if host.is_empty() {
                    return Ok(RunValue::None);
                }
                Ok(RunValue::str(&match host.split_once('%') {
                    Some((h, zone)) => format!("{}%{zone}", h.to_lowercase()),
                    None => host.to_lowercase(),
                }))
            }
            "port" => {
                let (_, port) = url.host_info();
                let Some(port) = port else { return Ok(RunValue::None) };
                let number = port
                    .bytes()
                    .all(|b| b.is_ascii_digit())
                    .then(|| port.parse::<u64>().ok())
                    .flatten();
                match number {
                    Some(n) if n <= 65535 => Ok(RunValue::Int(i64::try_from(n).unwrap_or(0))),
                    Some(_) => Err(self.raise("ValueError", "Port out of range 0-65535", at)),
                    None if port.bytes().all(|b| b.is_ascii_digit()) => {
                        Err(self.raise("ValueError", "Port out of range 0-65535", at))
                    }
                    None => {
                        let message = format!(
                            "Port could not be cast to integer value as {}",
                            self.repr(&RunValue::str(&port), at)?
                        );
                        Err(self.raise("ValueError", message, at))
                    }
                }
            }
            "username" | "password" => {
                let netloc = url.part("netloc");
                let Some((userinfo, _)) = netloc.rsplit_once('@') else {
                    return Ok(RunValue::None);
                };
                let (user, password) = match userinfo.split_once(':') {
                    Some((u, p)) => (u, Some(p)),
                    None => (userinfo, None),
                };
                Ok(if name == "username" {
                    RunValue::str(user)
                } else {
                    password.map_or(RunValue::None, RunValue::str)
                })
            }
            _ => Err(self.unsupported(&format!("`{}.{name}`", url.type_name()), at)),
        }
    }

    /// A method of a `ParseResult` or `SplitResult`.
    pub(crate) fn url_method(
        &mut self,
        url: &UrlParts,
        name: &str,
        args: &[RunValue],
        kwargs: &[(String, RunValue)],
        at: At,
    ) -> R<RunValue> {
        match name {
            "geturl" if args.is_empty() && kwargs.is_empty() => Ok(RunValue::str(&url.url())),
            _ => Err(self.unsupported(&format!("`{}.{name}()`", url.type_name()), at)),
        }
    }

    /// The parts of a `ParseResult` or `SplitResult`, as the tuple it is.
    pub(crate) fn url_items(url: &UrlParts) -> Vec<RunValue> {
        url.parts.iter().map(|p| RunValue::str(p)).collect()
    }

    /// `repr()` of a `ParseResult` or `SplitResult`.
    pub(crate) fn url_repr(&mut self, url: &UrlParts, at: At) -> R<String> {
        let mut out = format!("{}(", url.type_name());
        for (i, (field, part)) in url.fields().iter().zip(&url.parts).enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            out.push_str(field);
            out.push('=');
            out.push_str(&self.repr(&RunValue::str(part), at)?);
        }
        out.push(')');
        Ok(out)
    }

    /// `suppress(*exceptions).__exit__(exc_type, …)`: whether the exception is one of
    /// them.
    pub(crate) fn suppress_exit(
        &mut self,
        classes: &[RunValue],
        exc_type: &RunValue,
        at: At,
    ) -> R<RunValue> {
        let RunValue::ExcClass(raised) = exc_type else { return Ok(RunValue::Bool(false)) };
        for class in classes {
            let matched = match class {
                RunValue::ExcClass(base) => self.is_subclass(raised, base),
                RunValue::Tuple(tuple) => tuple.items.iter().any(
                    |item| matches!(item, RunValue::ExcClass(base) if self.is_subclass(raised, base)),
                ),
                RunValue::Foreign(what) => return Err(self.unsupported(what, at)),
                _ => {
                    let message =
                        "issubclass() arg 2 must be a class, a tuple of classes, or a union";
                    return Err(self.raise("TypeError", message, at));
                }
            };
            if matched {
                return Ok(RunValue::Bool(true));
            }
        }
        Ok(RunValue::Bool(false))
    }
}

/// Whether an encoding's name is UTF-8's.
fn is_utf8(name: &str) -> bool {
    matches!(name.to_ascii_lowercase().replace('_', "-").as_str(), "utf-8" | "utf8")
}
