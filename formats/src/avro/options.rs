//! [`Options`]: the converter keys the Avro format reads, with Confluent's defaults
//! (`AvroDataConfig`, `AbstractDataConfig`, `KafkaAvroSerializerConfig`). Parsing only;
//! what each option changes is documented here and done by the mapping modules.

use crate::{FormatError, Settings};

/// `connect.meta.data`: write and read the `connect.*` annotations (default true).
pub const CONNECT_META_DATA: &str = "connect.meta.data";
/// `enhanced.avro.schema.support`: STRING schemas carrying `io.confluent.connect.avro.Enum`
/// parameters become Avro enums, and union branches of named types are named by full name
/// (default false).
pub const ENHANCED_SCHEMA_SUPPORT: &str = "enhanced.avro.schema.support";
/// `scrub.invalid.names`: replace characters invalid in Avro names (default false).
pub const SCRUB_INVALID_NAMES: &str = "scrub.invalid.names";
/// `avro.use.logical.type.converters`: in Java, whether the serializer's `GenericData`
/// converts logical values (BigDecimal, Instant, ...). Connect data reaches Avro already in
/// its underlying form (unscaled bytes, ints, longs), so the bytes are the same either way;
/// accepted and otherwise without effect here (default false).
pub const USE_LOGICAL_TYPE_CONVERTERS: &str = "avro.use.logical.type.converters";
/// `avro.remove.java.properties`: drop `avro.java.string` properties from the schema to
/// register (default false).
pub const REMOVE_JAVA_PROPERTIES: &str = "avro.remove.java.properties";
/// `allow.optional.map.keys`: an optional STRING map key still maps to an Avro map
/// (default false: it maps to an array of `MapEntry` records).
pub const ALLOW_OPTIONAL_MAP_KEYS: &str = "allow.optional.map.keys";
/// `flatten.singleton.unions`: a union of one branch reads as that branch (default true).
pub const FLATTEN_SINGLETON_UNIONS: &str = "flatten.singleton.unions";
/// `ignore.default.for.nullables`: a null in an optional field is written as null even when
/// the field's schema has a default (default false: the default is written).
pub const IGNORE_DEFAULT_FOR_NULLABLES: &str = "ignore.default.for.nullables";
/// `schemas.cache.config`: the size of Java's converted-schema caches; the caller caches
/// writers and readers here, so it is validated and otherwise unused (default 1000).
pub const SCHEMAS_CACHE_SIZE: &str = "schemas.cache.config";

/// The converter keys the Avro format reads.
pub const KEYS: &[&str] = &[
    CONNECT_META_DATA,
    ENHANCED_SCHEMA_SUPPORT,
    SCRUB_INVALID_NAMES,
    USE_LOGICAL_TYPE_CONVERTERS,
    REMOVE_JAVA_PROPERTIES,
    ALLOW_OPTIONAL_MAP_KEYS,
    FLATTEN_SINGLETON_UNIONS,
    IGNORE_DEFAULT_FOR_NULLABLES,
    SCHEMAS_CACHE_SIZE,
];

/// The Avro format's options.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// `connect.meta.data`.
    pub connect_meta_data: bool,
    /// `enhanced.avro.schema.support`.
    pub enhanced: bool,
    /// `scrub.invalid.names`.
    pub scrub_invalid_names: bool,
    /// `avro.use.logical.type.converters`.
    pub use_logical_type_converters: bool,
    /// `avro.remove.java.properties`.
    pub remove_java_properties: bool,
    /// `allow.optional.map.keys`.
    pub allow_optional_map_keys: bool,
    /// `flatten.singleton.unions`.
    pub flatten_singleton_unions: bool,
    /// `ignore.default.for.nullables`.
    pub ignore_default_for_nullables: bool,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            connect_meta_data: true,
            enhanced: false,
            scrub_invalid_names: false,
            use_logical_type_converters: false,
            remove_java_properties: false,
            allow_optional_map_keys: false,
            flatten_singleton_unions: true,
            ignore_default_for_nullables: false,
        }
    }
}

impl Options {
    /// The options in `settings`, Confluent's defaults for the rest.
    pub fn parse(settings: &Settings<'_>) -> Result<Self, FormatError> {
        let d = Options::default();
        settings.count(SCHEMAS_CACHE_SIZE, 1000)?;
        Ok(Self {
            connect_meta_data: settings.boolean(CONNECT_META_DATA, d.connect_meta_data)?,
            enhanced: settings.boolean(ENHANCED_SCHEMA_SUPPORT, d.enhanced)?,
            scrub_invalid_names: settings.boolean(SCRUB_INVALID_NAMES, d.scrub_invalid_names)?,
            use_logical_type_converters: settings
                .boolean(USE_LOGICAL_TYPE_CONVERTERS, d.use_logical_type_converters)?,
            remove_java_properties: settings
                .boolean(REMOVE_JAVA_PROPERTIES, d.remove_java_properties)?,
            allow_optional_map_keys: settings
                .boolean(ALLOW_OPTIONAL_MAP_KEYS, d.allow_optional_map_keys)?,
            flatten_singleton_unions: settings
                .boolean(FLATTEN_SINGLETON_UNIONS, d.flatten_singleton_unions)?,
            ignore_default_for_nullables: settings
                .boolean(IGNORE_DEFAULT_FOR_NULLABLES, d.ignore_default_for_nullables)?,
        })
    }
}
