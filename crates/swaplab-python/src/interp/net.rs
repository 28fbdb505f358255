//! The network a project's code sees, in memory: `httpx` clients whose requests the
//! [`Host`](super::Host) delivers, and the stdlib `http.server` handler classes a
//! project's mock CRM is written as, served by [`Process::serve`](super::Process::serve).
//!
//! - **`httpx.Client` and `httpx.AsyncClient`**, with `with`/`async with` or plain, and
//!   `close`/`aclose`. `request(method, url, …)`, `get`, `post`, `put`, `patch` and
//!   `delete` take `params=`, `json=`, `content=`, `data=` (a dict is form-encoded),
//!   `headers=` and `timeout=` (accepted: nothing here takes time). `base_url`, the
//!   client's `headers` and `params` merge as httpx merges them; a body sent as `json=`
//!   is written as httpx 0.28+ writes it (compact, UTF-8). A response has
//!   `status_code`, `reason_phrase`, `headers` (case-insensitive `get`, `[…]`, `in`,
//!   `items`), `content`, `text`, `json()`, `url`, `is_success` and its kin, and
//!   `raise_for_status()` with httpx's `HTTPStatusError` and message. A request to an
//!   address nothing listens on raises `httpx.ConnectError` (`All connection attempts
//!   failed` from an async client, `[Errno 111] Connection refused` from a sync one), a
//!   URL without `http://` raises `httpx.UnsupportedProtocol`, and a server that fails
//!   while handling raises `httpx.RemoteProtocolError`. The exception classes keep
//!   httpx's hierarchy (`ConnectError` is a `TransportError`, a `RequestError` and an
//!   `HTTPError`); `exc.response` and `exc.request` are there on the errors that carry
//!   them.
//! - **`http.server.BaseHTTPRequestHandler`** as the base of a class of the file: its
//!   `do_GET`/`do_POST`/… run with `self.path`, `self.command`, `self.headers`
//!   (`get` case-insensitively, as `email.message` does: `[…]` of a missing name is
//!   `None`), `self.rfile.read(n)` and `self.wfile.write(b)`; `send_response`,
//!   `send_header`, `end_headers` and `send_error` write what CPython writes
//!   (`HTTP/1.0 <code> <phrase>`, then `Server` and `Date`), and the answer is read back
//!   from those bytes. A method the class lacks answers 501 as CPython does;
//!   `log_message` and `log_request` are silent. The clock is fixed: `Date` is always
//!   [`FIXED_DATE`], written from the run's one instant, the one `datetime.now()` answers with (`datetime.rs`).
//!
//! - **`requests`**: `requests.get/post/put/patch/delete/head/options/request` and
//!   `requests.Session()` (its `headers` a dict code may update), with the same keyword
//!   arguments; `json=` is written as requests writes it (`json.dumps` with its spaces,
//!   ASCII only). A response has `status_code`, `ok`, `reason`, `headers`, `content`,
//!   `text`, `json()`, `url` and `raise_for_status()` with requests' `HTTPError` and
//!   message. Nothing listening raises `requests.ConnectionError` with urllib3's words,
//!   except that the connection object has no address (`<…HTTPConnection object>`); a
//!   URL without a scheme raises `MissingSchema`.
//!
//! `urllib.request`, `aiohttp` and sockets are outside the subset.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use super::ast::At;
use super::datetime::FIXED_DATE;
use super::eval::{Interp, R, Signal};
use super::runtime::{Builtin, ExcObj, RunValue};

/// httpx's `User-Agent`, as the version the fixtures were recorded with sends it.
pub const HTTPX_USER_AGENT: &str = "python-httpx/0.29.0";

/// One HTTP request on its way to a server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HttpRequest {
    /// `GET`, `POST`…
    pub method: String,
    /// The host as written in the URL (`127.0.0.1`).
    pub host: String,
    /// The port, 80 for `http` when the URL gives none.
    pub port: u16,
    /// The path, from its `/`.
    pub path: String,
    /// The query after `?`, encoded; empty when there is none.
    pub query: String,
    /// Headers in the order they are sent (names as written).
    pub headers: Vec<(String, String)>,
    /// The body's bytes.
    pub body: Vec<u8>,
}

impl HttpRequest {
    /// The path with its query, as a request line carries it.
    pub fn target(&self) -> String {
        if self.query.is_empty() {
            self.path.clone()
        } else {
            format!("{}?{}", self.path, self.query)
        }
    }

    /// The first header named `name`, case-insensitively.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
}

/// A server's answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HttpResponse {
    /// The status code.
    pub status: u16,
    /// The reason phrase after it.
    pub reason: String,
    /// Headers in order.
    pub headers: Vec<(String, String)>,
    /// The body's bytes.
    pub body: Vec<u8>,
}

/// What became of a request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Delivery {
    /// The server answered.
    Answered(HttpResponse),
    /// Nothing listens at the address.
    Refused,
    /// The server took the request and closed the connection without an answer (its
    /// handler raised).
    Disconnected,
    /// The server's code is outside what Swap Lab runs: the request stops the run of
    /// the code that sent it, with the server's diagnostic.
    Stopped(swaplab_base::diagnostic::Diagnostic),
}

/// CPython's reason phrase for a status code (`http.HTTPStatus`, 3.11).
pub fn reason_phrase(status: u16) -> &'static str {
    match status {
        100 => "Continue",
        200 => "OK",
        201 => "Created",
        202 => "Accepted",
        204 => "No Content",
        301 => "Moved Permanently",
        302 => "Found",
        304 => "Not Modified",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        409 => "Conflict",
        410 => "Gone",
        415 => "Unsupported Media Type",
        422 => "Unprocessable Entity",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        501 => "Not Implemented",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        _ => "",
    }
}

