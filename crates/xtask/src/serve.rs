//! A small static file server for the built site, on loopback only.
//!
//! Serves files under the public URL, answers every other path under it that looks like
//! a route (no file extension) with its prerendered `<route>/index.html` when the build
//! wrote one, else with the app's shell `404.html` (as a static host answers a path it
//! has no file for), so deep links work, and refuses
//! anything that would leave the site's folder. Text and wasm go out gzipped when the
//! browser accepts it, as a static host sends them.
//!
//! A server can also stand behind a slow [`Link`], for `cargo xtask bench`'s visit
//! timings: every answer waits one round trip, and all connections share the link's
//! bandwidth, the page's own requests and its service worker's alike, as they share a
//! phone's radio. (Chromium's network emulation slows each request of the page apart and
//! leaves the service worker's unthrottled, so it cannot show the two competing.)

use std::collections::HashMap;
use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::thread;
use std::time::{Duration, Instant};

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

/// A network between the server and the browser: a round trip and a bandwidth that every
/// connection shares.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Link {
    /// Added before each answer's first byte.
    pub round_trip: Duration,
    /// What all the answers together may send per second.
    pub bytes_per_second: u64,
}

/// The link's pacing: the moment it is free to send the next chunk.
struct Pacer {
    link: Link,
    free_at: Mutex<Instant>,
}

impl Pacer {
    /// How much one turn on the link sends; small enough that concurrent answers
    /// interleave finely, as packets do.
    const CHUNK: usize = 8 * 1024;

    /// Waits for this chunk's turn on the link and the time it takes to send.
    fn wait_for(&self, bytes: usize) {
        let transfer = Duration::from_secs_f64(bytes as f64 / self.link.bytes_per_second as f64);
        let done = {
            let mut free_at = self.free_at.lock().expect("no thread panics holding the pacer");
            let done = (*free_at).max(Instant::now()) + transfer;
            *free_at = done;
            done
        };
        thread::sleep(done.saturating_duration_since(Instant::now()));
    }
}

/// Starts serving `dist` under `public_url` on `127.0.0.1:port` (0 picks a free port).
/// The server runs on background threads until the process ends.
pub fn start(dist: &Path, public_url: &str, port: u16) -> Result<Server> {
    start_behind(dist, public_url, port, None)
}

