//! [`plan`]: where a polled batch's records meet the transaction boundaries its source task
//! defined (KIP-618, `transaction.boundary=connector`), computed as a value from the batch's
//! length and the requests the task made while polling it, as Kafka Connect's
//! `ExactlyOnceWorkerSourceTask` acts on its `WorkerTransactionContext` record by record and
//! then for the batch:
//!
//! - a commit or abort requested after record `i` ends the open transaction right after
//!   that record: records up to `i` are in it, the ones after start the next;
//! - a commit or abort of the batch ends the open transaction after the batch's last
//!   record (or, for a batch without records, at once);
//! - a record-level request wins over a batch-level one: when the batch's last record
//!   carries a request, a batch-level request has nothing left to act on and is dropped;
//! - records after the last request join the open transaction, which stays open.
//!
//! It also cuts a prepared batch ([`Prepared`]) into the records of one segment
//! ([`take_segment`]). Pure: it sends, commits and aborts nothing; the task loop
//! (`source_task.rs`) does, in the order of the segments.

use bytes::Bytes;

use super::source_batch::Prepared;
use super::topics::OutRecord;
use crate::model::{TransactionAction, TransactionRequests};

/// A run of consecutive records of a batch, and how the transaction they join ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Segment {
    /// Index, in the batch, of the record after the segment's last (its exclusive end).
    pub end: usize,
    /// What ends the open transaction once the segment's records are in it: a commit, an
    /// abort, or nothing (it stays open for the next records).
    pub then: Option<TransactionAction>,
}

/// The segments of a batch of `len` records given the task's `requests` (checked: record
/// indices below `len`, in order, at most one per record), in order. They cover the whole
/// batch; the last one ends at `len`. A batch without records and without a batch-level
/// request has no segment.
pub(super) fn plan(len: usize, requests: &TransactionRequests) -> Vec<Segment> {
    let mut segments: Vec<Segment> = requests
        .records
        .iter()
        .filter(|(i, _)| (*i as usize) < len)
        .map(|&(i, action)| Segment { end: i as usize + 1, then: Some(action) })
        .collect();
    let covered = segments.last().map_or(0, |s| s.end);
    if covered < len {
        segments.push(Segment { end: len, then: requests.batch });
    } else if len == 0 && requests.batch.is_some() {
        segments.push(Segment { end: 0, then: requests.batch });
    }
    segments
}

/// The records of one segment of a prepared batch.
#[derive(Debug, Default, PartialEq)]
pub(super) struct SegmentRecords {
    /// The records to send.
    pub out: Vec<OutRecord>,
    /// Their sequence numbers.
    pub sequences: Vec<u64>,
    /// Sequence numbers of the segment's records that are not sent.
    pub skipped: Vec<u64>,
}

/// Takes from the front of `batch` the records (sent and skipped) whose sequence number is
/// below `end_sequence`: the segment that ends there. The batch keeps the rest, in order.
/// Its `offsets` are left alone (they are noted per segment before the batch is prepared).
pub(super) fn take_segment(batch: &mut Prepared, end_sequence: u64) -> SegmentRecords {
    let sent = batch.sequences.partition_point(|&s| s < end_sequence);
    let skipped = batch.skipped.partition_point(|&s| s < end_sequence);
    SegmentRecords {
        out: batch.out.drain(..sent).collect(),
        sequences: batch.sequences.drain(..sent).collect(),
        skipped: batch.skipped.drain(..skipped).collect(),
    }
}

