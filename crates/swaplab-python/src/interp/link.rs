//! A project's own modules, for `import` and `from … import …` across its files: which
//! file a dotted module name is, as Python's path-based import finds it.
//!
//! A [`Library`] is the project's Python files (path → text) and its import roots, the
//! folders Python would have on `sys.path` (the project root, where Rasa and the
//! tutorial's scripts run from). A name `a.b` is `a/b.py` or the package `a/b/__init__.py`
//! under a root, else a namespace package if the folder `a/b/` holds any file. The
//! importing file's own folder is searched after the roots, as Python searches a script's
//! folder first: the one difference is that it is searched for every module, not only
//! the script that was run. `from .x import y` is relative to the importing file's
//! package. Nothing here reads a disk: the caller hands the texts in.

use std::collections::BTreeMap;

/// A project's Python files and the folders imports are resolved from.
#[derive(Clone, Debug, Default)]
pub struct Library<'a> {
    files: BTreeMap<&'a str, &'a str>,
    roots: Vec<String>,
}

/// What a module name resolved to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Found<'a> {
    /// A file: a module, or a package's `__init__.py`.
    File { path: &'a str, text: &'a str },
    /// A folder with files but no `__init__.py`: an empty namespace package.
    Namespace,
}

impl<'a> Library<'a> {
    /// A library of `files` (path, text), imports resolved from `roots` (folders, `""`
    /// for the top, with or without a trailing `/`).
    pub fn new(files: impl IntoIterator<Item = (&'a str, &'a str)>, roots: &[&str]) -> Self {
        let roots = roots
            .iter()
            .map(|r| {
                let r = r.trim_end_matches('/');
                if r.is_empty() { String::new() } else { format!("{r}/") }
            })
            .collect();
        Library { files: files.into_iter().collect(), roots }
    }

    /// Whether the library has no files: every import is outside the project.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// The file (or namespace package) `module` names when `importer` imports it, and
    /// the path it is known by (a namespace package's folder ends with `/`).
    pub(crate) fn find(&self, importer: &str, module: &str) -> Option<(String, Found<'a>)> {
        if self.files.is_empty() {
            return None;
        }
        let dots = module.chars().take_while(|c| *c == '.').count();
        let name = &module[dots..];
        let dirs: Vec<String> = if dots > 0 {
            // Relative to the importer's package: one dot is its own folder.
            let mut dir = folder(importer).to_owned();
            for _ in 1..dots {
                let trimmed = dir.trim_end_matches('/');
                dir = match trimmed.rfind('/') {
                    Some(i) => trimmed[..=i].to_owned(),
                    None if trimmed.is_empty() => return None,
                    None => String::new(),
                };
            }
            vec![dir]
        } else {
            let mut dirs = self.roots.clone();
            let own = folder(importer).to_owned();
            if !dirs.contains(&own) {
                dirs.push(own);
            }
            dirs
        };
        let relative = name.replace('.', "/");
        for dir in dirs {
            if relative.is_empty() {
                // `from . import x`: the package itself.
                let init = format!("{dir}__init__.py");
                if let Some((path, text)) = self.files.get_key_value(init.as_str()) {
                    return Some((init, Found::File { path, text }));
                }
                return Some((dir, Found::Namespace));
            }
            let file = format!("{dir}{relative}.py");
            if let Some((path, text)) = self.files.get_key_value(file.as_str()) {
                return Some((file, Found::File { path, text }));
            }
            let init = format!("{dir}{relative}/__init__.py");
            if let Some((path, text)) = self.files.get_key_value(init.as_str()) {
                return Some((init, Found::File { path, text }));
            }
            let folder = format!("{dir}{relative}/");
            if self
                .files
                .range(folder.as_str()..)
                .next()
                .is_some_and(|(p, _)| p.starts_with(&folder))
            {
                return Some((folder, Found::Namespace));
            }
        }
        None
    }
}

/// The folder a path is in, with its trailing `/` (`""` at the top).
fn folder(path: &str) -> &str {
    path.rfind('/').map_or("", |i| &path[..=i])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_modules_packages_and_relative_names() {
        let files = [
            ("p/lib/__init__.py", ""),
            ("p/lib/hubspot.py", "X = 1"),
            ("p/tools/crm.py", ""),
            ("p/scripts/mock.py", ""),
            ("p/ns/inner.py", ""),
        ];
        let library = Library::new(files, &["p"]);
        let path = |importer: &str, module: &str| library.find(importer, module).map(|(p, _)| p);
        assert_eq!(path("p/tools/crm.py", "lib.hubspot").as_deref(), Some("p/lib/hubspot.py"));
        assert_eq!(path("p/tools/crm.py", "lib").as_deref(), Some("p/lib/__init__.py"));
        assert_eq!(path("p/tools/crm.py", "ns").as_deref(), Some("p/ns/"));
        assert_eq!(path("p/scripts/x.py", "mock").as_deref(), Some("p/scripts/mock.py"));
        assert_eq!(path("p/lib/__init__.py", ".hubspot").as_deref(), Some("p/lib/hubspot.py"));
        assert_eq!(path("p/lib/hubspot.py", "..tools.crm").as_deref(), Some("p/tools/crm.py"));
        assert_eq!(path("p/tools/crm.py", "httpx"), None);
        assert_eq!(path("p/tools/crm.py", "lib.missing"), None);
    }
}
