//! `memory.yml` read the way Rasa 3.21 reads it (reference §7): the project's flat field
//! map, a skill's `schema: {public, private}` contract, the train findings on both, who may
//! read which entry (§7.3) and where a `ToolContext.memory` path lands (§7.4).
//!
//! Field attributes are checked like pydantic v2 in lax mode checks `MemoryField`. Rasa
//! would print pydantic's multi-line `ValidationError`; each error here is summarised on one
//! line as `{loc}: {msg}` with pydantic's own `msg` (its type/input suffix and help link are
//! left out). Nothing here panics, whatever the input.

use serde::Serialize;

use crate::diagnostic::{Diagnostic, Phase, Position, Span};
use crate::yaml::{self, Node, YamlValue};

/// Code for a `memory.yml` attribute or shape that Rasa's pydantic models refuse (ours).
pub const CODE_INVALID: &str = "swaplab.memory.invalid";
/// Train: a project field declares `llm_settable: true`.
pub const CODE_PROJECT_LLM_SETTABLE: &str = "mantle.validation.memory.project_llm_settable";
/// Train: a description the LLM never sees.
pub const CODE_DESCRIPTION_NOT_EXPOSED: &str = "mantle.validation.memory.description_not_exposed";
/// Train: a field the LLM can set has no description.
pub const CODE_DESCRIPTION_REQUIRED: &str = "mantle.validation.memory.description_required";
/// Train: `seed: true` on a skill field.
pub const CODE_SKILL_SEED: &str = "mantle.validation.memory.skill_seed";

// pydantic v2 messages (`msg` of each error type), verbatim.
pub(crate) const MSG_BOOL_TYPE: &str = "Input should be a valid boolean";
pub(crate) const MSG_BOOL_PARSING: &str =
    "Input should be a valid boolean, unable to interpret input";
pub(crate) const MSG_STR_TYPE: &str = "Input should be a valid string";
pub(crate) const MSG_LIST_TYPE: &str = "Input should be a valid list";
pub(crate) const MSG_DICT_TYPE: &str = "Input should be a valid dictionary";
pub(crate) const MSG_FLOAT_TYPE: &str = "Input should be a valid number";
pub(crate) const MSG_FLOAT_PARSING: &str =
    "Input should be a valid number, unable to parse string as a number";
pub(crate) const MSG_FINITE: &str = "Input should be a finite number";
pub(crate) const MSG_MISSING: &str = "Field required";

/// pydantic's lax `bool`: bools, the ints and floats 0 and 1, and the strings `0 1 f t n y
/// no on off yes true false` in any case.
pub(crate) fn lax_bool(value: &YamlValue) -> Result<bool, &'static str> {
    match value {
        YamlValue::Bool(flag) => Ok(*flag),
        YamlValue::Int(0) => Ok(false),
        YamlValue::Int(1) => Ok(true),
        YamlValue::Int(_) => Err(MSG_BOOL_PARSING),
        YamlValue::Float(number) if *number == 0.0 => Ok(false),
        YamlValue::Float(number) if *number == 1.0 => Ok(true),
        YamlValue::Float(_) => Err(MSG_BOOL_PARSING),
        YamlValue::Str(text) => {
            let lower = text.to_ascii_lowercase();
            match lower.as_str() {
                "0" | "f" | "n" | "no" | "off" | "false" => Ok(false),
                "1" | "t" | "y" | "on" | "yes" | "true" => Ok(true),
                _ => Err(MSG_BOOL_PARSING),
            }
        }
        _ => Err(MSG_BOOL_TYPE),
    }
}

/// pydantic's lax `str`: only a `str` (a YAML date is a `datetime.date`, not a string).
pub(crate) fn lax_str(value: &YamlValue) -> Result<&str, &'static str> {
    match value {
        YamlValue::Str(text) => Ok(text),
        _ => Err(MSG_STR_TYPE),
    }
}

