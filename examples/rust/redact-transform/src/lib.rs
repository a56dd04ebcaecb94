//! `Redact`: a single message transform for records whose value is a JSON object (kind
//! `json`, or the struct payload of a `connect-json` value).
//!
//! - `redact.fields` (list, required): each field present is replaced by the string
//!   `redact.replacement` (default `****`).
//! - `route.field` (string, optional): when the value has this field (not null), the
//!   record goes to the topic `<topic>.<field value as text>` (a string as-is, any other
//!   JSON as its JSON text).
//! - `drop.field` (string, optional): a record whose value has this field equal to JSON
//!   `true` is dropped.
//!
//! Routing and dropping read the value as it arrived (before redaction). A null value (a
//! tombstone) passes unchanged. Any other value that is not a JSON object fails that
//! record, with a reason naming its kind, so the worker's `errors.tolerance` and
//! dead-letter queue decide what happens to it.

mod object;

use wasm_connect_sdk::serde_json::Value;
use wasm_connect_sdk::{
    Config, ConfigDef, ConfigKey, Importance, Result, SinkRecord, Transform, TransformResult,
    export_transform,
};

use crate::object::{JsonObject, Read};

/// The transform: its configured keys.
#[derive(Default)]
pub struct Redact {
    fields: Vec<String>,
    replacement: String,
    route_field: Option<String>,
    drop_field: Option<String>,
}

impl Transform for Redact {
    fn name(&self) -> &str {
        "Redact"
    }

    fn version(&self) -> &str {
        env!("CARGO_PKG_VERSION")
    }

    fn config_definition(&self) -> ConfigDef {
        ConfigDef::new()
            .define(
                ConfigKey::list("redact.fields")
                    .required()
                    .importance(Importance::High)
                    .doc("Fields of the value to replace by redact.replacement."),
            )
            .define(
                ConfigKey::string("redact.replacement")
                    .default_value("****")
                    .doc("The string a redacted field gets."),
            )
            .define(
                ConfigKey::string("route.field").importance(Importance::Medium).doc(
                    "A field of the value: when present, the record goes to <topic>.<its value>.",
                ),
            )
            .define(
                ConfigKey::string("drop.field")
                    .importance(Importance::Medium)
                    .doc("A field of the value: when it is true, the record is dropped."),
            )
    }

    fn configure(&mut self, config: Config) -> Result<()> {
        let optional = |key| config.get(key).map(str::trim).filter(|s| !s.is_empty());
        self.fields = config.get_list("redact.fields");
        self.replacement = config.get_or("redact.replacement", "****").to_owned();
        self.route_field = optional("route.field").map(str::to_owned);
        self.drop_field = optional("drop.field").map(str::to_owned);
        Ok(())
    }

    fn apply(&mut self, mut record: SinkRecord) -> Result<TransformResult> {
        let mut object = match JsonObject::read(&record) {
            Read::Null => return Ok(TransformResult::Keep(record)),
            Read::Not(reason) => return Ok(TransformResult::Fail(reason)),
            Read::Object(object) => object,
        };
        if let Some(field) = &self.drop_field
            && object.fields.get(field) == Some(&Value::Bool(true))
        {
            return Ok(TransformResult::Drop);
        }
        if let Some(route) = self.route_field.as_ref().and_then(|f| object.fields.get(f)) {
            match route {
                Value::Null => {}
                Value::String(s) => record.topic = format!("{}.{s}", record.topic),
                other => record.topic = format!("{}.{other}", record.topic),
            }
        }
        let mut redacted = false;
        for field in &self.fields {
            if object.fields.contains_key(field) {
                object.set_string(field, &self.replacement);
                redacted = true;
            }
        }
        if redacted {
            record.value = Some(object.into_bytes());
        }
        Ok(TransformResult::Keep(record))
    }
}

export_transform!(Redact);

