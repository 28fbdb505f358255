//! `skills/<id>/skill.md` compiled the way Rasa 3.21's `compile_markdown_skill` does.
//!
//! The order of checks, the error codes and the messages follow the reference (§1–§2): the
//! file is stripped, split at its `---` delimiters, the frontmatter is validated key by key
//! (only the first error is reported, as Rasa reports `exc.errors()[0]`), the body is split
//! into prose and `:::ordered_block` sections with the same pattern Rasa uses (a malformed
//! header silently stays prose), prose becomes paragraphs and `if:` segments, and block
//! YAML becomes steps. A rejected skill carries one compile error; an accepted one carries
//! the compiled [`Skill`]. Train-phase findings that need only this file are reported as
//! separate warnings; findings that need the whole project live in [`crate::rasa::project`].
//!
//! Where the reference elides a message (it quotes only its start) or names no code, the
//! text here is ours and the item's doc comment says so.

use serde::Serialize;

use crate::diagnostic::{Diagnostic, LineIndex, Phase, Position, Span};
use crate::rasa::condition;
use crate::rasa::imports::bare_tool_name;
use crate::yaml::{self, Node, YamlValue, python_repr};

mod body;
mod findings;
mod frontmatter;
mod references;

use body::*;
pub use findings::session_parameter;
use findings::*;
use frontmatter::*;
use references::*;
pub use references::{ProseScan, find_at_references};

/// A `tool_constraints` entry or a block `tools:` entry: Rasa's `GatedTool`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GatedTool {
    /// The tool name, verbatim (never passed through `get_bare_tool_name`).
    pub name: String,
    /// A condition that must be truthy for the tool to be offered.
    pub requires: Option<String>,
    /// The confirmation gate (`None` when absent or `enabled: false`).
    pub requires_confirmation: Option<Confirmation>,
    /// A response queued after a successful call.
    pub on_success: Option<String>,
    /// A response queued after a failed call.
    pub on_failure: Option<String>,
    /// Where the name was written.
    #[serde(skip)]
    pub span: Span,
}

/// `requires_confirmation:` options.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Confirmation {
    /// Always `true` once compiled (a disabled gate is dropped).
    pub enabled: bool,
    /// The response asking the user.
    pub utter_for_confirmation: Option<String>,
    /// The response sent when the user declines.
    pub utter_on_user_denial: Option<String>,
}

/// An `utter:` trigger.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct VerbatimTrigger {
    /// The response to send.
    pub response_name: String,
    /// Sent when the skill activates.
    pub on_activate: bool,
    /// Sent when this condition becomes true.
    pub when_condition: Option<String>,
}

/// Frontmatter `complete_when:`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CompleteWhen {
    /// An expression.
    pub condition: Option<String>,
    /// Natural-language criteria.
    pub criteria: Vec<String>,
}

/// One prose paragraph.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ProseSegment {
    /// The `if:` condition, for a conditional paragraph.
    pub condition: Option<String>,
    /// The text shown to the model.
    pub text: String,
    /// From the paragraph's first line to its last.
    #[serde(skip)]
    pub span: Span,
    /// Byte offset of `text` in the stripped body, to place findings inside it.
    #[serde(skip)]
    pub offset: usize,
    /// What the cross-file train findings look for in `text`, found once here: a memo
    /// then keeps it with an unchanged skill, and a rerun only looks the names up.
    #[serde(skip)]
    pub scan: ProseScan,
}

/// `next:` on a step.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum Next {
    /// A step id or `END`.
    Step(String),
    /// Branches, first match wins.
    Branches(Vec<Branch>),
}

/// One `next` branch.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Branch {
    /// `if:` condition; `None` for the `else:` branch.
    #[serde(rename = "if", skip_serializing_if = "Option::is_none")]
    pub condition: Option<String>,
    /// Target step id.
    #[serde(rename = "then")]
    pub target: String,
}

