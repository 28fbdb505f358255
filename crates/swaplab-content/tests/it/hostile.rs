//! The hostile-payload corpus (`fixtures/hostile/xss-payloads.txt`) through the links the
//! content builds: a chapter widget's "open in playground" href, with each payload as
//! each of its options, must stay a link to the site's own playground. And every piece
//! of markdown the site renders (chapters, exercise briefs, hints and explanations,
//! workshop notes) stays within the renderer's nesting cap and gives only allowed URLs.
use swaplab_content::exercise::exercises;
use swaplab_content::widget::{WidgetKind, parse_widget};
use swaplab_content::workshop::workshop;
use swaplab_core::markdown::{Attr, Document, Node, allowed_url, render, render_with_directives};

use crate::hostile_corpus::{browser_scheme, payloads, url_is_safe};

/// A YAML double-quoted scalar holding `text` exactly.
fn quoted(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 || c == '\u{7f}' || c == '\u{85}' || c == '\u{2028}' => {
                out.push_str(&format!("\\u{:04x}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[test]
fn a_widget_link_stays_on_the_playground_whatever_its_options_hold() {
    let payloads = payloads();
    let (mut tried, mut read) = (0, 0);
    for payload in &payloads {
        for option in ["state", "caption", "file", "check", "tool", "script", "policy", "side"] {
            let kind = match option {
                "file" => WidgetKind::Diff,
                "check" => WidgetKind::Review,
                "tool" => WidgetKind::Tools,
                _ => WidgetKind::Conversation,
            };
            let mut body = format!("kind: {}\n", kind.name());
            if option != "state" {
                body.push_str("state: tutorial\n");
            }
            body.push_str(&format!("{option}: {}\n", quoted(payload)));
            tried += 1;
            let Ok(spec) = parse_widget(&body, 1) else { continue };
            read += 1;
            let href = spec.playground_href();
            assert!(href.starts_with("/play?"), "{href:?} from {body:?}");
            assert_eq!(browser_scheme(&href), None, "{href:?}");
            // The page drops the leading `/` so the link follows the site's base.
            let relative = href.trim_start_matches('/');
            assert_eq!(browser_scheme(relative), None, "{relative:?}");
            assert!(allowed_url(relative).is_some(), "{relative:?}");
        }
    }
    println!(
        "widget links: {} payloads × 8 options = {tried} widget blocks, {read} read, every \
         link to /play",
        payloads.len()
    );
    assert_eq!(tried, payloads.len() * 8);
    assert!(read > payloads.len() * 3, "{read}");
}

/// Every URL in a document: allowed and with a safe scheme.
fn check_urls(doc: &Document, what: &str) {
    fn walk(node: &Node, what: &str) {
        if let Node::Element { attrs, children, .. } = node {
            for (attr, value) in attrs {
                if matches!(attr, Attr::Href | Attr::Src) {
                    assert!(url_is_safe(value), "{what}: {value}");
                }
            }
            children.iter().for_each(|child| walk(child, what));
        }
    }
    doc.nodes.iter().for_each(|node| walk(node, what));
    assert_eq!(doc.limits, [], "{what} nests deeper than the renderer's cap");
}

#[test]
fn the_sites_own_markdown_stays_within_the_renderers_caps() {
    let mut documents = 0;
    for chapter in swaplab_content::chapters() {
        check_urls(&render_with_directives(chapter.markdown, &["widget"]), chapter.slug);
        documents += 1;
    }
    for exercise in exercises().expect("the exercises load") {
        let texts = [&exercise.brief, &exercise.explanation].into_iter().chain(&exercise.hints);
        for text in texts {
            check_urls(&render(text), exercise.id);
            documents += 1;
        }
    }
    for step in workshop().expect("the workshop loads").steps {
        check_urls(&render(&step.notes), &format!("workshop.yml line {}", step.line));
        documents += 1;
    }
    assert!(documents > 20, "{documents}");
}
