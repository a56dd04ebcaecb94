//! [`FileStreamSinkTask`]: appends each record's value and a newline to the file, like
//! Kafka Connect's `FileStreamSinkTask`, which prints the converted value: text as it is,
//! a JSON string bare, other JSON (or a Connect envelope's payload) as compact JSON, raw
//! bytes as they are, and a null value as `null`.
//!
//! This module owns the buffered file handle. A `put` writes its lines through one buffer
//! and hands them to the file before it returns (one write for a batch instead of one per
//! line), so a line is in the file as soon as its batch is put, as with Kafka Connect's
//! unbuffered `PrintStream`; `pre_commit` flushes again, so a committed consumer offset
//! never runs ahead of the file.

use std::borrow::Cow;
use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};

use wasm_connect_sdk::{
    Config, Error, Kind, RecordFailure, Result, SinkRecord, SinkRecordRef, SinkTask,
    TopicPartitionOffset, info, text,
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

    /// Appends one line per `(kind, value)` and hands them to the file.
    fn write<'a>(
        &mut self,
        values: impl Iterator<Item = (Kind, Option<&'a [u8]>)>,
    ) -> Result<Vec<RecordFailure>> {
        let path = self.path.clone();
        let fail = |e: std::io::Error| Error::fatal(format!("cannot write to {path}: {e}"));
        let out = self.out()?;
        for (kind, value) in values {
            out.write_all(&line(kind, value)).and_then(|()| out.write_all(b"\n")).map_err(fail)?;
        }
        out.flush().map_err(fail)?;
        Ok(Vec::new())
    }

    fn flush(&mut self) -> Result<()> {
        let path = self.path.clone();
        self.out()?.flush().map_err(|e| Error::fatal(format!("cannot flush {path}: {e}")))
    }
}

/// What one record writes, before its newline: the value as Kafka Connect prints the
/// converted value (`null` for a null), raw bytes as they are.
fn line(kind: Kind, value: Option<&[u8]>) -> Cow<'_, [u8]> {
    match (kind, value) {
        (Kind::Bytes, Some(bytes)) => Cow::Borrowed(bytes),
        _ => match value.and_then(|v| text(kind, v)) {
            Some(Cow::Borrowed(text)) => Cow::Borrowed(text.as_bytes()),
            Some(Cow::Owned(text)) => Cow::Owned(text.into_bytes()),
            None => Cow::Borrowed(b"null"),
        },
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
        self.write(records.iter().map(|r| (r.value_kind, r.value.as_deref())))
    }

    /// The worker's path: each line straight from the batch, no record copied.
    fn put_refs(&mut self, records: &[SinkRecordRef<'_>]) -> Result<Vec<RecordFailure>> {
        self.write(records.iter().map(|r| (r.value_kind, r.value)))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_print_the_converted_value() {
        let line = |kind, value: Option<&str>| {
            String::from_utf8(line(kind, value.map(str::as_bytes)).into_owned())
        };
        assert_eq!(line(Kind::String, Some("a line")).unwrap(), "a line");
        assert_eq!(line(Kind::Json, Some(r#""bare""#)).unwrap(), "bare");
        assert_eq!(line(Kind::Json, Some("{ \"a\": [1, 2] }")).unwrap(), r#"{"a":[1,2]}"#);
        let envelope = r#"{"schema":{"type":"string","optional":false},"payload":"text"}"#;
        assert_eq!(line(Kind::ConnectJson, Some(envelope)).unwrap(), "text");
        let envelope = r#"{"schema":{"type":"int64","optional":false},"payload":42}"#;
        assert_eq!(line(Kind::ConnectJson, Some(envelope)).unwrap(), "42");
        assert_eq!(line(Kind::Bytes, None).unwrap(), "null");
        assert_eq!(line(Kind::Json, Some("null")).unwrap(), "null");
        assert_eq!(&*super::line(Kind::Bytes, Some(&[0xff, b'\n'])), &[0xff, b'\n']);
    }

    #[test]
    fn put_and_put_refs_write_the_same_lines() {
        let dir = std::env::temp_dir().join(format!("file-sink-refs-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let records = [
            SinkRecord {
                value_kind: Kind::String,
                value: Some(b"a".to_vec()),
                ..Default::default()
            },
            SinkRecord {
                value_kind: Kind::Json,
                value: Some(br#""b""#.to_vec()),
                ..Default::default()
            },
            SinkRecord::default(),
        ];
        let batch = wasm_connect_batch::encode(&records);
        let mut written = Vec::new();
        for refs in [false, true] {
            let path = dir.join(format!("out-{refs}.txt"));
            let mut task = FileStreamSinkTask::default();
            task.start(Config::new().with("file", path.to_str().unwrap())).unwrap();
            if refs {
                let borrowed: Vec<SinkRecordRef<'_>> =
                    wasm_connect_batch::records(&batch).unwrap().map(Result::unwrap).collect();
                assert!(task.put_refs(&borrowed).unwrap().is_empty());
            } else {
                assert!(task.put(&records).unwrap().is_empty());
            }
            written.push(std::fs::read_to_string(&path).unwrap());
            task.stop();
        }
        assert_eq!(written[0], "a\nb\nnull\n");
        assert_eq!(written[0], written[1]);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
