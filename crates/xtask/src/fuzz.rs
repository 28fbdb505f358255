//! `cargo xtask fuzz --seconds N [TARGET...]`, and the `fuzz smoke` stage of
//! `cargo xtask test`: the cargo-fuzz targets in `fuzz/`, built on the nightly toolchain
//! and run one at a time, each for a fixed time, with libFuzzer's figures read off its
//! output.
//!
//! Tools: the nightly toolchain must be installed (rustup; a clear error otherwise) and
//! `cargo fuzz` is installed with `cargo install --locked cargo-fuzz` when it is missing.
//! Targets build without a sanitizer (the code they reach forbids `unsafe`; the fuzzer's
//! speed goes to coverage instead) and with debug assertions and overflow checks on.
//! Every run reads the committed seeds (`fuzz/seeds/<target>/`) and grows a working corpus
//! that git ignores: `fuzz/corpus/<target>/` for the full run, a fresh folder under the
//! target directory for the smoke. A panic, a hang (one input over
//! [`TIMEOUT_SECONDS`]) or running out of memory ([`RSS_LIMIT_MB`]) is a crash: its input
//! goes to `fuzz/artifacts/<target>/` and the command to reproduce it is printed.
//! The full run appends its figures to `fuzz/RESULTS.md`; the smoke writes nothing.

use std::env;
use std::ffi::OsString;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use anyhow::{Context, Result, bail};

use crate::cmd::{exit_text, note, probe, run, step};

/// Every fuzz target, in the order they run (cheap readers first, the whole pipeline last).
pub const TARGETS: &[&str] =
    &["skill", "yaml_config", "python", "permalink", "mcp", "network", "pipeline"];

/// Seconds per target in the `fuzz smoke` stage of `cargo xtask test`.
pub const SMOKE_SECONDS: u64 = 8;

/// One input taking longer than this is a hang (libFuzzer's `-timeout`).
pub const TIMEOUT_SECONDS: u64 = 10;

/// A run whose resident memory passes this is out of memory (libFuzzer's `-rss_limit_mb`,
/// which also caps a single allocation).
pub const RSS_LIMIT_MB: u64 = 2048;

/// The toolchain the fuzz targets build with (cargo-fuzz needs nightly's `-Z` flags).
const NIGHTLY: &str = "nightly";

/// Where the tools are and where the build goes.
pub struct Fuzzer {
    /// `PATH` for the tools.
    path: OsString,
    /// The fuzz package.
    fuzz_dir: PathBuf,
    /// Cargo's target directory for the fuzz build: `fuzz/target` unless
    /// `SWAPLAB_FUZZ_TARGET_DIR` says otherwise.
    target_dir: PathBuf,
    /// The host triple cargo-fuzz builds for.
    triple: String,
}

/// What one target's run showed.
#[derive(Debug, Default, PartialEq)]
pub struct Figures {
    /// Inputs executed.
    pub executions: u64,
    /// libFuzzer's average executions per second.
    pub exec_per_sec: u64,
    /// Coverage: instrumented edges reached (`cov:`).
    pub coverage: u64,
    /// Features: libFuzzer's finer coverage signal (`ft:`).
    pub features: u64,
    /// Inputs in the corpus at the end (`corp:`).
    pub corpus: u64,
    /// What went wrong, when the run crashed.
    pub crash: Option<Crash>,
}

/// A crash libFuzzer reported.
#[derive(Debug, Default, PartialEq)]
pub struct Crash {
    /// `panic`, `deadly signal`, `timeout`, `out-of-memory`, … or how the process ended.
    pub kind: String,
    /// The panic's place and message, when there was one.
    pub message: Option<String>,
    /// The input that crashed, as libFuzzer wrote it.
    pub artifact: Option<PathBuf>,
}

/// One target's outcome.
struct Outcome {
    target: String,
    seconds: f64,
    figures: Figures,
}

