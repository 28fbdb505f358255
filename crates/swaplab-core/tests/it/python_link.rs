//! A project's own modules: imports across its files and packages, a module run once per
//! process and shared, and errors raised in an imported file reported at that file.

use std::sync::Arc;

use swaplab_core::diagnostic::Span;
use swaplab_core::python::{
    Host, HostError, Library, Outcome, Process, PyValue, compile_linked, compile_module,
};

/// A host for code that reaches nothing outside itself.
struct Nothing;

impl Host for Nothing {
    fn crm_call(
        &mut self,
        function: &str,
        _: &[PyValue],
        _: &[(String, PyValue)],
        _: Span,
    ) -> Result<PyValue, HostError> {
        Err(HostError::new("AttributeError", function))
    }

    fn memory_get(&mut self, _: &str, default: PyValue, _: Span) -> PyValue {
        default
    }

    fn memory_set(&mut self, _: &str, _: PyValue, _: Span) -> Result<(), HostError> {
        Ok(())
    }
}

const FILES: [(&str, &str); 6] = [
    ("p/lib/__init__.py", "from .errors import CrmError\nVERSION = '1'\n"),
    (
        "p/lib/errors.py",
        "class CrmError(Exception):\n    pass\n\n\nclass NotFound(CrmError):\n    pass\n",
    ),
    (
        "p/lib/hubspot.py",
        "from __future__ import annotations\n\
         from .errors import CrmError, NotFound\n\
         BASE: str = 'http://127.0.0.1:8787'\n\
         SEEN = []\n\n\
         class Client:\n    prefix = '/crm/v3'\n\n    def __init__(self, base=BASE):\n        self.base = base\n\n    \
         def url(self, path):\n        SEEN.append(path)\n        return self.base + self.prefix + path\n\n\
         def lookup(contact_id):\n    if contact_id != '701':\n        raise NotFound(f'no contact {contact_id}')\n    return {'id': contact_id}\n",
    ),
    ("p/lib/rasa_tools.py", "from rasa.mantle.tools import ToolContext, ToolResult, tool\n"),
    ("p/ns/inner.py", "def twice(x):\n    return 2 * x\n"),
    ("p/scripts/helper.py", "def shout(s):\n    return s.upper()\n"),
];

fn library() -> Library<'static> {
    Library::new(FILES, &["p"])
}

fn returned(outcome: Outcome) -> PyValue {
    match outcome {
        Outcome::Returned(value) => value,
        other => panic!("{other:?}"),
    }
}

#[test]
fn names_classes_and_functions_cross_files() {
    let tool = "from lib.hubspot import Client as C, lookup\nimport lib.hubspot as hs\nimport ns.inner\n\n\
                def f():\n    c = C()\n    return [c.url('/x'), lookup('701')['id'], hs.BASE, ns.inner.twice(4), hs.SEEN]\n";
    let program = compile_linked("p/tools/crm.py", tool, &library());
    assert!(program.diagnostics.is_empty(), "{:?}", program.diagnostics);
    let value = returned(program.call("f", &[], false, &mut Nothing));
    assert_eq!(
        value.repr(),
        "['http://127.0.0.1:8787/crm/v3/x', '701', 'http://127.0.0.1:8787', 8, ['/x']]"
    );
    let imported: Vec<&str> = program.imported_paths().collect();
    assert_eq!(
        imported,
        ["p/lib/__init__.py", "p/lib/errors.py", "p/lib/hubspot.py", "p/ns/", "p/ns/inner.py"]
    );
}

#[test]
fn an_exception_class_of_another_file_is_caught_by_its_base() {
    let tool = "from lib import CrmError\nfrom lib.hubspot import lookup\n\n\
                def f(contact_id):\n    try:\n        return lookup(contact_id)\n    except CrmError as e:\n        return f'caught: {e}'\n";
    let program = compile_linked("p/tools/crm.py", tool, &library());
    let kwargs = [("contact_id".to_owned(), PyValue::Str("702".into()))];
    assert_eq!(
        returned(program.call("f", &kwargs, false, &mut Nothing)).repr(),
        "'caught: no contact 702'"
    );
}

