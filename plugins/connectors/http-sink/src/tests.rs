//! The task driven natively with a scripted transport: what each request holds, and what
//! failures, retries and `behavior.on.error` do.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;
use std::time::Duration;

use wasm_connect_sdk::testing::ConnectorHarness;
use wasm_connect_sdk::{Config, Error, Kind, SinkRecord, SinkTask};

use crate::connector::HttpSink;
use crate::task::HttpSinkTask;
use crate::transport::{Failure, Request, Response, Transport};

/// What a request looked like.
#[derive(Debug, Clone)]
struct Seen {
    method: String,
    url: String,
    headers: Vec<(String, String)>,
    body: String,
}

#[derive(Default)]
struct Script {
    answers: VecDeque<Result<Response, Failure>>,
    seen: Vec<Seen>,
    slept: Vec<Duration>,
}

/// Answers from a script (200 once it runs out) and records every request.
#[derive(Clone, Default)]
struct Mock(Rc<RefCell<Script>>);

impl Mock {
    fn answer(&self, answers: impl IntoIterator<Item = Result<Response, Failure>>) {
        self.0.borrow_mut().answers.extend(answers);
    }

    fn bodies(&self) -> Vec<String> {
        self.0.borrow().seen.iter().map(|s| s.body.clone()).collect()
    }
}

impl Transport for Mock {
    fn send(&mut self, r: &Request<'_>) -> Result<Response, Failure> {
        let mut s = self.0.borrow_mut();
        s.seen.push(Seen {
            method: r.method.to_owned(),
            url: r.url.to_string(),
            headers: r.headers.to_vec(),
            body: String::from_utf8(r.body.to_vec()).unwrap(),
        });
        s.answers.pop_front().unwrap_or(Ok(status(200)))
    }

    fn sleep(&mut self, duration: Duration) {
        self.0.borrow_mut().slept.push(duration);
    }
}

fn status(status: u16) -> Response {
    Response { status, ..Response::default() }
}

fn config(pairs: &[(&str, &str)]) -> Config {
    let mut c = Config::new().with("http.api.url", "http://127.0.0.1:9/in").with("topics", "t");
    for (k, v) in pairs {
        c.set(*k, *v);
    }
    c
}

fn task(pairs: &[(&str, &str)]) -> (HttpSinkTask, Mock) {
    let mock = Mock::default();
    let mut task = HttpSinkTask::with_transport(Box::new(mock.clone()));
    task.start(config(pairs)).unwrap();
    (task, mock)
}

fn records(n: i64) -> Vec<SinkRecord> {
    (0..n)
        .map(|i| SinkRecord {
            topic: "t".into(),
            partition: Some(0),
            offset: Some(i),
            value_kind: Kind::Json,
            value: Some(format!("{{\"n\": {i}}}").into_bytes()),
            ..SinkRecord::default()
        })
        .collect()
}

