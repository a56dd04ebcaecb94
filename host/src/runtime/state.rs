//! The data of one Store: the instance's identity, its WASI context and outgoing HTTP
//! access (built deny-by-default by `grants`), its resource table, its limiter, its log
//! calls' budget, a source task's transaction requests, and the injected [`InstanceHost`]
//! that host imports reach the rest of the worker through.
//!
//! The runtime knows nothing of stores, Kafka or the herder: whatever a host import needs
//! from outside comes through `InstanceHost`, implemented by the worker.

use std::fmt;
use std::sync::Arc;
use std::time::Instant;

use wasmtime::component::ResourceTable;
use wasmtime_wasi::{WasiCtx, WasiCtxView, WasiView};
use wasmtime_wasi_http::{WasiHttpCtxView, WasiHttpView};

use super::http::HttpAccess;
use super::limits::Limiter;
use super::log_budget::LogBudget;
use crate::model::{ConnectorError, TransactionRequestLog};

/// Which connector (and task) an instance runs, for logs and callbacks.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Identity {
    /// Connector name.
    pub connector: String,
    /// Task number, or `None` for the connector instance.
    pub task: Option<u32>,
}

impl Identity {
    /// The identity of connector `name`'s connector instance.
    pub fn connector(name: impl Into<String>) -> Self {
        Self { connector: name.into(), task: None }
    }

    /// The identity of task `task` of connector `name`.
    pub fn task(name: impl Into<String>, task: u32) -> Self {
        Self { connector: name.into(), task: Some(task) }
    }
}

impl fmt::Display for Identity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.task {
            Some(t) => write!(f, "{}-{t}", self.connector),
            None => f.write_str(&self.connector),
        }
    }
}

/// What host imports need from the worker. Every method must return quickly and never
/// block: it runs on a guest executor thread, inside a guest call, under that call's
/// deadline.
pub trait InstanceHost: Send + Sync + 'static {
    /// The guest asked for its task configs to be computed again.
    fn request_task_reconfiguration(&self, _ident: &Identity) {}

    /// The guest reported a background failure.
    fn raise_error(&self, _ident: &Identity, _error: ConnectorError) {}

    /// Committed source offsets for the given source partitions (JSON), in order.
    fn offsets(&self, _ident: &Identity, partitions: &[String]) -> Vec<Option<String>> {
        vec![None; partitions.len()]
    }

    /// Whether the worker honours the transaction requests of source task `ident` (it runs
    /// exactly-once source and the connector's `transaction.boundary` is `connector`).
    fn transaction_context_active(&self, _ident: &Identity) -> bool {
        false
    }
}

/// An `InstanceHost` that ignores callbacks and knows no offsets: for metadata and
/// validation instances, and tests.
pub struct NoHost;

impl InstanceHost for NoHost {}

/// The data every Store holds.
pub struct InstanceState {
    pub(crate) ident: Identity,
    pub(crate) wasi: WasiCtx,
    /// Outgoing HTTP: the granted origins, or none.
    pub(crate) http: HttpAccess,
    pub(crate) table: ResourceTable,
    pub(crate) limiter: Limiter,
    pub(crate) host: Arc<dyn InstanceHost>,
    /// What the guest's log calls may still write.
    pub(crate) log: LogBudget,
    /// When the running guest call's budget ends (set at the start of every call).
    pub(crate) deadline: Instant,
    /// A source task's transaction requests since the worker last took them.
    pub(crate) transactions: TransactionRequestLog,
}

impl WasiView for InstanceState {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView { ctx: &mut self.wasi, table: &mut self.table }
    }
}

impl WasiHttpView for InstanceState {
    fn http(&mut self) -> WasiHttpCtxView<'_> {
        self.http.view(&mut self.table)
    }
}
