//! [`TopicCreation`]: a source connector's `topic.creation.*` settings (KIP-158), and the
//! topic each new destination topic should be created as.
//!
//! With no `topic.creation.*` key the connector relies on the cluster's own creation, as
//! in Kafka Connect; this worker then creates a missing topic with the broker's default
//! partitions and replication (what broker auto-creation would do), so a broker with
//! `auto.create.topics.enable=false` does not hang the producer. With keys present,
//! `topic.creation.default.replication.factor` and `.partitions` are required, and
//! `topic.creation.groups` lists groups tried in order: the first whose `include` patterns
//! match the topic (and whose `exclude` patterns do not) gives its settings, else the
//! default group does. Any other `topic.creation.<group>.<key>` is a topic config.
//!
//! Pure: it parses and matches; creating topics is the data topics' job.

use regex::Regex;

use super::topics::NewTopic;
use crate::model::ConfigProblem;

const PREFIX: &str = "topic.creation.";
const DEFAULT_GROUP: &str = "default";

/// One group's settings.
#[derive(Clone, Debug)]
struct Group {
    name: String,
    include: Vec<Regex>,
    exclude: Vec<Regex>,
    replication_factor: i16,
    partitions: i32,
    configs: Vec<(String, String)>,
}

/// How a source connector's destination topics are created.
#[derive(Clone, Debug)]
pub struct TopicCreation {
    /// Named groups, in `topic.creation.groups` order; empty when topic creation is not
    /// configured.
    groups: Vec<Group>,
    /// The default group; `None` when topic creation is not configured.
    default: Option<Group>,
}

impl TopicCreation {
    /// Reads the connector's keys; every problem names its key.
    pub fn from_config(config: &[(String, String)]) -> Result<Self, Vec<ConfigProblem>> {
        let get = |k: &str| config.iter().rev().find(|(key, _)| key == k).map(|(_, v)| v.trim());
        let mut problems = Vec::new();
        if !config.iter().any(|(k, _)| k.starts_with(PREFIX)) {
            return Ok(Self { groups: Vec::new(), default: None });
        }
        let names: Vec<String> = get("topic.creation.groups")
            .map(|v| {
                v.split(',').map(str::trim).filter(|s| !s.is_empty()).map(String::from).collect()
            })
            .unwrap_or_default();
        let default = read_group(DEFAULT_GROUP, config, None, &mut problems);
        let groups = names
            .iter()
            .filter(|n| n.as_str() != DEFAULT_GROUP)
            .map(|n| read_group(n, config, Some(&default), &mut problems))
            .collect();
        if problems.is_empty() {
            Ok(Self { groups, default: Some(default) })
        } else {
            Err(problems)
        }
    }

    /// The topic to create for `topic` when it is missing.
    pub fn new_topic(&self, topic: &str) -> NewTopic {
        let Some(default) = &self.default else {
            return NewTopic {
                name: topic.to_owned(),
                partitions: -1,
                replication_factor: -1,
                configs: Vec::new(),
            };
        };
        let group = self
            .groups
            .iter()
            .find(|g| {
                g.include.iter().any(|r| r.is_match(topic))
                    && !g.exclude.iter().any(|r| r.is_match(topic))
            })
            .unwrap_or(default);
        tracing::debug!(topic, group = %group.name, "Topic creation group chosen");
        NewTopic {
            name: topic.to_owned(),
            partitions: group.partitions,
            replication_factor: group.replication_factor,
            configs: group.configs.clone(),
        }
    }
}

