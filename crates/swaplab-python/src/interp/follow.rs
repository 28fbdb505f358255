//! Whether a function's body is read whole by the textual scanner ([`crate`]'s
//! `crm_calls`): a body outside the subset, a call of another function of the file, or a
//! use of something the subset does not have (an imported module or name, a class, a
//! builtin such as `getattr`) leaves code the scanner never reads, so what it found is
//! not everything the body does.
//!
//! Walks the compiled tree; its depth is capped by the parser ([`super::MAX_NESTING`]),
//! so the walk's recursion is bounded.

use std::collections::BTreeSet;

use super::Program;
use super::ast::{Clause, Expr, ExprKind, FPart, Function, Global, Stmt, StmtKind, Target};
use super::compile::target_names;
use super::runtime::{RunValue, StdModule, builtin_value};
use swaplab_base::diagnostic::LineIndex;

/// Why the scanner's reading of `function` may leave something out, in words that
/// follow "because ": `None` when the body uses only what the reading follows.
pub(crate) fn unfollowed(program: &Program, function: &Function) -> Option<String> {
    let body = match &function.body {
        Ok(body) => body,
        Err(diagnostic) => {
            return Some(format!(
                "its body is outside the Python subset Swap Lab reads (line {}: {})",
                diagnostic.span.start.line, diagnostic.message
            ));
        }
    };
    let mut bound = function.locals.clone();
    bound.extend(function.params.iter().map(|p| p.name.clone()));
    let mut walk = Walk { program, function, bound, found: None };
    walk.block(body);
    let (what, at) = walk.found?;
    let unit = program.units.get(function.file)?;
    let line = LineIndex::with_table(&unit.text, &unit.lines).position(at).line;
    Some(format!("{what} (line {line})"))
}

struct Walk<'p> {
    program: &'p Program,
    function: &'p Function,
    /// Names local to the function: parameters, assignments, comprehension variables.
    bound: BTreeSet<String>,
    /// The first thing the reading does not follow, and where.
    found: Option<(String, usize)>,
}

