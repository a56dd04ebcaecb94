//! Tests of the Protobuf format, one file per concern; `support` holds shared builders.

mod schema_text;
mod support;
mod values;
