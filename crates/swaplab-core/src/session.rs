//! The playground's state and its reducer, and the draft a browser keeps of it.
//!
//! The web crate wraps [`Session`] in Yew's `Reducible`; everything the playground does
//! to its state happens in [`Session::apply`], so it is testable without a browser.
//! Encoding a draft is pure: storing it is the shell's job.
//!
//! Some actions can be refused (a file that already exists, a path that climbs out of
//! its folder, an area that is full). A refused action changes nothing and never
//! panics; [`check`] says why before a shell dispatches it, and [`Session::try_apply`]
//! says why when it applies it.

use std::fmt;
use std::rc::Rc;

use serde::{Deserialize, Serialize};

use crate::rasa::project::{MAX_FILE_BYTES, MAX_PROJECT_FILES};
use crate::workspace::{Area, FileRef, Project, Workspace};

/// The playground's whole state.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Session {
    /// The built-in example this workspace started from, if any.
    pub example: Option<String>,
    /// What was last imported over it (a file or folder name, `my-project.zip`), since
    /// the last [`Action::Load`]: once an import has replaced files, the workspace is
    /// no longer the example, and shells name this instead of the example's title.
    pub imported: Option<String>,
    /// The files, shared so that a shell can hand them to its views and keep the
    /// previous state without copying them; an edit copies them once, on write.
    pub workspace: Rc<Workspace>,
    /// The file shown in the editor.
    pub open: Option<FileRef>,
    /// Counts changes to the workspace, so a shell knows when to save.
    pub revision: u64,
    /// Counts changes to which files exist (a load, an import, a file added, renamed
    /// or removed), so a view of the paths alone, like a file tree, can tell a
    /// keystroke's change (which leaves them) from one that moves its rows without
    /// comparing every path.
    pub files_revision: u64,
}

/// Everything that can happen to a [`Session`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// Show a file in the editor.
    Open(FileRef),
    /// Replace a file's text (creating the file when it does not exist).
    Edit {
        /// The file.
        file: FileRef,
        /// Its new text.
        text: String,
    },
    /// Replace the whole workspace, e.g. with a built-in example or a restored draft.
    Load {
        /// The example it came from, if any.
        example: Option<String>,
        /// What it was imported from (a restored draft's [`Session::imported`]); `None`
        /// for the example itself.
        imported: Option<String>,
        /// The files.
        workspace: Workspace,
        /// The file to show, else the workspace's first file.
        open: Option<FileRef>,
    },
    /// Create an empty file and open it. Refused when it exists, when its path breaks
    /// the rules of [`path_problem`], or when its area already holds
    /// [`MAX_PROJECT_FILES`] files.
    AddFile {
        /// The new file.
        file: FileRef,
    },
    /// Move a file's text to a new path (in any area). Refused when `from` is missing or
    /// `to` exists or is not a valid path. The open file follows.
    Rename {
        /// The file as it is named now.
        from: FileRef,
        /// Its new name.
        to: FileRef,
    },
    /// Remove a file. When it is the open file, its neighbour in the tree opens.
    Delete {
        /// The file.
        file: FileRef,
    },
    /// Load a project into one area: replacing the area's files, or merged over them.
    /// Refused as a whole when any path is invalid, any text is over
    /// [`MAX_FILE_BYTES`], or the area would hold more than [`MAX_PROJECT_FILES`].
    Import {
        /// The area the files go to.
        area: Area,
        /// Path inside the area → text.
        files: Vec<(String, String)>,
        /// Replace the area's files (`true`) or write these over them (`false`).
        replace: bool,
    },
    /// Name the workspace after an import (a file or folder name), as
    /// [`Session::imported`]; a shell dispatches it after the [`Action::Import`]s of one
    /// gesture.
    Imported {
        /// Where the files came from, as the reader would recognise it.
        source: String,
    },
}

pub use crate::workspace::{MAX_PATH_BYTES, path_problem};

