//! Asking the registry what a [`RegistryConverter`] needs before it can convert: the
//! schema of an id read from a topic, or the id of a schema under its subject (registered
//! with `auto.register.schemas`, looked up without it, or the subject's latest with
//! `use.latest.version`). The one place of the convert module that does I/O; answers go
//! into the converter's caches, and a need already answered there (by another task of the
//! connector) sends nothing.
//!
//! An unreachable registry gives a retriable [`ConvertError::Registry`]; a refusal (an
//! incompatible schema, an unknown id or subject, bad credentials) a final one.

use std::sync::Arc;

use wasm_connect_formats::{RegistrySchema, SchemaType};
use wasm_connect_registry::RegistryError;

use super::{Need, RegistryConverter, WriterEntry};
use crate::worker::convert::ConvertError;

impl RegistryConverter {
    /// Whether the answer to `need` is already cached: another task of the connector,
    /// which shares this converter, looked it up first.
    pub(super) fn cached(&self, need: &Need) -> bool {
        match need {
            Need::Schema(id) => self.readers.get(id).is_some(),
            Need::Register { topic, entry } => {
                entry.by_topic.read().expect("not poisoned").contains_key(topic)
            }
        }
    }

    /// Reads the schema of `id` and caches its reader.
    pub(super) async fn read_schema(&self, id: u32) -> Result<(), ConvertError> {
        let registered = self.client.schema(id).await.map_err(|e| {
            registry_error(format!("Failed to retrieve the schema of id {id}: {e}"), &e)
        })?;
        let Some(schema_type) = SchemaType::from_name(registered.schema_type.as_deref()) else {
            return Err(ConvertError::data(format!(
                "The schema of id {id} has the unknown schemaType {:?}",
                registered.schema_type
            )));
        };
        if schema_type != self.format.schema_type() {
            return Err(ConvertError::data(format!(
                "The schema of id {id} is a {} schema: {} reads {} schemas only",
                schema_type.name(),
                self.class,
                self.format.schema_type().name()
            )));
        }
        if !registered.references.is_empty() {
            return Err(ConvertError::data(format!(
                "The schema of id {id} has references to other schemas, which this worker \
                 does not read yet"
            )));
        }
        let schema = RegistrySchema { schema_type, text: registered.schema };
        let reader = self.format.reader(&schema).map_err(|e| {
            ConvertError::data(format!("The schema of id {id} cannot be read: {e}"))
        })?;
        self.readers.insert(id, reader);
        Ok(())
    }

    /// Finds the id (and the writer) for `entry`'s schema under `topic`'s subject and
    /// caches it.
    pub(super) async fn register(
        &self,
        topic: &str,
        entry: &Arc<WriterEntry>,
    ) -> Result<(), ConvertError> {
        let subject = self
            .settings
            .strategy
            .subject(topic, self.key, entry.writer.record_name())
            .map_err(ConvertError::data)?;
        let schema = entry.writer.registry_schema();
        let schema_type = match schema.schema_type {
            SchemaType::Avro => None,
            other => Some(other.name()),
        };
        let fail = |doing: &str, e: RegistryError| {
            registry_error(format!("Failed to {doing} under subject {subject}: {e}"), &e)
        };
        let found = if self.settings.use_latest {
            let latest =
                self.client.latest(&subject).await.map_err(|e| fail("get the latest schema", e))?;
            let registered = RegistrySchema {
                schema_type: SchemaType::from_name(latest.schema_type.as_deref())
                    .unwrap_or(schema.schema_type),
                text: latest.schema,
            };
            let writer = self.format.writer_for(&registered, &entry.schema).map_err(|e| {
                ConvertError::data(format!(
                    "The latest schema of subject {subject} (id {}) cannot write the \
                     records' schema{}: {e}",
                    latest.id,
                    if self.settings.latest_strict {
                        ""
                    } else {
                        " (latest.compatibility.strict=false)"
                    }
                ))
            })?;
            (latest.id, writer)
        } else if self.settings.auto_register {
            let id = self
                .client
                .register(&subject, &schema.text, schema_type)
                .await
                .map_err(|e| fail("register a schema", e))?;
            (id, entry.writer.clone())
        } else {
            let found = self
                .client
                .lookup(&subject, &schema.text, schema_type)
                .await
                .map_err(|e| fail("find the schema (auto.register.schemas=false)", e))?;
            (found.id, entry.writer.clone())
        };
        entry.by_topic.write().expect("not poisoned").insert(topic.to_owned(), found);
        self.subjects.insert(subject, ());
        Ok(())
    }
}

/// A registry failure as a conversion error: retriable when the registry was unavailable.
fn registry_error(message: String, e: &RegistryError) -> ConvertError {
    ConvertError::Registry { message, retriable: e.is_retriable() }
}
