//! The harness against small plugins written here: each test pins one thing the worker
//! does that the harness must reproduce.

use serde_json::{Value, json};

use super::*;
use crate::{
    Config, ConfigDef, ConfigKey, ConfigProblem, Connector, Kind, NonEmptyString, Range, RecordAck,
    RecordFailure, Result, SinkRecord, SinkTask, SourceRecord, SourceTask, TopicPartition,
    TopicPartitionOffset, info, offsets,
};

#[derive(Default)]
struct Split {
    config: Config,
}

impl Connector for Split {
    fn name(&self) -> &str {
        "Split"
    }

    fn version(&self) -> &str {
        "1.2.3"
    }

    fn config_definition(&self) -> ConfigDef {
        ConfigDef::new()
            .define(ConfigKey::string("topic").required().ensure(NonEmptyString))
            .define(ConfigKey::int("tasks").default_value(2).ensure(Range::at_least(1)))
    }

    fn validate(&self, config: &Config) -> Vec<ConfigProblem> {
        match config.get("topic") {
            Some(t) if t.contains(',') => vec![ConfigProblem::new("topic", "One topic only")],
            _ => Vec::new(),
        }
    }

    fn start(&mut self, config: Config) -> Result<()> {
        self.config = config;
        crate::request_task_reconfiguration();
        Ok(())
    }

    fn task_configs(&mut self, _max_tasks: u32) -> Result<Vec<Config>> {
        let n = self.config.get_i32("tasks")?.unwrap_or(0);
        Ok((0..n).map(|i| self.config.clone().with("task", i.to_string())).collect())
    }

    fn stop(&mut self) {
        crate::raise_error(crate::Error::fatal("stopped"));
    }
}

#[test]
fn connector_validation_runs_the_definition_then_the_plugin() {
    let connector = ConnectorHarness::<Split>::new();
    assert_eq!((connector.name(), connector.version()), ("Split".into(), "1.2.3".into()));
    assert_eq!(connector.config_definition().keys().len(), 2);
    let problems = connector.validate(&Config::new().with("topic", "a,b").with("tasks", "0"));
    let keys: Vec<&str> = problems.iter().map(|p| p.key.as_str()).collect();
    assert_eq!(keys, ["tasks", "topic"], "{problems:?}");
    assert!(problems[1].message.contains("One topic only"));
    assert!(connector.validate(&Config::new().with("topic", "t")).is_empty());
}

#[test]
fn connector_start_fills_defaults_and_the_context_is_recorded() {
    let mut connector = ConnectorHarness::<Split>::new();
    connector.start(Config::new().with("topic", "t")).unwrap();
    assert_eq!(reconfiguration_requests(), 1);
    let tasks = connector.task_configs(2).unwrap();
    assert_eq!(tasks.iter().map(|c| c.get("task").unwrap()).collect::<Vec<_>>(), ["0", "1"]);
    connector.stop();
    assert_eq!(raised_errors(), [crate::Error::fatal("stopped")]);
}

#[test]
#[should_panic(expected = "has generated 2 tasks, which is greater than 1")]
fn more_task_configs_than_max_tasks_fail_like_the_worker() {
    let mut connector = ConnectorHarness::<Split>::new();
    connector.start(Config::new().with("topic", "t")).unwrap();
    let _ = connector.task_configs(1);
}

#[test]
#[should_panic(expected = "another ConnectorHarness is alive")]
fn one_harness_of_a_kind_per_thread() {
    let _a = ConnectorHarness::<Split>::new();
    let _b = ConnectorHarness::<Split>::new();
}

/// Emits `count` numbered records over two source partitions (even and odd), resuming
/// after each partition's committed number, and keeps the acks it gets.
#[derive(Default)]
struct Numbers {
    next: [u64; 2],
    count: u64,
    acks: Vec<RecordAck>,
}

fn part(p: u64) -> Value {
    json!({ "parity": p })
}

impl SourceTask for Numbers {
    fn start(&mut self, config: Config) -> Result<()> {
        self.count = config.get_i64("count")?.unwrap_or(0) as u64;
        let committed = offsets(&[part(0), part(1)]);
        for (p, offset) in committed.into_iter().enumerate() {
            self.next[p] = offset.map_or(p as u64, |o| o["n"].as_u64().unwrap() + 2);
        }
        info!("Starting at {:?}", self.next);
        Ok(())
    }

    fn poll(&mut self, max_records: u32) -> Result<Vec<SourceRecord>> {
        let mut out = Vec::new();
        while out.len() < max_records as usize {
            let p = if self.next[0] <= self.next[1] { 0 } else { 1 };
            let n = self.next[p];
            if n >= self.count {
                break;
            }
            self.next[p] += 2;
            out.push(
                SourceRecord::new("numbers", part(p as u64), json!({ "n": n }))
                    .partition(p as i32)
                    .string_key(format!("k{n}"))
                    .json_value(&json!({ "n": n })),
            );
        }
        Ok(out)
    }

