//! FastMCP servers (`mcp.server.fastmcp`, MCP Python SDK 1.x): the `FastMCP(…)` instance,
//! every `@<instance>.tool(…)` function, the pydantic models of the file, and the
//! `tools/list` entries FastMCP would publish for them, `inputSchema` and `outputSchema`
//! exactly as the SDK's `func_metadata` and pydantic v2 generate them.
//!
//! Reads text only; reports what falls outside the subset and goes on.

use std::collections::BTreeMap;

use serde::Serialize;

use super::annotation::{TypeExpr, parse_type};
use super::body::{self, CrmCall, Param, ResultKey, ResultShape};
use super::literal::{cleandoc, compiled_docstring, literal_value};
use super::pydantic::{
    DefaultSpec, Extra, FieldSpec, ModelSpec, Models, SchemaBuilder, read_field,
};
use super::schema::{Additional, JsonValue, Schema};
use super::source::{Call, Class, Def, Item, Source, Stmt};
use super::tools::{
    CLIENT_MODULE, DUPLICATE, UNSUPPORTED, report_module_import, report_odd_decorators, report_star,
};
use swaplab_base::diagnostic::{Diagnostic, Severity, Span};

/// Code of findings about signatures FastMCP refuses.
const SIGNATURE: &str = "swaplab.python.fastmcp_signature";

/// Code of findings about the FastMCP instance.
const INSTANCE: &str = "swaplab.python.fastmcp_instance";

/// A FastMCP server module, read.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct McpServerModule {
    /// The server's name, `FastMCP("<name>")`.
    pub server_name: Option<String>,
    /// The variable holding the `FastMCP` instance (`mcp`).
    pub instance: Option<String>,
    /// `host=` when a literal, or a module-level name bound to one before.
    pub host: Option<String>,
    /// `port=` when a literal, or a module-level name bound to one before.
    pub port: Option<i64>,
    /// The tools `tools/list` would publish, in registration order.
    pub tools: Vec<McpTool>,
    /// The `BaseModel` classes of the file.
    pub models: Vec<ModelClass>,
    /// What could not be read, or is outside the subset.
    pub diagnostics: Vec<Diagnostic>,
}

/// One tool of the server, as `tools/list` would publish it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct McpTool {
    /// The published name: `name=` of the decorator, else the function's name.
    pub name: String,
    /// The Python function's name.
    pub function: String,
    /// Where the function's name is.
    pub name_span: Span,
    /// Where the `@mcp.tool(…)` decorator is.
    pub decorator_span: Span,
    /// `async def`.
    pub is_async: bool,
    /// `title=` of the decorator.
    pub title: Option<String>,
    /// The published description: `description=`, else the docstring as Python 3.13+
    /// stores it (`fn.__doc__`), else empty.
    pub description: String,
    /// The parameters, in order (a `Context` parameter included and marked injected).
    pub params: Vec<Param>,
    /// The return annotation's source text.
    pub returns: Option<String>,
    /// Where the return annotation is.
    pub returns_span: Option<Span>,
    /// `inputSchema`: the JSON schema of the generated `<function>Arguments` model.
    pub input_schema: Schema,
    /// `outputSchema`, when FastMCP structures the output.
    pub output_schema: Option<Schema>,
    /// CRM client calls, in order.
    pub crm_calls: Vec<CrmCall>,
    /// Keys of the results returned (model keywords or dict keys), in order.
    pub result_keys: Vec<ResultKey>,
}

impl McpTool {
    /// `inputSchema`.
    pub fn input_schema(&self) -> &Schema {
        &self.input_schema
    }

    /// `outputSchema`, if published.
    pub fn output_schema(&self) -> Option<&Schema> {
        self.output_schema.as_ref()
    }

    /// Names of the arguments a call must pass.
    pub fn required_args(&self) -> &[String] {
        self.input_schema.required_names()
    }
}

/// A pydantic model class of the server file.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ModelClass {
    /// The class name.
    pub name: String,
    /// Where the name is.
    pub name_span: Span,
    /// The base classes as written.
    pub bases: Vec<String>,
    /// The annotated fields this class declares (inherited ones are not repeated).
    pub fields: Vec<ModelField>,
    /// `model_config`'s `extra`.
    pub extra: Extra,
    /// The docstring, cleaned as `inspect.cleandoc` does.
    pub docstring: Option<String>,
}

