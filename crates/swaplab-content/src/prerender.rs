//! The site's reading pages as HTML, written at build time (`cargo xtask dist`) so a
//! chapter is readable before any wasm arrives, with JavaScript off, and when a link to
//! it is pasted into a chat (each page's title and description name it).
//!
//! The HTML comes from the same view the app shows: the core's markdown tree
//! (`swaplab_core::markdown`), which holds only allowlisted tags and attributes, with
//! the app's page structure and classes around it (`pages/learn.rs`), so the app takes
//! the page over without a jump. This is the one place Swap Lab writes HTML as text:
//! every text and attribute value goes through [`escape`], and the hostile corpus runs
//! through it in the content tests.
//!
//! Links are relative to the page's `<base href>`, so the same pages serve at `/` and
//! under a sub-path.

use swaplab_core::markdown::{Attr, Document, Node, Tag, render_with_directives};

use crate::widget::{DIRECTIVE, parse_widget};
use crate::{Chapter, chapters};

/// One prerendered page.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Page {
    /// Its route under the site's base, without a leading slash: `learn`,
    /// `learn/the-agent`. The page is written to `<path>/index.html`.
    pub path: String,
    /// The document's title, as the app sets it.
    pub title: String,
    /// A sentence for the description and Open Graph tags.
    pub description: String,
    /// What goes inside `<main>`.
    pub main: String,
    /// A chapter's markdown, for the app to show at once instead of fetching it.
    pub markdown: Option<&'static str>,
    /// Whether the page shows something else when its address carries a query or a
    /// fragment (`/play?example=…`, a permalink, `/workshop?step=4`): the prerendered
    /// page is then hidden until the app shows the right one (`www/theme.js`).
    pub follows_address: bool,
}

/// The suffix the app puts after every page title.
pub const TITLE_SUFFIX: &str = " — Swap Lab";

/// Renders a ```` ```widget ```` block (its body, and the chapter line it starts on) as
/// the app would, results included; `None` leaves the static stand-in
/// ([`static_widget_html`]). `cargo xtask dist` passes the app's own components
/// (`swaplab_web::prerender`), which this crate cannot depend on.
pub type WidgetRenderer<'a> = &'a dyn Fn(&str, u32) -> Option<String>;

/// No widget renderer: every widget is its static stand-in.
pub fn static_widgets(_body: &str, _line: u32) -> Option<String> {
    None
}

/// The chapter list and every chapter, with static widgets.
pub fn pages() -> Vec<Page> {
    pages_with(&static_widgets)
}

/// The chapter list and every chapter, each widget rendered by `widgets`.
pub fn pages_with(widgets: WidgetRenderer<'_>) -> Vec<Page> {
    let all = chapters();
    let mut pages = vec![learn_index(all)];
    pages.extend(all.iter().enumerate().map(|(i, _)| chapter_page(all, i, widgets)));
    pages
}

fn learn_index(all: &[Chapter]) -> Page {
    let mut main = String::new();
    main.push_str("<div class=\"page narrow\"><h1>Chapters</h1>");
    main.push_str(
        "<p>The tutorial, a chapter at a time. Each one works on the same small support \
         agent and its swap to an MCP server.</p>",
    );
    chapter_list(all, &mut main);
    main.push_str(
        "<p>Then check yourself: <a href=\"exercises\">the exercises</a> hand you broken \
         swaps to find and fix, and the <a href=\"workshop\">workshop</a> puts chapters and \
         exercises into a 90-minute session.</p></div>",
    );
    Page {
        path: "learn".to_owned(),
        title: format!("Chapters{TITLE_SUFFIX}"),
        description: "The tutorial, a chapter at a time: a support agent's tools move onto \
                      an MCP server, and what survives the swap."
            .to_owned(),
        main,
        markdown: None,
        follows_address: false,
    }
}

fn chapter_list(all: &[Chapter], out: &mut String) {
    out.push_str("<ol class=\"chapter-list\">");
    for c in all {
        out.push_str(&format!(
            "<li value=\"{}\"><a href=\"learn/{}\">{}</a></li>",
            c.number,
            escape(c.slug),
            escape(c.title)
        ));
    }
    out.push_str("</ol>");
}

fn chapter_page(all: &[Chapter], index: usize, widgets: WidgetRenderer<'_>) -> Page {
    let chapter = &all[index];
    let doc = render_with_directives(chapter.markdown, &[DIRECTIVE]);
    let here = format!("learn/{}", chapter.slug);
    let mut main = String::new();
    main.push_str(
        "<div class=\"page chapter\"><aside class=\"chapter-nav\" aria-label=\"Chapters\"><ol>",
    );
    for c in all {
        let current = c.slug == chapter.slug;
        main.push_str(&format!(
            "<li value=\"{}\"{}><a href=\"learn/{}\"><span{}>{}</span></a>",
            c.number,
            if current { " class=\"current\"" } else { "" },
            escape(c.slug),
            if current { " aria-current=\"page\"" } else { "" },
            escape(c.title)
        ));
        let toc: Vec<_> = doc.headings.iter().filter(|h| h.level == 2).collect();
        if current && !toc.is_empty() {
            main.push_str("<ul class=\"toc\">");
            for h in toc {
                main.push_str(&format!(
                    "<li><a href=\"{}#{}\">{}</a></li>",
                    here,
                    escape(&h.id),
                    escape(&h.text)
                ));
            }
            main.push_str("</ul>");
        }
        main.push_str("</li>");
    }
    main.push_str("</ol></aside><article>");
    main.push_str(&format!("<p class=\"chapter-number\">Chapter {}</p>", chapter.number));
    main.push_str(&document_html_with(&doc, &here, widgets));
    main.push_str("<nav class=\"prev-next\" aria-label=\"Chapter navigation\">");
    neighbour(index.checked_sub(1).and_then(|i| all.get(i)), "prev", "← Previous", &mut main);
    neighbour(all.get(index + 1), "next", "Next →", &mut main);
    main.push_str("</nav></article></div>");
    Page {
        path: here,
        title: format!("{}{TITLE_SUFFIX}", chapter.title),
        description: description(&doc).unwrap_or_else(|| chapter.title.to_owned()),
        main,
        markdown: Some(chapter.markdown),
        follows_address: false,
    }
}

