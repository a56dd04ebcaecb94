//! Tests of key classification in [`WorkerConfig`]: unknown, ignored and pass-through
//! keys, and the example configs.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::tests::{DISTRIBUTED, distributed, ok, problems};
use super::*;
use crate::config::mode::TopicCount;

#[test]
fn unknown_keys_are_errors_with_suggestions() {
    let got = problems("plugin.path=p\nlistener=http://h:1\nfoo.bar=1\nname=x\n", Mode::Standalone);
    assert_eq!(
        got,
        [
            ("listener".into(), "unknown key; did you mean \"listeners\"?".into()),
            ("foo.bar".into(), "unknown key".into()),
            (
                "name".into(),
                "a connector key, not a worker key: give each connector its own file".into()
            ),
        ]
    );
}

#[test]
fn pass_through_maps_and_client_props() {
    let c = ok(
        "plugin.path=p\nproducer.acks=all\nconsumer.max.poll.records=10\nadmin.retries=2\n\
         key.converter.schemas.enable=false\nvalue.converter.schemas.enable=true\n\
         security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\nssl.key.password=secret \n\
         sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required \
         username=u password=p;\n",
        Mode::Standalone,
    );
    let map = |pairs: &[(&str, &str)]| {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect::<BTreeMap<_, _>>()
    };
    assert_eq!(c.producer_props, map(&[("acks", "all")]));
    assert_eq!(c.consumer_props, map(&[("max.poll.records", "10")]));
    assert_eq!(c.admin_props, map(&[("retries", "2")]));
    assert_eq!(c.key_converter_props, map(&[("schemas.enable", "false")]));
    assert_eq!(c.value_converter_props, map(&[("schemas.enable", "true")]));
    assert_eq!(
        c.client_props,
        map(&[
            (
                "sasl.jaas.config",
                "org.apache.kafka.common.security.plain.PlainLoginModule required username=u \
                 password=p;"
            ),
            ("sasl.mechanism", "PLAIN"),
            ("security.protocol", "SASL_PLAINTEXT"),
            ("ssl.key.password", "secret "),
        ])
    );
}

#[test]
fn accepted_but_unsupported_keys_are_listed_in_file_order() {
    let c = ok(
        "plugin.path=p\nplugin.discovery=only_scan\n\
         connector.client.config.override.policy=All\ntopic.creation.enable=false\n\
         exactly.once.source.support=enabled\nheader.converter=H\nmetrics.num.samples=3\n\
         access.control.allow.origin=*\nadmin.listeners=\nrest.extension.classes=X\n\
         inter.worker.key.ttl.ms=1\n",
        Mode::Standalone,
    );
    assert_eq!(
        c.ignored_keys,
        [
            "plugin.discovery",
            "topic.creation.enable",
            "header.converter",
            "metrics.num.samples",
            "access.control.allow.origin",
            "admin.listeners",
            "rest.extension.classes",
            "inter.worker.key.ttl.ms",
        ]
    );
    assert!(c.admin_props.is_empty());
    assert_eq!(c.connector_client_config_override_policy, OverridePolicy::All);
}

#[test]
fn the_client_override_policy_is_read_and_a_bad_one_refused() {
    let c = ok("plugin.path=p\nconnector.client.config.override.policy=None\n", Mode::Standalone);
    assert_eq!(c.connector_client_config_override_policy, OverridePolicy::None);
    let c = ok("plugin.path=p\n", Mode::Standalone);
    assert_eq!(c.connector_client_config_override_policy, OverridePolicy::All);
    let bad =
        problems("plugin.path=p\nconnector.client.config.override.policy=Some\n", Mode::Standalone);
    assert_eq!(bad.len(), 1, "{bad:?}");
    assert_eq!(bad[0].0, "connector.client.config.override.policy");
    assert!(bad[0].1.contains("None, Principal or All"), "{bad:?}");
}

#[test]
fn other_mode_keys_are_ignored_without_checking_values() {
    let c = ok("plugin.path=p\ngroup.id=g\nsession.timeout.ms=bad\n", Mode::Standalone);
    assert_eq!(c.ignored_keys, ["group.id", "session.timeout.ms"]);
    let c = ok(&format!("{DISTRIBUTED}offset.storage.file.filename=/x.db\n"), Mode::Distributed);
    assert_eq!(c.ignored_keys, ["offset.storage.file.filename"]);
}

#[test]
fn standalone_database_file_and_broker() {
    let c = ok(
        "plugin.path=p\noffset.storage.file.filename=/d/s.db\nbootstrap.servers=b:1",
        Mode::Standalone,
    );
    assert_eq!(c.mode, ModeConfig::Standalone(mode::StandaloneConfig::at("/d/s.db")));
    assert_eq!(c.mode.kind(), Mode::Standalone);
    assert!(!c.uses_embedded_topics());
}

#[test]
fn duplicate_keys_last_wins() {
    let pairs = vec![
        ("plugin.path".to_owned(), "a".to_owned()),
        ("plugin.path".to_owned(), "b".to_owned()),
    ];
    let c = WorkerConfig::from_properties(&pairs, Mode::Standalone).unwrap();
    assert_eq!(c.plugin_path, [PathBuf::from("b")]);
}

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/configs").join(name)
}

#[test]
fn example_standalone_config_parses() {
    let c = WorkerConfig::load(&example("standalone.properties"), Mode::Standalone)
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(c.uses_embedded_topics());
    assert_eq!(c.plugin_path, [PathBuf::from("build/plugins"), PathBuf::from("build/examples")]);
    assert_eq!(c.listeners[0].to_string(), "http://localhost:8083");
    assert_eq!(
        c.mode,
        ModeConfig::Standalone(mode::StandaloneConfig::at("/tmp/wasm-connect/standalone.db"))
    );
    assert!(c.ignored_keys.is_empty(), "{:?}", c.ignored_keys);
}

