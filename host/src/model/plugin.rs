//! What the worker knows about an installed plugin, read from the component itself.

use std::fmt;
use std::path::PathBuf;

use super::ConfigDef;

/// Which world a plugin implements.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PluginKind {
    /// Exports `source-task`: produces records.
    Source,
    /// Exports `sink-task`: consumes records.
    Sink,
    /// Exports `transformation`: a single message transform.
    Transform,
}

impl fmt::Display for PluginKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Source => "source",
            Self::Sink => "sink",
            Self::Transform => "transform",
        })
    }
}

/// The language a component was written in, as far as its producers section tells.
/// It selects the default sandbox limits: interpreted guests carry a whole runtime and
/// need more memory than compiled ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Language {
    /// Compiled Rust.
    Rust,
    /// CPython inside the component (componentize-py).
    Python,
    /// A JavaScript engine inside the component (componentize-js).
    JavaScript,
    /// Anything else, treated like an interpreted guest.
    Other,
}

impl fmt::Display for Language {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Rust => "rust",
            Self::Python => "python",
            Self::JavaScript => "javascript",
            Self::Other => "other",
        })
    }
}

/// Everything the worker read from one plugin component.
#[derive(Clone, Debug)]
pub struct PluginInfo {
    /// The name users write in `connector.class`.
    pub name: String,
    /// The plugin's own version string.
    pub version: String,
    /// Source or sink.
    pub kind: PluginKind,
    /// Guest language, for default limits.
    pub language: Language,
    /// The `.wasm` file it was loaded from.
    pub file: PathBuf,
    /// SHA-256 of the component bytes, hex.
    pub digest: String,
    /// The plugin's config definition.
    pub config_def: ConfigDef,
    /// Capabilities the component imports beyond the contract (`wasi:filesystem`, …).
    pub imports: Vec<String>,
}

impl PluginInfo {
    /// The capabilities a user may grant this plugin: WASI areas it imports, plus the
    /// grants its config keys can carry. Sorted, without duplicates.
    pub fn capabilities(&self) -> Vec<String> {
        let mut caps: Vec<String> = self
            .imports
            .iter()
            .filter_map(|i| capability_of_import(i).map(str::to_owned))
            .chain(
                self.config_def
                    .keys
                    .iter()
                    .filter_map(|k| k.grant.map(|g| format!("{g} ({})", k.name))),
            )
            .collect();
        caps.sort();
        caps.dedup();
        caps
    }
}

/// The capability area of a WASI import, or `None` for imports every guest has
/// (stdio, I/O streams, exit) and the contract's own interfaces.
fn capability_of_import(name: &str) -> Option<&'static str> {
    let iface = name.split('@').next().unwrap_or(name);
    match iface {
        n if n.starts_with("wasi:filesystem/") => Some("filesystem"),
        n if n.starts_with("wasi:sockets/") => Some("network"),
        "wasi:cli/environment" => Some("environment"),
        n if n.starts_with("wasi:clocks/") => Some("clock"),
        n if n.starts_with("wasi:random/") => Some("random"),
        n if n.starts_with("wasi:http/") => Some("http"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn imports_map_to_capability_areas() {
        assert_eq!(capability_of_import("wasi:filesystem/types@0.2.6"), Some("filesystem"));
        assert_eq!(capability_of_import("wasi:sockets/tcp@0.2.6"), Some("network"));
        assert_eq!(capability_of_import("wasi:cli/stderr@0.2.6"), None);
        assert_eq!(capability_of_import("wasm-connect:connector/host@0.1.1"), None);
    }
}
