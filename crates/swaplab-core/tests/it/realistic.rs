//! The realistic fixture project (`fixtures/realistic/`) run end to end, against what
//! real CPython with the real `mcp` and `httpx` packages did with it
//! (`fixtures/realistic/expected.json`, recorded by `generate.py`): its HTTP client,
//! its `http.server` mock CRM, its local tools and its FastMCP server, unchanged.

use std::path::PathBuf;

use serde_json::Value as Json;
use swaplab_core::proof::prove;
use swaplab_core::sim::Simulation;
use swaplab_core::sim::attack::{AttackVerdict, LeakKind};
use swaplab_core::sim::crm::Crm;
use swaplab_core::sim::json::{self, JsonValue};
use swaplab_core::{Project, Workspace};

use crate::support::{read, walk};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/realistic")
}

fn workspace() -> Workspace {
    let project_dir = root().join("project");
    let files: Vec<(String, String)> = walk(&project_dir)
        .into_iter()
        .filter(|p| !p.components().any(|c| c.as_os_str() == "__pycache__"))
        .map(|path| {
            let relative =
                path.strip_prefix(&project_dir).unwrap().to_str().unwrap().replace('\\', "/");
            (relative, read(&path))
        })
        .collect();
    swaplab_core::layout::tutorial_layout(&Project::from_files(files)).unwrap().workspace
}

fn expected() -> Json {
    serde_json::from_str(&read(&root().join("expected.json"))).unwrap()
}

fn to_json(value: &JsonValue) -> Json {
    serde_json::from_str(&json::compact(value)).unwrap()
}

#[test]
fn the_proof_passes_all_18_checks() {
    let proof = prove(&workspace());
    let text = proof.to_text();
    assert!(proof.stop.is_none(), "{text}");
    assert!(proof.passed(), "{text}");
    let checks: usize = proof.groups.iter().map(|g| g.checks.len()).sum();
    assert_eq!(checks, 18, "{text}");
}

#[test]
fn mcp_answers_the_calls_as_the_real_server_did() {
    let workspace = workspace();
    let sim = Simulation::new(&workspace);
    let server = sim.server.as_ref().expect("the server is read");
    let expected = expected();
    let mut seed = sim.seed.clone();
    seed.network.setdefault("HUBSPOT_BASE_URL", "http://127.0.0.1:8787", "test");
    seed.network.setdefault("HUBSPOT_ACCESS_TOKEN", "mock-token", "test");
    let mut crm = Crm::new(seed);
    let calls = expected["mcp"]["calls"].as_array().unwrap();
    let edges = expected["mcp"]["edge_cases"].as_array().unwrap();
    for (id, call) in calls.iter().chain(edges).enumerate() {
        let request = json::parse(
            &serde_json::json!({
                "jsonrpc": "2.0",
                "id": id + 1,
                "method": "tools/call",
                "params": {"name": call["tool"], "arguments": call["arguments"]},
            })
            .to_string(),
        )
        .unwrap();
        let first = crm.log.len();
        let exchange = server.handle(&request, &mut crm);
        let response = to_json(&exchange.response.clone().expect("a response"));
        let result = &response["result"];
        let what = format!("{} {}: {result}", call["tool"], call["arguments"]);
        assert_eq!(result["structuredContent"], call["structuredContent"], "{what}");
        assert_eq!(result["isError"], call["isError"], "{what}");
        let texts: Vec<&Json> =
            result["content"].as_array().unwrap().iter().map(|c| &c["text"]).collect();
        let wanted: Vec<&Json> = call["content"].as_array().unwrap().iter().collect();
        assert_eq!(texts, wanted, "{what}");
        let sent: Vec<(String, String, u16)> = crm.log[first..]
            .iter()
            .map(|r| (r.method.to_owned(), r.path.clone(), r.status))
            .collect();
        let recorded: Vec<(String, String, u16)> = call["crm_requests"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                let query = r["query"].as_str().unwrap();
                let path = r["path"].as_str().unwrap();
                let target =
                    if query.is_empty() { path.to_owned() } else { format!("{path}?{query}") };
                (
                    r["method"].as_str().unwrap().to_owned(),
                    target,
                    r["status"].as_u64().unwrap() as u16,
                )
            })
            .collect();
        assert_eq!(sent, recorded, "{what}");
    }
}

