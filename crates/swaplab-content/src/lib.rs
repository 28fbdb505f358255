//! Swap Lab's chapters and built-in examples, embedded from `content/` at build time.
//!
//! Knows which chapters and examples exist and turns an example's folder into a
//! [`Workspace`]. Holds no logic about Rasa or MCP: that is `swaplab-core`'s.

use swaplab_core::{Area, FileRef, Workspace};

mod embedded {
    include!(concat!(env!("OUT_DIR"), "/embedded.rs"));
}

/// The example the playground opens when nothing else is asked for.
pub const DEFAULT_EXAMPLE: &str = "tutorial";

/// Every embedded file as `(path under content/, text)`, sorted by path.
pub fn files() -> &'static [(&'static str, &'static str)] {
    embedded::FILES
}

/// A chapter of the tutorial.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chapter {
    /// Position in the reading order, from the file name's `NN-` prefix.
    pub number: u32,
    /// The URL segment: `/learn/<slug>`.
    pub slug: &'static str,
    /// The text of the first `# ` heading.
    pub title: String,
    /// The chapter's markdown.
    pub markdown: &'static str,
}

/// Every chapter, in reading order.
pub fn chapters() -> Vec<Chapter> {
    let mut chapters: Vec<Chapter> = files()
        .iter()
        .filter_map(|(path, text)| {
            let name = path.strip_prefix("chapters/")?.strip_suffix(".md")?;
            let (number, slug) = name.split_once('-')?;
            Some(Chapter {
                number: number.parse().ok()?,
                slug,
                title: title_of(text).unwrap_or(slug).to_owned(),
                markdown: text,
            })
        })
        .collect();
    chapters.sort_by_key(|c| c.number);
    chapters
}

/// The chapter at `/learn/<slug>`.
pub fn chapter(slug: &str) -> Option<Chapter> {
    chapters().into_iter().find(|c| c.slug == slug)
}

fn title_of(markdown: &str) -> Option<&str> {
    markdown.lines().find_map(|line| line.strip_prefix("# ")).map(str::trim)
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

/// Every example's description, sorted by id.
pub fn examples() -> Result<Vec<ExampleInfo>, ContentError> {
    files()
        .iter()
        .filter_map(|(path, text)| {
            let id = path.strip_prefix("examples/")?.strip_suffix("/example.yml")?;
            (!id.contains('/')).then(|| parse_info(id, path, text))
        })
        .collect()
}

/// The example with this id, with its files.
pub fn example(id: &str) -> Result<Option<Example>, ContentError> {
    let manifest = format!("examples/{id}/example.yml");
    let Some((path, text)) = files().iter().find(|(path, _)| *path == manifest) else {
        return Ok(None);
    };
    let info = parse_info(
        path.strip_prefix("examples/")
            .and_then(|p| p.strip_suffix("/example.yml"))
            .expect("matched above"),
        path,
        text,
    )?;
    let prefix = format!("examples/{id}/");
    let mut workspace = Workspace::default();
    for (path, text) in files() {
        let Some(rest) = path.strip_prefix(&prefix) else { continue };
        if rest == "example.yml" {
            continue;
        }
        let file = FileRef::parse(rest).ok_or_else(|| ContentError {
            path: (*path).to_owned(),
            message: format!(
                "an example's files must sit under one of {}",
                Area::ALL.map(|a| format!("{}/", a.prefix())).join(", ")
            ),
        })?;
        workspace.set_file(&file, *text);
    }
    Ok(Some(Example { info, workspace }))
}

fn parse_info(id: &'static str, path: &str, text: &str) -> Result<ExampleInfo, ContentError> {
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
        .find(|(key, _)| !matches!(key.as_str(), Some("title" | "summary")))
    {
        return Err(error(format!("example.yml has an unknown key `{}`", key.key_text())));
    }
    Ok(ExampleInfo { id, title: field("title")?, summary: field("summary")? })
}