/// One annotated field of a model.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ModelField {
    /// The field's name.
    pub name: String,
    /// Where the name is.
    pub span: Span,
    /// The annotation's source text.
    pub annotation: String,
    /// The default's source text.
    pub default: Option<String>,
}

/// Names the file imported, under the names it uses.
struct Names {
    fastmcp: Vec<String>,
    base_model: Vec<String>,
    field: Vec<String>,
    config_dict: Vec<String>,
    context: Vec<String>,
    clients: Vec<String>,
    /// Module-level type aliases (`ContactId = Annotated[str, Field(…)]`): the tokens of
    /// what each name stands for, read in place of the name in a tool's signature.
    aliases: BTreeMap<String, (usize, usize)>,
}

impl Names {
    fn new() -> Names {
        let both = |name: &str, module: &str| vec![name.to_owned(), format!("{module}.{name}")];
        Names {
            fastmcp: both("FastMCP", "mcp.server.fastmcp"),
            base_model: both("BaseModel", "pydantic"),
            field: both("Field", "pydantic"),
            config_dict: both("ConfigDict", "pydantic"),
            context: vec!["Context".to_owned()],
            clients: vec!["crm".to_owned()],
            aliases: BTreeMap::new(),
        }
    }

    /// `NAME = <a type>` at module level: an alias, if its value reads as a type
    /// (`Annotated[…]`, `Optional[…]`, `Union[…]`, `X | None`, a builtin type).
    fn learn_alias(&mut self, source: &Source<'_>, stmt: Stmt) {
        let parts = source.split_assignment(stmt.start, stmt.end);
        let [(ts, te), (vs, ve)] = parts.as_slice() else { return };
        if te - ts != 1 || !source.is_kind(*ts, crate::lex::TokenKind::Name) {
            return;
        }
        let head = source.text(*vs);
        let typed = ["Annotated", "Optional", "Union", "Literal"].contains(&head)
            || (["str", "int", "float", "bool", "list", "dict"].contains(&head) && ve - vs > 1);
        if typed {
            self.aliases.insert(source.text(*ts).to_owned(), (*vs, *ve));
        }
    }

    /// An annotation's tokens, through an alias when it is one name that is one.
    fn unalias(
        &self,
        source: &Source<'_>,
        annotation: Option<(usize, usize)>,
    ) -> Option<(usize, usize)> {
        let (s, e) = annotation?;
        if e == s + 1
            && let Some(&range) = self.aliases.get(source.text(s))
        {
            return Some(range);
        }
        Some((s, e))
    }

    fn learn(&mut self, source: &mut Source<'_>, stmt: Stmt) -> bool {
        let Some(import) = source.import(stmt) else { return false };
        report_star(source, import.star, import.from.as_deref());
        let Some(module) = import.from.as_deref() else {
            for (name, _, token) in &import.names {
                if name == CLIENT_MODULE {
                    report_module_import(source, *token);
                }
            }
            return true;
        };
        if module == "fastmcp"
            && let Some((_, _, token)) = import.names.first()
        {
            source.report(
                Severity::Info,
                (*token, *token + 1),
                UNSUPPORTED,
                "the standalone `fastmcp` package publishes its own schemas; Swap Lab follows \
                 the MCP Python SDK's `mcp.server.fastmcp`",
            );
        }
        for (name, alias, _) in import.names {
            let list = match (module, name.as_str()) {
                (CLIENT_MODULE, _) => &mut self.clients,
                ("mcp.server.fastmcp" | "mcp.server.fastmcp.server" | "fastmcp", "FastMCP") => {
                    &mut self.fastmcp
                }
                ("mcp.server.fastmcp" | "mcp.server.fastmcp.server" | "fastmcp", "Context") => {
                    &mut self.context
                }
                ("pydantic", "BaseModel") => &mut self.base_model,
                ("pydantic" | "pydantic.fields", "Field") => &mut self.field,
                ("pydantic" | "pydantic.config", "ConfigDict") => &mut self.config_dict,
                _ => continue,
            };
            list.push(alias);
        }
        true
    }
}