fn read_group(
    name: &str,
    config: &[(String, String)],
    default: Option<&Group>,
    problems: &mut Vec<ConfigProblem>,
) -> Group {
    let prefix = format!("{PREFIX}{name}.");
    let own: Vec<(&str, &str)> =
        config.iter().filter_map(|(k, v)| Some((k.strip_prefix(&prefix)?, v.trim()))).collect();
    let get = |k: &str| own.iter().rev().find(|(key, _)| *key == k).map(|(_, v)| *v);
    let mut problem = |key: &str, message: String| {
        problems.push(ConfigProblem { key: format!("{prefix}{key}"), message });
    };
    let mut number = |key: &str, fallback: Option<i64>, max: i64| -> i64 {
        match get(key) {
            None => fallback.unwrap_or_else(|| {
                problem(
                    key,
                    format!("Missing required configuration \"{prefix}{key}\" which has no default value."),
                );
                -1
            }),
            Some(v) => match v.parse::<i64>() {
                Ok(n) if n == -1 || (1..=max).contains(&n) => n,
                _ => {
                    problem(key, format!("Invalid value {v}: must be -1 (the broker default) or a positive integer"));
                    -1
                }
            },
        }
    };
    let replication_factor = number(
        "replication.factor",
        default.map(|d| i64::from(d.replication_factor)),
        i64::from(i16::MAX),
    ) as i16;
    let partitions =
        number("partitions", default.map(|d| i64::from(d.partitions)), i64::from(i32::MAX)) as i32;
    let mut patterns = |key: &str| -> Vec<Regex> {
        get(key)
            .map(|v| v.split(',').map(str::trim).filter(|s| !s.is_empty()).collect::<Vec<_>>())
            .unwrap_or_default()
            .into_iter()
            .filter_map(|p| match Regex::new(&format!("^(?:{p})$")) {
                Ok(r) => Some(r),
                Err(e) => {
                    problems.push(ConfigProblem {
                        key: format!("{prefix}{key}"),
                        message: format!("Invalid regular expression {p}: {e}"),
                    });
                    None
                }
            })
            .collect()
    };
    let include = patterns("include");
    let exclude = patterns("exclude");
    if default.is_some() && include.is_empty() && get("include").is_none() {
        problems.push(ConfigProblem {
            key: format!("{prefix}include"),
            message: format!(
                "Missing required configuration \"{prefix}include\" which has no default value."
            ),
        });
    }
    let configs = own
        .iter()
        .filter(|(k, _)| !["replication.factor", "partitions", "include", "exclude"].contains(k))
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    Group { name: name.to_owned(), include, exclude, replication_factor, partitions, configs }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs.iter().map(|(k, v)| ((*k).into(), (*v).into())).collect()
    }

    #[test]
    fn without_keys_topics_get_the_broker_defaults() {
        let tc = TopicCreation::from_config(&config(&[("topic", "t")])).unwrap();
        let t = tc.new_topic("t");
        assert_eq!((t.partitions, t.replication_factor), (-1, -1));
        assert!(t.configs.is_empty());
    }

    #[test]
    fn the_default_group_needs_both_numbers() {
        let problems = problems_of(&[("topic.creation.default.partitions", "3")]);
        assert_eq!(problems.len(), 1);
        assert_eq!(problems[0].key, "topic.creation.default.replication.factor");
        assert!(problems[0].message.contains("Missing required configuration"));
        let bad = problems_of(&[
            ("topic.creation.default.partitions", "0"),
            ("topic.creation.default.replication.factor", "x"),
        ]);
        assert_eq!(bad.len(), 2);
    }

    fn problems_of(pairs: &[(&str, &str)]) -> Vec<ConfigProblem> {
        TopicCreation::from_config(&config(pairs)).err().unwrap_or_default()
    }

    #[test]
    fn groups_are_tried_in_order_then_the_default() {
        let tc = TopicCreation::from_config(&config(&[
            ("topic.creation.groups", "compacted, big"),
            ("topic.creation.default.partitions", "1"),
            ("topic.creation.default.replication.factor", "-1"),
            ("topic.creation.default.retention.ms", "1000"),
            ("topic.creation.compacted.include", "state-.*"),
            ("topic.creation.compacted.exclude", "state-big"),
            ("topic.creation.compacted.cleanup.policy", "compact"),
            ("topic.creation.big.include", "state-big, .*-events"),
            ("topic.creation.big.partitions", "12"),
        ]))
        .unwrap();
        let t = tc.new_topic("state-users");
        assert_eq!(
            (t.partitions, t.configs.clone()),
            (1, vec![("cleanup.policy".into(), "compact".into())])
        );
        let t = tc.new_topic("state-big");
        assert_eq!((t.partitions, t.replication_factor), (12, -1));
        let t = tc.new_topic("other");
        assert_eq!(t.configs, vec![("retention.ms".to_string(), "1000".to_string())]);
        assert_eq!(tc.new_topic("state-users-x").partitions, 1, "full match only");
    }

    #[test]
    fn a_named_group_needs_include_and_valid_patterns() {
        let p = problems_of(&[
            ("topic.creation.groups", "g"),
            ("topic.creation.default.partitions", "1"),
            ("topic.creation.default.replication.factor", "1"),
        ]);
        assert_eq!(p[0].key, "topic.creation.g.include");
        let p = problems_of(&[
            ("topic.creation.groups", "g"),
            ("topic.creation.default.partitions", "1"),
            ("topic.creation.default.replication.factor", "1"),
            ("topic.creation.g.include", "(unclosed"),
        ]);
        assert!(p.iter().any(|p| p.message.contains("Invalid regular expression")), "{p:?}");
    }
}
