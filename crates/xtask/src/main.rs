//! `cargo xtask`: Swap Lab's single entry point for building, serving, testing and
//! benchmarking.
//!
//! `serve` and `test` install whatever this machine lacks first (see `tools.rs`), so a
//! fresh checkout needs nothing but Rust, Node.js and (for the browser tests) root or
//! an installed Chromium. Every install step says what it does and why.

mod bench;
mod budget;
mod cmd;
mod fuzz;
mod offline;
mod serve;
mod site;
mod test;
mod tools;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, bail};

const USAGE: &str = "\
Swap Lab's automation.

USAGE:
    cargo xtask serve [--port N] [--public-url /path/]
        Install what is missing, build the site (release) and serve it on 127.0.0.1.
    cargo xtask dist [--public-url /path/]
        Build the static site into dist/, ready for any static host.
    cargo xtask test
        Everything: format, lints, native tests, a short run of every fuzz target, wasm
        tests in headless Chromium, the release build, end-to-end browser tests and the
        budgets (sizes, speed).
    cargo xtask e2e [PLAYWRIGHT ARGS]
        Build the site and run the end-to-end tests alone; arguments go to Playwright
        (spec files, --grep, --project). The builds go under the cargo target directory.
    cargo xtask fuzz [--seconds N] [TARGET...]
        Build the fuzz targets in fuzz/ (nightly toolchain; cargo-fuzz is installed when
        missing) and run each named target (all by default: skill, yaml_config, python,
        permalink, mcp, pipeline) for N seconds (default 60), one at a time. Prints each
        target's executions, exec/s, coverage and crashes, and adds them to fuzz/RESULTS.md.
    cargo xtask bench [--quick]
        Run every criterion bench, build and serve the site, measure it in Chromium
        and on disk, and write BENCHMARKS.md. --quick shortens criterion's runs.
    cargo xtask help
        This text.
";

fn main() -> ExitCode {
    match run() {
        Ok(code) => code,
        Err(error) => {
            eprintln!("\nxtask: error: {error:#}");
            ExitCode::from(2)
        }
    }
}

fn run() -> Result<ExitCode> {
    let mut args = std::env::args().skip(1);
    let command = args.next().unwrap_or_else(|| "help".to_owned());
    let rest: Vec<String> = args.collect();
    let root = project_root()?;
    match command.as_str() {
        "serve" => {
            let options = Options::parse(&rest, &["--port", "--public-url"])?;
            let port = match options.value("--port") {
                Some(port) => {
                    port.parse().with_context(|| format!("--port {port} is not a port number"))?
                }
                None => 8080,
            };
            let public_url =
                site::normalise_public_url(options.value("--public-url").unwrap_or("/"))?;
            let toolchain = tools::prepare(&root, tools::Need::Site)?;
            let dist = root.join("dist");
            site::build(&root, &toolchain, &dist, &public_url)?;
            serve::serve_forever(&dist, &public_url, port)?;
            Ok(ExitCode::SUCCESS)
        }
        "dist" => {
            let options = Options::parse(&rest, &["--public-url"])?;
            let public_url =
                site::normalise_public_url(options.value("--public-url").unwrap_or("/"))?;
            let toolchain = tools::prepare(&root, tools::Need::Site)?;
            let dist = root.join("dist");
            site::build(&root, &toolchain, &dist, &public_url)?;
            println!("\nxtask: the site is in {} (public URL {public_url}).", dist.display());
            println!("xtask: copy it to any static host; 404.html serves the app for deep links.");
            Ok(ExitCode::SUCCESS)
        }
        "test" => {
            Options::parse(&rest, &[])?;
            test::run(&root)
        }
        "e2e" => test::run_e2e(&root, &rest),
        "fuzz" => {
            let mut seconds = 60;
            let mut targets = Vec::new();
            let mut args = rest.iter();
            while let Some(arg) = args.next() {
                let value = match arg.strip_prefix("--seconds") {
                    Some("") => args.next().context("--seconds needs a number")?.as_str(),
                    Some(rest) if rest.starts_with('=') => &rest[1..],
                    _ if arg.starts_with('-') => bail!("unknown option `{arg}`\n\n{USAGE}"),
                    _ => {
                        targets.push(arg.clone());
                        continue;
                    }
                };
                seconds = match value.parse::<u64>() {
                    Ok(n) if n > 0 => n,
                    _ => bail!("--seconds {value} is not a positive number of seconds"),
                };
            }
            fuzz::run_command(&root, seconds, &targets)
        }
        "bench" => {
            let quick = match rest.as_slice() {
                [] => false,
                [flag] if flag == "--quick" => true,
                _ => bail!("`bench` takes only --quick\n\n{USAGE}"),
            };
            bench::run(&root, quick)
        }
        "help" | "--help" | "-h" => {
            print!("{USAGE}");
            Ok(ExitCode::SUCCESS)
        }
        other => bail!("unknown command `{other}`\n\n{USAGE}"),
    }
}

/// `--flag value` pairs, checked against the flags a command accepts.
struct Options {
    pairs: Vec<(String, String)>,
}

impl Options {
    fn parse(args: &[String], allowed: &[&str]) -> Result<Options> {
        let mut pairs = Vec::new();
        let mut iter = args.iter();
        while let Some(arg) = iter.next() {
            let (flag, value) = match arg.split_once('=') {
                Some((flag, value)) => (flag.to_owned(), value.to_owned()),
                None => {
                    let value = iter.next().with_context(|| format!("{arg} needs a value"))?;
                    (arg.clone(), value.clone())
                }
            };
            if !allowed.contains(&flag.as_str()) {
                bail!("unknown option `{flag}`\n\n{USAGE}");
            }
            pairs.push((flag, value));
        }
        Ok(Options { pairs })
    }

    fn value(&self, flag: &str) -> Option<&str> {
        self.pairs.iter().rev().find(|(f, _)| f == flag).map(|(_, v)| v.as_str())
    }
}

/// The workspace root: xtask lives in `crates/xtask`.
fn project_root() -> Result<PathBuf> {
    let manifest_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let root = manifest_dir.ancestors().nth(2).context("xtask is not inside crates/")?;
    Ok(root.to_path_buf())
}
