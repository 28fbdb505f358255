//! Python's operators on runtime values: arithmetic with 64-bit integers and floats,
//! equality and ordering, `in`, `is`, indexing and slicing, attribute lookup, iteration,
//! and `repr`/`str` — with CPython's error messages where they are short and standard.
//!
//! Walks over nested values are capped at [`MAX_VALUE_DEPTH`] (deeper raises
//! `RecursionError`), and bulk work is charged to the step budget.

use std::cmp::Ordering;
use std::rc::Rc;

use super::ast::{At, BinOp, CmpOp, UnOp};
use super::eval::{Interp, R, Signal};
use super::runtime::{Builtin, DictObj, ExcObj, ListObj, RunValue, StdModule, range_len};
use super::value::{repr_float, repr_str};
use super::{MAX_SIZE, MAX_VALUE_DEPTH};

/// A running iteration.
pub(crate) enum Iter {
    /// A list, read live (appending while iterating extends the loop, as in Python).
    List(Rc<ListObj>, usize),
    /// A snapshot.
    Items(std::vec::IntoIter<RunValue>),
    /// `range`: the next value, the step and how many are left.
    Range(i64, i64, u64),
    /// A string's characters from a byte offset.
    Chars(Rc<str>, usize),
}

impl Interp<'_, '_> {
    /// `type(x).__name__`.
    pub(crate) fn type_name(&self, value: &RunValue) -> String {
        match value {
            RunValue::None => "NoneType",
            RunValue::Bool(_) => "bool",
            RunValue::Int(_) => "int",
            RunValue::Float(_) => "float",
            RunValue::Str(_) => "str",
            RunValue::Bytes(_) => "bytes",
            RunValue::List(list) if list.frozen.get() => "frozenset",
            RunValue::List(_) => "list",
            RunValue::Tuple(_) => "tuple",
            RunValue::Dict(_) => "dict",
            RunValue::Object(object) => return object.class.to_string(),
            RunValue::Exc(exc) => return super::net::short_name(&exc.class).to_owned(),
            RunValue::Range(..) => "range",
            RunValue::Context => "ToolContext",
            RunValue::Memory => "ProjectMemory",
            RunValue::Client => "CrmClient",
            RunValue::Function(_) | RunValue::Lambda(_) => "function",
            RunValue::Model(_)
            | RunValue::ToolResult
            | RunValue::ExcClass(_)
            | RunValue::Type(_) => "type",
            RunValue::Builtin(_) | RunValue::Bound(_) => "builtin_function_or_method",
            RunValue::Foreign(_) => "object",
            RunValue::Module(_) | RunValue::Unit(_) => "module",
            RunValue::Native(native) => Self::native_type_name(native),
            RunValue::Instance(instance) => return self.class_name(instance.class).to_owned(),
            RunValue::Class(_) => "type",
            RunValue::Method(_) => "method",
            RunValue::Super(_) => "super",
            RunValue::Generated(_) => "function",
            RunValue::Pattern(_) => "Pattern",
            RunValue::Match(_) => "Match",
            RunValue::Temporal(t) => t.kind().type_name(),
            RunValue::TemporalClass(_) => "type",
        }
        .to_owned()
    }

    fn type_error(&self, message: impl Into<String>, at: At) -> Signal {
        self.raise("TypeError", message, at)
    }

    /// Stops the run if either value is outside the subset.
    fn foreign(&self, values: &[&RunValue], at: At) -> R<()> {
        match values.iter().find_map(|v| match v {
            RunValue::Foreign(what) => Some(what.clone()),
            _ => None,
        }) {
            Some(what) => Err(self.unsupported(&format!("using {what}"), at)),
            None => Ok(()),
        }
    }

    /// Raises `MemoryError` if a str of these parts would exceed [`MAX_SIZE`] characters.
    pub(crate) fn check_str(&mut self, text: &str, at: At) -> R<()> {
        if text.len() > MAX_SIZE {
            self.charge(text.len(), at)?;
            if text.len() > 4 * MAX_SIZE || text.chars().count() > MAX_SIZE {
                return Err(self.memory_error(at));
            }
        }
        Ok(())
    }

    /// Characters in `text`, charged.
    pub(crate) fn char_count(&mut self, text: &str, at: At) -> R<usize> {
        if text.is_ascii() {
            return Ok(text.len());
        }
        self.charge(text.len(), at)?;
        Ok(text.chars().count())
    }

    // ----- arithmetic -----

    /// `a <op> b`.
    pub(crate) fn binary(&mut self, op: BinOp, a: &RunValue, b: &RunValue, at: At) -> R<RunValue> {
        if let (Some(x), Some(y)) = (a.as_int(), b.as_int()) {
            if let (RunValue::Bool(p), RunValue::Bool(q)) = (a, b) {
                match op {
                    BinOp::BitOr => return Ok(RunValue::Bool(*p | *q)),
                    BinOp::BitAnd => return Ok(RunValue::Bool(*p & *q)),
                    BinOp::BitXor => return Ok(RunValue::Bool(*p ^ *q)),
                    _ => {}
                }
            }
            return self.int_op(op, x, y, (a, b), at);
        }
        if a.is_number() && b.is_number() {
            let (x, y) = (a.as_float().unwrap_or(0.0), b.as_float().unwrap_or(0.0));
            return self.float_op(op, x, y, (a, b), at);
        }
        self.foreign(&[a, b], at)?;
        let frozen = |v: &RunValue| matches!(v, RunValue::List(l) if l.frozen.get());
        if frozen(a) || frozen(b) {
            if matches!(op, BinOp::BitOr | BinOp::BitAnd | BinOp::BitXor | BinOp::Sub) {
                let what = format!("`{}` of a frozenset (it is a list here)", op.symbol());
                return Err(self.unsupported(&what, at));
            }
            return Err(self.operand_error(op, a, b, at));
        }
        if (matches!(a, RunValue::Temporal(_)) || matches!(b, RunValue::Temporal(_)))
            && let Some(value) = self.temporal_binary(op, a, b, at)?
        {
            return Ok(value);
        }
        match (op, a, b) {
            (BinOp::Add, RunValue::Str(x), RunValue::Str(y)) => {
                let mut out = String::with_capacity(x.len() + y.len());
                if x.len() + y.len() > MAX_SIZE {
                    let count = self.char_count(x, at)? + self.char_count(y, at)?;
                    if count > MAX_SIZE {
                        return Err(self.memory_error(at));
                    }
                }
                self.charge(x.len() + y.len(), at)?;
                out.push_str(x);
                out.push_str(y);
                Ok(RunValue::str(&out))
            }
            (BinOp::Add, RunValue::List(x), RunValue::List(y)) => {
                let mut items = x.items.borrow().clone();
                items.extend(y.items.borrow().iter().cloned());
                self.charge(items.len(), at)?;
                if items.len() > MAX_SIZE {
                    return Err(self.memory_error(at));
                }
                Ok(self.new_list(items))
            }
            (BinOp::Add, RunValue::Bytes(x), RunValue::Bytes(y)) => {
                if x.len() + y.len() > MAX_SIZE {
                    return Err(self.memory_error(at));
                }
                self.charge(x.len() + y.len(), at)?;
                Ok(RunValue::Bytes(x.iter().chain(y.iter()).copied().collect()))
            }
            (BinOp::Add, RunValue::Bytes(_), other) => {
                let message = format!("can't concat {} to bytes", self.type_name(other));
                Err(self.type_error(message, at))
            }
            (BinOp::Add, RunValue::Tuple(x), RunValue::Tuple(y)) => {
                if x.items.len() + y.items.len() > MAX_SIZE {
                    return Err(self.memory_error(at));
                }
                self.charge(x.items.len() + y.items.len(), at)?;
                Ok(RunValue::tuple(x.items.iter().chain(&y.items).cloned().collect()))
            }
            (
                BinOp::Mul,
                seq @ (RunValue::Str(_)
                | RunValue::Bytes(_)
                | RunValue::List(_)
                | RunValue::Tuple(_)),
                n,
            )
            | (
                BinOp::Mul,
                n,
                seq @ (RunValue::Str(_)
                | RunValue::Bytes(_)
                | RunValue::List(_)
                | RunValue::Tuple(_)),
            ) => match n.as_int() {
                Some(n) => self.repeat(seq, n, at),
                None => Err(self.type_error(
                    format!("can't multiply sequence by non-int of type '{}'", self.type_name(n)),
                    at,
                )),
            },
            (BinOp::BitOr, RunValue::Dict(x), RunValue::Dict(y)) => {
                let merged = self.new_dict(x.entries.borrow().clone());
                if let RunValue::Dict(d) = &merged {
                    let entries = y.entries.borrow().clone();
                    for (key, value) in entries {
                        self.dict_set(d, key, value, at)?;
                    }
                }
                Ok(merged)
            }
            (BinOp::Mod, RunValue::Str(_), _) => {
                Err(self.unsupported("printf-style `%` formatting (use an f-string)", at))
            }
            (BinOp::BitOr, _, _) if union_operands(a, b) => {
                Err(self.unsupported("a union of types (`int | str`)", at))
            }
            (BinOp::Add, RunValue::Str(_) | RunValue::List(_) | RunValue::Tuple(_), other) => {
                let kind = self.type_name(a);
                let message = format!(
                    "can only concatenate {kind} (not \"{}\") to {kind}",
                    self.type_name(other)
                );
                Err(self.type_error(message, at))
            }
            _ => Err(self.operand_error(op, a, b, at)),
        }
    }

