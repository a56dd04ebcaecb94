//! The process's `metrics` recorder: a Prometheus registry whose text exposition the
//! REST API serves at `GET /metrics`. Installed once per process, on first use.

use std::sync::OnceLock;

use metrics_exporter_prometheus::{PrometheusBuilder, PrometheusHandle};

static HANDLE: OnceLock<Option<PrometheusHandle>> = OnceLock::new();

/// The handle of the process-wide recorder, installing it on first call. `None` when
/// another recorder was installed first (the reason is logged once).
pub fn handle() -> Option<PrometheusHandle> {
    HANDLE
        .get_or_init(|| match PrometheusBuilder::new().install_recorder() {
            Ok(h) => Some(h),
            Err(e) => {
                tracing::warn!(error = %e, "Metrics are not exported: another recorder is installed");
                None
            }
        })
        .clone()
}

/// The current metrics in Prometheus text format.
pub fn render(handle: &PrometheusHandle) -> String {
    handle.run_upkeep();
    handle.render()
}