/// Reads a FastMCP server module. Never fails: what it cannot read becomes a diagnostic.
pub fn scan_mcp_server(path: &str, text: &str) -> McpServerModule {
    let mut source = Source::parse(path, text);
    let items = source.items();
    let mut names = Names::new();
    let mut module = McpServerModule {
        server_name: None,
        instance: None,
        host: None,
        port: None,
        tools: Vec::new(),
        models: Vec::new(),
        diagnostics: Vec::new(),
    };
    let mut specs = Models::default();
    let mut constants: BTreeMap<String, JsonValue> = BTreeMap::new();
    for item in &items {
        match item {
            Item::Statement(stmt) => {
                if !names.learn(&mut source, *stmt) {
                    instance(&mut source, *stmt, &names, &constants, &mut module);
                    learn_constants(&source, *stmt, &mut constants);
                    names.learn_alias(&source, *stmt);
                }
            }
            Item::Class(class) => {
                if let Some((spec, public)) = model_class(&mut source, class, &names, &specs) {
                    specs.add(spec);
                    module.models.push(public);
                }
            }
            Item::Def(_) | Item::Compound(_) => {}
        }
    }
    let instance = module.instance.clone().unwrap_or_else(|| "mcp".to_owned());
    if module.instance.is_none() {
        source.findings.push(
            Severity::Warning,
            (0, 0),
            INSTANCE,
            "no `mcp = FastMCP(…)` at module level: reading `@mcp.tool()` functions",
        );
    }
    let decorator = format!("{instance}.tool");
    let model_names = specs.names();
    for item in items {
        let Item::Def(def) = item else { continue };
        report_odd_decorators(&mut source, &def);
        for d in &def.decorators {
            let Some(target) = d.target.as_ref() else { continue };
            let other_tool = target.name.ends_with(".tool")
                && target.name != decorator
                && target.name.matches('.').count() == 1;
            if other_tool {
                source.report(
                    Severity::Warning,
                    (target.name_start, target.name_end),
                    INSTANCE,
                    format!(
                        "`@{}` is not the FastMCP instance's decorator (`@{decorator}()`): \
                         this function is not published",
                        target.name
                    ),
                );
            }
        }
        let found = def.decorators.iter().find_map(|d| {
            d.target.as_ref().filter(|t| t.name == decorator).map(|t| (d.start, d.end, t.clone()))
        });
        let Some((start, end, target)) = found else { continue };
        let Some(tool) =
            mcp_tool(&mut source, &def, (start, end), &target, &names, &specs, &model_names)
        else {
            continue;
        };
        if module.tools.iter().any(|t| t.name == tool.name) {
            source.findings.push_span(
                Severity::Warning,
                tool.name_span,
                DUPLICATE,
                format!(
                    "Tool already exists: {} (FastMCP keeps the first one registered)",
                    tool.name
                ),
            );
            continue;
        }
        module.tools.push(tool);
    }
    module.diagnostics = source.findings.finish();
    module
}

/// Module-level names bound to literals so far (`PORT = 8931`, `HOST, PORT = "…", 8931`),
/// so that `FastMCP(…, port=PORT)` reads as the literal would. A name bound to anything
/// else is forgotten.
fn learn_constants(source: &Source<'_>, stmt: Stmt, constants: &mut BTreeMap<String, JsonValue>) {
    let parts = source.split_assignment(stmt.start, stmt.end);
    let Some((&(vs, ve), targets)) = parts.split_last().filter(|(_, t)| !t.is_empty()) else {
        return;
    };
    let (items, tuple) = unpacked(source, vs, ve);
    let items: Option<Vec<JsonValue>> =
        items.iter().map(|&(s, e)| literal_value(source, s, e, 0)).collect();
    for &(ts, te) in targets {
        let te = source.find_top(ts, te, |i| source.is_op(i, ":")).unwrap_or(te);
        let (names, unpacking) = unpacked(source, ts, te);
        let names: Vec<&str> = names
            .iter()
            .filter_map(|&(s, e)| source.identifier(s).filter(|_| e == s + 1))
            .collect();
        let values = match &items {
            Some(items) if !unpacking && tuple => vec![JsonValue::Array(items.clone())],
            Some(items) if unpacking == tuple && items.len() == names.len() => items.clone(),
            _ => Vec::new(),
        };
        for (i, name) in names.iter().enumerate() {
            match values.get(i) {
                Some(value) => constants.insert((*name).to_owned(), value.clone()),
                None => constants.remove(*name),
            };
        }
    }
}

