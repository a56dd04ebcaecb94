//! The connector context the worker offers: [`request_task_reconfiguration`],
//! [`raise_error`] and, for source plugins, [`offsets`].
//!
//! This module owns the guest side of the `host` and `offset-reader` imports (logging is
//! in `log`). Natively (outside wasm, for unit tests) the calls are recorded in
//! thread-local state that [`testing`](crate::testing) reads, and `offsets` answers
//! from the offsets a test seeded there (none by default). None of them can fail.

use serde_json::Value;

use crate::Error;

/// Asks the worker to call the connector's `task_configs` again (Kafka Connect's
/// `ConnectorContext.requestTaskReconfiguration`). Only meaningful from a connector;
/// ignored from a task. Requests made before the previous one ran collapse into one.
pub fn request_task_reconfiguration() {
    imp::request_task_reconfiguration();
}

/// Reports that the connector failed in the background (Kafka Connect's
/// `ConnectorContext.raiseError`): the worker marks it FAILED with this error and stops it.
pub fn raise_error(error: Error) {
    imp::raise_error(error);
}

/// The last committed source offset of each source partition, in the same order: `None`
/// where nothing was committed. Partitions and offsets are JSON objects, as the task put
/// them in its [`SourceRecord`](crate::SourceRecord)s.
///
/// Only source plugins may call this: a sink plugin that does imports the offset reader,
/// which the `sink-connector` world does not offer, so the worker cannot load it.
pub fn offsets(partitions: &[Value]) -> Vec<Option<Value>> {
    let keys: Vec<String> = partitions.iter().map(Value::to_string).collect();
    imp::offsets(&keys)
        .into_iter()
        .zip(partitions)
        .map(|(offset, partition)| {
            let text = offset?;
            match serde_json::from_str(&text) {
                Ok(v) => Some(v),
                Err(e) => {
                    crate::log(
                        crate::Level::Warn,
                        "Ignoring a committed source offset that is not JSON",
                        &[("partition", &partition.to_string()), ("error", &e.to_string())],
                    );
                    None
                }
            }
        })
        .collect()
}

#[cfg(target_arch = "wasm32")]
mod imp {
    use crate::Error;
    use crate::bindings::source::wasm_connect::connector::{host, offset_reader};

    pub(super) fn request_task_reconfiguration() {
        host::request_task_reconfiguration();
    }

    pub(super) fn raise_error(error: Error) {
        host::raise_error(&crate::glue::convert::error_to_wit(error));
    }

    pub(super) fn offsets(partitions: &[String]) -> Vec<Option<String>> {
        let mut found = offset_reader::offsets(partitions);
        // The contract promises one answer per partition; never index past a short one.
        found.resize(partitions.len(), None);
        found
    }
}

#[cfg(not(target_arch = "wasm32"))]
mod imp {
    use crate::Error;
    use crate::mock_host;

    pub(super) fn request_task_reconfiguration() {
        mock_host::with(|h| h.reconfiguration_requests += 1);
    }

    pub(super) fn raise_error(error: Error) {
        mock_host::with(|h| h.raised_errors.push(error));
    }

    pub(super) fn offsets(partitions: &[String]) -> Vec<Option<String>> {
        mock_host::with(|h| partitions.iter().map(|p| h.offsets.get(p).cloned()).collect())
    }
}
