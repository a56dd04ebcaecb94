use super::*;

fn cfg(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

fn messages(pairs: &[(&str, &str)], sink: bool) -> Vec<(String, String)> {
    let problems = ErrorPolicy::from_config(&cfg(pairs), sink).unwrap_err();
    problems.into_iter().map(|p| (p.key, p.message)).collect()
}

#[test]
fn defaults_are_kafka_connects() {
    let policy = ErrorPolicy::from_config(&[], true).unwrap();
    assert_eq!(policy, ErrorPolicy::default());
    assert_eq!(policy.tolerance, Tolerance::None);
    assert_eq!(policy.retry_timeout, None, "0 retries without end");
    assert_eq!(policy.retry_delay_max, Duration::from_secs(60));
    assert_eq!(policy.log, LogSettings { enable: false, include_messages: false });
    assert_eq!(policy.dlq, None, "an empty topic name is no dead letter queue");
}

#[test]
fn every_key_is_read() {
    let policy = ErrorPolicy::from_config(
        &cfg(&[
            ("errors.tolerance", " all "),
            ("errors.retry.timeout", "30000"),
            ("errors.retry.delay.max.ms", "5000"),
            ("errors.log.enable", "true"),
            ("errors.log.include.messages", "TRUE"),
            ("errors.deadletterqueue.topic.name", " dlq "),
            ("errors.deadletterqueue.topic.replication.factor", "1"),
            ("errors.deadletterqueue.context.headers.enable", "true"),
        ]),
        true,
    )
    .unwrap();
    assert_eq!(policy.tolerance, Tolerance::All);
    assert_eq!(policy.retry_timeout, Some(Duration::from_secs(30)));
    assert_eq!(policy.retry_delay_max, Duration::from_secs(5));
    assert_eq!(policy.log, LogSettings { enable: true, include_messages: true });
    let dlq = policy.dlq.unwrap();
    assert_eq!(
        dlq,
        DlqSettings { topic: "dlq".into(), replication_factor: 1, context_headers: true }
    );
    assert_eq!(dlq.new_topic().partitions, 1);
    assert_eq!(dlq.new_topic().replication_factor, 1);
}

#[test]
fn minus_one_retries_without_end() {
    let policy = ErrorPolicy::from_config(&cfg(&[("errors.retry.timeout", "-1")]), false).unwrap();
    assert_eq!(policy.retry_timeout, None);
}

#[test]
fn sources_ignore_the_dead_letter_queue_keys() {
    let c = cfg(&[
        ("errors.deadletterqueue.topic.name", "dlq"),
        ("errors.deadletterqueue.topic.replication.factor", "lots"),
    ]);
    assert_eq!(ErrorPolicy::from_config(&c, false).unwrap().dlq, None);
    assert!(ErrorPolicy::from_config(&c, true).is_err());
}

#[test]
fn a_dead_letter_queue_with_tolerance_none_is_allowed() {
    let c = cfg(&[("errors.deadletterqueue.topic.name", "dlq"), ("topics", "in")]);
    let policy = ErrorPolicy::from_config(&c, true).unwrap();
    assert_eq!(policy.tolerance, Tolerance::None);
    assert_eq!(policy.dlq.unwrap().topic, "dlq");
}

#[test]
fn every_bad_value_is_named_with_kafkas_message() {
    let got = messages(
        &[
            ("errors.tolerance", "ALL"),
            ("errors.retry.timeout", "soon"),
            ("errors.retry.delay.max.ms", "-5"),
            ("errors.log.enable", "yes"),
            ("errors.log.include.messages", "1"),
            ("errors.deadletterqueue.topic.name", "dlq"),
            ("errors.deadletterqueue.topic.replication.factor", "70000"),
            ("errors.deadletterqueue.context.headers.enable", "on"),
        ],
        true,
    );
    let want = [
        (
            "errors.tolerance",
            "Invalid value ALL for configuration errors.tolerance: String must be one of: none, all",
        ),
        (
            "errors.retry.timeout",
            "Invalid value soon for configuration errors.retry.timeout: Not a number of type LONG",
        ),
        (
            "errors.retry.delay.max.ms",
            "Invalid value -5 for configuration errors.retry.delay.max.ms: Value must be at least 0",
        ),
        (
            "errors.log.enable",
            "Invalid value yes for configuration errors.log.enable: Expected value to be either true or false",
        ),
        (
            "errors.log.include.messages",
            "Invalid value 1 for configuration errors.log.include.messages: Expected value to be either true or false",
        ),
        (
            "errors.deadletterqueue.topic.replication.factor",
            "Invalid value 70000 for configuration errors.deadletterqueue.topic.replication.factor: Not a number of type SHORT",
        ),
        (
            "errors.deadletterqueue.context.headers.enable",
            "Invalid value on for configuration errors.deadletterqueue.context.headers.enable: Expected value to be either true or false",
        ),
    ];
    let want: Vec<(String, String)> =
        want.iter().map(|(k, m)| (k.to_string(), m.to_string())).collect();
    assert_eq!(got, want);
}

#[test]
fn bounds_are_checked() {
    let got = messages(
        &[("errors.retry.timeout", "-2"), ("errors.deadletterqueue.topic.replication.factor", "0")],
        true,
    );
    assert_eq!(
        got,
        [
            (
                "errors.retry.timeout".to_string(),
                "Invalid value -2 for configuration errors.retry.timeout: Value must be at least -1"
                    .to_string()
            ),
            (
                "errors.deadletterqueue.topic.replication.factor".to_string(),
                "Invalid value 0 for configuration errors.deadletterqueue.topic.replication.factor: \
                 Value must be -1 or at least 1"
                    .to_string()
            ),
        ]
    );
    let c = cfg(&[("errors.deadletterqueue.topic.replication.factor", "-1")]);
    assert!(ErrorPolicy::from_config(&c, true).is_ok(), "-1 is the broker default");
}

#[test]
fn the_dead_letter_queue_may_not_be_consumed() {
    let got =
        messages(&[("topics", "a, dlq,,a"), ("errors.deadletterqueue.topic.name", "dlq")], true);
    assert_eq!(
        got,
        [(
            "topics".to_string(),
            "The DLQ topic 'dlq' may not be included in the list of topics ('topics=[a, dlq]') \
             consumed by the connector"
                .to_string()
        )]
    );
}

#[test]
fn problems_name_their_keys() {
    let ok = [("errors.tolerance".to_string(), "all".to_string())];
    assert!(ErrorPolicy::from_config(&ok, true).is_ok());
    let bad = [("errors.tolerance".to_string(), "some".to_string())];
    let found = ErrorPolicy::from_config(&bad, false).unwrap_err();
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].key, "errors.tolerance");
}
