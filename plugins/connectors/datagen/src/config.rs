//! The configuration of `Datagen`: its keys, their definition, how the connector splits
//! the record count over tasks, and [`Settings`], the parsed values a task runs with.
//!
//! This module owns key names, defaults and validators; it does no I/O.

use wasm_connect_sdk::{
    Config, ConfigDef, ConfigKey, Error, Grant, Importance, NonEmptyString, Range, Result,
    serde_json::Value, serde_json::json,
};

/// The topic to write to.
pub const TOPIC: &str = "topic";
/// Records to emit per connector (split over tasks); -1: unlimited.
pub const RECORDS: &str = "records";
/// Records per second per task; -1: unlimited.
pub const RATE: &str = "rate";
/// Key size in bytes.
pub const KEY_SIZE: &str = "key.size";
/// Value size in bytes.
pub const VALUE_SIZE: &str = "value.size";
/// The most records one poll returns.
pub const BATCH_SIZE: &str = "batch.size";
/// Set by the connector in each task config: the task's number, from 0.
pub const TASK_ID: &str = "datagen.task.id";

const DEFAULT_KEY_SIZE: i32 = 8;
const DEFAULT_VALUE_SIZE: i32 = 100;
const DEFAULT_BATCH_SIZE: i32 = 1000;

/// The largest `key.size`: 1 MiB (a key is a zero-padded number; past 20 digits it only
/// pads).
pub const MAX_KEY_SIZE: i32 = 1 << 20;
/// The largest `value.size`: 8 MiB. With the largest key, one record then fits the
/// worker's default batch limit (`wasm.batch.max.bytes`, 16 MiB), and the value's buffer,
/// the record and its encoded batch fit the default sandbox memory of a Rust guest
/// (64 MiB) together.
pub const MAX_VALUE_SIZE: i32 = 8 << 20;
/// The most key and value bytes one poll returns, whatever `batch.size` says: a poll
/// returns fewer records when they are large (at least one). Half the worker's default
/// batch limit, so the records and their encoding stay far below the memory cap.
pub const MAX_POLL_BYTES: usize = 8 << 20;

/// The keys of the connector.
pub fn definition() -> ConfigDef {
    ConfigDef::new()
        .define(
            ConfigKey::string(TOPIC)
                .required()
                .ensure(NonEmptyString)
                .importance(Importance::High)
                .doc("The topic to write to."),
        )
        .define(
            ConfigKey::long(RECORDS)
                .default_value(-1)
                .ensure(Range::at_least(-1))
                .importance(Importance::High)
                .doc("Records to emit in total, split evenly over the tasks; -1: unlimited."),
        )
        .define(
            // No declared default: a default would be filled in, and so grant the clock,
            // on every instance. Unset means -1, as fast as possible.
            ConfigKey::double(RATE)
                .validator(|rate| match rate.parse::<f64>() {
                    Ok(r) if r == -1.0 || r > 0.0 => Ok(()),
                    _ => Err("Value must be -1 (as fast as possible) or greater than 0".into()),
                })
                .importance(Importance::Medium)
                .grant(Grant::Clock)
                .doc(
                    "Records per second per task; unset or -1: as fast as possible. Pacing \
                     reads the clock, so setting this key grants it.",
                ),
        )
        .define(
            ConfigKey::int(KEY_SIZE)
                .default_value(DEFAULT_KEY_SIZE)
                .ensure(Range::between(0, i64::from(MAX_KEY_SIZE)))
                .importance(Importance::Low)
                .doc(
                    "Key size in bytes: the zero-padded record sequence number; 0: null keys. \
                     At most 1048576 (1 MiB).",
                ),
        )
        .define(
            ConfigKey::int(VALUE_SIZE)
                .default_value(DEFAULT_VALUE_SIZE)
                .ensure(Range::between(0, i64::from(MAX_VALUE_SIZE)))
                .importance(Importance::Low)
                .doc(
                    "Value size in bytes. At most 8388608 (8 MiB): one record must fit the \
                     sandbox's batch and memory limits.",
                ),
        )
        .define(
            ConfigKey::int(BATCH_SIZE)
                .default_value(DEFAULT_BATCH_SIZE)
                .ensure(Range::at_least(1))
                .importance(Importance::Low)
                .doc(
                    "The most records one poll returns; fewer when they would carry more than \
                     8 MiB of keys and values.",
                ),
        )
}

