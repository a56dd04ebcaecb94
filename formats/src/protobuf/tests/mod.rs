//! Tests of the Protobuf format, one file per concern; `support` holds shared builders.

mod errors;
mod schema_text;
mod support;
mod to_connect;
mod values;
