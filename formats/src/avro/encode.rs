//! The encoding [`Plan`]: a Connect schema matched once against an Avro schema (ours or a
//! registered one), then used per record to write Connect [`Value`]s straight to Avro
//! binary, as `AvroData.fromConnectData` plus Avro's `GenericDatumWriter` would. Struct
//! fields are matched by (scrubbed) name; an Avro field the Connect schema lacks is
//! written with its Avro default. This module must not map schemas.

use std::collections::HashMap;
use std::sync::Arc;

use wasm_connect_transforms::data::{DECIMAL, Schema, Type, Value, java_class};

use super::binary::{write_bytes, write_long};
use super::model::{AvroSchema, Body, Kind, Node};
use super::names;
use super::options::Options;
use super::to_connect::{self, is_map_entry, union_field_name};
use super::{AVRO_TYPE_UNION, normalize_decimal};
use crate::FormatError;

/// A compiled writer of one Connect schema's values with one Avro schema.
#[derive(Debug)]
pub struct Plan {
    root: Enc,
}

#[derive(Debug)]
enum Enc {
    Null,
    Boolean,
    Int,
    Long,
    Float,
    Double,
    String,
    Bytes,
    Fixed {
        size: usize,
        decimal: bool,
    },
    Enum(HashMap<String, i64>),
    Array(Box<Enc>),
    Map(Box<Enc>),
    /// An array of key/value records; `key_first` gives their field order.
    Entries {
        key: Box<Enc>,
        value: Box<Enc>,
        key_first: bool,
    },
    Record(Vec<FieldEnc>),
    /// A union written as one branch, or as the null branch for null.
    Union {
        null: Option<i64>,
        index: i64,
        inner: Box<Enc>,
    },
    /// `io.confluent.connect.avro.Union`: the first non-null field picks the branch.
    UnionStruct {
        null: Option<i64>,
        branches: Vec<(usize, i64, Enc)>,
    },
}

#[derive(Debug)]
struct FieldEnc {
    name: String,
    source: Source,
}

#[derive(Debug)]
enum Source {
    /// The Connect field at `index`; a null is replaced by `default`.
    Connect { index: usize, default: Option<Value>, enc: Enc },
    /// A field the Connect schema lacks: its Avro default, pre-encoded.
    Fixed(Vec<u8>),
}

fn field_err(path: &str, message: impl std::fmt::Display) -> FormatError {
    if path.is_empty() {
        FormatError::Value(message.to_string())
    } else {
        FormatError::Value(format!("Field {path}: {message}"))
    }
}

/// Compiles the plan for values of `connect` written with `avro`.
pub fn compile(
    avro: &AvroSchema,
    connect: &Arc<Schema>,
    options: &Options,
) -> Result<Plan, FormatError> {
    let c = Compiler { avro, options, depth: 0 };
    Ok(Plan { root: c.node(&avro.root, connect, "")? })
}

struct Compiler<'a> {
    avro: &'a AvroSchema,
    options: &'a Options,
    depth: usize,
}