/// The offsets each segment carries, for segments ending at `ends` (ascending): `offsets`
/// gives each record's source partition and offset (JSON text) in poll order, `note`
/// folds one into a segment's list as the batch step does.
pub(super) fn offsets_by_segment<'a>(
    offsets: impl IntoIterator<Item = Option<(&'a Bytes, &'a Bytes)>>,
    ends: &[usize],
    note: impl Fn(&mut Vec<(Bytes, Bytes)>, &Bytes, &Bytes),
) -> Vec<Vec<(Bytes, Bytes)>> {
    let mut out: Vec<Vec<(Bytes, Bytes)>> = vec![Vec::new(); ends.len()];
    let mut segment = 0;
    for (index, offset) in offsets.into_iter().enumerate() {
        while segment < ends.len() && index >= ends[segment] {
            segment += 1;
        }
        let Some(list) = out.get_mut(segment) else { break };
        if let Some((p, o)) = offset {
            note(list, p, o);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::TransactionAction::{Abort, Commit};

    fn requests(
        batch: Option<TransactionAction>,
        records: &[(u32, TransactionAction)],
    ) -> TransactionRequests {
        TransactionRequests { batch, records: records.to_vec() }
    }

    fn seg(end: usize, then: Option<TransactionAction>) -> Segment {
        Segment { end, then }
    }

    #[test]
    fn without_requests_the_batch_joins_the_open_transaction() {
        assert_eq!(plan(5, &requests(None, &[])), vec![seg(5, None)]);
        assert_eq!(plan(0, &requests(None, &[])), vec![]);
    }

    #[test]
    fn a_batch_request_ends_the_transaction_after_the_whole_batch() {
        assert_eq!(plan(5, &requests(Some(Commit), &[])), vec![seg(5, Some(Commit))]);
        assert_eq!(plan(5, &requests(Some(Abort), &[])), vec![seg(5, Some(Abort))]);
        // A poll without records still ends the transaction the earlier batches opened.
        assert_eq!(plan(0, &requests(Some(Commit), &[])), vec![seg(0, Some(Commit))]);
    }

    #[test]
    fn record_requests_split_the_batch_after_their_record() {
        assert_eq!(
            plan(10, &requests(None, &[(2, Abort), (6, Commit)])),
            vec![seg(3, Some(Abort)), seg(7, Some(Commit)), seg(10, None)]
        );
        // The batch request acts on what follows the last record request.
        assert_eq!(
            plan(10, &requests(Some(Commit), &[(2, Abort)])),
            vec![seg(3, Some(Abort)), seg(10, Some(Commit))]
        );
        assert_eq!(plan(1, &requests(None, &[(0, Commit)])), vec![seg(1, Some(Commit))]);
    }

    #[test]
    fn a_request_on_the_last_record_wins_over_the_batch_request() {
        assert_eq!(
            plan(4, &requests(Some(Abort), &[(1, Abort), (3, Commit)])),
            vec![seg(2, Some(Abort)), seg(4, Some(Commit))]
        );
    }

    #[test]
    fn a_segment_takes_its_records_sent_and_skipped_from_the_front() {
        let record = |t: &str| OutRecord { topic: t.into(), ..OutRecord::default() };
        let mut batch = Prepared {
            out: vec![record("a"), record("c"), record("d")],
            sequences: vec![10, 12, 13],
            skipped: vec![11, 14],
            ..Prepared::default()
        };
        let first = take_segment(&mut batch, 12);
        assert_eq!(first.sequences, vec![10]);
        assert_eq!(first.skipped, vec![11]);
        assert_eq!(&*first.out[0].topic, "a");
        let second = take_segment(&mut batch, 15);
        assert_eq!(second.sequences, vec![12, 13]);
        assert_eq!(second.skipped, vec![14]);
        assert!(batch.out.is_empty() && batch.sequences.is_empty() && batch.skipped.is_empty());
    }

    #[test]
    fn each_segment_carries_the_offsets_of_its_own_records() {
        let p = Bytes::from_static(b"{\"f\":1}");
        let o: Vec<Bytes> = (0..5).map(|n| Bytes::from(format!("{{\"n\":{n}}}"))).collect();
        let offsets = o.iter().map(|o| Some((&p, o)));
        let last = |list: &mut Vec<(Bytes, Bytes)>, p: &Bytes, o: &Bytes| match list.last_mut() {
            Some((q, old)) if q == p => *old = o.clone(),
            _ => list.push((p.clone(), o.clone())),
        };
        let got = offsets_by_segment(offsets, &[2, 3, 5], last);
        assert_eq!(
            got,
            vec![
                vec![(p.clone(), o[1].clone())],
                vec![(p.clone(), o[2].clone())],
                vec![(p.clone(), o[4].clone())],
            ]
        );
    }
}
