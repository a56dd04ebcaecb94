//! [`PgType`]: what a column's PostgreSQL type is, as far as conversion cares: a built-in
//! type known by its OID, an enum with its labels, an array of one of those, or unknown.
//! Domains are resolved to their base type by `catalog`.
//!
//! This module owns the OIDs of the built-in types; it does no I/O and knows nothing of
//! Kafka Connect schemas (that is `schema`).

/// A column's type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PgType {
    Bool,
    Int2,
    Int4,
    Int8,
    Oid,
    Float4,
    Float8,
    Numeric,
    Money,
    /// text, varchar, bpchar, "char", name, citext and other text-like types.
    Text,
    /// Types Debezium emits as their text: inet, cidr, macaddr, macaddr8, ranges.
    TextForm,
    Date,
    Time,
    TimeTz,
    Timestamp,
    TimestampTz,
    Interval,
    Json,
    Xml,
    Uuid,
    Bytea,
    /// `bit(n)` and `bit varying(n)`.
    Bit,
    Hstore,
    /// An enum type and its labels in sort order.
    Enum(Vec<String>),
    /// An array of the element type.
    Array(Box<PgType>),
    /// A type without a conversion; its name.
    Unknown(String),
}

impl PgType {
    /// The built-in type with OID `oid` (array types included), or `None`.
    pub fn builtin(oid: u32) -> Option<PgType> {
        use PgType::*;
        Some(match oid {
            16 => Bool,
            21 => Int2,
            23 => Int4,
            20 => Int8,
            26 => Oid,
            700 => Float4,
            701 => Float8,
            1700 => Numeric,
            790 => Money,
            25 | 1043 | 1042 | 18 | 19 => Text,
            869 | 650 | 829 | 774 | 3904 | 3906 | 3908 | 3910 | 3912 | 3926 => TextForm,
            1082 => Date,
            1083 => Time,
            1266 => TimeTz,
            1114 => Timestamp,
            1184 => TimestampTz,
            1186 => Interval,
            114 | 3802 => Json,
            142 => Xml,
            2950 => Uuid,
            17 => Bytea,
            1560 | 1562 => Bit,
            _ => return Self::builtin_array(oid),
        })
    }

    fn builtin_array(oid: u32) -> Option<PgType> {
        let element = match oid {
            1000 => 16,
            1005 => 21,
            1007 => 23,
            1016 => 20,
            1028 => 26,
            1021 => 700,
            1022 => 701,
            1231 => 1700,
            1009 => 25,
            1015 => 1043,
            1014 => 1042,
            1002 => 18,
            1041 => 869,
            651 => 650,
            1040 => 829,
            775 => 774,
            1182 => 1082,
            1183 => 1083,
            1270 => 1266,
            1115 => 1114,
            1185 => 1184,
            199 => 114,
            3807 => 3802,
            2951 => 2950,
            1001 => 17,
            3905 => 3904,
            3907 => 3906,
            3909 => 3908,
            3911 => 3910,
            3913 => 3912,
            3927 => 3926,
            _ => return None,
        };
        Some(PgType::Array(Box::new(Self::builtin(element)?)))
    }

    /// Whether values arrive as `bytea` text (`\x…`).
    pub fn is_binary(&self) -> bool {
        matches!(self, PgType::Bytea)
    }
}
