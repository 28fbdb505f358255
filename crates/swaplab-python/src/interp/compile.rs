//! Compiling one file: module-level imports, constants, functions (their parameters and
//! bodies, statement by statement), pydantic models and exception classes, into a
//! [`Program`].
//!
//! Blocks are read from the logical lines the shared [`Source`] grammar splits, nested at
//! most [`MAX_NESTING`] levels; a body that cannot be compiled keeps its first problem
//! as a diagnostic, and calling the function reports it.

use std::collections::{BTreeMap, BTreeSet};

use super::ast::{
    Assignment, At, BinOp, ClassDef, ClassMember, Conditional, Const, DataField, Dataclass, Expr,
    ExprKind, FieldDefault, Function, Global, Handler, Model, ModelField, ParamDef, ParamKind,
    Stmt, StmtKind, Target, Versions,
};
use super::link::{Found, Library};
use super::parse::{PResult, Parser, Problem, limit, syntax, to_target, unsupported};
use super::runtime::{Builtin, StdModule, is_builtin_exception};
use super::{MAX_NESTING, Program, Unit};
use crate::annotation::parse_type;
use crate::lex::{SYNTAX, TokenKind};
use crate::literal::literal_value;
use crate::source::{Body, Class, Decorator, Def, Import, Item, Line, Source, Stmt as RawStmt};
use crate::tools::CLIENT_MODULE;
use crate::{Extra, JsonValue};
use swaplab_base::diagnostic::{Diagnostic, Phase, Span};

/// Names the file imported that compiling needs to recognise, under the names it uses.
struct Names {
    base_model: Vec<String>,
    field: Vec<String>,
    config_dict: Vec<String>,
    tool_context: Vec<String>,
    mcp_context: Vec<String>,
    /// `dataclasses.dataclass` and `dataclasses.field`, as the file names them.
    dataclass: Vec<String>,
    data_field: Vec<String>,
}

impl Names {
    fn new() -> Names {
        let one = |name: &str| vec![name.to_owned()];
        Names {
            base_model: vec!["BaseModel".to_owned(), "pydantic.BaseModel".to_owned()],
            field: vec!["Field".to_owned(), "pydantic.Field".to_owned()],
            config_dict: vec!["ConfigDict".to_owned(), "pydantic.ConfigDict".to_owned()],
            tool_context: one("ToolContext"),
            mcp_context: one("Context"),
            dataclass: Vec::new(),
            data_field: Vec::new(),
        }
    }

    /// What a parameter receives when the caller does not pass it.
    fn param_kind(&self, name: &str, annotation: Option<&str>) -> ParamKind {
        let words: Vec<&str> = annotation
            .unwrap_or_default()
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .filter(|w| !w.is_empty())
            .collect();
        let mentions = |names: &[String]| words.iter().any(|w| names.iter().any(|n| n == w));
        if mentions(&self.tool_context) {
            ParamKind::RasaContext
        } else if mentions(&self.mcp_context) {
            ParamKind::McpContext
        } else if name == "context" {
            ParamKind::RasaContext
        } else {
            ParamKind::Plain
        }
    }
}

/// The program being built: what every file adds to (functions, classes… indexed across
/// the whole program), and what belongs to the file being compiled.
struct Module<'p> {
    path: &'p str,
    /// This file's index among `units`.
    file: usize,
    library: &'p Library<'p>,
    names: Names,
    functions: Vec<Function>,
    models: Vec<Model>,
    classes: Vec<ClassDef>,
    globals: BTreeMap<String, Versions>,
    assignments: Vec<Assignment>,
    conditionals: Vec<Conditional>,
    exc_parents: BTreeMap<String, String>,
    /// The class of each user exception class, by name.
    exc_classes: BTreeMap<String, usize>,
    /// Every file of the program, this one included (its globals are filled in when it
    /// is done), and the `lambda`s read so far.
    units: Vec<Unit>,
    lambdas: Vec<std::sync::Arc<super::LambdaDef>>,
    diagnostics: Vec<Diagnostic>,
    /// Counts the module's statements and bindings in file order.
    position: usize,
}

/// Compiles a file, importing the project's own modules from `library`. Never panics.
pub(crate) fn compile(path: &str, text: &str, library: &Library<'_>) -> Program {
    let mut module = Module {
        path,
        file: 0,
        library,
        names: Names::new(),
        functions: Vec::new(),
        models: Vec::new(),
        classes: Vec::new(),
        globals: BTreeMap::new(),
        assignments: Vec::new(),
        conditionals: Vec::new(),
        exc_parents: BTreeMap::new(),
        exc_classes: BTreeMap::new(),
        units: vec![Unit::new(path, text, module_name(path))],
        lambdas: Vec::new(),
        diagnostics: Vec::new(),
        position: 0,
    };
    let diagnostics = module.compile_file(text);
    let globals = std::mem::take(&mut module.globals);
    if let Some(unit) = module.units.first_mut() {
        unit.globals = globals;
    }
    Program {
        diagnostics,
        units: module.units,
        functions: module.functions,
        models: module.models,
        classes: module.classes,
        assignments: module.assignments,
        conditionals: module.conditionals,
        exc_parents: module.exc_parents,
        exc_classes: module.exc_classes,
        lambdas: module.lambdas,
    }
}

/// The dotted name a file is imported by, from its path (`lib/hubspot.py` →
/// `lib.hubspot`, a package's `__init__.py` → the package).
fn module_name(path: &str) -> String {
    let path = path.strip_suffix(".py").unwrap_or(path);
    let path = path.strip_suffix("/__init__").unwrap_or(path);
    path.trim_end_matches('/').replace('/', ".")
}

impl<'p> Module<'p> {
    /// Compiles this module's file; returns its diagnostics, in file order.
    fn compile_file(&mut self, text: &'p str) -> Vec<Diagnostic> {
        let path = self.path;
        let mut source = Source::parse(path, text);
        let items = source.items();
        // Items inside a compound statement already read (its inline statements, its
        // `elif`/`else` lines) start before `resume`.
        let mut resume = 0;
        for item in &items {
            let first = match item {
                Item::Statement(stmt) => stmt.start,
                Item::Class(class) => class.name,
                Item::Def(def) => def.name,
                Item::Compound(li) => source.lines.get(*li).map_or(usize::MAX, |l| l.start),
            };
            if first < resume {
                continue;
            }
            self.position += 1;
            match item {
                Item::Statement(stmt) => self.statement(&mut source, *stmt),
                Item::Class(class) => self.class(&mut source, class),
                Item::Def(def) => self.def(&mut source, def),
                Item::Compound(li) => resume = self.compound(&source, *li),
            }
        }
        let file = self.file;
        let own: Vec<usize> = (0..self.functions.len())
            .filter(|&i| self.functions.get(i).is_some_and(|f| f.file == file))
            .collect();
        let spans: Vec<(usize, Span)> = own
            .iter()
            .filter_map(|&i| self.functions.get(i).map(|f| (i, f.range)))
            .map(|(i, range)| (i, source.findings.span(range.0, range.1)))
            .collect();
        self.lambdas.append(&mut source.lambdas.take());
        let mut diagnostics = source.findings.finish();
        for (i, span) in spans {
            let Some(function) = self.functions.get_mut(i) else { continue };
            let broken = diagnostics.iter().find(|d| {
                d.code == SYNTAX
                    && d.is_error()
                    && d.span.start >= span.start
                    && d.span.start <= span.end
            });
            if let (Some(problem), Ok(_)) = (broken, &function.body) {
                function.body = Err(problem.clone());
            }
        }
        diagnostics.append(&mut self.diagnostics);
        swaplab_base::order::sort_by(&mut diagnostics, |a, b| {
            (a.span, &a.code, &a.message).cmp(&(b.span, &b.code, &b.message))
        });
        diagnostics.dedup();
        diagnostics
    }

    /// The unit of the project's module `module` as this file imports it, compiling it
    /// (and, for `a.b`, the package `a`) the first time; `None` when the project has no
    /// such module. A module imported while it is still being compiled (a circular
    /// import) has only the names bound so far, as in Python.
    fn load(&mut self, module: &str) -> Option<usize> {
        let (key, found) = self.library.find(self.path, module)?;
        if let Some(i) = self.units.iter().position(|u| u.path == key) {
            return Some(i);
        }
        // A dotted name imports its packages first.
        let absolute = if module.starts_with('.') { module_name(&key) } else { module.to_owned() };
        if let Some((package, _)) = module.rsplit_once('.').filter(|(p, _)| !p.ends_with('.'))
            && !package.is_empty()
        {
            self.load(package);
        }
        let index = self.units.len();
        let text = match found {
            Found::File { text, .. } => text,
            Found::Namespace => "",
        };
        let path = match found {
            Found::File { path, .. } => path,
            Found::Namespace => "",
        };
        self.units.push(Unit::new(&key, text, absolute));
        // A circular import sees this file's names bound so far.
        if let Some(unit) = self.units.get_mut(self.file) {
            unit.globals.clone_from(&self.globals);
        }
        if let Found::File { .. } = found {
            // The imported file compiles with the program's tables and its own names.
            let mut child = Module {
                path,
                file: index,
                library: self.library,
                names: Names::new(),
                functions: std::mem::take(&mut self.functions),
                models: std::mem::take(&mut self.models),
                classes: std::mem::take(&mut self.classes),
                globals: BTreeMap::new(),
                assignments: std::mem::take(&mut self.assignments),
                conditionals: std::mem::take(&mut self.conditionals),
                exc_parents: std::mem::take(&mut self.exc_parents),
                exc_classes: std::mem::take(&mut self.exc_classes),
                units: std::mem::take(&mut self.units),
                lambdas: std::mem::take(&mut self.lambdas),
                diagnostics: Vec::new(),
                position: 0,
            };
            // Its own problems are reported where it is read as a file of its own.
            drop(child.compile_file(text));
            let globals = std::mem::take(&mut child.globals);
            self.functions = child.functions;
            self.models = child.models;
            self.classes = child.classes;
            self.assignments = child.assignments;
            self.conditionals = child.conditionals;
            self.exc_parents = child.exc_parents;
            self.exc_classes = child.exc_classes;
            self.units = child.units;
            self.lambdas = child.lambdas;
            if let Some(unit) = self.units.get_mut(index) {
                unit.globals = globals;
            }
        }
        Some(index)
    }

