//! A client of Confluent's Schema Registry REST API (served by Confluent's registry and by
//! Apicurio Registry's `ccompat` API): registering a schema under a subject, looking one
//! up, fetching a schema by id and a subject's latest version, and testing compatibility.
//!
//! It owns the HTTP side: several base URLs with fail-over, basic or bearer
//! authentication, TLS with the caller's rustls configuration, the retry schedule of an
//! unavailable registry (the `backoff` crate), and the count of requests sent. It must not
//! cache, parse schemas or read converter keys: the worker's converters do that and hand
//! it a [`RegistryConfig`].
//!
//! Layout: `config` ([`RegistryConfig`], [`Auth`]), `client` ([`RegistryClient`]), `api`
//! (the request and answer bodies), `error` ([`RegistryError`]).

mod api;
mod client;
mod config;
mod error;

pub use api::Registered;
pub use client::RegistryClient;
pub use config::{Auth, RegistryConfig, Retry};
pub use error::RegistryError;
