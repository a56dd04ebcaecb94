//! `HelloSource`: emits `hello 0` .. `hello {count-1}` to a topic, then nothing. Each
//! record's source offset is its number, so a restarted task resumes after the last
//! committed one instead of counting from 0 again.

use wasm_connect_sdk::serde_json::{Value, json};
use wasm_connect_sdk::{
    Config, ConfigDef, ConfigKey, Connector, Importance, NonEmptyString, Range, Result,
    SourceRecord, SourceTask, export_source, info, offsets,
};

/// The connector: declares the keys and runs one task with its own config.
#[derive(Default)]
pub struct HelloSource {
    config: Config,
}

impl Connector for HelloSource {
    fn name(&self) -> &str {
        "HelloSource"
    }

    fn version(&self) -> &str {
        env!("CARGO_PKG_VERSION")
    }

    fn config_definition(&self) -> ConfigDef {
        ConfigDef::new()
            .define(
                ConfigKey::string("topic")
                    .required()
                    .ensure(NonEmptyString)
                    .importance(Importance::High)
                    .doc("The topic to write to."),
            )
            .define(
                ConfigKey::long("count")
                    .default_value(10)
                    .ensure(Range::at_least(0))
                    .doc("How many records to emit in all."),
            )
    }

    fn start(&mut self, config: Config) -> Result<()> {
        self.config = config;
        Ok(())
    }

    fn task_configs(&mut self, _max_tasks: u32) -> Result<Vec<Config>> {
        Ok(vec![self.config.clone()])
    }

    fn stop(&mut self) {}
}

/// The task: a counter whose offset is the last number sent.
#[derive(Default)]
pub struct HelloTask {
    topic: String,
    count: u64,
    next: u64,
}

/// The one source partition this connector reads.
fn partition() -> Value {
    json!({ "counter": "hello" })
}

impl SourceTask for HelloTask {
    fn start(&mut self, config: Config) -> Result<()> {
        self.topic = config.require("topic")?.to_owned();
        self.count = config.get_i64("count")?.unwrap_or(10).max(0) as u64;
        let committed = offsets(&[partition()]).pop().flatten();
        self.next = committed.and_then(|o| o["n"].as_u64()).map_or(0, |n| n + 1);
        info!("Counting from {} to {}", self.next, self.count);
        Ok(())
    }

    fn poll(&mut self, max_records: u32) -> Result<Vec<SourceRecord>> {
        let end = self.count.min(self.next + u64::from(max_records));
        let records = (self.next..end)
            .map(|n| {
                SourceRecord::new(&self.topic, partition(), json!({ "n": n }))
                    .string_key(n.to_string())
                    .string_value(format!("hello {n}"))
            })
            .collect();
        self.next = end;
        Ok(records)
    }

    fn stop(&mut self) {}
}

export_source!(HelloSource, HelloTask);

#[cfg(test)]
mod tests {
    use wasm_connect_sdk::testing::{ConnectorHarness, RecordsExt, SourceHarness};

    use super::*;

    #[test]
    fn counts_and_resumes_after_the_committed_record() {
        let mut task = SourceHarness::<HelloTask>::new().max_records(2);
        task.start(Config::new().with("topic", "hello").with("count", "3")).unwrap();
        assert_eq!(task.poll().unwrap().values_as_strings(), ["hello 0", "hello 1"]);
        task.commit().unwrap();
        task.restart().unwrap();
        assert_eq!(task.poll_until_empty().unwrap().values_as_strings(), ["hello 2"]);
        task.commit().unwrap();
        assert_eq!(task.committed_offset(&partition()), Some(json!({ "n": 2 })));
    }

    #[test]
    fn a_negative_count_is_rejected() {
        let connector = ConnectorHarness::<HelloSource>::new();
        let problems = connector.validate(&Config::new().with("topic", "t").with("count", "-1"));
        assert_eq!(problems.len(), 1);
        assert_eq!(problems[0].key, "count");
    }
}