/// Why `action` would be refused on `workspace`, or `Ok` when [`Session::apply`] would
/// carry it out. Pure: shells call it to show the reason before dispatching.
pub fn check(workspace: &Workspace, action: &Action) -> Result<(), String> {
    match action {
        Action::Open(_) | Action::Imported { .. } => Ok(()),
        // A file an edit creates, and every file a load brings, follow the same path rule
        // as a file the reader adds, with the editor's words.
        Action::Edit { file, .. } if workspace.file(file).is_none() => bad_path(file),
        Action::Edit { .. } => Ok(()),
        Action::Load { workspace: loaded, open, .. } => {
            loaded.files().map(|(file, _)| file).chain(open.clone()).try_for_each(|f| bad_path(&f))
        }
        Action::AddFile { file } => check_new_file(workspace, file, None),
        Action::Rename { from, to } => {
            if workspace.file(from).is_none() {
                return Err(format!("{from} does not exist."));
            }
            if from == to {
                return Ok(());
            }
            check_new_file(workspace, to, Some(from))
        }
        Action::Delete { file } => match workspace.file(file) {
            Some(_) => Ok(()),
            None => Err(format!("{file} does not exist.")),
        },
        Action::Import { area, files, replace } => {
            check_import(workspace.area(*area), *area, files, *replace)
        }
    }
}

/// Why the first of `actions`, applied in order, would be refused, or `Ok` when all would
/// be carried out. Checked on a copy of `workspace`: a shell that dispatches several
/// actions for one gesture (an import into several areas) does all or none of them.
pub fn check_all(workspace: &Workspace, actions: &[Action]) -> Result<(), String> {
    let mut scratch = Session::new(None, workspace.clone());
    actions.iter().try_for_each(|action| scratch.try_apply(action.clone()))
}

/// Whether `file` can be created, `renaming` (if any) being about to disappear.
/// The editor's refusal of a path that breaks [`path_problem`]'s rule.
fn bad_path(file: &FileRef) -> Result<(), String> {
    match path_problem(&file.path) {
        Some(problem) => Err(format!("“{}” {problem}.", file.path)),
        None => Ok(()),
    }
}

fn check_new_file(
    workspace: &Workspace,
    file: &FileRef,
    renaming: Option<&FileRef>,
) -> Result<(), String> {
    bad_path(file)?;
    if workspace.file(file).is_some() {
        return Err(format!("{file} already exists."));
    }
    let project = workspace.area(file.area);
    let leaving = renaming.filter(|from| from.area == file.area).map(|from| from.path.as_str());
    let folder = format!("{}/", file.path);
    if project.files().any(|(path, _)| path.starts_with(&folder) && Some(path) != leaving) {
        return Err(format!("{file} is a folder already."));
    }
    for ancestor in ancestors(&file.path) {
        if project.file(ancestor).is_some() && Some(ancestor) != leaving {
            return Err(format!(
                "{}/{ancestor} is a file, so it cannot hold {}.",
                file.area.prefix(),
                file.file_name()
            ));
        }
    }
    if leaving.is_none() && project.len() >= MAX_PROJECT_FILES {
        return Err(format!(
            "{} already holds {}, the most an area can hold.",
            file.area.title(),
            crate::words::count(project.len(), "file", "files")
        ));
    }
    Ok(())
}

fn check_import(
    project: &Project,
    area: Area,
    files: &[(String, String)],
    replace: bool,
) -> Result<(), String> {
    if files.is_empty() {
        return Err("There is nothing to import.".to_owned());
    }
    for (path, text) in files {
        if let Some(problem) = path_problem(path) {
            return Err(format!("The import's path “{path}” {problem}, so nothing was imported."));
        }
        if text.len() > MAX_FILE_BYTES {
            return Err(format!(
                "The import's file {path} is {} bytes, over the {MAX_FILE_BYTES}-byte limit, \
                 so nothing was imported.",
                text.len()
            ));
        }
    }
    // The paths the area would hold, as an area of empty files.
    let mut merged = Workspace::default();
    let kept = project.files().filter(|_| !replace).map(|(path, _)| path);
    for path in kept.chain(files.iter().map(|(path, _)| path.as_str())) {
        merged.set_file(&FileRef::new(area, path), "");
    }
    let merged = merged.area(area);
    if merged.len() > MAX_PROJECT_FILES {
        return Err(format!(
            "{} would hold {}, over the limit of {MAX_PROJECT_FILES}, so nothing was imported.",
            area.title(),
            crate::words::count(merged.len(), "file", "files")
        ));
    }
    for (path, _) in merged.files() {
        if let Some(ancestor) = ancestors(path).find(|a| merged.file(a).is_some()) {
            return Err(format!(
                "{}/{ancestor} would be both a file and a folder, so nothing was imported.",
                area.prefix()
            ));
        }
    }
    Ok(())
}