    /// What `name` is bound to at the end of unit `unit` (its last binding).
    fn unit_binding(&self, unit: usize, name: &str) -> Option<Global> {
        let globals =
            if unit == self.file { &self.globals } else { &self.units.get(unit)?.globals };
        globals.get(name).and_then(|v| v.last()).map(|(_, g)| g.clone())
    }

    /// The submodule `name` of unit `unit`, if it was imported.
    fn submodule(&self, unit: usize, name: &str) -> Option<usize> {
        let wanted = format!("{}.{name}", self.units.get(unit)?.module);
        self.units.iter().position(|u| u.module == wanted)
    }
}

/// The diagnostic for a problem.
fn diagnostic(source: &Source<'_>, path: &str, problem: &Problem) -> Diagnostic {
    let span = source.findings.span(problem.at.0, problem.at.1);
    Diagnostic::error(path, span, Phase::Read, problem.code, problem.message.clone())
}

impl Module<'_> {
    /// Binds a module-level name here.
    fn bind(&mut self, name: String, global: Global) {
        self.globals.entry(name).or_default().push((self.position, global));
    }

    /// What a module-level name is bound to so far.
    fn latest(&self, name: &str) -> Option<&Global> {
        self.globals.get(name).and_then(|versions| versions.last()).map(|(_, g)| g)
    }

    fn report(&mut self, source: &Source<'_>, problem: &Problem) -> Diagnostic {
        let diagnostic = diagnostic(source, self.path, problem);
        self.diagnostics.push(diagnostic.clone());
        diagnostic
    }

    /// A module-level statement: an import, or `NAME = expression`.
    fn statement(&mut self, source: &mut Source<'_>, stmt: RawStmt) {
        if stmt.header {
            return;
        }
        if let Some(import) = source.import(stmt) {
            self.import(import);
            return;
        }
        let parts = source.split_assignment(stmt.start, stmt.end);
        if let [(s, e)] = parts.as_slice()
            && let Some(colon) = source.header_colon(*s, *e)
            && let Err(problem) = Parser::annotation(source, (colon + 1, *e), self.path)
        {
            self.report(source, &problem);
        }
        let Some((&value, ranges)) = parts.split_last().filter(|(_, t)| !t.is_empty()) else {
            return;
        };
        let mut targets = Vec::new();
        for &(ts, te) in ranges {
            let colon = source.find_top(ts, te, |i| source.is_op(i, ":"));
            if let Some(colon) = colon
                && let Err(problem) = Parser::annotation(source, (colon + 1, te), self.path)
            {
                self.report(source, &problem);
            }
            let target = match colon {
                Some(colon) => Parser::expression(source, (ts, colon), self.path),
                None => Parser::expression_list(source, (ts, te), self.path),
            };
            match target.and_then(to_target) {
                Ok(target) if binds_names_only(&target) => targets.push(target),
                // `obj.attr = …` and `d[k] = …` change a value at import: not followed.
                Ok(_) => return,
                Err(problem) => {
                    if problem.code == SYNTAX {
                        self.report(source, &problem);
                    }
                    return;
                }
            }
        }
        let value = Parser::expression_list(source, value, self.path);
        let value = value.map_err(|problem| self.report(source, &problem));
        let mut names = BTreeSet::new();
        targets.iter().for_each(|t| target_names(t, &mut names));
        let index = self.assignments.len();
        self.assignments.push(Assignment {
            targets,
            value,
            position: self.position,
            file: self.file,
        });
        for name in names {
            self.bind(name, Global::Value(index));
        }
    }

    /// A module-level compound statement; returns the token where the module level goes
    /// on. An `if` whose branches only bind names (or are never taken at import, such as
    /// `if __name__ == "__main__":`) is followed; anything else is outside the subset,
    /// and the names it would bind stop the run where they are used.
    fn compound(&mut self, source: &Source<'_>, li: usize) -> usize {
        let Some(line) = source.lines.get(li).copied() else { return usize::MAX };
        let is_try = source.is_name(line.start, "try");
        // The clauses that may follow, as the statement goes on.
        let mut clauses: &[&str] = if source.is_name(line.start, "if") {
            &["elif", "else"]
        } else if is_try {
            &["except", "else", "finally"]
        } else if source.is_name(line.start, "for") || source.is_name(line.start, "while") {
            &["else"]
        } else {
            &[]
        };
        let mut next = source.block_end(li);
        while let Some(l) = source.lines.get(next).filter(|l| l.depth == line.depth) {
            let Some(&word) = clauses.iter().find(|w| source.is_name(l.start, w)) else { break };
            next = source.block_end(next);
            clauses = match word {
                "elif" | "except" => clauses,
                "else" if is_try => &["finally"],
                _ => &[],
            };
        }
        let problem = if source.is_name(line.start, "if") {
            self.module_if(source, li, next)
        } else {
            let word = source.text(line.start);
            Some(unsupported(
                source.bytes(line.start, line.start + 1),
                &format!("a module-level `{word}`"),
            ))
        };
        if let Some(problem) = problem {
            let names = bound_names(source, (li, next), self.path);
            if !names.is_empty() {
                let diagnostic = self.report(source, &problem);
                for name in names {
                    let index = self.assignments.len();
                    let target = Target::Name(name.clone());
                    let value = Err(diagnostic.clone());
                    self.assignments.push(Assignment {
                        targets: vec![target],
                        value,
                        position: self.position,
                        file: self.file,
                    });
                    self.bind(name, Global::Value(index));
                }
            }
        }
        source.lines.get(next).map_or(usize::MAX, |l| l.start)
    }

    /// A module-level `if` on lines `li..next`: its bindings, guarded by its tests; or
    /// why it cannot be followed.
    fn module_if(&mut self, source: &Source<'_>, li: usize, next: usize) -> Option<Box<Problem>> {
        let blocks = Blocks { src: source, path: self.path };
        let ctx = Ctx { nesting: 0, in_loop: false };
        let mut tests = Vec::new();
        let mut bodies = Vec::new();
        let mut problem = None;
        let mut at = li;
        while at < next {
            let Some(line) = source.lines.get(at).copied() else { break };
            let end = source.block_end(at).min(next);
            let test = if source.is_name(line.start, "else") {
                None
            } else {
                match blocks.colon(line).and_then(|colon| {
                    Parser::expression(source, (line.start + 1, colon), self.path)
                }) {
                    Ok(test) => Some(test),
                    Err(found) => {
                        problem.get_or_insert(found);
                        at = end;
                        continue;
                    }
                }
            };
            let body = blocks.clause_body(at, end, line, ctx);
            if test.as_ref().is_some_and(never_taken) {
                // Read for its syntax only: it does not run when the module is imported.
                if let Err(found) = body.filter_syntax() {
                    let diagnostic = self.report(source, &found);
                    drop(diagnostic);
                }
                tests.push(None);
            } else {
                match body.and_then(|body| match not_simple(&body) {
                    Some(at) => Err(unsupported(
                        at,
                        "a statement other than an assignment to names in a module-level `if`",
                    )),
                    None => Ok(body),
                }) {
                    Ok(body) => bodies.push((tests.len(), body)),
                    Err(found) => {
                        problem.get_or_insert(found);
                    }
                }
                if test.is_some() {
                    tests.push(test);
                }
            }
            at = end;
        }
        if problem.is_some() {
            return problem;
        }
        self.bind_if(tests, bodies, &[]);
        None
    }

    /// The bindings of an `if` whose branches only bind names.
    fn bind_if(
        &mut self,
        tests: Vec<Option<Expr>>,
        bodies: Vec<(usize, Vec<Stmt>)>,
        guards: &[(usize, usize)],
    ) {
        let cond = self.conditionals.len();
        self.conditionals.push(Conditional { tests, position: self.position, file: self.file });
        for (branch, body) in bodies {
            let mut inner = guards.to_vec();
            inner.push((cond, branch));
            for stmt in body {
                self.position += 1;
                match stmt.kind {
                    StmtKind::Assign(targets, value) => {
                        let mut names = BTreeSet::new();
                        targets.iter().for_each(|t| target_names(t, &mut names));
                        let index = self.assignments.len();
                        let position = self.position;
                        let file = self.file;
                        self.assignments.push(Assignment {
                            targets,
                            value: Ok(value),
                            position,
                            file,
                        });
                        for name in names {
                            let global =
                                Global::Guarded(inner.clone(), Box::new(Global::Value(index)));
                            self.bind(name, global);
                        }
                    }
                    StmtKind::If(branches, orelse) => {
                        let mut tests = Vec::new();
                        let mut bodies = Vec::new();
                        for (i, (test, body)) in branches.into_iter().enumerate() {
                            let taken = !never_taken(&test);
                            tests.push(taken.then_some(test));
                            if taken {
                                bodies.push((i, body));
                            }
                        }
                        bodies.push((tests.len(), orelse));
                        self.bind_if(tests, bodies, &inner);
                    }
                    _ => {}
                }
            }
        }
    }

    fn import(&mut self, import: Import) {
        let Some(module) = import.from else {
            for (name, alias, _) in import.names {
                // `import a.b` binds `a`; `import a.b as c` binds `c` to `a.b`.
                if let Some(unit) = self.load(&name) {
                    let bound = if alias == name {
                        let top = name.split('.').next().unwrap_or_default();
                        let top = self.load(top).unwrap_or(unit);
                        let first = name.split('.').next().unwrap_or_default().to_owned();
                        self.bind(first, Global::Unit(top));
                        continue;
                    } else {
                        unit
                    };
                    self.bind(alias, Global::Unit(bound));
                    continue;
                }
                let (bound, module) = if alias == name {
                    let top = name.split('.').next().unwrap_or_default().to_owned();
                    (top.clone(), top)
                } else {
                    (alias, name)
                };
                let global = match module.as_str() {
                    "json" => Global::Module(StdModule::Json),
                    "json.decoder" => Global::Module(StdModule::JsonDecoder),
                    "os" => Global::Module(StdModule::Os),
                    "os.path" | "posixpath" => Global::Module(StdModule::OsPath),
                    "sys" => Global::Module(StdModule::Sys),
                    "dotenv" => Global::Module(StdModule::Dotenv),
                    "httpx" => Global::Module(StdModule::Httpx),
                    "requests" => Global::Module(StdModule::Requests),
                    "requests.exceptions" if bound != "requests" => {
                        Global::Module(StdModule::RequestsExceptions)
                    }
                    "http" => Global::Module(StdModule::Http),
                    "http.server" if bound != "http" => Global::Module(StdModule::HttpServer),
                    "dataclasses" => {
                        self.names.dataclass.push(format!("{bound}.dataclass"));
                        self.names.data_field.push(format!("{bound}.field"));
                        Global::Module(StdModule::Dataclasses)
                    }
                    "contextlib" => Global::Module(StdModule::Contextlib),
                    "urllib" => Global::Module(StdModule::Urllib),
                    "urllib.parse" if bound != "urllib" => Global::Module(StdModule::UrllibParse),
                    "re" => Global::Module(StdModule::Re),
                    "datetime" => Global::Module(StdModule::Datetime),
                    "time" => Global::Module(StdModule::Time),
                    _ => Global::Other(format!("the module `{module}`")),
                };
                self.bind(bound, global);
            }
            return;
        };
        let project = self.load(&module);
        for (name, alias, _) in import.names {
            match (module.as_str(), name.as_str()) {
                ("pydantic" | "pydantic.main", "BaseModel") => {
                    self.names.base_model.push(alias.clone());
                }
                ("pydantic" | "pydantic.fields", "Field") => self.names.field.push(alias.clone()),
                ("pydantic" | "pydantic.config", "ConfigDict") => {
                    self.names.config_dict.push(alias.clone());
                }
                (m, "Context") if m.contains("fastmcp") => {
                    self.names.mcp_context.push(alias.clone());
                }
                (_, "ToolContext") => self.names.tool_context.push(alias.clone()),
                ("dataclasses", "dataclass") => self.names.dataclass.push(alias.clone()),
                ("dataclasses", "field") => self.names.data_field.push(alias.clone()),
                _ => {}
            }
            let global = if let Some(unit) = project {
                // The project's own module: what it binds, or its submodule.
                match self.unit_binding(unit, &name) {
                    Some(global) => global,
                    None => match self.submodule(unit, &name).or_else(|| {
                        let dotted = if module.ends_with('.') {
                            format!("{module}{name}")
                        } else {
                            format!("{module}.{name}")
                        };
                        self.load(&dotted)
                    }) {
                        Some(sub) => Global::Unit(sub),
                        None => Global::Other(format!(
                            "`{name}` (imported from `{module}`, which does not define it)"
                        )),
                    },
                }
            } else if module == CLIENT_MODULE {
                Global::Client
            } else if let Some(std) = match module.as_str() {
                "os" => Some(StdModule::Os),
                "os.path" | "posixpath" => Some(StdModule::OsPath),
                "sys" => Some(StdModule::Sys),
                "dotenv" => Some(StdModule::Dotenv),
                "httpx" => Some(StdModule::Httpx),
                "requests" => Some(StdModule::Requests),
                "requests.exceptions" => Some(StdModule::RequestsExceptions),
                "http.server" => Some(StdModule::HttpServer),
                "dataclasses" => Some(StdModule::Dataclasses),
                "contextlib" => Some(StdModule::Contextlib),
                "urllib.parse" => Some(StdModule::UrllibParse),
                "urllib" => Some(StdModule::Urllib),
                "datetime" => Some(StdModule::Datetime),
                "time" => Some(StdModule::Time),
                _ => None,
            } {
                Global::StdName(std, name.clone())
            } else if (module.as_str(), name.as_str()) == ("json", "dumps") {
                Global::Builtin(Builtin::JsonDumps)
            } else if (module.as_str(), name.as_str()) == ("json", "loads") {
                Global::Builtin(Builtin::JsonLoads)
            } else if (module.as_str(), name.as_str()) == ("json", "decoder") {
                Global::Module(StdModule::JsonDecoder)
            } else if module == "re" {
                super::re::import_from(&name)
            } else if name == "ToolResult" {
                Global::ToolResult
            } else if is_builtin_exception(&name)
                || name.ends_with("Error")
                || name.ends_with("Exception")
            {
                Global::ExcClass(name.clone())
            } else {
                Global::Other(format!("`{name}` (imported from `{module}`)"))
            };
            self.bind(alias, global);
        }
    }

    fn class(&mut self, source: &mut Source<'_>, class: &Class) {
        let name = source.text(class.name).to_owned();
        let bases: Vec<String> = class
            .bases
            .map(|parens| source.args(parens))
            .unwrap_or_default()
            .iter()
            .filter(|a| a.keyword.is_none() && a.stars == 0)
            .filter_map(|a| {
                source.call(a.start, a.end).filter(|c| c.parens.is_none()).map(|c| c.name)
            })
            .collect();
        let model_bases: Vec<usize> = bases
            .iter()
            .filter_map(|b| match self.latest(b) {
                Some(Global::Model(i)) => Some(*i),
                _ => None,
            })
            .collect();
        if !model_bases.is_empty() || bases.iter().any(|b| self.names.base_model.contains(b)) {
            let model = self.model(source, class, name.clone(), model_bases);
            self.models.push(model);
            self.bind(name, Global::Model(self.models.len() - 1));
            return;
        }
        let keywords = class
            .bases
            .map(|parens| source.args(parens))
            .unwrap_or_default()
            .iter()
            .any(|a| a.keyword.is_some() || a.stars > 0);
        let exception_base = bases.iter().find_map(|b| match self.latest(b) {
            Some(Global::ExcClass(base)) => Some(base.clone()),
            Some(_) => None,
            None => is_builtin_exception(b).then(|| b.clone()),
        });
        let dataclass = match class.decorators.as_slice() {
            [] => None,
            [decorator] if exception_base.is_none() => match self.dataclass(source, decorator) {
                Ok(dataclass) => Some(dataclass),
                Err(problem) => {
                    self.poison(source, vec![name], &problem);
                    return;
                }
            },
            [decorator, ..] => {
                let at = source.bytes(decorator.start.saturating_sub(1), decorator.end);
                let text = source.slice(decorator.start, decorator.end);
                let what = format!("the decorator `@{text}` on the class `{name}`");
                self.poison(source, vec![name], &unsupported(at, &what));
                return;
            }
        };
        if let Some(base) = exception_base {
            if keywords || bases.len() > 1 {
                let what = format!("the exception class `{name}` (several bases or keywords)");
                self.bind(name, Global::Other(what));
                return;
            }
            // A user exception class of the program has a class of its own (methods,
            // attributes, properties), whose chain ends at the builtin class.
            let parent = self.exc_classes.get(&base).copied();
            self.exc_parents.insert(name.clone(), base);
            if self.plain_class(
                source,
                class,
                name.clone(),
                parent,
                ClassKind { handler: false, dataclass: None, exception: true },
            ) {
                self.exc_classes.insert(name.clone(), self.classes.len() - 1);
                self.bind(name.clone(), Global::ExcClass(name));
            }
            return;
        }
        let handler = matches!(bases.as_slice(), [b] if matches!(self.latest(b),
            Some(Global::StdName(StdModule::HttpServer, n)) if n == "BaseHTTPRequestHandler"));
        let base = match bases.as_slice() {
            [] => Some(None),
            [b] if b == "object" => Some(None),
            _ if handler => Some(None),
            [b] => match self.latest(b) {
                Some(Global::Class(i)) => Some(Some(*i)),
                _ => None,
            },
            _ => None,
        };
        let why = if keywords {
            format!("the class `{name}` (a metaclass or class keyword)")
        } else if bases.len() > 1 {
            format!("the class `{name}` (multiple inheritance)")
        } else {
            format!("the class `{name}` (its base `{}`)", bases.join(", "))
        };
        match base {
            Some(base) if !keywords => {
                if dataclass.is_some() && handler {
                    let what = format!("the request handler `{name}` as a dataclass");
                    let at = source.bytes(class.name, class.name + 1);
                    self.poison(source, vec![name], &unsupported(at, &what));
                    return;
                }
                if self.plain_class(
                    source,
                    class,
                    name.clone(),
                    base,
                    ClassKind { handler, dataclass, exception: false },
                ) {
                    self.bind(name, Global::Class(self.classes.len() - 1));
                }
            }
            _ => self.bind(name, Global::Other(why)),
        }
    }

    /// `@dataclass`, `@dataclass()` or `@dataclass(frozen=True)` before a class; any
    /// other decorator or option is outside the subset.
    fn dataclass(
        &self,
        source: &Source<'_>,
        decorator: &Decorator,
    ) -> PResult<(bool, (usize, usize))> {
        let at = source.bytes(decorator.start.saturating_sub(1), decorator.end);
        let text = source.slice(decorator.start, decorator.end);
        let Some(call) =
            decorator.target.as_ref().filter(|c| self.names.dataclass.contains(&c.name))
        else {
            return Err(unsupported(at, &format!("the class decorator `@{text}`")));
        };
        let mut frozen = false;
        for arg in call.parens.map(|p| source.args(p)).unwrap_or_default() {
            let option = arg.keyword.map(|k| source.text(k));
            let value = literal_value(source, arg.start, arg.end, 0);
            let arg_at = source.bytes(arg.keyword.unwrap_or(arg.start), arg.end);
            match (option, value) {
                (Some("frozen"), Some(JsonValue::Bool(b))) => frozen = b,
                // The defaults, said out loud.
                (Some("init" | "repr" | "eq"), Some(JsonValue::Bool(true))) => {}
                (Some(option), _) => {
                    let what = format!("the dataclass option `{option}=`");
                    return Err(unsupported(arg_at, &what));
                }
                (None, _) => {
                    return Err(unsupported(arg_at, "a positional argument of `@dataclass`"));
                }
            }
        }
        Ok((frozen, at))
    }

    /// Binds `names` to a stop: using one reports `problem`.
    fn poison(&mut self, source: &Source<'_>, names: Vec<String>, problem: &Problem) {
        let diagnostic = self.report(source, problem);
        for name in names {
            let index = self.assignments.len();
            let target = Target::Name(name.clone());
            let value = Err(diagnostic.clone());
            self.assignments.push(Assignment {
                targets: vec![target],
                value,
                position: self.position,
                file: self.file,
            });
            self.bind(name, Global::Value(index));
        }
    }

    /// `class C:` or `class C(Base):` whose body only assigns names and defines methods
    /// (with `@property`, `@staticmethod` or `@classmethod`); anything else in it makes
    /// the class outside the subset. Whether the class was added.
    fn plain_class(
        &mut self,
        source: &mut Source<'_>,
        class: &Class,
        name: String,
        base: Option<usize>,
        kind: ClassKind,
    ) -> bool {
        let index = self.classes.len();
        let mut attrs: Vec<Assignment> = Vec::new();
        let mut methods: Vec<(String, ClassMember)> = Vec::new();
        let mut problem: Option<Box<Problem>> = None;
        let mut statements = Vec::new();
        let mut decorators: Vec<(usize, usize)> = Vec::new();
        if let Some((s, e)) = class.body.inline {
            source.line_statements(s, e, &mut statements);
        }
        let (first, end) = class.body.lines;
        let mut li = first;
        while li < end {
            let Some(line) = source.lines.get(li).copied() else { break };
            let next = source.block_end(li).min(end);
            let at = source.bytes(line.start, line.start + 1);
            let is_def = source.is_name(line.start, "def")
                || (source.is_name(line.start, "async") && source.is_name(line.start + 1, "def"));
            if source.is_op(line.start, "@") {
                decorators.push((line.start + 1, line.end));
            } else if is_def {
                if let Some(def) = source.def_at(li) {
                    let method = source.text(def.name).to_owned();
                    let allowed = if kind.exception {
                        EXCEPTION_METHODS.as_slice()
                    } else if kind.dataclass.is_some() {
                        DATACLASS_METHODS.as_slice()
                    } else {
                        super::classes::SPECIAL_METHODS.as_slice()
                    };
                    if method.starts_with("__")
                        && method.ends_with("__")
                        && !allowed.contains(&method.as_str())
                    {
                        let at = source.bytes(def.name, def.name + 1);
                        let what = format!("the special method `{method}`");
                        problem.get_or_insert_with(|| unsupported(at, &what));
                    }
                    let decorated = std::mem::take(&mut decorators);
                    let function =
                        self.function(source, &def, format!("{name}.{method}"), Some(index));
                    let member =
                        self.method_member(source, &decorated, &method, function, &methods);
                    let member = match member {
                        Ok(member) => member,
                        Err(found) => {
                            problem.get_or_insert(found);
                            ClassMember::Method(function)
                        }
                    };
                    attrs.retain(
                        |a| !matches!(a.targets.as_slice(), [Target::Name(n)] if *n == method),
                    );
                    methods.retain(|(m, _)| *m != method);
                    methods.push((method, member));
                }
            } else {
                if let Some(&(s, e)) = decorators.first() {
                    let what = "a decorator must be followed by `def` or `class`";
                    problem.get_or_insert_with(|| syntax(source.bytes(s - 1, e), what));
                }
                let before = statements.len();
                source.line_statements(line.start, line.end, &mut statements);
                if statements.get(before).is_some_and(|s| s.header) {
                    let word = source.text(line.start);
                    let what = format!("a `{word}` statement in a class body");
                    problem.get_or_insert_with(|| unsupported(at, &what));
                }
            }
            li = next;
        }
        let mut fields: Vec<DataField> = Vec::new();
        let mut factories = Vec::new();
        for stmt in statements.into_iter().filter(|s| !s.header) {
            if kind.dataclass.is_some() {
                match self.data_field(source, stmt) {
                    Ok(None) => {}
                    Ok(Some((field, value))) => {
                        let assignment = match value {
                            FieldValue::None => None,
                            FieldValue::Default(expr) => Some(Ok(expr)),
                            FieldValue::Factory(expr) => {
                                factories.push((attrs.len(), fields.len(), expr));
                                None
                            }
                            FieldValue::Class => match self.class_statement(source, stmt) {
                                Ok(assignment) => assignment.and_then(|a| a.value.ok()).map(Ok),
                                Err(found) => Some(Err(found)),
                            },
                        };
                        match assignment {
                            Some(Ok(expr)) => {
                                methods.retain(|(m, _)| *m != field.name);
                                attrs.push(Assignment {
                                    targets: vec![Target::Name(field.name.clone())],
                                    value: Ok(expr),
                                    position: self.position,
                                    file: self.file,
                                });
                            }
                            Some(Err(found)) => {
                                problem.get_or_insert(found);
                            }
                            None => {}
                        }
                        match fields.iter_mut().find(|f| f.name == field.name) {
                            Some(slot) => {
                                slot.class_default = field.class_default;
                                slot.factory = field.factory;
                                slot.repr = field.repr;
                                slot.compare = field.compare;
                            }
                            None => fields.push(field),
                        }
                        continue;
                    }
                    Err(found) => {
                        problem.get_or_insert(found);
                        continue;
                    }
                }
            }
            match self.class_statement(source, stmt) {
                Ok(Some(assignment)) => {
                    let mut names = BTreeSet::new();
                    assignment.targets.iter().for_each(|t| target_names(t, &mut names));
                    methods.retain(|(m, _)| !names.contains(m));
                    attrs.push(assignment);
                }
                Ok(None) => {}
                Err(found) => {
                    problem.get_or_insert(found);
                }
            }
        }
        if let Some(&(s, e)) = decorators.first() {
            let what = "a decorator must be followed by `def` or `class`";
            problem.get_or_insert_with(|| syntax(source.bytes(s - 1, e), what));
        }
        if let Some(problem) = problem {
            self.poison(source, vec![name], &problem);
            return false;
        }
        let dataclass = kind.dataclass.map(|(frozen, at)| Dataclass {
            frozen,
            fields,
            factories,
            at,
            position: self.position,
        });
        self.classes.push(ClassDef {
            name,
            base,
            attrs,
            methods,
            handler: kind.handler,
            dataclass,
            exception: kind.exception,
            file: self.file,
        });
        true
    }

    /// What a `def` in a class body is, from the decorators before it: a method,
    /// `@staticmethod`, `@classmethod`, `@property` or `@<property>.setter`. Any other
    /// decorator is outside the subset.
    fn method_member(
        &self,
        source: &Source<'_>,
        decorators: &[(usize, usize)],
        method: &str,
        function: usize,
        methods: &[(String, ClassMember)],
    ) -> PResult<ClassMember> {
        let Some(&(s, e)) = decorators.first() else { return Ok(ClassMember::Method(function)) };
        let at = source.bytes(s - 1, e);
        let text = source.slice(s, e);
        if let Some(&(s2, e2)) = decorators.get(1) {
            let what = format!(
                "the decorators `@{text}` and `@{}` stacked on one method",
                source.slice(s2, e2)
            );
            return Err(unsupported(at, &what));
        }
        // A builtin's name, unless the module rebinds it.
        let builtin =
            |word: &str| e == s + 1 && source.is_name(s, word) && self.latest(word).is_none();
        if builtin("property") {
            return Ok(ClassMember::Property { getter: function, setter: None });
        }
        if builtin("staticmethod") {
            return Ok(ClassMember::Static(function));
        }
        if builtin("classmethod") {
            return Ok(ClassMember::ClassMethod(function));
        }
        if e == s + 3 && source.is_op(s + 1, ".") && source.is_name(s + 2, "setter") {
            let property = source.text(s);
            let getter = methods.iter().find_map(|(m, member)| match member {
                ClassMember::Property { getter, .. } if m == property => Some(*getter),
                _ => None,
            });
            if let Some(getter) = getter {
                if property != method {
                    let what = format!("a setter of the property `{property}` named otherwise");
                    return Err(unsupported(at, &what));
                }
                return Ok(ClassMember::Property { getter, setter: Some(function) });
            }
        }
        Err(unsupported(at, &format!("the decorator `@{text}`")))
    }

    /// An annotated name in a dataclass's body (`name: T` or `name: T = default`): the
    /// field and where its value comes from; `None` for any other statement, and for a
    /// `ClassVar`, which is a class attribute.
    fn data_field(
        &self,
        source: &Source<'_>,
        stmt: RawStmt,
    ) -> PResult<Option<(DataField, FieldValue)>> {
        let (s, e) = (stmt.start, stmt.end);
        let Some(name) = source.identifier(s) else { return Ok(None) };
        if !source.is_op(s + 1, ":") {
            return Ok(None);
        }
        let equals = source.find_top(s, e, |i| source.is_op(i, "="));
        let annotation = (s + 2, equals.unwrap_or(e));
        Parser::annotation(source, annotation, self.path)?;
        let ty = parse_type(source, annotation.0, annotation.1);
        match ty.base() {
            Some("ClassVar") => return Ok(None),
            Some(word @ ("InitVar" | "KW_ONLY")) => {
                let what = format!("a dataclass field of type `{word}`");
                return Err(unsupported(source.bytes(s, annotation.1), &what));
            }
            _ => {}
        }
        let mut field = DataField {
            name: name.to_owned(),
            class_default: true,
            factory: false,
            repr: true,
            compare: true,
        };
        let Some(eq) = equals.filter(|&eq| eq + 1 < e) else {
            return Ok(Some((field, FieldValue::None)));
        };
        field.class_default = false;
        let call = source.call(eq + 1, e).filter(|c| self.names.data_field.contains(&c.name));
        let Some(parens) = call.and_then(|c| c.parens) else {
            field.class_default = true;
            return Ok(Some((field, FieldValue::Class)));
        };
        let mut value = FieldValue::None;
        for arg in source.args(parens) {
            let arg_at = source.bytes(arg.keyword.unwrap_or(arg.start), arg.end);
            let Some(keyword) = arg.keyword.map(|k| source.text(k)).filter(|_| arg.stars == 0)
            else {
                return Err(unsupported(arg_at, "a positional argument of `field()`"));
            };
            match keyword {
                "default" | "default_factory" => {
                    if !matches!(value, FieldValue::None) {
                        let what = "both `default` and `default_factory` in one `field()`";
                        return Err(unsupported(arg_at, what));
                    }
                    let expr = Parser::expression(source, (arg.start, arg.end), self.path)?;
                    if keyword == "default" {
                        field.class_default = true;
                        value = FieldValue::Default(expr);
                    } else {
                        field.factory = true;
                        value = FieldValue::Factory(expr);
                    }
                }
                "repr" | "compare" => match literal_value(source, arg.start, arg.end, 0) {
                    Some(JsonValue::Bool(b)) if keyword == "repr" => field.repr = b,
                    Some(JsonValue::Bool(b)) => field.compare = b,
                    _ => {
                        let what = format!("`field({keyword}=…)` other than `True` or `False`");
                        return Err(unsupported(arg_at, &what));
                    }
                },
                other => {
                    let what = format!("the `field()` option `{other}=`");
                    return Err(unsupported(arg_at, &what));
                }
            }
        }
        Ok(Some((field, value)))
    }

    /// One statement of a class body: a class attribute, or nothing (a docstring,
    /// `pass`, `...`, an annotation alone).
    fn class_statement(&self, source: &Source<'_>, stmt: RawStmt) -> PResult<Option<Assignment>> {
        let (s, e) = (stmt.start, stmt.end);
        let alone = e == s + 1;
        if (alone && (source.is_name(s, "pass") || source.is_op(s, "...")))
            || crate::literal::string_literal(source, s, e).is_some()
        {
            return Ok(None);
        }
        let parts = source.split_assignment(s, e);
        let Some((&value, ranges)) = parts.split_last().filter(|(_, t)| !t.is_empty()) else {
            if let Some(colon) = source.header_colon(s, e) {
                Parser::annotation(source, (colon + 1, e), self.path)?;
                Parser::expression(source, (s, colon), self.path).and_then(to_target)?;
                return Ok(None);
            }
            let what = "a statement other than an assignment in a class body";
            return Err(unsupported(source.bytes(s, e), what));
        };
        let mut targets = Vec::new();
        for &(ts, te) in ranges {
            let colon = source.find_top(ts, te, |i| source.is_op(i, ":"));
            if let Some(colon) = colon {
                Parser::annotation(source, (colon + 1, te), self.path)?;
            }
            let target = match colon {
                Some(colon) => Parser::expression(source, (ts, colon), self.path)?,
                None => Parser::expression_list(source, (ts, te), self.path)?,
            };
            let target = to_target(target)?;
            if !binds_names_only(&target) {
                let what = "assigning to an item or attribute in a class body";
                return Err(unsupported(source.bytes(ts, te), what));
            }
            targets.push(target);
        }
        let value = Parser::expression_list(source, value, self.path)?;
        Ok(Some(Assignment { targets, value: Ok(value), position: self.position, file: self.file }))
    }

    fn model(
        &mut self,
        source: &mut Source<'_>,
        class: &Class,
        name: String,
        bases: Vec<usize>,
    ) -> Model {
        let mut extra =
            bases.first().and_then(|&b| self.models.get(b)).map(|m| m.extra).unwrap_or_default();
        let mut methods = Vec::new();
        let mut statements = Vec::new();
        if let Some((s, e)) = class.body.inline {
            source.line_statements(s, e, &mut statements);
        }
        for li in class.body.lines.0..class.body.lines.1 {
            let Some(line) = source.lines.get(li).copied().filter(|l| l.depth == 1) else {
                continue;
            };
            let def_at = line.start + usize::from(source.is_name(line.start, "async"));
            if source.is_name(def_at, "def") {
                if let Some(method) = source.identifier(def_at + 1) {
                    methods.push(method.to_owned());
                }
                continue;
            }
            if !source.is_op(line.start, "@") {
                source.line_statements(line.start, line.end, &mut statements);
            }
        }
        let mut own: Vec<ModelField> = Vec::new();
        for stmt in statements.into_iter().filter(|s| !s.header) {
            let Some(field) = source.identifier(stmt.start) else { continue };
            let equals = source.find_top(stmt.start, stmt.end, |i| source.is_op(i, "="));
            if field == "model_config" {
                if let Some(eq) = equals {
                    extra = self.model_extra(source, (eq + 1, stmt.end)).unwrap_or(extra);
                }
                continue;
            }
            if !source.is_op(stmt.start + 1, ":") || field.starts_with('_') {
                continue;
            }
            let annotation = (stmt.start + 2, equals.unwrap_or(stmt.end));
            if annotation.0 >= annotation.1
                || parse_type(source, annotation.0, annotation.1).base() == Some("ClassVar")
            {
                continue;
            }
            let default = match equals {
                Some(eq) if eq + 1 < stmt.end => self.field_default(source, (eq + 1, stmt.end)),
                _ => FieldDefault::Required,
            };
            match own.iter_mut().find(|f| f.name == field) {
                Some(slot) => slot.default = default,
                None => own.push(ModelField { name: field.to_owned(), default }),
            }
        }
        // pydantic's order: along the reversed MRO, a redefined field keeping its place.
        let mut fields: Vec<ModelField> = Vec::new();
        let inherited = bases.iter().rev().filter_map(|&b| self.models.get(b));
        for field in inherited.flat_map(|m| m.fields.iter()).chain(own.iter()) {
            match fields.iter_mut().find(|f| f.name == field.name) {
                Some(slot) => slot.default = field.default.clone(),
                None => fields.push(field.clone()),
            }
        }
        Model { name, bases, fields, extra, methods, file: self.file }
    }

    /// A field's `= default`, `Field(…)` read.
    fn field_default(&mut self, source: &Source<'_>, (start, end): (usize, usize)) -> FieldDefault {
        let ellipsis = |s: usize, e: usize| e == s + 1 && source.is_op(s, "...");
        if ellipsis(start, end) {
            return FieldDefault::Required;
        }
        let call = source.call(start, end).filter(|c| self.names.field.contains(&c.name));
        let Some(parens) = call.and_then(|c| c.parens) else {
            return match Parser::expression(source, (start, end), self.path) {
                Ok(expr) => FieldDefault::Value(expr),
                Err(problem) => FieldDefault::Unsupported(Box::new(self.report(source, &problem))),
            };
        };
        let mut default = FieldDefault::Required;
        let mut positional = 0;
        for arg in source.args(parens) {
            let slot = match arg.keyword.map(|k| source.text(k)) {
                Some(keyword) => keyword,
                None if arg.stars == 0 && positional == 0 => {
                    positional += 1;
                    "default"
                }
                None => continue,
            };
            if slot != "default" && slot != "default_factory" {
                continue;
            }
            if slot == "default" && ellipsis(arg.start, arg.end) {
                default = FieldDefault::Required;
                continue;
            }
            default = match Parser::expression(source, (arg.start, arg.end), self.path) {
                Ok(expr) if slot == "default" => FieldDefault::Value(expr),
                Ok(expr) => FieldDefault::Factory(expr),
                Err(problem) => FieldDefault::Unsupported(Box::new(self.report(source, &problem))),
            };
        }
        default
    }

    /// `extra` from `model_config = {"extra": …}` or `ConfigDict(extra=…)`.
    fn model_extra(&self, source: &Source<'_>, (start, end): (usize, usize)) -> Option<Extra> {
        let value = match source.call(start, end) {
            Some(call) if self.names.config_dict.contains(&call.name) => {
                let args = call.parens.map(|p| source.args(p)).unwrap_or_default();
                let arg = source.arg(&args, "extra", None)?;
                literal_value(source, arg.start, arg.end, 0)?
            }
            _ => match literal_value(source, start, end, 0)? {
                JsonValue::Object(entries) => entries.into_iter().find(|(k, _)| k == "extra")?.1,
                _ => return None,
            },
        };
        match value {
            JsonValue::Str(word) if word == "allow" => Some(Extra::Allow),
            JsonValue::Str(word) if word == "forbid" => Some(Extra::Forbid),
            JsonValue::Str(word) if word == "ignore" => Some(Extra::Ignore),
            _ => None,
        }
    }

    fn def(&mut self, source: &mut Source<'_>, def: &Def) {
        let name = source.text(def.name).to_owned();
        let index = self.function(source, def, name.clone(), None);
        self.bind(name, Global::Function(index));
    }

    /// Compiles a function (a method of class `class`), returning its index.
    fn function(
        &mut self,
        source: &mut Source<'_>,
        def: &Def,
        name: String,
        class: Option<usize>,
    ) -> usize {
        let raw = source.params(def.parens);
        let mut problem: Option<Box<Problem>> = None;
        let mut params = Vec::new();
        for p in &raw {
            if p.stars > 0 {
                if !source.is_kind(p.name, TokenKind::Name) || p.stars > 2 {
                    let at = source.bytes(p.first, p.name + 1);
                    problem.get_or_insert_with(|| unsupported(at, "this parameter"));
                    continue;
                }
                let name = source.text(p.name).to_owned();
                let stars = p.stars;
                params.push(ParamDef { name, default: None, kind: ParamKind::Plain, stars });
                continue;
            }
            let param = source.text(p.name).to_owned();
            let annotation = p.annotation.map(|(s, e)| source.slice(s, e));
            let kind = self.names.param_kind(&param, annotation);
            let default = match p.default {
                Some(range) => match Parser::expression(source, range, self.path) {
                    Ok(expr) => Some(expr),
                    Err(found) => {
                        problem.get_or_insert(found);
                        None
                    }
                },
                None => None,
            };
            params.push(ParamDef { name: param, default, kind, stars: 0 });
        }
        let keyword = def.name.saturating_sub(1 + usize::from(def.is_async));
        let header = source.bytes(keyword, def.name + 1);
        let body = match problem {
            Some(found) => Err(found),
            None => Blocks { src: source, path: self.path }.block(
                def.body.inline,
                def.body.lines,
                Ctx { nesting: 0, in_loop: false },
                header,
            ),
        };
        let body = body.map_err(|found| self.report(source, &found));
        let mut locals: BTreeSet<String> =
            swaplab_base::order::set_of(params.iter().map(|p| p.name.clone()));
        if let Ok(statements) = &body {
            collect_locals(statements, &mut locals);
        }
        let (_, body_end) = source.body_tokens(&Body { ..def.body });
        let range = source.bytes(keyword, body_end.max(def.name + 1));
        let file = self.file;
        self.functions.push(Function { name, params, body, locals, class, range, file });
        self.functions.len() - 1
    }
}