/// What a step does.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum StepKind {
    /// `instructions:` — the model works until `complete_when`.
    Autonomous {
        /// The instructions.
        instructions: String,
        /// An expression string.
        complete_when: Option<String>,
        /// Whether the step may be skipped.
        optional: bool,
    },
    /// `collect:` — ask for one memory entry.
    Collect {
        /// The entry.
        collect: String,
        /// What to say.
        utterance: Option<String>,
        /// What the entry means.
        description: Option<String>,
        /// Ask even when set.
        ask_before_filling: bool,
    },
    /// `action:` or legacy `utter:`.
    Action {
        /// `utter_*`, `hangup` or `action_listen`.
        action: String,
    },
    /// `noop: true`.
    Route,
    /// `execute_tool:` — the runtime calls a tool with resolved parameters.
    Execute {
        /// The tool name.
        execute_tool: String,
        /// Parameter values; `session.<ns>.<entry>` strings are resolved at run time.
        parameters: serde_json::Map<String, serde_json::Value>,
    },
    /// `set_memory:`.
    SetMemory {
        /// Entry → literal.
        set_memory: serde_json::Map<String, serde_json::Value>,
    },
    /// `call:` another skill or a local block, and come back.
    Call {
        /// The target.
        call: String,
    },
    /// `link:` to another skill or local block.
    Link {
        /// The target.
        link: String,
    },
    /// `id: END`.
    End,
}

/// One step of an ordered block.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Step {
    /// The step id.
    pub id: String,
    /// The kind and its fields.
    #[serde(flatten)]
    pub kind: StepKind,
    /// Where to go next (auto-linked when absent; `None` only for `END`).
    pub next: Option<Next>,
    /// Where the step was written.
    #[serde(skip)]
    pub span: Span,
    /// Where each parameter value was written (execute steps).
    #[serde(skip)]
    pub parameter_spans: Vec<(String, Span)>,
}

/// A `:::ordered_block id=<id>` section.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OrderedBlock {
    /// The block id.
    pub block_id: String,
    /// Only blocks of skills without prose are routable.
    pub routable: bool,
    /// An expression string.
    pub complete_when: Option<String>,
    /// Block-level gates.
    pub tools: Vec<GatedTool>,
    /// The steps in order.
    pub steps: Vec<Step>,
    /// The header line.
    #[serde(skip)]
    pub span: Span,
}

/// The body in document order.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum BodyEntry {
    /// Prose between blocks.
    Prose {
        /// Its paragraphs.
        segments: Vec<ProseSegment>,
    },
    /// An ordered block.
    OrderedBlock(OrderedBlock),
}

/// A compiled skill, in the shape of the `compiled` objects in the corpus verdicts.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Skill {
    /// The directory name: always the id.
    pub id: String,
    /// Display text only.
    pub name: Option<String>,
    /// Routing text.
    pub description: Option<String>,
    /// A precondition name.
    pub precondition: Option<String>,
    /// Omitted from routing.
    pub hidden: bool,
    /// Not loaded.
    pub disabled: bool,
    /// Always in the prompt.
    pub always_include_in_prompt: bool,
    /// `routing.is_default`.
    pub is_default: bool,
    /// `routing.engine_managed`.
    pub engine_managed: bool,
    /// `import_tools` entries, verbatim.
    pub import_tool_names: Vec<String>,
    /// `tool_constraints` names in order.
    pub tool_constraint_names: Vec<String>,
    /// Constraint gates, then import-only tools, then block tools not yet present.
    pub tools: Vec<GatedTool>,
    /// `utter:` triggers.
    pub verbatim_triggers: Vec<VerbatimTrigger>,
    /// Frontmatter `complete_when`.
    pub complete_when: Option<CompleteWhen>,
    /// `knowledge_answering.instructions`.
    pub knowledge_answering_instructions: Option<String>,
    /// `@skill.<id>` targets in prose, first mention first.
    pub referenced_skills: Vec<String>,
    /// `@block.<id>` targets as compiled ids `<skill>__<block>`.
    pub referenced_blocks: Vec<String>,
    /// Prose and blocks in document order.
    pub body: Vec<BodyEntry>,
    /// Where each `import_tools` entry was written.
    #[serde(skip)]
    pub import_spans: Vec<Span>,
}

