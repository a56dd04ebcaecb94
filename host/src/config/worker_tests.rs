//! Tests of [`WorkerConfig`]: defaults, required keys per mode, typed values and their
//! errors.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::*;
use crate::config::mode::{DistributedConfig, TopicCount};

fn props(text: &str) -> Vec<(String, String)> {
    properties::parse(text, Path::new("t.properties")).unwrap()
}

/// The smallest valid distributed config.
pub(super) const DISTRIBUTED: &str = "bootstrap.servers=b:9092\ngroup.id=g\n\
    config.storage.topic=c\noffset.storage.topic=o\nstatus.storage.topic=s\nplugin.path=p\n";

pub(super) fn ok(text: &str, mode: Mode) -> WorkerConfig {
    WorkerConfig::from_properties(&props(text), mode).unwrap_or_else(|e| panic!("{e}"))
}

/// The `(key, message)` pairs of a failed build.
pub(super) fn problems(text: &str, mode: Mode) -> Vec<(String, String)> {
    match WorkerConfig::from_properties(&props(text), mode) {
        Ok(c) => panic!("expected problems, got {c:?}"),
        Err(e) => e.problems().iter().map(|p| (p.key.clone(), p.message.clone())).collect(),
    }
}

pub(super) fn distributed(config: &WorkerConfig) -> &DistributedConfig {
    match &config.mode {
        ModeConfig::Distributed(d) => d,
        other => panic!("{other:?}"),
    }
}

#[test]
fn standalone_minimal_takes_every_default() {
    let c = ok("plugin.path=plugins", Mode::Standalone);
    assert_eq!(
        c.mode,
        ModeConfig::Standalone(mode::StandaloneConfig::at(PathBuf::from("wasm-connect.db")))
    );
    assert!(c.uses_embedded_topics());
    assert_eq!(c.plugin_path, [PathBuf::from("plugins")]);
    assert_eq!(c.listeners, [DEFAULT_LISTENERS.parse::<Listener>().unwrap()]);
    assert_eq!(c.key_converter, DEFAULT_CONVERTER);
    assert_eq!(c.value_converter, DEFAULT_CONVERTER);
    assert_eq!(c.task_shutdown_graceful_timeout, Duration::from_secs(5));
    assert_eq!(c.offset_flush_interval, Duration::from_secs(60));
    assert_eq!(c.rest_request_timeout, Duration::from_secs(90));
    assert_eq!(c.offset_flush_timeout, Duration::from_secs(5));
    assert_eq!(c.wasm_pool_instances, 10_500);
    assert_eq!(c.wasm_store_delivery_timeout, Duration::from_secs(30));
    assert_eq!((c.wasm_cache_dir, c.client_id, c.rest_advertised_port), (None, None, None));
    assert_eq!(c.rest_basic_auth_credentials_file, None);
    assert!(c.listeners_https_props.is_empty());
    assert!(c.ignored_keys.is_empty());
}

#[test]
fn distributed_minimal_takes_every_default() {
    let c = ok(DISTRIBUTED, Mode::Distributed);
    assert_eq!(c.bootstrap_servers, ["b:9092"]);
    let d = distributed(&c);
    assert_eq!((d.group_id.as_str(), d.config_storage_topic.as_str()), ("g", "c"));
    assert_eq!((d.offset_storage_topic.as_str(), d.status_storage_topic.as_str()), ("o", "s"));
    assert_eq!(d.config_storage_replication_factor, TopicCount::Exactly(3));
    assert_eq!(d.offset_storage_partitions, TopicCount::Exactly(25));
    assert_eq!(d.status_storage_partitions, TopicCount::Exactly(5));
    assert_eq!(d.worker_sync_timeout, Duration::from_secs(3));
    assert_eq!(d.scheduled_rebalance_max_delay, Duration::from_secs(300));
    assert_eq!(d.session_timeout, Duration::from_secs(10));
    assert_eq!(d.heartbeat_interval, Duration::from_secs(3));
    assert_eq!(d.rebalance_timeout, Duration::from_secs(60));
}

