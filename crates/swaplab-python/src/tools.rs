//! Rasa tool modules (`skills/<id>/tools.py`, `tools/*.py`): every module-level function
//! decorated with `@tool(description=…)`, its signature, the schema Rasa offers the model
//! for it (reference §5.2), and what its body does with memory and the CRM.
//!
//! Reads text only; reports what falls outside the subset and goes on.

use serde::Serialize;

use super::annotation::{TypeExpr, parse_type};
use super::body::{self, CrmCall, MemoryAccess, Param, ResultKey, ResultShape};
use super::literal::string_literal;
use super::schema::{Additional, Entries, Schema};
use super::source::{Call, Def, Item, Source};
use swaplab_base::diagnostic::{Diagnostic, Severity, Span};

/// Code of findings about constructs outside the subset.
pub const UNSUPPORTED: &str = "swaplab.python.unsupported";

/// Code of findings about a tool's description.
const DESCRIPTION: &str = "swaplab.python.tool_description";

/// Code of findings about a name defined twice.
pub(crate) const DUPLICATE: &str = "swaplab.python.duplicate_tool";

/// The module the CRM client is imported from.
pub(crate) const CLIENT_MODULE: &str = "hubspot_client";

/// Parameters Rasa supplies itself and leaves out of the schema.
const INJECTED: [&str; 2] = ["context", "tracker_handle"];

/// A Rasa tool module, read.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ToolModule {
    /// The `@tool` functions, in file order.
    pub tools: Vec<ToolFunction>,
    /// What could not be read, or is outside the subset.
    pub diagnostics: Vec<Diagnostic>,
}

/// One `@tool(description=…)` function.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ToolFunction {
    /// The function's name: the tool's name.
    pub name: String,
    /// Where the name is.
    pub name_span: Span,
    /// Where the `@tool(…)` decorator is.
    pub decorator_span: Span,
    /// `async def`.
    pub is_async: bool,
    /// The `description=` string, when it is a literal.
    pub description: Option<String>,
    /// The parameters, in order (injected ones included and marked).
    pub params: Vec<Param>,
    /// The return annotation's source text.
    pub returns: Option<String>,
    /// The parameters' JSON schema Rasa offers the model (§5.2).
    pub schema: Schema,
    /// Project memory reads and writes, in order.
    pub memory: Vec<MemoryAccess>,
    /// CRM client calls, in order.
    pub crm_calls: Vec<CrmCall>,
    /// Keys of the `ToolResult(llm_response={…})` dicts returned, in order.
    pub result_keys: Vec<ResultKey>,
}

impl ToolFunction {
    /// Names of the arguments the model must pass.
    pub fn required_args(&self) -> &[String] {
        self.schema.required_names()
    }
}

/// Reads a Rasa tool module. Never fails: what it cannot read becomes a diagnostic.
pub fn scan_tool_module(path: &str, text: &str) -> ToolModule {
    let mut source = Source::parse(path, text);
    let items = source.items();
    let mut decorator_names = vec!["tool".to_owned()];
    let mut clients = vec!["crm".to_owned()];
    for item in &items {
        let Item::Statement(stmt) = item else { continue };
        let Some(import) = source.import(*stmt) else { continue };
        report_star(&mut source, import.star, import.from.as_deref());
        match import.from.as_deref() {
            Some(CLIENT_MODULE) => {
                clients.extend(import.names.iter().map(|(_, alias, _)| alias.clone()));
            }
            Some("rasa.mantle.tools" | "rasa.mantle.tools.decorator") => decorator_names.extend(
                import
                    .names
                    .iter()
                    .filter(|(name, _, _)| name == "tool")
                    .map(|(_, alias, _)| alias.clone()),
            ),
            Some(_) => {}
            None => {
                for (name, alias, token) in &import.names {
                    if name.starts_with("rasa.mantle.tools") {
                        decorator_names.push(format!("{alias}.tool"));
                    }
                    if name == CLIENT_MODULE {
                        report_module_import(&mut source, *token);
                    }
                }
            }
        }
    }

    let mut tools: Vec<ToolFunction> = Vec::new();
    for item in items {
        let Item::Def(def) = item else { continue };
        report_odd_decorators(&mut source, &def);
        let found = def.decorators.iter().find_map(|d| {
            d.target
                .as_ref()
                .filter(|t| decorator_names.contains(&t.name))
                .map(|t| (d.start, d.end, t.clone()))
        });
        let Some((start, end, target)) = found else { continue };
        let tool = tool_function(&mut source, &def, (start, end), &target, &clients);
        if let Some(earlier) = tools.iter().position(|t| t.name == tool.name) {
            let line = tool.name_span.start.line;
            let span = tools.get(earlier).map_or(tool.name_span, |t| t.name_span);
            source.findings.push_span(
                Severity::Warning,
                span,
                DUPLICATE,
                format!(
                    "`{}` is defined again on line {line}; Python keeps the last definition",
                    tool.name
                ),
            );
            tools.remove(earlier);
        }
        tools.push(tool);
    }
    ToolModule { tools, diagnostics: source.findings.finish() }
}

