//! Tests of connector files: both JSON shapes, properties, value coercion, every error,
//! and the example connector configs.

use std::path::{Path, PathBuf};

use super::*;

fn json(text: &str) -> Result<ConnectorFile, String> {
    parse_connector_json(text, Path::new("c.json")).map_err(|e| e.to_string())
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

#[test]
fn post_connectors_shape_adds_name_to_config() {
    let (name, config) =
        json(r#"{"name": "src", "config": {"connector.class": "X", "tasks.max": "2"}}"#).unwrap();
    assert_eq!(name, "src");
    assert_eq!(config, pairs(&[("name", "src"), ("connector.class", "X"), ("tasks.max", "2")]));
}

#[test]
fn post_connectors_shape_with_matching_inner_name() {
    let (_, config) = json(r#"{"config": {"b": "1", "name": "src"}, "name": "src"}"#).unwrap();
    assert_eq!(config, pairs(&[("b", "1"), ("name", "src")]));
}

#[test]
fn flat_shape_keeps_file_order() {
    let (name, config) = json(r#"{"z": "1", "name": "flat", "a": "2"}"#).unwrap();
    assert_eq!(name, "flat");
    assert_eq!(config, pairs(&[("z", "1"), ("name", "flat"), ("a", "2")]));
}

#[test]
fn numbers_and_booleans_become_strings() {
    let (_, config) =
        json(r#"{"name": "n", "config": {"tasks.max": 3, "ratio": 0.5, "enabled": true}}"#)
            .unwrap();
    assert_eq!(
        config,
        pairs(&[("name", "n"), ("tasks.max", "3"), ("ratio", "0.5"), ("enabled", "true")])
    );
}

#[test]
fn nested_and_null_values_name_the_key() {
    assert_eq!(
        json(r#"{"name": "n", "config": {"transforms": ["a"]}}"#).unwrap_err(),
        "c.json: transforms: expected a string, number or boolean, got an array"
    );
    assert_eq!(
        json(r#"{"name": "n", "nested": {"a": "b"}}"#).unwrap_err(),
        "c.json: nested: expected a string, number or boolean, got an object"
    );
    assert_eq!(
        json(r#"{"name": "n", "file": null}"#).unwrap_err(),
        "c.json: file: expected a string, number or boolean, got null"
    );
}

#[test]
fn shape_errors() {
    assert_eq!(json("[1]").unwrap_err(), "c.json: expected a JSON object, got an array");
    assert_eq!(json(r#"{"a": "1"}"#).unwrap_err(), "c.json: missing the \"name\" key");
    assert_eq!(
        json(r#"{"config": {"a": "1"}}"#).unwrap_err(),
        "c.json: missing the top-level \"name\" key"
    );
    assert_eq!(
        json(r#"{"name": "a", "config": {"name": "b"}}"#).unwrap_err(),
        "c.json: \"name\" is \"a\" but \"config\" has \"name\": \"b\""
    );
    assert_eq!(
        json(r#"{"name": "a", "config": {}, "tasks": []}"#).unwrap_err(),
        "c.json: unexpected top-level key \"tasks\": expected \"name\" and \"config\""
    );
    assert!(
        json(r#"{"name": "a", "config": {}, "initial_state": "PAUSED"}"#)
            .unwrap_err()
            .contains("\"initial_state\" is not supported")
    );
    assert_eq!(json(r#"{"name": " "}"#).unwrap_err(), "c.json: \"name\" must not be empty");
    assert!(json(r#"{"name": "a\nb"}"#).unwrap_err().contains("control characters"));
}

#[test]
fn invalid_json_reports_line_and_column() {
    let err = json("{\n  \"name\": \"x\",\n}").unwrap_err();
    assert!(err.starts_with("c.json: invalid JSON: ") && err.contains("line 3"), "{err}");
}

#[test]
fn files_by_extension() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        path
    };
    let (name, config) = read_connector_file(&write("a.properties", "name=p\nk = v\n")).unwrap();
    assert_eq!((name.as_str(), config), ("p", pairs(&[("name", "p"), ("k", "v")])));
    let (name, _) = read_connector_file(&write("b.JSON", r#"{"name": "j"}"#)).unwrap();
    assert_eq!(name, "j");

    let err = read_connector_file(&write("c.properties", "k=v\n")).unwrap_err().to_string();
    assert!(err.ends_with("c.properties: missing the \"name\" key"), "{err}");
    let err = read_connector_file(&write("d.yaml", "name: x")).unwrap_err();
    assert!(matches!(err, ConnectorFileError::Extension { .. }), "{err}");
    let err = read_connector_file(&dir.path().join("missing.json")).unwrap_err();
    assert!(matches!(err, ConnectorFileError::Read { .. }), "{err}");
    let err = read_connector_file(&write("e.properties", "name=\\uZZZZ\n")).unwrap_err();
    assert!(err.to_string().contains("e.properties:1: malformed"), "{err}");
}

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/configs").join(name)
}

#[test]
fn example_file_source_parses() {
    let (name, config) = read_connector_file(&example("file-source.json")).unwrap();
    assert_eq!(name, "file-source");
    assert_eq!(
        config,
        pairs(&[
            ("name", "file-source"),
            ("connector.class", "FileStreamSource"),
            ("tasks.max", "1"),
            ("file", "/tmp/wasm-connect/input.txt"),
            ("topic", "quickstart"),
        ])
    );
}

#[test]
fn example_file_sink_parses() {
    let (name, config) = read_connector_file(&example("file-sink.properties")).unwrap();
    assert_eq!(name, "file-sink");
    assert_eq!(
        config,
        pairs(&[
            ("name", "file-sink"),
            ("connector.class", "FileStreamSink"),
            ("tasks.max", "1"),
            ("topics", "quickstart"),
            ("file", "/tmp/wasm-connect/output.txt"),
        ])
    );
}
