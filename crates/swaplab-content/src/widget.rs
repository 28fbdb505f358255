//! Chapter widgets: the body of a ```` ```widget ```` block read into a [`WidgetSpec`],
//! and checked against the example it names.
//!
//! The format is documented in `content/README.md` ("Widgets in chapters"). Reading
//! never panics: a bad block is an error message with the line it is on, which the
//! chapter page shows in place of the widget and the content tests refuse.

use swaplab_core::analysis::Analysis;
use swaplab_core::diagnostic::Position;
use swaplab_core::sim::Side;
use swaplab_core::sim::conversation::Policy;
use swaplab_core::yaml;
use swaplab_core::{Area, FileRef};

/// The directive name chapters use for widgets.
pub const DIRECTIVE: &str = "widget";

/// What a widget shows: one of the playground's panes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WidgetKind {
    /// What the swap changes.
    Diff,
    /// The companion proof.
    Proof,
    /// The review.
    Review,
    /// The server's `tools/list` and a `tools/call` form.
    Tools,
    /// A scripted conversation.
    Conversation,
    /// The attack.
    Attack,
    /// Each id's path.
    Trace,
}

impl WidgetKind {
    /// Every kind, in the playground's tab order.
    pub const ALL: [WidgetKind; 7] = [
        WidgetKind::Proof,
        WidgetKind::Review,
        WidgetKind::Diff,
        WidgetKind::Tools,
        WidgetKind::Conversation,
        WidgetKind::Attack,
        WidgetKind::Trace,
    ];

    /// The name written after `kind:`, which is also the playground's pane id.
    pub fn name(self) -> &'static str {
        match self {
            WidgetKind::Diff => "diff",
            WidgetKind::Proof => "proof",
            WidgetKind::Review => "review",
            WidgetKind::Tools => "tools",
            WidgetKind::Conversation => "conversation",
            WidgetKind::Attack => "attack",
            WidgetKind::Trace => "trace",
        }
    }

    /// The kind named `name`.
    pub fn parse(name: &str) -> Option<WidgetKind> {
        WidgetKind::ALL.into_iter().find(|k| k.name() == name)
    }

    /// Whether the widget runs a conversation, and so waits for the reader's *Run*.
    pub fn runs(self) -> bool {
        matches!(self, WidgetKind::Conversation | WidgetKind::Attack | WidgetKind::Trace)
    }

    /// The options this kind takes besides `kind`, `state` and `caption`.
    fn options(self) -> &'static [&'static str] {
        match self {
            WidgetKind::Diff => &["file"],
            WidgetKind::Proof => &[],
            WidgetKind::Review => &["check"],
            WidgetKind::Tools => &["tool", "arguments"],
            WidgetKind::Conversation | WidgetKind::Attack | WidgetKind::Trace => {
                &["side", "policy", "script"]
            }
        }
    }
}

/// One widget block, read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WidgetSpec {
    /// The pane it shows.
    pub kind: WidgetKind,
    /// The example it runs on.
    pub state: String,
    /// What to look at, one sentence.
    pub caption: Option<String>,
    /// Diff: the changed file to show.
    pub file: Option<FileRef>,
    /// Review: show only checks whose id starts with this.
    pub check: Option<String>,
    /// Tools: the tool selected in the form.
    pub tool: Option<String>,
    /// Tools: the form's arguments, a JSON object.
    pub arguments: Option<String>,
    /// Conversation, attack, trace: which project runs.
    pub side: Side,
    /// Conversation, attack, trace: how the model fills arguments.
    pub policy: Policy,
    /// Conversation, attack, trace: the script's file stem.
    pub script: Option<String>,
}

impl WidgetSpec {
    /// The `/play` query that opens this widget's state and pane, as pairs.
    pub fn playground_query(&self) -> Vec<(&'static str, String)> {
        let mut query = vec![("example", self.state.clone()), ("tab", self.kind.name().to_owned())];
        if self.kind.runs() {
            query.push(("policy", self.policy.name().to_owned()));
            if self.side == Side::Before {
                query.push(("side", "before".to_owned()));
            }
            if let Some(script) = &self.script {
                query.push(("script", script.clone()));
            }
        }
        if let Some(file) = &self.file {
            query.push(("file", file.to_string()));
        }
        query
    }

    /// The playground URL (site-relative) that opens this widget's state and pane.
    pub fn playground_href(&self) -> String {
        let pairs: Vec<String> =
            self.playground_query().iter().map(|(k, v)| format!("{k}={v}")).collect();
        format!("/play?{}", pairs.join("&"))
    }
}

/// Why a widget block cannot be shown: the message and its line in the chapter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WidgetError {
    /// The 1-based line in the chapter.
    pub line: u32,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for WidgetError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