/// The task configs for `max_tasks` tasks: `records` split as evenly as possible (no task
/// without records when the count is limited), each task numbered.
pub fn split(config: &Config, max_tasks: u32) -> Result<Vec<Config>> {
    let records = config.get_i64(RECORDS)?.unwrap_or(-1);
    let max_tasks = i64::from(max_tasks.max(1));
    let tasks = if records < 0 { max_tasks } else { max_tasks.min(records.max(1)) };
    Ok((0..tasks)
        .map(|i| {
            let mut task = config.clone();
            task.set(TASK_ID, i.to_string());
            if records >= 0 {
                let share = records / tasks + i64::from(i < records % tasks);
                task.set(RECORDS, share.to_string());
            }
            task
        })
        .collect())
}

/// What a task runs with.
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    /// The topic to write to.
    pub topic: String,
    /// The task's number.
    pub task_id: i64,
    /// Records this task emits in total; `None`: unlimited.
    pub records: Option<u64>,
    /// Records per second; `None`: unlimited.
    pub rate: Option<f64>,
    /// Key size in bytes; 0: null keys.
    pub key_size: usize,
    /// Value size in bytes.
    pub value_size: usize,
    /// The most records one poll returns: `batch.size`, lowered so that a poll carries
    /// at most [`MAX_POLL_BYTES`] of keys and values (and at least one record).
    pub batch_size: usize,
}

impl Settings {
    /// Parses a task config. Sizes beyond the definition's bounds are refused here too:
    /// a config that skipped validation fails with the bound, never with a trap.
    pub fn parse(config: &Config) -> Result<Self> {
        let size = |key: &str, default: i32, max: i32| -> Result<usize> {
            let n = config.get_i32(key)?.unwrap_or(default);
            if !(0..=max).contains(&n) {
                return Err(Error::config(format!(
                    "Invalid value {n} for configuration {key}: Value must be between 0 and {max}"
                )));
            }
            Ok(usize::try_from(n).unwrap_or(0))
        };
        let key_size = size(KEY_SIZE, DEFAULT_KEY_SIZE, MAX_KEY_SIZE)?;
        let value_size = size(VALUE_SIZE, DEFAULT_VALUE_SIZE, MAX_VALUE_SIZE)?;
        let batch_size = size(BATCH_SIZE, DEFAULT_BATCH_SIZE, i32::MAX)?.max(1);
        let per_poll = (MAX_POLL_BYTES / (key_size + value_size).max(1)).max(1);
        Ok(Self {
            topic: config.require(TOPIC)?.trim().to_owned(),
            task_id: config.get_i64(TASK_ID)?.unwrap_or(0),
            records: u64::try_from(config.get_i64(RECORDS)?.unwrap_or(-1)).ok(),
            rate: config.get_f64(RATE)?.filter(|r| *r > 0.0),
            key_size,
            value_size,
            batch_size: batch_size.min(per_poll),
        })
    }

    /// The source partition of this task's records.
    pub fn source_partition(&self) -> Value {
        json!({ "task": self.task_id })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shares(records: i64, max_tasks: u32) -> Vec<(String, String)> {
        let config = Config::new().with(TOPIC, "t").with(RECORDS, records.to_string());
        split(&config, max_tasks)
            .unwrap()
            .iter()
            .map(|c| (c.get(TASK_ID).unwrap().into(), c.get(RECORDS).unwrap().into()))
            .collect()
    }

    #[test]
    fn splits_the_count_evenly_and_never_makes_empty_tasks() {
        let ids_and_shares = |v: &[(&str, &str)]| {
            v.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect::<Vec<_>>()
        };
        assert_eq!(shares(10, 3), ids_and_shares(&[("0", "4"), ("1", "3"), ("2", "3")]));
        assert_eq!(shares(2, 4), ids_and_shares(&[("0", "1"), ("1", "1")]));
        assert_eq!(shares(0, 4), ids_and_shares(&[("0", "0")]));
        assert_eq!(shares(-1, 2), ids_and_shares(&[("0", "-1"), ("1", "-1")]));
    }

    #[test]
    fn parses_defaults_and_unlimited() {
        let s = Settings::parse(&Config::new().with(TOPIC, "t").with(RATE, "-1")).unwrap();
        assert_eq!((s.records, s.rate, s.key_size, s.value_size), (None, None, 8, 100));
        assert_eq!(s.batch_size, 1000);
    }
}
