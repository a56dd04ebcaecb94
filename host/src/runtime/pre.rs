//! A plugin's component pre-linked once (`InstancePre`) with the indices of its exports,
//! and the one way to turn it into a live instance in a store. It owns no store and no
//! executor: [`instance`](super::instance) runs what this instantiates.

use wasmtime::Store;
use wasmtime::component::{Instance as WasmInstance, InstancePre};

use super::bindings::{connector, exactly_once, sink_task, source_task, transformation};
use super::instance::{self, Exports};
use super::limits::SandboxLimits;
use super::state::InstanceState;

/// Pre-linked component and export indices.
pub(crate) struct Pre {
    pub instance_pre: InstancePre<InstanceState>,
    pub connector: Option<connector::GuestIndices>,
    pub source: Option<source_task::GuestIndices>,
    /// A source plugin's optional exactly-once answers (contract 0.1.2 on).
    pub exactly_once: Option<exactly_once::GuestIndices>,
    pub sink: Option<sink_task::GuestIndices>,
    pub transform: Option<transformation::GuestIndices>,
}

/// Instantiates `pre` into `store` and resolves the exports.
pub(crate) async fn instantiate(
    store: &mut Store<InstanceState>,
    pre: &Pre,
    limits: &SandboxLimits,
) -> wasmtime::Result<(WasmInstance, Exports)> {
    instance::arm(store);
    instance::begin(store, limits);
    let instance = pre.instance_pre.instantiate_async(&mut *store).await?;
    let exports = Exports {
        connector: pre.connector.as_ref().map(|i| i.load(&mut *store, &instance)).transpose()?,
        source: pre.source.as_ref().map(|i| i.load(&mut *store, &instance)).transpose()?,
        exactly_once: pre
            .exactly_once
            .as_ref()
            .map(|i| i.load(&mut *store, &instance))
            .transpose()?,
        sink: pre.sink.as_ref().map(|i| i.load(&mut *store, &instance)).transpose()?,
        transform: pre.transform.as_ref().map(|i| i.load(&mut *store, &instance)).transpose()?,
    };
    Ok((instance, exports))
}
