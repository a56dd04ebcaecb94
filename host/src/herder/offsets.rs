//! The offsets API (KIP-875): a connector's committed offsets, read, altered and reset.
//!
//! A source connector's offsets are the entries `["<name>", {partition}]` of its offsets
//! store ([`ConnectorOffsetStore`]): its own topic's when its config names one
//! (`offsets.storage.topic`, distributed mode), before the worker's offsets topic. A read
//! lists the partitions of both, each with its own topic's offset when it has one; a change
//! writes deletions to the worker's topic first, then everything to the connector's, then
//! copies the rest to the worker's, as Kafka Connect writes them. A sink connector's are
//! the committed offsets of its consumer group (`connect-<name>`, or
//! `consumer.override.group.id`), behind [`SinkOffsets`](super::SinkOffsets). Which one
//! comes from the plugin that `connector.class` names; a plugin not installed here is a 500
//! naming the class.
//!
//! Alter and reset check, in Kafka Connect's order: the config topic is read to its end,
//! the connector exists (404), it is STOPPED with no committed tasks (400), and an alter
//! names at least one partition (400). Then the shapes (400, Kafka Connect's messages for
//! sinks; for sources, its `OffsetUtils` messages). A `None` offset deletes the partition's
//! offset (a tombstone for sources); a reset deletes every partition's. Reads and resets of a
//! source connector's offsets first read the offsets topic to its end, so they cover what
//! tasks on other workers committed.
//!
//! Success messages are always the plain "The offsets for this connector have been
//! altered/reset successfully". Kafka Connect answers with the "framework-managed offsets
//! ... manually altered in the system that the connector uses" variant when a plugin's
//! `alterOffsets` hook declines; our WIT contract has no such hook and plugins keep their
//! offsets only through the framework, so that variant never applies.
//!
//! Under exactly-once source support (in a group), a source connector's offsets change only
//! after a zombie fencing round (`fence`), as in Kafka Connect.
//!
//! The loop never waits on a store: the config topic is read to its end through the write
//! pipeline's sync, the checks run in the loop, and the change itself (offset-store writes,
//! consumer-group calls, which wait on the cluster's group coordinator) runs in a spawned
//! task that answers once it is durable. The group itself refuses changes while tasks are
//! still members.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::actor::Herder;
use super::command::Command;
use super::connector_offsets::{ConnectorOffset, ConnectorOffsets};
use super::{HerderError, SinkOffsetsError};
use crate::model::{TargetState, TopicPartition};
use crate::store::{ConnectorOffsetStore, OffsetStores, StoreError};

/// The answer to a successful alter.
pub const ALTERED: &str = "The offsets for this connector have been altered successfully";
/// The answer to a successful reset.
pub const RESET: &str = "The offsets for this connector have been reset successfully";

const SINK_TOPIC: &str = "kafka_topic";
const SINK_PARTITION: &str = "kafka_partition";
const SINK_OFFSET: &str = "kafka_offset";

/// Where a connector's offsets live.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Kept {
    /// In the offsets store, and the connector's own topic if it names one.
    Source {
        topic: Option<String>,
    },
    Sink {
        group: String,
    },
}

/// Which request a consumer-group failure answers.
#[derive(Clone, Copy)]
enum Op {
    Get,
    Alter,
    Reset,
}

impl Herder {
    /// GET: no state precondition.
    pub(super) fn offsets_now(&self, command: Command) {
        let Command::Offsets(name, reply) = command else { return };
        match self.kept(&name) {
            Err(e) => {
                let _ = reply.send(Err(e));
            }
            Ok(Kept::Source { topic }) => {
                // The offsets topic read to its end, off the loop: tasks on other workers
                // commit offsets this worker's cache has not seen.
                let stores = self.offsets.clone();
                tokio::spawn(async move {
                    let r = match stores.for_connector(topic.as_deref()).await {
                        Ok(store) => store.read_connector_offsets(&name).await,
                        Err(e) => Err(e),
                    };
                    let _ =
                        reply.send(r.map(source_entries).map_err(|source| HerderError::Store {
                            context: format!("reading the offsets of connector {name}"),
                            source,
                        }));
                });
            }
            Ok(Kept::Sink { group }) => {
                let sink = self.sink_offsets.clone();
                tokio::spawn(async move {
                    let r = sink.get(&group).await;
                    let _ =
                        reply.send(r.map(sink_entries).map_err(|e| sink_error(&name, Op::Get, e)));
                });
            }
        }
    }

