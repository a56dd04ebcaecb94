//! [`Schema`], [`Field`] and [`Type`]: Kafka Connect's `ConnectSchema`, with its logical
//! type names.
//!
//! A schema is immutable once built and shared behind an `Arc` by every value that uses
//! it, so transforms can cache what they derive from a schema by pointer or by equality.
//! Building and comparing schemas is all this module does: reading and writing them as
//! JSON is `envelope`'s.

use std::sync::Arc;

use super::Value;

/// Kafka Connect's `Decimal` logical type: BYTES holding a two's-complement big-endian
/// unscaled value, with the `scale` parameter.
pub const DECIMAL: &str = "org.apache.kafka.connect.data.Decimal";
/// The `scale` parameter of a [`DECIMAL`] schema.
pub const DECIMAL_SCALE: &str = "scale";
/// Kafka Connect's `Date` logical type: INT32 days since the epoch.
pub const DATE: &str = "org.apache.kafka.connect.data.Date";
/// Kafka Connect's `Time` logical type: INT32 milliseconds since midnight.
pub const TIME: &str = "org.apache.kafka.connect.data.Time";
/// Kafka Connect's `Timestamp` logical type: INT64 milliseconds since the epoch.
pub const TIMESTAMP: &str = "org.apache.kafka.connect.data.Timestamp";

/// Kafka Connect's `Schema.Type`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    /// 8-bit signed integer.
    Int8,
    /// 16-bit signed integer.
    Int16,
    /// 32-bit signed integer.
    Int32,
    /// 64-bit signed integer.
    Int64,
    /// 32-bit IEEE 754 floating point.
    Float32,
    /// 64-bit IEEE 754 floating point.
    Float64,
    /// `true` or `false`.
    Boolean,
    /// UTF-8 text.
    String,
    /// Raw bytes.
    Bytes,
    /// A list of values of one schema.
    Array,
    /// Keys of one schema to values of another.
    Map,
    /// Named fields, each with its schema.
    Struct,
}

impl Type {
    /// Every type, in Kafka Connect's declaration order.
    pub const ALL: [Type; 12] = [
        Type::Int8,
        Type::Int16,
        Type::Int32,
        Type::Int64,
        Type::Float32,
        Type::Float64,
        Type::Boolean,
        Type::String,
        Type::Bytes,
        Type::Array,
        Type::Map,
        Type::Struct,
    ];

    /// The lower-case name JSON schemas use: `int8`, `string`, `struct`, ...
    pub const fn name(self) -> &'static str {
        match self {
            Type::Int8 => "int8",
            Type::Int16 => "int16",
            Type::Int32 => "int32",
            Type::Int64 => "int64",
            Type::Float32 => "float",
            Type::Float64 => "double",
            Type::Boolean => "boolean",
            Type::String => "string",
            Type::Bytes => "bytes",
            Type::Array => "array",
            Type::Map => "map",
            Type::Struct => "struct",
        }
    }

    /// The type a JSON schema's `type` names.
    pub fn from_name(name: &str) -> Option<Type> {
        Type::ALL.into_iter().find(|t| t.name() == name)
    }

    /// Kafka Connect's upper-case name (`INT8`, `FLOAT32`, ...), as its messages print it.
    pub const fn upper(self) -> &'static str {
        match self {
            Type::Int8 => "INT8",
            Type::Int16 => "INT16",
            Type::Int32 => "INT32",
            Type::Int64 => "INT64",
            Type::Float32 => "FLOAT32",
            Type::Float64 => "FLOAT64",
            Type::Boolean => "BOOLEAN",
            Type::String => "STRING",
            Type::Bytes => "BYTES",
            Type::Array => "ARRAY",
            Type::Map => "MAP",
            Type::Struct => "STRUCT",
        }
    }

    /// Whether values of this type have no inner schemas.
    pub const fn is_primitive(self) -> bool {
        !matches!(self, Type::Array | Type::Map | Type::Struct)
    }
}

/// One field of a STRUCT schema.
#[derive(Clone, Debug, PartialEq)]
pub struct Field {
    /// The field's name.
    pub name: String,
    /// Its position in the struct, from 0.
    pub index: usize,
    /// Its schema.
    pub schema: Arc<Schema>,
}

