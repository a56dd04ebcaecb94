//! [`ProtobufReader`]: reads payloads of one registered `.proto` file, for whichever of its
//! messages the framing's message indexes select. The first top-level message's schema and
//! plan are made up front; the others on first use, then kept. Indexes count messages as
//! the `.proto` text declares them (the entries `map<k, v>` implies are not counted), as
//! Confluent's `ProtobufSchema.toMessageName` does. It owns that cache only.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use prost_reflect::{DynamicMessage, FileDescriptor, MessageDescriptor};

use super::options::Options;
use super::plan::{self, MessagePlan};
use super::{decode, to_connect};
use crate::{FormatError, Reader, Schema, SchemaAndValue};

/// One message's Connect schema and plan.
struct Selected {
    schema: Arc<Schema>,
    top: Top,
}

enum Top {
    /// A message read as a STRUCT.
    Struct(MessagePlan),
    /// A `google.protobuf.*Value` read as its primitive.
    Wrapper(MessageDescriptor),
}

/// Reads payloads of one registered file.
pub struct ProtobufReader {
    file: FileDescriptor,
    options: Options,
    first: Arc<Selected>,
    others: Mutex<HashMap<Vec<i32>, Arc<Selected>>>,
}

impl ProtobufReader {
    /// A reader of `file`'s messages.
    pub fn new(file: FileDescriptor, options: Options) -> Result<Self, FormatError> {
        let desc = file
            .messages()
            .next()
            .ok_or_else(|| FormatError::RegisteredSchema("The schema has no message".into()))?;
        let first = Arc::new(select(&desc, &options)?);
        Ok(Self { file, options, first, others: Mutex::new(HashMap::new()) })
    }

    fn selected(&self, indexes: &[i32]) -> Result<Arc<Selected>, FormatError> {
        if indexes.is_empty() || indexes == [0] {
            return Ok(self.first.clone());
        }
        let mut others = self.others.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(found) = others.get(indexes) {
            return Ok(found.clone());
        }
        let bad = || FormatError::Decode(format!("Invalid message indexes: {indexes:?}"));
        let mut desc: Option<MessageDescriptor> = None;
        for &index in indexes {
            let index = usize::try_from(index).map_err(|_| bad())?;
            let next = match &desc {
                None => self.file.messages().nth(index),
                Some(parent) => parent.child_messages().filter(|m| !m.is_map_entry()).nth(index),
            };
            desc = Some(next.ok_or_else(bad)?);
        }
        let selected = Arc::new(select(&desc.ok_or_else(bad)?, &self.options)?);
        others.insert(indexes.to_vec(), selected.clone());
        Ok(selected)
    }
}

fn select(desc: &MessageDescriptor, options: &Options) -> Result<Selected, FormatError> {
    let schema =
        Arc::new(to_connect::message_schema(desc, options).map_err(FormatError::RegisteredSchema)?);
    let top = if to_connect::wrapped_type(desc).is_some() {
        Top::Wrapper(desc.clone())
    } else {
        Top::Struct(plan::message(&schema, desc, false).map_err(FormatError::RegisteredSchema)?)
    };
    Ok(Selected { schema, top })
}

impl Reader for ProtobufReader {
    fn connect_schema(&self) -> &Arc<Schema> {
        &self.first.schema
    }

    fn decode(
        &self,
        message_indexes: &[i32],
        payload: &[u8],
    ) -> Result<SchemaAndValue, FormatError> {
        let selected = self.selected(message_indexes)?;
        let (desc, plan) = match &selected.top {
            Top::Struct(plan) => (&plan.desc, Some(plan)),
            Top::Wrapper(desc) => (desc, None),
        };
        let message = DynamicMessage::decode(desc.clone(), payload)
            .map_err(|e| FormatError::Decode(format!("Invalid protobuf payload: {e}")))?;
        let value = match plan {
            Some(plan) => decode::message(plan, &message)?,
            None => decode::wrapped(&message, selected.schema.ty)?,
        };
        Ok(SchemaAndValue::new(selected.schema.clone(), value))
    }
}