    /// `current <op>= operand`: lists extend and dicts update in place.
    pub(crate) fn in_place(
        &mut self,
        op: BinOp,
        current: RunValue,
        operand: &RunValue,
        at: At,
    ) -> R<RunValue> {
        match (op, &current) {
            (BinOp::Add, RunValue::List(list)) => {
                let items = self.collect(operand, at)?;
                self.extend_list(list, items, at)?;
                Ok(current)
            }
            (BinOp::BitOr, RunValue::Dict(dict)) if matches!(operand, RunValue::Dict(_)) => {
                if let RunValue::Dict(other) = operand {
                    let entries = other.entries.borrow().clone();
                    for (key, value) in entries {
                        self.dict_set(dict, key, value, at)?;
                    }
                }
                Ok(current)
            }
            _ => self.binary(op, &current, operand, at),
        }
    }

    fn operand_error(&self, op: BinOp, a: &RunValue, b: &RunValue, at: At) -> Signal {
        let message = format!(
            "unsupported operand type(s) for {}: '{}' and '{}'",
            op.symbol(),
            self.type_name(a),
            self.type_name(b)
        );
        self.type_error(message, at)
    }

    /// `seq * n`.
    fn repeat(&mut self, seq: &RunValue, n: i64, at: At) -> R<RunValue> {
        let times = usize::try_from(n.max(0)).unwrap_or(usize::MAX);
        let len = match seq {
            RunValue::Str(s) => self.char_count(s, at)?,
            RunValue::Bytes(b) => b.len(),
            RunValue::List(l) => l.items.borrow().len(),
            RunValue::Tuple(t) => t.items.len(),
            _ => 0,
        };
        let total = len.saturating_mul(times);
        if total > MAX_SIZE {
            return Err(self.memory_error(at));
        }
        let times = if total == 0 { 0 } else { times };
        self.charge(total, at)?;
        Ok(match seq {
            RunValue::Str(s) => RunValue::str(&s.repeat(times)),
            RunValue::Bytes(b) => RunValue::Bytes(b.repeat(times).into()),
            RunValue::List(l) => {
                let items = repeat_items(&l.items.borrow(), times);
                self.new_list(items)
            }
            RunValue::Tuple(t) => RunValue::tuple(repeat_items(&t.items, times)),
            _ => RunValue::None,
        })
    }

    fn int_op(
        &mut self,
        op: BinOp,
        x: i64,
        y: i64,
        operands: (&RunValue, &RunValue),
        at: At,
    ) -> R<RunValue> {
        let result = match op {
            BinOp::Add => x.checked_add(y),
            BinOp::Sub => x.checked_sub(y),
            BinOp::Mul => x.checked_mul(y),
            BinOp::Div => {
                if y == 0 {
                    return Err(self.raise("ZeroDivisionError", "division by zero", at));
                }
                #[allow(clippy::cast_precision_loss)]
                return Ok(RunValue::Float(x as f64 / y as f64));
            }
            BinOp::FloorDiv => {
                if y == 0 {
                    let message = "integer division or modulo by zero";
                    return Err(self.raise("ZeroDivisionError", message, at));
                }
                x.checked_div(y).map(|q| if x % y != 0 && ((x < 0) != (y < 0)) { q - 1 } else { q })
            }
            BinOp::Mod => {
                if y == 0 {
                    return Err(self.raise("ZeroDivisionError", "integer modulo by zero", at));
                }
                let r = x.checked_rem(y).unwrap_or(0);
                Some(if r != 0 && ((r < 0) != (y < 0)) { r + y } else { r })
            }
            BinOp::Pow => {
                if y < 0 {
                    if x == 0 {
                        let message = "0.0 cannot be raised to a negative power";
                        return Err(self.raise("ZeroDivisionError", message, at));
                    }
                    #[allow(clippy::cast_precision_loss)]
                    return Ok(RunValue::Float((x as f64).powf(y as f64)));
                }
                match (x, u32::try_from(y)) {
                    (0 | 1, _) => Some(if y == 0 { 1 } else { x }),
                    (-1, _) => Some(if y % 2 == 0 { 1 } else { -1 }),
                    (_, Ok(e)) => x.checked_pow(e),
                    _ => None,
                }
            }
            BinOp::LShift | BinOp::RShift if y < 0 => {
                return Err(self.raise("ValueError", "negative shift count", at));
            }
            BinOp::LShift => {
                if x == 0 {
                    Some(0)
                } else {
                    u32::try_from(y)
                        .ok()
                        .filter(|&s| s < 64)
                        .and_then(|s| x.checked_shl(s).filter(|r| r >> s == x))
                }
            }
            BinOp::RShift => Some(if y >= 64 { if x < 0 { -1 } else { 0 } } else { x >> y }),
            BinOp::BitOr => Some(x | y),
            BinOp::BitAnd => Some(x & y),
            BinOp::BitXor => Some(x ^ y),
            BinOp::MatMul => return Err(self.operand_error(op, operands.0, operands.1, at)),
        };
        result.map(RunValue::Int).ok_or_else(|| self.overflow(at))
    }

    fn float_op(
        &mut self,
        op: BinOp,
        x: f64,
        y: f64,
        operands: (&RunValue, &RunValue),
        at: At,
    ) -> R<RunValue> {
        let value = match op {
            BinOp::Add => x + y,
            BinOp::Sub => x - y,
            BinOp::Mul => x * y,
            BinOp::Div => {
                if y == 0.0 {
                    return Err(self.raise("ZeroDivisionError", "float division by zero", at));
                }
                x / y
            }
            BinOp::FloorDiv | BinOp::Mod => {
                if y == 0.0 {
                    let message = if op == BinOp::Mod {
                        "float modulo"
                    } else {
                        "float floor division by zero"
                    };
                    return Err(self.raise("ZeroDivisionError", message, at));
                }
                let (div, rem) = float_divmod(x, y);
                if op == BinOp::Mod { rem } else { div }
            }
            BinOp::Pow => {
                if x == 0.0 && y < 0.0 {
                    let message = "0.0 cannot be raised to a negative power";
                    return Err(self.raise("ZeroDivisionError", message, at));
                }
                if x < 0.0 && y.is_finite() && y.fract() != 0.0 {
                    return Err(self.unsupported("a complex result of `**`", at));
                }
                let value = x.powf(y);
                if value.is_infinite() && x.is_finite() && y.is_finite() {
                    let message = "(34, 'Numerical result out of range')";
                    return Err(self.raise("OverflowError", message, at));
                }
                value
            }
            _ => return Err(self.operand_error(op, operands.0, operands.1, at)),
        };
        Ok(RunValue::Float(value))
    }

    /// `<op> value`.
    pub(crate) fn unary(&mut self, op: UnOp, value: &RunValue, at: At) -> R<RunValue> {
        if op == UnOp::Not {
            return Ok(RunValue::Bool(!value.truthy()));
        }
        self.foreign(&[value], at)?;
        if let RunValue::Temporal(t) = value
            && let Some(result) = self.temporal_unary(op, *t, at)?
        {
            return Ok(result);
        }
        match (op, value) {
            (UnOp::Neg, RunValue::Float(x)) => Ok(RunValue::Float(-x)),
            (UnOp::Pos, RunValue::Float(x)) => Ok(RunValue::Float(*x)),
            (UnOp::Neg, v) if v.as_int().is_some() => v
                .as_int()
                .and_then(i64::checked_neg)
                .map(RunValue::Int)
                .ok_or_else(|| self.overflow(at)),
            (UnOp::Pos, v) if v.as_int().is_some() => Ok(RunValue::Int(v.as_int().unwrap_or(0))),
            (UnOp::Invert, v) if v.as_int().is_some() => {
                Ok(RunValue::Int(!v.as_int().unwrap_or(0)))
            }
            _ => {
                let symbol = match op {
                    UnOp::Neg => "-",
                    UnOp::Pos => "+",
                    _ => "~",
                };
                let message =
                    format!("bad operand type for unary {symbol}: '{}'", self.type_name(value));
                Err(self.type_error(message, at))
            }
        }
    }

    // ----- comparisons -----

    /// `a <op> b` for one comparison of a chain.
    pub(crate) fn compare(&mut self, op: CmpOp, a: &RunValue, b: &RunValue, at: At) -> R<bool> {
        match op {
            CmpOp::Eq => self.eq(a, b, at),
            CmpOp::NotEq => Ok(!self.eq(a, b, at)?),
            CmpOp::In => self.contains(b, a, at),
            CmpOp::NotIn => Ok(!self.contains(b, a, at)?),
            CmpOp::Is => Ok(identical(a, b)),
            CmpOp::IsNot => Ok(!identical(a, b)),
            CmpOp::Lt | CmpOp::LtE | CmpOp::Gt | CmpOp::GtE => {
                let symbol = match op {
                    CmpOp::Lt => "<",
                    CmpOp::LtE => "<=",
                    CmpOp::Gt => ">",
                    _ => ">=",
                };
                let ordering = self.partial_cmp(a, b, symbol, 0, at)?;
                Ok(ordering.is_some_and(|o| match op {
                    CmpOp::Lt => o.is_lt(),
                    CmpOp::LtE => o.is_le(),
                    CmpOp::Gt => o.is_gt(),
                    _ => o.is_ge(),
                }))
            }
        }
    }

