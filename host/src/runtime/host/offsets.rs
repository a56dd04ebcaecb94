//! The `offset-reader` interface: committed source offsets, from the injected host.

use crate::runtime::bindings::offset_reader;
use crate::runtime::state::InstanceState;

/// At most this many partitions are looked up in one call.
const MAX_PARTITIONS: usize = 10_000;

impl offset_reader::Host for InstanceState {
    fn offsets(&mut self, mut partitions: Vec<String>) -> Vec<Option<String>> {
        let asked = partitions.len();
        partitions.truncate(MAX_PARTITIONS);
        let mut out = self.host.offsets(&self.ident, &partitions);
        out.resize(asked, None);
        out
    }
}