#[test]
fn required_keys_per_mode() {
    let keys = |text, mode| problems(text, mode).into_iter().map(|(k, _)| k).collect::<Vec<_>>();
    assert_eq!(keys("", Mode::Standalone), ["plugin.path"]);
    assert_eq!(
        keys("", Mode::Distributed),
        [
            "bootstrap.servers",
            "plugin.path",
            "group.id",
            "config.storage.topic",
            "offset.storage.topic",
            "status.storage.topic",
        ]
    );
    let all = problems("plugin.path= , ", Mode::Standalone);
    assert_eq!(
        all,
        [(
            "plugin.path".into(),
            "expected a comma-separated list of directories, got \",\"".into()
        )]
    );
    let missing = problems("", Mode::Distributed);
    assert_eq!(missing[0].1, "missing: required in distributed mode");
    assert_eq!(missing[1].1, "missing: required (a comma-separated list of directories)");
    assert_eq!(missing[2].1, "missing: required in distributed mode");
}

#[test]
fn every_typed_field_is_read() {
    let text = format!(
        "{DISTRIBUTED}bootstrap.servers=a:1, SSL://b:2\nplugin.path=/x,\\\n  /y\n\
         listeners=http://:8083,http://[::1]:8443\nrest.advertised.host.name=w1\n\
         rest.advertised.port=18083\nrest.advertised.listener=HTTP\nclient.id=me\n\
         key.converter=K\nvalue.converter=V\ntask.shutdown.graceful.timeout.ms=1\n\
         offset.flush.interval.ms=2\noffset.flush.timeout.ms=3\nwasm.cache.dir=/cache\n\
         wasm.pool.instances=0\nwasm.store.delivery.timeout.ms=4\n\
         config.storage.replication.factor=-1\noffset.storage.replication.factor=1\n\
         status.storage.replication.factor=2\noffset.storage.partitions=-1\n\
         status.storage.partitions=7\nworker.sync.timeout.ms=5\n\
         scheduled.rebalance.max.delay.ms=0\nsession.timeout.ms=60\nheartbeat.interval.ms=6\n\
         rebalance.timeout.ms=8\n\
         rest.basic.auth.credentials.file=/etc/credentials.properties\n"
    );
    let c = ok(&text, Mode::Distributed);
    assert_eq!(c.bootstrap_servers, ["a:1", "SSL://b:2"]);
    assert_eq!(c.plugin_path, [PathBuf::from("/x"), PathBuf::from("/y")]);
    assert_eq!(
        c.listeners.iter().map(ToString::to_string).collect::<Vec<_>>(),
        ["http://:8083", "http://[::1]:8443"]
    );
    assert!(c.listeners_https_props.is_empty());
    assert_eq!(
        c.rest_basic_auth_credentials_file,
        Some(PathBuf::from("/etc/credentials.properties"))
    );
    assert_eq!(c.rest_advertised_host_name.as_deref(), Some("w1"));
    assert_eq!(
        (c.rest_advertised_port, c.rest_advertised_listener),
        (Some(18083), Some(Scheme::Http))
    );
    assert_eq!(
        (c.client_id.as_deref(), c.key_converter.as_str(), c.value_converter.as_str()),
        (Some("me"), "K", "V")
    );
    let ms = Duration::from_millis;
    assert_eq!(
        [c.task_shutdown_graceful_timeout, c.offset_flush_interval, c.offset_flush_timeout],
        [ms(1), ms(2), ms(3)]
    );
    assert_eq!(
        (c.wasm_cache_dir.clone(), c.wasm_pool_instances),
        (Some(PathBuf::from("/cache")), 0)
    );
    assert_eq!(c.wasm_store_delivery_timeout, ms(4));
    let d = distributed(&c);
    assert_eq!(d.config_storage_replication_factor, TopicCount::BrokerDefault);
    assert_eq!(d.offset_storage_replication_factor, TopicCount::Exactly(1));
    assert_eq!(d.status_storage_replication_factor, TopicCount::Exactly(2));
    assert_eq!(
        (d.offset_storage_partitions, d.status_storage_partitions),
        (TopicCount::BrokerDefault, TopicCount::Exactly(7))
    );
    assert_eq!(
        [d.worker_sync_timeout, d.scheduled_rebalance_max_delay, d.session_timeout],
        [ms(5), ms(0), ms(60)]
    );
    assert_eq!([d.heartbeat_interval, d.rebalance_timeout], [ms(6), ms(8)]);
    assert_eq!(TopicCount::BrokerDefault.to_kafka(), -1);
    assert!(c.ignored_keys.is_empty());
}

