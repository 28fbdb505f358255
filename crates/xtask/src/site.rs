//! Building the static site with Trunk, offline and in release mode, then giving every
//! built page a Content-Security-Policy (see [`content_security_policy`]).

use std::fs;
use std::path::Path;
use std::process::Command;

use anyhow::{Context, Result, bail};

use crate::cmd::{note, run, step};
use crate::offline;
use crate::tools::Toolchain;

/// Checks and normalises a `--public-url`: it must be a path that starts and ends with
/// `/`, like `/` or `/swaplab/`.
pub fn normalise_public_url(url: &str) -> Result<String> {
    let trimmed = url.trim();
    if !trimmed.starts_with('/') {
        bail!("--public-url must be a path starting with `/`, like /swaplab/ (got `{url}`)");
    }
    if trimmed.split('/').any(|part| part == ".." || part == ".")
        || trimmed.contains(|c: char| c.is_whitespace() || matches!(c, '?' | '#' | '\\'))
    {
        bail!("--public-url must be a plain path like /swaplab/ (got `{url}`)");
    }
    let mut normalised = trimmed.to_owned();
    if !normalised.ends_with('/') {
        normalised.push('/');
    }
    Ok(normalised)
}

/// Builds the release site into `dist` for serving under `public_url`.
///
/// Then puts the Content-Security-Policy into `index.html`, with a hash of each inline
/// script Trunk wrote ([`add_content_security_policy`]), and writes `404.html` (a copy of
/// `index.html`): static hosts that serve it for unknown paths then load the app, which
/// routes deep links like `/learn/…` itself. Then writes the list of built files into
/// `sw.js`, the service worker (`offline.rs`).
pub fn build(root: &Path, toolchain: &Toolchain, dist: &Path, public_url: &str) -> Result<()> {
    step(&format!("Building the site (release) into {} for {public_url}", dist.display()));
    run(Command::new("trunk")
        .args(["build", "--release", "--offline"])
        .arg("--dist")
        .arg(dist)
        .args(["--public-url", public_url])
        .current_dir(root)
        .env("PATH", &toolchain.path)
        .env("TRUNK_OFFLINE", "true"))
    .context(
        "the Trunk build failed; its output above names the problem. A missing or mismatched \
         tool shows up as a version error: `cargo xtask serve` reinstalls it",
    )?;
    let index = dist.join("index.html");
    let page =
        fs::read_to_string(&index).with_context(|| format!("reading {}", index.display()))?;
    let (page, hashes) = add_content_security_policy(&page)
        .with_context(|| format!("adding the Content-Security-Policy to {}", index.display()))?;
    fs::write(&index, &page).with_context(|| format!("writing {}", index.display()))?;
    note(&format!(
        "✓ index.html and 404.html carry a Content-Security-Policy ({} inline script{} hashed)",
        hashes.len(),
        if hashes.len() == 1 { "" } else { "s" }
    ));
    fs::copy(&index, dist.join("404.html"))
        .with_context(|| format!("copying {}", index.display()))?;
    let written = write_prerendered(dist, &page)?;
    note(&format!(
        "✓ {written} pages prerendered (the start page, the chapters, the playground, the \
         examples, the exercises and the workshop's)"
    ));
    let precached = offline::write_manifest(dist).context("preparing the service worker")?;
    note(&format!("✓ sw.js precaches {precached} built files"));
    Ok(())
}

// --- prerendered pages ----------------------------------------------------------------

/// Writes `dist/<route>/index.html` for every page `swaplab_content::prerender` knows:
/// the built `index.html` (its policy and scripts untouched) with the page's title,
/// description, Open Graph tags, a header of plain links, and its content in `<main>`.
fn write_prerendered(dist: &Path, shell: &str) -> Result<usize> {
    // Each widget as the app renders it, results included, so the takeover cannot move it.
    let mut pages = swaplab_content::prerender::pages_with(&|body, line| {
        swaplab_web::prerender::widget_html(body, line).ok()
    });
    pages.extend(swaplab_web::prerender::app_pages().context("rendering the app's pages")?);
    for page in &pages {
        let html = prerendered_page(shell, page)
            .with_context(|| format!("prerendering /{}", page.path))?;
        // The start page is `index.html`; `404.html` stays the shell every other route
        // falls back to.
        let dir = if page.path.is_empty() { dist.to_path_buf() } else { dist.join(&page.path) };
        fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
        fs::write(dir.join("index.html"), html)
            .with_context(|| format!("writing {}/index.html", dir.display()))?;
    }
    Ok(pages.len())
}

