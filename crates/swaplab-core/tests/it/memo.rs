//! The memo a shell keeps between reruns: the same results as without it, the unchanged
//! files' work reused, an edited file's redone, and nothing kept that the latest run did
//! not use.

use std::sync::Arc;

use swaplab_core::memo::Memo;
use swaplab_core::review::review_with;
use swaplab_core::sim::Simulation;

use crate::support::{edit, tutorial_workspace};

const CHECK_TICKETS: &str = "after/skills/check_tickets/skill.md";

#[test]
fn a_memo_changes_no_result_and_reuses_only_what_did_not_change() {
    let first = tutorial_workspace();
    let mut second = first.clone();
    edit(&mut second, CHECK_TICKETS, "Call `list_open_tickets`.", "Call `list_open_tickets` once.");

    let mut memo = Memo::new();
    let one = Simulation::with_memo(&first, &mut memo);
    let two = Simulation::with_memo(&second, &mut memo);
    for (with, workspace) in [(&one, &first), (&two, &second)] {
        let without = Simulation::new(workspace);
        assert_eq!(with.report, without.report);
        assert_eq!(with.seed, without.seed);
        assert_eq!(
            review_with(with, &Default::default()),
            review_with(&without, &Default::default())
        );
    }

    let entry = |sim: &Simulation, side: usize, dir: &str| {
        let project = if side == 0 { &sim.report.before } else { &sim.report.after };
        project.skills.iter().find(|e| e.dir == dir).cloned().expect("the skill's directory")
    };
    // Untouched directories are the very same values; the edited one was read again.
    assert!(Arc::ptr_eq(
        &entry(&one, 1, "identify_customer"),
        &entry(&two, 1, "identify_customer")
    ));
    assert!(Arc::ptr_eq(&entry(&one, 0, "check_tickets"), &entry(&two, 0, "check_tickets")));
    assert!(!Arc::ptr_eq(&entry(&one, 1, "check_tickets"), &entry(&two, 1, "check_tickets")));
    // The project no edit touched is the very same report; the edited one is new.
    assert!(Arc::ptr_eq(&one.report.before, &two.report.before));
    assert!(!Arc::ptr_eq(&one.report.after, &two.report.after));
    let edited = entry(&two, 1, "check_tickets");
    let skill = edited.loaded().expect("the edited skill loads");
    assert!(skill.segments().any(|segment| segment.text.contains("once.")));
}

#[test]
fn an_attack_is_run_again_only_on_a_side_whose_inputs_changed() {
    let first = tutorial_workspace();
    let mut second = first.clone();
    edit(&mut second, CHECK_TICKETS, "Call `list_open_tickets`.", "Call `list_open_tickets` once.");
    // The seed is an input too: another caller and victim for both sides.
    let mut third = second.clone();
    edit(&mut third, "crm/crm.yml", "Dana", "Dane");
    let options = Default::default();

    let mut memo = Memo::new();
    let mut kept = Vec::new();
    for workspace in [&first, &second, &second, &third] {
        let with = Simulation::with_memo(workspace, &mut memo);
        assert_eq!(with.attack(&options), Simulation::new(workspace).attack(&options));
        kept.push(memo.attacks_kept());
    }
    // Run 1 runs both sides; run 2 only the edited after side (the before side's attack
    // is found); run 3 nothing; run 4, with another seed, both sides again. Entries the
    // latest two runs did not use are dropped.
    assert_eq!(kept, [2, 3, 2, 4]);
    // Other options are other inputs.
    let with = Simulation::with_memo(&third, &mut memo);
    let options = swaplab_core::sim::attack::AttackOptions {
        victim: Some("702".into()),
        ..Default::default()
    };
    assert_eq!(with.attack(&options), Simulation::new(&third).attack(&options));
    // A reader trying many options keeps at most eight attacks.
    for victim in 0..20 {
        let options = swaplab_core::sim::attack::AttackOptions {
            victim: Some(format!("no-such-contact-{victim}")),
            ..Default::default()
        };
        let _ = with.attack(&options);
    }
    assert_eq!(memo.attacks_kept(), 8);
}