/// The items of `a, b`, `(a, b)` or `[a, b]` in tokens `start..end`, and whether there
/// are several (a comma); else the whole range as one item.
fn unpacked(source: &Source<'_>, start: usize, end: usize) -> (Vec<(usize, usize)>, bool) {
    let bracketed = (source.is_op(start, "(") || source.is_op(start, "["))
        && source.closing(start, end) == Some(end.saturating_sub(1));
    let (s, e) = if bracketed { (start + 1, end - 1) } else { (start, end) };
    if source.find_top(s, e, |i| source.is_op(i, ",")).is_none() {
        return (vec![(start, end)], false);
    }
    (source.split(s, e, ",").into_iter().filter(|(a, b)| a < b).collect(), true)
}

/// `name = FastMCP("server", host=…, port=…)`: records the instance.
fn instance(
    source: &mut Source<'_>,
    stmt: Stmt,
    names: &Names,
    constants: &BTreeMap<String, JsonValue>,
    module: &mut McpServerModule,
) {
    let parts = source.split(stmt.start, stmt.end, "=");
    let ([target, .., value], true) = (parts.as_slice(), parts.len() >= 2) else { return };
    let Some(call) = source.call(value.0, value.1) else { return };
    if !names.fastmcp.contains(&call.name) {
        return;
    }
    let target_end =
        source.find_top(target.0, target.1, |i| source.is_op(i, ":")).unwrap_or(target.1);
    let Some(variable) = source.identifier(target.0).filter(|_| target_end == target.0 + 1) else {
        return;
    };
    if let Some(first) = &module.instance {
        let message =
            format!("a second FastMCP instance; Swap Lab reads the tools of the first, `{first}`");
        source.report(Severity::Warning, (target.0, target_end), INSTANCE, message);
        return;
    }
    module.instance = Some(variable.to_owned());
    let Some(parens) = call.parens else { return };
    let args = source.args(parens);
    let literal = |name: &str, index: Option<usize>| {
        let arg = source.arg(&args, name, index)?;
        literal_value(source, arg.start, arg.end, 0).or_else(|| {
            let constant = source.identifier(arg.start).filter(|_| arg.end == arg.start + 1)?;
            constants.get(constant).cloned()
        })
    };
    if let Some(JsonValue::Str(name)) = literal("name", Some(0)) {
        module.server_name = Some(name);
    }
    if let Some(JsonValue::Str(host)) = literal("host", None) {
        module.host = Some(host);
    }
    if let Some(JsonValue::Int(port)) = literal("port", None) {
        module.port = Some(port);
    }
}

