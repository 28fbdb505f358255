//! The JSON Schemas pydantic v2 generates for the models FastMCP builds from a function:
//! field titles (`str.title()` of the name), defaults, `X | None` as `anyOf` with null
//! last, models of the same file as `$ref`s into `$defs`, `extra` as
//! `additionalProperties`, a model's docstring as its description.
//!
//! What falls outside the subset is collected as problems with a span, never a panic;
//! model nesting is capped.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use super::annotation::TypeExpr;
use super::literal::{MAX_DEPTH, field_title, literal_value, string_literal};
use super::schema::{Additional, Entries, JsonValue, Schema};
use super::source::Source;
use swaplab_base::diagnostic::Span;

/// A model's `extra` setting (`model_config`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Extra {
    /// pydantic's default: extra keys are dropped; the schema says nothing.
    #[default]
    Ignore,
    /// `extra="allow"`: extra keys are kept; `additionalProperties: true`.
    Allow,
    /// `extra="forbid"`: extra keys are an error; `additionalProperties: false`.
    Forbid,
}

/// How a field gets its value when absent.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum DefaultSpec {
    /// No default: the field is required.
    Required,
    /// A literal default, shown as `default`.
    Value(JsonValue),
    /// `default_factory=…`: optional, no `default` shown.
    Factory,
    /// A default that is not a literal: optional, not shown (reported).
    Unknown,
}

/// One field of a model (or parameter of a function) to describe.
#[derive(Clone, Debug)]
pub(crate) struct FieldSpec {
    pub(crate) name: String,
    /// The annotation; `None` when the parameter has none.
    pub(crate) annotation: Option<TypeExpr>,
    pub(crate) default: DefaultSpec,
    pub(crate) description: Option<String>,
    pub(crate) title: Option<String>,
    /// Where to report a problem with the annotation.
    pub(crate) span: Span,
}

/// A `BaseModel` subclass of the file, ready to describe.
#[derive(Clone, Debug)]
pub(crate) struct ModelSpec {
    pub(crate) name: String,
    /// Indices (in [`Models`]) of the base classes that are models of the file.
    pub(crate) bases: Vec<usize>,
    /// The fields this class declares.
    pub(crate) own: Vec<FieldSpec>,
    pub(crate) extra: Extra,
    pub(crate) description: Option<String>,
}

/// The model classes of a file, in order, found by name (a later class of the same name
/// wins, as it does in Python).
#[derive(Default)]
pub(crate) struct Models {
    list: Vec<ModelSpec>,
    index: BTreeMap<String, usize>,
}

/// Inheritance deeper or wider than this is not followed.
const MAX_ANCESTORS: usize = 64;

impl Models {
    pub(crate) fn add(&mut self, spec: ModelSpec) {
        self.index.insert(spec.name.clone(), self.list.len());
        self.list.push(spec);
    }

    /// The model named `name`, with its index.
    pub(crate) fn get(&self, name: &str) -> Option<(usize, &ModelSpec)> {
        let at = *self.index.get(name)?;
        self.list.get(at).map(|m| (at, m))
    }

    /// The names of the models.
    pub(crate) fn names(&self) -> Vec<String> {
        self.index.keys().cloned().collect()
    }

    /// The fields of model `at` as pydantic collects them: along the reversed MRO, base
    /// classes first, a redefined field keeping its first place. `false` when the
    /// hierarchy was too deep to follow whole.
    pub(crate) fn fields(&self, at: usize) -> (Vec<FieldSpec>, bool) {
        let mut order = Vec::new();
        let mut seen = BTreeSet::from([at]);
        let mut complete = true;
        // (model, how many of its bases were visited), bases visited last to first.
        let mut stack = vec![(at, 0usize)];
        while let Some(&mut (node, ref mut next)) = stack.last_mut() {
            let bases = self.list.get(node).map_or(&[][..], |m| m.bases.as_slice());
            match bases.len().checked_sub(*next + 1).and_then(|i| bases.get(i)) {
                Some(&base) => {
                    *next += 1;
                    if seen.insert(base) {
                        if stack.len() >= MAX_DEPTH || seen.len() > MAX_ANCESTORS {
                            complete = false;
                        } else {
                            stack.push((base, 0));
                        }
                    }
                }
                None => {
                    order.push(node);
                    stack.pop();
                }
            }
        }
        let mut fields: Vec<FieldSpec> = Vec::new();
        let mut places: BTreeMap<&str, usize> = BTreeMap::new();
        for field in order.iter().filter_map(|&i| self.list.get(i)).flat_map(|m| &m.own) {
            match places.get(field.name.as_str()).and_then(|&p| fields.get_mut(p)) {
                Some(slot) => *slot = field.clone(),
                None => {
                    places.insert(&field.name, fields.len());
                    fields.push(field.clone());
                }
            }
        }
        (fields, complete)
    }
}

