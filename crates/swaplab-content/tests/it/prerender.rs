//! The prerendered reading pages: every chapter's full text, headings with anchors and
//! plain links, and — this being the one place Swap Lab writes HTML as text — nothing
//! but allowlisted tags and attributes whatever the markdown holds.

use swaplab_content::chapters;
use swaplab_content::prerender::{document_html, escape, pages};
use swaplab_core::markdown::{Node, Tag, render, render_with_directives};

use crate::hostile_corpus::{MARKDOWN_TAGS, payloads, url_is_safe};

/// The tags the prerender may write besides the markdown allowlist: the page's frame.
const FRAME_TAGS: &[&str] = &["div", "aside", "article", "nav", "figure", "figcaption"];
const ATTRIBUTES: &[&str] =
    &["href", "src", "alt", "title", "id", "class", "start", "value", "aria-label", "aria-current"];

/// Every tag of `html` with its attributes, read as a browser's tokenizer would for
/// this subset: a `<` starts a tag only before a letter or `/`.
fn tags(html: &str) -> Vec<(String, Vec<(String, String)>)> {
    let mut out = Vec::new();
    let bytes = html.as_bytes();
    let mut i = 0;
    while let Some(at) = html[i..].find('<') {
        let start = i + at + 1;
        i = start;
        let Some(&next) = bytes.get(start) else { break };
        if next == b'/' || !next.is_ascii_alphabetic() {
            continue;
        }
        let end = start + html[start..].find('>').expect("a tag ends");
        let inside = &html[start..end];
        let name: String = inside.chars().take_while(|c| c.is_ascii_alphanumeric()).collect();
        let mut attrs = Vec::new();
        let mut rest = &inside[name.len()..];
        while let Some(eq) = rest.find("=\"") {
            let attr = rest[..eq].trim().to_owned();
            let close = rest[eq + 2..].find('"').expect("a closed value") + eq + 2;
            attrs.push((attr, rest[eq + 2..close].to_owned()));
            rest = &rest[close + 1..];
        }
        assert!(rest.trim().is_empty() || rest.trim() == "/", "stray text in <{inside}>");
        out.push((name.to_ascii_lowercase(), attrs));
        i = end;
    }
    out
}

/// What a reader sees of `html`: its text, tags dropped and characters unescaped.
fn text_of(html: &str) -> String {
    let mut out = String::new();
    let mut rest = html;
    while let Some(at) = rest.find('<') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        if after.starts_with(|c: char| c.is_ascii_alphabetic() || c == '/') {
            let end = after.find('>').expect("a tag ends");
            rest = &after[end + 1..];
        } else {
            out.push('<');
            rest = after;
        }
    }
    out.push_str(rest);
    unescape(&out)
}

fn words(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn unescape(value: &str) -> String {
    value
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

fn assert_only_allowed(html: &str, context: &str) {
    for (name, attrs) in tags(html) {
        assert!(
            MARKDOWN_TAGS.contains(&name.as_str()) || FRAME_TAGS.contains(&name.as_str()),
            "<{name}> in {context}"
        );
        for (attr, value) in attrs {
            assert!(ATTRIBUTES.contains(&attr.as_str()), "{attr} on <{name}> in {context}");
            if attr == "href" || attr == "src" {
                assert!(url_is_safe(&unescape(&value)), "{attr}={value:?} in {context}");
            }
        }
    }
}

#[test]
fn every_chapter_is_prerendered_with_its_full_text_headings_and_anchors() {
    let pages = pages();
    assert_eq!(pages[0].path, "learn");
    for c in chapters() {
        let page = pages
            .iter()
            .find(|p| p.path == format!("learn/{}", c.slug))
            .unwrap_or_else(|| panic!("no page for {}", c.slug));
        assert_eq!(page.title, format!("{} — Swap Lab", c.title));
        assert!(!page.description.is_empty() && page.description.chars().count() <= 201);
        assert_eq!(page.markdown, Some(c.markdown));
        let doc = render_with_directives(c.markdown, &["widget"]);
        for heading in &doc.headings {
            assert!(
                page.main.contains(&format!(" id=\"{}\"", escape(&heading.id))),
                "{}",
                heading.id
            );
            assert!(page.main.contains(&escape(&heading.text)), "{}", heading.text);
            if (2..=4).contains(&heading.level) {
                let anchor = format!("href=\"learn/{}#{}\"", c.slug, escape(&heading.id));
                assert!(page.main.contains(&anchor), "{anchor}");
            }
        }
        // Every paragraph's text is on the page, as text, whole.
        let shown = words(&text_of(&page.main));
        let mut paragraphs = 0;
        for node in &doc.nodes {
            if let Node::Element { tag: Tag::P, .. } = node {
                paragraphs += 1;
                let text = words(&node.text());
                assert!(shown.contains(&text), "{}: {text:?}", c.slug);
            }
        }
        assert!(paragraphs > 3, "{} has its paragraphs", c.slug);
        let opened = tags(&page.main).iter().filter(|(name, _)| name == "p").count();
        assert_eq!(opened, page.main.matches("</p>").count(), "{}", c.slug);
        assert_only_allowed(&page.main, &page.path);
    }
    assert_eq!(pages.len(), chapters().len() + 1);
}

#[test]
fn chapter_widgets_are_a_caption_and_a_plain_link_to_the_playground() {
    let page = pages()
        .into_iter()
        .find(|p| p.markdown.is_some_and(|m| m.contains("```widget")))
        .expect("a chapter with a widget");
    assert!(page.main.contains("<figure class=\"widget widget-static\">"));
    assert!(page.main.contains("href=\"play?"), "{}", page.path);
}

#[test]
fn hostile_markdown_through_the_prerender_gives_only_allowed_tags_attributes_and_urls() {
    let payloads = payloads();
    for payload in &payloads {
        let markdown = format!(
            "# {payload}\n\n{payload}\n\n[link]({payload})\n\n![img]({payload} \"{payload}\")\n\n\
             <div onclick=\"{payload}\">{payload}</div>\n\n## {payload}\n\n`{payload}`\n\n\
             ```widget\nkind: proof\nstate: tutorial\ncaption: \"{}\"\n```\n",
            payload.replace('"', "'")
        );
        let html = document_html(&render_with_directives(&markdown, &["widget"]), "learn/x");
        assert_only_allowed(&html, payload);
        let plain = document_html(&render(payload), "learn/x");
        assert_only_allowed(&plain, payload);
    }
    println!(
        "prerender: {} payloads, each in text, links, images, raw HTML and a widget",
        payloads.len()
    );
}
