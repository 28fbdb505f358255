//! The playground's state and its reducer, and the draft a browser keeps of it.
//!
//! The web crate wraps [`Session`] in Yew's `Reducible`; everything the playground does
//! to its state happens in [`Session::apply`], so it is testable without a browser.
//! Encoding a draft is pure: storing it is the shell's job.

use std::fmt;
use std::rc::Rc;

use serde::{Deserialize, Serialize};

use crate::workspace::{FileRef, Workspace};

/// The playground's whole state.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Session {
    /// The built-in example this workspace started from, if any.
    pub example: Option<String>,
    /// The files, shared so that a shell can hand them to its views and keep the
    /// previous state without copying them; an edit copies them once, on write.
    pub workspace: Rc<Workspace>,
    /// The file shown in the editor.
    pub open: Option<FileRef>,
    /// Counts changes to the workspace, so a shell knows when to save.
    pub revision: u64,
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
        /// The files.
        workspace: Workspace,
        /// The file to show, else the workspace's first file.
        open: Option<FileRef>,
    },
}

impl Session {
    /// A session showing `workspace`, started from `example`.
    pub fn new(example: Option<String>, workspace: Workspace) -> Session {
        let open = workspace.first_file();
        Session { example, workspace: Rc::new(workspace), open, revision: 0 }
    }

    /// Applies one action.
    pub fn apply(&mut self, action: Action) {
        match action {
            Action::Open(file) => {
                if self.workspace.file(&file).is_some() {
                    self.open = Some(file);
                }
            }
            Action::Edit { file, text } => {
                if self.workspace.file(&file) != Some(text.as_str()) {
                    Rc::make_mut(&mut self.workspace).set_file(&file, text);
                    self.revision += 1;
                }
            }
            Action::Load { example, workspace, open } => {
                let open = open
                    .filter(|file| workspace.file(file).is_some())
                    .or_else(|| workspace.first_file());
                self.example = example;
                self.workspace = Rc::new(workspace);
                self.open = open;
                self.revision += 1;
            }
        }
    }

    /// The open file and its text.
    pub fn open_file(&self) -> Option<(&FileRef, &str)> {
        let file = self.open.as_ref()?;
        Some((file, self.workspace.file(file)?))
    }

    /// Files whose text differs from `pristine`, or that `pristine` lacks.
    pub fn edited_files(&self, pristine: &Workspace) -> Vec<FileRef> {
        let mut edited: Vec<FileRef> = self
            .workspace
            .files()
            .filter(|(file, text)| pristine.file(file) != Some(*text))
            .map(|(file, _)| file)
            .collect();
        edited.extend(
            pristine
                .files()
                .filter(|(file, _)| self.workspace.file(file).is_none())
                .map(|(file, _)| file),
        );
        edited.sort();
        edited
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
    let mut session = Session::new(stored.example, stored.workspace);
    if let Some(open) = stored.open {
        session.apply(Action::Open(open));
    }
    Ok(session)
}
