//! Edits: how a derived example turns its base's workspace into its own.
//!
//! An example can be declared as `base: <id>` plus a list of `edits:` instead of a full
//! copy of its files. Each edit is one of
//!
//! - `{file: <area>/<path>, replace: "<text>", with: "<text>"}` — the text must occur in
//!   the file exactly once;
//! - `{file: <area>/<path>, write: "<text>"}` — adds the file or overwrites it;
//! - `{file: <area>/<path>, delete: true}` — removes a file that exists;
//! - `{area: <area>, from: <area>}` — replaces a whole area with a copy of another.
//!
//! Edits apply in order, each to the workspace the previous ones left. A failing edit
//! says which one it was (its number and line in `example.yml`) and which file.

use swaplab_core::yaml::Node;
use swaplab_core::{Area, FileRef, Project, Workspace};

/// One change to a workspace, as `example.yml` declares it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Edit {
    /// Replace the one occurrence of `text` in `file` with `with`.
    Replace {
        /// The file.
        file: FileRef,
        /// The exact text to find; it must occur exactly once.
        text: String,
        /// What it becomes.
        with: String,
    },
    /// Add `file` with `text`, or overwrite it.
    Write {
        /// The file.
        file: FileRef,
        /// Its whole text.
        text: String,
    },
    /// Remove `file`, which must exist.
    Delete {
        /// The file.
        file: FileRef,
    },
    /// Make `area` a copy of `from` as it stands.
    CopyArea {
        /// The area replaced.
        area: Area,
        /// The area copied.
        from: Area,
    },
}

impl Edit {
    /// What the edit is about, for messages: the file, or `after/ (from before/)`.
    pub fn subject(&self) -> String {
        match self {
            Edit::Replace { file, .. } | Edit::Write { file, .. } | Edit::Delete { file } => {
                file.to_string()
            }
            Edit::CopyArea { area, from } => {
                format!("{}/ (from {}/)", area.prefix(), from.prefix())
            }
        }
    }

    /// Applies the edit, or says why it cannot apply.
    pub fn apply(&self, workspace: &mut Workspace) -> Result<(), String> {
        match self {
            Edit::Replace { file, text, with } => {
                let Some(current) = workspace.file(file) else {
                    return Err("there is no such file to replace text in".to_owned());
                };
                match current.matches(text.as_str()).count() {
                    1 => {
                        let changed = current.replacen(text.as_str(), with, 1);
                        workspace.set_file(file, changed);
                        Ok(())
                    }
                    0 => Err(format!(
                        "the text to replace does not occur in the file ({})",
                        preview(text)
                    )),
                    n => Err(format!(
                        "the text to replace occurs {n} times in the file; it must occur exactly once ({})",
                        preview(text)
                    )),
                }
            }
            Edit::Write { file, text } => {
                workspace.set_file(file, text.as_str());
                Ok(())
            }
            Edit::Delete { file } => match workspace.remove_file(file) {
                Some(_) => Ok(()),
                None => Err("there is no such file to delete".to_owned()),
            },
            Edit::CopyArea { area, from } => {
                let copy = workspace.area(*from).clone();
                *area_mut(workspace, *area) = copy;
                Ok(())
            }
        }
    }
}

fn area_mut(workspace: &mut Workspace, area: Area) -> &mut Project {
    match area {
        Area::Before => &mut workspace.before,
        Area::After => &mut workspace.after,
        Area::Server => &mut workspace.server,
        Area::Crm => &mut workspace.crm,
    }
}

/// The first line of a text, cut short, as `"…"`.
fn preview(text: &str) -> String {
    let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or_default().trim();
    let cut: String = first.chars().take(60).collect();
    let more = cut.len() < first.len() || text.trim().lines().count() > 1;
    format!("{cut:?}{}", if more { "…" } else { "" })
}

/// Every area prefix, for messages: `before/, after/, server/, crm/`.
pub(crate) fn area_list() -> String {
    Area::ALL.map(|a| format!("{}/", a.prefix())).join(", ")
}

/// Reads one entry of `edits:`.
pub(crate) fn parse_edit(node: &Node) -> Result<Edit, String> {
    let Some(entries) = node.as_map() else {
        return Err("an edit is a mapping such as {file: …, replace: …, with: …}".to_owned());
    };
    let keys: Vec<String> = entries.iter().map(|(k, _)| k.key_text()).collect();
    let has = |key: &str| keys.iter().any(|k| k == key);
    let text = |key: &str| -> Result<String, String> {
        match node.get(key) {
            Some(value) => value
                .as_str()
                .map(str::to_owned)
                .ok_or_else(|| format!("`{key}` must be a string (quote it, or use a `|` block)")),
            None => Err(format!("the edit needs `{key}`")),
        }
    };
    let (op, allowed): (&str, &[&str]) = if has("area") {
        ("area", &["area", "from"])
    } else if has("replace") {
        ("replace", &["file", "replace", "with"])
    } else if has("write") {
        ("write", &["file", "write"])
    } else if has("delete") {
        ("delete", &["file", "delete"])
    } else {
        return Err(
            "an edit needs one of `replace` (with `with`), `write`, `delete` or `area` (with `from`)"
                .to_owned(),
        );
    };
    if let Some(extra) = keys.iter().find(|k| !allowed.contains(&k.as_str())) {
        return Err(format!(
            "`{extra}` does not go with `{op}` in one edit (expected {})",
            allowed.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ")
        ));
    }
    if has("area") {
        let area = |key: &str| -> Result<Area, String> {
            let name = text(key)?;
            Area::from_prefix(&name).ok_or_else(|| {
                format!(
                    "`{key}: {name}` is not an area; the areas are {}",
                    Area::ALL.map(Area::prefix).join(", ")
                )
            })
        };
        let (to, from) = (area("area")?, area("from")?);
        if to == from {
            return Err(format!("`area` and `from` are both {}", to.prefix()));
        }
        return Ok(Edit::CopyArea { area: to, from });
    }
    let path = text("file")?;
    let file = FileRef::parse(&path).ok_or_else(|| {
        format!("`file: {path}` must start with one of {} and name a file", area_list())
    })?;
    if has("replace") {
        let replace = text("replace")?;
        if replace.is_empty() {
            return Err(format!("{file}: the text to replace is empty"));
        }
        return Ok(Edit::Replace { file, text: replace, with: text("with")? });
    }
    if has("write") {
        return Ok(Edit::Write { file, text: text("write")? });
    }
    match node.get("delete").map(|n| &n.value) {
        Some(swaplab_core::yaml::YamlValue::Bool(true)) => Ok(Edit::Delete { file }),
        _ => Err(format!("{file}: `delete` takes only `true`")),
    }
}
