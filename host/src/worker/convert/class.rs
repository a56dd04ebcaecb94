//! [`ConverterClass`]: the converters this worker has, the class names and aliases that
//! select them, and building one from its settings.
//!
//! This module owns name resolution (Kafka Connect's rules: the full class name, the
//! simple name, or the simple name without `Converter`) and the parsing of each
//! converter's settings. Which config level a converter comes from is `select`'s.

use std::collections::BTreeMap;
use std::sync::Arc;

use wasm_connect_formats::SchemaType;

use super::byte_array::ByteArrayConverter;
use super::classes::CLASSES;
use super::json::JsonConverter;
use super::registry::RegistryConverter;
use super::string::StringConverter;
use super::{ConvertError, Converter};

/// One of the converters of [`CLASSES`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConverterClass {
    /// `io.confluent.connect.avro.AvroConverter`.
    Avro,
    /// `io.confluent.connect.json.JsonSchemaConverter`.
    JsonSchema,
    /// `io.confluent.connect.protobuf.ProtobufConverter`.
    Protobuf,
    /// `org.apache.kafka.connect.converters.ByteArrayConverter`.
    ByteArray,
    /// `org.apache.kafka.connect.json.JsonConverter`.
    Json,
    /// `org.apache.kafka.connect.storage.StringConverter`.
    String,
}

impl ConverterClass {
    const ALL: [ConverterClass; 6] = [
        ConverterClass::Avro,
        ConverterClass::JsonSchema,
        ConverterClass::Protobuf,
        ConverterClass::ByteArray,
        ConverterClass::Json,
        ConverterClass::String,
    ];

    /// The full Kafka Connect class name.
    pub fn class_name(self) -> &'static str {
        match self {
            Self::Avro => CLASSES[0],
            Self::JsonSchema => CLASSES[1],
            Self::Protobuf => CLASSES[2],
            Self::ByteArray => CLASSES[3],
            Self::Json => CLASSES[4],
            Self::String => CLASSES[5],
        }
    }

    /// The converter a class value names: the full class name, or (without a package)
    /// the simple name or the simple name without its `Converter` suffix, as Kafka
    /// Connect's plugin aliases. Surrounding whitespace is ignored, as Kafka does.
    pub fn resolve(class: &str) -> Option<Self> {
        let class = class.trim();
        Self::ALL.into_iter().find(|c| {
            let full = c.class_name();
            let simple = full.rsplit('.').next().unwrap_or(full);
            class == full
                || (!class.contains('.')
                    && (class == simple || Some(class) == simple.strip_suffix("Converter")))
        })
    }

    /// A converter of this class with `settings`, its `<side>.converter.*` keys with the
    /// prefix stripped; `prefix` (`value.converter`) names keys in errors. Keys Kafka's own
    /// converters do not know are ignored, as Kafka Connect does; a Schema Registry
    /// converter refuses them.
    pub fn build(
        self,
        prefix: &str,
        settings: &BTreeMap<&str, &str>,
    ) -> Result<Arc<dyn Converter>, ConvertError> {
        let settings = Settings { prefix, values: settings };
        let registry = |schema_type| {
            RegistryConverter::new(schema_type, prefix, settings.values)
                .map(|c| Arc::new(c) as Arc<dyn Converter>)
        };
        Ok(match self {
            Self::Avro => registry(SchemaType::Avro)?,
            Self::JsonSchema => registry(SchemaType::Json)?,
            Self::Protobuf => registry(SchemaType::Protobuf)?,
            Self::ByteArray => Arc::new(ByteArrayConverter),
            Self::Json => Arc::new(JsonConverter::new(settings.boolean("schemas.enable", true)?)),
            Self::String => {
                settings.utf8("converter.encoding")?;
                Arc::new(StringConverter)
            }
        })
    }
}

/// A converter's settings, for parsing.
struct Settings<'a> {
    prefix: &'a str,
    values: &'a BTreeMap<&'a str, &'a str>,
}

