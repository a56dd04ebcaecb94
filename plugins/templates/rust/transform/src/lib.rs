//! `{{class}}`: a single message transform that moves every record to the topic
//! `<topic.prefix><topic>` and, with `drop.tombstones=true`, drops records with a null
//! value.
//!
//! Start here: change `apply` to change records your way. It may change a record's topic,
//! partition, timestamp, key, value and headers, drop it (`TransformResult::Drop`) or fail
//! it (`TransformResult::fail(reason)`, routed by the connector's `errors.*` settings).

use wasm_connect_sdk::{
    Config, ConfigDef, ConfigKey, Importance, Result, SinkRecord, Transform, TransformResult,
    export_transform,
};

/// The prefix every topic gets.
const TOPIC_PREFIX: &str = "topic.prefix";
/// Whether records with a null value are dropped.
const DROP_TOMBSTONES: &str = "drop.tombstones";

/// The transform and its configured keys.
#[derive(Default)]
pub struct {{class}} {
    prefix: String,
    drop_tombstones: bool,
}

impl Transform for {{class}} {
    fn name(&self) -> &str {
        "{{class}}"
    }

    fn version(&self) -> &str {
        env!("CARGO_PKG_VERSION")
    }

    fn config_definition(&self) -> ConfigDef {
        ConfigDef::new()
            .define(
                ConfigKey::string(TOPIC_PREFIX)
                    .default_value("{{name}}.")
                    .importance(Importance::High)
                    .doc("The prefix every record's topic gets."),
            )
            .define(
                ConfigKey::boolean(DROP_TOMBSTONES)
                    .default_value(false)
                    .doc("Drop records whose value is null."),
            )
    }

    fn configure(&mut self, config: Config) -> Result<()> {
        self.prefix = config.get_or(TOPIC_PREFIX, "").to_owned();
        self.drop_tombstones = config.get_bool(DROP_TOMBSTONES)?.unwrap_or(false);
        Ok(())
    }

    fn apply(&mut self, record: SinkRecord) -> Result<TransformResult> {
        if self.drop_tombstones && record.value.is_none() {
            return Ok(TransformResult::Drop);
        }
        let topic = format!("{}{}", self.prefix, record.topic);
        Ok(TransformResult::Keep(SinkRecord { topic, ..record }))
    }
}

export_transform!({{class}});

#[cfg(test)]
mod tests {
    use wasm_connect_sdk::testing::{RecordsExt, TransformHarness};

    use super::*;

    #[test]
    fn prefixes_topics_and_drops_tombstones_when_asked() {
        let mut t = TransformHarness::<{{class}}>::new();
        let config = Config::new().with(DROP_TOMBSTONES, "true");
        t.configure(config).unwrap();
        let mut records = t.string_records("orders", 0, ["one"]);
        records.push(t.next_record("orders", 0));
        let out = t.apply(&records).unwrap();
        assert_eq!(out.origins, [0], "the tombstone is dropped");
        assert_eq!(out.records[0].topic, "{{name}}.orders");
        assert_eq!(out.records.values_as_strings(), ["one"]);
    }

    #[test]
    fn a_bad_boolean_is_a_config_problem() {
        let t = TransformHarness::<{{class}}>::new();
        let problems = t.validate(&Config::new().with(DROP_TOMBSTONES, "maybe"));
        assert_eq!(problems[0].key, DROP_TOMBSTONES);
    }
}