#[test]
fn the_attack_finds_the_read_and_the_note_after_the_swap_and_nothing_before() {
    let sim = Simulation::new(&workspace());
    let pair = sim.attack(&Default::default());
    assert!(pair.before.leaks.is_empty(), "{:?}", pair.before.leaks);
    assert!(
        !matches!(pair.before.verdict, AttackVerdict::NotTested { .. }),
        "{:?}",
        pair.before.verdict
    );
    let leaks: Vec<(LeakKind, &str)> =
        pair.after.leaks.iter().map(|l| (l.kind, l.tool.as_str())).collect();
    assert_eq!(
        leaks,
        [(LeakKind::Read, "list_open_tickets"), (LeakKind::Write, "add_timeline_note")],
        "{:?}",
        pair.after
    );
}

/// Project memory as a dict of paths, as the recording's stand-in for Rasa keeps it.
#[derive(Default)]
struct Memory(Vec<(String, JsonValue)>);

impl swaplab_core::sim::host::ToolMemory for Memory {
    fn get(
        &mut self,
        path: &str,
        default: swaplab_core::python::PyValue,
    ) -> swaplab_core::python::PyValue {
        self.0
            .iter()
            .find(|(p, _)| p == path)
            .map_or(default, |(_, v)| swaplab_core::python::PyValue::from_json(v))
    }

    fn set(&mut self, path: &str, value: &JsonValue) -> Result<(), String> {
        self.0.retain(|(p, _)| p != path);
        self.0.push((path.to_owned(), value.clone()));
        Ok(())
    }
}

#[test]
fn the_local_tools_answer_as_they_did_in_cpython() {
    use swaplab_core::python::{Outcome, Process, PyValue};
    use swaplab_core::sim::host::ToolHost;
    let workspace = workspace();
    let sim = Simulation::new(&workspace);
    let programs = swaplab_core::sim::agent::compile_tools(&sim.report.before, &workspace.before);
    let mut crm = Crm::new(sim.seed);
    let mut memory = Memory::default();
    for call in expected()["local_tools"]["conversation"].as_array().unwrap() {
        let tool = call["tool"].as_str().unwrap();
        let program = programs.values().find(|p| p.has_function(tool)).expect(tool);
        let kwargs: Vec<(String, PyValue)> = call["arguments"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, v)| (k.clone(), PyValue::Str(v.as_str().unwrap().to_owned())))
            .collect();
        let env = crm.data.network.env_pairs();
        let first = crm.log.len();
        let mut host = ToolHost::new(&mut crm, Some(&mut memory));
        let outcome =
            Process::with_environment(program.clone(), env).call(tool, &kwargs, true, &mut host);
        let Outcome::Returned(PyValue::Object { fields, .. }) = outcome else {
            panic!("{tool}: {outcome:?}")
        };
        let response = fields.iter().find(|(k, _)| k == "llm_response").map(|(_, v)| v.to_json());
        assert_eq!(to_json(&response.unwrap()), call["llm_response"], "{tool}");
        let remembered: serde_json::Map<String, Json> =
            memory.0.iter().map(|(k, v)| (k.clone(), to_json(v))).collect();
        assert_eq!(Json::Object(remembered), call["memory"], "{tool}");
        let sent: Vec<(&str, u16)> =
            crm.log[first..].iter().map(|r| (r.method, r.status)).collect();
        let recorded: Vec<(&str, u16)> = call["crm_requests"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| (r["method"].as_str().unwrap(), r["status"].as_u64().unwrap() as u16))
            .collect();
        assert_eq!(sent, recorded, "{tool}");
    }
}

#[test]
fn tools_list_publishes_what_the_real_server_published() {
    let workspace = workspace();
    let sim = Simulation::new(&workspace);
    let server = sim.server.as_ref().expect("the server is read");
    let listed = to_json(&server.tools_list());
    let expected = expected();
    let recorded = expected["mcp"]["tools"].as_array().unwrap();
    let tools = listed["tools"].as_array().unwrap();
    assert_eq!(tools.len(), recorded.len());
    for (ours, theirs) in tools.iter().zip(recorded) {
        for key in ["name", "description", "inputSchema", "outputSchema"] {
            assert_eq!(ours[key], theirs[key], "{} {key}", theirs["name"]);
        }
    }
}
