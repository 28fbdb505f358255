//! The Python interpreter: the tutorial's tools run against a fake CRM and project
//! memory, pydantic models, what is outside the subset, every limit, and hostile input.
//! Python's own semantics are held to CPython by the generated table in
//! `python_cpython.rs`.

use swaplab_core::diagnostic::{Diagnostic, Phase, Severity, Span};
use swaplab_core::python::{Host, HostError, Outcome, Program, PyValue, compile_module};

const CRM_TOOL: &str = include_str!("../../../../content/examples/tutorial/before/tools/crm.py");
const CHECK_TICKETS: &str =
    include_str!("../../../../content/examples/tutorial/before/skills/check_tickets/tools.py");
const LOG_INTERACTION: &str =
    include_str!("../../../../content/examples/tutorial/before/skills/log_interaction/tools.py");
const SERVER: &str =
    include_str!("../../../../content/examples/tutorial/server/scripts/mcp_crm_server.py");

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
    let Outcome::Raised { exc_type, message, span } = outcome else { panic!("{outcome:?}") };
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
    let Outcome::Raised { exc_type, message, span } = unknown.call("f", &[], false, &mut crm)
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
    assert_eq!(
        outcome_of(source, "uses_json"),
        "? swaplab.python.unsupported: the module `json` (`.dumps`) is outside the Python subset Swap Lab runs"
    );
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
            "def f():\n    return sorted([1], key=lambda x: x)\ndef ok():\n    return 1\n",
            "2:28 swaplab.python.unsupported `lambda` is outside the Python subset Swap Lab runs",
        ),
        (
            "def f():\n    with open('x') as fh:\n        pass\n",
            "2:5 swaplab.python.unsupported `with` is outside the Python subset Swap Lab runs",
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
            "def f(*args):\n    return 1\n",
            "1:7 swaplab.python.unsupported a `*args` or `**kwargs` parameter is outside the Python subset Swap Lab runs",
        ),
        (
            "def f():\n    return print(*[1])\n",
            "2:18 swaplab.python.unsupported argument unpacking with `*` or `**` is outside the Python subset Swap Lab runs",
        ),
        (
            "def f():\n    a, *b = [1, 2]\n",
            "2:8 swaplab.python.unsupported unpacking with `*` is outside the Python subset Swap Lab runs",
        ),
        (
            "def f():\n    return b'x'\n",
            "2:12 swaplab.python.unsupported a bytes literal is outside the Python subset Swap Lab runs",
        ),
        (
            "def f():\n    if (n := 1):\n        pass\n",
            "2:11 swaplab.python.unsupported the assignment expression `:=` is outside the Python subset Swap Lab runs",
        ),
        (
            "def f():\n    x.y = 1\n",
            "2:5 swaplab.python.unsupported assigning to an attribute is outside the Python subset Swap Lab runs",
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
            "def f():\n    return map(str, [1])\n",
            "2:12 swaplab.python.unsupported calling the builtin `map` is outside the Python subset Swap Lab runs",
        ),
        (
            "def f():\n    return 'x'.encode()\n",
            "2:12 swaplab.python.unsupported `str.encode()` is outside the Python subset Swap Lab runs",
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
        "it uses the module `requests`, outside the Python subset Swap Lab reads (line 11)"
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
