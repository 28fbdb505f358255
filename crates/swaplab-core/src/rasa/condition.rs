//! Rasa's condition language (reference §2.5): `session.<ns>.<entry>` lookups, constants,
//! comparisons (chained), `and`, `or`, `not` and parentheses — a small Python subset.
//!
//! Used by prose `if:`, `requires`, `complete_when`, `next` branches and `utter … when:`.
//! [`parse`] is the train-time syntax check; [`Expr::evaluate`] is the runtime: unknown or
//! unreadable keys read as `None`, and any error means "closed" to the caller.

use serde::Serialize;

/// A constant or memory value as the condition evaluator sees it.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Scalar {
    /// `None`.
    None,
    /// `True` / `False`.
    Bool(bool),
    /// An int.
    Int(i64),
    /// A float.
    Float(f64),
    /// A string.
    Str(String),
}

/// A comparison operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Compare {
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

/// A parsed condition.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum Expr {
    /// A literal.
    Constant(Scalar),
    /// `session.<namespace>.<entry>`, looked up as `"<namespace>.<entry>"`.
    Memory(String),
    /// `not x`.
    Not(Box<Expr>),
    /// `a and b and …`.
    And(Vec<Expr>),
    /// `a or b or …`.
    Or(Vec<Expr>),
    /// `a < b <= c`: a first operand and the chain.
    Compare(Box<Expr>, Vec<(Compare, Expr)>),
}

/// Parses a condition; the error says what is outside the language.
pub fn parse(source: &str) -> Result<Expr, String> {
    let tokens = tokenize(source)?;
    let mut parser = Parser { tokens, at: 0, depth: 0 };
    let expr = parser.or()?;
    match parser.tokens.get(parser.at) {
        None => Ok(expr),
        Some(token) => Err(format!("invalid syntax near {}", token.describe())),
    }
}

/// The memory keys (`ns.entry`) a condition reads.
pub fn memory_keys(expr: &Expr) -> Vec<String> {
    let mut keys = Vec::new();
    collect_keys(expr, &mut keys);
    keys
}

fn collect_keys(expr: &Expr, keys: &mut Vec<String>) {
    match expr {
        Expr::Constant(_) => {}
        Expr::Memory(key) => {
            if !keys.contains(key) {
                keys.push(key.clone());
            }
        }
        Expr::Not(inner) => collect_keys(inner, keys),
        Expr::And(items) | Expr::Or(items) => {
            items.iter().for_each(|item| collect_keys(item, keys));
        }
        Expr::Compare(first, rest) => {
            collect_keys(first, keys);
            rest.iter().for_each(|(_, item)| collect_keys(item, keys));
        }
    }
}

impl Scalar {
    /// Python truthiness.
    pub fn truthy(&self) -> bool {
        match self {
            Scalar::None => false,
            Scalar::Bool(flag) => *flag,
            Scalar::Int(number) => *number != 0,
            Scalar::Float(number) => *number != 0.0,
            Scalar::Str(text) => !text.is_empty(),
        }
    }

    fn number(&self) -> Option<f64> {
        match self {
            Scalar::Bool(flag) => Some(f64::from(u8::from(*flag))),
            #[allow(clippy::cast_precision_loss)]
            Scalar::Int(number) => Some(*number as f64),
            Scalar::Float(number) => Some(*number),
            _ => None,
        }
    }
}

impl Expr {
    /// Evaluates with `lookup` giving readable memory (`None` for unset or unreadable).
    /// `Err` is Rasa's `ConditionEvaluationError` (a type error in a comparison).
    pub fn evaluate(&self, lookup: &dyn Fn(&str) -> Scalar) -> Result<Scalar, String> {
        Ok(match self {
            Expr::Constant(value) => value.clone(),
            Expr::Memory(key) => lookup(key),
            Expr::Not(inner) => Scalar::Bool(!inner.evaluate(lookup)?.truthy()),
            Expr::And(items) => {
                let mut last = Scalar::Bool(true);
                for item in items {
                    last = item.evaluate(lookup)?;
                    if !last.truthy() {
                        break;
                    }
                }
                last
            }
            Expr::Or(items) => {
                let mut last = Scalar::Bool(false);
                for item in items {
                    last = item.evaluate(lookup)?;
                    if last.truthy() {
                        break;
                    }
                }
                last
            }
            Expr::Compare(first, rest) => {
                let mut left = first.evaluate(lookup)?;
                for (op, item) in rest {
                    let right = item.evaluate(lookup)?;
                    if !compare(*op, &left, &right)? {
                        return Ok(Scalar::Bool(false));
                    }
                    left = right;
                }
                Scalar::Bool(true)
            }
        })
    }
}

