//! The encoding [`Plan`], used per record to write Connect [`Value`]s straight to Avro
//! binary, as `AvroData.fromConnectData` plus Avro's `GenericDatumWriter` would. Building
//! the plan is `encode_plan`'s; this module must not map or match schemas.

use std::collections::HashMap;

use wasm_connect_transforms::data::{Value, java_class};

use super::binary::{write_bytes, write_long};
use super::normalize_decimal;
use crate::FormatError;

/// A compiled writer of one Connect schema's values with one Avro schema.
#[derive(Debug)]
pub struct Plan {
    pub(super) root: Enc,
}

#[derive(Debug)]
pub(super) enum Enc {
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
pub(super) struct FieldEnc {
    pub(super) name: String,
    pub(super) source: Source,
}

#[derive(Debug)]
pub(super) enum Source {
    /// The Connect field at `index`; a null is replaced by `default`.
    Connect { index: usize, default: Option<Value>, enc: Enc },
    /// A field the Connect schema lacks: its Avro default, pre-encoded.
    Fixed(Vec<u8>),
}

pub(super) fn field_err(path: &str, message: impl std::fmt::Display) -> FormatError {
    if path.is_empty() {
        FormatError::Value(message.to_string())
    } else {
        FormatError::Value(format!("Field {path}: {message}"))
    }
}

impl Plan {
    /// Writes `value` to `out`.
    pub fn write(&self, value: &Value, out: &mut Vec<u8>) -> Result<(), FormatError> {
        self.root.write(value, out, "")
    }
}

impl Enc {
    pub(super) fn write(
        &self,
        value: &Value,
        out: &mut Vec<u8>,
        path: &str,
    ) -> Result<(), FormatError> {
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
