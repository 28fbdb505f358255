//! Expressions: a precedence-climbing parser over the tokenizer's tokens, f-strings
//! (parsed by tokenizing each replacement field on its own) and assignment targets.
//!
//! Every recursive step counts against [`MAX_NESTING`], and every node records its tree
//! depth, which is capped the same way, so no input makes parsing or running a tree
//! recurse without bound. What falls outside the subset is a [`Problem`] at its token.

use super::ast::{
    At, BinOp, Clause, CmpOp, CompKind, Const, Expr, ExprKind, FPart, Field, LambdaDef, Target,
    UNPACK, UnOp,
};
use super::{LIMIT, MAX_NESTING, UNSUPPORTED};
use crate::lex::{SYNTAX, TokenKind};
use crate::literal::{Number, decode_bytes, decode_str, read_number};
use crate::source::Source;

/// Why a piece of source cannot be compiled: where, a code and a message.
#[derive(Clone, Debug)]
pub(crate) struct Problem {
    pub(crate) at: At,
    pub(crate) code: &'static str,
    pub(crate) message: String,
}

/// A parse result; the problem is boxed to keep results small.
pub(crate) type PResult<T> = Result<T, Box<Problem>>;

/// A construct outside the subset.
pub(crate) fn unsupported(at: At, what: &str) -> Box<Problem> {
    Box::new(Problem {
        at,
        code: UNSUPPORTED,
        message: format!("{what} is outside the Python subset Swap Lab runs"),
    })
}

/// Invalid Python.
pub(crate) fn syntax(at: At, message: impl Into<String>) -> Box<Problem> {
    Box::new(Problem { at, code: SYNTAX, message: message.into() })
}

/// A limit of the compiler.
pub(crate) fn limit(at: At, message: impl Into<String>) -> Box<Problem> {
    Box::new(Problem { at, code: LIMIT, message: message.into() })
}

fn too_deep(at: At) -> Box<Problem> {
    limit(at, format!("this expression nests more than {MAX_NESTING} levels deep"))
}

/// A parser over tokens `pos..end` of a source. `offset` is added to every byte range
/// (the source of an f-string field starts inside the file).
pub(crate) struct Parser<'s, 'a> {
    src: &'s Source<'a>,
    pub(crate) pos: usize,
    end: usize,
    offset: usize,
    nesting: usize,
    path: &'s str,
    /// Reading an annotation, which is checked but never evaluated: `...` may appear.
    annotation: bool,
}

impl<'s, 'a> Parser<'s, 'a> {
    /// A parser over tokens `start..end` of `src`.
    pub(crate) fn new(src: &'s Source<'a>, start: usize, end: usize, path: &'s str) -> Self {
        Parser {
            src,
            pos: start,
            end: end.min(src.tokens.len()),
            offset: 0,
            nesting: 0,
            path,
            annotation: false,
        }
    }

    /// Checks that tokens `start..end` are an annotation: an expression CPython would
    /// compile. Only its syntax matters (it is never evaluated here), so what is
    /// outside the subset inside it is no problem.
    pub(crate) fn annotation(
        src: &'s Source<'a>,
        (start, end): (usize, usize),
        path: &'s str,
    ) -> PResult<()> {
        let mut parser = Parser::new(src, start, end, path);
        parser.annotation = true;
        match parser.expr().and_then(|_| parser.finish()) {
            Err(problem) if problem.code == SYNTAX => Err(problem),
            _ => Ok(()),
        }
    }

    /// Tokens `start..end` as one expression or an unparenthesized tuple.
    pub(crate) fn expression_list(
        src: &'s Source<'a>,
        (start, end): (usize, usize),
        path: &'s str,
    ) -> PResult<Expr> {
        let mut parser = Parser::new(src, start, end, path);
        let expr = parser.exprlist()?;
        parser.finish()?;
        Ok(expr)
    }

    /// Tokens `start..end` as one expression (no bare tuple).
    pub(crate) fn expression(
        src: &'s Source<'a>,
        (start, end): (usize, usize),
        path: &'s str,
    ) -> PResult<Expr> {
        let mut parser = Parser::new(src, start, end, path);
        let expr = parser.expr()?;
        parser.finish()?;
        Ok(expr)
    }

    /// Fails unless every token was read.
    pub(crate) fn finish(&self) -> PResult<()> {
        if self.pos < self.end {
            return Err(syntax(self.here(), "invalid syntax"));
        }
        Ok(())
    }

    /// The byte range of token `i`, or a point after the last token of the range.
    fn at(&self, i: usize) -> At {
        let token = if i < self.end {
            self.src.token(i)
        } else {
            self.end.checked_sub(1).and_then(|e| self.src.token(e)).map(|mut t| {
                t.start = t.end;
                t
            })
        };
        token.map_or((self.offset, self.offset), |t| (t.start + self.offset, t.end + self.offset))
    }

    /// The byte range of the current token.
    pub(crate) fn here(&self) -> At {
        self.at(self.pos)
    }

    /// The byte range of the token before the current one.
    fn previous(&self) -> At {
        self.at(self.pos.saturating_sub(1))
    }

    /// Whether the current token is the operator `op`.
    pub(crate) fn op(&self, op: &str) -> bool {
        self.pos < self.end && self.src.is_op(self.pos, op)
    }

    /// Whether the current token is the name or keyword `word`.
    pub(crate) fn word(&self, word: &str) -> bool {
        self.pos < self.end && self.src.is_name(self.pos, word)
    }

    fn peek_word(&self, word: &str) -> bool {
        self.pos + 1 < self.end && self.src.is_name(self.pos + 1, word)
    }

