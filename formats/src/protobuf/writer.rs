//! [`ProtobufWriter`]: writes values of one Connect schema as one message of a file: a
//! STRUCT as its message along a plan, a primitive as the `google.protobuf.*Value` wrapper
//! `ProtobufData` uses for root primitives. It owns the per-schema state of writing.

use std::sync::Arc;

use prost::Message as _;
use prost_reflect::{DynamicMessage, MessageDescriptor};

use super::options::Options;
use super::plan::{self, MessagePlan, Plan};
use super::{encode, message_indexes};
use crate::{Encoded, FormatError, RegistrySchema, Schema, Value, Writer};

enum Top {
    Struct(MessagePlan),
    Wrapper { desc: MessageDescriptor, plan: Plan },
}

/// Writes values of one Connect schema.
pub struct ProtobufWriter {
    registry: RegistrySchema,
    record_name: String,
    message_indexes: Vec<i32>,
    top: Top,
}

impl ProtobufWriter {
    /// A writer of `schema`'s values as `desc` messages of the file `registry`.
    pub fn build(
        registry: RegistrySchema,
        schema: &Arc<Schema>,
        desc: &MessageDescriptor,
        options: &Options,
    ) -> Result<Arc<dyn Writer>, FormatError> {
        let top = if schema.ty.is_primitive() {
            let plan = plan::wrapper(schema, desc).map_err(FormatError::Schema)?;
            Top::Wrapper { desc: desc.clone(), plan }
        } else {
            Top::Struct(
                plan::message(schema, desc, options.scrub_invalid_names)
                    .map_err(FormatError::Schema)?,
            )
        };
        Ok(Arc::new(Self {
            registry,
            record_name: desc.full_name().to_owned(),
            message_indexes: message_indexes(desc),
            top,
        }))
    }
}

impl Writer for ProtobufWriter {
    fn registry_schema(&self) -> &RegistrySchema {
        &self.registry
    }

    fn record_name(&self) -> Option<&str> {
        Some(&self.record_name)
    }

    fn encode(&self, value: &Value) -> Result<Encoded, FormatError> {
        if value.is_null() {
            return Err(FormatError::Value(
                "A null value has no Protobuf payload (it is written as a null record)".into(),
            ));
        }
        let message: DynamicMessage = match &self.top {
            Top::Struct(plan) => encode::message(plan, value)?,
            Top::Wrapper { desc, plan } => encode::wrapper(desc, plan, value)?,
        };
        Ok(Encoded {
            message_indexes: self.message_indexes.clone(),
            payload: message.encode_to_vec(),
        })
    }
}
