//! [`TransformHarness`]: drives a [`Transform`] through the SDK's `transformation` glue,
//! playing the worker: records are encoded as a `record-batch` before `apply`, and the
//! answer (survivors, their origins, failures) is decoded and checked against the
//! contract the worker enforces. It also builds [`SinkRecord`]s with increasing Kafka
//! offsets per topic-partition.

use std::marker::PhantomData;

use serde_json::Value;

use super::records::RecordFactory;
use super::{Kind as SlotKind, SlotGuard};
use crate::glue::convert::{config_to_wit, error_from_wit, failure_from_wit, problem_from_wit};
use crate::glue::{TRANSFORM, transform as glue, with_state};
use crate::{
    Config, ConfigDef, ConfigProblem, RecordFailure, Result, SinkRecord, Transform, TransformResult,
};

/// What one [`TransformHarness::apply`] returned, decoded.
#[derive(Clone, Debug, PartialEq)]
pub struct TransformOutput {
    /// The records that go on, in input order.
    pub records: Vec<SinkRecord>,
    /// For each of `records`, the index of the input record it came from.
    pub origins: Vec<usize>,
    /// The input records the transform failed, by index, with the reason.
    pub failures: Vec<RecordFailure>,
    /// How many records went in.
    pub inputs: usize,
}

impl TransformOutput {
    /// What became of each input record, in input order: kept (as changed), dropped or
    /// failed.
    pub fn outcomes(&self) -> Vec<TransformResult> {
        let mut out = vec![TransformResult::Drop; self.inputs];
        for (record, &i) in self.records.iter().zip(&self.origins) {
            out[i] = TransformResult::Keep(record.clone());
        }
        for f in &self.failures {
            out[f.index as usize] = TransformResult::Fail(f.reason.clone());
        }
        out
    }
}

/// Drives transform `T` as the worker does: one instance created with `Default` on the
/// first call, dropped by [`close`](Self::close) (a later call creates a fresh one).
///
/// ```
/// use wasm_connect_sdk::testing::TransformHarness;
/// use wasm_connect_sdk::{
///     Config, ConfigDef, Result, SinkRecord, Transform, TransformResult, serde_json::json,
/// };
///
/// /// Moves every record to the topic `out`, drops tombstones.
/// #[derive(Default)]
/// struct Retopic;
///
/// impl Transform for Retopic {
///     fn name(&self) -> &str { "Retopic" }
///     fn version(&self) -> &str { "1.0.0" }
///     fn config_definition(&self) -> ConfigDef { ConfigDef::new() }
///     fn configure(&mut self, _config: Config) -> Result<()> { Ok(()) }
///     fn apply(&mut self, record: SinkRecord) -> Result<TransformResult> {
///         if record.value.is_none() {
///             return Ok(TransformResult::Drop);
///         }
///         Ok(TransformResult::Keep(SinkRecord { topic: "out".into(), ..record }))
///     }
/// }
///
/// let mut t = TransformHarness::<Retopic>::new();
/// t.configure(Config::new()).unwrap();
/// let mut records = t.json_records("in", 0, [json!({"a": 1})]);
/// records.push(t.next_record("in", 0));
/// let out = t.apply(&records).unwrap();
/// assert_eq!(out.origins, [0]);
/// assert_eq!(out.records[0].topic, "out");
/// assert_eq!(out.outcomes()[1], TransformResult::Drop);
/// ```
pub struct TransformHarness<T: Transform> {
    records: RecordFactory,
    _slot: SlotGuard,
    _transform: PhantomData<fn() -> T>,
}

impl<T: Transform> Default for TransformHarness<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Transform> TransformHarness<T> {
    /// A harness with no instance yet. Panics if another `TransformHarness` is alive on
    /// this thread.
    pub fn new() -> Self {
        Self {
            records: RecordFactory::default(),
            _slot: SlotGuard::take(SlotKind::Transform),
            _transform: PhantomData,
        }
    }