/// A value of the network's own types.
pub(crate) enum Native {
    Client(ClientObj),
    Response(ResponseObj),
    Headers(HeadersObj),
    /// A handler's `rfile`: the request body, and how much has been read.
    Reader(RefCell<(Rc<[u8]>, usize)>),
    /// A handler's `wfile`: what it has written.
    Writer(RefCell<Vec<u8>>),
    /// `contextlib.suppress(*exceptions)`.
    Suppress(Vec<RunValue>),
    /// `urllib.parse.urlparse(…)` or `urlsplit(…)`.
    Url(super::stdlib::UrlParts),
}

/// An `httpx.Client` or `httpx.AsyncClient`, or a `requests.Session` (also the one
/// `requests.get` and its kin use for one request).
pub(crate) struct ClientObj {
    is_async: bool,
    /// `requests`, not `httpx`.
    requests: bool,
    /// A `requests.Session`'s `headers`, a dict code may change before sending.
    session_headers: Option<RunValue>,
    base_url: String,
    headers: Vec<(String, String)>,
    params: Vec<(String, String)>,
    closed: Cell<bool>,
}

/// An `httpx.Response` or a `requests.Response`.
#[derive(Clone)]
pub(crate) struct ResponseObj {
    /// `requests`, not `httpx`.
    requests: bool,
    url: String,
    status: u16,
    reason: String,
    headers: Rc<Native>,
    body: Rc<[u8]>,
}

/// `httpx.Headers` (a missing name raises `KeyError`) or a handler's
/// `http.client.HTTPMessage` (a missing name is `None`).
pub(crate) struct HeadersObj {
    items: Vec<(String, String)>,
    message: bool,
}

/// httpx's exception classes and their bases.
pub(crate) const HTTPX_EXCEPTIONS: [(&str, &str); 16] = [
    ("httpx.HTTPError", "Exception"),
    ("httpx.RequestError", "httpx.HTTPError"),
    ("httpx.TransportError", "httpx.RequestError"),
    ("httpx.NetworkError", "httpx.TransportError"),
    ("httpx.ConnectError", "httpx.NetworkError"),
    ("httpx.ReadError", "httpx.NetworkError"),
    ("httpx.ProtocolError", "httpx.TransportError"),
    ("httpx.RemoteProtocolError", "httpx.ProtocolError"),
    ("httpx.UnsupportedProtocol", "httpx.TransportError"),
    ("httpx.TimeoutException", "httpx.TransportError"),
    ("httpx.ConnectTimeout", "httpx.TimeoutException"),
    ("httpx.ReadTimeout", "httpx.TimeoutException"),
    ("httpx.HTTPStatusError", "httpx.HTTPError"),
    ("httpx.DecodingError", "httpx.RequestError"),
    ("httpx.InvalidURL", "Exception"),
    ("httpx.StreamError", "RuntimeError"),
];

/// requests' exception classes and their bases.
pub(crate) const REQUESTS_EXCEPTIONS: [(&str, &str); 9] = [
    ("requests.RequestException", "OSError"),
    ("requests.HTTPError", "requests.RequestException"),
    ("requests.ConnectionError", "requests.RequestException"),
    ("requests.Timeout", "requests.RequestException"),
    ("requests.ConnectTimeout", "requests.ConnectionError"),
    ("requests.ReadTimeout", "requests.Timeout"),
    ("requests.InvalidURL", "requests.RequestException"),
    ("requests.MissingSchema", "requests.RequestException"),
    ("requests.JSONDecodeError", "JSONDecodeError"),
];

/// requests' `User-Agent`, as the version current when this was written sends it.
pub const REQUESTS_USER_AGENT: &str = "python-requests/2.32.3";

/// The name a class is known by in code (`ConnectError` for `httpx.ConnectError`).
pub(crate) fn short_name(class: &str) -> &str {
    class.strip_prefix("httpx.").or_else(|| class.strip_prefix("requests.")).unwrap_or(class)
}

impl Native {
    fn type_name(&self) -> &'static str {
        match self {
            Native::Client(c) if c.requests => "Session",
            Native::Client(c) if c.is_async => "AsyncClient",
            Native::Client(_) => "Client",
            Native::Response(_) => "Response",
            Native::Headers(h) if h.message => "HTTPMessage",
            Native::Headers(_) => "Headers",
            Native::Reader(_) => "BufferedReader",
            Native::Writer(_) => "_SocketWriter",
            Native::Suppress(_) => "suppress",
            Native::Url(url) => url.type_name(),
        }
    }
}

/// Splits `http://host:port/path?query`; `None` without an `http(s)://` scheme.
fn split_url(url: &str) -> Option<(String, String, u16, String, String)> {
    let (scheme, rest) = url.split_once("://")?;
    let scheme = scheme.to_ascii_lowercase();
    if scheme != "http" && scheme != "https" {
        return None;
    }
    let (authority, rest) = match rest.find(['/', '?']) {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, "/"),
    };
    let (path, query) = match rest.split_once('?') {
        Some((p, q)) => (p, q),
        None => (rest, ""),
    };
    let path = if path.is_empty() { "/" } else { path };
    let default = if scheme == "https" { 443 } else { 80 };
    let (host, port) = match authority.rsplit_once(':') {
        Some((h, p)) => (h, p.parse().ok()?),
        None => (authority, default),
    };
    Some((scheme, host.to_owned(), port, path.to_owned(), query.to_owned()))
}

/// `urllib.parse.quote_plus` of one key or value, as httpx encodes query parameters.
fn quote_plus(text: &str) -> String {
    let mut out = String::new();
    for byte in text.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'_' | b'.' | b'-' | b'~' => {
                out.push(char::from(byte));
            }
            b' ' => out.push('+'),
            other => out.push_str(&format!("%{other:02X}")),
        }
    }
    out
}