impl Skill {
    /// Whether the skill has any prose.
    pub fn has_prose(&self) -> bool {
        self.body.iter().any(|entry| match entry {
            BodyEntry::Prose { segments } => !segments.is_empty(),
            BodyEntry::OrderedBlock(_) => false,
        })
    }

    /// The ordered blocks.
    pub fn blocks(&self) -> impl Iterator<Item = &OrderedBlock> {
        self.body.iter().filter_map(|entry| match entry {
            BodyEntry::OrderedBlock(block) => Some(block),
            BodyEntry::Prose { .. } => None,
        })
    }

    /// All prose segments in order.
    pub fn segments(&self) -> impl Iterator<Item = &ProseSegment> {
        self.body.iter().flat_map(|entry| match entry {
            BodyEntry::Prose { segments } => segments.as_slice(),
            BodyEntry::OrderedBlock(_) => &[],
        })
    }

    /// The skill-level gate named `name`.
    pub fn gate(&self, name: &str) -> Option<&GatedTool> {
        self.tools.iter().find(|tool| tool.name == name)
    }
}

/// Why Rasa refused a skill.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CompileError {
    /// Rasa's code.
    pub code: String,
    /// Rasa's message.
    pub message: String,
    /// Where.
    #[serde(skip)]
    pub span: Span,
}

/// One `skill.md`, compiled or rejected, with every finding.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SkillFile {
    /// The directory name.
    pub id: String,
    /// The file's path in its project.
    pub file: String,
    /// The compiled skill, when Rasa accepts it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compiled: Option<Skill>,
    /// The compile error, when Rasa refuses it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<CompileError>,
    /// The compile error (if any) and train-phase findings, as diagnostics.
    pub diagnostics: Vec<Diagnostic>,
    /// Byte length of the body after Rasa's strip (the proof counts these bytes).
    pub body_bytes: usize,
    /// [`instruction_body`] of the file: the companion proof compares it across the
    /// swap. Made here so a memo keeps it with the rest of an unchanged file's reading.
    #[serde(skip)]
    pub instruction_body: Option<String>,
}

/// Largest `skill.md` read; larger files are refused before any parsing.
pub const MAX_SKILL_BYTES: usize = 1024 * 1024;

const DELIMITER_CODE: &str = "skill.markdown.invalid_frontmatter_delimiter";
const FRONTMATTER_CODE: &str = "skill.markdown.invalid_frontmatter";
/// Ours: the reference names no code for `tool_constraints` validation errors.
const CONSTRAINTS_CODE: &str = "skill.markdown.invalid_tool_constraints";
const STEP_CODE: &str = "skill.step.invalid";
const BLOCK_CODE: &str = "skill.markdown.invalid_ordered_block";

type Failure = Box<CompileError>;

fn fail(code: &str, message: impl Into<String>, span: Span) -> Failure {
    Box::new(CompileError { code: code.to_owned(), message: message.into(), span })
}

/// Python's `str.isspace` for one character.
pub fn py_isspace(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// Python's `str.strip()`.
pub fn py_strip(text: &str) -> &str {
    text.trim_matches(py_isspace)
}

/// Byte ranges of Python's `str.splitlines()` lines (separators excluded), from the one
/// `splitlines` the proof uses too.
fn split_lines(text: &str) -> Vec<(usize, usize)> {
    let base = text.as_ptr() as usize;
    crate::difflib::splitlines(text)
        .into_iter()
        .map(|line| {
            let start = line.as_ptr() as usize - base;
            (start, start + line.len())
        })
        .collect()
}

/// Text rebuilt from lines joined with `\n`, mapped back to the original file.
struct Joined<'a> {
    text: String,
    /// For each joined line: (offset in `text`, offset in the original).
    starts: Vec<(usize, usize)>,
    index: &'a LineIndex<'a>,
    /// Whether every joined line is the file line after the one before, from column 1
    /// (see [`Joined::lines_are_file_lines`]); worked out once, since each block's YAML
    /// asks.
    direct: bool,
}

