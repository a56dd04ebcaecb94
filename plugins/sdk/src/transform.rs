//! [`Transform`]: a single message transform (Kafka Connect's `Transformation`), and
//! [`TransformResult`], what it makes of one record.
//!
//! This module owns the trait and its contract only; `glue` decodes each batch, calls
//! [`Transform::apply`] once per record and encodes what survives with its origin.

use crate::{Config, ConfigDef, ConfigProblem, Result, SinkRecord};

/// What [`Transform::apply`] makes of one record.
#[derive(Clone, Debug, PartialEq)]
pub enum TransformResult {
    /// The record goes on, possibly changed (topic, partition, timestamp, key, value,
    /// headers).
    Keep(SinkRecord),
    /// The record is dropped (Kafka Connect's `null`): it goes nowhere, and is not an
    /// error.
    Drop,
    /// The record cannot be handled, for this reason. The worker routes it as a failure of
    /// KIP-298's TRANSFORMATION stage: `errors.tolerance=all` skips it (to the dead-letter
    /// queue if one is set), `none` fails the task.
    Fail(String),
}

impl TransformResult {
    /// [`TransformResult::Fail`] with `reason`.
    pub fn fail(reason: impl Into<String>) -> Self {
        Self::Fail(reason.into())
    }
}

impl From<SinkRecord> for TransformResult {
    fn from(record: SinkRecord) -> Self {
        Self::Keep(record)
    }
}

/// A single message transform (Kafka Connect's `Transformation`), named by a connector
/// config's `transforms.<alias>.type`.
///
/// The worker creates one instance per running task that uses it (two aliases of the
/// same plugin get two instances) with [`Default`], and never shares it. It calls
/// [`configure`](Self::configure) once with the alias's keys (`transforms.<alias>.`
/// stripped; defaults filled in), then [`apply`](Self::apply) once per record, in order,
/// then [`close`](Self::close) at most once. It also creates short-lived instances,
/// without any sandbox grant, that only see [`name`](Self::name),
/// [`version`](Self::version), [`config_definition`](Self::config_definition) and
/// [`validate`](Self::validate), so those must work without `configure`. Calls never
/// overlap.
///
/// The records are those of a sink task's `put` when the transform runs for a sink
/// connector (with their Kafka `offset`), and a source task's records for a source
/// connector (no `offset`); source partitions and offsets never reach a transform, and
/// the worker keeps them for the records that survive.
pub trait Transform: Default + 'static {
    /// The name users write in `transforms.<alias>.type`, e.g. `Redact`.
    fn name(&self) -> &str;

    /// The transform version, e.g. `env!("CARGO_PKG_VERSION")`.
    fn version(&self) -> &str;

    /// The configuration definition (its own keys, without the `transforms.<alias>.`
    /// prefix). It must depend on nothing but the code.
    fn config_definition(&self) -> ConfigDef;

    /// The transform's own checks of a proposed config, beyond what
    /// [`ConfigDef::validate`](crate::ConfigDef::validate) checks (which the SDK runs
    /// first, on [`config_definition`](Self::config_definition)). Read values with the
    /// fallible [`Config`] getters. The default finds no problem.
    fn validate(&self, config: &Config) -> Vec<ConfigProblem> {
        let _ = config;
        Vec::new()
    }

    /// Configures the instance with its full config, defaults filled in. An error fails
    /// the task.
    fn configure(&mut self, config: Config) -> Result<()>;

    /// Transforms one record: [`TransformResult::Keep`] it (changed or not),
    /// [`Drop`](TransformResult::Drop) it or [`Fail`](TransformResult::Fail) it.
    ///
    /// `Err(...)` fails the whole batch (every record of it, as a TRANSFORMATION stage
    /// failure), as does a panic, which also discards the instance: return
    /// `TransformResult::Fail` for a record that is merely bad.
    fn apply(&mut self, record: SinkRecord) -> Result<TransformResult>;

    /// Releases what the instance holds. The default does nothing.
    fn close(&mut self) {}
}