fn encode_pairs(pairs: &[(String, String)]) -> String {
    pairs
        .iter()
        .map(|(k, v)| format!("{}={}", quote_plus(k), quote_plus(v)))
        .collect::<Vec<_>>()
        .join("&")
}

impl Interp<'_, '_> {
    /// `type(x).__name__` of a network value.
    pub(crate) fn native_type_name(native: &Native) -> &'static str {
        native.type_name()
    }

    /// A network exception: `class` (qualified) with `message`, and attributes.
    fn net_error(
        &self,
        class: &str,
        message: &str,
        attrs: Vec<(&str, RunValue)>,
        at: At,
    ) -> Signal {
        let exc = ExcObj::new(Rc::from(class), vec![RunValue::str(message)]);
        {
            let mut own = exc.attrs.borrow_mut();
            for (name, value) in attrs {
                own.push((Rc::from(name), value));
            }
        }
        Signal::Raise(Box::new(super::eval::Raised { exc: Rc::new(exc), at, file: self.file }))
    }

    /// `httpx.Client(…)` / `httpx.AsyncClient(…)`.
    pub(crate) fn new_client(
        &mut self,
        is_async: bool,
        args: &[RunValue],
        kwargs: Vec<(String, RunValue)>,
        at: At,
    ) -> R<RunValue> {
        if !args.is_empty() {
            let name = if is_async { "AsyncClient" } else { "Client" };
            let message = format!(
                "{name}.__init__() takes 1 positional argument but {} were given",
                args.len() + 1
            );
            return Err(self.raise("TypeError", message, at));
        }
        let mut client = ClientObj {
            is_async,
            requests: false,
            session_headers: None,
            base_url: String::new(),
            headers: Vec::new(),
            params: Vec::new(),
            closed: Cell::new(false),
        };
        for (key, value) in kwargs {
            match key.as_str() {
                "base_url" => client.base_url = self.text_of(&value, "base_url", at)?,
                "headers" => client.headers = self.pairs_of(&value, at)?,
                "params" => client.params = self.pairs_of(&value, at)?,
                "timeout" | "follow_redirects" | "verify" | "http2" | "limits" | "trust_env" => {}
                other => {
                    let what = format!(
                        "`httpx.{}(…, {other}=…)`",
                        if is_async { "AsyncClient" } else { "Client" }
                    );
                    return Err(self.unsupported(&what, at));
                }
            }
        }
        Ok(RunValue::Native(Rc::new(Native::Client(client))))
    }

    /// `requests.Session()`, or the one-request session `requests.get` and its kin use.
    pub(crate) fn new_session(&mut self) -> RunValue {
        let defaults = vec![
            (RunValue::str("User-Agent"), RunValue::str(REQUESTS_USER_AGENT)),
            (RunValue::str("Accept-Encoding"), RunValue::str("gzip, deflate")),
            (RunValue::str("Accept"), RunValue::str("*/*")),
            (RunValue::str("Connection"), RunValue::str("keep-alive")),
        ];
        let headers = self.new_dict(defaults);
        RunValue::Native(Rc::new(Native::Client(ClientObj {
            is_async: false,
            requests: true,
            session_headers: Some(headers),
            base_url: String::new(),
            headers: Vec::new(),
            params: Vec::new(),
            closed: Cell::new(false),
        })))
    }

    fn text_of(&self, value: &RunValue, what: &str, at: At) -> R<String> {
        match value {
            RunValue::Str(s) => Ok(s.to_string()),
            RunValue::None => Ok(String::new()),
            other => {
                let message = format!("{what} must be a str, not {}", self.type_name(other));
                Err(self.raise("TypeError", message, at))
            }
        }
    }

    /// Headers or params given as a dict (or a list of pairs): their text.
    fn pairs_of(&mut self, value: &RunValue, at: At) -> R<Vec<(String, String)>> {
        let entries: Vec<(RunValue, RunValue)> = match value {
            RunValue::None => return Ok(Vec::new()),
            RunValue::Dict(dict) => dict.entries.borrow().clone(),
            RunValue::Native(native) => match &**native {
                Native::Headers(h) => {
                    return Ok(h.items.clone());
                }
                _ => return Err(self.unsupported("these headers or params", at)),
            },
            RunValue::List(list) => {
                let mut out = Vec::new();
                for item in list.items.borrow().iter() {
                    match item {
                        RunValue::Tuple(t) if t.items.len() == 2 => {
                            out.push((t.items[0].clone(), t.items[1].clone()));
                        }
                        _ => return Err(self.unsupported("these headers or params", at)),
                    }
                }
                out
            }
            _ => return Err(self.unsupported("these headers or params", at)),
        };
        let mut out = Vec::new();
        for (key, value) in entries {
            let key = self.wire_text(&key, at)?;
            match &value {
                RunValue::List(list) => {
                    for item in list.items.borrow().clone() {
                        out.push((key.clone(), self.wire_text(&item, at)?));
                    }
                }
                other => out.push((key, self.wire_text(other, at)?)),
            }
        }
        Ok(out)
    }

    /// `str()` of a header or parameter value (httpx: `True` is `true`, `None` empty).
    fn wire_text(&mut self, value: &RunValue, at: At) -> R<String> {
        Ok(match value {
            RunValue::Str(s) => s.to_string(),
            RunValue::Bool(true) => "true".to_owned(),
            RunValue::Bool(false) => "false".to_owned(),
            RunValue::None => String::new(),
            other => self.str_of(other, at)?,
        })
    }

    /// A method of a network value, or of a handler instance's base class.
    pub(crate) fn native_method(
        &mut self,
        receiver: &RunValue,
        native: &Rc<Native>,
        name: &str,
        args: Vec<RunValue>,
        kwargs: Vec<(String, RunValue)>,
        at: At,
    ) -> R<RunValue> {
        match &**native {
            Native::Suppress(classes) => match name {
                "__enter__" => Ok(RunValue::None),
                "__exit__" => {
                    self.suppress_exit(classes, args.first().unwrap_or(&RunValue::None), at)
                }
                _ => Err(self.unsupported(&format!("`suppress.{name}()`"), at)),
            },
            Native::Url(url) => self.url_method(url, name, &args, &kwargs, at),
            Native::Client(client) => self.client_method(receiver, client, name, args, kwargs, at),
            Native::Response(response) => self.response_method(response, name, &args, &kwargs, at),
            Native::Headers(headers) => {
                let key = args.first().cloned().unwrap_or(RunValue::None);
                match name {
                    "get" => {
                        let default = args.get(1).cloned().or_else(|| {
                            kwargs.iter().find(|(k, _)| k == "default").map(|(_, v)| v.clone())
                        });
                        let key = self.wire_text(&key, at)?;
                        Ok(headers_get(headers, &key)
                            .map_or(default.unwrap_or(RunValue::None), RunValue::str))
                    }
                    "items" | "keys" | "values" => {
                        let items = headers
                            .items
                            .iter()
                            .map(|(k, v)| {
                                let k = if headers.message {
                                    k.clone()
                                } else {
                                    k.to_ascii_lowercase()
                                };
                                match name {
                                    "items" => {
                                        RunValue::tuple(vec![RunValue::str(&k), RunValue::str(v)])
                                    }
                                    "keys" => RunValue::str(&k),
                                    _ => RunValue::str(v),
                                }
                            })
                            .collect();
                        Ok(self.new_list(items))
                    }
                    _ => Err(self.unsupported(&format!("`{}.{name}()`", native.type_name()), at)),
                }
            }
            Native::Reader(reader) => match name {
                "read" => {
                    let wanted = match args.first() {
                        Some(RunValue::Int(n)) if *n >= 0 => {
                            Some(usize::try_from(*n).unwrap_or(usize::MAX))
                        }
                        Some(RunValue::Int(_) | RunValue::None) | None => None,
                        Some(other) => {
                            let message = format!(
                                "argument should be integer or None, not '{}'",
                                self.type_name(other)
                            );
                            return Err(self.raise("TypeError", message, at));
                        }
                    };
                    let mut state = reader.borrow_mut();
                    let (data, pos) = &mut *state;
                    let end = wanted.map_or(data.len(), |n| pos.saturating_add(n).min(data.len()));
                    let chunk: Rc<[u8]> = Rc::from(data.get(*pos..end).unwrap_or_default());
                    *pos = end;
                    Ok(RunValue::Bytes(chunk))
                }
                _ => Err(self.unsupported(&format!("`rfile.{name}()`"), at)),
            },
            Native::Writer(writer) => match name {
                "write" => match args.first() {
                    Some(RunValue::Bytes(b)) => {
                        self.charge(b.len(), at)?;
                        writer.borrow_mut().extend_from_slice(b);
                        Ok(RunValue::Int(i64::try_from(b.len()).unwrap_or(i64::MAX)))
                    }
                    Some(other) => {
                        let message = format!(
                            "a bytes-like object is required, not '{}'",
                            self.type_name(other)
                        );
                        Err(self.raise("TypeError", message, at))
                    }
                    None => Err(self.raise(
                        "TypeError",
                        "write() takes exactly one argument (0 given)",
                        at,
                    )),
                },
                "flush" => Ok(RunValue::None),
                _ => Err(self.unsupported(&format!("`wfile.{name}()`"), at)),
            },
        }
    }

    /// `value.name` on a network value.
    pub(crate) fn native_attr(
        &mut self,
        value: &RunValue,
        native: &Rc<Native>,
        name: &str,
        at: At,
    ) -> R<RunValue> {
        let found = match &**native {
            Native::Client(client) => match name {
                "request" | "get" | "post" | "put" | "patch" | "delete" | "close" | "aclose"
                | "__enter__" | "__exit__" | "__aenter__" | "__aexit__" => {
                    Some(RunValue::bound(value.clone(), name))
                }
                "base_url" if !client.requests => Some(RunValue::str(&client.base_url)),
                "headers" if client.requests => client.session_headers.clone(),
                "headers" => Some(self.headers_value(client.headers.clone(), false)),
                "head" | "options" if client.requests => Some(RunValue::bound(value.clone(), name)),
                "is_closed" => Some(RunValue::Bool(client.closed.get())),
                _ => None,
            },
            Native::Response(response) if response.requests => match name {
                "status_code" => Some(RunValue::Int(i64::from(response.status))),
                "reason" => Some(RunValue::str(&response.reason)),
                "ok" => Some(RunValue::Bool(response.status < 400)),
                "headers" => Some(RunValue::Native(response.headers.clone())),
                "content" => Some(RunValue::Bytes(response.body.clone())),
                "text" => Some(RunValue::str(&String::from_utf8_lossy(&response.body))),
                "url" => Some(RunValue::str(&response.url)),
                "json" | "raise_for_status" => Some(RunValue::bound(value.clone(), name)),
                _ => None,
            },
            Native::Response(response) => match name {
                "status_code" => Some(RunValue::Int(i64::from(response.status))),
                "reason_phrase" => Some(RunValue::str(&response.reason)),
                "headers" => Some(RunValue::Native(response.headers.clone())),
                "content" => Some(RunValue::Bytes(response.body.clone())),
                "text" => Some(RunValue::str(&String::from_utf8_lossy(&response.body))),
                "url" => Some(RunValue::str(&response.url)),
                "is_success" => Some(RunValue::Bool((200..300).contains(&response.status))),
                "is_error" => Some(RunValue::Bool(response.status >= 400)),
                "is_client_error" => Some(RunValue::Bool((400..500).contains(&response.status))),
                "is_server_error" => Some(RunValue::Bool(response.status >= 500)),
                "is_redirect" => Some(RunValue::Bool((300..400).contains(&response.status))),
                "json" | "raise_for_status" => Some(RunValue::bound(value.clone(), name)),
                _ => None,
            },
            Native::Headers(_) => match name {
                "get" | "items" | "keys" | "values" => Some(RunValue::bound(value.clone(), name)),
                _ => None,
            },
            Native::Reader(_) => (name == "read").then(|| RunValue::bound(value.clone(), name)),
            Native::Writer(_) => {
                (name == "write" || name == "flush").then(|| RunValue::bound(value.clone(), name))
            }
            Native::Suppress(_) => None,
            Native::Url(url) => return self.url_attr(value, url, name, at),
        };
        found.ok_or_else(|| self.unsupported(&format!("`{}.{name}`", native.type_name()), at))
    }

    fn headers_value(&self, items: Vec<(String, String)>, message: bool) -> RunValue {
        RunValue::Native(Rc::new(Native::Headers(HeadersObj { items, message })))
    }

    /// `headers[name]`.
    pub(crate) fn native_item(&mut self, native: &Native, key: &RunValue, at: At) -> R<RunValue> {
        if let Native::Url(url) = native {
            let items = Self::url_items(url);
            return self.get_item(&RunValue::tuple(items), key, at);
        }
        let Native::Headers(headers) = native else {
            let message = format!("'{}' object is not subscriptable", native.type_name());
            return Err(self.raise("TypeError", message, at));
        };
        let name = self.wire_text(key, at)?;
        match headers_get(headers, &name) {
            Some(value) => Ok(RunValue::str(value)),
            None if headers.message => Ok(RunValue::None),
            None => Err(self.raise_with("KeyError", vec![key.clone()], at)),
        }
    }

    /// `name in headers`.
    pub(crate) fn native_contains(&mut self, native: &Native, key: &RunValue, at: At) -> R<bool> {
        let Native::Headers(headers) = native else {
            let message = format!("argument of type '{}' is not iterable", native.type_name());
            return Err(self.raise("TypeError", message, at));
        };
        let name = self.wire_text(key, at)?;
        Ok(headers_get(headers, &name).is_some())
    }

    fn client_method(
        &mut self,
        receiver: &RunValue,
        client: &ClientObj,
        name: &str,
        mut args: Vec<RunValue>,
        kwargs: Vec<(String, RunValue)>,
        at: At,
    ) -> R<RunValue> {
        match name {
            "__enter__" | "__aenter__" => return Ok(receiver.clone()),
            "__exit__" | "__aexit__" | "close" | "aclose" => {
                client.closed.set(true);
                return Ok(RunValue::None);
            }
            _ => {}
        }
        let method = if name == "request" {
            if args.is_empty() {
                return Err(self.raise(
                    "TypeError",
                    "request() missing 2 required positional arguments: 'method' and 'url'",
                    at,
                ));
            }
            let method = args.remove(0);
            self.text_of(&method, "method", at)?.to_ascii_uppercase()
        } else {
            name.to_ascii_uppercase()
        };
        let Some(url) = args
            .first()
            .cloned()
            .or_else(|| kwargs.iter().find(|(k, _)| k == "url").map(|(_, v)| v.clone()))
        else {
            let message = format!("{name}() missing 1 required positional argument: 'url'");
            return Err(self.raise("TypeError", message, at));
        };
        if args.len() > 1 {
            let message =
                format!("{name}() takes 2 positional arguments but {} were given", args.len() + 1);
            return Err(self.raise("TypeError", message, at));
        }
        if client.closed.get() {
            let message = "Cannot send a request, as the client has been closed.".to_owned();
            return Err(self.raise("RuntimeError", message, at));
        }
        let url = self.text_of(&url, "url", at)?;
        let full = join_url(&client.base_url, &url);
        let Some((scheme, host, port, path, query)) = split_url(&full) else {
            if client.requests {
                let (class, message) = if full.contains("://") {
                    let scheme = full.split("://").next().unwrap_or_default();
                    let _ = scheme;
                    (
                        "requests.InvalidURL",
                        format!("No connection adapters were found for '{full}'"),
                    )
                } else {
                    (
                        "requests.MissingSchema",
                        format!(
                            "Invalid URL '{full}': No scheme supplied. Perhaps you meant https://{full}?"
                        ),
                    )
                };
                return Err(self.net_error(class, &message, Vec::new(), at));
            }
            let message = if full.contains("://") {
                format!(
                    "Request URL has an unsupported protocol '{}://'.",
                    full.split("://").next().unwrap_or_default()
                )
            } else {
                "Request URL is missing an 'http://' or 'https://' protocol.".to_owned()
            };
            return Err(self.net_error("httpx.UnsupportedProtocol", &message, Vec::new(), at));
        };
        let mut params = client.params.clone();
        let mut headers: Vec<(String, String)> = vec![
            (
                "Host".to_owned(),
                if (scheme == "http" && port == 80) || (scheme == "https" && port == 443) {
                    host.clone()
                } else {
                    format!("{host}:{port}")
                },
            ),
            ("Accept".to_owned(), "*/*".to_owned()),
            ("Accept-Encoding".to_owned(), "gzip, deflate".to_owned()),
            ("Connection".to_owned(), "keep-alive".to_owned()),
            ("User-Agent".to_owned(), HTTPX_USER_AGENT.to_owned()),
        ];
        let merge = |headers: &mut Vec<(String, String)>, extra: Vec<(String, String)>| {
            for (k, v) in extra {
                headers.retain(|(h, _)| !h.eq_ignore_ascii_case(&k));
                headers.push((k, v));
            }
        };
        if client.requests {
            headers.retain(|(k, _)| k == "Host");
            if let Some(session) = &client.session_headers {
                let pairs = self.pairs_of(session, at)?;
                merge(&mut headers, pairs);
            }
        }
        merge(&mut headers, client.headers.clone());
        let mut body = Vec::new();
        let mut content_type = None;
        for (key, value) in kwargs {
            match key.as_str() {
                "url" => {}
                "params" => params.extend(self.pairs_of(&value, at)?),
                "headers" => {
                    let extra = self.pairs_of(&value, at)?;
                    merge(&mut headers, extra);
                }
                "json" => {
                    if !matches!(value, RunValue::None) {
                        let text = if client.requests {
                            // requests: json.dumps(json, allow_nan=False), spaces and all.
                            let kwargs = vec![("allow_nan".to_owned(), RunValue::Bool(false))];
                            match self.call_builtin(
                                Builtin::JsonDumps,
                                vec![value.clone()],
                                kwargs,
                                at,
                            )? {
                                RunValue::Str(s) => s.to_string(),
                                _ => String::new(),
                            }
                        } else {
                            self.json_body(&value, at)?
                        };
                        body = text.into_bytes();
                        content_type = Some("application/json");
                    }
                }
                "content" => match value {
                    RunValue::Bytes(b) => body = b.to_vec(),
                    RunValue::Str(s) => body = s.as_bytes().to_vec(),
                    RunValue::None => {}
                    other => {
                        let message =
                            format!("Unexpected type for 'content', {}", self.type_name(&other));
                        return Err(self.raise("TypeError", message, at));
                    }
                },
                "data" => match value {
                    RunValue::Dict(_) => {
                        let pairs = self.pairs_of(&value, at)?;
                        body = encode_pairs(&pairs).into_bytes();
                        content_type = Some("application/x-www-form-urlencoded");
                    }
                    RunValue::Bytes(b) => body = b.to_vec(),
                    RunValue::Str(s) => body = s.as_bytes().to_vec(),
                    RunValue::None => {}
                    other => {
                        let message =
                            format!("Unexpected type for 'data', {}", self.type_name(&other));
                        return Err(self.raise("TypeError", message, at));
                    }
                },
                "timeout" | "follow_redirects" | "extensions" => {}
                other => {
                    let message = format!("{name}() got an unexpected keyword argument '{other}'");
                    return Err(self.raise("TypeError", message, at));
                }
            }
        }
        if !body.is_empty() || matches!(method.as_str(), "POST" | "PUT" | "PATCH") {
            headers.push(("Content-Length".to_owned(), body.len().to_string()));
        }
        if let Some(kind) = content_type {
            headers.push(("Content-Type".to_owned(), kind.to_owned()));
        }
        let query = match (query.is_empty(), params.is_empty()) {
            (_, true) => query,
            (true, false) => encode_pairs(&params),
            (false, false) => format!("{query}&{}", encode_pairs(&params)),
        };
        let request = HttpRequest { method, host, port, path, query, headers, body };
        let url = format!(
            "{scheme}://{}{}",
            request.header("Host").unwrap_or_default(),
            request.target()
        );
        self.charge(request.body.len(), at)?;
        let span = self.span(at);
        let delivery = self.host.http(&request, span);
        match delivery {
            Delivery::Answered(response) => {
                let headers = Rc::new(Native::Headers(HeadersObj {
                    items: response.headers,
                    message: false,
                }));
                Ok(RunValue::Native(Rc::new(Native::Response(ResponseObj {
                    requests: client.requests,

                    url,
                    status: response.status,
                    reason: response.reason,
                    headers,
                    body: Rc::from(response.body),
                }))))
            }
            Delivery::Refused if client.requests => {
                let message = format!(
                    "HTTPConnectionPool(host='{}', port={}): Max retries exceeded with url: {} \
                     (Caused by NewConnectionError('<urllib3.connection.HTTPConnection object>: \
                     Failed to establish a new connection: [Errno 111] Connection refused'))",
                    request.host,
                    request.port,
                    request.target()
                );
                Err(self.net_error("requests.ConnectionError", &message, Vec::new(), at))
            }
            Delivery::Disconnected if client.requests => {
                let message = "('Connection aborted.', RemoteDisconnected('Remote end closed \
                               connection without response'))";
                Err(self.net_error("requests.ConnectionError", message, Vec::new(), at))
            }
            Delivery::Refused => {
                let message = if client.is_async {
                    "All connection attempts failed".to_owned()
                } else {
                    "[Errno 111] Connection refused".to_owned()
                };
                Err(self.net_error("httpx.ConnectError", &message, Vec::new(), at))
            }
            Delivery::Disconnected => {
                let message = "Server disconnected without sending a response.".to_owned();
                Err(self.net_error("httpx.RemoteProtocolError", &message, Vec::new(), at))
            }
            Delivery::Stopped(diagnostic) => Err(Signal::Stop(Box::new(diagnostic))),
        }
    }

    /// `json=` as httpx writes it: compact separators, non-ASCII kept.
    fn json_body(&mut self, value: &RunValue, at: At) -> R<String> {
        let kwargs = vec![
            ("ensure_ascii".to_owned(), RunValue::Bool(false)),
            (
                "separators".to_owned(),
                RunValue::tuple(vec![RunValue::str(","), RunValue::str(":")]),
            ),
            ("allow_nan".to_owned(), RunValue::Bool(false)),
        ];
        match self.call_builtin(Builtin::JsonDumps, vec![value.clone()], kwargs, at)? {
            RunValue::Str(s) => Ok(s.to_string()),
            _ => Ok(String::new()),
        }
    }

    fn response_method(
        &mut self,
        response: &ResponseObj,
        name: &str,
        args: &[RunValue],
        kwargs: &[(String, RunValue)],
        at: At,
    ) -> R<RunValue> {
        match name {
            "json" => {
                if !args.is_empty() || !kwargs.is_empty() {
                    return Err(self.unsupported("`Response.json(…)` with arguments", at));
                }
                self.call_builtin(
                    Builtin::JsonLoads,
                    vec![RunValue::Bytes(response.body.clone())],
                    Vec::new(),
                    at,
                )
            }
            "raise_for_status" if response.requests => {
                let kind = match response.status {
                    400..=499 => "Client Error",
                    500..=599 => "Server Error",
                    _ => return Ok(RunValue::None),
                };
                let message = format!(
                    "{} {kind}: {} for url: {}",
                    response.status, response.reason, response.url
                );
                let copy = RunValue::Native(Rc::new(Native::Response(response.clone())));
                Err(self.net_error("requests.HTTPError", &message, vec![("response", copy)], at))
            }
            "raise_for_status" => {
                let kind = match response.status {
                    100..=199 => "Informational response",
                    300..=399 => "Redirect response",
                    400..=499 => "Client error",
                    500..=599 => "Server error",
                    _ => "Invalid status code",
                };
                if (200..300).contains(&response.status) {
                    return Ok(RunValue::Native(Rc::new(Native::Response(response.clone()))));
                }
                let message = format!(
                    "{kind} '{} {}' for url '{}'\nFor more information check: https://developer.mozilla.org/en-US/docs/Web/HTTP/Status/{}",
                    response.status, response.reason, response.url, response.status
                );
                let copy = RunValue::Native(Rc::new(Native::Response(response.clone())));
                Err(self.net_error("httpx.HTTPStatusError", &message, vec![("response", copy)], at))
            }
            _ => Err(self.unsupported(&format!("`Response.{name}()`"), at)),
        }
    }

    /// A method of `BaseHTTPRequestHandler` on a handler instance.
    pub(crate) fn handler_method(
        &mut self,
        receiver: &RunValue,
        name: &str,
        args: &[RunValue],
        kwargs: &[(String, RunValue)],
        at: At,
    ) -> R<Option<RunValue>> {
        let RunValue::Instance(instance) = receiver else { return Ok(None) };
        let attr = |n: &str| {
            instance.attrs.borrow().iter().find(|(k, _)| &**k == n).map(|(_, v)| v.clone())
        };
        let write_line = |interp: &mut Self, line: String| -> R<()> {
            let buffer = attr("_headers_buffer");
            if let Some(RunValue::List(list)) = buffer {
                list.items.borrow_mut().push(RunValue::Bytes(Rc::from(line.into_bytes())));
                Ok(())
            } else {
                let list = interp.new_list(vec![RunValue::Bytes(Rc::from(line.into_bytes()))]);
                instance.attrs.borrow_mut().push((Rc::from("_headers_buffer"), list));
                Ok(())
            }
        };
        match name {
            "send_response" | "send_response_only" => {
                let code = match args.first() {
                    Some(RunValue::Int(code)) => *code,
                    _ => {
                        return Err(self.raise(
                            "TypeError",
                            "send_response() needs an int status code",
                            at,
                        ));
                    }
                };
                let message = match args
                    .get(1)
                    .or_else(|| kwargs.iter().find(|(k, _)| k == "message").map(|(_, v)| v))
                {
                    Some(RunValue::Str(m)) => m.to_string(),
                    _ => u16::try_from(code).map(reason_phrase).unwrap_or_default().to_owned(),
                };
                write_line(self, format!("HTTP/1.0 {code} {message}\r\n"))?;
                if name == "send_response" {
                    write_line(self, "Server: BaseHTTP/0.6 Python/3.11.7\r\n".to_owned())?;
                    write_line(self, format!("Date: {FIXED_DATE}\r\n"))?;
                }
                Ok(Some(RunValue::None))
            }
            "send_header" => {
                let (Some(key), Some(value)) = (args.first(), args.get(1)) else {
                    return Err(self.raise("TypeError", "send_header() missing 2 required positional arguments: 'keyword' and 'value'", at));
                };
                let key = self.wire_text(key, at)?;
                let value = self.wire_text(value, at)?;
                write_line(self, format!("{key}: {value}\r\n"))?;
                Ok(Some(RunValue::None))
            }
            "end_headers" => {
                write_line(self, "\r\n".to_owned())?;
                if let (Some(RunValue::List(buffer)), Some(RunValue::Native(writer))) =
                    (attr("_headers_buffer"), attr("wfile"))
                    && let Native::Writer(out) = &*writer
                {
                    for line in buffer.items.borrow_mut().drain(..) {
                        if let RunValue::Bytes(b) = line {
                            out.borrow_mut().extend_from_slice(&b);
                        }
                    }
                }
                Ok(Some(RunValue::None))
            }
            "send_error" => {
                let code = match args.first() {
                    Some(RunValue::Int(code)) => *code,
                    _ => {
                        return Err(self.raise(
                            "TypeError",
                            "send_error() needs an int status code",
                            at,
                        ));
                    }
                };
                let phrase = u16::try_from(code).map(reason_phrase).unwrap_or_default();
                let message = match args.get(1) {
                    Some(RunValue::Str(m)) => m.to_string(),
                    _ => phrase.to_owned(),
                };
                let explain = match args.get(2) {
                    Some(RunValue::Str(m)) => m.to_string(),
                    _ => String::new(),
                };
                let body = error_page(code, &message, &explain);
                let write = |interp: &mut Self, name: &str, args: Vec<RunValue>| {
                    interp.handler_method(receiver, name, &args, &[], at)
                };
                write(self, "send_response", vec![RunValue::Int(code), RunValue::str(&message)])?;
                write(
                    self,
                    "send_header",
                    vec![RunValue::str("Connection"), RunValue::str("close")],
                )?;
                let has_body = code >= 200 && !matches!(code, 204 | 205 | 304);
                if has_body {
                    write(
                        self,
                        "send_header",
                        vec![
                            RunValue::str("Content-Type"),
                            RunValue::str("text/html;charset=utf-8"),
                        ],
                    )?;
                    write(
                        self,
                        "send_header",
                        vec![
                            RunValue::str("Content-Length"),
                            RunValue::str(&body.len().to_string()),
                        ],
                    )?;
                }
                write(self, "end_headers", Vec::new())?;
                if has_body
                    && attr("command")
                        .is_none_or(|c| !matches!(c, RunValue::Str(ref s) if &**s == "HEAD"))
                    && let Some(RunValue::Native(writer)) = attr("wfile")
                    && let Native::Writer(out) = &*writer
                {
                    out.borrow_mut().extend_from_slice(body.as_bytes());
                }
                Ok(Some(RunValue::None))
            }
            "log_message" | "log_request" | "log_error" => Ok(Some(RunValue::None)),
            "address_string" => Ok(Some(RunValue::str("127.0.0.1"))),
            "date_time_string" => Ok(Some(RunValue::str(FIXED_DATE))),
            _ => Ok(None),
        }
    }
}

