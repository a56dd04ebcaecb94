//! Connect schema → `.proto` text, as `ProtobufData.fromConnectSchema` builds it: a proto3
//! file with the STRUCT's namespace as package and one top-level message, nested STRUCTs,
//! maps (as repeated `…Entry` messages, as `ProtobufData` writes them), enums and unions
//! (oneofs) as nested definitions, and the logical types and wrappers as imports of the
//! built-in files. A root primitive is written as the file of wrapper messages, as
//! `ProtobufData` does. It owns the text only; compiling it is `builtin`'s.

use std::collections::HashSet;
use std::fmt::Write;

mod types;

use super::builtin::META_FILE;
use super::names::{self, ENUM, TAG, UNION_PREFIX};
use super::options::Options;
use crate::{FormatError, Schema};
use types::{escape, is_logical, write_enum};
use wasm_connect_transforms::data::Type;

/// A generated file: its text and the full name of its message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Generated {
    /// The `.proto` text.
    pub text: String,
    /// The message's full name (`package.Name`).
    pub message: String,
}

/// The `.proto` text for the STRUCT `schema`.
pub fn generate(schema: &Schema, options: &Options) -> Result<Generated, FormatError> {
    if let Some(wrapper) = wrapper_for(schema.ty) {
        let text = super::builtin::WRAPPERS.to_owned();
        return Ok(Generated { text, message: wrapper.to_owned() });
    }
    if schema.ty != Type::Struct {
        return Err(FormatError::Schema(format!(
            "Unsupported root schema of type {}",
            schema.ty.upper()
        )));
    }
    let mut generator = Generator { options, counter: 0, imports: Vec::new() };
    let full = generator.name_or_default(schema.name.as_deref());
    let (package, name) = names::split(&full, options.scrub_invalid_names);
    let mut body = String::new();
    generator.message(&mut body, &name, schema, 0)?;
    let mut text = String::from("syntax = \"proto3\";\n");
    if let Some(package) = &package {
        let _ = writeln!(text, "package {package};");
    }
    text.push('\n');
    for import in &generator.imports {
        let _ = writeln!(text, "import \"{import}\";");
    }
    if !generator.imports.is_empty() {
        text.push('\n');
    }
    text.push_str(&body);
    let message = match package {
        Some(package) => format!("{package}.{name}"),
        None => name,
    };
    Ok(Generated { text, message })
}

/// The wrapper message `ProtobufData` writes a root primitive of `ty` as.
pub fn wrapper_for(ty: Type) -> Option<&'static str> {
    Some(match ty {
        Type::Int8 | Type::Int16 | Type::Int32 => "google.protobuf.Int32Value",
        Type::Int64 => "google.protobuf.Int64Value",
        Type::Float32 => "google.protobuf.FloatValue",
        Type::Float64 => "google.protobuf.DoubleValue",
        Type::Boolean => "google.protobuf.BoolValue",
        Type::String => "google.protobuf.StringValue",
        Type::Bytes => "google.protobuf.BytesValue",
        Type::Array | Type::Map | Type::Struct => return None,
    })
}

struct Generator<'a> {
    options: &'a Options,
    counter: u32,
    imports: Vec<&'static str>,
}

/// What one message holds, gathered before it is written.
#[derive(Default)]
struct Body {
    fields: String,
    oneofs: String,
    nested: String,
    nested_names: HashSet<String>,
}

pub(super) fn schema_err(message: impl Into<String>) -> FormatError {
    FormatError::Schema(message.into())
}

fn tag_of(schema: &Schema) -> Result<Option<u32>, FormatError> {
    schema
        .parameter(TAG)
        .map(|t| t.parse().map_err(|_| schema_err(format!("Invalid protobuf tag {t}"))))
        .transpose()
}

fn is_union(schema: &Schema) -> bool {
    schema.ty == Type::Struct && schema.name.as_deref().is_some_and(|n| n.starts_with(UNION_PREFIX))
}

fn is_enum(schema: &Schema) -> bool {
    schema.parameter(ENUM).is_some()
}

