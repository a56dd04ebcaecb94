//! Schemas written by other producers (no `connect.*` keywords), read as Confluent's
//! `JsonSchemaData.toConnectSchema` reads them (cases from `JsonSchemaDataTest`).

use super::*;

fn read(text: &str) -> Schema {
    (**reader(&format(), text).connect_schema()).clone()
}

#[test]
fn plain_types_read_as_confluent_reads_them() {
    assert_eq!(read(r#"{"type":"integer"}"#), Schema::new(Type::Int64));
    assert_eq!(read(r#"{"type":"number"}"#), Schema::new(Type::Float64));
    assert_eq!(read(r#"{"type":"boolean"}"#), Schema::new(Type::Boolean));
    assert_eq!(read(r#"{"type":"string","format":"date-time"}"#), Schema::new(Type::String));
    assert_eq!(
        read(r#"{"oneOf":[{"type":"null"},{"type":"string"}]}"#),
        Schema::new(Type::String).optional()
    );
    assert_eq!(read(r#"{"type":["string","null"]}"#), Schema::new(Type::String).optional());
    // testToConnectMapStringKeys, testToNamedConnectMap.
    let map = Schema::map(prim(Type::String), prim(Type::Int8)).named("foo.bar");
    assert_eq!(
        read(
            r#"{"type":"object","title":"foo.bar","connect.type":"map","additionalProperties":{"type":"integer","connect.type":"int8"}}"#
        ),
        map
    );
    // testToConnectConst / testToConnectEnum.
    let mut one = Schema::new(Type::String);
    one.parameters = vec![
        ("io.confluent.connect.json.Enum".into(), String::new()),
        ("io.confluent.connect.json.Enum.one".into(), "one".into()),
    ];
    assert_eq!(read(r#"{"const":"one"}"#), one);
    assert_eq!(read(r#"{"enum":["one"]}"#), one);
    // testToConnectEnumInAllOf / testToConnectIntEnumInAllOfIsValid: an enum beside a
    // string type is the enum, beside an integer type the integer.
    assert_eq!(read(r#"{"type":"string","enum":["one"]}"#), one);
    assert_eq!(read(r#"{"type":"integer","enum":[1,2]}"#), Schema::new(Type::Int64));
}

#[test]
fn a_hand_written_object_reads_in_javas_property_order() {
    let text = r#"{
        "$schema": "http://json-schema.org/draft-07/schema#",
        "title": "Person",
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "age": {"type": "integer", "description": "years"},
            "tags": {"type": "array", "items": {"type": "string"}},
            "address": {"type": ["null", "object"], "properties": {"city": {"type": "string"}}}
        },
        "required": ["name"]
    }"#;
    let address = Schema::structure().with_field("city", prim(Type::String)).optional();
    let mut age = Schema::new(Type::Int64);
    age.doc = Some("years".into());
    // Without connect.index the fields come in the order of everit's property hash map.
    let person = Arc::new(
        Schema::structure()
            .named("Person")
            .with_field("address", Arc::new(address.clone()))
            .with_field("name", prim(Type::String))
            .with_field("age", Arc::new(age))
            .with_field("tags", Arc::new(Schema::array(prim(Type::String)))),
    );
    let r = reader(&format(), text);
    assert_eq!(**r.connect_schema(), *person);
    let payload = br#"{"name":"Ann","age":41,"tags":["x"],"address":{"city":"Oslo"},"extra":1}"#;
    let address = Arc::new(address);
    assert_eq!(
        r.decode(&[], payload).unwrap().value,
        structure(
            &person,
            vec![
                structure(&address, vec![s("Oslo")]),
                s("Ann"),
                Value::Int64(41),
                Value::Array(vec![s("x")])
            ]
        )
    );
    // use.optional.for.nonrequired: only "name" stays required.
    let optional = reader(&format_with(&[("use.optional.for.nonrequired", "true")]), text);
    let fields = &optional.connect_schema().fields;
    let flags: Vec<(&str, bool)> =
        fields.iter().map(|f| (f.name.as_str(), f.schema.optional)).collect();
    assert_eq!(flags, [("address", true), ("name", false), ("age", true), ("tags", true)]);
}

#[test]
fn references_to_definitions_resolve() {
    // JsonSchemaDataTest.testToConnectRecordWithOptionalReference.
    let text = r##"{
      "$schema": "http://json-schema.org/draft-04/schema#",
      "title": "Event",
      "type": "object",
      "properties": {"vehicle": {"$ref": "#/definitions/VehicleDto"}},
      "definitions": {
        "PriceDto": {"type": "object", "required": ["amount"],
          "properties": {"amount": {"type": "number", "format": "decimal"}}},
        "VehicleDto": {"type": "object", "required": ["offerPrice", "firstRegistrationDate"],
          "properties": {
            "offerPrice": {"connect.index": 1, "$ref": "#/definitions/PriceDto"},
            "catalogPrice": {"connect.index": 2, "oneOf": [{"type": "null"}, {"$ref": "#/definitions/PriceDto"}]},
            "firstRegistrationDate": {"connect.index": 3, "type": "string", "format": "date-time"}}}
      }
    }"##;
    let r = reader(&format_with(&[("use.optional.for.nonrequired", "true")]), text);
    let vehicle = &r.connect_schema().field("vehicle").unwrap().schema;
    assert!(!vehicle.field("offerPrice").unwrap().schema.optional);
    assert!(vehicle.field("catalogPrice").unwrap().schema.optional);
    let json = br#"{"vehicle":{"offerPrice":{"amount":20000},"firstRegistrationDate":"2020-08-19T12:05:15.953Z"}}"#;
    let Value::Struct(event) = r.decode(&[], json).unwrap().value else { panic!("a struct") };
    let Value::Struct(v) = event.get("vehicle").unwrap() else { panic!("a struct") };
    let Value::Struct(price) = v.get("offerPrice").unwrap() else { panic!("a struct") };
    assert_eq!(price.get("amount").unwrap(), &Value::Float64(20000.0));
    assert_eq!(v.get("catalogPrice").unwrap(), &Value::Null);
}

#[test]
fn unions_of_several_types_are_oneof_structs() {
    // testToConnectUnionFromAnyOf: members are optional, the null member makes the
    // struct optional.
    let union = read(
        r#"{"anyOf":[{"type":"null"},{"type":"integer","connect.type":"int32"},{"type":"string"}]}"#,
    );
    let expected = Schema::structure()
        .named("io.confluent.connect.json.OneOf")
        .with_field("io.confluent.connect.json.OneOf.field.0", opt(Type::Int32))
        .with_field("io.confluent.connect.json.OneOf.field.1", opt(Type::String))
        .optional();
    assert_eq!(union, expected);
    // Generalized sum types name the union with a parameter.
    let f = format_with(&[("generalized.sum.type.support", "true")]);
    let g = reader(&f, r#"{"oneOf":[{"type":"integer"},{"type":"string"}]}"#);
    assert_eq!(g.connect_schema().name.as_deref(), Some("connect_union_0"));
    assert_eq!(
        g.connect_schema().parameter("org.apache.kafka.connect.data.Union"),
        Some("connect_union_0")
    );
    assert_eq!(g.connect_schema().fields[1].name, "connect_union_field_1");
    // allOf merges object members.
    let merged = read(
        r#"{"allOf":[{"type":"object","properties":{"a":{"type":"string"}}},{"properties":{"b":{"type":"boolean"}}}]}"#,
    );
    let names: Vec<&str> = merged.fields.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["a", "b"]);
}
