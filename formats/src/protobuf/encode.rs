//! Connect value → protobuf message, along a [`MessagePlan`], as
//! `ProtobufData.fromConnectData` converts: nulls (after a field's default) leave fields
//! unset, empty arrays are not written, a union STRUCT sets its first non-null member, and
//! the logical types become their messages. It owns the conversion, not the schema text.

use std::sync::Arc;

use prost_reflect::{DynamicMessage, FieldDescriptor, Kind, MapKey, Value as PValue};
use wasm_connect_transforms::data::{Type, java_class};

use super::logical::{MILLIS_PER_DAY, civil_from_days, decimal_digits, minimal_twos_complement};
use super::names::ENUM;
use super::plan::{MessagePlan, Parts, Plan, Slot};
use crate::{FormatError, Value};

fn err(message: impl Into<String>) -> FormatError {
    FormatError::Value(message.into())
}

/// The message for the STRUCT `value` of `plan`'s schema.
pub fn message(plan: &MessagePlan, value: &Value) -> Result<DynamicMessage, FormatError> {
    let Value::Struct(s) = value else {
        return Err(err(format!("Invalid type for STRUCT: {}", java_class(value))));
    };
    if !Arc::ptr_eq(&s.schema, &plan.schema) && *s.schema != *plan.schema {
        return Err(err("Mismatching struct schema"));
    }
    let mut message = DynamicMessage::new(plan.desc.clone());
    for ((field, slot), value) in plan.schema.fields.iter().zip(&plan.slots).zip(&s.values) {
        // `Struct.get` gives a field's default in place of a null.
        let value = match (value, &field.schema.default) {
            (Value::Null, Some(default)) => default,
            _ => value,
        };
        if value.is_null() {
            continue;
        }
        match slot {
            Slot::Field { fd, plan, .. } => {
                if let Some(v) = field_value(plan, value)? {
                    set(&mut message, fd, v)?;
                }
            }
            Slot::Union { members, .. } => {
                let Value::Struct(union) = value else {
                    return Err(err(format!("Invalid type for STRUCT: {}", java_class(value))));
                };
                let chosen = members.iter().zip(&union.values).find(|(_, v)| !v.is_null());
                let Some(((fd, plan), v)) = chosen else {
                    return Err(err("Cannot find non-null field"));
                };
                if let Some(v) = field_value(plan, v)? {
                    set(&mut message, fd, v)?;
                }
            }
        }
    }
    Ok(message)
}

fn set(
    message: &mut DynamicMessage,
    fd: &FieldDescriptor,
    value: PValue,
) -> Result<(), FormatError> {
    message
        .try_set_field(fd, value)
        .map_err(|e| err(format!("Cannot set field {}: {e}", fd.name())))
}

/// A whole field's value; `None` when nothing is to be written.
fn field_value(plan: &Plan, value: &Value) -> Result<Option<PValue>, FormatError> {
    match (plan, value) {
        (_, Value::Null) => Ok(None),
        (Plan::Array(items), Value::Array(values)) => {
            if values.is_empty() {
                return Ok(None);
            }
            let list = values
                .iter()
                .map(|v| one(items, v)?.ok_or_else(|| err("Cannot write a null array element")))
                .collect::<Result<Vec<_>, _>>()?;
            Ok(Some(PValue::List(list)))
        }
        (
            Plan::Map { entry, key_field, value_field, key, value: value_plan, native },
            Value::Map(entries),
        ) => {
            if *native {
                let mut map = std::collections::HashMap::with_capacity(entries.len());
                for (k, v) in entries {
                    let k = one(key, k)?.ok_or_else(|| err("Cannot write a null map key"))?;
                    let k = map_key(k)?;
                    let v = match one(value_plan, v)? {
                        Some(v) => v,
                        None => PValue::default_value_for_field(value_field),
                    };
                    map.insert(k, v);
                }
                return Ok(Some(PValue::Map(map)));
            }
            let mut list = Vec::with_capacity(entries.len());
            for (k, v) in entries {
                let mut message = DynamicMessage::new(entry.clone());
                if let Some(k) = one(key, k)? {
                    set(&mut message, key_field, k)?;
                }
                if let Some(v) = one(value_plan, v)? {
                    set(&mut message, value_field, v)?;
                }
                list.push(PValue::Message(message));
            }
            Ok(Some(PValue::List(list)))
        }
        (Plan::Array(_), other) => Err(mismatch("ARRAY", other)),
        (Plan::Map { .. }, other) => Err(mismatch("MAP", other)),
        _ => one(plan, value),
    }
}

