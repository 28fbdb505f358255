//! The Python interpreter: the tutorial's tools, in the `hubspot_client` shortcut form
//! kept in `fixtures/hubspot-client/`, run against a fake CRM and project
//! memory, pydantic models, what is outside the subset, every limit, and hostile input.
//! Python's own semantics are held to CPython by the generated table in
//! `python_cpython.rs`.

use swaplab_core::diagnostic::{Diagnostic, Phase, Severity, Span};
use swaplab_core::python::{Host, HostError, Outcome, Program, PyValue, compile_module};

const CRM_TOOL: &str = include_str!("../../../../fixtures/hubspot-client/tools/crm.py");
const CHECK_TICKETS: &str =
    include_str!("../../../../fixtures/hubspot-client/skills/check_tickets/tools.py");
const LOG_INTERACTION: &str =
    include_str!("../../../../fixtures/hubspot-client/skills/log_interaction/tools.py");
const SERVER: &str = include_str!("../../../../fixtures/hubspot-client/scripts/mcp_crm_server.py");

/// The tutorial's CRM and project memory, recording what the tool did with them.
#[derive(Default)]
struct FakeCrm {
    memory: Vec<(String, PyValue)>,
    writes: Vec<(String, PyValue, Span)>,
    calls: Vec<String>,
    notes: Vec<(String, String)>,
    refuse_writes: Option<HostError>,
}

fn text(s: &str) -> PyValue {
    PyValue::Str(s.to_owned())
}

fn dict(entries: &[(&str, &str)]) -> PyValue {
    PyValue::Dict(entries.iter().map(|(k, v)| (text(k), text(v))).collect())
}

impl Host for FakeCrm {
    fn crm_call(
        &mut self,
        function: &str,
        args: &[PyValue],
        kwargs: &[(String, PyValue)],
        _span: Span,
    ) -> Result<PyValue, HostError> {
        let arg = |name: &str, i: usize| {
            let found = kwargs.iter().find(|(k, _)| k == name).map(|(_, v)| v).or(args.get(i));
            match found {
                Some(PyValue::Str(s)) => s.clone(),
                _ => String::new(),
            }
        };
        let shown: Vec<String> = args
            .iter()
            .map(PyValue::repr)
            .chain(kwargs.iter().map(|(k, v)| format!("{k}={}", v.repr())))
            .collect();
        self.calls.push(format!("{function}({})", shown.join(", ")));
        let contacts = [
            ("701", "Dana", "Okafor", "Okafor Logistics", "dana.okafor@example.com"),
            ("702", "Sam", "Rivera", "Rivera Foods", "sam.rivera@example.com"),
        ];
        let tickets = [
            ("9001", "Invoice 4471 shows the wrong VAT rate", "waiting_on_us", "2026-08-11", "701"),
            (
                "9002",
                "Add a second admin to the account",
                "waiting_on_contact",
                "2026-08-19",
                "701",
            ),
        ];
        match function {
            "search_contact_by_email" => {
                let email = arg("email", 0);
                Ok(contacts.iter().find(|c| c.4 == email).map_or(PyValue::None, |c| {
                    dict(&[
                        ("id", c.0),
                        ("firstname", c.1),
                        ("lastname", c.2),
                        ("company", c.3),
                        ("email", c.4),
                    ])
                }))
            }
            "list_ticket_ids" => {
                let contact = arg("contact_id", 0);
                Ok(PyValue::List(
                    tickets.iter().filter(|t| t.4 == contact).map(|t| text(t.0)).collect(),
                ))
            }
            "get_ticket" => {
                let id = arg("ticket_id", 0);
                let Some(t) = tickets.iter().find(|t| t.0 == id) else {
                    return Err(HostError::new("KeyError", format!("'{id}'")));
                };
                Ok(dict(&[("id", t.0), ("subject", t.1), ("stage", t.2), ("created", t.3)]))
            }
            "create_note" => {
                self.notes.push((arg("contact_id", 0), arg("body", 1)));
                Ok(text(&format!("{}", 9_999 + self.notes.len())))
            }
            _ => Err(HostError::new(
                "AttributeError",
                format!("'HubSpotClient' object has no attribute '{function}'"),
            )),
        }
    }

    fn memory_get(&mut self, path: &str, default: PyValue, _span: Span) -> PyValue {
        self.memory.iter().rev().find(|(p, _)| p == path).map_or(default, |(_, v)| v.clone())
    }

    fn memory_set(&mut self, path: &str, value: PyValue, span: Span) -> Result<(), HostError> {
        if let Some(error) = &self.refuse_writes {
            return Err(error.clone());
        }
        self.writes.push((path.to_owned(), value.clone(), span));
        self.memory.push((path.to_owned(), value));
        Ok(())
    }
}

/// A program that must compile cleanly.
fn clean(path: &str, source: &str) -> Program {
    let program = compile_module(path, source);
    assert_eq!(program.diagnostics, [], "{path}");
    program
}

fn kwargs(pairs: &[(&str, &str)]) -> Vec<(String, PyValue)> {
    pairs.iter().map(|(k, v)| ((*k).to_owned(), text(v))).collect()
}

/// The JSON a returned value dumps to, or what went wrong.
fn json_of(outcome: &Outcome) -> String {
    match outcome {
        Outcome::Returned(value) => value.to_json().to_python_json(),
        other => panic!("expected a value, got {other:?}"),
    }
}

fn fields(outcome: &Outcome) -> (&str, Vec<&str>) {
    match outcome {
        Outcome::Returned(PyValue::Object { class, fields }) => {
            (class.as_str(), fields.iter().map(|(k, _)| k.as_str()).collect())
        }
        other => panic!("expected an object, got {other:?}"),
    }
}

const TICKETS_JSON: &str = "[{\"id\": \"9001\", \"subject\": \"Invoice 4471 shows the wrong VAT rate\", \
     \"stage\": \"waiting_on_us\", \"created\": \"2026-08-11\"}, {\"id\": \"9002\", \"subject\": \
     \"Add a second admin to the account\", \"stage\": \"waiting_on_contact\", \"created\": \"2026-08-19\"}]";

