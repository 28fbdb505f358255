//! The proof's copy of `difflib` against CPython's: every case of
//! `fixtures/difflib/cases.json` (written by `fixtures/difflib/generate.py`) replayed.

use swaplab_core::difflib::{splitlines, unified_changes, universal_newlines};

use crate::support::read;

#[test]
fn difflib_agrees_with_cpython() {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/difflib/cases.json");
    let table: serde_json::Value = serde_json::from_str(&read(&path)).expect("the table parses");
    let cases = table["cases"].as_array().expect("a list of cases");
    assert!(cases.len() >= 250, "the table holds {} cases", cases.len());
    let mut disagreements = Vec::new();
    for (n, case) in cases.iter().enumerate() {
        // The script reads its files with `open()`: universal newlines first.
        let a = universal_newlines(case["a"].as_str().unwrap()).into_owned();
        let b = universal_newlines(case["b"].as_str().unwrap()).into_owned();
        let (a, b) = (splitlines(&a), splitlines(&b));
        let ours: Vec<String> = unified_changes(&a, &b)
            .into_iter()
            .map(|(mark, line)| format!("{mark}{line}"))
            .filter(|line| !line.starts_with("+++") && !line.starts_with("---"))
            .collect();
        let theirs: Vec<String> = case["changes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|line| line.as_str().unwrap().to_owned())
            .collect();
        if ours != theirs {
            disagreements.push(format!("case {n}: ours {ours:?}, CPython {theirs:?}"));
        }
    }
    assert!(disagreements.is_empty(), "{}", disagreements.join("\n"));
}
