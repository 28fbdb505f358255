//! The workshop plan: the format on fixtures, errors that name the line, and the
//! embedded plan (once it exists) naming only real chapters and exercises.

use swaplab_content::workshop::{StepTarget, check_targets, parse_workshop, workshop};
use swaplab_content::{chapters, exercises, files};

const PLAN: &str = "\
title: Is the MCP server a drop-in replacement?
steps:
  - chapter: the-agent
    minutes: 5
    notes: |
      Open with the **question**.

      - point at `contact_id`
  - exercise: 01-point-at-the-leak
    minutes: 10
  - chapter: the-swap
    minutes: 7
    notes: ~
";

#[test]
fn a_plan_reads_into_steps() {
    let plan = parse_workshop(PLAN).expect("parses");
    assert_eq!(plan.title, "Is the MCP server a drop-in replacement?");
    let steps: Vec<(StepTarget, u32, u32)> =
        plan.steps.iter().map(|s| (s.target.clone(), s.minutes, s.line)).collect();
    assert_eq!(
        steps,
        [
            (StepTarget::Chapter("the-agent".into()), 5, 3),
            (StepTarget::Exercise("01-point-at-the-leak".into()), 10, 9),
            (StepTarget::Chapter("the-swap".into()), 7, 11),
        ]
    );
    assert_eq!(plan.steps[0].notes, "Open with the **question**.\n\n- point at `contact_id`");
    assert_eq!(plan.steps[1].notes, "");
    assert_eq!(plan.steps[2].notes, "");
    assert_eq!(plan.total_minutes(), 22);
    assert_eq!(plan.minutes_before(2), 15);
    assert_eq!(plan.minutes_before(9), 22);

    check_targets(&plan, &["the-agent", "the-swap"], &["01-point-at-the-leak"]).expect("known");
    let missing = check_targets(&plan, &["the-agent"], &["01-point-at-the-leak"]).unwrap_err();
    assert_eq!(missing.path, "workshop.yml");
    assert!(missing.message.starts_with("line 11: there is no chapter `the-swap`"), "{missing}");
}

fn check_error(text: &str, want: &str) {
    match parse_workshop(text) {
        Ok(plan) => panic!("{text:?} was read as {plan:?}"),
        Err(e) => assert!(e.to_string().contains(want), "{text:?}: {e} lacks {want:?}"),
    }
}

#[test]
fn mistakes_are_named_with_their_line() {
    let cases: &[(&str, &str)] = &[
        ("", "line 1: the file is empty"),
        ("- a\n", "line 1: the file must be a mapping"),
        ("steps: []\n", "line 1: the file needs a `title:`"),
        ("title: [x]\nsteps: []\n", "line 1: `title` must be text"),
        ("title: T\n", "the file needs `steps:`"),
        ("title: T\nsteps: {}\n", "line 2: `steps` must be a list"),
        ("title: T\nsteps: []\n", "line 2: `steps` lists no step"),
        ("title: T\nsteps:\n  - 3\n", "line 3: step 1: a step is a mapping"),
        ("title: T\nagenda: 1\nsteps: []\n", "line 2: unknown key `agenda`"),
        (
            "title: T\nsteps:\n  - chapter: a\n    minutes: 1\n  - chapter: b\n    minuets: 3\n",
            "line 6: unknown key `minuets` (known: chapter, exercise, minutes, notes) (in step 2)",
        ),
        (
            "title: T\nsteps:\n  - minutes: 3\n",
            "line 3: step 1: a step needs `chapter:` or `exercise:`",
        ),
        (
            "title: T\nsteps:\n  - chapter: a\n    exercise: b\n    minutes: 3\n",
            "line 3: step 1: a step is a chapter or an exercise, not both",
        ),
        (
            "title: T\nsteps:\n  - chapter: The Agent\n    minutes: 3\n",
            "line 3: step 1: `chapter` must be a name",
        ),
        ("title: T\nsteps:\n  - chapter: a\n", "line 3: step 1: a step needs `minutes:`"),
        (
            "title: T\nsteps:\n  - chapter: a\n    minutes: 0\n",
            "line 4: step 1: `minutes` must be a whole number",
        ),
        (
            "title: T\nsteps:\n  - chapter: a\n    minutes: 2.5\n",
            "line 4: step 1: `minutes` must be",
        ),
        (
            "title: T\nsteps:\n  - chapter: a\n    minutes: \"5\"\n",
            "line 4: step 1: `minutes` must be",
        ),
        (
            "title: T\nsteps:\n  - chapter: a\n    minutes: 5\n    notes: [1]\n",
            "line 5: step 1: `notes` must be text",
        ),
        ("title: T\nsteps:\n  - chapter: a\n   minutes: 5\n", "line 4"),
    ];
    for (text, want) in cases {
        check_error(text, want);
    }
}

#[test]
fn garbage_never_panics() {
    let pieces = [
        "title: T\n",
        "steps:\n",
        "  - chapter: a\n",
        "    minutes: 3\n",
        "notes: |\n",
        "  - ",
        "{",
        "[",
        ": ",
        "\t",
        "&a ",
        "*a\n",
        "- ",
        "\"",
        "\n",
    ];
    let mut state: u64 = 0x1234_5678_9ABC_DEF1;
    for _ in 0..3000 {
        let mut text = String::new();
        for _ in 0..(state % 12) {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            text.push_str(pieces[(state % pieces.len() as u64) as usize]);
        }
        let _ = parse_workshop(&text);
    }
}

#[test]
fn the_embedded_plan_names_real_chapters_and_exercises() {
    // The plan is written alongside this code; until it is there, there is nothing to check.
    if !files().iter().any(|(path, _)| *path == "workshop.yml") {
        assert!(workshop().is_err());
        return;
    }
    let plan = workshop().unwrap_or_else(|e| panic!("{e}"));
    let slugs: Vec<&str> = chapters().iter().map(|c| c.slug).collect();
    let ids: Vec<&str> = exercises().expect("exercises load").iter().map(|e| e.id).collect();
    for step in &plan.steps {
        match &step.target {
            StepTarget::Chapter(slug) => assert!(slugs.contains(&slug.as_str())),
            StepTarget::Exercise(id) => assert!(ids.contains(&id.as_str())),
        }
        assert!(swaplab_core::markdown::render(&step.notes).nodes.len() < 10_000);
    }
}