    /// The transform's name, as the `name` export returns it.
    pub fn name(&self) -> String {
        glue::name::<T>()
    }

    /// The transform's version, as the `version` export returns it.
    pub fn version(&self) -> String {
        glue::version::<T>()
    }

    /// The configuration definition. The `config-definition` export's conversion runs
    /// too, so a definition the worker cannot read fails here.
    pub fn config_definition(&self) -> ConfigDef {
        let exported = glue::config_definition::<T>();
        let def = with_state(&TRANSFORM, |t: &mut T| t.config_definition());
        assert_eq!(exported.len(), def.keys().len(), "every key crosses the WIT boundary");
        def
    }

    /// The problems the `validate` export reports for `config` (the alias's keys, prefix
    /// stripped): the definition's checks, then the transform's own.
    pub fn validate(&self, config: &Config) -> Vec<ConfigProblem> {
        let problems = glue::validate::<T>(config_to_wit(config.clone()));
        problems.into_iter().map(problem_from_wit).collect()
    }

    /// Configures the instance with `config`, the declared defaults of unset keys filled
    /// in first, as the worker does. It does not validate: call
    /// [`validate`](Self::validate) for that.
    pub fn configure(&mut self, config: Config) -> Result<()> {
        let config = self.config_definition().with_defaults(&config);
        glue::configure::<T>(config_to_wit(config)).map_err(error_from_wit)
    }

    /// Transforms `records` in one `apply`, as the worker does with a batch. Panics, as
    /// the worker would fail the batch, if the answer breaks the contract (origins not
    /// strictly increasing, an index out of range or both kept and failed); the SDK's glue
    /// never does.
    pub fn apply(&mut self, records: &[SinkRecord]) -> Result<TransformOutput> {
        let out = glue::apply::<T>(wasm_connect_batch::encode(records)).map_err(error_from_wit)?;
        let kept = wasm_connect_batch::decode(&out.records).expect("apply returns a valid batch");
        let origins: Vec<usize> = out.origins.iter().map(|&i| i as usize).collect();
        assert_eq!(kept.len(), origins.len(), "one origin per record that goes on");
        assert!(origins.windows(2).all(|w| w[0] < w[1]), "origins strictly increase");
        assert!(origins.iter().all(|&i| i < records.len()), "origins index the input");
        let failures: Vec<RecordFailure> = out.failures.into_iter().map(failure_from_wit).collect();
        for f in &failures {
            let i = f.index as usize;
            assert!(i < records.len(), "failure index {i} is out of the batch");
            assert!(!origins.contains(&i), "record {i} is both kept and failed");
        }
        Ok(TransformOutput { records: kept, origins, failures, inputs: records.len() })
    }

    /// Transforms one record (a batch of one) and says what became of it.
    pub fn apply_one(&mut self, record: SinkRecord) -> Result<TransformResult> {
        let out = self.apply(std::slice::from_ref(&record))?;
        Ok(out.outcomes().remove(0))
    }

    /// Closes the instance and drops it.
    pub fn close(&mut self) {
        glue::close::<T>();
    }

    /// A record of `topic`/`partition` at the partition's next Kafka offset, with a null
    /// key and value; set the rest with struct update syntax.
    pub fn next_record(&mut self, topic: &str, partition: i32) -> SinkRecord {
        self.records.next_record(topic, partition)
    }

    /// Records of `topic`/`partition` with text values (`Kind::String`), at increasing
    /// offsets.
    pub fn string_records<S: Into<String>>(
        &mut self,
        topic: &str,
        partition: i32,
        values: impl IntoIterator<Item = S>,
    ) -> Vec<SinkRecord> {
        self.records.string_records(topic, partition, values)
    }

    /// Records of `topic`/`partition` with schemaless JSON values (`Kind::Json`), at
    /// increasing offsets.
    pub fn json_records(
        &mut self,
        topic: &str,
        partition: i32,
        values: impl IntoIterator<Item = Value>,
    ) -> Vec<SinkRecord> {
        self.records.json_records(topic, partition, values)
    }
}