impl Generator<'_> {
    fn name_or_default(&mut self, name: Option<&str>) -> String {
        match name {
            Some(name) if !name.is_empty() => name.to_owned(),
            _ => {
                self.counter += 1;
                format!("{}{}", names::DEFAULT_NAME, self.counter)
            }
        }
    }

    fn unqualified(&mut self, name: Option<&str>) -> String {
        let full = self.name_or_default(name);
        names::unqualified(&full, self.options.scrub_invalid_names)
    }

    fn import(&mut self, file: &'static str) {
        if !self.imports.contains(&file) {
            self.imports.push(file);
        }
    }

    fn message(
        &mut self,
        out: &mut String,
        name: &str,
        schema: &Schema,
        depth: usize,
    ) -> Result<(), FormatError> {
        let mut body = Body::default();
        let mut next_tag = 1;
        for field in &schema.fields {
            let tag = match tag_of(&field.schema)? {
                Some(tag) => tag,
                None => {
                    next_tag += 1;
                    next_tag - 1
                }
            };
            let field_name = names::scrub(&field.name, self.options.scrub_invalid_names);
            self.field(&mut body, name, &field.schema, &field_name, tag, false, depth + 1)?;
        }
        let pad = "  ".repeat(depth);
        let _ = writeln!(out, "{pad}message {name} {{");
        out.push_str(&body.fields);
        out.push_str(&body.oneofs);
        out.push_str(&body.nested);
        let _ = writeln!(out, "{pad}}}");
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn field(
        &mut self,
        body: &mut Body,
        parent: &str,
        schema: &Schema,
        name: &str,
        tag: u32,
        oneof_member: bool,
        depth: usize,
    ) -> Result<(), FormatError> {
        let label = match schema.ty {
            Type::Array | Type::Map => "repeated ",
            _ if self.options.optional_for_nullables && schema.optional => "optional ",
            _ => "",
        };
        let schema = match schema.ty {
            Type::Array => schema.value_schema.as_deref().ok_or_else(|| schema_err("no items"))?,
            _ => schema,
        };
        if is_union(schema) {
            let union = &schema.name.as_deref().unwrap_or_default()[UNION_PREFIX.len()..];
            let union_name = self.unqualified(Some(union));
            return self.oneof(body, parent, schema, &union_name, depth);
        }
        let mut params: Vec<(&str, String)> = Vec::new();
        let ty = self.data_type(schema, name, &mut params, oneof_member)?;
        match schema.ty {
            Type::Struct
                if !is_logical(schema) && ty != parent && body.nested_names.insert(ty.clone()) =>
            {
                self.message(&mut body.nested, &ty, schema, depth)?;
            }
            Type::Struct => {}
            Type::Map => self.map_entry(&mut body.nested, &ty, schema, depth)?,
            _ if is_enum(schema) => {
                let enum_name = self.unqualified(schema.name.as_deref());
                if body.nested_names.insert(enum_name.clone()) {
                    write_enum(&mut body.nested, &enum_name, schema, depth)?;
                }
            }
            _ => {}
        }
        let pad = "  ".repeat(depth + usize::from(oneof_member));
        let label = if oneof_member { "" } else { label };
        let target = if oneof_member { &mut body.oneofs } else { &mut body.fields };
        let _ = write!(target, "{pad}{label}{ty} {name} = {tag}");
        if !params.is_empty() {
            self.import(META_FILE);
            let entries: Vec<String> = params
                .iter()
                .map(|(k, v)| format!("{{ key: \"{k}\", value: \"{}\" }}", escape(v)))
                .collect();
            let _ = write!(
                target,
                " [(confluent.field_meta) = {{ params: [{}] }}]",
                entries.join(", ")
            );
        }
        target.push_str(";\n");
        Ok(())
    }

    fn oneof(
        &mut self,
        body: &mut Body,
        parent: &str,
        schema: &Schema,
        name: &str,
        depth: usize,
    ) -> Result<(), FormatError> {
        let pad = "  ".repeat(depth);
        let _ = writeln!(body.oneofs, "{pad}oneof {name} {{");
        for member in &schema.fields {
            let tag = tag_of(&member.schema)?.ok_or_else(|| {
                schema_err(format!("Union member {} has no {TAG} parameter", member.name))
            })?;
            let member_name = names::scrub(&member.name, self.options.scrub_invalid_names);
            if matches!(member.schema.ty, Type::Array | Type::Map) {
                return Err(schema_err(format!("Union member {member_name} cannot be repeated")));
            }
            self.field(body, parent, &member.schema, &member_name, tag, true, depth)?;
        }
        let _ = writeln!(body.oneofs, "{pad}}}");
        Ok(())
    }

    fn map_entry(
        &mut self,
        out: &mut String,
        name: &str,
        schema: &Schema,
        depth: usize,
    ) -> Result<(), FormatError> {
        let mut body = Body::default();
        let key = schema.key_schema.as_deref().ok_or_else(|| schema_err("no map keys"))?;
        let value = schema.value_schema.as_deref().ok_or_else(|| schema_err("no map values"))?;
        self.field(&mut body, name, key, "key", 1, false, depth + 1)?;
        self.field(&mut body, name, value, "value", 2, false, depth + 1)?;
        let pad = "  ".repeat(depth);
        let _ = writeln!(out, "{pad}message {name} {{");
        out.push_str(&body.fields);
        out.push_str(&body.nested);
        let _ = writeln!(out, "{pad}}}");
        Ok(())
    }
}