/// Makes sure the nightly toolchain and cargo-fuzz are there, installing cargo-fuzz when
/// it is missing.
pub fn prepare(root: &Path) -> Result<Fuzzer> {
    step("Checking the fuzzing tools (anything missing is installed once)");
    // Cargo finds `cargo-fuzz` in its own bin folder, where `cargo install` puts it.
    let path = env::var_os("PATH").unwrap_or_default();

    let Some(rustc) = probe("rustup", &["run", NIGHTLY, "rustc", "--version"], &path) else {
        bail!(
            "the fuzz targets build on the nightly toolchain, and `rustup run nightly rustc \
             --version` failed. Install it with `rustup toolchain install nightly --profile \
             minimal` and run this again."
        );
    };
    note(&format!("✓ {rustc}"));
    let triple = probe("rustup", &["run", NIGHTLY, "rustc", "-vV"], &path)
        .and_then(|text| text.lines().find_map(|l| l.strip_prefix("host: ").map(str::to_owned)))
        .context("`rustc -vV` names no host triple")?;

    let fuzz_version = || probe("rustup", &["run", NIGHTLY, "cargo", "fuzz", "--version"], &path);
    match fuzz_version() {
        Some(version) => note(&format!("✓ {version}")),
        None => {
            note(
                "• Installing cargo-fuzz with `cargo install --locked cargo-fuzz` because \
                 `cargo fuzz` is missing. It builds the fuzz targets with libFuzzer. About 2 \
                 minutes, once per machine.",
            );
            run(Command::new(env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
                .args(["install", "--locked", "cargo-fuzz"])
                .env("PATH", &path))
            .context("installing cargo-fuzz failed; the cargo output above says why")?;
            let version = fuzz_version()
                .context("after installing, `cargo +nightly fuzz --version` still fails")?;
            note(&format!("✓ {version}"));
        }
    }
    let fuzz_dir = root.join("fuzz");
    let target_dir = env::var_os("SWAPLAB_FUZZ_TARGET_DIR")
        .filter(|dir| !dir.is_empty())
        .map_or_else(|| fuzz_dir.join("target"), PathBuf::from);
    Ok(Fuzzer { path, fuzz_dir, target_dir, triple })
}

impl Fuzzer {
    /// A command on the nightly toolchain, free of the variables the stable cargo that
    /// runs xtask set for it.
    fn nightly(&self, program: &str) -> Command {
        let mut command = Command::new("rustup");
        command.args(["run", NIGHTLY, program]).env("PATH", &self.path);
        for variable in ["CARGO", "RUSTC", "RUSTDOC", "RUSTUP_TOOLCHAIN", "CARGO_TARGET_DIR"] {
            command.env_remove(variable);
        }
        command
    }

    /// Builds the targets (all of them when `targets` holds more than one).
    pub fn build(&self, targets: &[String]) -> Result<()> {
        step(&format!(
            "Building the fuzz targets: cargo +nightly fuzz build (into {})",
            self.target_dir.display()
        ));
        let mut command = self.nightly("cargo");
        command.args(["fuzz", "build", "--sanitizer", "none", "--fuzz-dir"]);
        command.arg(&self.fuzz_dir).arg("--target-dir").arg(&self.target_dir);
        if let [target] = targets {
            command.arg(target);
        }
        run(command.current_dir(self.fuzz_dir.parent().unwrap_or(&self.fuzz_dir)))
            .context("building the fuzz targets failed; the compiler's messages are above")
    }

    fn binary(&self, target: &str) -> PathBuf {
        self.target_dir.join(&self.triple).join("release").join(target)
    }

    /// Runs one target for `seconds` with `corpus` as its working corpus (created when
    /// missing) and the committed seeds beside it. libFuzzer's output goes to a log under
    /// the target directory; the figures are read from it.
    fn run_target(&self, target: &str, seconds: u64, corpus: &Path) -> Result<Outcome> {
        let binary = self.binary(target);
        if !binary.is_file() {
            bail!("{} was not built", binary.display());
        }
        let seeds = self.fuzz_dir.join("seeds").join(target);
        let artifacts = self.fuzz_dir.join("artifacts").join(target);
        let logs = self.target_dir.join("logs");
        for dir in [corpus, &artifacts, &logs] {
            fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        }
        let log_path = logs.join(format!("{target}.log"));
        let log = fs::File::create(&log_path)
            .with_context(|| format!("creating {}", log_path.display()))?;
        let mut command = Command::new(&binary);
        command
            .arg(corpus)
            .arg(&seeds)
            .arg(format!("-max_total_time={seconds}"))
            .arg(format!("-timeout={TIMEOUT_SECONDS}"))
            .arg(format!("-rss_limit_mb={RSS_LIMIT_MB}"))
            .arg("-print_final_stats=1")
            .arg(format!("-artifact_prefix={}/", artifacts.display()))
            .stdin(Stdio::null())
            .stdout(log.try_clone().context("sharing the log")?)
            .stderr(log);
        let started = Instant::now();
        let status =
            command.status().with_context(|| format!("could not start {}", binary.display()))?;
        let seconds = started.elapsed().as_secs_f64();
        let text = fs::read_to_string(&log_path)
            .with_context(|| format!("reading {}", log_path.display()))?;
        let mut figures = parse_output(&text);
        if !status.success() && figures.crash.is_none() {
            figures.crash = Some(Crash { kind: exit_text(status), ..Crash::default() });
        }
        if let Some(crash) = &figures.crash {
            // The last lines without the backtrace's frames (the log keeps them).
            let is_frame = |line: &&str| {
                let line = line.trim_start();
                line.starts_with("at ")
                    || line.split_once(": ").is_some_and(|(n, _)| n.parse::<u32>().is_ok())
            };
            let tail: Vec<&str> = text.lines().rev().filter(|l| !is_frame(l)).take(20).collect();
            eprintln!("--- the end of {} ---", log_path.display());
            for line in tail.iter().rev() {
                eprintln!("{line}");
            }
            if let Some(artifact) = &crash.artifact {
                println!("    crash input: {}", artifact.display());
                println!("    reproduce:   {} {}", binary.display(), artifact.display());
                println!(
                    "           or:   cargo +nightly fuzz run --sanitizer none {target} {}",
                    artifact.display()
                );
            }
        }
        Ok(Outcome { target: target.to_owned(), seconds, figures })
    }
}

/// Reads libFuzzer's output: the last status line (`#N … cov: C ft: F corp: U/…`), the
/// final statistics (`-print_final_stats=1`) and any crash report.
pub fn parse_output(text: &str) -> Figures {
    let mut figures = Figures::default();
    let mut crash: Option<Crash> = None;
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let line = line.trim_end();
        if let Some(rest) = line.strip_prefix('#') {
            let mut words = rest.split_whitespace();
            if let Some(Ok(n)) = words.next().map(str::parse::<u64>) {
                figures.executions = figures.executions.max(n);
            }
            let fields: Vec<&str> = rest.split_whitespace().collect();
            for pair in fields.windows(2) {
                let number = |text: &str| {
                    text.split('/').next().and_then(|n| n.parse::<u64>().ok()).unwrap_or(0)
                };
                match pair[0] {
                    "cov:" => figures.coverage = number(pair[1]),
                    "ft:" => figures.features = number(pair[1]),
                    "corp:" => figures.corpus = number(pair[1]),
                    "exec/s:" => figures.exec_per_sec = number(pair[1]),
                    _ => {}
                }
            }
        } else if let Some(value) = line.strip_prefix("stat::number_of_executed_units:") {
            figures.executions = value.trim().parse().unwrap_or(figures.executions);
        } else if let Some(value) = line.strip_prefix("stat::average_exec_per_sec:") {
            figures.exec_per_sec = value.trim().parse().unwrap_or(figures.exec_per_sec);
        } else if line.contains("panicked at") {
            let place = line.split("panicked at").nth(1).unwrap_or_default().trim();
            let message = lines.peek().map(|next| next.trim()).unwrap_or_default();
            let crash = crash.get_or_insert_with(Crash::default);
            crash.kind = "panic".to_owned();
            crash.message = Some(format!("{} {message}", place.trim_end_matches(':')));
        } else if let Some(rest) = line.split("ERROR: libFuzzer: ").nth(1) {
            let crash = crash.get_or_insert_with(Crash::default);
            if crash.kind.is_empty() {
                crash.kind = rest.split(" after ").next().unwrap_or(rest).trim().to_owned();
            }
        } else if line.starts_with("==") && line.contains("ERROR: ") {
            let crash = crash.get_or_insert_with(Crash::default);
            if crash.kind.is_empty() {
                crash.kind = line.split("ERROR: ").nth(1).unwrap_or(line).trim().to_owned();
            }
        } else if let Some(path) = line.split("Test unit written to ").nth(1) {
            crash.get_or_insert_with(Crash::default).artifact = Some(PathBuf::from(path.trim()));
        }
    }
    if let Some(crash) = &mut crash
        && crash.kind.is_empty()
    {
        crash.kind = "crash".to_owned();
    }
    figures.crash = crash;
    figures
}

