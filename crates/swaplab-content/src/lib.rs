//! Swap Lab's chapters and built-in examples, embedded from `content/` at build time.
//!
//! The chapters' markdown is embedded only with the `chapter-text` feature (on by
//! default); without it the crate knows each chapter's number, slug, title and path,
//! and the web app fetches the text (see [`Chapter`]).
//!
//! Knows which chapters and examples exist and turns an example's folder into a
//! [`Workspace`]. Holds no logic about Rasa or MCP: that is `swaplab-core`'s.

use swaplab_core::{FileRef, Workspace};

mod edit;
pub mod exercise;
mod expect;
#[cfg(feature = "chapter-text")]
pub mod prerender;
pub mod progress;
pub mod receipt;
pub mod widget;
pub mod workshop;

pub use edit::Edit;
pub use exercise::{Exercise, ExerciseInfo, exercise, exercises};
pub use expect::{Expectation, Outcome};

mod embedded {
    use super::Chapter;

    include!(concat!(env!("OUT_DIR"), "/embedded.rs"));
}

/// The example the playground opens when nothing else is asked for.
pub const DEFAULT_EXAMPLE: &str = "tutorial";

/// Every embedded file as `(path under content/, text)`, sorted by path. The chapters
/// are among them only with the `chapter-text` feature.
pub fn files() -> &'static [(&'static str, &'static str)] {
    embedded::FILES
}

/// A chapter of the tutorial, from `content/chapters/NN-slug.md`.
///
/// The index (number, slug, title, path) is always embedded; the markdown only with
/// the `chapter-text` feature (on by default). The web app builds without it and
/// fetches [`Chapter::path`] from the site instead: `www/index.html` copies
/// `content/chapters/` into the built site, so a chapter's path under `content/` is
/// also its URL relative to the site's base.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Chapter {
    /// Position in the reading order, from the file name's `NN-` prefix.
    pub number: u32,
    /// The URL segment: `/learn/<slug>`.
    pub slug: &'static str,
    /// The text of the first `# ` heading (the slug when there is none).
    pub title: &'static str,
    /// The file's path under `content/`, like `chapters/01-the-agent.md`.
    pub path: &'static str,
    /// The chapter's markdown; only with the `chapter-text` feature.
    #[cfg(feature = "chapter-text")]
    pub markdown: &'static str,
}

/// Every chapter, in reading order.
pub fn chapters() -> &'static [Chapter] {
    embedded::CHAPTERS
}

/// The chapter at `/learn/<slug>`.
pub fn chapter(slug: &str) -> Option<&'static Chapter> {
    chapters().iter().find(|c| c.slug == slug)
}

/// What `example.yml` says about an example.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExampleInfo {
    /// The example's folder name, used in links.
    pub id: &'static str,
    /// A short title.
    pub title: String,
    /// One paragraph on what the example shows.
    pub summary: String,
    /// The example it is derived from (`base:`), when it is declared as edits.
    pub base: Option<String>,
    /// The edits that turn the base's workspace (or the example's own files) into the
    /// example's, in order.
    pub edits: Vec<Edit>,
    /// The verdicts `expect:` records for it, when it has them.
    pub expect: Option<Expectation>,
}

/// A built-in example: its description and its files.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Example {
    /// Title and summary.
    pub info: ExampleInfo,
    /// The files, by area.
    pub workspace: Workspace,
}

/// Why an example could not be read. Embedded content is checked by this crate's
/// tests, so a reader never sees one of these from a released build.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ContentError {
    /// The file at fault, under `content/`.
    pub path: String,
    /// What is wrong with it.
    pub message: String,
}

impl std::fmt::Display for ContentError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "content/{}: {}", self.path, self.message)
    }
}

impl std::error::Error for ContentError {}

/// Every example's description: the default example first, then the others by id.
/// Each example is loaded whole, so an edit that does not apply is reported here too.
pub fn examples() -> Result<Vec<ExampleInfo>, ContentError> {
    examples_in(files())
}

/// The example with this id, with its files.
pub fn example(id: &str) -> Result<Option<Example>, ContentError> {
    example_in(files(), id)
}

/// [`examples`] over another set of `(path under content/, text)` files.
pub fn examples_in(
    files: &'static [(&'static str, &'static str)],
) -> Result<Vec<ExampleInfo>, ContentError> {
    let mut ids: Vec<&'static str> = files
        .iter()
        .filter_map(|(path, _)| {
            let id = path.strip_prefix("examples/")?.strip_suffix("/example.yml")?;
            (!id.contains('/')).then_some(id)
        })
        .collect();
    swaplab_core::order::sort_by_key(&mut ids, |id| (*id != DEFAULT_EXAMPLE, *id));
    ids.into_iter()
        .filter_map(|id| load(files, id, &mut Vec::new()).map(|e| e.map(|e| e.info)).transpose())
        .collect()
}