    /// Consumes the operator `op`, returning its range.
    pub(crate) fn expect_op(&mut self, op: &str) -> PResult<At> {
        if self.op(op) {
            let at = self.here();
            self.pos += 1;
            return Ok(at);
        }
        Err(syntax(self.here(), format!("invalid syntax: expected '{op}'")))
    }

    /// Consumes the keyword `word`.
    pub(crate) fn expect_word(&mut self, word: &str) -> PResult<()> {
        if self.word(word) {
            self.pos += 1;
            return Ok(());
        }
        Err(syntax(self.here(), format!("invalid syntax: expected '{word}'")))
    }

    /// A node, its depth checked.
    fn node(&self, kind: ExprKind, at: At) -> PResult<Expr> {
        let depth = 1 + child_depth(&kind);
        if depth > MAX_NESTING {
            return Err(too_deep(at));
        }
        Ok(Expr { kind, at, depth })
    }

    /// Runs `f` one nesting level deeper.
    fn nested<T>(&mut self, f: impl FnOnce(&mut Self) -> PResult<T>) -> PResult<T> {
        if self.nesting >= MAX_NESTING {
            return Err(too_deep(self.here()));
        }
        self.nesting += 1;
        let result = f(self);
        self.nesting -= 1;
        result
    }

    /// An expression, or several separated by commas (a tuple).
    pub(crate) fn exprlist(&mut self) -> PResult<Expr> {
        let first = self.expr()?;
        if !self.op(",") {
            return Ok(first);
        }
        let start = first.at.0;
        let mut items = vec![first];
        while self.op(",") {
            self.pos += 1;
            if self.pos >= self.end || self.op(")") || self.op("]") || self.op("}") || self.op("=")
            {
                break;
            }
            items.push(self.expr()?);
        }
        let at = (start, self.previous().1);
        self.node(ExprKind::Tuple(items), at)
    }

    /// One expression: a conditional expression or anything tighter.
    ///
    /// Each level below checks whether its operator follows and otherwise hands the
    /// operand straight back, doing the work in a separate function: the frames that
    /// every nesting level stacks stay small.
    pub(crate) fn expr(&mut self) -> PResult<Expr> {
        if self.word("lambda") {
            return self.nested(Self::lambda);
        }
        if self.word("yield") || self.op("*") || self.op("**") {
            return Err(self.not_an_operand());
        }
        let body = self.or_test()?;
        if self.op(":=") || self.word("if") {
            return self.ternary(body);
        }
        Ok(body)
    }

    #[cold]
    fn not_an_operand(&self) -> Box<Problem> {
        let at = self.here();
        if self.op("*") || self.op("**") {
            return unsupported(at, "unpacking with `*`");
        }
        unsupported(at, &format!("`{}`", self.src.text(self.pos)))
    }

    /// `lambda params: body`; the body is one expression.
    fn lambda(&mut self) -> PResult<Expr> {
        let start = self.here().0;
        self.pos += 1;
        let mut params: Vec<(String, Option<Expr>)> = Vec::new();
        while !self.op(":") {
            if self.op("/") || (self.op("*") && self.peek_op(",")) {
                // The positional-only and keyword-only markers, ignored as in a `def`.
                self.pos += 1;
            } else if self.op("*") || self.op("**") {
                return Err(unsupported(self.here(), "a `*args` or `**kwargs` parameter"));
            } else {
                let at = self.here();
                let Some(name) =
                    (self.pos < self.end).then(|| self.src.identifier(self.pos)).flatten()
                else {
                    return Err(syntax(at, "invalid syntax"));
                };
                if params.iter().any(|(p, _)| p == name) {
                    let message = format!("duplicate argument '{name}' in function definition");
                    return Err(syntax(at, message));
                }
                self.pos += 1;
                let default = if self.op("=") {
                    self.pos += 1;
                    Some(self.expr()?)
                } else {
                    if params.iter().any(|(_, d)| d.is_some()) {
                        let message =
                            "parameter without a default follows parameter with a default";
                        return Err(syntax(at, message));
                    }
                    None
                };
                params.push((name.to_owned(), default));
            }
            if self.op(",") {
                self.pos += 1;
            } else if !self.op(":") {
                return Err(syntax(self.here(), "invalid syntax: expected ':'"));
            }
        }
        self.pos += 1;
        let body = self.expr()?;
        let at = (start, body.at.1);
        let def = std::sync::Arc::new(LambdaDef { params, body });
        self.src.lambdas.borrow_mut().push(def.clone());
        self.node(ExprKind::Lambda(def), at)
    }

    fn peek_op(&self, op: &str) -> bool {
        self.pos + 1 < self.end && self.src.is_op(self.pos + 1, op)
    }

    fn ternary(&mut self, body: Expr) -> PResult<Expr> {
        if self.op(":=") {
            return Err(unsupported(self.here(), "the assignment expression `:=`"));
        }
        self.pos += 1;
        let test = self.or_test()?;
        if !self.word("else") {
            return Err(syntax(self.here(), "expected 'else' after 'if' expression"));
        }
        self.pos += 1;
        let orelse = self.nested(Self::expr)?;
        let at = (body.at.0, orelse.at.1);
        let kind = ExprKind::IfElse {
            test: Box::new(test),
            body: Box::new(body),
            orelse: Box::new(orelse),
        };
        self.node(kind, at)
    }

    fn or_test(&mut self) -> PResult<Expr> {
        let first = self.and_test()?;
        if self.word("or") {
            return self.bool_chain(first, "or");
        }
        Ok(first)
    }

    fn and_test(&mut self) -> PResult<Expr> {
        let first = self.not_test()?;
        if self.word("and") {
            return self.bool_chain(first, "and");
        }
        Ok(first)
    }

