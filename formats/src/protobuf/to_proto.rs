//! Connect schema → `.proto` text, as `ProtobufData.fromConnectSchema` builds it: a proto3
//! file with the STRUCT's namespace as package and one top-level message, nested STRUCTs,
//! maps (as repeated `…Entry` messages, as `ProtobufData` writes them), enums and unions
//! (oneofs) as nested definitions, and the logical types and wrappers as imports of the
//! built-in files. It owns the text only; compiling it is `builtin`'s.

use std::collections::HashSet;
use std::fmt::Write;

use wasm_connect_transforms::data::{DATE, DECIMAL, DECIMAL_SCALE, TIME, TIMESTAMP};

use super::builtin::{
    DATE_FILE, DECIMAL_FILE, META_FILE, TIME_FILE, TIMESTAMP_FILE, WRAPPERS_FILE,
};
use super::names::{self, CONNECT_PRECISION, CONNECT_TYPE, ENUM, TAG, UNION_PREFIX};
use super::options::Options;
use crate::{FormatError, Schema};
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

fn schema_err(message: impl Into<String>) -> FormatError {
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

    fn data_type(
        &mut self,
        schema: &Schema,
        field_name: &str,
        params: &mut Vec<(&'static str, String)>,
        oneof_member: bool,
    ) -> Result<String, FormatError> {
        let logical = match schema.name.as_deref() {
            Some(DECIMAL) => {
                if let Some(p) = schema.parameter(CONNECT_PRECISION) {
                    params.push(("precision", p.to_owned()));
                }
                if let Some(s) = schema.parameter(DECIMAL_SCALE) {
                    params.push(("scale", s.to_owned()));
                }
                Some(("confluent.type.Decimal", DECIMAL_FILE))
            }
            Some(DATE) => Some(("google.type.Date", DATE_FILE)),
            Some(TIME) => Some(("google.type.TimeOfDay", TIME_FILE)),
            Some(TIMESTAMP) => Some(("google.protobuf.Timestamp", TIMESTAMP_FILE)),
            _ => None,
        };
        if let Some((ty, file)) = logical {
            self.import(file);
            return Ok(ty.to_owned());
        }
        let wrap = self.options.wrapper_for_nullables
            && schema.optional
            && (!oneof_member || schema.parameter(super::to_connect::WRAPPER) == Some("true"));
        let proto_type = schema.parameter(super::names::TYPE);
        let (plain, wrapper) = match schema.ty {
            Type::Int8 | Type::Int16 => {
                let connect = if schema.ty == Type::Int8 { "int8" } else { "int16" };
                params.push((CONNECT_TYPE, connect.to_owned()));
                ("int32".to_owned(), "Int32Value")
            }
            Type::Int32 => match schema.parameter(ENUM) {
                Some(enum_name) => return Ok(enum_name.to_owned()),
                None => (proto_type.unwrap_or("int32").to_owned(), "Int32Value"),
            },
            Type::Int64 => {
                let ty = proto_type.unwrap_or("int64");
                let wrapper = match ty {
                    "uint32" | "fixed32" => "UInt32Value",
                    "uint64" | "fixed64" => "UInt64Value",
                    _ => "Int64Value",
                };
                (ty.to_owned(), wrapper)
            }
            Type::Float32 => ("float".to_owned(), "FloatValue"),
            Type::Float64 => ("double".to_owned(), "DoubleValue"),
            Type::Boolean => ("bool".to_owned(), "BoolValue"),
            Type::String => match schema.parameter(ENUM) {
                Some(enum_name) => return Ok(enum_name.to_owned()),
                None => ("string".to_owned(), "StringValue"),
            },
            Type::Bytes => ("bytes".to_owned(), "BytesValue"),
            Type::Array => return Err(schema_err("Array cannot be nested")),
            Type::Map => return Ok(names::map_entry(&self.unqualified(schema.name.as_deref()))),
            Type::Struct => {
                let name = self.unqualified(schema.name.as_deref());
                return Ok(if name == field_name { name + "Message" } else { name });
            }
        };
        if wrap {
            self.import(WRAPPERS_FILE);
            Ok(format!("google.protobuf.{wrapper}"))
        } else {
            Ok(plain)
        }
    }
}

fn is_logical(schema: &Schema) -> bool {
    matches!(schema.name.as_deref(), Some(DECIMAL | DATE | TIME | TIMESTAMP))
}

fn write_enum(
    out: &mut String,
    name: &str,
    schema: &Schema,
    depth: usize,
) -> Result<(), FormatError> {
    let pad = "  ".repeat(depth);
    let _ = writeln!(out, "{pad}enum {name} {{");
    let prefix = format!("{ENUM}.");
    for (key, value) in &schema.parameters {
        if let Some(symbol) = key.strip_prefix(&prefix) {
            let number: i32 = value
                .parse()
                .map_err(|_| schema_err(format!("Invalid enum number {value} for {symbol}")))?;
            let _ = writeln!(out, "{pad}  {symbol} = {number};");
        }
    }
    let _ = writeln!(out, "{pad}}}");
    Ok(())
}

fn escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}
