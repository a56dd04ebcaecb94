//! [`SubjectStrategy`]: the subject a schema is registered under, as Confluent's
//! `TopicNameStrategy`, `RecordNameStrategy` and `TopicRecordNameStrategy` name it. Pure.

/// How a subject is named (`key.subject.name.strategy` / `value.subject.name.strategy`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SubjectStrategy {
    /// `<topic>-key` / `<topic>-value` (the default).
    Topic,
    /// The record's fully qualified name.
    Record,
    /// `<topic>-<record name>`.
    TopicRecord,
}

/// The strategies by their Confluent class names.
pub const STRATEGIES: &[(&str, SubjectStrategy)] = &[
    ("io.confluent.kafka.serializers.subject.TopicNameStrategy", SubjectStrategy::Topic),
    ("io.confluent.kafka.serializers.subject.RecordNameStrategy", SubjectStrategy::Record),
    (
        "io.confluent.kafka.serializers.subject.TopicRecordNameStrategy",
        SubjectStrategy::TopicRecord,
    ),
];

impl SubjectStrategy {
    /// The strategy a class name (full, or simple without a package) names.
    pub fn resolve(class: &str) -> Option<Self> {
        let class = class.trim();
        STRATEGIES.iter().find_map(|(full, s)| {
            let simple = full.rsplit('.').next().unwrap_or(full);
            (class == *full || class == simple).then_some(*s)
        })
    }

    /// The subject of a record of `record_name` (`None` for a schema without a name)
    /// written to `topic`, on the key side when `key`; `Err` with Confluent's message when
    /// the strategy needs a name the schema does not have.
    pub fn subject(
        self,
        topic: &str,
        key: bool,
        record_name: Option<&str>,
    ) -> Result<String, String> {
        let named = || {
            record_name.ok_or_else(|| {
                "In configuration subject.name.strategy = RecordNameStrategy, the message \
                 must have a record name (a struct schema with a name)"
                    .to_owned()
            })
        };
        Ok(match self {
            SubjectStrategy::Topic => {
                format!("{topic}-{}", if key { "key" } else { "value" })
            }
            SubjectStrategy::Record => named()?.to_owned(),
            SubjectStrategy::TopicRecord => format!("{topic}-{}", named()?),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_subjects_as_confluent_does() {
        let s = |class: &str| SubjectStrategy::resolve(class).unwrap();
        let topic = s("io.confluent.kafka.serializers.subject.TopicNameStrategy");
        assert_eq!(topic.subject("orders", false, Some("a.B")).unwrap(), "orders-value");
        assert_eq!(topic.subject("orders", true, None).unwrap(), "orders-key");
        let record = s("RecordNameStrategy");
        assert_eq!(record.subject("orders", false, Some("a.B")).unwrap(), "a.B");
        assert!(record.subject("orders", false, None).unwrap_err().contains("record name"));
        let both = s("io.confluent.kafka.serializers.subject.TopicRecordNameStrategy");
        assert_eq!(both.subject("orders", true, Some("a.B")).unwrap(), "orders-a.B");
        for bad in ["", "TopicName", "com.example.TopicNameStrategy"] {
            assert_eq!(SubjectStrategy::resolve(bad), None, "{bad}");
        }
    }
}
