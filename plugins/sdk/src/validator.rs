//! [`Validator`]: a check of one config value, in the spirit of Kafka Connect's
//! `ConfigDef.Validator`, and the ready-made ones: [`Range`], [`ValidString`],
//! [`ValidList`] and [`NonEmptyString`].
//!
//! This module owns the checks and their wording only. It does not decide when they run:
//! [`ConfigDef::validate`](crate::ConfigDef::validate) runs a key's validators on the
//! value once it parsed as the key's type, and names the key in each problem. Validators
//! are code, so they never cross the WIT boundary: the worker sees their verdicts through
//! the plugin's `validate` export, not the validators themselves.

use std::cmp::Ordering;
use std::fmt;
use std::sync::Arc;

/// The check a [`Validator`] runs: `Ok(())`, or what is wrong with the value.
type Check = dyn Fn(&str) -> Result<(), String> + Send + Sync;

/// A check of one config value, attached to a key with
/// [`ConfigKey::ensure`](crate::ConfigKey::ensure) or
/// [`ConfigKey::validator`](crate::ConfigKey::validator).
///
/// The check receives the value with surrounding whitespace trimmed, as Kafka Connect
/// parses it, and only once the value parsed as the key's type (so a [`Range`] on an
/// `int` key never sees `"lots"`). Its message says what is wrong without naming the key;
/// [`ConfigDef::validate`](crate::ConfigDef::validate) adds the key. Two validators are
/// equal when their descriptions are.
#[derive(Clone)]
pub struct Validator {
    description: String,
    check: Arc<Check>,
}

impl Validator {
    /// A validator running `check`; `description` says what it accepts (e.g. `[1,...]`),
    /// for documentation and `Debug`.
    pub fn new(
        description: impl Into<String>,
        check: impl Fn(&str) -> Result<(), String> + Send + Sync + 'static,
    ) -> Self {
        Self { description: description.into(), check: Arc::new(check) }
    }

    /// Checks `value` (already trimmed): `Err` says what is wrong with it.
    pub fn ensure_valid(&self, value: &str) -> Result<(), String> {
        (self.check)(value)
    }

    /// What the validator accepts, e.g. `[1,...]` or `[a, b]`.
    pub fn description(&self) -> &str {
        &self.description
    }
}

impl fmt::Debug for Validator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Validator({})", self.description)
    }
}

impl PartialEq for Validator {
    fn eq(&self, other: &Self) -> bool {
        self.description == other.description
    }
}

impl Eq for Validator {}

/// A number bound used by [`Range`]: integers compare exactly, as 64-bit integers.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Bound {
    /// An integer bound.
    Int(i64),
    /// A floating-point bound.
    Float(f64),
}

impl Bound {
    fn as_f64(self) -> f64 {
        match self {
            Self::Int(n) => n as f64,
            Self::Float(x) => x,
        }
    }
}

impl fmt::Display for Bound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Int(n) => write!(f, "{n}"),
            Self::Float(x) => write!(f, "{x}"),
        }
    }
}

impl From<i32> for Bound {
    fn from(n: i32) -> Self {
        Self::Int(n.into())
    }
}

impl From<i64> for Bound {
    fn from(n: i64) -> Self {
        Self::Int(n)
    }
}

impl From<u32> for Bound {
    fn from(n: u32) -> Self {
        Self::Int(n.into())
    }
}

impl From<f64> for Bound {
    fn from(x: f64) -> Self {
        Self::Float(x)
    }
}

/// A number between two bounds, inclusive (Kafka Connect's `ConfigDef.Range`). For `int`,
/// `long` and `double` keys.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Range {
    min: Option<Bound>,
    max: Option<Bound>,
}

impl Range {
    /// At least `min` (Kafka's `Range.atLeast`).
    pub fn at_least(min: impl Into<Bound>) -> Self {
        Self { min: Some(min.into()), max: None }
    }

    /// At most `max`.
    pub fn at_most(max: impl Into<Bound>) -> Self {
        Self { min: None, max: Some(max.into()) }
    }

    /// Between `min` and `max`, both included (Kafka's `Range.between`).
    pub fn between(min: impl Into<Bound>, max: impl Into<Bound>) -> Self {
        Self { min: Some(min.into()), max: Some(max.into()) }
    }

    fn check(self, value: &str) -> Result<(), String> {
        if value.parse::<f64>().is_ok_and(f64::is_nan) || value.parse::<f64>().is_err() {
            return Err(format!("Value must be a number in {self}"));
        }
        let below = |b| compare(value, b) == Some(Ordering::Less);
        let above = |b| compare(value, b) == Some(Ordering::Greater);
        match (self.min, self.max) {
            (Some(min), None) if below(min) => Err(format!("Value must be at least {min}")),
            (None, Some(max)) if above(max) => Err(format!("Value must be no more than {max}")),
            (Some(min), Some(max)) if below(min) || above(max) => {
                Err(format!("Value must be between {min} and {max}"))
            }
            _ => Ok(()),
        }
    }
}

/// How the number `value` compares with `bound`: exactly when both are integers.
fn compare(value: &str, bound: Bound) -> Option<Ordering> {
    match (value.parse::<i64>(), bound) {
        (Ok(n), Bound::Int(b)) => Some(n.cmp(&b)),
        _ => value.parse::<f64>().ok()?.partial_cmp(&bound.as_f64()),
    }
}

