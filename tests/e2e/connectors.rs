//! The connectors we ship, driven through the runtime: file-source → records →
//! file-sink, and datagen, each in its own sandbox with only its file granted.

use std::sync::Arc;

use wasm_connect::model::PluginKind;
use wasm_connect::runtime::{Identity, InstanceHost};
use wasm_connect_batch::Record;

use crate::support::{cfg, connector, no_host, task};

/// Serves committed offsets from a fixed map.
struct Offsets(Vec<(String, String)>);

impl InstanceHost for Offsets {
    fn offsets(&self, _ident: &Identity, partitions: &[String]) -> Vec<Option<String>> {
        partitions
            .iter()
            .map(|p| {
                let want: serde_json::Value = serde_json::from_str(p).unwrap();
                self.0
                    .iter()
                    .find(|(k, _)| serde_json::from_str::<serde_json::Value>(k).unwrap() == want)
                    .map(|(_, v)| v.clone())
            })
            .collect()
    }
}

#[tokio::test]
async fn plugins_describe_themselves() {
    let src = connector("file-source").await;
    assert_eq!(src.info().name, "org.apache.kafka.connect.file.FileStreamSourceConnector");
    assert_eq!(src.info().kind, PluginKind::Source);
    assert!(src.info().config_def.key("file").is_some());
    let sink = connector("file-sink").await;
    assert_eq!(sink.info().name, "org.apache.kafka.connect.file.FileStreamSinkConnector");
    assert_eq!(sink.info().kind, PluginKind::Sink);
    let datagen = connector("datagen").await;
    assert_eq!(datagen.info().name, "Datagen");
}

#[tokio::test]
async fn file_source_to_file_sink_copies_every_line() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.txt");
    let output = dir.path().join("out.txt");
    let lines: Vec<String> = (0..250).map(|i| format!("line number {i}")).collect();
    std::fs::write(&input, lines.join("\n") + "\n").unwrap();

    let src = connector("file-source").await;
    let config = cfg(&[("file", input.to_str().unwrap()), ("topic", "t"), ("batch.size", "100")]);
    let c = src.connector(Identity::connector("src"), &config, no_host()).await.unwrap();
    c.start(config.clone()).await.unwrap();
    let task_configs = c.task_configs(4).await.unwrap();
    assert_eq!(task_configs.len(), 1, "FileStreamSource runs one task");
    let t = src.source_task(task("src"), &task_configs[0], no_host()).await.unwrap();
    t.start(task_configs[0].clone()).await.unwrap();
    let mut records = Vec::new();
    for _ in 0..10 {
        let batch = t.poll(100).await.unwrap();
        assert!(batch.len() <= 100);
        records.extend(batch);
    }
    assert_eq!(records.len(), 250);
    assert!(records.iter().all(|r| &*r.topic == "t"));
    let last_offset: serde_json::Value =
        serde_json::from_slice(records.last().unwrap().source_offset.as_ref().unwrap()).unwrap();
    let file_len = std::fs::metadata(&input).unwrap().len();
    assert_eq!(last_offset["position"], file_len);

    let sink = connector("file-sink").await;
    let sconfig = cfg(&[("file", output.to_str().unwrap()), ("topics", "t")]);
    let s = sink.sink_task(task("sink"), &sconfig, no_host()).await.unwrap();
    s.start(sconfig).await.unwrap();
    let records: Vec<Record> = records.iter().map(Record::from).collect();
    for chunk in records.chunks(64) {
        assert!(s.put(chunk).await.unwrap().is_empty());
    }
    s.pre_commit(&[]).await.unwrap();
    s.stop().await.unwrap();
    assert_eq!(std::fs::read_to_string(&output).unwrap(), std::fs::read_to_string(&input).unwrap());
}

#[tokio::test]
async fn file_source_resumes_from_the_committed_offset() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.txt");
    std::fs::write(&input, "a\nbb\nccc\n").unwrap();
    let partition = serde_json::json!({ "filename": input.to_str().unwrap() }).to_string();
    let host = Arc::new(Offsets(vec![(partition, r#"{"position":5}"#.into())]));
    let src = connector("file-source").await;
    let config = cfg(&[("file", input.to_str().unwrap()), ("topic", "t")]);
    let t = src.source_task(task("resume"), &config, host).await.unwrap();
    t.start(config).await.unwrap();
    let records = t.poll(10).await.unwrap();
    let values: Vec<_> = records.iter().map(|r| r.value.clone().unwrap()).collect();
    assert_eq!(values, vec![b"ccc".to_vec()], "resumed after \"a\\nbb\\n\"");
}

#[tokio::test]
async fn datagen_emits_the_configured_shape_and_count() {
    let datagen = connector("datagen").await;
    let config =
        cfg(&[("topic", "g"), ("records", "250"), ("value.size", "100"), ("key.size", "8")]);
    let t = datagen.source_task(task("gen"), &config, no_host()).await.unwrap();
    t.start(config).await.unwrap();
    let mut n = 0;
    loop {
        let batch = t.poll(100).await.unwrap();
        if batch.is_empty() {
            break;
        }
        for r in &batch {
            assert_eq!(r.value.as_ref().unwrap().len(), 100);
            assert_eq!(r.key.as_ref().unwrap().len(), 8);
        }
        n += batch.len();
    }
    assert_eq!(n, 250);
}

/// The largest sizes datagen's definition accepts run inside the default sandbox (memory
/// cap and batch limit of a Rust guest), poll after poll, with the most records a poll
/// may ask for.
#[tokio::test]
async fn datagen_at_its_largest_sizes_fits_the_sandbox() {
    let datagen = connector("datagen").await;
    let config = cfg(&[
        ("topic", "g"),
        ("key.size", "1048576"),
        ("value.size", "8388608"),
        ("batch.size", "1000"),
    ]);
    let problems = datagen.validator().await.unwrap().validate(config.clone()).await.unwrap();
    assert!(problems.is_empty(), "{problems:?}");
    let t = datagen.source_task(task("gen-large"), &config, no_host()).await.unwrap();
    t.start(config).await.unwrap();
    for _ in 0..3 {
        let batch = t.poll(1000).await.expect("a poll at the bounds succeeds");
        assert_eq!(batch.len(), 1);
        assert_eq!(batch[0].value.as_ref().unwrap().len(), 8 << 20);
    }
    // Mid-sized records: as many as the 8 MiB poll budget holds.
    let config = cfg(&[("topic", "g"), ("value.size", "100000"), ("key.size", "0")]);
    let t = datagen.source_task(task("gen-mid"), &config, no_host()).await.unwrap();
    t.start(config).await.unwrap();
    assert_eq!(t.poll(1000).await.unwrap().len(), (8 << 20) / 100_000);
}
