//! Writes `fuzz/seeds/<target>/`, the committed starting corpus of every fuzz target, from
//! the real Rasa projects in `fixtures/rasa-corpus/`, the playground's examples
//! (`swaplab_content`, derived examples with their edits applied), and the golden links in
//! `fixtures/permalinks/`. Run it from anywhere with
//! `cargo run --manifest-path fuzz/Cargo.toml --example make_seeds`; it replaces each
//! target's folder, names every seed after where it came from, and writes each distinct
//! input once.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use swaplab_core::permalink::{Form, Link, encode, unpack};
use swaplab_core::sim::Simulation;
use swaplab_core::sim::json::{self, JsonValue};
use swaplab_core::{Area, Workspace};
use swaplab_fuzz::{examples, files_form, replace_form, tutorial};

/// One target's seeds: file name → bytes, each distinct input once.
struct Seeds {
    dir: PathBuf,
    written: BTreeSet<Vec<u8>>,
    bytes: usize,
}

impl Seeds {
    fn new(root: &Path, target: &str) -> Seeds {
        let dir = root.join("seeds").join(target);
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).expect("create the seed folder");
        Seeds { dir, written: BTreeSet::new(), bytes: 0 }
    }

    fn add(&mut self, name: &str, bytes: impl Into<Vec<u8>>) {
        let bytes = bytes.into();
        if !self.written.insert(bytes.clone()) {
            return;
        }
        let name: String = name
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() || c == '.' || c == '-' { c } else { '-' })
            .collect();
        self.bytes += bytes.len();
        fs::write(self.dir.join(name), bytes).expect("write a seed");
    }

    fn done(self) {
        println!("{}: {} seeds, {} bytes", self.dir.display(), self.written.len(), self.bytes);
    }
}

/// Every file under `dir`, relative, sorted.
fn walk(dir: &Path) -> Vec<(String, String)> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(at) = pending.pop() {
        for entry in fs::read_dir(&at).expect("a readable folder").filter_map(Result::ok) {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else if let Ok(text) = fs::read_to_string(&path) {
                let relative = path.strip_prefix(dir).expect("under dir");
                found.push((relative.to_string_lossy().replace('\\', "/"), text));
            }
        }
    }
    found.sort();
    found
}

/// Every file of the corpus projects and of every example, with a name saying where.
fn all_files(repo: &Path) -> Vec<(String, String, String)> {
    let mut files = Vec::new();
    for (path, text) in walk(&repo.join("fixtures/rasa-corpus")) {
        if path.ends_with("verdict.json") || !path.contains('/') {
            continue;
        }
        files.push((format!("corpus-{path}"), path, text));
    }
    for (id, workspace) in examples() {
        for (file, text) in workspace.files() {
            let pristine = tutorial().file(&file);
            if id != "tutorial" && pristine == Some(text) {
                continue;
            }
            files.push((format!("{id}-{file}"), file.path.clone(), text.to_owned()));
        }
    }
    files
}

fn is(path: &str, extension: &str) -> bool {
    path.ends_with(extension)
}

/// A JSON-RPC session against one simulation's server: the handshake, `tools/list`, and
/// one `tools/call` per tool with arguments taken from the CRM seed.
fn mcp_session(id: &str, workspace: &Workspace) -> Option<String> {
    let sim = Simulation::new(workspace);
    let server = sim.server.as_ref()?;
    let contact = sim.seed.contacts.first()?;
    let mut lines = vec![
        format!("# {id}"),
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"fuzz","version":"0"}}}"#.to_owned(),
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_owned(),
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#.to_owned(),
    ];
    let listed = server.tools_list();
    let tools = match json::get(&listed, "tools") {
        Some(JsonValue::Array(tools)) => tools.clone(),
        _ => Vec::new(),
    };
    for (n, tool) in tools.iter().enumerate() {
        let Some(JsonValue::Str(name)) = json::get(tool, "name") else {
            continue;
        };
        let properties = json::at_path(tool, "inputSchema.properties");
        let mut args = Vec::new();
        if let Some(JsonValue::Object(properties)) = properties {
            for (param, _) in properties {
                let value = if param.contains("email") {
                    contact.email.clone()
                } else if param.contains("id") {
                    contact.id.clone()
                } else {
                    "Called about an open ticket.".to_owned()
                };
                args.push(format!("{param:?}:{value:?}"));
            }
        }
        lines.push(format!(
            r#"{{"jsonrpc":"2.0","id":{},"method":"tools/call","params":{{"name":{name:?},"arguments":{{{}}}}}}}"#,
            n + 2,
            args.join(",")
        ));
    }
    lines.push(r#"{"jsonrpc":"2.0","id":"p","method":"ping"}"#.to_owned());
    Some(lines.join("\n") + "\n")
}