/// pydantic's lax `float`: numbers, bools and numeric strings (surrounding space allowed).
pub(crate) fn lax_float(value: &YamlValue) -> Result<f64, &'static str> {
    match value {
        YamlValue::Float(number) => Ok(*number),
        #[allow(clippy::cast_precision_loss)]
        YamlValue::Int(number) => Ok(*number as f64),
        YamlValue::Bool(flag) => Ok(f64::from(u8::from(*flag))),
        YamlValue::Str(text) => text.trim().parse::<f64>().map_err(|_| MSG_FLOAT_PARSING),
        _ => Err(MSG_FLOAT_TYPE),
    }
}

/// Which half of a skill's contract a field was declared in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Visibility {
    /// `schema.public`: readable by every skill.
    Public,
    /// `schema.private`: readable only by the owning skill.
    Private,
}

/// One memory field: `rasa/mantle/memory/field.py` `MemoryField` (§7.2).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MemoryField {
    /// The entry name (the `<entry>` of `session.<ns>.<entry>`).
    pub name: String,
    /// `type:` as written (free text, not validated by Rasa); `any` when absent.
    pub type_name: String,
    /// `description:`.
    pub description: Option<String>,
    /// `pii:`; the prompt shows `[set]` instead of the value.
    pub pii: bool,
    /// `anonymization:` as written (a mapping), kept raw; its inner keys are not checked.
    pub anonymization: Option<YamlValue>,
    /// `initial_value:`; `None` when absent or null.
    pub initial_value: Option<YamlValue>,
    /// `privacy_rules:`.
    pub privacy_rules: Vec<String>,
    /// `enum_values:`.
    pub enum_values: Vec<YamlValue>,
    /// `llm_settable:`: the field is offered in `set_fields` (skill fields only).
    pub llm_settable: bool,
    /// `seed:`: filled from session-start metadata (project fields only).
    pub seed: bool,
    /// The field's name as written (the mapping key).
    pub span: Span,
    /// The keys of the attributes written in the file, for findings that point at one.
    #[serde(skip)]
    pub attribute_spans: Vec<(String, Span)>,
}

impl MemoryField {
    /// A field with every attribute at its default, as Rasa builds one from a non-mapping.
    pub fn new(name: &str, span: Span) -> MemoryField {
        MemoryField {
            name: name.to_owned(),
            type_name: "any".to_owned(),
            description: None,
            pii: false,
            anonymization: None,
            initial_value: None,
            privacy_rules: Vec::new(),
            enum_values: Vec::new(),
            llm_settable: false,
            seed: false,
            span,
            attribute_spans: Vec::new(),
        }
    }

    /// Where attribute `key` was written, else the field's name.
    pub fn key_span(&self, key: &str) -> Span {
        self.attribute_spans.iter().find(|(k, _)| k == key).map_or(self.span, |(_, span)| *span)
    }

    /// Whether the description is non-empty (Python truthiness, as Rasa's checks use).
    pub fn has_description(&self) -> bool {
        self.description.as_deref().is_some_and(|text| !text.is_empty())
    }
}

