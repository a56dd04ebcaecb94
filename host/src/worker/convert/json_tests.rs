//! `JsonConverter` both ways, with and without schemas, and its error messages.

use super::*;

const ON: JsonConverter = JsonConverter { schemas_enable: true };
const OFF: JsonConverter = JsonConverter { schemas_enable: false };

fn write(c: JsonConverter, kind: Kind, data: &[u8]) -> Result<Option<String>, ConvertError> {
    c.from_plugin("t", kind, Some(data)).map(|o| o.map(|b| String::from_utf8(b).unwrap()))
}

fn read(c: JsonConverter, data: &str) -> Result<(Kind, Option<String>), ConvertError> {
    c.to_plugin("t", Some(data.as_bytes()))
        .map(|(k, d)| (k, d.map(|b| String::from_utf8_lossy(&b).into_owned())))
}

fn ok(kind: Kind, data: &str) -> (Kind, Option<String>) {
    (kind, Some(data.to_owned()))
}

#[test]
fn writes_envelopes_with_schemas() {
    assert_eq!(
        write(ON, Kind::String, "a \"quoted\"\nline".as_bytes()).unwrap().unwrap(),
        r#"{"schema":{"type":"string","optional":false},"payload":"a \"quoted\"\nline"}"#
    );
    assert_eq!(
        write(ON, Kind::Bytes, b"test-string").unwrap().unwrap(),
        r#"{"schema":{"type":"bytes","optional":false},"payload":"dGVzdC1zdHJpbmc="}"#
    );
    assert_eq!(
        write(ON, Kind::Json, b" { \"b\": [1, 2.50], \"a\": null } ").unwrap().unwrap(),
        r#"{"schema":null,"payload":{"b":[1,2.50],"a":null}}"#
    );
    assert_eq!(write(ON, Kind::Json, b" null ").unwrap(), None);
    let envelope = br#"{ "schema": {"type": "int64", "optional": false}, "payload": 42 }"#;
    assert_eq!(
        write(ON, Kind::ConnectJson, envelope).unwrap().unwrap(),
        r#"{"schema":{"type":"int64","optional":false},"payload":42}"#
    );
    assert_eq!(write(ON, Kind::ConnectJson, br#"{"schema":null,"payload":null}"#).unwrap(), None);
    for kind in Kind::ALL {
        assert_eq!(ON.from_plugin("t", kind, None).unwrap(), None);
        assert_eq!(OFF.from_plugin("t", kind, None).unwrap(), None);
    }
}

#[test]
fn writes_payloads_without_schemas() {
    assert_eq!(write(OFF, Kind::String, b"s").unwrap().unwrap(), r#""s""#);
    assert_eq!(write(OFF, Kind::Bytes, &[0, 255]).unwrap().unwrap(), r#""AP8=""#);
    assert_eq!(write(OFF, Kind::Json, b"{ \"a\" : 1 }").unwrap().unwrap(), r#"{"a":1}"#);
    let envelope = br#"{"schema":{"type":"struct","fields":[{"field":"a","type":"int8"}]},
        "payload":{ "a": 1 }}"#;
    assert_eq!(write(OFF, Kind::ConnectJson, envelope).unwrap().unwrap(), r#"{"a":1}"#);
    let optional_null = br#"{"schema":{"type":"int8","optional":true},"payload":null}"#;
    assert_eq!(write(OFF, Kind::ConnectJson, optional_null).unwrap().unwrap(), "null");
}

#[test]
fn rejects_malformed_plugin_data() {
    let err = write(ON, Kind::String, &[0xff]).unwrap_err();
    assert!(matches!(err, ConvertError::MalformedPluginData { kind: Kind::String, .. }));
    let err = write(ON, Kind::Json, b"{").unwrap_err();
    assert!(
        err.to_string().starts_with(
            "Converting Kafka Connect data to byte[] failed due to serialization error: the \
             plugin's json data is malformed: "
        ),
        "{err}"
    );
    let extra = br#"{"schema":null,"payload":1,"extra":true}"#;
    assert!(matches!(
        write(ON, Kind::ConnectJson, extra),
        Err(ConvertError::MalformedPluginData { kind: Kind::ConnectJson, .. })
    ));
    let bad_schema = br#"{"schema":{"type":"text"},"payload":"x"}"#;
    assert_eq!(
        write(OFF, Kind::ConnectJson, bad_schema).unwrap_err().to_string(),
        "Unknown schema type: text"
    );
    let required_null = br#"{"schema":{"type":"string"},"payload":null}"#;
    assert_eq!(
        write(ON, Kind::ConnectJson, required_null).unwrap_err().to_string(),
        "Conversion error: null value for field that is required and has no default value"
    );
}

#[test]
fn reads_envelopes_by_schema() {
    let string = r#"{"schema":{"type":"string","optional":false},"payload":"foo-bar-baz"}"#;
    assert_eq!(read(ON, string).unwrap(), ok(Kind::String, "foo-bar-baz"));
    assert_eq!(
        read(ON, r#"{"schema":{"type":"string"},"payload":"x"}"#).unwrap(),
        ok(Kind::String, "x")
    );
    let bytes = r#"{"schema":{"type":"bytes"},"payload":"dGVzdC1zdHJpbmc="}"#;
    assert_eq!(read(ON, bytes).unwrap(), ok(Kind::Bytes, "test-string"));
    let schemaless = r#"{ "schema": null, "payload": { "field1": 1, "field2": 2} }"#;
    assert_eq!(read(ON, schemaless).unwrap(), ok(Kind::Json, r#"{ "field1": 1, "field2": 2}"#));
    assert_eq!(
        read(ON, r#"{"schema":null,"payload":"a string"}"#).unwrap(),
        ok(Kind::Json, r#""a string""#)
    );
    assert_eq!(read(ON, r#"{ "schema": null, "payload": null }"#).unwrap(), (Kind::Json, None));
    let optional = r#"{"schema":{"type":"string","optional":true},"payload":null}"#;
    assert_eq!(read(ON, optional).unwrap(), (Kind::String, None));
    let structured = r#" {"schema":{"type":"struct","fields":[{"field":"a","type":"boolean"}]},"payload":{"a":true}} "#;
    assert_eq!(read(ON, structured).unwrap(), ok(Kind::ConnectJson, structured.trim()));
    let decimal = r#"{"schema":{"type":"bytes","name":"org.apache.kafka.connect.data.Decimal","parameters":{"scale":"2"}},"payload":"AJw="}"#;
    assert_eq!(read(ON, decimal).unwrap(), ok(Kind::ConnectJson, decimal));
    let optional_int = r#"{"schema":{"type":"int32","optional":true},"payload":null}"#;
    assert_eq!(read(ON, optional_int).unwrap(), ok(Kind::ConnectJson, optional_int));
    assert_eq!(ON.to_plugin("t", None).unwrap(), (Kind::Json, None));
}

#[test]
fn rejects_what_kafka_rejects_when_reading_with_schemas() {
    let envelope_message = "JsonConverter with schemas.enable requires \"schema\" and \"payload\" \
        fields and may not contain additional fields. If you are trying to deserialize plain JSON \
        data, set schemas.enable=false in your converter configuration.";
    for plain in [r#"{"a":1}"#, r#"{"schema":null,"payload":1,"x":2}"#, "[1]", r#""s""#, "", " "] {
        let err = read(ON, plain).unwrap_err();
        assert_eq!(err, ConvertError::NotEnvelope, "{plain}");
        assert_eq!(err.to_string(), envelope_message);
    }
    let err = read(ON, "{not json").unwrap_err();
    assert!(matches!(err, ConvertError::NotJson(_)));
    assert!(
        err.to_string().starts_with(
            "Converting byte[] to Kafka Connect data failed due to serialization error: "
        ),
        "{err}"
    );
    let required = r#"{"schema":{"type":"string"},"payload":null}"#;
    assert_eq!(
        read(ON, required).unwrap_err().to_string(),
        "Invalid null value for required STRING field"
    );
    let required = r#"{"schema":{"type":"int64","optional":false},"payload":null}"#;
    assert_eq!(
        read(ON, required).unwrap_err().to_string(),
        "Invalid null value for required INT64 field"
    );
    let bad_base64 = r#"{"schema":{"type":"bytes"},"payload":"%%%"}"#;
    assert_eq!(read(ON, bad_base64).unwrap_err().to_string(), "Invalid bytes field");
    let not_a_string = r#"{"schema":{"type":"string"},"payload":5}"#;
    assert_eq!(
        read(ON, not_a_string).unwrap_err().to_string(),
        "Invalid value for STRING field: expected a JSON string but found a number"
    );
    let no_type = r#"{"schema":{},"payload":5}"#;
    assert_eq!(read(ON, no_type).unwrap_err().to_string(), "Schema must contain 'type' field");
}

#[test]
fn reads_plain_json_without_schemas() {
    assert_eq!(read(OFF, r#" "text" "#).unwrap(), ok(Kind::String, "text"));
    assert_eq!(read(OFF, r#" {"a": [1, "2"]} "#).unwrap(), ok(Kind::Json, r#"{"a": [1, "2"]}"#));
    assert_eq!(read(OFF, "12.24").unwrap(), ok(Kind::Json, "12.24"));
    let envelope = r#"{"schema":null,"payload":1}"#;
    assert_eq!(read(OFF, envelope).unwrap(), ok(Kind::Json, envelope));
    assert_eq!(read(OFF, "null").unwrap(), (Kind::Json, None));
    assert_eq!(read(OFF, "").unwrap(), (Kind::Json, None));
    assert_eq!(read(OFF, " \n").unwrap(), (Kind::Json, None));
    assert_eq!(OFF.to_plugin("t", None).unwrap(), (Kind::Json, None));
    assert!(matches!(read(OFF, "{"), Err(ConvertError::NotJson(_))));
    assert!(matches!(read(OFF, "1 2"), Err(ConvertError::NotJson(_))));
}

#[test]
fn every_kind_round_trips_with_schemas() {
    let samples: [(Kind, &[u8]); 5] = [
        (Kind::String, "héllo \"world\"".as_bytes()),
        (Kind::Bytes, &[0, 1, 254, 255]),
        (Kind::Json, br#"{"b":[1,2.50,"x"],"a":{"c":null}}"#),
        (Kind::Json, br#""a json string""#),
        (Kind::ConnectJson, br#"{"schema":{"type":"map","keys":{"type":"string"},"values":{"type":"int64"}},"payload":{"k":1}}"#),
    ];
    for (kind, data) in samples {
        let topic = ON.from_plugin("t", kind, Some(data)).unwrap();
        let back = ON.to_plugin("t", topic.as_deref()).unwrap();
        assert_eq!(back, (kind, Some(data.to_vec())), "{kind}");
    }
}

#[test]
fn text_and_json_round_trip_without_schemas() {
    let samples: [(Kind, &[u8]); 3] =
        [(Kind::String, b"line"), (Kind::Json, br#"{"b":1,"a":[true]}"#), (Kind::Json, b"-1.5e3")];
    for (kind, data) in samples {
        let topic = OFF.from_plugin("t", kind, Some(data)).unwrap();
        assert_eq!(OFF.to_plugin("t", topic.as_deref()).unwrap(), (kind, Some(data.to_vec())));
    }
    // Without a schema bytes stay base64 text, as in Kafka Connect.
    let topic = OFF.from_plugin("t", Kind::Bytes, Some(b"hi")).unwrap();
    assert_eq!(
        OFF.to_plugin("t", topic.as_deref()).unwrap(),
        (Kind::String, Some(b"aGk=".to_vec()))
    );
}
