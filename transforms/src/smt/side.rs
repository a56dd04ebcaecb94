//! Which side of a record a `$Key` or `$Value` transform works on, and helpers to read and
//! replace that side.

use crate::{Data, Record};

/// The side a transform class works on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Side {
    /// `$Key`.
    Key,
    /// `$Value`.
    Value,
}

impl Side {
    /// The side's data.
    pub(crate) fn data(self, record: &mut Record) -> &mut Data {
        match self {
            Side::Key => &mut record.key,
            Side::Value => &mut record.value,
        }
    }
}
