use std::sync::Mutex;

use super::*;
use crate::runtime::PolledRecord;
use crate::worker::errors::Stage;
use crate::worker::errors::policy::{DlqSettings, LogSettings};
use crate::worker::topics::{Delivered, Header, InRecord, SendFuture, TopicError};

/// Keeps what it is sent, or fails every send.
#[derive(Default)]
struct FakeProducer {
    sent: Mutex<Vec<OutRecord>>,
    fail: bool,
}

impl RecordProducer for FakeProducer {
    fn send(&self, records: Vec<OutRecord>) -> SendFuture {
        if self.fail {
            let error = TopicError::Produce { topic: "dlq".into(), reason: "broker down".into() };
            return Box::pin(async move { Err(error) });
        }
        let delivered = (0..records.len()).map(|i| Delivered { partition: 0, offset: i as i64 });
        let delivered: Vec<Delivered> = delivered.collect();
        self.sent.lock().unwrap().extend(records);
        Box::pin(async move { Ok(delivered) })
    }
}

fn consumed(offset: i64) -> InRecord {
    InRecord {
        topic: "orders".into(),
        partition: 2,
        offset,
        timestamp: Some(1_700_000_000_000),
        key: Some(b"k\xff".to_vec().into()),
        value: Some(b"{\"v\":1}".to_vec().into()),
        headers: vec![
            Header { key: "h".into(), value: Some(b"x".to_vec()) },
            Header { key: "n".into(), value: None },
        ],
    }
}

fn failure(record: &InRecord) -> Failure<'_> {
    Failure {
        stage: Stage::TaskPut,
        record: FailedRecord::Sink(record),
        error: "row rejected".into(),
        error_kind: "record-failed",
        class: None,
    }
}

fn policy(tolerance: Tolerance, context_headers: Option<bool>) -> ErrorPolicy {
    ErrorPolicy {
        tolerance,
        log: LogSettings { enable: true, include_messages: true },
        dlq: context_headers.map(|context_headers| DlqSettings {
            topic: "dlq".into(),
            replication_factor: 3,
            context_headers,
        }),
        ..ErrorPolicy::default()
    }
}

fn reporter(policy: ErrorPolicy, producer: &Arc<FakeProducer>) -> ErrorReporter {
    let dlq: Arc<dyn RecordProducer> = producer.clone();
    ErrorReporter::new(policy, "sink-a", 4, "file-sink", Some(dlq))
}

#[tokio::test]
async fn under_none_the_task_fails_with_a_trace() {
    let producer = Arc::new(FakeProducer::default());
    let r = reporter(policy(Tolerance::None, None), &producer);
    let (a, b) = (consumed(7), consumed(8));
    let err = r.report(vec![failure(&a), failure(&b)]).await.unwrap_err();
    assert!(matches!(err, ReportError::NotTolerated { .. }), "{err:?}");
    assert_eq!(
        err.to_string(),
        "Tolerance exceeded in error handler: stage TASK_PUT failed for topic 'orders', \
         partition 2, offset 7 (plugin 'file-sink', error kind 'record-failed'): row rejected\n\
         (1 more records of the batch failed)"
    );
    assert_eq!(r.tolerated(), 0);
    assert!(r.report(Vec::new()).await.is_ok(), "nothing failed");
}

#[tokio::test]
async fn under_none_the_first_failure_still_reaches_the_dead_letter_queue() {
    let producer = Arc::new(FakeProducer::default());
    let r = reporter(policy(Tolerance::None, Some(false)), &producer);
    let (a, b) = (consumed(7), consumed(8));
    assert!(r.report(vec![failure(&a), failure(&b)]).await.is_err());
    let sent = producer.sent.lock().unwrap();
    assert_eq!(sent.len(), 1, "only the failure that fails the task");
}

#[tokio::test]
async fn under_all_failures_are_skipped_and_counted() {
    let producer = Arc::new(FakeProducer::default());
    let r = reporter(policy(Tolerance::All, None), &producer);
    let (a, b) = (consumed(7), consumed(8));
    r.report(vec![failure(&a), failure(&b)]).await.unwrap();
    let polled = Failure {
        stage: Stage::TaskPoll,
        record: FailedRecord::NoRecord,
        error: "timed out".into(),
        error_kind: "retriable",
        class: None,
    };
    r.report(vec![polled]).await.unwrap();
    assert_eq!(r.tolerated(), 3);
    assert!(producer.sent.lock().unwrap().is_empty(), "no dead letter queue is set");
}