/// httpx's URL merge of `base_url` and a request's `url`.
fn join_url(base: &str, url: &str) -> String {
    if base.is_empty() || url.contains("://") {
        return url.to_owned();
    }
    let base = if base.ends_with('/') { base.to_owned() } else { format!("{base}/") };
    format!("{base}{}", url.trim_start_matches('/'))
}

fn headers_get<'h>(headers: &'h HeadersObj, name: &str) -> Option<&'h str> {
    headers.items.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
}

/// CPython's `DEFAULT_ERROR_MESSAGE` page for `send_error`.
fn error_page(code: i64, message: &str, explain: &str) -> String {
    let escape = |s: &str| s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;");
    format!(
        "<!DOCTYPE HTML>\n<html lang=\"en\">\n    <head>\n        <meta charset=\"utf-8\">\n        <title>Error response</title>\n    </head>\n    <body>\n        <h1>Error response</h1>\n        <p>Error code: {code}</p>\n        <p>Message: {}.</p>\n        <p>Error code explanation: {code} - {}.</p>\n    </body>\n</html>\n",
        escape(message),
        escape(explain)
    )
}

/// Reads a handler's written bytes back as a response: the status line, headers, then
/// the body (all that follows).
pub(crate) fn parse_response(bytes: &[u8]) -> Option<HttpResponse> {
    let end = bytes.windows(4).position(|w| w == b"\r\n\r\n")?;
    let head = String::from_utf8_lossy(&bytes[..end]);
    let mut lines = head.split("\r\n");
    let status_line = lines.next()?;
    let mut parts = status_line.splitn(3, ' ');
    let _version = parts.next()?;
    let status: u16 = parts.next()?.parse().ok()?;
    let reason = parts.next().unwrap_or_default().to_owned();
    let headers = lines
        .filter_map(|l| l.split_once(':').map(|(k, v)| (k.trim().to_owned(), v.trim().to_owned())))
        .collect();
    Some(HttpResponse { status, reason, headers, body: bytes[end + 4..].to_vec() })
}

