//! The hostile-payload corpus (`fixtures/hostile/xss-payloads.txt`) through every way the
//! core turns content into view nodes or URLs: each payload alone and in a dozen markdown
//! positions, through `markdown::render` and `render_with_directives`, through
//! `allowed_url` directly, and the review's "why" links over a workspace full of them.
//! Nothing may come out but the renderer's safe tags and attributes, no attribute may be
//! an event handler, and every URL must have a scheme a browser would read as http, https
//! or mailto, or none (relative), as `hostile_corpus::browser_scheme` finds it.
// The tests print how many payloads and positions they tried; the core prints nothing.
#![allow(clippy::disallowed_macros)]

use swaplab_core::markdown::{
    Attr, Document, Node, Tag, allowed_url, render, render_with_directives,
};
use swaplab_core::review::{review, why};
use swaplab_core::sim::attack::AttackOptions;

use crate::hostile_corpus::{MARKDOWN_TAGS as TAGS, browser_scheme, payloads, url_is_safe};
use crate::support::{edit, tutorial_workspace};

const ATTRS: [&str; 7] = ["href", "src", "alt", "title", "id", "class", "start"];

fn class_is_known(class: &str) -> bool {
    matches!(
        class,
        "task"
            | "link-blocked"
            | "callout note"
            | "callout tip"
            | "callout important"
            | "callout warning"
            | "callout caution"
    ) || class.strip_prefix("language-").is_some_and(|language| {
        !language.is_empty()
            && language.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_'))
    })
}

#[derive(Default)]
struct Tally {
    documents: usize,
    urls: usize,
    blocked: usize,
}

/// Walks a document and fails on anything outside the safe set.
fn check_document(doc: &Document, input: &str, tally: &mut Tally) {
    fn walk(node: &Node, input: &str, tally: &mut Tally) {
        let Node::Element { tag, attrs, children } = node else { return };
        assert!(TAGS.contains(&tag.name()), "<{}> from {input:?}", tag.name());
        for (attr, value) in attrs {
            let name = attr.name();
            assert!(ATTRS.contains(&name), "{name} from {input:?}");
            assert!(!name.to_ascii_lowercase().starts_with("on"), "{name} from {input:?}");
            match attr {
                Attr::Href | Attr::Src => {
                    tally.urls += 1;
                    assert!(url_is_safe(value), "{name}={value:?} from {input:?}");
                    assert_eq!(allowed_url(value).as_deref(), Some(value.as_str()), "stable");
                }
                Attr::Class => assert!(class_is_known(value), "class={value:?} from {input:?}"),
                Attr::Id => assert!(
                    value.chars().all(|c| c.is_alphanumeric() || c == '-'),
                    "id={value:?} from {input:?}"
                ),
                Attr::Start => assert!(value.parse::<u64>().is_ok(), "start={value:?}"),
                Attr::Alt | Attr::Title => {}
            }
        }
        let blocked_link = *tag == Tag::Span
            && attrs.iter().any(|(a, v)| *a == Attr::Class && v == "link-blocked");
        let blocked_image = *tag == Tag::Img && !attrs.iter().any(|(a, _)| *a == Attr::Src);
        if blocked_link || blocked_image {
            tally.blocked += 1;
        }
        if tag.is_void() {
            assert!(children.is_empty(), "<{}> with children from {input:?}", tag.name());
        }
        children.iter().for_each(|child| walk(child, input, tally));
    }
    tally.documents += 1;
    doc.nodes.iter().for_each(|node| walk(node, input, tally));
    for heading in &doc.headings {
        assert!(heading.id.chars().all(|c| c.is_alphanumeric() || c == '-'), "{heading:?}");
    }
}