/// Reads one field's attribute mapping, checking each known key like pydantic's lax mode.
/// Returns the field and one `(span, "{loc}: {msg}")` per error; unknown keys are ignored.
fn read_field(
    name: &str,
    name_span: Span,
    attrs: &Node,
    loc: &str,
) -> (MemoryField, Vec<FieldError>) {
    let mut field = MemoryField::new(name, name_span);
    let mut errors = Vec::new();
    let Some(entries) = attrs.as_map() else { return (field, errors) };
    for (key, value) in entries {
        let Some(key_text) = key.as_str() else { continue };
        let mut fail = |at: &Node, sub: &str, msg: &str| {
            errors.push(FieldError {
                span: at.span,
                message: format!("{loc}.{key_text}{sub}: {msg}"),
            });
        };
        match key_text {
            "type" => match lax_str(&value.value) {
                Ok(text) => field.type_name = text.to_owned(),
                Err(msg) => fail(value, "", msg),
            },
            "description" => match &value.value {
                YamlValue::Null => {}
                other => match lax_str(other) {
                    Ok(text) => field.description = Some(text.to_owned()),
                    Err(msg) => fail(value, "", msg),
                },
            },
            "pii" | "llm_settable" | "seed" => match lax_bool(&value.value) {
                Ok(flag) => match key_text {
                    "pii" => field.pii = flag,
                    "llm_settable" => field.llm_settable = flag,
                    _ => field.seed = flag,
                },
                Err(msg) => fail(value, "", msg),
            },
            "anonymization" => match &value.value {
                YamlValue::Null => {}
                YamlValue::Map(_) => field.anonymization = Some(value.value.clone()),
                _ => fail(value, "", MSG_DICT_TYPE),
            },
            "initial_value" => {
                if !value.is_null() {
                    field.initial_value = Some(value.value.clone());
                }
            }
            "privacy_rules" => match value.as_seq() {
                Some(items) => {
                    for (i, item) in items.iter().enumerate() {
                        match lax_str(&item.value) {
                            Ok(text) => field.privacy_rules.push(text.to_owned()),
                            Err(msg) => fail(item, &format!(".{i}"), msg),
                        }
                    }
                }
                None => fail(value, "", MSG_LIST_TYPE),
            },
            "enum_values" => match value.as_seq() {
                Some(items) => field.enum_values = items.iter().map(|i| i.value.clone()).collect(),
                None => fail(value, "", MSG_LIST_TYPE),
            },
            _ => continue,
        }
        field.attribute_spans.push((key_text.to_owned(), key.span));
    }
    (field, errors)
}

/// One attribute error before it becomes a diagnostic.
struct FieldError {
    span: Span,
    message: String,
}

/// Parses `text`, turning a syntax error into a read-phase diagnostic.
pub(crate) fn parse_yaml(file: &str, text: &str, out: &mut Vec<Diagnostic>) -> Option<Node> {
    match yaml::parse(text, Position::START) {
        Ok(node) => node,
        Err(error) => {
            out.push(Diagnostic::error(
                file,
                Span::point(error.at),
                Phase::Read,
                yaml::SYNTAX_CODE,
                error.message,
            ));
            None
        }
    }
}

/// The project's `memory.yml`: slots `project.<field>`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ProjectMemory {
    /// The file's path in the project.
    pub file: String,
    /// Whether the file exists (a missing file is an empty schema).
    pub exists: bool,
    /// The fields, in file order.
    pub fields: Vec<MemoryField>,
    /// Whether Rasa builds the schema without an error.
    pub ok: bool,
    /// Read and load findings (train findings come from [`ProjectMemory::train_findings`]).
    pub diagnostics: Vec<Diagnostic>,
}

/// Reads the project's `memory.yml` (`ProjectMemorySchema.from_yaml`, §7.1); `None` means
/// the file is missing. A flat mapping `field → attributes`; an attribute value that is not
/// a mapping (`contact_id:` or `contact_id: text`) makes a field with every default.
///
/// Errors are load-phase: the schema is built whenever Rasa sets up memory (train
/// validation and model load alike); the phase and the whole-file message are ours.
pub fn read_project_memory(file: &str, text: Option<&str>) -> ProjectMemory {
    let mut memory = ProjectMemory {
        file: file.to_owned(),
        exists: text.is_some(),
        fields: Vec::new(),
        ok: true,
        diagnostics: Vec::new(),
    };
    let Some(text) = text else { return memory };
    let Some(root) = parse_yaml(file, text, &mut memory.diagnostics) else {
        memory.ok = memory.diagnostics.is_empty();
        return memory;
    };
    let Some(entries) = root.as_map() else {
        memory.diagnostics.push(Diagnostic::error(
            file,
            root.span,
            Phase::Load,
            CODE_INVALID,
            format!(
                "Project memory.yml must be a mapping of field names to attributes, but got '{}'.",
                root.value.type_name()
            ),
        ));
        memory.ok = false;
        return memory;
    };
    for (key, attrs) in entries {
        let Some(name) = key.as_str() else {
            memory.diagnostics.push(invalid(
                file,
                key.span,
                Phase::Load,
                format!("{}.[key]: {MSG_STR_TYPE}", key.key_text()),
            ));
            continue;
        };
        let (field, errors) = read_field(name, key.span, attrs, name);
        for error in errors {
            memory.diagnostics.push(invalid(file, error.span, Phase::Load, error.message));
        }
        memory.fields.push(field);
    }
    memory.ok = !memory.diagnostics.iter().any(Diagnostic::is_error);
    memory
}