/// Where a block is: how deep, and whether `break` may appear.
#[derive(Clone, Copy)]
struct Ctx {
    nesting: usize,
    in_loop: bool,
}

impl Ctx {
    fn deeper(self) -> Ctx {
        Ctx { nesting: self.nesting + 1, ..self }
    }
}

/// Compiles blocks of statements.
struct Blocks<'s, 'a> {
    src: &'s Source<'a>,
    path: &'s str,
}

impl Blocks<'_, '_> {
    fn at(&self, start: usize, end: usize) -> At {
        self.src.bytes(start, end.max(start + 1))
    }

    /// The statements after a header's colon and on lines `lines.0..lines.1`.
    fn block(
        &self,
        inline: Option<(usize, usize)>,
        lines: (usize, usize),
        ctx: Ctx,
        header: At,
    ) -> PResult<Vec<Stmt>> {
        if ctx.nesting > MAX_NESTING {
            return Err(limit(header, format!("blocks nest more than {MAX_NESTING} levels deep")));
        }
        let mut out = Vec::new();
        if let Some((s, e)) = inline {
            self.simple_line(s, e, ctx, &mut out)?;
        }
        let base = self.src.lines.get(lines.0).filter(|_| lines.0 < lines.1).map(|l| l.depth);
        let mut li = lines.0;
        while li < lines.1 {
            let Some(line) = self.src.lines.get(li).copied() else { break };
            if Some(line.depth) != base {
                return Err(syntax(self.at(line.start, line.end), "unexpected indent"));
            }
            li = self.statement(li, lines.1, line, ctx, &mut out)?;
        }
        if out.is_empty() {
            return Err(syntax(header, "expected an indented block"));
        }
        Ok(out)
    }