impl<'a> Joined<'a> {
    fn new(original: &str, lines: &[(usize, usize)], index: &'a LineIndex<'a>) -> Joined<'a> {
        let mut text = String::new();
        let mut starts = Vec::with_capacity(lines.len());
        for (n, &(start, end)) in lines.iter().enumerate() {
            if n > 0 {
                text.push('\n');
            }
            starts.push((text.len(), start));
            text.push_str(&original[start..end]);
        }
        let mut joined = Joined { text, starts, index, direct: true };
        joined.direct = joined.lines_are_file_lines();
        joined
    }

    /// The file position of byte `offset` of the joined text.
    fn position(&self, offset: usize) -> Position {
        let line = self.starts.partition_point(|&(joined, _)| joined <= offset).saturating_sub(1);
        match self.starts.get(line) {
            Some(&(joined, original)) => self.index.position(original + (offset - joined)),
            None => Position::START,
        }
    }

    fn span(&self, start: usize, end: usize) -> Span {
        Span { start: self.position(start), end: self.position(end.max(start)) }
    }

    /// The YAML in bytes `start..end` of the joined text, every position in the file as
    /// the editor counts it. The YAML reader counts lines at `\n`: where the joined lines
    /// are the file's it simply starts at the file position of `start`; else it reads
    /// from its own start and each position is mapped back through the joined text, so
    /// that a finding never points past a line's end.
    fn read_yaml(&self, start: usize, end: usize) -> Result<Option<Node>, Failure> {
        let text = &self.text[start..end];
        let refused =
            |message: String, at: Position| fail(yaml::SYNTAX_CODE, message, Span::point(at));
        if self.direct {
            return yaml::parse(text, self.position(start)).map_err(|e| refused(e.message, e.at));
        }
        let offsets = Offsets::new(text);
        let to_file = |at: Position| self.position(start + offsets.offset(at));
        match yaml::parse(text, Position::START) {
            Ok(mut node) => {
                if let Some(node) = node.as_mut() {
                    remap(node, &to_file);
                }
                Ok(node)
            }
            Err(error) => Err(refused(error.message, to_file(error.at))),
        }
    }

    /// Whether every joined line is the file line after the one before, from column 1:
    /// then a position in the joined text is the file position shifted by the first
    /// line. It is not when a line break that only `str.splitlines` honours (`\v`, `\f`,
    /// `\x1c`–`\x1e`, `\x85`, U+2028, U+2029, a lone `\r`) split one editor line in two.
    fn lines_are_file_lines(&self) -> bool {
        let Some(&(_, first)) = self.starts.first() else { return true };
        let origin = self.index.position(first);
        self.starts.iter().enumerate().skip(1).all(|(n, &(_, original))| {
            let line = u32::try_from(n).map_or(u32::MAX, |n| origin.line.saturating_add(n));
            self.index.position(original) == Position::new(line, 1)
        })
    }
}

/// Byte offsets of positions in a text whose lines end at `\n` (a joined text), each
/// found in constant time: the YAML reader's positions in a joined text are mapped back
/// to the file through it when the joined lines are not the file's (see
/// [`Joined::lines_are_file_lines`]).
struct Offsets {
    /// The index of each line's first character.
    line_chars: Vec<usize>,
    /// The byte offset of each character, then the text's length.
    char_bytes: Vec<usize>,
}

impl Offsets {
    fn new(text: &str) -> Offsets {
        let mut line_chars = vec![0];
        let mut char_bytes = Vec::with_capacity(text.len() + 1);
        for (index, (at, c)) in text.char_indices().enumerate() {
            char_bytes.push(at);
            if c == '\n' {
                line_chars.push(index + 1);
            }
        }
        char_bytes.push(text.len());
        Offsets { line_chars, char_bytes }
    }

