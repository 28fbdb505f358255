//! Running a compiled function: statements, expressions, names, calls of the file's
//! functions and models, and what reaches the [`Host`].
//!
//! Every statement and expression evaluated is a step; steps, nested calls and nested
//! evaluations are counted against the limits in [`super`]. An exception is a
//! [`Signal::Raise`] that `try` can catch; a construct outside the subset or a limit is a
//! [`Signal::Stop`] that ends the run where it stands. When the call ends, every list
//! and dict it built is emptied, so reference cycles cannot outlive it.

use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, BTreeSet};
use std::rc::{Rc, Weak};
use std::sync::Arc;

use super::ast::{
    At, CompKind, Const, Expr, ExprKind, FPart, Function, Global, Handler, LambdaDef, ParamDef,
    ParamKind, Stmt, StmtKind, Target,
};
use super::runtime::{
    Builtin, Closure, DictObj, Env, ExcObj, InstanceObj, ListObj, ObjectObj, RunValue, Scope,
    builtin_exception_parent, builtin_value,
};
use super::{
    Host, HostError, LIMIT, MAX_CALL_DEPTH, MAX_RECURSION, MAX_SIZE, MAX_STEPS, MAX_VALUE_DEPTH,
    Outcome, Program, PyValue, UNSUPPORTED, WORK_PER_STEP,
};
use crate::Extra;
use swaplab_base::diagnostic::{Diagnostic, LineIndex, Phase, Span};

/// Why evaluation stopped early.
pub(crate) enum Signal {
    /// A Python exception: `try` may catch it.
    Raise(Box<Raised>),
    /// Outside the subset, or a limit: nothing catches it.
    Stop(Box<Diagnostic>),
}

/// An exception in flight and where it was raised.
pub(crate) struct Raised {
    pub(crate) exc: Rc<ExcObj>,
    pub(crate) at: At,
    /// The unit `at` is in.
    pub(crate) file: usize,
}

/// An evaluation result.
pub(crate) type R<T> = Result<T, Signal>;

/// How a block ended.
enum Exit {
    Normal,
    Return(RunValue),
    Break,
    Continue,
}

/// The variables of one call (or comprehension), in a scope a lambda can share.
pub(crate) struct Frame<'p> {
    pub(crate) env: Rc<Env>,
    /// The names the function binds; `None` at module level, in a lambda and in a
    /// comprehension.
    locals: Option<&'p BTreeSet<String>>,
}

impl<'p> Frame<'p> {
    fn new(locals: Option<&'p BTreeSet<String>>, scope: Scope, parent: Option<Rc<Env>>) -> Self {
        let env = Env { vars: RefCell::default(), scope, parent };
        Frame { env: Rc::new(env), locals }
    }

    /// The scope of module-level expressions (defaults, constants).
    pub(crate) fn module() -> Frame<'p> {
        Frame::new(None, Scope::Module, None)
    }

    fn get(&self, name: &str) -> Option<RunValue> {
        self.env.vars.borrow().get(name).cloned()
    }

    fn set(&self, name: String, value: RunValue) {
        let old = self.env.vars.borrow_mut().insert(name, value);
        drop(old);
    }

    fn remove(&self, name: &str) -> Option<RunValue> {
        self.env.vars.borrow_mut().remove(name)
    }
}

/// One run of a program.
pub(crate) struct Interp<'p, 'h> {
    pub(crate) program: &'p Program,
    lines: Vec<LineIndex<'p>>,
    pub(crate) host: &'h mut dyn Host,
    steps: u64,
    work: u64,
    depth: usize,
    calls: usize,
    /// Exceptions being handled, innermost last, for a bare `raise`.
    handling: Vec<(Rc<ExcObj>, At, usize)>,
    /// The names each module-level assignment bound, once evaluated in this run.
    assigned: BTreeMap<usize, BTreeMap<String, RunValue>>,
    /// The module-level assignments being evaluated, innermost last.
    resolving: Vec<usize>,
    /// Where in the module the module-level code being evaluated stands, innermost last:
    /// a name read meanwhile is the binding made before, as when the module is imported.
    pub(crate) now: Vec<(usize, usize)>,
    /// The unit whose code is running: its module-level names are the ones code reads.
    pub(crate) file: usize,
    /// The class attributes of the classes used in this run, and those being evaluated.
    pub(crate) class_attrs: super::classes::ClassAttrs,
    pub(crate) defining: Vec<usize>,
    /// What `@dataclass` made of the dataclasses created in this run.
    pub(crate) dataclasses: super::classes::Dataclasses,
    /// The instances whose generated `repr` is being written, by address.
    pub(crate) reprs: Vec<usize>,
    /// Instances of the file's classes: their attributes can hold them.
    pub(crate) instances: Vec<Weak<InstanceObj>>,
    /// The branch each module-level `if` took in this run.
    taken: BTreeMap<usize, usize>,
    deciding: Vec<usize>,
    lists: Vec<Weak<ListObj>>,
    dicts: Vec<Weak<DictObj>>,
    /// Scopes a lambda closed over: their variables can hold the lambda.
    envs: Vec<Weak<Env>>,
    /// Exceptions given a cause, a context or attributes, which can chain back to them.
    pub(crate) excs: Vec<Weak<ExcObj>>,
    prune_at: usize,
    /// The environment the process was started with, `os.environ` once made, and
    /// `sys.path`.
    pub(crate) env: Rc<[(String, String)]>,
    pub(crate) environ: Option<RunValue>,
    pub(crate) sys_path: Option<RunValue>,
}

/// What a process keeps between calls: the module-level values its code has computed
/// (a list the module binds and a call appends to is still appended to at the next
/// call), the branches its module-level `if`s took, its classes' attributes, and the
/// containers it made, so that their reference cycles can be broken when it ends.
#[derive(Default)]
pub(crate) struct State {
    assigned: BTreeMap<usize, BTreeMap<String, RunValue>>,
    taken: BTreeMap<usize, usize>,
    class_attrs: super::classes::ClassAttrs,
    dataclasses: super::classes::Dataclasses,
    instances: Vec<Weak<InstanceObj>>,
    lists: Vec<Weak<ListObj>>,
    dicts: Vec<Weak<DictObj>>,
    envs: Vec<Weak<Env>>,
    excs: Vec<Weak<ExcObj>>,
    prune_at: usize,
    pub(crate) env: Rc<[(String, String)]>,
    environ: Option<RunValue>,
    sys_path: Option<RunValue>,
}

impl State {
    /// Empties every list and dict still alive, and every scope a lambda closed over (with
    /// the scopes around it), breaking reference cycles.
    pub(crate) fn break_cycles(&mut self) {
        for weak in std::mem::take(&mut self.instances) {
            if let Some(instance) = weak.upgrade()
                && let Ok(mut attrs) = instance.attrs.try_borrow_mut()
            {
                let taken = std::mem::take(&mut *attrs);
                drop(attrs);
                drop(taken);
            }
        }
        let class_attrs = std::mem::take(&mut self.class_attrs);
        drop(class_attrs);
        let dataclasses = std::mem::take(&mut self.dataclasses);
        drop(dataclasses);
        for weak in std::mem::take(&mut self.excs) {
            if let Some(exc) = weak.upgrade() {
                let cause = exc.cause.take();
                let context = exc.context.take();
                let attrs = exc.attrs.try_borrow_mut().map(|mut a| std::mem::take(&mut *a));
                drop((cause, context, attrs));
            }
        }
        for weak in std::mem::take(&mut self.envs) {
            let mut env = weak.upgrade();
            while let Some(scope) = env {
                if let Ok(mut vars) = scope.vars.try_borrow_mut() {
                    let taken = std::mem::take(&mut *vars);
                    drop(vars);
                    drop(taken);
                }
                env = scope.parent.clone();
            }
        }
        for weak in std::mem::take(&mut self.lists) {
            if let Some(list) = weak.upgrade()
                && let Ok(mut items) = list.items.try_borrow_mut()
            {
                let taken = std::mem::take(&mut *items);
                drop(items);
                drop(taken);
            }
        }
        for weak in std::mem::take(&mut self.dicts) {
            if let Some(dict) = weak.upgrade()
                && let Ok(mut entries) = dict.entries.try_borrow_mut()
            {
                let taken = std::mem::take(&mut *entries);
                drop(entries);
                drop(taken);
            }
        }
    }
}

impl Drop for State {
    fn drop(&mut self) {
        self.break_cycles();
    }
}

/// Runs function `index` of `program` in a process whose state is `state`.
pub(crate) fn run(
    program: &Program,
    state: &mut State,
    index: usize,
    kwargs: &[(String, PyValue)],
    with_context: bool,
    host: &mut dyn Host,
) -> Outcome {
    let mut interp = Interp::new(program, std::mem::take(state), host);
    let outcome = interp.run(index, kwargs, with_context);
    *state = interp.into_state();
    outcome
}

/// Serves `request` with handler class `class` of `program`, in a process whose state
/// is `state`: the answer, or the handler's exception or stop.
pub(crate) fn serve(
    program: &Program,
    state: &mut State,
    class: usize,
    request: &super::HttpRequest,
    host: &mut dyn Host,
) -> Result<super::HttpResponse, Outcome> {
    let mut interp = Interp::new(program, std::mem::take(state), host);
    let result = interp.serve(class, request);
    *state = interp.into_state();
    result
}

/// The value of module-level `name` of `program`'s file, in a process whose state is
/// `state`.
pub(crate) fn global_value(
    program: &Program,
    state: &mut State,
    name: &str,
    host: &mut dyn Host,
) -> Outcome {
    let mut interp = Interp::new(program, std::mem::take(state), host);
    let outcome = match interp.global(name, (0, 0)).and_then(|v| interp.py_of(&v, 0, (0, 0))) {
        Ok(value) => Outcome::Returned(value),
        Err(signal) => interp.outcome(signal),
    };
    *state = interp.into_state();
    outcome
}

impl<'p, 'h> Interp<'p, 'h> {
    /// Runs a handler class's `do_<METHOD>` on a new instance made for `request`, and
    /// reads back what it wrote.
    fn serve(
        &mut self,
        class: usize,
        request: &super::HttpRequest,
    ) -> Result<super::HttpResponse, Outcome> {
        let at = (0, 0);
        self.file = self.program.classes.get(class).map_or(0, |c| c.file);
        let instance =
            Rc::new(InstanceObj { class, attrs: RefCell::new(super::net::handler_attrs(request)) });
        self.instances.push(Rc::downgrade(&instance));
        let value = RunValue::Instance(instance.clone());
        let method = format!("do_{}", request.method);
        let result = match self.class_lookup(class, &method) {
            Ok(Some(member)) => self
                .member_value(member, &value, at)
                .and_then(|bound| self.call_value(bound, Vec::new(), Vec::new(), at))
                .map(drop),
            Ok(None) => {
                let message = format!("Unsupported method ('{}')", request.method);
                let args = vec![RunValue::Int(501), RunValue::str(&message)];
                self.handler_method(&value, "send_error", &args, &[], at).map(drop)
            }
            Err(signal) => Err(signal),
        };
        if let Err(signal) = result {
            return Err(self.outcome(signal));
        }
        let written = super::net::written(&instance.attrs.borrow());
        super::net::parse_response(&written).ok_or(Outcome::Returned(PyValue::None))
    }

