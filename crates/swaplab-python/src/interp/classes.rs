//! Plain classes of the file: instances with their own attributes, class attributes
//! (the class body's assignments, evaluated in order on first use in a run), methods
//! bound to the instance they are looked up on, single inheritance and `super()`.
//!
//! A class chain is as long as the file's classes at most (a base is always defined
//! before), so walking it is bounded; instances are emptied when the run ends, so
//! reference cycles through their attributes do not outlive it.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

use super::ast::At;
use super::eval::{Frame, Interp, R, Signal};
use super::runtime::{InstanceObj, MethodObj, Scope, Val};

/// What a name is on a class.
pub(crate) enum Member {
    /// A method: the function's index.
    Method(usize),
    /// A class attribute.
    Value(Val),
}

impl<'p> Interp<'p, '_> {
    /// Evaluates the class attributes of `class` once in this run.
    fn class_namespace(&mut self, class: usize) -> R<()> {
        if self.class_attrs.contains_key(&class) || self.defining.contains(&class) {
            return Ok(());
        }
        let program = self.program;
        let Some(def) = program.classes.get(class) else { return Ok(()) };
        self.defining.push(class);
        let mut frame = Frame::module();
        let before = std::mem::replace(&mut self.file, def.file);
        let mut result = Ok(());
        for assignment in &def.attrs {
            let expr = match &assignment.value {
                Ok(expr) => expr,
                Err(diagnostic) => {
                    result = Err(Signal::Stop(Box::new(diagnostic.clone())));
                    break;
                }
            };
            self.now.push((assignment.file, assignment.position));
            let step = self.eval(&mut frame, expr).and_then(|value| {
                for target in &assignment.targets {
                    self.assign(&mut frame, target, value.clone(), expr.at)?;
                }
                Ok(())
            });
            self.now.pop();
            if let Err(signal) = step {
                result = Err(signal);
                break;
            }
        }
        self.file = before;
        self.defining.pop();
        result?;
        let names = frame.env.vars.take();
        self.class_attrs.insert(class, names);
        Ok(())
    }

    /// `name` along the chain of classes from `class`: what it is and where.
    pub(crate) fn class_lookup(&mut self, class: usize, name: &str) -> R<Option<Member>> {
        let program = self.program;
        let mut current = Some(class);
        while let Some(c) = current {
            self.class_namespace(c)?;
            if let Some(value) = self.class_attrs.get(&c).and_then(|attrs| attrs.get(name)) {
                return Ok(Some(Member::Value(value.clone())));
            }
            let Some(def) = program.classes.get(c) else { break };
            if let Some((_, function)) = def.methods.iter().find(|(m, _)| m == name) {
                return Ok(Some(Member::Method(*function)));
            }
            current = def.base;
        }
        Ok(None)
    }

    /// A member as seen through `receiver`: functions become bound methods.
    pub(crate) fn bind_member(member: Member, receiver: &Val) -> Val {
        match member {
            Member::Method(function) => Val::Method(Rc::new(MethodObj {
                receiver: receiver.clone(),
                function: Val::Function(function),
            })),
            Member::Value(value @ (Val::Function(_) | Val::Lambda(_))) => {
                Val::Method(Rc::new(MethodObj { receiver: receiver.clone(), function: value }))
            }
            Member::Value(value) => value,
        }
    }

    /// The name of class `class`.
    pub(crate) fn class_name(&self, class: usize) -> &'p str {
        self.program.classes.get(class).map_or("?", |c| c.name.as_str())
    }

    /// Whether class `class` derives from `http.server.BaseHTTPRequestHandler`.
    pub(crate) fn is_handler(&self, class: usize) -> bool {
        let mut current = Some(class);
        while let Some(c) = current {
            let Some(def) = self.program.classes.get(c) else { return false };
            if def.handler {
                return true;
            }
            current = def.base;
        }
        false
    }

    /// Whether class `class` is `base` or derives from it.
    pub(crate) fn class_derives(&self, class: usize, base: usize) -> bool {
        let mut current = Some(class);
        while let Some(c) = current {
            if c == base {
                return true;
            }
            current = self.program.classes.get(c).and_then(|def| def.base);
        }
        false
    }

    /// `C(…)`: a new instance, `__init__` run on it.
    pub(crate) fn instantiate_class(
        &mut self,
        class: usize,
        args: Vec<Val>,
        kwargs: Vec<(String, Val)>,
        at: At,
    ) -> R<Val> {
        let instance = Rc::new(InstanceObj { class, attrs: RefCell::default() });
        self.instances.push(Rc::downgrade(&instance));
        let value = Val::Instance(instance);
        match self.class_lookup(class, "__init__")? {
            Some(init) => {
                let init = Self::bind_member(init, &value);
                let returned = self.call_value(init, args, kwargs, at)?;
                if !matches!(returned, Val::None) {
                    let message = format!(
                        "__init__() should return None, not '{}'",
                        self.type_name(&returned)
                    );
                    return Err(self.raise("TypeError", message, at));
                }
            }
            None if !args.is_empty() || !kwargs.is_empty() => {
                let message = format!("{}() takes no arguments", self.class_name(class));
                return Err(self.raise("TypeError", message, at));
            }
            None => {}
        }
        Ok(value)
    }

    /// `instance.name`: its own attribute, else the class chain's (methods bound).
    pub(crate) fn instance_attr(&mut self, value: &Val, name: &str, at: At) -> R<Val> {
        let Val::Instance(instance) = value else { return Ok(Val::None) };
        let own =
            instance.attrs.borrow().iter().find(|(k, _)| &**k == name).map(|(_, v)| v.clone());
        if let Some(own) = own {
            return Ok(own);
        }
        if name == "__class__" {
            return Ok(Val::Class(instance.class));
        }
        match self.class_lookup(instance.class, name)? {
            Some(member) => Ok(Self::bind_member(member, value)),
            None if self.is_handler(instance.class) && HANDLER_METHODS.contains(&name) => {
                Ok(Val::bound(value.clone(), name))
            }
            None => Err(self.no_attribute(
                format!("'{}' object has no attribute '{name}'", self.class_name(instance.class)),
                name,
                at,
            )),
        }
    }

    /// `C.name`: the class chain's attribute, a method as a plain function.
    pub(crate) fn class_attr(&mut self, class: usize, name: &str, at: At) -> R<Val> {
        match name {
            "__name__" | "__qualname__" => return Ok(Val::str(self.class_name(class))),
            _ => {}
        }
        match self.class_lookup(class, name)? {
            Some(Member::Method(function)) => Ok(Val::Function(function)),
            Some(Member::Value(value)) => Ok(value),
            None => Err(self.no_attribute(
                format!("type object '{}' has no attribute '{name}'", self.class_name(class)),
                name,
                at,
            )),
        }
    }

    /// `super().name`: the chain after the class `super()` was made in.
    pub(crate) fn super_attr(&mut self, method: &MethodObj, name: &str, at: At) -> R<Val> {
        let Val::Class(class) = method.function else { return Ok(Val::None) };
        let base = self.program.classes.get(class).and_then(|def| def.base);
        let found = match base {
            Some(base) => self.class_lookup(base, name)?,
            None => None,
        };
        match found {
            Some(member) => Ok(Self::bind_member(member, &method.receiver)),
            None => Err(self.no_attribute(
                format!("'super' object has no attribute '{name}'"),
                name,
                at,
            )),
        }
    }

    /// `AttributeError`, or outside the subset for a special name `object` would have.
    fn no_attribute(&self, message: String, name: &str, at: At) -> Signal {
        if name.starts_with("__") && name.ends_with("__") {
            return self.unsupported(&format!("the special attribute `{name}`"), at);
        }
        self.raise("AttributeError", message, at)
    }

    /// `object.name = value`.
    pub(crate) fn set_attr(&mut self, object: &Val, name: &str, value: Val, at: At) -> R<()> {
        match object {
            Val::Instance(instance) => {
                let mut attrs = instance.attrs.borrow_mut();
                match attrs.iter_mut().find(|(k, _)| &**k == name) {
                    Some(slot) => {
                        let old = std::mem::replace(&mut slot.1, value);
                        drop(attrs);
                        drop(old);
                    }
                    None => attrs.push((Rc::from(name), value)),
                }
                Ok(())
            }
            Val::Class(class) => {
                self.class_namespace(*class)?;
                let old =
                    self.class_attrs.entry(*class).or_default().insert(name.to_owned(), value);
                drop(old);
                Ok(())
            }
            other => Err(self.cannot_set(other, name, at)),
        }
    }

    /// `del object.name`.
    pub(crate) fn del_attr(&mut self, object: &Val, name: &str, at: At) -> R<()> {
        match object {
            Val::Instance(instance) => {
                let mut attrs = instance.attrs.borrow_mut();
                let Some(i) = attrs.iter().position(|(k, _)| &**k == name) else {
                    drop(attrs);
                    let class = self.class_name(instance.class);
                    let message = format!("'{class}' object has no attribute '{name}'");
                    return Err(self.raise("AttributeError", message, at));
                };
                let removed = attrs.remove(i);
                drop(attrs);
                drop(removed);
                Ok(())
            }
            Val::Class(class) => {
                self.class_namespace(*class)?;
                match self.class_attrs.get_mut(class).and_then(|attrs| attrs.remove(name)) {
                    Some(_) => Ok(()),
                    None => {
                        let message = format!(
                            "type object '{}' has no attribute '{name}'",
                            self.class_name(*class)
                        );
                        Err(self.raise("AttributeError", message, at))
                    }
                }
            }
            other => Err(self.cannot_set(other, name, at)),
        }
    }

    fn cannot_set(&self, object: &Val, name: &str, at: At) -> Signal {
        match object {
            Val::None
            | Val::Bool(_)
            | Val::Int(_)
            | Val::Float(_)
            | Val::Str(_)
            | Val::Bytes(_)
            | Val::List(_)
            | Val::Tuple(_)
            | Val::Dict(_)
            | Val::Range(..) => {
                let message =
                    format!("'{}' object has no attribute '{name}'", self.type_name(object));
                self.raise("AttributeError", message, at)
            }
            Val::Foreign(what) => self.unsupported(&format!("{what} (`.{name} = …`)"), at),
            other => {
                let what = format!("assigning to an attribute of a `{}`", self.type_name(other));
                self.unsupported(&what, at)
            }
        }
    }

    /// `super()` in a method: the class the method is defined in and its first argument.
    pub(crate) fn zero_arg_super(&mut self, f: &Frame<'p>, at: At) -> R<Val> {
        let program = self.program;
        let mut env = Some(f.env.clone());
        while let Some(scope) = env {
            match scope.scope {
                Scope::Comprehension => env = scope.parent.clone(),
                Scope::Function(i) => {
                    let Some(function) = program.functions.get(i) else { break };
                    let Some(class) = function.class else { break };
                    let receiver = function
                        .params
                        .first()
                        .and_then(|p| scope.vars.borrow().get(&p.name).cloned());
                    let Some(receiver) = receiver else {
                        return Err(self.raise("RuntimeError", "super(): arg[0] deleted", at));
                    };
                    return Ok(Val::Super(Rc::new(MethodObj {
                        receiver,
                        function: Val::Class(class),
                    })));
                }
                _ => break,
            }
        }
        Err(self.raise("RuntimeError", "super(): no arguments", at))
    }

    /// A special method (`__enter__`, `__repr__`…) of `value`'s class, bound to it.
    pub(crate) fn special_method(&mut self, value: &Val, name: &str) -> R<Option<Val>> {
        if let Val::Native(_) = value {
            let managed = ["__enter__", "__exit__", "__aenter__", "__aexit__"];
            return Ok(managed.contains(&name).then(|| Val::bound(value.clone(), name)));
        }
        let Val::Instance(instance) = value else { return Ok(None) };
        Ok(self.class_lookup(instance.class, name)?.map(|m| Self::bind_member(m, value)))
    }

    /// `str()` or `repr()` of an instance through its `__str__`/`__repr__`, if it has one.
    pub(crate) fn instance_text(&mut self, value: &Val, method: &str, at: At) -> R<Option<String>> {
        let Some(function) = self.special_method(value, method)? else { return Ok(None) };
        match self.call_value(function, Vec::new(), Vec::new(), at)? {
            Val::Str(text) => Ok(Some(text.to_string())),
            other => {
                let message =
                    format!("{method} returned non-string (type {})", self.type_name(&other));
                Err(self.raise("TypeError", message, at))
            }
        }
    }
}

/// The methods `BaseHTTPRequestHandler` gives a handler class of the project.
const HANDLER_METHODS: [&str; 9] = [
    "send_response",
    "send_response_only",
    "send_header",
    "end_headers",
    "send_error",
    "log_message",
    "log_request",
    "log_error",
    "address_string",
];

/// The special methods a plain class may define; any other makes the class outside
/// the subset (its behaviour would otherwise be silently missing).
pub(crate) const SPECIAL_METHODS: [&str; 7] =
    ["__init__", "__str__", "__repr__", "__enter__", "__exit__", "__aenter__", "__aexit__"];

/// Class attributes of the classes used in a run, by class.
pub(crate) type ClassAttrs = BTreeMap<usize, BTreeMap<String, Val>>;
