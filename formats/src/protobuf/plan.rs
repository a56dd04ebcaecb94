//! [`MessagePlan`]: a Connect STRUCT schema paired, once per schema, with the descriptors
//! its values are written to and read from, so that `encode` and `decode` walk both
//! without looking anything up by name per record. It owns the pairing and its checks
//! (a Connect field with no protobuf field, or types that cannot meet), not the values.

use std::sync::Arc;

use prost_reflect::{EnumDescriptor, FieldDescriptor, Kind, MessageDescriptor};
use wasm_connect_transforms::data::{DATE, DECIMAL, DECIMAL_SCALE, TIME, TIMESTAMP, Type};

use super::names::{self, UNION_PREFIX};
use super::to_connect::{has_optional_keyword, is_map_field, wrapped_type};
use crate::Schema;

/// How one value (a field's, an element's, a map key's or value's) is converted.
#[derive(Debug)]
pub enum Plan {
    /// A scalar of Connect type `ty` in a field of protobuf kind `kind`.
    Scalar {
        /// The Connect type.
        ty: Type,
        /// The protobuf kind (never a message or enum).
        kind: Kind,
    },
    /// An enum, as a Connect STRING (its symbol) or integer (its number).
    Enum {
        /// The Connect type.
        ty: Type,
        /// The enum.
        desc: EnumDescriptor,
        /// The Connect schema, for its `io.confluent.connect.protobuf.Enum.*` numbers.
        schema: Arc<Schema>,
    },
    /// A `google.protobuf.*Value` wrapper around a scalar.
    Wrapped {
        /// The wrapper message.
        desc: MessageDescriptor,
        /// Its `value` field.
        value: FieldDescriptor,
        /// How the wrapped scalar converts.
        inner: Box<Plan>,
    },
    /// Connect Date ↔ `google.type.Date` (`year`, `month`, `day`).
    Date(Parts),
    /// Connect Time ↔ `google.type.TimeOfDay` (`hours`, `minutes`, `seconds`, `nanos`).
    Time(Parts),
    /// Connect Timestamp ↔ `google.protobuf.Timestamp` (`seconds`, `nanos`).
    Timestamp(Parts),
    /// Connect Decimal ↔ `confluent.type.Decimal` (`value`, `precision`, `scale`).
    Decimal {
        /// The message and its fields.
        parts: Parts,
        /// The Connect schema's scale.
        scale: i32,
    },
    /// A repeated field's elements.
    Array(Box<Plan>),
    /// A map, as `map<k, v>` (`native`) or as repeated entry messages.
    Map {
        /// The entry message.
        entry: MessageDescriptor,
        /// Its `key` field.
        key_field: FieldDescriptor,
        /// Its `value` field.
        value_field: FieldDescriptor,
        /// How keys convert.
        key: Box<Plan>,
        /// How values convert.
        value: Box<Plan>,
        /// Whether the field is a protobuf map (else a list of entry messages).
        native: bool,
    },
    /// A nested message.
    Message(Box<MessagePlan>),
}

/// A logical type's message and its fields, looked up once, in the order its variant
/// of [`Plan`] names them (`None` for a field the message lacks).
#[derive(Debug)]
pub struct Parts {
    /// The message.
    pub desc: MessageDescriptor,
    /// Its fields.
    pub fields: Vec<Option<FieldDescriptor>>,
}

impl Parts {
    fn new(desc: &MessageDescriptor, names: &[&str]) -> Self {
        let fields = names.iter().map(|n| desc.get_field_by_name(n)).collect();
        Self { desc: desc.clone(), fields }
    }
}

/// A STRUCT schema and its message.
#[derive(Debug)]
pub struct MessagePlan {
    /// The Connect schema.
    pub schema: Arc<Schema>,
    /// The message.
    pub desc: MessageDescriptor,
    /// One slot per Connect field, in field order.
    pub slots: Vec<Slot>,
}

/// Where one Connect field lives in the message.
#[derive(Debug)]
pub enum Slot {
    /// A protobuf field.
    Field {
        /// The field.
        fd: FieldDescriptor,
        /// How its value converts.
        plan: Plan,
        /// Whether an unset field still reads as its default (a scalar or repeated field
        /// without the `optional` keyword) rather than as null.
        always: bool,
    },
    /// A oneof, read as a STRUCT with one field per member.
    Union {
        /// The union STRUCT's schema.
        schema: Arc<Schema>,
        /// The members, in the union's field order.
        members: Vec<(FieldDescriptor, Plan)>,
    },
}

/// Pairs `schema` with `desc`; `scrub` spells Connect field names as the writer did.
pub fn message(
    schema: &Arc<Schema>,
    desc: &MessageDescriptor,
    scrub: bool,
) -> Result<MessagePlan, String> {
    if schema.ty != Type::Struct {
        return Err(format!(
            "Cannot write a {} schema as message {}",
            schema.ty.upper(),
            desc.full_name()
        ));
    }
    let lookup = |name: &str| {
        let proto_name = names::scrub(name, scrub);
        desc.get_field_by_name(&proto_name).ok_or_else(|| {
            format!("Cannot find field with name {proto_name} in {}", desc.full_name())
        })
    };
    let mut slots = Vec::with_capacity(schema.fields.len());
    for field in &schema.fields {
        let is_union = field.schema.ty == Type::Struct
            && field.schema.name.as_deref().is_some_and(|n| n.starts_with(UNION_PREFIX));
        if is_union {
            let mut members = Vec::with_capacity(field.schema.fields.len());
            for member in &field.schema.fields {
                let fd = lookup(&member.name)?;
                members.push((fd.clone(), single(&member.schema, &fd, scrub)?));
            }
            slots.push(Slot::Union { schema: field.schema.clone(), members });
        } else {
            let fd = lookup(&field.name)?;
            let plan = value(&field.schema, &fd, scrub)?;
            let scalar = !matches!(fd.kind(), Kind::Message(_)) || fd.is_list() || fd.is_map();
            let always = scalar && !has_optional_keyword(&fd);
            slots.push(Slot::Field { fd, plan, always });
        }
    }
    Ok(MessagePlan { schema: schema.clone(), desc: desc.clone(), slots })
}