    fn bool_chain(&mut self, first: Expr, word: &str) -> PResult<Expr> {
        let start = first.at.0;
        let mut items = vec![first];
        while self.word(word) {
            self.pos += 1;
            items.push(if word == "or" { self.and_test()? } else { self.not_test()? });
        }
        let at = (start, self.previous().1);
        self.node(if word == "or" { ExprKind::Or(items) } else { ExprKind::And(items) }, at)
    }

    fn not_test(&mut self) -> PResult<Expr> {
        if self.word("not") {
            return self.not_operator();
        }
        self.comparison()
    }

    fn not_operator(&mut self) -> PResult<Expr> {
        let start = self.here().0;
        self.pos += 1;
        let operand = self.nested(Self::not_test)?;
        let at = (start, operand.at.1);
        self.node(ExprKind::Unary(UnOp::Not, Box::new(operand)), at)
    }

    fn comparison_op(&self) -> Option<(CmpOp, usize)> {
        if self.pos >= self.end {
            return None;
        }
        let kind = self.src.token(self.pos)?.kind;
        let text = self.src.text(self.pos);
        let op = match (kind, text) {
            (TokenKind::Op, "==") => CmpOp::Eq,
            (TokenKind::Op, "!=") => CmpOp::NotEq,
            (TokenKind::Op, "<") => CmpOp::Lt,
            (TokenKind::Op, "<=") => CmpOp::LtE,
            (TokenKind::Op, ">") => CmpOp::Gt,
            (TokenKind::Op, ">=") => CmpOp::GtE,
            (TokenKind::Name, "in") => CmpOp::In,
            (TokenKind::Name, "not") if self.peek_word("in") => return Some((CmpOp::NotIn, 2)),
            (TokenKind::Name, "is") if self.peek_word("not") => return Some((CmpOp::IsNot, 2)),
            (TokenKind::Name, "is") => CmpOp::Is,
            _ => return None,
        };
        Some((op, 1))
    }

    fn comparison(&mut self) -> PResult<Expr> {
        let left = self.binary(0)?;
        if self.comparison_op().is_some() {
            return self.comparison_chain(left);
        }
        Ok(left)
    }

    fn comparison_chain(&mut self, left: Expr) -> PResult<Expr> {
        let mut ops = Vec::new();
        while let Some((op, width)) = self.comparison_op() {
            self.pos += width;
            ops.push((op, self.binary(0)?));
        }
        let at = (left.at.0, self.previous().1);
        self.node(ExprKind::Compare(Box::new(left), ops), at)
    }

    fn binary_op(&self) -> Option<(BinOp, u8)> {
        if self.pos >= self.end || !self.src.is_kind(self.pos, TokenKind::Op) {
            return None;
        }
        Some(match self.src.text(self.pos) {
            "|" => (BinOp::BitOr, 0),
            "^" => (BinOp::BitXor, 1),
            "&" => (BinOp::BitAnd, 2),
            "<<" => (BinOp::LShift, 3),
            ">>" => (BinOp::RShift, 3),
            "+" => (BinOp::Add, 4),
            "-" => (BinOp::Sub, 4),
            "*" => (BinOp::Mul, 5),
            "/" => (BinOp::Div, 5),
            "//" => (BinOp::FloorDiv, 5),
            "%" => (BinOp::Mod, 5),
            "@" => (BinOp::MatMul, 5),
            _ => return None,
        })
    }

    /// Binary operators binding at least as tightly as level `min` (`|` is 0, `*` 5).
    fn binary(&mut self, min: u8) -> PResult<Expr> {
        let left = self.unary()?;
        match self.binary_op() {
            Some((_, level)) if level >= min => self.binary_chain(left, min),
            _ => Ok(left),
        }
    }

    fn binary_chain(&mut self, mut left: Expr, min: u8) -> PResult<Expr> {
        while let Some((op, level)) = self.binary_op() {
            if level < min {
                break;
            }
            self.pos += 1;
            let right = self.binary(level + 1)?;
            let at = (left.at.0, right.at.1);
            left = self.node(ExprKind::Binary(op, Box::new(left), Box::new(right)), at)?;
        }
        Ok(left)
    }

    fn unary(&mut self) -> PResult<Expr> {
        if self.op("-") || self.op("+") || self.op("~") {
            return self.unary_operator();
        }
        self.power()
    }

    fn unary_operator(&mut self) -> PResult<Expr> {
        let op = if self.op("-") {
            UnOp::Neg
        } else if self.op("+") {
            UnOp::Pos
        } else {
            UnOp::Invert
        };
        let start = self.here().0;
        self.pos += 1;
        let operand = self.nested(Self::unary)?;
        let at = (start, operand.at.1);
        self.node(ExprKind::Unary(op, Box::new(operand)), at)
    }

    fn power(&mut self) -> PResult<Expr> {
        let base = if self.word("await") { self.awaited()? } else { self.primary()? };
        if self.op("**") {
            return self.exponent(base);
        }
        Ok(base)
    }

    fn awaited(&mut self) -> PResult<Expr> {
        let start = self.here().0;
        self.pos += 1;
        let inner = self.nested(|p| if p.word("await") { p.awaited() } else { p.primary() })?;
        let at = (start, inner.at.1);
        self.node(ExprKind::Await(Box::new(inner)), at)
    }

    fn exponent(&mut self, base: Expr) -> PResult<Expr> {
        self.pos += 1;
        let exponent = self.nested(Self::unary)?;
        let at = (base.at.0, exponent.at.1);
        self.node(ExprKind::Binary(BinOp::Pow, Box::new(base), Box::new(exponent)), at)
    }

    fn primary(&mut self) -> PResult<Expr> {
        let expr = self.atom()?;
        if self.op(".") || self.op("(") || self.op("[") {
            return self.trailers(expr);
        }
        Ok(expr)
    }

