//! [`Reader`]: takes typed values out of a property list one key at a time, recording
//! every key it was asked about (the known keys), every problem (naming its key and the
//! expected form), and leaving the keys nobody asked about for classification.
//!
//! Values are trimmed before parsing, as Kafka's `ConfigDef` does. The reader knows no key
//! names; the config structs do.

use std::collections::{BTreeMap, BTreeSet};
use std::str::FromStr;
use std::time::Duration;

use crate::model::{ConfigProblem, RetryKeys, RetryPolicy};

/// Expected form of a duration key.
pub const MILLIS: &str = "a non-negative integer (milliseconds)";

pub(super) struct Reader<'a> {
    /// Last value of each key (a repeated key: the last one wins).
    values: BTreeMap<&'a str, &'a str>,
    /// Keys in first-seen order, for reporting leftovers in file order.
    order: Vec<&'a str>,
    /// Every key a caller asked about, present or not.
    known: BTreeSet<&'static str>,
    /// Keys present but not used in this mode.
    pub ignored: Vec<String>,
    pub problems: Vec<ConfigProblem>,
}

impl<'a> Reader<'a> {
    pub fn new(props: &'a [(String, String)]) -> Self {
        let mut values = BTreeMap::new();
        let mut order = Vec::new();
        for (k, v) in props {
            if values.insert(k.as_str(), v.as_str()).is_none() {
                order.push(k.as_str());
            }
        }
        Self { values, order, known: BTreeSet::new(), ignored: Vec::new(), problems: Vec::new() }
    }

    pub fn problem(&mut self, key: &str, message: impl Into<String>) {
        self.problems.push(ConfigProblem { key: key.to_owned(), message: message.into() });
    }

    /// The trimmed value of `key`, if present; marks the key known and used.
    pub fn raw(&mut self, key: &'static str) -> Option<&'a str> {
        self.known.insert(key);
        self.values.remove(key).map(str::trim)
    }

    /// Marks a key known but not used in this mode: listed in `ignored` when present.
    pub fn skip(&mut self, key: &'static str) {
        if self.raw(key).is_some() {
            self.ignored.push(key.to_owned());
        }
    }

    /// An optional string; empty counts as absent.
    pub fn string(&mut self, key: &'static str) -> Option<String> {
        self.raw(key).filter(|v| !v.is_empty()).map(str::to_owned)
    }

    /// A string that must be present and non-empty; `why` says when it is required.
    pub fn required(&mut self, key: &'static str, why: &str) -> String {
        let value = self.string(key);
        if value.is_none() {
            self.problem(key, format!("missing: {why}"));
        }
        value.unwrap_or_default()
    }

    /// A value checked by `parse`; absent → `None`; invalid → a problem and `None`.
    pub fn parsed<T>(
        &mut self,
        key: &'static str,
        expected: &str,
        parse: impl Fn(&str) -> Option<T>,
    ) -> Option<T> {
        let raw = self.raw(key)?;
        let value = parse(raw);
        if value.is_none() {
            self.problem(key, format!("expected {expected}, got {raw:?}"));
        }
        value
    }

    /// A number via `FromStr`.
    pub fn number<T: FromStr>(&mut self, key: &'static str, expected: &str) -> Option<T> {
        self.parsed(key, expected, |s| s.parse().ok().filter(|_| !s.starts_with('+')))
    }

    /// A duration in milliseconds, or `default`.
    pub fn millis(&mut self, key: &'static str, default: Duration) -> Duration {
        self.number(key, MILLIS).map_or(default, Duration::from_millis)
    }

    /// A retry policy from its five keys over `base`; on a problem, the base.
    pub fn retry_policy(&mut self, keys: &RetryKeys, base: &RetryPolicy) -> RetryPolicy {
        let values: Vec<(&'static str, &'a str)> =
            keys.all().into_iter().filter_map(|k| self.raw(k).map(|v| (k, v))).collect();
        let get = |k: &'static str| values.iter().find(|(key, _)| *key == k).map(|(_, v)| *v);
        keys.read(get, base).unwrap_or_else(|problems| {
            self.problems.extend(problems);
            base.clone()
        })
    }

    /// A comma-separated list: entries trimmed, empty entries dropped, each checked by
    /// `check` (whose error is added to the problem). Absent or empty → `None`.
    pub fn list<T>(
        &mut self,
        key: &'static str,
        expected: &str,
        check: impl Fn(&str) -> Result<T, String>,
    ) -> Option<Vec<T>> {
        let raw = self.raw(key).filter(|v| !v.is_empty())?;
        let mut out = Vec::new();
        for entry in raw.split(',').map(str::trim).filter(|e| !e.is_empty()) {
            match check(entry) {
                Ok(v) => out.push(v),
                Err(why) => {
                    self.problem(key, format!("expected {expected}, got {entry:?} ({why})"));
                    return None;
                }
            }
        }
        if out.is_empty() {
            self.problem(key, format!("expected {expected}, got {raw:?}"));
            return None;
        }
        Some(out)
    }

    /// Every key starting with `prefix`, with its trimmed value, in key order; marks them
    /// used (`known` names the prefix's owner key for suggestions).
    pub fn prefixed(&mut self, prefix: &str, known: &'static str) -> Vec<(&'a str, &'a str)> {
        self.known.insert(known);
        let keys: Vec<&'a str> =
            self.values.keys().copied().filter(|k| k.starts_with(prefix)).collect();
        keys.into_iter().filter_map(|k| self.values.remove(k).map(|v| (k, v.trim()))).collect()
    }

    /// Whether a problem was already recorded for `key`.
    pub fn has_problem(&self, key: &str) -> bool {
        self.problems.iter().any(|p| p.key == key)
    }

    /// The ignored keys, in first-seen order.
    pub fn ignored_in_file_order(&self) -> Vec<String> {
        let position = |k: &String| self.order.iter().position(|o| o == k);
        let mut ignored = self.ignored.clone();
        ignored.sort_by_key(position);
        ignored
    }

    /// The keys asked about, for spelling suggestions.
    pub fn known(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.known.iter().copied()
    }

    /// Keys present that nobody asked about, in first-seen order, with their raw values.
    pub fn leftovers(&self) -> Vec<(&'a str, &'a str)> {
        self.order.iter().filter_map(|k| self.values.get(k).map(|v| (*k, *v))).collect()
    }
}
