//! Local `$ref`s: JSON pointers into the registered document itself. References to other
//! documents (schema references, URLs) are not resolved: this crate does no I/O.

use wasm_connect_transforms::data::schemaless::json::Json;

use super::unsupported;
use crate::FormatError;

/// The schema a local `$ref` points at (`#`, `#/definitions/X`, `#/$defs/X`, any JSON
/// pointer into the same document).
pub(super) fn resolve<'j>(root: &'j Json, pointer: &str) -> Result<&'j Json, FormatError> {
    let Some(path) = pointer.strip_prefix('#') else {
        return unsupported(format!(
            "Unsupported $ref {pointer}: only references inside the schema are supported"
        ));
    };
    let mut node = root;
    if path.is_empty() {
        return Ok(node);
    }
    let Some(path) = path.strip_prefix('/') else {
        return unsupported(format!("Unsupported $ref {pointer}: not a JSON pointer"));
    };
    for token in path.split('/') {
        let token = percent_decoded(token).replace("~1", "/").replace("~0", "~");
        node = match node {
            Json::Object(_) => node.get(&token),
            Json::Array(items) => token.parse::<usize>().ok().and_then(|i| items.get(i)),
            _ => None,
        }
        .ok_or_else(|| FormatError::RegisteredSchema(format!("Unresolvable $ref {pointer}")))?;
    }
    Ok(node)
}

/// `%XX` escapes of a URI fragment, decoded (invalid ones kept as written).
fn percent_decoded(token: &str) -> String {
    let bytes = token.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes.get(i + 1..i + 3).and_then(|h| std::str::from_utf8(h).ok());
        match (bytes[i], hex.and_then(|h| u8::from_str_radix(h, 16).ok())) {
            (b'%', Some(b)) => {
                out.push(b);
                i += 3;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}
