//! Values both ways. Expected bytes come from the Avro specification's binary encoding
//! (zig-zag varints, little-endian floats, length-prefixed bytes, blocks ending in 0,
//! union index then value) and from the reference run (`t3.Order`).

use wasm_connect_transforms::data::{DATE, DECIMAL, Schema, TIME, TIMESTAMP, Type, Value};

use super::*;

/// Encodes `v` with a writer of `schema`, checks the bytes, and reads them back as `v`.
fn both_ways(schema: &Arc<Schema>, v: Value, expected: &str) {
    let w = writer(schema);
    assert_eq!(encode(&w, &v), expected, "{schema:?}");
    let r = reader(&w.registry_schema().text);
    let back = r.decode(&[], &unhex(expected)).unwrap();
    assert_eq!(back.value, v);
}

#[test]
fn reference_order_payload() {
    // Reference §1.4: Struct{t3.Order id=42 sku="abc"} is 5406616263 after the framing.
    let order = a(Schema::structure()
        .named("t3.Order")
        .with_field("id", prim(Type::Int32))
        .with_field("sku", prim(Type::String)));
    both_ways(&order, structure(&order, vec![Value::Int32(42), s("abc")]), "5406616263");
}

#[test]
fn primitives_use_the_specification_encodings() {
    // Zig-zag: 0→00, -1→01, 1→02, -64→7f, 64→8001.
    both_ways(&prim(Type::Int32), Value::Int32(64), "8001");
    both_ways(&prim(Type::Int32), Value::Int32(-64), "7f");
    both_ways(&prim(Type::Int8), Value::Int8(-1), "01");
    both_ways(&prim(Type::Int16), Value::Int16(300), "d804");
    both_ways(&prim(Type::Int64), Value::Int64(i64::MIN), "ffffffffffffffffff01");
    both_ways(&prim(Type::Float32), Value::Float32(1.0), "0000803f");
    both_ways(&prim(Type::Float64), Value::Float64(-2.0), "00000000000000c0");
    both_ways(&prim(Type::Boolean), Value::Boolean(true), "01");
    both_ways(&prim(Type::String), s("foo"), "06666f6f");
    both_ways(&prim(Type::Bytes), Value::Bytes(vec![0xff, 0x00]), "04ff00");
}

#[test]
fn logical_types_are_their_underlying_values() {
    let date = a(Schema { version: Some(1), ..Schema::new(Type::Int32).named(DATE) });
    both_ways(&date, Value::Int32(10_000), "a09c01");
    let time = a(Schema { version: Some(1), ..Schema::new(Type::Int32).named(TIME) });
    both_ways(&time, Value::Int32(1), "02");
    let ts = a(Schema { version: Some(1), ..Schema::new(Type::Int64).named(TIMESTAMP) });
    both_ways(&ts, Value::Int64(-2), "03");
    let mut dec = Schema::new(Type::Bytes).named(DECIMAL);
    dec.version = Some(1);
    dec.parameters = vec![("scale".into(), "2".into())];
    // 1234 unscaled (12.34) is 0x04d2; -1 is 0xff.
    both_ways(&a(dec.clone()), Value::Bytes(vec![0x04, 0xd2]), "0404d2");
    both_ways(&a(dec), Value::Bytes(vec![0xff]), "02ff");
}

#[test]
fn optional_values_are_unions_with_null_first() {
    both_ways(&opt(Type::String), Value::Null, "00");
    both_ways(&opt(Type::String), s("x"), "020278");
    // With a default the value's branch comes first: index 0 for a value, 1 for null.
    let mut with_default = Schema::new(Type::String).optional();
    with_default.default = Some(s("d"));
    let w = writer(&a(with_default));
    assert_eq!(encode(&w, &s("x")), "000278");
}

#[test]
fn null_field_with_a_default_writes_the_default() {
    let mut f = Schema::new(Type::Int32).optional();
    f.default = Some(Value::Int32(5));
    let schema = a(Schema::structure().named("r").with_field("f", a(f)));
    let w = writer(&schema);
    assert_eq!(encode(&w, &structure(&schema, vec![Value::Null])), "000a");
    let ignoring =
        format_with(&[("ignore.default.for.nullables", "true")]).writer(&schema).unwrap();
    assert_eq!(encode(&ignoring, &structure(&schema, vec![Value::Null])), "02");
}

#[test]
fn arrays_and_maps_are_blocks_ending_in_zero() {
    let ints = a(Schema::array(prim(Type::Int32)));
    both_ways(&ints, Value::Array(vec![Value::Int32(1), Value::Int32(2)]), "04020400");
    both_ways(&ints, Value::Array(vec![]), "00");
    let map = a(Schema::map(prim(Type::String), prim(Type::Int32)));
    both_ways(&map, Value::Map(vec![(s("a"), Value::Int32(1))]), "0202610200");
    let int_keys = a(Schema::map(prim(Type::Int32), prim(Type::String)));
    both_ways(&int_keys, Value::Map(vec![(Value::Int32(1), s("b"))]), "0202026200");
}