    /// `a < b`.
    pub(crate) fn less(&mut self, a: &RunValue, b: &RunValue, at: At) -> R<bool> {
        Ok(self.partial_cmp(a, b, "<", 0, at)? == Some(Ordering::Less))
    }

    fn partial_cmp(
        &mut self,
        a: &RunValue,
        b: &RunValue,
        symbol: &str,
        depth: usize,
        at: At,
    ) -> R<Option<Ordering>> {
        if depth > MAX_VALUE_DEPTH {
            let message = "maximum recursion depth exceeded in comparison";
            return Err(self.raise("RecursionError", message, at));
        }
        if a.is_number() && b.is_number() {
            return Ok(number_cmp(a, b));
        }
        self.foreign(&[a, b], at)?;
        if let (RunValue::Temporal(x), RunValue::Temporal(y)) = (a, b)
            && let Some(ordering) = self.temporal_cmp(*x, *y, at)?
        {
            return Ok(Some(ordering));
        }
        match (a, b) {
            (RunValue::Str(x), RunValue::Str(y)) => {
                self.charge(x.len().min(y.len()), at)?;
                Ok(Some(x.cmp(y)))
            }
            (RunValue::Bytes(x), RunValue::Bytes(y)) => {
                self.charge(x.len().min(y.len()), at)?;
                Ok(Some(x.cmp(y)))
            }
            (RunValue::List(x), RunValue::List(y)) => {
                let (xs, ys) = (x.items.borrow(), y.items.borrow());
                self.sequence_cmp(&xs, &ys, symbol, depth, at)
            }
            (RunValue::Tuple(x), RunValue::Tuple(y)) => {
                self.sequence_cmp(&x.items, &y.items, symbol, depth, at)
            }
            _ => {
                let message = format!(
                    "'{symbol}' not supported between instances of '{}' and '{}'",
                    self.type_name(a),
                    self.type_name(b)
                );
                Err(self.type_error(message, at))
            }
        }
    }

    fn sequence_cmp(
        &mut self,
        xs: &[RunValue],
        ys: &[RunValue],
        symbol: &str,
        depth: usize,
        at: At,
    ) -> R<Option<Ordering>> {
        for (x, y) in xs.iter().zip(ys) {
            self.charge(1, at)?;
            if !identical(x, y) && !self.eq_depth(x, y, depth + 1, at)? {
                return self.partial_cmp(x, y, symbol, depth + 1, at);
            }
        }
        Ok(Some(xs.len().cmp(&ys.len())))
    }

    /// `a == b`.
    pub(crate) fn eq(&mut self, a: &RunValue, b: &RunValue, at: At) -> R<bool> {
        self.eq_depth(a, b, 0, at)
    }

    fn eq_depth(&mut self, a: &RunValue, b: &RunValue, depth: usize, at: At) -> R<bool> {
        if depth > MAX_VALUE_DEPTH {
            let message = "maximum recursion depth exceeded in comparison";
            return Err(self.raise("RecursionError", message, at));
        }
        if a.is_number() && b.is_number() {
            return Ok(number_cmp(a, b) == Some(Ordering::Equal));
        }
        Ok(match (a, b) {
            (RunValue::Str(x), RunValue::Str(y)) => {
                self.charge(x.len().min(y.len()), at)?;
                x == y
            }
            (RunValue::Bytes(x), RunValue::Bytes(y)) => {
                self.charge(x.len().min(y.len()), at)?;
                x == y
            }
            (RunValue::List(x), RunValue::List(y)) if x.frozen.get() || y.frozen.get() => {
                // A frozenset equals the set with the same items, in any order.
                let (xs, ys) = (x.items.borrow().clone(), y.items.borrow().clone());
                if xs.len() != ys.len() {
                    return Ok(false);
                }
                for item in &xs {
                    if !self.sequence_contains(&ys, item, at)? {
                        return Ok(false);
                    }
                }
                true
            }
            (RunValue::List(x), RunValue::List(y)) => {
                Rc::ptr_eq(x, y) || {
                    let (xs, ys) = (x.items.borrow(), y.items.borrow());
                    self.sequence_eq(&xs, &ys, depth, at)?
                }
            }
            (RunValue::Tuple(x), RunValue::Tuple(y)) => {
                self.sequence_eq(&x.items, &y.items, depth, at)?
            }
            (RunValue::Dict(x), RunValue::Dict(y)) => {
                if Rc::ptr_eq(x, y) {
                    return Ok(true);
                }
                let (xs, ys) = (x.entries.borrow(), y.entries.borrow());
                if xs.len() != ys.len() {
                    return Ok(false);
                }
                for (key, value) in xs.iter() {
                    let Some(i) = self.find_key(&ys, key, at)? else { return Ok(false) };
                    let Some((_, other)) = ys.get(i) else { return Ok(false) };
                    if !identical(value, other) && !self.eq_depth(value, other, depth + 1, at)? {
                        return Ok(false);
                    }
                }
                true
            }
            (RunValue::Object(x), RunValue::Object(y)) => {
                if x.class != y.class || x.model != y.model || x.fields.len() != y.fields.len() {
                    return Ok(false);
                }
                for ((xn, xv), (yn, yv)) in x.fields.iter().zip(&y.fields) {
                    if xn != yn || !self.eq_depth(xv, yv, depth + 1, at)? {
                        return Ok(false);
                    }
                }
                true
            }
            (RunValue::Range(..), RunValue::Range(..)) => range_eq(a, b),
            (RunValue::Temporal(x), RunValue::Temporal(y)) => Self::temporal_eq(*x, *y),
            (RunValue::Native(x), _) | (_, RunValue::Native(x))
                if matches!(**x, super::net::Native::Url(_)) =>
            {
                let items = |v: &RunValue| match v {
                    RunValue::Native(n) => match &**n {
                        super::net::Native::Url(url) => Some(Self::url_items(url)),
                        _ => None,
                    },
                    RunValue::Tuple(t) => Some(t.items.clone()),
                    _ => None,
                };
                match (items(a), items(b)) {
                    (Some(xs), Some(ys)) => self.sequence_eq(&xs, &ys, depth, at)?,
                    _ => false,
                }
            }
            (RunValue::Instance(_), _) | (_, RunValue::Instance(_)) => {
                match self.dataclass_eq(a, b, depth, at)? {
                    Some(equal) => equal,
                    None => match self.dataclass_eq(b, a, depth, at)? {
                        Some(equal) => equal,
                        None => identical(a, b),
                    },
                }
            }
            _ => identical(a, b),
        })
    }

    /// `a == b`, `depth` levels into the values compared.
    pub(crate) fn eq_at(&mut self, a: &RunValue, b: &RunValue, depth: usize, at: At) -> R<bool> {
        self.eq_depth(a, b, depth, at)
    }