fn invalid(file: &str, span: Span, phase: Phase, message: String) -> Diagnostic {
    Diagnostic::error(file, span, phase, CODE_INVALID, message)
}

impl ProjectMemory {
    /// An empty schema for a project without `memory.yml`.
    pub fn empty(file: &str) -> ProjectMemory {
        read_project_memory(file, None)
    }

    /// The field named `name`.
    pub fn field(&self, name: &str) -> Option<&MemoryField> {
        self.fields.iter().find(|field| field.name == name)
    }

    /// Train findings on project fields (§7.2): `llm_settable: true` and any description.
    pub fn train_findings(&self) -> Vec<Diagnostic> {
        let mut out = Vec::new();
        for field in &self.fields {
            if field.llm_settable {
                out.push(Diagnostic::error(
                    &self.file,
                    field.key_span("llm_settable"),
                    Phase::Train,
                    CODE_PROJECT_LLM_SETTABLE,
                    format!(
                        "Project memory field '{}' declares llm_settable: true. Project fields \
                         cannot be written by the LLM.",
                        field.name
                    ),
                ));
            }
            if field.has_description() {
                // The reference names the code but quotes no message; this wording is ours.
                out.push(Diagnostic::error(
                    &self.file,
                    field.key_span("description"),
                    Phase::Train,
                    CODE_DESCRIPTION_NOT_EXPOSED,
                    format!(
                        "Project memory field '{}' declares a description, but the LLM never \
                         sees it: only skill fields that are llm_settable or collected by a step \
                         expose their description. Remove it or turn it into a YAML comment.",
                        field.name
                    ),
                ));
            }
        }
        out
    }
}

/// A skill's `memory.yml` (`SkillMemoryContract`): slots `<skill_id>.<field>`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SkillMemory {
    /// The file's path in the project.
    pub file: String,
    /// The skill's id (its directory name).
    pub skill_id: String,
    /// `schema.public`, in file order.
    pub public: Vec<MemoryField>,
    /// `schema.private`, in file order.
    pub private: Vec<MemoryField>,
    /// Whether the contract validates; when false the whole skill fails to load.
    pub ok: bool,
    /// Read and compile findings (train findings come from [`SkillMemory::train_findings`]).
    pub diagnostics: Vec<Diagnostic>,
}