/// `a/b/c` → `a/b`, `a`.
fn ancestors(path: &str) -> impl Iterator<Item = &str> {
    path.char_indices().filter(|(_, c)| *c == '/').map(|(at, _)| &path[..at])
}

fn project_mut(workspace: &mut Workspace, area: Area) -> &mut Project {
    match area {
        Area::Before => &mut workspace.before,
        Area::After => &mut workspace.after,
        Area::Server => &mut workspace.server,
        Area::Crm => &mut workspace.crm,
    }
}

impl Session {
    /// A session showing `workspace`, started from `example`.
    pub fn new(example: Option<String>, workspace: Workspace) -> Session {
        let open = workspace.first_file();
        Session {
            example,
            imported: None,
            workspace: Rc::new(workspace),
            open,
            revision: 0,
            files_revision: 0,
        }
    }

    /// Applies one action. A refused action changes nothing: [`Session::try_apply`]
    /// says why.
    pub fn apply(&mut self, action: Action) {
        // Refusals are reported by `try_apply` and `check`; here they are no-ops.
        let _ = self.try_apply(action);
    }

    /// Applies one action, or returns why it was refused (and changes nothing).
    pub fn try_apply(&mut self, action: Action) -> Result<(), String> {
        check(&self.workspace, &action)?;
        match action {
            Action::Open(file) => {
                if self.workspace.file(&file).is_some() {
                    self.open = Some(file);
                }
            }
            Action::Edit { file, text } => {
                let old = self.workspace.file(&file);
                if old != Some(text.as_str()) {
                    if old.is_none() {
                        self.files_revision += 1;
                    }
                    Rc::make_mut(&mut self.workspace).set_file(&file, text);
                    self.revision += 1;
                }
            }
            Action::Load { example, imported, workspace, open } => {
                let open = open
                    .filter(|file| workspace.file(file).is_some())
                    .or_else(|| workspace.first_file());
                self.example = example;
                self.imported = imported;
                self.workspace = Rc::new(workspace);
                self.open = open;
                self.revision += 1;
                self.files_revision += 1;
            }
            Action::AddFile { file } => {
                Rc::make_mut(&mut self.workspace).set_file(&file, String::new());
                self.open = Some(file);
                self.revision += 1;
                self.files_revision += 1;
            }
            Action::Rename { from, to } => {
                if from != to {
                    let workspace = Rc::make_mut(&mut self.workspace);
                    let text = workspace.remove_file(&from).unwrap_or_default();
                    workspace.set_file(&to, text);
                    if self.open.as_ref() == Some(&from) {
                        self.open = Some(to);
                    }
                    self.revision += 1;
                    self.files_revision += 1;
                }
            }
            Action::Delete { file } => {
                if self.open.as_ref() == Some(&file) {
                    self.open = self.neighbour(&file);
                }
                Rc::make_mut(&mut self.workspace).remove_file(&file);
                self.open = self.open.take().or_else(|| self.workspace.first_file());
                self.revision += 1;
                self.files_revision += 1;
            }
            Action::Import { area, files, replace } => {
                let mut scratch = Workspace::default();
                if !replace {
                    *project_mut(&mut scratch, area) = self.workspace.area(area).clone();
                }
                // Later entries win: the imported files are written over the area's.
                for (path, text) in files {
                    scratch.set_file(&FileRef::new(area, path), text);
                }
                let project = std::mem::take(project_mut(&mut scratch, area));
                if *self.workspace.area(area) != project {
                    *project_mut(Rc::make_mut(&mut self.workspace), area) = project;
                    self.revision += 1;
                    self.files_revision += 1;
                }
                if self.open.as_ref().is_none_or(|open| self.workspace.file(open).is_none()) {
                    self.open = self.workspace.first_file();
                }
            }
            Action::Imported { source } => {
                // A change to what the draft holds: counted, so that it is saved.
                if self.imported.as_deref() != Some(source.as_str()) {
                    self.imported = Some(source);
                    self.revision += 1;
                }
            }
        }
        Ok(())
    }

    /// The file to open instead of `file` when it goes: the next one in its area, else
    /// the previous one.
    fn neighbour(&self, file: &FileRef) -> Option<FileRef> {
        let paths: Vec<&str> = self.workspace.area(file.area).files().map(|(p, _)| p).collect();
        let at = paths.iter().position(|p| *p == file.path)?;
        let next = paths.get(at + 1).or_else(|| at.checked_sub(1).and_then(|i| paths.get(i)));
        next.map(|path| FileRef::new(file.area, *path))
    }