#[cfg(test)]
mod tests {
    use wasm_connect_sdk::serde_json::json;
    use wasm_connect_sdk::testing::{RecordsExt, TransformHarness};
    use wasm_connect_sdk::{Kind, RecordFailure};

    use super::*;

    fn harness(config: Config) -> TransformHarness<Redact> {
        let mut t = TransformHarness::<Redact>::new();
        t.configure(config).unwrap();
        t
    }

    #[test]
    fn redacts_routes_and_drops_json_values() {
        let config = Config::new()
            .with("redact.fields", "ssn, card")
            .with("route.field", "region")
            .with("drop.field", "test");
        let mut t = harness(config);
        assert_eq!((t.name(), t.version()), ("Redact".into(), "0.1.0".into()));
        let records = t.json_records(
            "orders",
            0,
            [
                json!({"id": 1, "ssn": "123", "region": "eu"}),
                json!({"id": 2, "test": true}),
                json!({"id": 3, "test": "yes", "region": 7, "card": 4111}),
                json!({"id": 4}),
            ],
        );
        let out = t.apply(&records).unwrap();
        assert_eq!(out.origins, [0, 2, 3]);
        let topics: Vec<&str> = out.records.iter().map(|r| r.topic.as_str()).collect();
        assert_eq!(topics, ["orders.eu", "orders.7", "orders"]);
        assert_eq!(
            out.records.values_as_json(),
            [
                json!({"id": 1, "ssn": "****", "region": "eu"}),
                json!({"id": 3, "test": "yes", "region": 7, "card": "****"}),
                json!({"id": 4}),
            ]
        );
        assert_eq!(out.records[2], records[3], "an untouched record is unchanged");
        assert!(out.failures.is_empty());
    }

    #[test]
    fn redacts_a_connect_json_struct_and_its_schema() {
        let mut t =
            harness(Config::new().with("redact.fields", "pin").with("redact.replacement", "x"));
        let envelope = json!({
            "schema": {"type": "struct", "optional": false, "fields": [
                {"type": "int32", "optional": true, "field": "pin"},
                {"type": "string", "optional": false, "field": "name"},
            ]},
            "payload": {"pin": 1234, "name": "a"},
        });
        let record = SinkRecord {
            value_kind: Kind::ConnectJson,
            value: Some(envelope.to_string().into_bytes()),
            ..t.next_record("t", 0)
        };
        let TransformResult::Keep(out) = t.apply_one(record).unwrap() else { panic!() };
        assert_eq!(out.value_kind, Kind::ConnectJson);
        let value: Value =
            wasm_connect_sdk::serde_json::from_slice(out.value.as_deref().unwrap()).unwrap();
        assert_eq!(value["payload"], json!({"pin": "x", "name": "a"}));
        assert_eq!(
            value["schema"]["fields"][0],
            json!({"type": "string", "optional": true, "field": "pin"})
        );
        assert_eq!(value["schema"]["fields"][1]["type"], "string");
    }

    #[test]
    fn fails_values_that_are_not_objects_and_keeps_tombstones() {
        let mut t = harness(Config::new().with("redact.fields", "a"));
        let mut records = t.string_records("t", 0, ["plain"]);
        records.extend(t.json_records("t", 0, [json!([1]), json!(null)]));
        records.push(t.next_record("t", 0));
        let out = t.apply(&records).unwrap();
        assert_eq!(out.origins, [2, 3]);
        assert_eq!(
            out.failures,
            [
                RecordFailure::new(0, "a value of kind string is not a JSON object"),
                RecordFailure::new(1, "a value of kind json is not a JSON object but an array"),
            ]
        );
        assert_eq!(out.records[1].value, None);
    }

    #[test]
    fn redact_fields_is_required() {
        let t = TransformHarness::<Redact>::new();
        let problems = t.validate(&Config::new());
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert_eq!(problems[0].key, "redact.fields");
        assert!(t.validate(&Config::new().with("redact.fields", "a")).is_empty());
    }
}