#[test]
fn a_memo_keeps_only_what_the_latest_run_used() {
    let workspace = tutorial_workspace();
    let mut memo = Memo::new();
    let _ = Simulation::with_memo(&workspace, &mut memo);
    let full = memo.len();
    assert!(full > 0);
    // Another version of the same files, twice: the memo holds one version's worth.
    let mut edited = workspace.clone();
    edit(&mut edited, CHECK_TICKETS, "Call `list_open_tickets`.", "Call `list_open_tickets` once.");
    let _ = Simulation::with_memo(&edited, &mut memo);
    let _ = Simulation::with_memo(&edited, &mut memo);
    assert_eq!(memo.len(), full);
    // An empty workspace leaves nothing behind.
    let _ = Simulation::with_memo(&swaplab_core::Workspace::default(), &mut memo);
    assert!(memo.is_empty(), "{memo:?}");
}

#[test]
fn an_edit_that_keeps_a_files_length_and_ends_is_still_seen() {
    // The memo's buckets are picked by each file's length and ends; the full text decides.
    let first = tutorial_workspace();
    let mut second = first.clone();
    edit(&mut second, CHECK_TICKETS, "Call `list_open_tickets`.", "CALL `list_open_tickets`.");
    let path = "skills/check_tickets/skill.md";
    let old = first.after.file(path).map(str::len);
    assert!(old.is_some());
    assert_eq!(old, second.after.file(path).map(str::len));

    let mut memo = Memo::new();
    for workspace in [&first, &second, &first, &second] {
        let with = Simulation::with_memo(workspace, &mut memo);
        assert_eq!(with.report, Simulation::new(workspace).report);
    }
    let two = Simulation::with_memo(&second, &mut memo);
    let skill = two.report.after.skill("check_tickets").expect("the edited skill loads");
    assert!(skill.segments().any(|segment| segment.text.contains("CALL `list_open_tickets`")));
}

#[test]
fn an_attack_takes_a_skills_probes_from_the_last_only_when_nothing_they_see_changed() {
    let options = Default::default();
    let mut memo = Memo::new();
    let mut workspace = tutorial_workspace();
    // Each step edits the workspace; then the attack with the memo must equal the attack
    // without one, and the memo says how many skills' probes it took instead of running.
    let mut step = |workspace: &swaplab_core::Workspace| {
        let with = Simulation::with_memo(workspace, &mut memo);
        assert_eq!(with.attack(&options), Simulation::new(workspace).attack(&options));
        memo.attack_skills_reused()
    };
    assert_eq!(step(&workspace), 0, "the first attack has nothing to take from");

    // One skill's prose: the after side's other two skills are taken as they were.
    edit(&mut workspace, CHECK_TICKETS, "Call `list_open_tickets`.", "Call it once.");
    assert_eq!(step(&workspace), 2);
    // A skill's own responses are its directory: the same.
    let responses = "after/skills/log_interaction/responses.yml";
    edit(&mut workspace, responses, "Shall I add this", "May I add this");
    assert_eq!(step(&workspace), 2);
    // A skill's memory contract is seen by every skill (visibility): nothing is taken.
    let memory = "after/skills/log_interaction/memory.yml";
    edit(&mut workspace, memory, "One or two factual sentences", "One factual sentence");
    assert_eq!(step(&workspace), 0);
    // So is the project's memory, which the identification writes.
    edit(&mut workspace, "after/memory.yml", "company:\n  type: text", "company:\n  type: any");
    assert_eq!(step(&workspace), 0);
    // A tool module is compiled anew: the before side runs every skill again.
    let tools = "before/skills/check_tickets/tools.py";
    edit(&mut workspace, tools, "\"not_identified\"", "\"not identified\"");
    assert_eq!(step(&workspace), 0);
    // Another server: no earlier attack had it.
    let server = "server/scripts/mcp_crm_server.py";
    edit(&mut workspace, server, "List the open support tickets", "List the support tickets");
    assert_eq!(step(&workspace), 0);
    // Back to an edit of one skill: reused again.
    edit(&mut workspace, CHECK_TICKETS, "Call it once.", "Call it.");
    assert_eq!(step(&workspace), 2);
}
