//! PyYAML-compatible reading: YAML 1.1 scalars, duplicate keys, merges, limits, positions.

use swaplab_core::diagnostic::Position;
use swaplab_core::yaml::{Node, YamlValue, parse, python_repr};

fn load(text: &str) -> Node {
    match parse(text, Position::START) {
        Ok(Some(node)) => node,
        other => panic!("{text:?} did not load: {other:?}"),
    }
}

fn scalar(text: &str) -> YamlValue {
    load(&format!("k: {text}\n")).get("k").expect("key k").value.clone()
}

#[test]
fn plain_scalars_resolve_as_pyyaml_does() {
    let cases: &[(&str, YamlValue)] = &[
        ("yes", YamlValue::Bool(true)),
        ("On", YamlValue::Bool(true)),
        ("OFF", YamlValue::Bool(false)),
        ("no", YamlValue::Bool(false)),
        ("y", YamlValue::Str("y".into())),
        ("'yes'", YamlValue::Str("yes".into())),
        ("~", YamlValue::Null),
        ("", YamlValue::Null),
        ("Null", YamlValue::Null),
        ("42", YamlValue::Int(42)),
        ("-1_000", YamlValue::Int(-1000)),
        ("0x1F", YamlValue::Int(31)),
        ("0b101", YamlValue::Int(5)),
        ("0777", YamlValue::Int(511)),
        ("1:30", YamlValue::Int(90)),
        ("09", YamlValue::Str("09".into())),
        ("1.5", YamlValue::Float(1.5)),
        ("1.", YamlValue::Float(1.0)),
        ("1e3", YamlValue::Str("1e3".into())),
        ("1.0e+3", YamlValue::Float(1000.0)),
        ("-.inf", YamlValue::Float(f64::NEG_INFINITY)),
        ("2026-08-11", YamlValue::Timestamp("2026-08-11".into())),
        ("\"701\"", YamlValue::Str("701".into())),
        ("701", YamlValue::Int(701)),
    ];
    for (text, expected) in cases {
        assert_eq!(&scalar(text), expected, "{text}");
    }
}

#[test]
fn an_unquoted_on_key_is_the_boolean_true() {
    let node = load("utter_x:\n  on: activate\n");
    let inner = node.get("utter_x").expect("utter_x");
    let entries = inner.as_map().expect("mapping");
    assert_eq!(entries[0].0.value, YamlValue::Bool(true));
    assert_eq!(python_repr(&inner.value), "{True: 'activate'}");
}

#[test]
fn duplicate_keys_keep_the_first_place_and_the_last_value() {
    let node = load("a: 1\nb: 2\na: 3\n");
    assert_eq!(python_repr(&node.value), "{'a': 3, 'b': 2}");
    let node = load("1: x\ntrue: y\n");
    assert_eq!(python_repr(&node.value), "{1: 'y'}");
}

#[test]
fn merges_and_aliases_expand() {
    let node = load("base: &b {x: 1, y: 2}\nuse:\n  <<: *b\n  y: 3\n");
    assert_eq!(python_repr(&node.get("use").expect("use").value), "{'x': 1, 'y': 3}");
}

#[test]
fn positions_are_file_positions() {
    let node = parse("a:\n  b: [1, 2]\n", Position::new(5, 1)).expect("ok").expect("doc");
    let b = node.get("a").and_then(|a| a.entry("b")).expect("b");
    assert_eq!(b.0.span.start, Position::new(6, 3));
    assert_eq!(b.1.span.start, Position::new(6, 6));
}

#[test]
fn bad_yaml_reports_where() {
    let error = parse("a: [1, 2\nb: 3\n", Position::new(2, 1)).expect_err("unclosed flow");
    assert!(error.at.line >= 2, "{error:?}");
    assert!(parse("a: 1\n---\nb: 2\n", Position::START).is_err(), "two documents");
    assert!(parse("- !python/object x\n", Position::START).is_err(), "unsafe tag");
    assert!(parse("[[1]]: x\n", Position::START).is_err(), "unhashable key");
}

#[test]
fn limits_refuse_instead_of_exhausting() {
    let deep = format!("{}{}", "[".repeat(500), "]".repeat(500));
    let error = parse(&deep, Position::START).expect_err("too deep");
    assert!(error.message.contains("recursion limit"), "{error:?}");
    let block: String = (0..300).map(|depth| format!("{}- \n", "  ".repeat(depth))).collect();
    let error = parse(&block, Position::START).expect_err("too deep");
    assert!(error.message.contains("deeper than"), "{error:?}");
    let mut laughs = String::from("a: &a [x, x, x, x, x, x, x, x, x, x]\n");
    for (prev, name) in ["a", "b", "c", "d", "e", "f"].iter().zip(["b", "c", "d", "e", "f", "g"]) {
        laughs.push_str(&format!(
            "{name}: &{name} [*{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}]\n"
        ));
    }
    let error = parse(&laughs, Position::START).expect_err("billion laughs");
    assert!(error.message.contains("aliases"), "{error:?}");
}

#[test]
fn empty_documents_are_none() {
    assert_eq!(parse("", Position::START), Ok(None));
    assert_eq!(parse("# only a comment\n", Position::START), Ok(None));
}

#[test]
fn floats_print_as_python_prints_them() {
    let cases = [
        ("1.0", "1.0"),
        ("0.00001", "1e-05"),
        ("1.0e+16", "1e+16"),
        ("2.5", "2.5"),
        ("-.inf", "-inf"),
    ];
    for (text, expected) in cases {
        assert_eq!(python_repr(&scalar(text)), expected, "{text}");
    }
}

#[test]
fn positions_count_lines_as_the_editor_does_when_a_lone_carriage_return_is_in_the_text() {
    // YAML ends a line at a lone `\r`; the editor, and every other position Swap Lab
    // reports, ends lines at `\n` only. So a finding in a text with a lone `\r` points at
    // the same character as in the text with `\n` there, counted the editor's way.
    let with_newline = parse("a: 1\nb: c: d\n", Position::START).unwrap_err();
    assert_eq!(with_newline.at.line, 2, "{with_newline:?}");
    let error = parse("a: 1\rb: c: d\n", Position::START).unwrap_err();
    assert_eq!(error.message, with_newline.message);
    assert_eq!(error.at, Position::new(1, 5 + with_newline.at.column), "{error:?}");
    // From a later origin (a frontmatter), two lone `\r`s on one editor line.
    let with_newline = parse("x: 1\ny: 2\n\nz: [1,\n  2: 3: 4\n", Position::new(4, 1)).unwrap_err();
    let error = parse("x: 1\ny: 2\r\rz: [1,\n  2: 3: 4\n", Position::new(4, 1)).unwrap_err();
    assert_eq!(error.at.line + 2, with_newline.at.line, "{error:?} {with_newline:?}");
    assert_eq!(error.at.column, with_newline.at.column);
    let node = load("a: 1\rb: 2\r\nc: 3\n");
    let b = node.get("b").unwrap();
    assert_eq!((b.span.start, b.span.end), (Position::new(1, 9), Position::new(1, 10)));
    assert_eq!(node.get("c").unwrap().span.start, Position::new(2, 4));
    // A `\r\n` ends one line, as before.
    let node = load("a: 1\r\nb: 2\n");
    assert_eq!(node.get("b").unwrap().span.start, Position::new(2, 4));
}
