//! The connector and task driven natively through the SDK's harness, writing to a file in
//! a temporary directory: what lands in the file, and when.

use std::fs;
use std::path::{Path, PathBuf};

use wasm_connect_sdk::serde_json::json;
use wasm_connect_sdk::testing::{ConnectorHarness, SinkHarness};
use wasm_connect_sdk::{Config, Error, Kind, SinkRecord, TopicPartition};

use crate::connector::FileStreamSink;
use crate::task::FileStreamSinkTask;

/// A fresh file path of this test's own (not created).
fn path(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("file-sink-{}-{test}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir.join("out.txt")
}

fn config(path: &Path) -> Config {
    Config::new().with("file", path.to_str().unwrap()).with("topics", "t")
}

#[test]
fn values_are_appended_one_per_line_and_in_the_file_once_put_returns() {
    let file = path("append");
    let mut sink = SinkHarness::<FileStreamSinkTask>::new();
    sink.start(config(&file)).unwrap();
    let tp = TopicPartition { topic: "t".into(), partition: 0 };
    sink.open(std::slice::from_ref(&tp)).unwrap();
    let mut records = sink.string_records("t", 0, ["plain text"]);
    records.extend(sink.json_records("t", 0, [json!("bare"), json!({"a": [1, 2]})]));
    let tombstone = sink.next_record("t", 0);
    let envelope = r#"{"schema":{"type":"int64","optional":false},"payload":42}"#;
    let connect = SinkRecord {
        value_kind: Kind::ConnectJson,
        value: Some(envelope.into()),
        ..sink.next_record("t", 0)
    };
    records.extend([tombstone, connect]);
    assert!(sink.put(&records).unwrap().is_empty());
    let lines = "plain text\nbare\n{\"a\":[1,2]}\nnull\n42\n";
    assert_eq!(fs::read_to_string(&file).unwrap(), lines, "written when put returns");
    let committed = sink.commit().unwrap();
    assert_eq!(committed[0].offset, 5);
    assert_eq!(sink.committed_offset(&tp), Some(5));
    assert_eq!(fs::read_to_string(&file).unwrap(), lines);
    sink.close(&[tp]).unwrap();
    sink.stop();
}

#[test]
fn an_unwritable_file_fails_the_task_at_start() {
    let dir = path("unwritable").parent().unwrap().join("no-such-dir").join("out.txt");
    let mut sink = SinkHarness::<FileStreamSinkTask>::new();
    let err = sink.start(config(&dir)).unwrap_err();
    assert!(matches!(&err, Error::Fatal(m) if m.contains("Couldn't find or create file")), "{err}");
}

#[test]
fn every_task_gets_the_same_config_and_an_empty_file_is_invalid() {
    let mut connector = ConnectorHarness::<FileStreamSink>::new();
    let problems = connector.validate(&Config::new().with("file", "").with("topics", "t"));
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!(problems[0].key, "file");
    connector.start(config(&path("tasks"))).unwrap();
    let tasks = connector.task_configs(3).unwrap();
    assert_eq!(tasks.len(), 3);
    assert!(tasks.windows(2).all(|w| w[0] == w[1]));
}
