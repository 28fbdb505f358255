//! The size budget: what the built site weighs raw, gzipped and brotli-compressed,
//! checked against `budgets.toml`.

use std::fs;
use std::io::Write;
use std::path::Path;

use anyhow::{Context, Result};
use serde::Deserialize;

/// One KB, the unit of the budgets.
const KB: f64 = 1000.0;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Budgets {
    size: SizeBudgets,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SizeBudgets {
    wasm_brotli_kb: f64,
    js_brotli_kb: f64,
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
    let mut passed = 0;
    let mut failed = 0;
    println!();
    for verdict in evaluate(&budgets.size, &sizes) {
        println!(
            "    {} {:<14} {:>8.1} KB of {:.0} KB ({:.0}%)",
            if verdict.ok { "✓" } else { "✗" },
            verdict.label,
            verdict.kb,
            verdict.limit_kb,
            100.0 * verdict.kb / verdict.limit_kb
        );
        if verdict.ok { passed += 1 } else { failed += 1 }
    }
    Ok((passed, failed))
}

struct Verdict {
    label: &'static str,
    kb: f64,
    limit_kb: f64,
    ok: bool,
}

/// Sums brotli sizes per kind of file and compares them with the budgets.
fn evaluate(budgets: &SizeBudgets, sizes: &[FileSize]) -> Vec<Verdict> {
    let total = |ext: &str| -> usize {
        sizes.iter().filter(|s| s.name.ends_with(ext)).map(|s| s.brotli).sum()
    };
    [
        ("wasm, brotli", total(".wasm"), budgets.wasm_brotli_kb),
        ("JS, brotli", total(".js"), budgets.js_brotli_kb),
    ]
    .into_iter()
    .map(|(label, bytes, limit_kb)| {
        let kb = bytes as f64 / KB;
        Verdict { label, kb, limit_kb, ok: kb <= limit_kb }
    })
    .collect()
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

#[cfg(test)]
mod tests {
    use super::*;

    fn file(name: &str, brotli: usize) -> FileSize {
        FileSize { name: name.to_owned(), raw: brotli * 3, gzip: brotli * 2, brotli }
    }

    #[test]
    fn budgets_sum_every_file_of_a_kind_and_fail_above_the_limit() {
        let budgets = SizeBudgets { wasm_brotli_kb: 300.0, js_brotli_kb: 12.0 };
        let within = [file("app_bg.wasm", 300_000), file("app.js", 6_000), file("theme.js", 6_000)];
        assert!(evaluate(&budgets, &within).iter().all(|v| v.ok));
        let over = [file("app_bg.wasm", 300_001), file("app.js", 6_000), file("theme.js", 6_001)];
        let verdicts = evaluate(&budgets, &over);
        assert_eq!(verdicts.iter().map(|v| v.ok).collect::<Vec<_>>(), [false, false]);
    }

    #[test]
    fn compression_figures_are_real() {
        let text = "Swap Lab ".repeat(1000);
        let (gzip, brotli) = (gzip(text.as_bytes()).unwrap(), brotli(text.as_bytes()).unwrap());
        assert!(gzip < text.len() / 20 && brotli < text.len() / 20, "{gzip} {brotli}");
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(thousands(999), "999");
    }
}
