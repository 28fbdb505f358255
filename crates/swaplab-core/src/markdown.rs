//! Markdown → a small, safe view tree that a UI maps to its own nodes.
//!
//! Chapters, examples and skill prose are rendered through here. The output can only
//! hold the tags and attributes listed in [`Tag`] and [`Attr`]: raw HTML becomes visible
//! text, and a link or image whose URL scheme is not on the allowlist loses its URL.
//! This module never produces an HTML string for a browser to parse.
//!
//! Elements nest at most [`MAX_DEPTH`] deep: markdown nested deeper (a line of a million
//! `>`, lists in lists, `***…***`) keeps its text, flattened into the element at that
//! depth, and the document says so in [`Document::limits`]. Without the cap, a deep
//! enough document would overflow the stack when its tree is shown or even dropped.

use pulldown_cmark::{
    BlockQuoteKind, CodeBlockKind, Event, HeadingLevel, Options, Parser, Tag as MdTag, TagEnd,
};

/// The only elements a rendered document can contain.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tag {
    /// `<p>`
    P,
    /// `<h1>` … `<h6>`, with the level.
    H(u8),
    /// `<blockquote>`
    Blockquote,
    /// `<pre>`
    Pre,
    /// `<code>`
    Code,
    /// `<ul>`
    Ul,
    /// `<ol>`
    Ol,
    /// `<li>`
    Li,
    /// `<em>`
    Em,
    /// `<strong>`
    Strong,
    /// `<del>`
    Del,
    /// `<sup>`
    Sup,
    /// `<sub>`
    Sub,
    /// `<a>`
    A,
    /// `<img>`
    Img,
    /// `<hr>`
    Hr,
    /// `<br>`
    Br,
    /// `<table>`
    Table,
    /// `<thead>`
    Thead,
    /// `<tbody>`
    Tbody,
    /// `<tr>`
    Tr,
    /// `<th>`
    Th,
    /// `<td>`
    Td,
    /// `<span>`, used for text that lost its link and for task-list boxes.
    Span,
}

impl Tag {
    /// The element's name.
    pub fn name(self) -> &'static str {
        match self {
            Tag::P => "p",
            Tag::H(1) => "h1",
            Tag::H(2) => "h2",
            Tag::H(3) => "h3",
            Tag::H(4) => "h4",
            Tag::H(5) => "h5",
            Tag::H(_) => "h6",
            Tag::Blockquote => "blockquote",
            Tag::Pre => "pre",
            Tag::Code => "code",
            Tag::Ul => "ul",
            Tag::Ol => "ol",
            Tag::Li => "li",
            Tag::Em => "em",
            Tag::Strong => "strong",
            Tag::Del => "del",
            Tag::Sup => "sup",
            Tag::Sub => "sub",
            Tag::A => "a",
            Tag::Img => "img",
            Tag::Hr => "hr",
            Tag::Br => "br",
            Tag::Table => "table",
            Tag::Thead => "thead",
            Tag::Tbody => "tbody",
            Tag::Tr => "tr",
            Tag::Th => "th",
            Tag::Td => "td",
            Tag::Span => "span",
        }
    }

    /// True for elements that never have children.
    pub fn is_void(self) -> bool {
        matches!(self, Tag::Img | Tag::Hr | Tag::Br)
    }
}

/// The only attributes a rendered document can contain. None of them is an event
/// handler or a style.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Attr {
    /// `href`, always an allowed URL.
    Href,
    /// `src`, always an allowed URL.
    Src,
    /// `alt`
    Alt,
    /// `title`
    Title,
    /// `id`, on headings.
    Id,
    /// `class`, from a fixed set of names chosen here.
    Class,
    /// `start`, on ordered lists.
    Start,
}

impl Attr {
    /// The attribute's name.
    pub fn name(self) -> &'static str {
        match self {
            Attr::Href => "href",
            Attr::Src => "src",
            Attr::Alt => "alt",
            Attr::Title => "title",
            Attr::Id => "id",
            Attr::Class => "class",
            Attr::Start => "start",
        }
    }
}

