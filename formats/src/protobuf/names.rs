//! Protobuf names as `ProtobufData` derives them: splitting a Connect name into package and
//! message name, default names (`ConnectDefault<n>`), map entry message names and back, and
//! `scrub.invalid.names`. It owns the spelling only, not where names are used.

/// The parameter holding a field's tag.
pub const TAG: &str = "io.confluent.connect.protobuf.Tag";
/// The parameter holding the protobuf type of an integer that is not `int32`/`int64`.
pub const TYPE: &str = "io.confluent.connect.protobuf.Type";
/// The parameter naming an enum (and, with a `.` and a symbol, each symbol's number).
pub const ENUM: &str = "io.confluent.connect.protobuf.Enum";
/// The name prefix of a STRUCT that stands for a oneof.
pub const UNION_PREFIX: &str = "io.confluent.connect.protobuf.Union.";
/// The field option parameter holding the Connect type of an INT8 or INT16.
pub const CONNECT_TYPE: &str = "connect.type";
/// The Connect Decimal's precision parameter.
pub const CONNECT_PRECISION: &str = "connect.decimal.precision";
/// The prefix of names given to unnamed schemas.
pub const DEFAULT_NAME: &str = "ConnectDefault";
/// The suffix of a map entry message.
pub const ENTRY_SUFFIX: &str = "Entry";

/// `name` split at its last dot into (package, simple name), each part scrubbed if asked.
pub fn split(name: &str, scrub_names: bool) -> (Option<String>, String) {
    let parts: Vec<String> = name.split('.').map(|p| scrub(p, scrub_names)).collect();
    match parts.split_last() {
        Some((last, [])) => (None, last.clone()),
        Some((last, rest)) => (Some(rest.join(".")), last.clone()),
        None => (None, String::new()),
    }
}

/// The part of `name` after its last dot, scrubbed if asked.
pub fn unqualified(name: &str, scrub_names: bool) -> String {
    scrub(name.rsplit('.').next().unwrap_or(name), scrub_names)
}

/// The entry message name of a map called `name` (`my_map` → `MyMapEntry`).
pub fn map_entry(name: &str) -> String {
    let camel =
        if name.contains('_') { lower_underscore_to_upper_camel(name) } else { name.into() };
    camel + ENTRY_SUFFIX
}

/// The Connect name of a map whose entry message is `name` (`a.MyMapEntry` → `a.my_map`).
pub fn map_field(name: &str) -> String {
    let (head, last) = match name.rsplit_once('.') {
        Some((head, last)) => (Some(head), last),
        None => (None, name),
    };
    let last = match last.strip_suffix(ENTRY_SUFFIX) {
        Some(stem) => upper_camel_to_lower_underscore(stem),
        None => last.to_owned(),
    };
    match head {
        Some(head) => format!("{head}.{last}"),
        None => last,
    }
}

fn lower_underscore_to_upper_camel(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for word in s.split('_') {
        let mut chars = word.chars();
        if let Some(first) = chars.next() {
            out.extend(first.to_uppercase());
            out.extend(chars.flat_map(char::to_lowercase));
        }
    }
    out
}

fn upper_camel_to_lower_underscore(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 4);
    for (i, c) in s.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// `name` with what a protobuf identifier cannot hold replaced, when `scrub_names` is set
/// (`ProtobufData.doScrubName`: URL-encode, prefix `x` before a digit or `_`, then every
/// other character but letters, digits and `_` becomes `_`).
pub fn scrub(name: &str, scrub_names: bool) -> String {
    let ok = |c: char| c.is_ascii_alphanumeric() || c == '_';
    if !scrub_names
        || name.is_empty()
        || (name.chars().all(ok) && !name.starts_with(|c: char| c.is_ascii_digit() || c == '_'))
    {
        return name.to_owned();
    }
    let mut encoded = String::with_capacity(name.len() * 3);
    for byte in name.bytes() {
        match byte {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'.' | b'-' | b'*' | b'_' => {
                encoded.push(byte as char)
            }
            b' ' => encoded.push('+'),
            _ => encoded.push_str(&format!("%{byte:02X}")),
        }
    }
    if encoded.starts_with(|c: char| c.is_ascii_digit() || c == '_') {
        encoded.insert(0, 'x');
    }
    encoded.chars().map(|c| if ok(c) { c } else { '_' }).collect()
}