/// A `class X(BaseModel):` (or a subclass of a model of the file) with its fields.
fn model_class(
    source: &mut Source<'_>,
    class: &Class,
    names: &Names,
    earlier: &Models,
) -> Option<(ModelSpec, ModelClass)> {
    let bases: Vec<String> = class
        .bases
        .map(|parens| source.args(parens))
        .unwrap_or_default()
        .iter()
        .filter(|a| a.keyword.is_none() && a.stars == 0)
        .filter_map(|a| source.call(a.start, a.end).filter(|c| c.parens.is_none()).map(|c| c.name))
        .collect();
    let inherited: Vec<(usize, &ModelSpec)> = bases.iter().filter_map(|b| earlier.get(b)).collect();
    if inherited.is_empty() && !bases.iter().any(|b| names.base_model.contains(b)) {
        return None;
    }
    let name = source.text(class.name).to_owned();
    let mut fields: Vec<FieldSpec> = Vec::new();
    let mut places: BTreeMap<String, usize> = BTreeMap::new();
    let mut public: Vec<ModelField> = Vec::new();
    let mut extra = inherited.first().map(|(_, m)| m.extra).unwrap_or_default();
    let mut statements = Vec::new();
    if let Some((s, e)) = class.body.inline {
        source.line_statements(s, e, &mut statements);
    }
    for li in class.body.lines.0..class.body.lines.1 {
        if let Some(line) = source.lines.get(li).copied().filter(|l| l.depth == 1) {
            source.line_statements(line.start, line.end, &mut statements);
        }
    }
    for stmt in statements.into_iter().filter(|s| !s.header) {
        let Some(field_name) = source.identifier(stmt.start) else { continue };
        let equals = source.find_top(stmt.start, stmt.end, |i| source.is_op(i, "="));
        if field_name == "model_config" {
            if let Some(eq) = equals {
                extra = model_extra(source, (eq + 1, stmt.end), names).unwrap_or(extra);
            }
            continue;
        }
        if !source.is_op(stmt.start + 1, ":") || field_name.starts_with('_') {
            continue;
        }
        let annotation = (stmt.start + 2, equals.unwrap_or(stmt.end));
        if annotation.0 >= annotation.1 {
            continue;
        }
        let parsed = parse_type(source, annotation.0, annotation.1);
        if parsed.base() == Some("ClassVar") {
            continue;
        }
        let default = equals.map(|eq| (eq + 1, stmt.end)).filter(|(s, e)| s < e);
        let read = read_field(source, Some(annotation), default, &names.field);
        for (at, message) in read.problems {
            source.report(Severity::Warning, at, UNSUPPORTED, message);
        }
        let field = FieldSpec {
            name: field_name.to_owned(),
            annotation: Some(parsed),
            default: read.default,
            description: read.description,
            title: read.title,
            span: source.span(annotation.0, annotation.1),
        };
        match places.get(&field.name).and_then(|&at| fields.get_mut(at)) {
            Some(slot) => *slot = field,
            None => {
                places.insert(field.name.clone(), fields.len());
                fields.push(field);
            }
        }
        public.push(ModelField {
            name: field_name.to_owned(),
            span: source.token_span(stmt.start),
            annotation: source.slice(annotation.0, annotation.1).to_owned(),
            default: default.map(|(s, e)| source.slice(s, e).to_owned()),
        });
    }
    let docstring = source.docstring(&class.body).map(|d| cleandoc(&d));
    let spec = ModelSpec {
        name: name.clone(),
        bases: inherited.iter().map(|(at, _)| *at).collect(),
        own: fields,
        extra,
        description: docstring.clone(),
    };
    let model = ModelClass {
        name,
        name_span: source.token_span(class.name),
        bases,
        fields: public,
        extra,
        docstring,
    };
    Some((spec, model))
}

/// `extra` from `model_config = {"extra": …}` or `ConfigDict(extra=…)`.
fn model_extra(
    source: &mut Source<'_>,
    (start, end): (usize, usize),
    names: &Names,
) -> Option<Extra> {
    let value = match source.call(start, end) {
        Some(call) if names.config_dict.contains(&call.name) => {
            let args = call.parens.map(|p| source.args(p)).unwrap_or_default();
            match source.arg(&args, "extra", None) {
                Some(arg) => (literal_value(source, arg.start, arg.end, 0), (arg.start, arg.end)),
                None => return None,
            }
        }
        _ => match literal_value(source, start, end, 0) {
            Some(JsonValue::Object(entries)) => {
                match entries.into_iter().find(|(k, _)| k == "extra") {
                    Some((_, value)) => (Some(value), (start, end)),
                    None => return None,
                }
            }
            _ => (None, (start, end)),
        },
    };
    match value {
        (Some(JsonValue::Str(word)), _) if word == "allow" => Some(Extra::Allow),
        (Some(JsonValue::Str(word)), _) if word == "forbid" => Some(Extra::Forbid),
        (Some(JsonValue::Str(word)), _) if word == "ignore" => Some(Extra::Ignore),
        (_, at) => {
            source.report(
                Severity::Warning,
                at,
                UNSUPPORTED,
                "this `model_config` is outside the supported subset: write \
                 `{\"extra\": \"allow\"}` or `ConfigDict(extra=\"allow\")` \
                 (or \"forbid\", \"ignore\")",
            );
            None
        }
    }
}

