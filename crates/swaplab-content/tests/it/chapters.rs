//! Chapters are checked like code: every widget block names a real kind, state, file,
//! script, tool and check; every internal link resolves, anchors included; the review's
//! "why" links land on headings that exist.

use swaplab_content::exercise::exercise_by_number;
use swaplab_content::widget::{DIRECTIVE, WidgetKind, check_widget, parse_widget};
use swaplab_content::{chapter, chapters, example, exercise, exercises};
use swaplab_core::markdown::{Document, Node, render, render_with_directives};

/// Every `href` in a rendered document.
fn hrefs(doc: &Document) -> Vec<String> {
    fn walk(node: &Node, out: &mut Vec<String>) {
        if let Node::Element { attrs, children, .. } = node {
            out.extend(attrs.iter().filter(|(a, _)| a.name() == "href").map(|(_, v)| v.clone()));
            children.iter().for_each(|c| walk(c, out));
        }
    }
    let mut out = Vec::new();
    doc.nodes.iter().for_each(|n| walk(n, &mut out));
    out
}

fn directives(doc: &Document) -> Vec<(String, String, u32)> {
    fn walk(node: &Node, out: &mut Vec<(String, String, u32)>) {
        match node {
            Node::Directive { name, body, line } => out.push((name.clone(), body.clone(), *line)),
            Node::Element { children, .. } => children.iter().for_each(|c| walk(c, out)),
            Node::Text(_) => {}
        }
    }
    let mut out = Vec::new();
    doc.nodes.iter().for_each(|n| walk(n, &mut out));
    out
}

/// Why a site-relative link does not resolve, if it does not. `page` is the document
/// the link is in, for `#anchor` links.
pub fn broken(href: &str, page: Option<&Document>) -> Option<String> {
    if let Some(anchor) = href.strip_prefix('#') {
        let page = page?;
        return (!page.headings.iter().any(|h| h.id == anchor))
            .then(|| format!("no heading `#{anchor}` on this page"));
    }
    if !href.starts_with('/') {
        return None;
    }
    let (before_hash, anchor) = href.split_once('#').map_or((href, None), |(p, a)| (p, Some(a)));
    let (path, query) = before_hash.split_once('?').unwrap_or((before_hash, ""));
    let params: Vec<(&str, &str)> =
        query.split('&').filter(|p| !p.is_empty()).filter_map(|p| p.split_once('=')).collect();
    match path.trim_end_matches('/') {
        ""
        | "/learn"
        | "/examples"
        | "/exercises"
        | "/workshop"
        | "/workshop/exercises"
        | "/workshop/receipts" => None,
        "/play" => params.iter().find_map(|(k, v)| {
            (*k == "example" && !matches!(example(v), Ok(Some(_))))
                .then(|| format!("no example `{v}`"))
        }),
        p if p.starts_with("/learn/") => {
            let slug = &p["/learn/".len()..];
            let Some(chapter) = chapter(slug) else {
                return Some(format!("no chapter `{slug}`"));
            };
            let doc = render(chapter.markdown);
            anchor
                .filter(|a| !doc.headings.iter().any(|h| h.id == *a))
                .map(|a| format!("chapter `{slug}` has no heading `#{a}`"))
        }
        p if p.starts_with("/exercises/") => {
            let id = &p["/exercises/".len()..];
            (!matches!(exercise(id), Ok(Some(_)))).then(|| format!("no exercise `{id}`"))
        }
        p if p.starts_with("/x/") => {
            let number = &p["/x/".len()..];
            number
                .parse::<u32>()
                .ok()
                .and_then(exercise_by_number)
                .is_none()
                .then(|| format!("no exercise number `{number}`"))
        }
        other => Some(format!("`{other}` is not a route")),
    }
}

#[test]
fn the_tutorial_has_its_chapters_in_order() {
    let slugs: Vec<&str> = chapters().iter().map(|c| c.slug).collect();
    assert_eq!(
        slugs,
        [
            "the-agent",
            "the-swap",
            "what-survives",
            "what-breaks",
            "the-output-schema",
            "where-ids-come-from",
            "check-your-swap",
            "limits"
        ]
    );
}

#[test]
fn every_widget_names_a_real_kind_state_and_options() {
    let mut kinds = Vec::new();
    let mut count = 0;
    for chapter in chapters() {
        let doc = render_with_directives(chapter.markdown, &[DIRECTIVE]);
        for (name, body, line) in directives(&doc) {
            assert_eq!(name, DIRECTIVE);
            let at = format!("content/chapters/{:02}-{}.md:{line}", chapter.number, chapter.slug);
            let spec = parse_widget(&body, line).unwrap_or_else(|e| panic!("{at}: {e}"));
            check_widget(&spec).unwrap_or_else(|e| panic!("{at}: {e}"));
            // The line points at the block's first body line.
            let first = chapter.markdown.lines().nth(line as usize - 1).unwrap_or_default();
            assert!(body.starts_with(first), "{at}: the line is off: {first:?}");
            kinds.push(spec.kind);
            count += 1;
        }
    }
    for kind in WidgetKind::ALL {
        assert!(kinds.contains(&kind), "no chapter has a {} widget", kind.name());
    }
    assert!(count >= 14, "only {count} widgets in the chapters");
}

