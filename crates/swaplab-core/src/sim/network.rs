//! The machine a project's code runs on, as far as the simulation needs it: the
//! environment its processes start with (its `.env`, else the `.env.example` its set-up
//! copies), and the addresses something listens at.
//!
//! A project that ships its CRM stand-in as a stdlib `http.server` handler (a class
//! deriving from `BaseHTTPRequestHandler` in a file with module-level `HOST` and `PORT`,
//! as the tutorial's `scripts/mock_hubspot.py` is) gets it run in memory at that
//! address: its literals are the data, its handler decides every answer. Without one,
//! the CRM the seed (`crm/crm.yml`) describes answers HubSpot v3 requests itself at
//! [`CRM_ADDRESS`], the address the tutorial's set-up points `HUBSPOT_BASE_URL` at.
//!
//! A mock's state (the notes a `POST` appended) is a function of the requests it served,
//! so a copy of a run (the attack forks one per skill) replays them into a fresh process
//! when it first needs the mock, rather than sharing one.

use std::sync::Arc;

use crate::diagnostic::Span;
use crate::python::{
    Delivery, Host, HostError, HttpRequest, Outcome, Process, Program, PyValue, compile_linked,
    read_dotenv,
};
use crate::workspace::{Area, Project};

/// Where the built-in CRM listens when the project ships no mock of its own:
/// `127.0.0.1:8787`, as in the tutorial's `.env.example`.
pub const CRM_ADDRESS: (&str, u16) = ("127.0.0.1", 8787);

/// One variable of the environment, and where its value came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EnvVar {
    /// `HUBSPOT_BASE_URL`.
    pub name: String,
    /// Its value.
    pub value: String,
    /// `.env.example`, `.env`, or who set it (`the proof's default`).
    pub from: String,
}

/// The project's mock CRM: its file, compiled, and where it listens.
#[derive(Clone, Debug)]
pub struct MockSpec {
    /// The area holding the file.
    pub area: Area,
    /// The file, as the workspace names it.
    pub file: String,
    /// Its text when read.
    text: String,
    /// The file compiled with the modules it imports.
    program: Arc<Program>,
    /// The handler class.
    pub class: String,
    /// `HOST`.
    pub host: String,
    /// `PORT`.
    pub port: u16,
}

impl PartialEq for MockSpec {
    fn eq(&self, other: &MockSpec) -> bool {
        (&self.file, &self.text, &self.class, &self.host, self.port)
            == (&other.file, &other.text, &other.class, &other.host, other.port)
    }
}

/// The environment and the project's own mock, if any.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Network {
    /// The environment processes start with, in order.
    pub env: Vec<EnvVar>,
    /// The project's mock CRM.
    pub mock: Option<Arc<MockSpec>>,
}

impl Network {
    /// The environment as name/value pairs, for a new process.
    pub fn env_pairs(&self) -> Vec<(String, String)> {
        self.env.iter().map(|v| (v.name.clone(), v.value.clone())).collect()
    }

    /// Sets `name` only if the environment lacks it, as `dict.setdefault` does.
    pub fn setdefault(&mut self, name: &str, value: &str, from: &str) {
        if !self.env.iter().any(|v| v.name == name) {
            self.env.push(EnvVar { name: name.into(), value: value.into(), from: from.into() });
        }
    }

    /// Where `name`'s value came from, if it is set.
    pub fn origin(&self, name: &str) -> Option<&EnvVar> {
        self.env.iter().find(|v| v.name == name)
    }
}

/// The environment a project's set-up gives: its `.env`, else `.env.example`, from the
/// first of `projects` that has one.
pub fn read_environment(projects: &[&Project]) -> Vec<EnvVar> {
    for file in [".env", ".env.example"] {
        for project in projects {
            if let Some(text) = project.file(file) {
                return read_dotenv(text)
                    .into_iter()
                    .map(|(name, value)| EnvVar { name, value, from: file.to_owned() })
                    .collect();
            }
        }
    }
    Vec::new()
}

