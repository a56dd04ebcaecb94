//! [`Chain`]: one task's running transformation chain, built from a [`ChainSpec`], and
//! what it made of each record ([`Outcome`]).
//!
//! Records go through the steps in order. A step with a predicate transforms only the
//! records the predicate matches (or, negated, does not match), as Kafka Connect's
//! `TransformationStage` does; the others pass it unchanged. Built-in steps run record by
//! record; a plugin step gets all its records as one batch, and when that call fails as a
//! whole (an error or a trap) each record is tried again alone, so that only the records
//! that fail are failed. A record a step fails is failed for the rest of the chain. A trap
//! discards a plugin step's instance; the next call gets a fresh one (configured again),
//! so that a tolerated failure does not fail every later record.
//!
//! It must not decide what a failure costs (the task's error reporter does) or touch
//! topics and converters.

use std::sync::Arc;

use wasm_connect_batch::{Header as BatchHeader, Record as BatchRecord};
use wasm_connect_transforms::header_converter::HeaderConverter;
use wasm_connect_transforms::registry::{Predicate, Transformation};
use wasm_connect_transforms::{Data, Header, HeaderValue, Record, config};

use super::spec::{ChainSpec, StepClass, StepSpec};
use crate::runtime::{Identity, InstanceError, InstanceHost, Plugin, TransformInstance};

/// What the chain made of one record.
#[derive(Debug)]
pub enum Outcome {
    /// It goes on, as it is now.
    Keep(Record),
    /// A transform dropped it (Kafka Connect's `null`).
    Dropped,
    /// A step could not handle it.
    Failed {
        /// The class of the step, for the `class.name` header.
        class: String,
        /// Why.
        error: String,
    },
}

/// A task's transformation chain.
pub struct Chain {
    steps: Vec<Step>,
    header_converter: HeaderConverter,
    ident: Identity,
    host: Arc<dyn InstanceHost>,
}

struct Step {
    spec: StepSpec,
    run: Run,
    predicate: Option<(Box<dyn Predicate>, bool)>,
}

enum Run {
    Builtin(Box<dyn Transformation>),
    /// The plugin and its instance; `None` after a trap discarded it.
    Plugin(Plugin, Option<TransformInstance>),
}

impl Chain {
    /// Builds the chain of `spec` for the task `ident`: built-in classes from their keys,
    /// plugin steps instantiated and configured.
    pub async fn build(
        spec: &ChainSpec,
        ident: Identity,
        host: Arc<dyn InstanceHost>,
    ) -> Result<Self, String> {
        let mut steps = Vec::with_capacity(spec.steps.len());
        for s in &spec.steps {
            let prefix = format!("transforms.{}.", s.alias);
            let run = match &s.class {
                StepClass::Builtin(def) => {
                    let parsed = config::parse(def.keys, &s.props, &prefix).map_err(join)?;
                    Run::Builtin((def.build)(&parsed).map_err(join)?)
                }
                StepClass::Plugin(plugin) => {
                    let instance = instantiate(plugin, &s.props, &ident, &host).await?;
                    Run::Plugin(plugin.clone(), Some(instance))
                }
            };
            let predicate = match &s.predicate {
                None => None,
                Some((p, negate)) => {
                    let prefix = format!("predicates.{}.", p.alias);
                    let parsed = config::parse(p.def.keys, &p.props, &prefix).map_err(join)?;
                    Some(((p.def.build)(&parsed).map_err(join)?, *negate))
                }
            };
            steps.push(Step { spec: s.clone(), run, predicate });
        }
        Ok(Self { steps, header_converter: spec.header_converter, ident, host })
    }

    /// Whether the chain has no steps (records pass untouched and undecoded).
    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }

    /// The header converter typed headers are written with.
    pub fn header_converter(&self) -> HeaderConverter {
        self.header_converter
    }

    /// Runs `records` through every step: one outcome per record, in order.
    pub async fn apply(&mut self, records: Vec<Record>) -> Vec<Outcome> {
        let mut outcomes: Vec<Outcome> = records.into_iter().map(Outcome::Keep).collect();
        for step in &mut self.steps {
            let applies: Vec<usize> = outcomes
                .iter()
                .enumerate()
                .filter_map(|(i, o)| match o {
                    Outcome::Keep(r) => step.applies_to(r).then_some(i),
                    _ => None,
                })
                .collect();
            if applies.is_empty() {
                continue;
            }
            let class = step.spec.class.name().to_owned();
            match &mut step.run {
                Run::Builtin(t) => {
                    for i in applies {
                        let Outcome::Keep(r) =
                            std::mem::replace(&mut outcomes[i], Outcome::Dropped)
                        else {
                            unreachable!("only kept records apply")
                        };
                        outcomes[i] = match t.apply(r) {
                            Ok(Some(r)) => Outcome::Keep(r),
                            Ok(None) => Outcome::Dropped,
                            Err(e) => Outcome::Failed { class: class.clone(), error: e.message },
                        };
                    }
                }
                Run::Plugin(plugin, instance) => {
                    let step = PluginStep {
                        plugin,
                        props: &step.spec.props,
                        ident: &self.ident,
                        host: &self.host,
                        headers: self.header_converter,
                        class: &class,
                    };
                    // A failed batch is tried again record by record, so that only the
                    // records that fail (or trap) fail, as Kafka Connect's one-record
                    // `apply` calls would have it.
                    if step.run(instance, &mut outcomes, &applies).await.is_err() {
                        for &i in &applies {
                            if let Err(error) = step.run(instance, &mut outcomes, &[i]).await {
                                outcomes[i] = Outcome::Failed { class: class.clone(), error };
                            }
                        }
                    }
                }
            }
        }
        outcomes
    }

    /// Closes the plugin steps' instances.
    pub async fn close(self) {
        for step in self.steps {
            if let Run::Plugin(_, Some(instance)) = step.run {
                let _ = instance.close().await;
            }
        }
    }
}

