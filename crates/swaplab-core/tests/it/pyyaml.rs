//! Differential test against the real PyYAML: `fixtures/pyyaml/cases.json` holds what
//! PyYAML 6.0.2's `safe_load` made of edge cases, of every YAML file and skill frontmatter
//! in the corpus and the examples, and of seeded mutations of them (regenerate with
//! `python3 fixtures/pyyaml/generate.py`). Our reader must build the same values, refuse
//! the same documents, and point at the same line.

use serde_json::{Value as Json, json};
use swaplab_core::diagnostic::Position;
use swaplab_core::yaml::{Node, YamlValue, parse};

use crate::support::read;

fn tagged(node: Option<&Node>) -> Json {
    let Some(node) = node else { return json!({"null": null}) };
    match &node.value {
        YamlValue::Null => json!({"null": null}),
        YamlValue::Bool(flag) => json!({"bool": flag}),
        YamlValue::Int(number) => json!({"int": number.to_string()}),
        YamlValue::Float(_) => json!({"float": swaplab_core::yaml::python_repr(&node.value)}),
        YamlValue::Str(text) => json!({"str": text}),
        YamlValue::Timestamp(text) if text.len() == 10 => json!({"date": text}),
        YamlValue::Timestamp(_) => json!({"datetime": "…"}),
        YamlValue::Bytes(bytes) => {
            json!({"bytes": bytes.iter().map(|&b| char::from(b)).collect::<String>()})
        }
        YamlValue::Seq(items) => {
            json!({"list": items.iter().map(|item| tagged(Some(item))).collect::<Vec<_>>()})
        }
        YamlValue::Map(entries) => json!({"dict": entries
            .iter()
            .map(|(key, value)| json!([tagged(Some(key)), tagged(Some(value))]))
            .collect::<Vec<_>>()}),
    }
}

/// PyYAML's datetimes are compared by type only (their ISO text is normalised).
fn comparable(value: &Json) -> Json {
    match value {
        Json::Object(map) if map.contains_key("datetime") => json!({"datetime": "…"}),
        Json::Object(map) => map.iter().map(|(k, v)| (k.clone(), comparable(v))).collect(),
        Json::Array(items) => items.iter().map(comparable).collect(),
        other => other.clone(),
    }
}

/// Cases where we knowingly differ from PyYAML, each with the reason. The test fails if
/// one of them starts to agree (so the list stays true) or if any other case differs.
const KNOWN: &[(&str, &str)] = &[
    ("edge: ...", "saphyr reads a lone document-end marker as an empty stream"),
    ("edge: k: 12345678901234567890", "ints beyond i64 become floats (yaml.rs says so)"),
    (
        "fixtures/rasa-corpus/maestro-voice-car-purchase-skills/agent.yml (mutation 2)",
        "saphyr requires a quoted scalar's continuation lines to be indented (YAML 1.2); \
         PyYAML does not",
    ),
    // The rest: both refuse, but the scanners give up at different places — after an
    // unclosed quote inside a block, on a key without ':' followed by more lines, and on an
    // anchor without a name. The line is within the same construct.
    ("content/examples/tutorial/after/integrations.yml (mutation 4)", "unclosed quote"),
    (
        "content/examples/tutorial/after/skills/log_interaction/responses.yml (mutation 2)",
        "unclosed quote",
    ),
    (
        "fixtures/rasa-corpus/maestro-voice-agent/skills/report_baggage/memory.yml (mutation 1)",
        "stray '!'",
    ),
    (
        "fixtures/rasa-corpus/maestro-voice-agent/skills/report_baggage/memory.yml (mutation 4)",
        "key without ':'",
    ),
    (
        "fixtures/rasa-corpus/maestro-voice-banking-skills/skills/remove_payee/memory.yml (mutation 1)",
        "key without ':'",
    ),
    (
        "fixtures/rasa-corpus/maestro-voice-banking-skills/skills/transfer_money/memory.yml (mutation 3)",
        "key without ':'",
    ),
    (
        "fixtures/rasa-corpus/maestro-voice-car-purchase-skills/endpoints.yml (mutation 0)",
        "anchor without a name",
    ),
    (
        "fixtures/rasa-corpus/maestro-voice-car-purchase-skills/memory.yml (mutation 5)",
        "unclosed quote",
    ),
    (
        "fixtures/rasa-corpus/maestro-voice-car-purchase-skills/skills/human_handoff/skill.md (mutation 4)",
        "key without ':'",
    ),
];

#[test]
fn values_errors_and_lines_agree_with_pyyaml() {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/pyyaml/cases.json");
    let fixture: Json = serde_json::from_str(&read(&path)).expect("cases.json");
    let cases = fixture["cases"].as_array().expect("cases");
    let mut mismatches = Vec::new();
    let mut known_seen = Vec::new();
    let mut errors = 0;
    for case in cases {
        let text = case["yaml"].as_str().expect("yaml");
        let source = case["source"].as_str().unwrap_or("?");
        let key = if source == "edge" { format!("edge: {text}") } else { source.to_owned() };
        let before = mismatches.len();
        let ours = parse(text, Position::START);
        match (&ours, case.get("value"), case.get("error")) {
            (Ok(node), Some(theirs), _) => {
                let ours = tagged(node.as_ref());
                if comparable(&ours) != comparable(theirs) {
                    mismatches.push(format!("{source}: value differs\n  yaml: {text:?}\n  pyyaml: {theirs}\n  ours:   {ours}"));
                }
            }
            (Err(error), _, Some(theirs)) => {
                errors += 1;
                if let Some(line) = theirs["line"].as_u64()
                    && u64::from(error.at.line) != line
                {
                    mismatches.push(format!(
                        "{source}: error line differs\n  yaml: {text:?}\n  pyyaml: line {line}: {}\n  ours:   line {}: {}",
                        theirs["problem"], error.at.line, error.message
                    ));
                }
            }
            (Ok(node), None, Some(theirs)) => mismatches.push(format!(
                "{source}: PyYAML refuses it ({}), we read {}\n  yaml: {text:?}",
                theirs["problem"],
                tagged(node.as_ref())
            )),
            (Err(error), Some(theirs), _) => mismatches.push(format!(
                "{source}: PyYAML reads {theirs}, we refuse it: {}\n  yaml: {text:?}",
                error.message
            )),
            _ => mismatches.push(format!("{source}: malformed case")),
        }
        if KNOWN.iter().any(|(known, _)| *known == key) {
            known_seen.push(key.clone());
            if mismatches.len() == before {
                mismatches.push(format!("{key}: listed as a known difference but agrees now"));
            } else {
                mismatches.truncate(before);
            }
        }
    }
    assert_eq!(known_seen.len(), KNOWN.len(), "every known difference is a case: {known_seen:?}");
    assert!(cases.len() > 500 && errors > 100, "{} cases, {errors} errors", cases.len());
    assert!(
        mismatches.is_empty(),
        "{} of {} cases differ:\n{}",
        mismatches.len(),
        cases.len(),
        mismatches.join("\n")
    );
}