/// Reads `skills/<skill_id>/memory.yml` (§7.1). Top-level `schema:` holds `public:` and
/// `private:` maps of field → attributes; unknown keys at either level are ignored. Any
/// error fails the whole skill at load, so it is compile-phase. Every field that is a
/// mapping is still returned for display (a refused attribute keeps its default). Unlike
/// the project file, a field whose value is not a mapping is an error here: pydantic
/// validates `dict[str, MemoryField]` with no conversion. An empty file is an empty
/// contract. A skill without the file is [`SkillMemory::empty`].
pub fn read_skill_memory(file: &str, skill_id: &str, text: &str) -> SkillMemory {
    let mut memory = SkillMemory::empty(file, skill_id);
    let Some(root) = parse_yaml(file, text, &mut memory.diagnostics) else {
        memory.ok = memory.diagnostics.is_empty();
        return memory;
    };
    let mut errors = Vec::new();
    match &root.value {
        YamlValue::Map(_) => {
            if let Some(schema) = root.get("schema").filter(|node| !node.is_null()) {
                if schema.as_map().is_some() {
                    for (visibility, half) in
                        [(Visibility::Public, "public"), (Visibility::Private, "private")]
                    {
                        let Some(map) = schema.get(half).filter(|node| !node.is_null()) else {
                            continue;
                        };
                        let fields = read_skill_half(map, half, &mut errors);
                        match visibility {
                            Visibility::Public => memory.public = fields,
                            Visibility::Private => memory.private = fields,
                        }
                    }
                } else {
                    errors.push(FieldError {
                        span: schema.span,
                        message: format!("schema: {MSG_DICT_TYPE}"),
                    });
                }
            }
        }
        _ => errors.push(FieldError { span: root.span, message: MSG_DICT_TYPE.to_owned() }),
    }
    for error in errors {
        memory.diagnostics.push(invalid(file, error.span, Phase::Compile, error.message));
    }
    memory.ok = !memory.diagnostics.iter().any(Diagnostic::is_error);
    memory
}

/// One of `schema.public` / `schema.private`: `dict[str, MemoryField]`.
fn read_skill_half(map: &Node, half: &str, errors: &mut Vec<FieldError>) -> Vec<MemoryField> {
    let Some(entries) = map.as_map() else {
        errors.push(FieldError {
            span: map.span,
            message: format!("schema.{half}: {MSG_DICT_TYPE}"),
        });
        return Vec::new();
    };
    let mut fields = Vec::new();
    for (key, attrs) in entries {
        let Some(name) = key.as_str() else {
            errors.push(FieldError {
                span: key.span,
                message: format!("schema.{half}.{}.[key]: {MSG_STR_TYPE}", key.key_text()),
            });
            continue;
        };
        let loc = format!("schema.{half}.{name}");
        if attrs.as_map().is_none() {
            // pydantic's text here is `model_type` (`…dictionary or instance of MemoryField`).
            errors
                .push(FieldError { span: attrs.span, message: format!("{loc}: {MSG_DICT_TYPE}") });
            continue;
        }
        let (field, field_errors) = read_field(name, key.span, attrs, &loc);
        errors.extend(field_errors);
        fields.push(field);
    }
    fields
}

impl SkillMemory {
    /// The contract of a skill without `memory.yml`: no fields.
    pub fn empty(file: &str, skill_id: &str) -> SkillMemory {
        SkillMemory {
            file: file.to_owned(),
            skill_id: skill_id.to_owned(),
            public: Vec::new(),
            private: Vec::new(),
            ok: true,
            diagnostics: Vec::new(),
        }
    }

    /// `all_fields`: public then private, a private field replacing a public one of the
    /// same name (in the public one's place), as a Python `{**public, **private}` does.
    pub fn all_fields(&self) -> Vec<(&MemoryField, Visibility)> {
        let mut out: Vec<(&MemoryField, Visibility)> =
            self.public.iter().map(|field| (field, Visibility::Public)).collect();
        for field in &self.private {
            match out.iter_mut().find(|(f, _)| f.name == field.name) {
                Some(slot) => *slot = (field, Visibility::Private),
                None => out.push((field, Visibility::Private)),
            }
        }
        out
    }

    /// The field `name` as the skill itself sees it (private wins).
    pub fn field(&self, name: &str) -> Option<&MemoryField> {
        self.private.iter().chain(&self.public).find(|field| field.name == name)
    }

    /// The fields readable while `active_skill` runs (§7.3): all of them for the skill
    /// itself, only the public ones for any other skill (or none active).
    pub fn readable_fields(&self, active_skill: Option<&str>) -> Vec<&MemoryField> {
        if active_skill == Some(self.skill_id.as_str()) {
            self.all_fields().into_iter().map(|(field, _)| field).collect()
        } else {
            self.public.iter().collect()
        }
    }

