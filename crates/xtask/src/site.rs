//! Building the static site with Trunk, offline and in release mode.

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
/// Also writes `404.html` (a copy of `index.html`): static hosts that serve it for
/// unknown paths then load the app, which routes deep links like `/learn/…` itself. Then
/// writes the list of built files into `sw.js`, the service worker (`offline.rs`).
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
    fs::copy(&index, dist.join("404.html"))
        .with_context(|| format!("copying {}", index.display()))?;
    let precached = offline::write_manifest(dist).context("preparing the service worker")?;
    note(&format!("✓ sw.js precaches {precached} built files"));
    Ok(())
}
