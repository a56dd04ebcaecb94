//! [`Kit`]: the plugin under test, its [`Subject`] config, and the instance recipes every
//! check shares: a started connector, the first task config, a task instance with the
//! grants the worker would compute, synthetic sink records, and one-line error text.
//!
//! Instances are created exactly as the worker creates them (`Plugin::connector`,
//! `Plugin::source_task`, `Plugin::sink_task` with the config's grants and `wasm.*`
//! limits); only the injected host differs ([`MemoryOffsets`]). The kit holds no
//! instance between checks: each check makes its own, so one failure cannot leak into
//! the next check.

use std::sync::Arc;

use tokio::sync::OnceCell;
use wasm_connect_batch::{Kind, Record};

use super::offsets::MemoryOffsets;
use super::report::one_line;
use super::subject::Subject;
use crate::model::{Config, ConfigDef, PluginKind, TopicPartition};
use crate::runtime::{
    ConnectorInstance, Identity, InstanceError, Plugin, SandboxLimits, SinkTaskInstance,
    SourceTaskInstance,
};

/// The plugin under test and its config.
pub struct Kit {
    /// The loaded plugin.
    pub plugin: Plugin,
    /// The config under test.
    pub subject: Subject,
    /// The first task config, computed once for the data checks.
    first_task: OnceCell<Result<Option<Config>, String>>,
}

impl Kit {
    /// A kit for `plugin` run with `subject`.
    pub fn new(plugin: Plugin, subject: Subject) -> Self {
        Self { plugin, subject, first_task: OnceCell::new() }
    }

    /// Source or sink.
    pub fn kind(&self) -> PluginKind {
        self.plugin.info().kind
    }

    /// The plugin's config definition.
    pub fn def(&self) -> &ConfigDef {
        &self.plugin.info().config_def
    }

    /// The limits every instance of this config runs under.
    pub fn limits(&self) -> Result<SandboxLimits, String> {
        self.plugin.limits_for(&self.subject.config)
    }

    /// A connector instance, not started.
    pub async fn connector(&self, host: &Arc<MemoryOffsets>) -> Result<ConnectorInstance, String> {
        self.subject.runnable()?;
        self.plugin
            .connector(Identity::connector(&self.subject.name), &self.subject.config, host.clone())
            .await
            .map_err(|e| describe("connector instantiate", &e))
    }

    /// A connector instance, started with the config and its defaults (as the worker
    /// starts it).
    pub async fn started_connector(
        &self,
        host: &Arc<MemoryOffsets>,
    ) -> Result<ConnectorInstance, String> {
        let connector = self.connector(host).await?;
        let full = self.def().with_defaults(&self.subject.config);
        connector.start(full).await.map_err(|e| describe("connector start", &e))?;
        Ok(connector)
    }

    /// The first task config the connector returns for `tasks.max` = 1: `Ok(None)` if it
    /// returns none. Computed once.
    pub async fn first_task_config(&self) -> Result<Option<Config>, String> {
        self.first_task
            .get_or_init(|| async {
                let host = Arc::new(MemoryOffsets::default());
                let connector = self.started_connector(&host).await?;
                let configs =
                    connector.task_configs(1).await.map_err(|e| describe("task-configs", &e))?;
                connector.stop().await.map_err(|e| describe("connector stop", &e))?;
                Ok(configs.into_iter().next())
            })
            .await
            .clone()
    }

    /// The first task config, or the reason the data checks cannot run (the `Ok(Err)`
    /// case is a skip: the connector legitimately asked for no task).
    pub async fn task_config_or_skip(&self) -> Result<Result<Config, String>, String> {
        Ok(self.first_task_config().await?.ok_or_else(|| {
            "the connector returned no task config for tasks.max=1; no task to run".to_owned()
        }))
    }

    /// Source task `index`, created with `config`'s grants; not started.
    pub async fn source_task(
        &self,
        index: u32,
        config: &Config,
        host: &Arc<MemoryOffsets>,
    ) -> Result<SourceTaskInstance, String> {
        self.plugin
            .source_task(Identity::task(&self.subject.name, index), config, host.clone())
            .await
            .map_err(|e| describe("task instantiate", &e))
    }

