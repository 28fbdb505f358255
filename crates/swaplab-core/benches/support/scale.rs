//! Generated workspaces for the scaling benchmarks, built from the tutorial: N skills (the
//! tutorial's three, copied with numbered names, tools and server tools), CRM seeds of any
//! size, and a skill whose `skill.md` is about 1 MB of prose. Used through
//! `#[path = "support/scale.rs"] mod scale;` next to `support/tutorial.rs`; built once,
//! outside the measured loops.
#![allow(dead_code)]

use swaplab_core::diagnostic::{Position, Span};
use swaplab_core::sim::crm::{Contact, CrmSeed, Ticket, read_seed};
use swaplab_core::{Area, FileRef, Workspace};

use super::tutorial::tutorial;

/// The names one copy of the tutorial's skills renames: its three skills and three tools.
const NAMES: [&str; 6] = [
    "check_tickets",
    "identify_customer",
    "log_interaction",
    "list_open_tickets",
    "find_contact_by_email",
    "add_timeline_note",
];

/// The tutorial's text with every skill and tool name of copy `copy` numbered (copy 0
/// keeps the tutorial's names, so its conversation script still applies).
fn renamed(text: &str, copy: usize) -> String {
    if copy == 0 {
        return text.to_owned();
    }
    NAMES.iter().fold(text.to_owned(), |text, name| text.replace(name, &format!("{name}_{copy}")))
}

fn file(path: &str) -> FileRef {
    FileRef::parse(path).unwrap_or_else(|| panic!("{path} is a workspace path"))
}

/// The tutorial with `skills` skills on each side (a multiple of three): copy `i` of the
/// three tutorial skills is `check_tickets_i`, `identify_customer_i`, `log_interaction_i`,
/// with their own tools — local modules before the swap, `mcp/hubspot_crm:<tool>_i`
/// imports after it — and the server file carries every copy's three tools, so the
/// attack probes all of them.
pub fn workspace(skills: usize) -> Workspace {
    assert!(skills >= 3 && skills.is_multiple_of(3), "{skills} skills: a multiple of three");
    let tutorial = tutorial();
    let mut workspace = tutorial.clone();
    let copies = skills / 3;
    for (area, project) in [(Area::Before, &tutorial.before), (Area::After, &tutorial.after)] {
        for (path, text) in project.files() {
            let (skill_file, shared_tool) =
                (path.starts_with("skills/"), path.starts_with("tools/"));
            if !skill_file && !shared_tool {
                continue;
            }
            for copy in 1..copies {
                let target = if shared_tool {
                    path.replace(".py", &format!("_{copy}.py"))
                } else {
                    renamed(path, copy)
                };
                workspace.set_file(&FileRef::new(area, target), renamed(text, copy));
            }
        }
    }
    let server = "server/scripts/mcp_crm_server.py";
    let text = tutorial.file(&file(server)).expect("the tutorial's server");
    let start = text.find("\n\n@mcp.tool(").expect("the server's first tool");
    let end = text.find("\n\nif __name__").expect("the server's main guard");
    let tools = &text[start..end];
    let mut grown = text[..end].to_owned();
    for copy in 1..copies {
        grown.push_str(&renamed(tools, copy));
    }
    grown.push_str(&text[end..]);
    workspace.set_file(&file(server), grown);
    workspace
}

/// The tutorial's seed plus generated customers, each with one ticket, to `records`
/// contacts and tickets in all (at least the tutorial's four). Dana Okafor keeps the most
/// records, so the attack and the script pick the same two customers at every size.
pub fn seed_yaml(records: usize) -> String {
    assert!(records >= 4 && records.is_multiple_of(2), "{records} records: even, at least 4");
    let extra = (records - 4) / 2;
    let mut contacts = String::from(
        "contacts:\n\
         \x20 - {id: \"701\", firstname: Dana, lastname: Okafor, company: Okafor Logistics, email: dana.okafor@example.com}\n\
         \x20 - {id: \"702\", firstname: Sam, lastname: Rivera, company: Rivera Foods, email: sam.rivera@example.com}\n",
    );
    let mut tickets = String::from(
        "tickets:\n\
         \x20 - {id: \"9001\", contact: \"701\", subject: Invoice 4471 shows the wrong VAT rate, stage: waiting_on_us, created: \"2026-08-11\"}\n\
         \x20 - {id: \"9002\", contact: \"701\", subject: Add a second admin to the account, stage: waiting_on_contact, created: \"2026-08-19\"}\n",
    );
    for n in 0..extra {
        let (contact, ticket) = (200_000 + n, 500_000 + n);
        contacts.push_str(&format!(
            "  - {{id: \"{contact}\", firstname: Alex, lastname: Customer{n}, company: Company {n}, email: customer{n}@example.com}}\n"
        ));
        tickets.push_str(&format!(
            "  - {{id: \"{ticket}\", contact: \"{contact}\", subject: Question {n} about an invoice, stage: waiting_on_us, created: \"2026-09-01\"}}\n"
        ));
    }
    format!("{contacts}\n{tickets}\nnext_note_id: 10000\n")
}