/// Every position a payload is tried in, as markdown around it.
fn positions(payload: &str) -> Vec<String> {
    vec![
        payload.to_owned(),
        format!("[link]({payload})"),
        format!("![image]({payload})"),
        format!("<{payload}>"),
        format!("[r]\n\n[r]: {payload}"),
        format!("- item\n- {payload}"),
        format!("> {payload}"),
        format!("| a |\n|---|\n| {payload} |"),
        format!("## {payload}"),
        format!("Some **{payload}** text"),
        format!("[{payload}](https://ok.example \"{payload}\")"),
        format!("![{payload}](x.png '{payload}')"),
    ]
}

#[test]
fn no_payload_gets_through_any_markdown_entry_point() {
    let payloads = payloads();
    let mut tally = Tally::default();
    let mut documents = 0;
    for payload in &payloads {
        for markdown in positions(payload) {
            check_document(&render(&markdown), &markdown, &mut tally);
            check_document(&render_with_directives(&markdown, &["widget"]), &markdown, &mut tally);
            documents += 2;
        }
        // Raw HTML stays visible as the text it is.
        if payload.starts_with("<script") || payload.starts_with("<img") {
            let shown: String = render(payload).nodes.iter().map(Node::text).collect();
            assert!(shown.contains('<'), "{payload:?} → {shown:?}");
        }
    }
    assert_eq!(documents, payloads.len() * positions("").len() * 2);
    println!(
        "hostile markdown: {} payloads × {} positions × 2 renderers = {} documents, {} URLs \
         checked, {} links or images blocked",
        payloads.len(),
        positions("").len(),
        tally.documents,
        tally.urls,
        tally.blocked
    );
    assert!(tally.blocked > payloads.len(), "the scheme allowlist blocked links");
}

#[test]
fn the_url_allowlist_never_passes_a_scheme_a_browser_would_run() {
    let payloads = payloads();
    let mut blocked = 0;
    for payload in &payloads {
        match allowed_url(payload) {
            Some(url) => assert!(url_is_safe(&url), "{payload:?} → {url:?}"),
            None => blocked += 1,
        }
        // The link destinations the corpus writes, taken out of their markdown.
        if let Some(inner) = payload.strip_prefix("[x](").and_then(|p| p.strip_suffix(')')) {
            let url = allowed_url(inner);
            assert!(url.as_deref().is_none_or(url_is_safe), "{inner:?} → {url:?}");
        }
    }
    println!("allowed_url: {} payloads, {blocked} refused outright", payloads.len());
    // The independent scheme reader agrees with the browser on the classic tricks.
    for (url, scheme) in [
        ("java\tscript:alert(1)", Some("javascript")),
        ("\u{1} JavaScript:x", Some("javascript")),
        ("//evil.example/x", None),
        ("%6Aavascript:x", None),
        ("jav\u{430}script:x", None),
        ("mailto:a@b", Some("mailto")),
    ] {
        assert_eq!(browser_scheme(url).as_deref(), scheme, "{url:?}");
    }
}

#[test]
fn review_links_stay_on_the_site_whatever_the_skills_say() {
    for link in why::ALL {
        assert!(link.starts_with("/learn/") && url_is_safe(link), "{link}");
        assert_eq!(allowed_url(link).as_deref(), Some(link));
    }
    // A workspace whose skill prose and descriptions hold the whole corpus.
    let mut workspace = tutorial_workspace();
    let corpus = payloads().join("\n\n");
    let skill = "after/skills/check_tickets/skill.md";
    let text = workspace.file(&swaplab_core::FileRef::parse(skill).unwrap()).unwrap().to_owned();
    let (_, body) = text.split_once("\n---\n").expect("frontmatter");
    edit(&mut workspace, skill, body, &format!("{body}\n{corpus}\n"));
    let before = "before/skills/check_tickets/skill.md";
    edit(&mut workspace, before, "---\n", &format!("---\n# {}\n", payloads()[0]));
    let report = review(&workspace, &AttackOptions::default());
    assert!(!report.checks.is_empty());
    for check in &report.checks {
        assert!(why::ALL.contains(&check.why), "{}: {}", check.id, check.why);
    }
}
