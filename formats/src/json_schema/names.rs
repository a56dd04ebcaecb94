//! The names this format's JSON Schema texts and Connect schemas share with Confluent's
//! `JsonSchemaData`: the `connect.*` keywords and the names of the Connect schemas it
//! makes for `oneOf` and `enum`. Constants only.

/// The Connect type of an `integer`, `number`, `string` or map schema.
pub const CONNECT_TYPE: &str = "connect.type";
/// A schema's Connect version.
pub const CONNECT_VERSION: &str = "connect.version";
/// A schema's Connect parameters (an object of strings).
pub const CONNECT_PARAMETERS: &str = "connect.parameters";
/// A property's field index (or a union member's).
pub const CONNECT_INDEX: &str = "connect.index";
/// `connect.type` of a map (an object with `additionalProperties`, or an array of
/// `{key, value}` objects).
pub const CONNECT_TYPE_MAP: &str = "map";
/// `connect.type` of BYTES (a base64 `string`, or a `number` for a numeric Decimal).
pub const CONNECT_TYPE_BYTES: &str = "bytes";
/// The property names of a map entry with non-string keys.
pub const KEY_FIELD: &str = "key";
/// See [`KEY_FIELD`].
pub const VALUE_FIELD: &str = "value";

/// Confluent's namespace: parameters under it are not written to `connect.parameters`.
pub const NAMESPACE: &str = "io.confluent.connect.json";
/// The STRUCT name of a `oneOf`/`anyOf` read without generalized sum types.
pub const ONE_OF: &str = "io.confluent.connect.json.OneOf";
/// The parameter marking a STRING as an `enum` (without generalized sum types).
pub const JSON_ENUM: &str = "io.confluent.connect.json.Enum";
/// The parameter marking a STRUCT as a union (generalized sum types).
pub const GENERALIZED_UNION: &str = "org.apache.kafka.connect.data.Union";
/// The parameter marking a STRING as an enum (generalized sum types).
pub const GENERALIZED_ENUM: &str = "org.apache.kafka.connect.data.Enum";
/// The STRUCT name prefix of a union read with generalized sum types.
pub const UNION_PREFIX: &str = "connect_union_";
/// The field name prefix of a union's members with generalized sum types.
pub const UNION_FIELD_PREFIX: &str = "connect_union_field_";
/// An enum's `null` symbol in parameter names.
pub const NULL_MARKER: &str = "<NULL>";
