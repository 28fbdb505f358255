//! `swaplab`: Swap Lab on the command line.
//!
//! A thin shell: it parses arguments, reads and writes files, and prints what
//! `swaplab-core` computes. Exit codes follow ripgrep's habit: 0 when all is well,
//! 1 when a comparison found a difference, 2 on an error.

mod attack;
mod diff;
mod load;
mod mcp;
mod options;
mod parse;
mod prove;
mod review;
mod style;
mod tools;

use std::fs;
use std::io::{self, Write};
use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use style::Style;
use swaplab_core::Workspace;

const USAGE: &str = "\
swaplab — is an MCP server a drop-in replacement for your agent's local tools?

USAGE:
    swaplab prove <WORKSPACE> [--json]
        The tutorial's companion proof, re-implemented: six groups of checks on the
        instructions, the config, the imports and one call over MCP, printed in the
        script's format. It passes on swaps that leak; see review.
    swaplab review <WORKSPACE> [--json] [--caller ID] [--victim ID]
        What a reviewer must check: where each id-like argument's value comes from
        before and after, stale prose, constraint drift, steps that cannot run, blocks
        nothing reaches, output schemas, start-up errors, project memory, and the attack.
    swaplab attack <WORKSPACE> [--json] [--caller ID] [--victim ID]
        Identify as one customer, pass another customer's id to every tool the model can
        reach, on both projects; report every read and write that reached the other's
        records.
    swaplab tools <WORKSPACE> [--json]
        The tools/list the MCP server publishes, and one line per tool:
        <name> requires [<args>].
    swaplab mcp <WORKSPACE>
        Serve the simulated MCP server over stdio (newline-delimited JSON-RPC) against
        the mock CRM, for any MCP client.
    swaplab diff <WORKSPACE> [--side-by-side] [--json]
        What the swap changes: a semantic summary (imports, constraints, arguments),
        then every changed file as a unified or side-by-side diff.
    swaplab parse (<DIR> | <WORKSPACE>) [--json]
        Read one Rasa project as Rasa 3.21 does: every skill compiled or refused with
        Rasa's code and message, memory, mcp_servers, tool signatures, and findings as
        file:line:col. Given a WORKSPACE, both projects and the tools/list the server
        would publish. --json prints one JSON document instead.
    swaplab layout <DIR>
        Apply the tutorial-layout rule to DIR and say which files became before,
        after and server, and which tool modules the swap set aside.
    swaplab examples
        List the built-in examples.
    swaplab export <EXAMPLE> <DIR>
        Write a built-in example's files under DIR, one folder per area:
        before/ and after/ (the two Rasa projects), server/ and crm/.
    swaplab --help | --version

WORKSPACE is one of:
    <DIR> or --tutorial <DIR>    a project in the tutorial's layout: DIR is before;
                                 DIR/mcp_variant/ holds the files the swap replaces;
                                 after is before with those written over it, minus
                                 the tool modules whose every @tool is now imported
                                 over MCP; the server is DIR/scripts/mcp_crm_server.py
    --example <EXAMPLE>          a built-in example
    --before <DIR> --after <DIR> [--server <FILE>] [--crm <FILE>]
                                 two project folders, the server source and the CRM
                                 seed (crm.yml; without it the tutorial's customers)

Text is coloured only on a terminal (and never with NO_COLOR set); --json prints one
JSON document for machines.

EXIT STATUS:
    0  every check passed (diff: the projects are identical; parse: no errors)
    1  a check failed (attack: a leak after the swap; diff: differences; parse: errors)
    2  an error, with a message saying what to fix
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(code) => code,
        Err(error) => {
            eprintln!("swaplab: {error:#}");
            ExitCode::from(2)
        }
    }
}

