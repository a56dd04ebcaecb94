//! The `sink-task` interface: reads each `record-batch` (checked whole, borrowed, not
//! copied) before [`SinkTask::put_refs`].

use super::convert::{
    config_from_wit, failure_to_wit, offset_from_wit, offset_to_wit, partition_from_wit,
    result_to_wit,
};
use super::{Glue, SINK_TASK, drop_state, with_state};
use crate::bindings::sink::exports::wasm_connect::connector::sink_task::Guest;
use crate::bindings::source::wasm_connect::connector::types as wit;
use crate::{Error, SinkTask};

impl<C: 'static, T: SinkTask> Guest for Glue<C, T> {
    fn start(config: wit::Config) -> Result<(), wit::Error> {
        let config = config_from_wit(config);
        result_to_wit(with_state(&SINK_TASK, |t: &mut T| t.start(config)))
    }

    fn open(partitions: Vec<wit::TopicPartition>) -> Result<(), wit::Error> {
        let partitions: Vec<_> = partitions.into_iter().map(partition_from_wit).collect();
        result_to_wit(with_state(&SINK_TASK, |t: &mut T| t.open(&partitions)))
    }

    fn close(partitions: Vec<wit::TopicPartition>) -> Result<(), wit::Error> {
        let partitions: Vec<_> = partitions.into_iter().map(partition_from_wit).collect();
        result_to_wit(with_state(&SINK_TASK, |t: &mut T| t.close(&partitions)))
    }

    fn put(batch: Vec<u8>) -> Result<Vec<wit::RecordFailure>, wit::Error> {
        let records: Result<Vec<_>, Error> = wasm_connect_batch::records(&batch)
            .and_then(|records| records.collect())
            .map_err(|e| Error::fatal(format!("malformed record batch: {e}")));
        result_to_wit(records.and_then(|records| {
            with_state(&SINK_TASK, |t: &mut T| t.put_refs(&records))
                .map(|failures| failures.into_iter().map(failure_to_wit).collect())
        }))
    }

    fn pre_commit(
        offsets: Vec<wit::TopicPartitionOffset>,
    ) -> Result<Vec<wit::TopicPartitionOffset>, wit::Error> {
        let offsets = offsets.into_iter().map(offset_from_wit).collect();
        let safe = result_to_wit(with_state(&SINK_TASK, |t: &mut T| t.pre_commit(offsets)))?;
        Ok(safe.into_iter().map(offset_to_wit).collect())
    }

    fn stop() {
        with_state(&SINK_TASK, |t: &mut T| t.stop());
        drop_state(&SINK_TASK);
    }
}