    /// The open file and its text.
    pub fn open_file(&self) -> Option<(&FileRef, &str)> {
        let file = self.open.as_ref()?;
        Some((file, self.workspace.file(file)?))
    }

    /// Files whose text differs from `pristine`, or that `pristine` lacks
    /// ([`Workspace::edited_files`] of the session's files).
    pub fn edited_files(&self, pristine: &Workspace) -> Vec<FileRef> {
        self.workspace.edited_files(pristine)
    }
}

/// The draft format this build writes. Bump it when [`Session`]'s stored shape changes,
/// and keep reading the old one.
pub const DRAFT_VERSION: u32 = 1;

/// A draft larger than this is refused before it is parsed.
pub const MAX_DRAFT_BYTES: usize = 8 * 1024 * 1024;

#[derive(Serialize, Deserialize)]
struct StoredDraft<W> {
    version: u32,
    example: Option<String>,
    /// Added within version 1: a draft without it was not imported over (and a build
    /// that predates it ignores it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    imported: Option<String>,
    open: Option<FileRef>,
    workspace: W,
}

/// Why a stored draft could not be restored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DraftError {
    /// The draft is larger than [`MAX_DRAFT_BYTES`].
    TooLarge {
        /// Its size in bytes.
        bytes: usize,
    },
    /// A newer build wrote it.
    UnknownVersion {
        /// The version it declares.
        version: u32,
    },
    /// It is not a draft this build can read.
    Malformed {
        /// 1-based line of the problem in the stored text.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What was wrong.
        message: String,
    },
    /// A file's path breaks the one path rule ([`path_problem`]): the editor's refusal.
    BadPath {
        /// The refusal, in the editor's words.
        message: String,
    },
}

impl fmt::Display for DraftError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DraftError::TooLarge { bytes } => write!(
                f,
                "the saved draft is {bytes} bytes, over the {MAX_DRAFT_BYTES}-byte limit, so it was not opened"
            ),
            DraftError::UnknownVersion { version } => write!(
                f,
                "the saved draft uses format {version}, which is newer than this page understands (format {DRAFT_VERSION})"
            ),
            DraftError::Malformed { line, column, message } => {
                write!(f, "the saved draft is damaged at {line}:{column}: {message}")
            }
            DraftError::BadPath { message } => {
                write!(f, "the saved draft holds a file whose path is refused: {message}")
            }
        }
    }
}

impl std::error::Error for DraftError {}

/// Serialises a session as a draft.
pub fn encode_draft(session: &Session) -> String {
    // Serialised by reference: a draft is written often and the workspace can be large.
    let stored = StoredDraft {
        version: DRAFT_VERSION,
        example: session.example.clone(),
        imported: session.imported.clone(),
        open: session.open.clone(),
        workspace: &*session.workspace,
    };
    serde_json::to_string(&stored)
        .expect("a draft holds only strings and maps, which always serialise")
}

/// Restores a session from a draft written by [`encode_draft`].
pub fn decode_draft(text: &str) -> Result<Session, DraftError> {
    if text.len() > MAX_DRAFT_BYTES {
        return Err(DraftError::TooLarge { bytes: text.len() });
    }
    #[derive(Deserialize)]
    struct Version {
        version: u32,
    }
    let malformed = |e: serde_json::Error| DraftError::Malformed {
        line: e.line(),
        column: e.column(),
        message: e.to_string().split(" at line ").next().unwrap_or_default().to_owned(),
    };
    let Version { version } = serde_json::from_str(text).map_err(malformed)?;
    if version != DRAFT_VERSION {
        return Err(DraftError::UnknownVersion { version });
    }
    let stored: StoredDraft<Workspace> = serde_json::from_str(text).map_err(malformed)?;
    // The same rule as every load: a draft written before it, or edited by hand, says
    // which path it breaks rather than loading a file no editor action could make.
    for (file, _) in stored.workspace.files() {
        bad_path(&file).map_err(|message| DraftError::BadPath { message })?;
    }
    let mut session = Session::new(stored.example, stored.workspace);
    session.imported = stored.imported;
    if let Some(open) = stored.open {
        session.apply(Action::Open(open));
    }
    Ok(session)
}
