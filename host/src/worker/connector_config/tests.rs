//! Parsing without an installed plugin (the registry is empty in unit tests): every
//! rejection and its message, the framework keys, and each task setting read for a
//! source and for a sink. The resolved plugin and the sandbox are covered by the e2e
//! tests, which load real plugins.

use std::time::Duration;

use super::*;
use crate::model::{PluginKind, Properties, RetryPolicy};

use crate::worker::PluginRegistry;
use crate::worker::errors::Tolerance;
use crate::worker::topics::Subscription;

fn props(pairs: &[(&str, &str)]) -> Properties {
    pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

fn rejected(pairs: &[(&str, &str)]) -> std::sync::Arc<Rejected> {
    parse("c", &props(pairs), &PluginRegistry::default(), &RetryPolicy::default()).unwrap_err()
}

fn framework(pairs: &[(&str, &str)]) -> Framework {
    Framework::read("c", &props(pairs), &RetryPolicy::default())
}

fn settings(kind: PluginKind, pairs: &[(&str, &str)]) -> TaskSettings {
    TaskSettings::read("c", &props(pairs), kind, &PluginRegistry::default())
}

fn keys(problems: &[crate::model::ConfigProblem]) -> Vec<&str> {
    problems.iter().map(|p| p.key.as_str()).collect()
}

#[test]
fn a_config_without_a_class_is_rejected_with_the_registry_message() {
    let r = rejected(&[("tasks.max", "2")]);
    assert_eq!(r.reason, RejectedReason::NoClass);
    assert_eq!(
        r.trace,
        "Failed to find any class that implements Connector and which name matches , \
         available connectors are: "
    );
    assert_eq!(r.to_string(), r.trace);
    assert_eq!(r.framework.class, None);
}

#[test]
fn an_unknown_class_is_rejected_but_keeps_its_framework_keys() {
    let r = rejected(&[
        ("connector.class", "com.example.Nope"),
        ("tasks.max", "3"),
        ("restart.policy", "on-failure"),
    ]);
    assert_eq!(r.reason, RejectedReason::UnknownClass);
    assert_eq!(
        r.trace,
        "Failed to find any class that implements Connector and which name matches \
         com.example.Nope, available connectors are: "
    );
    assert_eq!(r.framework.class.as_deref(), Some("com.example.Nope"));
    assert_eq!(r.framework.tasks_max, 3);
    assert!(r.framework.policies.as_ref().unwrap().restart.is_some());
    assert_eq!(r.framework.raw.get("tasks.max").map(String::as_str), Some("3"));
}

#[test]
fn tasks_max_reads_as_the_herder_asks_and_validates_in_kafka_connect_words() {
    let f = framework(&[]);
    assert_eq!((f.tasks_max, f.tasks_max_problem), (1, None));
    let f = framework(&[("tasks.max", " 4 ")]);
    assert_eq!((f.tasks_max, f.tasks_max_problem), (4, None));
    let f = framework(&[("tasks.max", "0")]);
    assert_eq!(f.tasks_max, 0);
    let p = f.tasks_max_problem.unwrap();
    assert_eq!(p.key, "tasks.max");
    assert_eq!(p.message, "Invalid value 0 for configuration tasks.max: Value must be at least 1");
    let f = framework(&[("tasks.max", "-2")]);
    assert_eq!(f.tasks_max, 1);
    assert_eq!(
        f.tasks_max_problem.unwrap().message,
        "Invalid value -2 for configuration tasks.max: Value must be at least 1"
    );
    let f = framework(&[("tasks.max", "many")]);
    assert_eq!(f.tasks_max, 1);
    assert_eq!(
        f.tasks_max_problem.unwrap().message,
        "Invalid value many for configuration tasks.max: Not a number of type INT"
    );
}

#[test]
fn policies_come_over_the_worker_defaults_and_keep_their_problems() {
    let worker = RetryPolicy { max_retries: Some(7), ..RetryPolicy::default() };
    let f = Framework::read("c", &props(&[("restart.healthy.after.ms", "10")]), &worker);
    let p = f.policies.unwrap();
    assert_eq!(p.reconfiguration, worker);
    assert_eq!(p.restart, None);
    let f = framework(&[("restart.policy", "on-failure"), ("restart.healthy.after.ms", "10")]);
    assert_eq!(f.policies.unwrap().restart.unwrap().healthy_after, Duration::from_millis(10));
    let problems = framework(&[("restart.policy", "always")]).policies.unwrap_err();
    assert_eq!(keys(&problems), ["restart.policy"]);
    assert_eq!(problems[0].message, "expected none or on-failure, got \"always\"");
}

#[test]
fn converters_are_the_connectors_own_or_none() {
    let s = settings(PluginKind::Source, &[]);
    assert!(s.key_converter.is_none() && s.value_converter.is_none());
    let s = settings(
        PluginKind::Source,
        &[("key.converter", "StringConverter"), ("value.converter", "NoSuchConverter")],
    );
    assert!(matches!(s.key_converter, Some(Ok(_))));
    let Some(Err(e)) = s.value_converter else { panic!("the value converter is not rejected") };
    assert_eq!(e.config_key(), Some("value.converter"));
    assert!(
        e.to_string().starts_with(
            "Invalid value NoSuchConverter for configuration value.converter: Class \
             NoSuchConverter could not be found."
        ),
        "{e}"
    );
}

#[test]
fn the_error_policy_is_read_for_the_plugin_kind() {
    let s = settings(PluginKind::Sink, &[("errors.tolerance", "all"), ("topics", "t")]);
    assert_eq!(s.errors.unwrap().tolerance, Tolerance::All);
    let problems =
        settings(PluginKind::Source, &[("errors.tolerance", "some")]).errors.unwrap_err();
    assert_eq!(keys(&problems), ["errors.tolerance"]);
    assert_eq!(
        problems[0].message,
        "Invalid value some for configuration errors.tolerance: String must be one of: none, all"
    );
    // The dead letter queue is a sink's only, and may not be a topic it consumes.
    let dlq = [("errors.deadletterqueue.topic.name", "t"), ("topics", "t,u")];
    assert_eq!(settings(PluginKind::Source, &dlq).errors.unwrap().dlq, None);
    let problems = settings(PluginKind::Sink, &dlq).errors.unwrap_err();
    assert_eq!(
        problems[0].message,
        "The DLQ topic 't' may not be included in the list of topics ('topics=[t, u]') consumed \
         by the connector"
    );
}

#[test]
fn the_chain_keeps_its_steps_or_its_problems() {
    let s = settings(
        PluginKind::Source,
        &[("transforms", "a"), ("transforms.a.type", "org.apache.kafka.connect.transforms.Filter")],
    );
    let chain = s.chain.unwrap();
    assert_eq!(chain.steps.iter().map(|s| s.alias.as_str()).collect::<Vec<_>>(), ["a"]);
    let problems = settings(
        PluginKind::Source,
        &[("transforms", "a,a"), ("header.converter", "Nope"), ("transforms.a.type", "")],
    )
    .chain
    .err()
    .expect("the chain is rejected");
    assert_eq!(keys(&problems), ["header.converter", "transforms", "transforms.a.type"]);
    assert_eq!(
        problems[0].message,
        "Invalid value Nope for configuration header.converter: Class Nope could not be found."
    );
    assert_eq!(
        problems[2].message,
        "Missing required configuration \"transforms.a.type\" which has no default value."
    );
}

#[test]
fn topic_creation_is_a_sources_only() {
    let bad = [("topic.creation.default.partitions", "3")];
    let problems = settings(PluginKind::Source, &bad).topic_creation.unwrap_err();
    assert_eq!(keys(&problems), ["topic.creation.default.replication.factor"]);
    assert_eq!(
        problems[0].message,
        "Missing required configuration \"topic.creation.default.replication.factor\" which \
         has no default value."
    );
    let sink = settings(PluginKind::Sink, &bad).topic_creation.unwrap();
    let t = sink.new_topic("x");
    assert_eq!((t.partitions, t.replication_factor), (-1, -1));
    let source = settings(
        PluginKind::Source,
        &[
            ("topic.creation.default.partitions", "3"),
            ("topic.creation.default.replication.factor", "1"),
        ],
    );
    assert_eq!(source.topic_creation.unwrap().new_topic("x").partitions, 3);
}

#[test]
fn a_sink_subscribes_to_topics_else_to_its_regex() {
    let s = settings(PluginKind::Sink, &[("topics", " a, b ,,"), ("topics.regex", "x.*")]);
    assert_eq!(s.subscription, Some(Subscription::Topics(vec!["a".into(), "b".into()])));
    let s = settings(PluginKind::Sink, &[("topics", " "), ("topics.regex", " x.* ")]);
    assert_eq!(s.subscription, Some(Subscription::Pattern("x.*".into())));
    assert_eq!(settings(PluginKind::Sink, &[]).subscription, None);
    assert_eq!(settings(PluginKind::Source, &[("topics", "a")]).subscription, None);
}

#[test]
fn the_group_and_client_overrides_are_read_once() {
    let s = settings(
        PluginKind::Sink,
        &[
            ("consumer.override.max.poll.records", "5"),
            ("producer.override.acks", "all"),
            ("producer.override.linger.ms", "3"),
        ],
    );
    assert_eq!(s.sink_group, "connect-c");
    assert_eq!(s.consumer_overrides, [("max.poll.records".to_string(), "5".to_string())]);
    assert_eq!(
        s.producer_overrides,
        [("acks".to_string(), "all".to_string()), ("linger.ms".to_string(), "3".to_string())]
    );
    let s = settings(PluginKind::Sink, &[("consumer.override.group.id", "mine")]);
    assert_eq!(s.sink_group, "mine");
}

#[test]
fn a_version_key_that_is_no_version_or_range_is_rejected_naming_it() {
    let r = rejected(&[("connector.class", "Datagen"), ("connector.plugin.version", "[2.0,1.0]")]);
    assert_eq!(r.reason, RejectedReason::Version);
    assert_eq!(
        r.trace,
        "Invalid version range for connector.class: Range defies version ordering: [2.0,1.0]"
    );
    // A valid range for a plugin that is not installed is an unknown class.
    let r = rejected(&[("connector.class", "Datagen"), ("connector.plugin.version", "[1.0,)")]);
    assert_eq!(r.reason, RejectedReason::UnknownClass);
}

#[test]
fn built_in_transforms_predicates_and_converters_have_the_workers_version_only() {
    let own = crate::worker::version_keys::BUILTIN_VERSION;
    let chain = |version: &str| {
        settings(
            PluginKind::Source,
            &[
                ("transforms", "f"),
                ("transforms.f.type", "org.apache.kafka.connect.transforms.Filter"),
                ("transforms.f.plugin.version", version),
                ("transforms.f.predicate", "p"),
                ("predicates", "p"),
                ("predicates.p.type", "TopicNameMatches"),
                ("predicates.p.pattern", "x"),
                ("predicates.p.plugin.version", version),
            ],
        )
        .chain
    };
    for ok in [own, "latest", "[0.0.1,)"] {
        let spec = chain(ok).unwrap_or_else(|p| panic!("{ok}: {p:?}"));
        assert_eq!(spec.steps.len(), 1, "the version key is no key of the class");
    }
    let problems = chain("[99.0,)").err().expect("no such version");
    assert_eq!(keys(&problems), ["predicates.p.plugin.version", "transforms.f.plugin.version"]);
    assert_eq!(
        problems[1].message,
        format!(
            "Plugin org.apache.kafka.connect.transforms.Filter has no installed version matching \
             [99.0,); installed versions: {own}"
        )
    );
    let problems = chain("(,").err().expect("no range");
    assert_eq!(
        problems[1].message,
        "Invalid version range for transforms.f.type: Unbounded range: (,"
    );

    let s = settings(PluginKind::Sink, &[("value.converter.plugin.version", "1.0-nope")]);
    assert_eq!(keys(&s.converter_versions), ["value.converter.plugin.version"]);
    let s = settings(PluginKind::Sink, &[("value.converter.plugin.version", own)]);
    assert!(s.converter_versions.is_empty());
}