    /// Sink task `index`, created with `config`'s grants; not started.
    pub async fn sink_task(
        &self,
        index: u32,
        config: &Config,
        host: &Arc<MemoryOffsets>,
    ) -> Result<SinkTaskInstance, String> {
        self.plugin
            .sink_task(Identity::task(&self.subject.name, index), config, host.clone())
            .await
            .map_err(|e| describe("task instantiate", &e))
    }

    /// Partition `partition` of the subject's topic.
    pub fn partition(&self, partition: i32) -> TopicPartition {
        TopicPartition { topic: self.subject.topic.clone(), partition }
    }
}

/// `count` synthetic sink records of `tp` from offset `first`: keys `k<offset>`, values
/// alternating between plain strings and small JSON objects (kind `string` and `json`).
pub fn sink_records(tp: &TopicPartition, first: i64, count: usize) -> Vec<Record> {
    (first..first + count as i64)
        .map(|offset| {
            let (value_kind, value) = if offset.rem_euclid(2) == 0 {
                (Kind::String, format!("conformance record {offset}"))
            } else {
                (Kind::Json, format!(r#"{{"n":{offset},"text":"conformance"}}"#))
            };
            Record {
                topic: tp.topic.clone(),
                partition: Some(tp.partition),
                offset: Some(offset),
                timestamp: Some(1_700_000_000_000 + offset),
                key_kind: Kind::String,
                key: Some(format!("k{offset}").into_bytes()),
                value_kind,
                value: Some(value.into_bytes()),
                headers: Vec::new(),
                source_partition: None,
                source_offset: None,
            }
        })
        .collect()
}

/// One line saying which call failed and how: `label` (the kit's name for the call, e.g.
/// `task stop`) is left out when the error already starts with it. A trap gets the last
/// line of the guest's stderr that says something (a panic message, usually; Rust's
/// `note: run with RUST_BACKTRACE` hint is skipped).
pub fn describe(label: &str, e: &InstanceError) -> String {
    let named = match e {
        InstanceError::Trap { call, .. }
        | InstanceError::Timeout { call, .. }
        | InstanceError::Oversized { call, .. }
        | InstanceError::Malformed { call, .. } => *call == label,
        _ => false,
    };
    let mut text = if named { e.to_string() } else { format!("{label}: {e}") };
    if let InstanceError::Trap { stderr, .. } = e
        && let Some(last) =
            stderr.iter().rev().map(|l| l.trim()).find(|l| !l.is_empty() && !l.starts_with("note:"))
    {
        text.push_str(&format!(" (guest stderr: {last})"));
    }
    one_line(&text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ConnectorError;
    use crate::runtime::TrapKind;

    #[test]
    fn errors_name_the_call_once() {
        let e = InstanceError::Connector(ConnectorError::Fatal("no\nfile".into()));
        assert_eq!(describe("task start", &e), "task start: fatal error: no file");
        let e = InstanceError::Trap {
            call: "poll",
            kind: TrapKind::Unreachable,
            detail: String::new(),
            stderr: vec![
                "chaos panic".into(),
                "note: run with `RUST_BACKTRACE=1` to display a backtrace".into(),
                " ".into(),
            ],
        };
        let text = describe("poll", &e);
        assert!(text.starts_with("poll trapped: guest panicked"), "{text}");
        assert!(text.ends_with("(guest stderr: chaos panic)"), "{text}");
        let e = InstanceError::Trap {
            call: "stop",
            kind: TrapKind::Deadline,
            detail: String::new(),
            stderr: Vec::new(),
        };
        assert_eq!(describe("task stop", &e), "task stop: stop trapped: CPU deadline exceeded");
    }

    #[test]
    fn synthetic_records_mix_strings_and_json() {
        let tp = TopicPartition { topic: "t".into(), partition: 2 };
        let records = sink_records(&tp, 10, 4);
        assert_eq!(records.len(), 4);
        assert_eq!(records[0].offset, Some(10));
        assert_eq!(records[3].partition, Some(2));
        assert_eq!(records[0].value_kind, Kind::String);
        assert_eq!(records[1].value_kind, Kind::Json);
        let json: serde_json::Value =
            serde_json::from_slice(records[1].value.as_ref().unwrap()).unwrap();
        assert_eq!(json["n"], 11);
    }
}