impl fmt::Display for Range {
    /// Kafka's notation: `[1,...]`, `[...,10]`, `[1,...,10]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.min, self.max) {
            (Some(min), None) => write!(f, "[{min},...]"),
            (None, Some(max)) => write!(f, "[...,{max}]"),
            (Some(min), Some(max)) => write!(f, "[{min},...,{max}]"),
            (None, None) => f.write_str("[...]"),
        }
    }
}

impl From<Range> for Validator {
    fn from(range: Range) -> Self {
        Validator::new(range.to_string(), move |v| range.check(v))
    }
}

/// One of a fixed set of strings (Kafka Connect's `ConfigDef.ValidString.in`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValidString {
    allowed: Vec<String>,
    ignore_case: bool,
}

impl ValidString {
    /// Exactly one of `allowed` (case-sensitive).
    pub fn one_of<S: Into<String>>(allowed: impl IntoIterator<Item = S>) -> Self {
        Self { allowed: allowed.into_iter().map(Into::into).collect(), ignore_case: false }
    }

    /// Compares ignoring ASCII case (Kafka's `CaseInsensitiveValidString`).
    pub fn ignore_case(mut self) -> Self {
        self.ignore_case = true;
        self
    }

    fn allows(&self, value: &str) -> bool {
        self.allowed
            .iter()
            .any(|a| if self.ignore_case { a.eq_ignore_ascii_case(value) } else { a == value })
    }

    fn list(&self) -> String {
        format!("[{}]", self.allowed.join(", "))
    }
}

impl From<ValidString> for Validator {
    fn from(valid: ValidString) -> Self {
        Validator::new(valid.list(), move |v| {
            if valid.allows(v) {
                Ok(())
            } else {
                Err(format!("String must be one of: {}", valid.allowed.join(", ")))
            }
        })
    }
}

/// Every item of a `list` value is one of a fixed set (Kafka Connect's
/// `ConfigDef.ValidList.in`). Items are split at commas and trimmed, empty items dropped,
/// as [`Config::get_list`](crate::Config::get_list) reads them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValidList(ValidString);

impl ValidList {
    /// Every item is one of `allowed` (case-sensitive).
    pub fn of<S: Into<String>>(allowed: impl IntoIterator<Item = S>) -> Self {
        Self(ValidString::one_of(allowed))
    }
}

impl From<ValidList> for Validator {
    fn from(ValidList(valid): ValidList) -> Self {
        Validator::new(valid.list(), move |v| {
            let items = v.split(',').map(str::trim).filter(|s| !s.is_empty());
            match items.into_iter().find(|item| !valid.allows(item)) {
                None => Ok(()),
                Some(bad) => Err(format!(
                    "Invalid value {bad}; every item must be one of: {}",
                    valid.allowed.join(", ")
                )),
            }
        })
    }
}

/// A string that is not empty once trimmed (Kafka Connect's `ConfigDef.NonEmptyString`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NonEmptyString;

impl From<NonEmptyString> for Validator {
    fn from(_: NonEmptyString) -> Self {
        Validator::new("non-empty string", |v| {
            if v.is_empty() { Err("String must be non-empty".to_owned()) } else { Ok(()) }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(v: impl Into<Validator>, value: &str) -> Result<(), String> {
        v.into().ensure_valid(value)
    }

    #[test]
    fn ranges_compare_integers_exactly_and_say_the_bound() {
        assert_eq!(check(Range::at_least(1), "1"), Ok(()));
        assert_eq!(check(Range::at_least(1), "0").unwrap_err(), "Value must be at least 1");
        assert_eq!(check(Range::at_most(10), "11").unwrap_err(), "Value must be no more than 10");
        let big = Range::at_most(i64::MAX - 1);
        assert!(check(big, &i64::MAX.to_string()).is_err(), "no rounding through f64");
        assert_eq!(check(Range::between(0.5, 1.5), "1.5"), Ok(()));
        assert_eq!(
            check(Range::between(0.5, 1.5), "0.25").unwrap_err(),
            "Value must be between 0.5 and 1.5"
        );
        assert_eq!(check(Range::at_least(-1), "-1.0"), Ok(()));
        assert!(check(Range::at_least(0), "NaN").is_err());
        assert_eq!(Validator::from(Range::between(1, 5)).description(), "[1,...,5]");
        assert_eq!(Range::at_least(1).to_string(), "[1,...]");
    }

    #[test]
    fn valid_strings_and_lists_name_the_choices() {
        let modes = || ValidString::one_of(["none", "all"]);
        assert_eq!(check(modes(), "all"), Ok(()));
        assert_eq!(check(modes(), "ALL").unwrap_err(), "String must be one of: none, all");
        assert_eq!(check(modes().ignore_case(), "ALL"), Ok(()));
        let list = || ValidList::of(["a", "b"]);
        assert_eq!(check(list(), "a, b,,a"), Ok(()));
        assert!(check(list(), "a,c").unwrap_err().contains("Invalid value c"));
        assert_eq!(check(NonEmptyString, "").unwrap_err(), "String must be non-empty");
        assert_eq!(check(NonEmptyString, "x"), Ok(()));
    }

    #[test]
    fn custom_validators_compare_by_description() {
        let a = Validator::new("even", |v| {
            if v.parse::<i64>().is_ok_and(|n| n % 2 == 0) { Ok(()) } else { Err("odd".into()) }
        });
        assert_eq!(a.ensure_valid("3").unwrap_err(), "odd");
        assert_eq!(a.clone(), a);
        assert_eq!(format!("{a:?}"), "Validator(even)");
    }
}
