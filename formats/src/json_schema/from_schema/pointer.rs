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
    percent_encoding::percent_decode_str(token).decode_utf8_lossy().into_owned()
}
