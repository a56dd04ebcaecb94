//! [`EmbeddedTransactional`]: one source task's [`TransactionalProducer`] on the embedded
//! store. The store is one SQLite file, so a transaction is one SQLite transaction: the
//! records sent since the last commit are held here and written, with the offsets records
//! of the offsets topic, by a single append at `commit`. A crash before it leaves neither;
//! after it, both.
//!
//! It owns the records of the open transaction (the task bounds them by its
//! `buffer.memory`); it must not decide when transactions end.

use std::sync::Mutex;

use async_trait::async_trait;
use tokio::sync::oneshot;

use super::super::{Delivered, OutRecord, SendFuture, TopicError, TransactionalProducer};
use super::producer::data_record;
use crate::store::{DataRecord, EmbeddedBackend, LogRecord};

/// A source task's transactional producer on the embedded store.
pub(super) struct EmbeddedTransactional {
    pub(super) backend: EmbeddedBackend,
    pub(super) offsets_topic: String,
    pub(super) open: Mutex<Open>,
}

/// Where a `send`'s outcome goes.
type Reply = oneshot::Sender<Result<Vec<Delivered>, TopicError>>;

/// The open transaction: its records, and each `send`'s count and reply, in order.
#[derive(Default)]
pub(super) struct Open {
    records: Vec<DataRecord>,
    sends: Vec<(usize, Reply)>,
}

impl EmbeddedTransactional {
    fn take(&self) -> Open {
        std::mem::take(&mut *self.open.lock().unwrap_or_else(std::sync::PoisonError::into_inner))
    }
}

#[async_trait]
impl TransactionalProducer for EmbeddedTransactional {
    fn send(&self, records: Vec<OutRecord>) -> SendFuture {
        let (reply, outcome) = oneshot::channel();
        {
            let mut open = self.open.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            open.sends.push((records.len(), reply));
            open.records.extend(records.into_iter().map(data_record));
        }
        Box::pin(async move {
            outcome.await.map_err(|_| TopicError::Transaction("the producer was dropped".into()))?
        })
    }

    async fn commit(&self, offsets: Vec<LogRecord>) -> Result<(), TopicError> {
        let Open { mut records, sends } = self.take();
        let data = records.len();
        records.extend(offsets.into_iter().map(|r| DataRecord {
            topic: self.offsets_topic.clone(),
            key: Some(r.key),
            value: r.value,
            ..DataRecord::default()
        }));
        match self.backend.append_data(records).await {
            Ok(positions) => {
                let mut positions = positions.into_iter().take(data);
                for (count, reply) in sends {
                    let delivered = positions
                        .by_ref()
                        .take(count)
                        .map(|p| Delivered { partition: p.partition, offset: p.offset })
                        .collect();
                    let _ = reply.send(Ok(delivered));
                }
                Ok(())
            }
            Err(e) => {
                let error = |e: &crate::store::StoreError| {
                    TopicError::Transaction(format!("cannot commit the transaction: {e}"))
                };
                for (_, reply) in sends {
                    let _ = reply.send(Err(error(&e)));
                }
                Err(error(&e))
            }
        }
    }

    async fn abort(&self) -> Result<(), TopicError> {
        for (_, reply) in self.take().sends {
            let _ = reply.send(Err(TopicError::Aborted));
        }
        Ok(())
    }
}
