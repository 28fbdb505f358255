//! The files a reader works on: the project *before* the swap, the project *after* it,
//! the MCP server's source and the mock CRM's seed.
//!
//! Plain data keyed by path. Nothing here reads a disk or a browser: shells load files
//! and hand them over as text.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

/// Which part of the workspace a file belongs to. The order is the file tree's order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Area {
    /// The Rasa project with local tools, before the swap.
    Before,
    /// The same project after its tools moved onto the MCP server.
    After,
    /// The MCP server's Python source.
    Server,
    /// The mock CRM's seed data (`crm.yml`).
    Crm,
}

impl Area {
    /// Every area, in file-tree order.
    pub const ALL: [Area; 4] = [Area::Before, Area::After, Area::Server, Area::Crm];

    /// The short prefix used when a file is shown with its area, as in `before/memory.yml`.
    pub fn prefix(self) -> &'static str {
        match self {
            Area::Before => "before",
            Area::After => "after",
            Area::Server => "server",
            Area::Crm => "crm",
        }
    }

    /// A heading for the file tree.
    pub fn title(self) -> &'static str {
        match self {
            Area::Before => "Before the swap",
            Area::After => "After the swap",
            Area::Server => "MCP server",
            Area::Crm => "Mock CRM",
        }
    }

    /// Parses [`Area::prefix`] back.
    pub fn from_prefix(prefix: &str) -> Option<Area> {
        Area::ALL.into_iter().find(|area| area.prefix() == prefix)
    }
}

/// One file's address in the workspace: its area and its path inside that area.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct FileRef {
    /// The part of the workspace.
    pub area: Area,
    /// A relative path with `/` separators, e.g. `skills/check_tickets/skill.md`.
    pub path: String,
}

impl FileRef {
    /// A file in `area` at `path`.
    pub fn new(area: Area, path: impl Into<String>) -> FileRef {
        FileRef { area, path: path.into() }
    }

    /// Parses the `area/path` form that [`fmt::Display`] writes.
    pub fn parse(text: &str) -> Option<FileRef> {
        let (prefix, path) = text.split_once('/')?;
        let area = Area::from_prefix(prefix)?;
        (!path.is_empty()).then(|| FileRef::new(area, path))
    }

    /// The last path component, for the file tree.
    pub fn file_name(&self) -> &str {
        self.path.rsplit('/').next().unwrap_or(&self.path)
    }
}

impl fmt::Display for FileRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.area.prefix(), self.path)
    }
}

/// A project: relative path → file text, sorted by path.
///
/// The paths and texts are shared: a session copies its workspace on every keystroke
/// (the page keeps the previous revision), and copying shares every text but the
/// edited one instead of duplicating megabytes for a large project; with the paths
/// shared too, a copy of a 300-skill project allocates only the map's nodes, not a
/// string per file (which, copied and later freed, cost each keystroke 4 ms on a phone).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Project {
    files: BTreeMap<Arc<str>, Arc<str>>,
}

impl Project {
    /// A project holding `files`.
    pub fn from_files<P, T>(files: impl IntoIterator<Item = (P, T)>) -> Project
    where
        P: Into<String>,
        T: Into<String>,
    {
        Project {
            files: crate::order::map_of(
                files
                    .into_iter()
                    .map(|(p, t)| (Arc::<str>::from(p.into()), Arc::<str>::from(t.into()))),
            ),
        }
    }

    /// The text of the file at `path`, if there is one.
    pub fn file(&self, path: &str) -> Option<&str> {
        self.files.get(path).map(|text| &**text)
    }

    /// The text of the file at `path` as shared between copies of the project: two
    /// revisions hold the same allocation for every file not written in between.
    pub(crate) fn shared_file(&self, path: &str) -> Option<&Arc<str>> {
        self.files.get(path)
    }

    /// Every file, sorted by path.
    pub fn files(&self) -> impl Iterator<Item = (&str, &str)> {
        self.files.iter().map(|(p, t)| (&**p, &**t))
    }

    /// How many files the project holds.
    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// True when the project holds no file.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    fn set(&mut self, path: String, text: String) {
        self.files.insert(Arc::from(path), Arc::from(text));
    }

    fn remove(&mut self, path: &str) -> Option<String> {
        self.files.remove(path).map(|text| text.to_string())
    }
}

/// Everything a reader edits: both projects, the server source and the CRM seed.
///
/// The server and the CRM areas are projects too, so that a reader can keep more than
/// one file there (a server split into modules, a second seed) without a special case.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Workspace {
    /// The project before the swap.
    pub before: Project,
    /// The project after the swap.
    pub after: Project,
    /// The MCP server's source files.
    pub server: Project,
    /// The mock CRM's seed files.
    pub crm: Project,
}

