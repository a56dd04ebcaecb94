//! [`TxnTracker`]: the counts behind Debezium's transaction metadata (its
//! `TransactionMonitor`): each event's `transaction` block (`id` `txId:lsn`, `total_order`,
//! `data_collection_order`) and the END record's `event_count` and `data_collections`.
//!
//! This module owns the counting only; building the records is the `envelope`'s and
//! choosing LSNs the caller's. Tombstones are not counted; a transactional logical decoding
//! message is (Debezium names its data collection after an object of its own; the caller
//! picks a name).

use crate::envelope::TxnBlock;
use crate::offset::Offset;

/// Counts of the open transaction.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TxnTracker {
    xid: Option<i64>,
    total: i64,
    /// Per data collection (`schema.table`), in first-seen order.
    per_collection: Vec<(String, i64)>,
}

/// The data collection Debezium counts a logical decoding message under, before its
/// `@<identity hash>` (each message is a collection of its own).
pub const MESSAGE_COLLECTION: &str =
    "io.debezium.connector.postgresql.LogicalDecodingMessageMonitor$LogicalDecodingMessageId";

/// A transaction id as Debezium writes it: `txId:lsn`.
pub fn transaction_id(xid: i64, lsn: u64) -> String {
    format!("{xid}:{lsn}")
}

impl TxnTracker {
    /// No open transaction.
    pub fn new() -> Self {
        Self::default()
    }

    /// Opens transaction `xid` with no events counted.
    pub fn begin(&mut self, xid: i64) {
        *self = Self { xid: Some(xid), ..Self::default() };
    }

    /// Whether a transaction is open.
    pub fn is_open(&self) -> bool {
        self.xid.is_some()
    }

    /// Counts one event of `collection` at `lsn` and returns its block; `None` when no
    /// transaction is open.
    pub fn event(&mut self, collection: &str, lsn: u64) -> Option<TxnBlock> {
        let xid = self.xid?;
        self.total += 1;
        let order = match self.per_collection.iter_mut().find(|(c, _)| c == collection) {
            Some((_, n)) => {
                *n += 1;
                *n
            }
            None => {
                self.per_collection.push((collection.to_owned(), 1));
                1
            }
        };
        Some(TxnBlock {
            id: transaction_id(xid, lsn),
            total_order: self.total,
            data_collection_order: order,
        })
    }

    /// Counts a transactional logical decoding message at `lsn`, as a data collection of
    /// its own (`MESSAGE_COLLECTION@<n>`, n unique in the transaction), and returns its
    /// block; `None` when no transaction is open.
    pub fn message_event(&mut self, lsn: u64) -> Option<TxnBlock> {
        let name = format!("{MESSAGE_COLLECTION}@{:08x}", self.total + 1);
        self.event(&name, lsn)
    }

    /// Closes the transaction: its event count and per-collection counts for the END
    /// record.
    pub fn end(&mut self) -> (i64, Vec<(String, i64)>) {
        let out = (self.total, std::mem::take(&mut self.per_collection));
        *self = Self::default();
        out
    }

    /// Writes the open transaction into a streaming offset (`transaction_id`, and the
    /// `transaction_data_collection_order_*` counts), as Debezium's `TransactionContext`.
    pub fn store(&self, offset: &mut Offset, lsn: u64) {
        offset.transaction_id = self.xid.map(|x| transaction_id(x, lsn));
        offset.data_collection_order = self.per_collection.iter().cloned().collect();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orders_count_per_transaction_and_per_collection() {
        let mut t = TxnTracker::new();
        assert_eq!(t.event("cdc.a", 1), None, "no transaction open");
        t.begin(1108);
        let a = t.event("cdc.full_rows", 10).unwrap();
        assert_eq!((a.id.as_str(), a.total_order, a.data_collection_order), ("1108:10", 1, 1));
        t.event("cdc.full_rows", 11);
        let c = t.event("cdc.docs", 12).unwrap();
        assert_eq!((c.total_order, c.data_collection_order), (3, 1));
        let mut o = Offset::default();
        t.store(&mut o, 12);
        assert_eq!(o.transaction_id.as_deref(), Some("1108:12"));
        assert_eq!(o.data_collection_order.get("cdc.full_rows"), Some(&2));
        let (n, per) = t.end();
        assert_eq!(n, 3);
        assert_eq!(per, [("cdc.full_rows".to_owned(), 2), ("cdc.docs".to_owned(), 1)]);
        assert!(!t.is_open());
        t.begin(1109);
        assert_eq!(t.event("cdc.docs", 20).unwrap().total_order, 1, "counts restart");
        let m = t.message_event(21).unwrap();
        assert_eq!((m.total_order, m.data_collection_order), (2, 1), "a collection of its own");
        let m = t.message_event(22).unwrap();
        assert_eq!((m.total_order, m.data_collection_order), (3, 1));
        let (n, per) = t.end();
        assert_eq!(n, 3);
        assert_eq!(per.len(), 3);
        assert!(per[1].0.starts_with(MESSAGE_COLLECTION));
    }
}