impl Compiler<'_> {
    fn node(&self, node: &Node, s: &Schema, path: &str) -> Result<Enc, FormatError> {
        if self.depth > 64 {
            return Err(field_err(path, "schema nesting too deep"));
        }
        let deeper = Compiler { depth: self.depth + 1, ..*self };
        let mismatch = || {
            field_err(
                path,
                format!(
                    "cannot write Connect {} with Avro {}",
                    s.ty.upper(),
                    describe(self.avro, node)
                ),
            )
        };
        if let Kind::Union(branches) = &node.kind {
            let null = branches.iter().position(|b| matches!(b.kind, Kind::Null)).map(|i| i as i64);
            if s.ty == Type::Struct && s.name.as_deref() == Some(AVRO_TYPE_UNION) {
                let mut out = Vec::new();
                for f in &s.fields {
                    let (i, b) = branches
                        .iter()
                        .enumerate()
                        .find(|(_, b)| {
                            !matches!(b.kind, Kind::Null)
                                && union_field_name(self.avro, b, self.options.enhanced) == f.name
                        })
                        .ok_or_else(|| {
                            field_err(path, format!("no union branch for {}", f.name))
                        })?;
                    out.push((f.index, i as i64, deeper.node(b, &f.schema, path)?));
                }
                return Ok(Enc::UnionStruct { null, branches: out });
            }
            // The branch that takes the value: a named one by name first, then the first
            // that fits.
            let candidates =
                branches.iter().enumerate().filter(|(_, b)| !matches!(b.kind, Kind::Null));
            let by_name = candidates.clone().find(|(_, b)| match (&b.kind, &s.name) {
                (Kind::Named(i), Some(n)) => {
                    self.avro.named[*i].full_name()
                        == names::scrub_full(n, self.options.scrub_invalid_names)
                }
                _ => false,
            });
            let mut last = None;
            for (i, b) in by_name.into_iter().chain(candidates) {
                match deeper.node(b, s, path) {
                    Ok(inner) => {
                        return Ok(Enc::Union { null, index: i as i64, inner: Box::new(inner) });
                    }
                    Err(e) => last = Some(e),
                }
            }
            return match (last, null) {
                (None, Some(n)) => {
                    Ok(Enc::Union { null: Some(n), index: n, inner: Box::new(Enc::Null) })
                }
                (Some(e), _) => Err(e),
                (None, None) => Err(mismatch()),
            };
        }
        let decimal = s.is_logical(DECIMAL);
        Ok(match (&node.kind, s.ty) {
            (Kind::Int, Type::Int8 | Type::Int16 | Type::Int32) => Enc::Int,
            (Kind::Long, Type::Int8 | Type::Int16 | Type::Int32 | Type::Int64) => Enc::Long,
            (Kind::Float, Type::Float32) => Enc::Float,
            (Kind::Double, Type::Float32 | Type::Float64) => Enc::Double,
            (Kind::Boolean, Type::Boolean) => Enc::Boolean,
            (Kind::String, Type::String) => Enc::String,
            (Kind::Bytes, Type::Bytes) => Enc::Bytes,
            (Kind::Array(items), Type::Map) if is_map_entry(self.avro, items) => {
                let Kind::Named(i) = items.kind else { return Err(mismatch()) };
                let Body::Record(fields) = &self.avro.named[i].body else { return Err(mismatch()) };
                let key = fields.iter().position(|f| f.name == "key").ok_or_else(mismatch)?;
                let value = fields.iter().position(|f| f.name == "value").ok_or_else(mismatch)?;
                let (ks, vs) = (
                    s.key_schema.as_deref().ok_or_else(mismatch)?,
                    s.value_schema.as_deref().ok_or_else(mismatch)?,
                );
                Enc::Entries {
                    key: Box::new(deeper.node(&fields[key].node, ks, path)?),
                    value: Box::new(deeper.node(&fields[value].node, vs, path)?),
                    key_first: key < value,
                }
            }
            (Kind::Array(items), Type::Array) => {
                let items_schema = s.value_schema.as_deref().ok_or_else(mismatch)?;
                Enc::Array(Box::new(deeper.node(items, items_schema, path)?))
            }
            (Kind::Map(values), Type::Map)
                if s.key_schema.as_ref().is_some_and(|k| k.ty == Type::String) =>
            {
                let values_schema = s.value_schema.as_deref().ok_or_else(mismatch)?;
                Enc::Map(Box::new(deeper.node(values, values_schema, path)?))
            }
            (Kind::Named(i), _) => match (&self.avro.named[*i].body, s.ty) {
                (Body::Fixed(size), Type::Bytes) => Enc::Fixed { size: *size, decimal },
                (Body::Enum { symbols, .. }, Type::String) => Enc::Enum(
                    symbols.iter().enumerate().map(|(i, s)| (s.clone(), i as i64)).collect(),
                ),
                (Body::Record(fields), Type::Struct) => {
                    let mut out = Vec::with_capacity(fields.len());
                    for f in fields {
                        let connect = s.fields.iter().find(|cf| {
                            names::maybe_scrub(&cf.name, self.options.scrub_invalid_names) == f.name
                        });
                        let sub = if path.is_empty() {
                            f.name.clone()
                        } else {
                            format!("{path}.{}", f.name)
                        };
                        let source = match connect {
                            Some(cf) => {
                                let enc = deeper.node(&f.node, &cf.schema, &sub)?;
                                let skip =
                                    self.options.ignore_default_for_nullables && cf.schema.optional;
                                let default = if skip { None } else { cf.schema.default.clone() };
                                Source::Connect { index: cf.index, default, enc }
                            }
                            None => Source::Fixed(self.avro_default(
                                &f.node,
                                f.default.as_ref(),
                                &sub,
                            )?),
                        };
                        out.push(FieldEnc { name: sub, source });
                    }
                    Enc::Record(out)
                }
                _ => return Err(mismatch()),
            },
            _ => return Err(mismatch()),
        })
    }

    /// The Avro default of a field the Connect schema lacks, encoded once.
    fn avro_default(
        &self,
        node: &Node,
        default: Option<&super::json::Json>,
        path: &str,
    ) -> Result<Vec<u8>, FormatError> {
        let default = default
            .ok_or_else(|| field_err(path, "missing from the Connect schema and has no default"))?;
        let connect = to_connect::node_schema(self.avro, node, self.options)
            .map_err(|e| field_err(path, e))?;
        let value = to_connect::default_value(self.avro, &connect, node, default)
            .ok_or_else(|| field_err(path, "has a default that cannot be written"))?;
        let enc = self.node(node, &connect, path)?;
        let mut out = Vec::new();
        enc.write(&value, &mut out, path)?;
        Ok(out)
    }
}