fn run(args: &[String]) -> Result<ExitCode> {
    let mut out = io::stdout().lock();
    match args.first().map(String::as_str) {
        None | Some("--help" | "-h" | "help") => {
            write!(out, "{USAGE}")?;
            Ok(ExitCode::SUCCESS)
        }
        Some("--version" | "-V") => {
            writeln!(out, "swaplab {}", env!("CARGO_PKG_VERSION"))?;
            Ok(ExitCode::SUCCESS)
        }
        Some("examples") => {
            expect_args(&args[1..], 0, "swaplab examples")?;
            for info in swaplab_content::examples()? {
                writeln!(out, "{:<12} {}", info.id, info.title)?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Some("export") => {
            expect_args(&args[1..], 2, "swaplab export <EXAMPLE> <DIR>")?;
            let workspace = example_workspace(&args[1])?;
            let written = export(&workspace, Path::new(&args[2]))?;
            writeln!(out, "wrote {written} files under {}", args[2])?;
            Ok(ExitCode::SUCCESS)
        }
        Some("diff") => {
            let options = options::parse(&args[1..], &["--json", "--side-by-side"])?;
            let workspace = workspace_from_flags(&options.workspace)?;
            diff::run(&workspace, &options, Style::detect(), &mut out)
        }
        Some("prove") => {
            let options = options::parse(&args[1..], &["--json"])?;
            let workspace = workspace_from_flags(&options.workspace)?;
            prove::run(&workspace, &options, Style::detect(), &mut out)
        }
        Some("review") => {
            let options = options::parse(&args[1..], &["--json", "--caller", "--victim"])?;
            let workspace = workspace_from_flags(&options.workspace)?;
            review::run(&workspace, &options, Style::detect(), &mut out)
        }
        Some("attack") => {
            let options = options::parse(&args[1..], &["--json", "--caller", "--victim"])?;
            let workspace = workspace_from_flags(&options.workspace)?;
            attack::run(&workspace, &options, Style::detect(), &mut out)
        }
        Some("tools") => {
            let options = options::parse(&args[1..], &["--json"])?;
            let workspace = workspace_from_flags(&options.workspace)?;
            tools::run(&workspace, &options, Style::detect(), &mut out)
        }
        Some("mcp") => {
            let options = options::parse(&args[1..], &[])?;
            let workspace = workspace_from_flags(&options.workspace)?;
            let stdin = io::stdin();
            mcp::run(&workspace, &mut stdin.lock(), &mut out, &mut io::stderr())
        }
        Some("parse") => parse::run(&args[1..], &mut out, workspace_from_flags),
        Some("layout") => {
            expect_args(&args[1..], 1, "swaplab layout <DIR>")?;
            let swap = load::tutorial(Path::new(&args[1]))?;
            layout_report(&swap, &mut out)?;
            Ok(ExitCode::SUCCESS)
        }
        Some(other) => bail!("unknown command `{other}`; run `swaplab --help` to see the commands"),
    }
}

fn expect_args(args: &[String], count: usize, usage: &str) -> Result<()> {
    if args.len() != count {
        bail!("expected {count} argument(s): {usage}");
    }
    Ok(())
}

fn example_workspace(id: &str) -> Result<Workspace> {
    match swaplab_content::example(id)? {
        Some(example) => Ok(example.workspace),
        None => {
            let known: Vec<&str> = swaplab_content::examples()?.into_iter().map(|i| i.id).collect();
            bail!("there is no example called `{id}`; the examples are: {}", known.join(", "))
        }
    }
}

fn workspace_from_flags(args: &[String]) -> Result<Workspace> {
    let mut flags: Vec<(&str, &str)> = Vec::new();
    let mut iter = args.iter();
    while let Some(flag) = iter.next() {
        let value = iter.next().with_context(|| format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--example" | "--tutorial" | "--before" | "--after" | "--server" | "--crm" => {
                flags.push((flag.as_str(), value.as_str()));
            }
            other => bail!("unknown option `{other}`; run `swaplab --help`"),
        }
    }
    let get = |name: &str| flags.iter().find(|(flag, _)| *flag == name).map(|(_, value)| *value);
    let names: Vec<&str> = flags.iter().map(|(flag, _)| *flag).collect();
    match names.as_slice() {
        ["--example"] => example_workspace(get("--example").unwrap_or_default()),
        ["--tutorial"] => {
            let swap = load::tutorial(Path::new(get("--tutorial").unwrap_or_default()))?;
            if !swap.set_aside.is_empty() {
                let paths: Vec<&str> = swap.set_aside.iter().map(|s| s.path.as_str()).collect();
                eprintln!("swaplab: the swap set aside {}", paths.join(", "));
            }
            Ok(swap.workspace)
        }
        _ if names.contains(&"--before")
            && names.contains(&"--after")
            && !names.contains(&"--example")
            && !names.contains(&"--tutorial") =>
        {
            let mut workspace = Workspace {
                before: load::project(Path::new(get("--before").unwrap_or_default()))?,
                after: load::project(Path::new(get("--after").unwrap_or_default()))?,
                ..Workspace::default()
            };
            if let Some(server) = get("--server") {
                workspace.server = load::single_file(Path::new(server))?;
            }
            if let Some(crm) = get("--crm") {
                // Whatever the file is called, it is the workspace's CRM seed.
                let seed = load::single_file(Path::new(crm))?;
                let text = seed.files().next().map(|(_, text)| text.to_owned()).unwrap_or_default();
                workspace.crm =
                    swaplab_core::Project::from_files([(swaplab_core::sim::CRM_FILE, text)]);
            }
            Ok(workspace)
        }
        _ => bail!(
            "give one of --example <EXAMPLE>, --tutorial <DIR>, or --before <DIR> --after <DIR> \
             [--server <FILE>] [--crm <FILE>]"
        ),
    }
}

/// What the tutorial-layout rule did, for `swaplab layout`.
fn layout_report(swap: &swaplab_core::layout::Swap, out: &mut impl Write) -> Result<()> {
    let workspace = &swap.workspace;
    writeln!(
        out,
        "before: {} files (the project root, without mcp_variant/)",
        workspace.before.len()
    )?;
    writeln!(out, "after:  {} files", workspace.after.len())?;
    for path in &swap.replaced {
        writeln!(out, "  from mcp_variant/: {path}")?;
    }
    for set_aside in &swap.set_aside {
        writeln!(
            out,
            "  set aside: {} (defines {}; imported over MCP by {})",
            set_aside.path,
            set_aside.tools.join(", "),
            set_aside.imported_by.join(", ")
        )?;
    }
    for kept in &swap.kept {
        writeln!(
            out,
            "  kept: {} (defines {} still local; {} now imported over MCP: Rasa refuses a skill \
             that binds both)",
            kept.path,
            kept.still_local.join(", "),
            kept.imported.join(", ")
        )?;
    }
    match workspace.server.files().next() {
        Some((path, _)) => writeln!(out, "server: {path}")?,
        None => {
            writeln!(out, "server: none ({} not found)", swaplab_core::layout::SERVER_PATH)?;
        }
    }
    match workspace.crm.files().next() {
        Some((path, _)) => writeln!(out, "crm:    {path}")?,
        None => {
            writeln!(out, "crm:    none (crm.yml not found; the built-in example's seed is used)")?;
        }
    }
    Ok(())
}

fn export(workspace: &Workspace, dir: &Path) -> Result<usize> {
    let mut written = 0;
    for (file, text) in workspace.files() {
        let path = dir.join(file.area.prefix()).join(&file.path);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).with_context(|| format!("creating {}", parent.display()))?;
        }
        fs::write(&path, text).with_context(|| format!("writing {}", path.display()))?;
        written += 1;
    }
    Ok(written)
}