    /// `.name`, `(arguments)` and `[index]` after an atom.
    fn trailers(&mut self, mut expr: Expr) -> PResult<Expr> {
        loop {
            if self.op(".") {
                self.pos += 1;
                let Some(name) =
                    (self.pos < self.end).then(|| self.src.identifier(self.pos)).flatten()
                else {
                    return Err(syntax(self.here(), "invalid syntax: expected a name after '.'"));
                };
                let at = (expr.at.0, self.here().1);
                self.pos += 1;
                expr = self.node(ExprKind::Attr(Box::new(expr), name.to_owned()), at)?;
            } else if self.op("(") {
                expr = self.nested(|p| p.call(expr))?;
            } else if self.op("[") {
                expr = self.nested(|p| p.subscript(expr))?;
            } else {
                return Ok(expr);
            }
        }
    }

    fn atom(&mut self) -> PResult<Expr> {
        let Some(token) = self.src.token(self.pos).filter(|_| self.pos < self.end) else {
            return Err(syntax(self.here(), "invalid syntax: an expression is missing"));
        };
        match token.kind {
            TokenKind::Name => self.name_atom(),
            TokenKind::Number => {
                let at = self.here();
                let constant = number_literal(self.src.text(self.pos), at)?;
                self.pos += 1;
                self.node(ExprKind::Const(constant), at)
            }
            TokenKind::String => self.strings(),
            TokenKind::Op if self.op("(") => self.nested(Self::parens),
            TokenKind::Op if self.op("[") => self.nested(Self::list),
            TokenKind::Op if self.op("{") => self.nested(Self::braces),
            TokenKind::Op if self.op("...") && self.annotation => {
                let at = self.here();
                self.pos += 1;
                self.node(ExprKind::Const(Const::None), at)
            }
            _ => Err(self.bad_atom()),
        }
    }

    fn name_atom(&mut self) -> PResult<Expr> {
        let at = self.here();
        let constant = match self.src.text(self.pos) {
            "True" => Const::Bool(true),
            "False" => Const::Bool(false),
            "None" => Const::None,
            _ => {
                let Some(name) = self.src.identifier(self.pos) else { return Err(self.bad_atom()) };
                self.pos += 1;
                return self.node(ExprKind::Name(name.to_owned()), at);
            }
        };
        self.pos += 1;
        self.node(ExprKind::Const(constant), at)
    }

    #[cold]
    fn bad_atom(&self) -> Box<Problem> {
        let at = self.here();
        match self.src.text(self.pos) {
            "yield" => unsupported(at, "`yield`"),
            "..." => unsupported(at, "`...` (Ellipsis)"),
            "*" | "**" => unsupported(at, "unpacking with `*`"),
            _ => syntax(at, "invalid syntax"),
        }
    }

    fn parens(&mut self) -> PResult<Expr> {
        let open = self.here();
        self.pos += 1;
        if self.op(")") {
            let close = self.here();
            self.pos += 1;
            return self.node(ExprKind::Tuple(Vec::new()), (open.0, close.1));
        }
        if self.word("yield") {
            return Err(unsupported(self.here(), "`yield`"));
        }
        let first = self.expr()?;
        if self.word("for") || self.word("async") {
            let clauses = self.clauses()?;
            let close = self.expect_op(")")?;
            return self.comp(CompKind::Gen, first, None, clauses, (open.0, close.1));
        }
        if self.op(")") {
            self.pos += 1;
            return Ok(first);
        }
        let mut items = vec![first];
        while self.op(",") {
            self.pos += 1;
            if self.op(")") {
                break;
            }
            items.push(self.expr()?);
        }
        let close = self.expect_op(")")?;
        self.node(ExprKind::Tuple(items), (open.0, close.1))
    }

    fn list(&mut self) -> PResult<Expr> {
        let open = self.here();
        self.pos += 1;
        if self.op("]") {
            let close = self.here();
            self.pos += 1;
            return self.node(ExprKind::List(Vec::new()), (open.0, close.1));
        }
        let first = self.expr()?;
        if self.word("for") || self.word("async") {
            let clauses = self.clauses()?;
            let close = self.expect_op("]")?;
            return self.comp(CompKind::List, first, None, clauses, (open.0, close.1));
        }
        let items = self.rest_of_items(first, "]")?;
        let close = self.expect_op("]")?;
        self.node(ExprKind::List(items), (open.0, close.1))
    }

    fn rest_of_items(&mut self, first: Expr, close: &str) -> PResult<Vec<Expr>> {
        let mut items = vec![first];
        while self.op(",") {
            self.pos += 1;
            if self.op(close) {
                break;
            }
            items.push(self.expr()?);
        }
        Ok(items)
    }

    fn braces(&mut self) -> PResult<Expr> {
        let open = self.here();
        self.pos += 1;
        if self.op("}") {
            let close = self.here();
            self.pos += 1;
            return self.node(ExprKind::Dict(Vec::new()), (open.0, close.1));
        }
        if self.op("**") {
            let mut entries = Vec::new();
            self.unpack_entry(&mut entries)?;
            return self.dict_rest(entries, open);
        }
        let first = self.expr()?;
        if !self.op(":") {
            if self.word("for") || self.word("async") {
                let clauses = self.clauses()?;
                let close = self.expect_op("}")?;
                return self.comp(CompKind::Set, first, None, clauses, (open.0, close.1));
            }
            let items = self.rest_of_items(first, "}")?;
            let close = self.expect_op("}")?;
            return self.node(ExprKind::Set(items), (open.0, close.1));
        }
        self.pos += 1;
        let value = self.expr()?;
        if self.word("for") || self.word("async") {
            let clauses = self.clauses()?;
            let close = self.expect_op("}")?;
            return self.comp(CompKind::Dict, first, Some(value), clauses, (open.0, close.1));
        }
        self.dict_rest(vec![(first, value)], open)
    }

