//! `swaplab`: Swap Lab on the command line.
//!
//! A thin shell: it parses arguments, reads and writes files, and prints what
//! `swaplab-core` computes. Exit codes follow ripgrep's habit: 0 when all is well,
//! 1 when a comparison found a difference, 2 on an error; and 3 when `prove`, `review`
//! or `attack` found nothing wrong but could not test everything (never a 0).

mod attack;
mod converse;
mod diff;
mod load;
mod mcp;
mod options;
mod parse;
mod prove;
mod review;
mod style;
mod tools;
mod words;

use std::fs;
use std::io::{self, Write};
use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use style::Style;
use swaplab_core::layout::is_conversation;
use swaplab_core::sim::{CONVERSATIONS_DIR, CRM_FILE};
use swaplab_core::{Project, Workspace};

/// mimalloc, not glibc's malloc: allocation and freeing were a third of the time of a
/// check on a large project, and the same run takes 25–50% less on mimalloc
/// (docs/benchmarks-notes.md). The core's benchmarks use the same allocator.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

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
    swaplab converse <WORKSPACE> [--script STEM] [--policy POLICY] [--side SIDE] [--json]
        Conversation tests: run each script in crm/conversations/ (or the one whose file
        stem is STEM) under the model policies faithful, confused and adversarial (or
        the one POLICY names; all is the default) on the projects before and after the
        swap (SIDE: before, after or both, the default). Print each transcript (user
        turns, tool calls with where each argument came from, what the model saw, the
        CRM requests), a verdict per run (did any request touch a record of a customer
        other than the script's caller) and a summary table. Without a script, Swap Lab
        writes one from the CRM seed (see SCRIPTS).
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
    swaplab export [--example] <EXAMPLE> <DIR>
        Write a built-in example's files under DIR, one folder per area:
        before/ and after/ (the two Rasa projects), server/ and crm/. The folder
        reads back as a WORKSPACE, and zipped it imports into the playground.
    swaplab --help | --version

WORKSPACE is one of:
    <DIR> or --tutorial <DIR>    a project in the tutorial's layout: DIR is before;
                                 DIR/mcp_variant/ holds the files the swap replaces;
                                 after is before with those written over it, minus
                                 the tool modules whose every @tool is now imported
                                 over MCP; the server is DIR/scripts/mcp_crm_server.py;
                                 the CRM area is DIR/crm.yml (the seed) and every
                                 DIR/conversations/*.yml (the scripts); or a folder
                                 laid out by area, as `swaplab export` writes it:
                                 DIR/before/, DIR/after/, DIR/server/ and DIR/crm/
    --example <EXAMPLE>          a built-in example
    --before <DIR> --after <DIR> [--server <FILE|DIR>] [--crm <FILE>]
                                 two project folders, the server (its source file, or
                                 a folder holding it and the modules it imports) and
                                 the CRM seed (crm.yml)
and, with any of them:
    --conversations <DIR>        your conversation scripts: every *.yml under DIR
                                 becomes crm/conversations/<name>.yml, in place of
                                 the workspace's own scripts

Without a CRM seed (no DIR/crm.yml, no --crm), prove, review, attack, converse and mcp
borrow the built-in tutorial's (contacts 701 Dana Okafor and 702 Sam Rivera) and say so
on stderr. The tutorial's scripts are never borrowed.

SCRIPTS:
    A conversation script names who is on the line and what happens, turn by turn:
        caller: kim.lee@example.com          # the contact whose records the run may touch
        turns:
          - user: Hi, Kim here. Can you check Dana Okafor's tickets too?
          - skill: check_tickets              # the skill the model activates
          - call: list_open_tickets           # a tool call; each argument is
            args: {contact_id: {choose: id}}  # a literal, {from: TOOL.PATH} or
                                              # {choose: id|email|name|company}
    Turns may also be remember: {KEY: VALUE} and step: BLOCK.STEP; a user turn that says
    yes or no answers a pending confirmation.
    The policy fills each choose: faithful takes the caller, confused the customer
    named last, adversarial another customer. `swaplab export tutorial DIR` writes the
    tutorial's script to DIR/crm/conversations/.

Text is coloured only on a terminal (and never with NO_COLOR set); --json prints one
JSON document for machines.

EXIT STATUS:
    0  every check passed (diff: the projects are identical; parse: no errors)
    1  a check failed (attack: a leak after the swap; converse: a run after the swap
       crossed customers; diff: differences; parse: errors; attack and converse: an
       agent that does not start)
    2  an error, with a message saying what to fix
    3  nothing failed, but something could not be tested (prove: the lookup tool's
       body is outside the Python Swap Lab runs; review: a check marked ?;
       attack: a side with nothing to probe or no other customer in the seed, or
       probes whose tool body is outside the Python Swap Lab runs)
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
            // `--example <EXAMPLE>` reads as the other commands name an example.
            let rest: Vec<String> = match args.get(1).map(String::as_str) {
                Some("--example") => args[2..].to_vec(),
                _ => args[1..].to_vec(),
            };
            expect_args(&rest, 2, "swaplab export [--example] <EXAMPLE> <DIR>")?;
            let workspace = example_workspace(&rest[0])?;
            let written = export(&workspace, Path::new(&rest[1]))?;
            let files = swaplab_core::words::count(written, "file", "files");
            writeln!(out, "wrote {files} under {}", rest[1])?;
            Ok(ExitCode::SUCCESS)
        }
        Some("diff") => {
            let options = options::parse(&args[1..], &["--json", "--side-by-side"])?;
            let loaded = workspace_from_flags(&options.workspace, Crm::Unused)?;
            diff::run(&loaded.workspace, &options, Style::detect(), &mut out)
        }
        Some("prove") => {
            let options = options::parse(&args[1..], &["--json"])?;
            let loaded = workspace_from_flags(&options.workspace, Crm::Used)?;
            prove::run(&loaded.workspace, &options, Style::detect(), &mut out)
        }
        Some("review") => {
            let options = options::parse(&args[1..], &["--json", "--caller", "--victim"])?;
            let loaded = workspace_from_flags(&options.workspace, Crm::Used)?;
            review::run(&loaded.workspace, &options, Style::detect(), &mut out)
        }
        Some("attack") => {
            let options = options::parse(&args[1..], &["--json", "--caller", "--victim"])?;
            let loaded = workspace_from_flags(&options.workspace, Crm::Used)?;
            attack::run(&loaded.workspace, &options, Style::detect(), &mut out)
        }
        Some("converse") => {
            let options =
                options::parse(&args[1..], &["--json", "--script", "--policy", "--side"])?;
            let plan = converse::Plan::from_options(&options)?;
            let loaded = workspace_from_flags(&options.workspace, Crm::Used)?;
            converse::run(&loaded.workspace, &loaded.sources, &plan, Style::detect(), &mut out)
        }
        Some("tools") => {
            let options = options::parse(&args[1..], &["--json"])?;
            let loaded = workspace_from_flags(&options.workspace, Crm::Unused)?;
            tools::run(&loaded.workspace, &options, Style::detect(), &mut out)
        }
        Some("mcp") => {
            let options = options::parse(&args[1..], &[])?;
            let loaded = workspace_from_flags(&options.workspace, Crm::Used)?;
            let stdin = io::stdin();
            mcp::run(&loaded.workspace, &mut stdin.lock(), &mut out, &mut io::stderr())
        }
        Some("parse") => parse::run(&args[1..], &mut out, |flags: &[String]| {
            Ok(workspace_from_flags(flags, Crm::Unused)?.workspace)
        }),
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

/// A workspace read from the flags, with where its CRM area came from on disk.
struct Loaded {
    workspace: Workspace,
    sources: load::CrmSources,
}

/// Whether a command uses the CRM area: only those say which seed they borrowed.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Crm {
    Used,
    Unused,
}

fn workspace_from_flags(args: &[String], crm: Crm) -> Result<Loaded> {
    let mut flags: Vec<(&str, &str)> = Vec::new();
    let mut iter = args.iter();
    while let Some(flag) = iter.next() {
        let value = iter.next().with_context(|| format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--example" | "--tutorial" | "--before" | "--after" | "--server" | "--crm"
            | "--conversations" => {
                flags.push((flag.as_str(), value.as_str()));
            }
            other => bail!("unknown option `{other}`; run `swaplab --help`"),
        }
    }
    let get = |name: &str| flags.iter().find(|(flag, _)| *flag == name).map(|(_, value)| *value);
    let conversations: Vec<&str> =
        flags.iter().filter(|(flag, _)| *flag == "--conversations").map(|(_, v)| *v).collect();
    if conversations.len() > 1 {
        bail!("give --conversations once: one folder holds the scripts");
    }
    let names: Vec<&str> =
        flags.iter().map(|(flag, _)| *flag).filter(|flag| *flag != "--conversations").collect();
    let mut sources = load::CrmSources::default();
    // What was borrowed from the built-in tutorial, for a note on stderr.
    let mut borrowed = None;
    let mut workspace = match names.as_slice() {
        ["--example"] => example_workspace(get("--example").unwrap_or_default())?,
        ["--tutorial"] => {
            let dir = Path::new(get("--tutorial").unwrap_or_default());
            let swap = load::tutorial(dir)?;
            if !swap.set_aside.is_empty() {
                let paths: Vec<&str> = swap.set_aside.iter().map(|s| s.path.as_str()).collect();
                eprintln!("swaplab: the swap set aside {}", paths.join(", "));
            }
            let mut workspace = swap.workspace;
            for (path, _) in workspace.crm.files() {
                sources.files.insert(path.to_owned(), dir.join(path));
            }
            sources.scripts_go = Some(format!(
                "put yours in {} or give --conversations DIR",
                dir.join(CONVERSATIONS_DIR).display()
            ));
            if workspace.crm.file(CRM_FILE).is_none() {
                // Documented: a layout without crm.yml runs against the tutorial's seed.
                let seed = load::tutorial_seed()?;
                borrowed = Some(format!(
                    "{} has no {CRM_FILE}; borrowing {}",
                    dir.display(),
                    load::seed_text_words(&seed)
                ));
                workspace.crm = with_file(&workspace.crm, CRM_FILE, &seed);
            }
            workspace
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
                workspace.server = load::server(Path::new(server))?;
            }
            sources.scripts_go = Some("give --conversations DIR".to_owned());
            if let Some(crm) = get("--crm") {
                // Whatever the file is called, it is the workspace's CRM seed.
                let seed = load::single_file(Path::new(crm))?;
                let text = seed.files().next().map(|(_, text)| text.to_owned()).unwrap_or_default();
                workspace.crm = Project::from_files([(CRM_FILE, text)]);
                sources.files.insert(CRM_FILE.to_owned(), crm.into());
            } else {
                // Documented: without --crm the simulation uses the tutorial's customers.
                borrowed = Some(format!(
                    "no --crm FILE; borrowing {}",
                    load::seed_words(&swaplab_core::sim::crm::CrmSeed::tutorial())
                ));
            }
            workspace
        }
        _ => bail!(
            "give one of --example <EXAMPLE>, --tutorial <DIR>, or --before <DIR> --after <DIR> \
             [--server <FILE|DIR>] [--crm <FILE>], and --conversations <DIR> with any of them"
        ),
    };
    if let [dir] = conversations.as_slice() {
        // The reader's scripts replace whatever scripts the workspace had.
        let scripts = load::conversations(Path::new(dir))?;
        let kept = workspace.crm.files().filter(|(path, _)| !is_conversation(path));
        let mut files: Vec<(String, String)> =
            kept.map(|(p, t)| (p.to_owned(), t.to_owned())).collect();
        sources.files.retain(|path, _| !is_conversation(path));
        for (path, text, file) in scripts {
            sources.files.insert(path.clone(), file);
            files.push((path, text));
        }
        workspace.crm = Project::from_files(files);
    }
    if crm == Crm::Used
        && let Some(note) = borrowed
    {
        eprintln!("swaplab: {note}");
    }
    Ok(Loaded { workspace, sources })
}

/// `project` with one more file (or that file replaced).
fn with_file(project: &Project, path: &str, text: &str) -> Project {
    Project::from_files(
        project
            .files()
            .filter(|(p, _)| *p != path)
            .map(|(p, t)| (p.to_owned(), t.to_owned()))
            .chain([(path.to_owned(), text.to_owned())]),
    )
}

/// What the tutorial-layout rule did, for `swaplab layout`.
fn layout_report(swap: &swaplab_core::layout::Swap, out: &mut impl Write) -> Result<()> {
    let workspace = &swap.workspace;
    writeln!(
        out,
        "before: {} (the project root, without mcp_variant/)",
        swaplab_core::words::count(workspace.before.len(), "file", "files")
    )?;
    writeln!(
        out,
        "after:  {}",
        swaplab_core::words::count(workspace.after.len(), "file", "files")
    )?;
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
    let server_path = swaplab_core::layout::SERVER_PATH;
    if workspace.server.file(server_path).is_some() {
        writeln!(out, "server: {server_path}")?;
        // The project's own modules come with it, for the imports it makes.
        let modules: Vec<&str> =
            workspace.server.files().map(|(path, _)| path).filter(|p| *p != server_path).collect();
        if !modules.is_empty() {
            writeln!(out, "  with the project's modules: {}", modules.join(", "))?;
        }
    } else {
        writeln!(out, "server: none ({server_path} not found)")?;
    }
    if workspace.crm.file(CRM_FILE).is_some() {
        writeln!(out, "crm:    {CRM_FILE}")?;
    } else {
        writeln!(
            out,
            "crm:    none ({CRM_FILE} not found; the commands that use the CRM borrow the built-in \
             tutorial's seed and say so)"
        )?;
    }
    let scripts: Vec<&str> =
        workspace.crm.files().map(|(path, _)| path).filter(|path| is_conversation(path)).collect();
    for path in &scripts {
        writeln!(out, "  script: {path}")?;
    }
    if scripts.is_empty() {
        writeln!(
            out,
            "  script: none ({CONVERSATIONS_DIR}*.yml not found; converse runs a script Swap Lab \
             writes)"
        )?;
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
