//! The decoding [`Plan`]: an Avro schema walked once beside the Connect schema
//! `to_connect` made of it, then used per record to read Avro binary straight into
//! Connect [`Value`]s (as Avro's `GenericDatumReader` plus `AvroData.toConnectData`
//! would). Any input bytes give a value or a `Decode` error, never a panic. This module
//! must not map schemas.

use std::sync::Arc;

use wasm_connect_transforms::data::{DECIMAL, Schema, Struct, Type, Value};

use super::binary::Cursor;
use super::model::{AvroSchema, Body, Kind, Node, is_map_entry};
use super::normalize_decimal;
use crate::FormatError;

/// A compiled reader of one Avro schema's payloads.
#[derive(Debug)]
pub struct Plan {
    root: Dec,
}

#[derive(Debug)]
enum Dec {
    Boolean,
    Int8,
    Int16,
    Int32,
    Int64,
    Float32,
    Float64,
    String,
    Bytes {
        decimal: bool,
    },
    Fixed {
        size: usize,
        decimal: bool,
    },
    Enum(Vec<String>),
    Array(Box<Dec>),
    Map(Box<Dec>),
    Entries {
        key: Box<Dec>,
        value: Box<Dec>,
        key_first: bool,
    },
    Record {
        schema: Arc<Schema>,
        fields: Vec<Dec>,
    },
    /// A union whose non-null branch is read as is; `None` marks the null branch.
    Union(Vec<Option<Dec>>),
    /// A general union: branch `i` fills field `fields[i]` of the `Union` struct.
    UnionStruct {
        schema: Arc<Schema>,
        branches: Vec<Option<(usize, Dec)>>,
    },
}

fn bad(message: &str) -> FormatError {
    FormatError::RegisteredSchema(format!("Avro and Connect schemas do not line up: {message}"))
}

/// Compiles the plan for `avro`, whose Connect form is `connect`.
pub fn compile(avro: &AvroSchema, connect: &Arc<Schema>) -> Result<Plan, FormatError> {
    Ok(Plan { root: node(avro, &avro.root, connect)? })
}

fn node(avro: &AvroSchema, n: &Node, s: &Arc<Schema>) -> Result<Dec, FormatError> {
    let decimal = s.is_logical(DECIMAL);
    Ok(match &n.kind {
        Kind::Null => return Err(bad("standalone null")),
        Kind::Boolean => Dec::Boolean,
        Kind::Int => match s.ty {
            Type::Int8 => Dec::Int8,
            Type::Int16 => Dec::Int16,
            _ => Dec::Int32,
        },
        Kind::Long => Dec::Int64,
        Kind::Float => Dec::Float32,
        Kind::Double => Dec::Float64,
        Kind::String => Dec::String,
        Kind::Bytes => Dec::Bytes { decimal },
        Kind::Array(items) if s.ty == Type::Map && is_map_entry(avro, items) => {
            let Kind::Named(i) = items.kind else { return Err(bad("map entry")) };
            let Body::Record(fields) = &avro.named[i].body else { return Err(bad("map entry")) };
            let k = fields.iter().position(|f| f.name == "key").ok_or_else(|| bad("key"))?;
            let v = fields.iter().position(|f| f.name == "value").ok_or_else(|| bad("value"))?;
            let ks = s.key_schema.as_ref().ok_or_else(|| bad("keys"))?;
            let vs = s.value_schema.as_ref().ok_or_else(|| bad("values"))?;
            Dec::Entries {
                key: Box::new(node(avro, &fields[k].node, ks)?),
                value: Box::new(node(avro, &fields[v].node, vs)?),
                key_first: k < v,
            }
        }
        Kind::Array(items) => Dec::Array(Box::new(node(
            avro,
            items,
            s.value_schema.as_ref().ok_or_else(|| bad("items"))?,
        )?)),
        Kind::Map(values) => Dec::Map(Box::new(node(
            avro,
            values,
            s.value_schema.as_ref().ok_or_else(|| bad("values"))?,
        )?)),
        Kind::Union(branches)
            if s.ty == Type::Struct && s.name.as_deref() == Some(super::AVRO_TYPE_UNION) =>
        {
            let mut out = Vec::with_capacity(branches.len());
            let mut next = 0;
            for b in branches {
                if matches!(b.kind, Kind::Null) {
                    out.push(None);
                } else {
                    let f = s.fields.get(next).ok_or_else(|| bad("union fields"))?;
                    next += 1;
                    out.push(Some((f.index, node(avro, b, &f.schema)?)));
                }
            }
            Dec::UnionStruct { schema: s.clone(), branches: out }
        }
        Kind::Union(branches) => Dec::Union(
            branches
                .iter()
                .map(|b| {
                    if matches!(b.kind, Kind::Null) { Ok(None) } else { node(avro, b, s).map(Some) }
                })
                .collect::<Result<_, _>>()?,
        ),
        Kind::Named(i) => match &avro.named[*i].body {
            Body::Fixed(size) => Dec::Fixed { size: *size, decimal },
            Body::Enum { symbols, .. } => Dec::Enum(symbols.clone()),
            Body::Record(fields) => {
                if s.fields.len() != fields.len() {
                    return Err(bad("record fields"));
                }
                let decs = fields
                    .iter()
                    .zip(&s.fields)
                    .map(|(f, cf)| node(avro, &f.node, &cf.schema))
                    .collect::<Result<_, _>>()?;
                Dec::Record { schema: s.clone(), fields: decs }
            }
        },
    })
}

