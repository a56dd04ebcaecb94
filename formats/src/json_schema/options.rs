//! [`Options`]: the JSON Schema converter's mapping settings (`JsonSchemaDataConfig` and
//! the serializer's `json.fail.*` keys), parsed once with Confluent's defaults. It owns the
//! key names and defaults; what each option does is the mapping modules'.

use crate::{FormatError, Settings};

/// `object.additional.properties`: whether generated object schemas allow properties
/// they do not name (`false` writes `"additionalProperties": false`).
pub const OBJECT_ADDITIONAL_PROPERTIES: &str = "object.additional.properties";
/// `use.optional.for.nonrequired`: whether a property missing from `required` reads as an
/// optional field.
pub const USE_OPTIONAL_FOR_NONREQUIRED: &str = "use.optional.for.nonrequired";
/// `decimal.format`: `BASE64` (Confluent's default) or `NUMERIC`, case-insensitive.
pub const DECIMAL_FORMAT: &str = "decimal.format";
/// `json.fail.invalid.schema`: validate payloads against the JSON Schema on both sides.
pub const FAIL_INVALID_SCHEMA: &str = "json.fail.invalid.schema";
/// `json.fail.unknown.properties`: Jackson's unknown-property check when binding to Java
/// classes; a converter's values are JSON trees, so it changes nothing here (parsed only).
pub const FAIL_UNKNOWN_PROPERTIES: &str = "json.fail.unknown.properties";
/// `ignore.default.for.nullables`: write a null field as null rather than as its default.
pub const IGNORE_DEFAULT_FOR_NULLABLES: &str = "ignore.default.for.nullables";
/// `generalized.sum.type.support`: unions and enums with the format-neutral names.
pub const GENERALIZED_SUM_TYPE_SUPPORT: &str = "generalized.sum.type.support";
/// `flatten.singleton.unions`: a `oneOf`/`anyOf` of one schema reads as that schema.
pub const FLATTEN_SINGLETON_UNIONS: &str = "flatten.singleton.unions";
/// `schemas.cache.config`: the size of Confluent's schema caches; the host caches
/// writers and readers, so it is parsed only.
pub const SCHEMAS_CACHE_CONFIG: &str = "schemas.cache.config";
/// `scrub.invalid.names`: an Avro and Protobuf key that `JsonSchemaData` does not read;
/// accepted (and parsed) so one converter config can serve the three formats.
pub const SCRUB_INVALID_NAMES: &str = "scrub.invalid.names";

/// The keys above, for [`crate::keys`].
pub const KEYS: &[&str] = &[
    OBJECT_ADDITIONAL_PROPERTIES,
    USE_OPTIONAL_FOR_NONREQUIRED,
    DECIMAL_FORMAT,
    FAIL_INVALID_SCHEMA,
    FAIL_UNKNOWN_PROPERTIES,
    IGNORE_DEFAULT_FOR_NULLABLES,
    GENERALIZED_SUM_TYPE_SUPPORT,
    FLATTEN_SINGLETON_UNIONS,
    SCHEMAS_CACHE_CONFIG,
    SCRUB_INVALID_NAMES,
];

/// The parsed settings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// `object.additional.properties` (default true).
    pub additional_properties: bool,
    /// `use.optional.for.nonrequired` (default false).
    pub optional_for_nonrequired: bool,
    /// `decimal.format=NUMERIC` (default BASE64, so false).
    pub decimal_numeric: bool,
    /// `json.fail.invalid.schema` (default false).
    pub validate: bool,
    /// `ignore.default.for.nullables` (default false).
    pub ignore_default_for_nullables: bool,
    /// `generalized.sum.type.support` (default false).
    pub generalized_sum_types: bool,
    /// `flatten.singleton.unions` (default true).
    pub flatten_singleton_unions: bool,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            additional_properties: true,
            optional_for_nonrequired: false,
            decimal_numeric: false,
            validate: false,
            ignore_default_for_nullables: false,
            generalized_sum_types: false,
            flatten_singleton_unions: true,
        }
    }
}

impl Options {
    /// The options `settings` give, with Confluent's defaults for the others.
    pub fn new(settings: &Settings<'_>) -> Result<Self, FormatError> {
        let d = Options::default();
        let decimal_numeric = match settings.get(DECIMAL_FORMAT) {
            None => d.decimal_numeric,
            Some(v) if v.eq_ignore_ascii_case("BASE64") => false,
            Some(v) if v.eq_ignore_ascii_case("NUMERIC") => true,
            Some(v) => {
                return Err(settings.invalid(
                    DECIMAL_FORMAT,
                    v,
                    "String must be one of (case insensitive): BASE64, NUMERIC",
                ));
            }
        };
        settings.boolean(FAIL_UNKNOWN_PROPERTIES, true)?;
        settings.boolean(SCRUB_INVALID_NAMES, false)?;
        if let Some(v) = settings.get(SCHEMAS_CACHE_CONFIG) {
            v.trim().parse::<i32>().map_err(|_| {
                settings.invalid(SCHEMAS_CACHE_CONFIG, v, "Not a number of type INT")
            })?;
        }
        Ok(Self {
            additional_properties: settings
                .boolean(OBJECT_ADDITIONAL_PROPERTIES, d.additional_properties)?,
            optional_for_nonrequired: settings
                .boolean(USE_OPTIONAL_FOR_NONREQUIRED, d.optional_for_nonrequired)?,
            decimal_numeric,
            validate: settings.boolean(FAIL_INVALID_SCHEMA, d.validate)?,
            ignore_default_for_nullables: settings
                .boolean(IGNORE_DEFAULT_FOR_NULLABLES, d.ignore_default_for_nullables)?,
            generalized_sum_types: settings
                .boolean(GENERALIZED_SUM_TYPE_SUPPORT, d.generalized_sum_types)?,
            flatten_singleton_unions: settings
                .boolean(FLATTEN_SINGLETON_UNIONS, d.flatten_singleton_unions)?,
        })
    }
}