/// A node of the view tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Node {
    /// An element with its attributes and children.
    Element {
        /// The element.
        tag: Tag,
        /// Its attributes, in the order they were set.
        attrs: Vec<(Attr, String)>,
        /// Its children.
        children: Vec<Node>,
    },
    /// Text, to be inserted as text (never parsed as markup).
    Text(String),
    /// A fenced block whose info string names a directive the caller asked for (see
    /// [`render_with_directives`]): the UI decides what it becomes. Never produced by
    /// [`render`].
    Directive {
        /// The info string's first word: `widget`.
        name: String,
        /// The block's text, unparsed.
        body: String,
        /// The 1-based line of the block's first body line in the markdown.
        line: u32,
    },
}

impl Node {
    fn element(tag: Tag) -> Node {
        Node::Element { tag, attrs: Vec::new(), children: Vec::new() }
    }

    /// The text content of the node and its descendants.
    pub fn text(&self) -> String {
        let mut out = String::new();
        self.collect_text(&mut out);
        out
    }

    fn collect_text(&self, out: &mut String) {
        match self {
            Node::Text(text) => out.push_str(text),
            Node::Element { children, .. } => children.iter().for_each(|c| c.collect_text(out)),
            Node::Directive { .. } => {}
        }
    }
}

/// A heading, for a table of contents and for anchors.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Heading {
    /// 1 to 6.
    pub level: u8,
    /// The anchor id, unique in the document.
    pub id: String,
    /// The heading's text.
    pub text: String,
}

/// A rendered markdown document.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Document {
    /// Top-level nodes in order.
    pub nodes: Vec<Node>,
    /// Every heading, in order.
    pub headings: Vec<Heading>,
    /// Where rendering met a limit and what it did there: at most one entry, for the
    /// first place markdown nests deeper than [`MAX_DEPTH`]. Empty for any ordinary
    /// document.
    pub limits: Vec<LimitReached>,
}

/// A place where the markdown went past one of the renderer's limits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LimitReached {
    /// The 1-based line where it happened.
    pub line: u32,
    /// What happened, one sentence for the document's author.
    pub message: String,
}

/// Deepest nesting of elements in a rendered document. Deeper markdown keeps its text,
/// flattened into the element at this depth ([`Document::limits`] says where).
pub const MAX_DEPTH: usize = 64;

impl Document {
    /// The text of the first level-1 heading, if any.
    pub fn title(&self) -> Option<&str> {
        self.headings.iter().find(|h| h.level == 1).map(|h| h.text.as_str())
    }
}

/// URL schemes a rendered link or image may use. Relative URLs and fragments are allowed
/// too.
pub const ALLOWED_SCHEMES: [&str; 3] = ["http", "https", "mailto"];

/// Returns the URL to use in `href`/`src`, or `None` when its scheme is not allowed.
///
/// Browsers drop ASCII tabs and newlines anywhere in a URL and leading control
/// characters and spaces, so `java\tscript:` is `javascript:` to them; this check sees
/// the URL the way they do.
pub fn allowed_url(url: &str) -> Option<String> {
    let cleaned: String = url
        .trim_start_matches(|c: char| c <= ' ')
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .collect();
    let scheme_end = cleaned.find([':', '/', '?', '#']);
    match scheme_end {
        Some(end) if cleaned[end..].starts_with(':') => {
            let scheme = cleaned[..end].to_ascii_lowercase();
            ALLOWED_SCHEMES.contains(&scheme.as_str()).then_some(cleaned)
        }
        _ => Some(cleaned),
    }
}

/// Renders markdown to a safe view tree.
pub fn render(markdown: &str) -> Document {
    render_with_directives(markdown, &[])
}

