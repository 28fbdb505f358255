//! `@<kind>.<name>` references in prose, and the tools a block offers.

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