    fn sequence_eq(&mut self, xs: &[RunValue], ys: &[RunValue], depth: usize, at: At) -> R<bool> {
        if xs.len() != ys.len() {
            return Ok(false);
        }
        for (x, y) in xs.iter().zip(ys) {
            self.charge(1, at)?;
            if !identical(x, y) && !self.eq_depth(x, y, depth + 1, at)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// `item in container`.
    pub(crate) fn contains(&mut self, container: &RunValue, item: &RunValue, at: At) -> R<bool> {
        self.foreign(&[container, item], at)?;
        match container {
            RunValue::Native(native) => {
                let native = native.clone();
                self.native_contains(&native, item, at)
            }
            RunValue::Str(s) => match item {
                RunValue::Str(sub) => {
                    self.charge(s.len(), at)?;
                    Ok(s.contains(&**sub))
                }
                other => {
                    let message = format!(
                        "'in <string>' requires string as left operand, not {}",
                        self.type_name(other)
                    );
                    Err(self.type_error(message, at))
                }
            },
            RunValue::Bytes(data) => match item {
                RunValue::Bytes(sub) => {
                    self.charge(data.len().saturating_mul(sub.len().max(1)), at)?;
                    Ok(sub.is_empty() || data.windows(sub.len()).any(|w| w == &**sub))
                }
                other if other.as_int().is_some() => {
                    match u8::try_from(other.as_int().unwrap_or(-1)) {
                        Ok(byte) => Ok(data.contains(&byte)),
                        Err(_) => {
                            Err(self.raise("ValueError", "byte must be in range(0, 256)", at))
                        }
                    }
                }
                other => {
                    let message =
                        format!("a bytes-like object is required, not '{}'", self.type_name(other));
                    Err(self.type_error(message, at))
                }
            },
            RunValue::List(list) => {
                let items = list.items.borrow();
                self.sequence_contains(&items, item, at)
            }
            RunValue::Tuple(tuple) => self.sequence_contains(&tuple.items, item, at),
            RunValue::Dict(dict) => {
                let entries = dict.entries.borrow();
                Ok(self.find_key(&entries, item, at)?.is_some())
            }
            RunValue::Range(start, stop, step) => {
                let Some(n) = item.as_int().or_else(|| match item {
                    #[allow(clippy::cast_possible_truncation)]
                    RunValue::Float(x) if x.fract() == 0.0 && x.abs() < 9.0e18 => Some(*x as i64),
                    _ => None,
                }) else {
                    return Ok(false);
                };
                let (start, stop, step) =
                    (i128::from(*start), i128::from(*stop), i128::from(*step));
                let n = i128::from(n);
                let inside = if step > 0 { start <= n && n < stop } else { stop < n && n <= start };
                Ok(inside && (n - start) % step == 0)
            }
            other => {
                let message =
                    format!("argument of type '{}' is not iterable", self.type_name(other));
                Err(self.type_error(message, at))
            }
        }
    }

    fn sequence_contains(&mut self, items: &[RunValue], item: &RunValue, at: At) -> R<bool> {
        for candidate in items {
            self.charge(1, at)?;
            if identical(candidate, item) || self.eq(candidate, item, at)? {
                return Ok(true);
            }
        }
        Ok(false)
    }

    // ----- dicts -----

    /// Raises `TypeError` unless `value` can be a dict key.
    pub(crate) fn hashable(&self, value: &RunValue, at: At) -> R<()> {
        let mut stack = vec![(value.clone(), 0usize)];
        while let Some((v, depth)) = stack.pop() {
            match &v {
                RunValue::List(list) if list.frozen.get() => {
                    let what = "a frozenset as a dict key or set item (it is a list here)";
                    return Err(self.unsupported(what, at));
                }
                RunValue::List(_) | RunValue::Dict(_) | RunValue::Object(_) => {
                    let message = format!("unhashable type: '{}'", self.type_name(&v));
                    return Err(self.type_error(message, at));
                }
                RunValue::Tuple(tuple) if depth < MAX_VALUE_DEPTH => {
                    stack.extend(tuple.items.iter().map(|item| (item.clone(), depth + 1)));
                }
                RunValue::Instance(instance) => match self.instance_hash(instance.class) {
                    super::classes::Hash::Identity => {}
                    super::classes::Hash::None => {
                        let message = format!("unhashable type: '{}'", self.type_name(&v));
                        return Err(self.type_error(message, at));
                    }
                    super::classes::Hash::Fields(class) if depth < MAX_VALUE_DEPTH => {
                        let fields = self.hashed_fields(instance, class);
                        stack.extend(fields.into_iter().map(|item| (item, depth + 1)));
                    }
                    super::classes::Hash::Fields(_) => {}
                },
                _ => {}
            }
        }
        Ok(())
    }

    /// The index of `key` among a dict's entries.
    pub(crate) fn find_key(
        &mut self,
        entries: &[(RunValue, RunValue)],
        key: &RunValue,
        at: At,
    ) -> R<Option<usize>> {
        self.hashable(key, at)?;
        self.charge(entries.len(), at)?;
        for (i, (candidate, _)) in entries.iter().enumerate() {
            if identical(candidate, key) || self.eq(candidate, key, at)? {
                return Ok(Some(i));
            }
        }
        Ok(None)
    }

    /// `d[key] = value`.
    pub(crate) fn dict_set(
        &mut self,
        dict: &Rc<DictObj>,
        key: RunValue,
        value: RunValue,
        at: At,
    ) -> R<()> {
        let found = {
            let entries = dict.entries.borrow();
            self.find_key(&entries, &key, at)?
        };
        let Ok(mut entries) = dict.entries.try_borrow_mut() else {
            return Err(self.raise("RuntimeError", "dictionary changed size during iteration", at));
        };
        match found.and_then(|i| entries.get_mut(i)) {
            Some(entry) => entry.1 = value,
            None => {
                if entries.len() >= MAX_SIZE {
                    drop(entries);
                    return Err(self.memory_error(at));
                }
                entries.push((key, value));
            }
        }
        Ok(())
    }

    /// Mutable access to a list's items.
    pub(crate) fn list_mut<'l>(
        &self,
        list: &'l ListObj,
        at: At,
    ) -> R<std::cell::RefMut<'l, Vec<RunValue>>> {
        list.items
            .try_borrow_mut()
            .map_err(|_| self.raise("RuntimeError", "list changed during iteration", at))
    }

    /// Appends `items` to a list, within [`MAX_SIZE`].
    pub(crate) fn extend_list(&mut self, list: &ListObj, items: Vec<RunValue>, at: At) -> R<()> {
        self.charge(items.len(), at)?;
        let mut target = self.list_mut(list, at)?;
        if target.len() + items.len() > MAX_SIZE {
            drop(target);
            return Err(self.memory_error(at));
        }
        target.extend(items);
        Ok(())
    }

    /// The values without duplicates, first occurrences kept (a set, as a list).
    pub(crate) fn unique(&mut self, values: Vec<RunValue>, at: At) -> R<Vec<RunValue>> {
        let mut out: Vec<RunValue> = Vec::with_capacity(values.len());
        for value in values {
            self.hashable(&value, at)?;
            let mut seen = false;
            self.charge(out.len(), at)?;
            for kept in &out {
                if identical(kept, &value) || self.eq(kept, &value, at)? {
                    seen = true;
                    break;
                }
            }
            if !seen {
                out.push(value);
            }
        }
        Ok(out)
    }

    // ----- items -----

    fn index(&self, key: &RunValue, len: usize, what: &str, at: At) -> R<usize> {
        let Some(i) = key.as_int() else {
            let message = if what == "string" {
                format!("string indices must be integers, not '{}'", self.type_name(key))
            } else {
                let kind = what.split(' ').next().unwrap_or(what);
                format!("{kind} indices must be integers or slices, not {}", self.type_name(key))
            };
            return Err(self.type_error(message, at));
        };
        let len = i64::try_from(len).unwrap_or(i64::MAX);
        let j = if i < 0 { i.saturating_add(len) } else { i };
        if j < 0 || j >= len {
            return Err(self.raise("IndexError", format!("{what} index out of range"), at));
        }
        Ok(usize::try_from(j).unwrap_or(0))
    }

    /// `container[key]`.
    pub(crate) fn get_item(&mut self, container: &RunValue, key: &RunValue, at: At) -> R<RunValue> {
        self.foreign(&[container, key], at)?;
        match container {
            RunValue::List(list) if list.frozen.get() => {
                Err(self.type_error("'frozenset' object is not subscriptable", at))
            }
            RunValue::Native(native) => {
                let native = native.clone();
                self.native_item(&native, key, at)
            }
            RunValue::List(list) => {
                let items = list.items.borrow();
                let i = self.index(key, items.len(), "list", at)?;
                Ok(items.get(i).cloned().unwrap_or(RunValue::None))
            }
            RunValue::Tuple(tuple) => {
                let i = self.index(key, tuple.items.len(), "tuple", at)?;
                Ok(tuple.items.get(i).cloned().unwrap_or(RunValue::None))
            }
            RunValue::Bytes(data) => match self.index(key, data.len(), "byte", at) {
                Ok(i) => Ok(RunValue::Int(i64::from(data.get(i).copied().unwrap_or(0)))),
                Err(Signal::Raise(raised)) if &*raised.exc.class == "IndexError" => {
                    Err(self.raise("IndexError", "index out of range", at))
                }
                Err(other) => Err(other),
            },
            RunValue::Str(s) => {
                let len = self.char_count(s, at)?;
                let i = self.index(key, len, "string", at)?;
                let c = if s.is_ascii() {
                    s.get(i..=i).map(str::to_owned)
                } else {
                    s.chars().nth(i).map(String::from)
                };
                Ok(RunValue::str(&c.unwrap_or_default()))
            }
            RunValue::Dict(dict) => {
                let entries = dict.entries.borrow();
                match self.find_key(&entries, key, at)? {
                    Some(i) => Ok(entries.get(i).map_or(RunValue::None, |(_, v)| v.clone())),
                    None => Err(self.raise_with("KeyError", vec![key.clone()], at)),
                }
            }
            RunValue::Match(found) => self.re_match_item(found, key, at),
            RunValue::Range(start, stop, step) => {
                let len = usize::try_from(range_len(*start, *stop, *step)).unwrap_or(usize::MAX);
                let i = self.index(key, len, "range object", at)?;
                let i = i64::try_from(i).unwrap_or(0);
                Ok(RunValue::Int(start.wrapping_add(i.wrapping_mul(*step))))
            }
            RunValue::Type(ty) => {
                Err(self.unsupported(&format!("the generic alias `{}[…]`", ty.name()), at))
            }
            other => {
                let message = format!("'{}' object is not subscriptable", self.type_name(other));
                Err(self.type_error(message, at))
            }
        }
    }

    /// `container[key] = value`.
    pub(crate) fn set_item(
        &mut self,
        container: &RunValue,
        key: RunValue,
        value: RunValue,
        at: At,
    ) -> R<()> {
        self.foreign(&[container], at)?;
        match container {
            RunValue::List(list) if list.frozen.get() => {
                Err(self.type_error("'frozenset' object does not support item assignment", at))
            }
            RunValue::List(list) => {
                let len = list.items.borrow().len();
                let i = self.index(&key, len, "list assignment", at)?;
                if let Some(slot) = self.list_mut(list, at)?.get_mut(i) {
                    *slot = value;
                }
                Ok(())
            }
            RunValue::Dict(dict) => self.dict_set(dict, key, value, at),
            other => {
                let message =
                    format!("'{}' object does not support item assignment", self.type_name(other));
                Err(self.type_error(message, at))
            }
        }
    }