/// Renders markdown like [`render`], except that a fenced block whose info string's
/// first word is one of `directives` becomes a [`Node::Directive`] holding its text.
/// Chapters use this for widgets; skill prose never does, so a skill cannot embed one.
pub fn render_with_directives(markdown: &str, directives: &[&str]) -> Document {
    let options = Options::ENABLE_TABLES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_GFM;
    let mut builder = Builder { source: markdown, directives, ..Builder::default() };
    let mut lines_before = 0u32;
    let mut counted_to = 0usize;
    for (event, range) in Parser::new_ext(markdown, options).into_offset_iter() {
        if let Event::Start(MdTag::CodeBlock(CodeBlockKind::Fenced(_))) = &event {
            let start = range.start.min(markdown.len());
            if start >= counted_to {
                let added = markdown.as_bytes()[counted_to..start].iter().filter(|b| **b == b'\n');
                lines_before += u32::try_from(added.count()).unwrap_or(u32::MAX);
                counted_to = start;
            }
            // The body starts on the line after the opening fence.
            builder.fence_line = lines_before.saturating_add(2);
        }
        builder.offset = range.start;
        builder.event(event);
    }
    builder.finish()
}

/// Turns heading text into an anchor id: lowercase ASCII letters and digits, words
/// joined by `-`.
pub fn slugify(text: &str) -> String {
    let mut slug = String::new();
    for c in text.chars() {
        if c.is_alphanumeric() {
            slug.extend(c.to_lowercase());
        } else if !slug.is_empty() && !slug.ends_with('-') {
            slug.push('-');
        }
    }
    while slug.ends_with('-') {
        slug.pop();
    }
    if slug.is_empty() { "section".to_owned() } else { slug }
}

#[derive(Default)]
struct Builder<'d> {
    /// The markdown, to name a line in [`LimitReached`].
    source: &'d str,
    /// The byte offset of the event being read.
    offset: usize,
    /// Elements opened past [`MAX_DEPTH`] and not created: their ends are skipped too.
    flattened: usize,
    limits: Vec<LimitReached>,
    /// Info-string words that make a fenced block a directive.
    directives: &'d [&'d str],
    /// The directive being read: name, body so far, line.
    directive: Option<(String, String, u32)>,
    /// The line of the current fenced block's first body line.
    fence_line: u32,
    /// Open elements; the root collects top-level nodes.
    stack: Vec<Node>,
    root: Vec<Node>,
    headings: Vec<Heading>,
    in_table_head: bool,
}

