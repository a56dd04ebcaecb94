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
    Config, Error, Kind, RecordFailure, RecordText, Result, SinkRecord, SinkTask,
    TopicPartitionOffset, info,
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

/// What one record writes, before its newline: the value as Kafka Connect prints the
/// converted value (`null` for a null), raw bytes as they are.
fn line(record: &SinkRecord) -> Cow<'_, [u8]> {
    match (record.value_kind, &record.value) {
        (Kind::Bytes, Some(bytes)) => Cow::Borrowed(bytes),
        _ => match record.value_text() {
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
        let path = self.path.clone();
        let out = self.out()?;
        for record in records {
            out.write_all(&line(record))
                .and_then(|()| out.write_all(b"\n"))
                .map_err(|e| Error::fatal(format!("cannot write to {path}: {e}")))?;
        }
        out.flush().map_err(|e| Error::fatal(format!("cannot write to {path}: {e}")))?;
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

#[cfg(test)]
mod tests {
    use super::*;

    fn record(kind: Kind, value: Option<&str>) -> SinkRecord {
        SinkRecord { value_kind: kind, value: value.map(Into::into), ..SinkRecord::default() }
    }

    #[test]
    fn lines_print_the_converted_value() {
        let line = |kind, value| String::from_utf8(line(&record(kind, value)).into_owned());
        assert_eq!(line(Kind::String, Some("a line")).unwrap(), "a line");
        assert_eq!(line(Kind::Json, Some(r#""bare""#)).unwrap(), "bare");
        assert_eq!(line(Kind::Json, Some("{ \"a\": [1, 2] }")).unwrap(), r#"{"a":[1,2]}"#);
        let envelope = r#"{"schema":{"type":"string","optional":false},"payload":"text"}"#;
        assert_eq!(line(Kind::ConnectJson, Some(envelope)).unwrap(), "text");
        let envelope = r#"{"schema":{"type":"int64","optional":false},"payload":42}"#;
        assert_eq!(line(Kind::ConnectJson, Some(envelope)).unwrap(), "42");
        assert_eq!(line(Kind::Bytes, None).unwrap(), "null");
        assert_eq!(line(Kind::Json, Some("null")).unwrap(), "null");
        let raw = SinkRecord { value: Some(vec![0xff, b'\n']), ..SinkRecord::default() };
        assert_eq!(&*super::line(&raw), &[0xff, b'\n']);
    }
}
