//! The `host` interface: guest log lines into `tracing` with connector and task fields,
//! and the connector-context callbacks (reconfiguration requests, raised errors).
//!
//! Each line is clipped ([`MAX_MESSAGE`], [`MAX_FIELDS`]) and charged to the instance's
//! log budget (`log_budget`, half of `wasm.output.max.bytes`, as stdout and stderr each
//! get, refilled at that size an hour): past it, calls are dropped and counted, like
//! stdio's output past its budget, and the first line logged after a gap says how many
//! bytes were dropped before it.

use std::time::Instant;

use crate::runtime::bindings::host::{self, LogLevel};
use crate::runtime::bindings::types;
use crate::runtime::log_budget::Charge;
use crate::runtime::state::InstanceState;
use crate::telemetry::events::GuestOutputDropped;

/// A guest log message longer than this is cut, so one call cannot flood the log.
const MAX_MESSAGE: usize = 8 * 1024;
/// At most this many extra fields are logged per line.
const MAX_FIELDS: usize = 16;

fn clip(mut s: String) -> String {
    if s.len() > MAX_MESSAGE {
        let mut end = MAX_MESSAGE;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        s.truncate(end);
        s.push_str("…[truncated]");
    }
    s
}

impl host::Host for InstanceState {
    fn log(&mut self, level: LogLevel, message: String, fields: Vec<(String, String)>) {
        let message = clip(message);
        let fields: String =
            fields.into_iter().take(MAX_FIELDS).map(|(k, v)| format!(" {k}={}", clip(v))).collect();
        let connector = self.ident.connector.as_str();
        let after_gap = match self.log.charge(message.len() + fields.len(), Instant::now()) {
            Charge::Log { after_gap } => after_gap,
            Charge::Drop { first } => {
                let event = GuestOutputDropped {
                    connector,
                    task: self.ident.task,
                    stream: "log",
                    budget: self.log.budget(),
                    bytes: message.len() + fields.len(),
                    first,
                };
                event.emit();
                return;
            }
        };
        let task = self.ident.task.map(|t| t as i64).unwrap_or(-1);
        if after_gap > 0 {
            tracing::warn!(
                target: "plugin",
                connector,
                task,
                dropped_bytes = after_gap,
                "Guest log calls resumed after their budget refilled; calls were dropped before this line"
            );
        }
        match level {
            LogLevel::Trace => {
                tracing::trace!(target: "plugin", connector, task, "{message}{fields}")
            }
            LogLevel::Debug => {
                tracing::debug!(target: "plugin", connector, task, "{message}{fields}")
            }
            LogLevel::Info => {
                tracing::info!(target: "plugin", connector, task, "{message}{fields}")
            }
            LogLevel::Warn => {
                tracing::warn!(target: "plugin", connector, task, "{message}{fields}")
            }
            LogLevel::Error => {
                tracing::error!(target: "plugin", connector, task, "{message}{fields}")
            }
        }
    }

    fn request_task_reconfiguration(&mut self) {
        if self.ident.task.is_none() {
            self.host.request_task_reconfiguration(&self.ident);
        }
    }

    fn raise_error(&mut self, err: types::Error) {
        self.host.raise_error(&self.ident, err.into());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_messages_are_cut_on_a_char_boundary() {
        let s = clip("é".repeat(MAX_MESSAGE));
        assert!(s.len() <= MAX_MESSAGE + "…[truncated]".len());
        assert!(s.ends_with("[truncated]"));
    }
}