    /// `del container[key]`.
    pub(crate) fn del_item(&mut self, container: &RunValue, key: &RunValue, at: At) -> R<()> {
        self.foreign(&[container], at)?;
        match container {
            RunValue::List(list) if list.frozen.get() => {
                Err(self.type_error("'frozenset' object doesn't support item deletion", at))
            }
            RunValue::List(list) => {
                let len = list.items.borrow().len();
                let i = self.index(key, len, "list assignment", at)?;
                self.charge(len, at)?;
                let mut items = self.list_mut(list, at)?;
                if i < items.len() {
                    items.remove(i);
                }
                Ok(())
            }
            RunValue::Dict(dict) => {
                let found = {
                    let entries = dict.entries.borrow();
                    self.find_key(&entries, key, at)?
                };
                let Some(i) = found else {
                    return Err(self.raise_with("KeyError", vec![key.clone()], at));
                };
                let mut entries = dict.entries.try_borrow_mut().map_err(|_| {
                    self.raise("RuntimeError", "dictionary changed during iteration", at)
                })?;
                if i < entries.len() {
                    entries.remove(i);
                }
                Ok(())
            }
            other => {
                let message =
                    format!("'{}' object doesn't support item deletion", self.type_name(other));
                Err(self.type_error(message, at))
            }
        }
    }

    /// `container[lower:upper:step]`.
    pub(crate) fn slice(
        &mut self,
        container: &RunValue,
        lower: Option<RunValue>,
        upper: Option<RunValue>,
        step: Option<RunValue>,
        at: At,
    ) -> R<RunValue> {
        self.foreign(&[container], at)?;
        if let RunValue::List(list) = container
            && list.frozen.get()
        {
            return Err(self.type_error("'frozenset' object is not subscriptable", at));
        }
        let bound = |value: Option<RunValue>| -> R<Option<i64>> {
            match value {
                None | Some(RunValue::None) => Ok(None),
                Some(v) => v.as_int().map(Some).ok_or_else(|| {
                    self.type_error(
                        "slice indices must be integers or None or have an __index__ method",
                        at,
                    )
                }),
            }
        };
        let (lower, upper, step) = (bound(lower)?, bound(upper)?, bound(step)?);
        let step = step.unwrap_or(1);
        if step == 0 {
            return Err(self.raise("ValueError", "slice step cannot be zero", at));
        }
        let pick = |len: usize| slice_indices(len, lower, upper, step);
        match container {
            RunValue::List(list) => {
                let items = list.items.borrow();
                let chosen: Vec<RunValue> =
                    pick(items.len()).filter_map(|i| items.get(i).cloned()).collect();
                drop(items);
                self.charge(chosen.len(), at)?;
                Ok(self.new_list(chosen))
            }
            RunValue::Tuple(tuple) => {
                let chosen: Vec<RunValue> =
                    pick(tuple.items.len()).filter_map(|i| tuple.items.get(i).cloned()).collect();
                self.charge(chosen.len(), at)?;
                Ok(RunValue::tuple(chosen))
            }
            RunValue::Bytes(data) => {
                let chosen: Vec<u8> =
                    pick(data.len()).filter_map(|i| data.get(i).copied()).collect();
                self.charge(chosen.len(), at)?;
                Ok(RunValue::Bytes(chosen.into()))
            }
            RunValue::Str(s) => {
                self.charge(s.len(), at)?;
                let chars: Vec<char> = s.chars().collect();
                let text: String = pick(chars.len()).filter_map(|i| chars.get(i)).collect();
                Ok(RunValue::str(&text))
            }
            RunValue::Range(start, stop, range_step) => {
                let len = usize::try_from(range_len(*start, *stop, *range_step)).unwrap_or(0);
                let values: Vec<i64> = pick(len)
                    .map(|i| {
                        start.wrapping_add(i64::try_from(i).unwrap_or(0).wrapping_mul(*range_step))
                    })
                    .collect();
                self.charge(values.len(), at)?;
                Ok(self.new_list(values.into_iter().map(RunValue::Int).collect()))
            }
            RunValue::Dict(_) => Err(self.type_error("unhashable type: 'slice'", at)),
            other => {
                let message = format!("'{}' object is not subscriptable", self.type_name(other));
                Err(self.type_error(message, at))
            }
        }
    }

    // ----- attributes -----

    /// `value.name`.
    pub(crate) fn get_attr(&mut self, value: RunValue, name: &str, at: At) -> R<RunValue> {
        match &value {
            RunValue::Foreign(what) => Err(self.unsupported(&format!("{what} (`.{name}`)"), at)),
            RunValue::Context if name == "memory" => Ok(RunValue::Memory),
            RunValue::Context => Err(self.unsupported(
                &format!("`context.{name}` (only `context.memory.get/set` runs)"),
                at,
            )),
            RunValue::Memory if name == "get" || name == "set" => Ok(RunValue::bound(value, name)),
            RunValue::Memory => Err(self.unsupported(&format!("`context.memory.{name}`"), at)),
            RunValue::Client => Ok(RunValue::bound(value, name)),
            RunValue::Object(object) => {
                if let Some((_, field)) = object.fields.iter().find(|(k, _)| &**k == name) {
                    return Ok(field.clone());
                }
                let program = self.program;
                let model = object.model.and_then(|i| program.models.get(i));
                if let Some(model) = model {
                    if name == "model_dump" {
                        return Ok(RunValue::bound(value.clone(), name));
                    }
                    if model.methods.iter().any(|m| m == name) || name.starts_with("model_") {
                        let what = format!("`{}.{name}`", object.class);
                        return Err(self.unsupported(&what, at));
                    }
                }
                let message = format!("'{}' object has no attribute '{name}'", object.class);
                Err(self.raise("AttributeError", message, at))
            }
            RunValue::Module(module) => self.module_attr(*module, name, at),
            RunValue::Unit(unit) => self.unit_attribute(*unit, name, at),
            RunValue::Native(native) => {
                let native = native.clone();
                self.native_attr(&value, &native, name, at)
            }
            RunValue::Pattern(_) => self.re_pattern_attr(&value, name, at),
            RunValue::Match(_) => self.re_match_attr(&value, name, at),
            RunValue::Temporal(t) => self.temporal_attr(&value, *t, name, at),
            RunValue::TemporalClass(kind) => self.temporal_class_attr(*kind, name, at),
            RunValue::Instance(_) => self.instance_attr(&value, name, at),
            RunValue::Class(class) => self.class_attr(*class, name, at),
            RunValue::Super(method) => self.super_attr(method, name, at),
            RunValue::Model(i) if name == "__name__" => {
                let program = self.program;
                Ok(RunValue::str(program.models.get(*i).map_or("?", |m| m.name.as_str())))
            }
            RunValue::ExcClass(class) if name == "__name__" || name == "__qualname__" => {
                Ok(RunValue::str(super::net::short_name(class)))
            }
            RunValue::ExcClass(class) if self.exc_class_def(class).is_some() => {
                let class = class.clone();
                self.exc_class_attr(&class, name, at)
            }
            RunValue::Exc(_) => self.exc_attr(&value, name, at),
            RunValue::Type(ty) if name == "__name__" => Ok(RunValue::str(ty.name())),
            RunValue::ToolResult if name == "__name__" => Ok(RunValue::str("ToolResult")),
            RunValue::Bytes(_) => {
                if name == "decode" {
                    return Ok(RunValue::bound(value, name));
                }
                if BYTES_METHODS.contains(&name) || name.starts_with("__") {
                    return Err(self.unsupported(&format!("`bytes.{name}()`"), at));
                }
                let message = format!("'bytes' object has no attribute '{name}'");
                Err(self.raise("AttributeError", message, at))
            }
            RunValue::Str(_) | RunValue::List(_) | RunValue::Dict(_) => {
                let kind = self.type_name(&value);
                if super::builtins::has_method(&kind, name) {
                    return Ok(RunValue::bound(value, name));
                }
                if super::builtins::python_has_method(&kind, name) {
                    return Err(self.unsupported(&format!("`{kind}.{name}()`"), at));
                }
                let message = format!("'{kind}' object has no attribute '{name}'");
                Err(self.raise("AttributeError", message, at))
            }
            RunValue::Model(_)
            | RunValue::Type(_)
            | RunValue::ToolResult
            | RunValue::ExcClass(_) => {
                Err(self.unsupported(&format!("the class attribute `.{name}`"), at))
            }
            other => {
                let kind = self.type_name(other);
                if super::builtins::python_has_method(&kind, name) {
                    return Err(self.unsupported(&format!("`{kind}.{name}`"), at));
                }
                let message = format!("'{kind}' object has no attribute '{name}'");
                Err(self.raise("AttributeError", message, at))
            }
        }
    }

