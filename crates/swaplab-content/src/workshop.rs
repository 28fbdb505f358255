//! The workshop plan: `content/workshop.yml` read into a [`Workshop`], an ordered list
//! of steps (a chapter or an exercise) with suggested minutes and speaker notes.
//!
//! The format is documented in `content/README.md` ("The workshop"). YAML is read only
//! through `swaplab_core::yaml`; every error names the line. [`parse_workshop`] checks
//! the file's shape alone; [`workshop`] also checks that each step names a chapter or an
//! exercise that exists. Nothing here panics on any text.

use swaplab_core::diagnostic::Position;
use swaplab_core::yaml::{Node, YamlValue};

use crate::ContentError;

/// Where the plan lives, under `content/`.
pub const WORKSHOP_PATH: &str = "workshop.yml";

/// The most minutes one step may suggest.
pub const MAX_STEP_MINUTES: u32 = 240;

/// The presenter's plan.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Workshop {
    /// The workshop's title.
    pub title: String,
    /// The steps, in order; never empty.
    pub steps: Vec<Step>,
}

impl Workshop {
    /// The minutes every step suggests, added up.
    pub fn total_minutes(&self) -> u32 {
        self.steps.iter().map(|s| s.minutes).sum()
    }

    /// The minutes the steps before `index` suggest: when that step should start.
    pub fn minutes_before(&self, index: usize) -> u32 {
        self.steps.iter().take(index).map(|s| s.minutes).sum()
    }
}

/// One step of the plan.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    /// What the room looks at.
    pub target: StepTarget,
    /// Suggested minutes, from 1.
    pub minutes: u32,
    /// Speaker notes, in markdown, for the presenter only (empty when none).
    pub notes: String,
    /// The line of `workshop.yml` where the step starts.
    pub line: u32,
}

/// A chapter or an exercise.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StepTarget {
    /// A chapter, by slug: `/learn/<slug>`.
    Chapter(String),
    /// An exercise, by id (`NN-slug`): `/exercises/<id>`.
    Exercise(String),
}

/// The embedded `content/workshop.yml`, with every chapter and exercise it names
/// checked to exist.
pub fn workshop() -> Result<Workshop, ContentError> {
    let text = crate::files()
        .iter()
        .find(|(path, _)| *path == WORKSHOP_PATH)
        .map(|(_, text)| *text)
        .ok_or_else(|| ContentError {
            path: WORKSHOP_PATH.to_owned(),
            message: "there is no workshop plan yet (content/README.md says how to write one)"
                .to_owned(),
        })?;
    let plan = parse_workshop(text)?;
    let chapters: Vec<&str> = crate::chapters().iter().map(|c| c.slug).collect();
    let exercises: Vec<&str> = crate::exercises()?.iter().map(|e| e.id).collect();
    check_targets(&plan, &chapters, &exercises)?;
    Ok(plan)
}

/// Checks that every step names one of `chapters` (slugs) or `exercises` (ids).
pub fn check_targets(
    plan: &Workshop,
    chapters: &[&str],
    exercises: &[&str],
) -> Result<(), ContentError> {
    for step in &plan.steps {
        let (known, kind, name, list) = match &step.target {
            StepTarget::Chapter(slug) => {
                (chapters.contains(&slug.as_str()), "chapter", slug, chapters)
            }
            StepTarget::Exercise(id) => {
                (exercises.contains(&id.as_str()), "exercise", id, exercises)
            }
        };
        if !known {
            return Err(error(
                step.line,
                &format!("there is no {kind} `{name}` (known: {})", list.join(", ")),
            ));
        }
    }
    Ok(())
}

const KEYS: [&str; 2] = ["title", "steps"];
const STEP_KEYS: [&str; 4] = ["chapter", "exercise", "minutes", "notes"];

fn error(line: u32, message: &str) -> ContentError {
    ContentError { path: WORKSHOP_PATH.to_owned(), message: format!("line {line}: {message}") }
}

