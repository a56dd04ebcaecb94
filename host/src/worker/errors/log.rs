//! The errors log (`errors.log.enable`): one ERROR line per failure with its stage, the
//! record's position and the error; the record's key, value and headers only with
//! `errors.log.include.messages`. It must not write anywhere else.

use super::failure::{Failure, text};
use super::origin::Origin;
use super::policy::LogSettings;

/// Logs `failure` if the settings say so; `tolerated` says whether the record is skipped
/// or the task fails.
pub(super) fn log_failure(
    settings: LogSettings,
    origin: &Origin,
    failure: &Failure<'_>,
    tolerated: bool,
) {
    if !settings.enable {
        return;
    }
    let contents = failure.record.contents().filter(|_| settings.include_messages);
    let key = contents.map(|c| text(c.key).into_owned());
    let value = contents.map(|c| text(c.value).into_owned());
    let headers = contents.map(|c| {
        let pairs: Vec<String> =
            c.headers.iter().map(|h| format!("{}={}", h.key, text(h.value.as_deref()))).collect();
        pairs.join(", ")
    });
    tracing::error!(
        connector = %origin.connector,
        task = origin.task,
        stage = %failure.stage,
        class = failure.class.unwrap_or(&origin.plugin),
        error_kind = %failure.error_kind,
        record = %failure.record.describe(),
        key = key.as_deref(),
        value = value.as_deref(),
        headers = headers.as_deref(),
        tolerated,
        error = %failure.error,
        "Error encountered in task"
    );
}

#[cfg(test)]
mod tests {
    use std::io;
    use std::sync::{Arc, Mutex};

    use super::*;
    use crate::worker::errors::{FailedRecord, Stage};
    use crate::worker::topics::{Header, InRecord};

    /// A log sink tests can read.
    #[derive(Clone, Default)]
    struct Buffer(Arc<Mutex<Vec<u8>>>);

    impl io::Write for Buffer {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    fn logged(settings: LogSettings) -> String {
        let buffer = Buffer::default();
        let writer = buffer.clone();
        let subscriber =
            tracing_subscriber::fmt().with_writer(move || writer.clone()).with_ansi(false).finish();
        let record = InRecord {
            topic: "t".into(),
            partition: 1,
            offset: 9,
            key: Some(b"the-key".to_vec().into()),
            value: Some(b"the-value".to_vec().into()),
            headers: vec![Header { key: "h".into(), value: Some(b"hv".to_vec()) }],
            ..InRecord::default()
        };
        let failure = Failure {
            stage: Stage::KeyConverter,
            record: FailedRecord::Sink(&record),
            error: "boom".into(),
            error_kind: "converter",
            class: None,
        };
        let origin = Origin { connector: "c".into(), task: 0, plugin: "p".into() };
        tracing::subscriber::with_default(subscriber, || {
            log_failure(settings, &origin, &failure, true)
        });
        let out = buffer.0.lock().unwrap().clone();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn the_errors_log_shows_contents_only_when_asked() {
        assert_eq!(logged(LogSettings { enable: false, include_messages: true }), "");
        let line = logged(LogSettings { enable: true, include_messages: false });
        assert!(line.contains("Error encountered in task"), "{line}");
        assert!(line.contains("stage=KEY_CONVERTER"), "{line}");
        assert!(line.contains("record=topic 't', partition 1, offset 9"), "{line}");
        assert!(line.contains("error=boom"), "{line}");
        assert!(!line.contains("the-key") && !line.contains("the-value"), "{line}");
        let line = logged(LogSettings { enable: true, include_messages: true });
        assert!(line.contains("the-key") && line.contains("the-value"), "{line}");
        assert!(line.contains("h=hv"), "{line}");
    }
}