#[test]
fn server_tools_return_crm_results() {
    let server = clean("server/scripts/mcp_crm_server.py", SERVER);
    for name in ["find_contact_by_email", "list_open_tickets", "add_timeline_note"] {
        assert!(server.has_function(name), "{name}");
    }
    assert!(!server.has_function("CrmResult"));
    let mut crm = FakeCrm::default();

    let found = server.call(
        "find_contact_by_email",
        &kwargs(&[("email", "dana.okafor@example.com")]),
        false,
        &mut crm,
    );
    assert_eq!(fields(&found), ("CrmResult", vec!["ok", "contact_id", "name", "company"]));
    assert_eq!(
        json_of(&found),
        r#"{"ok": true, "contact_id": "701", "name": "Dana Okafor", "company": "Okafor Logistics"}"#
    );
    let missing = server.call(
        "find_contact_by_email",
        &kwargs(&[("email", "nobody@example.com")]),
        false,
        &mut crm,
    );
    assert_eq!(json_of(&missing), r#"{"ok": false, "error": "contact_not_found"}"#);

    let listed =
        server.call("list_open_tickets", &kwargs(&[("contact_id", "701")]), false, &mut crm);
    assert_eq!(fields(&listed), ("CrmResult", vec!["ok", "count", "tickets"]));
    let Outcome::Returned(PyValue::Object { fields, .. }) = &listed else { unreachable!() };
    assert_eq!(fields[0].1, PyValue::Bool(true));
    assert_eq!(fields[1].1, PyValue::Int(2));
    assert_eq!(
        json_of(&listed),
        format!("{{\"ok\": true, \"count\": 2, \"tickets\": {TICKETS_JSON}}}")
    );
    let nobody = server.call("list_open_tickets", &kwargs(&[("contact_id", "")]), false, &mut crm);
    assert_eq!(json_of(&nobody), r#"{"ok": false, "error": "not_identified"}"#);
    let none = server.call("list_open_tickets", &kwargs(&[("contact_id", "702")]), false, &mut crm);
    assert_eq!(json_of(&none), r#"{"ok": true, "count": 0, "tickets": []}"#);

    let first = server.call(
        "add_timeline_note",
        &kwargs(&[("contact_id", "701"), ("summary", "VAT fixed")]),
        false,
        &mut crm,
    );
    assert_eq!(json_of(&first), r#"{"ok": true, "note_id": "10000"}"#);
    let second = server.call(
        "add_timeline_note",
        &kwargs(&[("contact_id", "702"), ("summary", "Admin added")]),
        false,
        &mut crm,
    );
    assert_eq!(json_of(&second), r#"{"ok": true, "note_id": "10001"}"#);
    assert_eq!(
        crm.notes,
        [("701".to_owned(), "VAT fixed".to_owned()), ("702".to_owned(), "Admin added".to_owned())]
    );
    assert_eq!(
        crm.calls,
        [
            "search_contact_by_email('dana.okafor@example.com')",
            "search_contact_by_email('nobody@example.com')",
            "list_ticket_ids('701')",
            "get_ticket('9001')",
            "get_ticket('9002')",
            "list_ticket_ids('702')",
            "create_note(contact_id='701', body='VAT fixed')",
            "create_note(contact_id='702', body='Admin added')",
        ]
    );
    assert!(crm.writes.is_empty());
}

#[test]
fn local_tools_use_project_memory() {
    let shared = clean("tools/crm.py", CRM_TOOL);
    let mut crm = FakeCrm::default();
    let found = shared.call(
        "find_contact_by_email",
        &kwargs(&[("email", "dana.okafor@example.com")]),
        true,
        &mut crm,
    );
    assert_eq!(fields(&found), ("ToolResult", vec!["llm_response"]));
    assert_eq!(
        json_of(&found),
        r#"{"llm_response": {"ok": true, "contact_id": "701", "name": "Dana Okafor", "company": "Okafor Logistics"}}"#
    );
    let writes: Vec<(&str, &PyValue, u32)> =
        crm.writes.iter().map(|(p, v, s)| (p.as_str(), v, s.start.line)).collect();
    assert_eq!(
        writes,
        [
            ("project.contact_id", &text("701"), 21),
            ("project.contact_name", &text("Dana Okafor"), 22),
            ("project.company", &text("Okafor Logistics"), 23),
        ]
    );
    let (_, _, span) = &crm.writes[0];
    assert_eq!((span.start.column, span.end.column), (9, 64));

    let mut no_context = FakeCrm::default();
    let quiet = shared.call(
        "find_contact_by_email",
        &kwargs(&[("email", "sam.rivera@example.com")]),
        false,
        &mut no_context,
    );
    assert_eq!(
        json_of(&quiet),
        r#"{"llm_response": {"ok": true, "contact_id": "702", "name": "Sam Rivera", "company": "Rivera Foods"}}"#
    );
    assert!(no_context.writes.is_empty());
    let unknown = shared.call(
        "find_contact_by_email",
        &kwargs(&[("email", "x@example.com")]),
        true,
        &mut crm,
    );
    assert_eq!(
        json_of(&unknown),
        r#"{"llm_response": {"ok": false, "error": "contact_not_found"}}"#
    );

    let tickets = clean("skills/check_tickets/tools.py", CHECK_TICKETS);
    let listed = tickets.call("list_open_tickets", &[], true, &mut crm);
    assert_eq!(
        json_of(&listed),
        format!(
            "{{\"llm_response\": {{\"ok\": true, \"count\": 2, \"tickets\": {TICKETS_JSON}}}}}"
        )
    );
    let mut empty = FakeCrm::default();
    for with_context in [true, false] {
        let unidentified = tickets.call("list_open_tickets", &[], with_context, &mut empty);
        assert_eq!(
            json_of(&unidentified),
            r#"{"llm_response": {"ok": false, "error": "not_identified"}}"#
        );
    }

    let log = clean("skills/log_interaction/tools.py", LOG_INTERACTION);
    let noted = log.call(
        "add_timeline_note",
        &kwargs(&[("summary", "Explained the VAT fix")]),
        true,
        &mut crm,
    );
    assert_eq!(json_of(&noted), r#"{"llm_response": {"ok": true, "note_id": "10000"}}"#);
    assert_eq!(crm.notes, [("701".to_owned(), "Explained the VAT fix".to_owned())]);
    let refused = log.call("add_timeline_note", &kwargs(&[("summary", "x")]), true, &mut empty);
    assert_eq!(json_of(&refused), r#"{"llm_response": {"ok": false, "error": "not_identified"}}"#);
}

#[test]
fn host_errors_and_bad_arguments_raise() {
    let shared = clean("tools/crm.py", CRM_TOOL);
    let mut crm = FakeCrm {
        refuse_writes: Some(HostError::new(
            "MemoryWriteError",
            "project.contact_id is already set",
        )),
        ..FakeCrm::default()
    };
    let outcome = shared.call(
        "find_contact_by_email",
        &kwargs(&[("email", "dana.okafor@example.com")]),
        true,
        &mut crm,
    );
    let Outcome::Raised { exc_type, message, span, .. } = outcome else { panic!("{outcome:?}") };
    assert_eq!(
        (exc_type.as_str(), message.as_str()),
        ("MemoryWriteError", "project.contact_id is already set")
    );
    assert_eq!((span.start.line, span.start.column, span.end.column), (21, 9, 64));

    let caught = clean(
        "t.py",
        "from rasa.mantle.tools import ToolContext, ToolResult, tool\n\
         from rasa.mantle.memory import MemoryWriteError\n\
         def f(context: ToolContext = None):\n    \
             try:\n        context.memory.set('project.x', 1)\n    \
             except MemoryWriteError as e:\n        return 'refused: ' + str(e)\n    \
             return 'stored'\n\
         def g(context):\n    \
             try:\n        context.memory.set('project.x', 1)\n    \
             except Exception as e:\n        return 'caught'\n",
    );
    assert_eq!(
        caught.call("f", &[], true, &mut crm),
        Outcome::Returned(text("refused: project.contact_id is already set"))
    );
    assert_eq!(caught.call("g", &[], true, &mut crm), Outcome::Returned(text("caught")));

    let missing = shared.call("find_contact_by_email", &[], true, &mut crm);
    assert!(
        matches!(&missing, Outcome::Raised { exc_type, message, .. }
        if exc_type == "TypeError" && message == "find_contact_by_email() missing 1 required positional argument: 'email'"),
        "{missing:?}"
    );
    let extra = shared.call(
        "find_contact_by_email",
        &kwargs(&[("email", "a"), ("phone", "1")]),
        true,
        &mut crm,
    );
    assert!(
        matches!(&extra, Outcome::Raised { message, .. }
        if message == "find_contact_by_email() got an unexpected keyword argument 'phone'"),
        "{extra:?}"
    );
    let absent = shared.call("no_such_tool", &[], true, &mut crm);
    assert!(matches!(&absent, Outcome::Raised { exc_type, .. } if exc_type == "NameError"));

    let unknown = clean(
        "t.py",
        "from hubspot_client import crm as client\nasync def f():\n    return await client.delete_everything()\n",
    );
    let Outcome::Raised { exc_type, message, span, .. } = unknown.call("f", &[], false, &mut crm)
    else {
        panic!()
    };
    assert_eq!(exc_type, "AttributeError");
    assert_eq!(message, "'HubSpotClient' object has no attribute 'delete_everything'");
    assert_eq!((span.start.line, span.start.column, span.end.column), (3, 18, 44));
}

#[test]
fn context_parameters_follow_rasa_and_fastmcp() {
    let source = "from mcp.server.fastmcp import Context\nfrom rasa.mantle.tools import ToolContext\n\
                  def rasa(x: str, context: ToolContext = None):\n    return [x, context is None, bool(context)]\n\
                  def named(context):\n    return context is None\n\
                  def annotated(ctx: ToolContext):\n    return ctx is None\n\
                  def fastmcp(x: int = 2, ctx: Context = None):\n    return [x, ctx]\n\
                  def fastmcp_required(ctx: Context):\n    return ctx\n";
    let program = clean("t.py", source);
    let mut host = FakeCrm::default();
    let run = |name: &str, args: &[(String, PyValue)], with_context: bool, host: &mut FakeCrm| {
        match program.call(name, args, with_context, host) {
            Outcome::Returned(v) => v.repr(),
            other => format!("{other:?}"),
        }
    };
    let x = [("x".to_owned(), text("a"))];
    assert_eq!(run("rasa", &x, true, &mut host), "['a', False, True]");
    assert_eq!(run("rasa", &x, false, &mut host), "['a', True, False]");
    assert_eq!(run("named", &[], true, &mut host), "False");
    assert_eq!(run("named", &[], false, &mut host), "True");
    assert_eq!(run("annotated", &[], true, &mut host), "False");
    assert_eq!(run("fastmcp", &[], true, &mut host), "[2, None]");
    assert_eq!(run("fastmcp", &[("x".to_owned(), PyValue::Int(5))], false, &mut host), "[5, None]");
    assert_eq!(run("fastmcp_required", &[], true, &mut host), "None");
}

/// Runs `body` as the body of `def f():` and describes the outcome: `= repr`,
/// `! Type: message`, or `? why` it stopped.
fn run_body(body: &str) -> String {
    let source: String = ["def f():\n".to_owned()]
        .into_iter()
        .chain(body.split('\n').map(|l| format!("    {l}\n")))
        .collect();
    let program = compile_module("snippet.py", &source);
    assert_eq!(program.diagnostics, [], "{source}");
    match program.call("f", &[], false, &mut FakeCrm::default()) {
        Outcome::Returned(value) => format!("= {}", value.repr()),
        Outcome::Raised { exc_type, message, .. } => format!("! {exc_type}: {message}"),
        Outcome::Unsupported(d) => format!("? {}", d.message),
    }
}

/// Calls `f` of a module and describes the outcome.
fn outcome_of(source: &str, function: &str) -> String {
    let program = compile_module("m.py", source);
    assert_eq!(program.diagnostics, [], "{source}");
    match program.call(function, &[], false, &mut FakeCrm::default()) {
        Outcome::Returned(value) => format!("= {}", value.repr()),
        Outcome::Raised { exc_type, message, .. } => format!("! {exc_type}: {message}"),
        Outcome::Unsupported(d) => format!("? {}: {}", d.code, d.message),
    }
}

#[test]
fn pydantic_models_validate_presence_and_extra_keys() {
    let models = "from pydantic import BaseModel, ConfigDict, Field\n\
        class Base(BaseModel):\n    ok: bool\n    note: str = 'none'\n\
        class Strict(Base):\n    model_config = ConfigDict(extra='forbid')\n    count: int = Field(default=0, description='n')\n    tags: list[str] = Field(default_factory=list)\n\
        class Loose(BaseModel):\n    model_config = {'extra': 'allow'}\n    ok: bool\n    note: str = 'none'\n\
        class Quiet(BaseModel):\n    ok: bool = Field(...)\n\
        class Child(Loose):\n    ok: bool = True\n    extra_field: int = 1\n";
    let case = |body: &str| outcome_of(&format!("{models}def f():\n    {body}\n"), "f");
    assert_eq!(case("return Strict(ok=True)"), "= Strict(ok=True, note='none', count=0, tags=[])");
    assert_eq!(
        case("return Strict(count=2, ok=False, note='n')"),
        "= Strict(ok=False, note='n', count=2, tags=[])"
    );
    assert_eq!(
        case("return Strict(ok=True, colour='red')"),
        "! ValidationError: 1 validation error for Strict\ncolour\n  Extra inputs are not permitted \
         [type=extra_forbidden, input_value='red', input_type=str]"
    );
    assert_eq!(
        case("return Strict(colour=1)"),
        "! ValidationError: 2 validation errors for Strict\nok\n  Field required [type=missing, \
         input_value={'colour': 1}, input_type=dict]\ncolour\n  Extra inputs are not permitted \
         [type=extra_forbidden, input_value=1, input_type=int]"
    );
    assert_eq!(
        case("return Loose(error='x', ok=False, more=[1])"),
        "= Loose(ok=False, note='none', error='x', more=[1])"
    );
    assert_eq!(case("return Quiet(ok=True, dropped=1)"), "= Quiet(ok=True)");
    assert_eq!(
        case("return Quiet()"),
        "! ValidationError: 1 validation error for Quiet\nok\n  Field required [type=missing, input_value={}, input_type=dict]"
    );
    assert_eq!(case("return Child(x=1)"), "= Child(ok=True, note='none', extra_field=1, x=1)");
    assert_eq!(case("return Strict(ok=True, note=None).note"), "= None");
    assert_eq!(
        case("r = Loose(ok=True, error='e')\n    return r.error, r.ok, str(r)"),
        "= ('e', True, \"ok=True note='none' error='e'\")"
    );
    assert_eq!(
        case("return Loose(ok=True).missing"),
        "! AttributeError: 'Loose' object has no attribute 'missing'"
    );
    assert_eq!(
        case("return Loose(ok=True, items=[Quiet(ok=False)]).model_dump()"),
        "= {'ok': True, 'note': 'none', 'items': [{'ok': False}]}"
    );
    assert_eq!(
        case("return Strict(ok=True).model_dump(mode='json', exclude_none=True)"),
        "= {'ok': True, 'note': 'none', 'count': 0, 'tags': []}"
    );
    assert_eq!(
        case(
            "a = Strict(ok=True)\n    a.tags.append('t')\n    return a, Strict(ok=True) == Strict(ok=True), a == Strict(ok=True)"
        ),
        "= (Strict(ok=True, note='none', count=0, tags=['t']), True, False)"
    );
    assert_eq!(
        case(
            "return isinstance(Child(), Loose), isinstance(Child(), Strict), isinstance(Loose(ok=1), Base)"
        ),
        "= (True, False, False)"
    );
    assert_eq!(
        case("return Strict(True)"),
        "! TypeError: BaseModel.__init__() takes 1 positional argument but 2 were given"
    );
    assert_eq!(
        case("return Loose(ok=True)['ok']"),
        "! TypeError: 'Loose' object is not subscriptable"
    );

    let program = clean(
        "m.py",
        &format!(
            "{models}def f():\n    return Loose(ok=True, when=(1, 2), by={{1: None, 2.5: True, None: 'n'}})\n"
        ),
    );
    let Outcome::Returned(value) = program.call("f", &[], false, &mut FakeCrm::default()) else {
        panic!()
    };
    assert_eq!(
        value.to_json().to_python_json(),
        r#"{"ok": true, "note": "none", "when": [1, 2], "by": {"1": null, "2.5": true, "null": "n"}}"#
    );
}

#[test]
fn module_level_helpers_constants_and_exceptions() {
    let source = "\"\"\"Docs.\"\"\"\nimport json\nfrom rasa.mantle.tools import tool, ToolResult\n\
        LIMIT = 2\nSTAGES = {'waiting_on_us': 'us', 'waiting_on_contact': 'them'}\nGREETING = f'limit {LIMIT}'\n\
        class CrmError(Exception):\n    pass\n\
        class NotFound(CrmError):\n    \"\"\"Missing.\"\"\"\n\
        def label(stage, default='?'):\n    return STAGES.get(stage, default)\n\
        def fact(n):\n    return 1 if n <= 1 else n * fact(n - 1)\n\
        async def lookup(key):\n    if key not in STAGES:\n        raise NotFound(f'no {key}')\n    return await helper(key)\n\
        async def helper(key):\n    return label(key)\n\
        @tool(description='x')\nasync def main():\n    out = [label('waiting_on_us'), label('nope'), label('x', default='-'), fact(10), GREETING, LIMIT]\n    \
            try:\n        await lookup('zzz')\n    except CrmError as e:\n        out.append('caught ' + str(e))\n    \
            out.append(await lookup('waiting_on_contact'))\n    return ToolResult(llm_response=out)\n\
        def raises():\n    raise NotFound('gone')\n\
        def uses_json():\n    return json.dumps({})\n\
        def bad_call():\n    return label()\n\
        def too_many():\n    return label(1, 2, 3)\n";
    assert_eq!(
        outcome_of(source, "main"),
        "= ToolResult(llm_response=['us', '?', '-', 3628800, 'limit 2', 2, 'caught no zzz', 'them'])"
    );
    assert_eq!(outcome_of(source, "raises"), "! NotFound: gone");
    assert_eq!(outcome_of(source, "uses_json"), "= '{}'");
    assert_eq!(
        outcome_of(source, "bad_call"),
        "! TypeError: label() missing 1 required positional argument: 'stage'"
    );
    assert_eq!(
        outcome_of(source, "too_many"),
        "! TypeError: label() takes from 1 to 2 positional arguments but 3 were given"
    );
    let program = clean("m.py", source);
    assert_eq!(
        program.function_names(),
        [
            "label",
            "fact",
            "lookup",
            "helper",
            "main",
            "raises",
            "uses_json",
            "bad_call",
            "too_many"
        ]
    );
}

/// A function whose body is outside the subset: the diagnostic, at `line:column`.
fn unsupported_at(source: &str) -> String {
    let program = compile_module("u.py", source);
    let [diagnostic] = program.diagnostics.as_slice() else {
        panic!("expected one diagnostic for {source:?}: {:?}", program.diagnostics)
    };
    assert_eq!((diagnostic.severity, diagnostic.phase), (Severity::Error, Phase::Read));
    assert!(program.has_function("f"), "{source}");
    let outcome = program.call("f", &[], true, &mut FakeCrm::default());
    assert_eq!(outcome, Outcome::Unsupported(diagnostic.clone()), "{source}");
    if program.has_function("ok") {
        assert_eq!(
            program.call("ok", &[], true, &mut FakeCrm::default()),
            Outcome::Returned(PyValue::Int(1))
        );
    }
    format!(
        "{}:{} {} {}",
        diagnostic.span.start.line,
        diagnostic.span.start.column,
        diagnostic.code,
        diagnostic.message
    )
}

#[test]
fn constructs_outside_the_subset_are_reported_at_their_token() {
    let cases: &[(&str, &str)] = &[
        (
            "def f():\n    return sorted([1], key=lambda *x: x)\ndef ok():\n    return 1\n",
            "2:35 swaplab.python.unsupported a `*args` or `**kwargs` parameter is outside the Python subset Swap Lab runs",
        ),
        (
            "def f():\n    nonlocal x\n",
            "2:5 swaplab.python.unsupported `nonlocal` is outside the Python subset Swap Lab runs",
        ),
        (
            "def f():\n    global X\n",
            "2:5 swaplab.python.unsupported `global` is outside the Python subset Swap Lab runs",
        ),
        (
            "def ok():\n    return 1\ndef f():\n    x = 1\n    def inner():\n        pass\n",
            "5:5 swaplab.python.unsupported a function defined inside a function is outside the Python subset Swap Lab runs",
        ),
        (
            "def f():\n    class Inner:\n        pass\n",
            "2:5 swaplab.python.unsupported a class defined inside a function is outside the Python subset Swap Lab runs",
        ),
        (
            "def f():\n    yield 1\n",
            "2:5 swaplab.python.unsupported `yield` is outside the Python subset Swap Lab runs",
        ),
        (
            "def f():\n    return print(*[1], 2)\n",
            "2:24 swaplab.python.unsupported a positional argument after `*iterable` is outside the Python subset Swap Lab runs",
        ),
        (
            "def f():\n    a, *b = [1, 2]\n",
            "2:8 swaplab.python.unsupported unpacking with `*` is outside the Python subset Swap Lab runs",
        ),
        (
            "def f():\n    return t'x'\n",
            "2:12 swaplab.python.unsupported a template string is outside the Python subset Swap Lab runs",
        ),
        (
            "def f():\n    if (n := 1):\n        pass\n",
            "2:11 swaplab.python.unsupported the assignment expression `:=` is outside the Python subset Swap Lab runs",
        ),
        (
            "def f():\n    x[1:2] = 1\n    async for x in y:\n        pass\n",
            "3:5 swaplab.python.unsupported `async def` and `async for` inside a function is outside the Python subset Swap Lab runs",
        ),
        (
            "def f():\n    import os\n",
            "2:5 swaplab.python.unsupported an import inside a function is outside the Python subset Swap Lab runs",
        ),
        (
            "def f():\n    return 1j\n",
            "2:12 swaplab.python.unsupported a complex number is outside the Python subset Swap Lab runs",
        ),
        (
            "def f():\n    return 99999999999999999999\n",
            "2:12 swaplab.python.limit an integer beyond 64 bits is outside what Swap Lab runs",
        ),
        (
            "def f():\n    match x:\n        case 1:\n            pass\n",
            "2:5 swaplab.python.unsupported `match` is outside the Python subset Swap Lab runs",
        ),
        (
            "def f():\n    return x[1:2, 3]\n",
            "2:14 swaplab.python.unsupported a slice inside a tuple index is outside the Python subset Swap Lab runs",
        ),
        (
            "def f():\n    return f'{x!z}'\n",
            "2:16 swaplab.python.syntax f-string: invalid conversion character",
        ),
        ("def f():\n    break\n", "2:5 swaplab.python.syntax 'break' outside loop"),
        ("def f():\n    return (1 +)\n", "2:16 swaplab.python.syntax invalid syntax"),
    ];
    let mut failures = Vec::new();
    for (source, expected) in cases {
        let found = unsupported_at(source);
        if found != *expected {
            failures.push(format!("{source:?}\n  expected {expected}\n  found    {found}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));

    // At run time: a construct reached only when the line runs.
    let runtime = [
        (
            "def f():\n    return 'a %s' % 1\n",
            "2:12 swaplab.python.unsupported printf-style `%` formatting (use an f-string) is outside the Python subset Swap Lab runs",
        ),
        (
            "def f():\n    return vars(str)\n",
            "2:12 swaplab.python.unsupported calling the builtin `vars` is outside the Python subset Swap Lab runs",
        ),
        (
            "def f():\n    return 'x'.expandtabs()\n",
            "2:12 swaplab.python.unsupported `str.expandtabs()` is outside the Python subset Swap Lab runs",
        ),
        (
            "def f(context):\n    return context.sender_id\n",
            "2:12 swaplab.python.unsupported `context.sender_id` (only `context.memory.get/set` runs) is outside the Python subset Swap Lab runs",
        ),
        (
            "def f():\n    return 2 ** 64\n",
            "2:12 swaplab.python.limit an integer beyond 64 bits is outside what Swap Lab runs",
        ),
    ];
    for (source, expected) in runtime {
        let program = clean("r.py", source);
        let Outcome::Unsupported(d) = program.call("f", &[], true, &mut FakeCrm::default()) else {
            panic!("{source}")
        };
        assert_eq!(
            format!("{}:{} {} {}", d.span.start.line, d.span.start.column, d.code, d.message),
            expected
        );
    }
}

/// The diagnostic code of a run that must hit a limit, or the exception it raises.
fn limit_of(body: &str) -> String {
    match run_body(body) {
        found
            if found.starts_with("? ")
                || found.starts_with("! MemoryError")
                || found.starts_with("! RecursionError") =>
        {
            found
        }
        other => panic!("{body}: no limit hit: {other}"),
    }
}

#[test]
fn every_limit_stops_the_run_instead_of_hanging() {
    let steps = "? this call took more than 100000 evaluation steps: a loop that does not end, or more work than a tool should do";
    assert_eq!(limit_of("while True:\n    pass"), steps);
    assert_eq!(
        limit_of("x = []\nfor i in x:\n    x.append(i)\nx.append(1)\nfor i in x:\n    x.append(i)"),
        steps
    );
    assert_eq!(limit_of("n = 0\nfor i in range(1000000):\n    n += i"), steps);
    assert_eq!(
        limit_of(
            "try:\n    while True:\n        pass\nexcept Exception:\n    return 'caught'\nfinally:\n    return 'finally'"
        ),
        steps
    );

    let memory = "! MemoryError: a str, list or dict of more than 1000000 items is beyond what Swap Lab runs";
    assert_eq!(limit_of("return 'x' * 2000000"), memory);
    assert_eq!(limit_of("s = 'ab'\nwhile True:\n    s = s + s"), memory);
    assert_eq!(limit_of("return [0] * 1000001"), memory);
    assert_eq!(limit_of("return range(2000000)"), memory);
    assert_eq!(limit_of("return list(range(-5, 10 ** 7))"), memory);
    assert_eq!(limit_of("return f'{1:>2000000}'"), memory);
    assert_eq!(limit_of("xs = [1] * 1000000\nxs.append(2)"), memory);
    assert_eq!(limit_of("return ','.join(['abcd'] * 300000)"), memory);
    assert_eq!(
        run_body("try:\n    'x' * 10 ** 9\nexcept MemoryError:\n    return 'caught'"),
        "= 'caught'"
    );
    assert_eq!(run_body("return [] * 10 ** 18, '' * 10 ** 18, () * -1"), "= ([], '', ())");
    let factory = "from pydantic import BaseModel, Field\nclass N(BaseModel):\n    n: int = Field(default_factory=make)\n\
                   def make():\n    return N()\ndef f():\n    return N()\n";
    assert!(
        outcome_of(factory, "f").starts_with("? swaplab.python.limit"),
        "{}",
        outcome_of(factory, "f")
    );

    let deep_value = "x = []\nfor i in range(5000):\n    x = [x]\n";
    assert_eq!(run_body(&format!("{deep_value}return len(x)")), "= 1");
    assert_eq!(
        limit_of(&format!("{deep_value}return repr(x)")),
        "! RecursionError: maximum recursion depth exceeded while getting the repr of an object"
    );
    assert_eq!(
        limit_of(&format!("{deep_value}return x")),
        "? a value nested more than 100 levels deep (or containing itself) cannot cross between the tool and the simulation"
    );
    assert_eq!(
        limit_of(&format!("{deep_value}y = []\nfor i in range(5000):\n    y = [y]\nreturn x == y")),
        "! RecursionError: maximum recursion depth exceeded in comparison"
    );
    assert_eq!(
        run_body("a = [1]\na.append(a)\nd = {}\nd['self'] = d\nreturn repr(a), str(d)"),
        "= ('[1, [...]]', \"{'self': {...}}\")"
    );

    let depth = compile_module(
        "d.py",
        "def down(n):\n    return down(n + 1)\ndef ping(n):\n    return pong(n)\ndef pong(n):\n    return ping(n)\ndef fine(n):\n    return 0 if n == 0 else 1 + fine(n - 1)\n",
    );
    for name in ["down", "ping"] {
        let Outcome::Unsupported(d) =
            depth.call(name, &[("n".to_owned(), PyValue::Int(0))], false, &mut FakeCrm::default())
        else {
            panic!("{name}")
        };
        assert_eq!(d.code, "swaplab.python.limit");
        assert!(d.message.starts_with("more than 32 nested calls"), "{}", d.message);
    }
    assert_eq!(
        depth.call("fine", &[("n".to_owned(), PyValue::Int(31))], false, &mut FakeCrm::default()),
        Outcome::Returned(PyValue::Int(31))
    );
    assert!(matches!(
        depth.call("fine", &[("n".to_owned(), PyValue::Int(32))], false, &mut FakeCrm::default()),
        Outcome::Unsupported(_)
    ));

    let nested = format!("def f():\n    return {}1{}\n", "(".repeat(200), ")".repeat(200));
    let program = compile_module("n.py", &nested);
    assert!(
        program.diagnostics.iter().any(|d| d.code == "swaplab.python.limit"),
        "{:?}",
        program.diagnostics
    );
    assert!(
        matches!(program.call("f", &[], false, &mut FakeCrm::default()), Outcome::Unsupported(d) if d.code == "swaplab.python.limit")
    );
    let fits = format!("def f():\n    return {}1{}\n", "(".repeat(90), ")".repeat(90));
    assert_eq!(
        clean("n.py", &fits).call("f", &[], false, &mut FakeCrm::default()),
        Outcome::Returned(PyValue::Int(1))
    );
}

/// Runs `work` on a thread with a small, fixed stack (a debug build's frames are several
/// times larger than the wasm build's, whose stack is 1 MiB).
fn on_small_stack(work: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(3 << 19)
        .spawn(work)
        .expect("a thread starts")
        .join()
        .expect("the work finished within a 1.5 MiB stack");
}

#[test]
fn the_deepest_programs_the_limits_allow_fit_a_small_stack() {
    on_small_stack(|| {
        let limit = |outcome: Outcome| matches!(outcome, Outcome::Unsupported(ref d) if d.code == "swaplab.python.limit");
        let mut host = FakeCrm::default();
        let n = [("n".to_owned(), PyValue::Int(0))];
        // Compiling: the deepest nesting of the heaviest constructs.
        for (open, close) in
            [("len(", ")"), ("[", "]"), ("x[x[0]", "]"), ("f'{", "}'"), ("{1: ", "}"), ("-(", ")")]
        {
            for depth in [95, 99, 150] {
                let source = format!(
                    "def f(n):\n    x = [0]\n    return {}n{}\n",
                    open.repeat(depth),
                    close.repeat(depth)
                );
                let program = compile_module("deep.py", &source);
                let _ = program.call("f", &n, false, &mut host);
            }
        }
        let blocks: String =
            (1..=99).map(|i| format!("{}if n >= 0:\n", "    ".repeat(i))).collect();
        let program = compile_module(
            "blocks.py",
            &format!("def f(n):\n{blocks}{}return 1\n", "    ".repeat(100)),
        );
        let _ = program.call("f", &n, false, &mut host);
        // Running: calls, blocks and brackets mixed until a limit stops them.
        for per_call in [4, 8, 12, 20] {
            let blocks: String =
                (1..=per_call).map(|i| format!("{}if n >= 0:\n", "    ".repeat(i))).collect();
            let source = format!(
                "def f(n):\n{blocks}{}return {}f(n + 1){}\n",
                "    ".repeat(per_call + 1),
                "[".repeat(per_call),
                "]".repeat(per_call)
            );
            assert!(
                limit(compile_module("mix.py", &source).call("f", &n, false, &mut host)),
                "{per_call}"
            );
        }
        // Lambdas calling themselves through the scope they close over.
        for per_call in [4, 8, 12, 20] {
            let source = format!(
                "def f(n):\n    g = lambda k: {}g(k + 1) if k >= 0 else 0{}\n    return g(n)\n",
                "[".repeat(per_call),
                "]".repeat(per_call)
            );
            assert!(
                limit(compile_module("lambda.py", &source).call("f", &n, false, &mut host)),
                "{per_call}"
            );
        }
        // Values at their deepest, printed and compared at the bottom of a deep call chain.
        let values = "def g(x, d):\n    return [repr(x), x == x[0], str(x)] if d == 0 else g(x, d - 1)\n\
                      def f(n):\n    x = []\n    for i in range(95):\n        x = [x]\n    x = [x, {'k': (x,)}]\n    return len(g(x, 30))\n";
        assert_eq!(
            clean("v.py", values).call("f", &n, false, &mut host),
            Outcome::Returned(PyValue::Int(3))
        );
        let chain = format!("def f(n):\n    return {}\n", vec!["n"; 3000].join(" + "));
        assert!(limit(compile_module("chain.py", &chain).call("f", &n, false, &mut host)));
    });
}

#[test]
fn values_print_and_dump_as_python_does() {
    let value = PyValue::Dict(vec![
        (text("a"), PyValue::Tuple(vec![PyValue::Int(1)])),
        (PyValue::Int(2), PyValue::Float(1e16)),
        (PyValue::Bool(true), PyValue::List(vec![PyValue::None, PyValue::Float(f64::NAN)])),
        (PyValue::Float(0.5), text("it's \"quoted\"\n")),
        (PyValue::None, PyValue::Context),
        (
            PyValue::Tuple(vec![PyValue::Int(1)]),
            PyValue::Object { class: "M".to_owned(), fields: vec![("x".to_owned(), text("é"))] },
        ),
    ]);
    assert_eq!(
        value.repr(),
        "{'a': (1,), 2: 1e+16, True: [None, nan], 0.5: 'it\\'s \"quoted\"\\n', None: <ToolContext>, (1,): M(x='é')}"
    );
    assert_eq!(
        value.to_json().to_python_json(),
        "{\"a\": [1], \"2\": 1e+16, \"true\": [null, null], \"0.5\": \"it's \\\"quoted\\\"\\n\", \"null\": \"<ToolContext>\", \"(1,)\": {\"x\": \"\\u00e9\"}}"
    );
    assert_eq!(
        PyValue::Object {
            class: "M".to_owned(),
            fields: vec![("x".to_owned(), PyValue::Int(1)), ("y".to_owned(), text("s"))]
        }
        .str(),
        "x=1 y='s'"
    );
    assert_eq!(
        PyValue::Object {
            class: "ToolResult".to_owned(),
            fields: vec![("llm_response".to_owned(), PyValue::Dict(vec![]))]
        }
        .str(),
        "ToolResult(llm_response={})"
    );
    let truthy: Vec<bool> = [
        PyValue::None,
        PyValue::Int(0),
        PyValue::Float(0.0),
        text(""),
        PyValue::List(vec![]),
        PyValue::Context,
        text("x"),
        PyValue::Tuple(vec![PyValue::None]),
    ]
    .iter()
    .map(PyValue::truthy)
    .collect();
    assert_eq!(truthy, [false, false, false, false, false, true, true, true]);
    let json = value.to_json();
    let back = PyValue::from_json(&json);
    assert_eq!(back.to_json().to_python_json(), json.to_python_json());
    assert!(
        matches!(&back, PyValue::Dict(entries) if entries.iter().all(|(k, _)| matches!(k, PyValue::Str(_))))
    );

    let mut deep = PyValue::None;
    for _ in 0..500 {
        deep = PyValue::List(vec![deep]);
    }
    assert!(deep.repr().contains("..."));
    assert_eq!(deep.to_json().to_python_json().matches('[').count(), 101);
}

/// Compiles `text` and calls every function it defines, with and without context.
fn run_everything(source: &str) {
    let program = compile_module("g.py", source);
    let lines = u32::try_from(source.split('\n').count()).unwrap_or(u32::MAX);
    let check = |d: &Diagnostic| {
        assert!(
            d.span.start <= d.span.end && d.span.start.line >= 1 && d.span.end.line <= lines,
            "{d}"
        );
    };
    program.diagnostics.iter().for_each(check);
    for name in program.function_names() {
        for with_context in [true, false] {
            let args = [
                ("email".to_owned(), text("dana.okafor@example.com")),
                ("contact_id".to_owned(), text("701")),
            ];
            let outcome = program.call(name, &args, with_context, &mut FakeCrm::default());
            match &outcome {
                Outcome::Unsupported(d) => check(d),
                Outcome::Raised { span, .. } => assert!(span.start <= span.end, "{outcome:?}"),
                Outcome::Returned(value) => {
                    let _ = (value.repr(), value.to_json().to_python_json());
                }
            }
        }
    }
}

#[test]
fn truncated_and_damaged_tool_files_never_panic() {
    for source in [CRM_TOOL, CHECK_TICKETS, LOG_INTERACTION, SERVER] {
        for (end, _) in source.char_indices().step_by(2) {
            run_everything(&source[..end]);
        }
        let bytes = source.as_bytes();
        let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..200 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let mut damaged = bytes.to_vec();
            let at = (state % damaged.len() as u64) as usize;
            const SPICE: &[u8] = b"()[]{}:'\"\n \\#=.,*";
            damaged[at] = SPICE[(state >> 32) as usize % SPICE.len()];
            run_everything(&String::from_utf8_lossy(&damaged));
        }
    }
}

#[test]
fn random_and_hostile_input_never_panics() {
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for _ in 0..200 {
        let bytes: Vec<u8> = (0..400).map(|_| (next() >> 24) as u8).collect();
        run_everything(&format!("def f():\n    {}\n", String::from_utf8_lossy(&bytes)));
        run_everything(&String::from_utf8_lossy(&bytes));
    }
    const PIECES: [&str; 40] = [
        "(",
        ")",
        "[",
        "]",
        "{",
        "}",
        "'",
        "\"",
        "f\"{",
        "}\"",
        "\n",
        "\n    ",
        "\n        ",
        ":",
        "=",
        "+",
        "-",
        "*",
        "**",
        "//",
        ",",
        ".",
        "x",
        "1",
        "0",
        "not ",
        " and ",
        " or ",
        "if ",
        " else ",
        "for ",
        " in ",
        "while True",
        "return ",
        "try:",
        "except",
        "[x for x in x]",
        "context.memory.get('p')",
        "crm.get_ticket(",
        "lambda",
    ];
    for _ in 0..400 {
        let body: String =
            (0..60).map(|_| PIECES[(next() % PIECES.len() as u64) as usize]).collect();
        run_everything(&format!(
            "from hubspot_client import crm\ndef f(context=None):\n    {body}\n"
        ));
    }
    let nesting =
        |open: &str, close: &str, n: usize| format!("{}x{}", open.repeat(n), close.repeat(n));
    let hostile = [
        format!("def f():\n    return {}\n", "(".repeat(100_000)),
        format!("def f():\n    return {}\n", nesting("[", "]", 50_000)),
        format!("def f():\n    return {}\n", nesting("{1: ", "}", 5_000)),
        format!("def f():\n    return {}1\n", "-".repeat(100_000)),
        format!("def f():\n    return {}x\n", "not ".repeat(50_000)),
        format!("def f():\n    return x{}\n", ".a".repeat(50_000)),
        format!("def f():\n    return x{}\n", "[0]".repeat(50_000)),
        format!("def f():\n    return x{}\n", "()".repeat(50_000)),
        format!("def f():\n    return 2{}\n", " ** 2".repeat(50_000)),
        format!("def f():\n    return {}\n", vec!["1"; 50_000].join(" + ")),
        format!("def f():\n    return {}\n", vec!["x"; 50_000].join(" < ")),
        format!("def f():\n    return {}\n", vec!["x"; 50_000].join(" and ")),
        format!("def f():\n    return [{}]\n", vec!["1"; 100_000].join(", ")),
        format!("def f():\n    return [x {}]\n", "for x in [1] ".repeat(5_000)),
        format!("def f():\n    return 1 {}\n", "if 1 else 2 if 1 else ".repeat(5_000)),
        format!("def f():\n    return f'{}'\n", "{f'".repeat(300)),
        format!("def f():\n    return f\"{}x{}\"\n", "{".repeat(10_000), "}".repeat(10_000)),
        format!("def f():\n    return '{}'.format(1)\n", "{:{".repeat(1000)),
        format!("def f(x):\n{}        return 1\n", (1..300).map(|i| format!("{}if x:\n", "    ".repeat(i))).collect::<String>()),
        format!("def f():\n    x = 1\n{}", "    x = [x, x]\n".repeat(2_000)),
        format!("def f():\n    {} = 1\n", vec!["a"; 50_000].join(" = ")),
        format!("def f():\n    ({}) = 1\n", nesting("(", ",)", 5_000)),
        "def f(:\n    pass\n".to_owned(),
        "def f():\nreturn 1\n".to_owned(),
        "def f():\n    if x:\n    return 1\n".to_owned(),
        "def f():\n    return '''\n".to_owned(),
        "def f():\n        return 1\n    return 2\n".to_owned(),
        "def f():\n    try:\n        pass\n".to_owned(),
        "def f():\n    else:\n        pass\n".to_owned(),
        "def f():\n    return x[\ndef g():\n    return 1\n".to_owned(),
        "async def f():\n    return await await await 1\n".to_owned(),
        "class M(BaseModel):\n    x: int = Field(default_factory=lambda: 1)\ndef f():\n    return M()\n".to_owned(),
        "from pydantic import BaseModel\nclass A(A):\n    x: int\nclass B(B, A):\n    y: int\ndef f():\n    return B(x=1, y=2)\n".to_owned(),
        "X = X\ndef f():\n    return X\n".to_owned(),
        "\u{feff}def f():\r\n    return '\u{1f600}'[0]\r\n".to_owned(),
        "def f():\n    return '\\N{DASH}' + f'\\N{DASH}'\n".to_owned(),
        "from pydantic import BaseModel, Field\nclass M(BaseModel):\n    m: int = Field(default_factory=lambda: 1)\nclass N(BaseModel):\n    n: object = Field(default_factory=N)\ndef f():\n    return N()\n".to_owned(),
        "def f():\n    return [] * 10 ** 18, '' * 10 ** 18, () * 10 ** 18\n".to_owned(),
    ];
    for source in &hostile {
        run_everything(source);
    }
}

#[test]
fn a_body_the_textual_reading_cannot_follow_says_why() {
    // Every tool of the tutorial is read whole: the client, models, builtins of the subset.
    let server = compile_module("server.py", SERVER);
    for tool in ["find_contact_by_email", "list_open_tickets", "add_timeline_note"] {
        assert_eq!(server.unfollowed(tool), None, "{tool}");
    }
    let program = compile_module(
        "server.py",
        "import requests\nfrom hubspot_client import crm\n\n\
         async def _write(contact_id, body):\n    return await crm.create_note(contact_id=contact_id, body=body)\n\n\
         async def via_helper(contact_id: str) -> str:\n    return await _write(contact_id, \"x\")\n\n\
         def via_module(contact_id: str) -> str:\n    return requests.get(contact_id)\n\n\
         def via_builtin(contact_id: str) -> str:\n    return getattr(crm, \"get_ticket\")(contact_id)\n\n\
         def outside(contact_id: str) -> str:\n    match contact_id:\n        case _:\n            return contact_id\n\n\
         def own(contact_id: str, depth: int = 0) -> str:\n    ids = [c for c in contact_id]\n    return own(contact_id, depth + 1) if depth < 1 else str(len(ids))\n",
    );
    let why = |function: &str| program.unfollowed(function).unwrap_or_default();
    assert_eq!(
        why("via_helper"),
        "it calls `_write`, a function of the file the reading does not follow (line 8)"
    );
    assert_eq!(
        why("via_module"),
        "it uses the module `requests`, whose HTTP requests the reading does not follow (line 11)"
    );
    assert_eq!(
        why("via_builtin"),
        "it uses the builtin `getattr`, outside the Python subset Swap Lab reads (line 14)"
    );
    assert!(
        why("outside")
            .starts_with("its body is outside the Python subset Swap Lab reads (line 17: "),
        "{}",
        why("outside")
    );
    // Calling itself, and a comprehension's own variable, leave nothing out.
    assert_eq!(program.unfollowed("own"), None);
    assert_eq!(program.unfollowed("no_such_function"), None);
}

/// The diagnostic of a body that does not compile: `code message`.
fn compile_error(body: &str) -> String {
    let source = format!("def f():\n    {body}\n");
    let program = compile_module("e.py", &source);
    let [diagnostic] = program.diagnostics.as_slice() else {
        panic!("expected one diagnostic for {source:?}: {:?}", program.diagnostics)
    };
    format!("{} {}", diagnostic.code, diagnostic.message)
}

#[test]
fn numeric_literals_group_digits_with_underscores() {
    // Values and messages from the machine's python3 (3.11): `eval` of each literal.
    assert_eq!(
        run_body(
            "return (1_000, 0x_FF, 0X_ff, 0b_1010, 0o_17, 1_000.000_1, 1_0e1_0, 1e-1_0, .5_5, 0_0, \
             00, 5_5., 1_2E-3_4, 0xFF_FF, 9_223_372_036_854_775_807, 1.e5, 0e0, 09.5e1, 0_9.5)"
        ),
        "= (1000, 255, 255, 10, 15, 1000.0001, 100000000000.0, 1e-10, 0.55, 0, 0, 55.0, \
         1.2e-33, 65535, 9223372036854775807, 100000.0, 0.0, 95.0, 9.5)"
    );
    let syntax = "swaplab.python.syntax";
    let leading = "leading zeros in decimal integer literals are not permitted; use an 0o \
                   prefix for octal integers";
    for (literal, message) in [
        ("0_1", leading),
        ("01", leading),
        ("1__0", "invalid decimal literal"),
        ("1_", "invalid decimal literal"),
        ("0_", "invalid decimal literal"),
        ("1_.5", "invalid decimal literal"),
        ("1._5", "invalid decimal literal"),
        ("1.5_", "invalid decimal literal"),
        ("1e_5", "invalid decimal literal"),
        ("1e5_", "invalid decimal literal"),
        ("1_e5", "invalid decimal literal"),
        ("1e", "invalid decimal literal"),
        ("1ee5", "invalid decimal literal"),
        ("1a", "invalid decimal literal"),
        ("0x_", "invalid hexadecimal literal"),
        ("0x__1", "invalid hexadecimal literal"),
        ("0x1_", "invalid hexadecimal literal"),
        ("0x_ff_", "invalid hexadecimal literal"),
        ("0xg", "invalid hexadecimal literal"),
        ("0x1j", "invalid hexadecimal literal"),
        ("0b2", "invalid digit '2' in binary literal"),
        ("0b12", "invalid digit '2' in binary literal"),
        ("0b1__0", "invalid binary literal"),
        ("0b", "invalid binary literal"),
        ("0o8", "invalid digit '8' in octal literal"),
        ("0o19", "invalid digit '9' in octal literal"),
        ("0o", "invalid octal literal"),
        ("1jj", "invalid imaginary literal"),
        ("1.2.3", "invalid syntax"),
    ] {
        assert_eq!(compile_error(&format!("return {literal}")), format!("{syntax} {message}"));
    }
    assert_eq!(
        compile_error("return 1_000j"),
        "swaplab.python.unsupported a complex number is outside the Python subset Swap Lab runs"
    );
    assert_eq!(
        compile_error("return 0x_FFFF_FFFF_FFFF_FFFF_F"),
        "swaplab.python.limit an integer beyond 64 bits is outside what Swap Lab runs"
    );
    // A literal of 200 000 digits, grouped or not, is read in linear time.
    let huge = vec!["123"; 100_000].join("_");
    assert!(compile_error(&format!("return {huge}")).starts_with("swaplab.python.limit"));
    assert_eq!(run_body(&format!("return 0.{huge} < 1")), "= True");
}

/// Lambdas: keys, closures over the enclosing scope (live, as CPython's cells are),
/// defaults evaluated when the lambda is, recursion through a local, and the errors of a
/// bad call. The module and both results were run in the machine's python3 (3.11).
const LAMBDAS: &str = r#"KEY = lambda d: d["n"]
K = lambda x=1: x
def g(key=lambda x: -x):
    return sorted([1, 3, 2], key=key)
def f():
    out = []
    rows = [{"n": 2, "c": "b"}, {"n": 1, "c": "a"}, {"n": 3, "c": "a"}]
    out.append([r["n"] for r in sorted(rows, key=lambda r: (r["c"], -r["n"]))])
    out.append(min(rows, key=KEY)["n"])
    out.append(max(rows, key=lambda r: r["n"])["c"])
    n = 5
    add = lambda x: x + n
    n = 10
    out.append(add(1))
    fs = [lambda x=i: x for i in range(3)]
    out.append([h() for h in fs])
    late = [lambda: i for i in range(3)]
    out.append([h() for h in late])
    fact = lambda n: 1 if n <= 1 else n * fact(n - 1)
    out.append(fact(10))
    curry = lambda a: lambda b: a + b
    out.append(curry(1)(2))
    pick = lambda x: "big" if x > 3 else "small"
    out.append([pick(2), pick(5)])
    a, b = lambda: 1, 2
    out.append((a(), b))
    out.append(K())
    out.append(K(x=4))
    out.append(g())
    kw = lambda a, *, b=2: a + b
    out.append(kw(1, b=3))
    out.append((lambda: "now")())
    return out
def errors():
    out = []
    two = lambda x, y=2: x + y
    for call in [lambda: two(), lambda: two(1, 2, 3), lambda: two(1, z=3), lambda: two(1, x=3), lambda: KEY(), lambda: (lambda: 1)(2)]:
        try:
            call()
        except TypeError as e:
            out.append(str(e))
    m = lambda: z
    try:
        m()
    except NameError as e:
        out.append(str(e))
    z = 1
    out.append(m())
    return out
"#;

#[test]
fn lambdas_close_over_their_scope_as_cpython_does() {
    assert_eq!(
        outcome_of(LAMBDAS, "f"),
        "= [[3, 1, 2], 1, 'a', 11, [0, 1, 2], [2, 2, 2], 3628800, 3, ['small', 'big'], (1, 2), \
         1, 4, [3, 2, 1], 4, 'now']"
    );
    assert_eq!(
        outcome_of(LAMBDAS, "errors"),
        "= [\"errors.<locals>.<lambda>() missing 1 required positional argument: 'x'\", \
         'errors.<locals>.<lambda>() takes from 1 to 2 positional arguments but 3 were given', \
         \"errors.<locals>.<lambda>() got an unexpected keyword argument 'z'\", \
         \"errors.<locals>.<lambda>() got multiple values for argument 'x'\", \
         \"<lambda>() missing 1 required positional argument: 'd'\", \
         'errors.<locals>.<lambda>.<locals>.<lambda>() takes 0 positional arguments but 1 was given', \
         \"cannot access free variable 'z' where it is not associated with a value in enclosing scope\", 1]"
    );
    // CPython adds the address: `<function f.<locals>.<lambda> at 0x…>`.
    assert_eq!(run_body("return repr(lambda: 1)"), "= '<function f.<locals>.<lambda>>'");
    assert_eq!(
        compile_error("return lambda x, x: 1"),
        "swaplab.python.syntax duplicate argument 'x' in function definition"
    );
    // Python 3.12's wording (3.11 says "non-default argument follows default argument").
    assert_eq!(
        compile_error("return lambda x=1, y: 1"),
        "swaplab.python.syntax parameter without a default follows parameter with a default"
    );
    assert_eq!(
        compile_error("return lambda *a: a"),
        "swaplab.python.unsupported a `*args` or `**kwargs` parameter is outside the Python subset Swap Lab runs"
    );

    // Hostile: lambdas nested past the cap, recursion without end, a loop making them.
    let deep = format!("return {}1", "lambda: ".repeat(100_000));
    assert!(compile_error(&deep).starts_with("swaplab.python.limit"), "{}", compile_error(&deep));
    let defaults = format!("return {}1{}", "lambda x=".repeat(5_000), ": x".repeat(5_000));
    assert!(compile_error(&defaults).starts_with("swaplab.python.limit"));
    assert!(
        run_body("g = lambda: g()\nreturn g()").starts_with("? more than 32 nested calls"),
        "{}",
        run_body("g = lambda: g()\nreturn g()")
    );
    assert!(
        run_body("fs = []\nwhile True:\n    fs.append(lambda: fs)")
            .starts_with("? this call took more")
    );
    assert_eq!(run_body("g = lambda: g\nreturn g()() is g"), "= True");
    // Long chains of closures (through defaults, through scopes) free without recursion.
    on_small_stack(|| {
        let defaults = "x = None\nfor i in range(9000):\n    x = lambda y=x: y\nreturn 1";
        assert_eq!(run_body(defaults), "= 1");
        let scopes = "g = None\nfor i in range(9000):\n    g = (lambda h: lambda: h)(g)\nreturn 1";
        assert_eq!(run_body(scopes), "= 1");
    });
}

/// `raise … from …`: the cause and context CPython records, and what `str()` and the
/// type show. The module and its results were run in the machine's python3 (3.11).
const RAISE_FROM: &str = r#"class ToolError(Exception):
    pass
def t(body):
    try:
        body()
    except BaseException as e:
        return (repr(e), str(e), repr(e.__cause__), e.__suppress_context__, repr(e.__context__))
def a():
    try:
        {}["k"]
    except KeyError as e:
        raise ToolError("missing") from e
def b():
    try:
        {}["k"]
    except KeyError:
        raise ToolError("hidden") from None
def c():
    raise ValueError("v") from TypeError
def d():
    raise ValueError("v") from 1
def e_():
    raise 1 from ValueError()
def f():
    try:
        [][0]
    except IndexError:
        raise ToolError("implicit")
def g():
    raise ToolError from KeyError("k")
def h():
    try:
        try:
            {}["k"]
        except KeyError as e:
            raise ValueError("inner") from e
    except ValueError as err:
        return (str(err), str(err.__cause__), err.__cause__ is err.__context__, err.__suppress_context__)
def main():
    return [t(a), t(b), t(c), t(d), t(e_), t(f), t(g), h()]
def escapes():
    try:
        int("x")
    except ValueError as e:
        raise ToolError("not a number: " + str(e)) from e
def loop():
    e = None
    for i in range(3000):
        try:
            raise ValueError(i) from e
        except ValueError as caught:
            e = caught
    return str(e), str(e.__cause__)
"#;

#[test]
fn raise_from_sets_the_cause_as_cpython_does() {
    assert_eq!(
        outcome_of(RAISE_FROM, "main"),
        "= [(\"ToolError('missing')\", 'missing', \"KeyError('k')\", True, \"KeyError('k')\"), \
         (\"ToolError('hidden')\", 'hidden', 'None', True, \"KeyError('k')\"), \
         (\"ValueError('v')\", 'v', 'TypeError()', True, 'None'), \
         (\"TypeError('exception causes must derive from BaseException')\", \
         'exception causes must derive from BaseException', 'None', False, 'None'), \
         (\"TypeError('exceptions must derive from BaseException')\", \
         'exceptions must derive from BaseException', 'None', False, 'None'), \
         (\"ToolError('implicit')\", 'implicit', 'None', False, \"IndexError('list index out of range')\"), \
         ('ToolError()', '', \"KeyError('k')\", True, 'None'), ('inner', \"'k'\", True, True)]"
    );
    assert_eq!(
        outcome_of(RAISE_FROM, "escapes"),
        "! ToolError: not a number: invalid literal for int() with base 10: 'x'"
    );
    // A chain of 3000 causes, freed without recursion.
    on_small_stack(|| assert_eq!(outcome_of(RAISE_FROM, "loop"), "= ('2999', '2998')"));
}

/// Annotated assignments with `typing` names: checked, never evaluated. The module (with
/// and without `from __future__ import annotations`) was run in the machine's python3.
const ANNOTATED: &str = r#"from typing import Optional, List, Dict, Any, Union, Literal
NOTES: list[dict] = []
LIMIT: int = 3
MODE: Literal["a", "b"] = "a"
PAIR: tuple[int, ...] = (1, 2)
MAYBE: Optional[int] = None
EITHER: Union[int, str] = "s"
U: int | None = 5
DECL: int
def module_names():
    return NOTES, LIMIT, MODE, PAIR, MAYBE, EITHER, U
def declared_only():
    return DECL
def local_annotations():
    x: int
    y: Dict[str, Any] = {}
    z: List[int] = [1]
    w: tuple = 1, 2
    q: Callable[[int], str] = None
    e: tuple[int, ...] = ()
    y["k"]: int = 3
    s: "Forward" = "fwd"
    return y, z, w, q, e, s
def unbound():
    x: int
    return x
def append_note():
    NOTES.append({"a": 1})
    return NOTES
"#;

#[test]
fn annotations_are_read_but_not_evaluated() {
    for future in ["", "from __future__ import annotations\n"] {
        let source = format!("{future}{ANNOTATED}");
        assert_eq!(outcome_of(&source, "module_names"), "= ([], 3, 'a', (1, 2), None, 's', 5)");
        assert_eq!(outcome_of(&source, "declared_only"), "! NameError: name 'DECL' is not defined");
        assert_eq!(
            outcome_of(&source, "local_annotations"),
            "= ({'k': 3}, [1], (1, 2), None, (), 'fwd')"
        );
        assert_eq!(
            outcome_of(&source, "unbound"),
            "! UnboundLocalError: cannot access local variable 'x' where it is not associated with a value"
        );
        assert_eq!(outcome_of(&source, "append_note"), "= [{'a': 1}]");
    }
    for (body, message) in [
        ("x: = 1", "invalid syntax: an expression is missing"),
        ("x: int +", "invalid syntax: an expression is missing"),
        ("a, b: int = 1, 2", "only single target (not tuple) can be annotated"),
        ("(a, b): int = 1, 2", "only single target (not tuple) can be annotated"),
        ("[a]: int", "only single target (not list) can be annotated"),
    ] {
        assert_eq!(compile_error(body), format!("swaplab.python.syntax {message}"), "{body}");
    }
    let module = compile_module("m.py", "X: = 1\nY: int +\ndef f():\n    return 1\n");
    let found: Vec<(u32, &str)> =
        module.diagnostics.iter().map(|d| (d.span.start.line, d.message.as_str())).collect();
    assert_eq!(
        found,
        [
            (1, "invalid syntax: an expression is missing"),
            (2, "invalid syntax: an expression is missing")
        ]
    );
}

/// Module-level assignments: unpacking, chains, rebinding, and later module-level
/// expressions reading what was bound before them (as at import). The module was run in
/// the machine's python3 (3.11); with `EARLY = LATE` it stops at import with the same
/// NameError.
const ASSIGNMENTS: &str = r#"HOST, PORT = "127.0.0.1", 8931
URL = f"http://{HOST}:{PORT}/mcp"
SETTINGS = dict(host=HOST, port=PORT)
A = B = [1]
(C, D), E = (1, 2), 3
[F, G] = "fg"
X = 1
Y = X + 1
X = 5
TOOLS = ["a"]
TOOLS = TOOLS + ["b"]
LOW, HIGH = HIGH, LOW = 1, 2
def port_plus(n):
    return PORT + n
NEXT = port_plus(1)
SQUARES = [n * n for n in range(PORT - 8928)]
EARLY = LATE
LATE = 1
def f():
    return HOST, PORT, URL, SETTINGS, A is B, C, D, E, F, G, X, Y, TOOLS, LOW, HIGH, NEXT, SQUARES
def early():
    return EARLY
"#;

#[test]
fn module_level_assignments_bind_in_file_order() {
    assert_eq!(
        outcome_of(ASSIGNMENTS, "f"),
        "= ('127.0.0.1', 8931, 'http://127.0.0.1:8931/mcp', {'host': '127.0.0.1', 'port': 8931}, \
         True, 1, 2, 3, 'f', 'g', 5, 2, ['a', 'b'], 2, 1, 8932, [0, 1, 4])"
    );
    assert_eq!(outcome_of(ASSIGNMENTS, "early"), "! NameError: name 'LATE' is not defined");
    let bad =
        "A, B = 1, 2, 3\nC = D = {}\nC['k'] = 1\ndef f():\n    return A\ndef g():\n    return D\n";
    assert_eq!(outcome_of(bad, "f"), "! ValueError: too many values to unpack (expected 2)");
    // Changing a value at import (`C['k'] = 1`) is not followed.
    assert_eq!(outcome_of(bad, "g"), "= {}");
    // Hostile: a chain of 5000 names, each read from the one before, stops at a limit.
    on_small_stack(|| {
        let chain: String = (1..5000).map(|i| format!("X{i} = X{} + 1\n", i - 1)).collect();
        let source = format!("X0 = 0\n{chain}def f():\n    return X4999\n");
        assert!(outcome_of(&source, "f").starts_with("? swaplab.python.limit"));
        let fits: String = (1..50).map(|i| format!("X{i} = X{} + 1\n", i - 1)).collect();
        assert_eq!(outcome_of(&format!("X0 = 0\n{fits}def f():\n    return X49\n"), "f"), "= 49");
    });
}

/// Module-level `if`s: a branch that only binds names is followed (its tests read what
/// is bound before it); `if __name__ == "__main__":` and `if TYPE_CHECKING:` are read
/// but never run. The module was run in the machine's python3 (3.11).
const MODULE_IFS: &str = r#"from typing import TYPE_CHECKING
if TYPE_CHECKING:
    from collections.abc import Sequence
DEBUG = False
LIMIT = 10
if DEBUG:
    LIMIT = 100
    MODE = "debug"
elif LIMIT > 5:
    MODE = "wide"
    LEVEL = LIMIT * 2
else:
    MODE = "narrow"
if not DEBUG: TAG = "inline"
if LIMIT:
    if DEBUG:
        INNER = "a"
    else:
        INNER = "b"
        NOTE: str = INNER + "!"
if False:
    NEVER = 1
def f():
    return LIMIT, MODE, LEVEL, TAG, INNER, NOTE
def never():
    return NEVER
def main_block():
    return RUN
if __name__ == "__main__":
    import sys
    RUN = sys.argv
    print(f())
"#;

#[test]
fn module_level_ifs_bind_names_and_main_blocks_do_not_run() {
    assert_eq!(outcome_of(MODULE_IFS, "f"), "= (10, 'wide', 20, 'inline', 'b', 'b!')");
    assert_eq!(outcome_of(MODULE_IFS, "never"), "! NameError: name 'NEVER' is not defined");
    assert_eq!(outcome_of(MODULE_IFS, "main_block"), "! NameError: name 'RUN' is not defined");
    // A `__main__` block must be valid Python; what it does is never run.
    let main = |block: &str| {
        let program = compile_module(
            "m.py",
            &format!("X = 1\nif __name__ == '__main__':\n{block}def f():\n    return X\n"),
        );
        let found: Vec<String> = program
            .diagnostics
            .iter()
            .map(|d| format!("{}:{} {}", d.span.start.line, d.code, d.message))
            .collect();
        (found, program.call("f", &[], false, &mut FakeCrm::default()))
    };
    let ran = Outcome::Returned(PyValue::Int(1));
    assert_eq!(
        main("    import uvicorn\n    with x as y:\n        X = 2\n"),
        (vec![], ran.clone())
    );
    assert_eq!(
        main("    mcp.run(\n"),
        (
            vec![
                "3:swaplab.python.syntax '(' was never closed".to_owned(),
                "3:swaplab.python.syntax invalid syntax: expected ')'".to_owned()
            ],
            ran.clone()
        )
    );
    assert_eq!(
        main("    x = = 1\n"),
        (vec!["3:swaplab.python.syntax invalid syntax: an expression is missing".to_owned()], ran)
    );
    // Anything else at module level: the names it binds stop the run where they are used.
    let other = "for i in range(3):\n    LOOPED = i\n\
                 try:\n    import tomllib\nexcept ImportError:\n    tomllib = None\n\
                 if LIMIT:\n    print('at import')\n    SIDE = 1\n\
                 with open('x') as fh:\n    pass\n\
                 def f():\n    return LOOPED\ndef g():\n    return tomllib\ndef h():\n    return SIDE\ndef k():\n    return fh\n";
    let program = compile_module("o.py", other);
    let found: Vec<String> = program
        .diagnostics
        .iter()
        .map(|d| format!("{}:{} {}", d.span.start.line, d.span.start.column, d.message))
        .collect();
    let outside = "is outside the Python subset Swap Lab runs";
    assert_eq!(
        found,
        [
            format!("1:1 a module-level `for` {outside}"),
            format!("3:1 a module-level `try` {outside}"),
            format!(
                "8:5 a statement other than an assignment to names in a module-level `if` {outside}"
            ),
            format!("10:1 a module-level `with` {outside}"),
        ]
    );
    for (function, diagnostic) in ["f", "g", "h", "k"].iter().zip(&program.diagnostics) {
        assert_eq!(
            program.call(function, &[], false, &mut FakeCrm::default()),
            Outcome::Unsupported(diagnostic.clone())
        );
    }
    // Hostile: 3000 `if`s, each test reading the name the one before binds.
    on_small_stack(|| {
        let chain = "if X >= 0:\n    X = X + 1\n".repeat(3000);
        let source = format!("X = 0\n{chain}def f():\n    return X\n");
        assert!(outcome_of(&source, "f").starts_with("? swaplab.python.limit"));
        let nested: String = (0..99).map(|i| format!("{}if X == 0:\n", "    ".repeat(i))).collect();
        let source = format!("X = 0\n{nested}{}Y = 1\ndef f():\n    return Y\n", "    ".repeat(99));
        assert_eq!(outcome_of(&source, "f"), "= 1");
    });
}

/// `str` methods and what CPython returns or raises for each call (the machine's
/// python3, 3.11, evaluated every expression).
const STR_CALLS: &[(&str, &str)] = &[
    (r#""  a b  ".strip()"#, r#"'a b'"#),
    (r#""  a b  ".lstrip()"#, r#"'a b  '"#),
    (r#""  a b  ".rstrip()"#, r#"'  a b'"#),
    (r#""xxaxbxx".strip("x")"#, r#"'axb'"#),
    (r#""xyaxbyx".strip("xy")"#, r#"'axb'"#),
    (r#""abc".strip("")"#, r#"'abc'"#),
    (r#""\t\n a \x0b\x0c\r\x1c\x1d\x1e\x1f\x85\xa0\u3000".strip()"#, r#"'a'"#),
    (r#""abc".strip(None)"#, r#"'abc'"#),
    (r#""abc".lstrip(None)"#, r#"'abc'"#),
    (r#""abcba".rstrip("ab")"#, r#"'abc'"#),
    (r#""abc".strip(1)"#, r#"TypeError('strip arg must be None or str')"#),
    (r#""abc".lstrip(1)"#, r#"TypeError('lstrip arg must be None or str')"#),
    (r#""abc".rstrip(1)"#, r#"TypeError('rstrip arg must be None or str')"#),
    (r#""abc".strip("a", "b")"#, r#"TypeError('strip expected at most 1 argument, got 2')"#),
    (r#""abc".strip(chars="a")"#, r#"TypeError('str.strip() takes no keyword arguments')"#),
    (r#""abc".startswith("a")"#, r#"True"#),
    (r#""abc".startswith(("x", "ab"))"#, r#"True"#),
    (r#""abc".startswith(())"#, r#"False"#),
    (r#""abc".startswith("b", 1)"#, r#"True"#),
    (r#""abc".startswith("b", 1, 1)"#, r#"False"#),
    (r#""abc".startswith("b", 1, 2)"#, r#"True"#),
    (r#""abc".startswith("", 3)"#, r#"True"#),
    (r#""abc".startswith("", 4)"#, r#"False"#),
    (r#""abc".startswith("c", -1)"#, r#"True"#),
    (r#""abc".startswith("a", -10)"#, r#"True"#),
    (r#""abc".startswith("a", None, None)"#, r#"True"#),
    (r#""abc".startswith("ab", 0, -1)"#, r#"True"#),
    (
        r#""abc".startswith(1)"#,
        r#"TypeError('startswith first arg must be str or a tuple of str, not int')"#,
    ),
    (r#""abc".startswith(("a", 1))"#, r#"True"#),
    (
        r#""abc".startswith("a", "1")"#,
        r#"TypeError('slice indices must be integers or None or have an __index__ method')"#,
    ),
    (
        r#""abc".startswith("a", 0, 1, 2)"#,
        r#"TypeError('startswith() takes at most 3 arguments (4 given)')"#,
    ),
    (
        r#""abc".startswith(prefix="a")"#,
        r#"TypeError('str.startswith() takes no keyword arguments')"#,
    ),
    (r#""abc".endswith("c")"#, r#"True"#),
    (r#""abc".endswith(("x", "bc"))"#, r#"True"#),
    (r#""abc".endswith("b", 0, 2)"#, r#"True"#),
    (r#""abc".endswith("b", 0, -1)"#, r#"True"#),
    (r#""abc".endswith("", 3)"#, r#"True"#),
    (r#""abc".endswith("", 4)"#, r#"False"#),
    (r#""abc".endswith("abc", 1)"#, r#"False"#),
    (r#""abc".endswith("c", 5)"#, r#"False"#),
    (
        r#""abc".endswith(1)"#,
        r#"TypeError('endswith first arg must be str or a tuple of str, not int')"#,
    ),
    (r#""abc".endswith(("c", None))"#, r#"True"#),
    (r#""héllo".startswith("é", 1)"#, r#"True"#),
    (r#""héllo".endswith("é", 0, 2)"#, r#"True"#),
    (r#""a,b,,c".split(",")"#, r#"['a', 'b', '', 'c']"#),
    (r#""a,b,,c".split(",", 1)"#, r#"['a', 'b,,c']"#),
    (r#""a,b,,c".split(",", 0)"#, r#"['a,b,,c']"#),
    (r#""a,b,,c".split(",", -1)"#, r#"['a', 'b', '', 'c']"#),
    (r#""a,b,,c".split(",", maxsplit=2)"#, r#"['a', 'b', ',c']"#),
    (r#""a,b,,c".split(sep=",")"#, r#"['a', 'b', '', 'c']"#),
    (r#""  a  b c ".split()"#, r#"['a', 'b', 'c']"#),
    (r#""  a  b c ".split(None, 1)"#, r#"['a', 'b c ']"#),
    (r#""  a  b c ".split(maxsplit=1)"#, r#"['a', 'b c ']"#),
    (r#""  a  b c ".split(None, 0)"#, r#"['a  b c ']"#),
    (r#""".split()"#, r#"[]"#),
    (r#""".split(",")"#, r#"['']"#),
    (r#""   ".split()"#, r#"[]"#),
    (r#""   ".split(None, 0)"#, r#"[]"#),
    (r#""a--b--c".split("--")"#, r#"['a', 'b', 'c']"#),
    (r#""abc".split("")"#, r#"ValueError('empty separator')"#),
    (r#""abc".split(1)"#, r#"TypeError('must be str or None, not int')"#),
    (
        r#""abc".split(",", "1")"#,
        r#"TypeError("'str' object cannot be interpreted as an integer")"#,
    ),
    (r#""abc".split(",", 1, 2)"#, r#"TypeError('split() takes at most 2 arguments (3 given)')"#),
    (r#""abc".split(x=1)"#, r#"TypeError("'x' is an invalid keyword argument for split()")"#),
    (r#""a\u3000b\x1cc".split()"#, r#"['a', 'b', 'c']"#),
    (r#""a,b,,c".rsplit(",")"#, r#"['a', 'b', '', 'c']"#),
    (r#""a,b,,c".rsplit(",", 1)"#, r#"['a,b,', 'c']"#),
    (r#""a,b,,c".rsplit(",", 0)"#, r#"['a,b,,c']"#),
    (r#""  a  b c ".rsplit()"#, r#"['a', 'b', 'c']"#),
    (r#""  a  b c ".rsplit(None, 1)"#, r#"['  a  b', 'c']"#),
    (r#""  a  b c ".rsplit(maxsplit=1)"#, r#"['  a  b', 'c']"#),
    (r#""  a  b c ".rsplit(None, 0)"#, r#"['  a  b c']"#),
    (r#""a--b--c".rsplit("--", 1)"#, r#"['a--b', 'c']"#),
    (r#""abc".rsplit("")"#, r#"ValueError('empty separator')"#),
    (r#""ABC Straße İx".lower()"#, r#"'abc straße i̇x'"#),
    (r#""abc straße ﬁ".upper()"#, r#"'ABC STRASSE FI'"#),
    (r#""abc".lower(1)"#, r#"TypeError('str.lower() takes no arguments (1 given)')"#),
    (r#""abc".upper(x=1)"#, r#"TypeError('str.upper() takes no keyword arguments')"#),
    (r#"",".join(["a", "b"])"#, r#"'a,b'"#),
    (r#"",".join([])"#, r#"''"#),
    (r#"",".join("abc")"#, r#"'a,b,c'"#),
    (r#"",".join(("a",))"#, r#"'a'"#),
    (r#"",".join({"k": 1, "j": 2})"#, r#"'k,j'"#),
    (r#"",".join(["a", 1])"#, r#"TypeError('sequence item 1: expected str instance, int found')"#),
    (r#"",".join([1, "a"])"#, r#"TypeError('sequence item 0: expected str instance, int found')"#),
    (
        r#"",".join(["a", None])"#,
        r#"TypeError('sequence item 1: expected str instance, NoneType found')"#,
    ),
    (r#"",".join(5)"#, r#"TypeError('can only join an iterable')"#),
    (r#"",".join()"#, r#"TypeError('str.join() takes exactly one argument (0 given)')"#),
    (
        r#"",".join(["a"], ["b"])"#,
        r#"TypeError('str.join() takes exactly one argument (2 given)')"#,
    ),
    (r#"",".join(iterable=["a"])"#, r#"TypeError('str.join() takes no keyword arguments')"#),
    (r#""-".join(str(i) for i in range(3))"#, r#"'0-1-2'"#),
    (r#""aaa".replace("a", "b")"#, r#"'bbb'"#),
    (r#""aaa".replace("a", "b", 2)"#, r#"'bba'"#),
    (r#""aaa".replace("a", "b", 0)"#, r#"'aaa'"#),
    (r#""aaa".replace("a", "b", -1)"#, r#"'bbb'"#),
    (r#""abc".replace("", "-")"#, r#"'-a-b-c-'"#),
    (r#""abc".replace("", "-", 2)"#, r#"'-a-bc'"#),
    (r#""".replace("", "x")"#, r#"'x'"#),
    (r#""abc".replace("x", "y")"#, r#"'abc'"#),
    (r#""abc".replace(1, "y")"#, r#"TypeError('replace() argument 1 must be str, not int')"#),
    (r#""abc".replace("a", 1)"#, r#"TypeError('replace() argument 2 must be str, not int')"#),
    (r#""abc".replace("a")"#, r#"TypeError('replace expected at least 2 arguments, got 1')"#),
    (
        r#""abc".replace("a", "b", "c")"#,
        r#"TypeError("'str' object cannot be interpreted as an integer")"#,
    ),
    (
        r#""abc".replace(old="a", new="b")"#,
        r#"TypeError('str.replace() takes no keyword arguments')"#,
    ),
    (r#""a=b=c".partition("=")"#, r#"('a', '=', 'b=c')"#),
    (r#""abc".partition("=")"#, r#"('abc', '', '')"#),
    (r#""a=b=c".rpartition("=")"#, r#"('a=b', '=', 'c')"#),
    (r#""abc".rpartition("=")"#, r#"('', '', 'abc')"#),
    (r#""abc".partition("")"#, r#"ValueError('empty separator')"#),
    (r#""abc".partition(1)"#, r#"TypeError('must be str, not int')"#),
    (
        r#""abc".partition()"#,
        r#"TypeError('str.partition() takes exactly one argument (0 given)')"#,
    ),
    (r#""abc".partition(sep="=")"#, r#"TypeError('str.partition() takes no keyword arguments')"#),
    (
        r#""abc".startswith(("x", 1))"#,
        r#"TypeError('tuple for startswith must only contain str, not int')"#,
    ),
    (
        r#""abc".endswith(("x", None))"#,
        r#"TypeError('tuple for endswith must only contain str, not NoneType')"#,
    ),
    (r#""abc".startswith()"#, r#"TypeError('startswith() takes at least 1 argument (0 given)')"#),
    (
        r#""abc".replace("a","b","c","d")"#,
        r#"TypeError('replace expected at most 3 arguments, got 4')"#,
    ),
    (r#""abc".replace()"#, r#"TypeError('replace expected at least 2 arguments, got 0')"#),
    (
        r#""abc".rpartition()"#,
        r#"TypeError('str.rpartition() takes exactly one argument (0 given)')"#,
    ),
    (r#""abc".rpartition(1)"#, r#"TypeError('must be str, not int')"#),
    (r#""a".rsplit(1)"#, r#"TypeError('must be str or None, not int')"#),
    (r#""a".rsplit(x=1)"#, r#"TypeError("'x' is an invalid keyword argument for rsplit()")"#),
    (r#""a".lstrip("a","b")"#, r#"TypeError('lstrip expected at most 1 argument, got 2')"#),
    (r#""a".rstrip(chars="a")"#, r#"TypeError('str.rstrip() takes no keyword arguments')"#),
    (r#""a".endswith(suffix="a")"#, r#"TypeError('str.endswith() takes no keyword arguments')"#),
    (
        r#""a".startswith("a", 0, "x")"#,
        r#"TypeError('slice indices must be integers or None or have an __index__ method')"#,
    ),
    (
        r#""a".replace("a","b",1.5)"#,
        r#"TypeError("'float' object cannot be interpreted as an integer")"#,
    ),
    (
        r#""a".split(",", 1.5)"#,
        r#"TypeError("'float' object cannot be interpreted as an integer")"#,
    ),
    (
        r#""a".split(maxsplit=None)"#,
        r#"TypeError("'NoneType' object cannot be interpreted as an integer")"#,
    ),
    (
        r#""a".split(sep=None, maxsplit=1, x=2)"#,
        r#"TypeError('split() takes at most 2 keyword arguments (3 given)')"#,
    ),
    (
        r#""a".split(",", 1, sep=",")"#,
        r#"TypeError('split() takes at most 2 arguments (3 given)')"#,
    ),
    (
        r#""a".split(",", sep=",")"#,
        r#"TypeError("argument for split() given by name ('sep') and position (1)")"#,
    ),
];

#[test]
fn str_methods_answer_and_fail_as_cpython_does() {
    let cases: String =
        STR_CALLS.iter().map(|(call, _)| format!("        lambda: {call},\n")).collect();
    let source = format!(
        "def f():\n    out = []\n    for case in [\n{cases}    ]:\n        try:\n            out.append(repr(case()))\n        except Exception as e:\n            out.append(repr(e))\n    return out\n"
    );
    let program = clean("s.py", &source);
    let Outcome::Returned(PyValue::List(found)) =
        program.call("f", &[], false, &mut FakeCrm::default())
    else {
        panic!("no list")
    };
    let mut failures = Vec::new();
    for ((call, expected), found) in STR_CALLS.iter().zip(&found) {
        if *found != text(expected) {
            failures.push(format!("{call}\n  expected {expected}\n  found    {found:?}"));
        }
    }
    assert_eq!(found.len(), STR_CALLS.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // Hostile: many affixes against a long text that is not ASCII, within the budget.
    assert_eq!(
        run_body(
            "s = 'é' * 200000\nt = ('x',) * 200000\nreturn s.endswith(t), s.startswith(t, -1)"
        ),
        "= (False, False)"
    );
    assert!(
        run_body("s = 'é' * 900000\nt = (s,) * 900000\nreturn s.endswith(t)")
            .starts_with("? this call took more")
    );
}

/// Runs each expression of `calls` in a lambda of one function (after `header`) and
/// checks `repr()` of what it returns or raises against the expectation.
fn check_calls(header: &str, calls: &[(&str, &str)]) {
    let cases: String =
        calls.iter().map(|(call, _)| format!("        lambda: {call},\n")).collect();
    let source = format!(
        "{header}\ndef f():\n    out = []\n    for case in [\n{cases}    ]:\n        try:\n            out.append(repr(case()))\n        except Exception as e:\n            out.append(repr(e))\n    return out\n"
    );
    let program = clean("c.py", &source);
    let Outcome::Returned(PyValue::List(found)) =
        program.call("f", &[], false, &mut FakeCrm::default())
    else {
        panic!("no list")
    };
    assert_eq!(found.len(), calls.len());
    let failures: Vec<String> = calls
        .iter()
        .zip(&found)
        .filter(|((_, expected), found)| **found != text(expected))
        .map(|((call, expected), found)| {
            format!("{call}\n  expected {expected}\n  found    {found:?}")
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Bytes literals, `str.encode`, `bytes.decode` and `bytes()`, and what CPython returns
/// or raises for each (the machine's python3, 3.11, evaluated every expression).
const BYTES_CALLS: &[(&str, &str)] = &[
    (r#"b"abc""#, r#"b'abc'"#),
    (r#"b'it\'s'"#, r#"b"it's""#),
    (r#"b"\x00\x7f\x80\xff\n\t\r\\""#, r#"b'\x00\x7f\x80\xff\n\t\r\\'"#),
    (r#"b"a\u00e9""#, r#"b'a\\u00e9'"#),
    (r#"rb"\x41""#, r#"b'\\x41'"#),
    (r#"b"\101\7""#, r#"b'A\x07'"#),
    (r#"b"\777""#, r#"b'\xff'"#),
    (r#"b"a" b"b""#, r#"b'ab'"#),
    (r#"repr(b"'")"#, r#"'b"\'"'"#),
    (r#"repr(b"'\"")"#, r#"'b\'\\\'"\''"#),
    (r#"str(b"x")"#, r#""b'x'""#),
    (r#"len(b"abc")"#, r#"3"#),
    (r#"b"a" == "a""#, r#"False"#),
    (r#"b"a" == b"a""#, r#"True"#),
    (r#"b"a" != b"b""#, r#"True"#),
    (r#"b"ab" + b"c""#, r#"b'abc'"#),
    (r#"b"ab" * 2"#, r#"b'abab'"#),
    (r#"3 * b"ab""#, r#"b'ababab'"#),
    (r#"b"b" in b"abc""#, r#"True"#),
    (r#"b"" in b"abc""#, r#"True"#),
    (r#"98 in b"abc""#, r#"True"#),
    (r#"b"abc"[1]"#, r#"98"#),
    (r#"b"abc"[-1]"#, r#"99"#),
    (r#"b"abc"[1:]"#, r#"b'bc'"#),
    (r#"b"abcd"[::2]"#, r#"b'ac'"#),
    (r#"list(b"ab")"#, r#"[97, 98]"#),
    (r#"b"a" < b"b""#, r#"True"#),
    (r#"sorted([b"b", b"a"])"#, r#"[b'a', b'b']"#),
    (r#"bool(b"")"#, r#"False"#),
    (r#"bool(b"x")"#, r#"True"#),
    (r#"isinstance(b"", bytes)"#, r#"True"#),
    (r#"isinstance("", bytes)"#, r#"False"#),
    (r#"bytes()"#, r#"b''"#),
    (r#"bytes([65, 66])"#, r#"b'AB'"#),
    (r#"bytes("é", "utf-8")"#, r#"b'\xc3\xa9'"#),
    (r#"bytes(2)"#, r#"b'\x00\x00'"#),
    (r#"bytes(b"xy")"#, r#"b'xy'"#),
    (r#"bytes("x")"#, r#"TypeError('string argument without an encoding')"#),
    (r#"bytes([256])"#, r#"ValueError('bytes must be in range(0, 256)')"#),
    (r#"bytes(-1)"#, r#"ValueError('negative count')"#),
    (r#"bytes(1.5)"#, r#"TypeError("cannot convert 'float' object to bytes")"#),
    (r#"f"{b'x'}""#, r#""b'x'""#),
    (r#"{b"k": 1}[b"k"]"#, r#"1"#),
    (r#""é".encode()"#, r#"b'\xc3\xa9'"#),
    (r#""é".encode("utf-8")"#, r#"b'\xc3\xa9'"#),
    (
        r#""é".encode("ascii")"#,
        r#"UnicodeEncodeError('ascii', 'é', 0, 1, 'ordinal not in range(128)')"#,
    ),
    (
        r#""aéé".encode("ascii")"#,
        r#"UnicodeEncodeError('ascii', 'aéé', 1, 3, 'ordinal not in range(128)')"#,
    ),
    (r#""é".encode("ascii", "ignore")"#, r#"b''"#),
    (r#""aéb€".encode("ascii", "replace")"#, r#"b'a?b?'"#),
    (r#""é".encode("latin-1")"#, r#"b'\xe9'"#),
    (
        r#""€".encode("latin-1")"#,
        r#"UnicodeEncodeError('latin-1', '€', 0, 1, 'ordinal not in range(256)')"#,
    ),
    (
        r#""a😀".encode("latin-1")"#,
        r#"UnicodeEncodeError('latin-1', 'a😀', 1, 2, 'ordinal not in range(256)')"#,
    ),
    (r#""é".encode("nope")"#, r#"LookupError('unknown encoding: nope')"#),
    (r#""a".encode(encoding="UTF8")"#, r#"b'a'"#),
    (r#""a".encode(1)"#, r#"TypeError("encode() argument 'encoding' must be str, not int")"#),
    (r#""x".encode("utf-8", errors="ignore")"#, r#"b'x'"#),
    (r#""x".encode(errors="ignore")"#, r#"b'x'"#),
    (
        r#""x".encode("utf-8", "strict", 1)"#,
        r#"TypeError('encode() takes at most 2 arguments (3 given)')"#,
    ),
    (r#""x".encode(x=1)"#, r#"TypeError("'x' is an invalid keyword argument for encode()")"#),
    (r#""x".encode("utf-8-sig")"#, r#"b'\xef\xbb\xbfx'"#),
    (r#""é".encode("ascii", "bogus")"#, r#"LookupError("unknown error handler name 'bogus'")"#),
    (r#""é".encode("utf-8", "bogus")"#, r#"b'\xc3\xa9'"#),
    (r#"b"\xc3\xa9".decode()"#, r#"'é'"#),
    (r#"b"\xff".decode()"#, r#"UnicodeDecodeError('utf-8', b'\xff', 0, 1, 'invalid start byte')"#),
    (
        r#"b"a\xc3".decode()"#,
        r#"UnicodeDecodeError('utf-8', b'a\xc3', 1, 2, 'unexpected end of data')"#,
    ),
    (
        r#"b"a\xc3(".decode()"#,
        r#"UnicodeDecodeError('utf-8', b'a\xc3(', 1, 2, 'invalid continuation byte')"#,
    ),
    (
        r#"b"\xe2\x82".decode()"#,
        r#"UnicodeDecodeError('utf-8', b'\xe2\x82', 0, 2, 'unexpected end of data')"#,
    ),
    (
        r#"b"\xe2\x82x".decode()"#,
        r#"UnicodeDecodeError('utf-8', b'\xe2\x82x', 0, 2, 'invalid continuation byte')"#,
    ),
    (
        r#"b"\xed\xa0\x80".decode()"#,
        r#"UnicodeDecodeError('utf-8', b'\xed\xa0\x80', 0, 1, 'invalid continuation byte')"#,
    ),
    (
        r#"b"\xf0\x90\x80".decode()"#,
        r#"UnicodeDecodeError('utf-8', b'\xf0\x90\x80', 0, 3, 'unexpected end of data')"#,
    ),
    (r#"b"\xf5".decode()"#, r#"UnicodeDecodeError('utf-8', b'\xf5', 0, 1, 'invalid start byte')"#),
    (
        r#"b"\xc0\x80".decode()"#,
        r#"UnicodeDecodeError('utf-8', b'\xc0\x80', 0, 1, 'invalid start byte')"#,
    ),
    (r#"b"\xff\xfe".decode("utf-8", "replace")"#, r#"'��'"#),
    (r#"b"a\xe2\x82x".decode("utf-8", "replace")"#, r#"'a�x'"#),
    (r#"b"\xff".decode("utf-8", "ignore")"#, r#"''"#),
    (r#"b"\xe9".decode("latin-1")"#, r#"'é'"#),
    (
        r#"b"\xe9".decode("ascii")"#,
        r#"UnicodeDecodeError('ascii', b'\xe9', 0, 1, 'ordinal not in range(128)')"#,
    ),
    (r#"b"\xe9\xe9".decode("ascii", "replace")"#, r#"'��'"#),
    (r#"b"x".decode("bogus")"#, r#"LookupError('unknown encoding: bogus')"#),
    (r#"b"ab".decode(1)"#, r#"TypeError("decode() argument 'encoding' must be str, not int")"#),
    (
        r#"b"ab".decode("utf-8", 1)"#,
        r#"TypeError("decode() argument 'errors' must be str, not int")"#,
    ),
    (r#"b"ab".decode(encoding="ascii", errors="strict")"#, r#"'ab'"#),
    (r#"b"ab".decode("utf-8", "bogus")"#, r#"'ab'"#),
    (r#"b"\xff".decode("utf-8", "bogus")"#, r#"LookupError("unknown error handler name 'bogus'")"#),
    (r#"b"x".decode("UTF-8")"#, r#"'x'"#),
    (r#"b"x".decode("latin1")"#, r#"'x'"#),
    (r#"b"x".decode("iso-8859-1")"#, r#"'x'"#),
    (r#"b"x".decode("U8")"#, r#"'x'"#),
    (r#"b"\xef\xbb\xbfx".decode("utf-8-sig")"#, r#"'x'"#),
    (r#"b"\xef\xbb\xbfx".decode()"#, r#"'\ufeffx'"#),
    (
        r#"b"x".decode("utf-8", "strict", 1)"#,
        r#"TypeError('decode() takes at most 2 arguments (3 given)')"#,
    ),
    (r#"str(b"x", "utf-8")"#, r#"'x'"#),
    (r#"str("x", "utf-8")"#, r#"TypeError('decoding str is not supported')"#),
    (r#""a" in b"abc""#, r#"TypeError("a bytes-like object is required, not 'str'")"#),
    (r#"b"abc"[5]"#, r#"IndexError('index out of range')"#),
    (r#"b"a" + "b""#, r#"TypeError("can't concat str to bytes")"#),
    (r#""b" + b"a""#, r#"TypeError('can only concatenate str (not "bytes") to str')"#),
    (r#"b"a" * 1.5"#, r#"TypeError("can't multiply sequence by non-int of type 'float'")"#),
    (r#"b"ab".foo"#, r#"AttributeError("'bytes' object has no attribute 'foo'")"#),
    (r#"b"a" < "b""#, r#"TypeError("'<' not supported between instances of 'bytes' and 'str'")"#),
    (r#"-1 in b"a""#, r#"ValueError('byte must be in range(0, 256)')"#),
    (r#""é".encode() + b"!" == "é!".encode()"#, r#"True"#),
];

#[test]
fn bytes_encode_and_decode_as_cpython_does() {
    check_calls("", BYTES_CALLS);
    for (literal, message) in [
        ("b'é'", "bytes can only contain ASCII literal characters"),
        ("b'a' 'b'", "cannot mix bytes and nonbytes literals"),
        ("'a' b'b'", "cannot mix bytes and nonbytes literals"),
        ("f'a' b'b'", "cannot mix bytes and nonbytes literals"),
        ("b'ab\\xzz'", "(value error) invalid \\x escape at position 2"),
    ] {
        assert_eq!(
            compile_error(&format!("return {literal}")),
            format!("swaplab.python.syntax {message}")
        );
    }
    // Hostile: a large payload encoded and decoded within the budget, a larger one not.
    assert_eq!(
        run_body("s = 'é' * 300000\nreturn len(s.encode()), s.encode().decode() == s"),
        "= (600000, True)"
    );
    assert!(
        run_body("s = 'é' * 900000\nfor i in range(5):\n    s.encode().decode()")
            .starts_with("? this call took more")
    );
    assert!(run_body("return b'x' * 2000000").starts_with("! MemoryError"));
}

/// `json.dumps` and `json.loads`: CPython's output and messages (the machine's python3,
/// 3.11, evaluated every expression).
const JSON_CALLS: &[(&str, &str)] = &[
    (
        r#"json.dumps({"a": [1, 2.5, None, True, "é\n"], "b": {}})"#,
        r#"'{"a": [1, 2.5, null, true, "\\u00e9\\n"], "b": {}}'"#,
    ),
    (
        r#"json.dumps({"a": [1, {}], "b": [], "c": {"d": 1}}, indent=2)"#,
        r#"'{\n  "a": [\n    1,\n    {}\n  ],\n  "b": [],\n  "c": {\n    "d": 1\n  }\n}'"#,
    ),
    (r#"json.dumps([1, [2]], indent=0)"#, r#"'[\n1,\n[\n2\n]\n]'"#),
    (r#"json.dumps([1, [2]], indent="\t")"#, r#"'[\n\t1,\n\t[\n\t\t2\n\t]\n]'"#),
    (r#"json.dumps({"b": 1, "a": 2}, sort_keys=True)"#, r#"'{"a": 2, "b": 1}'"#),
    (
        r#"json.dumps({"b": 1, 2: 2}, sort_keys=True)"#,
        r#"TypeError("'<' not supported between instances of 'int' and 'str'")"#,
    ),
    (r#"json.dumps("é€😀\u0001\x7f", ensure_ascii=False)"#, r#"'"é€😀\\u0001\x7f"'"#),
    (
        r#"json.dumps("é€😀\u0001\x7f\b\f")"#,
        r#"'"\\u00e9\\u20ac\\ud83d\\ude00\\u0001\\u007f\\b\\f"'"#,
    ),
    (r#"json.dumps({"a": 1}, separators=(",", ":"))"#, r#"'{"a":1}'"#),
    (r#"json.dumps([1, 2], separators=(",", ":"), indent=1)"#, r#"'[\n 1,\n 2\n]'"#),
    (
        r#"json.dumps({1: 1, 2.5: 2, True: 3, None: 4, False: 5})"#,
        r#"'{"1": 3, "2.5": 2, "null": 4, "false": 5}'"#,
    ),
    (
        r#"json.dumps({(1,): 1})"#,
        r#"TypeError('keys must be str, int, float, bool or None, not tuple')"#,
    ),
    (r#"json.dumps({(1,): 1, "a": 2}, skipkeys=True)"#, r#"'{"a": 2}'"#),
    (r#"json.dumps(b"x")"#, r#"TypeError('Object of type bytes is not JSON serializable')"#),
    (r#"json.dumps(float("nan"))"#, r#"'NaN'"#),
    (r#"json.dumps([float("inf"), -float("inf")])"#, r#"'[Infinity, -Infinity]'"#),
    (
        r#"json.dumps(float("nan"), allow_nan=False)"#,
        r#"ValueError('Out of range float values are not JSON compliant')"#,
    ),
    (r#"json.dumps({float("inf"): 1})"#, r#"'{"Infinity": 1}'"#),
    (r#"json.dumps((1, 2))"#, r#"'[1, 2]'"#),
    (r#"json.dumps(1e16)"#, r#"'1e+16'"#),
    (r#"json.dumps(-0.0)"#, r#"'-0.0'"#),
    (r#"json.dumps(0.1 + 0.2)"#, r#"'0.30000000000000004'"#),
    (r#"json.dumps(10**3)"#, r#"'1000'"#),
    (r#"json.dumps("a\"b\\c/")"#, r#"'"a\\"b\\\\c/"'"#),
    (
        r#"json.dumps(1, foo=2)"#,
        r#"TypeError("JSONEncoder.__init__() got an unexpected keyword argument 'foo'")"#,
    ),
    (r#"json.dumps()"#, r#"TypeError("dumps() missing 1 required positional argument: 'obj'")"#),
    (r#"json.dumps(1, 2)"#, r#"TypeError('dumps() takes 1 positional argument but 2 were given')"#),
    (r#"json.dumps(obj=[1])"#, r#"'[1]'"#),
    (
        r#"json.dumps({"a": ValueError("x")})"#,
        r#"TypeError('Object of type ValueError is not JSON serializable')"#,
    ),
    (r#"json.dumps([], indent=-1)"#, r#"'[]'"#),
    (r#"json.dumps([1], indent=-1)"#, r#"'[\n1\n]'"#),
    (r#"json.dumps([1], indent=None)"#, r#"'[1]'"#),
    (r#"json.dumps({"a": 1}, indent=2, separators=(",", ": "))"#, r#"'{\n  "a": 1\n}'"#),
    (
        r#"json.dumps({"a": [1, 2]}, indent=2, separators=(", ", ": "))"#,
        r#"'{\n  "a": [\n    1, \n    2\n  ]\n}'"#,
    ),
    (r#"json.dumps(range(3))"#, r#"TypeError('Object of type range is not JSON serializable')"#),
    (r#"json.dumps(1, default=str)"#, r#"'1'"#),
    (r#"json.dumps([b"x"], default=str)"#, r#"'["b\'x\'"]'"#),
    (r#"json.dumps([b"x"], default=lambda o: [o.decode()])"#, r#"'[["x"]]'"#),
    (r#"json.dumps({"a": 1}, sort_keys=True, indent=1)"#, r#"'{\n "a": 1\n}'"#),
    (r#"json.dumps(True)"#, r#"'true'"#),
    (r#"json.dumps(None)"#, r#"'null'"#),
    (r#"json.dumps("")"#, r#"'""'"#),
    (r#"json.dumps({"k": {"j": []}}, indent=3)"#, r#"'{\n   "k": {\n      "j": []\n   }\n}'"#),
    (
        r#"json.dumps([1], separators=(",",))"#,
        r#"ValueError('not enough values to unpack (expected 2, got 1)')"#,
    ),
    (
        r#"json.dumps([1], indent=1.5)"#,
        r#"TypeError("can't multiply sequence by non-int of type 'float'")"#,
    ),
    (r#"json.dumps([1], ensure_ascii=0)"#, r#"'[1]'"#),
    (
        r#"json.dumps({"z": 1, "a": {"y": 2, "b": 3}}, sort_keys=True)"#,
        r#"'{"a": {"b": 3, "y": 2}, "z": 1}'"#,
    ),
    (r#"json.dumps([[[]]], indent=1)"#, r#"'[\n [\n  []\n ]\n]'"#),
    (
        r#"json.dumps({"a": (1, [2, {"b": None}])}, indent=2, sort_keys=True)"#,
        r#"'{\n  "a": [\n    1,\n    [\n      2,\n      {\n        "b": null\n      }\n    ]\n  ]\n}'"#,
    ),
    (r#"json.loads('')"#, r#"JSONDecodeError('Expecting value: line 1 column 1 (char 0)')"#),
    (r#"json.loads(' ')"#, r#"JSONDecodeError('Expecting value: line 1 column 2 (char 1)')"#),
    (r#"json.loads('x')"#, r#"JSONDecodeError('Expecting value: line 1 column 1 (char 0)')"#),
    (
        r#"json.loads('{"a": 1')"#,
        r#"JSONDecodeError("Expecting ',' delimiter: line 1 column 8 (char 7)")"#,
    ),
    (
        r#"json.loads('{"a" 1}')"#,
        r#"JSONDecodeError("Expecting ':' delimiter: line 1 column 6 (char 5)")"#,
    ),
    (
        r#"json.loads('{"a": 1,}')"#,
        r#"JSONDecodeError('Expecting property name enclosed in double quotes: line 1 column 9 (char 8)')"#,
    ),
    (r#"json.loads('[1,]')"#, r#"JSONDecodeError('Expecting value: line 1 column 4 (char 3)')"#),
    (
        r#"json.loads('[1 2]')"#,
        r#"JSONDecodeError("Expecting ',' delimiter: line 1 column 4 (char 3)")"#,
    ),
    (
        r#"json.loads('{a: 1}')"#,
        r#"JSONDecodeError('Expecting property name enclosed in double quotes: line 1 column 2 (char 1)')"#,
    ),
    (r#"json.loads('{"a": 1} x')"#, r#"JSONDecodeError('Extra data: line 1 column 10 (char 9)')"#),
    (r#"json.loads('1 2')"#, r#"JSONDecodeError('Extra data: line 1 column 3 (char 2)')"#),
    (
        r#"json.loads('"abc')"#,
        r#"JSONDecodeError('Unterminated string starting at: line 1 column 1 (char 0)')"#,
    ),
    (
        r#"json.loads('"a\\qb"')"#,
        r#"JSONDecodeError('Invalid \\escape: line 1 column 3 (char 2)')"#,
    ),
    (
        r#"json.loads('"a\\u12"')"#,
        r#"JSONDecodeError('Invalid \\uXXXX escape: line 1 column 4 (char 3)')"#,
    ),
    (
        r#"json.loads('"a\\u12zz"')"#,
        r#"JSONDecodeError('Invalid \\uXXXX escape: line 1 column 4 (char 3)')"#,
    ),
    (
        r#"json.loads('"a\nb"')"#,
        r#"JSONDecodeError('Invalid control character at: line 1 column 3 (char 2)')"#,
    ),
    (
        r#"json.loads('"a\tb"')"#,
        r#"JSONDecodeError('Invalid control character at: line 1 column 3 (char 2)')"#,
    ),
    (r#"json.loads('[')"#, r#"JSONDecodeError('Expecting value: line 1 column 2 (char 1)')"#),
    (r#"json.loads(']')"#, r#"JSONDecodeError('Expecting value: line 1 column 1 (char 0)')"#),
    (
        r#"json.loads('{')"#,
        r#"JSONDecodeError('Expecting property name enclosed in double quotes: line 1 column 2 (char 1)')"#,
    ),
    (r#"json.loads('-')"#, r#"JSONDecodeError('Expecting value: line 1 column 1 (char 0)')"#),
    (r#"json.loads('01')"#, r#"JSONDecodeError('Extra data: line 1 column 2 (char 1)')"#),
    (r#"json.loads('1.')"#, r#"JSONDecodeError('Extra data: line 1 column 2 (char 1)')"#),
    (r#"json.loads('1.5e')"#, r#"JSONDecodeError('Extra data: line 1 column 4 (char 3)')"#),
    (r#"json.loads('-0')"#, r#"0"#),
    (r#"json.loads('1e400')"#, r#"inf"#),
    (r#"json.loads('NaN')"#, r#"nan"#),
    (r#"json.loads('-Infinity')"#, r#"-inf"#),
    (r#"json.loads('Infinity')"#, r#"inf"#),
    (r#"json.loads('nul')"#, r#"JSONDecodeError('Expecting value: line 1 column 1 (char 0)')"#),
    (r#"json.loads('true ')"#, r#"True"#),
    (
        r#"json.loads(' \n [1, \n x]')"#,
        r#"JSONDecodeError('Expecting value: line 3 column 2 (char 9)')"#,
    ),
    (r#"json.loads('{"a": {"b": [1, 2, {"c": null}]}}')"#, r#"{'a': {'b': [1, 2, {'c': None}]}}"#),
    (r#"json.loads('"\\ud83d\\ude00"')"#, r#"'😀'"#),
    (r#"json.loads('"é\\u00e9"')"#, r#"'éé'"#),
    (r#"json.loads('{"a":1,"b":2,"a":3}')"#, r#"{'a': 3, 'b': 2}"#),
    (
        r#"json.loads('[1, 2.5, -3e2, 1E2, true, false, null, "s"]')"#,
        r#"[1, 2.5, -300.0, 100.0, True, False, None, 's']"#,
    ),
    (
        r#"json.loads('\ufeff[1]')"#,
        r#"JSONDecodeError('Unexpected UTF-8 BOM (decode using utf-8-sig): line 1 column 1 (char 0)')"#,
    ),
    (r#"json.loads('"\\/"')"#, r#"'/'"#),
    (r#"json.loads('{"": 0}')"#, r#"{'': 0}"#),
    (r#"json.loads('[-]')"#, r#"JSONDecodeError('Expecting value: line 1 column 2 (char 1)')"#),
    (
        r#"json.loads('[1.]')"#,
        r#"JSONDecodeError("Expecting ',' delimiter: line 1 column 3 (char 2)")"#,
    ),
    (r#"json.loads('   [   ]  ')"#, r#"[]"#),
    (r#"json.loads('{"a":}')"#, r#"JSONDecodeError('Expecting value: line 1 column 6 (char 5)')"#),
    (
        r#"json.loads('{"a" : 1 , }')"#,
        r#"JSONDecodeError('Expecting property name enclosed in double quotes: line 1 column 12 (char 11)')"#,
    ),
    (
        r#"json.loads('{,}')"#,
        r#"JSONDecodeError('Expecting property name enclosed in double quotes: line 1 column 2 (char 1)')"#,
    ),
    (r#"json.loads('[,1]')"#, r#"JSONDecodeError('Expecting value: line 1 column 2 (char 1)')"#),
    (
        r#"json.loads('{"a":1 "b":2}')"#,
        r#"JSONDecodeError("Expecting ',' delimiter: line 1 column 8 (char 7)")"#,
    ),
    (
        r#"json.loads('"\\')"#,
        r#"JSONDecodeError('Unterminated string starting at: line 1 column 1 (char 0)')"#,
    ),
    (
        r#"json.loads('true\n\nfalse')"#,
        r#"JSONDecodeError('Extra data: line 3 column 1 (char 6)')"#,
    ),
    (
        r#"json.loads('"\x7f\x1f"')"#,
        r#"JSONDecodeError('Invalid control character at: line 1 column 3 (char 2)')"#,
    ),
    (r#"json.loads('"\\b\\f\\n\\r\\t\\"\\\\"')"#, r#"'\x08\x0c\n\r\t"\\'"#),
    (r#"json.loads('{"a": [1, {"b": "c"}]}\n')"#, r#"{'a': [1, {'b': 'c'}]}"#),
    (r#"json.loads(b'{"a": 1}')"#, r#"{'a': 1}"#),
    (
        r#"json.loads(b'\xff')"#,
        r#"UnicodeDecodeError('utf-8', b'\xff', 0, 1, 'invalid start byte')"#,
    ),
    (r#"json.loads(b'"\xc3\xa9"')"#, r#"'é'"#),
    (r#"json.loads(b'\xef\xbb\xbf[1]')"#, r#"[1]"#),
    (
        r#"json.loads(5)"#,
        r#"TypeError('the JSON object must be str, bytes or bytearray, not int')"#,
    ),
    (
        r#"json.loads(None)"#,
        r#"TypeError('the JSON object must be str, bytes or bytearray, not NoneType')"#,
    ),
    (r#"json.loads()"#, r#"TypeError("loads() missing 1 required positional argument: 's'")"#),
    (
        r#"json.loads("1", 2)"#,
        r#"TypeError('loads() takes 1 positional argument but 2 were given')"#,
    ),
    (
        r#"json.loads("1", foo=1)"#,
        r#"TypeError("JSONDecoder.__init__() got an unexpected keyword argument 'foo'")"#,
    ),
    (r#"json.loads(s="[2]")"#, r#"[2]"#),
    (r#"json.loads(json.dumps({"k": [1, "é", None]}))"#, r#"{'k': [1, 'é', None]}"#),
    (
        r#"json.loads('"\\u00"')"#,
        r#"JSONDecodeError('Invalid \\uXXXX escape: line 1 column 3 (char 2)')"#,
    ),
    (
        r#"json.loads('"\\u0041')"#,
        r#"JSONDecodeError('Invalid \\uXXXX escape: line 1 column 3 (char 2)')"#,
    ),
    (
        r#"json.loads('"\\ud83d\\u00zz"')"#,
        r#"JSONDecodeError('Invalid \\uXXXX escape: line 1 column 9 (char 8)')"#,
    ),
    (
        r#"json.loads('[1,\n  2,\n  x]')"#,
        r#"JSONDecodeError('Expecting value: line 3 column 3 (char 11)')"#,
    ),
];

/// The `json` module imported three ways, its errors caught as CPython's classes; run in
/// the machine's python3 (3.11).
const JSON_MODULE: &str = r#"import json
from json import JSONDecodeError, dumps as d, loads
import json.decoder
def parse(text):
    try:
        return json.loads(text)
    except json.decoder.JSONDecodeError as e:
        return "bad: " + str(e)
def f():
    out = [parse('{"a": 1}'), parse('{'), d({"x": 1}), loads(b'[1]')]
    try:
        json.loads("")
    except ValueError as e:
        out.append(repr(e))
    try:
        json.loads("[")
    except JSONDecodeError as e:
        out.append(str(e))
    a = []
    a.append(a)
    try:
        json.dumps(a)
    except ValueError as e:
        out.append(str(e))
    try:
        b"\xff".decode()
    except UnicodeDecodeError as e:
        out.append(str(e))
    try:
        "é".encode("ascii")
    except UnicodeError as e:
        out.append(str(e))
    payload = json.dumps({"note": "café", "ids": [1, 2]}).encode()
    out.append((payload, len(payload), json.loads(payload) == {"note": "café", "ids": [1, 2]}))
    return out
def uncaught():
    return json.loads("nope")
"#;

#[test]
fn json_dumps_and_loads_as_cpython_does() {
    check_calls("import json", JSON_CALLS);
    assert_eq!(
        outcome_of(JSON_MODULE, "f"),
        r#"= [{'a': 1}, 'bad: Expecting property name enclosed in double quotes: line 1 column 2 (char 1)', '{"x": 1}', [1], "JSONDecodeError('Expecting value: line 1 column 1 (char 0)')", 'Expecting value: line 1 column 2 (char 1)', 'Circular reference detected', "'utf-8' codec can't decode byte 0xff in position 0: invalid start byte", "'ascii' codec can't encode character '\\xe9' in position 0: ordinal not in range(128)", (b'{"note": "caf\\u00e9", "ids": [1, 2]}', 36, True)]"#
    );
    assert_eq!(
        outcome_of(JSON_MODULE, "uncaught"),
        "! JSONDecodeError: Expecting value: line 1 column 1 (char 0)"
    );
    // Outside the subset: a lone surrogate, hooks, other names of the module.
    for (body, what) in [
        ("return json.loads('\"\\\\ud83d\"')", "a lone surrogate"),
        ("return json.loads('1', object_hook=dict)", "`json.loads` with a hook or `cls`"),
        ("return json.dump", "`json.dump`"),
        ("return 'x'.encode('utf-16')", "the codec `utf-16`"),
    ] {
        let found = outcome_of(&format!("import json\ndef f():\n    {body}\n"), "f");
        assert!(
            found.starts_with(&format!("? swaplab.python.unsupported: {what}")),
            "{body}: {found}"
        );
    }
    assert_eq!(
        outcome_of("import json\ndef f():\n    return json.nothing\n", "f"),
        "! AttributeError: module 'json' has no attribute 'nothing'"
    );
    // Hostile: nesting past the limit raises RecursionError, both ways; big documents
    // stop at the step budget.
    let deep = format!("return json.loads('{}1{}')", "[".repeat(500), "]".repeat(500));
    assert_eq!(
        outcome_of(&format!("import json\ndef f():\n    {deep}\n"), "f"),
        "! RecursionError: maximum recursion depth exceeded while decoding a JSON array from a unicode string"
    );
    let nested = "x = []\nfor i in range(500):\n    x = [x]\nreturn json.dumps(x)";
    assert_eq!(
        outcome_of(
            &format!("import json\ndef f():\n    {}\n", nested.replace('\n', "\n    ")),
            "f"
        ),
        "! RecursionError: maximum recursion depth exceeded while encoding a JSON object"
    );
    let big = "s = json.dumps(list(range(100000)))\nwhile True:\n    json.loads(s)";
    assert!(
        outcome_of(&format!("import json\ndef f():\n    {}\n", big.replace('\n', "\n    ")), "f")
            .starts_with("? swaplab.python.limit")
    );
}

/// Generator expressions as arguments: `join`, `sum`, `min`… take every item; `any`,
/// `all` and `next` stop at the one that decides, as CPython's lazy generators do (the
/// machine's python3, 3.11, evaluated every expression).
const GENERATOR_CALLS: &[(&str, &str)] = &[
    (r#"",".join(str(x) for x in range(4))"#, r#"'0,1,2,3'"#),
    (r#""".join(c.upper() for c in "abc" if c != "b")"#, r#"'AC'"#),
    (r#"", ".join(f"{k}={v}" for k, v in {"a": 1, "b": 2}.items())"#, r#"'a=1, b=2'"#),
    (
        r#"",".join(x for x in [1, 2])"#,
        r#"TypeError('sequence item 0: expected str instance, int found')"#,
    ),
    (r#"any(x > 2 for x in [1, 2, 3])"#, r#"True"#),
    (r#"any(x > 5 for x in [1, 2, 3])"#, r#"False"#),
    (r#"any(x for x in [])"#, r#"False"#),
    (r#"all(x > 0 for x in [1, 2, 3])"#, r#"True"#),
    (r#"all(x > 1 for x in [1, 2, 3])"#, r#"False"#),
    (r#"all(x for x in [])"#, r#"True"#),
    (r#"any(1 / x > 0 for x in [1, 0])"#, r#"True"#),
    (r#"all(1 / x > 0 for x in [1, -1, 0])"#, r#"False"#),
    (r#"any(d["k"] for d in [{"k": 1}, {}])"#, r#"True"#),
    (r#"all(d["k"] for d in [{"k": 0}, {}])"#, r#"False"#),
    (r#"any(d["k"] for d in [{"k": 0}, {}])"#, r#"KeyError('k')"#),
    (r#"sum(x for x in range(5))"#, r#"10"#),
    (r#"sum((x for x in range(5)), 10)"#, r#"20"#),
    (r#"sum(x * 1.5 for x in [1, 2])"#, r#"4.5"#),
    (r#"sum(len(w) for w in "a bb ccc".split())"#, r#"6"#),
    (
        r#"sum(x for x in ["a"])"#,
        r#"TypeError("unsupported operand type(s) for +: 'int' and 'str'")"#,
    ),
    (r#"max(len(w) for w in ["a", "bbb", "cc"])"#, r#"3"#),
    (r#"min((x for x in []), default=0)"#, r#"0"#),
    (r#"sorted(x % 3 for x in range(6))"#, r#"[0, 0, 1, 1, 2, 2]"#),
    (r#"list(x * 2 for x in range(3))"#, r#"[0, 2, 4]"#),
    (r#"tuple(x for x in "ab")"#, r#"('a', 'b')"#),
    (r#"dict((k, len(k)) for k in ["a", "bb"])"#, r#"{'a': 1, 'bb': 2}"#),
    (r#"next(x for x in [3, 4] if x > 3)"#, r#"4"#),
    (r#"next((x for x in [1, 2] if x > 5), None)"#, r#"None"#),
    (r#"next(x for x in [])"#, r#"StopIteration()"#),
    (
        r#"next((c for c in [{"email": "a"}, {"email": "b"}] if c["email"] == "b"), {})["email"]"#,
        r#"'b'"#,
    ),
    (r#"next((1 / x for x in [1, 0]))"#, r#"1.0"#),
    (r#"any(x for x in range(10**6) if x > 3)"#, r#"True"#),
    (r#"all(y for x in [[1, 2], [0, 3]] for y in x)"#, r#"False"#),
    (r#"any((x, y) == (1, 2) for x in range(3) for y in range(3))"#, r#"True"#),
    (r#"next(x + y for x in [1, 2] for y in [10, 20] if x + y > 20)"#, r#"21"#),
];

#[test]
fn generator_expressions_feed_join_any_all_sum_and_next() {
    check_calls("", GENERATOR_CALLS);
    let mut crm = FakeCrm::default();
    let program = clean(
        "g.py",
        "from hubspot_client import crm\ndef f():\n    return any(crm.get_ticket(i)['stage'] == 'waiting_on_us' for i in ['9001', '9002'])\n",
    );
    assert_eq!(program.call("f", &[], false, &mut crm), Outcome::Returned(PyValue::Bool(true)));
    assert_eq!(crm.calls, ["get_ticket('9001')"], "the second ticket is never fetched");
    assert!(
        run_body("it = [1]\nreturn next(it)")
            .starts_with("? `next()` of anything but a generator expression")
    );
}

/// Plain classes: `__init__`, methods, class attributes, instance attributes, single
/// inheritance, `super()`, `__str__`/`__repr__`, and CPython's errors. The module was run
/// in the machine's python3 (3.11).
const CLASSES: &str = r#"class Base:
    KIND = "base"
    COUNT: int = 0
    def __init__(self, name, tags=None):
        self.name = name
        self.tags = tags or []
    def label(self):
        return f"{self.KIND}:{self.name}"
    def add(self, tag):
        self.tags.append(tag)
        return self
class Child(Base):
    KIND = "child"
    def __init__(self, name):
        super().__init__(name, ["c"])
        self.extra = 1
    def label(self):
        return "<" + super().label() + ">"
    def __str__(self):
        return f"Child({self.name})"
    def __repr__(self):
        return "Child!"
class Plain:
    pass
class Bad:
    def __init__(self):
        return 1
def t(fn):
    try:
        return fn()
    except Exception as e:
        return repr(e)
def f():
    b = Base("x")
    c = Child("y")
    out = [b.label(), c.label(), b.add("t").tags, c.tags, c.extra, str(c), repr(c), f"{c}", [c], isinstance(c, Base), isinstance(b, Child), Base.KIND, c.KIND, Base.COUNT]
    b.KIND = "mine"
    out.append((b.KIND, Base.KIND))
    Base.COUNT += 1
    out.append((Base.COUNT, c.COUNT))
    c.n = 5
    c.n += 1
    out.append(c.n)
    m = b.label
    out.append(m())
    out.append(Base.label(c))
    out.append(t(lambda: b.missing))
    out.append(t(lambda: Base.missing))
    out.append(t(lambda: Plain(1)))
    out.append(t(lambda: Bad()))
    out.append(t(lambda: b.add()))
    out.append(t(lambda: Base()))
    out.append(t(lambda: Base.label()))
    del c.n
    out.append(t(lambda: c.n))
    out.append(b == b)
    out.append(b == Base("x"))
    out.append(t(lambda: len(b)))
    out.append(bool(Plain()))
    return out
"#;

/// Classes outside the subset, and hostile instances.
const CLASSES_OUTSIDE: &str = r#"from dataclasses import dataclass
LIMIT = 3
class Config:
    """Settings."""
    NAME = "crm"
    RETRIES: int = LIMIT + 1
    URL = f"https://{NAME}.example.com"
    PAIR = A, B = 1, 2
    lookup = lambda self, k: k * 2
    def describe(self):
        return f"{self.NAME} x{self.RETRIES} at {self.URL}"
@dataclass
class Point:
    x: int
class Eq:
    def __eq__(self, other):
        return True
class Multi(Config, Eq):
    pass
class Loop:
    for i in range(3):
        pass
class Deco:
    @abstractmethod
    def s():
        return 1
class MyError(Exception):
    def __init__(self, code):
        super().__init__(f"code {code}")
    def __eq__(self, other):
        return True
class Node:
    def __init__(self, value, child=None):
        self.value = value
        self.child = child
    def __repr__(self):
        return f"Node({self.value!r}, {self.child!r})"
class Rec:
    def __repr__(self):
        return repr(self)
def t_config():
    c = Config()
    return c.describe(), Config.PAIR, Config.A, c.lookup(4), Config.__name__, isinstance(c, Config), str(Config)
def t_point():
    return Point(x=1)
def t_eq():
    return Eq()
def t_multi():
    return Multi()
def t_loop():
    return Loop()
def t_deco():
    return Deco()
def t_myerror():
    raise MyError(5)
def t_nodes():
    n = Node(1, Node(2))
    n.child.child = n
    return n.value, n.child.value, n.child.child is n
def t_returned():
    return Node("a")
def t_rec():
    return repr(Rec())
def t_chain():
    n = None
    for i in range(5000):
        n = Node(i, n)
    return n.value
def t_deep_repr():
    n = None
    for i in range(200):
        n = Node(i, n)
    return repr(n)
def t_super_outside():
    return super()
def t_attr_int():
    x = 1
    x.y = 2
def t_attr_model():
    f = t_config
    f.y = 2
"#;

#[test]
fn plain_classes_run_as_cpython_runs_them() {
    assert_eq!(
        outcome_of(CLASSES, "f"),
        r#"= ['base:x', '<child:y>', ['t'], ['c'], 1, 'Child(y)', 'Child!', 'Child(y)', [Child!], True, False, 'base', 'child', 0, ('mine', 'base'), (1, 1), 6, 'mine:x', 'child:y', 'AttributeError("\'Base\' object has no attribute \'missing\'")', 'AttributeError("type object \'Base\' has no attribute \'missing\'")', "TypeError('Plain() takes no arguments')", 'TypeError("__init__() should return None, not \'int\'")', 'TypeError("Base.add() missing 1 required positional argument: \'tag\'")', 'TypeError("Base.__init__() missing 1 required positional argument: \'name\'")', 'TypeError("Base.label() missing 1 required positional argument: \'self\'")', 'AttributeError("\'Child\' object has no attribute \'n\'")', True, False, 'TypeError("object of type \'Base\' has no len()")', True]"#
    );
    let run = |name: &str| {
        let program = compile_module("c.py", CLASSES_OUTSIDE);
        match program.call(name, &[], false, &mut FakeCrm::default()) {
            Outcome::Returned(value) => format!("= {}", value.repr()),
            Outcome::Raised { exc_type, message, .. } => format!("! {exc_type}: {message}"),
            Outcome::Unsupported(d) => {
                format!("? {}:{} {}", d.span.start.line, d.span.start.column, d.message)
            }
        }
    };
    // CPython writes the module name (`<class '__main__.Config'>`).
    assert_eq!(
        run("t_config"),
        "= ('crm x4 at https://crm.example.com', (1, 2), 1, 8, 'Config', True, \"<class 'Config'>\")"
    );
    let outside = "is outside the Python subset Swap Lab runs";
    for (name, expected) in [
        ("t_eq", format!("? 16:9 the special method `__eq__` {outside}")),
        ("t_multi", format!("? 49:12 calling the class `Multi` (multiple inheritance) {outside}")),
        ("t_loop", format!("? 21:5 a `for` statement in a class body {outside}")),
        ("t_deco", format!("? 24:5 the decorator `@abstractmethod` {outside}")),
        ("t_myerror", format!("? 30:9 the special method `__eq__` {outside}")),
        ("t_attr_model", format!("? 81:5 assigning to an attribute of a `function` {outside}")),
    ] {
        assert_eq!(run(name), expected, "{name}");
    }
    assert_eq!(run("t_point"), "= Point(x=1)");
    assert_eq!(run("t_nodes"), "= (1, 2, True)");
    assert_eq!(run("t_returned"), "= Node('a', None)");
    assert_eq!(run("t_super_outside"), "! RuntimeError: super(): no arguments");
    assert_eq!(run("t_attr_int"), "! AttributeError: 'int' object has no attribute 'y'");
    // Hostile: a `__repr__` that calls itself, a long chain of instances (freed without
    // recursion), and one printed past the call limit.
    on_small_stack(move || {
        assert!(run("t_rec").starts_with("? 40:16 more than 32 nested calls"));
        assert_eq!(run("t_chain"), "= 4999");
        assert!(run("t_deep_repr").starts_with("? 37:16 more than 32 nested calls"));
    });
}

/// `with` and `async with` through `__enter__`/`__exit__` (`__aenter__`/`__aexit__`):
/// the exception passed to `__exit__` and suppressed by a true result, several items,
/// `return`, `break` and `continue` through the block. The module was run in the
/// machine's python3 (3.11); `__exit__` gets `None` for the traceback where CPython
/// passes a traceback object.
const WITH: &str = r#"class CM:
    def __init__(self, log, suppress=False):
        self.log = log
        self.suppress = suppress
    def __enter__(self):
        self.log.append("enter")
        return self
    def __exit__(self, exc_type, exc, tb):
        self.log.append(("exit", exc_type.__name__ if exc_type else None, str(exc) if exc else None))
        return self.suppress
class ACM:
    def __init__(self, log):
        self.log = log
    async def __aenter__(self):
        self.log.append("aenter")
        return "value"
    async def __aexit__(self, exc_type, exc, tb):
        self.log.append("aexit")
class Failing:
    def __enter__(self):
        return self
    def __exit__(self, exc_type, exc, tb):
        raise RuntimeError("exit failed")
class Session:
    def __init__(self):
        self.open = False
    def __enter__(self):
        self.open = True
        return self
    def __exit__(self, exc_type, exc, tb):
        self.open = False
def g():
    log = []
    with CM(log) as cm:
        log.append(cm.suppress)
    with CM(log, True):
        raise ValueError("boom")
    try:
        with CM(log):
            raise KeyError("k")
    except KeyError as e:
        log.append("caught " + repr(e))
    with CM(log) as a, CM(log) as b:
        log.append(a is not b)
    with (CM(log) as c, CM(log, True)):
        log.append("both")
        {}["x"]
    for i in range(2):
        with CM(log):
            if i == 0:
                continue
            break
    try:
        with 1:
            pass
    except TypeError as e:
        log.append(str(e))
    try:
        with Failing():
            raise ValueError("inner")
    except RuntimeError as e:
        log.append((str(e), repr(e.__context__)))
    s = Session()
    with s as opened:
        log.append(opened.open)
    log.append(s.open)
    return log
def returns():
    log = []
    return leave(log), log
def leave(log):
    with CM(log):
        return "r"
async def h():
    log = []
    async with ACM(log) as v:
        log.append(v)
    try:
        async with CM(log):
            pass
    except TypeError as e:
        log.append(str(e))
    try:
        with ACM(log):
            pass
    except TypeError as e:
        log.append(str(e))
    return log
"#;

#[test]
fn with_statements_enter_and_exit_as_cpython_does() {
    assert_eq!(
        outcome_of(WITH, "g"),
        r#"= ['enter', False, ('exit', None, None), 'enter', ('exit', 'ValueError', 'boom'), 'enter', ('exit', 'KeyError', "'k'"), "caught KeyError('k')", 'enter', 'enter', True, ('exit', None, None), ('exit', None, None), 'enter', 'enter', 'both', ('exit', 'KeyError', "'x'"), ('exit', None, None), 'enter', ('exit', None, None), 'enter', ('exit', None, None), "'int' object does not support the context manager protocol", ('exit failed', "ValueError('inner')"), True, False]"#
    );
    assert_eq!(outcome_of(WITH, "returns"), r#"= ('r', ['enter', ('exit', None, None)])"#);
    assert_eq!(
        outcome_of(WITH, "h"),
        r#"= ['aenter', 'value', 'aexit', "'CM' object does not support the asynchronous context manager protocol", "'ACM' object does not support the context manager protocol"]"#
    );
    assert_eq!(
        outcome_of("def f():\n    with open('x') as fh:\n        return fh\n", "f"),
        "? swaplab.python.unsupported: calling the builtin `open` is outside the Python subset Swap Lab runs"
    );
    // Hostile: thousands of items nest past the limit instead of the native stack.
    on_small_stack(|| {
        let items = vec!["CM([])"; 5000].join(", ");
        let source = format!("{WITH}\ndef many():\n    with {items}:\n        return 1\n");
        assert!(outcome_of(&source, "many").starts_with("? swaplab.python.limit"));
    });
}

/// What `@dataclass` refuses when the class is created — CPython raises at import, the
/// interpreter where the class is first used — and the decorators and options outside
/// the subset, each refused with a diagnostic that names it. (The run's messages were
/// checked against CPython 3.11's.)
#[test]
fn dataclass_creation_errors_and_refused_decorators() {
    let source = r#"from dataclasses import dataclass, field
import functools
@dataclass
class Mutable:
    tags: list = []
@dataclass
class MutableDict:
    meta: dict = {}
@dataclass
class Order:
    x: int = 0
    y: int
@dataclass
class Open:
    x: int
@dataclass(frozen=True)
class Closed(Open):
    y: int = 0
@dataclass(frozen=True)
class Frozen:
    x: int
@dataclass
class Thawed(Frozen):
    y: int = 0
@dataclass
class Inner:
    v: int
@dataclass
class Holder:
    inner: Inner = Inner(1)
@dataclass(order=True)
class Ordered:
    x: int
@dataclass
class InitFalse:
    x: int = field(init=False)
class Cached:
    @functools.cache
    def total(self):
        return 1
@functools.total_ordering
class Total:
    pass
def t_mutable():
    return Mutable()
def t_mutable_dict():
    return MutableDict.meta
def t_order():
    return Order(1, 2)
def t_frozen_from_open():
    return Closed(1)
def t_open_from_frozen():
    return Thawed(1)
def t_holder():
    return Holder()
def t_ordered():
    return Ordered(1)
def t_init_false():
    return InitFalse()
def t_cached():
    return Cached().total()
def t_total():
    return Total()
"#;
    let program = compile_module("d.py", source);
    let refused: Vec<String> = program
        .diagnostics
        .iter()
        .map(|d| format!("{}:{} {}", d.span.start.line, d.span.start.column, d.message))
        .collect();
    let outside = "is outside the Python subset Swap Lab runs";
    assert_eq!(
        refused,
        [
            format!("31:12 the dataclass option `order=` {outside}"),
            format!("36:20 the `field()` option `init=` {outside}"),
            format!("38:5 the decorator `@functools.cache` {outside}"),
            format!("41:1 the class decorator `@functools.total_ordering` {outside}"),
        ]
    );
    let run = |name: &str| match program.call(name, &[], false, &mut FakeCrm::default()) {
        Outcome::Returned(value) => format!("= {}", value.repr()),
        Outcome::Raised { exc_type, message, .. } => format!("! {exc_type}: {message}"),
        Outcome::Unsupported(d) => format!("? {}", d.message),
    };
    let mutable = "is not allowed: use default_factory";
    assert_eq!(
        run("t_mutable"),
        format!("! ValueError: mutable default <class 'list'> for field tags {mutable}")
    );
    assert_eq!(
        run("t_mutable_dict"),
        format!("! ValueError: mutable default <class 'dict'> for field meta {mutable}")
    );
    assert_eq!(run("t_order"), "! TypeError: non-default argument 'y' follows default argument");
    assert_eq!(
        run("t_frozen_from_open"),
        "! TypeError: cannot inherit frozen dataclass from a non-frozen one"
    );
    assert_eq!(
        run("t_open_from_frozen"),
        "! TypeError: cannot inherit non-frozen dataclass from a frozen one"
    );
    // CPython writes the module (`<class 'd.Inner'>`): a class's repr has none here.
    assert_eq!(
        run("t_holder"),
        format!("! ValueError: mutable default <class 'Inner'> for field inner {mutable}")
    );
    assert_eq!(run("t_ordered"), format!("? the dataclass option `order=` {outside}"));
    assert_eq!(run("t_init_false"), format!("? the `field()` option `init=` {outside}"));
    assert_eq!(run("t_cached"), format!("? the decorator `@functools.cache` {outside}"));
    assert_eq!(
        run("t_total"),
        format!("? the class decorator `@functools.total_ordering` {outside}")
    );
}

/// A process keeps its classes as created: a dataclass's defaults and factories, and
/// class attributes a class method changes, from one call to the next; exceptions
/// holding themselves through their attributes are freed when it ends.
#[test]
fn classes_persist_in_a_process() {
    let source = r#"from dataclasses import dataclass, field
made = []
def fresh():
    made.append(1)
    return len(made)
@dataclass
class Row:
    n: int = field(default_factory=fresh)
    tag: str = "t"
class Registry:
    count = 0
    @classmethod
    def bump(cls):
        cls.count += 1
        return cls.count
class Loop(Exception):
    def __init__(self):
        super().__init__("loop")
        self.me = self
def f():
    e = Loop()
    return Row().n, Registry.bump(), str(e), e.me is e
"#;
    let program = std::sync::Arc::new(compile_module("p.py", source));
    assert_eq!(program.diagnostics, []);
    let mut process = swaplab_core::python::Process::new(program);
    let mut call = || match process.call("f", &[], false, &mut FakeCrm::default()) {
        Outcome::Returned(value) => value.repr(),
        other => format!("{other:?}"),
    };
    assert_eq!(call(), "(1, 1, 'loop', True)");
    assert_eq!(call(), "(2, 2, 'loop', True)");
}

/// Where and why a run of `f` in `source` stops: `line:column-line:column message`.
fn stop_of(source: &str) -> String {
    let program = compile_module("r.py", source);
    assert_eq!(program.diagnostics, [], "{source}");
    match program.call("f", &[], false, &mut FakeCrm::default()) {
        Outcome::Unsupported(d) => format!(
            "{}:{}-{}:{} {}",
            d.span.start.line, d.span.start.column, d.span.end.line, d.span.end.column, d.message
        ),
        other => panic!("{source}: not stopped: {other:?}"),
    }
}

#[test]
fn re_refuses_what_regex_lite_cannot_do_at_the_construct() {
    // In a raw literal, or a plain one without escapes, the diagnostic points at the
    // construct itself.
    assert_eq!(
        stop_of("import re\ndef f():\n    return re.match(r\"a(?=b)\", \"ab\")\n"),
        "3:24-3:27 a lookahead assertion (`(?=…)`, `(?!…)`) in a regular expression \
         (regex-lite has none) is outside the Python subset Swap Lab runs"
    );
    assert_eq!(
        stop_of(
            "import re\ndef f():\n    return re.sub(pattern='(x)\\\\1', repl='', string='xx')\n"
        ),
        "3:27-3:35 a backreference (`\\1`) in a regular expression (regex-lite has none) is \
         outside the Python subset Swap Lab runs"
    );
    // Otherwise (escapes, an expression) at the pattern argument.
    assert_eq!(
        stop_of("import re\nP = '(?<=a)'\ndef f():\n    return re.compile(P + 'b')\n"),
        "4:23-4:30 a lookbehind assertion (`(?<=…)`, `(?<!…)`) in a regular expression \
         (regex-lite has none) is outside the Python subset Swap Lab runs"
    );
    // A Unicode-aware class on a non-ASCII subject: at the class, or at the subject of a
    // compiled pattern's method.
    assert_eq!(
        stop_of("import re\ndef f():\n    return re.findall(r'\\w+', 'café')\n"),
        "3:25-3:27 `\\w` without re.ASCII on a str with non-ASCII characters (CPython's \
         `\\w` is Unicode-aware, regex-lite's ASCII-only) is outside the Python subset Swap \
         Lab runs"
    );
    assert_eq!(
        stop_of("import re\nW = re.compile(r'\\d')\ndef f():\n    return W.search('١')\n"),
        "4:21-4:24 `\\d` without re.ASCII on a str with non-ASCII characters (CPython's \
         `\\d` is Unicode-aware, regex-lite's ASCII-only) is outside the Python subset Swap \
         Lab runs"
    );
    // With re.ASCII both agree, so it runs.
    assert_eq!(
        outcome_of("import re\ndef f():\n    return re.findall(r'\\w+', 'café', re.A)\n", "f"),
        "= ['caf']"
    );
}

#[test]
fn re_work_is_charged_so_the_step_limit_holds() {
    let steps = "? this call took more than 100000 evaluation steps: a loop that does not end, or more work than a tool should do";
    let module = |body: &str| {
        let source = format!("import re\ndef f():\n{body}\n");
        let program = compile_module("r.py", &source);
        assert_eq!(program.diagnostics, [], "{source}");
        match program.call("f", &[], false, &mut FakeCrm::default()) {
            Outcome::Unsupported(d) => format!("? {}", d.message),
            other => format!("{other:?}"),
        }
    };
    // Many searches of a long subject.
    assert_eq!(
        module("    s = 'ab ' * 300000\n    for _ in range(100):\n        re.findall(r'\\w+', s)"),
        steps
    );
    // A pattern the engine reads past each match for: charged for all it may read.
    assert_eq!(module("    return re.findall(r'a.*c|a', 'a' * 50000)"), steps);
    // A large counted repeat costs in proportion to its size.
    assert_eq!(
        module("    for _ in range(1000):\n        re.search('a{1000}b', 'a' * 2000)"),
        steps
    );
}

#[test]
fn random_regular_expressions_never_panic() {
    const PIECES: [&str; 44] = [
        "a", "b", "é", "(", ")", "[", "]", "^", "-", "|", "*", "+", "?", "*?", "{", "}", "{2", ",",
        "3}", "\\", "\\d", "\\w", "\\B", "\\Z", "\\x4", "\\u00e9", "\\0", "\\1", "(?P<n>",
        "(?P=n)", "(?:", "(?i)", "(?-s:", "(?#", "(?=", "#", " ", "\n", ".", "$", "\\g<n>",
        "\\g<1>", "\\N{", "[^",
    ];
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    // Rust's debug quoting of these pieces is a Python literal too.
    let quote = |text: &str| format!("{text:?}");
    let mut outcomes = [0usize; 3];
    for round in 0..1500 {
        let count = 1 + next() % 12;
        let pattern: String =
            (0..count).map(|_| PIECES[(next() % PIECES.len() as u64) as usize]).collect();
        let flags = ["0", "re.I", "re.M | re.S", "re.X", "re.A"][round % 5];
        let subject = ["ab\n", "", "aé b1", "b"][round % 4];
        let source = format!(
            "import re\ndef f():\n    p = re.compile({}, {flags})\n    s = {}\n    \
             return p.findall(s), p.sub({}, s), p.split(s), p.fullmatch(s)\n",
            quote(&pattern),
            quote(subject),
            quote(&pattern),
        );
        let program = compile_module("r.py", &source);
        assert_eq!(program.diagnostics, [], "{source}");
        outcomes[match program.call("f", &[], false, &mut FakeCrm::default()) {
            Outcome::Returned(_) => 0,
            Outcome::Raised { .. } => 1,
            Outcome::Unsupported(_) => 2,
        }] += 1;
    }
    // Each kind of outcome happens: the patterns reach matching, errors and refusals.
    assert!(outcomes.iter().all(|n| *n > 50), "{outcomes:?}");
}

#[test]
fn datetime_reads_the_clock_the_network_states() {
    let source = "from datetime import datetime, timezone\nimport time\n\n\
                  def stamp(contact_id: str) -> dict:\n    now = datetime.now(timezone.utc)\n    \
                  return {'id': contact_id, 'at': now.isoformat(), 'date': now.strftime('%a, %d %b %Y %H:%M:%S GMT'), 'epoch': time.time()}\n";
    let program = compile_module("stamp.py", source);
    assert_eq!(program.diagnostics, []);
    // The reading follows a body that reads the clock: `datetime` is part of the subset.
    assert_eq!(program.unfollowed("stamp"), None);
    let args = [("contact_id".to_owned(), text("701"))];
    let Outcome::Returned(PyValue::Dict(entries)) =
        program.call("stamp", &args, false, &mut FakeCrm::default())
    else {
        panic!("stamp did not return a dict");
    };
    let field = |name: &str| {
        entries.iter().find(|(k, _)| *k == text(name)).map(|(_, v)| v.clone()).expect(name)
    };
    assert_eq!(field("at"), text("2026-12-02T09:00:00+00:00"));
    assert_eq!(field("date"), text(swaplab_core::python::FIXED_DATE));
    assert_eq!(field("epoch"), PyValue::Float(1_796_202_000.0));
}

#[test]
fn datetime_refuses_what_it_would_have_to_guess_and_keeps_to_the_limits() {
    let header = "import datetime as dt\nfrom datetime import date, datetime, timedelta, timezone\nimport time\n";
    let run = |body: &str| outcome_of(&format!("{header}def f():\n    {body}\n"), "f");
    let refused = |body: &str| {
        let found = run(body);
        assert!(
            found.starts_with("? swaplab.python.unsupported: ")
                && found.ends_with(" is outside the Python subset Swap Lab runs"),
            "{body}: {found}"
        );
        found
    };
    assert!(refused("return datetime.now().strftime('%c')").contains("`%c`"));
    assert!(refused("return datetime(5, 1, 1).strftime('%Y')").contains("before 1000"));
    assert!(refused("return datetime.now().strftime('100%')").contains("`%` at the end"));
    assert!(refused("return datetime.fromisoformat('2026-W49-3')").contains("YYYY-MM-DD"));
    assert!(refused("return date.fromisoformat('20261202')").contains("YYYY-MM-DD"));
    assert!(refused("return timezone(timedelta(hours=1), 'CET')").contains("with a name"));
    assert!(refused("return timezone(timedelta(seconds=1.5))").contains("fraction"));
    assert!(refused("return datetime(2026, 1, 1, fold=1)").contains("fold"));
    assert!(refused("return datetime.now().astimezone()").contains("astimezone()"));
    assert!(refused("return datetime.now().isocalendar()").contains("isocalendar"));
    assert!(refused("return datetime.strptime('2026', '%Y')").contains("strptime"));
    assert!(refused("return time.monotonic()").contains("time.monotonic"));
    assert!(refused("return dt.time(9, 0)").contains("datetime.time"));
    // A name CPython does not have is its AttributeError, not a refusal.
    assert_eq!(
        run("return datetime.now().weekday_name"),
        "! AttributeError: 'datetime.datetime' object has no attribute 'weekday_name'"
    );
    assert_eq!(
        run("return timedelta.hours"),
        "! AttributeError: type object 'datetime.timedelta' has no attribute 'hours'"
    );
    // The clock never moves: waiting for it ends at the step limit.
    let steps = "? swaplab.python.limit: this call took more than 100000 evaluation steps: a loop that does not end, or more work than a tool should do";
    assert_eq!(
        run("end = time.time() + 1\n    while time.time() < end:\n        time.sleep(0.1)"),
        steps
    );
    // Formatting is bounded like any str.
    assert!(run("return datetime.now().strftime('%B' * 400000)").starts_with("! MemoryError"));
}

#[test]
fn datetime_arithmetic_at_the_edges_never_panics() {
    let values = [
        "0",
        "1",
        "-1",
        "7",
        "2**31",
        "-2**31 - 1",
        "10**18",
        "-10**18",
        "999999999",
        "0.5",
        "-2.5",
        "1e300",
        "-1e-300",
        "5e-324",
        "float('nan')",
        "float('inf')",
        "True",
    ];
    let forms = [
        "timedelta(days={v}, seconds={w})",
        "timedelta(microseconds={v}) * {w}",
        "{w} * timedelta(weeks={v})",
        "timedelta(days={v}) / {w}",
        "timedelta(hours={v}) // {w}",
        "timedelta(days={v}) // timedelta(microseconds={w})",
        "timedelta(days={v}) % timedelta(microseconds={w})",
        "timedelta(days={v}) / timedelta(microseconds={w})",
        "-timedelta(days={v}) + timedelta(days={w})",
        "abs(timedelta(days={v}))",
        "datetime(9999, 12, 31) + timedelta(days={v})",
        "date(1, 1, 1) - timedelta(days={v})",
        "datetime.fromtimestamp({v})",
        "datetime.fromtimestamp({v}, timezone(timedelta(hours=-23)))",
        "datetime.utcfromtimestamp({v})",
        "date.fromtimestamp({v})",
        "datetime({v}, {w}, 1)",
        "datetime(2026, 1, 1).replace(year={v})",
        "timezone(timedelta(seconds={v}))",
        "datetime(1, 1, 1, tzinfo=timezone(timedelta(hours={v}))).timestamp()",
        "datetime(9999, 12, 31, 23, tzinfo=timezone(timedelta(hours=-{v}))).astimezone(timezone.utc)",
        "(timedelta(days={v}).total_seconds(), str(timedelta(seconds={w})))",
    ];
    for form in forms {
        for v in values {
            for w in values {
                let expr = form.replace("{v}", v).replace("{w}", w);
                let source = format!(
                    "from datetime import date, datetime, timedelta, timezone\n\ndef f():\n    return {expr}\n"
                );
                run_everything(&source);
            }
        }
    }
}
