//! Outgoing HTTP for guests (`wasi:http/outgoing-handler`), limited to the origins their
//! config grants.
//!
//! A `connect` grant whose value is an `http://` or `https://` URL grants, besides TCP to
//! its host and port, HTTP requests to its origin (scheme, host and port). The host makes
//! those requests itself: it connects, speaks TLS with rustls (the system's roots, or the
//! trust store of the instance config's `https.ssl.*` keys, read like Kafka's `ssl.*`
//! keys) and HTTP/1.1 with hyper, so no TLS stack runs in the guest. Every request is
//! checked against the allow-list before anything is opened; a request anywhere else is
//! refused with `HTTP-request-denied`. The host follows no redirect: a 3xx goes back to
//! the guest, and a request to the `Location` is checked like any other.
//!
//! Every instance has an [`HttpAccess`]; one whose config grants no URL allows nothing.
//! The `wasi:http` types stay inside this module: `state` holds an [`HttpAccess`] and asks
//! it for the view the generated bindings need.
//!
//! Layout: `access` (the allow-list and the hooks wasmtime-wasi-http calls), `send` (one
//! request over TCP or TLS, on a kept-alive connection of the instance when there is one).

mod access;
mod send;

pub use access::HttpAccess;
