//! `@<kind>.<name>` references in prose, what each prose paragraph names (`ProseScan`,
//! read by the train findings), and the tools a block offers.

use std::collections::BTreeSet;

use super::*;

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

pub(super) fn resolve_references(
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

pub(super) fn merge_block_tools(skill: &mut Skill) {
    let extra: Vec<GatedTool> =
        skill.blocks().flat_map(|block| block.tools.iter().cloned()).collect();
    for tool in extra {
        if skill.gate(&tool.name).is_none() {
            skill.tools.push(tool);
        }
    }
}

/// What the train findings ([`crate::rasa::findings`]) read in one prose paragraph,
/// found by text alone when the skill is compiled (see [`ProseSegment::scan`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProseScan {
    /// `@skill.<id>` targets, in order.
    pub(crate) skill_refs: Vec<String>,
    /// `@tool.<name>` names, in order.
    pub(crate) tool_refs: Vec<String>,
    /// Words with a `_` (possible bare skill mentions), sorted, without repeats.
    pub(crate) underscored: Vec<String>,
    /// `@…` tokens that are not complete references.
    pub(crate) incomplete: Vec<String>,
    /// `@memory…` tokens and what they name.
    pub(crate) memory_refs: Vec<(String, Option<(String, String)>)>,
    /// The memory keys the paragraph's `if:` condition reads (none when it does not parse).
    pub(crate) condition_keys: Vec<String>,
}

impl ProseScan {
    /// Scans one paragraph's `text` and its `if:` condition.
    pub fn of(text: &str, condition: Option<&str>) -> ProseScan {
        let owned =
            |found: Vec<(usize, &str)>| found.into_iter().map(|(_, s)| s.to_owned()).collect();
        let mut underscored: Vec<String> =
            underscored_words(text).into_iter().map(str::to_owned).collect();
        crate::order::sort(&mut underscored);
        underscored.dedup();
        ProseScan {
            skill_refs: owned(find_at_references(text, "skill")),
            tool_refs: owned(find_at_references(text, "tool")),
            underscored,
            incomplete: incomplete_at_references(text),
            memory_refs: memory_references(text),
            condition_keys: condition
                .and_then(|text| condition::parse(text).ok())
                .map(|expr| condition::memory_keys(&expr))
                .unwrap_or_default(),
        }
    }
}

/// `@…` tokens that look like references but are not complete ones.
fn incomplete_at_references(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for kind in ["skill", "block", "tool"] {
        let marker = format!("@{kind}");
        let complete: BTreeSet<usize> =
            crate::order::set_of(find_at_references(text, kind).into_iter().map(|(at, _)| at));
        let mut search = 0;
        while let Some(n) = text[search..].find(&marker) {
            let at = search + n;
            search = at + 1;
            let before_ok =
                !text[..at].chars().next_back().is_some_and(|c| c.is_alphanumeric() || c == '_');
            let after = text[at + marker.len()..].chars().next();
            let continues = after.is_some_and(|c| c.is_alphanumeric() || c == '_');
            if before_ok && !continues && !complete.contains(&at) {
                let end = text[at..].find(char::is_whitespace).map_or(text.len(), |n| at + n);
                found.push(
                    text[at..end].trim_end_matches([',', ';', ':', ')', '!', '?']).to_owned(),
                );
            }
        }
    }
    found
}

/// `@memory.<ns>.<entry>` tokens: `(token, Some((ns, entry)))`, or `None` when incomplete.
fn memory_references(text: &str) -> Vec<(String, Option<(String, String)>)> {
    let mut found = Vec::new();
    let mut search = 0;
    while let Some(n) = text[search..].find("@memory") {
        let at = search + n;
        search = at + 1;
        let rest = &text[at + "@memory".len()..];
        let token_len = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-' || c == '.'))
            .unwrap_or(rest.len());
        let token = rest[..token_len].trim_end_matches('.');
        let parts: Vec<&str> = token.strip_prefix('.').unwrap_or("").split('.').collect();
        let shown = format!("@memory{token}");
        match parts.as_slice() {
            [ns, entry] if !ns.is_empty() && !entry.is_empty() => {
                found.push((shown, Some(((*ns).to_owned(), (*entry).to_owned()))));
            }
            _ => found.push((shown, None)),
        }
    }
    found
}

/// The words of `text` (runs of letters, digits and `_`) that contain a `_` and are not
/// written after a `.`, so neither `@skill.<id>` nor `session.<ns>.<entry>` counts as a
/// bare mention. Found from each `_` outwards, so plain prose costs a byte search.
fn underscored_words(text: &str) -> Vec<&str> {
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    let mut words = Vec::new();
    let mut search = 0;
    while let Some(n) = text[search..].find('_') {
        let at = search + n;
        let start = text[..at]
            .char_indices()
            .rev()
            .take_while(|&(_, c)| is_word(c))
            .last()
            .map_or(at, |(i, _)| i);
        let end = text[at..]
            .char_indices()
            .find(|&(_, c)| !is_word(c))
            .map_or(text.len(), |(i, _)| at + i);
        if !text[..start].ends_with('.') {
            words.push(&text[start..end]);
        }
        search = end.max(at + 1);
    }
    words
}