/// The site's header as plain links: the app's `components/header.rs` with an empty
/// space where its theme button goes, since the button needs the app.
const STATIC_HEADER: &str = "<header class=\"site-header\"><a class=\"brand\" href=\"./\">\
    <span class=\"brand-mark\" aria-hidden=\"true\">⇄</span><span class=\"brand-name\">Swap Lab</span></a>\
    <nav aria-label=\"Sections\"><ul><li><a href=\"learn\"><span>Learn</span></a></li>\
    <li><a href=\"play\"><span>Playground</span></a></li><li><a href=\"examples\"><span>Examples</span></a></li>\
    <li><a href=\"exercises\"><span>Exercises</span></a></li><li><a href=\"workshop\"><span>Workshop</span></a></li>\
    </ul></nav><span class=\"theme-toggle-space\" aria-hidden=\"true\"></span></header>";

/// `shell` (the built `index.html`) showing `page`.
pub fn prerendered_page(shell: &str, page: &swaplab_content::prerender::Page) -> Result<String> {
    use swaplab_content::prerender::escape;
    let mut html = replace_between(shell, "<title>", "</title>", &escape(&page.title))?;
    let description = escape(&page.description);
    let (meta_start, meta_end) =
        find_tag(&html, "meta", "name", "description").context("the page has no description")?;
    html.replace_range(
        meta_start..meta_end,
        &format!(
            "<meta name=\"description\" content=\"{description}\">\
             <meta property=\"og:title\" content=\"{}\">\
             <meta property=\"og:description\" content=\"{description}\">\
             <meta property=\"og:type\" content=\"article\">\
             <meta property=\"og:site_name\" content=\"Swap Lab\">",
            escape(page.title.trim_end_matches(swaplab_content::prerender::TITLE_SUFFIX))
        ),
    );
    let (header_start, _) =
        find_tag(&html, "header", "class", "site-header").context("the page has no header")?;
    let header_end = html[header_start..].find("</header>").context("an unclosed header")?
        + header_start
        + "</header>".len();
    html.replace_range(header_start..header_end, STATIC_HEADER);
    let mut main = page.main.clone();
    if let Some(markdown) = page.markdown {
        // The chapter's markdown, inert, for the app to show at once instead of fetching
        // it: a template's text is never run or rendered.
        main.push_str(&format!(
            "<template id=\"prerendered-markdown\" data-path=\"{}\">{}</template>",
            escape(&page.path),
            escape(markdown)
        ));
    }
    let (_, main_start) = find_tag(&html, "main", "id", "main").context("the page has no main")?;
    let main_end = html[main_start..].find("</main>").context("an unclosed main")? + main_start;
    html.replace_range(main_start..main_end, &main);
    if page.follows_address {
        // Hidden when the address names another state (`www/theme.js`, `style.css`).
        html.insert_str(main_start - 1, " data-follows-address");
    }
    Ok(html)
}

/// Where the first `<tag …>` whose `attr` is `value` starts and ends, in a page as
/// written or as Trunk minifies it (`<main id=main>`, attributes in any order).
fn find_tag(html: &str, tag: &str, attr: &str, value: &str) -> Option<(usize, usize)> {
    let open = format!("<{tag}");
    let mut from = 0;
    while let Some(at) = html[from..].find(&open) {
        let start = from + at;
        let end = start + tag_end(&html[start..])?;
        let inside = &html[start + open.len()..end - 1];
        from = end;
        if !inside.starts_with(char::is_whitespace) {
            continue;
        }
        if attributes(inside).any(|(name, v)| name == attr && v == value) {
            return Some((start, end));
        }
    }
    None
}

/// A start tag's attributes (the text between its name and its `>`), quoted or not.
fn attributes(inside: &str) -> impl Iterator<Item = (&str, &str)> {
    let mut rest = inside.trim_end_matches('/');
    std::iter::from_fn(move || {
        rest = rest.trim_start();
        if rest.is_empty() {
            return None;
        }
        let name_end = rest.find(|c: char| c == '=' || c.is_whitespace()).unwrap_or(rest.len());
        let name = &rest[..name_end];
        rest = &rest[name_end..];
        let Some(after) = rest.trim_start().strip_prefix('=') else { return Some((name, "")) };
        let after = after.trim_start();
        let (value, tail) = match after.chars().next() {
            Some(q @ ('"' | '\'')) => {
                let close = after[1..].find(q).map_or(after.len(), |i| i + 1);
                (&after[1..close], &after[(close + 1).min(after.len())..])
            }
            _ => {
                let end = after.find(char::is_whitespace).unwrap_or(after.len());
                (&after[..end], &after[end..])
            }
        };
        rest = tail;
        Some((name, value))
    })
}

