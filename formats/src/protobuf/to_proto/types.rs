//! The protobuf type a Connect schema's value takes in generated text
//! (`ProtobufData.dataTypeFromConnectSchema`): scalars, wrappers, logical messages, enum,
//! map entry and nested message names, and the enum definitions. Names only; the message
//! layout is `to_proto`'s.

use std::fmt::Write;

use wasm_connect_transforms::data::{DATE, DECIMAL, DECIMAL_SCALE, TIME, TIMESTAMP, Type};

use super::Generator;
use crate::protobuf::builtin::{DATE_FILE, DECIMAL_FILE, TIME_FILE, TIMESTAMP_FILE, WRAPPERS_FILE};
use crate::protobuf::names::{self, CONNECT_PRECISION, CONNECT_TYPE, ENUM, TYPE};
use crate::protobuf::to_connect::WRAPPER;
use crate::{FormatError, Schema};

use super::schema_err;

impl Generator<'_> {
    pub(super) fn data_type(
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
            && (!oneof_member || schema.parameter(WRAPPER) == Some("true"));
        let proto_type = schema.parameter(TYPE);
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

pub(super) fn is_logical(schema: &Schema) -> bool {
    matches!(schema.name.as_deref(), Some(DECIMAL | DATE | TIME | TIMESTAMP))
}

pub(super) fn write_enum(
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

pub(super) fn escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}