#[tokio::test]
async fn dead_letter_records_are_the_consumed_bytes() {
    let producer = Arc::new(FakeProducer::default());
    let r = reporter(policy(Tolerance::All, Some(false)), &producer);
    let a = consumed(7);
    r.report(vec![failure(&a)]).await.unwrap();
    let sent = producer.sent.lock().unwrap();
    let want = OutRecord {
        topic: "dlq".into(),
        partition: None,
        timestamp: a.timestamp,
        key: a.key.clone(),
        value: a.value.clone(),
        headers: a.headers.clone(),
    };
    assert_eq!(*sent, [want]);
}

#[tokio::test]
async fn context_headers_follow_the_records_own() {
    let producer = Arc::new(FakeProducer::default());
    let r = reporter(policy(Tolerance::All, Some(true)), &producer);
    let a = consumed(7);
    r.report(vec![failure(&a)]).await.unwrap();
    let sent = producer.sent.lock().unwrap();
    let got: Vec<(&str, Option<&[u8]>)> =
        sent[0].headers.iter().map(|h| (h.key.as_str(), h.value.as_deref())).collect();
    let want: [(&str, Option<&[u8]>); 12] = [
        ("h", Some(b"x")),
        ("n", None),
        ("__connect.errors.topic", Some(b"orders")),
        ("__connect.errors.partition", Some(b"2")),
        ("__connect.errors.offset", Some(b"7")),
        ("__connect.errors.connector.name", Some(b"sink-a")),
        ("__connect.errors.task.id", Some(b"4")),
        ("__connect.errors.stage", Some(b"TASK_PUT")),
        ("__connect.errors.class.name", Some(b"file-sink")),
        ("__connect.errors.exception.class.name", Some(b"record-failed")),
        ("__connect.errors.exception.message", Some(b"row rejected")),
        ("__connect.errors.exception.stacktrace", Some(b"record-failed: row rejected")),
    ];
    assert_eq!(got, want);
    assert_eq!(sent[0].key.as_deref(), Some(&b"k\xff"[..]));
}

#[tokio::test]
async fn source_records_never_reach_the_dead_letter_queue() {
    let producer = Arc::new(FakeProducer::default());
    let r = reporter(policy(Tolerance::All, Some(true)), &producer);
    let polled = PolledRecord { topic: "out".into(), ..PolledRecord::default() };
    let f = Failure {
        stage: Stage::ValueConverter,
        record: FailedRecord::Source(&polled),
        error: "bad".into(),
        error_kind: "json-converter",
        class: None,
    };
    r.report(vec![f]).await.unwrap();
    assert!(producer.sent.lock().unwrap().is_empty());
    assert_eq!(r.tolerated(), 1);
}

#[tokio::test]
async fn a_failing_dead_letter_queue_fails_the_report() {
    let producer = Arc::new(FakeProducer { fail: true, ..FakeProducer::default() });
    let r = reporter(policy(Tolerance::All, Some(false)), &producer);
    let a = consumed(7);
    let err = r.report(vec![failure(&a)]).await.unwrap_err();
    assert!(matches!(err, ReportError::DeadLetterQueue { .. }), "{err:?}");
    assert_eq!(
        err.to_string(),
        "Could not produce message to dead letter queue 'dlq': cannot write to topic 'dlq': \
         broker down"
    );
    assert_eq!(r.tolerated(), 0, "nothing was skipped");
}

#[tokio::test]
async fn a_dead_letter_queue_without_a_producer_fails_the_report() {
    let r = ErrorReporter::new(policy(Tolerance::All, Some(false)), "sink-a", 0, "p", None);
    let a = consumed(7);
    let err = r.report(vec![failure(&a)]).await.unwrap_err();
    assert!(matches!(err, ReportError::NoDeadLetterProducer { .. }), "{err:?}");
}
