//! Protobuf message → Connect value, along a [`MessagePlan`], as
//! `ProtobufData.toConnectData` converts: unset scalar and repeated fields without the
//! `optional` keyword read as their defaults, other unset fields as null, a set oneof
//! member as its union STRUCT, and the logical messages as Connect's logical values. It
//! owns the conversion; parsing bytes is `prost-reflect`'s.

use prost_reflect::{DynamicMessage, MapKey, Value as PValue};
use wasm_connect_transforms::data::{Struct, Type};

use super::logical::{days_from_civil, minimal_twos_complement, valid_date};
use super::plan::{MessagePlan, Parts, Plan, Slot};
use crate::{FormatError, Value};

fn err(message: impl Into<String>) -> FormatError {
    FormatError::Decode(message.into())
}

/// The STRUCT of `plan`'s schema that `message` holds.
pub fn message(plan: &MessagePlan, message: &DynamicMessage) -> Result<Value, FormatError> {
    let mut values = Vec::with_capacity(plan.slots.len());
    for slot in &plan.slots {
        values.push(match slot {
            Slot::Field { fd, plan, always } => {
                if *always || message.has_field(fd) {
                    field_value(plan, &message.get_field(fd))?
                } else {
                    Value::Null
                }
            }
            Slot::Union { schema, members } => {
                let mut union = Struct::new(schema.clone());
                let mut set = false;
                for (index, (fd, plan)) in members.iter().enumerate() {
                    if message.has_field(fd) {
                        union.values[index] = one(plan, &message.get_field(fd))?;
                        set = true;
                    }
                }
                if set { Value::Struct(union) } else { Value::Null }
            }
        });
    }
    Ok(Value::Struct(Struct { schema: plan.schema.clone(), values }))
}

fn field_value(plan: &Plan, value: &PValue) -> Result<Value, FormatError> {
    match (plan, value) {
        (Plan::Array(items), PValue::List(list)) => {
            Ok(Value::Array(list.iter().map(|v| one(items, v)).collect::<Result<_, _>>()?))
        }
        (Plan::Map { key, value: value_plan, .. }, PValue::Map(map)) => {
            let mut entries = Vec::with_capacity(map.len());
            for (k, v) in map {
                entries.push((one(key, &map_key(k))?, one(value_plan, v)?));
            }
            Ok(Value::Map(entries))
        }
        (Plan::Map { key_field, value_field, key, value: value_plan, .. }, PValue::List(list)) => {
            let mut entries = Vec::with_capacity(list.len());
            for entry in list {
                let PValue::Message(entry) = entry else {
                    return Err(err("a map entry is not a message"));
                };
                entries.push((
                    one(key, &entry.get_field(key_field))?,
                    one(value_plan, &entry.get_field(value_field))?,
                ));
            }
            Ok(Value::Map(entries))
        }
        (Plan::Array(_) | Plan::Map { .. }, _) => Err(err("a repeated field holds a single value")),
        _ => one(plan, value),
    }
}

fn map_key(key: &MapKey) -> PValue {
    match key {
        MapKey::Bool(b) => PValue::Bool(*b),
        MapKey::I32(i) => PValue::I32(*i),
        MapKey::I64(i) => PValue::I64(*i),
        MapKey::U32(i) => PValue::U32(*i),
        MapKey::U64(i) => PValue::U64(*i),
        MapKey::String(s) => PValue::String(s.clone()),
    }
}

/// The integer in field `index` of `parts` (0 when unset or absent).
fn int_at(message: &DynamicMessage, parts: &Parts, index: usize) -> i64 {
    let Some(Some(fd)) = parts.fields.get(index) else { return 0 };
    match &*message.get_field(fd) {
        PValue::I32(v) => i64::from(*v),
        PValue::I64(v) => *v,
        PValue::U32(v) => i64::from(*v),
        _ => 0,
    }
}