impl Workspace {
    /// The project that holds `area`'s files.
    pub fn area(&self, area: Area) -> &Project {
        match area {
            Area::Before => &self.before,
            Area::After => &self.after,
            Area::Server => &self.server,
            Area::Crm => &self.crm,
        }
    }

    fn area_mut(&mut self, area: Area) -> &mut Project {
        match area {
            Area::Before => &mut self.before,
            Area::After => &mut self.after,
            Area::Server => &mut self.server,
            Area::Crm => &mut self.crm,
        }
    }

    /// The text of one file.
    pub fn file(&self, file: &FileRef) -> Option<&str> {
        self.area(file.area).file(&file.path)
    }

    /// Whether `file` holds the same text here as in `other` (both without it counts as
    /// the same). A text neither copy has written since they parted is one shared
    /// allocation, so most files are told apart without reading them.
    pub fn same_file(&self, other: &Workspace, file: &FileRef) -> bool {
        let (a, b) = (self.area(file.area), other.area(file.area));
        match (a.shared_file(&file.path), b.shared_file(&file.path)) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b) || a == b,
            (None, None) => true,
            _ => false,
        }
    }

    /// Files whose text differs from `pristine`, or that `pristine` lacks, sorted: the
    /// reader's edits to an example. Texts still shared with `pristine` are not read.
    pub fn edited_files(&self, pristine: &Workspace) -> Vec<FileRef> {
        let mut edited: Vec<FileRef> = self
            .files()
            .filter(|(file, _)| !self.same_file(pristine, file))
            .map(|(file, _)| file)
            .collect();
        edited.extend(
            pristine.files().filter(|(file, _)| self.file(file).is_none()).map(|(file, _)| file),
        );
        crate::order::sort(&mut edited);
        edited
    }

    /// Writes one file, creating it when it does not exist.
    pub fn set_file(&mut self, file: &FileRef, text: impl Into<String>) {
        self.area_mut(file.area).set(file.path.clone(), text.into());
    }

    /// Removes one file and returns its text.
    pub fn remove_file(&mut self, file: &FileRef) -> Option<String> {
        self.area_mut(file.area).remove(&file.path)
    }

    /// Every file in file-tree order: by area, then by path.
    pub fn files(&self) -> impl Iterator<Item = (FileRef, &str)> {
        Area::ALL.into_iter().flat_map(move |area| {
            self.area(area).files().map(move |(path, text)| (FileRef::new(area, path), text))
        })
    }

    /// How many files the workspace holds.
    pub fn len(&self) -> usize {
        Area::ALL.into_iter().map(|area| self.area(area).len()).sum()
    }

    /// True when the workspace holds no file.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The file a reader sees first: the first skill that differs between the two
    /// projects, else the first file of the tree.
    pub fn first_file(&self) -> Option<FileRef> {
        let changed_skill = self.after.files().find(|(path, text)| {
            path.starts_with("skills/")
                && path.ends_with("/skill.md")
                && self.before.file(path) != Some(*text)
        });
        match changed_skill {
            Some((path, _)) => Some(FileRef::new(Area::After, path)),
            None => self.files().next().map(|(file, _)| file),
        }
    }
}

/// Longest path a file may have, in bytes: the one path rule, used by the editor, the
/// import, permalinks and every load.
pub const MAX_PATH_BYTES: usize = 1024;

/// What is wrong with `path` as a file's path inside an area, if anything: it must be
/// relative, `/`-separated, with no empty, `.` or `..` segment and no control character.
pub fn path_problem(path: &str) -> Option<&'static str> {
    let problem = if path.is_empty() {
        "is empty"
    } else if path.len() > MAX_PATH_BYTES {
        "is longer than 1024 bytes"
    } else if path.starts_with('/') {
        "starts with “/”"
    } else if path.ends_with('/') {
        "ends with “/”, which names a folder"
    } else if path.chars().any(char::is_control) {
        "contains a control character"
    } else if path.contains('\\') {
        "contains “\\”: folders are separated by “/”"
    } else if path.split('/').any(str::is_empty) {
        "has an empty folder name (“//”)"
    } else if path.split('/').any(|segment| segment == "..") {
        "climbs out of its folder with “..”"
    } else if path.split('/').any(|segment| segment == ".") {
        "has a “.” folder"
    } else {
        return None;
    };
    Some(problem)
}
