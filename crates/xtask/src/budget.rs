//! The budgets in `budgets.toml`: what the built site weighs raw, gzipped and
//! brotli-compressed, and the speed budgets (`[time]`). The browser's speed budgets are
//! handed to `e2e/budgets.spec.mjs` as environment variables (`browser_env`); the
//! native one, the instructions one `review` executes, is counted here with callgrind
//! (`check_review`), which gives the same count on any machine, however fast or busy.

use std::fs;
use std::io::Write;
use std::path::Path;

use anyhow::{Context, Result, bail};
use serde::Deserialize;

use crate::tools::Toolchain;

/// One KB, the unit of the budgets.
const KB: f64 = 1000.0;

/// `budgets.toml`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Budgets {
    /// `[size]`.
    pub size: SizeBudgets,
    /// `[time]`.
    pub time: TimeBudgets,
    /// `[growth]`.
    pub growth: GrowthBudgets,
    /// `[memory]`.
    pub memory: MemoryBudgets,
    /// `[work]`.
    pub work: WorkBudgets,
}

/// `[work]`: what a computation costs in instructions executed, not in seconds.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkBudgets {
    /// Native `review` on the default workspace, millions of instructions, as callgrind
    /// counts them.
    pub review_million_instructions: f64,
}

/// `[size]`: brotli sizes in KB.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SizeBudgets {
    /// Every `.wasm` file together.
    pub wasm_brotli_kb: f64,
    /// Every `.js` file together.
    pub js_brotli_kb: f64,
}

/// `[time]`: medians and percentiles, in milliseconds.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimeBudgets {
    /// Navigation to interactive, median of 10 loads.
    pub interactive_ms_median: f64,
    /// The same with the CPU throttled 4×.
    pub interactive_throttled_ms_median: f64,
    /// One edit's full rerun, 95th percentile.
    pub rerun_ms_p95: f64,
    /// A first visit to a chapter on the slow-4G phone profile: its first contentful
    /// paint, median of the visits.
    pub slow_4g_chapter_painted_ms_median: f64,
    /// The same for the playground (its prerendered page).
    pub slow_4g_play_painted_ms_median: f64,
    /// The playground's second visit on that profile, from the service worker's cache,
    /// to interactive.
    pub slow_4g_second_visit_ms_median: f64,
}

/// `[growth]`: how much more an input 16 times larger may cost.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GrowthBudgets {
    /// The syntax highlighter on its pathological inputs, 256 KiB against 16 KiB, medians.
    pub highlight_16x_ratio_max: f64,
}

/// `[memory]`: what the page may hold on to.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MemoryBudgets {
    /// How much the wasm memory may grow over the rerun budget's 200 edits, in KB.
    pub wasm_growth_kb_max: f64,
}

/// Reads `budgets.toml`.
pub fn load(root: &Path) -> Result<Budgets> {
    let text = fs::read_to_string(root.join("budgets.toml")).context("reading budgets.toml")?;
    parse(&text)
}

fn parse(text: &str) -> Result<Budgets> {
    toml::from_str(text).context("parsing budgets.toml")
}

