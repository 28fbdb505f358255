//! Exercises are checked like code: every start state fails its goal, every solution
//! passes it, hints exist before the solution, and a find-it answer is a real line.

use swaplab_content::exercise::{Evaluation, Style, exercise_by_number};
use swaplab_content::progress::Progress;
use swaplab_content::{exercise, exercises};
use swaplab_core::FileRef;

#[test]
fn there_are_enough_exercises_of_both_styles() {
    let all = exercises().expect("every exercise.yml parses");
    assert!(all.len() >= 6, "{} exercises", all.len());
    assert!(all.iter().any(|e| e.style == Style::FindIt));
    assert!(all.iter().any(|e| e.style == Style::FixIt));
    let numbers: Vec<u32> = all.iter().map(|e| e.number).collect();
    assert_eq!(numbers, (1..=all.len() as u32).collect::<Vec<_>>(), "numbered 1..n in order");
    for info in &all {
        assert_eq!(exercise_by_number(info.number), Some(info.id));
    }
}

#[test]
fn every_start_fails_its_goal_and_every_solution_passes() {
    for info in exercises().unwrap() {
        let ex = exercise(info.id).unwrap().unwrap();
        assert!(!ex.info.hints.is_empty(), "{}: no hints", info.id);
        assert!(!ex.info.goal.is_empty() && !ex.info.brief.is_empty());
        let at_start = Evaluation::compute(&ex, &ex.start, None);
        assert!(!at_start.done(), "{}: the start already meets the goal", info.id);
        match info.style {
            Style::FixIt => {
                assert!(!info.solution.is_empty(), "{}: a fix-it needs a solution", info.id);
                assert!(!info.checks.is_empty(), "{}: a fix-it needs checks", info.id);
                assert_ne!(ex.start, ex.solution);
                let solved = Evaluation::compute(&ex, &ex.solution, None);
                assert!(solved.done(), "{}: the solution does not pass: {:#?}", info.id, solved);
                // Every check fails somewhere: at the start, at least one of them.
                assert!(at_start.results.iter().any(|r| !r.met && r.detail.is_some()));
            }
            Style::FindIt => {
                let find = info.find.as_ref().expect("find-it has find");
                let lines = find.accepted_lines(&ex.start);
                assert!(!lines.is_empty(), "{}: no line of {} matches", info.id, find.file);
                let right = (find.file.clone(), lines[0]);
                assert!(Evaluation::compute(&ex, &ex.start, Some(&right)).done(), "{}", info.id);
                let wrong = (find.file.clone(), 1);
                assert!(!lines.contains(&1));
                assert!(!Evaluation::compute(&ex, &ex.start, Some(&wrong)).done());
                let elsewhere = (FileRef::parse("crm/crm.yml").unwrap(), lines[0]);
                assert!(!Evaluation::compute(&ex, &ex.start, Some(&elsewhere)).done());
            }
        }
    }
}

#[test]
fn a_half_fix_does_not_pass() {
    // Closing the leak by deleting the confirmation must not count.
    let ex = exercise("07-close-the-leak").unwrap().unwrap();
    let mut ws = ex.solution.clone();
    let file = FileRef::parse("after/skills/log_interaction/skill.md").unwrap();
    let text = ws.file(&file).unwrap().replace(
        "requires_confirmation:\n        enabled: true",
        "requires_confirmation:\n        enabled: false",
    );
    ws.set_file(&file, &text);
    let eval = Evaluation::compute(&ex, &ws, None);
    assert!(!eval.done());
    let failed: Vec<&str> =
        eval.results.iter().filter(|r| !r.met).map(|r| r.label.as_str()).collect();
    assert!(failed.iter().any(|l| l.contains("asks the caller")), "{failed:?}");
}

#[test]
fn an_attack_with_no_one_to_attack_closes_no_leak() {
    // The solution, with Sam Rivera gone from the seed: nothing fails, but the attack
    // has no other customer's id to pass, so neither "leaks: 0" nor "review: pass" holds.
    let ex = exercise("07-close-the-leak").unwrap().unwrap();
    let mut ws = ex.solution.clone();
    let seed = FileRef::parse("crm/crm.yml").unwrap();
    let sam = "  - id: \"702\"\n    firstname: Sam\n    lastname: Rivera\n    company: Rivera Foods\n    email: sam.rivera@example.com\n";
    let text = ws.file(&seed).unwrap().replacen(sam, "", 1);
    ws.set_file(&seed, &text);
    let eval = Evaluation::compute(&ex, &ws, None);
    let result = |label: &str| {
        eval.results.iter().find(|r| r.label == label).unwrap_or_else(|| panic!("{eval:#?}"))
    };
    let leaks = result("The attack runs after the swap and finds no leak");
    assert!(!leaks.met);
    assert_eq!(
        leaks.detail.as_deref(),
        Some(
            "the attack could not run: the CRM seed has fewer than two contacts, so there is no other customer's id to pass"
        )
    );
    let review = result("The review passes");
    assert!(!review.met);
    assert_eq!(review.detail.as_deref(), Some("nothing fails, but not tested: leak"));
    assert!(Evaluation::compute(&ex, &ex.solution, None).done());
}

#[test]
fn progress_round_trips_and_survives_damage() {
    let mut progress = Progress::default();
    progress.update("01-point-at-the-leak", |p| p.done = true);
    progress.update("03-structured-result", |p| {
        p.hints_shown = 2;
        p.solution_shown = true;
    });
    let text = progress.encode();
    assert_eq!(Progress::decode(&text), progress);
    assert_eq!(progress.done(), ["01-point-at-the-leak"]);
    // A damaged line is dropped, the others kept; a foreign format reads as empty.
    let damaged = text.replace("03-structured-result open 2", "03-structured-result open many");
    assert_eq!(Progress::decode(&damaged).done(), ["01-point-at-the-leak"]);
    assert_eq!(Progress::decode("{\"json\": true}"), Progress::default());
    assert_eq!(Progress::decode(""), Progress::default());
    let hostile = format!("swaplab-progress 1\n<script> done 1 -\n{} done 0 -\n", "a".repeat(200));
    assert_eq!(Progress::decode(&hostile), Progress::default());
}