    fn line(&self, li: usize, limit: usize, depth: usize) -> Option<Line> {
        (li < limit).then(|| self.src.lines.get(li).copied()).flatten().filter(|l| l.depth == depth)
    }

    fn colon(&self, line: Line) -> PResult<usize> {
        self.src
            .header_colon(line.start, line.end)
            .ok_or_else(|| syntax(self.at(line.start, line.end), "expected ':'"))
    }

    /// The block of the compound statement on line `li`, whose lines end at `next`.
    fn clause_body(&self, li: usize, next: usize, line: Line, ctx: Ctx) -> PResult<Vec<Stmt>> {
        let colon = self.colon(line)?;
        let inline = (colon + 1 < line.end).then_some((colon + 1, line.end));
        self.block(inline, (li + 1, next), ctx, self.at(line.start, colon))
    }

    /// `if test:` / `elif test:` / `while test:` and its block.
    fn clause(&self, li: usize, next: usize, line: Line, ctx: Ctx) -> PResult<(Expr, Vec<Stmt>)> {
        let colon = self.colon(line)?;
        let test = Parser::expression(self.src, (line.start + 1, colon), self.path)?;
        Ok((test, self.clause_body(li, next, line, ctx)?))
    }

    /// `else:` (or `try:`, `finally:`) and its block.
    fn bare(&self, li: usize, next: usize, line: Line, ctx: Ctx) -> PResult<Vec<Stmt>> {
        let colon = self.colon(line)?;
        if colon != line.start + 1 {
            return Err(syntax(self.at(line.start + 1, colon), "expected ':'"));
        }
        self.clause_body(li, next, line, ctx)
    }

