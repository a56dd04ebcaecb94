//! The connector and task driven natively through the SDK's harness, against files in a
//! temporary directory: what a user sees when the file grows, when the task restarts and
//! when the config is wrong.

use std::fs::{self, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use wasm_connect_sdk::serde_json::json;
use wasm_connect_sdk::testing::{ConnectorHarness, RecordsExt, SourceHarness, log_messages};
use wasm_connect_sdk::{Config, Kind, Level};

use crate::connector::FileStreamSource;
use crate::task::FileStreamSourceTask;

/// A fresh file path of this test's own (not created).
fn path(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("file-source-{}-{test}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir.join("in.txt")
}

fn append(path: &Path, text: &str) {
    let mut f = OpenOptions::new().create(true).append(true).open(path).unwrap();
    f.write_all(text.as_bytes()).unwrap();
}

fn config(path: &Path) -> Config {
    Config::new().with("file", path.to_str().unwrap()).with("topic", "lines")
}

#[test]
fn lines_become_string_records_with_byte_positions() {
    let file = path("lines");
    append(&file, "one\ntwo\r\nthree");
    let mut task = SourceHarness::<FileStreamSourceTask>::new();
    task.start(config(&file)).unwrap();
    let records = task.poll_until_empty().unwrap();
    assert_eq!(records.values_as_strings(), ["one", "two"], "a partial line waits");
    assert!(records.iter().all(|r| r.value_kind == Kind::String && r.key.is_none()));
    let partition = json!({ "filename": file.to_str().unwrap() });
    assert_eq!(records[1].source_partition, partition);
    assert_eq!(records[1].source_offset, json!({ "position": 9 }));
    append(&file, "\n");
    assert_eq!(task.poll_until_empty().unwrap().values_as_strings(), ["three"]);
}

#[test]
fn a_restarted_task_resumes_after_the_last_committed_line() {
    let file = path("restart");
    append(&file, "a\nb\nc\n");
    let mut task = SourceHarness::<FileStreamSourceTask>::new().max_records(2);
    task.start(config(&file)).unwrap();
    assert_eq!(task.poll().unwrap().values_as_strings(), ["a", "b"]);
    task.commit().unwrap();
    assert_eq!(task.poll().unwrap().values_as_strings(), ["c"]);
    task.restart().unwrap();
    append(&file, "d\n");
    let partition = json!({ "filename": file.to_str().unwrap() });
    assert_eq!(task.committed_offset(&partition), Some(json!({ "position": 4 })));
    assert_eq!(
        task.poll_until_empty().unwrap().values_as_strings(),
        ["c", "d"],
        "c was never committed, so it is read again"
    );
}

#[test]
fn a_missing_file_is_waited_for_with_one_warning() {
    let file = path("missing");
    let mut task = SourceHarness::<FileStreamSourceTask>::new();
    task.start(config(&file)).unwrap();
    assert!(task.poll().unwrap().is_empty());
    assert!(task.poll().unwrap().is_empty());
    let warnings = log_messages(Level::Warn);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].contains("waiting for it to be created"));
    append(&file, "late\n");
    assert_eq!(task.poll_until_empty().unwrap().values_as_strings(), ["late"]);
}

#[test]
fn validation_names_each_bad_key() {
    let connector = ConnectorHarness::<FileStreamSource>::new();
    assert!(connector.validate(&config(&path("valid"))).is_empty());
    let bad = Config::new().with("topic", "a,b").with("batch.size", "0").with("file", " ");
    let problems = connector.validate(&bad);
    let keys: Vec<&str> = problems.iter().map(|p| p.key.as_str()).collect();
    assert_eq!(keys, ["file", "batch.size", "topic"], "{problems:?}");
    assert_eq!(
        problems[1].message,
        "Invalid value 0 for configuration batch.size: Value must be at least 1"
    );
}

#[test]
fn the_connector_hands_its_whole_config_to_one_task() {
    let mut connector = ConnectorHarness::<FileStreamSource>::new();
    connector.start(config(&path("one-task"))).unwrap();
    let tasks = connector.task_configs(3).unwrap();
    assert_eq!(tasks.len(), 1);
    assert_eq!(tasks[0].get("batch.size"), Some("2000"), "the default is filled in");
}

#[test]
fn exactly_once_is_supported_when_reading_a_file() {
    use wasm_connect_sdk::ExactlyOnceSupport::{Supported, Unsupported};
    let connector = ConnectorHarness::<FileStreamSource>::new();
    let file = Config::new().with("file", "in.txt").with("topic", "t");
    assert_eq!(connector.exactly_once_support(&file), Some(Supported));
    let none = Config::new().with("file", " ").with("topic", "t");
    assert_eq!(connector.exactly_once_support(&none), Some(Unsupported));
}