    /// `**mapping` in a dict display: an entry keyed [`UNPACK`].
    fn unpack_entry(&mut self, entries: &mut Vec<(Expr, Expr)>) -> PResult<()> {
        let star = self.here();
        self.pos += 1;
        let value = self.binary(0)?;
        let key = self.node(ExprKind::Name(UNPACK.to_owned()), star)?;
        entries.push((key, value));
        Ok(())
    }

    /// The entries of a dict display after its first, and its `}`.
    fn dict_rest(&mut self, mut entries: Vec<(Expr, Expr)>, open: At) -> PResult<Expr> {
        while self.op(",") {
            self.pos += 1;
            if self.op("}") {
                break;
            }
            if self.op("**") {
                self.unpack_entry(&mut entries)?;
                continue;
            }
            let key = self.expr()?;
            self.expect_op(":")?;
            entries.push((key, self.expr()?));
        }
        let close = self.expect_op("}")?;
        self.node(ExprKind::Dict(entries), (open.0, close.1))
    }

    fn comp(
        &self,
        kind: CompKind,
        elt: Expr,
        value: Option<Expr>,
        clauses: Vec<Clause>,
        at: At,
    ) -> PResult<Expr> {
        let kind = ExprKind::Comp { kind, elt: Box::new(elt), value: value.map(Box::new), clauses };
        self.node(kind, at)
    }

    /// The `for … in … if …` clauses of a comprehension.
    fn clauses(&mut self) -> PResult<Vec<Clause>> {
        let mut clauses = Vec::new();
        while self.word("for") || self.word("async") {
            if self.word("async") {
                return Err(unsupported(self.here(), "`async for`"));
            }
            self.pos += 1;
            let target = to_target(self.targets()?)?;
            self.expect_word("in")?;
            let iter = self.nested(Self::or_test)?;
            let mut conds = Vec::new();
            while self.word("if") {
                self.pos += 1;
                conds.push(self.nested(Self::or_test)?);
            }
            clauses.push(Clause { target, iter, conds });
        }
        Ok(clauses)
    }

    /// The targets of a `for`: expressions tighter than comparisons, comma-separated,
    /// up to `in`.
    pub(crate) fn targets(&mut self) -> PResult<Expr> {
        let first = self.nested(|p| p.binary(0))?;
        if !self.op(",") {
            return Ok(first);
        }
        let start = first.at.0;
        let mut items = vec![first];
        while self.op(",") {
            self.pos += 1;
            if self.pos >= self.end || self.word("in") {
                break;
            }
            items.push(self.nested(|p| p.binary(0))?);
        }
        let at = (start, self.previous().1);
        self.node(ExprKind::Tuple(items), at)
    }

    fn call(&mut self, func: Expr) -> PResult<Expr> {
        self.pos += 1;
        let mut args = Vec::new();
        let mut kwargs: Vec<(String, Expr)> = Vec::new();
        while !self.op(")") && self.pos < self.end {
            if self.op("*") || self.op("**") {
                // `*iterable` and `**mapping`: kept among the keywords under the names
                // `*` and `**`, in order; a plain positional argument after a `*` one
                // would lose its place, so it is outside the subset.
                let star = if self.op("*") { "*" } else { "**" };
                self.pos += 1;
                let value = self.expr()?;
                kwargs.push((star.to_owned(), value));
                if !self.op(",") {
                    break;
                }
                self.pos += 1;
                continue;
            }
            let keyword = self
                .src
                .identifier(self.pos)
                .filter(|_| self.pos + 1 < self.end && self.src.is_op(self.pos + 1, "="));
            if let Some(name) = keyword {
                let at = self.here();
                self.pos += 2;
                let value = self.expr()?;
                if kwargs.iter().any(|(k, _)| k == name && k != "*" && k != "**") {
                    return Err(syntax(at, format!("keyword argument repeated: {name}")));
                }
                kwargs.push((name.to_owned(), value));
            } else {
                let at = self.here();
                let mut value = self.expr()?;
                if self.word("for") || self.word("async") {
                    let clauses = self.clauses()?;
                    let span = (value.at.0, self.previous().1);
                    value = self.comp(CompKind::Gen, value, None, clauses, span)?;
                    if !args.is_empty() || !kwargs.is_empty() || !self.op(")") {
                        return Err(syntax(span, "Generator expression must be parenthesized"));
                    }
                }
                if kwargs.iter().any(|(k, _)| k == "*") {
                    let what = "a positional argument after `*iterable`";
                    return Err(unsupported(at, what));
                }
                if kwargs.iter().any(|(k, _)| k == "**") {
                    return Err(syntax(
                        at,
                        "positional argument follows keyword argument unpacking",
                    ));
                }
                if !kwargs.is_empty() {
                    return Err(syntax(at, "positional argument follows keyword argument"));
                }
                args.push(value);
            }
            if !self.op(",") {
                break;
            }
            self.pos += 1;
        }
        let close = self.expect_op(")")?;
        let at = (func.at.0, close.1);
        self.node(ExprKind::Call(Box::new(func), args, kwargs), at)
    }

    fn subscript(&mut self, obj: Expr) -> PResult<Expr> {
        self.pos += 1;
        let first = self.slice_item()?;
        let index = if self.op(",") {
            let start = first.at.0;
            let mut items = vec![first];
            while self.op(",") {
                self.pos += 1;
                if self.op("]") {
                    break;
                }
                items.push(self.slice_item()?);
            }
            if let Some(slice) = items.iter().find(|e| matches!(e.kind, ExprKind::Slice(..))) {
                return Err(unsupported(slice.at, "a slice inside a tuple index"));
            }
            let at = (start, self.previous().1);
            self.node(ExprKind::Tuple(items), at)?
        } else {
            first
        };
        let close = self.expect_op("]")?;
        let at = (obj.at.0, close.1);
        self.node(ExprKind::Subscript(Box::new(obj), Box::new(index)), at)
    }

