//! Finding, and when missing installing, the tools the build and the tests need.
//!
//! The rule is "install what is missing, say why, never twice": each tool is probed
//! first, on a `PATH` that puts cargo's install directory and `node_modules/.bin`
//! ahead of the system's, and installed only when the probe fails. Versions that must
//! match something (wasm-bindgen ↔ Cargo.lock, wasm-opt ↔ Trunk.toml) are compared.

use std::env;
use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

use crate::cmd::{note, probe, run, step};

/// Trunk's version. 0.22 declares rust-version 1.96.1, so it installs with
/// `--ignore-rust-version` on 1.95 (see ../shared/toolchain.md).
pub const TRUNK_VERSION: &str = "0.22.1";
/// binaryen's wasm-opt version from package.json, as it prints it.
pub const WASM_OPT_VERSION: &str = "version 132";
/// The target the web app compiles to.
pub const WASM_TARGET: &str = "wasm32-unknown-unknown";

/// What a command needs.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Need {
    /// Building the site: the wasm target, Trunk, wasm-bindgen, wasm-opt.
    Site,
    /// Also the tests: Playwright, Chromium and ChromeDriver, and valgrind.
    Tests,
}

/// Where the tools are.
pub struct Toolchain {
    /// `PATH` with cargo's install directory and `node_modules/.bin` first.
    pub path: OsString,
    /// Chromium, when the tests need it.
    pub chromium: Option<PathBuf>,
    /// ChromeDriver, when the tests need it.
    pub chromedriver: Option<PathBuf>,
}

impl Toolchain {
    /// The cargo running this xtask (`$CARGO`), with this toolchain's `PATH`.
    pub fn cargo(&self) -> Command {
        let mut command = Command::new(cargo());
        command.env("PATH", &self.path);
        command
    }
}

/// Makes sure every tool `need` asks for is present, installing what is missing.
pub fn prepare(root: &Path, need: Need) -> Result<Toolchain> {
    step("Checking the tools this needs (anything missing is installed once)");
    let install_bin = cargo_install_root().join("bin");
    let node_bin = root.join("node_modules").join(".bin");
    let mut dirs = vec![install_bin.clone(), node_bin];
    dirs.extend(env::split_paths(&env::var_os("PATH").unwrap_or_default()));
    let path = env::join_paths(dirs).context("building PATH")?;

    ensure_wasm_target(&path)?;
    let wasm_bindgen_version = wasm_bindgen_version(root)?;
    ensure_trunk(&path, &install_bin)?;
    ensure_wasm_bindgen(&path, &install_bin, &wasm_bindgen_version)?;
    ensure_npm_packages(root, &path)?;
    let (chromium, chromedriver) = if need == Need::Tests {
        ensure_valgrind(&path)?;
        let (chromium, driver) = ensure_chromium(&path)?;
        (Some(chromium), Some(driver))
    } else {
        (None, None)
    };
    Ok(Toolchain { path, chromium, chromedriver })
}

/// Where `cargo install` puts binaries: `$CARGO_INSTALL_ROOT`, else `$CARGO_HOME`,
/// else `~/.cargo`.
fn cargo_install_root() -> PathBuf {
    if let Some(root) = env::var_os("CARGO_INSTALL_ROOT").filter(|r| !r.is_empty()) {
        return PathBuf::from(root);
    }
    if let Some(home) = env::var_os("CARGO_HOME").filter(|h| !h.is_empty()) {
        return PathBuf::from(home);
    }
    PathBuf::from(env::var_os("HOME").unwrap_or_default()).join(".cargo")
}

fn cargo() -> OsString {
    env::var_os("CARGO").unwrap_or_else(|| "cargo".into())
}

fn ensure_wasm_target(path: &OsString) -> Result<()> {
    let sysroot = probe("rustc", &["--print", "sysroot"], path).context("rustc is not on PATH")?;
    let target_dir = Path::new(&sysroot).join("lib/rustlib").join(WASM_TARGET);
    if target_dir.is_dir() {
        note(&format!("✓ Rust target {WASM_TARGET}"));
        return Ok(());
    }
    note(&format!(
        "• The Rust target {WASM_TARGET} is missing. Adding it with rustup: the web app \
         compiles to it (a few seconds)."
    ));
    run(Command::new("rustup").args(["target", "add", WASM_TARGET]).env("PATH", path)).context(
        "adding the wasm target failed; run `rustup target add wasm32-unknown-unknown` by hand \
         and look at its message",
    )
}