/// The targets named on the command line, or all of them.
fn chosen_targets(names: &[String]) -> Result<Vec<String>> {
    if names.is_empty() {
        return Ok(TARGETS.iter().map(|t| (*t).to_owned()).collect());
    }
    for name in names {
        if !TARGETS.contains(&name.as_str()) {
            bail!("unknown fuzz target `{name}`; the targets are {}", TARGETS.join(", "));
        }
    }
    Ok(names.to_vec())
}

fn print_line(outcome: &Outcome) {
    let f = &outcome.figures;
    let verdict = match &f.crash {
        None => "✓".to_owned(),
        Some(crash) => format!("✗ {}", crash.kind),
    };
    println!(
        "    {verdict} {:<12} {:>10} executions {:>7} exec/s  cov {:>6}  ft {:>6}  corpus {:>5}  \
         {:.0} s",
        outcome.target,
        f.executions,
        f.exec_per_sec,
        f.coverage,
        f.features,
        f.corpus,
        outcome.seconds
    );
    if let Some(message) = f.crash.as_ref().and_then(|c| c.message.as_ref()) {
        println!("      {message}");
    }
}

/// `cargo xtask fuzz --seconds N [TARGET...]`: every named target (all by default), one
/// after another, each for `seconds`; the figures go to `fuzz/RESULTS.md`.
pub fn run_command(root: &Path, seconds: u64, names: &[String]) -> Result<ExitCode> {
    let targets = chosen_targets(names)?;
    let fuzzer = prepare(root)?;
    fuzzer.build(&targets)?;
    let mut outcomes = Vec::new();
    for target in &targets {
        step(&format!("Fuzzing {target} for {seconds} s"));
        let corpus = fuzzer.fuzz_dir.join("corpus").join(target);
        let outcome = fuzzer.run_target(target, seconds, &corpus)?;
        print_line(&outcome);
        outcomes.push(outcome);
    }
    let failed = outcomes.iter().filter(|o| o.figures.crash.is_some()).count();
    let results = fuzzer.fuzz_dir.join("RESULTS.md");
    append_results(&results, seconds, &outcomes)?;
    println!("\n    figures added to {}", results.display());
    println!("fuzz: {} passed, {failed} failed", outcomes.len() - failed);
    Ok(if failed == 0 { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

/// The `fuzz smoke` stage: every target for [`SMOKE_SECONDS`] on a fresh working corpus;
/// a target passes when it did not crash. Writes no results.
pub fn smoke(root: &Path) -> Result<(usize, usize, Option<String>)> {
    let fuzzer = prepare(root)?;
    let targets = chosen_targets(&[])?;
    fuzzer.build(&targets)?;
    let (mut passed, mut failed) = (0, 0);
    let mut executions = 0;
    for target in &targets {
        step(&format!("Fuzz smoke: {target} for {SMOKE_SECONDS} s"));
        let corpus = fuzzer.target_dir.join("smoke-corpus").join(target);
        let _ = fs::remove_dir_all(&corpus);
        match fuzzer.run_target(target, SMOKE_SECONDS, &corpus) {
            Ok(outcome) => {
                print_line(&outcome);
                executions += outcome.figures.executions;
                if outcome.figures.crash.is_some() || outcome.figures.executions == 0 {
                    failed += 1;
                } else {
                    passed += 1;
                }
            }
            Err(error) => {
                eprintln!("xtask: fuzz smoke: {target}: {error:#}");
                failed += 1;
            }
        }
    }
    let note = format!("targets, {SMOKE_SECONDS} s each, {executions} inputs in all");
    Ok((passed, failed, Some(note)))
}

const RESULTS_HEADER: &str = "\
# Fuzzing results

Written by `cargo xtask fuzz --seconds N` (never by the smoke in `cargo xtask test`): one
table per run, the newest last. Targets are described in `README.md`. Each ran alone for
the seconds shown, built by cargo-fuzz without a sanitizer and with debug assertions and
overflow checks, on the committed seeds plus the working corpus `fuzz/corpus/<target>/`
as it stood on that machine (so later runs start from what earlier ones found).
*Executions* and *exec/s* are libFuzzer's final statistics; *coverage* is the edges
reached (`cov:`), *features* libFuzzer's finer signal (`ft:`), *corpus* the inputs kept.
A crash is a panic, an input running over 10 s, or more than 2,048 MB resident.
";

fn append_results(path: &Path, seconds: u64, outcomes: &[Outcome]) -> Result<()> {
    let mut text = match fs::read_to_string(path) {
        Ok(text) => text,
        Err(_) => RESULTS_HEADER.to_owned(),
    };
    if !text.ends_with('\n') {
        text.push('\n');
    }
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let _ = write!(
        text,
        "\n## {} — {seconds} s per target ({cores} cores)\n\n\
         | target | seconds | executions | exec/s | coverage (edges) | features | corpus | crashes |\n\
         | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n",
        utc_now()
    );
    for o in outcomes {
        let f = &o.figures;
        let crashes = match &f.crash {
            None => "0".to_owned(),
            Some(crash) => {
                let name = crash
                    .artifact
                    .as_ref()
                    .and_then(|a| a.file_name())
                    .map(|n| format!(" `{}`", n.to_string_lossy()))
                    .unwrap_or_default();
                format!("1 ({}){name}", crash.kind)
            }
        };
        let _ = writeln!(
            text,
            "| `{}` | {:.0} | {} | {} | {} | {} | {} | {crashes} |",
            o.target, o.seconds, f.executions, f.exec_per_sec, f.coverage, f.features, f.corpus
        );
    }
    fs::write(path, text).with_context(|| format!("writing {}", path.display()))
}

/// The time now (UTC) as `YYYY-MM-DD HH:MM UTC`.
fn utc_now() -> String {
    let secs = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let (hour, minute) = (secs % 86_400 / 3600, secs % 3600 / 60);
    format!("{} {hour:02}:{minute:02} UTC", crate::bench::civil_date(secs / 86_400))
}

#[cfg(test)]
mod tests {
    use super::*;

    const DONE: &str = "\
INFO: Seed: 1234
#58\tINITED cov: 1784 ft: 4458 corp: 53/29Kb exec/s: 0 rss: 29Mb
#8192\tpulse  cov: 3000 ft: 9000 corp: 900/500Kb lim: 2000 exec/s: 4096 rss: 32Mb
#41097\tDONE   cov: 3167 ft: 9812 corp: 1258/892Kb lim: 2442 exec/s: 4566 rss: 33Mb
Done 41097 runs in 9 second(s)
stat::number_of_executed_units: 41097
stat::average_exec_per_sec:     4566
stat::new_units_added:          2075
";

    #[test]
    fn a_finished_run_gives_its_figures() {
        let figures = parse_output(DONE);
        assert_eq!(
            figures,
            Figures {
                executions: 41097,
                exec_per_sec: 4566,
                coverage: 3167,
                features: 9812,
                corpus: 1258,
                crash: None
            }
        );
    }

    #[test]
    fn a_panic_gives_its_message_and_input() {
        let output = "\
#1000\tNEW    cov: 500 ft: 700 corp: 20/1Kb lim: 40 exec/s: 0 rss: 30Mb L: 5/30 MS: 1 Custom-
thread '<unnamed>' panicked at fuzz_targets/skill.rs:20:5:
a skill or an error
note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace
==4242== ERROR: libFuzzer: deadly signal
    #0 0x55d in __sanitizer_print_stack_trace
artifact_prefix='fuzz/artifacts/skill/'; Test unit written to fuzz/artifacts/skill/crash-abc
Base64: AAAA
";
        let figures = parse_output(output);
        assert_eq!(figures.executions, 1000);
        assert_eq!(figures.coverage, 500);
        let crash = figures.crash.expect("a crash");
        assert_eq!(crash.kind, "panic");
        assert_eq!(
            crash.message.as_deref(),
            Some("fuzz_targets/skill.rs:20:5 a skill or an error")
        );
        assert_eq!(crash.artifact, Some(PathBuf::from("fuzz/artifacts/skill/crash-abc")));
    }

    #[test]
    fn hangs_and_memory_are_crashes_too() {
        let timeout = "==7== ERROR: libFuzzer: timeout after 10 seconds\n\
                       artifact_prefix='a/'; Test unit written to a/timeout-1\n";
        let crash = parse_output(timeout).crash.expect("a hang");
        assert_eq!(crash.kind, "timeout");
        assert_eq!(crash.artifact, Some(PathBuf::from("a/timeout-1")));
        let oom = "==7== ERROR: libFuzzer: out-of-memory (used: 2100Mb; exceeds: 2048Mb)\n";
        assert_eq!(
            parse_output(oom).crash.expect("oom").kind,
            "out-of-memory (used: 2100Mb; exceeds: 2048Mb)"
        );
    }

    #[test]
    fn unknown_targets_are_refused() {
        assert!(chosen_targets(&["nope".to_owned()]).is_err());
        assert_eq!(chosen_targets(&[]).expect("all").len(), TARGETS.len());
    }

    #[test]
    fn results_get_one_table_per_run() {
        let dir = env::temp_dir().join(format!("xtask-fuzz-results-{}", std::process::id()));
        fs::create_dir_all(&dir).expect("a temporary folder");
        let path = dir.join("RESULTS.md");
        let outcome =
            Outcome { target: "skill".to_owned(), seconds: 5.2, figures: parse_output(DONE) };
        append_results(&path, 5, std::slice::from_ref(&outcome)).expect("written");
        append_results(&path, 5, &[outcome]).expect("written again");
        let text = fs::read_to_string(&path).expect("readable");
        let _ = fs::remove_dir_all(&dir);
        assert!(text.starts_with("# Fuzzing results"));
        assert_eq!(text.matches("| target |").count(), 2);
        assert!(text.contains("| `skill` | 5 | 41097 | 4566 | 3167 | 9812 | 1258 | 0 |"), "{text}");
    }
}