/// `text` with what lies between `open` and the next `close` replaced by `with`.
fn replace_between(text: &str, open: &str, close: &str, with: &str) -> Result<String> {
    let start = text.find(open).with_context(|| format!("no {open} in the page"))? + open.len();
    let end =
        text[start..].find(close).with_context(|| format!("no {close} after {open}"))? + start;
    Ok(format!("{}{with}{}", &text[..start], &text[end..]))
}

// --- the engine alone -----------------------------------------------------------------

/// How Trunk builds and optimises the web app's wasm, read from the `rel="rust"` link of
/// `www/index.html` so that a measurement of another crate is built the same way.
#[derive(Debug, PartialEq, Eq)]
pub struct RustLink {
    /// `data-cargo-profile-release`: the cargo profile of a release build.
    pub profile: String,
    /// `data-wasm-opt`: wasm-opt's level, as in `-O<level>`.
    pub wasm_opt_level: String,
    /// `data-wasm-opt-params`, split at spaces.
    pub wasm_opt_params: Vec<String>,
}

impl RustLink {
    /// Reads the attributes from the page's `<link data-trunk rel="rust" …/>`.
    pub fn read(page: &str) -> Result<RustLink> {
        let start = page.find("rel=\"rust\"").context("www/index.html has no rel=\"rust\" link")?;
        let link = &page[start..page[start..].find('>').map_or(page.len(), |end| start + end)];
        let attribute = |name: &str| -> Result<String> {
            let key = format!("{name}=\"");
            let at = link.find(&key).with_context(|| format!("the rust link has no {name}"))?;
            let value = &link[at + key.len()..];
            Ok(value[..value.find('"').unwrap_or(value.len())].to_owned())
        };
        Ok(RustLink {
            profile: attribute("data-cargo-profile-release")?,
            wasm_opt_level: attribute("data-wasm-opt")?,
            wasm_opt_params: attribute("data-wasm-opt-params")?
                .split_whitespace()
                .map(str::to_owned)
                .collect(),
        })
    }
}

/// Builds `swaplab-size-probe` — everything the site computes, without its interface —
/// the way Trunk builds the web app: the release profile of `www/index.html`'s rust link,
/// `wasm-bindgen --target web`, then `wasm-opt` with the link's level and parameters.
/// Returns the optimised wasm, written under `out`.
pub fn build_engine_only(
    root: &Path,
    toolchain: &Toolchain,
    target_dir: &Path,
    out: &Path,
) -> Result<std::path::PathBuf> {
    step("Building the engine alone (crates/swaplab-size-probe), as Trunk builds the app");
    let page = fs::read_to_string(root.join("www/index.html")).context("reading www/index.html")?;
    let link = RustLink::read(&page)?;
    run(toolchain
        .cargo()
        .args(["build", "--locked", "-p", "swaplab-size-probe", "--target"])
        .arg(crate::tools::WASM_TARGET)
        .args(["--profile", &link.profile])
        .current_dir(root))?;
    let built = target_dir
        .join(crate::tools::WASM_TARGET)
        .join(&link.profile)
        .join("swaplab_size_probe.wasm");
    fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    run(Command::new("wasm-bindgen")
        .args(["--target", "web", "--no-typescript", "--out-name", "engine", "--out-dir"])
        .arg(out)
        .arg(&built)
        .env("PATH", &toolchain.path))?;
    let optimised = out.join("engine.wasm");
    run(Command::new("wasm-opt")
        .arg(format!("-O{}", link.wasm_opt_level))
        .args(&link.wasm_opt_params)
        .arg(out.join("engine_bg.wasm"))
        .arg("-o")
        .arg(&optimised)
        .env("PATH", &toolchain.path))?;
    Ok(optimised)
}

// --- the Content-Security-Policy ---------------------------------------------------------