    fn commit_record(&mut self, ack: RecordAck) -> Result<()> {
        self.acks.push(ack);
        if ack.sequence == 4 {
            info!("Acked five records");
        }
        Ok(())
    }

    fn stop(&mut self) {}
}

#[test]
fn source_records_round_trip_through_the_batch_and_are_acked_in_order() {
    let mut task = SourceHarness::<Numbers>::new().max_records(3);
    task.start(Config::new().with("count", "6")).unwrap();
    let first = task.poll().unwrap();
    assert_eq!(first.keys_as_strings(), ["k0", "k1", "k2"]);
    assert_eq!(first.values_as_json(), [json!({"n": 0}), json!({"n": 1}), json!({"n": 2})]);
    assert_eq!((first[0].key_kind, first[0].value_kind), (Kind::String, Kind::Json));
    assert_eq!(first[1].source_partition, part(1));
    assert_eq!(task.poll_until_empty().unwrap().values_as_strings().len(), 3);
    assert_eq!(task.records().len(), 6);
    assert!(log_messages(Level::Info).contains(&"Acked five records".to_string()));
}

#[test]
fn restart_resumes_from_committed_offsets_only() {
    let mut task = SourceHarness::<Numbers>::new().max_records(2);
    task.start(Config::new().with("count", "6")).unwrap();
    task.poll().unwrap(); // 0, 1
    task.commit().unwrap();
    task.poll().unwrap(); // 2, 3: acked, never committed
    assert_eq!(task.committed_offset(&part(0)), Some(json!({"n": 0})));
    task.restart().unwrap();
    let again = task.poll_until_empty().unwrap();
    assert_eq!(again.values_as_strings(), [r#"{"n":2}"#, r#"{"n":3}"#, r#"{"n":4}"#, r#"{"n":5}"#]);
    task.commit().unwrap();
    assert_eq!(task.committed_offset(&part(1)), Some(json!({"n": 5})));
}

#[test]
fn seeded_offsets_are_what_offsets_returns() {
    let mut task = SourceHarness::<Numbers>::new().with_committed_offset(part(0), json!({"n": 4}));
    task.start(Config::new().with("count", "6")).unwrap();
    let values = task.poll_until_empty().unwrap().values_as_json();
    assert_eq!(values, [json!({"n": 1}), json!({"n": 3}), json!({"n": 5})]);
}

#[derive(Default)]
struct Broken;

impl SourceTask for Broken {
    fn start(&mut self, _config: Config) -> Result<()> {
        Ok(())
    }

    fn poll(&mut self, _max_records: u32) -> Result<Vec<SourceRecord>> {
        Ok(vec![SourceRecord::new("t", json!("not an object"), json!({})); 2])
    }

    fn stop(&mut self) {}
}

#[test]
fn glue_errors_reach_the_test_as_the_worker_would_see_them() {
    let mut task = SourceHarness::<Broken>::new().max_records(1);
    task.start(Config::new()).unwrap();
    let err = task.poll().unwrap_err();
    assert!(matches!(&err, crate::Error::Fatal(m) if m.contains("must be JSON objects")), "{err}");
}

/// Keeps the value texts it is given, fails records whose value is `bad`, and holds back
/// the commit of partition 1.
#[derive(Default)]
struct Collect {
    seen: Vec<String>,
}

impl SinkTask for Collect {
    fn start(&mut self, config: Config) -> Result<()> {
        config.require("name")?;
        Ok(())
    }

    fn put(&mut self, records: &[SinkRecord]) -> Result<Vec<RecordFailure>> {
        let mut failed = Vec::new();
        for (i, r) in records.iter().enumerate() {
            let text = crate::RecordText::value_text(r).unwrap_or_default().into_owned();
            if text == "bad" {
                failed.push(RecordFailure::new(i, "bad value"));
            }
            info!("Got {text} at {}", r.offset.unwrap());
            self.seen.push(text);
        }
        Ok(failed)
    }

    fn pre_commit(
        &mut self,
        offsets: Vec<TopicPartitionOffset>,
    ) -> Result<Vec<TopicPartitionOffset>> {
        Ok(offsets.into_iter().filter(|o| o.partition != 1).collect())
    }

    fn stop(&mut self) {}
}

#[test]
fn sink_records_get_increasing_offsets_and_commits_go_through_pre_commit() {
    let mut sink = SinkHarness::<Collect>::new();
    let err = sink.start(Config::new()).unwrap_err();
    assert!(matches!(err, crate::Error::Config(_)), "{err}");
    sink.start(Config::new().with("name", "c")).unwrap();
    let tp = |p| TopicPartition { topic: "t".into(), partition: p };
    sink.open(&[tp(0), tp(1)]).unwrap();
    let mut batch = sink.string_records("t", 0, ["a", "bad"]);
    batch.extend(sink.json_records("t", 1, [json!("j"), json!({"x": 1})]));
    batch.extend(sink.string_records("t", 0, ["c"]));
    let offsets: Vec<i64> = batch.iter().map(|r| r.offset.unwrap()).collect();
    assert_eq!(offsets, [0, 1, 0, 1, 2]);
    let failures = sink.put(&batch).unwrap();
    assert_eq!(failures, [RecordFailure::new(1, "bad value")]);
    assert_eq!(log_messages(Level::Info)[2], r#"Got j at 0"#);
    assert_eq!(log_messages(Level::Info)[3], r#"Got {"x":1} at 1"#);
    let committed = sink.commit().unwrap();
    assert_eq!(committed, [TopicPartitionOffset { topic: "t".into(), partition: 0, offset: 3 }]);
    assert_eq!(sink.committed_offset(&tp(0)), Some(3));
    assert_eq!(sink.committed_offset(&tp(1)), None);
    sink.close(&[tp(0), tp(1)]).unwrap();
    sink.stop();
}

/// Uppercases string values, drops empty ones, fails `"bad"`, and logs its config.
#[derive(Default)]
struct Upper {
    suffix: String,
}

impl crate::Transform for Upper {
    fn name(&self) -> &str {
        "Upper"
    }

    fn version(&self) -> &str {
        "2.0.0"
    }

    fn config_definition(&self) -> ConfigDef {
        ConfigDef::new().define(ConfigKey::string("suffix").default_value("!"))
    }

    fn validate(&self, config: &Config) -> Vec<ConfigProblem> {
        match config.get("suffix") {
            Some(s) if s.len() > 3 => vec![ConfigProblem::new("suffix", "Too long")],
            _ => Vec::new(),
        }
    }

    fn configure(&mut self, config: Config) -> Result<()> {
        self.suffix = config.require("suffix")?.to_owned();
        info!("Suffix {}", self.suffix);
        Ok(())
    }

    fn apply(&mut self, record: SinkRecord) -> Result<crate::TransformResult> {
        use crate::TransformResult;
        Ok(match record.value.as_deref() {
            Some(b"") => TransformResult::Drop,
            Some(b"bad") => TransformResult::fail("bad value"),
            Some(v) => {
                let text = String::from_utf8_lossy(v).to_uppercase() + &self.suffix;
                TransformResult::Keep(SinkRecord { value: Some(text.into_bytes()), ..record })
            }
            None => TransformResult::Keep(record),
        })
    }
}

#[test]
fn transform_harness_fills_defaults_and_decodes_each_outcome() {
    use crate::TransformResult;
    let mut t = TransformHarness::<Upper>::new();
    assert_eq!((t.name(), t.version()), ("Upper".into(), "2.0.0".into()));
    assert_eq!(t.validate(&Config::new().with("suffix", "long!")).len(), 1);
    t.configure(Config::new()).unwrap();
    assert_eq!(log_messages(Level::Info), ["Suffix !"]);
    let records = t.string_records("in", 0, ["a", "", "bad", "b"]);
    let out = t.apply(&records).unwrap();
    assert_eq!(out.origins, [0, 3]);
    assert_eq!(out.records.values_as_strings(), ["A!", "B!"]);
    assert_eq!(out.records[1].offset, Some(3), "the rest of the record is kept");
    assert_eq!(out.failures, [RecordFailure::new(2, "bad value")]);
    let outcomes = out.outcomes();
    assert_eq!(outcomes[1], TransformResult::Drop);
    assert_eq!(outcomes[2], TransformResult::fail("bad value"));
    let tombstone = t.next_record("in", 0);
    assert_eq!(t.apply_one(tombstone.clone()).unwrap(), TransformResult::Keep(tombstone));
    t.close();
}

#[test]
fn transform_harness_close_drops_the_instance() {
    let mut t = TransformHarness::<Upper>::new();
    t.configure(Config::new().with("suffix", "?")).unwrap();
    t.close();
    let record = t.string_records("in", 0, ["x"]).remove(0);
    let crate::TransformResult::Keep(out) = t.apply_one(record).unwrap() else { panic!() };
    assert_eq!(out.value.as_deref(), Some(&b"X"[..]), "a fresh, unconfigured instance");
}

#[test]
#[should_panic(expected = "another TransformHarness is alive")]
fn one_transform_harness_per_thread() {
    let _a = TransformHarness::<Upper>::new();
    let _b = TransformHarness::<Upper>::new();
}
