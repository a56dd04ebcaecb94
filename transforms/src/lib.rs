//! Kafka Connect's single message transforms (SMTs) and predicates, by their class names,
//! on Kafka Connect's data model.
//!
//! A connector config names transforms and predicates exactly as Kafka Connect reads them
//! (`transforms=a,b`, `transforms.a.type=org.apache.kafka.connect.transforms.InsertField$Value`,
//! `transforms.a.predicate=p`, `predicates.p.type=...`). This crate owns what those classes
//! do: their configuration definitions and checks ([`registry`], [`config`]), the data they
//! work on ([`data`], [`Record`]), each transform ([`smt`]) and predicate ([`predicates`]), and
//! how a header a transform made becomes bytes ([`header_converter`]).
//!
//! It must not do I/O, know about tasks, topics' clients, error tolerance or wasm: the
//! worker builds a chain from [`registry`], runs records through it, and decides what a
//! [`TransformError`] costs (KIP-298's TRANSFORMATION stage).
//!
//! Layout: `data` (schemas, values, the lazy key/value [`Data`] and its conversions to and
//! from the record-batch kinds), `record`, `config` (a small `ConfigDef`: key definitions,
//! parsing and Kafka Connect's messages), `registry` (class name → definition and
//! constructor), `smt/` (one file per transform), `predicates/` (one file per predicate),
//! `header_converter`, `error`.

pub mod config;
pub mod data;
mod error;
pub mod header_converter;
pub mod predicates;
mod record;
pub mod registry;
pub mod smt;

pub use data::{Data, Field, Schema, SchemaAndValue, Struct, Type, Value};
pub use error::TransformError;
pub use record::{Header, HeaderValue, Record};
pub use registry::{Predicate, Transformation};
pub use wasm_connect_batch::Kind;
