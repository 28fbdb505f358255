//! Plain classes of the file: instances with their own attributes, class attributes
//! (the class body's assignments, evaluated in order on first use in a run), methods
//! bound to the instance they are looked up on, `@property`, `@staticmethod` and
//! `@classmethod`, single inheritance and `super()`; `@dataclass` (its fields, generated
//! `__init__`, `__repr__` and `__eq__`, `frozen=True`); and exception classes with a body
//! of their own, whose instances are exceptions.
//!
//! A class chain is as long as the file's classes at most (a base is always defined
//! before), so walking it is bounded; instances are emptied when the run ends, so
//! reference cycles through their attributes do not outlive it.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

use super::ast::{At, ClassMember};
use super::eval::{Frame, Interp, R, Signal};
use super::runtime::{ExcObj, Generated, GeneratedKind, InstanceObj, MethodObj, RunValue, Scope};

/// What a name is on a class.
pub(crate) enum Member {
    /// A function of the class body, and how it binds.
    Function(ClassMember),
    /// A method `@dataclass` generated.
    Generated(Generated),
    /// A class attribute.
    Value(RunValue),
}

/// What `@dataclass` made of a class when it was created: its fields, inherited ones
/// first.
pub(crate) struct DataInfo {
    pub(crate) frozen: bool,
    pub(crate) fields: Vec<FieldInfo>,
}

/// One field of a dataclass.
pub(crate) struct FieldInfo {
    pub(crate) name: Rc<str>,
    /// Its default, as the class attribute was when the class was created.
    pub(crate) default: Option<RunValue>,
    /// `field(default_factory=…)`, evaluated when the class was created.
    pub(crate) factory: Option<RunValue>,
    pub(crate) repr: bool,
    pub(crate) compare: bool,
}

impl FieldInfo {
    fn copy(&self) -> FieldInfo {
        FieldInfo {
            name: self.name.clone(),
            default: self.default.clone(),
            factory: self.factory.clone(),
            repr: self.repr,
            compare: self.compare,
        }
    }
}