fn compare(op: Compare, left: &Scalar, right: &Scalar) -> Result<bool, String> {
    let ordering = match (left.number(), right.number()) {
        (Some(a), Some(b)) => a.partial_cmp(&b),
        _ => match (left, right) {
            (Scalar::Str(a), Scalar::Str(b)) => Some(a.cmp(b)),
            _ => None,
        },
    };
    let equal = match (left.number(), right.number()) {
        (Some(a), Some(b)) => a == b,
        _ => left == right,
    };
    Ok(match op {
        Compare::Eq => equal,
        Compare::Ne => !equal,
        _ => {
            let Some(ordering) = ordering else {
                return Err(format!(
                    "'{}' not supported between instances of '{}' and '{}'",
                    op_text(op),
                    type_name(left),
                    type_name(right)
                ));
            };
            match op {
                Compare::Lt => ordering.is_lt(),
                Compare::Le => ordering.is_le(),
                Compare::Gt => ordering.is_gt(),
                _ => ordering.is_ge(),
            }
        }
    })
}

fn op_text(op: Compare) -> &'static str {
    match op {
        Compare::Eq => "==",
        Compare::Ne => "!=",
        Compare::Lt => "<",
        Compare::Le => "<=",
        Compare::Gt => ">",
        Compare::Ge => ">=",
    }
}

fn type_name(value: &Scalar) -> &'static str {
    match value {
        Scalar::None => "NoneType",
        Scalar::Bool(_) => "bool",
        Scalar::Int(_) => "int",
        Scalar::Float(_) => "float",
        Scalar::Str(_) => "str",
    }
}

#[derive(Clone, Debug, PartialEq)]
enum Token {
    Name(String),
    Number(Scalar),
    Str(String),
    Op(&'static str),
    Dot,
    Open,
    Close,
}

impl Token {
    fn describe(&self) -> String {
        match self {
            Token::Name(name) => format!("'{name}'"),
            Token::Number(_) => "a number".to_owned(),
            Token::Str(_) => "a string".to_owned(),
            Token::Op(op) => format!("'{op}'"),
            Token::Dot => "'.'".to_owned(),
            Token::Open => "'('".to_owned(),
            Token::Close => "')'".to_owned(),
        }
    }
}

/// Deepest nesting of a condition (brackets, `not`, operators) that parses; deeper is a
/// syntax error naming this limit.
pub const MAX_DEPTH: usize = 64;

fn tokenize(source: &str) -> Result<Vec<Token>, String> {
    let chars: Vec<char> = source.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        match c {
            c if c.is_whitespace() => i += 1,
            '(' => {
                tokens.push(Token::Open);
                i += 1;
            }
            ')' => {
                tokens.push(Token::Close);
                i += 1;
            }
            '.' if !chars.get(i + 1).is_some_and(char::is_ascii_digit) => {
                tokens.push(Token::Dot);
                i += 1;
            }
            '=' | '!' | '<' | '>' => {
                let two: String = chars[i..(i + 2).min(chars.len())].iter().collect();
                let op = match two.as_str() {
                    "==" => "==",
                    "!=" => "!=",
                    "<=" => "<=",
                    ">=" => ">=",
                    _ if c == '<' => "<",
                    _ if c == '>' => ">",
                    _ => return Err(format!("unsupported operator '{c}'")),
                };
                i += op.len();
                tokens.push(Token::Op(op));
            }
            '"' | '\'' => {
                let quote = c;
                let mut text = String::new();
                i += 1;
                loop {
                    match chars.get(i) {
                        None => return Err("unterminated string literal".to_owned()),
                        Some('\\') => {
                            let escaped = chars.get(i + 1).copied().unwrap_or('\\');
                            text.push(match escaped {
                                'n' => '\n',
                                't' => '\t',
                                other => other,
                            });
                            i += 2;
                        }
                        Some(&ch) if ch == quote => {
                            i += 1;
                            break;
                        }
                        Some(&ch) => {
                            text.push(ch);
                            i += 1;
                        }
                    }
                }
                tokens.push(Token::Str(text));
            }
            c if c.is_ascii_digit() || c == '.' => {
                let start = i;
                while chars
                    .get(i)
                    .is_some_and(|ch| ch.is_ascii_alphanumeric() || *ch == '.' || *ch == '_')
                {
                    i += 1;
                }
                let text: String = chars[start..i].iter().filter(|&&ch| ch != '_').collect();
                let number = text
                    .parse::<i64>()
                    .map(Scalar::Int)
                    .or_else(|_| text.parse::<f64>().map(Scalar::Float))
                    .map_err(|_| format!("invalid number literal '{text}'"))?;
                tokens.push(Token::Number(number));
            }
            c if c.is_alphabetic() || c == '_' => {
                let start = i;
                while chars.get(i).is_some_and(|ch| ch.is_alphanumeric() || *ch == '_') {
                    i += 1;
                }
                tokens.push(Token::Name(chars[start..i].iter().collect()));
            }
            other => return Err(format!("unsupported character '{other}'")),
        }
    }
    Ok(tokens)
}