    /// An `else:` block after a loop, if there is one: the block and the next line.
    fn loop_else(
        &self,
        li: usize,
        limit: usize,
        depth: usize,
        ctx: Ctx,
    ) -> PResult<(Vec<Stmt>, usize)> {
        match self.line(li, limit, depth) {
            Some(line) if self.src.is_name(line.start, "else") => {
                let next = self.src.block_end(li).min(limit);
                Ok((self.bare(li, next, line, ctx)?, next))
            }
            _ => Ok((Vec::new(), li)),
        }
    }

    /// The statement on line `li` (with its clauses); returns the line after it.
    fn statement(
        &self,
        li: usize,
        limit: usize,
        line: Line,
        ctx: Ctx,
        out: &mut Vec<Stmt>,
    ) -> PResult<usize> {
        let next = self.src.block_end(li).min(limit);
        let (start, end) = (line.start, line.end);
        let at = self.at(start, end);
        let word = if self.src.is_kind(start, TokenKind::Name) { self.src.text(start) } else { "" };
        let deeper = ctx.deeper();
        let looping = Ctx { in_loop: true, ..deeper };
        match word {
            "if" => {
                let mut branches = vec![self.clause(li, next, line, deeper)?];
                let mut orelse = Vec::new();
                let mut li = next;
                while let Some(l) = self.line(li, limit, line.depth) {
                    let n = self.src.block_end(li).min(limit);
                    if self.src.is_name(l.start, "elif") {
                        branches.push(self.clause(li, n, l, deeper)?);
                    } else if self.src.is_name(l.start, "else") {
                        orelse = self.bare(li, n, l, deeper)?;
                        li = n;
                        break;
                    } else {
                        break;
                    }
                    li = n;
                }
                out.push(Stmt { kind: StmtKind::If(branches, orelse), at });
                Ok(li)
            }
            "while" => {
                let (test, body) = self.clause(li, next, line, looping)?;
                let (orelse, li) = self.loop_else(next, limit, line.depth, deeper)?;
                out.push(Stmt { kind: StmtKind::While(test, body, orelse), at });
                Ok(li)
            }
            "for" => {
                let colon = self.colon(line)?;
                let mut parser = Parser::new(self.src, start + 1, colon, self.path);
                let target = to_target(parser.targets()?)?;
                parser.expect_word("in")?;
                let iter = parser.exprlist()?;
                parser.finish()?;
                let body = self.clause_body(li, next, line, looping)?;
                let (orelse, li) = self.loop_else(next, limit, line.depth, deeper)?;
                out.push(Stmt { kind: StmtKind::For(target, iter, body, orelse), at });
                Ok(li)
            }
            "try" => self.try_statement(li, next, limit, line, deeper, out),
            "elif" | "else" | "except" | "finally" => {
                Err(syntax(self.at(start, start + 1), "invalid syntax"))
            }
            "with" => self.with_statement(li, next, line, deeper, false, out),
            "async" if self.src.is_name(start + 1, "with") => {
                self.with_statement(li, next, line, deeper, true, out)
            }
            "class" | "def" | "async" | "global" | "nonlocal" => {
                let what = match word {
                    "class" => "a class defined inside a function",
                    "def" => "a function defined inside a function",
                    "async" => "`async def` and `async for` inside a function",
                    "global" => "`global`",
                    _ => "`nonlocal`",
                };
                Err(unsupported(self.at(start, start + 1), what))
            }
            "match" if self.src.is_op(end.saturating_sub(1), ":") => {
                Err(unsupported(self.at(start, start + 1), "`match`"))
            }
            _ if self.src.is_op(start, "@") => {
                Err(unsupported(self.at(start, start + 1), "a decorator inside a function"))
            }
            _ => {
                if let Some(deeper_line) = self.src.lines.get(li + 1).filter(|_| next > li + 1) {
                    let at = self.at(deeper_line.start, deeper_line.end);
                    return Err(syntax(at, "unexpected indent"));
                }
                self.simple_line(start, end, ctx, out)?;
                Ok(li + 1)
            }
        }
    }