/// The policy every built page carries, given the `sha256-…` sources of its inline
/// scripts. Each directive, and why:
///
/// - `default-src 'self'`: fonts, media, manifests and anything not named below come
///   from the site itself or not at all.
/// - `script-src 'self' 'wasm-unsafe-eval' 'sha256-…'`: the site's own script files;
///   compiling the app's WebAssembly; and Trunk's inline module loader, by the hash of
///   its exact text (no other inline script, no `eval`, no `on*` attribute runs).
/// - `style-src 'self'`: the site's own style sheets, no `<style>` element from
///   anywhere; `style-src-attr 'unsafe-inline'`: `style=""` attributes, which the app
///   sets for the editor's extent and the file tree's indentation (`--depth`). An
///   attribute styles one element and runs nothing; content never sets one (the
///   markdown renderer has no `style` attribute).
/// - `img-src 'self'`: the favicon; QR codes are inline SVG elements, not images.
/// - `connect-src 'self'`: the app fetches its own `.wasm` and the chapters' markdown
///   (`chapters/*.md`) and nothing else; no data leaves the page for another origin.
/// - `worker-src 'self'`: the service worker, `sw.js`.
/// - `frame-src 'none'`, `object-src 'none'`: no frames, plugins or embedded objects.
/// - `base-uri 'self'`: no `<base>` can point the relative links elsewhere.
/// - `form-action 'none'`: the one form (the tools pane's `tools/call`) is handled by
///   the app and never submitted.
///
/// `frame-ancestors` (who may frame the site) cannot be set from a `<meta>` element —
/// browsers ignore it there and log an error — so it is left to the host's headers.
pub fn content_security_policy(script_hashes: &[String]) -> String {
    let inline: String = script_hashes.iter().map(|hash| format!(" '{hash}'")).collect();
    format!(
        "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'{inline}; style-src 'self'; \
         style-src-attr 'unsafe-inline'; img-src 'self'; connect-src 'self'; \
         worker-src 'self'; frame-src 'none'; object-src 'none'; base-uri 'self'; \
         form-action 'none'"
    )
}

/// Puts [`content_security_policy`] into a built page as a `<meta http-equiv>` right
/// after `<meta charset>` (a policy applies only to what follows it, so it goes before
/// every script and style sheet). Returns the page and the hashes of its inline scripts.
/// A page that already has a policy, or no `<meta charset>`, is an error.
pub fn add_content_security_policy(page: &str) -> Result<(String, Vec<String>)> {
    let lower = page.to_ascii_lowercase();
    if lower.contains("content-security-policy") {
        bail!("the page already has a Content-Security-Policy");
    }
    let charset = lower.find("<meta charset").context("the page has no <meta charset>")?;
    let after = charset + tag_end(&page[charset..]).context("<meta charset> is not closed")?;
    let hashes: Vec<String> = inline_scripts(page)?
        .into_iter()
        .map(|script| format!("sha256-{}", base64(&sha256(script.as_bytes()))))
        .collect();
    let meta = format!(
        "<meta http-equiv=\"Content-Security-Policy\" content=\"{}\">",
        content_security_policy(&hashes)
    );
    Ok((format!("{}{meta}{}", &page[..after], &page[after..]), hashes))
}

/// The byte length of the start tag at the beginning of `text`, through its `>`, with
/// quoted attribute values skipped.
fn tag_end(text: &str) -> Option<usize> {
    let mut quote = None;
    for (at, c) in text.char_indices() {
        match (quote, c) {
            (None, '"' | '\'') => quote = Some(c),
            (Some(q), _) if c == q => quote = None,
            (None, '>') => return Some(at + 1),
            _ => {}
        }
    }
    None
}

/// The text of every `<script>` element without a `src` attribute, in page order.
fn inline_scripts(page: &str) -> Result<Vec<&str>> {
    let lower = page.to_ascii_lowercase();
    let mut scripts = Vec::new();
    let mut from = 0;
    while let Some(found) = lower[from..].find("<script") {
        let start = from + found;
        let end = start + tag_end(&page[start..]).context("a <script> tag is not closed")?;
        let tag = &lower[start..end];
        let close = lower[end..].find("</script").context("a <script> element is not closed")?;
        let has_src = tag
            .split(|c: char| c.is_ascii_whitespace() || c == '<' || c == '>')
            .any(|word| word == "src" || word.starts_with("src="));
        if !has_src {
            scripts.push(&page[end..end + close]);
        }
        from = end + close;
    }
    Ok(scripts)
}

