//! A damaged page in the middle of the embedded store: the sink reading across it fails
//! with SQLite's error as its trace, instead of logging it forever while its status says
//! RUNNING.

use std::io::{Seek, SeekFrom, Write};
use std::path::Path;

use wasm_connect::model::State;
use wasm_connect::store::{DataRecord, EmbeddedBackend};

use crate::harness::{Backing, eventually, props};

/// Records written before the damage: with 1 kB values, a few thousand pages of 4 kB.
const RECORDS: usize = 10_000;

/// Writes `RECORDS` records to `topic`, then moves them from the write-ahead log into the
/// database file itself, so that a page of the file holds them.
async fn fill(db: &Path, topic: &str) {
    let backend = EmbeddedBackend::open(db).unwrap();
    let padding = "x".repeat(1000);
    for chunk in 0..RECORDS / 1000 {
        let records = (0..1000)
            .map(|i| DataRecord {
                topic: topic.to_owned(),
                partition: Some(0),
                timestamp_ms: None,
                key: None,
                value: Some(format!("record {} {padding}", chunk * 1000 + i).into_bytes()),
                headers: Vec::new(),
            })
            .collect();
        backend.append_data(records).await.unwrap();
    }
    drop(backend);
    let conn = rusqlite::Connection::open(db).unwrap();
    let busy: i64 =
        conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |row| row.get(0)).unwrap();
    assert_eq!(busy, 0, "the checkpoint could not complete");
}

/// Overwrites with garbage the table leaf page (SQLite page type 0x0D) in the middle of
/// the file's table leaf pages: the rows it held can no longer be read.
fn damage_a_middle_page(db: &Path) {
    let bytes = std::fs::read(db).unwrap();
    let page_size = match u16::from_be_bytes([bytes[16], bytes[17]]) {
        1 => 65536,
        n => usize::from(n),
    };
    let leaves: Vec<usize> =
        (1..bytes.len() / page_size).filter(|p| bytes[p * page_size] == 0x0D).collect();
    assert!(leaves.len() > 100, "only {} table leaf pages", leaves.len());
    let page = leaves[leaves.len() / 2];
    let mut file = std::fs::OpenOptions::new().write(true).open(db).unwrap();
    file.seek(SeekFrom::Start((page * page_size) as u64)).unwrap();
    file.write_all(&vec![0xA5; page_size]).unwrap();
    file.sync_all().unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sink_reading_a_damaged_page_fails_with_the_error() {
    let dir = tempfile::tempdir().unwrap();
    let b = Backing::embedded(&dir);
    let Backing::Embedded(db) = &b else { unreachable!() };
    fill(db, "damaged").await;
    damage_a_middle_page(db);
    let app = b.start_with(&[("offset.flush.interval.ms", "500")]).await;
    let out = dir.path().join("out.txt");
    let config = props(&[
        ("connector.class", "FileStreamSink"),
        ("file", out.to_str().unwrap()),
        ("topics", "damaged"),
        ("value.converter", "org.apache.kafka.connect.storage.StringConverter"),
    ]);
    app.herder.put_connector_config("reader", config, None, false).await.unwrap();
    let trace = eventually(120, "task 0 to fail", async || {
        let status = app.herder.task_status("reader", 0).ok()?;
        (status.state == State::Failed).then(|| status.trace.unwrap_or_default())
    })
    .await;
    assert!(trace.contains("database disk image is malformed"), "{trace}");
    assert!(trace.contains("worker.db"), "the trace does not name the file:\n{trace}");
    app.shutdown().await;
}
