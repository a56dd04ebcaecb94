//! Avro names: whether a name is valid, `AvroData`'s scrubbing of invalid ones
//! (`scrub.invalid.names`), and splitting a Connect full name into namespace and name.
//! This module owns name text only.

/// Whether `name` is a valid Avro name: `[A-Za-z_][A-Za-z0-9_]*`.
pub fn is_valid(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// `AvroData.doScrubName`: a valid name is kept; otherwise the name is URL-encoded
/// (UTF-8, space as `+`), prefixed with `x` if it starts with a digit, and every
/// character other than `[A-Za-z0-9_]` becomes `_`.
pub fn scrub(name: &str) -> String {
    if name.is_empty() || is_valid(name) {
        return name.to_owned();
    }
    let mut encoded = String::with_capacity(name.len() * 3);
    for b in name.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'.' | b'-' | b'*' | b'_' => {
                encoded.push(b as char)
            }
            b' ' => encoded.push('+'),
            _ => encoded.push_str(&format!("%{b:02X}")),
        }
    }
    if encoded.starts_with(|c: char| c.is_ascii_digit()) {
        encoded.insert(0, 'x');
    }
    encoded.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' }).collect()
}

/// The name as written: scrubbed if `scrubbing`.
pub fn maybe_scrub(name: &str, scrubbing: bool) -> String {
    if scrubbing { scrub(name) } else { name.to_owned() }
}

/// `AvroData.splitName`: namespace (everything before the last dot, `None` without one)
/// and simple name, each part scrubbed if `scrubbing`.
pub fn split(full: &str, scrubbing: bool) -> (Option<String>, String) {
    let mut parts: Vec<String> = full.split('.').map(|p| maybe_scrub(p, scrubbing)).collect();
    // Java's String.split drops trailing empty parts.
    while parts.len() > 1 && parts.last().is_some_and(String::is_empty) {
        parts.pop();
    }
    let name = parts.pop().unwrap_or_default();
    if parts.is_empty() { (None, name) } else { (Some(parts.join(".")), name) }
}

/// `AvroData.scrubFullName`: the full name with each part scrubbed if `scrubbing`.
pub fn scrub_full(full: &str, scrubbing: bool) -> String {
    if !scrubbing {
        return full.to_owned();
    }
    match split(full, true) {
        (Some(ns), name) => format!("{ns}.{name}"),
        (None, name) => name,
    }
}