impl<'p> Interp<'p, '_> {
    /// Creates `class` and the classes it derives from, once in this run: evaluates
    /// their class attributes and what `@dataclass` makes of them.
    pub(crate) fn class_namespace(&mut self, class: usize) -> R<()> {
        if self.class_attrs.contains_key(&class) {
            return Ok(());
        }
        let mut chain = Vec::new();
        let mut current = Some(class);
        while let Some(c) = current.filter(|c| !self.class_attrs.contains_key(c)) {
            chain.push(c);
            current = self.program.classes.get(c).and_then(|def| def.base);
        }
        for c in chain.into_iter().rev() {
            self.create_class(c)?;
        }
        Ok(())
    }

    /// Evaluates the body of class `class`, whose bases are created.
    fn create_class(&mut self, class: usize) -> R<()> {
        if self.class_attrs.contains_key(&class) || self.defining.contains(&class) {
            return Ok(());
        }
        let program = self.program;
        let Some(def) = program.classes.get(class) else { return Ok(()) };
        self.defining.push(class);
        let mut frame = Frame::module();
        let before = std::mem::replace(&mut self.file, def.file);
        let mut factories: Vec<(usize, RunValue)> = Vec::new();
        let pending: &[(usize, usize, super::ast::Expr)] =
            def.dataclass.as_ref().map_or(&[], |d| &d.factories);
        let mut result = Ok(());
        let position = def.dataclass.as_ref().map_or(0, |d| d.position);
        for (i, assignment) in def.attrs.iter().enumerate() {
            for (_, field, expr) in pending.iter().filter(|(b, _, _)| *b == i) {
                self.now.push((def.file, position));
                let factory = self.eval(&mut frame, expr);
                self.now.pop();
                match factory {
                    Ok(factory) => factories.push((*field, factory)),
                    Err(signal) => {
                        result = Err(signal);
                        break;
                    }
                }
            }
            if result.is_err() {
                break;
            }
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
        if result.is_ok() {
            for (_, field, expr) in pending.iter().filter(|(b, _, _)| *b >= def.attrs.len()) {
                self.now.push((def.file, position));
                let factory = self.eval(&mut frame, expr);
                self.now.pop();
                match factory {
                    Ok(factory) => factories.push((*field, factory)),
                    Err(signal) => {
                        result = Err(signal);
                        break;
                    }
                }
            }
        }
        if result.is_ok() && def.dataclass.is_some() {
            result = self.make_dataclass(class, &frame, factories);
        }
        self.file = before;
        self.defining.pop();
        result?;
        let names = frame.env.vars.take();
        self.class_attrs.insert(class, names);
        Ok(())
    }

    /// What `@dataclass` does to class `class` once its body ran (its names in
    /// `frame`): the fields, inherited ones first, with their defaults; CPython's
    /// errors for a mutable default, a field without a default after one with, and a
    /// frozen class mixed with a non-frozen one.
    fn make_dataclass(
        &mut self,
        class: usize,
        frame: &Frame<'p>,
        factories: Vec<(usize, RunValue)>,
    ) -> R<()> {
        let program = self.program;
        let Some(def) = program.classes.get(class) else { return Ok(()) };
        let Some(dataclass) = &def.dataclass else { return Ok(()) };
        let at = dataclass.at;
        let inherited = self.nearest_dataclass(def.base).and_then(|b| self.dataclasses.get(&b));
        let mut fields: Vec<FieldInfo> = Vec::new();
        if let Some(base) = inherited {
            if base.frozen && !dataclass.frozen {
                let message = "cannot inherit non-frozen dataclass from a frozen one";
                return Err(self.raise("TypeError", message, at));
            }
            if !base.frozen && dataclass.frozen {
                let message = "cannot inherit frozen dataclass from a non-frozen one";
                return Err(self.raise("TypeError", message, at));
            }
            fields.extend(base.fields.iter().map(FieldInfo::copy));
        }
        let mut factories = factories.into_iter();
        for (i, field) in dataclass.fields.iter().enumerate() {
            let own = frame.env.vars.borrow().get(&field.name).cloned();
            let default = match own {
                Some(value) if field.class_default => Some(value),
                _ if field.class_default => self.inherited_default(def, &field.name, at)?,
                _ => None,
            };
            let factory = if field.factory {
                factories.find(|(f, _)| *f == i).map(|(_, factory)| factory)
            } else {
                None
            };
            if let Some(value) = &default
                && self.unhashable_default(value)
            {
                let message = format!(
                    "mutable default <class '{}'> for field {} is not allowed: use default_factory",
                    self.type_name(value),
                    field.name
                );
                return Err(self.raise("ValueError", message, at));
            }
            let info = FieldInfo {
                name: Rc::from(field.name.as_str()),
                default,
                factory,
                repr: field.repr,
                compare: field.compare,
            };
            match fields.iter_mut().find(|f| *f.name == *field.name) {
                Some(slot) => *slot = info,
                None => fields.push(info),
            }
        }
        let mut seen_default = false;
        for field in &fields {
            if field.default.is_some() || field.factory.is_some() {
                seen_default = true;
            } else if seen_default {
                let message =
                    format!("non-default argument '{}' follows default argument", field.name);
                return Err(self.raise("TypeError", message, at));
            }
        }
        let info = DataInfo { frozen: dataclass.frozen, fields };
        self.dataclasses.insert(class, Rc::new(info));
        Ok(())
    }

    /// The default of a field the class body only annotates: a base's class attribute of
    /// its name, as `getattr(cls, name)` finds it; a method of that name is outside the
    /// subset.
    fn inherited_default(
        &mut self,
        def: &super::ast::ClassDef,
        name: &str,
        at: At,
    ) -> R<Option<RunValue>> {
        if !def.methods.iter().any(|(m, _)| m == name) {
            let Some(base) = def.base else { return Ok(None) };
            match self.class_lookup(base, name)? {
                None => return Ok(None),
                Some(Member::Value(value)) => return Ok(Some(value)),
                Some(_) => {}
            }
        }
        let what = format!("a dataclass field `{name}` whose default is a method");
        Err(self.unsupported(&what, at))
    }

    /// Whether a dataclass default is one CPython refuses: a value whose class sets
    /// `__hash__` to `None` (`list`, `dict`, `set`, a non-frozen dataclass).
    fn unhashable_default(&self, value: &RunValue) -> bool {
        match value {
            RunValue::List(_) | RunValue::Dict(_) => true,
            RunValue::Instance(instance) => self.instance_hash(instance.class) == Hash::None,
            _ => false,
        }
    }

    /// The first class from `class` along its chain that is a dataclass.
    pub(crate) fn nearest_dataclass(&self, class: Option<usize>) -> Option<usize> {
        let mut current = class;
        while let Some(c) = current {
            let def = self.program.classes.get(c)?;
            if def.dataclass.is_some() {
                return Some(c);
            }
            current = def.base;
        }
        None
    }

    /// How instances of `class` hash: by identity, by their fields (a frozen
    /// dataclass), or not at all (a dataclass that compares by fields).
    pub(crate) fn instance_hash(&self, class: usize) -> Hash {
        match self.nearest_dataclass(Some(class)) {
            None => Hash::Identity,
            Some(c) => match self.program.classes.get(c).and_then(|d| d.dataclass.as_ref()) {
                Some(d) if d.frozen => Hash::Fields(c),
                _ => Hash::None,
            },
        }
    }

    /// `name` along the chain of classes from `class`: what it is and where.
    pub(crate) fn class_lookup(&mut self, class: usize, name: &str) -> R<Option<Member>> {
        let program = self.program;
        self.class_namespace(class)?;
        let mut current = Some(class);
        while let Some(c) = current {
            if let Some(value) = self.class_attrs.get(&c).and_then(|attrs| attrs.get(name)) {
                return Ok(Some(Member::Value(value.clone())));
            }
            let Some(def) = program.classes.get(c) else { break };
            if let Some((_, member)) = def.methods.iter().find(|(m, _)| m == name) {
                return Ok(Some(Member::Function(*member)));
            }
            if def.dataclass.is_some() {
                let kind = match name {
                    "__init__" => Some(GeneratedKind::Init),
                    "__repr__" => Some(GeneratedKind::Repr),
                    "__eq__" => Some(GeneratedKind::Eq),
                    _ => None,
                };
                if let Some(kind) = kind {
                    return Ok(Some(Member::Generated(Generated { class: c, kind })));
                }
            }
            current = def.base;
        }
        Ok(None)
    }

    /// A member as seen through `receiver` (an instance, an exception, or a class):
    /// through an instance, methods are bound to it and a property's getter runs;
    /// through a class, a method is the plain function. A class method is bound to the
    /// receiver's class either way.
    pub(crate) fn member_value(
        &mut self,
        member: Member,
        receiver: &RunValue,
        at: At,
    ) -> R<RunValue> {
        let (cls, through_class) = match receiver {
            RunValue::Instance(instance) => (RunValue::Class(instance.class), false),
            RunValue::Exc(exc) => (RunValue::ExcClass(exc.class.clone()), false),
            RunValue::Class(_) | RunValue::ExcClass(_) => (receiver.clone(), true),
            _ => (RunValue::None, false),
        };
        let bind = |function: RunValue, receiver: &RunValue| {
            RunValue::Method(Rc::new(MethodObj { receiver: receiver.clone(), function }))
        };
        Ok(match member {
            Member::Function(ClassMember::Method(function)) if through_class => {
                RunValue::Function(function)
            }
            Member::Function(ClassMember::Method(function)) => {
                bind(RunValue::Function(function), receiver)
            }
            Member::Function(ClassMember::Static(function)) => RunValue::Function(function),
            Member::Function(ClassMember::ClassMethod(function)) => {
                bind(RunValue::Function(function), &cls)
            }
            Member::Function(ClassMember::Property { getter, .. }) => {
                if through_class {
                    let name = self.program.functions.get(getter).map_or("?", |f| &f.name);
                    let what = format!("the property object `{name}`");
                    return Err(self.unsupported(&what, at));
                }
                self.call_value(RunValue::Function(getter), vec![receiver.clone()], Vec::new(), at)?
            }
            Member::Generated(generated) if through_class => RunValue::Generated(generated),
            Member::Generated(generated) => bind(RunValue::Generated(generated), receiver),
            Member::Value(value @ (RunValue::Function(_) | RunValue::Lambda(_)))
                if !through_class =>
            {
                bind(value, receiver)
            }
            Member::Value(value) => value,
        })
    }

    /// The name of class `class`.
    pub(crate) fn class_name(&self, class: usize) -> &'p str {
        self.program.classes.get(class).map_or("?", |c| c.name.as_str())
    }

    /// The class of a user exception class, by its name.
    pub(crate) fn exc_class_def(&self, name: &str) -> Option<usize> {
        self.program.exc_classes.get(name).copied()
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
        args: Vec<RunValue>,
        kwargs: Vec<(String, RunValue)>,
        at: At,
    ) -> R<RunValue> {
        self.class_namespace(class)?;
        let instance = Rc::new(InstanceObj { class, attrs: RefCell::default() });
        self.instances.push(Rc::downgrade(&instance));
        let value = RunValue::Instance(instance);
        match self.class_lookup(class, "__init__")? {
            Some(init) => {
                let init = self.member_value(init, &value, at)?;
                let returned = self.call_value(init, args, kwargs, at)?;
                if !matches!(returned, RunValue::None) {
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

    /// `E(…)` for an exception class: the exception, with `args` the positional
    /// arguments, and the class's own `__init__` run on it.
    pub(crate) fn new_exception(
        &mut self,
        class: Rc<str>,
        args: Vec<RunValue>,
        kwargs: Vec<(String, RunValue)>,
        at: At,
    ) -> R<RunValue> {
        let init = match self.exc_class_def(&class) {
            Some(def) => self.class_lookup(def, "__init__")?,
            None => None,
        };
        let Some(init) = init else {
            if !kwargs.is_empty() {
                let message = format!("{class}() takes no keyword arguments");
                return Err(self.raise("TypeError", message, at));
            }
            return Ok(RunValue::Exc(Rc::new(ExcObj::new(class, args))));
        };
        let exc = Rc::new(ExcObj::new(class, args.clone()));
        self.excs.push(Rc::downgrade(&exc));
        self.prune();
        let value = RunValue::Exc(exc);
        let init = self.member_value(init, &value, at)?;
        let returned = self.call_value(init, args, kwargs, at)?;
        if !matches!(returned, RunValue::None) {
            let message =
                format!("__init__() should return None, not '{}'", self.type_name(&returned));
            return Err(self.raise("TypeError", message, at));
        }
        Ok(value)
    }

    /// `instance.name`: its own attribute, else the class chain's (methods bound,
    /// properties read).
    pub(crate) fn instance_attr(&mut self, value: &RunValue, name: &str, at: At) -> R<RunValue> {
        let RunValue::Instance(instance) = value else { return Ok(RunValue::None) };
        let own =
            instance.attrs.borrow().iter().find(|(k, _)| &**k == name).map(|(_, v)| v.clone());
        if let Some(own) = own {
            return Ok(own);
        }
        if name == "__class__" {
            return Ok(RunValue::Class(instance.class));
        }
        match self.class_lookup(instance.class, name)? {
            Some(member) => self.member_value(member, value, at),
            None if self.is_handler(instance.class) && HANDLER_METHODS.contains(&name) => {
                Ok(RunValue::bound(value.clone(), name))
            }
            None => Err(self.no_attribute(
                format!("'{}' object has no attribute '{name}'", self.class_name(instance.class)),
                name,
                at,
            )),
        }
    }

    /// `exc.name` for an exception: its own attribute, `args` and the chaining
    /// attributes, else its class's (methods bound, properties read).
    pub(crate) fn exc_attr(&mut self, value: &RunValue, name: &str, at: At) -> R<RunValue> {
        let RunValue::Exc(exc) = value else { return Ok(RunValue::None) };
        if name == "__class__" {
            return Ok(RunValue::ExcClass(exc.class.clone()));
        }
        let own = exc.attrs.borrow().iter().find(|(k, _)| &**k == name).map(|(_, v)| v.clone());
        if let Some(own) = own {
            return Ok(own);
        }
        match name {
            "args" => return Ok(RunValue::tuple(exc.args.borrow().clone())),
            "__cause__" => {
                return Ok(exc.cause.borrow().clone().map_or(RunValue::None, RunValue::Exc));
            }
            "__context__" => {
                return Ok(exc.context.borrow().clone().map_or(RunValue::None, RunValue::Exc));
            }
            "__suppress_context__" => return Ok(RunValue::Bool(exc.suppress_context.get())),
            _ => {}
        }
        if let Some(def) = self.exc_class_def(&exc.class)
            && let Some(member) = self.class_lookup(def, name)?
        {
            return self.member_value(member, value, at);
        }
        if EXCEPTION_ATTRIBUTES.contains(&name)
            || name.starts_with("__")
            || (&*exc.class == "error" && super::re::ERROR_ATTRS.contains(&name))
        {
            return Err(self.unsupported(&format!("the exception attribute `{name}`"), at));
        }
        let class = super::net::short_name(&exc.class);
        Err(self.raise("AttributeError", format!("'{class}' object has no attribute '{name}'"), at))
    }

    /// `C.name`: the class chain's attribute, a method as a plain function.
    pub(crate) fn class_attr(&mut self, class: usize, name: &str, at: At) -> R<RunValue> {
        match name {
            "__name__" | "__qualname__" => return Ok(RunValue::str(self.class_name(class))),
            _ => {}
        }
        match self.class_lookup(class, name)? {
            Some(member) => self.member_value(member, &RunValue::Class(class), at),
            None => Err(self.no_attribute(
                format!("type object '{}' has no attribute '{name}'", self.class_name(class)),
                name,
                at,
            )),
        }
    }

    /// `E.name` for an exception class of the program with a class of its own.
    pub(crate) fn exc_class_attr(&mut self, class: &Rc<str>, name: &str, at: At) -> R<RunValue> {
        let found = match self.exc_class_def(class) {
            Some(def) => self.class_lookup(def, name)?,
            None => None,
        };
        match found {
            Some(member) => self.member_value(member, &RunValue::ExcClass(class.clone()), at),
            None => Err(self.unsupported(&format!("the class attribute `.{name}`"), at)),
        }
    }

    /// `super().name`: the chain after the class `super()` was made in. At the end of
    /// an exception class's chain, the builtin exception's `__init__`, `__str__` and
    /// `__repr__`; at the end of a plain class's, `object.__init__`.
    pub(crate) fn super_attr(&mut self, method: &MethodObj, name: &str, at: At) -> R<RunValue> {
        let RunValue::Class(class) = method.function else { return Ok(RunValue::None) };
        let def = self.program.classes.get(class);
        let base = def.and_then(|def| def.base);
        let exception = def.is_some_and(|def| def.exception);
        let found = match base {
            Some(base) => self.class_lookup(base, name)?,
            None => None,
        };
        match found {
            Some(member) => self.member_value(member, &method.receiver, at),
            None if exception && matches!(name, "__init__" | "__str__" | "__repr__") => {
                Ok(RunValue::bound(method.receiver.clone(), name))
            }
            None if name == "__init__" && matches!(method.receiver, RunValue::Instance(_)) => {
                Ok(RunValue::bound(method.receiver.clone(), name))
            }
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

    /// The property `name` along the chain from `class`, if it is one: its setter.
    fn property(&mut self, class: usize, name: &str) -> R<Option<Option<usize>>> {
        Ok(match self.class_lookup(class, name)? {
            Some(Member::Function(ClassMember::Property { setter, .. })) => Some(setter),
            _ => None,
        })
    }

    /// Raises `FrozenInstanceError` when `instance` is of a frozen dataclass that
    /// protects `name` (`verb` is "assign to" or "delete").
    fn check_frozen(&mut self, instance: &InstanceObj, name: &str, verb: &str, at: At) -> R<()> {
        self.class_namespace(instance.class)?;
        let Some(c) = self.nearest_dataclass(Some(instance.class)) else { return Ok(()) };
        let Some(info) = self.dataclasses.get(&c) else { return Ok(()) };
        if info.frozen && (c == instance.class || info.fields.iter().any(|f| &*f.name == name)) {
            let message = format!("cannot {verb} field '{name}'");
            return Err(self.raise("FrozenInstanceError", message, at));
        }
        Ok(())
    }

    /// `object.name = value`.
    pub(crate) fn set_attr(
        &mut self,
        object: &RunValue,
        name: &str,
        value: RunValue,
        at: At,
    ) -> R<()> {
        match object {
            RunValue::Instance(instance) => {
                self.check_frozen(instance, name, "assign to", at)?;
                if let Some(setter) = self.property(instance.class, name)? {
                    return self.set_property(object, instance.class, name, setter, value, at);
                }
                set_own(&instance.attrs, name, value);
                Ok(())
            }
            RunValue::Exc(exc) => {
                if let Some(def) = self.exc_class_def(&exc.class)
                    && let Some(setter) = self.property(def, name)?
                {
                    return self.set_property(object, def, name, setter, value, at);
                }
                if name == "args" || name.starts_with("__") {
                    let what = format!("assigning to the exception attribute `{name}`");
                    return Err(self.unsupported(&what, at));
                }
                set_own(&exc.attrs, name, value);
                self.excs.push(Rc::downgrade(exc));
                self.prune();
                Ok(())
            }
            RunValue::Class(class) => {
                self.class_namespace(*class)?;
                let old =
                    self.class_attrs.entry(*class).or_default().insert(name.to_owned(), value);
                drop(old);
                Ok(())
            }
            other => Err(self.cannot_set(other, name, at)),
        }
    }

    /// Assigning to a property: its setter runs, or CPython's `AttributeError`.
    fn set_property(
        &mut self,
        object: &RunValue,
        class: usize,
        name: &str,
        setter: Option<usize>,
        value: RunValue,
        at: At,
    ) -> R<()> {
        let Some(setter) = setter else {
            let class = match object {
                RunValue::Exc(exc) => super::net::short_name(&exc.class).to_owned(),
                _ => self.class_name(class).to_owned(),
            };
            let message = format!("property '{name}' of '{class}' object has no setter");
            return Err(self.raise("AttributeError", message, at));
        };
        self.call_value(RunValue::Function(setter), vec![object.clone(), value], Vec::new(), at)?;
        Ok(())
    }

    /// `del object.name`.
    pub(crate) fn del_attr(&mut self, object: &RunValue, name: &str, at: At) -> R<()> {
        match object {
            RunValue::Instance(instance) => {
                self.check_frozen(instance, name, "delete", at)?;
                if self.property(instance.class, name)?.is_some() {
                    let class = self.class_name(instance.class);
                    let message = format!("property '{name}' of '{class}' object has no deleter");
                    return Err(self.raise("AttributeError", message, at));
                }
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
            RunValue::Exc(exc) => {
                let class = super::net::short_name(&exc.class).to_owned();
                if let Some(def) = self.exc_class_def(&exc.class)
                    && self.property(def, name)?.is_some()
                {
                    let message = format!("property '{name}' of '{class}' object has no deleter");
                    return Err(self.raise("AttributeError", message, at));
                }
                if name == "args" || name.starts_with("__") {
                    let what = format!("deleting the exception attribute `{name}`");
                    return Err(self.unsupported(&what, at));
                }
                let mut attrs = exc.attrs.borrow_mut();
                let Some(i) = attrs.iter().position(|(k, _)| &**k == name) else {
                    drop(attrs);
                    let message = format!("'{class}' object has no attribute '{name}'");
                    return Err(self.raise("AttributeError", message, at));
                };
                let removed = attrs.remove(i);
                drop(attrs);
                drop(removed);
                Ok(())
            }
            RunValue::Class(class) => {
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

    fn cannot_set(&self, object: &RunValue, name: &str, at: At) -> Signal {
        match object {
            RunValue::None
            | RunValue::Bool(_)
            | RunValue::Int(_)
            | RunValue::Float(_)
            | RunValue::Str(_)
            | RunValue::Bytes(_)
            | RunValue::List(_)
            | RunValue::Tuple(_)
            | RunValue::Dict(_)
            | RunValue::Range(..) => {
                let message =
                    format!("'{}' object has no attribute '{name}'", self.type_name(object));
                self.raise("AttributeError", message, at)
            }
            RunValue::Foreign(what) => self.unsupported(&format!("{what} (`.{name} = …`)"), at),
            other => {
                let what = format!("assigning to an attribute of a `{}`", self.type_name(other));
                self.unsupported(&what, at)
            }
        }
    }

    /// A method of a builtin exception class, reached through `super()` from an
    /// exception class's own: `__init__` sets `args`, `__str__` and `__repr__` are the
    /// builtin ones.
    pub(crate) fn exc_method(
        &mut self,
        exc: &Rc<ExcObj>,
        name: &str,
        args: Vec<RunValue>,
        kwargs: &[(String, RunValue)],
        at: At,
    ) -> R<RunValue> {
        let class = super::net::short_name(&exc.class).to_owned();
        match name {
            "__init__" => {
                if !kwargs.is_empty() {
                    let message = format!("{class}() takes no keyword arguments");
                    return Err(self.raise("TypeError", message, at));
                }
                let old = exc.args.replace(args);
                drop(old);
                Ok(RunValue::None)
            }
            "__str__" | "__repr__" if args.is_empty() && kwargs.is_empty() => {
                if name == "__str__" {
                    return Ok(RunValue::str(&self.builtin_exc_str(exc, at)?));
                }
                let mut out = String::new();
                self.write_exc_repr(exc, &mut out, 0, &mut Vec::new(), at)?;
                Ok(RunValue::str(&out))
            }
            "__str__" | "__repr__" => {
                let message = format!("{class}.{name}() takes no arguments ({} given)", args.len());
                Err(self.raise("TypeError", message, at))
            }
            _ => Err(self.unsupported(&format!("the method `{class}.{name}()`"), at)),
        }
    }

    /// Calls a method `@dataclass` generated; `args` starts with the instance.
    pub(crate) fn call_generated(
        &mut self,
        generated: Generated,
        args: Vec<RunValue>,
        kwargs: Vec<(String, RunValue)>,
        at: At,
    ) -> R<RunValue> {
        let class = generated.class;
        self.class_namespace(class)?;
        let qualname = format!("{}.{}", self.class_name(class), generated.kind.name());
        let info = self.dataclasses.get(&class).cloned();
        let receiver = match args.first() {
            Some(receiver @ RunValue::Instance(instance))
                if self.class_derives(instance.class, class) =>
            {
                receiver.clone()
            }
            Some(other) => {
                let message = format!(
                    "descriptor '{}' for '{}' objects doesn't apply to a '{}' object",
                    generated.kind.name(),
                    self.class_name(class),
                    self.type_name(other)
                );
                return Err(self.raise("TypeError", message, at));
            }
            None => {
                let message =
                    format!("{qualname}() missing 1 required positional argument: 'self'");
                return Err(self.raise("TypeError", message, at));
            }
        };
        let Some(info) = info else { return Ok(RunValue::None) };
        match generated.kind {
            GeneratedKind::Init => self.dataclass_init(&info, &qualname, args, kwargs, at),
            GeneratedKind::Repr | GeneratedKind::Eq => {
                let expected = if generated.kind == GeneratedKind::Eq { 2 } else { 1 };
                if args.len() != expected || !kwargs.is_empty() {
                    let what = format!("calling `{qualname}` with these arguments");
                    return Err(self.unsupported(&what, at));
                }
                if generated.kind == GeneratedKind::Repr {
                    return Ok(RunValue::str(&self.dataclass_repr(&receiver, &info, at)?));
                }
                match self.dataclass_eq(&receiver, args.get(1).unwrap_or(&RunValue::None), 0, at)? {
                    Some(equal) => Ok(RunValue::Bool(equal)),
                    None => Err(self.unsupported("`NotImplemented`", at)),
                }
            }
        }
    }

    /// The `__init__` `@dataclass` generates: a parameter for each field, in order,
    /// with its default or factory; then `__post_init__`, if the class has one.
    fn dataclass_init(
        &mut self,
        info: &DataInfo,
        qualname: &str,
        args: Vec<RunValue>,
        kwargs: Vec<(String, RunValue)>,
        at: At,
    ) -> R<RunValue> {
        let Some(receiver) = args.first().cloned() else { return Ok(RunValue::None) };
        let mut spec: Vec<(&str, bool)> = vec![("self", false)];
        spec.extend(
            info.fields.iter().map(|f| (&*f.name, f.default.is_some() || f.factory.is_some())),
        );
        let slots = self.bind_args(qualname, &spec, args, kwargs, at)?;
        let RunValue::Instance(instance) = &receiver else { return Ok(RunValue::None) };
        for (field, slot) in info.fields.iter().zip(slots.into_iter().skip(1)) {
            let value = match (slot, &field.default, &field.factory) {
                (Some(value), _, _) => value,
                (None, Some(default), _) => default.clone(),
                (None, None, Some(factory)) => {
                    self.call_value(factory.clone(), Vec::new(), Vec::new(), at)?
                }
                (None, None, None) => RunValue::None,
            };
            if info.frozen {
                set_own(&instance.attrs, &field.name, value);
            } else {
                self.set_attr(&receiver, &field.name, value, at)?;
            }
        }
        if let Some(post_init) = self.class_lookup(instance.class, "__post_init__")? {
            let post_init = self.member_value(post_init, &receiver, at)?;
            self.call_value(post_init, Vec::new(), Vec::new(), at)?;
        }
        Ok(RunValue::None)
    }

    /// The `__repr__` `@dataclass` generates: `Name(field=value, …)` with the fields
    /// that have `repr=True`; `...` for an instance already being written.
    pub(crate) fn dataclass_repr(
        &mut self,
        receiver: &RunValue,
        info: &DataInfo,
        at: At,
    ) -> R<String> {
        let RunValue::Instance(instance) = receiver else { return Ok(String::new()) };
        let id = Rc::as_ptr(instance) as usize;
        if self.reprs.contains(&id) {
            return Ok("...".to_owned());
        }
        self.reprs.push(id);
        let result = (|| {
            let mut out = format!("{}(", self.class_name(instance.class));
            let mut first = true;
            for field in info.fields.iter().filter(|f| f.repr) {
                if !first {
                    out.push_str(", ");
                }
                first = false;
                let value = self.instance_attr(receiver, &field.name, at)?;
                out.push_str(&field.name);
                out.push('=');
                out.push_str(&self.repr(&value, at)?);
            }
            out.push(')');
            Ok(out)
        })();
        self.reprs.retain(|&r| r != id);
        result
    }

    /// `a == b` where `a` is an instance: by the fields of the dataclass whose
    /// `__eq__` it has, when `b` is of the very same class; `None` where CPython's
    /// `__eq__` returns `NotImplemented` (or the class has none).
    pub(crate) fn dataclass_eq(
        &mut self,
        a: &RunValue,
        b: &RunValue,
        depth: usize,
        at: At,
    ) -> R<Option<bool>> {
        let (RunValue::Instance(x), RunValue::Instance(y)) = (a, b) else { return Ok(None) };
        let Some(Member::Generated(Generated { class, kind: GeneratedKind::Eq })) =
            self.class_lookup(x.class, "__eq__")?
        else {
            return Ok(None);
        };
        if x.class != y.class {
            return Ok(None);
        }
        let Some(info) = self.dataclasses.get(&class).cloned() else { return Ok(None) };
        for field in info.fields.iter().filter(|f| f.compare) {
            let left = self.instance_attr(a, &field.name, at)?;
            let right = self.instance_attr(b, &field.name, at)?;
            if !super::ops::identical(&left, &right) && !self.eq_at(&left, &right, depth + 1, at)? {
                return Ok(Some(false));
            }
        }
        Ok(Some(true))
    }

    /// The dataclass whose fields an instance has, if it is a dataclass's.
    pub(crate) fn dataclass_of(&mut self, value: &RunValue) -> Option<usize> {
        let RunValue::Instance(instance) = value else { return None };
        let class = self.nearest_dataclass(Some(instance.class))?;
        self.class_namespace(class).ok()?;
        Some(class)
    }

    /// `dataclasses.asdict(value)`: dataclass instances become dicts of their fields,
    /// lists, tuples and dicts are copied, recursively; other values are kept (those
    /// `copy.deepcopy` would copy are outside the subset).
    pub(crate) fn asdict(&mut self, value: &RunValue, depth: usize, at: At) -> R<RunValue> {
        if depth > super::MAX_VALUE_DEPTH {
            let message = "maximum recursion depth exceeded while calling a Python object";
            return Err(self.raise("RecursionError", message, at));
        }
        self.charge(1, at)?;
        if let Some(class) = self.dataclass_of(value) {
            let Some(info) = self.dataclasses.get(&class).cloned() else {
                return Ok(RunValue::None);
            };
            let mut entries = Vec::with_capacity(info.fields.len());
            for field in &info.fields {
                let item = self.instance_attr(value, &field.name, at)?;
                entries
                    .push((RunValue::Str(field.name.clone()), self.asdict(&item, depth + 1, at)?));
            }
            return Ok(self.new_dict(entries));
        }
        Ok(match value {
            RunValue::List(list) => {
                let items = list.items.borrow().clone();
                let mut out = Vec::with_capacity(items.len());
                for item in &items {
                    out.push(self.asdict(item, depth + 1, at)?);
                }
                self.new_list(out)
            }
            RunValue::Tuple(tuple) => {
                let mut out = Vec::with_capacity(tuple.items.len());
                for item in &tuple.items {
                    out.push(self.asdict(item, depth + 1, at)?);
                }
                RunValue::tuple(out)
            }
            RunValue::Dict(dict) => {
                let entries = dict.entries.borrow().clone();
                let mut out = Vec::with_capacity(entries.len());
                for (key, item) in &entries {
                    out.push((self.asdict(key, depth + 1, at)?, self.asdict(item, depth + 1, at)?));
                }
                self.new_dict(out)
            }
            RunValue::None
            | RunValue::Bool(_)
            | RunValue::Int(_)
            | RunValue::Float(_)
            | RunValue::Str(_)
            | RunValue::Bytes(_)
            | RunValue::Range(..)
            | RunValue::Temporal(_) => value.clone(),
            other => {
                let what = format!("`asdict()` copying a `{}`", self.type_name(other));
                return Err(self.unsupported(&what, at));
            }
        })
    }

    /// `dataclasses.replace(obj, **changes)`: a new instance of its class, the fields
    /// not changed taken from it.
    pub(crate) fn dataclass_replace(
        &mut self,
        args: &[RunValue],
        kwargs: Vec<(String, RunValue)>,
        at: At,
    ) -> R<RunValue> {
        let [obj] = args else {
            let message =
                format!("replace() takes 1 positional argument but {} were given", args.len());
            return Err(self.raise("TypeError", message, at));
        };
        let (Some(class), RunValue::Instance(instance)) = (self.dataclass_of(obj), obj) else {
            let message = "replace() should be called on dataclass instances";
            return Err(self.raise("TypeError", message, at));
        };
        let Some(info) = self.dataclasses.get(&class).cloned() else { return Ok(RunValue::None) };
        let mut changes = kwargs;
        for field in &info.fields {
            if !changes.iter().any(|(k, _)| *k == *field.name) {
                let value = self.instance_attr(obj, &field.name, at)?;
                changes.push((field.name.to_string(), value));
            }
        }
        self.instantiate_class(instance.class, Vec::new(), changes, at)
    }

    /// The values a frozen dataclass's hash is made of: its fields that compare.
    pub(crate) fn hashed_fields(&self, instance: &InstanceObj, class: usize) -> Vec<RunValue> {
        let Some(info) = self.dataclasses.get(&class) else { return Vec::new() };
        let attrs = instance.attrs.borrow();
        info.fields
            .iter()
            .filter(|f| f.compare)
            .filter_map(|f| attrs.iter().find(|(k, _)| *k == f.name).map(|(_, v)| v.clone()))
            .collect()
    }

    /// `super()` in a method: the class the method is defined in and its first argument.
    pub(crate) fn zero_arg_super(&mut self, f: &Frame<'p>, at: At) -> R<RunValue> {
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
                    return Ok(RunValue::Super(Rc::new(MethodObj {
                        receiver,
                        function: RunValue::Class(class),
                    })));
                }
                _ => break,
            }
        }
        Err(self.raise("RuntimeError", "super(): no arguments", at))
    }

    /// A special method (`__enter__`, `__repr__`…) of `value`'s class, bound to it.
    pub(crate) fn special_method(&mut self, value: &RunValue, name: &str) -> R<Option<RunValue>> {
        if let RunValue::Native(_) = value {
            let managed = ["__enter__", "__exit__", "__aenter__", "__aexit__"];
            return Ok(managed.contains(&name).then(|| RunValue::bound(value.clone(), name)));
        }
        let class = match value {
            RunValue::Instance(instance) => Some(instance.class),
            RunValue::Exc(exc) => self.exc_class_def(&exc.class),
            _ => None,
        };
        let Some(class) = class else { return Ok(None) };
        match self.class_lookup(class, name)? {
            Some(member) => self.member_value(member, value, (0, 0)).map(Some),
            None => Ok(None),
        }
    }

    /// `str()` or `repr()` of an instance through its `__str__`/`__repr__`, if it has one.
    pub(crate) fn instance_text(
        &mut self,
        value: &RunValue,
        method: &str,
        at: At,
    ) -> R<Option<String>> {
        let Some(function) = self.special_method(value, method)? else { return Ok(None) };
        match self.call_value(function, Vec::new(), Vec::new(), at)? {
            RunValue::Str(text) => Ok(Some(text.to_string())),
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

/// What an exception's class has beyond `args` and the chaining attributes: outside the
/// subset rather than missing.
const EXCEPTION_ATTRIBUTES: [&str; 3] = ["with_traceback", "add_note", "__traceback__"];

/// How instances of a class hash.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Hash {
    /// By identity: a plain class.
    Identity,
    /// By the fields that compare (a frozen dataclass, this one).
    Fields(usize),
    /// Not at all: a dataclass that compares by its fields.
    None,
}

/// Sets an attribute of an instance or an exception.
fn set_own(attrs: &RefCell<Vec<(Rc<str>, RunValue)>>, name: &str, value: RunValue) {
    let mut attrs = attrs.borrow_mut();
    match attrs.iter_mut().find(|(k, _)| &**k == name) {
        Some(slot) => {
            let old = std::mem::replace(&mut slot.1, value);
            drop(attrs);
            drop(old);
        }
        None => attrs.push((Rc::from(name), value)),
    }
}

/// The special methods a plain class may define; any other makes the class outside
/// the subset (its behaviour would otherwise be silently missing).
pub(crate) const SPECIAL_METHODS: [&str; 7] =
    ["__init__", "__str__", "__repr__", "__enter__", "__exit__", "__aenter__", "__aexit__"];

/// Class attributes of the classes used in a run, by class.
pub(crate) type ClassAttrs = BTreeMap<usize, BTreeMap<String, RunValue>>;

/// What `@dataclass` made of the dataclasses created in a run, by class.
pub(crate) type Dataclasses = BTreeMap<usize, Rc<DataInfo>>;
