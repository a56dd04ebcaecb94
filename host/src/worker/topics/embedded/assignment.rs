//! The partition assignment of a consumer group, as Kafka's `RoundRobinAssignor` computes
//! it: every partition any member subscribes to, sorted by topic then partition, dealt in
//! turn to the members (sorted by id), skipping a member that does not subscribe to the
//! partition's topic. Deterministic: the same members and topics give the same assignment.
//!
//! A pure function; who holds what meanwhile is `group.rs`'s business.

use std::collections::{BTreeMap, BTreeSet};

use super::subscription::Matcher;
use crate::model::TopicPartition;
use crate::store::TopicInfo;

/// The partitions each member should hold, given `members` (by id, with what they
/// subscribe to) and `topics` (every topic with its partition count).
pub(super) fn assign<'a>(
    members: impl IntoIterator<Item = (u64, &'a Matcher)>,
    topics: &[TopicInfo],
) -> BTreeMap<u64, BTreeSet<TopicPartition>> {
    let members: Vec<(u64, &Matcher)> = members.into_iter().collect();
    let mut assignment: BTreeMap<u64, BTreeSet<TopicPartition>> =
        members.iter().map(|(id, _)| (*id, BTreeSet::new())).collect();
    let mut topics: Vec<&TopicInfo> = topics.iter().collect();
    topics.sort();
    let mut turn = 0;
    for topic in topics {
        for partition in 0..topic.partitions {
            let candidates = members.len();
            let Some(step) = (0..candidates)
                .find(|step| members[(turn + step) % candidates].1.matches(&topic.name))
            else {
                break;
            };
            let chosen = (turn + step) % candidates;
            let tp = TopicPartition { topic: topic.name.clone(), partition };
            assignment.entry(members[chosen].0).or_default().insert(tp);
            turn = chosen + 1;
        }
    }
    assignment
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::worker::topics::Subscription;

    fn topic(name: &str, partitions: i32) -> TopicInfo {
        TopicInfo { name: name.into(), partitions }
    }

    fn names(set: &BTreeSet<TopicPartition>) -> Vec<String> {
        set.iter().map(|tp| format!("{}-{}", tp.topic, tp.partition)).collect()
    }

    #[test]
    fn partitions_are_dealt_round_robin_to_subscribers() {
        let all = Matcher::new(&Subscription::Pattern(".*".into())).unwrap();
        let only_b = Matcher::new(&Subscription::Topics(vec!["b".into()])).unwrap();
        let topics = [topic("b", 2), topic("a", 3)];
        let got = assign([(1, &all), (2, &all)], &topics);
        assert_eq!(names(&got[&1]), ["a-0", "a-2", "b-1"]);
        assert_eq!(names(&got[&2]), ["a-1", "b-0"]);

        let got = assign([(1, &only_b), (2, &all)], &topics);
        assert_eq!(names(&got[&1]), ["b-0"]);
        assert_eq!(names(&got[&2]), ["a-0", "a-1", "a-2", "b-1"]);
        assert!(assign([], &topics).is_empty());
    }
}