    /// `with a as x, b:` (or `async with`, or the items in parentheses) and its block.
    fn with_statement(
        &self,
        li: usize,
        next: usize,
        line: Line,
        ctx: Ctx,
        is_async: bool,
        out: &mut Vec<Stmt>,
    ) -> PResult<usize> {
        let colon = self.colon(line)?;
        let mut start = line.start + 1 + usize::from(is_async);
        let mut end = colon;
        // `with (a as x, b as y):` is the items in parentheses, not a tuple.
        if self.src.is_op(start, "(")
            && self.src.closing(start, end) == Some(end.saturating_sub(1))
            && self.src.find_top(start + 1, end - 1, |i| self.src.is_name(i, "as")).is_some()
        {
            start += 1;
            end -= 1;
        }
        if start >= end {
            return Err(syntax(self.at(line.start, colon), "invalid syntax"));
        }
        let mut items = Vec::new();
        for (s, e) in self.src.split(start, end, ",") {
            if s >= e {
                continue;
            }
            let as_at = self.src.find_top(s, e, |i| self.src.is_name(i, "as"));
            let manager = Parser::expression(self.src, (s, as_at.unwrap_or(e)), self.path)?;
            let target = match as_at {
                Some(a) => Some(to_target(Parser::expression(self.src, (a + 1, e), self.path)?)?),
                None => None,
            };
            items.push((manager, target));
        }
        let body = self.clause_body(li, next, line, ctx)?;
        let at = self.at(line.start, colon);
        out.push(Stmt { kind: StmtKind::With(items, body, is_async), at });
        Ok(next)
    }