#[test]
fn an_exception_escaping_from_an_imported_file_points_there() {
    let tool = "from lib.hubspot import lookup\n\ndef f():\n    return lookup('9')\n";
    let program = compile_linked("p/tools/crm.py", tool, &library());
    let Outcome::Raised { exc_type, message, span, path } =
        program.call("f", &[], false, &mut Nothing)
    else {
        panic!()
    };
    assert_eq!((exc_type.as_str(), message.as_str()), ("NotFound", "no contact 9"));
    assert_eq!((path.as_str(), span.start.line), ("p/lib/hubspot.py", 18));
}

#[test]
fn a_module_runs_once_per_process_and_keeps_its_state() {
    let script = "from helper import shout\nNOTES: list[dict] = []\n\n\
                  def add(body):\n    NOTES.append({'id': str(10_000 + len(NOTES)), 'body': shout(body)})\n    return len(NOTES)\n\n\
                  def notes():\n    return NOTES\n";
    let program = Arc::new(compile_linked("p/scripts/mock.py", script, &library()));
    let mut process = Process::new(program.clone());
    let body = |s: &str| [("body".to_owned(), PyValue::Str(s.into()))];
    assert_eq!(returned(process.call("add", &body("a"), false, &mut Nothing)).repr(), "1");
    assert_eq!(returned(process.call("add", &body("b"), false, &mut Nothing)).repr(), "2");
    assert_eq!(
        returned(process.call("notes", &[], false, &mut Nothing)).repr(),
        "[{'id': '10000', 'body': 'A'}, {'id': '10001', 'body': 'B'}]"
    );
    // A call outside the process starts from a fresh import.
    assert_eq!(returned(program.call("notes", &[], false, &mut Nothing)).repr(), "[]");
}

#[test]
fn a_missing_name_or_module_is_reported_where_it_is_used() {
    let tool = "from lib.hubspot import nothing_here\nimport lib.hubspot as hs\n\n\
                def f():\n    return nothing_here()\n\ndef g():\n    return hs.nope\n";
    let program = compile_linked("p/tools/crm.py", tool, &library());
    let Outcome::Unsupported(d) = program.call("f", &[], false, &mut Nothing) else { panic!() };
    assert!(d.message.contains("does not define it"), "{}", d.message);
    let outcome = program.call("g", &[], false, &mut Nothing);
    let Outcome::Raised { exc_type, message, .. } = outcome else { panic!("{outcome:?}") };
    assert_eq!(
        (exc_type.as_str(), message.as_str()),
        ("AttributeError", "module 'lib.hubspot' has no attribute 'nope'")
    );
    // Without a library nothing of the project is importable.
    let alone = compile_module("p/tools/crm.py", tool);
    assert!(matches!(alone.call("f", &[], false, &mut Nothing), Outcome::Unsupported(_)));
}

#[test]
fn a_circular_import_sees_the_names_bound_so_far() {
    let files = [
        ("a.py", "X = 1\nfrom b import Y\nZ = 3\n"),
        ("b.py", "from a import X\nY = X + 1\n\ndef z():\n    import_check = 0\n    return Y\n"),
    ];
    let library = Library::new(files, &[""]);
    let program =
        compile_linked("main.py", "from a import Y, Z\n\ndef f():\n    return [Y, Z]\n", &library);
    assert_eq!(returned(program.call("f", &[], false, &mut Nothing)).repr(), "[2, 3]");
}