    /// `module.name` for the modules of the standard library the subset knows.
    pub(crate) fn module_attr(&mut self, module: StdModule, name: &str, at: At) -> R<RunValue> {
        if matches!(module, StdModule::Datetime | StdModule::Time) {
            return self.datetime_module_attr(module, name, at);
        }
        if module == StdModule::Re
            && let Some(found) = self.re_attr(name, at)?
        {
            return Ok(found);
        }
        let found = match (module, name) {
            (StdModule::Os, "environ") => Some(self.environ()),
            (StdModule::Os, "getenv") => Some(RunValue::Builtin(Builtin::Getenv)),
            (StdModule::Os, "path") => Some(RunValue::Module(StdModule::OsPath)),
            (StdModule::OsPath, "join") => Some(RunValue::Builtin(Builtin::PathJoin)),
            (StdModule::OsPath, "dirname") => Some(RunValue::Builtin(Builtin::PathDirname)),
            (StdModule::OsPath, "basename") => Some(RunValue::Builtin(Builtin::PathBasename)),
            (StdModule::OsPath, "abspath") => Some(RunValue::Builtin(Builtin::PathAbspath)),
            (StdModule::Sys, "path") => Some(self.sys_path()),
            (StdModule::Dotenv, "load_dotenv") => Some(RunValue::Builtin(Builtin::LoadDotenv)),
            (StdModule::Httpx, "Client") => Some(RunValue::Builtin(Builtin::HttpxClient)),
            (StdModule::Httpx, "AsyncClient") => Some(RunValue::Builtin(Builtin::HttpxAsyncClient)),
            (StdModule::Httpx, name)
                if super::runtime::is_builtin_exception(&format!("httpx.{name}")) =>
            {
                Some(RunValue::ExcClass(Rc::from(format!("httpx.{name}").as_str())))
            }
            (StdModule::Http, "server") => Some(RunValue::Module(StdModule::HttpServer)),
            (StdModule::Requests, "Session") => Some(RunValue::Builtin(Builtin::RequestsSession)),
            (StdModule::Requests, "exceptions") => {
                Some(RunValue::Module(StdModule::RequestsExceptions))
            }
            (
                StdModule::Requests,
                "get" | "post" | "put" | "patch" | "delete" | "head" | "options" | "request",
            ) => Some(RunValue::bound(self.new_session(), name)),
            (StdModule::Requests | StdModule::RequestsExceptions, name)
                if super::runtime::is_builtin_exception(&format!("requests.{name}")) =>
            {
                Some(RunValue::ExcClass(Rc::from(format!("requests.{name}").as_str())))
            }
            (StdModule::Json, "dumps") => Some(RunValue::Builtin(Builtin::JsonDumps)),
            (StdModule::Json, "loads") => Some(RunValue::Builtin(Builtin::JsonLoads)),
            (StdModule::Json, "decoder") => Some(RunValue::Module(StdModule::JsonDecoder)),
            (StdModule::Json | StdModule::JsonDecoder, "JSONDecodeError") => {
                Some(RunValue::ExcClass(Rc::from("JSONDecodeError")))
            }
            (StdModule::Dataclasses, "FrozenInstanceError") => {
                Some(RunValue::ExcClass(Rc::from("FrozenInstanceError")))
            }
            (StdModule::Dataclasses, "asdict") => Some(RunValue::Builtin(Builtin::Asdict)),
            (StdModule::Dataclasses, "replace") => Some(RunValue::Builtin(Builtin::Replace)),
            (StdModule::Contextlib, "suppress") => Some(RunValue::Builtin(Builtin::Suppress)),
            (StdModule::Urllib, "parse") => Some(RunValue::Module(StdModule::UrllibParse)),
            (StdModule::UrllibParse, "parse_qs") => Some(RunValue::Builtin(Builtin::ParseQs)),
            (StdModule::UrllibParse, "parse_qsl") => Some(RunValue::Builtin(Builtin::ParseQsl)),
            (StdModule::UrllibParse, "urlparse") => Some(RunValue::Builtin(Builtin::Urlparse)),
            (StdModule::UrllibParse, "urlsplit") => Some(RunValue::Builtin(Builtin::Urlsplit)),
            (StdModule::UrllibParse, "urlencode") => Some(RunValue::Builtin(Builtin::Urlencode)),
            (StdModule::UrllibParse, "quote") => Some(RunValue::Builtin(Builtin::Quote)),
            (StdModule::UrllibParse, "quote_plus") => Some(RunValue::Builtin(Builtin::QuotePlus)),
            (StdModule::UrllibParse, "unquote") => Some(RunValue::Builtin(Builtin::Unquote)),
            (StdModule::UrllibParse, "unquote_plus") => {
                Some(RunValue::Builtin(Builtin::UnquotePlus))
            }
            _ => None,
        };
        if let Some(found) = found {
            return Ok(found);
        }
        let known = match module {
            StdModule::Json => JSON_NAMES.contains(&name),
            StdModule::JsonDecoder => JSON_DECODER_NAMES.contains(&name),
            // Much more than the subset has: refuse rather than claim it is missing.
            StdModule::Os
            | StdModule::OsPath
            | StdModule::Sys
            | StdModule::Dotenv
            | StdModule::Httpx
            | StdModule::Http
            | StdModule::HttpServer
            | StdModule::Dataclasses
            | StdModule::Contextlib
            | StdModule::Urllib
            | StdModule::UrllibParse
            | StdModule::Requests
            | StdModule::RequestsExceptions => true,
            StdModule::Re | StdModule::Datetime | StdModule::Time => false,
        };
        if known || name.starts_with("__") {
            return Err(self.unsupported(&format!("`{}.{name}`", module.name()), at));
        }
        let message = format!("module '{}' has no attribute '{name}'", module.name());
        Err(self.raise("AttributeError", message, at))
    }

    // ----- iteration -----

    /// Starts iterating over `value`.
    pub(crate) fn iter(&mut self, value: &RunValue, at: At) -> R<Iter> {
        self.foreign(&[value], at)?;
        match value {
            RunValue::List(list) => Ok(Iter::List(list.clone(), 0)),
            RunValue::Tuple(tuple) => {
                self.charge(tuple.items.len(), at)?;
                Ok(Iter::Items(tuple.items.clone().into_iter()))
            }
            RunValue::Str(s) => Ok(Iter::Chars(s.clone(), 0)),
            RunValue::Bytes(data) => {
                self.charge(data.len(), at)?;
                let items: Vec<RunValue> =
                    data.iter().map(|&b| RunValue::Int(i64::from(b))).collect();
                Ok(Iter::Items(items.into_iter()))
            }
            RunValue::Dict(dict) => {
                let keys: Vec<RunValue> =
                    dict.entries.borrow().iter().map(|(k, _)| k.clone()).collect();
                self.charge(keys.len(), at)?;
                Ok(Iter::Items(keys.into_iter()))
            }
            RunValue::Range(start, stop, step) => {
                Ok(Iter::Range(*start, *step, range_len(*start, *stop, *step)))
            }
            RunValue::Native(native) if matches!(**native, super::net::Native::Url(_)) => {
                let super::net::Native::Url(url) = &**native else {
                    return Ok(Iter::Items(Vec::new().into_iter()));
                };
                Ok(Iter::Items(Self::url_items(url).into_iter()))
            }
            RunValue::Object(object) if object.model.is_some() => {
                let pairs: Vec<RunValue> = object
                    .fields
                    .iter()
                    .map(|(k, v)| RunValue::tuple(vec![RunValue::Str(k.clone()), v.clone()]))
                    .collect();
                Ok(Iter::Items(pairs.into_iter()))
            }
            other => {
                let message = format!("'{}' object is not iterable", self.type_name(other));
                Err(self.type_error(message, at))
            }
        }
    }

    /// The next item of an iteration.
    pub(crate) fn next(&mut self, iter: &mut Iter) -> Option<RunValue> {
        match iter {
            Iter::List(list, i) => {
                let item = list.items.borrow().get(*i).cloned();
                *i += 1;
                item
            }
            Iter::Items(items) => items.next(),
            Iter::Range(next, step, left) => {
                if *left == 0 {
                    return None;
                }
                let value = *next;
                *left -= 1;
                *next = next.wrapping_add(*step);
                Some(RunValue::Int(value))
            }
            Iter::Chars(s, at) => {
                let c = s.get(*at..)?.chars().next()?;
                *at += c.len_utf8();
                let mut buffer = [0u8; 4];
                Some(RunValue::str(c.encode_utf8(&mut buffer)))
            }
        }
    }

    /// Every item of an iterable, within [`MAX_SIZE`].
    pub(crate) fn collect(&mut self, value: &RunValue, at: At) -> R<Vec<RunValue>> {
        match value {
            RunValue::List(list) => {
                let items = list.items.borrow().clone();
                self.charge(items.len(), at)?;
                return Ok(items);
            }
            RunValue::Range(start, stop, step)
                if range_len(*start, *stop, *step) > MAX_SIZE as u64 =>
            {
                return Err(self.memory_error(at));
            }
            _ => {}
        }
        let mut iter = self.iter(value, at)?;
        let mut out = Vec::new();
        while let Some(item) = self.next(&mut iter) {
            if out.len() >= MAX_SIZE {
                return Err(self.memory_error(at));
            }
            self.charge(1, at)?;
            out.push(item);
        }
        Ok(out)
    }

    /// Exactly `count` items of an iterable, for unpacking.
    pub(crate) fn unpack(&mut self, value: &RunValue, count: usize, at: At) -> R<Vec<RunValue>> {
        let mut iter = match self.iter(value, at) {
            Ok(iter) => iter,
            Err(Signal::Raise(_)) => {
                let message =
                    format!("cannot unpack non-iterable {} object", self.type_name(value));
                return Err(self.type_error(message, at));
            }
            Err(stop) => return Err(stop),
        };
        let mut out = Vec::with_capacity(count);
        while let Some(item) = self.next(&mut iter) {
            if out.len() == count {
                let message = format!("too many values to unpack (expected {count})");
                return Err(self.raise("ValueError", message, at));
            }
            out.push(item);
        }
        if out.len() < count {
            let message =
                format!("not enough values to unpack (expected {count}, got {})", out.len());
            return Err(self.raise("ValueError", message, at));
        }
        Ok(out)
    }

    // ----- text -----

    /// `repr(value)`.
    pub(crate) fn repr(&mut self, value: &RunValue, at: At) -> R<String> {
        let mut out = String::new();
        self.write_repr(value, &mut out, 0, &mut Vec::new(), at)?;
        self.check_str(&out, at)?;
        Ok(out)
    }

