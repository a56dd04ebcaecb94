//! Tests of the properties grammar, one rule per test, and of read errors.

use std::path::Path;

use super::{PropertiesError, parse, read};

fn props(text: &str) -> Vec<(String, String)> {
    parse(text, Path::new("test.properties")).expect("parses")
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

#[test]
fn separators_equals_colon_and_whitespace() {
    let got = props("a=1\nb: 2\nc 3\nd\t=\t4\ne : 5\nf   6\n");
    assert_eq!(
        got,
        pairs(&[("a", "1"), ("b", "2"), ("c", "3"), ("d", "4"), ("e", "5"), ("f", "6")])
    );
}

#[test]
fn only_the_first_separator_is_consumed() {
    let got = props("a==1\nb = = 2\nc:=3\nd=x=y\n");
    assert_eq!(got, pairs(&[("a", "=1"), ("b", "= 2"), ("c", "=3"), ("d", "x=y")]));
}

#[test]
fn key_without_value_and_empty_value() {
    assert_eq!(props("lonely\nempty=\n"), pairs(&[("lonely", ""), ("empty", "")]));
}

#[test]
fn comments_and_blank_lines_are_skipped() {
    let got = props(
        "# hash comment\n! bang comment\n   # indented comment\n\n \t \na=1 # not a comment\n",
    );
    assert_eq!(got, pairs(&[("a", "1 # not a comment")]));
}

#[test]
fn leading_whitespace_is_ignored_trailing_kept() {
    assert_eq!(props("   \t key = value  \n"), pairs(&[("key", "value  ")]));
}

#[test]
fn line_endings_lf_crlf_cr() {
    assert_eq!(props("a=1\r\nb=2\rc=3"), pairs(&[("a", "1"), ("b", "2"), ("c", "3")]));
}

#[test]
fn trailing_backslash_continues_and_skips_next_indent() {
    let got = props("list=a,\\\n    b,\\\n\t c\nnext=1\n");
    assert_eq!(got, pairs(&[("list", "a,b,c"), ("next", "1")]));
}

#[test]
fn continuation_line_is_never_a_comment() {
    assert_eq!(props("a=x\\\n  # y\n"), pairs(&[("a", "x# y")]));
}

#[test]
fn comment_lines_do_not_continue() {
    assert_eq!(props("# comment \\\na=1\n"), pairs(&[("a", "1")]));
}

#[test]
fn even_number_of_backslashes_does_not_continue() {
    assert_eq!(props("a=x\\\\\nb=2\n"), pairs(&[("a", "x\\"), ("b", "2")]));
}

#[test]
fn backslash_on_the_last_line_is_dropped() {
    assert_eq!(props("a=x\\"), pairs(&[("a", "x")]));
}

#[test]
fn continuation_into_a_blank_line_ends_the_entry() {
    assert_eq!(props("a=x\\\n\nb=2\n"), pairs(&[("a", "x"), ("b", "2")]));
}

#[test]
fn escapes() {
    let got = props(r"a=tab\there\nnew\rret\fff\\back\u0041\u00e9\q");
    assert_eq!(got, pairs(&[("a", "tab\there\nnew\rret\u{c}ff\\backAéq")]));
}

#[test]
fn escaped_separators_belong_to_the_key() {
    let got = props(r"my\=key\:with\ space=v\=1");
    assert_eq!(got, pairs(&[("my=key:with space", "v=1")]));
}

#[test]
fn surrogate_pairs_join() {
    assert_eq!(props(r"smile=\uD83D\uDE00"), pairs(&[("smile", "😀")]));
}

#[test]
fn duplicate_keys_last_value_wins_in_first_position() {
    assert_eq!(props("a=1\nb=2\na=3\n"), pairs(&[("a", "3"), ("b", "2")]));
}

#[test]
fn malformed_unicode_escape_names_file_and_line() {
    let err = parse("a=1\nb=\\u12G4\n", Path::new("w.properties")).unwrap_err();
    assert_eq!(err.to_string(), r"w.properties:2: malformed \uXXXX escape: \u12G4");
    let err = parse("a=1\n\nb=x\\\n  \\u12", Path::new("w.properties")).unwrap_err();
    assert!(matches!(err, PropertiesError::Syntax { line: 4, .. }), "{err}");
}

#[test]
fn unpaired_surrogate_is_an_error() {
    let err = parse("a=\\uD83D\n", Path::new("w.properties")).unwrap_err();
    assert!(err.to_string().starts_with("w.properties:1: "), "{err}");
}

#[test]
fn read_reports_missing_file_and_invalid_utf8() {
    let err = read(Path::new("/nonexistent/w.properties")).unwrap_err();
    assert!(err.to_string().starts_with("/nonexistent/w.properties: cannot read"), "{err}");

    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("latin1.properties");
    std::fs::write(&file, b"a=1\nb=caf\xe9\n").unwrap();
    let err = read(&file).unwrap_err();
    assert!(matches!(err, PropertiesError::Syntax { line: 2, .. }), "{err}");
}