/// The browser budgets as the environment variables `e2e/budgets.spec.mjs` reads.
pub fn browser_env(budgets: &Budgets) -> [(&'static str, String); 7] {
    let time = &budgets.time;
    [
        ("SWAPLAB_BUDGET_INTERACTIVE_MS", time.interactive_ms_median.to_string()),
        (
            "SWAPLAB_BUDGET_INTERACTIVE_THROTTLED_MS",
            time.interactive_throttled_ms_median.to_string(),
        ),
        ("SWAPLAB_BUDGET_RERUN_P95_MS", time.rerun_ms_p95.to_string()),
        ("SWAPLAB_BUDGET_WASM_GROWTH_KB", budgets.memory.wasm_growth_kb_max.to_string()),
        (
            "SWAPLAB_BUDGET_SLOW_4G_CHAPTER_PAINTED_MS",
            time.slow_4g_chapter_painted_ms_median.to_string(),
        ),
        ("SWAPLAB_BUDGET_SLOW_4G_PLAY_PAINTED_MS", time.slow_4g_play_painted_ms_median.to_string()),
        ("SWAPLAB_BUDGET_SLOW_4G_SECOND_VISIT_MS", time.slow_4g_second_visit_ms_median.to_string()),
    ]
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

/// Measures every file the site serves (`offline::served_files`), subfolders included.
pub fn measure(dist: &Path) -> Result<Vec<FileSize>> {
    crate::offline::served_files(dist)?
        .into_iter()
        .map(|name| measure_file(&dist.join(&name), name))
        .collect()
}

/// Measures one file, reported as `name`.
pub fn measure_file(path: &Path, name: String) -> Result<FileSize> {
    let bytes = fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    Ok(FileSize { raw: bytes.len(), gzip: gzip(&bytes)?, brotli: brotli(&bytes)?, name })
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
    let budgets = load(root)?;
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

/// Counts the instructions native `review` executes on the default workspace
/// (`bench::review_instructions`) and checks them against `review_million_instructions`;
/// returns (passed, failed).
pub fn check_review(root: &Path, toolchain: &Toolchain) -> Result<(usize, usize)> {
    let limit = load(root)?.work.review_million_instructions;
    let measured = crate::bench::review_instructions(root, toolchain)? as f64 / 1e6;
    let ok = measured <= limit;
    println!(
        "    {} review (native) {:>7.2} M instructions of {} M budget ({:.0}%)",
        if ok { "✓" } else { "✗" },
        measured,
        limit,
        100.0 * measured / limit
    );
    Ok(if ok { (1, 0) } else { (0, 1) })
}

/// Timings this close to the clock's resolution are noise, whatever their ratio: an
/// input whose 256 KiB median is within this many nanoseconds of the limit passes.
const GROWTH_SLACK_NS: f64 = 1_000_000.0;

/// One line of the `highlight_growth` bench: an input as a language, its median time at
/// 16 KiB and at 256 KiB.
#[derive(Debug, PartialEq)]
pub struct Growth {
    /// The input's name (`brackets`, `backtick runs`…).
    pub input: String,
    /// The language it was highlighted as (`Yaml`, `Markdown`, `Python`, `Plain`).
    pub language: String,
    /// Median nanoseconds at 16 KiB.
    pub small_ns: f64,
    /// Median nanoseconds at 256 KiB.
    pub large_ns: f64,
}

impl Growth {
    /// How many times the 16 KiB median the 256 KiB one is.
    pub fn ratio(&self) -> f64 {
        self.large_ns / self.small_ns.max(1.0)
    }

    fn within(&self, ratio_max: f64) -> bool {
        self.large_ns <= self.small_ns * ratio_max + GROWTH_SLACK_NS
    }
}

/// The bench's `growth` lines; an error if it printed none or a malformed one.
pub fn parse_growth(output: &str) -> Result<Vec<Growth>> {
    let rows = output
        .lines()
        .filter(|line| line.starts_with("growth\t"))
        .map(|line| {
            let fields: Vec<&str> = line.split('\t').collect();
            let number = |i: usize| fields.get(i).and_then(|f| f.parse::<f64>().ok());
            match (fields.get(1), fields.get(2), number(3), number(4)) {
                (Some(input), Some(language), Some(small_ns), Some(large_ns)) => Ok(Growth {
                    input: (*input).to_owned(),
                    language: (*language).to_owned(),
                    small_ns,
                    large_ns,
                }),
                _ => bail!("a malformed line from the highlight_growth bench: {line:?}"),
            }
        })
        .collect::<Result<Vec<_>>>()?;
    if rows.is_empty() {
        bail!("the highlight_growth bench printed no `growth` line");
    }
    Ok(rows)
}

/// Times the syntax highlighter's growth on its pathological inputs (the
/// `highlight_growth` bench) and checks every input against `highlight_16x_ratio_max`;
/// returns (passed, failed): one check, failed if any input grows too fast.
pub fn check_growth(root: &Path, toolchain: &Toolchain) -> Result<(usize, usize)> {
    let ratio_max = load(root)?.growth.highlight_16x_ratio_max;
    let rows = parse_growth(&crate::bench::highlight_growth(root, toolchain)?)?;
    let too_fast: Vec<&Growth> = rows.iter().filter(|row| !row.within(ratio_max)).collect();
    for row in &too_fast {
        println!(
            "    ✗ {} as {}: {:.3} ms at 16 KiB, {:.3} ms at 256 KiB (×{:.1})",
            row.input,
            row.language,
            row.small_ns / 1e6,
            row.large_ns / 1e6,
            row.ratio()
        );
    }
    let worst = rows
        .iter()
        .filter(|row| row.large_ns > GROWTH_SLACK_NS)
        .max_by(|a, b| a.ratio().total_cmp(&b.ratio()));
    let worst = worst.map_or_else(
        || "every input under 1 ms".to_owned(),
        |row| format!("worst ×{:.1}, {} as {}", row.ratio(), row.input, row.language),
    );
    println!(
        "    {} highlight growth, 16× the text: {worst}; {} inputs of ×{ratio_max} budget (linear ≈ ×16)",
        if too_fast.is_empty() { "✓" } else { "✗" },
        rows.len(),
    );
    Ok(if too_fast.is_empty() { (1, 0) } else { (0, 1) })
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
    fn the_budget_file_parses_and_refuses_unknown_fields() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let budgets = load(&root).expect("budgets.toml parses");
        assert!(
            budgets.size.wasm_brotli_kb > 0.0 && budgets.work.review_million_instructions > 0.0
        );
        let env = browser_env(&budgets);
        assert_eq!(env[0].1, budgets.time.interactive_ms_median.to_string());
        let text = "[size]\nwasm_brotli_kb = 1\njs_brotli_kb = 2\n[time]\n\
                    interactive_ms_median = 500\ninteractive_throttled_ms_median = 1500\n\
                    rerun_ms_p95 = 16\n\
                    slow_4g_chapter_painted_ms_median = 1500\n\
                    slow_4g_play_painted_ms_median = 1400\n\
                    slow_4g_second_visit_ms_median = 1000\n\
                    [growth]\nhighlight_16x_ratio_max = 64\n\
                    [memory]\nwasm_growth_kb_max = 1024\n\
                    [work]\nreview_million_instructions = 12.5\n";
        let budgets = parse(text).unwrap();
        assert_eq!(budgets.work.review_million_instructions, 12.5);
        assert_eq!(
            browser_env(&budgets).map(|(_, v)| v),
            ["500", "1500", "16", "1024", "1500", "1400", "1000"].map(str::to_owned)
        );
        assert!(parse(&format!("{text}extra_ms = 3\n")).is_err(), "unknown field accepted");
        assert!(parse("[size]\nwasm_brotli_kb = 1\njs_brotli_kb = 2\n").is_err(), "[time] missing");
    }

    #[test]
    fn growth_lines_parse_and_a_quadratic_input_fails() {
        let output = "highlight growth: …\n\
                      growth\tbrackets\tYaml\t18000\t290000\t×16.1\n\
                      growth\tbrackets\tPlain\t40\t45\t×1.1\n\
                      growth\tstars\tMarkdown\t40000000\t10240000000\t×256.0\n";
        let rows = parse_growth(output).unwrap();
        assert_eq!(rows.len(), 3);
        assert_eq!((rows[0].input.as_str(), rows[0].language.as_str()), ("brackets", "Yaml"));
        assert!(rows[0].within(64.0) && rows[1].within(64.0));
        assert!(!rows[2].within(64.0), "quadratic growth passed");
        assert_eq!(rows[2].ratio(), 256.0);
        // Below a millisecond the clock decides, not the code.
        let tiny = Growth {
            input: "x".into(),
            language: "Yaml".into(),
            small_ns: 1.0,
            large_ns: 900_000.0,
        };
        assert!(tiny.within(64.0));
        assert!(parse_growth("nothing here\n").is_err());
        assert!(parse_growth("growth\tbrackets\tYaml\tfast\t1\n").is_err());
    }

    #[test]
    fn every_served_file_is_measured_subfolders_included() {
        let dist = crate::offline::scratch_dist(
            "measure",
            &[
                ("index.html", "<p>hi</p>"),
                ("404.html", "<p>the shell</p>"),
                (".trunk-lock", ""),
                ("app_bg.wasm", "wasm"),
                ("chapters/01-a.md", "# A"),
                ("chapters/02-b.md", "# B"),
            ],
        );
        let names: Vec<String> = measure(&dist).unwrap().into_iter().map(|s| s.name).collect();
        let _ = fs::remove_dir_all(&dist);
        assert_eq!(
            names,
            ["404.html", "app_bg.wasm", "chapters/01-a.md", "chapters/02-b.md", "index.html"]
        );
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