fn tool_function(
    source: &mut Source<'_>,
    def: &Def,
    decorator: (usize, usize),
    target: &Call,
    clients: &[String],
) -> ToolFunction {
    let decorator_span = source.span(decorator.0.saturating_sub(1), decorator.1);
    let description = description(source, decorator, target);
    let raw = source.params(def.parens);
    for p in raw.iter().filter(|p| p.stars > 0) {
        let stars = if p.stars == 1 { "*args" } else { "**kwargs" };
        source.report(
            Severity::Warning,
            (p.first, p.name + 1),
            UNSUPPORTED,
            format!(
                "`{stars}` parameters are outside the supported subset: \
                 Rasa's schema lists named parameters only"
            ),
        );
    }
    let params = body::params(source, &raw, |name, _| INJECTED.contains(&name));
    let annotations: Vec<Option<TypeExpr>> =
        raw.iter().map(|p| p.annotation.map(|(s, e)| parse_type(source, s, e))).collect();
    let schema = local_schema(&params, &annotations);
    let names: Vec<String> = params.iter().map(|p| p.name.clone()).collect();
    let facts = body::analyze(source, &def.body, &names, clients, ResultShape::ToolResult);
    ToolFunction {
        name: source.text(def.name).to_owned(),
        name_span: source.token_span(def.name),
        decorator_span,
        is_async: def.is_async,
        description,
        params,
        returns: def.returns.map(|(s, e)| source.slice(s, e).to_owned()),
        schema,
        memory: facts.memory,
        crm_calls: facts.crm_calls,
        result_keys: facts.result_keys,
    }
}

/// The `description=` of `@tool(…)`, reporting a missing or non-literal one.
fn description(
    source: &mut Source<'_>,
    decorator: (usize, usize),
    target: &Call,
) -> Option<String> {
    let at = (decorator.0.saturating_sub(1), decorator.1);
    let Some(parens) = target.parens else {
        source.report(
            Severity::Error,
            at,
            DESCRIPTION,
            format!(
                "`@{}` must be called with a description: `@{}(description=\"…\")`",
                target.name, target.name
            ),
        );
        return None;
    };
    let args = source.args(parens);
    let Some(arg) = source.arg(&args, "description", Some(0)).copied() else {
        source.report(
            Severity::Error,
            at,
            DESCRIPTION,
            format!(
                "`@{}(…)` needs a description: `@{}(description=\"…\")`",
                target.name, target.name
            ),
        );
        return None;
    };
    if arg.keyword.is_none() {
        source.report(
            Severity::Warning,
            (arg.start, arg.end),
            DESCRIPTION,
            "Rasa's `@tool` takes the description by keyword: write `@tool(description=\"…\")`",
        );
    }
    let text = string_literal(source, arg.start, arg.end);
    if text.is_none() {
        source.report(
            Severity::Warning,
            (arg.start, arg.end),
            UNSUPPORTED,
            "the description is not a string literal: Swap Lab reads literal descriptions only",
        );
    }
    text
}

/// The schema Rasa offers for a local tool: the signature minus injected parameters;
/// `int`, `float`, `bool`, `str` and `list[…]` mapped, anything else a string; no
/// default means required; nothing extra allowed.
fn local_schema(params: &[Param], annotations: &[Option<TypeExpr>]) -> Schema {
    let mut properties = Vec::new();
    let mut required = Vec::new();
    for (param, annotation) in params.iter().zip(annotations) {
        if param.injected || param.kind != body::ParamKind::Named {
            continue;
        }
        let json_type = match annotation.as_ref().and_then(TypeExpr::base) {
            Some("int") => "integer",
            Some("float") => "number",
            Some("bool") => "boolean",
            Some("list" | "List") => "array",
            _ => "string",
        };
        properties.push((param.name.clone(), Schema::of_type(json_type)));
        if param.default.is_none() {
            required.push(param.name.clone());
        }
    }
    Schema {
        additional_properties: Some(Additional::Allowed(false)),
        properties: Some(Entries(properties)),
        required: Some(required),
        json_type: Some("object".to_owned()),
        ..Schema::default()
    }
}

/// Reports `from m import *`.
pub(crate) fn report_star(source: &mut Source<'_>, star: Option<usize>, module: Option<&str>) {
    if let Some(star) = star {
        let module = module.unwrap_or_default();
        source.report(
            Severity::Warning,
            (star, star + 1),
            UNSUPPORTED,
            format!(
                "`from {module} import *` is outside the supported subset: import names explicitly"
            ),
        );
    }
}

/// Reports `import hubspot_client`, whose calls cannot be traced.
pub(crate) fn report_module_import(source: &mut Source<'_>, token: usize) {
    source.report(
        Severity::Warning,
        (token, token + 1),
        UNSUPPORTED,
        format!(
            "`import {CLIENT_MODULE}` is outside the supported subset: \
             CRM calls are traced through `from {CLIENT_MODULE} import crm`"
        ),
    );
}

/// Reports decorators that are neither a dotted name nor a call of one.
pub(crate) fn report_odd_decorators(source: &mut Source<'_>, def: &Def) {
    for decorator in def.decorators.iter().filter(|d| d.target.is_none()) {
        source.report(
            Severity::Warning,
            (decorator.start, decorator.end),
            UNSUPPORTED,
            "this decorator is outside the supported subset: a decorator must be a name or a \
             call such as `@tool(description=\"…\")`",
        );
    }
}