fn mcp_tool(
    source: &mut Source<'_>,
    def: &Def,
    decorator: (usize, usize),
    target: &Call,
    names: &Names,
    specs: &Models,
    model_names: &[String],
) -> Option<McpTool> {
    let at = (decorator.0.saturating_sub(1), decorator.1);
    let Some(parens) = target.parens else {
        source.report(
            Severity::Error,
            at,
            SIGNATURE,
            "The @tool decorator was used incorrectly. Did you forget to call it? \
             Use @tool() instead of @tool",
        );
        return None;
    };
    let function = source.text(def.name).to_owned();
    let args = source.args(parens);
    let mut text_arg = |name: &str, index: usize| -> Option<String> {
        let arg = source.arg(&args, name, Some(index)).copied()?;
        match literal_value(source, arg.start, arg.end, 0) {
            Some(JsonValue::Str(text)) => Some(text),
            Some(JsonValue::Null) => None,
            _ => {
                source.report(
                    Severity::Warning,
                    (arg.start, arg.end),
                    UNSUPPORTED,
                    format!(
                        "`{name}=` is not a string literal: Swap Lab reads literal values only"
                    ),
                );
                None
            }
        }
    };
    let name = text_arg("name", 0).unwrap_or_else(|| function.clone());
    let title = text_arg("title", 1);
    let description = text_arg("description", 2);
    let structured = source.arg(&args, "structured_output", None).copied().and_then(|a| {
        match literal_value(source, a.start, a.end, 0) {
            Some(JsonValue::Bool(b)) => Some(b),
            _ => None,
        }
    });

    let raw = source.params(def.parens);
    for p in &raw {
        let param = source.text(p.name);
        if p.stars > 0 {
            let stars = if p.stars == 1 { "*args" } else { "**kwargs" };
            source.report(
                Severity::Warning,
                (p.first, p.name + 1),
                UNSUPPORTED,
                format!(
                    "`{stars}` parameters are outside the supported subset: \
                     FastMCP's schema would differ"
                ),
            );
        } else if param.starts_with('_') {
            source.report(
                Severity::Error,
                (p.name, p.name + 1),
                SIGNATURE,
                format!("Parameter {param} of {function} cannot start with '_'"),
            );
        }
    }
    let is_context = |annotation: Option<&str>| {
        annotation.is_some_and(|a| {
            let base = a.split('[').next().unwrap_or_default().trim();
            names.context.iter().any(|c| c == base)
        })
    };
    let params = body::params(source, &raw, |_, annotation| is_context(annotation));
    let mut fields = Vec::new();
    for (p, public) in raw.iter().zip(&params) {
        if p.stars > 0 || public.injected {
            continue;
        }
        let annotation = names.unalias(source, p.annotation);
        let read = read_field(source, annotation, p.default, &names.field);
        for (range, message) in read.problems {
            source.report(Severity::Warning, range, UNSUPPORTED, message);
        }
        fields.push(FieldSpec {
            name: public.name.clone(),
            annotation: annotation.map(|(s, e)| parse_type(source, s, e)),
            default: read.default,
            description: read.description,
            title: read.title,
            span: public.annotation_span.unwrap_or(public.span),
        });
    }
    let mut builder = SchemaBuilder::new(specs);
    let arguments = builder.object(&format!("{function}Arguments"), &fields, Extra::Ignore, None);
    let (input_schema, problems) = builder.finish(arguments);
    report_problems(source, problems);
    let name_span = source.token_span(def.name);
    let output_schema =
        output_schema(source, specs, &function, (def.returns, name_span), structured);

    let docstring = source.docstring(&def.body).map(|d| compiled_docstring(&d));
    let description = description.filter(|d| !d.is_empty()).or(docstring).unwrap_or_default();
    let param_names: Vec<String> = params.iter().map(|p| p.name.clone()).collect();
    let facts = body::analyze(
        source,
        &def.body,
        &param_names,
        &names.clients,
        ResultShape::Models(model_names),
    );
    Some(McpTool {
        name,
        function,
        name_span: source.token_span(def.name),
        decorator_span: source.span(at.0, at.1),
        is_async: def.is_async,
        title,
        description,
        params,
        returns: def.returns.map(|(s, e)| source.slice(s, e).to_owned()),
        returns_span: def.returns.map(|(s, e)| source.span(s, e)),
        input_schema,
        output_schema,
        crm_calls: facts.crm_calls,
        result_keys: facts.result_keys,
    })
}