struct Parser {
    tokens: Vec<Token>,
    at: usize,
    depth: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.at)
    }

    fn keyword(&self, word: &str) -> bool {
        matches!(self.peek(), Some(Token::Name(name)) if name == word)
    }

    fn or(&mut self) -> Result<Expr, String> {
        let mut items = vec![self.and()?];
        while self.keyword("or") {
            self.at += 1;
            items.push(self.and()?);
        }
        Ok(if items.len() == 1 { items.remove(0) } else { Expr::Or(items) })
    }

    fn and(&mut self) -> Result<Expr, String> {
        let mut items = vec![self.not()?];
        while self.keyword("and") {
            self.at += 1;
            items.push(self.not()?);
        }
        Ok(if items.len() == 1 { items.remove(0) } else { Expr::And(items) })
    }

    fn not(&mut self) -> Result<Expr, String> {
        if self.keyword("not") {
            self.at += 1;
            self.enter()?;
            let inner = self.not()?;
            self.depth -= 1;
            return Ok(Expr::Not(Box::new(inner)));
        }
        self.comparison()
    }

    fn comparison(&mut self) -> Result<Expr, String> {
        let first = self.atom()?;
        let mut rest = Vec::new();
        while let Some(Token::Op(op)) = self.peek() {
            let op = match *op {
                "==" => Compare::Eq,
                "!=" => Compare::Ne,
                "<" => Compare::Lt,
                "<=" => Compare::Le,
                ">" => Compare::Gt,
                _ => Compare::Ge,
            };
            self.at += 1;
            rest.push((op, self.atom()?));
        }
        if self.keyword("in") || self.keyword("is") {
            return Err("unsupported operator 'in'/'is' in condition expression".to_owned());
        }
        Ok(if rest.is_empty() { first } else { Expr::Compare(Box::new(first), rest) })
    }

    fn enter(&mut self) -> Result<(), String> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(format!("condition nests deeper than {MAX_DEPTH} levels"));
        }
        Ok(())
    }

    fn atom(&mut self) -> Result<Expr, String> {
        let Some(token) = self.peek().cloned() else {
            return Err("unexpected end of condition expression".to_owned());
        };
        self.at += 1;
        match token {
            Token::Open => {
                self.enter()?;
                let inner = self.or()?;
                self.depth -= 1;
                if self.peek() != Some(&Token::Close) {
                    return Err("'(' was never closed".to_owned());
                }
                self.at += 1;
                Ok(inner)
            }
            Token::Number(number) => Ok(Expr::Constant(number)),
            Token::Str(text) => Ok(Expr::Constant(Scalar::Str(text))),
            Token::Name(name) => match name.as_str() {
                "True" => Ok(Expr::Constant(Scalar::Bool(true))),
                "False" => Ok(Expr::Constant(Scalar::Bool(false))),
                "None" => Ok(Expr::Constant(Scalar::None)),
                _ => self.reference(name),
            },
            other => Err(format!("invalid syntax near {}", other.describe())),
        }
    }

    /// `session.<ns>.<entry>`: exactly three parts, the first `session`.
    fn reference(&mut self, first: String) -> Result<Expr, String> {
        let mut parts = vec![first];
        while self.peek() == Some(&Token::Dot) {
            self.at += 1;
            match self.peek().cloned() {
                Some(Token::Name(part)) => {
                    self.at += 1;
                    parts.push(part);
                }
                _ => return Err("invalid syntax after '.'".to_owned()),
            }
        }
        if self.peek() == Some(&Token::Open) {
            return Err("function calls are not allowed in condition expressions".to_owned());
        }
        if parts.len() == 3 && parts[0] == "session" {
            return Ok(Expr::Memory(format!("{}.{}", parts[1], parts[2])));
        }
        let shown = &parts[0];
        Err(format!(
            "Unknown name '{shown}' in condition expression. Memory must be referenced via the \
             namespaced form 'session.<skill_id|project|system>.<entry_name>'."
        ))
    }
}