impl Builder<'_> {
    fn event(&mut self, event: Event<'_>) {
        if let Some((name, body, line)) = &mut self.directive {
            match event {
                Event::Text(text) => body.push_str(&text),
                Event::End(TagEnd::CodeBlock) => {
                    let node = Node::Directive {
                        name: std::mem::take(name),
                        body: std::mem::take(body),
                        line: *line,
                    };
                    self.directive = None;
                    self.push(node);
                }
                _ => {}
            }
            return;
        }
        if let Event::Start(MdTag::CodeBlock(CodeBlockKind::Fenced(info))) = &event
            && let Some(word) = info.split_whitespace().next()
            && self.directives.contains(&word)
        {
            self.directive = Some((word.to_owned(), String::new(), self.fence_line));
            return;
        }
        match event {
            Event::Start(tag) => self.start(tag),
            Event::End(end) => self.end(end),
            Event::Text(text) => self.text(&text),
            Event::Code(code) => {
                self.push(Node::Element {
                    tag: Tag::Code,
                    attrs: Vec::new(),
                    children: vec![Node::Text(code.into_string())],
                });
            }
            Event::InlineMath(math) | Event::DisplayMath(math) => self.text(&math),
            // Raw HTML is shown as the text it is, never interpreted.
            Event::Html(html) | Event::InlineHtml(html) => self.text(&html),
            Event::FootnoteReference(name) => self.text(&format!("[{name}]")),
            Event::SoftBreak => self.text("\n"),
            Event::HardBreak => self.push(Node::element(Tag::Br)),
            Event::Rule => self.push(Node::element(Tag::Hr)),
            Event::TaskListMarker(done) => {
                let mut marker = Node::element(Tag::Span);
                set_attr(&mut marker, Attr::Class, "task");
                push_child(&mut marker, Node::Text(if done { "☑ " } else { "☐ " }.to_owned()));
                self.push(marker);
            }
        }
    }

    fn start(&mut self, tag: MdTag<'_>) {
        if self.stack.len() >= MAX_DEPTH {
            // Its text joins the deepest element; its end is skipped in `end`.
            self.flattened += 1;
            if self.limits.is_empty() {
                let before = self.source.get(..self.offset).unwrap_or(self.source);
                let line = before.bytes().filter(|b| *b == b'\n').count().saturating_add(1);
                self.limits.push(LimitReached {
                    line: u32::try_from(line).unwrap_or(u32::MAX),
                    message: format!(
                        "The markdown nests deeper than {MAX_DEPTH} levels here; what is \
                         deeper is shown flat, as text of the element at that depth."
                    ),
                });
            }
            return;
        }
        let node = match tag {
            MdTag::Paragraph => Node::element(Tag::P),
            MdTag::Heading { level, .. } => Node::element(Tag::H(heading_level(level))),
            MdTag::BlockQuote(kind) => {
                let mut node = Node::element(Tag::Blockquote);
                if let Some(kind) = kind {
                    set_attr(&mut node, Attr::Class, callout_class(kind));
                }
                node
            }
            MdTag::CodeBlock(kind) => {
                let mut node = Node::element(Tag::Pre);
                if let CodeBlockKind::Fenced(info) = kind {
                    let language: String = info
                        .split_whitespace()
                        .next()
                        .unwrap_or("")
                        .chars()
                        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_'))
                        .collect();
                    if !language.is_empty() {
                        set_attr(&mut node, Attr::Class, &format!("language-{language}"));
                    }
                }
                node
            }
            // The raw HTML inside arrives as `Event::Html` and becomes text.
            MdTag::HtmlBlock => Node::element(Tag::P),
            MdTag::List(start) => match start {
                Some(n) => {
                    let mut node = Node::element(Tag::Ol);
                    if n != 1 {
                        set_attr(&mut node, Attr::Start, &n.to_string());
                    }
                    node
                }
                None => Node::element(Tag::Ul),
            },
            MdTag::Item => Node::element(Tag::Li),
            MdTag::FootnoteDefinition(_)
            | MdTag::DefinitionList
            | MdTag::DefinitionListTitle
            | MdTag::DefinitionListDefinition
            | MdTag::MetadataBlock(_) => Node::element(Tag::P),
            MdTag::Table(_) => Node::element(Tag::Table),
            MdTag::TableHead => {
                self.in_table_head = true;
                Node::element(Tag::Thead)
            }
            MdTag::TableRow => Node::element(Tag::Tr),
            MdTag::TableCell => Node::element(if self.in_table_head { Tag::Th } else { Tag::Td }),
            MdTag::Emphasis => Node::element(Tag::Em),
            MdTag::Strong => Node::element(Tag::Strong),
            MdTag::Strikethrough => Node::element(Tag::Del),
            MdTag::Superscript => Node::element(Tag::Sup),
            MdTag::Subscript => Node::element(Tag::Sub),
            MdTag::Link { dest_url, title, .. } => match allowed_url(&dest_url) {
                Some(url) => {
                    let mut node = Node::element(Tag::A);
                    set_attr(&mut node, Attr::Href, &url);
                    if !title.is_empty() {
                        set_attr(&mut node, Attr::Title, &title);
                    }
                    node
                }
                None => {
                    let mut node = Node::element(Tag::Span);
                    set_attr(&mut node, Attr::Class, "link-blocked");
                    set_attr(&mut node, Attr::Title, "link removed: its URL scheme is not allowed");
                    node
                }
            },
            MdTag::Image { dest_url, title, .. } => {
                let mut node = Node::element(Tag::Img);
                if let Some(url) = allowed_url(&dest_url) {
                    set_attr(&mut node, Attr::Src, &url);
                }
                if !title.is_empty() {
                    set_attr(&mut node, Attr::Title, &title);
                }
                node
            }
        };
        self.stack.push(node);
    }

    fn end(&mut self, end: TagEnd) {
        if self.flattened > 0 {
            // Events are balanced, so this ends the innermost element never created.
            self.flattened -= 1;
            return;
        }
        let Some(mut node) = self.stack.pop() else { return };
        match end {
            TagEnd::Heading(_) => {
                if let Node::Element { tag: Tag::H(level), .. } = node {
                    let text = node.text();
                    let id = self.unique_id(slugify(&text));
                    set_attr(&mut node, Attr::Id, &id);
                    self.headings.push(Heading { level, id, text });
                }
            }
            TagEnd::TableHead => {
                self.in_table_head = false;
                // GitHub tables put header cells straight into the head; wrap them in a row.
                if let Node::Element { children, .. } = &mut node {
                    let cells = std::mem::take(children);
                    children.push(Node::Element {
                        tag: Tag::Tr,
                        attrs: Vec::new(),
                        children: cells,
                    });
                }
            }
            TagEnd::Image => {
                // The image's children are its alt text; an image keeps no children.
                let alt = node.text();
                if let Node::Element { children, .. } = &mut node {
                    children.clear();
                }
                set_attr(&mut node, Attr::Alt, &alt);
            }
            TagEnd::Table => {
                // Rows after the head belong in a body.
                if let Node::Element { children, .. } = &mut node {
                    let rows: Vec<Node> = children
                        .extract_if(.., |c| matches!(c, Node::Element { tag: Tag::Tr, .. }))
                        .collect();
                    if !rows.is_empty() {
                        children.push(Node::Element {
                            tag: Tag::Tbody,
                            attrs: Vec::new(),
                            children: rows,
                        });
                    }
                }
            }
            _ => {}
        }
        if let Node::Element { tag: Tag::Pre, children, .. } = &mut node {
            // A code block's text goes inside `<code>`, as every markdown renderer does.
            let text = std::mem::take(children);
            children.push(Node::Element { tag: Tag::Code, attrs: Vec::new(), children: text });
        }
        self.push(node);
    }

    fn unique_id(&self, base: String) -> String {
        let taken = |id: &str| self.headings.iter().any(|h| h.id == id);
        if !taken(&base) {
            return base;
        }
        (1..).map(|n| format!("{base}-{n}")).find(|id| !taken(id)).expect("some suffix is free")
    }

    fn text(&mut self, text: &str) {
        // Adjacent text joins, so that a UI inserts one text node per run.
        let target = match self.stack.last_mut() {
            Some(Node::Element { children, .. }) => children,
            _ => &mut self.root,
        };
        if let Some(Node::Text(last)) = target.last_mut() {
            last.push_str(text);
        } else {
            target.push(Node::Text(text.to_owned()));
        }
    }

    fn push(&mut self, node: Node) {
        match self.stack.last_mut() {
            Some(parent) => push_child(parent, node),
            None => self.root.push(node),
        }
    }

    fn finish(mut self) -> Document {
        // Close anything left open; pulldown-cmark balances its events, so this is a guard.
        while let Some(node) = self.stack.pop() {
            self.push(node);
        }
        Document { nodes: self.root, headings: self.headings, limits: self.limits }
    }
}

fn push_child(parent: &mut Node, child: Node) {
    if let Node::Element { children, .. } = parent {
        children.push(child);
    }
}

fn set_attr(node: &mut Node, attr: Attr, value: &str) {
    if let Node::Element { attrs, .. } = node {
        attrs.retain(|(a, _)| *a != attr);
        attrs.push((attr, value.to_owned()));
    }
}

fn heading_level(level: HeadingLevel) -> u8 {
    match level {
        HeadingLevel::H1 => 1,
        HeadingLevel::H2 => 2,
        HeadingLevel::H3 => 3,
        HeadingLevel::H4 => 4,
        HeadingLevel::H5 => 5,
        HeadingLevel::H6 => 6,
    }
}

fn callout_class(kind: BlockQuoteKind) -> &'static str {
    match kind {
        BlockQuoteKind::Note => "callout note",
        BlockQuoteKind::Tip => "callout tip",
        BlockQuoteKind::Important => "callout important",
        BlockQuoteKind::Warning => "callout warning",
        BlockQuoteKind::Caution => "callout caution",
    }
}