    /// `str(value)`.
    pub(crate) fn str_of(&mut self, value: &RunValue, at: At) -> R<String> {
        match value {
            RunValue::Str(s) => Ok(s.to_string()),
            RunValue::Instance(_) => match self.instance_text(value, "__str__", at)? {
                Some(text) => Ok(text),
                None => self.repr(value, at),
            },
            RunValue::Exc(exc) => {
                let exc = exc.clone();
                self.exc_str(&exc, at)
            }
            RunValue::Temporal(t) => Ok(t.text()),
            RunValue::Object(object) if object.model.is_some() => {
                let mut out = String::new();
                for (i, (name, field)) in object.fields.iter().enumerate() {
                    if i > 0 {
                        out.push(' ');
                    }
                    out.push_str(name);
                    out.push('=');
                    self.write_repr(field, &mut out, 1, &mut Vec::new(), at)?;
                }
                self.check_str(&out, at)?;
                Ok(out)
            }
            other => self.repr(other, at),
        }
    }

    /// `str(exc)`: its class's `__str__`, or the builtin one.
    pub(crate) fn exc_str(&mut self, exc: &Rc<ExcObj>, at: At) -> R<String> {
        if self.exc_class_def(&exc.class).is_some()
            && let Some(text) = self.instance_text(&RunValue::Exc(exc.clone()), "__str__", at)?
        {
            return Ok(text);
        }
        self.builtin_exc_str(exc, at)
    }

    /// `BaseException.__str__`: from `args`.
    pub(crate) fn builtin_exc_str(&mut self, exc: &ExcObj, at: At) -> R<String> {
        let args = exc.args.borrow().clone();
        if self.is_subclass(&exc.class, "UnicodeError")
            && let Some(message) = super::codec::unicode_error_str(&args)
        {
            return Ok(message);
        }
        match args.as_slice() {
            [] => Ok(String::new()),
            [only] if self.is_subclass(&exc.class, "KeyError") => self.repr(only, at),
            [only] => self.str_of(only, at),
            args => self.repr(&RunValue::tuple(args.to_vec()), at),
        }
    }

    fn write_repr(
        &mut self,
        value: &RunValue,
        out: &mut String,
        depth: usize,
        seen: &mut Vec<*const ()>,
        at: At,
    ) -> R<()> {
        if depth > MAX_VALUE_DEPTH {
            let message = "maximum recursion depth exceeded while getting the repr of an object";
            return Err(self.raise("RecursionError", message, at));
        }
        if out.len() > 4 * MAX_SIZE {
            return Err(self.memory_error(at));
        }
        self.charge(1, at)?;
        match value {
            RunValue::None => out.push_str("None"),
            RunValue::Bool(true) => out.push_str("True"),
            RunValue::Bool(false) => out.push_str("False"),
            RunValue::Int(n) => out.push_str(&n.to_string()),
            RunValue::Float(x) => out.push_str(&repr_float(*x)),
            RunValue::Str(s) => {
                self.charge(s.len(), at)?;
                repr_str(s, out);
            }
            RunValue::Bytes(data) => {
                self.charge(data.len(), at)?;
                repr_bytes(data, out);
            }
            RunValue::List(list) => self.write_list(list, out, depth, seen, at)?,
            RunValue::Tuple(tuple) => {
                out.push('(');
                self.write_items(&tuple.items, out, depth, seen, at)?;
                if tuple.items.len() == 1 {
                    out.push(',');
                }
                out.push(')');
            }
            RunValue::Dict(dict) => self.write_dict(dict, out, depth, seen, at)?,
            RunValue::Object(object) => {
                out.push_str(&object.class);
                out.push('(');
                self.write_fields(&object.fields, out, depth, seen, at)?;
                out.push(')');
            }
            RunValue::Exc(exc) => {
                if self.exc_class_def(&exc.class).is_some()
                    && let Some(text) = self.instance_text(value, "__repr__", at)?
                {
                    out.push_str(&text);
                    return Ok(());
                }
                self.write_exc_repr(exc, out, depth, seen, at)?;
            }
            RunValue::Native(native) if matches!(**native, super::net::Native::Url(_)) => {
                if let super::net::Native::Url(url) = &**native {
                    out.push_str(&self.url_repr(url, at)?);
                }
            }
            RunValue::Instance(instance) => match self.instance_text(value, "__repr__", at)? {
                Some(text) => out.push_str(&text),
                None => {
                    out.push('<');
                    out.push_str(self.class_name(instance.class));
                    out.push_str(" object>");
                }
            },
            other => out.push_str(&self.describe(other)),
        }
        Ok(())
    }

    /// `BaseException.__repr__`: the class's name and `args`.
    pub(crate) fn write_exc_repr(
        &mut self,
        exc: &ExcObj,
        out: &mut String,
        depth: usize,
        seen: &mut Vec<*const ()>,
        at: At,
    ) -> R<()> {
        out.push_str(&exc.class);
        out.push('(');
        let args = exc.args.borrow().clone();
        self.write_items(&args, out, depth, seen, at)?;
        out.push(')');
        Ok(())
    }

    fn write_list(
        &mut self,
        list: &Rc<ListObj>,
        out: &mut String,
        depth: usize,
        seen: &mut Vec<*const ()>,
        at: At,
    ) -> R<()> {
        let id = Rc::as_ptr(list).cast::<()>();
        if seen.contains(&id) {
            out.push_str("[...]");
            return Ok(());
        }
        seen.push(id);
        out.push('[');
        let items = list.items.borrow();
        self.write_items(&items, out, depth, seen, at)?;
        out.push(']');
        seen.pop();
        Ok(())
    }

    fn write_dict(
        &mut self,
        dict: &Rc<DictObj>,
        out: &mut String,
        depth: usize,
        seen: &mut Vec<*const ()>,
        at: At,
    ) -> R<()> {
        let id = Rc::as_ptr(dict).cast::<()>();
        if seen.contains(&id) {
            out.push_str("{...}");
            return Ok(());
        }
        seen.push(id);
        out.push('{');
        let entries = dict.entries.borrow();
        for (i, (key, item)) in entries.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            self.write_repr(key, out, depth + 1, seen, at)?;
            out.push_str(": ");
            self.write_repr(item, out, depth + 1, seen, at)?;
        }
        out.push('}');
        seen.pop();
        Ok(())
    }

    fn write_fields(
        &mut self,
        fields: &[(Rc<str>, RunValue)],
        out: &mut String,
        depth: usize,
        seen: &mut Vec<*const ()>,
        at: At,
    ) -> R<()> {
        for (i, (name, field)) in fields.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            out.push_str(name);
            out.push('=');
            self.write_repr(field, out, depth + 1, seen, at)?;
        }
        Ok(())
    }

    /// The repr of a value that holds no other values.
    #[cold]
    fn describe(&self, value: &RunValue) -> String {
        let program = self.program;
        match value {
            RunValue::Range(start, stop, 1) => format!("range({start}, {stop})"),
            RunValue::Range(start, stop, step) => format!("range({start}, {stop}, {step})"),
            RunValue::Context => "<ToolContext>".to_owned(),
            RunValue::Memory => "<ProjectMemory>".to_owned(),
            RunValue::Client => "<CRM client>".to_owned(),
            RunValue::Function(i) => {
                let name = program.functions.get(*i).map_or("?", |f| f.name.as_str());
                format!("<function {name}>")
            }
            RunValue::Lambda(closure) => format!("<function {}>", closure.qualname),
            RunValue::Model(i) => {
                let name = program.models.get(*i).map_or("?", |m| m.name.as_str());
                format!("<class '{name}'>")
            }
            RunValue::ToolResult => "<class 'ToolResult'>".to_owned(),
            RunValue::ExcClass(class) => format!("<class '{class}'>"),
            RunValue::Type(ty) => format!("<class '{}'>", ty.name()),
            RunValue::Builtin(builtin) => format!("<built-in function {}>", builtin.name()),
            RunValue::Bound(bound) => format!("<built-in method {}>", bound.name),
            RunValue::Foreign(what) => format!("<{what}>"),
            RunValue::Module(module) => format!("<module '{}'>", module.name()),
            RunValue::Native(native) => format!("<{} object>", Self::native_type_name(native)),
            RunValue::Unit(unit) => {
                let unit = self.program.units.get(*unit);
                let module = unit.map_or("?", |u| u.module.as_str());
                let path = unit.map_or("?", |u| u.path.as_str());
                format!("<module '{module}' from '{path}'>")
            }
            RunValue::Class(class) => format!("<class '{}'>", self.class_name(*class)),
            RunValue::Method(method) => match &method.function {
                RunValue::Function(i) => {
                    let name = program.functions.get(*i).map_or("?", |f| f.name.as_str());
                    format!("<bound method {name}>")
                }
                _ => "<bound method <lambda>>".to_owned(),
            },
            RunValue::Super(_) => "<super object>".to_owned(),
            RunValue::Generated(generated) => {
                format!("<function {}.{}>", self.class_name(generated.class), generated.kind.name())
            }
            RunValue::Pattern(_) | RunValue::Match(_) => self.re_repr(value),
            RunValue::Temporal(t) => t.repr(),
            RunValue::TemporalClass(kind) => format!("<class '{}'>", kind.type_name()),
            _ => String::new(),
        }
    }

    fn write_items(
        &mut self,
        items: &[RunValue],
        out: &mut String,
        depth: usize,
        seen: &mut Vec<*const ()>,
        at: At,
    ) -> R<()> {
        for (i, item) in items.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            self.write_repr(item, out, depth + 1, seen, at)?;
        }
        Ok(())
    }
}

