//! [`ProjectNames`]: the names a new plugin project is known by, derived from the one the
//! author typed.
//!
//! This module owns the rules for that name and the derived forms (crate, module and class
//! names). It does not touch the file system.

use std::fmt;

/// The longest project name accepted; a `connector.class` is typed by users.
const MAX_LEN: usize = 64;

/// The forms of a project name the templates use.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProjectNames {
    /// As typed: lowercase words joined by `-`, e.g. `orders-source`.
    pub name: String,
    /// Words joined by `_`, e.g. `orders_source`: a Rust crate or Python module name.
    pub snake: String,
    /// Capitalised words, e.g. `OrdersSource`: the plugin's `connector.class`.
    pub class: String,
}

/// Why a project name was refused.
#[derive(Debug, PartialEq, Eq)]
pub struct BadName(String);

impl fmt::Display for BadName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BadName {}

impl ProjectNames {
    /// The names for `name`: lowercase ASCII letters and digits in words joined by `-` or
    /// `_`, starting with a letter.
    pub fn parse(name: &str) -> Result<Self, BadName> {
        let bad = |why: &str| Err(BadName(format!("invalid plugin name {name:?}: {why}")));
        if name.is_empty() || name.len() > MAX_LEN {
            return bad(&format!("use 1 to {MAX_LEN} characters"));
        }
        if !name.starts_with(|c: char| c.is_ascii_lowercase()) {
            return bad("start with a lowercase letter");
        }
        if let Some(c) = name
            .chars()
            .find(|c| !(c.is_ascii_lowercase() || c.is_ascii_digit() || "-_".contains(*c)))
        {
            return bad(&format!("{c:?} is not allowed; use a-z, 0-9, '-' and '_'"));
        }
        let words: Vec<&str> = name.split(['-', '_']).collect();
        if words.iter().any(|w| w.is_empty()) {
            return bad("words must not be empty (no leading, trailing or doubled '-' or '_')");
        }
        let class = words
            .iter()
            .map(|w| {
                let (first, rest) = w.split_at(1);
                first.to_ascii_uppercase() + rest
            })
            .collect();
        Ok(Self { name: words.join("-"), snake: words.join("_"), class })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derives_crate_module_and_class_names() {
        let n = ProjectNames::parse("orders-source_v2").unwrap();
        assert_eq!(n.name, "orders-source-v2");
        assert_eq!(n.snake, "orders_source_v2");
        assert_eq!(n.class, "OrdersSourceV2");
    }

    #[test]
    fn refuses_names_no_language_can_use() {
        for bad in ["", "Orders", "9lives", "a b", "a--b", "a-", "-a", "caf\u{e9}", "a/b"] {
            let err = ProjectNames::parse(bad).unwrap_err();
            assert!(err.to_string().contains("invalid plugin name"), "{bad}: {err}");
        }
        assert!(ProjectNames::parse(&"a".repeat(MAX_LEN + 1)).is_err());
    }
}