    fn slice_item(&mut self) -> PResult<Expr> {
        let start = self.here().0;
        let lower = if self.op(":") { None } else { Some(self.expr()?) };
        if !self.op(":") {
            return lower.ok_or_else(|| syntax(self.here(), "invalid syntax"));
        }
        self.pos += 1;
        let bound = |p: &mut Self| -> PResult<Option<Box<Expr>>> {
            if p.op(":") || p.op("]") || p.op(",") || p.pos >= p.end {
                Ok(None)
            } else {
                Ok(Some(Box::new(p.expr()?)))
            }
        };
        let upper = bound(self)?;
        let step = if self.op(":") {
            self.pos += 1;
            bound(self)?
        } else {
            None
        };
        let at = (start, self.previous().1);
        self.node(ExprKind::Slice(lower.map(Box::new), upper, step), at)
    }

    /// Consecutive string tokens: one literal, implicitly concatenated.
    fn strings(&mut self) -> PResult<Expr> {
        let start = self.here().0;
        let mut parts: Vec<FPart> = Vec::new();
        let mut formatted = false;
        let mut bytes: Option<Vec<u8>> = None;
        let mut texts = false;
        while self.pos < self.end && self.src.is_kind(self.pos, TokenKind::String) {
            let text = self.src.text(self.pos);
            let at = self.here();
            let quote = text.find(['\'', '"']).unwrap_or(0);
            let prefix = text.get(..quote).unwrap_or_default().to_ascii_lowercase();
            let is_bytes = prefix.contains('b');
            if (is_bytes && texts) || (!is_bytes && bytes.is_some()) {
                return Err(syntax(at, "cannot mix bytes and nonbytes literals"));
            }
            if is_bytes {
                let decoded = decode_bytes(text).map_err(|message| syntax(at, message))?;
                bytes.get_or_insert_with(Vec::new).extend(decoded);
                self.pos += 1;
                continue;
            }
            texts = true;
            if prefix.contains('t') {
                return Err(unsupported(at, "a template string"));
            }
            if prefix.contains('f') {
                formatted = true;
                self.nested(|p| p.fstring(text, at.0, &mut parts))?;
            } else {
                if let Some(what) = undecodable_escape(text).filter(|_| !prefix.contains('r')) {
                    return Err(unsupported(at, what));
                }
                push_text(&mut parts, &decode_str(text).unwrap_or_default());
            }
            self.pos += 1;
        }
        let at = (start, self.previous().1);
        if let Some(bytes) = bytes {
            return self.node(ExprKind::Const(Const::Bytes(bytes)), at);
        }
        if formatted {
            return self.node(ExprKind::FString(parts), at);
        }
        let text = match parts.pop() {
            Some(FPart::Text(text)) => text,
            _ => String::new(),
        };
        self.node(ExprKind::Const(Const::Str(text)), at)
    }

    /// The parts of one f-string token whose first byte is at `base` in the file.
    fn fstring(&mut self, text: &str, base: usize, parts: &mut Vec<FPart>) -> PResult<()> {
        let quote_at = text.find(['\'', '"']).unwrap_or(0);
        let raw = text.get(..quote_at).unwrap_or_default().to_ascii_lowercase().contains('r');
        let quoted = text.get(quote_at..).unwrap_or_default();
        let q = quoted.chars().next().filter(|c| *c == '\'' || *c == '"').unwrap_or('"');
        let triple: String = [q; 3].iter().collect();
        let width = if quoted.starts_with(&triple) { 3 } else { 1 };
        let open = quote_at + width;
        let close = if text.len() >= open + width
            && text.ends_with(triple.get(..width).unwrap_or_default())
        {
            text.len() - width
        } else {
            text.len()
        };
        let body = text.get(open..close.max(open)).unwrap_or_default();
        self.fbody(body, base + open, raw, parts)
    }

    /// Literal text and replacement fields of an f-string body (or a format spec) that
    /// starts at byte `base` of the file.
    fn fbody(&mut self, body: &str, base: usize, raw: bool, parts: &mut Vec<FPart>) -> PResult<()> {
        let bytes = body.as_bytes();
        let mut literal = String::new();
        let mut i = 0;
        while let Some(&b) = bytes.get(i) {
            match b {
                b'{' if bytes.get(i + 1) == Some(&b'{') => {
                    literal.push('{');
                    i += 2;
                }
                b'{' => {
                    flush(&mut literal, raw, parts);
                    i = self.nested(|p| p.field(body, base, i + 1, raw, parts))?;
                }
                b'}' if bytes.get(i + 1) == Some(&b'}') => {
                    literal.push('}');
                    i += 2;
                }
                b'}' => {
                    let at = (base + i, base + i + 1);
                    return Err(syntax(at, "f-string: single '}' is not allowed"));
                }
                b'\\' if !raw => {
                    literal.push('\\');
                    i += 1;
                    if let Some(c) = body.get(i..).and_then(|s| s.chars().next()) {
                        if c == 'N' && bytes.get(i + 1) == Some(&b'{') {
                            let at = (base + i - 1, base + i + 1);
                            return Err(unsupported(at, "a `\\N{…}` escape in an f-string"));
                        }
                        if c != '{' && c != '}' {
                            literal.push(c);
                            i += c.len_utf8();
                        }
                    }
                }
                _ => {
                    let c = body.get(i..).and_then(|s| s.chars().next()).unwrap_or('\u{fffd}');
                    literal.push(c);
                    i += c.len_utf8().max(1);
                }
            }
        }
        flush(&mut literal, raw, parts);
        Ok(())
    }

