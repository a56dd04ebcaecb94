//! Quoting identifiers and literals into SQL text, as the JDBC connectors do with
//! `quote.sql.identifiers=always`.

/// `name` as a quoted identifier: `"a""b"` for `a"b`. A dotted name
/// (`schema.table`) is quoted part by part.
pub fn quote_ident(name: &str) -> String {
    name.split('.')
        .map(|part| format!("\"{}\"", part.replace('"', "\"\"")))
        .collect::<Vec<_>>()
        .join(".")
}

/// `text` as a string literal (standard_conforming_strings, PostgreSQL's default).
pub fn quote_literal(text: &str) -> String {
    format!("'{}'", text.replace('\'', "''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_are_doubled() {
        assert_eq!(quote_ident("we\"ird"), "\"we\"\"ird\"");
        assert_eq!(quote_ident("public.t"), "\"public\".\"t\"");
        assert_eq!(quote_literal("it's"), "'it''s'");
    }
}
