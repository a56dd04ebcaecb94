//! The plugin test kit behind `wasm-connect plugins test FILE.wasm [--config FILE]`:
//! conformance checks any plugin author can run against one component, without Kafka,
//! stores, a herder or REST.
//!
//! [`run`] takes a loaded [`Plugin`] and the [`Subject`] config and returns a
//! [`Report`], one row per check. Checks create their own instances exactly as the worker
//! does (the config's grants and `wasm.*` limits), with an in-memory offset map
//! (`offsets::MemoryOffsets`) as their host, and reuse the worker's validation
//! ([`crate::herder::validate_config`], [`crate::model::ConfigDef::check`]) instead of
//! restating its rules. A check never panics on plugin behaviour: whatever the guest
//! does becomes a FAIL row with the reason.
//!
//! Layout: `report` (rows and summary), `subject` (the config under test), `offsets` (the
//! injected host), `kit` (shared instance recipes), then one file per check group:
//! `definition`, `validation`, `lifecycle`, `max_tasks`, `source_data` and `sink_data`
//! (limits and restart), `stop`; `transform` holds the checks of a transform plugin.
//!
//! It must not start a worker, touch Kafka or a store, or change the plugin's files.

mod definition;
mod kit;
mod lifecycle;
mod max_tasks;
mod offsets;
mod report;
mod sink_data;
mod source_data;
mod stop;
mod subject;
mod transform;
mod validation;

use std::future::Future;
use std::time::Instant;

pub use kit::Kit;
pub use report::{Finding, Report};
pub use subject::Subject;

use crate::model::PluginKind;
use crate::runtime::Plugin;

/// Check names, as the CHECK column shows them.
pub mod names {
    /// Name, version and config definition are sane.
    pub const DEFINITION: &str = "config definition";
    /// The worker's validation with the plugin's `validate` rejects broken configs.
    pub const VALIDATION: &str = "validate rejects bad configs";
    /// Connector and task calls in the worker's order.
    pub const LIFECYCLE: &str = "lifecycle order";
    /// `task-configs` returns at most `max-tasks` configs.
    pub const MAX_TASKS: &str = "task-configs respects max-tasks";
    /// A source's polls stay within the sandbox limits.
    pub const POLL: &str = "poll within sandbox limits";
    /// A sink's puts stay within the limits and its pre-commit is safe.
    pub const PUT: &str = "put within sandbox limits";
    /// Correct behaviour after a restart.
    pub const RESTART: &str = "restart";
    /// `stop` returns in time, without a trap.
    pub const STOP: &str = "clean stop";
    /// A transform's `apply` answers every kind of record within the limits.
    pub const APPLY: &str = "apply within sandbox limits";
}

/// Runs every check against `plugin` with `subject`, in order.
pub async fn run(plugin: Plugin, subject: Subject) -> Report {
    let kit = Kit::new(plugin, subject);
    let mut report = Report::default();
    let info = kit.plugin.info().clone();
    timed(&mut report, names::DEFINITION, async { definition::check(&info) }).await;
    if info.kind == PluginKind::Transform {
        timed(&mut report, names::VALIDATION, transform::validation_check(&kit)).await;
        timed(&mut report, names::APPLY, transform::apply_check(&kit)).await;
        timed(&mut report, names::RESTART, transform::restart_check(&kit)).await;
        timed(&mut report, names::STOP, transform::close_check(&kit)).await;
        return report;
    }
    timed(&mut report, names::VALIDATION, validation::check(&kit)).await;
    timed(&mut report, names::LIFECYCLE, lifecycle::check(&kit)).await;
    timed(&mut report, names::MAX_TASKS, max_tasks::check(&kit)).await;
    match kit.kind() {
        PluginKind::Source => {
            timed(&mut report, names::POLL, source_data::poll_check(&kit)).await;
            timed(&mut report, names::RESTART, source_data::restart_check(&kit)).await;
        }
        PluginKind::Sink => {
            timed(&mut report, names::PUT, sink_data::put_check(&kit)).await;
            timed(&mut report, names::RESTART, sink_data::restart_check(&kit)).await;
        }
        PluginKind::Transform => unreachable!("transforms returned above"),
    }
    timed(&mut report, names::STOP, stop::check(&kit)).await;
    report
}

/// Runs one check, timing it, and adds its row.
async fn timed(report: &mut Report, check: &'static str, f: impl Future<Output = Finding>) {
    let started = Instant::now();
    let finding = f.await;
    report.rows.push(finding.into_row(check, started.elapsed()));
}
