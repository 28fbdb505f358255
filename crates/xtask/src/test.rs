//! `cargo xtask test`: every check the project has, in one command, each stage ending
//! with a `<stage>: N passed, N failed` line and a summary at the end.
//!
//! Stages run on even after one fails, so one run shows everything that is wrong;
//! stages that need an earlier stage's output (the site) are marked failed when it is
//! missing. Any failure makes the exit code 1.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::Instant;

use anyhow::{Context, Result};

use crate::budget;
use crate::cmd::{exit_text, run_capturing, step};
use crate::fuzz;
use crate::serve;
use crate::site;
use crate::tools::{self, Need, Toolchain, WASM_TARGET};

/// The sub-path the second build is served under, to prove deep links work there.
const SUBPATH: &str = "/swaplab/";

struct Outcome {
    stage: &'static str,
    passed: usize,
    failed: usize,
    seconds: f64,
    note: Option<String>,
}

/// Runs every stage.
pub fn run(root: &Path) -> Result<ExitCode> {
    let started = Instant::now();
    let toolchain = tools::prepare(root, Need::Tests)?;
    let mut outcomes = Vec::new();
    let mut record = |outcome: Outcome| {
        println!("{}: {} passed, {} failed", outcome.stage, outcome.passed, outcome.failed);
        if let Some(note) = &outcome.note {
            println!("    ({note})");
        }
        outcomes.push(outcome);
    };

    record(timed("fmt", || fmt(root, &toolchain)));
    record(timed("clippy", || clippy(root, &toolchain)));
    record(timed("native tests", || native_tests(root, &toolchain)));
    record(timed("fuzz smoke", || fuzz::smoke(root)));
    record(timed("wasm tests", || wasm_tests(root, &toolchain)));

    let dist = root.join("dist");
    let subpath_dist = root.join("target").join("xtask").join("dist-subpath");
    let mut built = 0;
    let build_outcome = timed("release build", || {
        let mut failed = 0;
        for (dir, url) in [(&dist, "/"), (&subpath_dist, SUBPATH)] {
            match site::build(root, &toolchain, dir, url) {
                Ok(()) => built += 1,
                Err(error) => {
                    eprintln!("xtask: {error:#}");
                    failed += 1;
                }
            }
        }
        Ok((built, failed, Some(format!("the site at / and under {SUBPATH}"))))
    });
    let site_ready = build_outcome.failed == 0;
    record(build_outcome);

    if site_ready {
        let results = root.join("e2e").join("results");
        record(timed("e2e", || e2e(root, &toolchain, &dist, &subpath_dist, &results, &[])));
        record(timed("budget", || {
            step("Measuring the built site against budgets.toml");
            let (mut passed, mut failed) = budget::check(root, &dist)?;
            let checks: [(&str, CheckFn); 2] = [
                (
                    "Native review's instructions against budgets.toml (callgrind)",
                    budget::check_review,
                ),
                (
                    "The highlighter's growth on pathological inputs against budgets.toml",
                    budget::check_growth,
                ),
            ];
            for (what, check) in checks {
                step(what);
                match check(root, &toolchain) {
                    Ok((p, f)) => (passed, failed) = (passed + p, failed + f),
                    Err(error) => {
                        eprintln!("xtask: budget: {error:#}");
                        failed += 1;
                    }
                }
            }
            Ok((
                passed,
                failed,
                Some("sizes, native review, highlight growth; browser timings in e2e".to_owned()),
            ))
        }));
    } else {
        for stage in ["e2e", "budget"] {
            record(Outcome {
                stage,
                passed: 0,
                failed: 1,
                seconds: 0.0,
                note: Some("not run: the release build failed".to_owned()),
            });
        }
    }

    println!("\n==> Summary ({:.0} s)", started.elapsed().as_secs_f64());
    let mut all_passed = 0;
    let mut all_failed = 0;
    for o in &outcomes {
        println!(
            "    {} {:<14} {:>4} passed {:>4} failed {:>7.1} s",
            if o.failed == 0 { "✓" } else { "✗" },
            o.stage,
            o.passed,
            o.failed,
            o.seconds
        );
        all_passed += o.passed;
        all_failed += o.failed;
    }
    println!("{all_passed} passed, {all_failed} failed");
    Ok(if all_failed == 0 { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

/// Runs one stage; an error inside it counts as one failure, with the reason printed.
fn timed(
    stage: &'static str,
    body: impl FnOnce() -> Result<(usize, usize, Option<String>)>,
) -> Outcome {
    let started = Instant::now();
    let (passed, failed, note) = match body() {
        Ok(result) => result,
        Err(error) => {
            eprintln!("xtask: {stage}: {error:#}");
            (0, 1, Some(format!("{error:#}")))
        }
    };
    Outcome { stage, passed, failed, seconds: started.elapsed().as_secs_f64(), note }
}

/// Every Rust file the workspace formats.
fn rust_files(root: &Path) -> Result<Vec<String>> {
    fn walk(dir: &Path, out: &mut Vec<String>) -> Result<()> {
        for entry in fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
            let path = entry?.path();
            if path.is_dir() {
                walk(&path, out)?;
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path.display().to_string());
            }
        }
        Ok(())
    }
    let mut files = Vec::new();
    walk(&root.join("crates"), &mut files)?;
    Ok(files)
}

fn fmt(root: &Path, toolchain: &Toolchain) -> Result<(usize, usize, Option<String>)> {
    step("Formatting: cargo fmt --check");
    let files = rust_files(root)?;
    let output = toolchain
        .cargo()
        .args(["fmt", "--all", "--", "--check", "--files-with-diff"])
        .current_dir(root)
        .output()
        .context("running cargo fmt")?;
    let unformatted: Vec<String> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(str::to_owned)
        .filter(|l| !l.is_empty())
        .collect();
    for file in &unformatted {
        println!("    ✗ not formatted: {file} (run `cargo fmt`)");
    }
    if !output.status.success() && unformatted.is_empty() {
        eprint!("{}", String::from_utf8_lossy(&output.stderr));
        return Ok((0, 1, Some("rustfmt could not run; its message is above".to_owned())));
    }
    Ok((
        files.len() - unformatted.len().min(files.len()),
        unformatted.len(),
        Some("files".to_owned()),
    ))
}

/// Runs clippy with warnings denied and counts packages with and without findings.
fn clippy(root: &Path, toolchain: &Toolchain) -> Result<(usize, usize, Option<String>)> {
    let mut passed = 0;
    let mut failed = 0;
    let runs: [(&str, &[&str]); 2] = [
        ("native", &["--workspace", "--all-targets"]),
        ("wasm32", &["-p", "swaplab-web", "--all-targets", "--target", WASM_TARGET]),
    ];
    for (label, args) in runs {
        step(&format!("Lints ({label}): cargo clippy, warnings denied"));
        let mut command = toolchain.cargo();
        command
            .arg("clippy")
            .args(args)
            .args([
                "--locked",
                "--message-format=json-diagnostic-rendered-ansi",
                "--",
                "-D",
                "warnings",
            ])
            .current_dir(root);
        let output = command.output().context("running cargo clippy")?;
        let mut findings: BTreeMap<String, usize> = BTreeMap::new();
        let mut checked: Vec<String> = Vec::new();
        for line in String::from_utf8_lossy(&output.stdout).lines() {
            let Ok(message) = serde_json::from_str::<serde_json::Value>(line) else { continue };
            let package = package_name(message["package_id"].as_str().unwrap_or_default());
            match message["reason"].as_str() {
                Some("compiler-message") => {
                    let level = message["message"]["level"].as_str().unwrap_or_default();
                    if matches!(level, "warning" | "error")
                        && message["message"]["code"].is_object()
                    {
                        if let Some(rendered) = message["message"]["rendered"].as_str() {
                            eprint!("{rendered}");
                        }
                        *findings.entry(package).or_default() += 1;
                    }
                }
                Some("compiler-artifact")
                    if is_workspace_package(&message) && !checked.contains(&package) =>
                {
                    checked.push(package);
                }
                _ => {}
            }
        }
        for package in findings.keys() {
            if !checked.contains(package) {
                checked.push(package.clone());
            }
        }
        if !output.status.success() && findings.is_empty() {
            eprint!("{}", String::from_utf8_lossy(&output.stderr));
            failed += 1;
            continue;
        }
        for package in &checked {
            match findings.get(package) {
                Some(n) => {
                    println!("    ✗ {package} ({label}): {n} finding(s)");
                    failed += 1;
                }
                None => {
                    println!("    ✓ {package} ({label})");
                    passed += 1;
                }
            }
        }
    }
    Ok((passed, failed, Some("packages × targets".to_owned())))
}

fn package_name(package_id: &str) -> String {
    // Cargo's package id specs: "path+file:///…/crates/swaplab-core#0.1.0" when the
    // folder is named after the package, else "…#name@version".
    let (location, fragment) = package_id.split_once('#').unwrap_or((package_id, ""));
    match fragment.split_once('@') {
        Some((name, _)) => name.to_owned(),
        None => location.rsplit('/').next().unwrap_or(location).to_owned(),
    }
}

fn is_workspace_package(message: &serde_json::Value) -> bool {
    message["package_id"].as_str().is_some_and(|id| id.starts_with("path+"))
}

/// A budget check that runs a benchmark: (passed, failed), or why it could not run.
type CheckFn = fn(&Path, &Toolchain) -> Result<(usize, usize)>;

/// Sums the `test result: … N passed; M failed` lines of cargo's test output.
fn count_test_results(output: &str) -> (usize, usize) {
    let mut passed = 0;
    let mut failed = 0;
    for line in output.lines() {
        let Some(rest) = line.trim().strip_prefix("test result: ") else { continue };
        for part in rest.split(';') {
            let mut words = part.split_whitespace().rev();
            let (Some(kind), Some(number)) = (words.next(), words.next()) else { continue };
            let Ok(number) = number.parse::<usize>() else { continue };
            match kind {
                "passed" => passed += number,
                "failed" => failed += number,
                _ => {}
            }
        }
    }
    (passed, failed)
}

fn native_tests(root: &Path, toolchain: &Toolchain) -> Result<(usize, usize, Option<String>)> {
    step("Native tests: cargo test --workspace");
    let mut command = toolchain.cargo();
    command.args(["test", "--workspace", "--locked"]).current_dir(root);
    cargo_test_stage(&mut command)
}

fn wasm_tests(root: &Path, toolchain: &Toolchain) -> Result<(usize, usize, Option<String>)> {
    step("wasm tests in headless Chromium: cargo test --target wasm32-unknown-unknown");
    let driver = toolchain.chromedriver.as_ref().context("ChromeDriver was not prepared")?;
    let mut command = toolchain.cargo();
    command
        .args(["test", "-p", "swaplab-web", "--target", WASM_TARGET, "--locked"])
        .current_dir(root)
        .env("CHROMEDRIVER", driver)
        .env("WASM_BINDGEN_TEST_WEBDRIVER_JSON", root.join("crates/swaplab-web/webdriver.json"))
        .env("WASM_BINDGEN_TEST_TIMEOUT", "120");
    cargo_test_stage(&mut command)
}

/// Runs a `cargo test` command and counts its results. A run that fails without a
/// failing test (it did not build) or runs no test at all counts as one failure.
fn cargo_test_stage(command: &mut Command) -> Result<(usize, usize, Option<String>)> {
    let (status, output) = run_capturing(command)?;
    let (passed, failed) = count_test_results(&output);
    if !status.success() && failed == 0 {
        let note = format!("the tests failed to build or run ({})", exit_text(status));
        return Ok((passed, 1, Some(note)));
    }
    if passed == 0 && failed == 0 {
        return Ok((0, 1, Some("no test ran".to_owned())));
    }
    Ok((passed, failed, None))
}

/// `cargo xtask e2e [PLAYWRIGHT ARGS]`: builds the site at the root and under
/// [`SUBPATH`] into the cargo target directory (so two checkouts or two target
/// directories never share a build), then runs Playwright with `playwright_args` — spec
/// files, `--grep`, `--project` — or, without them, the same projects as `test`.
pub fn run_e2e(root: &Path, playwright_args: &[String]) -> Result<ExitCode> {
    let toolchain = tools::prepare(root, Need::Tests)?;
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target"))
        .join("xtask")
        .join("e2e");
    let (dist, subpath_dist) = (target.join("root"), target.join("subpath"));
    site::build(root, &toolchain, &dist, "/")?;
    site::build(root, &toolchain, &subpath_dist, SUBPATH)?;
    let results = target.join("results");
    let (passed, failed, note) =
        e2e(root, &toolchain, &dist, &subpath_dist, &results, playwright_args)?;
    println!("e2e: {passed} passed, {failed} failed");
    if let Some(note) = note {
        println!("    ({note})");
    }
    Ok(if failed == 0 { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

fn e2e(
    root: &Path,
    toolchain: &Toolchain,
    dist: &Path,
    subpath_dist: &Path,
    results: &Path,
    playwright_args: &[String],
) -> Result<(usize, usize, Option<String>)> {
    step("End-to-end tests: Playwright driving headless Chromium against the built site");
    let at_root = serve::start(dist, "/", 0)?;
    let under_subpath = serve::start(subpath_dist, SUBPATH, 0)?;
    // The first-paint budgets' phone: the site behind its slow link.
    let phone = &crate::bench::VISIT_PROFILES[0];
    let behind_phone_link = serve::start_behind(dist, "/", 0, Some(phone.link))?;
    println!(
        "    serving {} and {}, and {} behind {}",
        at_root.url(),
        under_subpath.url(),
        behind_phone_link.url(),
        phone.name
    );
    fs::create_dir_all(results).with_context(|| format!("creating {}", results.display()))?;
    let report = results.join("report.json");
    let _ = fs::remove_file(&report);
    let chromium = toolchain.chromium.as_ref().context("Chromium was not prepared")?;
    let swaplab = build_swaplab(root, toolchain);
    let budgets = budget::load(root)?;
    let mut command = Command::new(root.join("node_modules/.bin/playwright"));
    command.args(["test", "--config", "e2e/playwright.config.mjs"]);
    if !playwright_args.iter().any(|arg| arg.starts_with("--project")) {
        // Every project but `perf`, which is `cargo xtask bench`'s. The `=` form, since
        // `--project name` would swallow any spec files that follow.
        command.args(["--project=root", "--project=subpath", "--project=budgets"]);
    }
    command
        .args(playwright_args)
        .envs(budget::browser_env(&budgets))
        .current_dir(root)
        .env("PATH", &toolchain.path)
        .env("SWAPLAB_URL", at_root.url())
        .env("SWAPLAB_SUBPATH_URL", under_subpath.url())
        .env("SWAPLAB_PHONE", phone.to_json(&behind_phone_link.url()).to_string())
        .env("SWAPLAB_CHROMIUM", chromium)
        .env("SWAPLAB_E2E_OUTPUT", results.join("artifacts"))
        .env("PLAYWRIGHT_JSON_OUTPUT_NAME", &report);
    if let Some(binary) = &swaplab {
        command.env("SWAPLAB_BIN", binary);
    }
    let (status, _) = run_capturing(&mut command)?;
    let text = fs::read_to_string(&report).with_context(|| {
        format!("Playwright wrote no report ({}); its output above says why", exit_text(status))
    })?;
    let report: serde_json::Value =
        serde_json::from_str(&text).context("parsing Playwright's JSON report")?;
    let stats = &report["stats"];
    let count = |key: &str| stats[key].as_u64().unwrap_or(0) as usize;
    let passed = count("expected") + count("flaky");
    let mut failed = count("unexpected");
    if !status.success() && failed == 0 {
        failed = 1;
    }
    let mut note = Vec::new();
    if count("flaky") > 0 {
        note.push(format!("{} passed only on retry", count("flaky")));
    }
    if count("skipped") > 0 {
        note.push(format!("{} skipped", count("skipped")));
    }
    note.push(format!(
        "artifacts in {}; screenshots in e2e/results/screenshots/",
        results.display()
    ));
    Ok((passed, failed, Some(note.join("; "))))
}

/// Builds the `swaplab` binary that `e2e/mcp-stdio.spec.ts` starts over stdio and returns
/// its path. On failure it says why and returns `None`: the browser tests still run, and
/// that spec fails with its own message.
fn build_swaplab(root: &Path, toolchain: &Toolchain) -> Option<PathBuf> {
    let mut command = toolchain.cargo();
    command
        .args(["build", "-p", "swaplab-cli", "--bin", "swaplab", "--locked"])
        .arg("--message-format=json-render-diagnostics")
        .current_dir(root)
        .stderr(Stdio::inherit());
    let output = match command.output() {
        Ok(output) => output,
        Err(error) => {
            eprintln!("xtask: could not run cargo build for swaplab: {error}");
            return None;
        }
    };
    if !output.status.success() {
        eprintln!("xtask: building swaplab failed ({})", exit_text(output.status));
        return None;
    }
    let binary = String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|m| m["reason"] == "compiler-artifact" && m["target"]["name"] == "swaplab")
        .find_map(|m| m["executable"].as_str().map(PathBuf::from));
    if let Some(binary) = &binary {
        println!("    swaplab for the MCP stdio test: {}", binary.display());
    }
    binary
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_results_are_summed_across_binaries() {
        let output = "\
test result: ok. 3 passed; 0 failed; 1 ignored; 0 measured; 0 filtered out; finished in 0.01s
noise
test result: FAILED. 21 passed; 2 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.15s
";
        assert_eq!(count_test_results(output), (24, 2));
        assert_eq!(count_test_results("nothing here"), (0, 0));
    }

    #[test]
    fn package_ids_reduce_to_names() {
        assert_eq!(
            package_name("path+file:///work/main/crates/swaplab-core#0.1.0"),
            "swaplab-core"
        );
        assert_eq!(package_name("registry+sparse+index#serde@1.0.228"), "serde");
    }
}