/// Kafka Connect's `Schema`: a type, its optionality and default, and its metadata.
#[derive(Clone, Debug, PartialEq)]
pub struct Schema {
    /// The type.
    pub ty: Type,
    /// Whether a null value is allowed.
    pub optional: bool,
    /// The default value, if any.
    pub default: Option<Value>,
    /// The schema's name (logical types have theirs, e.g. [`TIMESTAMP`]).
    pub name: Option<String>,
    /// The schema's version.
    pub version: Option<i32>,
    /// Documentation.
    pub doc: Option<String>,
    /// Parameters, in insertion order; empty when there are none.
    pub parameters: Vec<(String, String)>,
    /// STRUCT: the fields, in order.
    pub fields: Vec<Field>,
    /// MAP: the key schema.
    pub key_schema: Option<Arc<Schema>>,
    /// MAP: the value schema; ARRAY: the element schema.
    pub value_schema: Option<Arc<Schema>>,
}

impl Schema {
    /// A required schema of `ty` with nothing else set (for ARRAY, MAP and STRUCT, add the
    /// inner schemas with [`Schema::array`], [`Schema::map`] and [`Schema::with_field`]).
    pub fn new(ty: Type) -> Self {
        Self {
            ty,
            optional: false,
            default: None,
            name: None,
            version: None,
            doc: None,
            parameters: Vec::new(),
            fields: Vec::new(),
            key_schema: None,
            value_schema: None,
        }
    }

    /// An ARRAY of `items`.
    pub fn array(items: Arc<Schema>) -> Self {
        Self { value_schema: Some(items), ..Self::new(Type::Array) }
    }

    /// A MAP from `keys` to `values`.
    pub fn map(keys: Arc<Schema>, values: Arc<Schema>) -> Self {
        Self { key_schema: Some(keys), value_schema: Some(values), ..Self::new(Type::Map) }
    }

    /// An empty STRUCT.
    pub fn structure() -> Self {
        Self::new(Type::Struct)
    }

    /// This schema, optional.
    pub fn optional(mut self) -> Self {
        self.optional = true;
        self
    }

    /// This schema with `name`.
    pub fn named(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// This struct schema with one more field at the end. Panics if a field of that name
    /// exists: building a struct with duplicate fields is a bug, as in Kafka Connect's
    /// `SchemaBuilder.field`.
    pub fn with_field(mut self, name: impl Into<String>, schema: Arc<Schema>) -> Self {
        let name = name.into();
        assert!(
            self.field(&name).is_none(),
            "Cannot create field because of field name duplication {name}"
        );
        let index = self.fields.len();
        self.fields.push(Field { name, index, schema });
        self
    }

    /// The field called `name`, if this is a struct schema that has one.
    pub fn field(&self, name: &str) -> Option<&Field> {
        self.fields.iter().find(|f| f.name == name)
    }

    /// The value of parameter `name`.
    pub fn parameter(&self, name: &str) -> Option<&str> {
        self.parameters.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }

    /// Whether this schema is the logical type `name` ([`TIMESTAMP`], [`DATE`], ...).
    pub fn is_logical(&self, name: &str) -> bool {
        self.name.as_deref() == Some(name)
    }

    /// Kafka Connect's `Schema.OPTIONAL_STRING_SCHEMA`: what `StringConverter` reads.
    pub fn optional_string() -> Arc<Schema> {
        Arc::new(Self::new(Type::String).optional())
    }

    /// Kafka Connect's `Schema.OPTIONAL_BYTES_SCHEMA`: what `ByteArrayConverter` reads.
    pub fn optional_bytes() -> Arc<Schema> {
        Arc::new(Self::new(Type::Bytes).optional())
    }

    /// Whether this is exactly a plain optional STRING or BYTES schema (type and
    /// optionality only): data of that schema is the plain `string` or `bytes` kind.
    pub fn is_plain_optional(&self) -> bool {
        self.optional
            && self.default.is_none()
            && self.name.is_none()
            && self.version.is_none()
            && self.doc.is_none()
            && self.parameters.is_empty()
            && matches!(self.ty, Type::String | Type::Bytes)
    }
}
