//! [`FileStreamSourceTask`]: reads the file from its committed position, one record per
//! line, like Kafka Connect's `FileStreamSourceTask`.
//!
//! This module owns the file handle and the resume position. Line splitting lives in
//! `lines`; the task never sleeps (an empty poll tells the worker to wait).

use std::fs::File;
use std::io::{ErrorKind, Read, Seek, SeekFrom};

use wasm_connect_sdk::serde_json::{Value, json};
use wasm_connect_sdk::{Config, Error, Result, SourceRecord, SourceTask, info, offsets, warn};

use crate::config::{DEFAULT_BATCH_SIZE, Settings};
use crate::lines::LineBuffer;

/// How many bytes one read asks for: a few polls' worth of typical lines, so that a
/// file read (a hop to the host's blocking threads) serves several polls.
const READ_CHUNK: usize = 512 * 1024;

/// The task; `None` fields until `start`.
#[derive(Default)]
pub struct FileStreamSourceTask {
    settings: Option<Settings>,
    partition: Value,
    file: Option<File>,
    lines: LineBuffer,
    /// Whether the last attempt found no file (so the warning is logged once per absence).
    missing: bool,
    /// Whether the last read hit the end of the file. WASI's file input stream stays at
    /// its end once it reached it, so the next read seeks first to see appended bytes.
    at_end: bool,
}

impl FileStreamSourceTask {
    /// The committed position of this file, or 0.
    fn committed_position(partition: &Value) -> Result<u64> {
        let Some(offset) = offsets(std::slice::from_ref(partition)).pop().flatten() else {
            return Ok(0);
        };
        match offset.get("position").and_then(Value::as_u64) {
            Some(p) => Ok(p),
            None => Err(Error::fatal(format!(
                "committed offset {offset} has no non-negative integer `position`"
            ))),
        }
    }

    /// Opens the file at the buffer's read position; `Ok(false)` if it does not exist yet.
    fn open(&mut self, path: &str) -> Result<bool> {
        let mut file = match File::open(path) {
            Ok(f) => f,
            Err(e) if e.kind() == ErrorKind::NotFound => {
                if !std::mem::replace(&mut self.missing, true) {
                    warn!(
                        "Couldn't find file {path} for FileStreamSourceTask, waiting for it to be created"
                    );
                }
                return Ok(false);
            }
            Err(e) => return Err(Error::fatal(format!("cannot open {path}: {e}"))),
        };
        let position = self.lines.read_position();
        file.seek(SeekFrom::Start(position))
            .map_err(|e| Error::fatal(format!("cannot seek {path} to {position}: {e}")))?;
        info!("Reading {path} from position {position}");
        self.missing = false;
        self.file = Some(file);
        Ok(true)
    }
}

impl SourceTask for FileStreamSourceTask {
    fn start(&mut self, config: Config) -> Result<()> {
        let settings = Settings::parse(&config)?;
        self.partition = settings.source_partition();
        self.lines = LineBuffer::at(Self::committed_position(&self.partition)?);
        self.settings = Some(settings);
        Ok(())
    }

    fn poll(&mut self, max_records: u32) -> Result<Vec<SourceRecord>> {
        let Some(settings) = self.settings.clone() else {
            return Err(Error::fatal("poll before start"));
        };
        if self.file.is_none() && !self.open(&settings.file)? {
            return Ok(Vec::new());
        }
        let limit = settings.batch_size.min(max_records as usize);
        // Room for a default batch up front (a huge `batch.size` grows as lines come).
        let mut records = Vec::with_capacity(limit.min(DEFAULT_BATCH_SIZE as usize));
        while records.len() < limit {
            if let Some((line, position)) = self.lines.next_line() {
                // Valid UTF-8 (the usual case) is checked a word at a time and copied once.
                let value = match std::str::from_utf8(line) {
                    Ok(text) => text.to_owned(),
                    Err(_) => String::from_utf8_lossy(line).into_owned(),
                };
                records.push(
                    SourceRecord::new(
                        &settings.topic,
                        self.partition.clone(),
                        json!({ "position": position }),
                    )
                    .string_value(value),
                );
                continue;
            }
            let file = self.file.as_mut().expect("opened above");
            if std::mem::take(&mut self.at_end) {
                file.seek(SeekFrom::Start(self.lines.read_position()))?;
            }
            let spare = self.lines.spare(READ_CHUNK);
            let read = file.read(spare);
            let n = *read.as_ref().unwrap_or(&0);
            self.lines.filled(READ_CHUNK, n);
            match read {
                Ok(0) => {
                    self.at_end = true;
                    break;
                }
                Ok(_) => {}
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) => {
                    return Err(Error::fatal(format!("error reading {}: {e}", settings.file)));
                }
            }
        }
        Ok(records)
    }

    fn stop(&mut self) {
        self.file = None;
    }
}
