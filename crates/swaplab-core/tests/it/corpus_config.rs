//! Every project `memory.yml`, skill `memory.yml` and `integrations.yml` in the shared
//! corpus, read here and compared with what Rasa 3.21.0 made of it
//! (`rasa-3.21.0-verdict.json`: `project_memory`, `skills[i].memory_yml`, `integrations`).

use std::path::{Path, PathBuf};

use serde_json::{Value as Json, json};
use swaplab_core::rasa::integrations::read_integrations;
use swaplab_core::rasa::memory::{MemoryField, read_project_memory, read_skill_memory};
use swaplab_core::rasa::responses::read_responses;
use swaplab_core::yaml::to_json;

use crate::support::{corpus_dir, list, read, read_optional, walk};

fn projects() -> Vec<PathBuf> {
    list(&corpus_dir())
        .into_iter()
        .filter(|path| path.join("rasa-3.21.0-verdict.json").is_file())
        .collect()
}

fn verdict(project: &Path) -> Json {
    serde_json::from_str(&read(&project.join("rasa-3.21.0-verdict.json"))).expect("verdict JSON")
}

/// A field in the verdict's shape (`MemoryField.model_dump()` without the name).
fn field_json(field: &MemoryField) -> Json {
    json!({
        "type": field.type_name,
        "description": field.description,
        "pii": field.pii,
        "anonymization": field.anonymization.as_ref().map(to_json),
        "initial_value": field.initial_value.as_ref().map(to_json),
        "privacy_rules": field.privacy_rules,
        "enum_values": field.enum_values.iter().map(to_json).collect::<Vec<_>>(),
        "llm_settable": field.llm_settable,
        "seed": field.seed,
    })
}

fn fields_json<'a>(fields: impl IntoIterator<Item = &'a MemoryField>) -> Json {
    Json::Object(fields.into_iter().map(|f| (f.name.clone(), field_json(f))).collect())
}

fn compare(name: &str, what: &str, theirs: &Json, ours: &Json, mismatches: &mut Vec<String>) {
    if theirs != ours {
        mismatches.push(format!("{name}: {what} differs\n  rasa: {theirs}\n  ours: {ours}"));
    }
}

#[test]
fn every_corpus_memory_file_reads_as_rasa_read_it() {
    let mut compared = 0;
    let mut mismatches = Vec::new();
    for project in projects() {
        let verdict = verdict(&project);
        let name = project.file_name().unwrap_or_default().to_string_lossy().into_owned();

        let expected = &verdict["project_memory"];
        let ours = read_project_memory(
            "memory.yml",
            read_optional(&project.join("memory.yml")).as_deref(),
        );
        compare(&name, "memory.yml ok", &expected["ok"], &json!(ours.ok), &mut mismatches);
        compare(
            &name,
            "memory.yml fields",
            &expected["fields"],
            &fields_json(&ours.fields),
            &mut mismatches,
        );
        compared += 1;

        for skill in verdict["skills"].as_array().expect("skills") {
            let dir = skill["dir"].as_str().expect("dir");
            let id = dir.rsplit('/').next().unwrap_or(dir);
            let file = format!("{dir}/memory.yml");
            let expected = &skill["memory_yml"];
            let Some(text) = read_optional(&project.join(&file)) else {
                compare(&name, &file, expected, &Json::Null, &mut mismatches);
                continue;
            };
            let ours = read_skill_memory(&file, id, &text);
            let label = format!("{file} ");
            compare(
                &name,
                &format!("{label}ok"),
                &expected["ok"],
                &json!(ours.ok),
                &mut mismatches,
            );
            compare(
                &name,
                &format!("{label}public"),
                &expected["public"],
                &fields_json(&ours.public),
                &mut mismatches,
            );
            compare(
                &name,
                &format!("{label}private"),
                &expected["private"],
                &fields_json(&ours.private),
                &mut mismatches,
            );
            compared += 1;
        }
    }
    assert!(compared >= 24, "only {compared} memory files found (3 project, 21 skill)");
    assert!(mismatches.is_empty(), "{} differ:\n{}", mismatches.len(), mismatches.join("\n"));
}

#[test]
fn every_corpus_integrations_file_reads_as_rasa_read_it() {
    let mut compared = 0;
    let mut mismatches = Vec::new();
    for project in projects() {
        let verdict = verdict(&project);
        let name = project.file_name().unwrap_or_default().to_string_lossy().into_owned();
        let expected = &verdict["integrations"];
        let ours = read_integrations(
            "integrations.yml",
            read_optional(&project.join("integrations.yml")).as_deref(),
        );

        compare(&name, "exists", &expected["exists"], &json!(ours.exists), &mut mismatches);
        let servers: serde_json::Map<String, Json> =
            ours.servers().iter().map(|s| (s.name.clone(), json!({ "url": s.url }))).collect();
        let theirs = &expected["mcp_servers"];
        compare(&name, "mcp_servers.ok", &theirs["ok"], &json!(ours.ok), &mut mismatches);
        compare(
            &name,
            "mcp_servers.declared",
            &theirs["declared"],
            &json!(ours.declared()),
            &mut mismatches,
        );
        let their_names: Vec<&String> =
            theirs["servers"].as_object().map(|map| map.keys().collect()).unwrap_or_default();
        let our_names: Vec<&String> = servers.keys().collect();
        if their_names != our_names {
            mismatches.push(format!("{name}: servers {their_names:?} vs ours {our_names:?}"));
        }

        let config = &expected["integration_config"];
        compare(
            &name,
            "integration_config.ok",
            &config["ok"],
            &json!(ours.config_ok),
            &mut mismatches,
        );
        let llm = ours.diagnostics.iter().find(|d| d.code == "swaplab.integrations.llm_section");
        match (config["ok"].as_bool(), llm) {
            (Some(false), Some(finding)) => {
                let message = config["error"]["message"].as_str().unwrap_or_default();
                if !message.contains(&finding.message) {
                    mismatches.push(format!("{name}: {message:?} lacks {:?}", finding.message));
                }
            }
            (Some(true), None) => {}
            (ok, finding) => {
                mismatches.push(format!("{name}: config ok {ok:?}, finding {finding:?}"));
            }
        }
        compared += 1;
    }
    assert!(compared >= 3, "only {compared} integrations files found");
    assert!(mismatches.is_empty(), "{} differ:\n{}", mismatches.len(), mismatches.join("\n"));
}

/// The verdicts say nothing about `responses.yml`; Rasa loads every one of these, so each
/// must read without a finding, every variant with a text.
#[test]
fn every_corpus_responses_file_reads_cleanly() {
    let mut responses = 0;
    for path in walk(&corpus_dir()) {
        if path.file_name().and_then(|n| n.to_str()) != Some("responses.yml") {
            continue;
        }
        let read = read_responses("responses.yml", &read(&path));
        assert!(read.diagnostics.is_empty(), "{}: {:#?}", path.display(), read.diagnostics);
        for response in &read.responses {
            assert!(response.name.starts_with("utter_"), "{}", response.name);
            assert!(response.variants.iter().all(|v| v.text.is_some()), "{}", response.name);
            responses += 1;
        }
    }
    assert!(responses >= 40, "only {responses} responses found");
}