/// The other methods of `bytes`: outside the subset rather than missing.
const BYTES_METHODS: [&str; 40] = [
    "capitalize",
    "center",
    "count",
    "endswith",
    "expandtabs",
    "find",
    "fromhex",
    "hex",
    "index",
    "isalnum",
    "isalpha",
    "isascii",
    "isdigit",
    "islower",
    "isspace",
    "istitle",
    "isupper",
    "join",
    "ljust",
    "lower",
    "lstrip",
    "maketrans",
    "partition",
    "removeprefix",
    "removesuffix",
    "replace",
    "rfind",
    "rindex",
    "rjust",
    "rpartition",
    "rsplit",
    "rstrip",
    "split",
    "splitlines",
    "startswith",
    "strip",
    "swapcase",
    "title",
    "translate",
    "upper",
];

/// The other names of the `json` module.
const JSON_NAMES: [&str; 6] = ["dump", "load", "JSONEncoder", "JSONDecoder", "encoder", "scanner"];

/// The other names of `json.decoder`.
const JSON_DECODER_NAMES: [&str; 3] = ["JSONDecoder", "scanstring", "JSONArray"];

/// Appends Python's `repr(b)`.
fn repr_bytes(data: &[u8], out: &mut String) {
    let quote = if data.contains(&b'\'') && !data.contains(&b'"') { '"' } else { '\'' };
    out.push('b');
    out.push(quote);
    for &b in data {
        match b {
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            _ if char::from(b) == quote => {
                out.push('\\');
                out.push(quote);
            }
            0x20..=0x7e => out.push(char::from(b)),
            _ => out.push_str(&format!("\\x{b:02x}")),
        }
    }
    out.push(quote);
}

/// The items repeated `times` times.
/// Whether `a | b` is Python's union of types (`int | str`, `str | None`).
fn union_operands(a: &RunValue, b: &RunValue) -> bool {
    let is_type =
        |v: &RunValue| matches!(v, RunValue::Type(_) | RunValue::ExcClass(_) | RunValue::Model(_));
    (is_type(a) || is_type(b))
        && (is_type(a) || matches!(a, RunValue::None))
        && (is_type(b) || matches!(b, RunValue::None))
}

fn repeat_items(items: &[RunValue], times: usize) -> Vec<RunValue> {
    (0..times).flat_map(|_| items.iter().cloned()).collect()
}

/// Whether `a is b`.
pub(crate) fn identical(a: &RunValue, b: &RunValue) -> bool {
    match (a, b) {
        (RunValue::None, RunValue::None)
        | (RunValue::Context, RunValue::Context)
        | (RunValue::Memory, RunValue::Memory)
        | (RunValue::Client, RunValue::Client)
        | (RunValue::ToolResult, RunValue::ToolResult) => true,
        (RunValue::Bool(x), RunValue::Bool(y)) => x == y,
        (RunValue::Int(x), RunValue::Int(y)) => x == y,
        (RunValue::Float(x), RunValue::Float(y)) => x.to_bits() == y.to_bits(),
        (RunValue::Str(x), RunValue::Str(y)) => Rc::ptr_eq(x, y) || x == y,
        (RunValue::Bytes(x), RunValue::Bytes(y)) => Rc::ptr_eq(x, y) || x == y,
        (RunValue::Module(x), RunValue::Module(y)) => x == y,
        (RunValue::Unit(x), RunValue::Unit(y)) => x == y,
        (RunValue::Native(x), RunValue::Native(y)) => Rc::ptr_eq(x, y),
        (RunValue::Class(x), RunValue::Class(y)) => x == y,
        (RunValue::Instance(x), RunValue::Instance(y)) => Rc::ptr_eq(x, y),
        (RunValue::Method(x), RunValue::Method(y)) | (RunValue::Super(x), RunValue::Super(y)) => {
            Rc::ptr_eq(x, y)
        }
        (RunValue::List(x), RunValue::List(y)) => Rc::ptr_eq(x, y),
        (RunValue::Tuple(x), RunValue::Tuple(y)) => Rc::ptr_eq(x, y),
        (RunValue::Dict(x), RunValue::Dict(y)) => Rc::ptr_eq(x, y),
        (RunValue::Object(x), RunValue::Object(y)) => Rc::ptr_eq(x, y),
        (RunValue::Exc(x), RunValue::Exc(y)) => Rc::ptr_eq(x, y),
        (RunValue::Bound(x), RunValue::Bound(y)) => Rc::ptr_eq(x, y),
        (RunValue::Pattern(x), RunValue::Pattern(y)) => Rc::ptr_eq(x, y),
        (RunValue::Match(x), RunValue::Match(y)) => Rc::ptr_eq(x, y),
        // Values, not objects: equal ones are the same (`timezone.utc` is a singleton).
        (RunValue::Temporal(x), RunValue::Temporal(y)) => x == y,
        (RunValue::TemporalClass(x), RunValue::TemporalClass(y)) => x == y,
        (RunValue::Lambda(x), RunValue::Lambda(y)) => Rc::ptr_eq(x, y),
        (RunValue::Function(x), RunValue::Function(y))
        | (RunValue::Model(x), RunValue::Model(y)) => x == y,
        (RunValue::ExcClass(x), RunValue::ExcClass(y))
        | (RunValue::Foreign(x), RunValue::Foreign(y)) => x == y,
        (RunValue::Type(x), RunValue::Type(y)) => x == y,
        (RunValue::Builtin(x), RunValue::Builtin(y)) => x == y,
        (RunValue::Generated(x), RunValue::Generated(y)) => x == y,
        (RunValue::Range(..), RunValue::Range(..)) => range_eq(a, b),
        _ => false,
    }
}

fn range_eq(a: &RunValue, b: &RunValue) -> bool {
    let (RunValue::Range(s1, e1, t1), RunValue::Range(s2, e2, t2)) = (a, b) else { return false };
    let (n1, n2) = (range_len(*s1, *e1, *t1), range_len(*s2, *e2, *t2));
    n1 == n2 && (n1 == 0 || (s1 == s2 && (n1 == 1 || t1 == t2)))
}

/// Python's numeric comparison of ints, bools and floats, exact across types.
pub(crate) fn number_cmp(a: &RunValue, b: &RunValue) -> Option<Ordering> {
    match (a, b) {
        (RunValue::Float(x), RunValue::Float(y)) => x.partial_cmp(y),
        (RunValue::Float(x), other) => int_float_cmp(other.as_int()?, *x).map(Ordering::reverse),
        (other, RunValue::Float(y)) => int_float_cmp(other.as_int()?, *y),
        _ => Some(a.as_int()?.cmp(&b.as_int()?)),
    }
}

/// Compares an int with a float exactly.
fn int_float_cmp(i: i64, f: f64) -> Option<Ordering> {
    if f.is_nan() {
        return None;
    }
    if f >= 9.3e18 {
        return Some(Ordering::Less);
    }
    if f <= -9.3e18 {
        return Some(Ordering::Greater);
    }
    #[allow(clippy::cast_possible_truncation)]
    let whole = f.trunc() as i128;
    match i128::from(i).cmp(&whole) {
        Ordering::Equal => {
            let fraction = f - f.trunc();
            Some(if fraction > 0.0 {
                Ordering::Less
            } else if fraction < 0.0 {
                Ordering::Greater
            } else {
                Ordering::Equal
            })
        }
        other => Some(other),
    }
}

/// Python's float `divmod`: floor quotient and a remainder with the divisor's sign.
fn float_divmod(x: f64, y: f64) -> (f64, f64) {
    let mut rem = x % y;
    let mut div = (x - rem) / y;
    if rem != 0.0 {
        if (y < 0.0) != (rem < 0.0) {
            rem += y;
            div -= 1.0;
        }
    } else {
        rem = 0.0_f64.copysign(y);
    }
    let floor = if div != 0.0 {
        let mut floor = div.floor();
        if div - floor > 0.5 {
            floor += 1.0;
        }
        floor
    } else {
        0.0_f64.copysign(x / y)
    };
    (floor, rem)
}

/// The indices a slice selects from a sequence of `len` items, as CPython adjusts them.
fn slice_indices(
    len: usize,
    lower: Option<i64>,
    upper: Option<i64>,
    step: i64,
) -> impl Iterator<Item = usize> {
    let len = i128::try_from(len).unwrap_or(0);
    let step = i128::from(step);
    let adjust = |bound: Option<i64>, default: i128| -> i128 {
        let Some(b) = bound else { return default };
        let mut b = i128::from(b);
        if b < 0 {
            b += len;
            if b < 0 {
                b = if step < 0 { -1 } else { 0 };
            }
        } else if b >= len {
            b = if step < 0 { len - 1 } else { len };
        }
        b
    };
    let (start, stop) = if step > 0 {
        (adjust(lower, 0), adjust(upper, len))
    } else {
        (adjust(lower, len - 1), adjust(upper, -1))
    };
    let count = if step > 0 {
        if start < stop { (stop - start - 1) / step + 1 } else { 0 }
    } else if stop < start {
        (start - stop - 1) / (-step) + 1
    } else {
        0
    };
    (0..count).filter_map(move |k| usize::try_from(start + k * step).ok())
}
