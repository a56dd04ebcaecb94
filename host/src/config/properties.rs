//! A parser for Java `.properties` files, following `java.util.Properties.load` as Kafka
//! Connect reads worker and connector files.
//!
//! Owns the grammar only: natural lines, comments, continuations, separators and escapes.
//! It gives keys no meaning and trims no values (Java keeps trailing whitespace); the
//! callers decide what a key means. One deliberate difference from Java: files are read as
//! UTF-8, not ISO-8859-1, and bytes that are not UTF-8 are an error naming the line.
//!
//! Grammar, as in Java:
//! - Natural lines end at `\n`, `\r\n` or `\r`. Leading spaces, tabs and form feeds are
//!   skipped.
//! - A line that is blank, or whose first non-blank character is `#` or `!`, is a comment.
//!   Comments never continue onto the next line.
//! - A line ending in an odd number of backslashes continues on the next line, whose
//!   leading whitespace is skipped. A continuation line is never a comment.
//! - The key ends at the first unescaped `=`, `:` or whitespace. Then whitespace, at most one
//!   `=` or `:`, and more whitespace are skipped; the rest of the line is the value.
//! - Escapes in keys and values: `\t \n \r \f`, `\uXXXX` (UTF-16, surrogate pairs
//!   joined), and `\` before any other character stands for that character (`\\`, `\=`,
//!   `\:`, `\ `, `\#`).
//! - A repeated key keeps its first position and its last value (Java's `Properties` is
//!   a map: the last assignment wins).

use std::path::{Path, PathBuf};

/// Why a properties file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum PropertiesError {
    /// The file could not be read.
    #[error("{}: cannot read: {source}", file.display())]
    Read {
        /// The file.
        file: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The text breaks the grammar (a bad `\u` escape, bytes that are not UTF-8).
    #[error("{}:{line}: {message}", file.display())]
    Syntax {
        /// The file.
        file: PathBuf,
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        message: String,
    },
}

/// Reads and parses a properties file.
pub fn read(file: &Path) -> Result<Vec<(String, String)>, PropertiesError> {
    let bytes = std::fs::read(file)
        .map_err(|source| PropertiesError::Read { file: file.to_path_buf(), source })?;
    match std::str::from_utf8(&bytes) {
        Ok(text) => parse(text, file),
        Err(e) => {
            let valid = &bytes[..e.valid_up_to()];
            let line = 1 + valid.iter().filter(|&&b| b == b'\n').count();
            Err(syntax(file, line, "the file is not valid UTF-8".to_owned()))
        }
    }
}

/// Parses properties text. `file` only names the source in errors.
pub fn parse(text: &str, file: &Path) -> Result<Vec<(String, String)>, PropertiesError> {
    let mut entries: Vec<(String, String)> = Vec::new();
    for logical in logical_lines(text) {
        let (key, value) = split_entry(&logical).map_err(|(line, m)| syntax(file, line, m))?;
        match entries.iter_mut().find(|(k, _)| *k == key) {
            Some(entry) => entry.1 = value,
            None => entries.push((key, value)),
        }
    }
    Ok(entries)
}

fn syntax(file: &Path, line: usize, message: String) -> PropertiesError {
    PropertiesError::Syntax { file: file.to_path_buf(), line, message }
}

/// One character of a logical line and the natural line it came from.
type Located = (char, usize);

fn is_blank(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\u{c}')
}

/// Joins natural lines into logical lines, dropping comments, blank lines and the
/// continuation backslashes.
fn logical_lines(text: &str) -> Vec<Vec<Located>> {
    let mut out = Vec::new();
    let mut current: Option<Vec<Located>> = None;
    for (index, natural) in natural_lines(text).enumerate() {
        let line = index + 1;
        let content = natural.trim_start_matches(is_blank);
        if current.is_none() && (content.is_empty() || content.starts_with(['#', '!'])) {
            continue;
        }
        let trailing = content.chars().rev().take_while(|&c| c == '\\').count();
        let continues = trailing % 2 == 1;
        let kept = if continues { &content[..content.len() - 1] } else { content };
        let logical = current.get_or_insert_with(Vec::new);
        logical.extend(kept.chars().map(|c| (c, line)));
        if !continues {
            out.extend(current.take());
        }
    }
    // A backslash on the last line continues into nothing: Java drops it.
    out.extend(current);
    out
}

fn natural_lines(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = Some(text);
    std::iter::from_fn(move || {
        let s = rest?;
        match s.find(['\n', '\r']) {
            Some(i) => {
                let skip = if s[i..].starts_with("\r\n") { 2 } else { 1 };
                rest = Some(&s[i + skip..]);
                Some(&s[..i])
            }
            None => {
                rest = None;
                (!s.is_empty()).then_some(s)
            }
        }
    })
}

/// Splits a logical line into its unescaped key and value.
fn split_entry(line: &[Located]) -> Result<(String, String), (usize, String)> {
    let mut key_end = line.len();
    let mut escaped = false;
    for (i, &(c, _)) in line.iter().enumerate() {
        if escaped {
            escaped = false;
        } else if c == '\\' {
            escaped = true;
        } else if c == '=' || c == ':' || is_blank(c) {
            key_end = i;
            break;
        }
    }
    let mut value_start = key_end;
    let mut has_separator = false;
    if let Some(&(c, _)) = line.get(key_end) {
        has_separator = c == '=' || c == ':';
        value_start += 1;
    }
    while let Some(&(c, _)) = line.get(value_start) {
        if is_blank(c) {
            value_start += 1;
        } else if !has_separator && (c == '=' || c == ':') {
            has_separator = true;
            value_start += 1;
        } else {
            break;
        }
    }
    Ok((unescape(&line[..key_end])?, unescape(&line[value_start..])?))
}

/// Resolves escapes. `\uXXXX` units are collected as UTF-16 so surrogate pairs join.
fn unescape(chars: &[Located]) -> Result<String, (usize, String)> {
    let mut units: Vec<u16> = Vec::with_capacity(chars.len());
    let mut it = chars.iter().copied();
    while let Some((c, line)) = it.next() {
        if c != '\\' {
            let mut buf = [0u16; 2];
            units.extend_from_slice(c.encode_utf16(&mut buf));
            continue;
        }
        let Some((escaped, _)) = it.next() else { break };
        let unit = match escaped {
            't' => u16::from(b'\t'),
            'n' => u16::from(b'\n'),
            'r' => u16::from(b'\r'),
            'f' => 0x0c,
            'u' => {
                let hex: String = it.by_ref().take(4).map(|(c, _)| c).collect();
                match u16::from_str_radix(&hex, 16) {
                    Ok(unit) if hex.len() == 4 && hex.chars().all(|c| c.is_ascii_hexdigit()) => {
                        unit
                    }
                    _ => return Err((line, format!("malformed \\uXXXX escape: \\u{hex}"))),
                }
            }
            other => {
                let mut buf = [0u16; 2];
                units.extend_from_slice(other.encode_utf16(&mut buf));
                continue;
            }
        };
        units.push(unit);
    }
    String::from_utf16(&units).map_err(|_| {
        let line = chars.first().map_or(0, |&(_, l)| l);
        (line, "a \\u escape is an unpaired UTF-16 surrogate".to_owned())
    })
}

#[cfg(test)]
#[path = "properties_tests.rs"]
mod tests;
