//! Markdown rendering: structure, anchors, and that nothing executable gets through.

use swaplab_core::markdown::{
    Document, Node, allowed_url, render, render_with_directives, slugify,
};

/// Renders the view tree as HTML-like text, escaping text, so cases read like HTML.
fn html(doc: &Document) -> String {
    fn node(out: &mut String, n: &Node) {
        match n {
            Node::Text(text) => {
                out.push_str(&text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;"));
            }
            Node::Element { tag, attrs, children } => {
                out.push('<');
                out.push_str(tag.name());
                for (attr, value) in attrs {
                    out.push_str(&format!(" {}=\"{}\"", attr.name(), value.replace('"', "&quot;")));
                }
                out.push('>');
                if !tag.is_void() {
                    children.iter().for_each(|c| node(out, c));
                    out.push_str(&format!("</{}>", tag.name()));
                }
            }
            Node::Directive { name, body, line } => {
                out.push_str(&format!("<directive {name} line={line}>{body}</directive>"));
            }
        }
    }
    let mut out = String::new();
    doc.nodes.iter().for_each(|n| node(&mut out, n));
    out
}

fn check(markdown: &str, expected: &str) {
    assert_eq!(html(&render(markdown)), expected, "markdown: {markdown:?}");
}

#[test]
fn ordinary_markdown_keeps_its_structure() {
    check(
        "Some *em* and **strong** and `code`.",
        "<p>Some <em>em</em> and <strong>strong</strong> and <code>code</code>.</p>",
    );
    check("- a\n- b", "<ul><li>a</li><li>b</li></ul>");
    check("3. c\n4. d", "<ol start=\"3\"><li>c</li><li>d</li></ol>");
    check(
        "```yaml\nkey: <v>\n```",
        "<pre class=\"language-yaml\"><code>key: &lt;v&gt;\n</code></pre>",
    );
    check("> quoted", "<blockquote><p>quoted</p></blockquote>");
    check(
        "| a | b |\n|---|---|\n| 1 | 2 |",
        "<table><thead><tr><th>a</th><th>b</th></tr></thead><tbody><tr><td>1</td><td>2</td></tr></tbody></table>",
    );
    check(
        "[docs](https://example.com/x \"t\")",
        "<p><a href=\"https://example.com/x\" title=\"t\">docs</a></p>",
    );
    check("[next](/learn/the-swap#diff)", "<p><a href=\"/learn/the-swap#diff\">next</a></p>");
}

#[test]
fn headings_get_unique_anchor_ids_and_a_title() {
    let doc =
        render("# The swap\n\n## What changes\n\n## What changes\n\n### `import_tools`, again!");
    let ids: Vec<&str> = doc.headings.iter().map(|h| h.id.as_str()).collect();
    assert_eq!(ids, ["the-swap", "what-changes", "what-changes-1", "import-tools-again"]);
    assert_eq!(doc.title(), Some("The swap"));
    assert_eq!(slugify("¿¡!"), "section");
}

#[test]
fn raw_html_is_shown_as_text_never_as_markup() {
    for payload in [
        "<script>alert(1)</script>",
        "<img src=x onerror=alert(1)>",
        "<svg onload=alert(1)>",
        "<iframe src=\"javascript:alert(1)\"></iframe>",
        "<a href=\"javascript:alert(1)\">x</a>",
        "text <b onclick=alert(1)>inline</b>",
    ] {
        let out = html(&render(payload));
        assert!(
            !out.contains("<script") && !out.contains("<img") && !out.contains("<svg"),
            "{out}"
        );
        assert!(!out.contains("<iframe") && !out.contains("<b ") && !out.contains("<a "), "{out}");
        assert!(out.contains("&lt;"), "the payload is visible as text: {out}");
    }
}

#[test]
fn links_and_images_with_disallowed_schemes_lose_their_url() {
    for link in [
        "[x](javascript:alert(1))",
        "[x](JaVaScRiPt:alert(1))",
        "[x](&#106;avascript:alert(1))",
        "[x](&#x6A;avascript&colon;alert(1))",
        "[x](<java\tscript:alert(1)>)",
        "[x](data:text/html,<script>alert(1)</script>)",
        "[x](vbscript:msgbox(1))",
        "[x]( javascript:alert(1))",
    ] {
        let out = html(&render(link));
        assert!(!out.contains("href"), "{link} → {out}");
        assert!(out.contains("link-blocked"), "{link} → {out}");
    }
    let out = html(&render("![alt text](javascript:alert(1))"));
    assert_eq!(out, "<p><img alt=\"alt text\"></p>");
    let out = html(&render("![diagram](data:image/svg+xml,<svg onload=alert(1)>)"));
    assert!(!out.contains("src"), "{out}");
}

#[test]
fn the_url_allowlist_sees_urls_as_browsers_do() {
    assert_eq!(allowed_url("https://a.example/x").as_deref(), Some("https://a.example/x"));
    assert_eq!(allowed_url("HTTP://a.example").as_deref(), Some("HTTP://a.example"));
    assert_eq!(
        allowed_url("mailto:someone@example.com").as_deref(),
        Some("mailto:someone@example.com")
    );
    assert_eq!(allowed_url("#anchor").as_deref(), Some("#anchor"));
    assert_eq!(allowed_url("../play?x=a:b").as_deref(), Some("../play?x=a:b"));
    assert_eq!(allowed_url("java\nscript:alert(1)"), None);
    assert_eq!(allowed_url("\u{1}javascript:alert(1)"), None);
    assert_eq!(allowed_url("file:///etc/passwd"), None);
}

#[test]
fn a_directive_block_is_kept_whole_with_its_line_and_only_when_asked_for() {
    let text = "# Title\n\nSome prose.\n\n```widget\nkind: diff\nstate: tutorial\n```\n\n```yaml\nkind: x\n```\n\n> ```widget\n> kind: proof\n> ```\n";
    let doc = render_with_directives(text, &["widget"]);
    assert_eq!(
        html(&doc),
        "<h1 id=\"title\">Title</h1><p>Some prose.</p>\
         <directive widget line=6>kind: diff\nstate: tutorial\n</directive>\
         <pre class=\"language-yaml\"><code>kind: x\n</code></pre>\
         <blockquote><directive widget line=15>kind: proof\n</directive></blockquote>"
    );
    // Plain rendering never yields a directive: the block is code.
    let plain = html(&render(text));
    assert!(!plain.contains("<directive"), "{plain}");
    assert!(plain.contains("<pre class=\"language-widget\"><code>kind: diff"), "{plain}");
    // Raw HTML inside a directive stays in its body as text for the caller to parse.
    let doc = render_with_directives("```widget\n<script>alert(1)</script>\n```\n", &["widget"]);
    assert_eq!(html(&doc), "<directive widget line=2><script>alert(1)</script>\n</directive>");
}