    /// PATCH and DELETE, once the config topic has been read to its end: the checks here,
    /// the change in a spawned task that answers.
    pub(super) fn offsets_synced(&mut self, command: Command) {
        match command {
            Command::AlterOffsets { name, offsets, reply } => {
                let checked = self.check_modifiable(&name).and_then(|()| {
                    if offsets.is_empty() {
                        return Err(bad(
                            "Partitions / offsets need to be provided for an alter offsets request",
                        ));
                    }
                    self.kept(&name)
                });
                match checked {
                    Err(e) => drop(reply.send(Err(e))),
                    Ok(Kept::Source { topic }) => match check_source_offsets(offsets) {
                        Err(e) => drop(reply.send(Err(e))),
                        Ok(offsets) => {
                            let stores = self.offsets.clone();
                            let fenced = self.fence_before_offsets(&name);
                            tokio::spawn(async move {
                                let opened = match fenced.await {
                                    Ok(()) => open(&stores, &name, topic.as_deref()).await,
                                    Err(e) => Err(e),
                                };
                                let r = match opened {
                                    Ok(store) => write_source(&store, &name, offsets).await,
                                    Err(e) => Err(e),
                                };
                                let _ = reply.send(r.map(|()| ALTERED.into()));
                            });
                        }
                    },
                    Ok(Kept::Sink { group }) => match parse_sink_offsets(&offsets) {
                        Err(e) => drop(reply.send(Err(e))),
                        Ok(parsed) => {
                            let sink = self.sink_offsets.clone();
                            tokio::spawn(async move {
                                let r = sink.alter(&group, &parsed).await;
                                let _ = reply.send(
                                    r.map(|()| ALTERED.into())
                                        .map_err(|e| sink_error(&name, Op::Alter, e)),
                                );
                            });
                        }
                    },
                }
            }
            Command::ResetOffsets(name, reply) => {
                match self.check_modifiable(&name).and_then(|()| self.kept(&name)) {
                    Err(e) => drop(reply.send(Err(e))),
                    Ok(Kept::Source { topic }) => {
                        // Every partition any worker committed: read to the end first.
                        let stores = self.offsets.clone();
                        let fenced = self.fence_before_offsets(&name);
                        tokio::spawn(async move {
                            if let Err(e) = fenced.await {
                                let _ = reply.send(Err(e));
                                return;
                            }
                            let read = match stores.for_connector(topic.as_deref()).await {
                                Ok(store) => {
                                    store.read_connector_offsets(&name).await.map(|a| (store, a))
                                }
                                Err(e) => Err(e),
                            };
                            let r = match read {
                                Ok((store, all)) => {
                                    let tombstones =
                                        all.into_iter().map(|(p, _)| (p, None)).collect();
                                    write_source(&store, &name, tombstones).await
                                }
                                Err(source) => Err(HerderError::Store {
                                    context: format!(
                                        "Failed to reset offsets for source connector {name}"
                                    ),
                                    source,
                                }),
                            };
                            let _ = reply.send(r.map(|()| RESET.into()));
                        });
                    }
                    Ok(Kept::Sink { group }) => {
                        let sink = self.sink_offsets.clone();
                        tokio::spawn(async move {
                            let r = sink.reset(&group).await;
                            let _ = reply.send(
                                r.map(|()| RESET.into())
                                    .map_err(|e| sink_error(&name, Op::Reset, e)),
                            );
                        });
                    }
                }
            }
            other => other.reject(HerderError::Failed("not an offsets change".into())),
        }
    }