#[test]
fn the_environment_paths_and_dotenv_are_the_processes() {
    let script = "import os, sys\nfrom dotenv import load_dotenv\nfrom os.path import dirname, abspath, join\n\n\
                  ROOT = dirname(dirname(abspath(__file__)))\nsys.path.insert(0, ROOT)\nload_dotenv()\n\
                  BASE = os.environ.get('HUBSPOT_BASE_URL', 'http://unset')\n\n\
                  def f():\n    os.environ.setdefault('HUBSPOT_ACCESS_TOKEN', 'mock-token')\n    \
                  return [ROOT, BASE, os.getenv('HUBSPOT_ACCESS_TOKEN'), os.getenv('NOPE', 'd'), \
                  join(ROOT, 'scripts', 'x.py'), sys.path[0], __name__]\n\n\
                  def g():\n    return os.environ['MISSING']\n\n\
                  def h():\n    return os.listdir('.')\n";
    let program = Arc::new(compile_linked("p/scripts/run.py", script, &library()));
    let env = vec![("HUBSPOT_BASE_URL".to_owned(), "http://127.0.0.1:8787".to_owned())];
    let mut process = Process::with_environment(program.clone(), env);
    assert_eq!(
        returned(process.call("f", &[], false, &mut Nothing)).repr(),
        "['/p', 'http://127.0.0.1:8787', 'mock-token', 'd', '/p/scripts/x.py', '/', 'p.scripts.run']"
    );
    let Outcome::Raised { exc_type, message, .. } = process.call("g", &[], false, &mut Nothing)
    else {
        panic!()
    };
    assert_eq!((exc_type.as_str(), message.as_str()), ("KeyError", "'MISSING'"));
    assert!(matches!(process.call("h", &[], false, &mut Nothing), Outcome::Unsupported(_)));
    // Module-level statements that bind nothing (`sys.path.insert`, `load_dotenv()`)
    // are accepted and not run: imports resolve from the project's roots anyway.
    // A fresh process has only what it was started with.
    assert_eq!(
        returned(program.call("f", &[], false, &mut Nothing)).repr(),
        "['/p', 'http://unset', 'mock-token', 'd', '/p/scripts/x.py', '/', 'p.scripts.run']"
    );
}

#[test]
fn dotenv_files_read_as_python_dotenv_reads_them() {
    let text = "# settings\nHUBSPOT_BASE_URL=http://127.0.0.1:8787  # the mock\nexport TOKEN=\"mock\\ttoken\"\n\
                QUOTED='a # b'\nnot a line\nTOKEN2 = spaced \nTOKEN2=later\n";
    let pairs: Vec<(String, String)> = swaplab_core::python::read_dotenv(text);
    let pairs: Vec<(&str, &str)> = pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    assert_eq!(
        pairs,
        [
            ("HUBSPOT_BASE_URL", "http://127.0.0.1:8787"),
            ("TOKEN", "mock\ttoken"),
            ("QUOTED", "a # b"),
            ("TOKEN2", "later"),
        ]
    );
}

#[test]
fn the_simulation_compiles_a_tool_with_the_project_modules_it_imports() {
    use swaplab_core::Project;
    let project = Project::from_files([
        (
            "tools/crm.py",
            "from lib.names import full_name\n\ndef name_of(first, last):\n    return full_name(first, last)\n",
        ),
        ("lib/__init__.py", ""),
        ("lib/names.py", "def full_name(first, last):\n    return f'{first} {last}'.strip()\n"),
    ]);
    let library = swaplab_core::sim::agent::python_library(&project);
    let text = project.file("tools/crm.py").unwrap_or_default();
    let program = compile_linked("tools/crm.py", text, &library);
    let kwargs = [
        ("first".to_owned(), PyValue::Str("Dana".into())),
        ("last".to_owned(), PyValue::Str("Okafor".into())),
    ];
    assert_eq!(
        returned(program.call("name_of", &kwargs, false, &mut Nothing)).repr(),
        "'Dana Okafor'"
    );
    assert!(program.is_current(|p| project.file(p)));
    let edited = Project::from_files([
        ("tools/crm.py", text),
        ("lib/__init__.py", ""),
        ("lib/names.py", "def full_name(first, last):\n    return last\n"),
    ]);
    assert!(!program.is_current(|p| edited.file(p)), "an edit to an imported module is seen");
}
