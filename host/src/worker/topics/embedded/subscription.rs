//! [`Matcher`]: a sink's [`Subscription`] ready to test topic names: an explicit list, or
//! a regular expression matched against the whole name, as Java's `Pattern.matches` does
//! for Kafka's `topics.regex` (the pattern is anchored at both ends).
//!
//! Pure; it must not list topics itself.

use std::collections::BTreeSet;

use regex::Regex;

use crate::worker::topics::{Subscription, TopicError};

/// Which topics a group member reads.
#[derive(Clone, Debug)]
pub(super) enum Matcher {
    /// These topics.
    Topics(BTreeSet<String>),
    /// Topics whose whole name matches.
    Pattern(Regex),
}

impl Matcher {
    /// The matcher of `subscription`; an invalid pattern is a [`TopicError::Config`].
    pub(super) fn new(subscription: &Subscription) -> Result<Self, TopicError> {
        match subscription {
            Subscription::Topics(topics) => Ok(Self::Topics(topics.iter().cloned().collect())),
            Subscription::Pattern(pattern) => Regex::new(&format!("^(?:{pattern})$"))
                .map(Self::Pattern)
                .map_err(|e| TopicError::Config(format!("invalid topics.regex '{pattern}': {e}"))),
        }
    }

    /// Whether the member reads `topic`.
    pub(super) fn matches(&self, topic: &str) -> bool {
        match self {
            Self::Topics(topics) => topics.contains(topic),
            Self::Pattern(regex) => regex.is_match(topic),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_match_whole_names() {
        let m = Matcher::new(&Subscription::Pattern("orders-.*|audit".into())).unwrap();
        assert!(m.matches("orders-eu") && m.matches("audit"));
        assert!(!m.matches("old-orders-eu") && !m.matches("audits"));
        let err = Matcher::new(&Subscription::Pattern("(".into())).unwrap_err();
        assert!(matches!(err, TopicError::Config(_)), "{err:?}");
        let m = Matcher::new(&Subscription::Topics(vec!["a".into()])).unwrap();
        assert!(m.matches("a") && !m.matches("ab"));
    }
}