    /// Under exactly-once source support in a group: a zombie fencing round for source
    /// connector `name` before its offsets change (Kafka Connect's `modifyConnectorOffsets`),
    /// so that no task of an earlier generation commits offsets after the change. Resolves
    /// at once otherwise, and when nothing is pending fencing.
    fn fence_before_offsets(
        &mut self,
        name: &str,
    ) -> impl std::future::Future<Output = Result<(), HerderError>> + Send + 'static {
        let (reply, answer) = tokio::sync::oneshot::channel();
        if self.settings.exactly_once_source_support.enabled() && self.fencing.is_some() {
            self.fence_synced(name.to_owned(), reply);
        } else {
            let _ = reply.send(Ok(()));
        }
        async move {
            match answer.await {
                Ok(Ok(())) => Ok(()),
                Ok(Err(e)) => Err(HerderError::Failed(format!(
                    "Failed to perform zombie fencing for source connector prior to modifying \
                     offsets: {e}"
                ))),
                Err(_) => Err(HerderError::ShuttingDown),
            }
        }
    }

    /// Exists (404), STOPPED with no tasks (400); the config topic has been read.
    fn check_modifiable(&self, name: &str) -> Result<(), HerderError> {
        if !self.config.contains(name) {
            return Err(HerderError::NotFound(format!("Connector {name} not found")));
        }
        if self.config.target_state(name) != TargetState::Stopped
            || !self.config.task_configs(name).is_empty()
        {
            return Err(bad(format!(
                "Connectors must be in the STOPPED state before their offsets can be modified. \
                 This can be done for the specified connector by issuing a 'PUT' request to the \
                 '/connectors/{name}/stop' endpoint"
            )));
        }
        Ok(())
    }

    /// Where `name`'s offsets live: 404 when unknown, 500 when its plugin is not installed.
    fn kept(&self, name: &str) -> Result<Kept, HerderError> {
        let config = self
            .typed
            .get(name)
            .ok_or_else(|| HerderError::NotFound(format!("Connector {name} not found")))?
            .as_ref()
            .map_err(|rejected| HerderError::Failed(rejected.trace.clone()))?;
        Ok(match config.kind() {
            crate::model::PluginKind::Source => Kept::Source {
                topic: crate::model::offsets_storage_topic(config.raw()).map(str::to_owned),
            },
            crate::model::PluginKind::Sink => {
                Kept::Sink { group: config.settings.sink_group.clone() }
            }
            crate::model::PluginKind::Transform => {
                unreachable!("connector.class never resolves to a transform plugin")
            }
        })
    }
}

/// The offsets store of source connector `name`, whose config names `topic`; a topic
/// that cannot be opened fails the change.
async fn open(
    stores: &OffsetStores,
    name: &str,
    topic: Option<&str>,
) -> Result<ConnectorOffsetStore, HerderError> {
    stores.for_connector(topic).await.map_err(|source: StoreError| HerderError::Store {
        context: format!("Failed to modify offsets for source connector {name}"),
        source,
    })
}

/// Writes source offsets; returns once they are durable in the connector's primary store.
async fn write_source(
    store: &ConnectorOffsetStore,
    name: &str,
    offsets: Vec<(Value, Option<Value>)>,
) -> Result<(), HerderError> {
    if offsets.is_empty() {
        return Ok(());
    }
    store.put(name, offsets).await.map_err(|source| HerderError::Store {
        context: format!("Failed to modify offsets for source connector {name}"),
        source,
    })
}

fn bad(message: impl Into<String>) -> HerderError {
    HerderError::BadRequest(message.into())
}

/// Source offsets as API entries.
fn source_entries(offsets: Vec<(Value, Value)>) -> ConnectorOffsets {
    let offsets =
        offsets.into_iter().map(|(partition, offset)| ConnectorOffset { partition, offset });
    ConnectorOffsets { offsets: offsets.collect() }
}

/// Consumer-group offsets as API entries.
fn sink_entries(offsets: Vec<(TopicPartition, i64)>) -> ConnectorOffsets {
    let offsets = offsets.into_iter().map(|(tp, o)| ConnectorOffset {
        partition: json!({ SINK_TOPIC: tp.topic, SINK_PARTITION: tp.partition }),
        offset: json!({ SINK_OFFSET: o }),
    });
    ConnectorOffsets { offsets: offsets.collect() }
}

