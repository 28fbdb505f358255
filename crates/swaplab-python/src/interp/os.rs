//! The process's surroundings as a project's code reads them: `os.environ` and
//! `os.getenv` over the environment the process was started with, `os.path` on the
//! project's virtual paths (`__file__` is `/<path in the project>`, the working
//! folder is `/`), `sys.path` (a list code may insert into; imports do not read it),
//! and `dotenv.load_dotenv`, accepted and true: the environment already holds what
//! the project's `.env` (or `.env.example`) sets.
//!
//! `os.environ` is a `dict` made once per process, so a value one call sets with
//! `os.environ[...] = ...` or `setdefault` is there for the next; its `repr` is a
//! dict's, not CPython's `environ({...})`.

use super::ast::At;
use super::eval::{Interp, R};
use super::runtime::{Builtin, RunValue};

impl Interp<'_, '_> {
    /// `os.environ`: the process's environment, as a dict made on first use.
    pub(crate) fn environ(&mut self) -> RunValue {
        if let Some(environ) = &self.environ {
            return environ.clone();
        }
        let entries = self.env.iter().map(|(k, v)| (RunValue::str(k), RunValue::str(v))).collect();
        let environ = self.new_dict(entries);
        self.environ = Some(environ.clone());
        environ
    }

    /// `sys.path`: a list made on first use, holding the project's top folder.
    pub(crate) fn sys_path(&mut self) -> RunValue {
        if let Some(path) = &self.sys_path {
            return path.clone();
        }
        let path = self.new_list(vec![RunValue::str("/")]);
        self.sys_path = Some(path.clone());
        path
    }

    /// The functions of `os`, `os.path` and `dotenv`.
    pub(crate) fn call_os(
        &mut self,
        builtin: Builtin,
        args: Vec<RunValue>,
        kwargs: Vec<(String, RunValue)>,
        at: At,
    ) -> R<RunValue> {
        let name = builtin.name();
        match builtin {
            Builtin::Getenv => {
                let [key, default] = self.bind_pair(name, args, kwargs, &["key", "default"], at)?;
                let key = self.os_text("str expected, not", key, at)?;
                let environ = self.environ();
                let RunValue::Dict(dict) = environ else { return Ok(RunValue::None) };
                let found = dict
                    .entries
                    .borrow()
                    .iter()
                    .find(|(k, _)| matches!(k, RunValue::Str(s) if **s == *key))
                    .map(|(_, v)| v.clone());
                Ok(found.unwrap_or_else(|| default.unwrap_or(RunValue::None)))
            }
            Builtin::LoadDotenv => Ok(RunValue::Bool(true)),
            Builtin::PathJoin => {
                if !kwargs.is_empty() {
                    return Err(self.raise("TypeError", "join() takes no keyword arguments", at));
                }
                let mut parts = Vec::new();
                for arg in args {
                    parts.push(self.os_text("join() argument must be str, not", Some(arg), at)?);
                }
                let Some((first, rest)) = parts.split_first() else {
                    let message = "join() missing 1 required positional argument: 'a'";
                    return Err(self.raise("TypeError", message, at));
                };
                let mut path = first.clone();
                for part in rest {
                    if part.starts_with('/') {
                        path.clone_from(part);
                    } else if path.is_empty() || path.ends_with('/') {
                        path.push_str(part);
                    } else {
                        path.push('/');
                        path.push_str(part);
                    }
                }
                Ok(RunValue::str(&path))
            }
            Builtin::PathDirname | Builtin::PathBasename | Builtin::PathAbspath => {
                let [path, _] = self.bind_pair(name, args, kwargs, &["p", ""], at)?;
                let path = self.os_text("expected str, not", path, at)?;
                let out = match builtin {
                    Builtin::PathDirname => dirname(&path),
                    Builtin::PathBasename => path.rsplit('/').next().unwrap_or_default().to_owned(),
                    _ => normpath(&if path.starts_with('/') { path } else { format!("/{path}") }),
                };
                Ok(RunValue::str(&out))
            }
            _ => Ok(RunValue::None),
        }
    }

    /// One or two arguments by name.
    fn bind_pair(
        &self,
        function: &str,
        mut args: Vec<RunValue>,
        kwargs: Vec<(String, RunValue)>,
        names: &[&str; 2],
        at: At,
    ) -> R<[Option<RunValue>; 2]> {
        let mut slots = [None, None];
        if args.len() > 2 || (names[1].is_empty() && args.len() > 1) {
            let message = format!("{function}() takes too many arguments ({} given)", args.len());
            return Err(self.raise("TypeError", message, at));
        }
        for (i, arg) in args.drain(..).enumerate() {
            slots[i] = Some(arg);
        }
        for (key, value) in kwargs {
            match names.iter().position(|n| !n.is_empty() && *n == key) {
                Some(i) if slots[i].is_none() => slots[i] = Some(value),
                _ => {
                    let message =
                        format!("{function}() got an unexpected keyword argument '{key}'");
                    return Err(self.raise("TypeError", message, at));
                }
            }
        }
        if slots[0].is_none() {
            let message =
                format!("{function}() missing 1 required positional argument: '{}'", names[0]);
            return Err(self.raise("TypeError", message, at));
        }
        Ok(slots)
    }

    /// A `str` argument, or CPython's `TypeError` (`<what> <type>`).
    fn os_text(&self, what: &str, value: Option<RunValue>, at: At) -> R<String> {
        match value {
            Some(RunValue::Str(s)) => Ok(s.to_string()),
            other => {
                let kind = other.map_or_else(|| "NoneType".to_owned(), |v| self.type_name(&v));
                Err(self.raise("TypeError", format!("{what} {kind}"), at))
            }
        }
    }
}

/// `posixpath.dirname`.
fn dirname(path: &str) -> String {
    let Some(i) = path.rfind('/') else { return String::new() };
    let head = &path[..=i];
    if head.chars().all(|c| c == '/') {
        head.to_owned()
    } else {
        head.trim_end_matches('/').to_owned()
    }
}

/// `posixpath.normpath` of an absolute path.
fn normpath(path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            other => parts.push(other),
        }
    }
    format!("/{}", parts.join("/"))
}

/// Parses a `.env` file as python-dotenv does for the common forms: `KEY=value`,
/// `export KEY=value`, single- or double-quoted values (double quotes understand
/// `\n`, `\t`, `\"` and `\\`), and `# comments` (after a value, only when preceded by
/// a space). Lines it cannot read are skipped, as python-dotenv skips them with a
/// warning. Later lines win.
pub fn read_dotenv(text: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let line = line.strip_prefix("export ").map_or(line, str::trim_start);
        let Some((key, value)) = line.split_once('=') else { continue };
        let key = key.trim();
        if key.is_empty() || key.contains(char::is_whitespace) {
            continue;
        }
        let value = value.trim();
        let value = if let Some(rest) = value.strip_prefix('"') {
            let mut out = String::new();
            let mut chars = rest.chars();
            while let Some(c) = chars.next() {
                match c {
                    '"' => break,
                    '\\' => match chars.next() {
                        Some('n') => out.push('\n'),
                        Some('t') => out.push('\t'),
                        Some(other) => out.push(other),
                        None => {}
                    },
                    c => out.push(c),
                }
            }
            out
        } else if let Some(rest) = value.strip_prefix('\'') {
            rest.split('\'').next().unwrap_or_default().to_owned()
        } else {
            match value.find(" #") {
                Some(i) => value[..i].trim_end().to_owned(),
                None => value.to_owned(),
            }
        };
        out.retain(|(k, _)| k != key);
        out.push((key.to_owned(), value));
    }
    out
}