    /// `skill_settable_entry_names`: `llm_settable` fields plus the collect-owned names.
    pub fn settable_names(&self, collect_owned: &[&str]) -> Vec<String> {
        let mut names: Vec<String> = self
            .all_fields()
            .into_iter()
            .filter(|(field, _)| field.llm_settable)
            .map(|(field, _)| field.name.clone())
            .collect();
        for name in collect_owned {
            if !names.iter().any(|n| n == name) {
                names.push((*name).to_owned());
            }
        }
        names
    }

    /// Train findings on the skill's fields (§7.2). `collect_owned` names the entries the
    /// skill's `collect:` steps fill; a collected or `llm_settable` field is settable.
    /// The field's own `description:` is the only one considered.
    pub fn train_findings(&self, collect_owned: &[&str]) -> Vec<Diagnostic> {
        let mut out = Vec::new();
        let id = &self.skill_id;
        // The reference names these three codes but quotes no messages; the wording is ours.
        for (field, _) in self.all_fields() {
            let name = &field.name;
            let settable = field.llm_settable || collect_owned.contains(&name.as_str());
            if field.has_description() && !settable {
                out.push(Diagnostic::error(
                    &self.file,
                    field.key_span("description"),
                    Phase::Train,
                    CODE_DESCRIPTION_NOT_EXPOSED,
                    format!(
                        "Memory field '{id}.{name}' declares a description, but the LLM never \
                         sees it: the field is neither llm_settable nor collected by a step. \
                         Remove it or turn it into a YAML comment."
                    ),
                ));
            }
            if settable && !field.has_description() {
                out.push(Diagnostic::error(
                    &self.file,
                    field.span,
                    Phase::Train,
                    CODE_DESCRIPTION_REQUIRED,
                    format!(
                        "Memory field '{id}.{name}' can be set by the LLM but has no \
                         description. Add one so the model knows what to store."
                    ),
                ));
            }
            if field.seed {
                out.push(Diagnostic::error(
                    &self.file,
                    field.key_span("seed"),
                    Phase::Train,
                    CODE_SKILL_SEED,
                    format!(
                        "Memory field '{id}.{name}' declares seed: true. Only project fields are \
                         seeded from session-start metadata."
                    ),
                ));
            }
        }
        out
    }
}

/// The `ns.entry` keys readable while `active_skill` runs (§7.3,
/// `iter_readable_memory_fields`): every project field, then per skill (in the order given)
/// the active skill's public and private fields and every other skill's public ones.
pub fn readable_keys(
    active_skill: Option<&str>,
    project: &ProjectMemory,
    skills: &[SkillMemory],
) -> Vec<String> {
    let mut keys: Vec<String> =
        project.fields.iter().map(|field| format!("project.{}", field.name)).collect();
    for skill in skills {
        for field in skill.readable_fields(active_skill) {
            keys.push(format!("{}.{}", skill.skill_id, field.name));
        }
    }
    keys
}

/// A declared memory slot.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum MemorySlot {
    /// `project.<entry>`.
    Project {
        /// The field.
        entry: String,
    },
    /// `<skill>.<entry>`.
    Skill {
        /// The owning skill's id.
        skill: String,
        /// The field.
        entry: String,
    },
}

impl MemorySlot {
    /// The slot's `ns.entry` key.
    pub fn key(&self) -> String {
        match self {
            MemorySlot::Project { entry } => format!("project.{entry}"),
            MemorySlot::Skill { skill, entry } => format!("{skill}.{entry}"),
        }
    }
}

/// What `ToolContext.memory.get(path)` reads (§7.4).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum MemoryRead {
    /// A declared, readable field.
    Field {
        /// Its slot.
        slot: MemorySlot,
    },
    /// A bare name declared nowhere: Rasa reads the slot of that exact name (debug log).
    Verbatim {
        /// The name, as given.
        key: String,
    },
    /// A qualified path that is not readable: `get` returns its default.
    Unreadable,
}