/// A consumer-group failure as Kafka Connect reports it; the cause is logged.
fn sink_error(name: &str, op: Op, e: SinkOffsetsError) -> HerderError {
    let (verb, noun) = match op {
        Op::Get => ("retrieve", "sink connector"),
        Op::Alter => ("alter", "connector"),
        Op::Reset => ("reset", "sink connector"),
    };
    match e {
        SinkOffsetsError::Unsupported(message) => HerderError::BadRequest(message),
        SinkOffsetsError::GroupActive { .. } if !matches!(op, Op::Get) => {
            HerderError::Failed(format!(
                "Failed to {verb} consumer group offsets for connector {name} either because \
                 its tasks haven't stopped completely yet or the connector was resumed before \
                 the request to {verb} its offsets could be successfully completed. If the \
                 connector is in a stopped state, this operation can be safely retried. If it \
                 doesn't eventually succeed, the Connect cluster may need to be restarted to get \
                 rid of the zombie sink tasks."
            ))
        }
        e => {
            tracing::warn!(connector = %name, error = %e, "Consumer group offsets request failed");
            HerderError::Failed(format!(
                "Failed to {verb} consumer group offsets for {noun} {name}"
            ))
        }
    }
}

/// Checks source partitions and offsets (Kafka Connect's `OffsetUtils.validateFormat`): each
/// a JSON object (a partition may be null) with primitive values; a null offset is `None`.
fn check_source_offsets(
    offsets: Vec<(Value, Option<Value>)>,
) -> Result<Vec<(Value, Option<Value>)>, HerderError> {
    offsets
        .into_iter()
        .map(|(partition, offset)| {
            check_source_map(&partition)?;
            let offset = offset.filter(|o| !o.is_null());
            if let Some(o) = &offset {
                check_source_map(o)?;
            }
            Ok((partition, offset))
        })
        .collect()
}

fn check_source_map(v: &Value) -> Result<(), HerderError> {
    let map = match v {
        Value::Null => return Ok(()),
        Value::Object(map) => map,
        _ => return Err(bad("Offsets must be specified as a Map")),
    };
    for (key, value) in map {
        let kind = match value {
            Value::Array(_) => "ARRAY",
            Value::Object(_) => "MAP",
            _ => continue,
        };
        return Err(bad(format!(
            "Offsets may only contain primitive types as values, but field {key} contains {kind}"
        )));
    }
    Ok(())
}

/// Parses sink partitions and offsets with Kafka Connect's `SinkUtils` rules and messages
/// (numbers may be given as strings), plus: topics are non-empty strings, and partitions
/// and offsets are not negative. A later entry for the same partition wins.
fn parse_sink_offsets(
    offsets: &[(Value, Option<Value>)],
) -> Result<Vec<(TopicPartition, Option<i64>)>, HerderError> {
    let mut parsed = BTreeMap::new();
    for (partition, offset) in offsets {
        let tp = parse_sink_partition(partition).map_err(bad)?;
        let offset = parse_sink_offset(offset.as_ref()).map_err(bad)?;
        parsed.insert(tp, offset);
    }
    Ok(parsed.into_iter().collect())
}

fn parse_sink_partition(v: &Value) -> Result<TopicPartition, String> {
    let map = match v {
        Value::Null => {
            return Err(
                "The partition for a sink connector offset cannot be null or missing".into()
            );
        }
        Value::Object(map) if map.contains_key(SINK_TOPIC) && map.contains_key(SINK_PARTITION) => {
            map
        }
        _ => {
            return Err(format!(
                "The partition for a sink connector offset must contain the keys \
                 '{SINK_TOPIC}' and '{SINK_PARTITION}'"
            ));
        }
    };
    let topic = match &map[SINK_TOPIC] {
        Value::String(t) if !t.is_empty() => t.clone(),
        other => {
            return Err(format!(
                "The '{SINK_TOPIC}' of a sink connector offset's partition must be a topic name \
                 (a non-empty string), not {other}"
            ));
        }
    };
    let raw = &map[SINK_PARTITION];
    let partition = integer(raw).and_then(|p| i32::try_from(p).ok()).ok_or_else(|| {
        format!(
            "Failed to parse the following Kafka partition value in the provided offsets: '{}'. \
             Partition values for sink connectors need to be integers.",
            java_string(raw)
        )
    })?;
    if partition < 0 {
        return Err(format!(
            "Kafka partition values in the provided offsets cannot be negative: '{partition}'"
        ));
    }
    Ok(TopicPartition { topic, partition })
}

