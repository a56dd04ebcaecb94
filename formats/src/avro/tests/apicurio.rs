//! Cross-checks with Apicurio's `AvroConverter` 2.6.13.Final (its `AvroData` is a copy of
//! Confluent's) as `scripts/compare-registry-kafka-connect.sh` runs it in Kafka Connect
//! 4.3.1. The struct `compare.AllTypes` of `scripts/lib/compare-registry-records.py` holds
//! every Connect type: int8..float64, boolean, string, bytes, optional fields, Decimal,
//! Date, Time, Timestamp, an array, maps with string and int keys, a nested optional
//! struct, defaults, docs and parameters. The tests hold the schema text Apicurio's
//! converter registered for it, and one record of it as bytes derived from the Avro
//! specification's binary encoding.

use wasm_connect_transforms::data::envelope;

use super::*;

/// The struct's Connect schema, as the script's JSON envelopes carry it.
const CONNECT_SCHEMA: &str = r#"{"type":"struct","name":"compare.AllTypes","optional":false,"version":2,"fields":[{"field":"i8","type":"int8","optional":false},{"field":"i16","type":"int16","optional":false},{"field":"i32","type":"int32","optional":false},{"field":"i64","type":"int64","optional":false},{"field":"f32","type":"float","optional":false},{"field":"f64","type":"double","optional":false},{"field":"flag","type":"boolean","optional":false},{"field":"text","type":"string","optional":false},{"field":"raw","type":"bytes","optional":false},{"field":"maybe","type":"string","optional":true},{"field":"maybe_long","type":"int64","optional":true},{"field":"amount","type":"bytes","optional":false,"parameters":{"scale":"2"},"name":"org.apache.kafka.connect.data.Decimal","version":1},{"field":"day","type":"int32","optional":false,"name":"org.apache.kafka.connect.data.Date","version":1},{"field":"clock","type":"int32","optional":false,"name":"org.apache.kafka.connect.data.Time","version":1},{"field":"at","type":"int64","optional":false,"name":"org.apache.kafka.connect.data.Timestamp","version":1},{"field":"tags","type":"array","optional":false,"items":{"type":"string","optional":false}},{"field":"counts","type":"map","optional":false,"keys":{"type":"string","optional":false},"values":{"type":"int32","optional":false}},{"field":"names","type":"map","optional":false,"keys":{"type":"int32","optional":false},"values":{"type":"string","optional":true}},{"field":"inner","type":"struct","optional":true,"name":"compare.Inner","fields":[{"field":"id","type":"int32","optional":false},{"field":"note","type":"string","optional":true}]},{"field":"level","type":"int32","optional":false,"default":5,"doc":"a documented field with a default"},{"field":"label","type":"string","optional":true,"default":"dflt"},{"field":"origin","type":"string","optional":false,"parameters":{"source":"compare","kind":"tag"}},{"field":"price","type":"bytes","optional":false,"parameters":{"scale":"3","connect.decimal.precision":"10"},"name":"org.apache.kafka.connect.data.Decimal","version":1}],"doc":"every Connect type"}"#;

