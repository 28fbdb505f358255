//! The chapter widgets as `cargo xtask dist` prerenders them: the app's own components
//! rendered natively, so the page shows the results the app will show.

use swaplab_core::analysis::Analysis;
use swaplab_web::prerender::widget_html;

fn tutorial() -> Analysis {
    let example = swaplab_content::example("tutorial").unwrap().unwrap();
    Analysis::of(&example.workspace)
}

/// Text as Yew's server renderer escapes it.
fn escaped(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

#[test]
fn a_proof_widget_is_prerendered_with_every_line_the_proof_prints() {
    let html = widget_html("kind: proof\nstate: tutorial\ncaption: Look.\n", 3).unwrap();
    let proof = tutorial().proof;
    assert!(proof.count() > 0, "the tutorial's proof runs checks");
    for check in proof.groups.iter().flat_map(|g| &g.checks) {
        assert!(
            html.contains(&escaped(&check.label)),
            "the prerendered proof lacks “{}”:\n{html}",
            check.label
        );
    }
    assert!(html.contains("class=\"widget widget-proof\""), "{html}");
    assert!(html.contains("<figcaption class=\"widget-caption\">Look.</figcaption>"), "{html}");
}

#[test]
fn a_review_widget_is_prerendered_with_its_verdicts() {
    let html = widget_html("kind: review\nstate: tutorial\n", 1).unwrap();
    let review = tutorial().review;
    for check in &review.checks {
        assert!(
            html.contains(&escaped(&check.title)),
            "the review lacks “{}”:\n{html}",
            check.title
        );
    }
}

#[test]
fn a_widget_that_runs_a_conversation_waits_with_its_button_disabled_until_the_app_runs() {
    let html = widget_html("kind: conversation\nstate: tutorial\n", 1).unwrap();
    assert!(html.contains("widget-idle"), "{html}");
    let button = html.split("<button").nth(1).expect("a Run button");
    assert!(button.split('>').next().unwrap().contains("disabled"), "{html}");
}

#[test]
fn a_widget_naming_a_missing_example_says_so_as_the_app_does() {
    let html = widget_html("kind: proof\nstate: no-such-example\n", 7).unwrap();
    assert!(html.contains("which does not exist"), "{html}");
}

#[test]
fn the_app_pages_are_prerendered_as_the_app_shows_them_to_a_reader_with_nothing_stored() {
    let pages = swaplab_web::prerender::app_pages().unwrap();
    let page = |path: &str| pages.iter().find(|p| p.path == path).unwrap();
    let paths: Vec<&str> = pages.iter().map(|p| p.path.as_str()).collect();
    let exercises = swaplab_content::exercises().unwrap();
    let mut expected = ["play", "", "examples", "exercises", "workshop", "workshop/receipts"]
        .map(str::to_owned)
        .to_vec();
    expected.extend(exercises.iter().map(|info| format!("exercises/{}", info.id)));
    assert_eq!(paths, expected);
    // An exercise's page: its title, its situation as the description, its start files.
    let first = &exercises[0];
    let page_of_first = page(&format!("exercises/{}", first.id));
    assert_eq!(page_of_first.title, format!("{} — Swap Lab", first.title));
    assert!(page_of_first.main.contains("<textarea"), "{}", page_of_first.main);
    assert!(!page_of_first.follows_address);

    // The playground: the default example's files, and its verdicts as the panes say them.
    let play = page("play");
    let analysis = tutorial();
    assert!(play.main.contains("<div class=\"page play\">"), "{}", play.main);
    assert!(play.main.contains(&format!("All {} checks pass", analysis.proof.count())));
    assert!(play.main.contains("<textarea"), "the editor holds the file");
    assert!(play.main.contains("<noscript>"), "JavaScript off is explained");
    assert!(play.follows_address && page("workshop").follows_address);
    assert!(!page("examples").follows_address);

    // Lists: every example and every exercise, linked relative to the base.
    for info in swaplab_content::examples().unwrap() {
        assert!(page("examples").main.contains(&format!("data-example=\"{}\"", info.id)));
    }
    for info in swaplab_content::exercises().unwrap() {
        let link = format!("href=\"./exercises/{}\"", info.id);
        assert!(page("exercises").main.contains(&link), "{link}");
    }
    assert_eq!(page("examples").title, "Examples — Swap Lab");
    for page in &pages {
        assert!(!page.main.contains("href=\"/"), "{}: a link not relative to the base", page.path);
        assert!(page.description.len() > 40, "{}", page.path);
    }
}