fn ensure_trunk(path: &OsString, install_bin: &Path) -> Result<()> {
    let found = probe("trunk", &["--version"], path);
    if found.as_deref() == Some(&format!("trunk {TRUNK_VERSION}")) {
        note(&format!("✓ Trunk {TRUNK_VERSION}"));
        return Ok(());
    }
    let why = match found {
        Some(other) => format!("{other} is installed, but the build is pinned to {TRUNK_VERSION}"),
        None => "it is missing".to_owned(),
    };
    note(&format!(
        "• Installing Trunk {TRUNK_VERSION} into {} because {why}. Trunk builds the wasm app \
         and the site. This compiles it from crates.io: about 8 minutes, once per machine.",
        install_bin.display()
    ));
    run(Command::new(cargo())
        .args([
            "install",
            "--locked",
            "trunk",
            "--version",
            TRUNK_VERSION,
            "--ignore-rust-version",
            "--force",
        ])
        .env("PATH", path))
    .context("installing Trunk failed; the cargo output above says why (network? disk space?)")?;
    expect_version("trunk", &["--version"], path, &format!("trunk {TRUNK_VERSION}"))
}

/// The wasm-bindgen version Cargo.lock resolved; the CLI must match it exactly.
fn wasm_bindgen_version(root: &Path) -> Result<String> {
    #[derive(serde::Deserialize)]
    struct Lock {
        package: Vec<Package>,
    }
    #[derive(serde::Deserialize)]
    struct Package {
        name: String,
        version: String,
    }
    let text = fs::read_to_string(root.join("Cargo.lock")).context("reading Cargo.lock")?;
    let lock: Lock = toml::from_str(&text).context("parsing Cargo.lock")?;
    lock.package
        .into_iter()
        .find(|p| p.name == "wasm-bindgen")
        .map(|p| p.version)
        .context("Cargo.lock has no wasm-bindgen package")
}

fn ensure_wasm_bindgen(path: &OsString, install_bin: &Path, version: &str) -> Result<()> {
    let wanted = format!("wasm-bindgen {version}");
    let cli = probe("wasm-bindgen", &["--version"], path);
    let runner = probe("wasm-bindgen-test-runner", &["--version"], path);
    let runner_ok = runner.as_deref().is_some_and(|r| r.ends_with(version));
    if cli.as_deref() == Some(wanted.as_str()) && runner_ok {
        note(&format!("✓ wasm-bindgen-cli {version} (matches Cargo.lock)"));
        return Ok(());
    }
    let why = match cli {
        Some(other) => {
            format!("{other} is installed but Cargo.lock has {version}; they must match exactly")
        }
        None => "it is missing".to_owned(),
    };
    note(&format!(
        "• Installing wasm-bindgen-cli {version} into {} because {why}. Trunk uses it to \
         bind the wasm to JavaScript and the wasm tests run through its test runner. About \
         3 minutes, once per machine. (Not --locked: its lockfile pins a crate the registry \
         no longer has.)",
        install_bin.display()
    ));
    run(Command::new(cargo())
        .args(["install", "wasm-bindgen-cli", "--version", version, "--force"])
        .env("PATH", path))
    .context("installing wasm-bindgen-cli failed; the cargo output above says why")?;
    expect_version("wasm-bindgen", &["--version"], path, &wanted)
}

fn ensure_npm_packages(root: &Path, path: &OsString) -> Result<()> {
    let node = probe("node", &["--version"], path);
    let npm = probe("npm", &["--version"], path);
    let (Some(node), Some(_)) = (node, npm) else {
        bail!(
            "Node.js and npm are needed for wasm-opt and Playwright but are not on PATH. \
             Install them (for example `apt-get install nodejs npm`) and run this again."
        );
    };
    let wasm_opt = probe("wasm-opt", &["--version"], path);
    let wasm_opt_ok =
        wasm_opt.as_deref().is_some_and(|v| v.starts_with(&format!("wasm-opt {WASM_OPT_VERSION}")))
            && root.join("node_modules/.bin/wasm-opt").exists();
    let playwright_wanted = package_json_version(root, "@playwright/test")?;
    let playwright_found = installed_package_version(root, "@playwright/test");
    // The MCP SDK is the real client the stdio test of `swaplab mcp` connects with.
    let sdk_wanted = package_json_version(root, "@modelcontextprotocol/sdk")?;
    let sdk_found = installed_package_version(root, "@modelcontextprotocol/sdk");
    if wasm_opt_ok
        && playwright_found.as_deref() == Some(playwright_wanted.as_str())
        && sdk_found.as_deref() == Some(sdk_wanted.as_str())
    {
        note(&format!(
            "✓ npm packages: wasm-opt {WASM_OPT_VERSION}, Playwright {playwright_wanted}, MCP SDK \
             {sdk_wanted} (node {node})"
        ));
        return Ok(());
    }
    note(
        "• Installing the npm packages from package-lock.json with `npm ci`: binaryen's \
         wasm-opt (Trunk shrinks the wasm with it; Debian's is too old), Playwright (drives \
         Chromium in the end-to-end tests; it never downloads a browser here) and the MCP SDK \
         (a real client for `swaplab mcp`). A few seconds.",
    );
    run(Command::new("npm")
        .args(["ci", "--no-audit", "--no-fund"])
        .current_dir(root)
        .env("PATH", path)
        // Playwright must use Debian's Chromium, never download its own.
        .env("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1"))
    .context("`npm ci` failed; its output above says why (is the npm registry reachable?)")?;
    expect_version("wasm-opt", &["--version"], path, &format!("wasm-opt {WASM_OPT_VERSION}"))
}

