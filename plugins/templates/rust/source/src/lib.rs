//! `{{class}}`: a source connector that writes `count` greetings to `topic`, numbered from
//! 0, and resumes after the last committed one when it restarts.
//!
//! Start here: change `poll` to read your system. Each record carries a source partition
//! (which stream it came from) and a source offset (how far into it); the worker commits
//! the offsets once the records are in Kafka, and `start` reads them back.

use wasm_connect_sdk::serde_json::{Value, json};
use wasm_connect_sdk::{
    Config, ConfigDef, ConfigKey, Connector, Importance, Range, Result, SourceRecord, SourceTask,
    export_source, info,
};

/// The topic records go to.
const TOPIC: &str = "topic";
/// How many records to write in all.
const COUNT: &str = "count";

/// The connector: declares the config and runs one task.
#[derive(Default)]
pub struct {{class}}Connector {
    config: Config,
}

impl Connector for {{class}}Connector {
    fn name(&self) -> &str {
        "{{class}}"
    }

    fn version(&self) -> &str {
        env!("CARGO_PKG_VERSION")
    }

    fn config_definition(&self) -> ConfigDef {
        ConfigDef::new()
            .define(
                ConfigKey::string(TOPIC)
                    .required()
                    .importance(Importance::High)
                    .doc("The topic to write to."),
            )
            .define(
                ConfigKey::long(COUNT)
                    .default_value(1000)
                    .ensure(Range::at_least(0))
                    .importance(Importance::Medium)
                    .doc("How many records to write in all."),
            )
    }

    fn start(&mut self, config: Config) -> Result<()> {
        self.config = config;
        Ok(())
    }

    fn task_configs(&mut self, _max_tasks: u32) -> Result<Vec<Config>> {
        // One stream of numbers, so one task whatever `tasks.max` allows.
        Ok(vec![self.config.clone()])
    }

    fn stop(&mut self) {}
}

/// The task: counts from the committed offset up to `count`.
#[derive(Default)]
pub struct {{class}}Task {
    topic: String,
    count: i64,
    next: i64,
}

/// The one source partition this task reads.
fn partition() -> Value {
    json!({ "source": "{{name}}" })
}

impl SourceTask for {{class}}Task {
    fn start(&mut self, config: Config) -> Result<()> {
        self.topic = config.require(TOPIC)?.to_owned();
        self.count = config.get_i64(COUNT)?.unwrap_or(1000);
        // Resume after the last committed record, if any.
        let committed = wasm_connect_sdk::offsets(&[partition()]).remove(0);
        self.next = committed.and_then(|o| o["next"].as_i64()).unwrap_or(0);
        info!("Starting at record {} of {}", self.next, self.count);
        Ok(())
    }

    fn poll(&mut self, max_records: u32) -> Result<Vec<SourceRecord>> {
        let end = self.count.min(self.next + i64::from(max_records));
        let records = (self.next..end)
            .map(|n| {
                SourceRecord::new(&self.topic, partition(), json!({ "next": n + 1 }))
                    .string_key(n.to_string())
                    .string_value(format!("hello {n}"))
            })
            .collect();
        self.next = end;
        Ok(records)
    }

    fn stop(&mut self) {}
}

export_source!({{class}}Connector, {{class}}Task);

#[cfg(test)]
mod tests {
    use wasm_connect_sdk::testing::{ConnectorHarness, RecordsExt, SourceHarness};

    use super::*;

    #[test]
    fn writes_count_records_and_resumes_after_the_committed_one() {
        let mut task = SourceHarness::<{{class}}Task>::new().max_records(2);
        task.start(Config::new().with(TOPIC, "t").with(COUNT, "3")).unwrap();
        assert_eq!(task.poll().unwrap().values_as_strings(), ["hello 0", "hello 1"]);
        task.commit().unwrap();
        task.restart().unwrap();
        assert_eq!(task.poll_until_empty().unwrap().values_as_strings(), ["hello 2"]);
    }

    #[test]
    fn a_negative_count_is_rejected() {
        let connector = ConnectorHarness::<{{class}}Connector>::new();
        let problems = connector.validate(&Config::new().with(TOPIC, "t").with(COUNT, "-1"));
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert_eq!(problems[0].key, COUNT);
    }
}
