//! Compiling the encoding [`Plan`]: a Connect schema matched once against an Avro schema
//! (ours or a registered one). Struct fields are matched by (scrubbed) name, an Avro field
//! the Connect schema lacks gets its Avro default encoded once, union branches are chosen
//! by name and then by fit. Mismatches are `Value` errors naming the field. This module
//! must not write values per record; `encode` does.

use std::sync::Arc;

use wasm_connect_transforms::data::{DECIMAL, Schema, Type};

use super::encode::{Enc, FieldEnc, Plan, Source, field_err};
use super::model::{AvroSchema, Body, Kind, Node, is_map_entry, kind_name, union_field_name};
use super::options::Options;
use super::{AVRO_TYPE_UNION, defaults, names, to_connect};
use crate::FormatError;

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
                let non_null: Vec<(usize, &Node)> = branches
                    .iter()
                    .enumerate()
                    .filter(|(_, b)| !matches!(b.kind, Kind::Null))
                    .collect();
                for (position, f) in s.fields.iter().enumerate() {
                    // By AvroData's branch name, else by position (this format writes the
                    // branches in field order).
                    let (i, b) = non_null
                        .iter()
                        .find(|(_, b)| {
                            union_field_name(self.avro, b, self.options.enhanced) == f.name
                        })
                        .or_else(|| non_null.get(position))
                        .copied()
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
        let value = defaults::default_value(self.avro, &connect, node, default)
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
        k => kind_name(k).to_owned(),
    }
}
