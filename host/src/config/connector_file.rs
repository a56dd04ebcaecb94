//! Connector config files given to `wasm-connect standalone WORKER.properties
//! CONNECTOR.json|CONNECTOR.properties ...`, read as Kafka Connect's standalone mode reads
//! them.
//!
//! - `.json`: either `{"name": ..., "config": {...}}` (the `POST /connectors` body) or a
//!   flat object with a `name` key. Numbers and booleans become strings, as Kafka Connect's
//!   REST layer coerces them; null, arrays and objects are errors naming the key.
//! - `.properties`: flat, with a `name` key.
//!
//! This module owns the file shapes only. It does not validate connector keys (the herder
//! and the plugin do) and it keeps values untrimmed.

use std::path::{Path, PathBuf};

use crate::config::ordered_json::Node;
use crate::config::properties::{self, PropertiesError};

/// The key holding a connector's name.
const NAME: &str = "name";

/// Why a connector file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ConnectorFileError {
    /// The file could not be read.
    #[error("{}: cannot read: {source}", file.display())]
    Read {
        /// The file.
        file: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// Neither `.json` nor `.properties`.
    #[error("{}: expected a .json or .properties connector config file", file.display())]
    Extension {
        /// The file.
        file: PathBuf,
    },
    /// A `.properties` file that breaks the grammar.
    #[error(transparent)]
    Properties(#[from] PropertiesError),
    /// Not JSON.
    #[error("{}: invalid JSON: {source}", file.display())]
    Json {
        /// The file.
        file: PathBuf,
        /// The parser's error, with line and column.
        source: serde_json::Error,
    },
    /// JSON, but not one of the two accepted shapes, or no usable `name`.
    #[error("{}: {message}", file.display())]
    Shape {
        /// The file.
        file: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// A config value that is not a string, number or boolean.
    #[error("{}: {key}: expected a string, number or boolean, got {found}", file.display())]
    Value {
        /// The file.
        file: PathBuf,
        /// The key.
        key: String,
        /// What was found ("an object", "null", …).
        found: &'static str,
    },
}

/// A connector's name and its config (which includes `name`).
pub type ConnectorFile = (String, Vec<(String, String)>);

/// Reads a connector config file, choosing the format by extension.
pub fn read_connector_file(file: &Path) -> Result<ConnectorFile, ConnectorFileError> {
    let extension = file.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
    match extension.as_deref() {
        Some("json") => {
            let text = std::fs::read_to_string(file)
                .map_err(|source| ConnectorFileError::Read { file: file.to_path_buf(), source })?;
            parse_connector_json(&text, file)
        }
        Some("properties") => from_properties(properties::read(file)?, file),
        _ => Err(ConnectorFileError::Extension { file: file.to_path_buf() }),
    }
}

/// Parses a connector config in JSON; `file` only names the source in errors.
pub fn parse_connector_json(text: &str, file: &Path) -> Result<ConnectorFile, ConnectorFileError> {
    let shape = |message: String| ConnectorFileError::Shape { file: file.to_path_buf(), message };
    let node: Node = serde_json::from_str(text)
        .map_err(|source| ConnectorFileError::Json { file: file.to_path_buf(), source })?;
    let Node::Object(top) = node else {
        return Err(shape(format!("expected a JSON object, got {}", node.kind())));
    };
    let nested = top.iter().any(|(k, v)| k == "config" && matches!(v, Node::Object(_)));
    if !nested {
        return from_properties(strings(top, file)?, file);
    }
    // The `POST /connectors` shape.
    let mut name = None;
    let mut config = Vec::new();
    for (key, value) in top {
        match (key.as_str(), value) {
            (NAME, value) => name = Some(string(NAME, value, file)?),
            ("config", Node::Object(entries)) => config = strings(entries, file)?,
            ("initial_state", _) => {
                return Err(shape(
                    "\"initial_state\" is not supported in connector files; pause the \
                     connector through the REST API instead"
                        .to_owned(),
                ));
            }
            (other, _) => {
                return Err(shape(format!(
                    "unexpected top-level key {other:?}: expected \"name\" and \"config\""
                )));
            }
        }
    }
    let name = name.ok_or_else(|| shape("missing the top-level \"name\" key".to_owned()))?;
    match config.iter().find(|(k, _)| k == NAME) {
        Some((_, inner)) if *inner != name => {
            return Err(shape(format!(
                "\"name\" is {name:?} but \"config\" has \"name\": {inner:?}"
            )));
        }
        Some(_) => {}
        None => config.insert(0, (NAME.to_owned(), name.clone())),
    }
    check_name(&name).map_err(shape)?;
    Ok((name, config))
}

/// A flat config: takes the name from its `name` key.
fn from_properties(
    config: Vec<(String, String)>,
    file: &Path,
) -> Result<ConnectorFile, ConnectorFileError> {
    let shape = |message: String| ConnectorFileError::Shape { file: file.to_path_buf(), message };
    let name = config
        .iter()
        .find(|(k, _)| k == NAME)
        .map(|(_, v)| v.clone())
        .ok_or_else(|| shape("missing the \"name\" key".to_owned()))?;
    check_name(&name).map_err(shape)?;
    Ok((name, config))
}

/// Kafka Connect's rule for connector names: non-empty, no control characters.
fn check_name(name: &str) -> Result<(), String> {
    if name.trim().is_empty() {
        return Err("\"name\" must not be empty".to_owned());
    }
    if name.chars().any(char::is_control) {
        return Err(format!("\"name\" must not contain control characters, got {name:?}"));
    }
    Ok(())
}

fn string(key: &str, value: Node, file: &Path) -> Result<String, ConnectorFileError> {
    value.into_config_string().map_err(|v| ConnectorFileError::Value {
        file: file.to_path_buf(),
        key: key.to_owned(),
        found: v.kind(),
    })
}

fn strings(
    entries: Vec<(String, Node)>,
    file: &Path,
) -> Result<Vec<(String, String)>, ConnectorFileError> {
    entries.into_iter().map(|(k, v)| string(&k, v, file).map(|v| (k, v))).collect()
}

#[cfg(test)]
#[path = "connector_file_tests.rs"]
mod tests;