/// The first `http.server` handler among `projects`' Python files that declares where it
/// listens (module-level `HOST` and `PORT`), compiled.
pub fn find_mock(projects: &[(Area, &Project)], env: &[(String, String)]) -> Option<MockSpec> {
    for &(area, project) in projects {
        let library = super::agent::python_library(project);
        for (path, text) in project.files() {
            if !path.ends_with(".py") || !text.contains("BaseHTTPRequestHandler") {
                continue;
            }
            let program = Arc::new(compile_linked(path, text, &library));
            let mut process = Process::with_environment(program.clone(), env.to_vec());
            let Some(class) = process.handler_classes().first().map(|c| (*c).to_owned()) else {
                continue;
            };
            let Outcome::Returned(PyValue::Str(host)) = process.global("HOST", &mut Nowhere) else {
                continue;
            };
            let port = match process.global("PORT", &mut Nowhere) {
                Outcome::Returned(PyValue::Int(port)) => u16::try_from(port).ok(),
                _ => None,
            };
            let Some(port) = port else { continue };
            return Some(MockSpec {
                area,
                file: path.to_owned(),
                text: text.to_owned(),
                program,
                class,
                host,
                port,
            });
        }
    }
    None
}

/// A host for code that reaches nothing: the mock's own module level.
struct Nowhere;

impl Host for Nowhere {
    fn crm_call(
        &mut self,
        function: &str,
        _: &[PyValue],
        _: &[(String, PyValue)],
        _: Span,
    ) -> Result<PyValue, HostError> {
        Err(HostError::new("AttributeError", format!("module has no attribute '{function}'")))
    }

    fn memory_get(&mut self, _: &str, default: PyValue, _: Span) -> PyValue {
        default
    }

    fn memory_set(&mut self, _: &str, _: PyValue, _: Span) -> Result<(), HostError> {
        Err(HostError::new("MemoryWriteError", "no memory here"))
    }
}

/// The project's mock during one run: the requests it has served, and its process.
pub struct MockCrm {
    spec: Arc<MockSpec>,
    env: Vec<(String, String)>,
    served: Vec<HttpRequest>,
    process: Option<Process>,
}

impl Clone for MockCrm {
    fn clone(&self) -> MockCrm {
        // The copy replays what this one served when it is first asked.
        MockCrm {
            spec: self.spec.clone(),
            env: self.env.clone(),
            served: self.served.clone(),
            process: None,
        }
    }
}

impl std::fmt::Debug for MockCrm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MockCrm")
            .field("file", &self.spec.file)
            .field("served", &self.served.len())
            .finish()
    }
}

impl MockCrm {
    /// The mock `spec` describes, started with `env`, nothing served yet.
    pub fn new(spec: Arc<MockSpec>, env: Vec<(String, String)>) -> MockCrm {
        MockCrm { spec, env, served: Vec::new(), process: None }
    }

    /// Whether it listens at `host:port`.
    pub fn listens_at(&self, host: &str, port: u16) -> bool {
        self.spec.port == port
            && (self.spec.host == host || (is_loopback(host) && is_loopback(&self.spec.host)))
    }

    /// Which file it is.
    pub fn file(&self) -> &str {
        &self.spec.file
    }

    /// Serves one request: the handler's answer, a dropped connection, or a stop.
    pub fn serve(&mut self, request: &HttpRequest) -> Delivery {
        let spec = self.spec.clone();
        let process = self.process.get_or_insert_with(|| {
            let mut process = Process::with_environment(spec.program.clone(), self.env.clone());
            for earlier in &self.served {
                drop(process.serve(&spec.class, earlier, &mut Nowhere));
            }
            process
        });
        let (delivery, _) = process.serve(&spec.class, request, &mut Nowhere);
        self.served.push(request.clone());
        delivery
    }
}

/// `127.0.0.1`, `localhost` and `0.0.0.0` (a server bound to every interface).
fn is_loopback(host: &str) -> bool {
    matches!(host, "127.0.0.1" | "localhost" | "0.0.0.0" | "::1")
}