/// Reads the text of a `workshop.yml`: its shape, not whether the chapters and
/// exercises it names exist (see [`check_targets`]).
pub fn parse_workshop(text: &str) -> Result<Workshop, ContentError> {
    let node = swaplab_core::yaml::parse(text, Position::START)
        .map_err(|e| error(e.at.line, &format!("column {}: {}", e.at.column, e.message)))?
        .ok_or_else(|| error(1, "the file is empty; it needs `title:` and `steps:`"))?;
    let entries = node.as_map().ok_or_else(|| {
        error(node.span.start.line, "the file must be a mapping with `title:` and `steps:`")
    })?;
    unknown_key(entries, &KEYS)?;
    let title = match node.get("title") {
        Some(t) => t
            .as_str()
            .map(|t| t.trim().to_owned())
            .filter(|t| !t.is_empty())
            .ok_or_else(|| error(t.span.start.line, "`title` must be text"))?,
        None => return Err(error(node.span.start.line, "the file needs a `title:`")),
    };
    let list = node
        .get("steps")
        .ok_or_else(|| error(node.span.start.line, "the file needs `steps:`, a list"))?;
    let items =
        list.as_seq().ok_or_else(|| error(list.span.start.line, "`steps` must be a list"))?;
    if items.is_empty() {
        return Err(error(list.span.start.line, "`steps` lists no step"));
    }
    let steps = items
        .iter()
        .zip(1usize..)
        .map(|(item, number)| parse_step(item, number))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Workshop { title, steps })
}

fn unknown_key(entries: &[(Node, Node)], known: &[&str]) -> Result<(), ContentError> {
    match entries.iter().find(|(key, _)| !key.as_str().is_some_and(|k| known.contains(&k))) {
        Some((key, _)) => Err(error(
            key.span.start.line,
            &format!("unknown key `{}` (known: {})", key.key_text(), known.join(", ")),
        )),
        None => Ok(()),
    }
}

fn parse_step(item: &Node, number: usize) -> Result<Step, ContentError> {
    let line = item.span.start.line;
    let at = |line: u32, message: &str| error(line, &format!("step {number}: {message}"));
    let entries = item.as_map().ok_or_else(|| {
        at(line, "a step is a mapping: `- chapter: <slug>` or `- exercise: <id>`, with `minutes:`")
    })?;
    if let Err(e) = unknown_key(entries, &STEP_KEYS) {
        return Err(ContentError { message: format!("{} (in step {number})", e.message), ..e });
    }
    let name = |key: &str| -> Result<Option<String>, ContentError> {
        let Some(value) = item.get(key) else { return Ok(None) };
        let text = value.as_str().map(str::trim).unwrap_or_default();
        let valid = !text.is_empty()
            && text.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
        if !valid {
            return Err(at(
                value.span.start.line,
                &format!("`{key}` must be a name in lowercase letters, digits and `-`"),
            ));
        }
        Ok(Some(text.to_owned()))
    };
    let target = match (name("chapter")?, name("exercise")?) {
        (Some(slug), None) => StepTarget::Chapter(slug),
        (None, Some(id)) => StepTarget::Exercise(id),
        (Some(_), Some(_)) => {
            return Err(at(line, "a step is a chapter or an exercise, not both"));
        }
        (None, None) => return Err(at(line, "a step needs `chapter:` or `exercise:`")),
    };
    let minutes = match item.get("minutes") {
        None => return Err(at(line, "a step needs `minutes:`")),
        Some(node) => match &node.value {
            YamlValue::Int(n) if (1..=i64::from(MAX_STEP_MINUTES)).contains(n) => {
                u32::try_from(*n).unwrap_or(1)
            }
            _ => {
                return Err(at(
                    node.span.start.line,
                    &format!("`minutes` must be a whole number from 1 to {MAX_STEP_MINUTES}"),
                ));
            }
        },
    };
    let notes = match item.get("notes") {
        None => String::new(),
        Some(node) if node.is_null() => String::new(),
        Some(node) => node
            .as_str()
            .map(|t| t.trim().to_owned())
            .ok_or_else(|| at(node.span.start.line, "`notes` must be text (markdown)"))?,
    };
    Ok(Step { target, minutes, notes, line })
}
