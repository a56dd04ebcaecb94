//! [`Settings`]: a converter's keys (prefix stripped) and the parsing of their values, with
//! errors naming the full key. It owns no defaults: each format says what it reads.

use std::collections::BTreeMap;

use crate::FormatError;

/// A converter's settings, prefix stripped.
pub struct Settings<'a> {
    prefix: &'a str,
    values: &'a BTreeMap<&'a str, &'a str>,
}

impl<'a> Settings<'a> {
    /// `values` of the converter configured under `prefix` (`value.converter`).
    pub fn new(prefix: &'a str, values: &'a BTreeMap<&'a str, &'a str>) -> Self {
        Self { prefix, values }
    }

    /// The raw value of `name`, if set.
    pub fn get(&self, name: &str) -> Option<&'a str> {
        self.values.get(name).copied()
    }

    /// An error for `name`'s `value`, which should be `expected`.
    pub fn invalid(&self, name: &str, value: &str, expected: impl Into<String>) -> FormatError {
        FormatError::InvalidSetting {
            key: format!("{}.{name}", self.prefix),
            value: value.to_owned(),
            expected: expected.into(),
        }
    }

    /// A boolean, `true` or `false` in any case, surrounding whitespace ignored (Kafka's
    /// `ConfigDef` BOOLEAN).
    pub fn boolean(&self, name: &str, default: bool) -> Result<bool, FormatError> {
        let Some(value) = self.get(name) else { return Ok(default) };
        match value.trim() {
            v if v.eq_ignore_ascii_case("true") => Ok(true),
            v if v.eq_ignore_ascii_case("false") => Ok(false),
            _ => Err(self.invalid(name, value, "Expected value to be either true or false")),
        }
    }

    /// A non-negative int (Kafka's `ConfigDef` INT with `atLeast(0)`).
    pub fn count(&self, name: &str, default: u32) -> Result<u32, FormatError> {
        let Some(value) = self.get(name) else { return Ok(default) };
        value.trim().parse().map_err(|_| self.invalid(name, value, "Expected a non-negative int"))
    }
}