    fn try_statement(
        &self,
        li: usize,
        next: usize,
        limit: usize,
        line: Line,
        ctx: Ctx,
        out: &mut Vec<Stmt>,
    ) -> PResult<usize> {
        let body = self.bare(li, next, line, ctx)?;
        let mut handlers = Vec::new();
        let mut orelse = Vec::new();
        let mut finally = Vec::new();
        let mut li = next;
        while let Some(l) = self.line(li, limit, line.depth) {
            if !self.src.is_name(l.start, "except") {
                break;
            }
            if self.src.is_op(l.start + 1, "*") {
                return Err(unsupported(self.at(l.start, l.start + 2), "`except*`"));
            }
            let n = self.src.block_end(li).min(limit);
            let colon = self.colon(l)?;
            let (types, name) = self.except_header(l.start + 1, colon)?;
            let body = self.clause_body(li, n, l, ctx)?;
            handlers.push(Handler { types, name, body });
            li = n;
        }
        if let Some(l) =
            self.line(li, limit, line.depth).filter(|l| self.src.is_name(l.start, "else"))
        {
            if handlers.is_empty() {
                return Err(syntax(self.at(l.start, l.start + 1), "invalid syntax"));
            }
            let n = self.src.block_end(li).min(limit);
            orelse = self.bare(li, n, l, ctx)?;
            li = n;
        }
        if let Some(l) =
            self.line(li, limit, line.depth).filter(|l| self.src.is_name(l.start, "finally"))
        {
            let n = self.src.block_end(li).min(limit);
            finally = self.bare(li, n, l, ctx)?;
            li = n;
        }
        if handlers.is_empty() && finally.is_empty() {
            let at = self.at(line.start, line.end);
            return Err(syntax(at, "expected 'except' or 'finally' block"));
        }
        let at = self.at(line.start, line.start + 1);
        out.push(Stmt { kind: StmtKind::Try { body, handlers, orelse, finally }, at });
        Ok(li)
    }

    fn except_header(&self, start: usize, colon: usize) -> PResult<(Option<Expr>, Option<String>)> {
        if start >= colon {
            return Ok((None, None));
        }
        let Some(as_at) = self.src.find_top(start, colon, |i| self.src.is_name(i, "as")) else {
            return Ok((Some(Parser::expression(self.src, (start, colon), self.path)?), None));
        };
        let types = Parser::expression(self.src, (start, as_at), self.path)?;
        let name = self.src.identifier(as_at + 1).filter(|_| as_at + 2 == colon);
        let Some(name) = name else {
            return Err(syntax(
                self.at(as_at, colon),
                "invalid syntax: expected a name after 'as'",
            ));
        };
        Ok((Some(types), Some(name.to_owned())))
    }

    /// The simple statements of a line, split at `;`.
    fn simple_line(&self, start: usize, end: usize, ctx: Ctx, out: &mut Vec<Stmt>) -> PResult<()> {
        for (s, e) in self.src.split(start, end, ";") {
            if s < e {
                out.push(self.simple(s, e, ctx)?);
            }
        }
        Ok(())
    }

    fn simple(&self, s: usize, e: usize, ctx: Ctx) -> PResult<Stmt> {
        let at = self.at(s, e);
        let word = if self.src.is_kind(s, TokenKind::Name) { self.src.text(s) } else { "" };
        let alone = e == s + 1;
        let expression_list = |range| Parser::expression_list(self.src, range, self.path);
        let kind = match word {
            "pass" if alone => StmtKind::Pass,
            "break" | "continue" if alone => {
                if !ctx.in_loop {
                    let message = if word == "break" {
                        "'break' outside loop"
                    } else {
                        "'continue' not properly in loop"
                    };
                    return Err(syntax(at, message));
                }
                if word == "break" { StmtKind::Break } else { StmtKind::Continue }
            }
            "return" => {
                StmtKind::Return(if alone { None } else { Some(expression_list((s + 1, e))?) })
            }
            "raise" => {
                if alone {
                    StmtKind::Raise(None, None)
                } else {
                    let from = self.src.find_top(s + 1, e, |i| self.src.is_name(i, "from"));
                    let exc = Parser::expression(self.src, (s + 1, from.unwrap_or(e)), self.path)?;
                    let cause = match from {
                        Some(f) => Some(Parser::expression(self.src, (f + 1, e), self.path)?),
                        None => None,
                    };
                    StmtKind::Raise(Some(exc), cause)
                }
            }
            "assert" => {
                let comma = self.src.find_top(s + 1, e, |i| self.src.is_op(i, ","));
                let test = Parser::expression(self.src, (s + 1, comma.unwrap_or(e)), self.path)?;
                let message = match comma {
                    Some(c) => Some(Parser::expression(self.src, (c + 1, e), self.path)?),
                    None => None,
                };
                StmtKind::Assert(test, message)
            }
            "del" => match to_target(expression_list((s + 1, e))?)? {
                Target::Unpack(targets, _) => StmtKind::Del(targets),
                target => StmtKind::Del(vec![target]),
            },
            "global" | "nonlocal" | "import" | "from" | "yield" | "with" | "class" | "def"
            | "async" => {
                let what = match word {
                    "import" | "from" => "an import inside a function",
                    "yield" => "`yield`",
                    _ => "this statement",
                };
                return Err(unsupported(self.at(s, s + 1), what));
            }
            _ => self.assignment_or_expression(s, e)?,
        };
        Ok(Stmt { kind, at })
    }

    fn assignment_or_expression(&self, s: usize, e: usize) -> PResult<StmtKind> {
        let expression_list = |range| Parser::expression_list(self.src, range, self.path);
        let parts = self.src.split_assignment(s, e);
        if let Some((&value, targets)) = parts.split_last().filter(|(_, t)| !t.is_empty()) {
            let value = expression_list(value)?;
            let mut out = Vec::new();
            for &(ts, te) in targets {
                let annotated = self.src.find_top(ts, te, |i| self.src.is_op(i, ":"));
                let target = match annotated {
                    Some(colon) if targets.len() == 1 => {
                        return Ok(StmtKind::Assign(vec![self.annotated(ts, colon, te)?], value));
                    }
                    Some(colon) => return Err(syntax(self.at(colon, colon + 1), "invalid syntax")),
                    None => expression_list((ts, te))?,
                };
                out.push(to_target(target)?);
            }
            return Ok(StmtKind::Assign(out, value));
        }
        let augmented = self.src.find_top(s, e, |i| augmented_op(self.src, i).is_some());
        if let Some(k) = augmented {
            let op = augmented_op(self.src, k).unwrap_or(BinOp::Add);
            let target = match to_target(Parser::expression(self.src, (s, k), self.path)?)? {
                Target::Unpack(_, at) => {
                    return Err(syntax(
                        at,
                        "'tuple' is an illegal expression for augmented assignment",
                    ));
                }
                target => target,
            };
            return Ok(StmtKind::AugAssign(target, op, expression_list((k + 1, e))?));
        }
        if let Some(colon) = self.src.header_colon(s, e) {
            // `name: annotation` declares without binding.
            return Ok(match self.annotated(s, colon, e)? {
                Target::Name(name) => StmtKind::Declare(name),
                _ => StmtKind::Pass,
            });
        }
        Ok(StmtKind::Expr(expression_list((s, e))?))
    }