    /// An interpreter for one call, over the state the process kept.
    pub(crate) fn new(program: &'p Program, state: State, host: &'h mut dyn Host) -> Self {
        let mut state = std::mem::ManuallyDrop::new(state);
        Interp {
            program,
            lines: program.units.iter().map(|u| LineIndex::with_table(&u.text, &u.lines)).collect(),
            host,
            steps: 0,
            work: 0,
            depth: 0,
            calls: 0,
            handling: Vec::new(),
            assigned: std::mem::take(&mut state.assigned),
            resolving: Vec::new(),
            now: Vec::new(),
            file: 0,
            class_attrs: std::mem::take(&mut state.class_attrs),
            defining: Vec::new(),
            dataclasses: std::mem::take(&mut state.dataclasses),
            reprs: Vec::new(),
            instances: std::mem::take(&mut state.instances),
            taken: std::mem::take(&mut state.taken),
            deciding: Vec::new(),
            lists: std::mem::take(&mut state.lists),
            dicts: std::mem::take(&mut state.dicts),
            envs: std::mem::take(&mut state.envs),
            excs: std::mem::take(&mut state.excs),
            prune_at: state.prune_at.max(1024),
            env: state.env.clone(),
            environ: state.environ.take(),
            sys_path: state.sys_path.take(),
        }
    }

    /// The state to keep for the process's next call.
    pub(crate) fn into_state(self) -> State {
        State {
            assigned: self.assigned,
            taken: self.taken,
            class_attrs: self.class_attrs,
            dataclasses: self.dataclasses,
            instances: self.instances,
            lists: self.lists,
            dicts: self.dicts,
            envs: self.envs,
            excs: self.excs,
            prune_at: self.prune_at,
            env: self.env,
            environ: self.environ,
            sys_path: self.sys_path,
        }
    }
}