fn package_json_version(root: &Path, name: &str) -> Result<String> {
    let text = fs::read_to_string(root.join("package.json")).context("reading package.json")?;
    let json: serde_json::Value = serde_json::from_str(&text).context("parsing package.json")?;
    json["devDependencies"][name]
        .as_str()
        .map(str::to_owned)
        .with_context(|| format!("package.json does not pin {name}"))
}

fn installed_package_version(root: &Path, name: &str) -> Option<String> {
    let text =
        fs::read_to_string(root.join("node_modules").join(name).join("package.json")).ok()?;
    let json: serde_json::Value = serde_json::from_str(&text).ok()?;
    json["version"].as_str().map(str::to_owned)
}

fn ensure_chromium(path: &OsString) -> Result<(PathBuf, PathBuf)> {
    let find = |name: &str| -> Option<PathBuf> {
        env::split_paths(path).map(|dir| dir.join(name)).find(|p| p.is_file())
    };
    if let (Some(chromium), Some(driver)) = (find("chromium"), find("chromedriver")) {
        let version = probe(&chromium, &["--version"], path).unwrap_or_default();
        note(&format!("✓ {} and {}", version.trim(), driver.display()));
        return Ok((chromium, driver));
    }
    apt_install(
        path,
        &["chromium", "chromium-driver"],
        "the wasm tests and the end-to-end tests run in headless Chromium. About a minute",
    )?;
    match (find("chromium"), find("chromedriver")) {
        (Some(chromium), Some(driver)) => {
            note(&format!("✓ {} and {}", chromium.display(), driver.display()));
            Ok((chromium, driver))
        }
        _ => bail!("apt-get finished but chromium or chromedriver is still not on PATH"),
    }
}

/// Valgrind, whose callgrind counts the instructions of the budget on native `review`.
fn ensure_valgrind(path: &OsString) -> Result<()> {
    if let Some(version) = probe("valgrind", &["--version"], path) {
        note(&format!("✓ {}", version.trim()));
        return Ok(());
    }
    apt_install(
        path,
        &["valgrind"],
        "its callgrind counts the instructions native `review` executes, for its budget",
    )?;
    expect_version("valgrind", &["--version"], path, "valgrind-")
}

/// Installs Debian `packages` with apt-get (as root), saying `why` first.
fn apt_install(path: &OsString, packages: &[&str], why: &str) -> Result<()> {
    let list = packages.join(" ");
    let root_user = probe("id", &["-u"], path).as_deref() == Some("0");
    if !root_user {
        bail!(
            "{list} is needed but missing, and installing it needs root. Run \
             `sudo apt-get install -y {list}` and then this command again."
        );
    }
    note(&format!("• Installing Debian's {list} with apt-get: {why}."));
    let apt = |args: &[&str]| {
        run(Command::new("apt-get")
            .args(args)
            .env("PATH", path)
            .env("DEBIAN_FRONTEND", "noninteractive"))
    };
    apt(&["update"]).context("`apt-get update` failed; is the Debian mirror reachable?")?;
    let mut install = vec!["install", "-y", "--no-install-recommends"];
    install.extend_from_slice(packages);
    apt(&install)
        .with_context(|| format!("installing {list} failed; the apt-get output above says why"))
}

fn expect_version(program: &str, args: &[&str], path: &OsString, wanted: &str) -> Result<()> {
    match probe(program, args, path) {
        Some(found) if found.starts_with(wanted) => {
            note(&format!("✓ {found}"));
            Ok(())
        }
        Some(found) => bail!(
            "after installing, `{program}` reports `{found}`, not `{wanted}`: an older copy \
             earlier on PATH may shadow it"
        ),
        None => bail!("after installing, `{program}` still does not run"),
    }
}
