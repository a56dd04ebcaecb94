//! Request bodies: one record's value, or a batch's values between `batch.prefix` and
//! `batch.suffix`, separated by `batch.separator` (a JSON array by default).
//!
//! With `request.body.format=json` every value is JSON text: JSON as it came, a Connect
//! envelope's payload, text and bytes as JSON strings, a null value as `null`. With
//! `string`, text and bytes go as they are.

use std::borrow::Cow;
use std::collections::BTreeMap;

use wasm_connect_sdk::serde_json::{self, value::RawValue};
use wasm_connect_sdk::{Kind, SinkRecord};

use crate::config::Settings;

/// One record's value as it goes into a body.
pub fn value(record: &SinkRecord, json: bool) -> Cow<'_, [u8]> {
    let Some(bytes) = record.value.as_deref() else { return Cow::Borrowed(b"null") };
    match record.value_kind {
        Kind::Json => Cow::Borrowed(trim(bytes)),
        Kind::ConnectJson => match payload(bytes) {
            Some(p) => Cow::Owned(p.into_bytes()),
            None => Cow::Borrowed(trim(bytes)),
        },
        Kind::String | Kind::Bytes if json => {
            let text = String::from_utf8_lossy(bytes);
            Cow::Owned(serde_json::to_vec(&text).unwrap_or_default())
        }
        Kind::String | Kind::Bytes => Cow::Borrowed(bytes),
    }
}

/// The body of one request for `records`.
pub fn body(records: &[SinkRecord], settings: &Settings) -> Vec<u8> {
    if let [one] = records
        && settings.batch_max_size == 1
    {
        return value(one, settings.json_body).into_owned();
    }
    let mut out = Vec::with_capacity(records.len() * 64 + 2);
    out.extend_from_slice(settings.batch_prefix.as_bytes());
    for (i, r) in records.iter().enumerate() {
        if i > 0 {
            out.extend_from_slice(settings.batch_separator.as_bytes());
        }
        out.extend_from_slice(&value(r, settings.json_body));
    }
    out.extend_from_slice(settings.batch_suffix.as_bytes());
    out
}

fn trim(bytes: &[u8]) -> &[u8] {
    let start = bytes.iter().position(|b| !b.is_ascii_whitespace()).unwrap_or(bytes.len());
    let end = bytes.iter().rposition(|b| !b.is_ascii_whitespace()).map_or(start, |e| e + 1);
    &bytes[start..end]
}

/// The `payload` of a Connect JSON envelope, as its JSON text.
fn payload(bytes: &[u8]) -> Option<String> {
    let envelope: BTreeMap<String, Box<RawValue>> = serde_json::from_slice(bytes).ok()?;
    envelope.get("schema")?;
    Some(envelope.get("payload").map_or_else(|| "null".to_owned(), |p| p.get().to_owned()))
}
