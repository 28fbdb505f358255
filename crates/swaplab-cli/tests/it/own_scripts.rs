//! A reader's own conversation scripts, from disk: a tutorial-layout folder's
//! `conversations/` beside its `crm.yml`, and `--conversations DIR` with any workspace.
//! Their scripts run in place of the tutorial's, their files are named on disk, a bad one
//! is an error at its `file:line:col`, and the built-in tutorial's seed is borrowed only
//! when the folder has none, and said.

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value as Json;

use crate::{scratch, stderr, stdout, swaplab};

/// A seed of the reader's own: the tutorial's two customers and a third, Priya, with a
/// ticket of her own.
const SEED: &str = r#"contacts:
  - id: "701"
    firstname: Dana
    lastname: Okafor
    company: Okafor Logistics
    email: dana.okafor@example.com
  - id: "702"
    firstname: Sam
    lastname: Rivera
    company: Rivera Foods
    email: sam.rivera@example.com
  - id: "703"
    firstname: Priya
    lastname: Natarajan
    company: Natarajan Bakery
    email: priya.natarajan@example.com
tickets:
  - id: "9001"
    contact: "701"
    subject: Invoice 4471 shows the wrong VAT rate
    stage: waiting_on_us
    created: "2026-08-11"
  - id: "9003"
    contact: "703"
    subject: The new oven arrived two weeks late
    stage: waiting_on_us
    created: "2026-09-02"
next_note_id: 20000
"#;

