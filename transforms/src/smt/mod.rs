//! The built-in transforms, one file per Kafka Connect class (with its `$Key` and `$Value`
//! variants where Kafka Connect has them). Each transform's file exports `DEFS`, the
//! definitions of its classes, and owns their semantics and their tests; the helpers they
//! share have files of their own.
//!
//! Layout: the transforms `cast`, `drop_headers`, `extract_field`, `filter`, `flatten`,
//! `header_from`, `hoist_field`, `insert_field`, `insert_header`, `mask_field`,
//! `regex_router`, `replace_field`, `set_schema_metadata`, `timestamp_converter`,
//! `timestamp_router`, `value_to_key`; the helpers `side` (reading and rebuilding a
//! record's key or value), `connect_struct` (`Struct` and `SchemaBuilder` rules),
//! `field_path` (KIP-821 paths), `cast_value` (one value cast as `Cast` does),
//! `java_number` (Java's number parsing), `date_format` (`SimpleDateFormat` patterns).

mod cast;
mod cast_value;
mod connect_struct;
mod date_format;
mod drop_headers;
mod extract_field;
mod field_path;
mod filter;
mod flatten;
mod header_from;
mod hoist_field;
mod insert_field;
mod insert_header;
mod java_number;
mod mask_field;
mod regex_router;
mod replace_field;
mod set_schema_metadata;
#[allow(dead_code)] // used by the transforms as they are written
pub(crate) mod side;
#[cfg(test)]
mod test_support;
mod timestamp_converter;
mod timestamp_router;
mod value_to_key;

use crate::registry::TransformDef;

/// The definitions of every module, for the registry.
pub(crate) const ALL: &[&[TransformDef]] = &[
    insert_field::DEFS,
    replace_field::DEFS,
    mask_field::DEFS,
    value_to_key::DEFS,
    extract_field::DEFS,
    hoist_field::DEFS,
    cast::DEFS,
    flatten::DEFS,
    timestamp_converter::DEFS,
    set_schema_metadata::DEFS,
    regex_router::DEFS,
    timestamp_router::DEFS,
    filter::DEFS,
    header_from::DEFS,
    insert_header::DEFS,
    drop_headers::DEFS,
];
