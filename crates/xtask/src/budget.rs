//! The size budget: what the built site weighs raw, gzipped and brotli-compressed,
//! checked against `budgets.toml`.

use std::fs;
use std::io::Write;
use std::path::Path;

use anyhow::{Context, Result};
use serde::Deserialize;

/// One KiB, the unit of the budgets.
const KIB: f64 = 1024.0;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Budgets {
    size: SizeBudgets,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SizeBudgets {
    wasm_brotli_kib: f64,
    js_brotli_kib: f64,
}

/// One built file's sizes in bytes.
pub struct FileSize {
    /// Its name in `dist/`.
    pub name: String,
    /// As written.
    pub raw: usize,
    /// gzip, level 9.
    pub gzip: usize,
    /// brotli, quality 11, 4 MiB window.
    pub brotli: usize,
}

/// Measures every file the site serves (not `404.html`, a copy of `index.html`).
pub fn measure(dist: &Path) -> Result<Vec<FileSize>> {
    let mut sizes = Vec::new();
    let mut entries: Vec<_> = fs::read_dir(dist)
        .with_context(|| format!("reading {}", dist.display()))?
        .filter_map(Result::ok)
        .filter(|e| e.path().is_file())
        .collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') || name == "404.html" {
            continue;
        }
        let bytes = fs::read(entry.path()).with_context(|| format!("reading {name}"))?;
        sizes.push(FileSize {
            name,
            raw: bytes.len(),
            gzip: gzip(&bytes)?,
            brotli: brotli(&bytes)?,
        });
    }
    Ok(sizes)
}

fn gzip(bytes: &[u8]) -> Result<usize> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    encoder.write_all(bytes)?;
    Ok(encoder.finish()?.len())
}

fn brotli(bytes: &[u8]) -> Result<usize> {
    let mut out = Vec::new();
    {
        let mut writer = brotli::CompressorWriter::new(&mut out, 64 * 1024, 11, 22);
        writer.write_all(bytes)?;
    }
    Ok(out.len())
}

/// Prints the sizes and checks them against `budgets.toml`; returns (passed, failed).
pub fn check(root: &Path, dist: &Path) -> Result<(usize, usize)> {
    let text = fs::read_to_string(root.join("budgets.toml")).context("reading budgets.toml")?;
    let budgets: Budgets = toml::from_str(&text).context("parsing budgets.toml")?;
    let sizes = measure(dist)?;

    println!("    {:<44} {:>10} {:>10} {:>10}", "file (dist/)", "raw", "gzip", "brotli");
    for size in &sizes {
        println!(
            "    {:<44} {:>10} {:>10} {:>10}",
            size.name,
            thousands(size.raw),
            thousands(size.gzip),
            thousands(size.brotli)
        );
    }
    let total = |ext: &str| -> usize {
        sizes.iter().filter(|s| s.name.ends_with(ext)).map(|s| s.brotli).sum()
    };
    let checks = [
        ("wasm, brotli", total(".wasm"), budgets.size.wasm_brotli_kib),
        ("JS, brotli", total(".js"), budgets.size.js_brotli_kib),
    ];
    let mut passed = 0;
    let mut failed = 0;
    println!();
    for (label, bytes, limit_kib) in checks {
        let kib = bytes as f64 / KIB;
        let ok = kib <= limit_kib;
        println!(
            "    {} {label:<14} {kib:>8.1} KiB of {limit_kib:.0} KiB ({:.0}%)",
            if ok { "✓" } else { "✗" },
            100.0 * kib / limit_kib
        );
        if ok { passed += 1 } else { failed += 1 }
    }
    Ok((passed, failed))
}

fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}
