//! Protobuf descriptors → Connect schema, as `ProtobufData.toConnectSchema` maps any
//! registered proto2 or proto3 message: a STRUCT named by the message (its simple name, or
//! its full name with `enhanced.protobuf.schema.support`), real oneofs first as optional
//! `io.confluent.connect.protobuf.Union.*` STRUCTs, then the other fields with their tag
//! in `io.confluent.connect.protobuf.Tag`. It owns the schema only; values are `decode`'s.

use std::sync::Arc;

use prost_reflect::{Cardinality, FieldDescriptor, Kind, MessageDescriptor, Syntax};
use wasm_connect_transforms::data::{DATE, DECIMAL, DECIMAL_SCALE, TIME, TIMESTAMP, Type};

use super::names::{self, CONNECT_PRECISION, CONNECT_TYPE, ENUM, TAG, TYPE, UNION_PREFIX};
use super::options::Options;
use crate::Schema;

/// The parameter marking a oneof member that was a wrapper message.
pub const WRAPPER: &str = "io.confluent.connect.protobuf.Wrapper";

/// The Connect schema of the top-level message `desc` (a wrapper message reads as its
/// primitive, as `wrapper.for.raw.primitives` does by default).
pub fn message_schema(desc: &MessageDescriptor, options: &Options) -> Result<Schema, String> {
    if let Some(ty) = wrapped_type(desc) {
        return Ok(Schema::new(ty));
    }
    Mapper { options, stack: Vec::new() }.message(desc)
}

/// The Connect type a `google.protobuf.*Value` wrapper message unwraps to.
pub fn wrapped_type(desc: &MessageDescriptor) -> Option<Type> {
    Some(match desc.full_name() {
        "google.protobuf.DoubleValue" => Type::Float64,
        "google.protobuf.FloatValue" => Type::Float32,
        "google.protobuf.Int64Value"
        | "google.protobuf.UInt64Value"
        | "google.protobuf.UInt32Value" => Type::Int64,
        "google.protobuf.Int32Value" => Type::Int32,
        "google.protobuf.BoolValue" => Type::Boolean,
        "google.protobuf.StringValue" => Type::String,
        "google.protobuf.BytesValue" => Type::Bytes,
        _ => return None,
    })
}

/// Whether a field carries the `optional` keyword (proto3 `optional`, or a proto2 optional
/// field outside a oneof).
pub fn has_optional_keyword(fd: &FieldDescriptor) -> bool {
    fd.field_descriptor_proto().proto3_optional()
        || (fd.parent_file().syntax() == Syntax::Proto2
            && fd.cardinality() == Cardinality::Optional
            && fd.containing_oneof().is_none())
}

/// Whether a repeated message field is a map written as entry messages or `map<k, v>`.
pub fn is_map_field(fd: &FieldDescriptor) -> bool {
    if fd.is_map() {
        return true;
    }
    let Kind::Message(entry) = fd.kind() else { return false };
    let fields: Vec<FieldDescriptor> = entry.fields().collect();
    fd.is_list()
        && entry.name().ends_with(names::ENTRY_SUFFIX)
        && fields.len() == 2
        && fields[0].name() == "key"
        && fields[1].name() == "value"
        && !fields[0].is_list()
        && !fields[1].is_list()
}

/// The lower-case protobuf name of a scalar kind.
pub fn kind_name(kind: &Kind) -> &'static str {
    match kind {
        Kind::Double => "double",
        Kind::Float => "float",
        Kind::Int32 => "int32",
        Kind::Int64 => "int64",
        Kind::Uint32 => "uint32",
        Kind::Uint64 => "uint64",
        Kind::Sint32 => "sint32",
        Kind::Sint64 => "sint64",
        Kind::Fixed32 => "fixed32",
        Kind::Fixed64 => "fixed64",
        Kind::Sfixed32 => "sfixed32",
        Kind::Sfixed64 => "sfixed64",
        Kind::Bool => "bool",
        Kind::String => "string",
        Kind::Bytes => "bytes",
        Kind::Message(_) => "message",
        Kind::Enum(_) => "enum",
    }
}

/// The `confluent.field_meta` params of a field, in no particular order.
pub fn field_meta(fd: &FieldDescriptor) -> Vec<(String, String)> {
    let Some(ext) = fd.parent_pool().get_extension_by_name("confluent.field_meta") else {
        return Vec::new();
    };
    let options = fd.options();
    if !options.has_extension(&ext) {
        return Vec::new();
    }
    let meta = options.get_extension(&ext);
    let Some(params) = meta.as_message().and_then(|m| m.get_field_by_name("params")) else {
        return Vec::new();
    };
    let Some(map) = params.as_map() else { return Vec::new() };
    map.iter()
        .filter_map(|(k, v)| match (k, v.as_str()) {
            (prost_reflect::MapKey::String(k), Some(v)) => Some((k.clone(), v.to_owned())),
            _ => None,
        })
        .collect()
}

struct Mapper<'a> {
    options: &'a Options,
    /// Full names of the messages being mapped, to refuse recursion.
    stack: Vec<String>,
}

