//! Protobuf, as Confluent's `ProtobufConverter` maps it (`ProtobufData`): Connect schemas
//! become proto3 `.proto` text (`to_proto`), any registered proto2 or proto3 file becomes
//! a Connect schema (`to_connect`), and values go both ways through `prost-reflect`
//! dynamic messages over descriptors that `protox` compiles in-process (`builtin` serves
//! the imports Confluent treats as built in).
//!
//! Per-schema work (generating and compiling the text, pairing the Connect schema with
//! the descriptors in a `plan::MessagePlan`) happens once, in [`ProtobufFormat::writer`]
//! and [`ProtobufFormat::reader`]; `encode` and `decode` only walk the plan. The wire
//! framing (magic byte, id, message indexes) is the caller's: writers return the path to
//! their message and readers take it. This module must not do I/O.
//!
//! Layout: `options` (settings), `names` (naming rules and parameter names), `builtin`
//! (imports, compiling), `to_proto`, `to_connect`, `plan`, `encode`, `decode`, `logical`
//! (date, time, timestamp and decimal arithmetic), `writer`, `reader`.

mod builtin;
mod decode;
mod encode;
mod logical;
mod names;
mod options;
mod plan;
mod reader;
mod to_connect;
mod to_proto;
mod writer;

#[cfg(test)]
mod tests;

use std::sync::Arc;

use prost_reflect::{FileDescriptor, MessageDescriptor};

use crate::{Format, FormatError, Reader, RegistrySchema, Schema, SchemaType, Settings, Writer};
pub use options::Options;

/// The converter keys this format reads.
pub const KEYS: &[&str] = options::ALL;

/// The Protobuf format.
pub struct ProtobufFormat {
    options: Options,
}

impl ProtobufFormat {
    /// The format with its settings.
    pub fn new(settings: &Settings<'_>) -> Result<Self, FormatError> {
        Ok(Self { options: Options::new(settings)? })
    }

    /// The format with `options`.
    pub fn with_options(options: Options) -> Self {
        Self { options }
    }
}

/// Compiles a registered schema's text.
fn compile_registered(registered: &RegistrySchema) -> Result<FileDescriptor, FormatError> {
    if registered.schema_type != SchemaType::Protobuf {
        return Err(FormatError::RegisteredSchema(format!(
            "Expected a PROTOBUF schema, got {}",
            registered.schema_type.name()
        )));
    }
    builtin::compile(&registered.text).map_err(FormatError::RegisteredSchema)
}

/// The message indexes of `desc` as the framing takes them (empty for the first
/// top-level message; the entries `map<k, v>` implies are not counted).
pub(crate) fn message_indexes(desc: &MessageDescriptor) -> Vec<i32> {
    let mut path = Vec::new();
    let mut current = desc.clone();
    loop {
        match current.parent_message() {
            Some(parent) => {
                let index = parent
                    .child_messages()
                    .filter(|m| !m.is_map_entry())
                    .position(|m| m == current)
                    .unwrap_or(0);
                path.push(index as i32);
                current = parent;
            }
            None => {
                let file = current.parent_file();
                let index = file.messages().position(|m| m == current).unwrap_or(0);
                path.push(index as i32);
                break;
            }
        }
    }
    path.reverse();
    if path == [0] { Vec::new() } else { path }
}

/// Every message of `file`, top-level ones first, each followed by its nested ones.
fn all_messages(file: &FileDescriptor) -> Vec<MessageDescriptor> {
    fn walk(desc: MessageDescriptor, out: &mut Vec<MessageDescriptor>) {
        out.push(desc.clone());
        for child in desc.child_messages() {
            walk(child, out);
        }
    }
    let mut out = Vec::new();
    for desc in file.messages() {
        walk(desc, &mut out);
    }
    out
}

impl Format for ProtobufFormat {
    fn schema_type(&self) -> SchemaType {
        SchemaType::Protobuf
    }

    fn writer(&self, schema: &Arc<Schema>) -> Result<Arc<dyn Writer>, FormatError> {
        let generated = to_proto::generate(schema, &self.options)?;
        let file = builtin::compile(&generated.text).map_err(FormatError::Schema)?;
        let desc = file.parent_pool().get_message_by_name(&generated.message).ok_or_else(|| {
            FormatError::Schema(format!("Generated schema lacks {}", generated.message))
        })?;
        let registry = RegistrySchema { schema_type: SchemaType::Protobuf, text: generated.text };
        writer::ProtobufWriter::build(registry, schema, &desc, &self.options)
    }

    fn writer_for(
        &self,
        registered: &RegistrySchema,
        schema: &Arc<Schema>,
    ) -> Result<Arc<dyn Writer>, FormatError> {
        let file = compile_registered(registered)?;
        let messages = all_messages(&file);
        let wanted = match to_proto::wrapper_for(schema.ty) {
            Some(wrapper) => wrapper,
            None => schema.name.as_deref().unwrap_or_default(),
        };
        let desc = messages
            .iter()
            .find(|m| m.full_name() == wanted)
            .or_else(|| messages.iter().find(|m| m.name() == wanted))
            .or_else(|| messages.first())
            .ok_or_else(|| FormatError::RegisteredSchema("The schema has no message".into()))?
            .clone();
        writer::ProtobufWriter::build(registered.clone(), schema, &desc, &self.options)
    }

    fn reader(&self, registered: &RegistrySchema) -> Result<Arc<dyn Reader>, FormatError> {
        let file = compile_registered(registered)?;
        Ok(Arc::new(reader::ProtobufReader::new(file, self.options)?))
    }
}