    /// One replacement field whose expression starts at `start` in `body`; returns the
    /// index after its closing brace.
    fn field(
        &mut self,
        body: &str,
        base: usize,
        start: usize,
        raw: bool,
        parts: &mut Vec<FPart>,
    ) -> PResult<usize> {
        let bytes = body.as_bytes();
        let unclosed = |at: usize| syntax((base + at, base + at + 1), "f-string: expecting '}'");
        let mut depth = 0usize;
        let mut i = start;
        let mut debug = false;
        let expr_end = loop {
            let Some(&b) = bytes.get(i) else { return Err(unclosed(start.saturating_sub(1))) };
            match b {
                b'\'' | b'"' => i = skip_string(bytes, i),
                b'(' | b'[' | b'{' => {
                    depth += 1;
                    i += 1;
                }
                b'}' if depth == 0 => break i,
                b')' | b']' | b'}' => {
                    depth = depth.saturating_sub(1);
                    i += 1;
                }
                b'!' if depth == 0 && bytes.get(i + 1) != Some(&b'=') => break i,
                b':' if depth == 0 => break i,
                b'=' if depth == 0
                    && bytes.get(i + 1) != Some(&b'=')
                    && !matches!(
                        i.checked_sub(1).and_then(|p| bytes.get(p)),
                        Some(b'=' | b'!' | b'<' | b'>')
                    ) =>
                {
                    debug = true;
                    break i;
                }
                _ => i += 1,
            }
        };
        let source = body.get(start..expr_end).unwrap_or_default();
        if source.trim().is_empty() {
            let at = (base + start, base + expr_end.max(start + 1));
            return Err(syntax(at, "f-string: valid expression required before '}'"));
        }
        let expr = self.sub_expression(source, base + start)?;
        let mut i = expr_end;
        if debug {
            i += 1;
            while bytes.get(i).is_some_and(u8::is_ascii_whitespace) {
                i += 1;
            }
            push_text(parts, body.get(start..i).unwrap_or_default());
        }
        let mut conversion = None;
        if bytes.get(i) == Some(&b'!') {
            match bytes.get(i + 1) {
                Some(&c @ (b'r' | b's' | b'a')) => conversion = Some(char::from(c)),
                _ => {
                    let at = (base + i, base + i + 2);
                    return Err(syntax(at, "f-string: invalid conversion character"));
                }
            }
            i += 2;
        }
        let mut spec = Vec::new();
        if bytes.get(i) == Some(&b':') {
            let spec_start = i + 1;
            let mut depth = 0usize;
            let mut j = spec_start;
            loop {
                match bytes.get(j) {
                    None => return Err(unclosed(start.saturating_sub(1))),
                    Some(b'{') => depth += 1,
                    Some(b'}') if depth == 0 => break,
                    Some(b'}') => depth -= 1,
                    _ => {}
                }
                j += 1;
            }
            let text = body.get(spec_start..j).unwrap_or_default();
            self.fbody(text, base + spec_start, raw, &mut spec)?;
            i = j;
        }
        if bytes.get(i) != Some(&b'}') {
            return Err(unclosed(i));
        }
        if debug && conversion.is_none() && spec.is_empty() {
            conversion = Some('r');
        }
        parts.push(FPart::Field(Box::new(Field { expr, conversion, spec })));
        Ok(i + 1)
    }

    /// Parses the source of an f-string field, which starts at byte `at` of the file.
    fn sub_expression(&mut self, source: &str, at: usize) -> PResult<Expr> {
        let wrapped = format!("({source})");
        let sub = Source::parse(self.path, &wrapped);
        let whole = (at, at + source.len());
        let Some(close) = sub.closing(0, sub.tokens.len()) else {
            return Err(syntax(whole, "f-string: invalid expression"));
        };
        let mut parser = Parser {
            src: &sub,
            pos: 1,
            end: close,
            offset: at.saturating_sub(1),
            nesting: self.nesting,
            path: self.path,
            annotation: self.annotation,
        };
        let expr = parser.exprlist()?;
        parser.finish()?;
        let trailing = sub.tokens.get(close + 1).is_some_and(|t| t.kind != TokenKind::Newline);
        let problems = sub.findings.finish();
        if trailing || problems.iter().any(swaplab_base::diagnostic::Diagnostic::is_error) {
            return Err(syntax(whole, "f-string: invalid expression"));
        }
        Ok(expr)
    }
}

/// Turns an expression into an assignment target.
pub(crate) fn to_target(expr: Expr) -> PResult<Target> {
    match expr.kind {
        ExprKind::Name(name) => Ok(Target::Name(name)),
        ExprKind::Subscript(obj, index) => Ok(Target::Subscript(obj, index, expr.at)),
        ExprKind::Tuple(items) | ExprKind::List(items) => {
            let targets = items.into_iter().map(to_target).collect::<PResult<Vec<_>>>()?;
            Ok(Target::Unpack(targets, expr.at))
        }
        ExprKind::Attr(object, name) => Ok(Target::Attr(object, name, expr.at)),
        _ => Err(syntax(expr.at, "cannot assign to expression")),
    }
}

/// The value of a number token.
fn number_literal(text: &str, at: At) -> PResult<Const> {
    match read_number(text) {
        Ok(Number::Int(n)) => Ok(Const::Int(n)),
        Ok(Number::Float(f)) => Ok(Const::Float(f)),
        Ok(Number::Complex) => Err(unsupported(at, "a complex number")),
        Ok(Number::BigInt) => {
            Err(limit(at, "an integer beyond 64 bits is outside what Swap Lab runs"))
        }
        Err(message) => Err(syntax(at, message)),
    }
}