/// Models nested deeper than this are not described.
const MAX_MODELS: usize = 32;

/// Types nested deeper than this, model references included, are not described.
const MAX_NESTING: usize = 64;

/// Unions of more types than this are not described.
const MAX_UNION: usize = 64;

/// What the subset covers, for messages.
pub(crate) const SUBSET: &str = "str, int, float, bool, bytes, None, Any, list[…], dict[…], \
     X | None, Optional[…], Union[…], Annotated[…] and BaseModel classes of this file";

/// Builds schemas that share one `$defs`.
pub(crate) struct SchemaBuilder<'m> {
    models: &'m Models,
    defs: Vec<(String, Schema)>,
    building: Vec<String>,
    /// The outermost model referenced itself.
    top_referenced: bool,
    /// How deep [`Self::type_schema`] is nested right now.
    nesting: usize,
    /// Names of the models in `defs`.
    described: BTreeSet<String>,
    pub(crate) problems: Vec<(Span, String)>,
}

impl<'m> SchemaBuilder<'m> {
    pub(crate) fn new(models: &'m Models) -> SchemaBuilder<'m> {
        SchemaBuilder {
            models,
            defs: Vec::new(),
            building: Vec::new(),
            top_referenced: false,
            nesting: 0,
            described: BTreeSet::new(),
            problems: Vec::new(),
        }
    }

    /// Whether `name` is a model of the file.
    pub(crate) fn is_model(&self, name: &str) -> bool {
        self.models.get(name).is_some()
    }

    /// An object schema with these fields (a function's arguments, a wrapped output).
    pub(crate) fn object(
        &mut self,
        title: &str,
        fields: &[FieldSpec],
        extra: Extra,
        description: Option<&str>,
    ) -> Schema {
        let mut properties = Vec::with_capacity(fields.len());
        let mut required = Vec::new();
        for field in fields {
            properties.push((field.name.clone(), self.field(field)));
            if field.default == DefaultSpec::Required {
                required.push(field.name.clone());
            }
        }
        Schema {
            additional_properties: match extra {
                Extra::Ignore => None,
                Extra::Allow => Some(Additional::Allowed(true)),
                Extra::Forbid => Some(Additional::Allowed(false)),
            },
            description: description.map(str::to_owned),
            properties: Some(Entries(properties)),
            required: (!required.is_empty()).then_some(required),
            title: Some(title.to_owned()),
            json_type: Some("object".to_owned()),
            ..Schema::default()
        }
    }

    /// The schema of model `name` itself, as `Model.model_json_schema()` gives it.
    pub(crate) fn model_schema(&mut self, name: &str, span: Span) -> Schema {
        let reference = self.reference(name, span);
        if self.top_referenced {
            return reference;
        }
        match self.defs.iter().position(|(n, _)| n == name) {
            Some(at) => self.defs.remove(at).1,
            None => reference,
        }
    }

    /// Attaches the `$defs` collected so far to `top`, sorted by name.
    pub(crate) fn finish(mut self, mut top: Schema) -> (Schema, Vec<(Span, String)>) {
        if !self.defs.is_empty() {
            swaplab_base::order::sort_by(&mut self.defs, |a, b| a.0.cmp(&b.0));
            top.defs = Some(Entries(self.defs));
        }
        (top, self.problems)
    }

    fn field(&mut self, field: &FieldSpec) -> Schema {
        let mut schema = match &field.annotation {
            // FastMCP gives an unannotated parameter this exact schema.
            None => Schema {
                title: Some(field.name.clone()),
                json_type: Some("string".to_owned()),
                ..Schema::default()
            },
            Some(annotation) => {
                let annotation = annotation.unannotated();
                let mut schema = self.type_schema(annotation, field.span);
                if field.title.is_some() || !self.is_model_reference(annotation) {
                    schema.title =
                        Some(field.title.clone().unwrap_or_else(|| field_title(&field.name)));
                }
                schema
            }
        };
        schema.description.clone_from(&field.description);
        if let DefaultSpec::Value(value) = &field.default {
            schema.default = Some(value.clone());
        }
        schema
    }

    /// pydantic sets no field title on a model reference, nor on an optional one.
    fn is_model_reference(&self, annotation: &TypeExpr) -> bool {
        match annotation {
            TypeExpr::Name { name, .. } => self.is_model(name),
            TypeExpr::Union(members) => {
                let mut others = members.iter().filter(|m| **m != TypeExpr::None);
                match (others.next(), others.next()) {
                    (Some(only), None) => self.is_model_reference(only.unannotated()),
                    _ => false,
                }
            }
            _ => false,
        }
    }

    fn unsupported(&mut self, span: Span, text: &str) -> Schema {
        self.outside(span, &format!("the annotation `{text}`"))
    }

    fn outside(&mut self, span: Span, what: &str) -> Schema {
        self.problems.push((span, format!("{what} is outside the supported subset ({SUBSET})")));
        Schema::default()
    }

    /// The JSON schema of a type (without a field title). Nesting, counted across model
    /// references too, is capped so that no input can exhaust the stack.
    pub(crate) fn type_schema(&mut self, annotation: &TypeExpr, span: Span) -> Schema {
        if self.nesting > MAX_NESTING {
            let what = format!("an annotation nested more than {MAX_NESTING} levels deep");
            return self.outside(span, &what);
        }
        self.nesting += 1;
        let schema = self.nested_type_schema(annotation, span);
        self.nesting -= 1;
        schema
    }

    fn nested_type_schema(&mut self, annotation: &TypeExpr, span: Span) -> Schema {
        match annotation {
            TypeExpr::None => Schema::of_type("null"),
            TypeExpr::Name { name, dotted } => match name.as_str() {
                "str" => Schema::of_type("string"),
                "int" => Schema::of_type("integer"),
                "float" => Schema::of_type("number"),
                "bool" => Schema::of_type("boolean"),
                "bytes" => {
                    Schema { format: Some("binary".to_owned()), ..Schema::of_type("string") }
                }
                "NoneType" => Schema::of_type("null"),
                "Any" => Schema::default(),
                "list" | "List" => {
                    Schema { items: Some(Box::default()), ..Schema::of_type("array") }
                }
                "dict" | "Dict" => Schema {
                    additional_properties: Some(Additional::Allowed(true)),
                    ..Schema::of_type("object")
                },
                _ if self.is_model(name) => self.reference(name, span),
                _ => self.unsupported(span, dotted),
            },
            TypeExpr::Generic { name, dotted, args } => match (name.as_str(), args.as_slice()) {
                ("list" | "List", [item]) => {
                    let items = self.type_schema(item.unannotated(), span);
                    Schema { items: Some(Box::new(items)), ..Schema::of_type("array") }
                }
                ("dict" | "Dict", [_, value]) => {
                    let values = self.type_schema(value.unannotated(), span);
                    let additional = if values == Schema::default() {
                        Additional::Allowed(true)
                    } else {
                        Additional::Schema(Box::new(values))
                    };
                    Schema { additional_properties: Some(additional), ..Schema::of_type("object") }
                }
                ("Annotated", [inner, ..]) => self.type_schema(inner, span),
                _ => self.unsupported(span, &format!("{dotted}[…]")),
            },
            TypeExpr::Union(members) if members.len() > MAX_UNION => {
                self.outside(span, &format!("a union of more than {MAX_UNION} types"))
            }
            TypeExpr::Union(members) => {
                let nullable = members.contains(&TypeExpr::None);
                let mut choices = Vec::new();
                for member in members.iter().filter(|m| **m != TypeExpr::None) {
                    choices.push(self.type_schema(member.unannotated(), span));
                }
                let inner = match choices.len() {
                    0 => return Schema::of_type("null"),
                    1 => choices.pop().unwrap_or_default(),
                    _ => any_of(choices),
                };
                if !nullable || inner == Schema::of_type("null") {
                    inner
                } else {
                    any_of(vec![inner, Schema::of_type("null")])
                }
            }
            TypeExpr::Unsupported(text) => self.unsupported(span, text),
        }
    }

    /// `{"$ref": "#/$defs/<name>"}`, describing the model into `$defs` on first use.
    fn reference(&mut self, name: &str, span: Span) -> Schema {
        let schema = Schema { reference: Some(format!("#/$defs/{name}")), ..Schema::default() };
        if self.building.first().is_some_and(|top| top == name) {
            self.top_referenced = true;
        }
        if self.building.iter().any(|b| b == name) || self.described.contains(name) {
            return schema;
        }
        let Some((at, model)) = self.models.get(name) else { return schema };
        if self.building.len() >= MAX_MODELS {
            self.problems.push((
                span,
                format!(
                    "models nested deeper than {MAX_MODELS} levels are outside the supported subset"
                ),
            ));
            return Schema::default();
        }
        self.building.push(name.to_owned());
        let (fields, complete) = self.models.fields(at);
        if !complete {
            self.problems.push((
                span,
                format!(
                    "`{name}` inherits from more than {MAX_ANCESTORS} models or {MAX_DEPTH} \
                     levels deep: outside the supported subset"
                ),
            ));
        }
        let described = self.object(name, &fields, model.extra, model.description.as_deref());
        self.building.pop();
        self.described.insert(name.to_owned());
        self.defs.push((name.to_owned(), described));
        schema
    }
}

/// pydantic's `get_flattened_anyof`: nested bare `anyOf`s merged, duplicates dropped.
fn any_of(schemas: Vec<Schema>) -> Schema {
    let mut members: Vec<Schema> = Vec::new();
    for schema in schemas {
        let bare = Schema { any_of: None, ..schema.clone() } == Schema::default();
        let parts = match schema.any_of {
            Some(parts) if bare => parts,
            _ => vec![schema],
        };
        for part in parts {
            if !members.contains(&part) {
                members.push(part);
            }
        }
    }
    if members.len() == 1 {
        return members.pop().unwrap_or_default();
    }
    Schema { any_of: Some(members), ..Schema::default() }
}

/// What a field's `= default` says, `Field(…)` read.
pub(crate) struct DefaultRead {
    pub(crate) default: DefaultSpec,
    pub(crate) description: Option<String>,
    pub(crate) title: Option<String>,
    /// Token ranges outside the subset, with messages.
    pub(crate) problems: Vec<((usize, usize), String)>,
}

impl DefaultRead {
    fn required() -> DefaultRead {
        DefaultRead {
            default: DefaultSpec::Required,
            description: None,
            title: None,
            problems: Vec::new(),
        }
    }
}

/// Reads what pydantic learns about a field from its default (a literal or `Field(…)`)
/// and from `Field(…)` inside an `Annotated[…]` annotation. Token ranges, `None` when
/// absent.
pub(crate) fn read_field(
    source: &Source<'_>,
    annotation: Option<(usize, usize)>,
    default: Option<(usize, usize)>,
    field_names: &[String],
) -> DefaultRead {
    let mut read = DefaultRead::required();
    if let Some((start, end)) = default {
        let field_call = source.call(start, end).filter(|c| field_names.contains(&c.name));
        match field_call.and_then(|c| c.parens) {
            Some(parens) => read_field_call(source, parens, &mut read),
            None => match literal_value(source, start, end, 0) {
                Some(value) => read.default = DefaultSpec::Value(value),
                None => {
                    read.default = DefaultSpec::Unknown;
                    let text = source.slice(start, end);
                    read.problems.push((
                        (start, end),
                        format!("the default `{text}` is not a literal: the schema leaves it out"),
                    ));
                }
            },
        }
    }
    let Some((start, end)) = annotation else { return read };
    let Some((dotted, after)) = source.dotted(start, end) else { return read };
    let annotated = dotted.rsplit('.').next() == Some("Annotated")
        && source.is_op(after, "[")
        && source.closing(after, end) == Some(end - 1);
    if !annotated {
        return read;
    }
    for (s, e) in source.split(after + 1, end - 1, ",").into_iter().skip(1) {
        let call = source.call(s, e).filter(|c| field_names.contains(&c.name));
        let Some(parens) = call.and_then(|c| c.parens) else { continue };
        let mut meta = DefaultRead::required();
        read_field_call(source, parens, &mut meta);
        read.description = read.description.or(meta.description);
        read.title = read.title.or(meta.title);
        if default.is_none() && meta.default != DefaultSpec::Required {
            read.default = meta.default;
        }
        read.problems.extend(meta.problems);
    }
    read
}

/// Reads the arguments of `Field(…)` between `parens` into `read`.
fn read_field_call(source: &Source<'_>, parens: (usize, usize), read: &mut DefaultRead) {
    let mut positional = 0;
    for arg in &source.args(parens) {
        let slot = match arg.keyword.map(|k| source.text(k)) {
            Some(keyword) => keyword,
            None if arg.stars == 0 && positional == 0 => {
                positional += 1;
                "default"
            }
            None => "",
        };
        match slot {
            "default" => {
                read.default = if source.is_op(arg.start, "...") && arg.end == arg.start + 1 {
                    DefaultSpec::Required
                } else if let Some(value) = literal_value(source, arg.start, arg.end, 0) {
                    DefaultSpec::Value(value)
                } else {
                    let message = "the default is not a literal: the schema leaves it out";
                    read.problems.push(((arg.start, arg.end), message.to_owned()));
                    DefaultSpec::Unknown
                };
            }
            "default_factory" => read.default = DefaultSpec::Factory,
            "description" | "title" => {
                let text = string_literal(source, arg.start, arg.end);
                if text.is_none() {
                    let message =
                        format!("`{slot}=` is not a string literal: the schema leaves it out");
                    read.problems.push(((arg.start, arg.end), message));
                }
                if slot == "description" {
                    read.description = text;
                } else {
                    read.title = text;
                }
            }
            _ => {
                let at = arg.keyword.unwrap_or(arg.start);
                let message = format!(
                    "`Field({})` is outside the supported subset (default, default_factory, \
                     description, title): the schema may differ",
                    source.slice(at, arg.end)
                );
                read.problems.push(((at, arg.end), message));
            }
        }
    }
}