#[test]
fn example_distributed_config_parses() {
    let c = WorkerConfig::load(&example("distributed.properties"), Mode::Distributed)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(c.bootstrap_servers, ["127.0.0.1:9092"]);
    let d = distributed(&c);
    assert_eq!(d.group_id, "wasm-connect");
    assert_eq!(
        [&d.config_storage_topic, &d.offset_storage_topic, &d.status_storage_topic],
        ["connect-configs", "connect-offsets", "connect-status"]
    );
    assert_eq!(d.status_storage_replication_factor, TopicCount::Exactly(1));
    assert_eq!(c.task_reconfiguration, crate::model::RetryPolicy::default());
    assert!(c.ignored_keys.is_empty(), "{:?}", c.ignored_keys);
}

#[test]
fn client_security_problems_one_line_per_key() {
    let got = problems(
        "plugin.path=p\nsecurity.protocol=SASL_SSL\nsasl.mechanism=GSSAPI\n\
         ssl.truststore.location=/nonexistent/ca.p12\nproducer.sasl.mechanism=OAUTHBEARER\n",
        Mode::Standalone,
    );
    let keys: Vec<&str> = got.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(
        keys,
        [
            "sasl.mechanism",
            "sasl.jaas.config",
            "ssl.truststore.location",
            "producer.sasl.mechanism"
        ]
    );
    assert!(got[0].1.contains("GSSAPI is not supported"), "{got:?}");
    assert!(got[1].1.starts_with("missing: required with security.protocol=SASL_SSL"), "{got:?}");
    assert!(got[2].1.contains("cannot read /nonexistent/ca.p12"), "{got:?}");

    let got = problems(
        "plugin.path=p\nsecurity.protocol=SSL\nssl.truststore.type=JKS\n",
        Mode::Standalone,
    );
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].0, "ssl.truststore.type");
    assert!(got[0].1.contains("convert it to PKCS12 or PEM"));
    let got = problems("plugin.path=p\nsecurity.protocol=TLS\n", Mode::Standalone);
    assert_eq!(got[0].0, "security.protocol");
}

#[test]
fn debug_hides_client_secrets() {
    let c = ok(
        "plugin.path=p\nsecurity.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\n\
         sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required \
         username=u password=hunter2;\nssl.truststore.password=trustpw\n\
         producer.ssl.key.password=keypw\n",
        Mode::Standalone,
    );
    let shown = format!("{c:?}");
    for secret in ["hunter2", "trustpw", "keypw"] {
        assert!(!shown.contains(secret), "{shown}");
    }
    assert!(shown.contains("SASL_PLAINTEXT") && shown.contains("[hidden]"), "{shown}");
}

#[test]
fn standalone_retention_defaults_are_kafkas_and_can_be_set() {
    let ModeConfig::Standalone(s) = ok("plugin.path=p", Mode::Standalone).mode else {
        panic!("standalone")
    };
    assert_eq!((s.retention.ms, s.retention.bytes), (604_800_000, -1));
    assert_eq!(s.retention.policy.to_string(), "delete");
    assert_eq!(s.retention_check_interval, std::time::Duration::from_secs(300));
    let c = ok(
        "plugin.path=p\nlog.retention.ms=120000\nlog.retention.bytes=1048576\n\
         log.cleanup.policy=compact,delete\nlog.retention.check.interval.ms=1000",
        Mode::Standalone,
    );
    let ModeConfig::Standalone(s) = c.mode else { panic!("standalone") };
    assert_eq!((s.retention.ms, s.retention.bytes), (120_000, 1_048_576));
    assert_eq!(s.retention.policy.to_string(), "compact,delete");
    assert_eq!(s.retention_check_interval, std::time::Duration::from_secs(1));
    let got =
        problems("plugin.path=p\nlog.retention.ms=-2\nlog.cleanup.policy=keep", Mode::Standalone);
    let keys: Vec<&str> = got.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(keys, ["log.retention.ms", "log.cleanup.policy"], "{got:?}");
    let c = ok(&format!("{DISTRIBUTED}log.retention.ms=1\n"), Mode::Distributed);
    assert_eq!(c.ignored_keys, ["log.retention.ms"]);
}

#[test]
fn plugin_signatures_are_off_by_default_and_need_a_trusted_key_when_required() {
    let c = ok("plugin.path=p", Mode::Standalone);
    assert!(!c.plugin_signature_required);
    assert!(c.plugin_trusted_keys.is_empty());
    let c = ok(
        "plugin.path=p\nplugin.signature.required=TRUE\n\
         plugin.trusted.keys= /etc/keys/a.pub , abc= ,\n",
        Mode::Standalone,
    );
    assert!(c.plugin_signature_required);
    assert_eq!(c.plugin_trusted_keys, ["/etc/keys/a.pub", "abc="]);
    let c = ok("plugin.path=p\nplugin.signature.required=false\n", Mode::Standalone);
    assert!(!c.plugin_signature_required);

    let got = problems("plugin.path=p\nplugin.signature.required=true\n", Mode::Standalone);
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(got[0].0, "plugin.trusted.keys");
    assert!(got[0].1.starts_with("missing: required when plugin.signature.required"), "{got:?}");
    let got = problems(
        "plugin.path=p\nplugin.signature.required=true\nplugin.trusted.keys= , \n",
        Mode::Standalone,
    );
    assert_eq!(got.iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>(), ["plugin.trusted.keys"]);
    let got = problems("plugin.path=p\nplugin.signature.required=yes\n", Mode::Standalone);
    assert_eq!(
        got,
        [("plugin.signature.required".into(), "expected true or false, got \"yes\"".into())]
    );
}