fn neighbour(chapter: Option<&Chapter>, class: &str, label: &str, out: &mut String) {
    match chapter {
        Some(c) => out.push_str(&format!(
            "<a class=\"{class}\" href=\"learn/{}\"><span class=\"label\">{label}</span>\
             <span class=\"title\">{}</span></a>",
            escape(c.slug),
            escape(c.title)
        )),
        None => out.push_str(&format!("<span class=\"{class}\"></span>")),
    }
}

/// The first paragraph's text, cut at a sentence or a word near 200 characters: a
/// page's description.
pub fn description(doc: &Document) -> Option<String> {
    let first = doc.nodes.iter().find_map(|node| match node {
        Node::Element { tag: Tag::P, .. } => Some(node.text()),
        _ => None,
    })?;
    let text = first.split_whitespace().collect::<Vec<_>>().join(" ");
    if text.chars().count() <= 200 {
        return Some(text);
    }
    let cut: String = text.chars().take(200).collect();
    let end = cut.rfind(". ").map(|i| i + 1).or_else(|| cut.rfind(' ')).unwrap_or(cut.len());
    Some(format!("{}…", cut[..end].trim_end_matches('.')))
}

/// A markdown document as `components/markdown.rs` shows it, in a `<div class="prose">`;
/// `here` is the page's route, for its anchors.
pub fn document_html(doc: &Document, here: &str) -> String {
    document_html_with(doc, here, &static_widgets)
}

/// [`document_html`], each widget rendered by `widgets`.
pub fn document_html_with(doc: &Document, here: &str, widgets: WidgetRenderer<'_>) -> String {
    let mut out = String::from("<div class=\"prose\">");
    for node in &doc.nodes {
        node_html(node, here, widgets, &mut out);
    }
    out.push_str("</div>");
    out
}

/// One node of the markdown tree as HTML.
fn node_html(node: &Node, here: &str, widgets: WidgetRenderer<'_>, out: &mut String) {
    match node {
        Node::Text(text) => out.push_str(&escape(text)),
        Node::Directive { name, body, line } if name == DIRECTIVE => match widgets(body, *line) {
            Some(html) => out.push_str(&html),
            None => out.push_str(&static_widget_html(body, *line)),
        },
        Node::Directive { body, .. } => {
            out.push_str(&format!("<pre><code>{}</code></pre>", escape(body)));
        }
        Node::Element { tag, attrs, children } => {
            out.push('<');
            out.push_str(tag.name());
            for (attr, value) in attrs {
                let value = match (attr, value.strip_prefix('#')) {
                    (Attr::Href, Some(id)) => format!("{here}#{id}"),
                    // A site-relative link resolves against the base, as the app's does.
                    (Attr::Href, None) if value.starts_with('/') && !value.starts_with("//") => {
                        value.trim_start_matches('/').to_owned()
                    }
                    _ => value.clone(),
                };
                out.push_str(&format!(" {}=\"{}\"", attr.name(), escape(&value)));
            }
            out.push('>');
            if tag.is_void() {
                return;
            }
            for child in children {
                node_html(child, here, widgets, out);
            }
            if let (Tag::H(2..=4), Some((_, id))) =
                (tag, attrs.iter().find(|(a, _)| *a == Attr::Id))
            {
                let title = escape(&format!("Link to “{}”", node.text()));
                out.push_str(&format!(
                    "<a class=\"heading-anchor\" href=\"{here}#{}\" aria-label=\"{title}\" \
                     title=\"{title}\">#</a>",
                    escape(id)
                ));
            }
            out.push_str("</");
            out.push_str(tag.name());
            out.push('>');
        }
    }
}

/// A chapter's widget without its results: its caption and a plain link to the
/// playground on its example. The stand-in when no renderer runs the example.
pub fn static_widget_html(body: &str, line: u32) -> String {
    let spec = parse_widget(body, line).ok();
    let mut out = String::from("<figure class=\"widget widget-static\">");
    if let Some(caption) = spec.as_ref().and_then(|s| s.caption.as_deref()) {
        out.push_str(&format!("<figcaption>{}</figcaption>", escape(caption)));
    }
    out.push_str("<p class=\"muted\">This widget's results appear when Swap Lab's script runs.");
    if let Some(spec) = &spec {
        // The widget's own link, relative to the site's base as the app's is.
        out.push_str(&format!(
            " <a href=\"{}\">Open it in the playground</a>.",
            escape(spec.playground_href().trim_start_matches('/'))
        ));
    }
    out.push_str("</p></figure>");
    out
}

/// Text made safe inside an element or a double-quoted attribute value.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}