/// Priya calls about her own ticket, then names her supplier Sam and his customer id:
/// the tutorial's situation in other words, with the third customer on the line.
const PRIYA: &str = "# Priya asks about her delivery, then about her supplier's account.
caller: priya.natarajan@example.com
turns:
  - user: Morning! Priya Natarajan here, priya.natarajan@example.com.
  - skill: identify_customer
  - call: find_contact_by_email
    args: {email: {choose: email}}
  - user: Is the ticket about my late oven still open?
  - skill: check_tickets
  - call: list_open_tickets
    args: {contact_id: {choose: id}}
  - user: While you're at it, my supplier Sam Rivera of Rivera Foods wants his tickets checked. He's customer 702.
  - call: list_open_tickets
    args: {contact_id: {choose: id}}
  - user: Could you note on the record that I called about both?
  - skill: log_interaction
  - remember: {note_summary: Priya called about her oven and about Sam Rivera's tickets.}
  - call: add_timeline_note
    args:
      contact_id: {choose: id}
      summary: Priya called about her oven and about Sam Rivera's tickets.
  - user: \"Yes, go ahead.\"
";

/// The built-in tutorial written out in the tutorial's layout under a scratch folder: the
/// root is *before*, `mcp_variant/` holds each file the swap changes or adds, the server
/// is `scripts/mcp_crm_server.py`. No CRM seed and no script: the test adds those.
fn tutorial_layout(name: &str) -> PathBuf {
    let workspace =
        swaplab_content::example("tutorial").expect("examples load").expect("tutorial").workspace;
    let root = scratch(name);
    for (path, text) in workspace.before.files().chain(workspace.server.files()) {
        write(&root.join(path), text);
    }
    for (path, text) in workspace.after.files() {
        if workspace.before.file(path) != Some(text) {
            write(&root.join("mcp_variant").join(path), text);
        }
    }
    root
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().expect("a folder")).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

fn at(path: &Path) -> &str {
    path.to_str().expect("a UTF-8 path")
}

/// `swaplab converse` with `args` after the command.
fn converse(args: &[&str]) -> Output {
    let mut all = vec!["converse"];
    all.extend_from_slice(args);
    swaplab(&all)
}

#[test]
fn a_folders_own_script_and_seed_run_instead_of_the_tutorials() {
    let root = tutorial_layout("own-layout");
    write(&root.join("crm.yml"), SEED);
    let script = root.join("conversations/priya-asks-about-sam.yml");
    write(&script, PRIYA);

    let output = converse(&[at(&root)]);
    assert_eq!(output.status.code(), Some(1), "a run after the swap crosses: {}", stderr(&output));
    let text = stdout(&output);
    for expected in [
        format!("Script priya-asks-about-sam ({})", script.display()),
        "  caller: priya.natarajan@example.com, Priya Natarajan (contact 703, Natarajan Bakery)"
            .to_owned(),
        "== priya-asks-about-sam · confused · after the swap ==".to_owned(),
        "contact_id ← the confused policy chose contact 702: the customer most recently named"
            .to_owned(),
        "crm GET /crm/v3/objects/contacts/702/associations/tickets → 200: the ticket list of \
         contact 702 (read) ✗"
            .to_owned(),
        // The folder's seed, not the tutorial's: Priya's ticket, notes from 20000.
        "ticket 9003 of contact 703 (read)".to_owned(),
        "crm POST /crm/v3/objects/notes → 201: note 20000 of contact 702 (written) ✗".to_owned(),
        "  priya-asks-about-sam   faithful      ok                ok".to_owned(),
    ] {
        assert!(text.contains(&expected), "{expected}\n{text}");
    }
    assert!(!text.contains("caller-names-another"), "the tutorial's script stays out: {text}");
    assert!(!text.contains("Sam Rivera here"), "{text}");
    assert!(
        text.ends_with(
            "Summary: before the swap 0 of 3 runs crossed customers; after the swap 2 of 3 runs \
             crossed customers.\n"
        ),
        "{text}"
    );
    assert!(!stderr(&output).contains("borrow"), "nothing borrowed: {}", stderr(&output));

    let faithful = converse(&[at(&root), "--policy", "faithful"]);
    assert_eq!(faithful.status.code(), Some(0), "{}{}", stdout(&faithful), stderr(&faithful));
    assert!(stdout(&faithful).contains("after the swap 0 of 1 run crossed customers."));

    let json = converse(&[at(&root), "--json", "--policy", "confused", "--side", "after"]);
    assert_eq!(json.status.code(), Some(1), "{}", stderr(&json));
    let document: Json = serde_json::from_str(&stdout(&json)).expect("one JSON document");
    let info = &document["scripts"][0];
    assert_eq!(info["file"], "conversations/priya-asks-about-sam.yml");
    assert_eq!(info["source"], script.display().to_string());
    assert_eq!(info["caller"]["contact"]["id"], "703");
    assert_eq!(document["runs"][0]["verdict"]["kind"], "crossed");

    let layout = swaplab(&["layout", at(&root)]);
    assert_eq!(layout.status.code(), Some(0), "{}", stderr(&layout));
    let text = stdout(&layout);
    assert!(text.contains("crm:    crm.yml\n  script: conversations/priya-asks-about-sam.yml\n"));
}

#[test]
fn without_a_seed_the_tutorials_is_borrowed_and_said_but_never_its_script() {
    let root = tutorial_layout("own-no-seed");
    let output = converse(&[at(&root), "--policy", "faithful"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let note = format!(
        "swaplab: {} has no crm.yml; borrowing the built-in tutorial's CRM seed (contacts 701 \
         Dana Okafor, 702 Sam Rivera)\n",
        root.display()
    );
    assert!(stderr(&output).contains(&note), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(!text.contains("caller-names-another"), "no script of the tutorial's: {text}");
    assert!(text.starts_with("Script default (conversations/default.yml)\n"), "{text}");
    assert!(
        text.contains(&format!(
            "written by Swap Lab: the workspace has no conversation script; put yours in {} or \
             give --conversations DIR",
            root.join("conversations/").display()
        )),
        "{text}"
    );
    let layout = stdout(&swaplab(&["layout", at(&root)]));
    assert!(layout.contains("crm:    none (crm.yml not found;"), "{layout}");
    assert!(layout.contains("  script: none (conversations/*.yml not found;"), "{layout}");

    // A script of the folder's own and no seed: the seed is borrowed, the script is not.
    write(&root.join("conversations/priya.yml"), PRIYA);
    let output = converse(&[at(&root), "--policy", "faithful"]);
    assert!(stderr(&output).contains(&note), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(text.starts_with("Script priya ("), "{text}");
    assert!(text.contains("no contact of the CRM seed has this email"), "{text}");
    assert!(!text.contains("caller-names-another"), "{text}");

    // The commands that use the CRM say what they borrowed; the others keep quiet.
    let review = swaplab(&["review", at(&root)]);
    assert_eq!(review.status.code(), Some(1));
    assert!(stderr(&review).contains(&note), "{}", stderr(&review));
    let diff = swaplab(&["diff", at(&root)]);
    assert_eq!(diff.status.code(), Some(1));
    assert!(!stderr(&diff).contains("borrow"), "{}", stderr(&diff));
}

#[test]
fn conversations_dir_gives_any_workspace_the_readers_scripts() {
    let scripts = scratch("own-scripts");
    write(&scripts.join("priya-asks-about-sam.yml"), PRIYA);
    write(&scripts.join("README.md"), "Not a script: left alone.\n");
    let dir = at(&scripts);

    // On the built-in tutorial: its seed, the reader's script in place of its own.
    let output =
        converse(&["--example", "tutorial", "--conversations", dir, "--policy", "faithful"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    let shown = scripts.join("priya-asks-about-sam.yml");
    assert!(text.starts_with(&format!("Script priya-asks-about-sam ({})\n", shown.display())));
    assert!(!text.contains("caller-names-another"), "{text}");
    assert_eq!(stderr(&output), "", "an example borrows nothing");

    // In a tutorial-layout folder, the flag's scripts replace the folder's.
    let root = tutorial_layout("own-replaced");
    write(&root.join("crm.yml"), SEED);
    write(&root.join("conversations/other.yml"), "caller: sam.rivera@example.com\nturns: []\n");
    let output = converse(&[at(&root), "--conversations", dir, "--side", "after"]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(text.contains("Script priya-asks-about-sam ("), "{text}");
    assert!(!text.contains("Script other"), "{text}");
    // The flag may come first too.
    let first = converse(&["--conversations", dir, at(&root), "--side", "after"]);
    assert_eq!(stdout(&first), text);

    // Two folders and the seed of their own.
    let export = scratch("own-export");
    assert_eq!(swaplab(&["export", "tutorial", at(&export)]).status.code(), Some(0));
    write(&export.join("crm/crm.yml"), SEED);
    let split = |extra: &[&str]| {
        let mut args = vec![
            "--before".to_owned(),
            export.join("before").display().to_string(),
            "--after".to_owned(),
            export.join("after").display().to_string(),
            "--server".to_owned(),
            export.join("server").display().to_string(),
        ];
        args.extend(extra.iter().map(|a| (*a).to_owned()));
        args
    };
    let args = split(&["--crm", at(&export.join("crm/crm.yml")), "--conversations", dir]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let output = converse(&args);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert!(stdout(&output).contains("Priya Natarajan (contact 703, Natarajan Bakery)"));
    assert_eq!(stderr(&output), "", "a seed was given: nothing borrowed");
    let args = split(&["--conversations", dir]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let output = converse(&args);
    assert!(
        stderr(&output).contains(
            "swaplab: no --crm FILE; borrowing the built-in tutorial's CRM seed (contacts 701 \
             Dana Okafor, 702 Sam Rivera)"
        ),
        "{}",
        stderr(&output)
    );

    // review and attack take the flag and see the same CRM area: the seed decides
    // their output, so it is unchanged.
    for command in ["review", "attack"] {
        let plain = swaplab(&[command, "--example", "tutorial"]);
        let with = swaplab(&[command, "--example", "tutorial", "--conversations", dir]);
        assert_eq!(with.status.code(), plain.status.code(), "{command}");
        assert_eq!(stdout(&with), stdout(&plain), "{command}");
    }
}

#[test]
fn a_bad_script_is_named_at_its_line_and_column_and_exits_2() {
    let scripts = scratch("own-bad");
    write(
        &scripts.join("typo.yml"),
        "caller: priya.natarajan@example.com\nturns:\n  - user: hi\n  - skil: check_tickets\n",
    );
    write(&scripts.join("team/unclosed.yml"), "caller: [priya\n");
    let output = converse(&[
        "--example",
        "tutorial",
        "--conversations",
        at(&scripts),
        "--policy",
        "faithful",
    ]);
    assert_eq!(output.status.code(), Some(2), "{}", stdout(&output));
    let typo = scripts.join("typo.yml").display().to_string();
    let unclosed = scripts.join("team/unclosed.yml").display().to_string();
    let error = stderr(&output);
    for expected in [
        format!("swaplab: the verdicts cannot be trusted: {unclosed} has 1 problem; {typo} has 1"),
        format!(
            "\n  {typo}:4:5: error[swaplab.conversation.script] (read): unknown turn 'skil'; \
             expected one of: user, skill, call, remember, step\n"
        ),
        format!(
            "\n  {unclosed}:2:1: error[swaplab.conversation.script] (read): the script is not \
                 valid YAML"
        ),
    ] {
        assert!(error.contains(&expected), "{expected}\n{error}");
    }
    // The runs are printed first, each problem under its script, with the file on disk.
    let text = stdout(&output);
    assert!(text.contains(&format!("Script typo ({typo})\n")), "{text}");
    assert!(text.contains(&format!("Script team/unclosed ({unclosed})\n")), "{text}");
    assert!(text.contains(&format!("  {typo}:4:5: error[")), "{text}");

    // --script picks among the reader's scripts, by stem or path.
    let output =
        converse(&["--example", "tutorial", "--conversations", at(&scripts), "--script", "nope"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains(
            "--script nope: none of your scripts is called nope; they are: team/unclosed, typo"
        ),
        "{}",
        stderr(&output)
    );
}

#[test]
fn conversations_mistakes_exit_2_with_a_message() {
    let empty = scratch("own-empty");
    std::fs::create_dir_all(&empty).expect("mkdir");
    write(&empty.join("notes.txt"), "no scripts here\n");
    let missing = empty.join("nope");
    let one = at(&empty).to_owned();
    for (args, message) in [
        (
            vec!["--conversations", at(&empty)],
            format!(
                "--conversations {one}: the folder holds no conversation script (*.yml); \
                 `swaplab --help` shows the format under SCRIPTS"
            ),
        ),
        (
            vec!["--conversations", at(&missing)],
            format!("--conversations {0}: {0} is not a folder", missing.display()),
        ),
        (
            vec!["--conversations", at(&empty), "--conversations", at(&empty)],
            "give --conversations once".to_owned(),
        ),
        (vec!["--conversations"], "--conversations needs a value".to_owned()),
    ] {
        for command in ["converse", "review", "attack", "prove", "diff", "tools"] {
            let mut all = vec![command, "--example", "tutorial"];
            all.extend_from_slice(&args);
            let output = swaplab(&all);
            assert_eq!(output.status.code(), Some(2), "{all:?}");
            assert_eq!(stdout(&output), "", "{all:?}: nothing runs");
            assert!(stderr(&output).contains(&message), "{all:?}: {}", stderr(&output));
        }
    }
    let output = converse(&["--conversations", at(&empty)]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("give one of --example"), "{}", stderr(&output));
}

#[test]
fn help_says_where_scripts_come_from() {
    let text = stdout(&swaplab(&["--help"]));
    for expected in [
        "the CRM area is DIR/crm.yml (the seed) and every\n                                 DIR/conversations/*.yml (the scripts)",
        "    --conversations <DIR>        your conversation scripts: every *.yml under DIR",
        "The tutorial's scripts are never borrowed.",
        "SCRIPTS:",
    ] {
        assert!(text.contains(expected), "{expected}\n{text}");
    }
}
