//! Kafka client security settings with Kafka's names: `security.protocol`,
//! `sasl.mechanism`, `sasl.jaas.config` and the `ssl.*` trust and key stores, read and
//! checked once, turned into rustls configurations ([`SslSettings`]) and into librdkafka's
//! names.
//!
//! This module sits on the config floor: it reads files (stores) but opens no connection,
//! and never puts a password, a JAAS config or a key into an error, a log line or `Debug`
//! output ([`Secret`], [`RedactedProps`]).
//!
//! Layout: `client.rs` ([`ClientSecurity`], one client's settings together), `protocol.rs`
//! (protocol and mechanism names), `jaas.rs` (`sasl.jaas.config`), `librdkafka.rs`
//! ([`librdkafka_props`]), `ssl.rs` ([`SslSettings`] and
//! Kafka's listener prefix rule), `store.rs` (PEM, PKCS12, encrypted keys), `suites.rs`
//! (protocol versions and cipher suites), `verifier.rs` (the chain-only check), `secret.rs`
//! (redaction), `error.rs`.

mod client;
mod error;
mod jaas;
mod librdkafka;
mod protocol;
mod secret;
mod ssl;
mod store;
mod suites;
mod verifier;

pub use client::{ClientSecurity, Sasl};
pub use error::SecurityError;
pub use jaas::{LoginModule, SaslCredentials};
pub use librdkafka::librdkafka_props;
pub use protocol::{SaslMechanism, SecurityProtocol};
pub use secret::{HIDDEN, RedactedProps, Secret, is_secret_key};
pub use ssl::{ClientAuth, SSL_KEYS, SslSettings, listener_props};
pub use store::StoreType;