fn describe(avro: &AvroSchema, node: &Node) -> String {
    match &node.kind {
        Kind::Named(i) => avro.named[*i].full_name(),
        k => to_connect::kind_name(k).to_owned(),
    }
}

impl Plan {
    /// Writes `value` to `out`.
    pub fn write(&self, value: &Value, out: &mut Vec<u8>) -> Result<(), FormatError> {
        self.root.write(value, out, "")
    }
}

impl Enc {
    fn write(&self, value: &Value, out: &mut Vec<u8>, path: &str) -> Result<(), FormatError> {
        let wrong = || {
            field_err(
                path,
                format!("Invalid Java object {} for Avro {}", java_class(value), self.name()),
            )
        };
        match (self, value) {
            (
                Enc::Union { null: Some(n), .. } | Enc::UnionStruct { null: Some(n), .. },
                Value::Null,
            ) => write_long(out, *n),
            (_, Value::Null) => {
                return Err(field_err(path, "Found null value for non-optional schema"));
            }
            (Enc::Union { index, inner, .. }, v) => {
                write_long(out, *index);
                inner.write(v, out, path)?;
            }
            (Enc::UnionStruct { null, branches }, Value::Struct(st)) => {
                let chosen = branches
                    .iter()
                    .find(|(i, _, _)| st.values.get(*i).is_some_and(|v| !v.is_null()));
                match (chosen, null) {
                    (Some((i, index, enc)), _) => {
                        write_long(out, *index);
                        enc.write(&st.values[*i], out, path)?;
                    }
                    (None, Some(n)) => write_long(out, *n),
                    (None, None) => {
                        return Err(field_err(path, "Found null value for non-optional schema"));
                    }
                }
            }
            (Enc::Int, Value::Int8(v)) => write_long(out, (*v).into()),
            (Enc::Int, Value::Int16(v)) => write_long(out, (*v).into()),
            (Enc::Int, Value::Int32(v)) => write_long(out, (*v).into()),
            (Enc::Long, Value::Int64(v)) => write_long(out, *v),
            (Enc::Long, Value::Int32(v)) => write_long(out, (*v).into()),
            (Enc::Long, Value::Int16(v)) => write_long(out, (*v).into()),
            (Enc::Long, Value::Int8(v)) => write_long(out, (*v).into()),
            (Enc::Float, Value::Float32(v)) => out.extend_from_slice(&v.to_le_bytes()),
            (Enc::Double, Value::Float64(v)) => out.extend_from_slice(&v.to_le_bytes()),
            (Enc::Double, Value::Float32(v)) => out.extend_from_slice(&f64::from(*v).to_le_bytes()),
            (Enc::Boolean, Value::Boolean(v)) => out.push(u8::from(*v)),
            (Enc::String, Value::String(v)) => write_bytes(out, v.as_bytes()),
            (Enc::Bytes, Value::Bytes(v)) => write_bytes(out, v),
            (Enc::Fixed { size, decimal }, Value::Bytes(v)) => {
                if v.len() == *size {
                    out.extend_from_slice(v);
                } else if *decimal && v.len() < *size {
                    let v = normalize_decimal(v).unwrap_or_else(|| vec![0]);
                    let fill = if v[0] & 0x80 != 0 { 0xff } else { 0 };
                    out.extend(std::iter::repeat_n(fill, size - v.len()));
                    out.extend_from_slice(&v);
                } else {
                    return Err(field_err(
                        path,
                        format!("Fixed size {size} does not fit {} bytes", v.len()),
                    ));
                }
            }
            (Enc::Enum(symbols), Value::String(v)) => match symbols.get(v) {
                Some(i) => write_long(out, *i),
                None => return Err(field_err(path, format!("Not an enum symbol: {v}"))),
            },
            (Enc::Array(items), Value::Array(values)) => {
                if !values.is_empty() {
                    write_long(out, values.len() as i64);
                    for v in values {
                        items.write(v, out, path)?;
                    }
                }
                out.push(0);
            }
            (Enc::Map(values), Value::Map(entries)) => {
                if !entries.is_empty() {
                    write_long(out, entries.len() as i64);
                    for (k, v) in entries {
                        let Value::String(k) = k else {
                            return Err(field_err(
                                path,
                                format!("Invalid map key {}", java_class(k)),
                            ));
                        };
                        write_bytes(out, k.as_bytes());
                        values.write(v, out, path)?;
                    }
                }
                out.push(0);
            }
            (Enc::Entries { key, value, key_first }, Value::Map(entries)) => {
                if !entries.is_empty() {
                    write_long(out, entries.len() as i64);
                    for (k, v) in entries {
                        if *key_first {
                            key.write(k, out, path)?;
                            value.write(v, out, path)?;
                        } else {
                            value.write(v, out, path)?;
                            key.write(k, out, path)?;
                        }
                    }
                }
                out.push(0);
            }
            (Enc::Record(fields), Value::Struct(st)) => {
                for f in fields {
                    match &f.source {
                        Source::Connect { index, default, enc } => {
                            let v = st
                                .values
                                .get(*index)
                                .ok_or_else(|| field_err(path, "Mismatching struct schema"))?;
                            let v = match (v, default) {
                                (Value::Null, Some(d)) => d,
                                _ => v,
                            };
                            enc.write(v, out, &f.name)?;
                        }
                        Source::Fixed(bytes) => out.extend_from_slice(bytes),
                    }
                }
            }
            _ => return Err(wrong()),
        }
        Ok(())
    }

    fn name(&self) -> &'static str {
        match self {
            Enc::Null => "null",
            Enc::Boolean => "boolean",
            Enc::Int => "int",
            Enc::Long => "long",
            Enc::Float => "float",
            Enc::Double => "double",
            Enc::String => "string",
            Enc::Bytes => "bytes",
            Enc::Fixed { .. } => "fixed",
            Enc::Enum(_) => "enum",
            Enc::Array(_) | Enc::Entries { .. } => "array",
            Enc::Map(_) => "map",
            Enc::Record(_) => "record",
            Enc::Union { .. } | Enc::UnionStruct { .. } => "union",
        }
    }
}