impl<'p> Interp<'p, '_> {
    fn run(&mut self, index: usize, kwargs: &[(String, PyValue)], with_context: bool) -> Outcome {
        let program = self.program;
        let Some(function) = program.functions.get(index) else {
            return Outcome::Returned(PyValue::None);
        };
        let at = function.range;
        let result = self.bind_and_call(index, function, kwargs, with_context);
        // Handing the result over has a budget of its own.
        self.steps = 0;
        match result.and_then(|value| self.py_of(&value, 0, at)) {
            Ok(value) => Outcome::Returned(value),
            Err(signal) => self.outcome(signal),
        }
    }

    fn outcome(&mut self, signal: Signal) -> Outcome {
        match signal {
            Signal::Stop(diagnostic) => Outcome::Unsupported(*diagnostic),
            Signal::Raise(raised) => {
                self.steps = 0;
                self.file = raised.file;
                let message = self.exc_str(&raised.exc, raised.at).unwrap_or_default();
                Outcome::Raised {
                    exc_type: raised.exc.class.to_string(),
                    message,
                    span: self.span(raised.at),
                    path: self.path().to_owned(),
                }
            }
        }
    }

    fn bind_and_call(
        &mut self,
        index: usize,
        function: &'p Function,
        kwargs: &[(String, PyValue)],
        with_context: bool,
    ) -> R<RunValue> {
        let at = function.range;
        let body = match &function.body {
            Ok(body) => body,
            Err(diagnostic) => return Err(Signal::Stop(Box::new(diagnostic.clone()))),
        };
        if let Some((name, _)) =
            kwargs.iter().find(|(k, _)| !function.params.iter().any(|p| p.name == *k))
        {
            let message =
                format!("{}() got an unexpected keyword argument '{name}'", function.name);
            return Err(self.raise("TypeError", message, at));
        }
        let frame = Frame::new(Some(&function.locals), Scope::Function(index), None);
        let mut missing = Vec::new();
        for param in function.params.iter().filter(|p| p.stars == 0) {
            let value = match kwargs.iter().find(|(k, _)| *k == param.name) {
                Some((_, value)) => self.run_value_of(value, 0, at)?,
                None => match (param.kind, &param.default) {
                    (ParamKind::RasaContext, _) if with_context => RunValue::Context,
                    (_, Some(default)) => self.eval(&mut Frame::module(), default)?,
                    (ParamKind::RasaContext | ParamKind::McpContext, None) => RunValue::None,
                    (ParamKind::Plain, None) => {
                        missing.push(param.name.as_str());
                        continue;
                    }
                },
            };
            frame.set(param.name.clone(), value);
        }
        if !missing.is_empty() {
            return Err(self.raise("TypeError", missing_message(&function.name, &missing), at));
        }
        self.execute(body, frame, at)
    }

    fn execute(&mut self, body: &'p [Stmt], mut frame: Frame<'p>, at: At) -> R<RunValue> {
        if self.calls >= MAX_CALL_DEPTH {
            return Err(self.too_many_calls(at));
        }
        self.calls += 1;
        let result = self.block(&mut frame, body);
        self.calls -= 1;
        match result? {
            Exit::Return(value) => Ok(value),
            _ => Ok(RunValue::None),
        }
    }

    /// Calls function `index` of the file with Python's argument binding.
    fn call_function(
        &mut self,
        index: usize,
        args: Vec<RunValue>,
        kwargs: Vec<(String, RunValue)>,
        at: At,
    ) -> R<RunValue> {
        let (body, frame) = self.bind_call(index, args, kwargs, at)?;
        if self.calls >= MAX_CALL_DEPTH {
            return Err(self.too_many_calls(at));
        }
        let file = self.program.functions.get(index).map_or(self.file, |f| f.file);
        self.in_file(file, |interp| interp.execute(body, frame, at))
    }

    /// The body and the bound parameters of a call. Binding happens in this frame, which
    /// is gone before the body runs: nested calls do not stack it.
    fn bind_call(
        &mut self,
        index: usize,
        args: Vec<RunValue>,
        kwargs: Vec<(String, RunValue)>,
        at: At,
    ) -> R<(&'p [Stmt], Frame<'p>)> {
        let program = self.program;
        let Some(function) = program.functions.get(index) else {
            return Err(self.raise("NameError", "function not found", at));
        };
        let body = match &function.body {
            Ok(body) => body,
            Err(diagnostic) => return Err(Signal::Stop(Box::new(diagnostic.clone()))),
        };
        let (mut args, mut kwargs) = (args, kwargs);
        let frame = Frame::new(Some(&function.locals), Scope::Function(index), None);
        // `*args` takes the positional arguments after those before it; `**kwargs` the
        // keyword arguments no parameter is named.
        for star in function.params.iter().filter(|p| p.stars > 0) {
            let value = if star.stars == 1 {
                let before = function.params.iter().take_while(|p| p.stars == 0).count();
                RunValue::tuple(if args.len() > before {
                    args.split_off(before)
                } else {
                    Vec::new()
                })
            } else {
                let named = |k: &str| function.params.iter().any(|p| p.stars == 0 && p.name == k);
                let (extra, kept): (Vec<_>, Vec<_>) =
                    kwargs.into_iter().partition(|(k, _)| !named(k));
                kwargs = kept;
                let entries = extra.into_iter().map(|(k, v)| (RunValue::str(&k), v)).collect();
                self.new_dict(entries)
            };
            frame.set(star.name.clone(), value);
        }
        let params: Vec<&ParamDef> = function.params.iter().filter(|p| p.stars == 0).collect();
        let spec: Vec<(&str, bool)> =
            params.iter().map(|p| (p.name.as_str(), p.default.is_some())).collect();
        let slots = self.bind_args(&function.name, &spec, args, kwargs, at)?;
        for (param, slot) in params.into_iter().zip(slots) {
            let value = match (slot, &param.default) {
                (Some(value), _) => value,
                (None, Some(default)) => {
                    self.in_file(function.file, |i| i.eval(&mut Frame::module(), default))?
                }
                (None, None) => RunValue::None,
            };
            frame.set(param.name.clone(), value);
        }
        Ok((body, frame))
    }

    /// Python's binding of a call's arguments to named parameters (`(name, has a
    /// default)`): one slot per parameter, `None` where it takes its default.
    pub(crate) fn bind_args(
        &self,
        name: &str,
        params: &[(&str, bool)],
        args: Vec<RunValue>,
        kwargs: Vec<(String, RunValue)>,
        at: At,
    ) -> R<Vec<Option<RunValue>>> {
        if args.len() > params.len() {
            let required = params.iter().filter(|(_, default)| !default).count();
            let takes = if required == params.len() {
                format!("{} positional argument{}", params.len(), plural(params.len()))
            } else {
                format!("from {required} to {} positional arguments", params.len())
            };
            let given = if args.len() == 1 { "was" } else { "were" };
            let message = format!("{name}() takes {takes} but {} {given} given", args.len());
            return Err(self.raise("TypeError", message, at));
        }
        let mut slots: Vec<Option<RunValue>> = vec![None; params.len()];
        for (slot, value) in slots.iter_mut().zip(args) {
            *slot = Some(value);
        }
        for (key, value) in kwargs {
            let slot = params.iter().position(|(p, _)| *p == key).and_then(|i| slots.get_mut(i));
            match slot {
                None => {
                    let message = format!("{name}() got an unexpected keyword argument '{key}'");
                    return Err(self.raise("TypeError", message, at));
                }
                Some(Some(_)) => {
                    let message = format!("{name}() got multiple values for argument '{key}'");
                    return Err(self.raise("TypeError", message, at));
                }
                Some(slot) => *slot = Some(value),
            }
        }
        let missing: Vec<&str> = params
            .iter()
            .zip(&slots)
            .filter(|((_, default), slot)| slot.is_none() && !default)
            .map(|((param, _), _)| *param)
            .collect();
        if !missing.is_empty() {
            return Err(self.raise("TypeError", missing_message(name, &missing), at));
        }
        Ok(slots)
    }

    // ----- limits and signals -----

    /// Counts one evaluation step.
    pub(crate) fn step(&mut self, at: At) -> R<()> {
        self.steps += 1;
        if self.steps > MAX_STEPS {
            return Err(self.steps_exceeded(at));
        }
        Ok(())
    }

    /// Counts bulk work over `elements` elements.
    pub(crate) fn charge(&mut self, elements: usize, at: At) -> R<()> {
        self.work = self.work.saturating_add(u64::try_from(elements).unwrap_or(u64::MAX));
        if self.work >= WORK_PER_STEP {
            self.steps = self.steps.saturating_add(self.work / WORK_PER_STEP);
            self.work %= WORK_PER_STEP;
            if self.steps > MAX_STEPS {
                return Err(self.steps_exceeded(at));
            }
        }
        Ok(())
    }

    fn steps_exceeded(&self, at: At) -> Signal {
        let message = format!(
            "this call took more than {MAX_STEPS} evaluation steps: a loop that does not \
             end, or more work than a tool should do"
        );
        self.stop(LIMIT, message, at)
    }

    /// Enters one nested evaluation.
    pub(crate) fn descend(&mut self, at: At) -> R<()> {
        if self.depth >= MAX_RECURSION {
            let message = format!(
                "evaluation nested more than {MAX_RECURSION} levels deep (nested calls, \
                 blocks and expressions together)"
            );
            return Err(self.stop(LIMIT, message, at));
        }
        self.depth += 1;
        Ok(())
    }

    /// Leaves a nested evaluation.
    pub(crate) fn ascend(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    /// The span of a byte range of the file.
    pub(crate) fn span(&self, at: At) -> Span {
        self.lines
            .get(self.file)
            .map_or(Span::point(swaplab_base::diagnostic::Position::START), |l| l.span(at.0, at.1))
    }

    /// The path of the unit whose code is running.
    pub(crate) fn path(&self) -> &'p str {
        self.program.units.get(self.file).map_or("", |u| u.path.as_str())
    }

    /// Runs `f` with unit `file`'s code running, then goes back to the one before.
    pub(crate) fn in_file<T>(&mut self, file: usize, f: impl FnOnce(&mut Self) -> T) -> T {
        let before = std::mem::replace(&mut self.file, file);
        let result = f(self);
        self.file = before;
        result
    }

    /// Stops the run with a diagnostic.
    pub(crate) fn stop(&self, code: &str, message: impl Into<String>, at: At) -> Signal {
        let diagnostic = Diagnostic::error(self.path(), self.span(at), Phase::Read, code, message);
        Signal::Stop(Box::new(diagnostic))
    }

    /// Stops the run: `what` is outside the subset.
    pub(crate) fn unsupported(&self, what: &str, at: At) -> Signal {
        self.stop(UNSUPPORTED, format!("{what} is outside the Python subset Swap Lab runs"), at)
    }

    /// Stops the run: an integer left 64 bits.
    pub(crate) fn overflow(&self, at: At) -> Signal {
        self.stop(LIMIT, "an integer beyond 64 bits is outside what Swap Lab runs", at)
    }

    /// Python's refusal to make an integer of a NaN or an infinite float (`int()`,
    /// `round()`, `timedelta`): `Ok` for a finite `x`.
    pub(crate) fn finite_for_int(&self, x: f64, at: At) -> Result<(), Signal> {
        if x.is_nan() {
            return Err(self.raise("ValueError", "cannot convert float NaN to integer", at));
        }
        if x.is_infinite() {
            return Err(self.raise(
                "OverflowError",
                "cannot convert float infinity to integer",
                at,
            ));
        }
        Ok(())
    }

    /// Raises `class(message)`.
    pub(crate) fn raise(&self, class: &str, message: impl Into<String>, at: At) -> Signal {
        let message: String = message.into();
        self.raise_with(class, vec![RunValue::str(&message)], at)
    }

    /// Raises `class(*args)`.
    pub(crate) fn raise_with(&self, class: &str, args: Vec<RunValue>, at: At) -> Signal {
        Signal::Raise(Box::new(Raised {
            exc: RunValue::exception(class, args),
            at,
            file: self.file,
        }))
    }

    /// Raises `MemoryError`: a value beyond [`MAX_SIZE`].
    pub(crate) fn memory_error(&self, at: At) -> Signal {
        let message = format!(
            "a str, list or dict of more than {MAX_SIZE} items is beyond what Swap Lab runs"
        );
        self.raise("MemoryError", message, at)
    }

    fn raise_host(&self, error: HostError, at: At) -> Signal {
        self.raise(&error.exc_type, error.message, at)
    }

    /// Whether exception class `class` is `base` or derives from it.
    pub(crate) fn is_subclass(&self, class: &str, base: &str) -> bool {
        let program = self.program;
        let mut current = Some(class);
        for _ in 0..64 {
            let Some(name) = current else { return false };
            if name == base {
                return true;
            }
            current = match program.exc_parents.get(name) {
                Some(parent) => Some(parent.as_str()),
                None => builtin_exception_parent(name),
            };
        }
        false
    }

    // ----- containers -----

    /// A new list, remembered so that cycles can be broken when the run ends.
    pub(crate) fn new_list(&mut self, items: Vec<RunValue>) -> RunValue {
        let list = Rc::new(ListObj { items: items.into(), frozen: Cell::new(false) });
        self.lists.push(Rc::downgrade(&list));
        self.prune();
        RunValue::List(list)
    }

    /// A new dict, remembered as lists are.
    pub(crate) fn new_dict(&mut self, entries: Vec<(RunValue, RunValue)>) -> RunValue {
        let dict = Rc::new(DictObj { entries: entries.into() });
        self.dicts.push(Rc::downgrade(&dict));
        self.prune();
        RunValue::Dict(dict)
    }

    pub(crate) fn prune(&mut self) {
        let tracked = self.lists.len()
            + self.dicts.len()
            + self.envs.len()
            + self.excs.len()
            + self.instances.len();
        if tracked > self.prune_at {
            self.lists.retain(|w| w.strong_count() > 0);
            self.dicts.retain(|w| w.strong_count() > 0);
            self.envs.retain(|w| w.strong_count() > 0);
            self.excs.retain(|w| w.strong_count() > 0);
            self.instances.retain(|w| w.strong_count() > 0);
            let tracked = self.lists.len()
                + self.dicts.len()
                + self.envs.len()
                + self.excs.len()
                + self.instances.len();
            self.prune_at = tracked * 2 + 1024;
        }
    }

    // ----- statements -----

    fn block(&mut self, f: &mut Frame<'p>, statements: &'p [Stmt]) -> R<Exit> {
        for statement in statements {
            match self.statement(f, statement)? {
                Exit::Normal => {}
                exit => return Ok(exit),
            }
        }
        Ok(Exit::Normal)
    }

    fn statement(&mut self, f: &mut Frame<'p>, s: &'p Stmt) -> R<Exit> {
        self.step(s.at)?;
        self.descend(s.at)?;
        let result = self.statement_kind(f, s);
        self.ascend();
        result
    }

    /// Dispatches on the kind of statement; as with expressions, the work is done in
    /// functions of their own to keep this frame small.
    fn statement_kind(&mut self, f: &mut Frame<'p>, s: &'p Stmt) -> R<Exit> {
        match &s.kind {
            StmtKind::Expr(e) => self.eval(f, e).map(|_| Exit::Normal),
            StmtKind::Assign(targets, value) => self.assign_statement(f, targets, value, s.at),
            StmtKind::AugAssign(target, op, value) => {
                self.aug_assign(f, target, *op, value, s.at).map(|()| Exit::Normal)
            }
            StmtKind::If(branches, orelse) => self.if_statement(f, branches, orelse),
            StmtKind::For(target, iter, body, orelse) => {
                self.for_statement(f, target, iter, (body, orelse), s.at)
            }
            StmtKind::While(test, body, orelse) => {
                self.while_statement(f, test, body, orelse, s.at)
            }
            StmtKind::Return(value) => match value {
                Some(e) => self.eval(f, e).map(Exit::Return),
                None => Ok(Exit::Return(RunValue::None)),
            },
            StmtKind::Pass | StmtKind::Declare(_) => Ok(Exit::Normal),
            StmtKind::Break => Ok(Exit::Break),
            StmtKind::Continue => Ok(Exit::Continue),
            StmtKind::Raise(exc, cause) => {
                Err(self.raise_statement(f, exc.as_ref(), cause.as_ref(), s.at))
            }
            StmtKind::Try { body, handlers, orelse, finally } => {
                self.try_statement(f, body, handlers, orelse, finally)
            }
            StmtKind::Assert(test, message) => {
                self.assert_statement(f, test, message.as_ref(), s.at)
            }
            StmtKind::Del(targets) => {
                for target in targets {
                    self.delete(f, target, s.at)?;
                }
                Ok(Exit::Normal)
            }
            StmtKind::With(items, body, is_async) => {
                self.with_item(f, items, 0, body, *is_async, s.at)
            }
        }
    }

    /// The `index`-th item of a `with` statement, and the rest inside it: `__enter__`
    /// (or `__aenter__`), the block, then `__exit__` with the exception that ended it,
    /// which a true result suppresses.
    fn with_item(
        &mut self,
        f: &mut Frame<'p>,
        items: &'p [(Expr, Option<Target>)],
        index: usize,
        body: &'p [Stmt],
        is_async: bool,
        at: At,
    ) -> R<Exit> {
        let Some((expr, target)) = items.get(index) else { return self.block(f, body) };
        let manager = self.eval(f, expr)?;
        if let RunValue::Foreign(what) = &manager {
            return Err(self.unsupported(&format!("`with` {what}"), expr.at));
        }
        let (enter, exit) =
            if is_async { ("__aenter__", "__aexit__") } else { ("__enter__", "__exit__") };
        let methods = (self.special_method(&manager, enter)?, self.special_method(&manager, exit)?);
        let (Some(enter), Some(exit)) = methods else {
            let what = if is_async { "asynchronous context manager" } else { "context manager" };
            let message = format!(
                "'{}' object does not support the {what} protocol",
                self.type_name(&manager)
            );
            return Err(self.raise("TypeError", message, expr.at));
        };
        let value = self.call_value(enter, Vec::new(), Vec::new(), expr.at)?;
        let result = match target {
            Some(target) => self.assign(f, target, value, at),
            None => Ok(()),
        };
        let result = result.and_then(|()| {
            self.descend(at)?;
            let inner = self.with_item(f, items, index + 1, body, is_async, at);
            self.ascend();
            inner
        });
        match result {
            Ok(exit_kind) => {
                let none = vec![RunValue::None, RunValue::None, RunValue::None];
                self.call_value(exit, none, Vec::new(), expr.at)?;
                Ok(exit_kind)
            }
            Err(Signal::Raise(raised)) => {
                let class = RunValue::ExcClass(raised.exc.class.clone());
                let args = vec![class, RunValue::Exc(raised.exc.clone()), RunValue::None];
                self.handling.push((raised.exc.clone(), raised.at, raised.file));
                let exited = self.call_value(exit, args, Vec::new(), expr.at);
                self.handling.pop();
                match exited {
                    Ok(suppress) if suppress.truthy() => Ok(Exit::Normal),
                    Ok(_) => Err(Signal::Raise(raised)),
                    Err(Signal::Raise(other)) => {
                        self.chain(&other.exc, &raised.exc);
                        Err(Signal::Raise(other))
                    }
                    Err(stop) => Err(stop),
                }
            }
            Err(stop) => Err(stop),
        }
    }

    fn assign_statement(
        &mut self,
        f: &mut Frame<'p>,
        targets: &'p [Target],
        value: &'p Expr,
        at: At,
    ) -> R<Exit> {
        let value = self.eval(f, value)?;
        for target in targets {
            self.assign(f, target, value.clone(), at)?;
        }
        Ok(Exit::Normal)
    }

    fn if_statement(
        &mut self,
        f: &mut Frame<'p>,
        branches: &'p [(Expr, Vec<Stmt>)],
        orelse: &'p [Stmt],
    ) -> R<Exit> {
        for (test, body) in branches {
            if self.eval(f, test)?.truthy() {
                return self.block(f, body);
            }
        }
        self.block(f, orelse)
    }

    fn for_statement(
        &mut self,
        f: &mut Frame<'p>,
        target: &'p Target,
        iter: &'p Expr,
        (body, orelse): (&'p [Stmt], &'p [Stmt]),
        at: At,
    ) -> R<Exit> {
        let iterable = self.eval(f, iter)?;
        let mut items = self.iter(&iterable, iter.at)?;
        loop {
            self.step(at)?;
            let Some(item) = self.next(&mut items) else {
                return self.block(f, orelse);
            };
            self.assign(f, target, item, at)?;
            match self.block(f, body)? {
                Exit::Break => return Ok(Exit::Normal),
                Exit::Return(value) => return Ok(Exit::Return(value)),
                Exit::Normal | Exit::Continue => {}
            }
        }
    }

    fn while_statement(
        &mut self,
        f: &mut Frame<'p>,
        test: &'p Expr,
        body: &'p [Stmt],
        orelse: &'p [Stmt],
        at: At,
    ) -> R<Exit> {
        loop {
            self.step(at)?;
            if !self.eval(f, test)?.truthy() {
                return self.block(f, orelse);
            }
            match self.block(f, body)? {
                Exit::Break => return Ok(Exit::Normal),
                Exit::Return(value) => return Ok(Exit::Return(value)),
                Exit::Normal | Exit::Continue => {}
            }
        }
    }

    fn assert_statement(
        &mut self,
        f: &mut Frame<'p>,
        test: &'p Expr,
        message: Option<&'p Expr>,
        at: At,
    ) -> R<Exit> {
        if self.eval(f, test)?.truthy() {
            return Ok(Exit::Normal);
        }
        let args = match message {
            Some(m) => vec![self.eval(f, m)?],
            None => Vec::new(),
        };
        Err(self.raise_with("AssertionError", args, at))
    }

    fn raise_statement(
        &mut self,
        f: &mut Frame<'p>,
        exc: Option<&'p Expr>,
        cause: Option<&'p Expr>,
        at: At,
    ) -> Signal {
        let Some(exc) = exc else {
            return match self.handling.last() {
                Some((exc, raised_at, file)) => Signal::Raise(Box::new(Raised {
                    exc: exc.clone(),
                    at: *raised_at,
                    file: *file,
                })),
                None => self.raise("RuntimeError", "No active exception to reraise", at),
            };
        };
        let value = match self.eval(f, exc) {
            Ok(value) => value,
            Err(signal) => return signal,
        };
        let cause = match cause.map(|c| (c.at, self.eval(f, c))) {
            None => None,
            Some((_, Err(signal))) => return signal,
            Some((at, Ok(value))) => Some((value, at)),
        };
        let raised = match value {
            RunValue::Exc(exc) => exc,
            RunValue::ExcClass(class) => {
                match self.new_exception(class, Vec::new(), Vec::new(), at) {
                    Ok(RunValue::Exc(exc)) => exc,
                    Ok(_) => {
                        return self.raise(
                            "TypeError",
                            "exceptions must derive from BaseException",
                            at,
                        );
                    }
                    Err(signal) => return signal,
                }
            }
            RunValue::Foreign(what) => return self.unsupported(&what, exc.at),
            _ => return self.raise("TypeError", "exceptions must derive from BaseException", at),
        };
        if let Some((cause, cause_at)) = cause {
            let cause = match cause {
                RunValue::None => None,
                RunValue::Exc(cause) => Some(cause),
                RunValue::ExcClass(class) => {
                    match self.new_exception(class, Vec::new(), Vec::new(), cause_at) {
                        Ok(RunValue::Exc(exc)) => Some(exc),
                        Ok(_) => None,
                        Err(signal) => return signal,
                    }
                }
                RunValue::Foreign(what) => return self.unsupported(&what, cause_at),
                _ => {
                    let message = "exception causes must derive from BaseException";
                    return self.raise("TypeError", message, at);
                }
            };
            *raised.cause.borrow_mut() = cause;
            raised.suppress_context.set(true);
            self.excs.push(Rc::downgrade(&raised));
            self.prune();
        }
        Signal::Raise(Box::new(Raised { exc: raised, at, file: self.file }))
    }

    /// Sets `exc.__context__` to the exception being handled, as raising inside an
    /// `except` block does (unless that would make the chain a loop).
    fn chain(&mut self, exc: &Rc<ExcObj>, handled: &Rc<ExcObj>) {
        if exc.context.borrow().is_some() {
            return;
        }
        let mut link = Some(handled.clone());
        for _ in 0..MAX_VALUE_DEPTH {
            let Some(current) = link else { break };
            if Rc::ptr_eq(&current, exc) {
                return;
            }
            link = current.context.borrow().clone();
        }
        *exc.context.borrow_mut() = Some(handled.clone());
        self.excs.push(Rc::downgrade(exc));
        self.prune();
    }

    fn try_statement(
        &mut self,
        f: &mut Frame<'p>,
        body: &'p [Stmt],
        handlers: &'p [Handler],
        orelse: &'p [Stmt],
        finally: &'p [Stmt],
    ) -> R<Exit> {
        let result = match self.block(f, body) {
            Err(Signal::Raise(raised)) if !handlers.is_empty() => self.handle(f, raised, handlers),
            Ok(Exit::Normal) => self.block(f, orelse),
            other => other,
        };
        if finally.is_empty() || matches!(result, Err(Signal::Stop(_))) {
            return result;
        }
        match self.block(f, finally)? {
            Exit::Normal => result,
            exit => Ok(exit),
        }
    }

    fn handle(
        &mut self,
        f: &mut Frame<'p>,
        raised: Box<Raised>,
        handlers: &'p [Handler],
    ) -> R<Exit> {
        for handler in handlers {
            if let Some(types) = &handler.types {
                let types_value = self.eval(f, types)?;
                if !self.exception_matches(&raised.exc.class, &types_value, 0, types.at)? {
                    continue;
                }
            }
            if let Some((handled, _, _)) = self.handling.last() {
                let handled = handled.clone();
                self.chain(&raised.exc, &handled);
            }
            if let Some(name) = &handler.name {
                f.set(name.clone(), RunValue::Exc(raised.exc.clone()));
            }
            self.handling.push((raised.exc.clone(), raised.at, raised.file));
            let result = self.block(f, &handler.body);
            self.handling.pop();
            if let Err(Signal::Raise(escaping)) = &result {
                self.chain(&escaping.exc, &raised.exc);
            }
            if let Some(name) = &handler.name {
                f.remove(name);
            }
            return result;
        }
        Err(Signal::Raise(raised))
    }

    /// Whether an `except` clause naming `types` catches an exception of `class`.
    fn exception_matches(
        &mut self,
        class: &str,
        types: &RunValue,
        depth: usize,
        at: At,
    ) -> R<bool> {
        match types {
            RunValue::ExcClass(base) => Ok(self.is_subclass(class, base)),
            RunValue::Tuple(tuple) if depth < MAX_VALUE_DEPTH => {
                for item in &tuple.items {
                    if self.exception_matches(class, item, depth + 1, at)? {
                        return Ok(true);
                    }
                }
                Ok(false)
            }
            RunValue::Foreign(what) => Err(self.unsupported(what, at)),
            _ => Err(self.raise(
                "TypeError",
                "catching classes that do not inherit from BaseException is not allowed",
                at,
            )),
        }
    }

    pub(crate) fn assign(
        &mut self,
        f: &mut Frame<'p>,
        target: &'p Target,
        value: RunValue,
        at: At,
    ) -> R<()> {
        match target {
            Target::Name(name) => {
                f.set(name.clone(), value);
                Ok(())
            }
            Target::Subscript(obj, index, at) => {
                let container = self.eval(f, obj)?;
                if let ExprKind::Slice(..) = index.kind {
                    return Err(self.unsupported("assigning to a slice", *at));
                }
                let key = self.eval(f, index)?;
                self.set_item(&container, key, value, *at)
            }
            Target::Attr(obj, name, at) => {
                let object = self.eval(f, obj)?;
                self.set_attr(&object, name, value, *at)
            }
            Target::Unpack(targets, unpack_at) => {
                let values = self.unpack(&value, targets.len(), *unpack_at)?;
                for (target, value) in targets.iter().zip(values) {
                    self.descend(at)?;
                    let result = self.assign(f, target, value, at);
                    self.ascend();
                    result?;
                }
                Ok(())
            }
        }
    }

    fn aug_assign(
        &mut self,
        f: &mut Frame<'p>,
        target: &'p Target,
        op: super::ast::BinOp,
        value: &'p Expr,
        at: At,
    ) -> R<()> {
        match target {
            Target::Name(name) => {
                let current = self.load(f, name, at)?;
                let operand = self.eval(f, value)?;
                let result = self.in_place(op, current, &operand, at)?;
                f.set(name.clone(), result);
                Ok(())
            }
            Target::Subscript(obj, index, item_at) => {
                let container = self.eval(f, obj)?;
                if let ExprKind::Slice(..) = index.kind {
                    return Err(self.unsupported("assigning to a slice", *item_at));
                }
                let key = self.eval(f, index)?;
                let current = self.get_item(&container, &key, *item_at)?;
                let operand = self.eval(f, value)?;
                let result = self.in_place(op, current, &operand, at)?;
                self.set_item(&container, key, result, *item_at)
            }
            Target::Attr(obj, name, attr_at) => {
                let object = self.eval(f, obj)?;
                let current = self.get_attr(object.clone(), name, *attr_at)?;
                let operand = self.eval(f, value)?;
                let result = self.in_place(op, current, &operand, at)?;
                self.set_attr(&object, name, result, *attr_at)
            }
            Target::Unpack(_, unpack_at) => Err(self.raise(
                "SyntaxError",
                "illegal expression for augmented assignment",
                *unpack_at,
            )),
        }
    }

    fn delete(&mut self, f: &mut Frame<'p>, target: &'p Target, at: At) -> R<()> {
        match target {
            Target::Name(name) => {
                if f.remove(name).is_none() {
                    let message = format!(
                        "cannot access local variable '{name}' where it is not associated with a value"
                    );
                    return Err(self.raise("UnboundLocalError", message, at));
                }
                Ok(())
            }
            Target::Subscript(obj, index, item_at) => {
                let container = self.eval(f, obj)?;
                if let ExprKind::Slice(..) = index.kind {
                    return Err(self.unsupported("deleting a slice", *item_at));
                }
                let key = self.eval(f, index)?;
                self.del_item(&container, &key, *item_at)
            }
            Target::Attr(obj, name, attr_at) => {
                let object = self.eval(f, obj)?;
                self.del_attr(&object, name, *attr_at)
            }
            Target::Unpack(targets, _) => {
                for target in targets {
                    self.descend(at)?;
                    let result = self.delete(f, target, at);
                    self.ascend();
                    result?;
                }
                Ok(())
            }
        }
    }

    // ----- expressions -----

    /// Evaluates an expression.
    pub(crate) fn eval(&mut self, f: &mut Frame<'p>, e: &'p Expr) -> R<RunValue> {
        self.step(e.at)?;
        self.descend(e.at)?;
        let result = self.eval_kind(f, e);
        self.ascend();
        result
    }

    /// Dispatches on the kind of expression. Every arm with work of its own calls a
    /// function, so that this frame, which nested expressions stack, stays small.
    fn eval_kind(&mut self, f: &mut Frame<'p>, e: &'p Expr) -> R<RunValue> {
        match &e.kind {
            ExprKind::Const(c) => Ok(constant(c)),
            ExprKind::FString(parts) => self.eval_fstring(f, parts, e.at),
            ExprKind::Name(name) => self.load(f, name, e.at),
            ExprKind::Attr(obj, name) => self.eval_attr(f, obj, name, e.at),
            ExprKind::Subscript(obj, index) => self.eval_subscript(f, obj, index, e.at),
            ExprKind::Slice(..) => Err(self.unsupported("a slice outside a subscript", e.at)),
            ExprKind::Call(func, args, kwargs) => self.eval_call(f, func, args, kwargs, e.at),
            ExprKind::Await(inner) => self.eval(f, inner),
            ExprKind::Unary(op, operand) => self.eval_unary(f, *op, operand, e.at),
            ExprKind::Binary(op, left, right) => self.eval_binary(f, *op, left, right, e.at),
            ExprKind::And(items) => self.eval_bool(f, items, false),
            ExprKind::Or(items) => self.eval_bool(f, items, true),
            ExprKind::Compare(left, ops) => self.eval_compare(f, left, ops, e.at),
            ExprKind::IfElse { test, body, orelse } => self.eval_if_else(f, test, body, orelse),
            ExprKind::List(items) => self.eval_sequence(f, items, 0, e.at),
            ExprKind::Set(items) => self.eval_sequence(f, items, 1, e.at),
            ExprKind::Tuple(items) => self.eval_sequence(f, items, 2, e.at),
            ExprKind::Dict(entries) => self.eval_dict(f, entries, e.at),
            ExprKind::Comp { kind, elt, value, clauses } => {
                self.comprehension(f, *kind, elt, value.as_deref(), clauses, e.at)
            }
            ExprKind::Lambda(def) => self.eval_lambda(f, def),
        }
    }

    fn eval_fstring(&mut self, f: &mut Frame<'p>, parts: &'p [FPart], at: At) -> R<RunValue> {
        let mut out = String::new();
        self.render(f, parts, &mut out, at)?;
        self.check_str(&out, at)?;
        Ok(RunValue::str(&out))
    }

    fn eval_attr(&mut self, f: &mut Frame<'p>, obj: &'p Expr, name: &str, at: At) -> R<RunValue> {
        let value = self.eval(f, obj)?;
        self.get_attr(value, name, at)
    }

    fn eval_subscript(
        &mut self,
        f: &mut Frame<'p>,
        obj: &'p Expr,
        index: &'p Expr,
        at: At,
    ) -> R<RunValue> {
        let container = self.eval(f, obj)?;
        if let ExprKind::Slice(lower, upper, step) = &index.kind {
            let mut bound = |b: &'p Option<Box<Expr>>| -> R<Option<RunValue>> {
                b.as_ref().map(|b| self.eval(f, b)).transpose()
            };
            let (lower, upper, step) = (bound(lower)?, bound(upper)?, bound(step)?);
            return self.slice(&container, lower, upper, step, at);
        }
        let key = self.eval(f, index)?;
        self.get_item(&container, &key, at)
    }

    fn eval_call(
        &mut self,
        f: &mut Frame<'p>,
        func: &'p Expr,
        args: &'p [Expr],
        kwargs: &'p [(String, Expr)],
        at: At,
    ) -> R<RunValue> {
        let callee = self.eval(f, func)?;
        if let RunValue::Builtin(Builtin::Super) = callee
            && args.is_empty()
            && kwargs.is_empty()
        {
            return self.zero_arg_super(f, at);
        }
        if let RunValue::Builtin(builtin @ (Builtin::Any | Builtin::All | Builtin::Next)) = callee
            && kwargs.is_empty()
            && (args.len() == 1 || (builtin == Builtin::Next && args.len() == 2))
            && let Some(generator) = args.first()
            && let ExprKind::Comp { kind: CompKind::Gen, elt, clauses, .. } = &generator.kind
        {
            let default = args.get(1);
            return self.consume_generator(f, builtin, generator, (elt, clauses), default, at);
        }
        let mut values = Vec::with_capacity(args.len());
        for arg in args {
            values.push(self.eval(f, arg)?);
        }
        let mut named: Vec<(String, RunValue)> = Vec::with_capacity(kwargs.len());
        for (name, arg) in kwargs {
            match name.as_str() {
                "*" => {
                    let iterable = self.eval(f, arg)?;
                    values.extend(self.collect(&iterable, arg.at)?);
                }
                "**" => {
                    let mapping = self.eval(f, arg)?;
                    let RunValue::Dict(dict) = &mapping else {
                        let message = format!(
                            "argument after ** must be a mapping, not {}",
                            self.type_name(&mapping)
                        );
                        return Err(self.raise("TypeError", message, arg.at));
                    };
                    for (key, value) in dict.entries.borrow().clone() {
                        let RunValue::Str(key) = key else {
                            return Err(self.raise("TypeError", "keywords must be strings", at));
                        };
                        if named.iter().any(|(k, _)| **k == *key) {
                            let message =
                                format!("got multiple values for keyword argument '{key}'");
                            return Err(self.raise("TypeError", message, at));
                        }
                        named.push((key.to_string(), value));
                    }
                }
                _ => named.push((name.clone(), self.eval(f, arg)?)),
            }
        }
        self.call_value(callee, values, named, at)
    }

    fn eval_unary(
        &mut self,
        f: &mut Frame<'p>,
        op: super::ast::UnOp,
        operand: &'p Expr,
        at: At,
    ) -> R<RunValue> {
        let value = self.eval(f, operand)?;
        self.unary(op, &value, at)
    }

    fn eval_binary(
        &mut self,
        f: &mut Frame<'p>,
        op: super::ast::BinOp,
        left: &'p Expr,
        right: &'p Expr,
        at: At,
    ) -> R<RunValue> {
        let a = self.eval(f, left)?;
        let b = self.eval(f, right)?;
        self.binary(op, &a, &b, at)
    }

    /// `and` (stops at the first false operand) or `or` (at the first true one).
    fn eval_bool(&mut self, f: &mut Frame<'p>, items: &'p [Expr], stop_when: bool) -> R<RunValue> {
        let mut last = RunValue::None;
        for item in items {
            last = self.eval(f, item)?;
            if last.truthy() == stop_when {
                return Ok(last);
            }
        }
        Ok(last)
    }

    fn eval_compare(
        &mut self,
        f: &mut Frame<'p>,
        left: &'p Expr,
        ops: &'p [(super::ast::CmpOp, Expr)],
        at: At,
    ) -> R<RunValue> {
        let mut a = self.eval(f, left)?;
        for (op, right) in ops {
            let b = self.eval(f, right)?;
            if !self.compare(*op, &a, &b, at)? {
                return Ok(RunValue::Bool(false));
            }
            a = b;
        }
        Ok(RunValue::Bool(true))
    }

    fn eval_if_else(
        &mut self,
        f: &mut Frame<'p>,
        test: &'p Expr,
        body: &'p Expr,
        orelse: &'p Expr,
    ) -> R<RunValue> {
        if self.eval(f, test)?.truthy() { self.eval(f, body) } else { self.eval(f, orelse) }
    }

    /// A list (`kind` 0), set (1) or tuple (2) display.
    fn eval_sequence(
        &mut self,
        f: &mut Frame<'p>,
        items: &'p [Expr],
        kind: u8,
        at: At,
    ) -> R<RunValue> {
        let mut values = Vec::with_capacity(items.len());
        for item in items {
            values.push(self.eval(f, item)?);
        }
        match kind {
            2 => Ok(RunValue::tuple(values)),
            1 => {
                let unique = self.unique(values, at)?;
                Ok(self.new_list(unique))
            }
            _ => Ok(self.new_list(values)),
        }
    }

    fn eval_dict(&mut self, f: &mut Frame<'p>, entries: &'p [(Expr, Expr)], at: At) -> R<RunValue> {
        let dict = self.new_dict(Vec::new());
        if let RunValue::Dict(d) = &dict {
            for (key, value) in entries {
                if matches!(&key.kind, ExprKind::Name(n) if n == super::ast::UNPACK) {
                    let mapping = self.eval(f, value)?;
                    let RunValue::Dict(source) = &mapping else {
                        let message =
                            format!("'{}' object is not a mapping", self.type_name(&mapping));
                        return Err(self.raise("TypeError", message, value.at));
                    };
                    let copied = source.entries.borrow().clone();
                    self.charge(copied.len(), at)?;
                    for (k, v) in copied {
                        self.dict_set(d, k, v, at)?;
                    }
                    continue;
                }
                let key = self.eval(f, key)?;
                let value = self.eval(f, value)?;
                self.dict_set(d, key, value, at)?;
            }
        }
        Ok(dict)
    }

    /// Appends the text of f-string parts.
    fn render(&mut self, f: &mut Frame<'p>, parts: &'p [FPart], out: &mut String, at: At) -> R<()> {
        for part in parts {
            match part {
                FPart::Text(text) => out.push_str(text),
                FPart::Field(field) => {
                    let value = self.eval(f, &field.expr)?;
                    let value = match field.conversion {
                        Some('r') => RunValue::str(&self.repr(&value, at)?),
                        Some('s') => RunValue::str(&self.str_of(&value, at)?),
                        Some('a') => RunValue::str(&ascii(&self.repr(&value, at)?)),
                        _ => value,
                    };
                    let mut spec = String::new();
                    if !field.spec.is_empty() {
                        self.descend(at)?;
                        let result = self.render(f, &field.spec, &mut spec, at);
                        self.ascend();
                        result?;
                    }
                    let text = self.format_value(&value, &spec, field.expr.at)?;
                    self.charge(text.len(), at)?;
                    out.push_str(&text);
                }
            }
            if out.len() > 4 * MAX_SIZE {
                return Err(self.memory_error(at));
            }
        }
        Ok(())
    }

    fn comprehension(
        &mut self,
        f: &mut Frame<'p>,
        kind: CompKind,
        elt: &'p Expr,
        value: Option<&'p Expr>,
        clauses: &'p [super::ast::Clause],
        at: At,
    ) -> R<RunValue> {
        let Some(first) = clauses.first() else { return Ok(self.new_list(Vec::new())) };
        // The first iterable is evaluated in the enclosing scope; the loop variables live
        // in the comprehension's own.
        let iterable = self.eval(f, &first.iter)?;
        let mut inner = Frame::new(None, Scope::Comprehension, Some(f.env.clone()));
        let mut sink = Sink { items: Vec::new(), entries: Vec::new(), stop: None, found: None };
        self.comp_loop(&mut inner, clauses, 0, &iterable, (elt, value), &mut sink, at)?;
        let Sink { items, entries, .. } = sink;
        match kind {
            CompKind::Dict => {
                let dict = self.new_dict(Vec::new());
                if let RunValue::Dict(d) = &dict {
                    for (key, value) in entries {
                        self.dict_set(d, key, value, at)?;
                    }
                }
                Ok(dict)
            }
            CompKind::Set => {
                let unique = self.unique(items, at)?;
                Ok(self.new_list(unique))
            }
            CompKind::List | CompKind::Gen => Ok(self.new_list(items)),
        }
    }

    /// `any(…)`, `all(…)` or `next(…)` of a generator expression: its items are made
    /// only until one decides, as CPython's generator makes them on demand.
    #[allow(clippy::too_many_arguments)]
    fn consume_generator(
        &mut self,
        f: &mut Frame<'p>,
        builtin: Builtin,
        generator: &'p Expr,
        (elt, clauses): (&'p Expr, &'p [super::ast::Clause]),
        default: Option<&'p Expr>,
        at: At,
    ) -> R<RunValue> {
        self.step(generator.at)?;
        let Some(first) = clauses.first() else { return Ok(RunValue::None) };
        let iterable = self.eval(f, &first.iter)?;
        let default = match default {
            Some(default) => Some(self.eval(f, default)?),
            None => None,
        };
        let stop = match builtin {
            Builtin::Any => Stop::Truthy(true),
            Builtin::All => Stop::Truthy(false),
            _ => Stop::First,
        };
        let mut inner = Frame::new(None, Scope::Comprehension, Some(f.env.clone()));
        let mut sink =
            Sink { items: Vec::new(), entries: Vec::new(), stop: Some(stop), found: None };
        self.descend(generator.at)?;
        let result =
            self.comp_loop(&mut inner, clauses, 0, &iterable, (elt, None), &mut sink, generator.at);
        self.ascend();
        result?;
        Ok(match (builtin, sink.found) {
            (Builtin::Any, found) => RunValue::Bool(found.is_some()),
            (Builtin::All, found) => RunValue::Bool(found.is_none()),
            (_, Some(item)) => item,
            (_, None) => match default {
                Some(default) => default,
                None => return Err(self.raise_with("StopIteration", Vec::new(), at)),
            },
        })
    }

    /// Runs the clauses of a comprehension from `index`; true when `sink.stop` ended it.
    #[allow(clippy::too_many_arguments)]
    fn comp_loop(
        &mut self,
        f: &mut Frame<'p>,
        clauses: &'p [super::ast::Clause],
        index: usize,
        iterable: &RunValue,
        (elt, value): (&'p Expr, Option<&'p Expr>),
        sink: &mut Sink,
        at: At,
    ) -> R<bool> {
        let Some(clause) = clauses.get(index) else { return Ok(false) };
        let mut iter = self.iter(iterable, clause.iter.at)?;
        'items: while let Some(item) = self.next(&mut iter) {
            self.step(clause.iter.at)?;
            self.assign(f, &clause.target, item, clause.iter.at)?;
            for cond in &clause.conds {
                if !self.eval(f, cond)?.truthy() {
                    continue 'items;
                }
            }
            if let Some(next) = clauses.get(index + 1) {
                let inner = self.eval(f, &next.iter)?;
                self.descend(at)?;
                let result = self.comp_loop(f, clauses, index + 1, &inner, (elt, value), sink, at);
                self.ascend();
                if result? {
                    return Ok(true);
                }
            } else if let Some(value) = value {
                let key = self.eval(f, elt)?;
                let value = self.eval(f, value)?;
                if sink.entries.len() >= MAX_SIZE {
                    return Err(self.memory_error(at));
                }
                sink.entries.push((key, value));
            } else {
                let item = self.eval(f, elt)?;
                match sink.stop {
                    Some(Stop::Truthy(want)) if item.truthy() != want => continue,
                    Some(_) => {
                        sink.found = Some(item);
                        return Ok(true);
                    }
                    None => {}
                }
                if sink.items.len() >= MAX_SIZE {
                    return Err(self.memory_error(at));
                }
                sink.items.push(item);
            }
        }
        Ok(false)
    }

    /// The value of a name: local, then the enclosing scopes of a lambda or a
    /// comprehension, then module level, then builtin.
    fn load(&mut self, f: &Frame<'p>, name: &str, at: At) -> R<RunValue> {
        if let Some(value) = f.get(name) {
            return Ok(value);
        }
        if f.locals.is_some_and(|l| l.contains(name)) {
            return Err(self.unbound_local(name, at));
        }
        // A comprehension is inlined in its scope (Python 3.12): a name the scope around
        // it binds but has not yet bound is an unbound local, not a free variable.
        let mut inlined = matches!(f.env.scope, Scope::Comprehension);
        let mut env = f.env.parent.clone();
        while let Some(scope) = env {
            if let Some(value) = scope.vars.borrow().get(name) {
                return Ok(value.clone());
            }
            if self.binds(&scope.scope, name) {
                if inlined {
                    return Err(self.unbound_local(name, at));
                }
                let message = format!(
                    "cannot access free variable '{name}' where it is not associated with a \
                     value in enclosing scope"
                );
                return Err(self.raise("NameError", message, at));
            }
            inlined &= matches!(scope.scope, Scope::Comprehension);
            env = scope.parent.clone();
        }
        self.global(name, at)
    }

    fn unbound_local(&self, name: &str, at: At) -> Signal {
        let message = format!(
            "cannot access local variable '{name}' where it is not associated with a value"
        );
        self.raise("UnboundLocalError", message, at)
    }

    /// Whether a scope binds `name` (a function's local variable).
    fn binds(&self, scope: &Scope, name: &str) -> bool {
        match scope {
            Scope::Function(i) => {
                self.program.functions.get(*i).is_some_and(|f| f.locals.contains(name))
            }
            _ => false,
        }
    }

    // ----- lambdas -----

    /// `lambda …: …`: its defaults evaluated now, the scope around it kept.
    fn eval_lambda(&mut self, f: &mut Frame<'p>, def: &'p Arc<LambdaDef>) -> R<RunValue> {
        let mut defaults = Vec::new();
        for default in def.params.iter().filter_map(|(_, d)| d.as_ref()) {
            defaults.push(self.eval(f, default)?);
        }
        let qualname = self.qualname(&f.env);
        let env = match f.env.scope {
            Scope::Module => None,
            _ => {
                self.envs.push(Rc::downgrade(&f.env));
                self.prune();
                Some(f.env.clone())
            }
        };
        Ok(RunValue::Lambda(Rc::new(Closure {
            def: def.clone(),
            qualname,
            defaults,
            env,
            file: self.file,
        })))
    }

    /// `__qualname__` of a lambda created in `env`: `f.<locals>.<lambda>`.
    fn qualname(&self, env: &Rc<Env>) -> Rc<str> {
        let mut scope = Some(env.clone());
        while let Some(current) = scope {
            let outer = match &current.scope {
                Scope::Comprehension => {
                    scope = current.parent.clone();
                    continue;
                }
                Scope::Module => break,
                Scope::Function(i) => {
                    self.program.functions.get(*i).map_or("?", |f| f.name.as_str()).to_owned()
                }
                Scope::Lambda(qualname) => qualname.to_string(),
            };
            return Rc::from(format!("{outer}.<locals>.<lambda>").as_str());
        }
        Rc::from("<lambda>")
    }

    /// Calls a lambda: its body evaluated in a scope of its own inside the one it was
    /// created in.
    fn call_lambda(
        &mut self,
        closure: &Closure,
        args: Vec<RunValue>,
        kwargs: Vec<(String, RunValue)>,
        at: At,
    ) -> R<RunValue> {
        let program = self.program;
        let Some(def) = program.lambdas.iter().find(|d| Arc::ptr_eq(d, &closure.def)) else {
            return Err(self.raise("NameError", "lambda not found", at));
        };
        let spec: Vec<(&str, bool)> =
            def.params.iter().map(|(name, default)| (name.as_str(), default.is_some())).collect();
        let slots = self.bind_args(&closure.qualname, &spec, args, kwargs, at)?;
        let scope = Scope::Lambda(closure.qualname.clone());
        let mut frame = Frame::new(None, scope, closure.env.clone());
        let mut defaults = closure.defaults.iter();
        for ((name, default), slot) in def.params.iter().zip(slots) {
            let fallback = if default.is_some() { defaults.next() } else { None };
            frame.set(name.clone(), slot.or_else(|| fallback.cloned()).unwrap_or(RunValue::None));
        }
        if self.calls >= MAX_CALL_DEPTH {
            return Err(self.too_many_calls(at));
        }
        self.calls += 1;
        let result = self.in_file(closure.file, |interp| interp.eval(&mut frame, &def.body));
        self.calls -= 1;
        result
    }

    /// A module-level name: its last binding, or while a module-level assignment is
    /// evaluated, its last binding before that assignment; else a builtin.
    fn global(&mut self, name: &str, at: At) -> R<RunValue> {
        self.unit_global(self.file, name, at)
    }

    /// Module-level `name` of unit `unit`: while the running code is that unit's own
    /// module-level code, its last binding before where that code stands.
    pub(crate) fn unit_global(&mut self, unit: usize, name: &str, at: At) -> R<RunValue> {
        let program = self.program;
        let now = match self.now.last() {
            Some(&(file, position)) if file == unit => position,
            _ => usize::MAX,
        };
        let versions = program
            .units
            .get(unit)
            .and_then(|u| u.globals.get(name))
            .map(Vec::as_slice)
            .unwrap_or_default();
        let mut found = None;
        for (_, global) in versions.iter().rev().filter(|(position, _)| *position < now) {
            if let Some(global) = self.unguarded(global)? {
                found = Some(global);
                break;
            }
        }
        match found {
            Some(Global::Function(i)) => Ok(RunValue::Function(*i)),
            Some(Global::Model(i)) => Ok(RunValue::Model(*i)),
            Some(Global::ToolResult) => Ok(RunValue::ToolResult),
            Some(Global::Client) => Ok(RunValue::Client),
            Some(Global::Module(module)) => Ok(RunValue::Module(*module)),
            Some(Global::Unit(unit)) => Ok(RunValue::Unit(*unit)),
            Some(Global::StdName(module, name)) => self.module_attr(*module, name, at),
            Some(Global::Class(class)) => Ok(RunValue::Class(*class)),
            Some(Global::Builtin(builtin)) => Ok(RunValue::Builtin(*builtin)),
            Some(Global::ExcClass(class)) => Ok(RunValue::ExcClass(Rc::from(class.as_str()))),
            Some(Global::Other(what)) => Ok(RunValue::Foreign(Rc::from(what.as_str()))),
            Some(Global::Value(index)) => self.assigned_value(*index, name, at),
            Some(Global::Guarded(..)) | None if name == "__file__" => {
                Ok(RunValue::str(&format!("/{}", program.units.get(unit).map_or("", |u| &u.path))))
            }
            Some(Global::Guarded(..)) | None if name == "__name__" => {
                let module = program.units.get(unit).map_or("", |u| u.module.as_str());
                Ok(RunValue::str(module.rsplit('/').next().unwrap_or(module)))
            }
            Some(Global::Guarded(..)) | None if unit != self.file => {
                Err(self.module_attribute_error(unit, name, at))
            }
            Some(Global::Guarded(..)) | None => builtin_value(name).ok_or_else(|| {
                self.raise("NameError", format!("name '{name}' is not defined"), at)
            }),
        }
    }

    /// `module.name` for a name the project's module does not bind: its submodule, if
    /// imported, else CPython's `AttributeError`.
    #[cold]
    fn module_attribute_error(&self, unit: usize, name: &str, at: At) -> Signal {
        let module = self.program.units.get(unit).map_or("?", |u| u.module.as_str());
        let message = format!("module '{module}' has no attribute '{name}'");
        self.raise("AttributeError", message, at)
    }

    /// `module.name` on a module of the project: a name it binds, or its submodule.
    pub(crate) fn unit_attribute(&mut self, unit: usize, name: &str, at: At) -> R<RunValue> {
        let program = self.program;
        let binds = program.units.get(unit).is_some_and(|u| u.globals.contains_key(name));
        if !binds {
            let wanted = format!("{}.{name}", program.units.get(unit).map_or("", |u| &u.module));
            if let Some(sub) = program.units.iter().position(|u| u.module == wanted) {
                return Ok(RunValue::Unit(sub));
            }
            return Err(self.module_attribute_error(unit, name, at));
        }
        self.unit_global(unit, name, at)
    }

    /// A binding, if the module-level `if` branches it was made in are those taken.
    fn unguarded(&mut self, global: &'p Global) -> R<Option<&'p Global>> {
        let Global::Guarded(guards, inner) = global else { return Ok(Some(global)) };
        for &(cond, branch) in guards {
            if self.branch_taken(cond)? != branch {
                return Ok(None);
            }
        }
        Ok(Some(inner))
    }

    /// The branch module-level `if` `cond` takes, its tests evaluated on first use.
    fn branch_taken(&mut self, cond: usize) -> R<usize> {
        if let Some(&branch) = self.taken.get(&cond) {
            return Ok(branch);
        }
        let program = self.program;
        let Some(conditional) = program.conditionals.get(cond) else { return Ok(usize::MAX) };
        if self.deciding.contains(&cond) {
            return Ok(usize::MAX);
        }
        self.deciding.push(cond);
        self.now.push((conditional.file, conditional.position));
        let mut result = Ok(conditional.tests.len());
        for (branch, test) in conditional.tests.iter().enumerate() {
            let Some(test) = test else { continue };
            match self.in_file(conditional.file, |i| i.eval(&mut Frame::module(), test)) {
                Ok(value) if value.truthy() => {
                    result = Ok(branch);
                    break;
                }
                Ok(_) => {}
                Err(signal) => {
                    result = Err(signal);
                    break;
                }
            }
        }
        self.now.pop();
        self.deciding.pop();
        let branch = result?;
        self.taken.insert(cond, branch);
        Ok(branch)
    }

    /// The value module-level assignment `index` bound to `name`, evaluating the
    /// assignment on first use.
    fn assigned_value(&mut self, index: usize, name: &str, at: At) -> R<RunValue> {
        let program = self.program;
        let not_defined =
            |interp: &Self| interp.raise("NameError", format!("name '{name}' is not defined"), at);
        if let Some(names) = self.assigned.get(&index) {
            return names.get(name).cloned().ok_or_else(|| not_defined(self));
        }
        let Some(assignment) = program.assignments.get(index) else {
            return Err(not_defined(self));
        };
        let expr = match &assignment.value {
            Ok(expr) => expr,
            Err(diagnostic) => return Err(Signal::Stop(Box::new(diagnostic.clone()))),
        };
        if self.resolving.contains(&index) {
            return Err(not_defined(self));
        }
        self.resolving.push(index);
        self.now.push((assignment.file, assignment.position));
        let mut frame = Frame::module();
        let result = self.in_file(assignment.file, |interp| {
            let value = interp.eval(&mut frame, expr)?;
            for target in &assignment.targets {
                interp.assign(&mut frame, target, value.clone(), expr.at)?;
            }
            Ok(())
        });
        self.resolving.pop();
        self.now.pop();
        result?;
        let names = frame.env.vars.take();
        let value = names.get(name).cloned();
        self.assigned.insert(index, names);
        value.ok_or_else(|| not_defined(self))
    }

    // ----- calls -----

    fn too_many_calls(&self, at: At) -> Signal {
        let message = format!(
            "more than {MAX_CALL_DEPTH} nested calls: a function that calls itself without \
             end, or recursion deeper than Swap Lab runs"
        );
        self.stop(LIMIT, message, at)
    }

    /// Calls a value with arguments, one nested evaluation deeper (a model whose default
    /// factory is itself recurses through here).
    pub(crate) fn call_value(
        &mut self,
        callee: RunValue,
        args: Vec<RunValue>,
        kwargs: Vec<(String, RunValue)>,
        at: At,
    ) -> R<RunValue> {
        self.descend(at)?;
        let result = self.call_callee(callee, args, kwargs, at);
        self.ascend();
        result
    }

    fn call_callee(
        &mut self,
        callee: RunValue,
        args: Vec<RunValue>,
        kwargs: Vec<(String, RunValue)>,
        at: At,
    ) -> R<RunValue> {
        match callee {
            RunValue::Function(index) => self.call_function(index, args, kwargs, at),
            RunValue::Lambda(closure) => self.call_lambda(&closure, args, kwargs, at),
            RunValue::Class(class) => self.instantiate_class(class, args, kwargs, at),
            RunValue::Method(method) => {
                let mut all = Vec::with_capacity(args.len() + 1);
                all.push(method.receiver.clone());
                all.extend(args);
                self.call_value(method.function.clone(), all, kwargs, at)
            }
            RunValue::Model(index) => self.instantiate(index, &args, &kwargs, at),
            RunValue::ToolResult => self.tool_result(args, kwargs, at),
            RunValue::ExcClass(class) => self.new_exception(class, args, kwargs, at),
            RunValue::Generated(generated) => self.call_generated(generated, args, kwargs, at),
            RunValue::Type(ty) => self.call_type(ty, args, kwargs, at),
            RunValue::TemporalClass(kind) => self.construct_temporal(kind, args, kwargs, at),
            RunValue::Builtin(builtin) => self.call_builtin(builtin, args, kwargs, at),
            RunValue::Bound(bound) => self.call_bound(&bound, args, kwargs, at),
            other => Err(self.not_callable(&other, at)),
        }
    }

    fn call_bound(
        &mut self,
        bound: &super::runtime::BoundObj,
        args: Vec<RunValue>,
        kwargs: Vec<(String, RunValue)>,
        at: At,
    ) -> R<RunValue> {
        match &bound.receiver {
            RunValue::Client => self.crm_call(&bound.name, &args, &kwargs, at),
            RunValue::Memory => self.memory_call(&bound.name, args, kwargs, at),
            receiver => self.call_method(receiver, &bound.name, args, kwargs, at),
        }
    }

    #[cold]
    fn not_callable(&self, value: &RunValue, at: At) -> Signal {
        if let RunValue::Foreign(what) = value {
            return self.unsupported(&format!("calling {what}"), at);
        }
        let message = format!("'{}' object is not callable", self.type_name(value));
        self.raise("TypeError", message, at)
    }

    fn crm_call(
        &mut self,
        function: &str,
        args: &[RunValue],
        kwargs: &[(String, RunValue)],
        at: At,
    ) -> R<RunValue> {
        let mut py_args = Vec::with_capacity(args.len());
        for arg in args {
            py_args.push(self.py_of(arg, 0, at)?);
        }
        let mut py_kwargs = Vec::with_capacity(kwargs.len());
        for (name, arg) in kwargs {
            py_kwargs.push((name.clone(), self.py_of(arg, 0, at)?));
        }
        let span = self.span(at);
        match self.host.crm_call(function, &py_args, &py_kwargs, span) {
            Ok(value) => self.run_value_of(&value, 0, at),
            Err(error) => Err(self.raise_host(error, at)),
        }
    }

    fn memory_call(
        &mut self,
        method: &str,
        args: Vec<RunValue>,
        kwargs: Vec<(String, RunValue)>,
        at: At,
    ) -> R<RunValue> {
        let second = if method == "get" { "default" } else { "value" };
        let mut positional = args.into_iter();
        let mut path = positional.next();
        let mut other = positional.next();
        if positional.next().is_some() {
            let message = format!("{method}() takes at most 2 arguments");
            return Err(self.raise("TypeError", message, at));
        }
        for (key, value) in kwargs {
            let slot = match key.as_str() {
                "path" | "name" | "key" => &mut path,
                k if k == second => &mut other,
                _ => {
                    let message = format!("{method}() got an unexpected keyword argument '{key}'");
                    return Err(self.raise("TypeError", message, at));
                }
            };
            if slot.is_some() {
                let message = format!("{method}() got multiple values for argument '{key}'");
                return Err(self.raise("TypeError", message, at));
            }
            *slot = Some(value);
        }
        let path = match path {
            Some(RunValue::Str(path)) => path,
            Some(other) => {
                let message =
                    format!("a memory path must be a str, not {}", self.type_name(&other));
                return Err(self.raise("TypeError", message, at));
            }
            None => {
                let message = format!("{method}() missing 1 required positional argument: 'path'");
                return Err(self.raise("TypeError", message, at));
            }
        };
        let span = self.span(at);
        if method == "get" {
            let default = self.py_of(&other.unwrap_or(RunValue::None), 0, at)?;
            let value = self.host.memory_get(&path, default, span);
            return self.run_value_of(&value, 0, at);
        }
        let Some(value) = other else {
            let message = "set() missing 1 required positional argument: 'value'";
            return Err(self.raise("TypeError", message, at));
        };
        let value = self.py_of(&value, 0, at)?;
        match self.host.memory_set(&path, value, span) {
            Ok(()) => Ok(RunValue::None),
            Err(error) => Err(self.raise_host(error, at)),
        }
    }

    /// `Model(field=…)`: pydantic's validation of presence and extra keys.
    fn instantiate(
        &mut self,
        index: usize,
        args: &[RunValue],
        kwargs: &[(String, RunValue)],
        at: At,
    ) -> R<RunValue> {
        let program = self.program;
        let Some(model) = program.models.get(index) else {
            return Err(self.raise("NameError", "model not found", at));
        };
        if !args.is_empty() {
            let message = format!(
                "BaseModel.__init__() takes 1 positional argument but {} were given",
                args.len() + 1
            );
            return Err(self.raise("TypeError", message, at));
        }
        let mut fields: Vec<(Rc<str>, RunValue)> = Vec::new();
        let mut errors = Vec::new();
        for field in &model.fields {
            if let Some((_, value)) = kwargs.iter().find(|(k, _)| *k == field.name) {
                fields.push((Rc::from(field.name.as_str()), value.clone()));
                continue;
            }
            let value = match &field.default {
                super::ast::FieldDefault::Required => {
                    let input = self.kwargs_repr(kwargs, at)?;
                    errors.push(format!(
                        "{}\n  Field required [type=missing, input_value={input}, input_type=dict]",
                        field.name
                    ));
                    continue;
                }
                super::ast::FieldDefault::Value(expr) => {
                    self.in_file(model.file, |i| i.eval(&mut Frame::module(), expr))?
                }
                super::ast::FieldDefault::Factory(expr) => self.in_file(model.file, |i| {
                    let factory = i.eval(&mut Frame::module(), expr)?;
                    i.call_value(factory, Vec::new(), Vec::new(), expr.at)
                })?,
                super::ast::FieldDefault::Unsupported(diagnostic) => {
                    return Err(Signal::Stop(diagnostic.clone()));
                }
            };
            fields.push((Rc::from(field.name.as_str()), value));
        }
        for (key, value) in kwargs {
            if model.fields.iter().any(|f| f.name == *key) {
                continue;
            }
            match model.extra {
                Extra::Allow => fields.push((Rc::from(key.as_str()), value.clone())),
                Extra::Ignore => {}
                Extra::Forbid => {
                    let input = self.repr(value, at)?;
                    let input_type = self.type_name(value);
                    errors.push(format!(
                        "{key}\n  Extra inputs are not permitted [type=extra_forbidden, \
                         input_value={input}, input_type={input_type}]"
                    ));
                }
            }
        }
        if !errors.is_empty() {
            let message = format!(
                "{} validation error{} for {}\n{}",
                errors.len(),
                plural(errors.len()),
                model.name,
                errors.join("\n")
            );
            return Err(self.raise("ValidationError", message, at));
        }
        let object = ObjectObj { class: Rc::from(model.name.as_str()), model: Some(index), fields };
        Ok(RunValue::Object(Rc::new(object)))
    }

    fn kwargs_repr(&mut self, kwargs: &[(String, RunValue)], at: At) -> R<String> {
        let mut out = String::from("{");
        for (i, (key, value)) in kwargs.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            super::value::repr_str(key, &mut out);
            out.push_str(": ");
            out.push_str(&self.repr(value, at)?);
        }
        out.push('}');
        Ok(out)
    }

    /// Rasa's `ToolResult(llm_response=…, …)`.
    fn tool_result(
        &mut self,
        args: Vec<RunValue>,
        kwargs: Vec<(String, RunValue)>,
        at: At,
    ) -> R<RunValue> {
        if args.len() > 1 {
            let message = "ToolResult() takes at most 1 positional argument";
            return Err(self.raise("TypeError", message, at));
        }
        let mut fields: Vec<(Rc<str>, RunValue)> =
            args.into_iter().map(|a| (Rc::from("llm_response"), a)).collect();
        for (key, value) in kwargs {
            if fields.iter().any(|(k, _)| **k == *key) {
                let message = format!("ToolResult() got multiple values for argument '{key}'");
                return Err(self.raise("TypeError", message, at));
            }
            fields.push((Rc::from(key.as_str()), value));
        }
        let object = ObjectObj { class: Rc::from("ToolResult"), model: None, fields };
        Ok(RunValue::Object(Rc::new(object)))
    }

    // ----- the boundary -----

    /// A value from outside, made live for the run (containers get fresh `Rc`s).
    pub(crate) fn run_value_of(&mut self, value: &PyValue, depth: usize, at: At) -> R<RunValue> {
        if depth > MAX_VALUE_DEPTH {
            return Err(self.too_deep_to_cross(at));
        }
        self.charge(1, at)?;
        Ok(match value {
            PyValue::None => RunValue::None,
            PyValue::Bool(b) => RunValue::Bool(*b),
            PyValue::Int(n) => RunValue::Int(*n),
            PyValue::Float(x) => RunValue::Float(*x),
            PyValue::Str(s) => RunValue::str(s),
            PyValue::List(items) | PyValue::Tuple(items) => {
                let mut values = Vec::with_capacity(items.len());
                for item in items {
                    values.push(self.run_value_of(item, depth + 1, at)?);
                }
                if matches!(value, PyValue::Tuple(_)) {
                    RunValue::tuple(values)
                } else {
                    self.new_list(values)
                }
            }
            PyValue::Dict(entries) => {
                let mut values = Vec::with_capacity(entries.len());
                for (key, item) in entries {
                    values.push((
                        self.run_value_of(key, depth + 1, at)?,
                        self.run_value_of(item, depth + 1, at)?,
                    ));
                }
                self.new_dict(values)
            }
            PyValue::Object { class, fields } => {
                let mut values = Vec::with_capacity(fields.len());
                for (name, item) in fields {
                    values.push((Rc::from(name.as_str()), self.run_value_of(item, depth + 1, at)?));
                }
                let model = self.program.models.iter().rposition(|m| m.name == *class);
                let model = model.filter(|_| class != "ToolResult");
                RunValue::Object(Rc::new(ObjectObj {
                    class: Rc::from(class.as_str()),
                    model,
                    fields: values,
                }))
            }
            PyValue::Context => RunValue::Context,
            PyValue::Opaque { str, .. } => RunValue::str(str),
        })
    }

    fn too_deep_to_cross(&self, at: At) -> Signal {
        let message = format!(
            "a value nested more than {MAX_VALUE_DEPTH} levels deep (or containing itself) \
             cannot cross between the tool and the simulation"
        );
        self.stop(LIMIT, message, at)
    }

    /// A value for outside: a plain-data copy of a live one.
    pub(crate) fn py_of(&mut self, value: &RunValue, depth: usize, at: At) -> R<PyValue> {
        if depth > MAX_VALUE_DEPTH {
            return Err(self.too_deep_to_cross(at));
        }
        self.charge(1, at)?;
        Ok(match value {
            RunValue::None => PyValue::None,
            RunValue::Bool(b) => PyValue::Bool(*b),
            RunValue::Int(n) => PyValue::Int(*n),
            RunValue::Float(x) => PyValue::Float(*x),
            RunValue::Str(s) => PyValue::Str(s.to_string()),
            RunValue::List(list) => {
                let items = list.items.borrow();
                let mut out = Vec::with_capacity(items.len());
                for item in items.iter() {
                    out.push(self.py_of(item, depth + 1, at)?);
                }
                PyValue::List(out)
            }
            RunValue::Tuple(tuple) => {
                let mut out = Vec::with_capacity(tuple.items.len());
                for item in &tuple.items {
                    out.push(self.py_of(item, depth + 1, at)?);
                }
                PyValue::Tuple(out)
            }
            RunValue::Dict(dict) => {
                let entries = dict.entries.borrow();
                let mut out = Vec::with_capacity(entries.len());
                for (key, item) in entries.iter() {
                    out.push((self.py_of(key, depth + 1, at)?, self.py_of(item, depth + 1, at)?));
                }
                PyValue::Dict(out)
            }
            RunValue::Object(object) => {
                let mut fields = Vec::with_capacity(object.fields.len());
                for (name, item) in &object.fields {
                    fields.push((name.to_string(), self.py_of(item, depth + 1, at)?));
                }
                PyValue::Object { class: object.class.to_string(), fields }
            }
            RunValue::Context => PyValue::Context,
            other => PyValue::Opaque {
                // `type(x).__name__`: `datetime`, not the C type's `datetime.datetime`.
                type_name: match other {
                    RunValue::Temporal(t) => t.kind().name().to_owned(),
                    _ => self.type_name(other),
                },
                repr: self.repr(other, at)?,
                str: self.str_of(other, at)?,
            },
        })
    }
}

