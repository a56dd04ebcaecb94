//! [`StringConverter`]: Kafka Connect's `org.apache.kafka.connect.storage.StringConverter`.
//!
//! Writes data as its text and reads every key or value as a string. It owns the
//! rendering of each kind as text (Kafka's `value.toString()`); JSON handling is
//! `json_text`'s. Only UTF-8 is supported (`converter.encoding` must be UTF-8).

use std::borrow::Cow;

use super::json_text::{self, Envelope, NotEnvelope};
use super::schema::Schema;
use super::{ConvertError, Converter, Kind, PluginData};

/// Data as text, in UTF-8.
///
/// - Source side: `string` data as it is; `bytes` passed through unchanged; `json` data
///   as its JSON text (a JSON string as the bare string, `null` as null); `connect-json`
///   as its payload, rendered the same way.
/// - Sink side: every key or value becomes `string` data, invalid UTF-8 replaced by
///   U+FFFD (as Java's `new String(bytes, UTF_8)`).
#[derive(Clone, Copy, Debug, Default)]
pub struct StringConverter;

impl Converter for StringConverter {
    fn name(&self) -> &'static str {
        "StringConverter"
    }

    fn from_plugin(
        &self,
        _topic: &str,
        kind: Kind,
        data: Option<&[u8]>,
    ) -> Result<Option<Vec<u8>>, ConvertError> {
        let Some(data) = data else { return Ok(None) };
        match kind {
            Kind::String | Kind::Bytes => Ok(Some(data.to_vec())),
            Kind::Json => {
                let value = serde_json::from_slice::<&serde_json::value::RawValue>(data)
                    .map_err(|e| ConvertError::malformed(kind, e))?;
                Ok(json_text::render(value))
            }
            Kind::ConnectJson => {
                let envelope = connect_envelope(data)?;
                Schema::parse(envelope.schema)?.check_null(envelope.payload, false)?;
                Ok(json_text::render(envelope.payload))
            }
        }
    }

    fn to_plugin(
        &self,
        _topic: &str,
        data: Option<&[u8]>,
    ) -> Result<(Kind, Option<Vec<u8>>), ConvertError> {
        let text = data.map(|d| String::from_utf8_lossy(d).into_owned().into_bytes());
        Ok((Kind::String, text))
    }

    fn passes_through(&self, kind: Kind) -> bool {
        matches!(kind, Kind::String | Kind::Bytes)
    }

    fn to_plugin_borrowed<'a>(
        &self,
        _topic: &str,
        data: Option<&'a [u8]>,
    ) -> Result<PluginData<'a>, ConvertError> {
        // `from_utf8` checks ASCII a word at a time; the lossy form only for invalid text.
        let text = data.map(|d| match std::str::from_utf8(d) {
            Ok(_) => Cow::Borrowed(d),
            Err(_) => Cow::Owned(String::from_utf8_lossy(d).into_owned().into_bytes()),
        });
        Ok((Kind::String, text))
    }
}

/// A plugin's `connect-json` data as an envelope.
pub(super) fn connect_envelope(data: &[u8]) -> Result<Envelope<'_>, ConvertError> {
    Envelope::parse(data).map_err(|e| match e {
        NotEnvelope::NotJson(e) => ConvertError::malformed(Kind::ConnectJson, e),
        NotEnvelope::Shape => ConvertError::malformed(
            Kind::ConnectJson,
            "not an object with exactly the fields \"schema\" and \"payload\"",
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use bytes::Bytes;

    fn write(kind: Kind, data: &str) -> Result<Option<String>, ConvertError> {
        StringConverter
            .from_plugin("t", kind, Some(data.as_bytes()))
            .map(|o| o.map(|b| String::from_utf8(b).unwrap()))
    }

    #[test]
    fn strings_and_bytes_pass_through_as_the_same_buffer() {
        let data = Bytes::from_static(b"shared");
        for kind in [Kind::String, Kind::Bytes] {
            let out = StringConverter.from_plugin_shared("t", kind, Some(&data)).unwrap();
            assert_eq!(out.unwrap().as_ptr(), data.as_ptr());
        }
    }

    #[test]
    fn writes_each_kind_as_text() {
        assert_eq!(write(Kind::String, "héllo").unwrap().as_deref(), Some("héllo"));
        assert_eq!(
            StringConverter.from_plugin("t", Kind::Bytes, Some(&[0xff, 0])).unwrap(),
            Some(vec![0xff, 0])
        );
        assert_eq!(write(Kind::Json, r#" "bare" "#).unwrap().as_deref(), Some("bare"));
        assert_eq!(
            write(Kind::Json, r#"{ "b": 1, "a": 2 }"#).unwrap().as_deref(),
            Some(r#"{"b":1,"a":2}"#)
        );
        assert_eq!(write(Kind::Json, "null").unwrap(), None);
        let envelope = r#"{"schema":{"type":"string","optional":false},"payload":"text"}"#;
        assert_eq!(write(Kind::ConnectJson, envelope).unwrap().as_deref(), Some("text"));
        let envelope = r#"{"schema":{"type":"array","items":{"type":"int32"}},"payload":[1, 2]}"#;
        assert_eq!(write(Kind::ConnectJson, envelope).unwrap().as_deref(), Some("[1,2]"));
        let envelope = r#"{"schema":{"type":"int32","optional":true},"payload":null}"#;
        assert_eq!(write(Kind::ConnectJson, envelope).unwrap(), None);
        for kind in Kind::ALL {
            assert_eq!(StringConverter.from_plugin("t", kind, None).unwrap(), None);
        }
    }

    #[test]
    fn rejects_malformed_plugin_data() {
        let err = write(Kind::Json, "{nope").unwrap_err();
        assert!(matches!(err, ConvertError::MalformedPluginData { kind: Kind::Json, .. }));
        assert!(err.to_string().contains("the plugin's json data is malformed"), "{err}");
        let err = write(Kind::ConnectJson, r#"{"payload":1}"#).unwrap_err();
        assert!(err.to_string().contains("exactly the fields"), "{err}");
        let err =
            write(Kind::ConnectJson, r#"{"schema":{"type":"nope"},"payload":1}"#).unwrap_err();
        assert_eq!(err.to_string(), "Unknown schema type: nope");
        let err = write(Kind::ConnectJson, r#"{"schema":{"type":"int8"},"payload":null}"#);
        assert!(matches!(err, Err(ConvertError::InvalidData(_))));
    }

    #[test]
    fn reads_everything_as_a_lossy_string() {
        assert_eq!(
            StringConverter.to_plugin("t", Some(b"text")).unwrap(),
            (Kind::String, Some(b"text".to_vec()))
        );
        assert_eq!(
            StringConverter.to_plugin("t", Some(&[b'a', 0xff])).unwrap(),
            (Kind::String, Some("a\u{fffd}".as_bytes().to_vec()))
        );
        assert_eq!(
            StringConverter.to_plugin("t", Some(b"")).unwrap(),
            (Kind::String, Some(vec![]))
        );
        assert_eq!(StringConverter.to_plugin("t", None).unwrap(), (Kind::String, None));
    }
}