/// [`example`] over another set of `(path under content/, text)` files.
pub fn example_in(
    files: &'static [(&'static str, &'static str)],
    id: &str,
) -> Result<Option<Example>, ContentError> {
    load(files, id, &mut Vec::new())
}

/// What `example.yml` says, with the line of each edit for messages.
struct Manifest {
    info: ExampleInfo,
    lines: Vec<u32>,
}

/// Loads `id`, following `base:` links; `chain` holds the examples being loaded, to
/// refuse a cycle.
fn load(
    files: &'static [(&'static str, &'static str)],
    id: &str,
    chain: &mut Vec<String>,
) -> Result<Option<Example>, ContentError> {
    let manifest = format!("examples/{id}/example.yml");
    let Some((path, text)) = files.iter().find(|(path, _)| *path == manifest) else {
        return Ok(None);
    };
    let id: &'static str = path
        .strip_prefix("examples/")
        .and_then(|p| p.strip_suffix("/example.yml"))
        .expect("matched above");
    let error = |message: String| ContentError { path: (*path).to_owned(), message };
    let Manifest { info, lines } = parse_manifest(id, path, text)?;
    let prefix = format!("examples/{id}/");
    let own: Vec<(&str, &str)> = files
        .iter()
        .filter_map(|(path, text)| Some((path.strip_prefix(&prefix)?, *text)))
        .filter(|(rest, _)| *rest != "example.yml")
        .collect();
    let mut workspace = match &info.base {
        Some(base) => {
            if let Some((first, _)) = own.first() {
                return Err(error(format!(
                    "example `{id}` is derived from `{base}`, so it holds no files of its own \
                     (found {first}); add or change files with `write:` edits"
                )));
            }
            chain.push(id.to_owned());
            if chain.contains(base) {
                return Err(error(format!(
                    "example `{id}`: `base: {base}` makes a cycle ({} → {base})",
                    chain.join(" → ")
                )));
            }
            let Some(base_example) = load(files, base, chain)? else {
                return Err(error(format!(
                    "example `{id}`: `base: {base}` is not an example (no examples/{base}/example.yml)"
                )));
            };
            chain.pop();
            base_example.workspace
        }
        None => {
            let mut workspace = Workspace::default();
            for (rest, text) in own {
                let file = FileRef::parse(rest).ok_or_else(|| ContentError {
                    path: format!("{prefix}{rest}"),
                    message: format!(
                        "an example's files must sit under one of {}",
                        edit::area_list()
                    ),
                })?;
                workspace.set_file(&file, text);
            }
            workspace
        }
    };
    for (number, (edit, line)) in info.edits.iter().zip(lines).enumerate() {
        edit.apply(&mut workspace).map_err(|message| {
            error(format!(
                "example `{id}`, edit {} (line {line}) on {}: {message}",
                number + 1,
                edit.subject()
            ))
        })?;
    }
    Ok(Some(Example { info, workspace }))
}

const MANIFEST_KEYS: [&str; 5] = ["title", "summary", "base", "edits", "expect"];

fn parse_manifest(id: &'static str, path: &str, text: &str) -> Result<Manifest, ContentError> {
    let error = |message: String| ContentError { path: path.to_owned(), message };
    let node = swaplab_core::yaml::parse(text, swaplab_core::diagnostic::Position::START)
        .map_err(|e| error(format!("{}:{}: {}", e.at.line, e.at.column, e.message)))?
        .ok_or_else(|| error("example.yml is empty".to_owned()))?;
    let field = |key: &str| -> Result<String, ContentError> {
        node.get(key)
            .and_then(swaplab_core::yaml::Node::as_str)
            .map(|text| text.trim().to_owned())
            .ok_or_else(|| error(format!("example.yml needs a string `{key}`")))
    };
    if let Some((key, _)) = node
        .as_map()
        .unwrap_or(&[])
        .iter()
        .find(|(key, _)| !key.as_str().is_some_and(|k| MANIFEST_KEYS.contains(&k)))
    {
        return Err(error(format!(
            "example.yml has an unknown key `{}` (known: {})",
            key.key_text(),
            MANIFEST_KEYS.join(", ")
        )));
    }
    let base = node.get("base").map(|_| field("base")).transpose()?;
    let (mut edits, mut lines) = (Vec::new(), Vec::new());
    if let Some(list) = node.get("edits") {
        let items = list.as_seq().ok_or_else(|| error("`edits` must be a list".to_owned()))?;
        for (number, item) in items.iter().enumerate() {
            let line = item.span.start.line;
            let edit = edit::parse_edit(item).map_err(|message| {
                error(format!("example `{id}`, edit {} (line {line}): {message}", number + 1))
            })?;
            edits.push(edit);
            lines.push(line);
        }
    }
    let expect = node
        .get("expect")
        .map(expect::parse_expectation)
        .transpose()
        .map_err(|message| error(format!("example `{id}`: {message}")))?;
    let info =
        ExampleInfo { id, title: field("title")?, summary: field("summary")?, base, edits, expect };
    Ok(Manifest { info, lines })
}
