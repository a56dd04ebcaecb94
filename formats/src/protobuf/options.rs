//! [`Options`]: the `ProtobufDataConfig` keys this format reads, with Confluent's defaults.
//! It owns parsing those keys only; what each one changes is the mapping modules'.

use crate::{FormatError, Settings};

/// `enhanced.protobuf.schema.support`: name Connect schemas by full names (with package).
pub const ENHANCED: &str = "enhanced.protobuf.schema.support";
/// `scrub.invalid.names`: replace characters a protobuf name cannot hold.
pub const SCRUB_INVALID_NAMES: &str = "scrub.invalid.names";
/// `int.for.enums`: read enums as INT32 instead of STRING.
pub const INT_FOR_ENUMS: &str = "int.for.enums";
/// `optional.for.nullables`: optional Connect fields become `optional` fields.
pub const OPTIONAL_FOR_NULLABLES: &str = "optional.for.nullables";
/// `wrapper.for.nullables`: optional Connect primitives become `google.protobuf.*Value`.
pub const WRAPPER_FOR_NULLABLES: &str = "wrapper.for.nullables";
/// `generate.index.for.unions`: a oneof's Connect field is `<name>_<index>`.
pub const GENERATE_INDEX_FOR_UNIONS: &str = "generate.index.for.unions";

/// The keys, as [`super::KEYS`] lists them.
pub const ALL: &[&str] = &[
    ENHANCED,
    SCRUB_INVALID_NAMES,
    INT_FOR_ENUMS,
    OPTIONAL_FOR_NULLABLES,
    WRAPPER_FOR_NULLABLES,
    GENERATE_INDEX_FOR_UNIONS,
];

/// The mapping's switches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// `enhanced.protobuf.schema.support` (false).
    pub enhanced: bool,
    /// `scrub.invalid.names` (false).
    pub scrub_invalid_names: bool,
    /// `int.for.enums` (false).
    pub int_for_enums: bool,
    /// `optional.for.nullables` (false).
    pub optional_for_nullables: bool,
    /// `wrapper.for.nullables` (false).
    pub wrapper_for_nullables: bool,
    /// `generate.index.for.unions` (true).
    pub generate_index_for_unions: bool,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            enhanced: false,
            scrub_invalid_names: false,
            int_for_enums: false,
            optional_for_nullables: false,
            wrapper_for_nullables: false,
            generate_index_for_unions: true,
        }
    }
}

impl Options {
    /// The options `settings` set, the rest at their defaults.
    pub fn new(settings: &Settings<'_>) -> Result<Self, FormatError> {
        let d = Self::default();
        Ok(Self {
            enhanced: settings.boolean(ENHANCED, d.enhanced)?,
            scrub_invalid_names: settings.boolean(SCRUB_INVALID_NAMES, d.scrub_invalid_names)?,
            int_for_enums: settings.boolean(INT_FOR_ENUMS, d.int_for_enums)?,
            optional_for_nullables: settings
                .boolean(OPTIONAL_FOR_NULLABLES, d.optional_for_nullables)?,
            wrapper_for_nullables: settings
                .boolean(WRAPPER_FOR_NULLABLES, d.wrapper_for_nullables)?,
            generate_index_for_unions: settings
                .boolean(GENERATE_INDEX_FOR_UNIONS, d.generate_index_for_unions)?,
        })
    }
}
