//! [`Filters`]: which schemas, tables and columns are captured, by Debezium's rules.
//!
//! Each list is comma-separated regular expressions matched case-insensitively against
//! the whole name (`schema`, `schema.table`, `schema.table.column`, a logical decoding
//! message's prefix); an include list keeps only what matches, an exclude list drops what
//! matches, and no list keeps everything.
//! PostgreSQL's system schemas are never captured. This module only matches names: it
//! neither reads the catalog nor checks that include and exclude are not both set (that
//! is `config::problems`).

use regex_lite::Regex;
use wasm_connect_sdk::Config;

use crate::config::{
    COLUMN_EXCLUDE, COLUMN_INCLUDE, MESSAGE_PREFIX_EXCLUDE, MESSAGE_PREFIX_INCLUDE, SCHEMA_EXCLUDE,
    SCHEMA_INCLUDE, TABLE_EXCLUDE, TABLE_INCLUDE,
};

/// One level's rule.
#[derive(Clone, Debug, Default)]
enum Rule {
    #[default]
    All,
    Include(Vec<Regex>),
    Exclude(Vec<Regex>),
}

impl Rule {
    fn parse(config: &Config, include: &str, exclude: &str) -> Result<Self, String> {
        let list = |key: &str| -> Result<Vec<Regex>, String> {
            config
                .get_list(key)
                .iter()
                .map(|p| compile(p).map_err(|e| format!("{key}: {e}")))
                .collect()
        };
        let (inc, exc) = (list(include)?, list(exclude)?);
        Ok(match (inc.is_empty(), exc.is_empty()) {
            (true, true) => Rule::All,
            (false, true) => Rule::Include(inc),
            (true, false) => Rule::Exclude(exc),
            (false, false) => return Err(format!("{include} and {exclude} cannot both be set")),
        })
    }

    fn keeps(&self, name: &str) -> bool {
        match self {
            Rule::All => true,
            Rule::Include(res) => res.iter().any(|r| r.is_match(name)),
            Rule::Exclude(res) => !res.iter().any(|r| r.is_match(name)),
        }
    }
}

/// A pattern compiled to match a whole name, ignoring case (as Debezium's lists do).
pub fn compile(pattern: &str) -> Result<Regex, String> {
    Regex::new(&format!("(?i)^(?:{})$", pattern.trim())).map_err(|e| e.to_string())
}

/// Whether `schema` is one of PostgreSQL's own.
pub fn is_system_schema(schema: &str) -> bool {
    matches!(schema, "pg_catalog" | "information_schema" | "pg_toast")
        || schema.starts_with("pg_temp_")
        || schema.starts_with("pg_toast_temp_")
}

/// The schema, table and column filters of a configuration.
#[derive(Clone, Debug, Default)]
pub struct Filters {
    schemas: Rule,
    tables: Rule,
    columns: Rule,
    message_prefixes: Rule,
}

impl Filters {
    /// The filters of `config`: an error names a bad pattern or two conflicting lists.
    pub fn parse(config: &Config) -> Result<Self, String> {
        Ok(Self {
            schemas: Rule::parse(config, SCHEMA_INCLUDE, SCHEMA_EXCLUDE)?,
            tables: Rule::parse(config, TABLE_INCLUDE, TABLE_EXCLUDE)?,
            columns: Rule::parse(config, COLUMN_INCLUDE, COLUMN_EXCLUDE)?,
            message_prefixes: Rule::parse(config, MESSAGE_PREFIX_INCLUDE, MESSAGE_PREFIX_EXCLUDE)?,
        })
    }

    /// Whether changes of `schema.table` are captured.
    pub fn include_table(&self, schema: &str, table: &str) -> bool {
        !is_system_schema(schema)
            && self.schemas.keeps(schema)
            && self.tables.keeps(&format!("{schema}.{table}"))
    }

    /// Whether `column` of `schema.table` appears in events.
    pub fn include_column(&self, schema: &str, table: &str, column: &str) -> bool {
        self.columns.keeps(&format!("{schema}.{table}.{column}"))
    }

    /// Whether logical decoding messages with `prefix` are emitted.
    pub fn include_message(&self, prefix: &str) -> bool {
        self.message_prefixes.keeps(prefix)
    }

    /// Whether a table include list is set (a `filtered` publication then names tables).
    pub fn has_table_include_list(&self) -> bool {
        matches!(self.tables, Rule::Include(_))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn filters(pairs: &[(&str, &str)]) -> Result<Filters, String> {
        Filters::parse(&pairs.iter().map(|(k, v)| (*k, *v)).collect())
    }

    #[test]
    fn no_lists_keep_every_user_table_and_no_system_one() {
        let f = filters(&[]).unwrap();
        assert!(f.include_table("public", "t"));
        assert!(!f.include_table("pg_catalog", "pg_class"));
        assert!(!f.include_table("information_schema", "tables"));
        assert!(f.include_column("public", "t", "c"));
    }

    #[test]
    fn table_lists_match_the_whole_qualified_name_ignoring_case() {
        let f = filters(&[(TABLE_INCLUDE, "public.cust.*, inv\\.items")]).unwrap();
        assert!(f.include_table("public", "customers"));
        assert!(f.include_table("PUBLIC", "Customers"));
        assert!(f.include_table("inv", "items"));
        assert!(!f.include_table("inv", "items2"), "anchored at the end");
        assert!(!f.include_table("xpublic", "customers"), "anchored at the start");
        let f = filters(&[(TABLE_EXCLUDE, "public\\.secret")]).unwrap();
        assert!(!f.include_table("public", "secret"));
        assert!(f.include_table("public", "secrets"));
    }

    #[test]
    fn schema_and_column_lists_combine_with_table_lists() {
        let f = filters(&[(SCHEMA_INCLUDE, "app"), (TABLE_EXCLUDE, "app\\.audit")]).unwrap();
        assert!(f.include_table("app", "orders"));
        assert!(!f.include_table("app", "audit"));
        assert!(!f.include_table("public", "orders"));
        let f = filters(&[(COLUMN_EXCLUDE, "app\\.users\\.(password|salt)")]).unwrap();
        assert!(!f.include_column("app", "users", "password"));
        assert!(f.include_column("app", "users", "name"));
        assert!(f.include_column("app", "other", "password"));
        let f = filters(&[(MESSAGE_PREFIX_EXCLUDE, "audit.*")]).unwrap();
        assert!(!f.include_message("audit-1") && f.include_message("cdc-test"));
        assert!(filters(&[]).unwrap().include_message("anything"));
    }

    #[test]
    fn include_and_exclude_of_one_level_conflict_and_bad_patterns_are_named() {
        let err = filters(&[(TABLE_INCLUDE, "a\\.b"), (TABLE_EXCLUDE, "c\\.d")]).unwrap_err();
        assert!(err.contains("cannot both be set"), "{err}");
        let err = filters(&[(SCHEMA_INCLUDE, "(")]).unwrap_err();
        assert!(err.starts_with(SCHEMA_INCLUDE), "{err}");
    }
}
