//! The `transformation` interface: decodes each `record-batch`, calls
//! [`Transform::apply`] once per record, and encodes the records that survive with their
//! `origins` (input indexes, strictly increasing by construction) and the `failures`.
//!
//! A panic in the author's code is not caught: in a component it traps, which the worker
//! treats as a failure of the whole batch and discards the instance.

use wasm_connect_batch::Encoder;

use super::convert::{config_from_wit, failure_to_wit, key_to_wit, problem_to_wit, result_to_wit};
use super::{Glue, TRANSFORM, drop_state, with_state};
use crate::bindings::source::wasm_connect::connector::types as wit;
use crate::bindings::transform::exports::wasm_connect::connector::transformation::{
    Guest, Transformed,
};
use crate::{Error, RecordFailure, Result, SinkRecord, Transform, TransformResult};

pub(crate) fn name<T: Transform>() -> String {
    with_state(&TRANSFORM, |t: &mut T| t.name().to_owned())
}

pub(crate) fn version<T: Transform>() -> String {
    with_state(&TRANSFORM, |t: &mut T| t.version().to_owned())
}

pub(crate) fn config_definition<T: Transform>() -> Vec<wit::ConfigKey> {
    let def = with_state(&TRANSFORM, |t: &mut T| t.config_definition());
    def.into_keys().into_iter().map(key_to_wit).collect()
}

/// The definition's checks, then the transform's own.
pub(crate) fn validate<T: Transform>(config: wit::Config) -> Vec<wit::ConfigProblem> {
    let config = config_from_wit(config);
    let problems = with_state(&TRANSFORM, |t: &mut T| {
        let mut problems = t.config_definition().validate(&config);
        problems.extend(t.validate(&config));
        problems
    });
    problems.into_iter().map(problem_to_wit).collect()
}

pub(crate) fn configure<T: Transform>(config: wit::Config) -> Result<(), wit::Error> {
    let config = config_from_wit(config);
    result_to_wit(with_state(&TRANSFORM, |t: &mut T| t.configure(config)))
}

pub(crate) fn apply<T: Transform>(batch: Vec<u8>) -> Result<Transformed, wit::Error> {
    let records = wasm_connect_batch::decode(&batch)
        .map_err(|e| Error::fatal(format!("malformed record batch: {e}")));
    let capacity = batch.len();
    drop(batch);
    result_to_wit(records.and_then(|records| {
        with_state(&TRANSFORM, |t: &mut T| run(t, records, capacity)).map(|out| Transformed {
            records: out.batch,
            origins: out.origins,
            failures: out.failures.into_iter().map(failure_to_wit).collect(),
        })
    }))
}

pub(crate) fn close<T: Transform>() {
    with_state(&TRANSFORM, |t: &mut T| t.close());
    drop_state(&TRANSFORM);
}

/// What one `apply` made of a batch, before the WIT conversion.
struct Output {
    batch: Vec<u8>,
    origins: Vec<u32>,
    failures: Vec<RecordFailure>,
}

/// Applies `t` to each record in order; the first `Err` fails the batch.
fn run<T: Transform>(t: &mut T, records: Vec<SinkRecord>, capacity: usize) -> Result<Output> {
    let mut enc = Encoder::with_capacity(capacity);
    let mut origins = Vec::with_capacity(records.len());
    let mut failures = Vec::new();
    for (i, record) in records.into_iter().enumerate() {
        match t.apply(record)? {
            TransformResult::Keep(mut out) => {
                // The worker keeps a source record's partition and offset itself.
                out.source_partition = None;
                out.source_offset = None;
                enc.push(&out);
                origins.push(index(i));
            }
            TransformResult::Drop => {}
            TransformResult::Fail(reason) => failures.push(RecordFailure::new(i, reason)),
        }
    }
    Ok(Output { batch: enc.finish(), origins, failures })
}

/// A batch index as the WIT's `u32`: a batch of more than `u32::MAX` records cannot
/// have been decoded.
fn index(i: usize) -> u32 {
    u32::try_from(i).expect("a record-batch holds at most u32::MAX records")
}