impl Step {
    fn applies_to(&mut self, record: &Record) -> bool {
        match &mut self.predicate {
            None => true,
            Some((p, negate)) => p.test(record) != *negate,
        }
    }
}

/// A plugin step's parts, for one `apply`.
struct PluginStep<'a> {
    plugin: &'a Plugin,
    props: &'a [(String, String)],
    ident: &'a Identity,
    host: &'a Arc<dyn InstanceHost>,
    headers: HeaderConverter,
    class: &'a str,
}

impl PluginStep<'_> {
    /// Runs the records at `applies` through the step, making a fresh instance first if a
    /// trap discarded the last one. On `Err` the records are back in `outcomes` as they
    /// were, and the error says why the whole call failed.
    async fn run(
        &self,
        instance: &mut Option<TransformInstance>,
        outcomes: &mut [Outcome],
        applies: &[usize],
    ) -> Result<(), String> {
        if instance.is_none() {
            *instance = Some(instantiate(self.plugin, self.props, self.ident, self.host).await?);
        }
        let live = instance.as_ref().expect("made just above");
        match run_plugin(live, outcomes, applies, self.headers, self.class).await {
            Ok(()) => Ok(()),
            Err(e) => {
                if e.is_fatal_to_instance() {
                    *instance = None;
                }
                Err(e.trace())
            }
        }
    }
}

async fn instantiate(
    plugin: &Plugin,
    props: &[(String, String)],
    ident: &Identity,
    host: &Arc<dyn InstanceHost>,
) -> Result<TransformInstance, String> {
    let props = plugin.resolve_paths(props)?;
    let instance =
        plugin.transform(ident.clone(), &props, host.clone()).await.map_err(|e| e.trace())?;
    instance.configure(props).await.map_err(|e| e.trace())?;
    Ok(instance)
}

/// Sends the records at `applies` through a plugin step; a record it fails or drops is
/// marked so. `Err` fails them all.
async fn run_plugin(
    instance: &TransformInstance,
    outcomes: &mut [Outcome],
    applies: &[usize],
    headers: HeaderConverter,
    class: &str,
) -> Result<(), InstanceError> {
    let mut batch = Vec::with_capacity(applies.len());
    let mut sent = Vec::with_capacity(applies.len());
    for &i in applies {
        let Outcome::Keep(r) = std::mem::replace(&mut outcomes[i], Outcome::Dropped) else {
            unreachable!("only kept records apply")
        };
        match to_batch(r, headers) {
            Ok(b) => {
                batch.push(b);
                sent.push(i);
            }
            Err(error) => outcomes[i] = Outcome::Failed { class: class.to_owned(), error },
        }
    }
    if batch.is_empty() {
        return Ok(());
    }
    let out = match instance.apply(&batch).await {
        Ok(out) => out,
        Err(e) => {
            // Put the records back, so the caller marks them failed.
            for (b, &i) in batch.into_iter().zip(&sent) {
                outcomes[i] = Outcome::Keep(from_batch(b));
            }
            return Err(e);
        }
    };
    for f in out.failures {
        outcomes[sent[f.index as usize]] =
            Outcome::Failed { class: class.to_owned(), error: f.reason };
    }
    for (record, origin) in out.records.into_iter().zip(out.origins) {
        let i = sent[origin as usize];
        if matches!(outcomes[i], Outcome::Dropped) {
            outcomes[i] = Outcome::Keep(from_batch(record));
        }
    }
    Ok(())
}

/// A chain record as a plugin step (or a task) takes it: key and value encoded back to
/// kinds, typed headers written with the header converter.
pub fn to_batch(r: Record, headers: HeaderConverter) -> Result<BatchRecord, String> {
    let (key_kind, key) = r.key.into_raw().map_err(|e| e.message)?;
    let (value_kind, value) = r.value.into_raw().map_err(|e| e.message)?;
    let headers = r
        .headers
        .into_iter()
        .map(|h| {
            let value = match h.value {
                HeaderValue::Raw(v) => v,
                HeaderValue::Typed(t) => headers.write(&h.key, &t).map_err(|e| e.message)?,
            };
            Ok(BatchHeader { key: h.key, value })
        })
        .collect::<Result<Vec<_>, String>>()?;
    Ok(BatchRecord {
        topic: r.topic,
        partition: r.partition,
        offset: r.offset,
        timestamp: r.timestamp,
        key_kind,
        key,
        value_kind,
        value,
        headers,
        source_partition: None,
        source_offset: None,
    })
}

/// A batch record as the chain takes it (offsets and source positions are the caller's).
pub fn from_batch(r: BatchRecord) -> Record {
    Record {
        topic: r.topic,
        partition: r.partition,
        offset: r.offset,
        timestamp: r.timestamp,
        key: Data::raw(r.key_kind, r.key),
        value: Data::raw(r.value_kind, r.value),
        headers: r
            .headers
            .into_iter()
            .map(|h| Header { key: h.key, value: HeaderValue::Raw(h.value) })
            .collect(),
    }
}

fn join(problems: Vec<config::Problem>) -> String {
    problems.into_iter().map(|p| format!("{}: {}", p.key, p.message)).collect::<Vec<_>>().join("; ")
}
