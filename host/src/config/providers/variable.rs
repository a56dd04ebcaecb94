//! [`Variable`]: one `${provider:path:key}` or `${provider:key}` reference in a config
//! value, found with Kafka's pattern (`ConfigTransformer.DEFAULT_PATTERN`), and the
//! replacement of the references that resolved.
//!
//! This file owns the syntax only: it reads no provider and decides nothing about a
//! reference that did not resolve (it stays as written).

use std::sync::LazyLock;

use regex::{Captures, Regex};

/// Kafka's pattern, character for character: `${`, the provider, `:`, an optional path
/// followed by `:`, the key, `}`; no part may hold `}`. The quantifiers are lazy and the
/// engine matches leftmost-first, as Java's does, so `${file:/a:b:c}` has path `/a` and
/// key `b:c`.
static PATTERN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\$\{([^}]*?):(([^}]*?):)?([^}]*?)\}").expect("the variable pattern compiles")
});

/// One variable reference.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Variable<'a> {
    /// The provider's name (`file`).
    pub provider: &'a str,
    /// The path (a file or directory); empty when the reference has none (`${env:HOME}`).
    pub path: &'a str,
    /// The key asked of the provider at that path.
    pub key: &'a str,
}

impl<'a> Variable<'a> {
    fn of(c: &Captures<'a>) -> Self {
        let part = |i| c.get(i).map_or("", |m| m.as_str());
        Self { provider: part(1), path: part(3), key: part(4) }
    }
}

/// Every reference in `value`, in order.
pub fn find(value: &str) -> impl Iterator<Item = Variable<'_>> {
    PATTERN.captures_iter(value).map(|c| Variable::of(&c))
}

/// Whether `value` holds at least one reference.
pub fn has_variables(value: &str) -> bool {
    PATTERN.is_match(value)
}

/// `value` with each reference replaced by what `lookup` answers for it; a reference it
/// answers `None` for stays as written. `replaced` gets each replacement made, as
/// (value, the reference's text).
pub fn replace<'v, 'r>(
    value: &'v str,
    mut lookup: impl FnMut(&Variable<'v>) -> Option<&'r str>,
    replaced: &mut Vec<(String, String)>,
) -> String {
    let mut out = String::with_capacity(value.len());
    let mut last = 0;
    for c in PATTERN.captures_iter(value) {
        let whole = c.get(0).expect("group 0 is the match");
        out.push_str(&value[last..whole.start()]);
        match lookup(&Variable::of(&c)) {
            Some(resolved) => {
                out.push_str(resolved);
                replaced.push((resolved.to_owned(), whole.as_str().to_owned()));
            }
            None => out.push_str(whole.as_str()),
        }
        last = whole.end();
    }
    out.push_str(&value[last..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn var<'a>(provider: &'a str, path: &'a str, key: &'a str) -> Variable<'a> {
        Variable { provider, path, key }
    }

    #[test]
    fn the_three_parts_and_the_optional_path() {
        assert_eq!(
            find("${file:/etc/s.properties:password}").collect::<Vec<_>>(),
            [var("file", "/etc/s.properties", "password")]
        );
        assert_eq!(find("${env:HOME}").collect::<Vec<_>>(), [var("env", "", "HOME")]);
        // Lazy groups: the path is the shortest, the key keeps the rest.
        assert_eq!(find("${file:/a:b:c}").collect::<Vec<_>>(), [var("file", "/a", "b:c")]);
        // An empty path written out is the empty path.
        assert_eq!(find("${dir::k}").collect::<Vec<_>>(), [var("dir", "", "k")]);
    }

    #[test]
    fn several_references_in_one_value_and_text_around_them() {
        let value = "jdbc:x://${env:HOST}:5432/db?user=${file:/s:user}&x=${";
        assert_eq!(
            find(value).collect::<Vec<_>>(),
            [var("env", "", "HOST"), var("file", "/s", "user")]
        );
        let mut replaced = Vec::new();
        let out = replace(
            value,
            |v| match v.key {
                "HOST" => Some("db1"),
                _ => None,
            },
            &mut replaced,
        );
        assert_eq!(out, "jdbc:x://db1:5432/db?user=${file:/s:user}&x=${");
        assert_eq!(replaced, [("db1".to_owned(), "${env:HOST}".to_owned())]);
    }

    #[test]
    fn what_is_not_a_reference() {
        for value in ["plain", "${novariable}", "$file:/a:b}", "{file:/a:b}", "${file:/a:b"] {
            assert!(!has_variables(value), "{value}");
        }
        assert!(has_variables("x${a:b}y"));
        // No part holds `}`: the first `}` closes the reference.
        assert_eq!(find("${a:b}c}").collect::<Vec<_>>(), [var("a", "", "b")]);
    }
}
