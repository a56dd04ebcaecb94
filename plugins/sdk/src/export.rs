//! The export macros, [`export_source!`](crate::export_source),
//! [`export_sink!`](crate::export_sink) and [`export_transform!`](crate::export_transform):
//! the one line that turns a plugin author's types
//! into a component's exports.
//!
//! This module owns only the macros; they expand to wit-bindgen's generated export macro
//! applied to [`Glue`](crate::glue::Glue), so every generated `Guest` trait is implemented
//! by the SDK, never by the author.

/// Exports a source plugin: `export_source!(MyConnector, MyTask);` at the root of a
/// `cdylib` crate built for `wasm32-wasip2`.
///
/// `MyConnector` implements [`Connector`](crate::Connector) and `MyTask` implements
/// [`SourceTask`](crate::SourceTask); both also implement `Default`, which creates each
/// instance. The component exports the `source-connector` world.
#[macro_export]
macro_rules! export_source {
    ($connector:ty, $task:ty $(,)?) => {
        const _: () = {
            type __WasmConnectPlugin = $crate::glue::Glue<$connector, $task>;
            $crate::bindings::source::export_source_world!(
                __WasmConnectPlugin with_types_in $crate::bindings::source
            );
        };
    };
}

/// Exports a sink plugin: `export_sink!(MyConnector, MyTask);` at the root of a `cdylib`
/// crate built for `wasm32-wasip2`.
///
/// `MyConnector` implements [`Connector`](crate::Connector) and `MyTask` implements
/// [`SinkTask`](crate::SinkTask); both also implement `Default`, which creates each
/// instance. The component exports the `sink-connector` world.
#[macro_export]
macro_rules! export_sink {
    ($connector:ty, $task:ty $(,)?) => {
        const _: () = {
            type __WasmConnectPlugin = $crate::glue::Glue<$connector, $task>;
            $crate::bindings::sink::export_sink_world!(
                __WasmConnectPlugin with_types_in $crate::bindings::sink
            );
        };
    };
}

/// Exports a transform plugin: `export_transform!(MyTransform);` at the root of a
/// `cdylib` crate built for `wasm32-wasip2`.
///
/// `MyTransform` implements [`Transform`](crate::Transform) (and so `Default`, which
/// creates each instance). The component exports the `transform` world.
#[macro_export]
macro_rules! export_transform {
    ($transform:ty $(,)?) => {
        const _: () = {
            type __WasmConnectPlugin = $crate::glue::Glue<$transform, ()>;
            $crate::bindings::transform::export_transform_world!(
                __WasmConnectPlugin with_types_in $crate::bindings::transform
            );
        };
    };
}