/// Where a comprehension's items go.
struct Sink {
    items: Vec<RunValue>,
    entries: Vec<(RunValue, RunValue)>,
    /// Stop at the first item that decides (`any`, `all`, `next`), keeping it in `found`.
    stop: Option<Stop>,
    found: Option<RunValue>,
}

/// Which item ends a generator consumed by `any`, `all` or `next`.
#[derive(Clone, Copy)]
enum Stop {
    /// The first whose truth is this.
    Truthy(bool),
    /// The first.
    First,
}

/// The value of a literal.
fn constant(c: &Const) -> RunValue {
    match c {
        Const::None => RunValue::None,
        Const::Bool(b) => RunValue::Bool(*b),
        Const::Int(n) => RunValue::Int(*n),
        Const::Float(x) => RunValue::Float(*x),
        Const::Str(s) => RunValue::str(s),
        Const::Bytes(b) => RunValue::Bytes(Rc::from(b.as_slice())),
    }
}

/// `f() missing 2 required positional arguments: 'a' and 'b'`.
fn missing_message(function: &str, missing: &[&str]) -> String {
    let quoted: Vec<String> = missing.iter().map(|m| format!("'{m}'")).collect();
    let list = match quoted.as_slice() {
        [one] => one.clone(),
        [init @ .., last] if init.len() == 1 => format!("{} and {last}", init.join(", ")),
        [init @ .., last] => format!("{}, and {last}", init.join(", ")),
        [] => String::new(),
    };
    format!(
        "{function}() missing {} required positional argument{}: {list}",
        missing.len(),
        plural(missing.len())
    )
}

/// `"s"` for counts other than one.
pub(crate) fn plural(count: usize) -> &'static str {
    if count == 1 { "" } else { "s" }
}

/// Python's `ascii()` of a repr: non-ASCII characters escaped.
fn ascii(repr: &str) -> String {
    let mut out = String::with_capacity(repr.len());
    for c in repr.chars() {
        if c.is_ascii() {
            out.push(c);
        } else {
            super::value::escape_char(c, &mut out);
        }
    }
    out
}