impl Walk<'_> {
    fn block(&mut self, statements: &[Stmt]) {
        for stmt in statements {
            if self.found.is_some() {
                return;
            }
            self.stmt(stmt);
        }
    }

    fn stmt(&mut self, stmt: &Stmt) {
        match &stmt.kind {
            StmtKind::Expr(e) | StmtKind::Return(Some(e)) => self.expr(e),
            // `x: T` alone binds nothing and evaluates nothing at run time.
            StmtKind::Declare(_) => {}
            StmtKind::With(items, body, _) => {
                for (context, target) in items {
                    self.expr(context);
                    target.iter().for_each(|t| self.target(t));
                }
                self.block(body);
            }
            StmtKind::Assign(targets, value) => {
                targets.iter().for_each(|t| self.target(t));
                self.expr(value);
            }
            StmtKind::AugAssign(target, _, value) => {
                self.target(target);
                self.expr(value);
            }
            StmtKind::If(branches, orelse) => {
                for (test, body) in branches {
                    self.expr(test);
                    self.block(body);
                }
                self.block(orelse);
            }
            StmtKind::For(target, iter, body, orelse) => {
                self.target(target);
                self.expr(iter);
                self.block(body);
                self.block(orelse);
            }
            StmtKind::While(test, body, orelse) => {
                self.expr(test);
                self.block(body);
                self.block(orelse);
            }
            StmtKind::Raise(exc, cause) => {
                exc.iter().chain(cause.iter()).for_each(|e| self.expr(e));
            }
            StmtKind::Try { body, handlers, orelse, finally } => {
                self.block(body);
                for handler in handlers {
                    handler.types.iter().for_each(|e| self.expr(e));
                    self.block(&handler.body);
                }
                self.block(orelse);
                self.block(finally);
            }
            StmtKind::Assert(test, message) => {
                self.expr(test);
                message.iter().for_each(|e| self.expr(e));
            }
            StmtKind::Del(targets) => targets.iter().for_each(|t| self.target(t)),
            StmtKind::Return(None) | StmtKind::Pass | StmtKind::Break | StmtKind::Continue => {}
        }
    }

    fn target(&mut self, target: &Target) {
        match target {
            Target::Name(_) => {}
            Target::Subscript(object, index, _) => {
                self.expr(object);
                self.expr(index);
            }
            Target::Unpack(items, _) => items.iter().for_each(|t| self.target(t)),
            Target::Attr(object, _, _) => self.expr(object),
        }
    }

    fn name(&mut self, name: &str, at: usize) {
        if self.found.is_some() || self.bound.contains(name) {
            return;
        }
        let globals = self.program.units.get(self.function.file).map(|u| &u.globals);
        let what = match globals.and_then(|g| g.get(name)).and_then(|v| v.last()).map(|(_, g)| g) {
            Some(Global::Function(i)) => {
                let called = self.program.functions.get(*i);
                if called.is_some_and(|f| std::ptr::eq(f, self.function)) {
                    return;
                }
                if called.is_some_and(|f| f.file != self.function.file) {
                    format!(
                        "it calls `{name}`, a function of another file the reading does not follow"
                    )
                } else {
                    format!("it calls `{name}`, a function of the file the reading does not follow")
                }
            }
            Some(Global::Unit(_)) => {
                format!("it uses `{name}`, a module of the project the reading does not follow")
            }
            Some(
                Global::Module(module @ (StdModule::Httpx | StdModule::Requests))
                | Global::StdName(module @ (StdModule::Httpx | StdModule::Requests), _),
            ) => format!(
                "it uses the module `{}`, whose HTTP requests the reading does not follow",
                module.name()
            ),
            Some(Global::Other(what)) => {
                format!("it uses {what}, outside the Python subset Swap Lab reads")
            }
            Some(_) => return,
            None => match builtin_value(name) {
                Some(RunValue::Foreign(what)) => {
                    format!("it uses {what}, outside the Python subset Swap Lab reads")
                }
                _ => return,
            },
        };
        self.found = Some((what, at));
    }

    fn exprs(&mut self, items: &[Expr]) {
        items.iter().for_each(|e| self.expr(e));
    }

    fn expr(&mut self, expr: &Expr) {
        if self.found.is_some() {
            return;
        }
        match &expr.kind {
            ExprKind::Const(_) => {}
            ExprKind::FString(parts) => self.fparts(parts),
            ExprKind::Name(name) => self.name(name, expr.at.0),
            ExprKind::Attr(object, _) | ExprKind::Await(object) | ExprKind::Unary(_, object) => {
                self.expr(object);
            }
            ExprKind::Subscript(object, index) => {
                self.expr(object);
                self.expr(index);
            }
            ExprKind::Slice(lower, upper, step) => {
                for part in [lower, upper, step].into_iter().flatten() {
                    self.expr(part);
                }
            }
            ExprKind::Call(callee, args, kwargs) => {
                self.expr(callee);
                self.exprs(args);
                kwargs.iter().for_each(|(_, e)| self.expr(e));
            }
            ExprKind::Binary(_, left, right) => {
                self.expr(left);
                self.expr(right);
            }
            ExprKind::And(items)
            | ExprKind::Or(items)
            | ExprKind::List(items)
            | ExprKind::Tuple(items)
            | ExprKind::Set(items) => self.exprs(items),
            ExprKind::Compare(left, rest) => {
                self.expr(left);
                rest.iter().for_each(|(_, e)| self.expr(e));
            }
            ExprKind::IfElse { test, body, orelse } => {
                self.expr(test);
                self.expr(body);
                self.expr(orelse);
            }
            ExprKind::Dict(entries) => {
                for (key, value) in entries {
                    self.expr(key);
                    self.expr(value);
                }
            }
            ExprKind::Lambda(lambda) => {
                // Defaults are read where the lambda is made; its parameters are its own.
                lambda.params.iter().filter_map(|(_, d)| d.as_ref()).for_each(|d| self.expr(d));
                for (param, _) in &lambda.params {
                    self.bound.insert(param.clone());
                }
                self.expr(&lambda.body);
            }
            ExprKind::Comp { elt, value, clauses, .. } => {
                // The comprehension's variables are its own: bound before its parts are read.
                for clause in clauses {
                    target_names(&clause.target, &mut self.bound);
                }
                clauses.iter().for_each(|c| self.clause(c));
                self.expr(elt);
                value.iter().for_each(|v| self.expr(v));
            }
        }
    }

    fn clause(&mut self, clause: &Clause) {
        self.target(&clause.target);
        self.expr(&clause.iter);
        self.exprs(&clause.conds);
    }

    fn fparts(&mut self, parts: &[FPart]) {
        for part in parts {
            if let FPart::Field(field) = part {
                self.expr(&field.expr);
                self.fparts(&field.spec);
            }
        }
    }
}