impl Mapper<'_> {
    fn name_of<'n>(&self, simple: &'n str, full: &'n str) -> &'n str {
        if self.options.enhanced { full } else { simple }
    }

    fn message(&mut self, desc: &MessageDescriptor) -> Result<Schema, String> {
        if self.stack.iter().any(|n| n == desc.full_name()) {
            return Err(format!("Recursive message {} cannot map to Connect", desc.full_name()));
        }
        self.stack.push(desc.full_name().to_owned());
        let mut schema = Schema::structure().named(self.name_of(desc.name(), desc.full_name()));
        for (index, oneof) in desc.oneofs().enumerate() {
            if oneof.is_synthetic() {
                continue;
            }
            let name = self.name_of(oneof.name(), oneof.full_name());
            let mut union = Schema::structure().named(format!("{UNION_PREFIX}{name}")).optional();
            for member in oneof.fields() {
                let member_schema = self.field(&member, true)?;
                union = union.with_field(member.name(), Arc::new(member_schema));
            }
            let field_name = if self.options.generate_index_for_unions {
                format!("{}_{index}", oneof.name())
            } else {
                oneof.name().to_owned()
            };
            schema = add_field(schema, field_name, union)?;
        }
        for fd in desc.fields() {
            if fd.containing_oneof().is_some_and(|o| !o.is_synthetic()) {
                continue;
            }
            let field_schema = self.field(&fd, false)?;
            schema = add_field(schema, fd.name().to_owned(), field_schema)?;
        }
        self.stack.pop();
        Ok(schema)
    }

    fn field(&mut self, fd: &FieldDescriptor, oneof_member: bool) -> Result<Schema, String> {
        let kind = fd.kind();
        let mut schema = match &kind {
            Kind::Int32 | Kind::Sint32 | Kind::Sfixed32 => {
                let meta = field_meta(fd);
                match meta.iter().find(|(k, _)| k == CONNECT_TYPE).map(|(_, v)| v.as_str()) {
                    Some("int8") => Schema::new(Type::Int8),
                    Some("int16") => Schema::new(Type::Int16),
                    _ => with_type_param(Schema::new(Type::Int32), &kind, "int32"),
                }
            }
            Kind::Uint32
            | Kind::Fixed32
            | Kind::Int64
            | Kind::Uint64
            | Kind::Sint64
            | Kind::Fixed64
            | Kind::Sfixed64 => with_type_param(Schema::new(Type::Int64), &kind, "int64"),
            Kind::Float => Schema::new(Type::Float32),
            Kind::Double => Schema::new(Type::Float64),
            Kind::Bool => Schema::new(Type::Boolean),
            Kind::String => Schema::new(Type::String),
            Kind::Bytes => Schema::new(Type::Bytes),
            Kind::Enum(e) => {
                let ty = if self.options.int_for_enums { Type::Int32 } else { Type::String };
                let mut schema = Schema::new(ty).named(self.name_of(e.name(), e.full_name()));
                schema.parameters.push((ENUM.to_owned(), e.name().to_owned()));
                for value in e.values() {
                    schema
                        .parameters
                        .push((format!("{ENUM}.{}", value.name()), value.number().to_string()));
                }
                schema.optional()
            }
            Kind::Message(m) => self.message_field(fd, m)?.optional(),
        };
        if fd.is_list() && schema.ty != Type::Map {
            schema = Schema::array(Arc::new(schema.optional())).optional();
        }
        if oneof_member {
            schema.optional = true;
            if self.options.wrapper_for_nullables
                && matches!(&kind, Kind::Message(m) if wrapped_type(m).is_some())
            {
                schema.parameters.push((WRAPPER.to_owned(), "true".to_owned()));
            }
        } else if self.options.optional_for_nullables {
            if has_optional_keyword(fd) {
                schema.optional = true;
            }
        } else if !self.options.wrapper_for_nullables {
            schema.optional = true;
        }
        schema.parameters.push((TAG.to_owned(), fd.number().to_string()));
        Ok(schema)
    }

    fn message_field(
        &mut self,
        fd: &FieldDescriptor,
        m: &MessageDescriptor,
    ) -> Result<Schema, String> {
        Ok(match m.full_name() {
            "confluent.type.Decimal" => {
                let meta = field_meta(fd);
                let get = |key: &str| {
                    meta.iter().find(|(k, _)| k == key).and_then(|(_, v)| v.parse::<i32>().ok())
                };
                let mut schema = Schema::new(Type::Bytes).named(DECIMAL);
                schema.version = Some(1);
                let scale = get("scale").unwrap_or(0);
                schema.parameters.push((DECIMAL_SCALE.to_owned(), scale.to_string()));
                if let Some(precision) = get("precision") {
                    schema.parameters.push((CONNECT_PRECISION.to_owned(), precision.to_string()));
                }
                schema
            }
            "google.type.Date" => logical(Type::Int32, DATE),
            "google.type.TimeOfDay" => logical(Type::Int32, TIME),
            "google.protobuf.Timestamp" => logical(Type::Int64, TIMESTAMP),
            _ => match wrapped_type(m) {
                Some(ty) if self.options.wrapper_for_nullables => Schema::new(ty),
                _ if is_map_field(fd) => {
                    let key =
                        self.field(&m.fields().next().ok_or("map entry without key")?, false)?;
                    let value =
                        self.field(&m.fields().nth(1).ok_or("map entry without value")?, false)?;
                    let name = names::map_field(self.name_of(m.name(), m.full_name()));
                    Schema::map(Arc::new(key), Arc::new(value)).named(name)
                }
                _ => self.message(m)?,
            },
        })
    }
}

/// `schema` with one more field; a name taken twice (a oneof `a` beside a field `a_0`) is
/// an error, as Kafka Connect's `SchemaBuilder.field` refuses it.
fn add_field(schema: Schema, name: String, field: Schema) -> Result<Schema, String> {
    if schema.field(&name).is_some() {
        return Err(format!("Cannot create field because of field name duplication {name}"));
    }
    Ok(schema.with_field(name, Arc::new(field)))
}

fn logical(ty: Type, name: &str) -> Schema {
    let mut schema = Schema::new(ty).named(name);
    schema.version = Some(1);
    schema
}

fn with_type_param(mut schema: Schema, kind: &Kind, plain: &str) -> Schema {
    let name = kind_name(kind);
    if name != plain {
        schema.parameters.push((TYPE.to_owned(), name.to_owned()));
    }
    schema
}