fn own_skill<'a>(active_skill: Option<&str>, skills: &'a [SkillMemory]) -> Option<&'a SkillMemory> {
    let id = active_skill?;
    skills.iter().find(|skill| skill.skill_id == id)
}

/// Resolves `ToolContext.memory.get(path)` while `active_skill` runs (§7.4): a bare name is
/// the active skill's field, else a project field, else a verbatim slot; `project.<f>` and
/// `<skill>.<f>` resolve only when readable (§7.3). `system.*` is never readable here.
pub fn lookup_get(
    path: &str,
    active_skill: Option<&str>,
    project: &ProjectMemory,
    skills: &[SkillMemory],
) -> MemoryRead {
    let own = own_skill(active_skill, skills);
    let Some((namespace, entry)) = path.split_once('.') else {
        if let Some(skill) = own.filter(|skill| skill.field(path).is_some()) {
            let slot = MemorySlot::Skill { skill: skill.skill_id.clone(), entry: path.to_owned() };
            return MemoryRead::Field { slot };
        }
        if project.field(path).is_some() {
            return MemoryRead::Field { slot: MemorySlot::Project { entry: path.to_owned() } };
        }
        return MemoryRead::Verbatim { key: path.to_owned() };
    };
    if namespace == "project" {
        if project.field(entry).is_some() {
            return MemoryRead::Field { slot: MemorySlot::Project { entry: entry.to_owned() } };
        }
        return MemoryRead::Unreadable;
    }
    let readable = skills.iter().find(|skill| skill.skill_id == namespace).is_some_and(|skill| {
        skill.readable_fields(active_skill).iter().any(|field| field.name == entry)
    });
    if readable {
        let slot = MemorySlot::Skill { skill: namespace.to_owned(), entry: entry.to_owned() };
        return MemoryRead::Field { slot };
    }
    MemoryRead::Unreadable
}

/// Resolves `ToolContext.memory.set(path, …)` while `active_skill` runs (§7.4): a bare name
/// is the active skill's field, else a project field; `project.<f>` is a project field;
/// `<own_skill>.<f>` the skill's own. Otherwise Rasa's `MemoryWriteError` text, verbatim.
/// Any namespace other than `project`, `system` and the active skill is a cross-skill
/// write, declared there or not. Project write-once is a runtime rule, not checked here.
pub fn lookup_set(
    path: &str,
    active_skill: Option<&str>,
    project: &ProjectMemory,
    skills: &[SkillMemory],
) -> Result<MemorySlot, String> {
    let own = own_skill(active_skill, skills);
    let undeclared = || {
        format!(
            "Write to undeclared memory entry '{path}' rejected. Declare it under the owning \
             skill's or the project's memory.yml before a tool or step writes it."
        )
    };
    let Some((namespace, entry)) = path.split_once('.') else {
        if let Some(skill) = own.filter(|skill| skill.field(path).is_some()) {
            return Ok(MemorySlot::Skill { skill: skill.skill_id.clone(), entry: path.to_owned() });
        }
        if project.field(path).is_some() {
            return Ok(MemorySlot::Project { entry: path.to_owned() });
        }
        return Err(undeclared());
    };
    match namespace {
        "system" => Err(format!("Write to reserved system memory entry '{path}' rejected.")),
        "project" => match project.field(entry) {
            Some(_) => Ok(MemorySlot::Project { entry: entry.to_owned() }),
            None => Err(undeclared()),
        },
        _ if Some(namespace) == active_skill => match own.and_then(|skill| skill.field(entry)) {
            Some(_) => {
                Ok(MemorySlot::Skill { skill: namespace.to_owned(), entry: entry.to_owned() })
            }
            None => Err(undeclared()),
        },
        _ => Err(format!("Cross-skill write to '{path}' rejected.")),
    }
}