/// As [`start`], with every answer sent over `link` when one is given.
pub fn start_behind(
    dist: &Path,
    public_url: &str,
    port: u16,
    link: Option<Link>,
) -> Result<Server> {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, port)).with_context(|| {
        format!("could not listen on 127.0.0.1:{port}; is another server using it? Try --port")
    })?;
    let addr = listener.local_addr().context("reading the bound address")?;
    let dist = dist.canonicalize().with_context(|| format!("{} does not exist", dist.display()))?;
    let base = public_url.to_owned();
    let pacer = link.map(|link| Arc::new(Pacer { link, free_at: Mutex::new(Instant::now()) }));
    thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let dist = dist.clone();
            let base = base.clone();
            let pacer = pacer.clone();
            thread::spawn(move || {
                // A client that hangs up mid-request is not the server's problem.
                let _ = handle(stream, &dist, &base, pacer.as_deref());
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
    body: Arc<Vec<u8>>,
    location: Option<String>,
    /// `gzip` when the body is compressed.
    encoding: Option<&'static str>,
}

fn handle(stream: TcpStream, dist: &Path, base: &str, pacer: Option<&Pacer>) -> Result<()> {
    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    // Read the headers; only Accept-Encoding changes the answer.
    let mut header = String::new();
    let mut header_bytes = 0;
    let mut gzip_accepted = false;
    loop {
        header.clear();
        let read = reader.read_line(&mut header)?;
        header_bytes += read;
        if read == 0 || header == "\r\n" || header == "\n" || header_bytes > 64 * 1024 {
            break;
        }
        gzip_accepted |= accepts_gzip(&header);
    }
    let mut parts = request_line.split_whitespace();
    let method = parts.next().unwrap_or_default();
    let target = parts.next().unwrap_or_default();
    let response = if method == "GET" || method == "HEAD" {
        let response = respond(dist, base, target);
        if gzip_accepted { gzipped(response) } else { response }
    } else {
        text("405 Method Not Allowed", "Only GET and HEAD are served here.\n")
    };
    write(stream, &response, method == "HEAD", pacer)
}

/// Whether a request header line is an `Accept-Encoding` that takes gzip (without
/// `q=0`, which refuses it).
fn accepts_gzip(header: &str) -> bool {
    let Some((name, value)) = header.split_once(':') else { return false };
    name.trim().eq_ignore_ascii_case("accept-encoding")
        && value.split(',').any(|coding| {
            let mut parts = coding.split(';').map(str::trim);
            let name = parts.next().unwrap_or_default();
            let refused = parts.any(|p| {
                p.strip_prefix("q=").is_some_and(|q| q.parse::<f64>().is_ok_and(|q| q == 0.0))
            });
            (name.eq_ignore_ascii_case("gzip") || name == "*") && !refused
        })
}

/// A successful file's body gzipped (level 9, as `budget.rs` measures), when its type
/// compresses; anything else unchanged. Each body is compressed once: the cache is keyed
/// by the body itself, so a file rebuilt while the server runs is compressed afresh.
fn gzipped(response: Response) -> Response {
    let compresses = response.content_type.starts_with("text/")
        || matches!(
            response.content_type,
            "application/wasm" | "application/json" | "image/svg+xml"
        );
    if response.status != "200 OK" || !compresses || response.body.is_empty() {
        return response;
    }
    Response { body: gzip_of(&response.body), encoding: Some("gzip"), ..response }
}

/// Compressed bodies, keyed by the uncompressed body (its length, then its bytes).
type GzipCache = Mutex<HashMap<Arc<Vec<u8>>, Arc<Vec<u8>>>>;

fn gzip_of(body: &Arc<Vec<u8>>) -> Arc<Vec<u8>> {
    static CACHE: OnceLock<GzipCache> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    if let Some(done) = cache.lock().expect("no thread panics holding the gzip cache").get(body) {
        return done.clone();
    }
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    let compressed = match encoder.write_all(body).and_then(|()| encoder.finish()) {
        Ok(bytes) => Arc::new(bytes),
        // Writing into memory cannot fail; were it to, the file goes out as it is.
        Err(_) => return body.clone(),
    };
    let mut cache = cache.lock().expect("no thread panics holding the gzip cache");
    // A site has a few dozen files; only rebuilds under a running server add more.
    if cache.len() >= 256 {
        cache.clear();
    }
    cache.insert(body.clone(), compressed.clone());
    compressed
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
            body: Arc::default(),
            location: Some(base.to_owned()),
            encoding: None,
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
            body: Arc::new(body),
            location: None,
            encoding: None,
        };
    }
    let last = relative.rsplit('/').next().unwrap_or_default();
    if !last.contains('.') {
        // A route such as learn/the-agent or play: its prerendered page when the build
        // wrote one, else the app's shell, which decides what to show. (`index.html` is
        // the start page's own.)
        let page = Some(file.join("index.html")).filter(|p| p.is_file());
        if let Ok(body) = fs::read(page.unwrap_or_else(|| dist.join("404.html"))) {
            return Response {
                status: "200 OK",
                content_type: "text/html; charset=utf-8",
                body: Arc::new(body),
                location: None,
                encoding: None,
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
        body: Arc::new(body.as_bytes().to_vec()),
        location: None,
        encoding: None,
    }
}

fn write(
    mut stream: TcpStream,
    response: &Response,
    head_only: bool,
    pacer: Option<&Pacer>,
) -> Result<()> {
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
    if let Some(encoding) = response.encoding {
        head.push_str(&format!("Content-Encoding: {encoding}\r\n"));
    }
    // Whether a file is compressed depends on the request, so caches must know that.
    head.push_str("Vary: Accept-Encoding\r\n");
    head.push_str("\r\n");
    let body: &[u8] = if head_only { &[] } else { &response.body };
    let Some(pacer) = pacer else {
        stream.write_all(head.as_bytes())?;
        stream.write_all(body)?;
        stream.flush()?;
        return Ok(());
    };
    thread::sleep(pacer.link.round_trip);
    let mut answer = head.into_bytes();
    answer.extend_from_slice(body);
    for chunk in answer.chunks(Pacer::CHUNK) {
        pacer.wait_for(chunk.len());
        stream.write_all(chunk)?;
        stream.flush()?;
    }
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

    #[test]
    fn gzip_is_taken_only_from_an_accept_encoding_that_does_not_refuse_it() {
        assert!(accepts_gzip("Accept-Encoding: gzip, deflate, br, zstd\r\n"));
        assert!(accepts_gzip("accept-encoding:GZIP;q=0.5\r\n"));
        assert!(accepts_gzip("Accept-Encoding: *\r\n"));
        assert!(!accepts_gzip("Accept-Encoding: br, gzip;q=0\r\n"));
        assert!(!accepts_gzip("Accept-Encoding: identity\r\n"));
        assert!(!accepts_gzip("X-Accept-Encoding: gzip\r\n"));
        assert!(!accepts_gzip("Accept: gzip\r\n"));
        assert!(!accepts_gzip("\r\n"));
    }

    /// Sends `request` to `server` and returns the head and the body of its answer.
    fn exchange(server: &Server, request: &str) -> (String, Vec<u8>) {
        use std::io::Read;
        let mut stream = TcpStream::connect(server.addr).unwrap();
        stream.write_all(request.as_bytes()).unwrap();
        let mut answer = Vec::new();
        stream.read_to_end(&mut answer).unwrap();
        let end = answer.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
        (String::from_utf8(answer[..end].to_vec()).unwrap(), answer[end + 4..].to_vec())
    }

    #[test]
    fn text_and_wasm_go_out_gzipped_when_accepted_and_as_they_are_otherwise() {
        let script = "console.log('a line the compressor can fold');\n".repeat(200);
        let dist = crate::offline::scratch_dist(
            "serve-gzip",
            &[
                ("index.html", "<!doctype html><p>start page</p>"),
                ("404.html", "<!doctype html><p>shell</p>"),
                ("learn/the-agent/index.html", "<!doctype html><p>chapter</p>"),
                ("app.js", &script),
                ("icon.png", "not text"),
            ],
        );
        let server = start(&dist, "/", 0).unwrap();
        let get = |path: &str, accept: &str| {
            exchange(&server, &format!("GET {path} HTTP/1.1\r\nHost: x\r\n{accept}\r\n"))
        };

        let (head, body) = get("/app.js", "Accept-Encoding: gzip, br\r\n");
        assert!(head.contains("Content-Encoding: gzip\r\n"), "{head}");
        assert!(head.contains("Vary: Accept-Encoding"), "{head}");
        assert!(head.contains(&format!("Content-Length: {}\r\n", body.len())), "{head}");
        assert!(body.len() < script.len() / 10, "{} of {} bytes", body.len(), script.len());
        let mut inflated = String::new();
        std::io::Read::read_to_string(&mut flate2::read::GzDecoder::new(&body[..]), &mut inflated)
            .unwrap();
        assert_eq!(inflated, script);

        let (head, body) = get("/app.js", "");
        assert!(!head.contains("Content-Encoding"), "{head}");
        assert_eq!(body, script.as_bytes());

        // A route answered with its page is compressed like the file itself.
        let (head, _) = get("/learn/the-agent", "Accept-Encoding: gzip\r\n");
        assert!(head.starts_with("HTTP/1.1 200 OK") && head.contains("Content-Encoding: gzip"));
        // A route gets its prerendered page, else the shell; the start page is its own.
        for (path, page) in
            [("/learn/the-agent", "chapter"), ("/play", "shell"), ("/", "start page")]
        {
            let (head, body) = get(path, "");
            let body = String::from_utf8(body).unwrap();
            assert!(head.starts_with("HTTP/1.1 200 OK") && body.contains(page), "{path}: {body}");
        }
        // Images are already compressed; errors stay readable as they are.
        let (head, body) = get("/icon.png", "Accept-Encoding: gzip\r\n");
        assert!(!head.contains("Content-Encoding") && body == b"not text", "{head}");
        let (head, body) = get("/missing.js", "Accept-Encoding: gzip\r\n");
        assert!(head.starts_with("HTTP/1.1 404") && body == b"Not found.\n", "{head}");
        // HEAD gives the GET's headers without a body.
        let (head, body) =
            exchange(&server, "HEAD /app.js HTTP/1.1\r\nAccept-Encoding: gzip\r\n\r\n");
        assert!(head.contains("Content-Encoding: gzip") && body.is_empty(), "{head}");
        let _ = fs::remove_dir_all(dist);
    }

    /// Only lower bounds are asserted: a slow machine can make an answer later, never
    /// earlier than the link allows.
    #[test]
    fn behind_a_link_every_answer_waits_a_round_trip_and_all_share_its_bandwidth() {
        // Not text, so nothing is compressed and the sizes are the file's.
        let blob = "x".repeat(200_000);
        let dist = crate::offline::scratch_dist("serve-link", &[("blob.bin", &blob)]);
        let link = Link { round_trip: Duration::from_millis(50), bytes_per_second: 1_000_000 };
        let server = start_behind(&dist, "/", 0, Some(link)).unwrap();
        let request = "GET /blob.bin HTTP/1.1\r\nAccept-Encoding: gzip\r\n\r\n";

        let began = Instant::now();
        let (head, body) = exchange(&server, request);
        let alone = began.elapsed();
        assert!(head.starts_with("HTTP/1.1 200 OK") && body.len() == blob.len(), "{head}");
        assert!(alone >= Duration::from_millis(250), "one answer took {alone:?}");

        // Two at once share the megabyte a second: each takes about twice as long.
        let began = Instant::now();
        let both: Vec<_> = (0..2)
            .map(|_| {
                thread::spawn({
                    let server = Server { addr: server.addr, public_url: "/".to_owned() };
                    move || {
                        let (_, body) = exchange(&server, request);
                        (body.len(), began.elapsed())
                    }
                })
            })
            .collect();
        for handle in both {
            let (len, took) = handle.join().unwrap();
            assert_eq!(len, blob.len());
            // 400 KB over 1 MB/s, less the last chunk, which only one of them waits for.
            assert!(took >= Duration::from_millis(440), "with another answer, one took {took:?}");
        }
        let _ = fs::remove_dir_all(dist);
    }
}
