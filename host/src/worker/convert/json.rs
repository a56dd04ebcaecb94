//! [`JsonConverter`]: Kafka Connect's `org.apache.kafka.connect.json.JsonConverter`, with
//! `schemas.enable` (default true).
//!
//! It owns the mapping between kinds and JSON on the topic: with schemas, Kafka Connect's
//! `{"schema": ..., "payload": ...}` envelope; without, the payload alone. JSON text
//! handling is `json_text`'s, schema checks `schema`'s. Other `JsonConverter` settings
//! (`schemas.cache.size`, `decimal.format`, `replace.null.with.default`) are ignored:
//! payloads pass through as JSON, never as Connect values.

use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use serde_json::value::RawValue;

use super::json_text::{self, Envelope, NotEnvelope};
use super::schema::Schema;
use super::string::connect_envelope;
use super::{ConvertError, Converter, Kind};

/// Kafka Connect's schema of a plugin's `string` data.
const STRING_SCHEMA: &str = r#"{"type":"string","optional":false}"#;
/// Kafka Connect's schema of a plugin's `bytes` data.
const BYTES_SCHEMA: &str = r#"{"type":"bytes","optional":false}"#;

/// JSON on the topic.
///
/// Source side (`schemas.enable=true`): `string` data becomes
/// `{"schema":{"type":"string","optional":false},"payload":"..."}`, `bytes` data the same
/// with type `bytes` and the payload in base64, `json` data `{"schema":null,"payload":...}`,
/// and `connect-json` data is checked and written compactly. Without schemas only the
/// payload is written. JSON `null` data (and an envelope with a null schema and payload)
/// is a null.
///
/// Sink side (`schemas.enable=true`): the bytes must be an envelope. A plain STRING or
/// BYTES schema gives `string` or `bytes` data, a null schema `json` data (the payload),
/// any other schema `connect-json` data (the envelope as read). Without schemas a JSON
/// string gives `string` data and anything else `json` data; empty bytes are a null.
#[derive(Clone, Copy, Debug)]
pub struct JsonConverter {
    schemas_enable: bool,
}

impl JsonConverter {
    /// A converter with or without the schema envelope.
    pub fn new(schemas_enable: bool) -> Self {
        Self { schemas_enable }
    }

    /// `schema` and `payload` as the bytes to write: the envelope, or the payload alone.
    fn write(&self, schema: &str, payload: &[u8]) -> Vec<u8> {
        if !self.schemas_enable {
            return payload.to_vec();
        }
        let mut out = Vec::with_capacity(payload.len() + schema.len() + 24);
        out.extend_from_slice(br#"{"schema":"#);
        out.extend_from_slice(schema.as_bytes());
        out.extend_from_slice(br#","payload":"#);
        out.extend_from_slice(payload);
        out.push(b'}');
        out
    }

    /// The plugin data an envelope read from a topic stands for.
    fn read_envelope(
        envelope: Envelope<'_>,
        json: &[u8],
    ) -> Result<(Kind, Option<Vec<u8>>), ConvertError> {
        let schema = Schema::parse(envelope.schema)?;
        schema.check_null(envelope.payload, true)?;
        let payload = envelope.payload;
        match schema {
            Schema::Null if payload.get() == "null" => Ok((Kind::Json, None)),
            Schema::Null => Ok((Kind::Json, Some(payload.get().as_bytes().to_vec()))),
            Schema::Typed { plain: Some(kind), .. } if payload.get() == "null" => Ok((kind, None)),
            Schema::Typed { plain: Some(Kind::String), .. } => {
                match json_text::unquote(payload.get()) {
                    Some(text) => Ok((Kind::String, Some(text.into_bytes()))),
                    None => Err(ConvertError::data(format!(
                        "Invalid value for STRING field: expected a JSON string but found {}",
                        json_text::type_name(payload)
                    ))),
                }
            }
            Schema::Typed { plain: Some(_), .. } => Ok((Kind::Bytes, Some(base64(payload)?))),
            Schema::Typed { plain: None, .. } => {
                Ok((Kind::ConnectJson, Some(json.trim_ascii().to_vec())))
            }
        }
    }
}

/// The bytes a base64 JSON string stands for.
pub(super) fn base64(payload: &RawValue) -> Result<Vec<u8>, ConvertError> {
    json_text::unquote(payload.get())
        .and_then(|text| BASE64.decode(text).ok())
        .ok_or_else(|| ConvertError::data("Invalid bytes field"))
}

impl Converter for JsonConverter {
    fn name(&self) -> &'static str {
        "JsonConverter"
    }

    fn from_plugin(
        &self,
        _topic: &str,
        kind: Kind,
        data: Option<&[u8]>,
    ) -> Result<Option<Vec<u8>>, ConvertError> {
        let Some(data) = data else { return Ok(None) };
        match kind {
            Kind::String => {
                let text =
                    std::str::from_utf8(data).map_err(|e| ConvertError::malformed(kind, e))?;
                Ok(Some(self.write(STRING_SCHEMA, &json_text::quote(text))))
            }
            Kind::Bytes => {
                Ok(Some(self.write(BYTES_SCHEMA, &json_text::quote(&BASE64.encode(data)))))
            }
            Kind::Json => {
                json_text::validate(data).map_err(|e| ConvertError::malformed(kind, e))?;
                if json_text::is_null(data) {
                    return Ok(None);
                }
                Ok(Some(self.write("null", &json_text::compact(data))))
            }
            Kind::ConnectJson => {
                let envelope = connect_envelope(data)?;
                let schema = Schema::parse(envelope.schema)?;
                schema.check_null(envelope.payload, false)?;
                if schema == Schema::Null && envelope.payload.get() == "null" {
                    return Ok(None);
                }
                Ok(Some(if self.schemas_enable {
                    json_text::compact(data)
                } else {
                    json_text::compact(envelope.payload.get().as_bytes())
                }))
            }
        }
    }

    fn to_plugin(
        &self,
        _topic: &str,
        data: Option<&[u8]>,
    ) -> Result<(Kind, Option<Vec<u8>>), ConvertError> {
        let Some(data) = data else { return Ok((Kind::Json, None)) };
        if !self.schemas_enable {
            if json_text::is_blank(data) {
                return Ok((Kind::Json, None));
            }
            let value = serde_json::from_slice::<&RawValue>(data)
                .map_err(|e| ConvertError::NotJson(e.to_string()))?;
            return Ok(match json_text::unquote(value.get()) {
                Some(text) => (Kind::String, Some(text.into_bytes())),
                None if value.get() == "null" => (Kind::Json, None),
                None => (Kind::Json, Some(value.get().as_bytes().to_vec())),
            });
        }
        match Envelope::parse(data) {
            Ok(envelope) => Self::read_envelope(envelope, data),
            // Jackson reads blank input as no value, which is not an envelope either.
            Err(NotEnvelope::NotJson(_)) if json_text::is_blank(data) => {
                Err(ConvertError::NotEnvelope)
            }
            Err(NotEnvelope::NotJson(e)) => Err(ConvertError::NotJson(e.to_string())),
            Err(NotEnvelope::Shape) => Err(ConvertError::NotEnvelope),
        }
    }
}

#[cfg(test)]
#[path = "json_tests.rs"]
mod tests;