fn one(plan: &Plan, value: &PValue) -> Result<Value, FormatError> {
    let unexpected = || err(format!("Unexpected protobuf value {value:?}"));
    Ok(match plan {
        Plan::Scalar { ty, .. } => scalar(*ty, value).ok_or_else(unexpected)?,
        Plan::Enum { ty, desc, .. } => {
            let PValue::EnumNumber(n) = value else { return Err(unexpected()) };
            match ty {
                Type::String => Value::String(match desc.get_value(*n) {
                    Some(v) => v.name().to_owned(),
                    None => format!("UNKNOWN_ENUM_VALUE_{}_{n}", desc.name()),
                }),
                Type::Int8 => Value::Int8(*n as i8),
                Type::Int16 => Value::Int16(*n as i16),
                _ => Value::Int32(*n),
            }
        }
        Plan::Wrapped { value: value_field, inner, .. } => {
            let PValue::Message(m) = value else { return Err(unexpected()) };
            one(inner, &m.get_field(value_field))?
        }
        Plan::Date(parts) => {
            let PValue::Message(m) = value else { return Err(unexpected()) };
            let (y, mo, d) = (int_at(m, parts, 0), int_at(m, parts, 1), int_at(m, parts, 2));
            if !valid_date(y, mo as i32, d as i32) {
                return Err(err(format!("Invalid date {y}-{mo}-{d}")));
            }
            let days = days_from_civil(y, mo as u32, d as u32);
            Value::Int32(i32::try_from(days).map_err(|_| err("Date out of range"))?)
        }
        Plan::Time(parts) => {
            let PValue::Message(m) = value else { return Err(unexpected()) };
            let (h, mi, s, n) = (
                int_at(m, parts, 0),
                int_at(m, parts, 1),
                int_at(m, parts, 2),
                int_at(m, parts, 3),
            );
            if !(0..24).contains(&h)
                || !(0..60).contains(&mi)
                || !(0..60).contains(&s)
                || !(0..1_000_000_000).contains(&n)
            {
                return Err(err(format!("Invalid time of day {h}:{mi}:{s}.{n}")));
            }
            Value::Int32(((h * 3600 + mi * 60 + s) * 1000 + n / 1_000_000) as i32)
        }
        Plan::Timestamp(parts) => {
            let PValue::Message(m) = value else { return Err(unexpected()) };
            let millis = int_at(m, parts, 0)
                .checked_mul(1000)
                .and_then(|ms| ms.checked_add(int_at(m, parts, 1) / 1_000_000))
                .ok_or_else(|| err("Timestamp out of range"))?;
            Value::Int64(millis)
        }
        Plan::Decimal { parts, scale } => {
            let PValue::Message(m) = value else { return Err(unexpected()) };
            let bytes = match parts.fields[0].as_ref().map(|fd| m.get_field(fd)).as_deref() {
                Some(PValue::Bytes(b)) => b.to_vec(),
                _ => Vec::new(),
            };
            let found = int_at(m, parts, 2);
            if found != i64::from(*scale) {
                return Err(err(format!(
                    "Decimal scale {found} does not match the schema's scale {scale}"
                )));
            }
            Value::Bytes(minimal_twos_complement(&bytes))
        }
        Plan::Message(plan) => {
            let PValue::Message(m) = value else { return Err(unexpected()) };
            message(plan, m)?
        }
        Plan::Array(_) | Plan::Map { .. } => return Err(unexpected()),
    })
}

fn scalar(ty: Type, value: &PValue) -> Option<Value> {
    Some(match (ty, value) {
        (Type::Int8, PValue::I32(v)) => Value::Int8(*v as i8),
        (Type::Int16, PValue::I32(v)) => Value::Int16(*v as i16),
        (Type::Int32, PValue::I32(v)) => Value::Int32(*v),
        (Type::Int32, PValue::U32(v)) => Value::Int32(*v as i32),
        (Type::Int64, PValue::I64(v)) => Value::Int64(*v),
        (Type::Int64, PValue::U64(v)) => Value::Int64(*v as i64),
        (Type::Int64, PValue::U32(v)) => Value::Int64(i64::from(*v)),
        (Type::Int64, PValue::I32(v)) => Value::Int64(i64::from(*v)),
        (Type::Float32, PValue::F32(v)) => Value::Float32(*v),
        (Type::Float64, PValue::F64(v)) => Value::Float64(*v),
        (Type::Float64, PValue::F32(v)) => Value::Float64(f64::from(*v)),
        (Type::Float32, PValue::F64(v)) => Value::Float32(*v as f32),
        (Type::Boolean, PValue::Bool(b)) => Value::Boolean(*b),
        (Type::String, PValue::String(s)) => Value::String(s.clone()),
        (Type::Bytes, PValue::Bytes(b)) => Value::Bytes(b.to_vec()),
        _ => return None,
    })
}

/// The primitive a top-level `google.protobuf.*Value` message holds.
pub fn wrapped(message: &DynamicMessage, ty: Type) -> Result<Value, FormatError> {
    let value = message.get_field_by_name("value").ok_or_else(|| err("a wrapper without value"))?;
    scalar(ty, &value).ok_or_else(|| err(format!("Unexpected protobuf value {value:?}")))
}