    /// The byte offset of `at`, counted from [`Position::START`]; a column past its
    /// line's end is the end of the line, a line past the text's end the text's end.
    fn offset(&self, at: Position) -> usize {
        let end = self.char_bytes.len() - 1;
        let line = usize::try_from(at.line.saturating_sub(1)).unwrap_or(usize::MAX);
        let Some(&first) = self.line_chars.get(line) else { return self.char_bytes[end] };
        let last = self.line_chars.get(line + 1).map_or(end, |&next| next - 1);
        let column = usize::try_from(at.column.saturating_sub(1)).unwrap_or(usize::MAX);
        self.char_bytes[first.saturating_add(column).min(last)]
    }
}

/// Moves every span of `node` through `to_file`.
fn remap(node: &mut Node, to_file: &impl Fn(Position) -> Position) {
    node.span = Span { start: to_file(node.span.start), end: to_file(node.span.end) };
    match &mut node.value {
        YamlValue::Seq(items) => items.iter_mut().for_each(|item| remap(item, to_file)),
        YamlValue::Map(entries) => entries.iter_mut().for_each(|(key, value)| {
            remap(key, to_file);
            remap(value, to_file);
        }),
        _ => {}
    }
}

/// The instruction body as Rasa reads it: the lines after the closing `---`, joined and
/// stripped (the text whose length is [`SkillFile::body_bytes`]). `None` without
/// frontmatter delimiters.
pub fn instruction_body(text: &str) -> Option<String> {
    let stripped = py_strip(text);
    let lead = stripped.as_ptr() as usize - text.as_ptr() as usize;
    let lines: Vec<(usize, usize)> =
        split_lines(stripped).into_iter().map(|(s, e)| (s + lead, e + lead)).collect();
    let is_delimiter = |&(s, e): &(usize, usize)| py_strip(&text[s..e]) == "---";
    if !lines.first().is_some_and(is_delimiter) {
        return None;
    }
    let close = lines.iter().skip(1).position(is_delimiter)? + 1;
    let joined: Vec<&str> = lines[close + 1..].iter().map(|&(s, e)| &text[s..e]).collect();
    Some(py_strip(&joined.join("\n")).to_owned())
}

/// Compiles `skills/<skill_id>/skill.md`.
pub fn compile_skill(file: &str, skill_id: &str, text: &str) -> SkillFile {
    let index = LineIndex::new(text);
    let mut findings = Vec::new();
    let (outcome, body_bytes) = if text.len() > MAX_SKILL_BYTES {
        let error = fail(
            "swaplab.limits.file_too_large",
            format!(
                "skill.md is {} bytes; Swap Lab reads skill files up to {MAX_SKILL_BYTES} bytes.",
                text.len()
            ),
            Span::point(Position::START),
        );
        (Err(error), 0)
    } else {
        compile(file, skill_id, text, &index, &mut findings)
    };
    let mut diagnostics = Vec::new();
    let (compiled, error) = match outcome {
        Ok(skill) => (Some(skill), None),
        Err(error) => {
            let phase =
                if error.code.starts_with("swaplab.") { Phase::Read } else { Phase::Compile };
            diagnostics.push(Diagnostic::error(
                file,
                error.span,
                phase,
                &error.code,
                &error.message,
            ));
            (None, Some(*error))
        }
    };
    diagnostics.extend(findings);
    SkillFile {
        id: skill_id.to_owned(),
        file: file.to_owned(),
        compiled,
        error,
        diagnostics,
        body_bytes,
        instruction_body: instruction_body(text),
    }
}

