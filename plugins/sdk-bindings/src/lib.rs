//! The generated bindings of the `source-connector` world of `wit/connector.wit`, and with
//! them the contract's shared pieces: the `types` interface and the `host` and
//! `offset-reader` imports. Plugin authors never use this crate; `wasm-connect-sdk`
//! re-exports it as `bindings::source` and converts its types at the boundary.
//!
//! Why a crate of its own: wit-bindgen names an exported interface's `#[macro_export]`
//! glue macro after the interface alone, so the `connector` interface, exported by both
//! worlds, would define the same macro twice in one crate. The `sink-connector` world is
//! generated inside `wasm-connect-sdk` and reuses this crate's `types` and `host`.
//!
//! This crate holds generated code only and must not grow hand-written code.

wit_bindgen::generate!({
    world: "source-connector",
    path: "../../wit",
    pub_export_macro: true,
    export_macro_name: "export_source_world",
    default_bindings_module: "wasm_connect_sdk::bindings::source",
});
