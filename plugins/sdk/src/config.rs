//! [`Config`]: the string key/value pairs a connector or task is started with.
//!
//! This module owns reading values out of a config: typed getters whose errors are
//! [`Error::Config`] naming the key. It does not know any plugin's keys or defaults (the
//! worker fills declared defaults in before `start`) and does no validation beyond parsing.

use std::fmt::Display;
use std::str::FromStr;

use crate::{Error, Result};

/// A connector or task configuration: ordered key/value pairs with unique keys, as the
/// worker received them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Config {
    entries: Vec<(String, String)>,
}

impl Config {
    /// An empty config.
    pub fn new() -> Self {
        Self::default()
    }

    /// This config with `key` set to `value` (builder style; see [`Config::set`]).
    pub fn with(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.set(key, value);
        self
    }

    /// Sets `key` to `value`, in place if the key exists, else at the end.
    pub fn set(&mut self, key: impl Into<String>, value: impl Into<String>) -> &mut Self {
        let (key, value) = (key.into(), value.into());
        match self.entries.iter_mut().find(|(k, _)| *k == key) {
            Some(entry) => entry.1 = value,
            None => self.entries.push((key, value)),
        }
        self
    }

    /// Removes `key`, returning its value.
    pub fn remove(&mut self, key: &str) -> Option<String> {
        let i = self.entries.iter().position(|(k, _)| k == key)?;
        Some(self.entries.remove(i).1)
    }

    /// The value of `key`, if set.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.entries.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }

    /// Whether `key` is set.
    pub fn contains(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// The value of `key`, or `default` when it is not set.
    pub fn get_or<'a>(&'a self, key: &str, default: &'a str) -> &'a str {
        self.get(key).unwrap_or(default)
    }

    /// The value of `key`; a [`Error::Config`] naming the key when it is missing or blank.
    pub fn require(&self, key: &str) -> Result<&str> {
        match self.get(key) {
            Some(v) if !v.trim().is_empty() => Ok(v),
            Some(_) => Err(Error::config(format!("config key `{key}` must not be empty"))),
            None => Err(Error::config(format!("missing required config key `{key}`"))),
        }
    }

    /// The value of `key` parsed as a Kafka Connect `INT` (32-bit).
    pub fn get_i32(&self, key: &str) -> Result<Option<i32>> {
        self.parse(key, "a 32-bit integer")
    }

    /// The value of `key` parsed as a Kafka Connect `LONG` (64-bit).
    pub fn get_i64(&self, key: &str) -> Result<Option<i64>> {
        self.parse(key, "a 64-bit integer")
    }

    /// The value of `key` parsed as a Kafka Connect `DOUBLE`.
    pub fn get_f64(&self, key: &str) -> Result<Option<f64>> {
        self.parse(key, "a number")
    }

    /// The value of `key` parsed as a Kafka Connect `BOOLEAN`: `true` or `false`, in any
    /// case.
    pub fn get_bool(&self, key: &str) -> Result<Option<bool>> {
        let Some(v) = self.get(key) else {
            return Ok(None);
        };
        match v.trim() {
            t if t.eq_ignore_ascii_case("true") => Ok(Some(true)),
            t if t.eq_ignore_ascii_case("false") => Ok(Some(false)),
            _ => Err(invalid(key, v, "`true` or `false`")),
        }
    }

    /// The value of `key` as a Kafka Connect `LIST`: comma-separated, each item trimmed,
    /// empty items dropped. Empty when the key is not set.
    pub fn get_list(&self, key: &str) -> Vec<String> {
        self.get(key)
            .map(|v| {
                v.split(',').map(str::trim).filter(|s| !s.is_empty()).map(str::to_owned).collect()
            })
            .unwrap_or_default()
    }

    /// The value of `key` parsed with [`FromStr`] (surrounding whitespace ignored);
    /// `what` describes the expected value in the error, e.g. "a port number".
    pub fn parse<T: FromStr>(&self, key: &str, what: &str) -> Result<Option<T>>
    where
        T::Err: Display,
    {
        self.get(key).map(|v| v.trim().parse().map_err(|_| invalid(key, v, what))).transpose()
    }

    /// The pairs, in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&str, &str)> {
        self.entries.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }

    /// The number of keys.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether no key is set.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The pairs, in order.
    pub fn into_pairs(self) -> Vec<(String, String)> {
        self.entries
    }
}

fn invalid(key: &str, value: &str, what: &str) -> Error {
    Error::config(format!("config key `{key}`: `{value}` is not {what}"))
}

impl From<Vec<(String, String)>> for Config {
    /// Takes pairs as the worker sends them; a repeated key keeps its last value.
    fn from(pairs: Vec<(String, String)>) -> Self {
        pairs.into_iter().collect()
    }
}

impl<K: Into<String>, V: Into<String>> FromIterator<(K, V)> for Config {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(iter: I) -> Self {
        let mut config = Self::new();
        for (k, v) in iter {
            config.set(k, v);
        }
        config
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_getters_parse_and_name_the_key() {
        let c = Config::new()
            .with("n", " 42 ")
            .with("b", "TRUE")
            .with("l", "a, b,,c ")
            .with("bad", "x");
        assert_eq!(c.get_i64("n").unwrap(), Some(42));
        assert_eq!(c.get_i32("missing").unwrap(), None);
        assert_eq!(c.get_bool("b").unwrap(), Some(true));
        assert_eq!(c.get_list("l"), ["a", "b", "c"]);
        assert!(c.get_list("missing").is_empty());
        let err = c.get_i64("bad").unwrap_err();
        assert!(matches!(err, Error::Config(_)));
        assert!(err.message().contains("`bad`"), "{err}");
        assert!(c.get_bool("bad").unwrap_err().message().contains("`bad`"));
    }

    #[test]
    fn require_names_missing_and_blank_keys() {
        let c = Config::new().with("blank", " ");
        assert!(c.require("file").unwrap_err().message().contains("`file`"));
        assert!(c.require("blank").unwrap_err().message().contains("`blank`"));
    }

    #[test]
    fn set_replaces_in_place_and_keeps_order() {
        let mut c: Config =
            vec![("a".to_string(), "1".to_string()), ("b".into(), "2".into())].into();
        c.set("a", "3").set("c", "4");
        assert_eq!(c.iter().collect::<Vec<_>>(), [("a", "3"), ("b", "2"), ("c", "4")]);
        assert_eq!(c.remove("b").as_deref(), Some("2"));
        assert_eq!(c.len(), 2);
    }
}
