//! Settings, schemas this format cannot read, payloads that are not JSON of their schema,
//! and `json.fail.invalid.schema`.

use super::*;
use crate::FormatError;

#[test]
fn settings_take_confluents_defaults_and_reject_bad_values() {
    let f = format();
    let strict = format_with(&[("object.additional.properties", "false")]);
    let record = Arc::new(Schema::structure().named("R").with_field("a", prim(Type::Int32)));
    assert!(!writer(&f, &record).registry_schema().text.contains("additionalProperties"));
    assert!(
        writer(&strict, &record).registry_schema().text.contains(r#""additionalProperties":false"#)
    );
    for (key, value) in [
        ("decimal.format", "HEX"),
        ("object.additional.properties", "maybe"),
        ("json.fail.invalid.schema", "yes"),
        ("schemas.cache.config", "many"),
    ] {
        let map: BTreeMap<&str, &str> = [(key, value)].into_iter().collect();
        let err = JsonSchemaFormat::new(&Settings::new("value.converter", &map)).err();
        assert!(
            matches!(&err, Some(FormatError::InvalidSetting { key: k, .. }) if *k == format!("value.converter.{key}")),
            "{key}={value}: {err:?}"
        );
    }
    for key in [
        "object.additional.properties",
        "use.optional.for.nonrequired",
        "decimal.format",
        "json.fail.invalid.schema",
        "json.fail.unknown.properties",
        "scrub.invalid.names",
    ] {
        assert!(crate::keys(SchemaType::Json).contains(&key), "{key}");
    }
}

#[test]
fn registered_schemas_it_cannot_read_are_registered_schema_errors() {
    let f = format();
    for text in [
        "not json",
        "",
        "{}",
        "true",
        r#"{"type":"null"}"#,
        r#"{"$ref":"other.json#/definitions/X"}"#,
        r##"{"type":"object","properties":{"next":{"$ref":"#"}}}"##,
        r#"{"type":"array"}"#,
        r#"{"type":"array","items":[{"type":"string"}]}"#,
        r#"{"type":"integer","connect.type":"int128"}"#,
    ] {
        let err = f.reader(&registered(text)).err();
        assert!(matches!(err, Some(FormatError::RegisteredSchema(_))), "{text}: {err:?}");
    }
    let avro = RegistrySchema { schema_type: SchemaType::Avro, text: "{}".into() };
    assert!(matches!(f.reader(&avro).err(), Some(FormatError::RegisteredSchema(_))));
}

#[test]
fn garbage_and_truncated_payloads_fail_without_panicking() {
    let f = format();
    let schema = Arc::new(
        Schema::structure()
            .named("R")
            .with_field("a", prim(Type::Int32))
            .with_field("b", Arc::new(Schema::array(prim(Type::String))))
            .with_field("c", Arc::new(decimal(2)))
            .with_field("d", Arc::new(Schema::map(prim(Type::Int32), prim(Type::Bytes)))),
    );
    let w = writer(&f, &schema);
    let r = reader(&f, &w.registry_schema().text);
    let good = br#"{"a":1,"b":["x","y"],"c":"AJw=","d":[{"key":1,"value":"Zm9v"}]}"#;
    assert!(r.decode(&[], good).is_ok());
    for end in 0..good.len() {
        assert!(r.decode(&[], &good[..end]).is_err(), "{}", String::from_utf8_lossy(&good[..end]));
    }
    for bad in [
        &b"\xff\xfe"[..],
        b"[",
        b"{\"a\":}",
        b"\"c\"",
        br#"{"c":"not base64!"}"#,
        br#"{"c":true}"#,
        br#"{"c":1e9223372036854775807}"#,
        br#"{"c":1e-9223372036854775807}"#,
        br#"{"d":{"1":"x"}}"#,
        br#"{"d":[1]}"#,
        br#"{"d":[{"key":1}]}"#,
        &[b'['; 5000][..],
    ] {
        assert!(
            matches!(r.decode(&[], bad), Err(FormatError::Decode(_))),
            "{}",
            String::from_utf8_lossy(bad)
        );
    }
    // A deterministic stream of pseudo-random bytes: errors or values, never a panic.
    let alphabet = b"{}[]\":,01a-.e\\ ntrufl";
    let mut x: u32 = 12345;
    for _ in 0..2000 {
        let len = (x % 40) as usize;
        let bytes: Vec<u8> = (0..len)
            .map(|_| {
                x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
                alphabet[(x >> 16) as usize % alphabet.len()]
            })
            .collect();
        let _ = r.decode(&[], &bytes);
    }
}

#[test]
fn invalid_payloads_fail_when_validation_is_on() {
    let text =
        r#"{"type":"object","properties":{"a":{"type":"integer","maximum":10}},"required":["a"]}"#;
    let on = format_with(&[("json.fail.invalid.schema", "true")]);
    let r = reader(&on, text);
    assert!(r.decode(&[], br#"{"a":3}"#).is_ok());
    let err = r.decode(&[], br#"{"b":3}"#).unwrap_err();
    assert!(
        matches!(&err, FormatError::Value(m) if m.contains("\"a\" is a required property")),
        "{err}"
    );
    // Off (the default), the missing property reads as null.
    assert!(reader(&format(), text).decode(&[], br#"{"b":3}"#).is_ok());
    // Writing with a registered schema validates against it.
    let schema = Arc::new(Schema::structure().with_field("a", prim(Type::Int64)));
    let w = on.writer_for(&registered(text), &schema).unwrap();
    assert_eq!(w.registry_schema().text, text);
    assert_eq!(
        w.encode(&structure(&schema, vec![Value::Int64(3)])).unwrap().payload,
        br#"{"a":3}"#
    );
    let err = w.encode(&structure(&schema, vec![Value::Int64(11)])).unwrap_err();
    assert!(matches!(&err, FormatError::Value(m) if m.contains("#/a")), "{err}");
}
