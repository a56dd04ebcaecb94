//! The connector and task driven natively through the SDK's harness: the sizes validation
//! refuses, and the largest sizes it accepts running within the sandbox's limits.

use wasm_connect_sdk::Config;
use wasm_connect_sdk::testing::{ConnectorHarness, SourceHarness};

use crate::config::{MAX_KEY_SIZE, MAX_POLL_BYTES, MAX_VALUE_SIZE};
use crate::connector::Datagen;
use crate::task::DatagenTask;

fn config(key_size: i64, value_size: i64) -> Config {
    Config::new()
        .with("topic", "t")
        .with("key.size", key_size.to_string())
        .with("value.size", value_size.to_string())
}

#[test]
fn sizes_past_the_sandbox_limits_are_refused_by_validate() {
    let connector = ConnectorHarness::<Datagen>::new();
    let problems = connector.validate(&config(100_000_000, 2_147_483_647));
    let found: Vec<(&str, &str)> =
        problems.iter().map(|p| (p.key.as_str(), p.message.as_str())).collect();
    assert_eq!(
        found,
        [
            (
                "key.size",
                "Invalid value 100000000 for configuration key.size: Value must be between 0 \
                 and 1048576"
            ),
            (
                "value.size",
                "Invalid value 2147483647 for configuration value.size: Value must be between \
                 0 and 8388608"
            ),
        ]
    );
    assert!(connector.validate(&config(-1, 0)).iter().any(|p| p.key == "key.size"));
    let at_bounds = config(MAX_KEY_SIZE.into(), MAX_VALUE_SIZE.into());
    assert!(connector.validate(&at_bounds).is_empty());
}

#[test]
fn a_task_refuses_sizes_that_skipped_validation_with_the_bound() {
    let mut task = SourceHarness::<DatagenTask>::new();
    let err = task.start(config(8, 2_147_483_647)).unwrap_err();
    assert!(err.to_string().contains("Value must be between 0 and 8388608"), "{err}");
}

#[test]
fn the_largest_sizes_run_one_bounded_poll_at_a_time() {
    let mut task = SourceHarness::<DatagenTask>::new().max_records(1000);
    let big = config(MAX_KEY_SIZE.into(), MAX_VALUE_SIZE.into()).with("batch.size", "1000");
    task.start(big).unwrap();
    let records = task.poll().unwrap();
    assert_eq!(records.len(), 1, "a poll never carries more than {MAX_POLL_BYTES} bytes");
    let record = &records[0];
    assert_eq!(record.key.as_ref().unwrap().len(), MAX_KEY_SIZE as usize);
    assert_eq!(record.value.as_ref().unwrap().len(), MAX_VALUE_SIZE as usize);
    drop(task);

    // Mid-sized records fill a poll up to the budget, and no further.
    let mut task = SourceHarness::<DatagenTask>::new().max_records(1000);
    task.start(config(0, 100_000).with("batch.size", "1000")).unwrap();
    let records = task.poll().unwrap();
    assert_eq!(records.len(), MAX_POLL_BYTES / 100_000);
}

#[test]
fn declares_exactly_once_support_and_no_transaction_boundaries() {
    use wasm_connect_sdk::ExactlyOnceSupport;
    let connector = ConnectorHarness::<Datagen>::new();
    let config = config(8, 8);
    assert_eq!(connector.exactly_once_support(&config), Some(ExactlyOnceSupport::Supported));
    assert!(!connector.can_define_transaction_boundaries(&config));
}
