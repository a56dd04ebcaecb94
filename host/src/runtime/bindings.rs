//! The one `bindgen!` of the worker, and the only place its generated types live.
//!
//! The worker binds a union world, `wasm-connect:worker/plugin`, that imports what the
//! contract worlds import and exports `connector`, `source-task`, `sink-task` and
//! `transformation`, plus the optional `exactly-once` of source plugins. A real plugin
//! exports `connector` with one task interface, or `transformation` alone; the worker
//! builds the export indices of each interface separately (`GuestIndices::new`) and so
//! learns which world a component implements, and whether a source plugin answers the
//! exactly-once questions (0.1.2 added them; older components do not).
//!
//! Versions: wasmtime links an import or finds an export of any semver-compatible
//! version, so components built against 0.1.0 and 0.1.1 keep loading under 0.1.2. Nothing
//! outside `runtime` sees these types: `convert.rs` maps them to `crate::model`.

wasmtime::component::bindgen!({
    path: "../wit",
    inline: "
        package wasm-connect:worker;

        world plugin {
            import wasm-connect:connector/host@0.1.2;
            import wasm-connect:connector/offset-reader@0.1.2;
            import wasm-connect:connector/transaction-context@0.1.2;
            export wasm-connect:connector/connector@0.1.2;
            export wasm-connect:connector/source-task@0.1.2;
            export wasm-connect:connector/exactly-once@0.1.2;
            export wasm-connect:connector/sink-task@0.1.2;
            export wasm-connect:connector/transformation@0.1.2;
        }
    ",
    world: "wasm-connect:worker/plugin",
    // Guest calls are wasmtime async calls, so a guest can yield at epoch ticks (see
    // `instance.rs`). Host imports stay synchronous: each returns at once, none waits.
    exports: { default: async },
});

pub use self::exports::wasm_connect::connector::{
    connector, exactly_once, sink_task, source_task, transformation,
};
pub use self::wasm_connect::connector::{host, offset_reader, transaction_context, types};