/// Reads a widget block's body; `line` is the body's first line in the chapter.
pub fn parse_widget(body: &str, line: u32) -> Result<WidgetSpec, WidgetError> {
    let at = |node_line: u32, message: String| WidgetError {
        line: line.saturating_add(node_line.saturating_sub(1)),
        message,
    };
    let node = yaml::parse(body, Position::START)
        .map_err(|e| at(e.at.line, format!("the widget's YAML does not parse: {}", e.message)))?
        .ok_or_else(|| at(1, "the widget block is empty: it needs `kind:` and `state:`".into()))?;
    let Some(entries) = node.as_map() else {
        return Err(at(node.span.start.line, "a widget block is a mapping of options".into()));
    };
    let text = |key: &str| -> Result<Option<String>, WidgetError> {
        match node.get(key) {
            None => Ok(None),
            Some(value) => value
                .as_str()
                .map(|s| Some(s.trim().to_owned()))
                .ok_or_else(|| at(value.span.start.line, format!("`{key}` must be text"))),
        }
    };
    let kind_name = text("kind")?.ok_or_else(|| at(1, "the widget needs `kind:`".into()))?;
    let kind = WidgetKind::parse(&kind_name).ok_or_else(|| {
        at(
            node.get("kind").map_or(1, |n| n.span.start.line),
            format!(
                "unknown widget kind `{kind_name}` (known: {})",
                WidgetKind::ALL.map(WidgetKind::name).join(", ")
            ),
        )
    })?;
    for (key, value) in entries {
        let name = key.as_str().unwrap_or_default();
        if !["kind", "state", "caption"].contains(&name) && !kind.options().contains(&name) {
            let known: Vec<&str> = ["kind", "state", "caption"]
                .into_iter()
                .chain(kind.options().iter().copied())
                .collect();
            return Err(at(
                value.span.start.line,
                format!(
                    "a {} widget has no option `{}` (it takes: {})",
                    kind.name(),
                    key.key_text(),
                    known.join(", ")
                ),
            ));
        }
    }
    let state = text("state")?.ok_or_else(|| at(1, "the widget needs `state:`".into()))?;
    let file = match text("file")? {
        None => None,
        Some(path) => Some(FileRef::parse(&path).ok_or_else(|| {
            at(
                node.get("file").map_or(1, |n| n.span.start.line),
                format!("`file: {path}` must be `<area>/<path>` with an area of before, after, server, crm"),
            )
        })?),
    };
    let side = match text("side")?.as_deref() {
        None | Some("after") => Side::After,
        Some("before") => Side::Before,
        Some(other) => {
            return Err(at(
                node.get("side").map_or(1, |n| n.span.start.line),
                format!("`side: {other}` must be `before` or `after`"),
            ));
        }
    };
    let policy = match text("policy")? {
        None => Policy::Faithful,
        Some(name) => Policy::parse(&name).ok_or_else(|| {
            at(
                node.get("policy").map_or(1, |n| n.span.start.line),
                format!("`policy: {name}` must be faithful, confused or adversarial"),
            )
        })?,
    };
    let arguments = text("arguments")?;
    if let Some(json) = &arguments
        && !serde_json::from_str::<serde_json::Value>(json).is_ok_and(|v| v.is_object())
    {
        return Err(at(
            node.get("arguments").map_or(1, |n| n.span.start.line),
            "`arguments` must be a JSON object, written as a string".into(),
        ));
    }
    Ok(WidgetSpec {
        kind,
        state,
        caption: text("caption")?,
        file,
        check: text("check")?,
        tool: text("tool")?,
        arguments,
        side,
        policy,
        script: text("script")?,
    })
}

/// Checks a widget against the example it names: the state exists and loads, and the
/// file, script, tool and check prefix it mentions are there. `Ok` means the page will
/// show what the block asks for.
pub fn check_widget(spec: &WidgetSpec) -> Result<(), String> {
    let example = crate::example(&spec.state)
        .map_err(|e| e.to_string())?
        .ok_or_else(|| format!("`state: {}` is not an example", spec.state))?;
    let workspace = &example.workspace;
    if let Some(file) = &spec.file {
        let changed = match file.area {
            Area::Before | Area::After => {
                let path = &file.path;
                workspace.before.file(path) != workspace.after.file(path)
            }
            Area::Server | Area::Crm => workspace.file(file).is_some(),
        };
        if !changed {
            return Err(format!(
                "`file: {file}` is not a file the swap changes in `{}`",
                spec.state
            ));
        }
    }
    let Analysis { sim, review, .. } = Analysis::of(workspace);
    if let Some(stem) = &spec.script {
        let path = format!("conversations/{stem}.yml");
        if !sim.scripts.iter().any(|s| s.file == path) {
            return Err(format!("`script: {stem}`: `{}` has no crm/{path}", spec.state));
        }
    }
    if let Some(tool) = &spec.tool {
        let known =
            sim.server.as_ref().is_some_and(|s| s.module.tools.iter().any(|t| &t.name == tool));
        if !known {
            return Err(format!("`tool: {tool}` is not a tool of `{}`'s server", spec.state));
        }
    }
    if let Some(prefix) = &spec.check
        && !review.checks.iter().any(|c| c.id.starts_with(prefix.as_str()))
    {
        return Err(format!("`check: {prefix}` matches none of `{}`'s review checks", spec.state));
    }
    Ok(())
}