#[test]
fn batches_are_json_arrays_in_order_and_single_records_go_alone() {
    let (mut t, mock) = task(&[("batch.max.size", "2")]);
    assert!(t.put(&records(5)).unwrap().is_empty());
    assert_eq!(
        mock.bodies(),
        [r#"[{"n": 0},{"n": 1}]"#, r#"[{"n": 2},{"n": 3}]"#, r#"[{"n": 4}]"#]
    );
    let (mut t, mock) = task(&[]);
    let mut r = records(2);
    r[1] = SinkRecord {
        value_kind: Kind::String,
        value: Some(b"say \"hi\"".to_vec()),
        ..r[1].clone()
    };
    t.put(&r).unwrap();
    assert_eq!(mock.bodies(), [r#"{"n": 0}"#, r#""say \"hi\"""#]);
    let seen = mock.0.borrow().seen[0].clone();
    assert_eq!((seen.method.as_str(), seen.url.as_str()), ("POST", "http://127.0.0.1:9/in"));
    assert!(seen.headers.contains(&("Content-Type".into(), "application/json".into())));
}

#[test]
fn auth_and_custom_headers_are_sent() {
    let (mut t, mock) = task(&[
        ("auth.type", "basic"),
        ("connection.user", "user"),
        ("connection.password", "pass"),
        ("headers", "X-Team: data|Content-Type:application/x-ndjson"),
        ("request.method", "put"),
    ]);
    t.put(&records(1)).unwrap();
    let seen = mock.0.borrow().seen[0].clone();
    assert_eq!(seen.method, "PUT");
    assert!(seen.headers.contains(&("Authorization".into(), "Basic dXNlcjpwYXNz".into())));
    assert!(seen.headers.contains(&("X-Team".into(), "data".into())));
    assert!(seen.headers.contains(&("Content-Type".into(), "application/x-ndjson".into())));
    assert_eq!(seen.headers.len(), 3, "{:?}", seen.headers);
    let (mut t, mock) = task(&[("auth.type", "BEARER"), ("bearer.token", "tok")]);
    t.put(&records(1)).unwrap();
    assert!(
        mock.0.borrow().seen[0].headers.contains(&("Authorization".into(), "Bearer tok".into()))
    );
}

#[test]
fn retriable_failures_back_off_and_resume_where_the_batch_stopped() {
    let (mut t, mock) = task(&[("batch.max.size", "2"), ("retry.backoff.ms", "100")]);
    mock.answer([Ok(status(200)), Ok(status(503)), Err(Failure::Timeout("slow".into()))]);
    let batch = records(4);
    let e = t.put(&batch).unwrap_err();
    assert!(matches!(&e, Error::Retriable(m) if m.contains("HTTP 503")), "{e:?}");
    let e = t.put(&batch).unwrap_err();
    assert!(matches!(&e, Error::Retriable(m) if m.contains("timed out")), "{e:?}");
    assert!(t.put(&batch).unwrap().is_empty());
    // The first request is not sent again; the second went three times.
    assert_eq!(
        mock.bodies(),
        [
            r#"[{"n": 0},{"n": 1}]"#,
            r#"[{"n": 2},{"n": 3}]"#,
            r#"[{"n": 2},{"n": 3}]"#,
            r#"[{"n": 2},{"n": 3}]"#
        ]
    );
    assert_eq!(mock.0.borrow().slept, [Duration::from_millis(100); 2]);
}

#[test]
fn after_max_retries_behavior_on_error_decides() {
    for (behavior, failed) in [("fail", 2), ("log", 0), ("ignore", 0)] {
        let (mut t, mock) =
            task(&[("max.retries", "1"), ("batch.max.size", "2"), ("behavior.on.error", behavior)]);
        mock.answer([Err(Failure::Unreachable("refused".into())), Ok(status(500))]);
        let batch = records(3);
        assert!(t.put(&batch).unwrap_err().is_retriable());
        let failures = t.put(&batch).unwrap();
        assert_eq!(failures.len(), failed, "{behavior}");
        if failed > 0 {
            assert_eq!(failures.iter().map(|f| f.index).collect::<Vec<_>>(), [0, 1]);
            assert!(failures[0].reason.contains("HTTP 500"), "{failures:?}");
        }
        // The rest of the batch still went out.
        assert_eq!(mock.bodies().last().unwrap(), r#"[{"n": 2}]"#);
    }
}

#[test]
fn other_statuses_and_refused_origins_fail_at_once_and_redirects_are_followed() {
    let (mut t, mock) = task(&[]);
    mock.answer([Ok(status(400))]);
    let failures = t.put(&records(1)).unwrap();
    assert!(failures[0].reason.contains("HTTP 400"), "{failures:?}");
    let moved =
        |to: &str| Ok(Response { status: 307, location: Some(to.into()), body: String::new() });
    mock.answer([moved("/v2"), Ok(status(201))]);
    assert!(t.put(&records(1)).unwrap().is_empty());
    assert_eq!(mock.0.borrow().seen.last().unwrap().url, "http://127.0.0.1:9/v2");
    mock.answer([moved("http://elsewhere:1/"), Err(Failure::Denied("HttpRequestDenied".into()))]);
    let failures = t.put(&records(1)).unwrap();
    assert!(failures[0].reason.contains("sandbox"), "{failures:?}");
}

#[test]
fn configs_are_checked_and_copied_to_every_task() {
    let mut c = ConnectorHarness::<HttpSink>::new();
    let problems = c.validate(&config(&[
        ("auth.type", "digest"),
        ("retry.on.status.codes", "5zz"),
        ("behavior.on.error", "shrug"),
    ]));
    let keys: Vec<_> = problems.iter().map(|p| p.key.as_str()).collect();
    assert_eq!(keys, ["auth.type", "retry.on.status.codes", "behavior.on.error"], "{problems:?}");
    assert!(c.start(config(&[("auth.type", "basic")])).is_err(), "basic needs a user");
    c.start(config(&[])).unwrap();
    assert_eq!(c.task_configs(2).unwrap().len(), 2);
    let secret = c.config_definition();
    assert!(secret.key("connection.password").unwrap().is_secret());
    assert!(secret.key("bearer.token").unwrap().is_secret());
}