#[test]
fn nested_structs_round_trip() {
    let inner = a(Schema::structure().named("n.Inner").with_field("v", opt(Type::Int64)));
    let opt_inner = a(Schema { optional: true, ..(*inner).clone() });
    let outer = a(Schema::structure()
        .named("n.Outer")
        .with_field("a", inner.clone())
        .with_field("b", opt_inner.clone())
        .with_field("c", a(Schema::array(inner.clone()))));
    let i = |v: Value| structure(&inner, vec![v]);
    let value = structure(
        &outer,
        vec![
            i(Value::Int64(1)),
            Value::Null,
            Value::Array(vec![i(Value::Null), i(Value::Int64(-1))]),
        ],
    );
    // a: v=1 → 02 02; b: null → 00; c: 2 items (v null → 00; v=-1 → 02 01), end 00.
    let w = writer(&outer);
    assert_eq!(encode(&w, &value), "0202000400020100");
    // Read back, the struct values carry the reader's schemas, equal to ours.
    let back =
        reader(&w.registry_schema().text).decode(&[], &w.encode(&value).unwrap().payload).unwrap();
    assert_eq!(back.value, value);
}

#[test]
fn general_unions_write_the_first_set_field() {
    const UNION: &str =
        r#"["null","int",{"type":"record","name":"P","fields":[{"name":"x","type":"string"}]}]"#;
    let r = reader(UNION);
    let union = r.connect_schema().clone();
    let names: Vec<&str> = union.fields.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["int", "P"]);
    let p = union.fields[1].schema.clone();
    let value = structure(&union, vec![Value::Null, structure(&p, vec![s("q")])]);
    let w = format().writer_for(&avro(UNION), &union).unwrap();
    assert_eq!(encode(&w, &value), "040271");
    assert_eq!(r.decode(&[], &unhex("040271")).unwrap().value, value);
    assert_eq!(encode(&w, &structure(&union, vec![Value::Int32(3), Value::Null])), "0206");
    assert_eq!(encode(&w, &Value::Null), "00");
    // Written from the Connect side, the union struct is an Avro union again.
    let ours = writer(&union);
    assert_eq!(
        ours.registry_schema().text,
        r#"["null","int",{"type":"record","name":"P","fields":[{"name":"x","type":"string"}],"connect.name":"P"}]"#
    );
    assert_eq!(encode(&ours, &value), "040271");
}

#[test]
fn fixed_decimals_are_sign_extended() {
    let text =
        r#"{"type":"fixed","name":"D","size":4,"logicalType":"decimal","precision":8,"scale":0}"#;
    let r = reader(text);
    let schema = r.connect_schema().clone();
    assert!(schema.is_logical(DECIMAL));
    let w = format().writer_for(&avro(text), &schema).unwrap();
    assert_eq!(encode(&w, &Value::Bytes(vec![0xff])), "ffffffff");
    assert_eq!(encode(&w, &Value::Bytes(vec![0x01, 0x00])), "00000100");
    // Read back in the shortest two's-complement form.
    assert_eq!(r.decode(&[], &unhex("ffffffff")).unwrap().value, Value::Bytes(vec![0xff]));
}

#[test]
fn writer_for_matches_fields_by_name_and_fills_avro_defaults() {
    let registered = r#"{"type":"record","name":"R","fields":[{"name":"b","type":"string"},{"name":"extra","type":"int","default":7},{"name":"a","type":"long"}]}"#;
    let schema = a(Schema::structure()
        .named("R")
        .with_field("a", prim(Type::Int32))
        .with_field("b", prim(Type::String))
        .with_field("dropped", prim(Type::Boolean)));
    let w = format().writer_for(&avro(registered), &schema).unwrap();
    assert_eq!(w.registry_schema().text, registered);
    let v = structure(&schema, vec![Value::Int32(1), s("x"), Value::Boolean(true)]);
    // b "x", extra 7, a 1 (as a long).
    assert_eq!(encode(&w, &v), "02780e02");
    // A field the registered schema needs but the values lack, without a default.
    let needs = r#"{"type":"record","name":"R","fields":[{"name":"c","type":"int"}]}"#;
    match format().writer_for(&avro(needs), &schema) {
        Err(FormatError::Value(m)) => assert!(m.contains("Field c"), "{m}"),
        other => panic!("expected a value error, got {:?}", other.map(|_| ())),
    }
    let wrong = r#"{"type":"record","name":"R","fields":[{"name":"b","type":"int"}]}"#;
    match format().writer_for(&avro(wrong), &schema) {
        Err(FormatError::Value(m)) => assert!(m.contains("Field b"), "{m}"),
        other => panic!("expected a value error, got {:?}", other.map(|_| ())),
    }
}

#[test]
fn values_not_matching_the_schema_are_value_errors() {
    let schema = a(Schema::structure().named("r").with_field("n", prim(Type::Int32)));
    let w = writer(&schema);
    for bad in [
        structure(&schema, vec![s("no")]),
        structure(&schema, vec![Value::Null]),
        s("not a struct"),
        Value::Null,
    ] {
        let e = w.encode(&bad).unwrap_err();
        assert!(is_value_error(&e), "{e:?}");
    }
}

#[test]
fn union_structs_with_other_field_names_match_branches_by_position() {
    let union = a(Schema::structure()
        .named(super::super::AVRO_TYPE_UNION)
        .with_field("first", opt(Type::Int32))
        .with_field("second", opt(Type::String)));
    let w = writer(&union);
    assert_eq!(w.registry_schema().text, r#"["int","string"]"#);
    assert_eq!(encode(&w, &structure(&union, vec![Value::Null, s("z")])), "02027a");
}

#[test]
fn only_a_record_root_has_a_record_name() {
    let record = a(Schema::structure().named("q.R").with_field("x", prim(Type::Int32)));
    assert_eq!(writer(&record).record_name(), Some("q.R"));
    let optional = a(Schema { optional: true, ..(*record).clone() });
    assert_eq!(writer(&optional).record_name(), None);
    assert_eq!(writer(&prim(Type::String)).record_name(), None);
}