fn map_key(value: PValue) -> Result<MapKey, FormatError> {
    Ok(match value {
        PValue::Bool(b) => MapKey::Bool(b),
        PValue::I32(i) => MapKey::I32(i),
        PValue::I64(i) => MapKey::I64(i),
        PValue::U32(i) => MapKey::U32(i),
        PValue::U64(i) => MapKey::U64(i),
        PValue::String(s) => MapKey::String(s),
        other => return Err(err(format!("Invalid map key {other:?}"))),
    })
}

fn mismatch(expected: &str, value: &Value) -> FormatError {
    err(format!("Invalid type for {expected}: {}", java_class(value)))
}

fn integer(value: &Value) -> Option<i64> {
    Some(match value {
        Value::Int8(v) => i64::from(*v),
        Value::Int16(v) => i64::from(*v),
        Value::Int32(v) => i64::from(*v),
        Value::Int64(v) => *v,
        _ => return None,
    })
}

fn float(value: &Value) -> Option<f64> {
    match value {
        Value::Float32(v) => Some(f64::from(*v)),
        Value::Float64(v) => Some(*v),
        other => integer(other).map(|i| i as f64),
    }
}

/// One value (not a whole repeated field); `None` for null.
fn one(plan: &Plan, value: &Value) -> Result<Option<PValue>, FormatError> {
    if value.is_null() {
        return Ok(None);
    }
    Ok(Some(match plan {
        Plan::Scalar { ty, kind } => scalar(*ty, kind, value)?,
        Plan::Enum { ty, desc, schema } => {
            let number = match (ty, value) {
                (Type::String, Value::String(symbol)) => {
                    let key = format!("{ENUM}.{symbol}");
                    match schema.parameter(&key).and_then(|n| n.parse().ok()) {
                        Some(n) => n,
                        None => {
                            desc.get_value_by_name(symbol).map(|v| v.number()).ok_or_else(|| {
                                err(format!("Unknown symbol {symbol} of enum {}", desc.full_name()))
                            })?
                        }
                    }
                }
                (Type::String, other) => return Err(mismatch("STRING", other)),
                (_, other) => {
                    integer(other).ok_or_else(|| mismatch(ty.upper(), other)).map(|n| n as i32)?
                }
            };
            PValue::EnumNumber(number)
        }
        Plan::Wrapped { desc, value: value_field, inner } => {
            let mut message = DynamicMessage::new(desc.clone());
            if let Some(v) = one(inner, value)? {
                set(&mut message, value_field, v)?;
            }
            PValue::Message(message)
        }
        Plan::Date(parts) => {
            let Value::Int32(days) = value else { return Err(mismatch("Date", value)) };
            let (y, m, d) = civil_from_days(i64::from(*days));
            let year = i32::try_from(y).map_err(|_| err("Date out of range"))?;
            fields(parts, [PValue::I32(year), PValue::I32(m as i32), PValue::I32(d as i32)])?
        }
        Plan::Time(parts) => {
            let Value::Int32(millis) = value else { return Err(mismatch("Time", value)) };
            let millis = i64::from(*millis);
            if !(0..=MILLIS_PER_DAY).contains(&millis) {
                return Err(err(
                    "Time values must use number of millis greater than 0 and less than 86400000",
                ));
            }
            let ms = millis % MILLIS_PER_DAY;
            fields(
                parts,
                [
                    PValue::I32((ms / 3_600_000) as i32),
                    PValue::I32((ms / 60_000 % 60) as i32),
                    PValue::I32((ms / 1000 % 60) as i32),
                    PValue::I32((ms % 1000 * 1_000_000) as i32),
                ],
            )?
        }
        Plan::Timestamp(parts) => {
            let Value::Int64(millis) = value else { return Err(mismatch("Timestamp", value)) };
            let seconds = millis.div_euclid(1000);
            let nanos = (millis.rem_euclid(1000) * 1_000_000) as i32;
            fields(parts, [PValue::I64(seconds), PValue::I32(nanos)])?
        }
        Plan::Decimal { parts, scale } => {
            let Value::Bytes(unscaled) = value else { return Err(mismatch("Decimal", value)) };
            let minimal = minimal_twos_complement(unscaled);
            let precision = decimal_digits(&minimal);
            fields(
                parts,
                [PValue::Bytes(minimal.into()), PValue::U32(precision), PValue::I32(*scale)],
            )?
        }
        Plan::Message(plan) => PValue::Message(message(plan, value)?),
        Plan::Array(_) | Plan::Map { .. } => {
            return Err(err("Array cannot be nested"));
        }
    }))
}

