//! [`sink_group`]: the consumer group of a sink connector, as Kafka Connect names it:
//! `connect-<name>`, unless the connector config sets `consumer.override.group.id`.
//!
//! One definition for everyone who needs the group: the sink task that joins it and the
//! offsets API (KIP-875) that reads, alters and resets its committed offsets. Two names
//! for one group would let an alter land where the task never reads.

/// The connector key that overrides the group (a `consumer.override.*` client setting).
pub const GROUP_ID_OVERRIDE: &str = "consumer.override.group.id";

/// The consumer group of sink connector `connector` with connector config `config` (the
/// last `consumer.override.group.id`, verbatim, as Kafka Connect applies client overrides;
/// else `connect-<connector>`).
pub fn sink_group<K: AsRef<str>, V: AsRef<str>>(
    connector: &str,
    config: impl IntoIterator<Item = (K, V)>,
) -> String {
    let group = config.into_iter().filter(|(k, _)| k.as_ref() == GROUP_ID_OVERRIDE).last();
    match group {
        Some((_, v)) => v.as_ref().to_owned(),
        None => format!("connect-{connector}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_group_is_connect_name_unless_overridden() {
        let none: [(&str, &str); 0] = [];
        assert_eq!(sink_group("s", none), "connect-s");
        assert_eq!(sink_group("s", [("consumer.override.other", "x")]), "connect-s");
        let pairs = [(GROUP_ID_OVERRIDE, "first"), ("topics", "t"), (GROUP_ID_OVERRIDE, "mine")];
        assert_eq!(sink_group("s", pairs), "mine", "the last value, as the config reads");
        let map = std::collections::BTreeMap::from([(
            GROUP_ID_OVERRIDE.to_string(),
            "from-a-map".to_string(),
        )]);
        assert_eq!(sink_group("s", &map), "from-a-map");
    }
}