impl<T: Transform, X: 'static> Guest for Glue<T, X> {
    fn name() -> String {
        name::<T>()
    }

    fn version() -> String {
        version::<T>()
    }

    fn config_definition() -> Vec<wit::ConfigKey> {
        config_definition::<T>()
    }

    fn validate(config: wit::Config) -> Vec<wit::ConfigProblem> {
        validate::<T>(config)
    }

    fn configure(config: wit::Config) -> Result<(), wit::Error> {
        configure::<T>(config)
    }

    fn apply(batch: Vec<u8>) -> Result<Transformed, wit::Error> {
        apply::<T>(batch)
    }

    fn close() {
        close::<T>()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::{Config, ConfigDef, ConfigKey, Kind};

    /// Keeps records whose value is `"keep"` (retopicked to `out`), drops `"drop"`,
    /// fails `"fail"`, errs on `"err"` and panics on `"panic"`.
    #[derive(Default)]
    struct ByValue;

    impl Transform for ByValue {
        fn name(&self) -> &str {
            "ByValue"
        }
        fn version(&self) -> &str {
            "0.0.1"
        }
        fn config_definition(&self) -> ConfigDef {
            ConfigDef::new().define(ConfigKey::string("k").required())
        }
        fn configure(&mut self, _config: Config) -> Result<()> {
            Ok(())
        }
        fn apply(&mut self, record: SinkRecord) -> Result<TransformResult> {
            Ok(match record.value.as_deref() {
                Some(b"keep") => SinkRecord { topic: "out".into(), ..record }.into(),
                Some(b"drop") => TransformResult::Drop,
                Some(b"fail") => TransformResult::fail("told to fail"),
                Some(b"err") => return Err(Error::fatal("batch-wide")),
                Some(b"panic") => panic!("told to panic"),
                _ => TransformResult::Keep(record),
            })
        }
    }

    fn record(value: &str) -> SinkRecord {
        SinkRecord {
            topic: "in".into(),
            partition: Some(0),
            value_kind: Kind::String,
            value: Some(value.as_bytes().to_vec()),
            source_partition: Some(b"{}".to_vec()),
            ..SinkRecord::default()
        }
    }

    fn batch(values: &[&str]) -> Vec<u8> {
        wasm_connect_batch::encode(&values.iter().map(|v| record(v)).collect::<Vec<_>>())
    }

    #[test]
    fn survivors_carry_their_input_index_and_failures_their_reason() {
        let out = apply::<ByValue>(batch(&["drop", "keep", "fail", "other", "drop"])).unwrap();
        assert_eq!(out.origins, [1, 3]);
        let records = wasm_connect_batch::decode(&out.records).unwrap();
        let topics: Vec<&str> = records.iter().map(|r| r.topic.as_str()).collect();
        assert_eq!(topics, ["out", "in"]);
        assert!(records.iter().all(|r| r.source_partition.is_none()), "source fields are cleared");
        assert_eq!(out.failures.len(), 1);
        assert_eq!((out.failures[0].index, out.failures[0].reason.as_str()), (2, "told to fail"));
        close::<ByValue>();
    }

    #[test]
    fn an_empty_batch_gives_an_empty_batch() {
        let out = apply::<ByValue>(batch(&[])).unwrap();
        assert!(out.origins.is_empty() && out.failures.is_empty());
        assert!(wasm_connect_batch::decode(&out.records).unwrap().is_empty());
        close::<ByValue>();
    }

    #[test]
    fn an_error_fails_the_batch_and_a_malformed_batch_is_fatal() {
        let err = apply::<ByValue>(batch(&["keep", "err"])).unwrap_err();
        assert!(matches!(err, wit::Error::Fatal(ref m) if m == "batch-wide"), "{err:?}");
        let err = apply::<ByValue>(vec![9, 0]).unwrap_err();
        assert!(matches!(err, wit::Error::Fatal(ref m) if m.starts_with("malformed")), "{err:?}");
        close::<ByValue>();
    }

    #[test]
    #[should_panic(expected = "told to panic")]
    fn a_panic_is_not_caught() {
        let _ = apply::<ByValue>(batch(&["keep", "panic"]));
    }

    #[test]
    fn validate_runs_the_definition_then_configure_and_close_reach_the_instance() {
        let problems = validate::<ByValue>(Vec::new());
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert_eq!(problems[0].key, "k");
        assert_eq!((name::<ByValue>(), version::<ByValue>()), ("ByValue".into(), "0.0.1".into()));
        assert_eq!(config_definition::<ByValue>().len(), 1);
        assert!(configure::<ByValue>(vec![("k".into(), json!("v").to_string())]).is_ok());
        close::<ByValue>();
    }
}
