//! [`ByteArrayConverter`]: Kafka Connect's
//! `org.apache.kafka.connect.converters.ByteArrayConverter`.
//!
//! Passes bytes through both ways and refuses other data with Kafka's messages. It owns
//! only that rule; envelopes are read with `json_text` and `schema`.

use std::borrow::Cow;

use super::json::base64;
use super::json_text;
use super::schema::Schema;
use super::string::connect_envelope;
use super::{ConvertError, Converter, Kind, PluginData};

/// Raw bytes.
///
/// - Source side: `bytes` data as it is; a `connect-json` envelope with a plain BYTES
///   schema as its base64-decoded payload; JSON `null` data as a null. Anything else is
///   an error: `Invalid schema type for ByteArrayConverter: STRING` for data with a
///   schema, `ByteArrayConverter is not compatible with objects of type json` for
///   schemaless data.
/// - Sink side: every key or value becomes `bytes` data, unchanged.
#[derive(Clone, Copy, Debug, Default)]
pub struct ByteArrayConverter;

const NAME: &str = "ByteArrayConverter";

impl Converter for ByteArrayConverter {
    fn name(&self) -> &'static str {
        "ByteArrayConverter"
    }

    fn from_plugin(
        &self,
        _topic: &str,
        kind: Kind,
        data: Option<&[u8]>,
    ) -> Result<Option<Vec<u8>>, ConvertError> {
        let Some(data) = data else { return Ok(None) };
        match kind {
            Kind::Bytes => Ok(Some(data.to_vec())),
            Kind::String => {
                Err(ConvertError::SchemaType { converter: NAME, schema_type: "STRING".into() })
            }
            Kind::Json => {
                json_text::validate(data).map_err(|e| ConvertError::malformed(kind, e))?;
                if json_text::is_null(data) {
                    return Ok(None);
                }
                Err(ConvertError::Incompatible { converter: NAME, kind })
            }
            Kind::ConnectJson => {
                let envelope = connect_envelope(data)?;
                let schema = Schema::parse(envelope.schema)?;
                schema.check_null(envelope.payload, false)?;
                match schema {
                    _ if envelope.payload.get() == "null" => Ok(None),
                    Schema::Typed { plain: Some(Kind::Bytes), .. } => {
                        Ok(Some(base64(envelope.payload)?))
                    }
                    Schema::Typed { ty, .. } if ty != "bytes" => Err(ConvertError::SchemaType {
                        converter: NAME,
                        schema_type: ty.to_uppercase(),
                    }),
                    // Schemaless data, or a logical type over bytes (a Decimal).
                    _ => Err(ConvertError::Incompatible { converter: NAME, kind }),
                }
            }
        }
    }

    fn to_plugin(
        &self,
        _topic: &str,
        data: Option<&[u8]>,
    ) -> Result<(Kind, Option<Vec<u8>>), ConvertError> {
        Ok((Kind::Bytes, data.map(<[u8]>::to_vec)))
    }

    fn passes_through(&self, kind: Kind) -> bool {
        kind == Kind::Bytes
    }

    fn to_plugin_borrowed<'a>(
        &self,
        _topic: &str,
        data: Option<&'a [u8]>,
    ) -> Result<PluginData<'a>, ConvertError> {
        Ok((Kind::Bytes, data.map(Cow::Borrowed)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(kind: Kind, data: &[u8]) -> Result<Option<Vec<u8>>, ConvertError> {
        ByteArrayConverter.from_plugin("t", kind, Some(data))
    }

    #[test]
    fn passes_bytes_both_ways() {
        assert_eq!(write(Kind::Bytes, &[0, 255]).unwrap(), Some(vec![0, 255]));
        let envelope = br#"{"schema":{"type":"bytes","optional":false},"payload":"AP8="}"#;
        assert_eq!(write(Kind::ConnectJson, envelope).unwrap(), Some(vec![0, 255]));
        let null = br#"{"schema":{"type":"bytes","optional":true},"payload":null}"#;
        assert_eq!(write(Kind::ConnectJson, null).unwrap(), None);
        assert_eq!(write(Kind::Json, b"null").unwrap(), None);
        for kind in Kind::ALL {
            assert_eq!(ByteArrayConverter.from_plugin("t", kind, None).unwrap(), None);
        }
        assert_eq!(
            ByteArrayConverter.to_plugin("t", Some(&[1, 2])).unwrap(),
            (Kind::Bytes, Some(vec![1, 2]))
        );
        assert_eq!(ByteArrayConverter.to_plugin("t", None).unwrap(), (Kind::Bytes, None));
    }

    #[test]
    fn refuses_other_data_with_kafkas_messages() {
        let message = |kind, data: &[u8]| write(kind, data).unwrap_err().to_string();
        assert_eq!(
            message(Kind::String, b"s"),
            "Invalid schema type for ByteArrayConverter: STRING"
        );
        assert_eq!(
            message(Kind::Json, br#"{"a":1}"#),
            "ByteArrayConverter is not compatible with objects of type json"
        );
        assert_eq!(
            message(Kind::ConnectJson, br#"{"schema":{"type":"int64"},"payload":1}"#),
            "Invalid schema type for ByteArrayConverter: INT64"
        );
        assert_eq!(
            message(
                Kind::ConnectJson,
                br#"{"schema":{"type":"string","optional":false},"payload":"s"}"#
            ),
            "Invalid schema type for ByteArrayConverter: STRING"
        );
        assert_eq!(
            message(Kind::ConnectJson, br#"{"schema":null,"payload":[1]}"#),
            "ByteArrayConverter is not compatible with objects of type connect-json"
        );
        let decimal = br#"{"schema":{"type":"bytes","name":"org.apache.kafka.connect.data.Decimal"},"payload":"AJw="}"#;
        assert_eq!(
            message(Kind::ConnectJson, decimal),
            "ByteArrayConverter is not compatible with objects of type connect-json"
        );
        assert!(matches!(write(Kind::Json, b"{"), Err(ConvertError::MalformedPluginData { .. })));
    }
}
