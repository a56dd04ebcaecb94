//! Converter selection, config problems, and behaviour common to every converter.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::*;
use crate::model::Properties;

/// A connector's converter for `side` as the typed config picks it: its own, else the
/// worker's.
fn for_connector(
    side: Side,
    connector: &[(String, String)],
    worker_class: &str,
    worker_props: &BTreeMap<String, String>,
) -> Result<Arc<dyn Converter>, ConvertError> {
    let props: Properties = connector.iter().cloned().collect();
    connector_own(side, &props).unwrap_or_else(|| worker_default(side, worker_class, worker_props))
}

/// A schema registry URL for the registry converters; nothing is asked of it.
const URL: &str = "http://127.0.0.1:1";

/// Every problem with a connector's own converter keys, as validation reports them.
fn problems(connector: &Properties) -> Vec<crate::model::ConfigProblem> {
    [Side::Key, Side::Value]
        .into_iter()
        .filter_map(|side| connector_own(side, connector)?.err())
        .map(|e| crate::model::ConfigProblem {
            key: e.config_key().unwrap_or_default().to_owned(),
            message: e.to_string(),
        })
        .collect()
}

const JSON: &str = "org.apache.kafka.connect.json.JsonConverter";

fn pairs(config: &[(&str, &str)]) -> Vec<(String, String)> {
    config.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

/// What the converter `side` of a connector writes for the string `x`.
fn writes(
    side: Side,
    connector: &[(&str, &str)],
    worker_class: &str,
    worker: &[(&str, &str)],
) -> Result<String, ConvertError> {
    let worker: BTreeMap<String, String> =
        worker.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    let converter = for_connector(side, &pairs(connector), worker_class, &worker)?;
    let bytes = converter.from_plugin("t", Kind::String, Some(b"x"))?.unwrap();
    Ok(String::from_utf8(bytes).unwrap())
}

const ENVELOPE: &str = r#"{"schema":{"type":"string","optional":false},"payload":"x"}"#;

#[test]
fn the_worker_converter_applies_when_the_connector_sets_none() {
    let off = [("schemas.enable", "false")];
    assert_eq!(writes(Side::Value, &[], JSON, &off).unwrap(), r#""x""#);
    assert_eq!(writes(Side::Key, &[], JSON, &[]).unwrap(), ENVELOPE);
    assert_eq!(writes(Side::Value, &[], "StringConverter", &[]).unwrap(), "x");
    // Settings without a class at the connector level are not used.
    let stray = [("value.converter.schemas.enable", "false")];
    assert_eq!(writes(Side::Value, &stray, JSON, &[]).unwrap(), ENVELOPE);
}

#[test]
fn a_connector_converter_wins_with_its_own_settings() {
    let off = [("schemas.enable", "false")];
    // The connector's class without settings: the worker's settings do not carry over.
    let own = [("value.converter", JSON)];
    assert_eq!(writes(Side::Value, &own, JSON, &off).unwrap(), ENVELOPE);
    let own = [("value.converter", "JsonConverter"), ("value.converter.schemas.enable", "false")];
    assert_eq!(writes(Side::Value, &own, JSON, &[]).unwrap(), r#""x""#);
    // Each side reads its own keys.
    let key_only = [("key.converter", "StringConverter"), ("key.converter.schemas.enable", "x")];
    assert_eq!(writes(Side::Key, &key_only, JSON, &off).unwrap(), "x");
    assert_eq!(writes(Side::Value, &key_only, JSON, &off).unwrap(), r#""x""#);
    let prefix_lookalike = [("value.converterx", "StringConverter")];
    assert_eq!(writes(Side::Value, &prefix_lookalike, JSON, &off).unwrap(), r#""x""#);
}

#[test]
fn unknown_classes_and_bad_settings_name_their_key() {
    let unknown = [("value.converter", "XmlConverter")];
    let err = writes(Side::Value, &unknown, JSON, &[]).unwrap_err();
    assert_eq!(err.config_key(), Some("value.converter"));
    assert_eq!(
        err.to_string(),
        "Invalid value XmlConverter for configuration value.converter: Class XmlConverter could \
         not be found. Available converters are: \
         io.confluent.connect.avro.AvroConverter, \
         io.confluent.connect.json.JsonSchemaConverter, \
         io.confluent.connect.protobuf.ProtobufConverter, \
         org.apache.kafka.connect.converters.ByteArrayConverter, \
         org.apache.kafka.connect.json.JsonConverter, \
         org.apache.kafka.connect.storage.StringConverter"
    );
    let err = writes(Side::Key, &[], "com.example.Nope", &[]).unwrap_err();
    assert_eq!(err.config_key(), Some("key.converter"));
    let err = writes(Side::Key, &[], JSON, &[("schemas.enable", "1")]).unwrap_err();
    assert_eq!(err.config_key(), Some("key.converter.schemas.enable"));
}

#[test]
fn problems_report_the_connectors_own_converter_keys() {
    let config = |pairs: &[(&str, &str)]| -> Properties {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    };
    assert!(problems(&config(&[("connector.class", "FileStreamSink")])).is_empty());
    let fine = config(&[
        ("key.converter", "org.apache.kafka.connect.storage.StringConverter"),
        ("value.converter", "JsonConverter"),
        ("value.converter.schemas.enable", "FALSE"),
    ]);
    assert!(problems(&fine).is_empty());
    let bad = config(&[
        ("key.converter", "Nope"),
        ("value.converter", "JsonConverter"),
        ("value.converter.schemas.enable", "maybe"),
    ]);
    let found = problems(&bad);
    let keys: Vec<&str> = found.iter().map(|p| p.key.as_str()).collect();
    assert_eq!(keys, ["key.converter", "value.converter.schemas.enable"]);
    assert!(found[0].message.contains("Class Nope could not be found"), "{}", found[0].message);
    assert_eq!(
        found[1].message,
        "Invalid value maybe for configuration value.converter.schemas.enable: Expected value to \
         be either true or false"
    );
    // Settings with no class at the connector level are unused, so not checked.
    assert!(problems(&config(&[("value.converter.schemas.enable", "maybe")])).is_empty());
}

#[test]
fn classes_are_kafkas_full_names() {
    assert_eq!(CLASSES.len(), 6);
    for class in CLASSES {
        let config = [("value.converter", *class), ("value.converter.schema.registry.url", URL)];
        let registry = class.starts_with("io.confluent.");
        let config = if registry { &config[..] } else { &config[..1] };
        let built = for_connector(Side::Value, &pairs(config), JSON, &BTreeMap::new());
        assert!(built.is_ok(), "{class}: {:?}", built.err());
    }
}

#[test]
fn string_data_round_trips_through_every_text_converter() {
    let worker = BTreeMap::new();
    for class in ["StringConverter", "JsonConverter"] {
        let c = for_connector(Side::Value, &[], class, &worker).unwrap();
        for text in ["", "plain", "ünïcödé \"quoted\"\n"] {
            let topic = c.from_plugin("t", Kind::String, Some(text.as_bytes())).unwrap();
            let back = c.to_plugin("t", topic.as_deref()).unwrap();
            assert_eq!(back, (Kind::String, Some(text.as_bytes().to_vec())), "{class}: {text}");
        }
    }
    let c = for_connector(Side::Value, &[], "ByteArrayConverter", &worker).unwrap();
    let topic = c.from_plugin("t", Kind::Bytes, Some(&[0, 1, 255])).unwrap();
    assert_eq!(c.to_plugin("t", topic.as_deref()).unwrap(), (Kind::Bytes, Some(vec![0, 1, 255])));
}

#[test]
fn nulls_stay_null_everywhere() {
    let worker = BTreeMap::from([("schema.registry.url".to_owned(), URL.to_owned())]);
    for class in CLASSES {
        let c = for_connector(Side::Key, &[], class, &worker).unwrap();
        for kind in Kind::ALL {
            assert_eq!(c.from_plugin("t", kind, None).unwrap(), None, "{class} {kind}");
        }
        assert_eq!(c.to_plugin("t", None).unwrap().1, None, "{class}");
    }
}

/// Every converter class with default settings.
fn every_converter() -> Vec<Arc<dyn Converter>> {
    ["StringConverter", "ByteArrayConverter", JSON, "org.apache.kafka.connect.json.JsonConverter"]
        .iter()
        .zip([&[][..], &[][..], &[("schemas.enable", "false")][..], &[][..]])
        .map(|(class, config)| {
            let props: BTreeMap<String, String> =
                config.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
            worker_default(Side::Value, class, &props).unwrap()
        })
        .collect()
}

#[test]
fn the_sharing_and_borrowing_forms_agree_with_the_copying_ones() {
    let inputs: [(Kind, &[u8]); 5] = [
        (Kind::String, b"text"),
        (Kind::Bytes, b"\xff\x00raw"),
        (Kind::Json, br#"{"a":1}"#),
        (Kind::Json, b"null"),
        (Kind::ConnectJson, br#"{"schema":{"type":"string","optional":false},"payload":"p"}"#),
    ];
    for converter in every_converter() {
        for (kind, data) in inputs {
            let copied = converter.from_plugin("t", kind, Some(data));
            let shared = bytes::Bytes::copy_from_slice(data);
            let out = converter.from_plugin_shared("t", kind, Some(&shared));
            assert_eq!(out.is_ok(), copied.is_ok(), "{kind:?}");
            if let (Ok(out), Ok(copied)) = (&out, &copied) {
                assert_eq!(out.as_deref(), copied.as_deref(), "{kind:?}");
            }
        }
        for data in [&b"plain text"[..], b"\xff\xfe", br#"{"a":[1,2]}"#, b"\"q\""] {
            let copied = converter.to_plugin("t", Some(data));
            let borrowed = converter.to_plugin_borrowed("t", Some(data));
            match (copied, borrowed) {
                (Ok((k1, d1)), Ok((k2, d2))) => {
                    assert_eq!((k1, d1.as_deref()), (k2, d2.as_deref()));
                }
                (Err(_), Err(_)) => {}
                (a, b) => panic!("{a:?} vs {b:?}"),
            }
        }
        assert_eq!(converter.to_plugin_borrowed("t", None).unwrap().1, None);
    }
}
