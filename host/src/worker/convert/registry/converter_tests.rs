use super::*;
use wasm_connect_formats::RegistrySchema;

fn avro(pairs: &[(&str, &str)]) -> RegistryConverter {
    let mut values: BTreeMap<&str, &str> = pairs.iter().copied().collect();
    values.insert("schema.registry.url", "http://127.0.0.1:1");
    RegistryConverter::new(SchemaType::Avro, "value.converter", &values).unwrap()
}

const ENVELOPE: &[u8] = br#"{"schema":{"type":"struct","name":"t.Order","optional":false,"fields":[{"field":"id","type":"int64","optional":false}]},"payload":{"id":42}}"#;

#[test]
fn refuses_schemaless_data_with_a_clear_message() {
    let c = avro(&[]);
    for (kind, data) in
        [(Kind::Json, &br#"{"id":42}"#[..]), (Kind::ConnectJson, br#"{"schema":null,"payload":1}"#)]
    {
        let e = c.from_plugin("orders", kind, Some(data)).unwrap_err();
        assert!(e.to_string().contains("AvroConverter cannot write data without a schema"), "{e}");
    }
}

#[test]
fn nulls_stay_null_without_the_registry() {
    let c = avro(&[]);
    assert_eq!(c.from_plugin("orders", Kind::ConnectJson, None), Ok(None));
    assert_eq!(c.from_plugin("orders", Kind::Json, Some(b" null ")), Ok(None));
    let envelope = br#"{"schema":{"type":"string","optional":true},"payload":null}"#;
    assert_eq!(c.from_plugin("orders", Kind::ConnectJson, Some(envelope)), Ok(None));
    assert_eq!(c.to_plugin("orders", None), Ok((Kind::Json, None)));
}

#[test]
fn asks_for_what_it_has_not_seen_instead_of_waiting() {
    let c = avro(&[]);
    // Reading: the id of framed bytes is looked up once.
    let e = c.to_plugin("orders", Some(&[0, 0, 0, 0, 7, 2])).unwrap_err();
    let ConvertError::Unresolved(u) = e else { panic!("{e:?}") };
    assert!(matches!(u.need.downcast_ref::<Need>(), Some(Need::Schema(7))), "{u:?}");
    // Bytes that are not framed are refused at once.
    let e = c.to_plugin("orders", Some(b"{\"id\":42}")).unwrap_err();
    assert!(matches!(e, ConvertError::NotFramed(_)), "{e:?}");
}

#[test]
fn a_writer_is_built_once_per_schema_text() {
    let c = avro(&[]);
    // The placeholder-free formats build a writer; with any format the second record of
    // the same schema finds the first one's entry (or the same error).
    let first = c.from_plugin("orders", Kind::ConnectJson, Some(ENVELOPE));
    let second = c.from_plugin("orders", Kind::ConnectJson, Some(ENVELOPE));
    match (first, second) {
        (Err(ConvertError::Unresolved(a)), Err(ConvertError::Unresolved(b))) => {
            let (Some(Need::Register { entry: a, .. }), Some(Need::Register { entry: b, .. })) =
                (a.need.downcast_ref::<Need>(), b.need.downcast_ref::<Need>())
            else {
                panic!("not registrations")
            };
            assert!(Arc::ptr_eq(a, b), "the writer was built twice");
        }
        (Err(a), Err(b)) => assert_eq!(a, b),
        other => panic!("converted without a registry: {other:?}"),
    }
}

#[test]
fn an_unknown_key_or_bad_url_is_refused() {
    let values: BTreeMap<&str, &str> =
        [("schema.registry.url", "http://r:1"), ("nonsense", "1")].into_iter().collect();
    let e = RegistryConverter::new(SchemaType::Protobuf, "value.converter", &values).err();
    assert_eq!(
        e.and_then(|e| e.config_key().map(str::to_owned)).as_deref(),
        Some("value.converter.nonsense")
    );
    let values: BTreeMap<&str, &str> = [("schema.registry.url", "ftp://r:1")].into_iter().collect();
    assert!(RegistryConverter::new(SchemaType::Json, "key.converter", &values).is_err());
}

/// The framed bytes of an Avro `long` 1 (zigzag 2) under schema id `id`.
fn framed_long(id: u8) -> [u8; 6] {
    [0, 0, 0, 0, id, 2]
}

#[tokio::test]
async fn a_lookup_another_task_finished_while_this_one_waited_sends_nothing() {
    // The registry at 127.0.0.1:1 refuses connections: any request would fail.
    let c = avro(&[("max.retries", "0")]);
    let unresolved = |e: ConvertError| match e {
        ConvertError::Unresolved(u) => u,
        other => panic!("{other:?}"),
    };

    // Reading: id 7's reader arrives from another task before this lookup's turn.
    let read = unresolved(c.to_plugin("orders", Some(&framed_long(7))).unwrap_err());
    let long = RegistrySchema { schema_type: SchemaType::Avro, text: r#""long""#.into() };
    c.readers.insert(7, c.format.reader(&long).unwrap());
    let lookup = c.resolve(&read).await;
    assert_eq!((lookup.result, lookup.requests), (Ok(()), 0));
    assert!(c.to_plugin("orders", Some(&framed_long(7))).is_ok());

    // Writing: the schema's id under the topic's subject arrives the same way.
    let write = unresolved(c.from_plugin("orders", Kind::ConnectJson, Some(ENVELOPE)).unwrap_err());
    let Some(Need::Register { entry, .. }) = write.need.downcast_ref::<Need>() else {
        panic!("not a registration")
    };
    entry.by_topic.write().unwrap().insert("orders".into(), (3, entry.writer.clone()));
    let lookup = c.resolve(&write).await;
    assert_eq!((lookup.result, lookup.requests), (Ok(()), 0));
    // Confluent's framing (magic byte 0, id 3 as a big-endian int32), then the record's
    // one long field, 42, as an Avro zigzag varint: 84.
    let bytes = c.from_plugin("orders", Kind::ConnectJson, Some(ENVELOPE)).unwrap();
    assert_eq!(bytes, Some(vec![0, 0, 0, 0, 3, 84]));

    // An id nobody looked up is asked of the registry, which is not there.
    let other = unresolved(c.to_plugin("orders", Some(&framed_long(8))).unwrap_err());
    let lookup = c.resolve(&other).await;
    assert!(lookup.result.is_err() && lookup.requests >= 1, "{:?}", lookup.result);
}