/// Appends literal text, merging with a text part before it.
fn push_text(parts: &mut Vec<FPart>, text: &str) {
    if text.is_empty() {
        return;
    }
    if let Some(FPart::Text(last)) = parts.last_mut() {
        last.push_str(text);
    } else {
        parts.push(FPart::Text(text.to_owned()));
    }
}

/// An escape of a `str` literal that cannot be decoded faithfully here: `\N{…}` (there is
/// no table of character names) or a lone surrogate such as `\ud800` (a Rust string
/// cannot hold one).
fn undecodable_escape(text: &str) -> Option<&'static str> {
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            continue;
        }
        let rest = chars.as_str();
        let width = match chars.next() {
            Some('N') if rest.get(1..).is_some_and(|r| r.starts_with('{')) => {
                return Some("a `\\N{…}` escape");
            }
            Some('u') => 4,
            Some('U') => 8,
            _ => continue,
        };
        let digits = rest.get(1..=width).unwrap_or_default();
        if digits.len() == width
            && digits.bytes().all(|b| b.is_ascii_hexdigit())
            && u32::from_str_radix(digits, 16).is_ok_and(|v| (0xd800..0xe000).contains(&v))
        {
            return Some("a lone surrogate escape");
        }
    }
    None
}

/// Decodes the escapes of a literal chunk of an f-string and appends it.
fn flush(literal: &mut String, raw: bool, parts: &mut Vec<FPart>) {
    if literal.is_empty() {
        return;
    }
    // A leading NUL keeps `decode_str` from reading quotes in the chunk as a triple quote.
    let token = format!("{}'\u{0}{literal}'", if raw { "r" } else { "" });
    let decoded = decode_str(&token).unwrap_or_default();
    push_text(parts, decoded.strip_prefix('\u{0}').unwrap_or(&decoded));
    literal.clear();
}

/// The index after the string literal starting at `i` (to the end if unterminated).
fn skip_string(bytes: &[u8], i: usize) -> usize {
    let q = bytes.get(i).copied().unwrap_or(b'"');
    let triple = bytes.get(i + 1) == Some(&q) && bytes.get(i + 2) == Some(&q);
    let mut j = i + if triple { 3 } else { 1 };
    loop {
        match bytes.get(j) {
            None => return bytes.len(),
            Some(b'\\') => j += 2,
            Some(&b) if b == q => {
                if !triple {
                    return j + 1;
                }
                if bytes.get(j + 1) == Some(&q) && bytes.get(j + 2) == Some(&q) {
                    return j + 3;
                }
                j += 1;
            }
            Some(_) => j += 1,
        }
    }
}

/// The depth of the deepest child of a node (0 for a leaf).
fn child_depth(kind: &ExprKind) -> usize {
    let of = |e: &Expr| e.depth;
    let opt = |e: &Option<Box<Expr>>| e.as_ref().map_or(0, |e| e.depth);
    let many = |items: &[Expr]| items.iter().map(of).max().unwrap_or(0);
    let parts = |parts: &[FPart]| {
        parts
            .iter()
            .map(|p| match p {
                FPart::Text(_) => 0,
                FPart::Field(field) => field.expr.depth.max(field_spec_depth(&field.spec)),
            })
            .max()
            .unwrap_or(0)
    };
    match kind {
        ExprKind::Const(_) | ExprKind::Name(_) => 0,
        ExprKind::FString(items) => parts(items),
        ExprKind::Attr(e, _) | ExprKind::Await(e) | ExprKind::Unary(_, e) => of(e),
        ExprKind::Subscript(a, b) | ExprKind::Binary(_, a, b) => of(a).max(of(b)),
        ExprKind::Slice(a, b, c) => opt(a).max(opt(b)).max(opt(c)),
        ExprKind::Call(f, args, kwargs) => {
            of(f).max(many(args)).max(kwargs.iter().map(|(_, e)| e.depth).max().unwrap_or(0))
        }
        ExprKind::And(items)
        | ExprKind::Or(items)
        | ExprKind::List(items)
        | ExprKind::Tuple(items)
        | ExprKind::Set(items) => many(items),
        ExprKind::Compare(left, ops) => {
            of(left).max(ops.iter().map(|(_, e)| e.depth).max().unwrap_or(0))
        }
        ExprKind::IfElse { test, body, orelse } => of(test).max(of(body)).max(of(orelse)),
        ExprKind::Dict(entries) => {
            entries.iter().map(|(k, v)| k.depth.max(v.depth)).max().unwrap_or(0)
        }
        ExprKind::Comp { elt, value, clauses, .. } => {
            let clause_depth = clauses
                .iter()
                .map(|c| c.iter.depth.max(many(&c.conds)).max(target_depth(&c.target)))
                .max()
                .unwrap_or(0);
            of(elt).max(opt(value)).max(clause_depth)
        }
        ExprKind::Lambda(def) => def
            .params
            .iter()
            .filter_map(|(_, d)| d.as_ref().map(of))
            .max()
            .unwrap_or(0)
            .max(of(&def.body)),
    }
}

fn field_spec_depth(spec: &[FPart]) -> usize {
    spec.iter()
        .map(|p| match p {
            FPart::Text(_) => 0,
            FPart::Field(field) => field.expr.depth,
        })
        .max()
        .unwrap_or(0)
}

/// The depth of a target's expressions (targets are converted from capped expressions).
fn target_depth(target: &Target) -> usize {
    match target {
        Target::Name(_) => 1,
        Target::Subscript(a, b, _) => a.depth.max(b.depth) + 1,
        Target::Attr(a, _, _) => a.depth + 1,
        Target::Unpack(..) => 1,
    }
}
