//! The built-in transforms and predicates by class name: their definitions
//! ([`TransformDef`], [`PredicateDef`]) and the traits a built one implements
//! ([`Transformation`], [`Predicate`]).
//!
//! A class is found by its full name (`org.apache.kafka.connect.transforms.Filter`) or by
//! the alias Kafka Connect derives from it, its simple name (`Filter`,
//! `InsertField$Value`). This module owns the lookup; what each class does lives in
//! `smt/` and `predicates/`.

use crate::config::{KeyDef, Parsed, Problem};
use crate::{Record, TransformError};

/// A configured transform: Kafka Connect's `Transformation.apply`. One instance serves
/// one task, so `apply` may keep caches in `self`.
pub trait Transformation: Send + Sync {
    /// The record transformed, or `None` to drop it.
    fn apply(&mut self, record: Record) -> Result<Option<Record>, TransformError>;
}

/// A configured predicate: Kafka Connect's `Predicate.test`.
pub trait Predicate: Send + Sync {
    /// Whether the record matches.
    fn test(&mut self, record: &Record) -> bool;
}

/// Builds a transform from its parsed keys.
pub type BuildTransform = fn(&Parsed) -> Result<Box<dyn Transformation>, Vec<Problem>>;
/// Builds a predicate from its parsed keys.
pub type BuildPredicate = fn(&Parsed) -> Result<Box<dyn Predicate>, Vec<Problem>>;

/// A built-in transform class.
pub struct TransformDef {
    /// The class name, e.g. `org.apache.kafka.connect.transforms.InsertField$Value`.
    pub class: &'static str,
    /// What it does, as Kafka Connect's `OVERVIEW_DOC` says.
    pub doc: &'static str,
    /// Its keys (Kafka Connect's `config()`).
    pub keys: &'static [KeyDef],
    /// Builds it from its parsed keys; problems a key's type and validator cannot catch
    /// (a bad `spec`) name the key.
    pub build: BuildTransform,
}

/// A built-in predicate class.
pub struct PredicateDef {
    /// The class name, e.g. `org.apache.kafka.connect.transforms.predicates.HasHeaderKey`.
    pub class: &'static str,
    /// What it does.
    pub doc: &'static str,
    /// Its keys.
    pub keys: &'static [KeyDef],
    /// Builds it from its parsed keys.
    pub build: BuildPredicate,
}

/// Every built-in transform, ordered by class name.
pub fn transforms() -> Vec<&'static TransformDef> {
    let mut all: Vec<&'static TransformDef> =
        crate::smt::ALL.iter().flat_map(|m| m.iter()).collect();
    all.sort_by_key(|d| d.class);
    all
}

/// Every built-in predicate, ordered by class name.
pub fn predicates() -> Vec<&'static PredicateDef> {
    let mut all: Vec<&'static PredicateDef> =
        crate::predicates::ALL.iter().flat_map(|m| m.iter()).collect();
    all.sort_by_key(|d| d.class);
    all
}

/// The built-in transform `name` names: its class or its simple name.
pub fn transform(name: &str) -> Option<&'static TransformDef> {
    transforms().into_iter().find(|d| d.class == name || simple_name(d.class) == name)
}

/// The built-in predicate `name` names: its class or its simple name.
pub fn predicate(name: &str) -> Option<&'static PredicateDef> {
    predicates().into_iter().find(|d| d.class == name || simple_name(d.class) == name)
}

/// A class name without its package: `InsertField$Value` for
/// `org.apache.kafka.connect.transforms.InsertField$Value`.
pub fn simple_name(class: &str) -> &str {
    class.rsplit('.').next().unwrap_or(class)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_are_unique_and_found_by_either_name() {
        let all = transforms();
        for pair in all.windows(2) {
            assert_ne!(pair[0].class, pair[1].class);
        }
        for d in all {
            assert!(d.class.starts_with("org.apache.kafka.connect.transforms."), "{}", d.class);
            assert!(std::ptr::eq(transform(d.class).unwrap(), d));
            assert!(std::ptr::eq(transform(simple_name(d.class)).unwrap(), d));
        }
        for d in predicates() {
            assert!(d.class.starts_with("org.apache.kafka.connect.transforms.predicates."));
            assert!(std::ptr::eq(predicate(simple_name(d.class)).unwrap(), d));
        }
        assert!(transform("org.example.Nope").is_none());
    }
}