#[test]
fn every_chapter_has_a_widget_and_ends_in_prose_that_renders() {
    for chapter in chapters() {
        let doc = render_with_directives(chapter.markdown, &[DIRECTIVE]);
        assert!(!directives(&doc).is_empty(), "{} has no widget", chapter.slug);
        assert!(doc.title().is_some(), "{} has no title", chapter.slug);
        // Outside the chapter page a widget block is only code, never a directive.
        assert!(directives(&render(chapter.markdown)).is_empty());
    }
}

#[test]
fn every_internal_link_in_the_content_resolves() {
    let mut checked = 0;
    for chapter in chapters() {
        let doc = render(chapter.markdown);
        for href in hrefs(&doc) {
            if let Some(problem) = broken(&href, Some(&doc)) {
                panic!("chapter {} links to {href}: {problem}", chapter.slug);
            }
            checked += 1;
        }
    }
    for info in exercises().expect("exercises load") {
        let texts = [&info.brief, &info.explanation]
            .into_iter()
            .chain(info.hints.iter())
            .map(|t| render(t));
        for doc in texts {
            for href in hrefs(&doc) {
                if let Some(problem) = broken(&href, Some(&doc)) {
                    panic!("exercise {} links to {href}: {problem}", info.id);
                }
                checked += 1;
            }
        }
    }
    assert!(checked > 10, "only {checked} links checked");
}

#[test]
fn the_reviews_why_links_land_on_chapter_headings() {
    for href in swaplab_core::review::why::ALL {
        assert_eq!(broken(href, None), None, "{href}");
        assert!(href.contains('#'), "{href} names a section");
    }
}

#[test]
fn the_link_checker_itself_refuses_broken_links() {
    let doc = render("# Title\n\n## A section\n");
    for bad in [
        "/learn/no-such-chapter",
        "/learn/the-agent#no-such-heading",
        "/play?example=no-such-example",
        "/exercises/99-nothing",
        "/x/99",
        "/nowhere",
        "#missing",
    ] {
        assert!(broken(bad, Some(&doc)).is_some(), "{bad} passed");
    }
    for good in ["/learn", "/play?example=tutorial", "#a-section", "https://example.com/"] {
        assert_eq!(broken(good, Some(&doc)), None, "{good}");
    }
}

#[test]
fn a_bad_widget_block_is_refused_with_its_line() {
    let cases = [
        ("kind: movie\nstate: tutorial\n", 10, "unknown widget kind `movie`"),
        ("kind: diff\n", 10, "needs `state:`"),
        ("kind: diff\nstate: tutorial\npolicy: confused\n", 10, "has no option `policy`"),
        (
            "kind: conversation\nstate: tutorial\nside: sideways\n",
            10,
            "must be `before` or `after`",
        ),
        ("kind: tools\nstate: tutorial\narguments: '[1]'\n", 10, "must be a JSON object"),
        ("- a list\n", 10, "mapping"),
        ("kind: [unclosed\n", 10, "does not parse"),
        ("", 10, "empty"),
    ];
    for (body, line, want) in cases {
        let error = parse_widget(body, line).expect_err(body);
        assert!(error.message.contains(want), "{body:?}: {}", error.message);
        assert!(error.line >= line, "{body:?}: line {}", error.line);
    }
    let spec = parse_widget("kind: diff\nstate: no-such-example\n", 1).unwrap();
    assert!(check_widget(&spec).unwrap_err().contains("not an example"));
    let spec = parse_widget("kind: trace\nstate: tutorial\nscript: nothing\n", 1).unwrap();
    assert!(check_widget(&spec).unwrap_err().contains("no crm/conversations/nothing.yml"));
    let spec = parse_widget("kind: tools\nstate: tutorial\ntool: list_tickets\n", 1).unwrap();
    assert!(check_widget(&spec).unwrap_err().contains("not a tool"));
    let spec = parse_widget("kind: review\nstate: tutorial\ncheck: \"nothing:\"\n", 1).unwrap();
    assert!(check_widget(&spec).unwrap_err().contains("matches none"));
    let spec = parse_widget("kind: diff\nstate: tutorial\nfile: before/agent.yml\n", 1).unwrap();
    assert!(check_widget(&spec).unwrap_err().contains("not a file the swap changes"));
}

#[test]
fn a_widget_opens_its_state_and_pane_in_the_playground() {
    let spec = parse_widget(
        "kind: conversation\nstate: tutorial\npolicy: confused\nside: before\nscript: caller-names-another\n",
        1,
    )
    .unwrap();
    assert_eq!(
        spec.playground_href(),
        "/play?example=tutorial&tab=conversation&policy=confused&side=before&script=caller-names-another"
    );
    assert_eq!(broken(&spec.playground_href(), None), None);
}