impl Plan {
    /// Reads one value from `payload` (bytes after it are ignored, as Avro's reader does).
    pub fn read(&self, payload: &[u8]) -> Result<Value, FormatError> {
        self.root.read(&mut Cursor::new(payload))
    }
}

fn decimal(bytes: &[u8]) -> Result<Value, FormatError> {
    normalize_decimal(bytes)
        .map(Value::Bytes)
        .ok_or_else(|| FormatError::Decode("Zero length BigInteger".into()))
}

impl Dec {
    /// The fewest bytes a value takes, to bound block counts by the bytes left.
    fn min_size(&self) -> usize {
        match self {
            Dec::Float32 => 4,
            Dec::Float64 => 8,
            Dec::Fixed { size, .. } => *size,
            Dec::Record { fields, .. } => fields.iter().map(Dec::min_size).sum(),
            Dec::Entries { key, value, .. } => key.min_size() + value.min_size(),
            _ => 1,
        }
    }

    fn read(&self, c: &mut Cursor<'_>) -> Result<Value, FormatError> {
        Ok(match self {
            Dec::Boolean => Value::Boolean(c.boolean()?),
            Dec::Int8 => Value::Int8(c.int()? as i8),
            Dec::Int16 => Value::Int16(c.int()? as i16),
            Dec::Int32 => Value::Int32(c.int()?),
            Dec::Int64 => Value::Int64(c.long()?),
            Dec::Float32 => Value::Float32(c.float()?),
            Dec::Float64 => Value::Float64(c.double()?),
            Dec::String => Value::String(c.string()?),
            Dec::Bytes { decimal: false } => Value::Bytes(c.bytes()?.to_vec()),
            Dec::Bytes { decimal: true } => decimal(c.bytes()?)?,
            Dec::Fixed { size, decimal: false } => Value::Bytes(c.take(*size)?.to_vec()),
            Dec::Fixed { size, decimal: true } => decimal(c.take(*size)?)?,
            Dec::Enum(symbols) => {
                let i = c.int()?;
                let symbol = usize::try_from(i).ok().and_then(|i| symbols.get(i));
                Value::String(
                    symbol
                        .ok_or_else(|| FormatError::Decode(format!("Invalid enum index {i}")))?
                        .clone(),
                )
            }
            Dec::Array(items) => {
                let mut out = Vec::new();
                loop {
                    let n = c.block_count(items.min_size())?;
                    if n == 0 {
                        break;
                    }
                    out.reserve(n);
                    for _ in 0..n {
                        out.push(items.read(c)?);
                    }
                }
                Value::Array(out)
            }
            Dec::Map(values) => {
                let mut out = Vec::new();
                loop {
                    let n = c.block_count(1 + values.min_size())?;
                    if n == 0 {
                        break;
                    }
                    out.reserve(n);
                    for _ in 0..n {
                        let k = Value::String(c.string()?);
                        out.push((k, values.read(c)?));
                    }
                }
                Value::Map(out)
            }
            Dec::Entries { key, value, key_first } => {
                let mut out = Vec::new();
                loop {
                    let n = c.block_count(key.min_size() + value.min_size())?;
                    if n == 0 {
                        break;
                    }
                    out.reserve(n);
                    for _ in 0..n {
                        let (k, v) = if *key_first {
                            let k = key.read(c)?;
                            (k, value.read(c)?)
                        } else {
                            let v = value.read(c)?;
                            (key.read(c)?, v)
                        };
                        out.push((k, v));
                    }
                }
                Value::Map(out)
            }
            Dec::Record { schema, fields } => {
                let mut values = Vec::with_capacity(fields.len());
                for f in fields {
                    values.push(f.read(c)?);
                }
                Value::Struct(Struct { schema: schema.clone(), values })
            }
            Dec::Union(branches) => match branches.get(union_index(c, branches.len())?) {
                Some(Some(dec)) => dec.read(c)?,
                _ => Value::Null,
            },
            Dec::UnionStruct { schema, branches } => {
                match branches.get(union_index(c, branches.len())?) {
                    Some(Some((field, dec))) => {
                        let mut st = Struct::new(schema.clone());
                        st.values[*field] = dec.read(c)?;
                        Value::Struct(st)
                    }
                    _ => Value::Null,
                }
            }
        })
    }
}

fn union_index(c: &mut Cursor<'_>, len: usize) -> Result<usize, FormatError> {
    let i = c.long()?;
    usize::try_from(i)
        .ok()
        .filter(|i| *i < len)
        .ok_or_else(|| FormatError::Decode(format!("Invalid union index {i}")))
}