/// The logical message of `parts` with its fields set to `values`, in order (zeros left
/// unset, as proto3 writes them).
fn fields<const N: usize>(parts: &Parts, values: [PValue; N]) -> Result<PValue, FormatError> {
    let mut message = DynamicMessage::new(parts.desc.clone());
    for (fd, value) in parts.fields.iter().zip(values) {
        let Some(fd) = fd else {
            return Err(err(format!("{} lacks a field", parts.desc.full_name())));
        };
        if !value.is_default_for_field(fd) {
            set(&mut message, fd, value)?;
        }
    }
    Ok(PValue::Message(message))
}

fn scalar(ty: Type, kind: &Kind, value: &Value) -> Result<PValue, FormatError> {
    let bad = || mismatch(ty.upper(), value);
    Ok(match kind {
        Kind::Int32 | Kind::Sint32 | Kind::Sfixed32 => {
            PValue::I32(integer(value).ok_or_else(bad)? as i32)
        }
        Kind::Uint32 | Kind::Fixed32 => PValue::U32(integer(value).ok_or_else(bad)? as u32),
        Kind::Int64 | Kind::Sint64 | Kind::Sfixed64 => PValue::I64(integer(value).ok_or_else(bad)?),
        Kind::Uint64 | Kind::Fixed64 => PValue::U64(integer(value).ok_or_else(bad)? as u64),
        Kind::Float => PValue::F32(float(value).ok_or_else(bad)? as f32),
        Kind::Double => PValue::F64(float(value).ok_or_else(bad)?),
        Kind::Bool => match value {
            Value::Boolean(b) => PValue::Bool(*b),
            _ => return Err(bad()),
        },
        Kind::String => match value {
            Value::String(s) => PValue::String(s.clone()),
            _ => return Err(bad()),
        },
        Kind::Bytes => match value {
            Value::Bytes(b) => PValue::Bytes(b.clone().into()),
            _ => return Err(bad()),
        },
        Kind::Message(_) | Kind::Enum(_) => return Err(bad()),
    })
}

/// The wrapper message `desc` holding the root primitive `value`.
pub fn wrapper(
    desc: &prost_reflect::MessageDescriptor,
    plan: &Plan,
    value: &Value,
) -> Result<DynamicMessage, FormatError> {
    match one(plan, value)? {
        Some(PValue::Message(message)) => Ok(message),
        _ => Err(err(format!("Cannot write {} as {}", java_class(value), desc.full_name()))),
    }
}
