//! [`JsonObject`]: the JSON object a record's value holds, read from and written back to
//! the value's bytes by its kind: a `json` value is the object itself, a `connect-json`
//! value is an envelope whose `payload` is the object (a struct) and whose `schema` says
//! the type of each field.
//!
//! This module owns that reading and writing only; what to do with the object is the
//! transform's (`lib.rs`).

use wasm_connect_sdk::serde_json::{self, Map, Value, json};
use wasm_connect_sdk::{Kind, SinkRecord};

/// The object of one record's value, and the schema around it for `connect-json`.
pub struct JsonObject {
    /// The object's fields.
    pub fields: Map<String, Value>,
    /// The envelope's schema, for a `connect-json` value.
    schema: Option<Value>,
}

/// What a record's value is, for a transform that needs a JSON object.
pub enum Read {
    /// A null value (a tombstone), or JSON `null`.
    Null,
    /// A JSON object.
    Object(JsonObject),
    /// Anything else: the reason, naming the value's kind.
    Not(String),
}

impl JsonObject {
    /// Reads the object in `record`'s value.
    pub fn read(record: &SinkRecord) -> Read {
        let Some(bytes) = record.value.as_deref() else { return Read::Null };
        let kind = record.value_kind;
        if !matches!(kind, Kind::Json | Kind::ConnectJson) {
            return Read::Not(format!("a value of kind {kind} is not a JSON object"));
        }
        let value: Value = match serde_json::from_slice(bytes) {
            Ok(v) => v,
            Err(e) => return Read::Not(format!("a value of kind {kind} is not valid JSON: {e}")),
        };
        let (data, schema) = match (kind, value) {
            (Kind::ConnectJson, Value::Object(mut envelope)) => {
                (envelope.remove("payload").unwrap_or(Value::Null), envelope.remove("schema"))
            }
            (Kind::ConnectJson, _) => {
                return Read::Not(format!("a value of kind {kind} is not a schema envelope"));
            }
            (_, value) => (value, None),
        };
        match data {
            Value::Null => Read::Null,
            Value::Object(fields) => Read::Object(JsonObject { fields, schema }),
            other => Read::Not(format!(
                "a value of kind {kind} is not a JSON object but {}",
                type_name(&other)
            )),
        }
    }

    /// Sets `field` to the string `text`; for `connect-json`, the field's schema becomes
    /// a string schema (as optional as it was), so that the envelope stays consistent.
    pub fn set_string(&mut self, field: &str, text: &str) {
        self.fields.insert(field.to_owned(), Value::String(text.to_owned()));
        let Some(fields) = self.schema.as_mut().and_then(|s| s.get_mut("fields")) else { return };
        let Some(fields) = fields.as_array_mut() else { return };
        for f in fields.iter_mut().filter(|f| f["field"] == field) {
            let optional = f.get("optional").cloned().unwrap_or(Value::Bool(false));
            *f = json!({"type": "string", "optional": optional, "field": field});
        }
    }

    /// The value bytes of this object, in the kind it was read from.
    pub fn into_bytes(self) -> Vec<u8> {
        let payload = Value::Object(self.fields);
        match self.schema {
            Some(schema) => format!(r#"{{"schema":{schema},"payload":{payload}}}"#).into_bytes(),
            None => payload.to_string().into_bytes(),
        }
    }
}

/// The JSON type of `v`, for messages.
fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
