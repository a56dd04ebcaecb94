//! The raw WIT bindings of every world, in one place.
//!
//! `source` is the `wasm-connect-sdk-bindings` crate (the `source-connector` world plus the
//! shared `types`, `host` and `offset-reader` bindings); `sink` and `transform` are
//! generated here and reuse those shared bindings through `with`, so all worlds have one
//! set of WIT types and one copy of each host import. Plugin authors never use this
//! module: the `export_source!` / `export_sink!` / `export_transform!` macros reach it
//! through `$crate`, and the rest of the SDK converts its types at the boundary (`glue`).
//! It must not grow hand-written code.

#[doc(hidden)]
pub use wasm_connect_sdk_bindings as source;

/// Bindings for the `sink-connector` world.
#[doc(hidden)]
pub mod sink {
    wit_bindgen::generate!({
        world: "sink-connector",
        path: "../../wit",
        pub_export_macro: true,
        export_macro_name: "export_sink_world",
        default_bindings_module: "wasm_connect_sdk::bindings::sink",
        with: {
            "wasm-connect:connector/types@0.1.2": wasm_connect_sdk_bindings::wasm_connect::connector::types,
            "wasm-connect:connector/host@0.1.2": wasm_connect_sdk_bindings::wasm_connect::connector::host,
        },
    });
}

/// Bindings for the `transform` world (`wit/transform.wit`).
#[doc(hidden)]
pub mod transform {
    wit_bindgen::generate!({
        world: "transform",
        path: "../../wit",
        pub_export_macro: true,
        export_macro_name: "export_transform_world",
        default_bindings_module: "wasm_connect_sdk::bindings::transform",
        with: {
            "wasm-connect:connector/types@0.1.2": wasm_connect_sdk_bindings::wasm_connect::connector::types,
            "wasm-connect:connector/host@0.1.2": wasm_connect_sdk_bindings::wasm_connect::connector::host,
        },
    });
}
