//! Reads typed values out of a connector config and collects a [`ConfigProblem`] per bad
//! value, worded as Kafka Connect's `ConfigException` ("Invalid value x for configuration
//! k: why"). It knows types and bounds, not what any key means.

use crate::model::ConfigProblem;

/// A config being read, with the problems found so far.
pub(super) struct Reader<'a> {
    config: &'a [(String, String)],
    pub problems: Vec<ConfigProblem>,
}

impl<'a> Reader<'a> {
    /// A reader of `config`.
    pub fn new(config: &'a [(String, String)]) -> Self {
        Self { config, problems: Vec::new() }
    }

    /// The value of `key` as given, if set.
    pub fn raw(&self, key: &str) -> Option<&'a str> {
        self.config.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }

    /// Records a problem with `key`'s `value`.
    pub fn invalid(&mut self, key: &str, value: &str, why: &str) {
        self.problems.push(ConfigProblem {
            key: key.to_owned(),
            message: format!("Invalid value {value} for configuration {key}: {why}"),
        });
    }

    /// A trimmed string; `default` when unset.
    pub fn string(&self, key: &str, default: &str) -> String {
        self.raw(key).unwrap_or(default).trim().to_owned()
    }

    /// `true` or `false` in any case; `default` when unset or bad.
    pub fn boolean(&mut self, key: &str, default: bool) -> bool {
        let Some(v) = self.raw(key) else { return default };
        match v.trim().to_ascii_lowercase().as_str() {
            "true" => true,
            "false" => false,
            _ => {
                self.invalid(key, v, "Expected value to be either true or false");
                default
            }
        }
    }

    /// An integer of type `ty` (`LONG`, `SHORT`) no less than `min`; `default` when unset
    /// or bad. `fits` says whether a parsed `i64` is in the type's range.
    fn integer(
        &mut self,
        key: &str,
        ty: &str,
        fits: fn(i64) -> bool,
        default: i64,
        min: i64,
    ) -> i64 {
        let Some(v) = self.raw(key) else { return default };
        match v.trim().parse::<i64>() {
            Ok(n) if !fits(n) => self.invalid(key, v, &format!("Not a number of type {ty}")),
            Ok(n) if n < min => self.invalid(key, v, &format!("Value must be at least {min}")),
            Ok(n) => return n,
            Err(_) => self.invalid(key, v, &format!("Not a number of type {ty}")),
        }
        default
    }

    /// A `LONG` no less than `min`.
    pub fn long(&mut self, key: &str, default: i64, min: i64) -> i64 {
        self.integer(key, "LONG", |_| true, default, min)
    }

    /// A `SHORT` no less than `min`.
    pub fn short(&mut self, key: &str, default: i16, min: i16) -> i16 {
        let fits = |n: i64| i16::try_from(n).is_ok();
        // The value fits: `integer` only returns values `fits` accepts, or the default.
        self.integer(key, "SHORT", fits, default.into(), min.into()) as i16
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn values_parse_trimmed_and_bad_ones_are_named() {
        let c = cfg(&[("b", " TRUE "), ("l", " -1 "), ("s", "40000"), ("x", "yes")]);
        let mut r = Reader::new(&c);
        assert!(r.boolean("b", false));
        assert_eq!(r.long("l", 0, -1), -1);
        assert_eq!(r.short("s", 3, -1), 3);
        assert!(!r.boolean("x", false));
        assert_eq!(r.long("unset", 7, 0), 7);
        let messages: Vec<&str> = r.problems.iter().map(|p| p.message.as_str()).collect();
        assert_eq!(
            messages,
            [
                "Invalid value 40000 for configuration s: Not a number of type SHORT",
                "Invalid value yes for configuration x: Expected value to be either true or false",
            ]
        );
    }
}
