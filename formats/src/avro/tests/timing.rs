//! A timing of the per-record path against `apache-avro`'s own datum writer and reader,
//! for the choice of a direct encoder. Ignored by default; run with
//! `cargo test --release -p wasm-connect-formats avro::tests::timing -- --ignored --nocapture`.

use std::time::Instant;

use apache_avro::types::Value as AvroValue;
use wasm_connect_transforms::data::{Schema, Type, Value};

use super::*;

#[test]
#[ignore = "a timing, not a check"]
#[allow(deprecated)]
fn direct_plans_against_apache_avro() {
    let schema = a(Schema::structure()
        .named("b.Event")
        .with_field("id", prim(Type::Int64))
        .with_field("name", prim(Type::String))
        .with_field("score", prim(Type::Float64))
        .with_field("ok", prim(Type::Boolean))
        .with_field("note", opt(Type::String))
        .with_field("tags", a(Schema::array(prim(Type::String)))));
    let value = structure(
        &schema,
        vec![
            Value::Int64(123_456),
            s("some event name"),
            Value::Float64(0.25),
            Value::Boolean(true),
            s("a note"),
            Value::Array(vec![s("x"), s("y")]),
        ],
    );
    let w = writer(&schema);
    let text = w.registry_schema().text.clone();
    let r = reader(&text);
    let parsed = apache_avro::Schema::parse_str(&text).unwrap();
    const N: u32 = 200_000;

    let start = Instant::now();
    for _ in 0..N {
        std::hint::black_box(w.encode(std::hint::black_box(&value)).unwrap());
    }
    let ours_enc = start.elapsed();
    let start = Instant::now();
    for _ in 0..N {
        // The apache-avro path also needs the Connect value turned into its value type.
        let Value::Struct(st) = &value else { unreachable!() };
        let conv = |v: &Value| match v {
            Value::Int64(i) => AvroValue::Long(*i),
            Value::String(s) => AvroValue::String(s.clone()),
            Value::Float64(f) => AvroValue::Double(*f),
            Value::Boolean(b) => AvroValue::Boolean(*b),
            _ => AvroValue::Null,
        };
        let fields = schema
            .fields
            .iter()
            .zip(&st.values)
            .map(|(f, v)| {
                let av = match v {
                    Value::Array(items) => AvroValue::Array(items.iter().map(conv).collect()),
                    v if f.name == "note" => AvroValue::Union(1, Box::new(conv(v))),
                    v => conv(v),
                };
                (f.name.clone(), av)
            })
            .collect();
        std::hint::black_box(
            apache_avro::to_avro_datum(&parsed, AvroValue::Record(fields)).unwrap(),
        );
    }
    let theirs_enc = start.elapsed();

    let payload = w.encode(&value).unwrap().payload;
    let start = Instant::now();
    for _ in 0..N {
        std::hint::black_box(r.decode(&[], std::hint::black_box(&payload)).unwrap());
    }
    let ours_dec = start.elapsed();
    let start = Instant::now();
    for _ in 0..N {
        let mut slice = payload.as_slice();
        std::hint::black_box(apache_avro::from_avro_datum(&parsed, &mut slice, None).unwrap());
    }
    let theirs_dec = start.elapsed();
    let per = |d: std::time::Duration| d.as_nanos() / u128::from(N);
    println!(
        "encode: direct {} ns/record, apache-avro {} ns/record; decode: direct {} ns/record, apache-avro (to its own values only) {} ns/record",
        per(ours_enc),
        per(theirs_enc),
        per(ours_dec),
        per(theirs_dec)
    );
}