fn compile(
    file: &str,
    skill_id: &str,
    text: &str,
    index: &LineIndex<'_>,
    findings: &mut Vec<Diagnostic>,
) -> (Result<Skill, Failure>, usize) {
    let stripped = py_strip(text);
    let lead = stripped.as_ptr() as usize - text.as_ptr() as usize;
    let lines: Vec<(usize, usize)> =
        split_lines(stripped).into_iter().map(|(s, e)| (s + lead, e + lead)).collect();
    let first_line_span =
        lines.first().map_or(Span::point(Position::START), |&(s, e)| index.span(s, e));
    let delimiter_error = || {
        fail(
            DELIMITER_CODE,
            "skill.md must start with YAML frontmatter (--- ... ---)",
            first_line_span,
        )
    };
    let is_delimiter = |&(s, e): &(usize, usize)| py_strip(&text[s..e]) == "---";
    if !lines.first().is_some_and(is_delimiter) {
        return (Err(delimiter_error()), 0);
    }
    let Some(close) = lines.iter().skip(1).position(is_delimiter).map(|n| n + 1) else {
        return (Err(delimiter_error()), 0);
    };
    let front = Joined::new(text, &lines[1..close], index);
    let body_joined = Joined::new(text, &lines[close + 1..], index);
    let body = py_strip(&body_joined.text);
    let body_lead = body.as_ptr() as usize - body_joined.text.as_ptr() as usize;
    let body_bytes = body.len();
    let close_span = index.span(lines[close].0, lines[close].1);
    let result = compile_parts(
        file,
        skill_id,
        &front,
        (body, body_lead, &body_joined),
        close_span,
        findings,
    );
    (result, body_bytes)
}

fn compile_parts(
    file: &str,
    skill_id: &str,
    front: &Joined<'_>,
    (body, body_lead, body_joined): (&str, usize, &Joined<'_>),
    close_span: Span,
    findings: &mut Vec<Diagnostic>,
) -> Result<Skill, Failure> {
    let frontmatter = front.read_yaml(0, front.text.len())?;
    let whole_front = front.span(0, front.text.len());
    let empty = Node { value: YamlValue::Map(Vec::new()), span: whole_front, plain: false };
    let frontmatter = match frontmatter {
        Some(node) if node.is_null() => empty,
        Some(node) => node,
        None => empty,
    };
    if frontmatter.as_map().is_none() {
        return Err(fail(
            FRONTMATTER_CODE,
            "skill.md frontmatter must be a YAML mapping.",
            frontmatter.span,
        ));
    }
    let mut skill = read_frontmatter(skill_id, &frontmatter)?;

    let span_of = |start: usize, end: usize| body_joined.span(body_lead + start, body_lead + end);
    let sections = split_body(body);
    for section in &sections {
        match section {
            Section::Prose { start, end } => {
                let segments = prose_segments(body, *start, *end, &span_of)?;
                if !segments.is_empty() {
                    skill.body.push(BodyEntry::Prose { segments });
                }
            }
            Section::Block { header, id, body_start, body_end } => {
                let header_span = span_of(header.0, header.1);
                let Some(id) = id else {
                    return Err(fail(
                        "skill.markdown.invalid_ordered_block",
                        "Each :::ordered_block section must declare an id attribute (e.g. \
                         :::ordered_block id=verify).",
                        header_span,
                    ));
                };
                let yaml = body_joined.read_yaml(body_lead + *body_start, body_lead + *body_end);
                let block = read_block(id, yaml, header_span)?;
                if skill.blocks().any(|existing| existing.block_id == block.block_id) {
                    return Err(fail(
                        BLOCK_CODE,
                        format!("Duplicate ordered block id '{id}'."),
                        header_span,
                    ));
                }
                skill.body.push(BodyEntry::OrderedBlock(block));
            }
        }
    }
    if skill.body.is_empty() {
        return Err(fail(
            "skill.markdown.missing_instructions",
            "skill.md must include prose instructions or ordered blocks.",
            close_span,
        ));
    }
    let has_prose = skill.has_prose();
    for entry in &mut skill.body {
        if let BodyEntry::OrderedBlock(block) = entry {
            block.routable = !has_prose;
        }
    }
    if skill.complete_when.is_some() && !has_prose {
        return Err(fail(
            "skill.complete_when.requires_prose",
            "complete_when requires prose instructions; a skill made only of ordered blocks \
             completes when its blocks end.",
            close_span,
        ));
    }
    resolve_references(&mut skill, &span_of)?;
    merge_block_tools(&mut skill);
    train_findings(file, &skill, &span_of, findings);
    Ok(skill)
}
