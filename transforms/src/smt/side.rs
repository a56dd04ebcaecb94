//! Which side of a record a `$Key` or `$Value` transform works on, helpers to read and
//! replace that side, and the `replace.null.with.default` key every transform that copies
//! fields shares.

use crate::config::{Default, Importance, KeyDef, KeyType};
use crate::{Data, Record};

/// Kafka Connect's `replace.null.with.default`, the same key in every transform that has
/// it.
pub(crate) const REPLACE_NULL_WITH_DEFAULT: KeyDef = KeyDef {
    name: "replace.null.with.default",
    ty: KeyType::Boolean,
    default: Default::Value("true"),
    validator: None,
    importance: Importance::Medium,
    doc: "Whether to replace fields that have a default value and that are null to the default \
          value. When set to true, the default value is used, otherwise null is used.",
};

/// The side a transform class works on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Side {
    /// `$Key`.
    Key,
    /// `$Value`.
    Value,
}

impl Side {
    /// The side's data.
    pub(crate) fn data(self, record: &mut Record) -> &mut Data {
        match self {
            Side::Key => &mut record.key,
            Side::Value => &mut record.value,
        }
    }
}

/// Kafka Connect's `Requirements.requireSchema`.
pub(crate) fn require_schema<'a>(
    schema: &'a Option<std::sync::Arc<crate::Schema>>,
    purpose: &str,
) -> Result<&'a std::sync::Arc<crate::Schema>, crate::TransformError> {
    schema
        .as_ref()
        .ok_or_else(|| crate::TransformError::new(format!("Schema required for [{purpose}]")))
}

/// Kafka Connect's `Requirements.requireMap`: the entries of a schemaless map.
pub(crate) fn require_map<'a>(
    value: &'a mut crate::Value,
    purpose: &str,
) -> Result<&'a mut Vec<(crate::Value, crate::Value)>, crate::TransformError> {
    match value {
        crate::Value::Map(entries) => Ok(entries),
        other => Err(crate::TransformError::new(format!(
            "Only Map objects supported in absence of schema for [{purpose}], found: {}",
            crate::data::java_class(other)
        ))),
    }
}

/// Kafka Connect's `Requirements.requireStruct`.
pub(crate) fn require_struct<'a>(
    value: &'a mut crate::Value,
    purpose: &str,
) -> Result<&'a mut crate::Struct, crate::TransformError> {
    match value {
        crate::Value::Struct(s) => Ok(s),
        other => Err(crate::TransformError::new(format!(
            "Only Struct objects supported for [{purpose}], found: {}",
            crate::data::java_class(other)
        ))),
    }
}
