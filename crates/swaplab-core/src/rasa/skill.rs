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
use crate::yaml::{self, Node, Value, python_repr};

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
    pub scan: crate::rasa::findings::ProseScan,
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
        Value::Seq(items) => items.iter_mut().for_each(|item| remap(item, to_file)),
        Value::Map(entries) => entries.iter_mut().for_each(|(key, value)| {
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
    let empty = Node { value: Value::Map(Vec::new()), span: whole_front, plain: false };
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

// ---------------------------------------------------------------------------------------
// Frontmatter

const BOOL_KEYS: [&str; 3] = ["hidden", "disabled", "always_include_in_prompt"];
const KNOWN_KEYS: [&str; 12] = [
    "name",
    "description",
    "precondition",
    "hidden",
    "disabled",
    "always_include_in_prompt",
    "complete_when",
    "import_tools",
    "tool_constraints",
    "utter",
    "knowledge_answering",
    "routing",
];

fn empty_skill(skill_id: &str) -> Skill {
    Skill {
        id: skill_id.to_owned(),
        name: None,
        description: None,
        precondition: None,
        hidden: false,
        disabled: false,
        always_include_in_prompt: false,
        is_default: false,
        engine_managed: false,
        import_tool_names: Vec::new(),
        tool_constraint_names: Vec::new(),
        tools: Vec::new(),
        verbatim_triggers: Vec::new(),
        complete_when: None,
        knowledge_answering_instructions: None,
        referenced_skills: Vec::new(),
        referenced_blocks: Vec::new(),
        body: Vec::new(),
        import_spans: Vec::new(),
    }
}

fn read_frontmatter(skill_id: &str, front: &Node) -> Result<Skill, Failure> {
    let entries = front.as_map().unwrap_or(&[]);
    if let Some((key, _)) = front.entry("requires") {
        return Err(fail(
            "skill.requires.removed",
            "Skill-level requires is no longer supported. Use precondition to park the skill \
             until a resolver runs, or hidden: true to omit it from routing. Tool-level \
             requires under tool_constraints is unchanged.",
            key.span,
        ));
    }
    let unknown: Vec<&Node> = entries
        .iter()
        .map(|(key, _)| key)
        .filter(|key| !key.as_str().is_some_and(|name| KNOWN_KEYS.contains(&name)))
        .collect();
    if let Some(first) = unknown.first() {
        let mut names: Vec<String> = unknown.iter().map(|key| key.key_text()).collect();
        crate::order::sort(&mut names);
        return Err(fail(
            "skill.markdown.unknown_frontmatter_key",
            format!("Unknown key(s): {}", names.join(", ")),
            first.span,
        ));
    }
    let mut skill = empty_skill(skill_id);
    let field = |name: &str| front.entry(name).filter(|(_, value)| !value.is_null());
    for name in ["name", "description"] {
        if let Some((_, value)) = field(name) {
            let Some(text) = value.as_str() else {
                return Err(fail(
                    FRONTMATTER_CODE,
                    format!("{name}: Value error, must be a string"),
                    value.span,
                ));
            };
            if name == "name" {
                skill.name = Some(text.to_owned());
            } else {
                skill.description = Some(text.to_owned());
            }
        }
    }
    if let Some((_, value)) = field("precondition") {
        // Ours: the reference gives the code and the rule, not the message.
        let text =
            value.as_str().map(py_strip).filter(|text| !text.is_empty()).ok_or_else(|| {
                fail(
                    "skill.precondition.invalid",
                    "precondition: Value error, precondition must be a non-empty precondition name",
                    value.span,
                )
            })?;
        skill.precondition = Some(text.to_owned());
    }
    for name in BOOL_KEYS {
        if let Some((_, value)) = field(name) {
            let Value::Bool(flag) = value.value else {
                return Err(fail(
                    "skill.markdown.invalid_boolean_frontmatter",
                    format!("{name}: Value error, '{name}' must be a boolean."),
                    value.span,
                ));
            };
            match name {
                "hidden" => skill.hidden = flag,
                "disabled" => skill.disabled = flag,
                _ => skill.always_include_in_prompt = flag,
            }
        }
    }
    if let Some((_, value)) = field("complete_when") {
        skill.complete_when = Some(read_complete_when(value)?);
    }
    let mut imports_in_file_order = Vec::new();
    if let Some((_, value)) = field("import_tools") {
        imports_in_file_order = read_import_tools(&mut skill, value)?;
    }
    if let Some((_, value)) = field("tool_constraints") {
        let Some(items) = value.as_seq() else {
            return Err(fail(
                CONSTRAINTS_CODE,
                "tool_constraints: Input should be a valid list",
                value.span,
            ));
        };
        for (n, item) in items.iter().enumerate() {
            let gate = read_gate_entry(item, &format!("tool_constraints.{n}"), CONSTRAINTS_CODE)?;
            skill.tool_constraint_names.push(gate.name.clone());
            skill.tools.push(gate);
        }
    }
    if let Some((_, value)) = field("utter") {
        skill.verbatim_triggers = read_utter(value)?;
    }
    if let Some((_, value)) = field("knowledge_answering") {
        let instructions = value.get("instructions").and_then(Node::as_str);
        let only_known = value
            .as_map()
            .is_some_and(|map| map.iter().all(|(key, _)| key.as_str() == Some("instructions")));
        match instructions {
            Some(text) if only_known => {
                skill.knowledge_answering_instructions = Some(text.to_owned());
            }
            // Ours: the reference names the code only.
            _ => {
                return Err(fail(
                    "skill.markdown.invalid_knowledge_answering",
                    "knowledge_answering: Value error, knowledge_answering must be a mapping \
                     with a string 'instructions'",
                    value.span,
                ));
            }
        }
    }
    if let Some((_, value)) = field("routing") {
        let Some(map) = value.as_map() else {
            return Err(fail(
                FRONTMATTER_CODE,
                "routing: Input should be a valid dictionary",
                value.span,
            ));
        };
        for (key, flag) in map {
            let slot = match key.as_str() {
                Some("is_default") => &mut skill.is_default,
                Some("engine_managed") => &mut skill.engine_managed,
                _ => {
                    return Err(fail(
                        "skill.markdown.unknown_frontmatter_key",
                        format!("Unknown key(s): {}", key.key_text()),
                        key.span,
                    ));
                }
            };
            match flag.value {
                Value::Bool(on) => *slot = on,
                Value::Null => *slot = false,
                _ => {
                    return Err(fail(
                        FRONTMATTER_CODE,
                        format!("routing.{}: Input should be a valid boolean", key.key_text()),
                        flag.span,
                    ));
                }
            }
        }
    }
    // Import-only tools follow the constraint gates; a constraint wins on a shared name.
    for (reference, span) in imports_in_file_order {
        let bare = bare_tool_name(&reference).unwrap_or_else(|_| reference.clone());
        if skill.gate(&bare).is_none() {
            skill.tools.push(GatedTool {
                name: bare,
                requires: None,
                requires_confirmation: None,
                on_success: None,
                on_failure: None,
                span,
            });
        }
    }
    Ok(skill)
}

/// `complete_when:`; the reference quotes the bare-string message only, the others are ours.
fn read_complete_when(value: &Node) -> Result<CompleteWhen, Failure> {
    let invalid = |message: &str, span: Span| fail("skill.complete_when.invalid", message, span);
    let Some(map) = value.as_map() else {
        return Err(invalid(
            "complete_when: Value error, complete_when must be a mapping with 'condition' and/or \
             'criteria' (bare strings are not allowed).",
            value.span,
        ));
    };
    let mut complete = CompleteWhen { condition: None, criteria: Vec::new() };
    for (key, item) in map {
        match key.as_str() {
            Some("condition") => {
                let Some(text) = item.as_str() else {
                    return Err(invalid(
                        "complete_when.condition: Input should be a valid string",
                        item.span,
                    ));
                };
                if let Err(problem) = condition::parse(text) {
                    return Err(invalid(
                        &format!(
                            "complete_when.condition: Value error, invalid condition: {problem}"
                        ),
                        item.span,
                    ));
                }
                complete.condition = Some(text.to_owned());
            }
            Some("criteria") => {
                let Some(items) = item.as_seq() else {
                    return Err(invalid(
                        "complete_when.criteria: Input should be a valid list",
                        item.span,
                    ));
                };
                for criterion in items {
                    let Some(text) = criterion.as_str().filter(|text| !py_strip(text).is_empty())
                    else {
                        return Err(invalid(
                            "complete_when.criteria: Value error, criteria must be non-empty strings",
                            criterion.span,
                        ));
                    };
                    if complete.criteria.iter().any(|seen| seen == text) {
                        return Err(invalid(
                            &format!(
                                "complete_when.criteria: Value error, duplicate criterion '{text}'"
                            ),
                            criterion.span,
                        ));
                    }
                    complete.criteria.push(text.to_owned());
                }
            }
            _ => {
                return Err(invalid(
                    &format!("complete_when.{}: Extra inputs are not permitted", key.key_text()),
                    key.span,
                ));
            }
        }
    }
    if complete.condition.is_none() && complete.criteria.is_empty() {
        return Err(invalid(
            "complete_when: Value error, complete_when must be a mapping with 'condition' and/or \
             'criteria' (bare strings are not allowed).",
            value.span,
        ));
    }
    Ok(complete)
}

/// Reads `import_tools`; returns the entries in file order (the order of `Skill.tools`).
fn read_import_tools(skill: &mut Skill, value: &Node) -> Result<Vec<(String, Span)>, Failure> {
    const CODE: &str = "skill.markdown.invalid_import_tools";
    let Some(items) = value.as_seq() else {
        return Err(fail(CODE, "import_tools: Input should be a valid list", value.span));
    };
    for item in items {
        let Some(reference) = item.as_str() else {
            return Err(fail(CODE, "import_tools: Value error, must be a string", item.span));
        };
        skill.import_tool_names.push(reference.to_owned());
        skill.import_spans.push(item.span);
    }
    for (reference, span) in skill.import_tool_names.iter().zip(&skill.import_spans) {
        if let Err(message) = bare_tool_name(reference) {
            return Err(fail(CODE, message, *span));
        }
    }
    // Rasa keeps the entries sorted (and deduplicated).
    let in_file_order: Vec<(String, Span)> =
        skill.import_tool_names.drain(..).zip(skill.import_spans.drain(..)).collect();
    let mut pairs = in_file_order.clone();
    crate::order::sort_by(&mut pairs, |a, b| a.0.cmp(&b.0));
    pairs.dedup_by(|a, b| a.0 == b.0);
    (skill.import_tool_names, skill.import_spans) = pairs.into_iter().unzip();
    Ok(in_file_order)
}

/// `- <tool>: <options|null>` (frontmatter) or a block `tools:` entry.
fn read_gate_entry(item: &Node, loc: &str, code: &str) -> Result<GatedTool, Failure> {
    let single = item.as_map().filter(|map| map.len() == 1);
    let Some([(key, options)]) = single else {
        return Err(fail(
            code,
            format!(
                "{loc}: Value error, Each tool_constraints entry must be a single-key mapping."
            ),
            item.span,
        ));
    };
    let name = key.key_text();
    let mut gate = GatedTool {
        name: name.clone(),
        requires: None,
        requires_confirmation: None,
        on_success: None,
        on_failure: None,
        span: key.span,
    };
    let loc = format!("{loc}.{name}");
    read_gate_options(&mut gate, options, &loc, code)?;
    Ok(gate)
}

fn read_gate_options(
    gate: &mut GatedTool,
    options: &Node,
    loc: &str,
    code: &str,
) -> Result<(), Failure> {
    if options.is_null() {
        return Ok(());
    }
    let Some(map) = options.as_map() else {
        return Err(fail(code, format!("{loc}: Input should be a valid dictionary"), options.span));
    };
    const ALLOWED: [&str; 4] = ["requires", "requires_confirmation", "on_success", "on_failure"];
    if let Some((key, _)) =
        map.iter().find(|(key, _)| !key.as_str().is_some_and(|k| ALLOWED.contains(&k)))
    {
        return Err(fail(
            code,
            format!(
                "{loc}: Value error, Unknown key(s): {}. Allowed keys: requires, \
                 requires_confirmation, on_success, on_failure.",
                key.key_text()
            ),
            key.span,
        ));
    }
    for (key, value) in map {
        let key_name = key.key_text();
        if key_name == "requires_confirmation" {
            gate.requires_confirmation =
                read_confirmation(value, &format!("{loc}.{key_name}"), code)?;
            continue;
        }
        let text = match &value.value {
            Value::Null => None,
            Value::Str(text) => Some(text.clone()),
            _ => {
                return Err(fail(
                    code,
                    format!("{loc}.{key_name}: Input should be a valid string"),
                    value.span,
                ));
            }
        };
        match key_name.as_str() {
            "requires" => gate.requires = text,
            "on_success" => gate.on_success = text,
            _ => gate.on_failure = text,
        }
    }
    Ok(())
}

fn read_confirmation(value: &Node, loc: &str, code: &str) -> Result<Option<Confirmation>, Failure> {
    let Some(map) = value.as_map() else {
        return Err(fail(
            code,
            format!("{loc}: Value error, requires_confirmation must be a mapping"),
            value.span,
        ));
    };
    const ALLOWED: [&str; 3] = ["enabled", "utter_for_confirmation", "utter_on_user_denial"];
    if let Some((key, _)) =
        map.iter().find(|(key, _)| !key.as_str().is_some_and(|k| ALLOWED.contains(&k)))
    {
        return Err(fail(
            code,
            format!(
                "{loc}: Value error, Unknown key(s): {}. Allowed keys: enabled, \
                 utter_for_confirmation, utter_on_user_denial.",
                key.key_text()
            ),
            key.span,
        ));
    }
    let mut confirmation =
        Confirmation { enabled: false, utter_for_confirmation: None, utter_on_user_denial: None };
    for (key, item) in map {
        let key_name = key.key_text();
        if key_name == "enabled" {
            match item.value {
                Value::Bool(flag) => confirmation.enabled = flag,
                Value::Null => confirmation.enabled = false,
                _ => {
                    return Err(fail(
                        code,
                        format!("{loc}.enabled: Value error, enabled must be a boolean"),
                        item.span,
                    ));
                }
            }
            continue;
        }
        let text = match &item.value {
            Value::Null => None,
            Value::Str(text) => Some(text.clone()),
            _ => {
                return Err(fail(
                    code,
                    format!("{loc}.{key_name}: Input should be a valid string"),
                    item.span,
                ));
            }
        };
        if key_name == "utter_for_confirmation" {
            confirmation.utter_for_confirmation = text;
        } else {
            confirmation.utter_on_user_denial = text;
        }
    }
    Ok(confirmation.enabled.then_some(confirmation))
}

/// `utter:`; the reference quotes the missing-trigger message only, the others are ours.
fn read_utter(value: &Node) -> Result<Vec<VerbatimTrigger>, Failure> {
    const CODE: &str = "skill.markdown.invalid_utter";
    let Some(items) = value.as_seq() else {
        return Err(fail(CODE, "utter: Input should be a valid list", value.span));
    };
    let mut triggers: Vec<VerbatimTrigger> = Vec::new();
    for (n, item) in items.iter().enumerate() {
        let single = item.as_map().filter(|map| map.len() == 1);
        let Some([(key, options)]) = single else {
            return Err(fail(
                CODE,
                format!("utter.{n}: Value error, Each utter entry must be a single-key mapping."),
                item.span,
            ));
        };
        let name = key.key_text();
        let mut on_activate = false;
        let mut when = None;
        if let Some(map) = options.as_map() {
            for (option, setting) in map {
                // YAML 1.1 reads an unquoted `on` key as True; Rasa normalises it back.
                let option_name = match &option.value {
                    Value::Bool(true) => "on".to_owned(),
                    other => yaml::python_str(other),
                };
                match option_name.as_str() {
                    "on" => match setting.as_str() {
                        Some("activate") => on_activate = true,
                        None if setting.is_null() => {}
                        _ => {
                            return Err(fail(
                                CODE,
                                format!(
                                    "utter.{n}.{name}.on: Value error, on must be 'activate', got {}",
                                    python_repr(&setting.value)
                                ),
                                setting.span,
                            ));
                        }
                    },
                    "when" => match &setting.value {
                        Value::Null => {}
                        Value::Str(text) => when = Some(text.clone()),
                        _ => {
                            return Err(fail(
                                CODE,
                                format!("utter.{n}.{name}.when: Input should be a valid string"),
                                setting.span,
                            ));
                        }
                    },
                    other => {
                        return Err(fail(
                            CODE,
                            format!(
                                "utter.{n}.{name}: Unknown key(s): {other}. Allowed keys: on, when."
                            ),
                            option.span,
                        ));
                    }
                }
            }
        } else if !options.is_null() {
            return Err(fail(
                CODE,
                format!("utter.{n}.{name}: Input should be a valid dictionary"),
                options.span,
            ));
        }
        if !on_activate && when.is_none() {
            return Err(fail(
                CODE,
                format!("utter trigger '{name}' must set 'on: activate' or 'when:'."),
                key.span,
            ));
        }
        if triggers.iter().any(|trigger| trigger.response_name == name) {
            return Err(fail(CODE, format!("Duplicate utter trigger '{name}'."), key.span));
        }
        triggers.push(VerbatimTrigger { response_name: name, on_activate, when_condition: when });
    }
    Ok(triggers)
}

// ---------------------------------------------------------------------------------------
// Body

enum Section {
    Prose { start: usize, end: usize },
    Block { header: (usize, usize), id: Option<String>, body_start: usize, body_end: usize },
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Splits the body the way `_ORDERED_BLOCK_PATTERN` does:
/// `:::ordered_block(?:\s+id=(?P<id>[\w-]+))?\s*\n(?P<body>.*?)^:::\s*$` (DOTALL|MULTILINE).
fn split_body(body: &str) -> Vec<Section> {
    let mut sections = Vec::new();
    let mut prose_start = 0;
    let mut search = 0;
    while let Some(found) = body[search..].find(":::ordered_block") {
        let at = search + found;
        match match_block(body, at) {
            Some((id, body_start, body_end, end)) => {
                sections.push(Section::Prose { start: prose_start, end: at });
                let header_end = body[at..].find('\n').map_or(body.len(), |n| at + n);
                sections.push(Section::Block {
                    header: (at, header_end),
                    id,
                    body_start,
                    body_end,
                });
                prose_start = end;
                search = end.max(at + 1);
            }
            None => search = at + 1,
        }
        while !body.is_char_boundary(search) {
            search += 1;
        }
    }
    sections.push(Section::Prose { start: prose_start, end: body.len() });
    sections
}

/// Tries the pattern at `at`: `(id, body_start, body_end, match_end)`.
fn match_block(body: &str, at: usize) -> Option<(Option<String>, usize, usize, usize)> {
    let after_keyword = at + ":::ordered_block".len();
    // `\s*\n` after position `from`: ends after the last `\n` of the whitespace run.
    let newline_after = |from: usize| -> Option<usize> {
        let run_end = body[from..].find(|c: char| !py_isspace(c)).map_or(body.len(), |n| from + n);
        body[from..run_end].rfind('\n').map(|n| from + n + 1)
    };
    let with_id = (|| {
        let ws_end = body[after_keyword..]
            .find(|c: char| !py_isspace(c))
            .map_or(body.len(), |n| after_keyword + n);
        if ws_end == after_keyword || !body[ws_end..].starts_with("id=") {
            return None;
        }
        let id_start = ws_end + 3;
        let id_end = body[id_start..]
            .find(|c: char| !(is_word(c) || c == '-'))
            .map_or(body.len(), |n| id_start + n);
        if id_end == id_start {
            return None;
        }
        newline_after(id_end).map(|start| (Some(body[id_start..id_end].to_owned()), start))
    })();
    let (id, body_start) =
        with_id.or_else(|| newline_after(after_keyword).map(|start| (None, start)))?;
    // Lazy body up to the first line that is `:::` followed by whitespace reaching a
    // newline or the end.
    let mut line_start = body_start;
    loop {
        let at_line_start = line_start == 0 || body.as_bytes().get(line_start - 1) == Some(&b'\n');
        if at_line_start && body[line_start..].starts_with(":::") {
            let from = line_start + 3;
            let run_end =
                body[from..].find(|c: char| !py_isspace(c)).map_or(body.len(), |n| from + n);
            if run_end == body.len() {
                return Some((id, body_start, line_start, body.len()));
            }
            if let Some(newline) = body[from..run_end].rfind('\n') {
                return Some((id, body_start, line_start, from + newline));
            }
        }
        let next = body[line_start..].find('\n')?;
        line_start += next + 1;
    }
}

/// Paragraphs of one prose section (`\n[^\S\n]*\n+` splits them) and their `if:` markers.
fn prose_segments(
    body: &str,
    start: usize,
    end: usize,
    span_of: &dyn Fn(usize, usize) -> Span,
) -> Result<Vec<ProseSegment>, Failure> {
    let text = &body[start..end];
    let mut paragraphs = Vec::new();
    let mut from = 0;
    let mut i = 0;
    let bytes = text.as_bytes();
    while i < bytes.len() {
        if bytes[i] == b'\n' {
            // [^\S\n]* then \n+
            let mut j = i + 1;
            while let Some(c) = text[j..].chars().next() {
                if c != '\n' && py_isspace(c) {
                    j += c.len_utf8();
                } else {
                    break;
                }
            }
            if bytes.get(j) == Some(&b'\n') {
                while bytes.get(j) == Some(&b'\n') {
                    j += 1;
                }
                paragraphs.push((from, i));
                from = j;
                i = j;
                continue;
            }
        }
        i += 1;
    }
    paragraphs.push((from, text.len()));

    let mut segments = Vec::new();
    for (p_start, p_end) in paragraphs {
        let raw = &text[p_start..p_end];
        let paragraph = py_strip(raw);
        if paragraph.is_empty() {
            continue;
        }
        let offset = start + p_start + (paragraph.as_ptr() as usize - raw.as_ptr() as usize);
        let span = span_of(offset, offset + paragraph.len());
        let (first, rest) = paragraph.split_once('\n').unwrap_or((paragraph, ""));
        let first = py_strip(first);
        let first_span = span_of(offset, offset + first.len());
        // The reference quotes only the start of the else/elif messages; the rest is ours.
        if first.starts_with("else:") {
            return Err(fail(
                "skill.markdown.unsupported_prose_else",
                "'else:' is not allowed in prose. Write a separate 'if:' paragraph with the \
                 opposite condition.",
                first_span,
            ));
        }
        if first.starts_with("elif:") {
            return Err(fail(
                "skill.markdown.unsupported_prose_elif",
                "'elif:' is not allowed in prose. Write a separate 'if:' paragraph for each \
                 condition.",
                first_span,
            ));
        }
        if let Some(condition) = first.strip_prefix("if:") {
            let condition = py_strip(condition);
            if condition.is_empty() {
                return Err(fail(
                    "skill.markdown.empty_prose_if_condition",
                    "Prose 'if:' marker must include a non-empty condition.",
                    first_span,
                ));
            }
            let body_text = py_strip(rest);
            if body_text.is_empty() {
                return Err(fail(
                    "skill.markdown.empty_prose_if_body",
                    "Prose 'if:' marker must be followed by a non-empty paragraph body.",
                    first_span,
                ));
            }
            let body_offset = offset + (body_text.as_ptr() as usize - paragraph.as_ptr() as usize);
            segments.push(ProseSegment {
                scan: crate::rasa::findings::ProseScan::of(body_text, Some(condition)),
                condition: Some(condition.to_owned()),
                text: body_text.to_owned(),
                span,
                offset: body_offset,
            });
        } else {
            segments.push(ProseSegment {
                scan: crate::rasa::findings::ProseScan::of(paragraph, None),
                condition: None,
                text: paragraph.to_owned(),
                span,
                offset,
            });
        }
    }
    Ok(segments)
}

/// One block, from its body's YAML as [`Joined::read_yaml`] read it. Mapping, duplicate
/// and `description` messages are Rasa's; the others ours.
fn read_block(
    id: &str,
    yaml: Result<Option<Node>, Failure>,
    header: Span,
) -> Result<OrderedBlock, Failure> {
    let not_mapping =
        || fail(BLOCK_CODE, format!("Ordered block '{id}' body must be a YAML mapping."), header);
    let node = match yaml? {
        Some(node) if node.as_map().is_some() => node,
        _ => return Err(not_mapping()),
    };
    if let Some((key, _)) = node.entry("routable") {
        // Ours: the reference gives the code, not the message.
        return Err(fail(
            "skill.markdown.ordered_block_routable_forbidden",
            format!(
                "Ordered block '{id}' must not set 'routable'. Remove it; routability follows \
                 from whether the skill has prose."
            ),
            key.span,
        ));
    }
    if let Some((key, _)) = node.entry("description") {
        return Err(fail(
            "skill.markdown.ordered_block_description_forbidden",
            format!(
                "Ordered block '{id}' must not set 'description'. Remove it; the orchestrator \
                 routes on the skill description."
            ),
            key.span,
        ));
    }
    let mut block = OrderedBlock {
        block_id: id.to_owned(),
        routable: false,
        complete_when: None,
        tools: Vec::new(),
        steps: Vec::new(),
        span: header,
    };
    if let Some(value) = node.get("complete_when").filter(|value| !value.is_null()) {
        let Some(text) = value.as_str() else {
            return Err(fail(
                BLOCK_CODE,
                format!("Ordered block '{id}' complete_when must be an expression string."),
                value.span,
            ));
        };
        block.complete_when = Some(text.to_owned());
    }
    if let Some(value) = node.get("tools").filter(|value| !value.is_null()) {
        let Some(items) = value.as_seq() else {
            return Err(fail(
                BLOCK_CODE,
                format!("Ordered block '{id}' tools must be a list."),
                value.span,
            ));
        };
        for (n, item) in items.iter().enumerate() {
            block.tools.push(read_block_tool(item, &format!("tools.{n}"))?);
        }
    }
    if let Some(value) = node.get("steps").filter(|value| !value.is_null()) {
        let Some(items) = value.as_seq() else {
            return Err(fail(
                STEP_CODE,
                format!("Ordered block '{id}' steps must be a list."),
                value.span,
            ));
        };
        for item in items {
            block.steps.push(read_step(item)?);
        }
    }
    // A missing `next` links to the following step; the last goes to END.
    let ids: Vec<String> = block.steps.iter().map(|step| step.id.clone()).collect();
    for (n, step) in block.steps.iter_mut().enumerate() {
        if step.next.is_none() && step.kind != StepKind::End {
            step.next =
                Some(Next::Step(ids.get(n + 1).cloned().unwrap_or_else(|| "END".to_owned())));
        }
    }
    Ok(block)
}

/// A block `tools:` entry: a bare name, or a `GatedTool` mapping with `name:`.
fn read_block_tool(item: &Node, loc: &str) -> Result<GatedTool, Failure> {
    if let Some(name) = item.as_str() {
        return Ok(GatedTool {
            name: name.to_owned(),
            requires: None,
            requires_confirmation: None,
            on_success: None,
            on_failure: None,
            span: item.span,
        });
    }
    let Some(name_node) = item.get("name") else {
        return read_gate_entry(item, loc, BLOCK_CODE);
    };
    let Some(name) = name_node.as_str() else {
        return Err(fail(
            BLOCK_CODE,
            format!("{loc}.name: Input should be a valid string"),
            name_node.span,
        ));
    };
    let mut gate = GatedTool {
        name: name.to_owned(),
        requires: None,
        requires_confirmation: None,
        on_success: None,
        on_failure: None,
        span: name_node.span,
    };
    let rest: Vec<(Node, Node)> = item
        .as_map()
        .unwrap_or(&[])
        .iter()
        .filter(|(key, _)| key.as_str() != Some("name"))
        .cloned()
        .collect();
    let options = Node { value: Value::Map(rest), span: item.span, plain: false };
    read_gate_options(&mut gate, &options, loc, BLOCK_CODE)?;
    Ok(gate)
}

const STEP_KINDS: [&str; 8] =
    ["instructions", "collect", "action", "execute_tool", "set_memory", "call", "link", "noop"];

/// One step. Unknown-property, missing-property, cannot-infer and cross-skill-call
/// messages are Rasa's; type errors and the removed-key migration texts are ours, and
/// for a step without `id` the `{id}` of the missing-property message is left empty.
fn read_step(item: &Node) -> Result<Step, Failure> {
    let Some(map) = item.as_map() else {
        return Err(fail(STEP_CODE, "Each step must be a YAML mapping.", item.span));
    };
    let get = |key: &str| item.get(key);
    let id_text = get("id").map(|id| yaml::python_str(&id.value));
    let kind_key = if id_text.as_deref() == Some("END") {
        "END"
    } else if get("noop").is_some_and(|value| value.value == Value::Bool(true)) {
        "noop"
    } else if get("utter").is_some() {
        "utter"
    } else if let Some(key) = STEP_KINDS.iter().take(7).find(|key| get(key).is_some()) {
        key
    } else {
        let keys: Vec<String> = map.iter().map(|(key, _)| python_repr(&key.value)).collect();
        return Err(fail(
            "python.ValueError",
            format!(
                "Cannot infer step kind from YAML keys [{}]. Expected one of: instructions, \
                 collect, action, utter, noop, execute_tool, set_memory, call, link; or id == \
                 'END'.",
                keys.join(", ")
            ),
            item.span,
        ));
    };
    let step_name = id_text.unwrap_or_default();
    let allowed: &[&str] = match kind_key {
        "END" => &["id"],
        "noop" => &["id", "noop", "next"],
        "utter" => &["id", "utter", "next"],
        "instructions" => &["id", "instructions", "complete_when", "optional", "next"],
        "collect" => {
            &["id", "collect", "utterance", "description", "dtmf", "ask_before_filling", "next"]
        }
        "action" => &["id", "action", "next"],
        "execute_tool" => &["id", "execute_tool", "parameters", "next"],
        "set_memory" => &["id", "set_memory", "next"],
        "call" => &["id", "call", "next"],
        _ => &["id", "link", "next"],
    };
    if let Some((key, _)) =
        map.iter().find(|(key, _)| !key.as_str().is_some_and(|k| allowed.contains(&k)))
    {
        let key_name = key.key_text();
        let message = if kind_key == "collect"
            && (key_name == "force_collection" || key_name == "tool")
        {
            // Ours: the reference says these removed keys get migration errors.
            format!(
                "Step '{step_name}' uses removed property '{key_name}'. Remove it; collect steps \
                 no longer take it."
            )
        } else {
            format!(
                "Unknown step property '{key_name}' on step '{step_name}'. Remove it or check for typos."
            )
        };
        return Err(fail(STEP_CODE, message, key.span));
    }
    let Some(id_node) = get("id") else {
        return Err(fail(
            STEP_CODE,
            format!("Step '{step_name}' is missing required property 'id'."),
            item.span,
        ));
    };
    let Some(id) = id_node.as_str().map(str::to_owned) else {
        return Err(fail(
            STEP_CODE,
            format!("Step '{step_name}' property 'id': Input should be a valid string"),
            id_node.span,
        ));
    };
    let text = |key: &str| -> Result<Option<String>, Failure> {
        match get(key) {
            None => Ok(None),
            Some(node) if node.is_null() => Ok(None),
            Some(node) => node.as_str().map(|t| Some(t.to_owned())).ok_or_else(|| {
                fail(
                    STEP_CODE,
                    format!("Step '{id}' property '{key}': Input should be a valid string"),
                    node.span,
                )
            }),
        }
    };
    let required = |key: &str| -> Result<String, Failure> {
        text(key)?.ok_or_else(|| {
            fail(STEP_CODE, format!("Step '{id}' is missing required property '{key}'."), item.span)
        })
    };
    let flag = |key: &str| -> Result<bool, Failure> {
        match get(key).map(|node| (&node.value, node.span)) {
            None | Some((Value::Null, _)) => Ok(false),
            Some((Value::Bool(on), _)) => Ok(*on),
            Some((_, span)) => Err(fail(
                STEP_CODE,
                format!("Step '{id}' property '{key}': Input should be a valid boolean"),
                span,
            )),
        }
    };
    let mapping = |key: &str| -> Result<serde_json::Map<String, serde_json::Value>, Failure> {
        match get(key) {
            None => Ok(serde_json::Map::new()),
            Some(node) if node.is_null() => Ok(serde_json::Map::new()),
            Some(node) => match yaml::to_json(&node.value) {
                serde_json::Value::Object(map) if node.as_map().is_some() => Ok(map),
                _ => Err(fail(
                    STEP_CODE,
                    format!("Step '{id}' property '{key}': Input should be a valid dictionary"),
                    node.span,
                )),
            },
        }
    };
    let mut parameter_spans = Vec::new();
    let kind = match kind_key {
        "END" => StepKind::End,
        "noop" => StepKind::Route,
        "utter" => StepKind::Action { action: required("utter")? },
        "instructions" => {
            if let Some(node) = get("complete_when")
                .filter(|node| node.as_map().is_some() || node.as_seq().is_some())
            {
                return Err(fail(
                    STEP_CODE,
                    format!(
                        "Step '{id}': step complete_when must be an expression string (use session.<ns>.<entry> conditions)."
                    ),
                    node.span,
                ));
            }
            StepKind::Autonomous {
                instructions: required("instructions")?,
                complete_when: text("complete_when")?,
                optional: flag("optional")?,
            }
        }
        "collect" => StepKind::Collect {
            collect: required("collect")?,
            utterance: text("utterance")?,
            description: text("description")?,
            ask_before_filling: flag("ask_before_filling")?,
        },
        "action" => StepKind::Action { action: required("action")? },
        "execute_tool" => {
            if let Some(map) = get("parameters").and_then(Node::as_map) {
                parameter_spans =
                    map.iter().map(|(key, value)| (key.key_text(), value.span)).collect();
            }
            StepKind::Execute {
                execute_tool: required("execute_tool")?,
                parameters: mapping("parameters")?,
            }
        }
        "set_memory" => StepKind::SetMemory { set_memory: mapping("set_memory")? },
        "call" => StepKind::Call { call: call_target(&required("call")?, item.span)? },
        _ => StepKind::Link { link: call_target(&required("link")?, item.span)? },
    };
    let next = match get("next") {
        None => None,
        Some(node) if node.is_null() => None,
        Some(node) => Some(read_next(&id, node)?),
    };
    Ok(Step { id, kind, next, span: item.span, parameter_spans })
}

fn call_target(target: &str, span: Span) -> Result<String, Failure> {
    if let Some((skill, _)) = target.split_once("__") {
        return Err(fail(
            STEP_CODE,
            format!(
                "Cross-skill call target '{target}' must be a skill id, not a compiled target id. \
                 Use the callee skill's id (e.g. '{skill}')."
            ),
            span,
        ));
    }
    Ok(target.to_owned())
}

/// `next:`; `parse_next_branches`' own messages are not in the reference, these are ours.
fn read_next(id: &str, node: &Node) -> Result<Next, Failure> {
    if let Some(target) = node.as_str() {
        return Ok(Next::Step(target.to_owned()));
    }
    let invalid = |span: Span| {
        fail(
            STEP_CODE,
            format!(
                "Step '{id}' next must be a step id or a list of {{if: <condition>, then: <step>}} \
                 / {{else: <step>}} branches."
            ),
            span,
        )
    };
    let Some(items) = node.as_seq() else { return Err(invalid(node.span)) };
    let mut branches = Vec::new();
    for item in items {
        let target = |key: &str| item.get(key).and_then(Node::as_str).map(str::to_owned);
        match (target("if"), target("then"), target("else")) {
            (Some(condition), Some(then), None) => {
                branches.push(Branch { condition: Some(condition), target: then });
            }
            (None, None, Some(otherwise)) => {
                branches.push(Branch { condition: None, target: otherwise });
            }
            _ => return Err(invalid(item.span)),
        }
    }
    Ok(Next::Branches(branches))
}

// ---------------------------------------------------------------------------------------
// References

/// A `@<kind>.<name>` token at byte `at` of `text`, with the pattern's look-arounds:
/// `(?<![\w])@kind\.([\w-]+)(?![\w-])(?!\.[\w-])`.
pub fn find_at_references<'t>(text: &'t str, kind: &str) -> Vec<(usize, &'t str)> {
    let marker = format!("@{kind}.");
    let mut found = Vec::new();
    let mut search = 0;
    while let Some(n) = text[search..].find(&marker) {
        let at = search + n;
        search = at + 1;
        if text[..at].chars().next_back().is_some_and(is_word) {
            continue;
        }
        let name_start = at + marker.len();
        let name_end = text[name_start..]
            .find(|c: char| !(is_word(c) || c == '-'))
            .map_or(text.len(), |n| name_start + n);
        if name_end == name_start {
            continue;
        }
        let mut after = text[name_end..].chars();
        if after.next() == Some('.') && after.next().is_some_and(|c| is_word(c) || c == '-') {
            continue;
        }
        found.push((at, &text[name_start..name_end]));
    }
    found
}

fn resolve_references(
    skill: &mut Skill,
    span_of: &dyn Fn(usize, usize) -> Span,
) -> Result<(), Failure> {
    let block_ids: Vec<String> = skill.blocks().map(|block| block.block_id.clone()).collect();
    let mut referenced_skills = Vec::new();
    let mut referenced_blocks = Vec::new();
    for segment in skill.segments() {
        for (_, name) in find_at_references(&segment.text, "skill") {
            if !referenced_skills.iter().any(|seen| seen == name) {
                referenced_skills.push(name.to_owned());
            }
        }
        for (at, name) in find_at_references(&segment.text, "block") {
            if !block_ids.iter().any(|id| id == name) {
                let span = span_of(segment.offset + at, segment.offset + at + name.len() + 7);
                return Err(fail(
                    "skill.markdown.invalid_block_reference",
                    format!(
                        "Unknown ordered block '{name}' on skill '{}'; @block. must reference a \
                         block id defined in this skill.",
                        skill.id
                    ),
                    span,
                ));
            }
            let target = format!("{}__{name}", skill.id);
            if !referenced_blocks.contains(&target) {
                referenced_blocks.push(target);
            }
        }
    }
    skill.referenced_skills = referenced_skills;
    skill.referenced_blocks = referenced_blocks;
    Ok(())
}

fn merge_block_tools(skill: &mut Skill) {
    let extra: Vec<GatedTool> =
        skill.blocks().flat_map(|block| block.tools.iter().cloned()).collect();
    for tool in extra {
        if skill.gate(&tool.name).is_none() {
            skill.tools.push(tool);
        }
    }
}

// ---------------------------------------------------------------------------------------
// Train-phase findings that need only this file

fn train_findings(
    file: &str,
    skill: &Skill,
    span_of: &dyn Fn(usize, usize) -> Span,
    findings: &mut Vec<Diagnostic>,
) {
    let mut warn = |span: Span, code: &str, message: String| {
        findings.push(Diagnostic::warning(file, span, Phase::Train, code, message));
    };
    let top = Span::point(Position::START);
    if skill.id == "project" || skill.id == "system" {
        warn(
            top,
            "mantle.validation.skill.reserved_id",
            format!("Skill id '{}' is reserved.", skill.id),
        );
    }
    if skill.id.contains('.') {
        warn(
            top,
            "mantle.validation.skill.invalid_id",
            format!("Skill id '{}' must not contain '.'.", skill.id),
        );
    }
    if skill.description.as_deref().is_none_or(|text| py_strip(text).is_empty()) {
        warn(
            top,
            "mantle.validation.skill.missing_description",
            format!("Skill '{}' has no description; the orchestrator routes on it.", skill.id),
        );
    }
    for segment in skill.segments() {
        if let Some(condition) = &segment.condition
            && let Err(problem) = condition::parse(condition)
        {
            warn(
                Span::line(segment.span.start.line, ""),
                "mantle.validation.prose.invalid_if_expression",
                format!("Prose 'if:' condition '{condition}' is not a valid expression: {problem}"),
            );
        }
        for (at, ns, entry) in session_references(&segment.text) {
            let start = segment.offset + at;
            let span = span_of(start, start + 10 + ns.len() + entry.len());
            warn(
                span,
                "mantle.validation.prose.session_reference_in_instructions",
                format!(
                    "Skill '{}' prose mentions 'session.{ns}.{entry}'; memory conditions belong in \
                     an 'if:' line, and prose reads memory with @memory.{ns}.{entry}.",
                    skill.id
                ),
            );
        }
    }
    for tool in &skill.tools {
        if let Some(requires) = &tool.requires
            && let Err(problem) = condition::parse(requires)
        {
            warn(
                tool.span,
                "swaplab.requires.invalid_expression",
                format!(
                    "requires '{requires}' on tool '{}' is not a valid condition ({problem}); Rasa \
                     does not check it, and at run time the gate stays closed, hiding the tool.",
                    tool.name
                ),
            );
        }
    }
    for block in skill.blocks() {
        for step in &block.steps {
            if let StepKind::Execute { parameters, .. } = &step.kind {
                for (name, value) in parameters {
                    let Some(text) = value.as_str() else { continue };
                    let trimmed = text.trim();
                    if trimmed.starts_with("session.") && session_parameter(trimmed).is_none() {
                        let span = step
                            .parameter_spans
                            .iter()
                            .find(|(key, _)| key == name)
                            .map_or(step.span, |(_, span)| *span);
                        warn(
                            span,
                            "mantle.validation.execute_step.invalid_session_parameter",
                            format!(
                                "Parameter '{name}' of step '{}' looks like a memory reference but \
                                 is not 'session.<ns>.<entry>'; it is passed as the literal string.",
                                step.id
                            ),
                        );
                    }
                }
            }
        }
    }
}

/// `session.<ns>.<entry>` exactly (what `resolve_parameter_map` resolves): `(ns, entry)`.
pub fn session_parameter(value: &str) -> Option<(&str, &str)> {
    let rest = value.trim().strip_prefix("session.")?;
    let (ns, entry) = rest.split_once('.')?;
    let ident = |part: &str| {
        part.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_')
            && part.chars().all(is_word)
    };
    (ident(ns) && ident(entry)).then_some((ns, entry))
}

/// `(?<![\w.])session\.([\w-]+)\.([\w-]+)` in prose text.
fn session_references(text: &str) -> Vec<(usize, &str, &str)> {
    let mut found = Vec::new();
    let mut search = 0;
    while let Some(n) = text[search..].find("session.") {
        let at = search + n;
        search = at + 1;
        if text[..at].chars().next_back().is_some_and(|c| is_word(c) || c == '.') {
            continue;
        }
        let rest = &text[at + 8..];
        let part = |s: &str| s.find(|c: char| !(is_word(c) || c == '-')).unwrap_or(s.len());
        let ns_len = part(rest);
        if ns_len == 0 || rest.as_bytes().get(ns_len) != Some(&b'.') {
            continue;
        }
        let entry_rest = &rest[ns_len + 1..];
        let entry_len = part(entry_rest);
        if entry_len == 0 {
            continue;
        }
        found.push((at, &rest[..ns_len], &entry_rest[..entry_len]));
    }
    found
}
