//! [`FileStreamSinkTask`]: appends each record's value and a newline to the file, like
//! Kafka Connect's `FileStreamSinkTask` (a null value is written as `null`).
//!
//! This module owns the buffered file handle. Writes are buffered and flushed in
//! `pre_commit`, so a committed consumer offset never runs ahead of the file.

use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};

use wasm_connect_sdk::{
    Config, Error, RecordFailure, Result, SinkRecord, SinkTask, TopicPartitionOffset, info,
};

use crate::config;

/// The task; no file until `start`.
#[derive(Default)]
pub struct FileStreamSinkTask {
    path: String,
    out: Option<BufWriter<File>>,
}

impl FileStreamSinkTask {
    fn out(&mut self) -> Result<&mut BufWriter<File>> {
        self.out.as_mut().ok_or_else(|| Error::fatal("FileStreamSinkTask used before start"))
    }

    fn flush(&mut self) -> Result<()> {
        let path = self.path.clone();
        self.out()?.flush().map_err(|e| Error::fatal(format!("cannot flush {path}: {e}")))
    }
}

impl SinkTask for FileStreamSinkTask {
    fn start(&mut self, config: Config) -> Result<()> {
        self.path = config.require(config::FILE)?.trim().to_owned();
        let file = OpenOptions::new().create(true).append(true).open(&self.path).map_err(|e| {
            Error::fatal(format!(
                "Couldn't find or create file '{}' for FileStreamSinkTask: {e}",
                self.path
            ))
        })?;
        info!("Appending to {}", self.path);
        self.out = Some(BufWriter::with_capacity(64 * 1024, file));
        Ok(())
    }

    fn put(&mut self, records: &[SinkRecord]) -> Result<Vec<RecordFailure>> {
        let path = self.path.clone();
        let out = self.out()?;
        for record in records {
            let value = record.value.as_deref().unwrap_or(b"null");
            out.write_all(value)
                .and_then(|()| out.write_all(b"\n"))
                .map_err(|e| Error::fatal(format!("cannot write to {path}: {e}")))?;
        }
        Ok(Vec::new())
    }

    fn pre_commit(
        &mut self,
        offsets: Vec<TopicPartitionOffset>,
    ) -> Result<Vec<TopicPartitionOffset>> {
        self.flush()?;
        Ok(offsets)
    }

    fn stop(&mut self) {
        if self.out.is_some() {
            let _ = self.flush();
        }
        self.out = None;
    }
}