/// The attributes a handler instance is made with for `request`.
pub(crate) fn handler_attrs(request: &HttpRequest) -> Vec<(Rc<str>, RunValue)> {
    let headers = RunValue::Native(Rc::new(Native::Headers(HeadersObj {
        items: request.headers.clone(),
        message: true,
    })));
    let rfile = RunValue::Native(Rc::new(Native::Reader(RefCell::new((
        Rc::from(request.body.clone()),
        0,
    )))));
    let wfile = RunValue::Native(Rc::new(Native::Writer(RefCell::new(Vec::new()))));
    vec![
        (Rc::from("command"), RunValue::str(&request.method)),
        (Rc::from("path"), RunValue::str(&request.target())),
        (Rc::from("request_version"), RunValue::str("HTTP/1.1")),
        (
            Rc::from("requestline"),
            RunValue::str(&format!("{} {} HTTP/1.1", request.method, request.target())),
        ),
        (Rc::from("headers"), headers),
        (Rc::from("rfile"), rfile),
        (Rc::from("wfile"), wfile),
        (
            Rc::from("client_address"),
            RunValue::tuple(vec![RunValue::str("127.0.0.1"), RunValue::Int(50_000)]),
        ),
        (Rc::from("close_connection"), RunValue::Bool(true)),
    ]
}

/// What a handler instance wrote to its `wfile`.
pub(crate) fn written(attrs: &[(Rc<str>, RunValue)]) -> Vec<u8> {
    attrs
        .iter()
        .find(|(k, _)| &**k == "wfile")
        .and_then(|(_, v)| match v {
            RunValue::Native(n) => match &**n {
                Native::Writer(out) => Some(out.borrow().clone()),
                _ => None,
            },
            _ => None,
        })
        .unwrap_or_default()
}