fn main() {
    let fuzz = Path::new(env!("CARGO_MANIFEST_DIR"));
    let repo = fuzz.parent().expect("fuzz/ is in the repository");
    let files = all_files(repo);

    let mut skill = Seeds::new(fuzz, "skill");
    for (name, path, text) in &files {
        if is(path, "skill.md") {
            skill.add(name, text.as_bytes());
        }
    }
    skill.done();

    let mut yaml = Seeds::new(fuzz, "yaml_config");
    for (name, path, text) in &files {
        if is(path, ".yml") || is(path, ".yaml") {
            yaml.add(name, text.as_bytes());
        }
    }
    yaml.done();

    let mut python = Seeds::new(fuzz, "python");
    for (name, path, text) in &files {
        if is(path, ".py") {
            python.add(name, text.as_bytes());
        }
    }
    python.done();

    let mut permalink = Seeds::new(fuzz, "permalink");
    let mut fragments: Vec<(String, String)> = walk(&repo.join("fixtures/permalinks"))
        .into_iter()
        .map(|(name, text)| (format!("golden-{name}"), text.trim().to_owned()))
        .collect();
    for (id, workspace) in examples() {
        let link = Link { example: Some(id.clone()), workspace: workspace.clone(), open: None };
        fragments.push((format!("example-{id}"), encode(&link, Some(workspace))));
    }
    let mut small = Workspace::default();
    for (file, text) in tutorial().files().filter(|(file, _)| file.area == Area::Crm) {
        small.set_file(&file, text);
    }
    let link = Link { example: None, workspace: small, open: None };
    fragments.push(("full-crm-area".to_owned(), encode(&link, None)));
    for (name, fragment) in &fragments {
        permalink.add(&format!("{name}.txt"), fragment.as_bytes());
        if let Ok((form, payload)) = unpack(fragment) {
            let mut raw = vec![if form == Form::Full { 0 } else { 1 }];
            raw.extend_from_slice(&payload);
            permalink.add(&format!("{name}.payload"), raw);
        }
    }
    permalink.done();

    let mut mcp = Seeds::new(fuzz, "mcp");
    for (id, workspace) in examples() {
        if let Some(session) = mcp_session(id, workspace) {
            mcp.add(&format!("{id}.jsonl"), session);
        }
    }
    mcp.done();

    let mut pipeline = Seeds::new(fuzz, "pipeline");
    pipeline.add("tutorial.files", files_form(tutorial()));
    for (id, workspace) in examples() {
        for (file, text) in workspace.files() {
            if tutorial().file(&file) != Some(text)
                && let Some(bytes) = replace_form(&file, text)
            {
                pipeline.add(&format!("{id}-{file}.replace"), bytes);
            }
        }
    }
    for (file, text) in tutorial().files() {
        if let Some(bytes) = replace_form(&file, text) {
            pipeline.add(&format!("tutorial-{file}.replace"), bytes);
        }
    }
    let project = repo.join("fixtures/rasa-corpus/maestro-voice-banking-skills");
    let mut banking = Workspace::default();
    for (path, text) in walk(&project) {
        if path.ends_with("verdict.json") || path.contains("references/") {
            continue;
        }
        for area in [Area::Before, Area::After] {
            banking.set_file(&swaplab_core::FileRef::new(area, path.clone()), text.clone());
        }
    }
    for (file, text) in tutorial().files().filter(|(file, _)| file.area == Area::Crm) {
        banking.set_file(&file, text);
    }
    pipeline.add("corpus-banking-both-sides.files", files_form(&banking));
    pipeline.done();
}