fn report_problems(source: &mut Source<'_>, problems: Vec<(Span, String)>) {
    for (span, message) in problems {
        source.findings.push_span(Severity::Warning, span, UNSUPPORTED, message);
    }
}

/// How FastMCP treats a return annotation (`_try_create_model_and_schema`).
enum Output {
    /// A model of the file: its own schema.
    Model(String),
    /// Wrapped as `{"result": …}` in a `<function>Output` model.
    Wrapped(TypeExpr),
    /// `dict[str, T]`: a `<function>DictOutput` root model.
    Dict(TypeExpr),
    /// No structured output (`dict`, `list`, `Any`, plain classes).
    Unstructured,
    /// Outside the subset.
    Unknown(String),
}

fn output_schema(
    source: &mut Source<'_>,
    specs: &Models,
    function: &str,
    (returns, name_span): (Option<(usize, usize)>, Span),
    structured: Option<bool>,
) -> Option<Schema> {
    if structured == Some(false) {
        return None;
    }
    let Some((start, end)) = returns else {
        if structured == Some(true) {
            source.findings.push_span(
                Severity::Error,
                name_span,
                SIGNATURE,
                format!("Function {function}: return annotation required for structured output"),
            );
        }
        return None;
    };
    let span = source.span(start, end);
    let parsed = parse_type(source, start, end);
    let annotation = parsed.unannotated().clone();
    let is_model = |name: &str| specs.get(name).is_some();
    let plan = match &annotation {
        TypeExpr::None => Output::Wrapped(annotation.clone()),
        TypeExpr::Name { name, dotted } => match name.as_str() {
            _ if is_model(name) => Output::Model(name.clone()),
            "str" | "int" | "float" | "bool" | "bytes" | "NoneType" | "List" | "Dict" => {
                Output::Wrapped(annotation.clone())
            }
            "dict" | "list" | "tuple" | "set" | "Any" | "object" => Output::Unstructured,
            _ => Output::Unknown(dotted.clone()),
        },
        TypeExpr::Generic { name, args, .. } if name == "dict" => match args.as_slice() {
            [TypeExpr::Name { name: key, .. }, value] if key == "str" => {
                Output::Dict(value.clone())
            }
            _ => Output::Wrapped(annotation.clone()),
        },
        TypeExpr::Generic { .. } | TypeExpr::Union(_) => Output::Wrapped(annotation.clone()),
        TypeExpr::Unsupported(text) => Output::Unknown(text.clone()),
    };
    let mut builder = SchemaBuilder::new(specs);
    let schema = match plan {
        Output::Model(name) => Some(builder.model_schema(&name, span)),
        Output::Wrapped(inner) => {
            let result = FieldSpec {
                name: "result".to_owned(),
                annotation: Some(inner),
                default: DefaultSpec::Required,
                description: None,
                title: None,
                span,
            };
            Some(builder.object(&format!("{function}Output"), &[result], Extra::Ignore, None))
        }
        Output::Dict(value) => {
            let values = builder.type_schema(value.unannotated(), span);
            let additional = if values == Schema::default() {
                Additional::Allowed(true)
            } else {
                Additional::Schema(Box::new(values))
            };
            Some(Schema {
                additional_properties: Some(additional),
                title: Some(format!("{function}DictOutput")),
                json_type: Some("object".to_owned()),
                ..Schema::default()
            })
        }
        Output::Unstructured => None,
        Output::Unknown(text) => {
            source.findings.push_span(
                Severity::Warning,
                span,
                UNSUPPORTED,
                format!(
                    "the return annotation `{text}` is outside the supported subset ({}): \
                     whether FastMCP publishes an outputSchema is not known",
                    super::pydantic::SUBSET
                ),
            );
            None
        }
    };
    let Some(schema) = schema else {
        if structured == Some(true) {
            let text = source.slice(start, end).to_owned();
            source.findings.push_span(
                Severity::Error,
                span,
                SIGNATURE,
                format!(
                    "Function {function}: return type {text} is not serializable for \
                     structured output"
                ),
            );
        }
        return None;
    };
    let (schema, problems) = builder.finish(schema);
    report_problems(source, problems);
    Some(schema)
}