#[test]
fn invalid_values_name_key_and_expected_form_and_all_are_collected() {
    let text = format!(
        "{DISTRIBUTED}task.shutdown.graceful.timeout.ms=abc\noffset.flush.interval.ms=-1\n\
         offset.flush.timeout.ms=+5\nworker.sync.timeout.ms=1.5\nwasm.pool.instances=lots\n\
         wasm.store.delivery.timeout.ms=\n\
         config.storage.replication.factor=0\noffset.storage.replication.factor=40000\n\
         status.storage.replication.factor=-2\noffset.storage.partitions=0\n\
         status.storage.partitions=x\nrest.advertised.port=0\nrest.advertised.listener=ftp\n\
         listeners=http://localhost\nbootstrap.servers=broker\n\
         session.timeout.ms=1000\nheartbeat.interval.ms=1000\n"
    );
    let got = problems(&text, Mode::Distributed);
    let expect = [
        (
            "bootstrap.servers",
            "expected a comma-separated list of host:port addresses, got \"broker\" (missing port)",
        ),
        (
            "listeners",
            "expected a comma-separated list of http://host:port or https://host:port URLs, \
             got \"http://localhost\" (missing port)",
        ),
        (
            "config.storage.replication.factor",
            "expected -1 (broker default) or an integer from 1 to 32767, got \"0\"",
        ),
        (
            "offset.storage.replication.factor",
            "expected -1 (broker default) or an integer from 1 to 32767, got \"40000\"",
        ),
        (
            "status.storage.replication.factor",
            "expected -1 (broker default) or an integer from 1 to 32767, got \"-2\"",
        ),
        (
            "offset.storage.partitions",
            "expected -1 (broker default) or an integer of at least 1, got \"0\"",
        ),
        (
            "status.storage.partitions",
            "expected -1 (broker default) or an integer of at least 1, got \"x\"",
        ),
        ("worker.sync.timeout.ms", "expected a non-negative integer (milliseconds), got \"1.5\""),
        ("heartbeat.interval.ms", "must be below session.timeout.ms (1000 ms), got 1000 ms"),
        ("rest.advertised.port", "expected a port number (1-65535), got \"0\""),
        ("rest.advertised.listener", "expected http or https, got \"ftp\""),
        (
            "task.shutdown.graceful.timeout.ms",
            "expected a non-negative integer (milliseconds), got \"abc\"",
        ),
        ("offset.flush.interval.ms", "expected a non-negative integer (milliseconds), got \"-1\""),
        ("offset.flush.timeout.ms", "expected a non-negative integer (milliseconds), got \"+5\""),
        ("wasm.pool.instances", "expected a non-negative integer (instances), got \"lots\""),
        (
            "wasm.store.delivery.timeout.ms",
            "expected a non-negative integer (milliseconds), got \"\"",
        ),
    ];
    let expect: Vec<(String, String)> =
        expect.iter().map(|(k, m)| (k.to_string(), m.to_string())).collect();
    assert_eq!(got, expect);
}

#[test]
fn error_display_names_the_file_and_each_key() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("worker.properties");
    std::fs::write(&file, "plugin.path=p\ntask.shutdown.graceful.timeout.ms=abc\ngrup.id=x\n")
        .unwrap();
    let err = WorkerConfig::load(&file, Mode::Standalone).unwrap_err().to_string();
    assert_eq!(
        err,
        format!(
            "{}: invalid worker config:\n  \
         task.shutdown.graceful.timeout.ms: \
         expected a non-negative integer (milliseconds), got \"abc\"\n  \
         grup.id: unknown key; did you mean \"group.id\"?",
            file.display()
        )
    );
    let err = WorkerConfig::load(&dir.path().join("missing"), Mode::Standalone).unwrap_err();
    assert!(matches!(err, WorkerConfigError::Read(_)), "{err}");
}

#[test]
fn exactly_once_source_support_takes_kafka_connects_values_in_both_modes() {
    use crate::model::ExactlyOnceSourceSupport as Eos;
    assert_eq!(ok("plugin.path=p", Mode::Standalone).exactly_once_source_support, Eos::Disabled);
    let set = |v: &str| format!("{DISTRIBUTED}exactly.once.source.support={v}\n");
    assert_eq!(ok(&set("ENABLED"), Mode::Distributed).exactly_once_source_support, Eos::Enabled);
    assert_eq!(
        ok(&set("preparing"), Mode::Distributed).exactly_once_source_support,
        Eos::Preparing
    );
    let standalone = "plugin.path=p\nexactly.once.source.support=enabled\n";
    assert_eq!(ok(standalone, Mode::Standalone).exactly_once_source_support, Eos::Enabled);
    let bad = problems(&set("always"), Mode::Distributed);
    assert_eq!(bad.len(), 1, "{bad:?}");
    assert_eq!(bad[0].0, "exactly.once.source.support");
    assert!(bad[0].1.contains("disabled, enabled, preparing"), "{bad:?}");
}
