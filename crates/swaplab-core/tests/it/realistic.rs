//! The realistic fixture project (`fixtures/realistic/`) run end to end, against what
//! real CPython with the real `mcp` and `httpx` packages did with it
//! (`fixtures/realistic/expected.json`, recorded by `generate.py`): its HTTP client,
//! its `http.server` mock CRM, its local tools and its FastMCP server, unchanged.

use std::path::PathBuf;

use serde_json::Value as Json;
use swaplab_core::sim::Simulation;
use swaplab_core::sim::json::{self, Value};
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

fn to_json(value: &Value) -> Json {
    serde_json::from_str(&json::compact(value)).unwrap()
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