fn parse_sink_offset(v: Option<&Value>) -> Result<Option<i64>, String> {
    let map = match v {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::Object(map)) if map.contains_key(SINK_OFFSET) => map,
        Some(_) => {
            return Err(format!(
                "The offset for a sink connector should either be null or contain the key \
                 '{SINK_OFFSET}'"
            ));
        }
    };
    let raw = &map[SINK_OFFSET];
    let offset = integer(raw).ok_or_else(|| {
        format!(
            "Failed to parse the following Kafka offset value in the provided offsets: '{}'. \
             Offset values for sink connectors need to be integers.",
            java_string(raw)
        )
    })?;
    if offset < 0 {
        return Err(format!(
            "Kafka offset values in the provided offsets cannot be negative: '{offset}'"
        ));
    }
    Ok(Some(offset))
}

/// An integer given as a JSON integer or as a string of one (Java's `parseLong` of
/// `String.valueOf`).
fn integer(v: &Value) -> Option<i64> {
    match v {
        Value::Number(n) => n.as_i64(),
        Value::String(s) => s.parse().ok(),
        _ => None,
    }
}

/// A value as Java's `String.valueOf` prints it in Kafka Connect's messages: strings bare.
fn java_string(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tp(topic: &str, partition: i32) -> TopicPartition {
        TopicPartition { topic: topic.into(), partition }
    }

    fn sink_err(partition: Value, offset: Option<Value>) -> String {
        match parse_sink_offsets(&[(partition, offset)]) {
            Err(HerderError::BadRequest(m)) => m,
            other => panic!("expected a bad request, got {other:?}"),
        }
    }

    #[test]
    fn sink_offsets_parse_numbers_and_numeric_strings() {
        let parsed = parse_sink_offsets(&[
            (json!({"kafka_topic": "t", "kafka_partition": 1}), Some(json!({"kafka_offset": 5}))),
            (
                json!({"kafka_topic": "t", "kafka_partition": "0"}),
                Some(json!({"kafka_offset": "7"})),
            ),
            (json!({"kafka_topic": "u", "kafka_partition": 2}), None),
            (json!({"kafka_topic": "u", "kafka_partition": 3}), Some(Value::Null)),
        ])
        .unwrap();
        assert_eq!(
            parsed,
            [(tp("t", 0), Some(7)), (tp("t", 1), Some(5)), (tp("u", 2), None), (tp("u", 3), None)]
        );
    }

    #[test]
    fn a_later_sink_entry_for_the_same_partition_wins() {
        let p = json!({"kafka_topic": "t", "kafka_partition": 0});
        let parsed = parse_sink_offsets(&[
            (p.clone(), Some(json!({"kafka_offset": 1}))),
            (p, Some(json!({"kafka_offset": 2}))),
        ])
        .unwrap();
        assert_eq!(parsed, [(tp("t", 0), Some(2))]);
    }

    #[test]
    fn sink_shapes_are_refused_with_kafka_connects_messages() {
        let offset = Some(json!({"kafka_offset": 1}));
        assert_eq!(
            sink_err(Value::Null, offset.clone()),
            "The partition for a sink connector offset cannot be null or missing"
        );
        let keys = "The partition for a sink connector offset must contain the keys \
                    'kafka_topic' and 'kafka_partition'";
        assert_eq!(sink_err(json!({"kafka_topic": "t"}), offset.clone()), keys);
        assert_eq!(sink_err(json!(["t", 0]), offset.clone()), keys);
        assert_eq!(
            sink_err(json!({"kafka_topic": "t", "kafka_partition": "x"}), offset.clone()),
            "Failed to parse the following Kafka partition value in the provided offsets: 'x'. \
             Partition values for sink connectors need to be integers."
        );
        assert_eq!(
            sink_err(json!({"kafka_topic": "t", "kafka_partition": 1.5}), offset.clone()),
            "Failed to parse the following Kafka partition value in the provided offsets: '1.5'. \
             Partition values for sink connectors need to be integers."
        );
        assert!(
            sink_err(json!({"kafka_topic": 3, "kafka_partition": 0}), offset.clone())
                .contains("must be a topic name")
        );
        assert!(
            sink_err(json!({"kafka_topic": "t", "kafka_partition": -1}), offset)
                .contains("cannot be negative: '-1'")
        );
        let p = json!({"kafka_topic": "t", "kafka_partition": 0});
        assert_eq!(
            sink_err(p.clone(), Some(json!({"offset": 1}))),
            "The offset for a sink connector should either be null or contain the key 'kafka_offset'"
        );
        assert_eq!(
            sink_err(p.clone(), Some(json!({"kafka_offset": null}))),
            "Failed to parse the following Kafka offset value in the provided offsets: 'null'. \
             Offset values for sink connectors need to be integers."
        );
        assert!(sink_err(p, Some(json!({"kafka_offset": -5}))).contains("cannot be negative"));
    }

    #[test]
    fn source_offsets_must_be_maps_of_primitives() {
        let ok = check_source_offsets(vec![
            (json!({"file": "a"}), Some(json!({"pos": 3, "x": null, "s": "y", "b": true}))),
            (json!({"file": "b"}), Some(Value::Null)),
            (json!({"file": "c"}), None),
        ])
        .unwrap();
        assert_eq!(ok[1], (json!({"file": "b"}), None), "a null offset is a tombstone");
        let err = |p: Value, o: Value| match check_source_offsets(vec![(p, Some(o))]) {
            Err(HerderError::BadRequest(m)) => m,
            other => panic!("expected a bad request, got {other:?}"),
        };
        assert_eq!(err(json!([1]), json!({})), "Offsets must be specified as a Map");
        assert_eq!(err(json!({}), json!(5)), "Offsets must be specified as a Map");
        assert_eq!(
            err(json!({"f": [1]}), json!({})),
            "Offsets may only contain primitive types as values, but field f contains ARRAY"
        );
        assert_eq!(
            err(json!({}), json!({"o": {"n": 1}})),
            "Offsets may only contain primitive types as values, but field o contains MAP"
        );
    }

    #[test]
    fn entries_have_the_api_shape() {
        let sink = sink_entries(vec![(tp("t", 2), 40)]);
        assert_eq!(
            serde_json::to_value(&sink).unwrap(),
            json!({"offsets": [{
                "partition": {"kafka_topic": "t", "kafka_partition": 2},
                "offset": {"kafka_offset": 40}
            }]})
        );
        let source = source_entries(vec![(json!({"f": "a"}), json!({"pos": 1}))]);
        assert_eq!(
            serde_json::to_value(&source).unwrap(),
            json!({"offsets": [{"partition": {"f": "a"}, "offset": {"pos": 1}}]})
        );
    }

    #[test]
    fn group_failures_use_kafka_connects_messages() {
        let active = || SinkOffsetsError::GroupActive { group: "connect-s".into() };
        let m = sink_error("s", Op::Reset, active()).to_string();
        assert!(m.starts_with("Failed to reset consumer group offsets for connector s either"));
        assert!(m.contains("zombie sink tasks"));
        let m = sink_error("s", Op::Alter, SinkOffsetsError::Kafka("boom".into())).to_string();
        assert_eq!(m, "Failed to alter consumer group offsets for connector s");
        let m = sink_error("s", Op::Get, SinkOffsetsError::Kafka("boom".into())).to_string();
        assert_eq!(m, "Failed to retrieve consumer group offsets for sink connector s");
        let e = sink_error("s", Op::Alter, SinkOffsetsError::Unsupported("no".into()));
        assert!(matches!(e, HerderError::BadRequest(m) if m == "no"));
    }
}
