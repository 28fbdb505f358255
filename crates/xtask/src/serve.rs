//! A small static file server for the built site, on loopback only.
//!
//! Serves files under the public URL, answers every other path under it that looks like
//! a route (no file extension) with `index.html` so deep links work, and refuses
//! anything that would leave the site's folder.

use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::path::{Component, Path, PathBuf};
use std::thread;
use std::time::Duration;

use anyhow::{Context, Result};

/// A running server.
pub struct Server {
    /// Where it listens.
    pub addr: SocketAddr,
    /// The path the site is served under, like `/` or `/swaplab/`.
    pub public_url: String,
}

impl Server {
    /// The site's URL.
    pub fn url(&self) -> String {
        format!("http://{}{}", self.addr, self.public_url)
    }
}

/// Starts serving `dist` under `public_url` on `127.0.0.1:port` (0 picks a free port).
/// The server runs on background threads until the process ends.
pub fn start(dist: &Path, public_url: &str, port: u16) -> Result<Server> {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, port)).with_context(|| {
        format!("could not listen on 127.0.0.1:{port}; is another server using it? Try --port")
    })?;
    let addr = listener.local_addr().context("reading the bound address")?;
    let dist = dist.canonicalize().with_context(|| format!("{} does not exist", dist.display()))?;
    let base = public_url.to_owned();
    thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let dist = dist.clone();
            let base = base.clone();
            thread::spawn(move || {
                // A client that hangs up mid-request is not the server's problem.
                let _ = handle(stream, &dist, &base);
            });
        }
    });
    Ok(Server { addr, public_url: public_url.to_owned() })
}

/// Serves until the process is stopped.
pub fn serve_forever(dist: &Path, public_url: &str, port: u16) -> Result<()> {
    let server = start(dist, public_url, port)?;
    println!("\n    Swap Lab is running at {}", server.url());
    println!("    (loopback only; press Ctrl-C to stop)\n");
    loop {
        thread::park();
    }
}

struct Response {
    status: &'static str,
    content_type: &'static str,
    body: Vec<u8>,
    location: Option<String>,
}

fn handle(stream: TcpStream, dist: &Path, base: &str) -> Result<()> {
    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    // Drain the headers; nothing in them changes the answer.
    let mut header = String::new();
    let mut header_bytes = 0;
    loop {
        header.clear();
        let read = reader.read_line(&mut header)?;
        header_bytes += read;
        if read == 0 || header == "\r\n" || header == "\n" || header_bytes > 64 * 1024 {
            break;
        }
    }
    let mut parts = request_line.split_whitespace();
    let method = parts.next().unwrap_or_default();
    let target = parts.next().unwrap_or_default();
    let response = if method == "GET" || method == "HEAD" {
        respond(dist, base, target)
    } else {
        text("405 Method Not Allowed", "Only GET and HEAD are served here.\n")
    };
    write(stream, &response, method == "HEAD")
}

fn respond(dist: &Path, base: &str, target: &str) -> Response {
    let path = target.split(['?', '#']).next().unwrap_or("/");
    let Some(path) = percent_decode(path) else {
        return text("400 Bad Request", "The path is not valid UTF-8.\n");
    };
    if format!("{path}/") == base {
        return Response {
            status: "301 Moved Permanently",
            content_type: "text/plain; charset=utf-8",
            body: Vec::new(),
            location: Some(base.to_owned()),
        };
    }
    let Some(relative) =
        path.strip_prefix(base).or_else(|| (path == "/" && base == "/").then_some(""))
    else {
        return text("404 Not Found", &format!("Swap Lab is served under {base}\n"));
    };
    let Some(file) = safe_join(dist, relative) else {
        return text("404 Not Found", "Not found.\n");
    };
    if let Some(body) = file.is_file().then(|| fs::read(&file).ok()).flatten() {
        return Response {
            status: "200 OK",
            content_type: content_type(&file),
            body,
            location: None,
        };
    }
    let last = relative.rsplit('/').next().unwrap_or_default();
    if !last.contains('.') {
        // A route such as learn/the-agent or play: the app decides what to show.
        if let Ok(body) = fs::read(dist.join("index.html")) {
            return Response {
                status: "200 OK",
                content_type: "text/html; charset=utf-8",
                body,
                location: None,
            };
        }
    }
    text("404 Not Found", "Not found.\n")
}

/// Joins a URL path onto `dist`, refusing `..` and anything else that could escape it.
fn safe_join(dist: &Path, relative: &str) -> Option<PathBuf> {
    let mut path = dist.to_path_buf();
    for part in relative.split('/').filter(|p| !p.is_empty()) {
        let component = Path::new(part).components().next()?;
        match component {
            Component::Normal(name) if Path::new(part).components().count() == 1 => path.push(name),
            _ => return None,
        }
    }
    if relative.is_empty() || relative.ends_with('/') {
        path.push("index.html");
    }
    Some(path)
}

fn percent_decode(path: &str) -> Option<String> {
    let bytes = path.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

fn content_type(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()) {
        Some("html") => "text/html; charset=utf-8",
        Some("js" | "mjs") => "text/javascript; charset=utf-8",
        Some("wasm") => "application/wasm",
        Some("css") => "text/css; charset=utf-8",
        Some("svg") => "image/svg+xml",
        Some("json") => "application/json",
        Some("png") => "image/png",
        Some("ico") => "image/x-icon",
        Some("txt" | "md") => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

fn text(status: &'static str, body: &str) -> Response {
    Response {
        status,
        content_type: "text/plain; charset=utf-8",
        body: body.as_bytes().to_vec(),
        location: None,
    }
}

fn write(mut stream: TcpStream, response: &Response, head_only: bool) -> Result<()> {
    let mut head = format!(
        "HTTP/1.1 {}\r\nContent-Type: {}\r\nContent-Length: {}\r\nCache-Control: no-cache\r\n\
         X-Content-Type-Options: nosniff\r\nConnection: close\r\n",
        response.status,
        response.content_type,
        response.body.len()
    );
    if let Some(location) = &response.location {
        head.push_str(&format!("Location: {location}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes())?;
    if !head_only {
        stream.write_all(&response.body)?;
    }
    stream.flush()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_cannot_leave_the_site() {
        let dist = Path::new("/srv/site");
        assert_eq!(safe_join(dist, "a/b.js"), Some(PathBuf::from("/srv/site/a/b.js")));
        assert_eq!(safe_join(dist, ""), Some(PathBuf::from("/srv/site/index.html")));
        assert_eq!(safe_join(dist, "../etc/passwd"), None);
        assert_eq!(safe_join(dist, "a/../../x"), None);
        assert_eq!(safe_join(dist, "./x"), None);
    }

    #[test]
    fn percent_escapes_decode_and_bad_ones_are_refused() {
        assert_eq!(percent_decode("/a%20b").as_deref(), Some("/a b"));
        assert_eq!(percent_decode("/%2e%2e/x").as_deref(), Some("/../x"));
        assert_eq!(percent_decode("/%zz"), None);
        assert_eq!(percent_decode("/%ff"), None);
        assert_eq!(percent_decode("/100%").as_deref(), Some("/100%"));
    }
}
