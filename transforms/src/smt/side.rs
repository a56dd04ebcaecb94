//! Which side of a record a `$Key` or `$Value` transform works on, and helpers to read and
//! replace that side.

use crate::{Data, Record};

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