/// The same records as [`seed_yaml`], built in memory: `crm.yml` holds at most
/// `MAX_CRM_RECORDS` records (and 1 MiB), but a seed built in code is not capped.
pub fn seed(records: usize) -> CrmSeed {
    let mut seed = read_seed("crm.yml", &seed_yaml(4));
    assert!(seed.diagnostics.is_empty(), "{:?}", seed.diagnostics);
    let span = Span::point(Position::START);
    for n in 0..(records - 4) / 2 {
        let (contact, ticket) = ((200_000 + n).to_string(), (500_000 + n).to_string());
        seed.contacts.push(Contact {
            id: contact.clone(),
            firstname: "Alex".into(),
            lastname: format!("Customer{n}"),
            company: format!("Company {n}"),
            email: format!("customer{n}@example.com"),
            span,
        });
        seed.tickets.push(Ticket {
            id: ticket,
            contact,
            subject: format!("Question {n} about an invoice"),
            stage: "waiting_on_us".into(),
            created: "2026-09-01".into(),
            span,
        });
    }
    seed
}

/// The tutorial with `crm/crm.yml` holding `records` records.
pub fn workspace_with_records(records: usize) -> Workspace {
    let mut workspace = tutorial();
    workspace.set_file(&file("crm/crm.yml"), seed_yaml(records));
    workspace
}

/// About `bytes` of prose paragraphs in the tutorial's words, each paragraph numbered so
/// that no two lines are the same.
pub fn prose(bytes: usize) -> String {
    let tutorial = tutorial();
    let skill = tutorial.file(&file("after/skills/log_interaction/skill.md")).expect("a skill");
    let body = skill.split("\n---\n").nth(1).expect("a body after the frontmatter");
    let paragraphs: Vec<&str> = body
        .split("\n\n")
        .filter(|p| !p.starts_with(":::") && !p.trim().is_empty())
        .map(str::trim)
        .collect();
    let mut text = String::new();
    let mut n = 0;
    while text.len() < bytes {
        let paragraph = paragraphs[n % paragraphs.len()];
        text.push_str(&format!("Case {n}: {paragraph}\n\n"));
        n += 1;
    }
    text
}

/// The tutorial with `check_tickets`' `skill.md` grown to about 1 MB (under the 1 MiB
/// file cap) with prose on both sides; the swap still changes only its frontmatter.
pub fn workspace_with_large_skill() -> Workspace {
    let mut workspace = tutorial();
    let extra = prose(1_000_000);
    for side in ["before", "after"] {
        let path = file(&format!("{side}/skills/check_tickets/skill.md"));
        let text = workspace.file(&path).expect("the tutorial's skill");
        let grown = format!("{text}\n{extra}");
        assert!(grown.len() < 1024 * 1024, "{} bytes", grown.len());
        workspace.set_file(&path, grown);
    }
    workspace
}

/// `workspace` with one line of prose added to the *after* side's `check_tickets`
/// skill — what one keystroke's worth of typing changes.
pub fn with_one_skill_edited(workspace: &Workspace) -> Workspace {
    let path = file("after/skills/check_tickets/skill.md");
    let mut text = workspace.file(&path).expect("the tutorial's check_tickets skill").to_owned();
    text.push_str("\nKeep the answer short.\n");
    let mut edited = workspace.clone();
    edited.set_file(&path, text);
    edited
}
