//! The bodies of the Schema Registry API requests and answers this client uses, as
//! Confluent's API documents them (`schemaType` absent means AVRO).

use serde::{Deserialize, Serialize};

/// `POST /subjects/{s}/versions`, `POST /subjects/{s}`, `POST /compatibility/...`.
#[derive(Serialize)]
pub(crate) struct SchemaRequest<'a> {
    pub schema: &'a str,
    #[serde(rename = "schemaType", skip_serializing_if = "Option::is_none")]
    pub schema_type: Option<&'a str>,
}

/// `{"id": …}`.
#[derive(Deserialize)]
pub(crate) struct IdAnswer {
    pub id: u32,
}

/// `{"is_compatible": …}`.
#[derive(Deserialize)]
pub(crate) struct CompatibilityAnswer {
    pub is_compatible: bool,
}

/// An error answer.
#[derive(Deserialize)]
pub(crate) struct ErrorAnswer {
    pub error_code: Option<i64>,
    pub message: Option<String>,
}

/// A registered schema: `GET /schemas/ids/{id}` (no subject, version or id in the body:
/// the client fills the id), `GET /subjects/{s}/versions/latest`, `POST /subjects/{s}`.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct Registered {
    /// The schema id.
    #[serde(default)]
    pub id: u32,
    /// The subject, when the answer names one.
    #[serde(default)]
    pub subject: Option<String>,
    /// The version under the subject, when the answer names one.
    #[serde(default)]
    pub version: Option<i32>,
    /// `AVRO`, `PROTOBUF` or `JSON`; `None` means AVRO.
    #[serde(rename = "schemaType", default)]
    pub schema_type: Option<String>,
    /// The schema text.
    pub schema: String,
    /// The schema's references (`[{name, subject, version}]`), as the registry gave them.
    #[serde(default)]
    pub references: Vec<serde_json::Value>,
}