    /// The target of `target: annotation` (tokens `s..colon`, the annotation up to
    /// `end`), the annotation checked but not evaluated, as CPython does in a function.
    fn annotated(&self, s: usize, colon: usize, end: usize) -> PResult<Target> {
        let target = Parser::expression(self.src, (s, colon), self.path);
        let target = match target {
            Err(_) if self.src.find_top(s, colon, |i| self.src.is_op(i, ",")).is_some() => {
                let message = "only single target (not tuple) can be annotated";
                return Err(syntax(self.at(s, colon), message));
            }
            other => other?,
        };
        let what = match target.kind {
            ExprKind::Tuple(_) => Some("tuple"),
            ExprKind::List(_) => Some("list"),
            _ => None,
        };
        if let Some(what) = what {
            let message = format!("only single target (not {what}) can be annotated");
            return Err(syntax(target.at, message));
        }
        Parser::annotation(self.src, (colon + 1, end), self.path)?;
        to_target(target)
    }
}

/// The operator of an augmented assignment token.
fn augmented_op(src: &Source<'_>, i: usize) -> Option<BinOp> {
    if !src.is_kind(i, TokenKind::Op) {
        return None;
    }
    Some(match src.text(i) {
        "+=" => BinOp::Add,
        "-=" => BinOp::Sub,
        "*=" => BinOp::Mul,
        "/=" => BinOp::Div,
        "//=" => BinOp::FloorDiv,
        "%=" => BinOp::Mod,
        "**=" => BinOp::Pow,
        "|=" => BinOp::BitOr,
        "&=" => BinOp::BitAnd,
        "^=" => BinOp::BitXor,
        "<<=" => BinOp::LShift,
        ">>=" => BinOp::RShift,
        "@=" => BinOp::MatMul,
        _ => return None,
    })
}

/// Every name the statements bind (comprehension variables excluded).
fn collect_locals(statements: &[Stmt], out: &mut BTreeSet<String>) {
    for stmt in statements {
        match &stmt.kind {
            StmtKind::Assign(targets, _) | StmtKind::Del(targets) => {
                targets.iter().for_each(|t| target_names(t, out));
            }
            StmtKind::AugAssign(target, _, _) => target_names(target, out),
            StmtKind::Declare(name) => {
                out.insert(name.clone());
            }
            StmtKind::For(target, _, body, orelse) => {
                target_names(target, out);
                collect_locals(body, out);
                collect_locals(orelse, out);
            }
            StmtKind::While(_, body, orelse) => {
                collect_locals(body, out);
                collect_locals(orelse, out);
            }
            StmtKind::With(items, body, _) => {
                items.iter().filter_map(|(_, t)| t.as_ref()).for_each(|t| target_names(t, out));
                collect_locals(body, out);
            }
            StmtKind::If(branches, orelse) => {
                branches.iter().for_each(|(_, body)| collect_locals(body, out));
                collect_locals(orelse, out);
            }
            StmtKind::Try { body, handlers, orelse, finally } => {
                collect_locals(body, out);
                for handler in handlers {
                    out.extend(handler.name.iter().cloned());
                    collect_locals(&handler.body, out);
                }
                collect_locals(orelse, out);
                collect_locals(finally, out);
            }
            _ => {}
        }
    }
}

/// The names a target binds.
pub(crate) fn target_names(target: &Target, out: &mut BTreeSet<String>) {
    match target {
        Target::Name(name) => {
            out.insert(name.clone());
        }
        Target::Unpack(items, _) => items.iter().for_each(|t| target_names(t, out)),
        Target::Subscript(..) | Target::Attr(..) => {}
    }
}

/// Whether a target binds names only (through unpacking), with no item or attribute.
fn binds_names_only(target: &Target) -> bool {
    let mut stack = vec![target];
    while let Some(target) = stack.pop() {
        match target {
            Target::Name(_) => {}
            Target::Subscript(..) | Target::Attr(..) => return false,
            Target::Unpack(items, _) => stack.extend(items),
        }
    }
    true
}

/// Whether an `if` test is false whenever a module is imported: `__name__ == "__main__"`
/// and `TYPE_CHECKING`.
fn never_taken(test: &Expr) -> bool {
    let is_name = |e: &Expr, name: &str| matches!(&e.kind, ExprKind::Name(n) if n == name);
    let is_main = |e: &Expr| matches!(&e.kind, ExprKind::Const(Const::Str(s)) if s == "__main__");
    match &test.kind {
        ExprKind::Compare(left, ops) => match ops.as_slice() {
            [(super::ast::CmpOp::Eq, right)] => {
                (is_name(left, "__name__") && is_main(right))
                    || (is_main(left) && is_name(right, "__name__"))
            }
            _ => false,
        },
        ExprKind::Name(name) => name == "TYPE_CHECKING",
        ExprKind::Attr(object, name) => name == "TYPE_CHECKING" && is_name(object, "typing"),
        _ => false,
    }
}

/// The first statement of a module-level `if` branch that is more than binding names.
fn not_simple(statements: &[Stmt]) -> Option<At> {
    for stmt in statements {
        let simple = match &stmt.kind {
            StmtKind::Assign(targets, _) => targets.iter().all(binds_names_only),
            StmtKind::Declare(_) | StmtKind::Pass => true,
            StmtKind::Expr(e) => matches!(e.kind, ExprKind::Const(_)),
            StmtKind::If(branches, orelse) => {
                if let Some(at) = branches
                    .iter()
                    .filter(|(test, _)| !never_taken(test))
                    .find_map(|(_, body)| not_simple(body))
                    .or_else(|| not_simple(orelse))
                {
                    return Some(at);
                }
                true
            }
            _ => false,
        };
        if !simple {
            return Some(stmt.at);
        }
    }
    None
}

/// The names the statements on lines `lines.0..lines.1` would bind, read from their
/// text: assignment and `for` targets, `as` names, imports, `def` and `class`.
fn bound_names(source: &Source<'_>, lines: (usize, usize), path: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for li in lines.0..lines.1 {
        let Some(line) = source.lines.get(li) else { break };
        let mut statements = Vec::new();
        source.line_statements(line.start, line.end, &mut statements);
        for stmt in statements {
            let (s, e) = (stmt.start, stmt.end);
            if stmt.header {
                let def = s + usize::from(source.is_name(s, "async"));
                if source.is_name(def, "def") || source.is_name(def, "class") {
                    names.extend(source.identifier(def + 1).map(str::to_owned));
                } else if source.is_name(s, "for") {
                    let end = source.find_top(s + 1, e, |i| source.is_name(i, "in")).unwrap_or(e);
                    names.extend(
                        (s + 1..end).filter_map(|i| source.identifier(i)).map(str::to_owned),
                    );
                }
                let mut i = s;
                while let Some(as_at) = source.find_top(i, e, |k| source.is_name(k, "as")) {
                    names.extend(source.identifier(as_at + 1).map(str::to_owned));
                    i = as_at + 1;
                }
                continue;
            }
            if let Some(import) = source.import(stmt) {
                for (name, alias, _) in import.names {
                    let bound = if import.from.is_none() && alias == name {
                        name.split('.').next().unwrap_or_default().to_owned()
                    } else {
                        alias
                    };
                    names.insert(bound);
                }
                continue;
            }
            if augmented_op(source, s + 1).is_some() {
                names.extend(source.identifier(s).map(str::to_owned));
                continue;
            }
            let parts = source.split_assignment(s, e);
            for &(ts, te) in parts.iter().take(parts.len().saturating_sub(1)) {
                let te = source.find_top(ts, te, |i| source.is_op(i, ":")).unwrap_or(te);
                if let Ok(target) =
                    Parser::expression_list(source, (ts, te), path).and_then(to_target)
                {
                    target_names(&target, &mut names);
                }
            }
        }
    }
    names
}

/// A result whose problem counts only when it is invalid Python.
trait SyntaxOnly {
    fn filter_syntax(self) -> PResult<()>;
}

impl<T> SyntaxOnly for PResult<T> {
    fn filter_syntax(self) -> PResult<()> {
        match self {
            Err(problem) if problem.code == SYNTAX => Err(problem),
            _ => Ok(()),
        }
    }
}

/// What kind of class a class statement makes.
#[derive(Clone, Copy)]
struct ClassKind {
    /// Its base is `http.server.BaseHTTPRequestHandler`.
    handler: bool,
    /// `@dataclass`: whether frozen, and where the decorator is.
    dataclass: Option<(bool, At)>,
    /// An exception class.
    exception: bool,
}

/// Where a dataclass field's default comes from.
enum FieldValue {
    /// It has none.
    None,
    /// The body's assignment of it (`name: T = value`).
    Class,
    /// `field(default=…)`.
    Default(Expr),
    /// `field(default_factory=…)`.
    Factory(Expr),
}

/// The special methods an exception class may define.
const EXCEPTION_METHODS: [&str; 3] = ["__init__", "__str__", "__repr__"];

/// The special methods a dataclass may define: those of a plain class, and
/// `__post_init__`.
const DATACLASS_METHODS: [&str; 8] = [
    "__init__",
    "__str__",
    "__repr__",
    "__enter__",
    "__exit__",
    "__aenter__",
    "__aexit__",
    "__post_init__",
];
