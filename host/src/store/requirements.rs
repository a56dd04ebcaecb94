//! What a topic must satisfy to back a store (its partition count and cleanup policy, from
//! its [`TopicSpec`]), and the messages that refuse one that does not, worded as Kafka
//! Connect words them so operators find them in its documentation.
//!
//! Every backend checks an existing topic with these functions. Pure: no I/O here.

use std::collections::BTreeSet;

use super::{StoreError, TopicSpec};

/// Partition count of a new local (memory or embedded) topic whose spec asks for the
/// default (`-1`): local topics have no broker default, and one partition keeps every
/// record in one order.
const LOCAL_DEFAULT_PARTITIONS: i32 = 1;

/// The partition count a local backend creates `spec`'s topic with.
pub(crate) fn local_partitions(spec: &TopicSpec) -> Result<i32, StoreError> {
    match spec.partitions {
        -1 => Ok(LOCAL_DEFAULT_PARTITIONS),
        n if n >= 1 => Ok(n),
        n => Err(StoreError::Topic(format!(
            "Topic '{}' cannot be created with {n} partitions: the count must be at least 1, \
             or -1 for the default.",
            spec.name
        ))),
    }
}

/// Refuses a topic with more than one partition when `spec` needs a single one.
pub(crate) fn check_partitions(spec: &TopicSpec, found: i32) -> Result<(), StoreError> {
    if !spec.single_partition || found <= 1 {
        return Ok(());
    }
    let topic = &spec.name;
    Err(StoreError::Topic(match &spec.origin {
        Some(origin) => format!(
            "Topic '{topic}' supplied via the '{}' property is required to have a single \
             partition in order to guarantee consistency of {}, but found {found} partitions.",
            origin.property, origin.purpose
        ),
        None => format!(
            "Topic '{topic}' is required to have a single partition in order to guarantee \
             the order of its records, but found {found} partitions."
        ),
    }))
}

/// Refuses a topic whose `cleanup.policy` is not exactly `compact` when `spec` needs a
/// compacted topic (`compact,delete` is refused too: it deletes old records).
pub(crate) fn check_cleanup_policy(spec: &TopicSpec, policy: &str) -> Result<(), StoreError> {
    if !spec.compacted || is_compact_only(policy) {
        return Ok(());
    }
    let topic = &spec.name;
    Err(StoreError::Topic(match &spec.origin {
        Some(origin) => format!(
            "Topic '{topic}' supplied via the '{property}' property is required to have \
             'cleanup.policy=compact' to guarantee consistency and durability of {purpose}, \
             but found the topic currently has 'cleanup.policy={policy}'. Continuing would \
             likely result in eventually losing {purpose} and problems restarting this Connect \
             cluster in the future. Change the '{property}' property in the Connect worker \
             configurations to use a topic with 'cleanup.policy=compact'.",
            property = origin.property,
            purpose = origin.purpose,
        ),
        None => format!(
            "Topic '{topic}' is required to have 'cleanup.policy=compact' to guarantee \
             consistency and durability of its records, but found the topic currently has \
             'cleanup.policy={policy}'."
        ),
    }))
}

/// Whether a `cleanup.policy` value (a comma-separated list) is exactly `compact`.
fn is_compact_only(policy: &str) -> bool {
    let policies: BTreeSet<&str> =
        policy.split(',').map(str::trim).filter(|p| !p.is_empty()).collect();
    policies.len() == 1 && policies.contains("compact")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::TopicOrigin;

    fn spec(single_partition: bool, compacted: bool, origin: Option<TopicOrigin>) -> TopicSpec {
        TopicSpec {
            name: "connect-configs".into(),
            partitions: 1,
            replication_factor: -1,
            compacted,
            single_partition,
            origin,
        }
    }

    fn config_origin() -> Option<TopicOrigin> {
        Some(TopicOrigin::new("config.storage.topic", "connector configurations"))
    }

    #[test]
    fn single_partition_refusal_is_kafka_connects_message() {
        let err = check_partitions(&spec(true, true, config_origin()), 3).unwrap_err();
        assert_eq!(
            err.to_string(),
            "Topic 'connect-configs' supplied via the 'config.storage.topic' property is \
             required to have a single partition in order to guarantee consistency of \
             connector configurations, but found 3 partitions."
        );
        let err = check_partitions(&spec(true, true, None), 2).unwrap_err();
        assert!(err.to_string().contains("'connect-configs' is required to have a single"));
        assert!(err.to_string().contains("found 2 partitions"));
    }

    #[test]
    fn partition_count_is_only_checked_when_asked() {
        check_partitions(&spec(true, true, None), 1).unwrap();
        check_partitions(&spec(false, true, None), 25).unwrap();
    }

    #[test]
    fn cleanup_policy_must_be_compact_only() {
        let compacted = spec(false, true, None);
        check_cleanup_policy(&compacted, "compact").unwrap();
        check_cleanup_policy(&compacted, " compact ").unwrap();
        for policy in ["delete", "compact,delete", "delete,compact", ""] {
            let err = check_cleanup_policy(&compacted, policy).unwrap_err();
            assert!(matches!(err, StoreError::Topic(_)), "{policy}");
            assert!(err.to_string().contains(&format!("'cleanup.policy={policy}'")), "{err}");
        }
        check_cleanup_policy(&spec(false, false, None), "delete").unwrap();
    }

    #[test]
    fn cleanup_policy_refusal_is_kafka_connects_message() {
        let origin = TopicOrigin::new("status.storage.topic", "connector and task statuses");
        let mut status = spec(false, true, Some(origin));
        status.name = "connect-status".into();
        let err = check_cleanup_policy(&status, "delete").unwrap_err();
        assert_eq!(
            err.to_string(),
            "Topic 'connect-status' supplied via the 'status.storage.topic' property is \
             required to have 'cleanup.policy=compact' to guarantee consistency and durability \
             of connector and task statuses, but found the topic currently has \
             'cleanup.policy=delete'. Continuing would likely result in eventually losing \
             connector and task statuses and problems restarting this Connect cluster in the \
             future. Change the 'status.storage.topic' property in the Connect worker \
             configurations to use a topic with 'cleanup.policy=compact'."
        );
    }

    #[test]
    fn local_partition_counts() {
        let mut s = spec(false, true, None);
        s.partitions = -1;
        assert_eq!(local_partitions(&s).unwrap(), 1);
        s.partitions = 25;
        assert_eq!(local_partitions(&s).unwrap(), 25);
        s.partitions = 0;
        assert!(matches!(local_partitions(&s), Err(StoreError::Topic(_))));
    }
}