/// Standard base64 with padding, as CSP hash sources are written.
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [chunk[0], chunk.get(1).copied().unwrap_or(0), chunk.get(2).copied().unwrap_or(0)];
        let n = u32::from(b[0]) << 16 | u32::from(b[1]) << 8 | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[(n >> (18 - 6 * i) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// SHA-256 (FIPS 180-4), for the policy's script hashes: one page of code instead of a
/// dependency.
fn sha256(message: &[u8]) -> [u8; 32] {
    const K: [u32; 64] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
        0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
        0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
        0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
        0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
        0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
        0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
        0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
        0xc67178f2,
    ];
    let mut state: [u32; 8] = [
        0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab,
        0x5be0cd19,
    ];
    let mut padded = message.to_vec();
    padded.push(0x80);
    while padded.len() % 64 != 56 {
        padded.push(0);
    }
    padded.extend_from_slice(&((message.len() as u64) * 8).to_be_bytes());
    for block in padded.chunks(64) {
        let mut w = [0u32; 64];
        for (i, word) in block.chunks(4).enumerate() {
            w[i] = u32::from_be_bytes([word[0], word[1], word[2], word[3]]);
        }
        for i in 16..64 {
            let s0 = w[i - 15].rotate_right(7) ^ w[i - 15].rotate_right(18) ^ (w[i - 15] >> 3);
            let s1 = w[i - 2].rotate_right(17) ^ w[i - 2].rotate_right(19) ^ (w[i - 2] >> 10);
            w[i] = w[i - 16].wrapping_add(s0).wrapping_add(w[i - 7]).wrapping_add(s1);
        }
        let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut h] = state;
        for i in 0..64 {
            let s1 = e.rotate_right(6) ^ e.rotate_right(11) ^ e.rotate_right(25);
            let choose = (e & f) ^ (!e & g);
            let t1 = h.wrapping_add(s1).wrapping_add(choose).wrapping_add(K[i]).wrapping_add(w[i]);
            let s0 = a.rotate_right(2) ^ a.rotate_right(13) ^ a.rotate_right(22);
            let majority = (a & b) ^ (a & c) ^ (b & c);
            let t2 = s0.wrapping_add(majority);
            (h, g, f, e, d, c, b, a) = (g, f, e, d.wrapping_add(t1), c, b, a, t1.wrapping_add(t2));
        }
        for (slot, value) in state.iter_mut().zip([a, b, c, d, e, f, g, h]) {
            *slot = slot.wrapping_add(value);
        }
    }
    let mut out = [0u8; 32];
    for (chunk, word) in out.chunks_mut(4).zip(state) {
        chunk.copy_from_slice(&word.to_be_bytes());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_prerendered_page_is_the_shell_with_its_title_tags_header_and_content() {
        let shell =
            fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../www/index.html"))
                .unwrap();
        let (shell, _) = add_content_security_policy(&shell).unwrap();
        let policy_of = |page: &str| {
            let at = page.find("http-equiv=\"Content-Security-Policy\"").unwrap();
            page[at..at + tag_end(&page[at..]).unwrap()].to_owned()
        };
        // And the page as Trunk's release build minifies it.
        let minified = "<!doctype html><html lang=en><meta charset=utf-8><title>x</title>\
            <meta content=\"A site.\" name=description><body><div id=app>\
            <header class=site-header><span class=brand>S</span></header><main id=main>\
            <p class=loading role=status>Loading Swap Lab…</p></main></div>";
        let first = &swaplab_content::prerender::pages()[1];
        let html = prerendered_page(minified, first).unwrap();
        assert!(html.contains(&format!("<main id=main>{}", first.main)), "{html}");
        assert!(!html.contains("name=description") && html.contains("og:description"));
        assert!(html.contains(STATIC_HEADER) && !html.contains("class=brand"));
        for page in swaplab_content::prerender::pages() {
            let html = prerendered_page(&shell, &page).unwrap();
            assert_eq!(html.matches("<title>").count(), 1);
            assert!(html.contains(&format!("<title>{}</title>", page.title)), "{}", page.path);
            assert_eq!(html.matches("name=\"description\"").count(), 1);
            assert!(html.contains("property=\"og:title\""));
            assert!(html.contains(&page.main), "{}", page.path);
            assert!(!html.contains("Loading Swap Lab…"), "the shell's placeholder is replaced");
            assert!(html.contains("<a href=\"learn\"><span>Learn</span></a>"));
            // The policy and the scripts are the shell's, byte for byte.
            assert_eq!(policy_of(&html), policy_of(&shell));
            assert_eq!(inline_scripts(&html).unwrap(), inline_scripts(&shell).unwrap());
            assert_eq!(page.markdown.is_some(), html.contains("id=\"prerendered-markdown\""));
        }
    }

    #[test]
    fn the_engine_alone_is_built_with_the_apps_profile_and_wasm_opt_settings() {
        let page =
            fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../www/index.html"))
                .unwrap();
        let link = RustLink::read(&page).unwrap();
        assert_eq!(link.profile, "wasm-release");
        assert_eq!(link.wasm_opt_level, "z");
        assert_eq!(
            link.wasm_opt_params,
            ["--low-memory-unused", "--flatten", "--rereloop", "-Oz", "-Oz"]
        );
        let without = page.replace("data-wasm-opt-params=", "data-other=");
        let error = RustLink::read(&without).unwrap_err().to_string();
        assert!(error.contains("data-wasm-opt-params"), "{error}");
    }

    #[test]
    fn sha256_and_base64_match_the_standard_vectors() {
        // FIPS 180-4's examples, and what `openssl dgst -sha256 -binary | base64` prints.
        let hex = |bytes: [u8; 32]| bytes.iter().map(|b| format!("{b:02x}")).collect::<String>();
        assert_eq!(
            hex(sha256(b"abc")),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(
            hex(sha256(b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        );
        assert_eq!(base64(&sha256(b"")), "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=");
        assert_eq!(base64(&sha256(b"abc")), "ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=");
        let million = vec![b'a'; 1_000_000];
        assert_eq!(
            hex(sha256(&million)),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"
        );
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
    }

    /// A page the way Trunk writes it, minified.
    const PAGE: &str = "<!doctype html><html lang=en><meta charset=utf-8><title>t</title>\
        <script src=/theme.js></script><script type=module>import init from \"/a.js\";await init();</script>\
        <link href=/a.js rel=modulepreload></head><body><p>x</body></html>";

    #[test]
    fn the_policy_goes_first_and_hashes_each_inline_script_only() {
        let (page, hashes) = add_content_security_policy(PAGE).unwrap();
        assert_eq!(hashes, ["sha256-VukbErBo8tzeqjLBfpO5cQlNOSRsk4B/o6CqZQ8iDpM="]);
        let policy = content_security_policy(&hashes);
        assert!(page.starts_with(&format!(
            "<!doctype html><html lang=en><meta charset=utf-8><meta \
             http-equiv=\"Content-Security-Policy\" content=\"{policy}\"><title>"
        )));
        assert_eq!(
            page.replace(
                &format!("<meta http-equiv=\"Content-Security-Policy\" content=\"{policy}\">"),
                ""
            ),
            PAGE
        );
        assert!(policy.contains(
            "script-src 'self' 'wasm-unsafe-eval' 'sha256-VukbErBo8tzeqjLBfpO5cQlNOSRsk4B/o6CqZQ8iDpM=';"
        ));
        for directive in ["object-src 'none'", "base-uri 'self'", "default-src 'self'"] {
            assert!(policy.contains(directive), "{policy}");
        }
        assert!(!policy.contains("frame-ancestors"), "ignored in <meta>, and logged as an error");
        assert!(!policy.contains("'unsafe-eval'") && !policy.contains("script-src-attr"));
    }

    #[test]
    fn a_page_with_a_policy_or_without_a_charset_is_refused() {
        let (page, _) = add_content_security_policy(PAGE).unwrap();
        assert!(add_content_security_policy(&page).is_err(), "twice");
        assert!(add_content_security_policy("<html><script>x</script></html>").is_err());
        assert!(add_content_security_policy("<meta charset=utf-8><script>x").is_err());
    }

    #[test]
    fn every_inline_script_is_found_whatever_its_case_or_attributes() {
        let page = "<meta charset=utf-8><SCRIPT>a</SCRIPT><script data-src=x>b</script>\
                    <script src='/x.js'></script><script\tsrc=y></script><script type=\"a>b\">c</script>";
        assert_eq!(inline_scripts(page).unwrap(), ["a", "b", "c"]);
    }
}