impl Settings<'_> {
    fn invalid(&self, name: &str, value: &str, expected: &str) -> ConvertError {
        ConvertError::InvalidSetting {
            key: format!("{}.{name}", self.prefix),
            value: value.to_owned(),
            expected: expected.to_owned(),
        }
    }

    /// A boolean, `true` or `false` in any case, surrounding whitespace ignored (Kafka's
    /// `ConfigDef` BOOLEAN).
    fn boolean(&self, name: &str, default: bool) -> Result<bool, ConvertError> {
        let Some(value) = self.values.get(name) else { return Ok(default) };
        match value.trim() {
            v if v.eq_ignore_ascii_case("true") => Ok(true),
            v if v.eq_ignore_ascii_case("false") => Ok(false),
            _ => Err(self.invalid(name, value, "Expected value to be either true or false")),
        }
    }

    /// A character encoding that must be UTF-8: the only one this worker converts.
    fn utf8(&self, name: &str) -> Result<(), ConvertError> {
        match self.values.get(name) {
            Some(v) if !["utf-8", "utf8"].iter().any(|u| v.trim().eq_ignore_ascii_case(u)) => {
                Err(self.invalid(name, v, "Only the UTF-8 encoding is supported"))
            }
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_full_simple_and_pruned_names() {
        for (name, class) in [
            ("org.apache.kafka.connect.json.JsonConverter", ConverterClass::Json),
            (" JsonConverter ", ConverterClass::Json),
            ("Json", ConverterClass::Json),
            ("org.apache.kafka.connect.storage.StringConverter", ConverterClass::String),
            ("StringConverter", ConverterClass::String),
            ("String", ConverterClass::String),
            ("org.apache.kafka.connect.converters.ByteArrayConverter", ConverterClass::ByteArray),
            ("ByteArrayConverter", ConverterClass::ByteArray),
            ("ByteArray", ConverterClass::ByteArray),
        ] {
            assert_eq!(ConverterClass::resolve(name), Some(class), "{name}");
        }
        for (name, class) in [
            ("io.confluent.connect.avro.AvroConverter", ConverterClass::Avro),
            ("AvroConverter", ConverterClass::Avro),
            ("Avro", ConverterClass::Avro),
            ("io.confluent.connect.protobuf.ProtobufConverter", ConverterClass::Protobuf),
            ("io.confluent.connect.json.JsonSchemaConverter", ConverterClass::JsonSchema),
            ("JsonSchema", ConverterClass::JsonSchema),
        ] {
            assert_eq!(ConverterClass::resolve(name), Some(class), "{name}");
        }
        for name in ["com.example.JsonConverter", "jsonconverter", "Converter", "", "avro"] {
            assert_eq!(ConverterClass::resolve(name), None, "{name}");
        }
        let names: Vec<_> = ConverterClass::ALL.iter().map(|c| c.class_name()).collect();
        assert_eq!(names, CLASSES);
    }

    #[test]
    fn parses_settings_strictly_and_names_the_full_key() {
        let build = |class: ConverterClass, key: &str, value: &str| {
            class.build("value.converter", &BTreeMap::from([(key, value)])).map(|_| ())
        };
        for ok in ["true", "FALSE", " False "] {
            assert_eq!(build(ConverterClass::Json, "schemas.enable", ok), Ok(()));
        }
        let err = build(ConverterClass::Json, "schemas.enable", "yes").unwrap_err();
        assert_eq!(err.config_key(), Some("value.converter.schemas.enable"));
        assert_eq!(
            err.to_string(),
            "Invalid value yes for configuration value.converter.schemas.enable: Expected value \
             to be either true or false"
        );
        assert_eq!(build(ConverterClass::String, "converter.encoding", "UTF-8"), Ok(()));
        let err = build(ConverterClass::String, "converter.encoding", "UTF-16").unwrap_err();
        assert_eq!(err.config_key(), Some("value.converter.converter.encoding"));
        assert_eq!(build(ConverterClass::ByteArray, "anything", "x"), Ok(()));
        assert_eq!(build(ConverterClass::Json, "schemas.cache.size", "x"), Ok(()));
    }
}