/// The text Apicurio's converter registered for it (Avro's `Schema.toString()`).
const APICURIO_TEXT: &str = r#"{"type":"record","name":"AllTypes","namespace":"compare","fields":[{"name":"i8","type":{"type":"int","connect.type":"int8"}},{"name":"i16","type":{"type":"int","connect.type":"int16"}},{"name":"i32","type":"int"},{"name":"i64","type":"long"},{"name":"f32","type":"float"},{"name":"f64","type":"double"},{"name":"flag","type":"boolean"},{"name":"text","type":"string"},{"name":"raw","type":"bytes"},{"name":"maybe","type":["null","string"],"default":null},{"name":"maybe_long","type":["null","long"],"default":null},{"name":"amount","type":{"type":"bytes","scale":2,"precision":64,"connect.version":1,"connect.parameters":{"scale":"2"},"connect.name":"org.apache.kafka.connect.data.Decimal","logicalType":"decimal"}},{"name":"day","type":{"type":"int","connect.version":1,"connect.name":"org.apache.kafka.connect.data.Date","logicalType":"date"}},{"name":"clock","type":{"type":"int","connect.version":1,"connect.name":"org.apache.kafka.connect.data.Time","logicalType":"time-millis"}},{"name":"at","type":{"type":"long","connect.version":1,"connect.name":"org.apache.kafka.connect.data.Timestamp","logicalType":"timestamp-millis"}},{"name":"tags","type":{"type":"array","items":"string"}},{"name":"counts","type":{"type":"map","values":"int"}},{"name":"names","type":{"type":"array","items":{"type":"record","name":"MapEntry","namespace":"io.confluent.connect.avro","fields":[{"name":"key","type":"int"},{"name":"value","type":["null","string"],"default":null}]}}},{"name":"inner","type":["null",{"type":"record","name":"Inner","fields":[{"name":"id","type":"int"},{"name":"note","type":["null","string"],"default":null}],"connect.name":"compare.Inner"}],"default":null},{"name":"level","type":{"type":"int","connect.doc":"a documented field with a default","connect.default":5},"default":5},{"name":"label","type":[{"type":"string","connect.default":"dflt"},"null"],"default":"dflt"},{"name":"origin","type":{"type":"string","connect.parameters":{"source":"compare","kind":"tag"}}},{"name":"price","type":{"type":"bytes","scale":3,"precision":10,"connect.version":1,"connect.parameters":{"scale":"3","connect.decimal.precision":"10"},"connect.name":"org.apache.kafka.connect.data.Decimal","logicalType":"decimal"}}],"connect.doc":"every Connect type","connect.version":2,"connect.name":"compare.AllTypes"}"#;

/// The script's second record.
const PAYLOAD: &str = r#"{"i8":127,"i16":32767,"i32":2147483647,"i64":9223372036854775807,"f32":3.25,"f64":2.5e-300,"flag":true,"text":"héllo \"wörld\"\n\té","raw":"AAH/","maybe":"set","maybe_long":42,"amount":"MDk=","day":20794,"clock":3723456,"at":1796605323456,"tags":["a","b,c",""],"counts":{"x":1,"y":-2},"names":[[1,"one"],[2,null]],"inner":{"id":7,"note":"nested"},"level":5,"label":"set","origin":"x","price":"AeI="}"#;

/// That record in Avro binary, field by field: zigzag varints for int and long (127 is
/// `fe01`), little-endian IEEE 754 for float and double, length-prefixed strings and bytes
/// (the decimal 123.45 at scale 2 is the unscaled 12345, `3039`), the union index before an
/// optional value (`02` for the second branch; `00` for `label`, whose default puts the
/// string first), arrays and maps as one counted block and a `00` end, the int-keyed map as
/// an array of `MapEntry` records.
const AVRO_HEX: [&str; 3] = [
    "fe01feff03feffffff0ffeffffffffffffffff01000050402f30b7b3a7c9ba01012668c3a96c6c6f202277c3b6726c64",
    "220a09c3a9060001ff02067365740254043039f4c40280c3c60380a3ade0c96806026106622c63000004027802027903",
    "00040202066f6e65040000020e020c6e65737465640a000673657402780401e2",
];

fn all_types() -> Arc<Schema> {
    a(envelope::read_schema(CONNECT_SCHEMA.as_bytes()).expect("schema").expect("not null"))
}

#[test]
fn writes_the_schema_text_apicurio_registered() {
    assert_eq!(writer(&all_types()).registry_schema().text, APICURIO_TEXT);
}

#[test]
fn reads_apicurio_text_back_as_the_connect_schema() {
    assert_eq!(reader(APICURIO_TEXT).connect_schema(), &all_types());
}

#[test]
fn encodes_a_record_as_the_avro_specification_does_and_reads_it_back() {
    let schema = all_types();
    let value = envelope::payload_from_json(&schema, PAYLOAD.as_bytes()).expect("payload");
    assert_eq!(encode(&writer(&schema), &value), AVRO_HEX.concat());

    let read = reader(APICURIO_TEXT).decode(&[], &unhex(&AVRO_HEX.concat())).expect("decode");
    let json = envelope::to_json(read.schema.as_ref().expect("schema"), &read.value).expect("json");
    let json: serde_json::Value = serde_json::from_slice(&json).expect("envelope");
    let expected: serde_json::Value = serde_json::from_str(PAYLOAD).expect("payload json");
    assert_eq!(json["payload"], expected);
}
