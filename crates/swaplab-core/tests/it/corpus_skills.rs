//! Every `skill.md` in the shared corpus, compiled here and compared with what Rasa 3.21.0
//! itself made of it (`rasa-3.21.0-verdict.json`): the same files accepted and rejected,
//! the same code and message, and for accepted files the same compiled skill.

use swaplab_core::rasa::skill::compile_skill;

use crate::support::{corpus_dir, corpus_projects, read, shared_corpus_dir, walk};

#[test]
fn every_corpus_skill_compiles_as_rasa_compiled_it() {
    let mut compared = 0;
    let mut mismatches = Vec::new();
    for project in corpus_projects() {
        let verdict: serde_json::Value =
            serde_json::from_str(&read(&project.join("rasa-3.21.0-verdict.json")))
                .expect("verdict JSON");
        for entry in verdict["skills"].as_array().expect("skills") {
            let expected = &entry["skill_md"];
            let file = expected["file"].as_str().expect("file");
            let id = expected["skill_id"].as_str().expect("skill_id");
            let text = read(&project.join(file));
            let ours = compile_skill(file, id, &text);
            let name =
                format!("{}/{file}", project.file_name().unwrap_or_default().to_string_lossy());
            compared += 1;
            if expected["ok"].as_bool() == Some(true) {
                let Some(compiled) = &ours.compiled else {
                    mismatches
                        .push(format!("{name}: Rasa accepts it, we reject it: {:?}", ours.error));
                    continue;
                };
                let ours_json = serde_json::to_value(compiled).expect("serialise");
                let theirs = &expected["compiled"];
                for (key, value) in theirs.as_object().expect("compiled object") {
                    if ours_json.get(key) != Some(value) {
                        mismatches.push(format!(
                            "{name}: `{key}` differs\n  rasa: {value}\n  ours: {}",
                            ours_json.get(key).map_or("<missing>".to_owned(), ToString::to_string)
                        ));
                    }
                }
            } else {
                let Some(error) = &ours.error else {
                    mismatches.push(format!("{name}: Rasa rejects it, we accept it"));
                    continue;
                };
                let theirs = &expected["error"];
                if theirs["code"].as_str() != Some(error.code.as_str())
                    || theirs["message"].as_str() != Some(error.message.as_str())
                {
                    mismatches.push(format!(
                        "{name}: rasa {} {:?}, ours {} {:?}",
                        theirs["code"], theirs["message"], error.code, error.message
                    ));
                }
            }
        }
    }
    assert!(compared >= 30, "only {compared} skill files found");
    assert!(
        mismatches.is_empty(),
        "{} of {compared} differ:\n{}",
        mismatches.len(),
        mismatches.join("\n")
    );
}

#[test]
fn the_fixture_corpus_is_the_shared_corpus() {
    let shared = shared_corpus_dir();
    if !shared.is_dir() {
        // A clone without the shared folder beside it tests against the fixture alone.
        return;
    }
    let relative = |root: &std::path::Path| -> Vec<(String, String)> {
        walk(root)
            .into_iter()
            .map(|path| {
                let name = path.strip_prefix(root).unwrap_or(&path).to_string_lossy().into_owned();
                (name, read(&path))
            })
            .collect()
    };
    assert!(
        relative(&corpus_dir()) == relative(&shared),
        "fixtures/rasa-corpus differs from ../shared/corpus: copy it again"
    );
}