/// The plan of a whole field's value (repeated and map fields included).
fn value(schema: &Arc<Schema>, fd: &FieldDescriptor, scrub: bool) -> Result<Plan, String> {
    if schema.ty == Type::Map && is_map_field(fd) {
        let Kind::Message(entry) = fd.kind() else { unreachable!("a map field is a message") };
        let fields: Vec<FieldDescriptor> = entry.fields().collect();
        let [key_field, value_field] = <[FieldDescriptor; 2]>::try_from(fields)
            .map_err(|_| format!("{} is not a map entry", entry.full_name()))?;
        let key_schema = schema.key_schema.as_ref().ok_or("a MAP schema without keys")?;
        let value_schema = schema.value_schema.as_ref().ok_or("a MAP schema without values")?;
        return Ok(Plan::Map {
            key: Box::new(single(key_schema, &key_field, scrub)?),
            value: Box::new(single(value_schema, &value_field, scrub)?),
            entry,
            key_field,
            value_field,
            native: fd.is_map(),
        });
    }
    if fd.is_list() {
        let items = match schema.ty {
            Type::Array => schema.value_schema.as_ref().ok_or("an ARRAY schema without items")?,
            _ => return Err(mismatch(schema, fd)),
        };
        return Ok(Plan::Array(Box::new(single(items, fd, scrub)?)));
    }
    single(schema, fd, scrub)
}

fn mismatch(schema: &Schema, fd: &FieldDescriptor) -> String {
    format!(
        "Cannot write a {} schema as field {} of type {}",
        schema.ty.upper(),
        fd.full_name(),
        super::to_connect::kind_name(&fd.kind())
    )
}

/// The plan of one (non-repeated) value of `fd`'s kind.
fn single(schema: &Arc<Schema>, fd: &FieldDescriptor, scrub: bool) -> Result<Plan, String> {
    let kind = fd.kind();
    let ty = schema.ty;
    let ok = match &kind {
        Kind::Message(m) => {
            return match (m.full_name(), schema.name.as_deref()) {
                ("google.type.Date", Some(DATE)) => {
                    Ok(Plan::Date(Parts::new(m, &["year", "month", "day"])))
                }
                ("google.type.TimeOfDay", Some(TIME)) => {
                    Ok(Plan::Time(Parts::new(m, &["hours", "minutes", "seconds", "nanos"])))
                }
                ("google.protobuf.Timestamp", Some(TIMESTAMP)) => {
                    Ok(Plan::Timestamp(Parts::new(m, &["seconds", "nanos"])))
                }
                ("confluent.type.Decimal", Some(DECIMAL)) => {
                    let scale = schema.parameter(DECIMAL_SCALE).and_then(|s| s.parse().ok());
                    let parts = Parts::new(m, &["value", "precision", "scale"]);
                    Ok(Plan::Decimal { parts, scale: scale.unwrap_or(0) })
                }
                _ if wrapped_type(m).is_some() && ty.is_primitive() => {
                    let value = m.get_field_by_name("value").ok_or("a wrapper without value")?;
                    let inner = single(schema, &value, scrub)?;
                    Ok(Plan::Wrapped { desc: m.clone(), value, inner: Box::new(inner) })
                }
                _ if ty == Type::Struct => Ok(Plan::Message(Box::new(message(schema, m, scrub)?))),
                _ => Err(mismatch(schema, fd)),
            };
        }
        Kind::Enum(e) => {
            return match ty {
                Type::String | Type::Int8 | Type::Int16 | Type::Int32 => {
                    Ok(Plan::Enum { ty, desc: e.clone(), schema: schema.clone() })
                }
                _ => Err(mismatch(schema, fd)),
            };
        }
        Kind::Bool => ty == Type::Boolean,
        Kind::String => ty == Type::String,
        Kind::Bytes => ty == Type::Bytes,
        Kind::Float | Kind::Double => matches!(ty, Type::Float32 | Type::Float64),
        _ => matches!(ty, Type::Int8 | Type::Int16 | Type::Int32 | Type::Int64),
    };
    if ok { Ok(Plan::Scalar { ty, kind }) } else { Err(mismatch(schema, fd)) }
}

/// The plan of a root primitive `schema` written as the wrapper message `desc`.
pub fn wrapper(schema: &Arc<Schema>, desc: &MessageDescriptor) -> Result<Plan, String> {
    if wrapped_type(desc).is_none() {
        return Err(format!(
            "Cannot write a {} schema as message {}",
            schema.ty.upper(),
            desc.full_name()
        ));
    }
    let value = desc.get_field_by_name("value").ok_or("a wrapper without value")?;
    let inner = single(schema, &value, false)?;
    Ok(Plan::Wrapped { desc: desc.clone(), value, inner: Box::new(inner) })
}
