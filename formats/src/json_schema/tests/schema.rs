//! Connect schemas → JSON Schema texts (expected texts from Confluent's
//! `JsonSchemaDataTest` and from schemas Confluent's converter registered for Debezium's
//! SQL Server connector, quoted in a public bug reproduction), and back.

use super::*;

#[test]
fn primitive_types_write_confluents_schemas() {
    // JsonSchemaDataTest.testFromConnectByte ... testFromConnectString.
    assert_eq!(text_of(Schema::new(Type::Int8)), r#"{"type":"integer","connect.type":"int8"}"#);
    assert_eq!(text_of(Schema::new(Type::Int16)), r#"{"type":"integer","connect.type":"int16"}"#);
    assert_eq!(text_of(Schema::new(Type::Int32)), r#"{"type":"integer","connect.type":"int32"}"#);
    assert_eq!(text_of(Schema::new(Type::Int64)), r#"{"type":"integer","connect.type":"int64"}"#);
    assert_eq!(
        text_of(Schema::new(Type::Float32)),
        r#"{"type":"number","connect.type":"float32"}"#
    );
    assert_eq!(
        text_of(Schema::new(Type::Float64)),
        r#"{"type":"number","connect.type":"float64"}"#
    );
    assert_eq!(text_of(Schema::new(Type::Boolean)), r#"{"type":"boolean"}"#);
    assert_eq!(text_of(Schema::new(Type::String)), r#"{"type":"string"}"#);
    assert_eq!(text_of(Schema::new(Type::Bytes)), r#"{"type":"string","connect.type":"bytes"}"#);
    // testFromConnectNull: an optional schema is a oneOf with null.
    assert_eq!(
        text_of(Schema::new(Type::Boolean).optional()),
        r#"{"oneOf":[{"type":"null"},{"type":"boolean"}]}"#
    );
}

#[test]
fn logical_types_carry_their_names_versions_and_parameters() {
    // testFromConnectBase64Decimal / testFromConnectNumericDecimal: title, connect.type,
    // connect.version 1, connect.parameters {scale}; everit prints the keywords in the
    // order of Java's hash map (version, type, parameters).
    assert_eq!(
        text_of(decimal(2)),
        r#"{"type":"string","title":"org.apache.kafka.connect.data.Decimal","connect.version":1,"connect.type":"bytes","connect.parameters":{"scale":"2"}}"#
    );
    let numeric = format_with(&[("decimal.format", "numeric")]);
    assert_eq!(
        writer(&numeric, &Arc::new(decimal(2))).registry_schema().text,
        r#"{"type":"number","title":"org.apache.kafka.connect.data.Decimal","connect.version":1,"connect.type":"bytes","connect.parameters":{"scale":"2"}}"#
    );
    // testFromConnectTimestampWithDefault: the default follows the title.
    let mut ts = timestamp();
    ts.default = Some(Value::Int64(0));
    assert_eq!(
        text_of(ts),
        r#"{"type":"integer","title":"org.apache.kafka.connect.data.Timestamp","default":0,"connect.version":1,"connect.type":"int64"}"#
    );
    assert_eq!(
        text_of(date()),
        r#"{"type":"integer","title":"org.apache.kafka.connect.data.Date","connect.version":1,"connect.type":"int32"}"#
    );
}

#[test]
fn maps_arrays_unions_and_enums_write_confluents_schemas() {
    // testFromConnectMapWithStringKey.
    assert_eq!(
        text_of(Schema::map(prim(Type::String), prim(Type::Int32))),
        r#"{"type":"object","connect.type":"map","additionalProperties":{"type":"integer","connect.type":"int32"}}"#
    );
    // testFromConnectMapWithOptionalKey: an array of {key, value} objects, "value" first
    // in everit's property hash map.
    assert_eq!(
        text_of(Schema::map(opt(Type::String), prim(Type::Int32))),
        r#"{"type":"array","connect.type":"map","items":{"type":"object","properties":{"value":{"type":"integer","connect.index":1,"connect.type":"int32"},"key":{"connect.index":0,"oneOf":[{"type":"null"},{"type":"string"}]}}}}"#
    );
    assert_eq!(
        text_of(Schema::array(prim(Type::Int8))),
        r#"{"type":"array","items":{"type":"integer","connect.type":"int8"}}"#
    );
    // testFromConnectUnion.
    let union = Schema::structure()
        .named("io.confluent.connect.json.OneOf")
        .with_field("io.confluent.connect.json.OneOf.field.0", prim(Type::Int32))
        .with_field("io.confluent.connect.json.OneOf.field.1", prim(Type::String));
    assert_eq!(
        text_of(union),
        r#"{"oneOf":[{"type":"integer","connect.index":0,"connect.type":"int32"},{"type":"string","connect.index":1}]}"#
    );
    // testFromConnectEnum: Confluent's enum parameters are not written as parameters.
    let mut colors = Schema::new(Type::String);
    for (k, v) in [("", ""), (".one", "one"), (".two", "two"), (".three", "three")] {
        colors.parameters.push((format!("io.confluent.connect.json.Enum{k}"), v.into()));
    }
    assert_eq!(text_of(colors), r#"{"enum":["one","two","three"]}"#);
}

#[test]
fn the_reference_order_record_writes_its_schema_and_payload() {
    // The reference's Struct{t3.Order id=42 sku="abc"}: as JSON, {"id":42,"sku":"abc"}.
    let order = Arc::new(
        Schema::structure()
            .named("t3.Order")
            .with_field("id", prim(Type::Int32))
            .with_field("sku", prim(Type::String)),
    );
    assert_eq!(
        text_of((*order).clone()),
        r#"{"type":"object","title":"t3.Order","properties":{"id":{"type":"integer","connect.index":0,"connect.type":"int32"},"sku":{"type":"string","connect.index":1}}}"#
    );
    let payload =
        round_trip(&format(), &order, &structure(&order, vec![Value::Int32(42), s("abc")]));
    assert_eq!(payload, r#"{"id":42,"sku":"abc"}"#);
}

/// Debezium's SQL Server row schema (`server1.dbo.customers.Value`).
fn customers_value(with_last_name: bool) -> Schema {
    let mut schema = Schema::structure()
        .named("server1.dbo.customers.Value")
        .with_field("id", prim(Type::Int32))
        .with_field("first_name", prim(Type::String));
    if with_last_name {
        schema = schema.with_field("last_name", prim(Type::String));
    }
    schema.with_field("email", prim(Type::String)).with_field("phone_number", opt(Type::String))
}

#[test]
fn a_debezium_row_schema_writes_as_confluents_converter_registered_it() {
    let f = format_with(&[("object.additional.properties", "false")]);
    let w = writer(&f, &Arc::new(customers_value(false)));
    assert_eq!(
        w.registry_schema().text,
        r#"{"type":"object","additionalProperties":false,"title":"server1.dbo.customers.Value","properties":{"phone_number":{"connect.index":3,"oneOf":[{"type":"null"},{"type":"string"}]},"id":{"type":"integer","connect.index":0,"connect.type":"int32"},"first_name":{"type":"string","connect.index":1},"email":{"type":"string","connect.index":2}}}"#
    );
    assert_eq!(w.record_name(), Some("server1.dbo.customers.Value"));
    // Read back, connect.index restores the field order.
    let r = reader(&f, &w.registry_schema().text);
    assert_eq!(**r.connect_schema(), customers_value(false));
}

/// Debezium's change event envelope for that table.
fn customers_envelope() -> Schema {
    let value = Arc::new(customers_value(true).optional());
    let mut snapshot = Schema::new(Type::String).optional().named("io.debezium.data.Enum");
    snapshot.version = Some(1);
    snapshot.default = Some(s("false"));
    snapshot.parameters.push(("allowed".into(), "true,last,false,incremental".into()));
    let source = Schema::structure()
        .named("io.debezium.connector.sqlserver.Source")
        .with_field("version", prim(Type::String))
        .with_field("connector", prim(Type::String))
        .with_field("name", prim(Type::String))
        .with_field("ts_ms", prim(Type::Int64))
        .with_field("snapshot", Arc::new(snapshot))
        .with_field("db", prim(Type::String))
        .with_field("sequence", opt(Type::String))
        .with_field("schema", prim(Type::String))
        .with_field("table", prim(Type::String))
        .with_field("change_lsn", opt(Type::String))
        .with_field("commit_lsn", opt(Type::String))
        .with_field("event_serial_no", opt(Type::Int64));
    let transaction = Schema::structure()
        .with_field("id", prim(Type::String))
        .with_field("total_order", prim(Type::Int64))
        .with_field("data_collection_order", prim(Type::Int64))
        .optional();
    Schema::structure()
        .named("server1.dbo.customers.Envelope")
        .with_field("before", value.clone())
        .with_field("after", value)
        .with_field("source", Arc::new(source))
        .with_field("op", prim(Type::String))
        .with_field("ts_ms", opt(Type::Int64))
        .with_field("transaction", Arc::new(transaction))
}

const CUSTOMERS_ENVELOPE: &str = r#"{"type":"object","title":"server1.dbo.customers.Envelope","properties":{"op":{"type":"string","connect.index":3},"before":{"connect.index":0,"oneOf":[{"type":"null"},{"type":"object","title":"server1.dbo.customers.Value","properties":{"last_name":{"type":"string","connect.index":2},"phone_number":{"connect.index":4,"oneOf":[{"type":"null"},{"type":"string"}]},"id":{"type":"integer","connect.index":0,"connect.type":"int32"},"first_name":{"type":"string","connect.index":1},"email":{"type":"string","connect.index":3}}}]},"after":{"connect.index":1,"oneOf":[{"type":"null"},{"type":"object","title":"server1.dbo.customers.Value","properties":{"last_name":{"type":"string","connect.index":2},"phone_number":{"connect.index":4,"oneOf":[{"type":"null"},{"type":"string"}]},"id":{"type":"integer","connect.index":0,"connect.type":"int32"},"first_name":{"type":"string","connect.index":1},"email":{"type":"string","connect.index":3}}}]},"source":{"type":"object","title":"io.debezium.connector.sqlserver.Source","connect.index":2,"properties":{"schema":{"type":"string","connect.index":7},"sequence":{"connect.index":6,"oneOf":[{"type":"null"},{"type":"string"}]},"event_serial_no":{"connect.index":11,"oneOf":[{"type":"null"},{"type":"integer","connect.type":"int64"}]},"connector":{"type":"string","connect.index":1},"name":{"type":"string","connect.index":2},"commit_lsn":{"connect.index":10,"oneOf":[{"type":"null"},{"type":"string"}]},"change_lsn":{"connect.index":9,"oneOf":[{"type":"null"},{"type":"string"}]},"version":{"type":"string","connect.index":0},"ts_ms":{"type":"integer","connect.index":3,"connect.type":"int64"},"snapshot":{"connect.index":4,"oneOf":[{"type":"null"},{"type":"string","title":"io.debezium.data.Enum","default":"false","connect.version":1,"connect.parameters":{"allowed":"true,last,false,incremental"}}]},"db":{"type":"string","connect.index":5},"table":{"type":"string","connect.index":8}}},"ts_ms":{"connect.index":4,"oneOf":[{"type":"null"},{"type":"integer","connect.type":"int64"}]},"transaction":{"connect.index":5,"oneOf":[{"type":"null"},{"type":"object","properties":{"data_collection_order":{"type":"integer","connect.index":2,"connect.type":"int64"},"id":{"type":"string","connect.index":0},"total_order":{"type":"integer","connect.index":1,"connect.type":"int64"}}}]}}}"#;

#[test]
fn a_debezium_envelope_writes_byte_for_byte_and_reads_back() {
    let schema = Arc::new(customers_envelope());
    assert_eq!(text_of((*schema).clone()), CUSTOMERS_ENVELOPE);
    // Reading Confluent's text gives the Connect schema back: field order by
    // connect.index, optional members of oneOf, the Enum's default and parameters.
    assert_eq!(**reader(&format(), CUSTOMERS_ENVELOPE).connect_schema(), *schema);
}

#[test]
fn names_versions_docs_parameters_and_defaults_round_trip() {
    let mut inner = Schema::new(Type::Int32).named("com.example.Count");
    inner.version = Some(3);
    inner.doc = Some("how many".into());
    inner.parameters.push(("unit".into(), "items".into()));
    inner.default = Some(Value::Int32(7));
    let mut outer =
        Schema::structure().named("com.example.Order").with_field("count", Arc::new(inner));
    outer.version = Some(2);
    outer.doc = Some("an order".into());
    let outer = Arc::new(outer);
    let text = writer(&format(), &outer).registry_schema().text.clone();
    assert_eq!(
        text,
        r#"{"type":"object","title":"com.example.Order","description":"an order","connect.version":2,"properties":{"count":{"type":"integer","title":"com.example.Count","description":"how many","default":7,"connect.index":0,"connect.version":3,"connect.type":"int32","connect.parameters":{"unit":"items"}}}}"#
    );
    // A null count writes its default, and reads back as it.
    let payload = round_trip(&format(), &outer, &structure(&outer, vec![Value::Int32(1)]));
    assert_eq!(payload, r#"{"count":1}"#);
    let w = writer(&format(), &outer);
    assert_eq!(w.encode(&structure(&outer, vec![Value::Null])).unwrap().payload, br#"{"count":7}"#);
}
