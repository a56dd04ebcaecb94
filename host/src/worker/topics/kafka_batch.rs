//! [`MessageQueue`]: the queue a sink task's consumer thread reads records from in
//! batches, over librdkafka's C API.
//!
//! rdkafka's `BaseConsumer::poll` hands out one message per call, each through an event
//! wrapper and a shared reference count, and that per-message cost bounded a sink at about
//! the rate of one native poll loop. Here every assigned partition's fetch queue is
//! forwarded to one queue of ours, and `rd_kafka_consume_batch_queue` takes up to a batch
//! of messages from it in one call, copying their keys and values into one buffer the
//! batch's [`InRecord`]s slice.
//!
//! Only messages go through this queue: rebalances, commit results and errors stay on the
//! consumer's own queue, which `BaseConsumer::poll` keeps serving (with its rebalance
//! callbacks). librdkafka drops a partition's queued messages when it is revoked or paused
//! (its op version moves on), as it does on the consumer's queue.
//!
//! It owns the queue handle and the FFI; it must not know about commits, pauses or
//! rebalances.

#![allow(unsafe_code)]

use std::ffi::{CStr, CString, c_char, c_void};
use std::ops::Range;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;

use rdkafka::bindings as rd;
use rdkafka::consumer::{BaseConsumer, Consumer, ConsumerContext};

use super::{Header, InRecord};
use crate::model::TopicPartition;

/// The queue every assigned partition's messages are forwarded to. It borrows the consumer,
/// so it is destroyed before the consumer is.
pub(super) struct MessageQueue<'c, C: ConsumerContext> {
    consumer: &'c BaseConsumer<C>,
    queue: *mut rd::rd_kafka_queue_t,
    /// Room for the message pointers of one batch.
    slots: Vec<*mut rd::rd_kafka_message_t>,
    /// The topic handle of the last message and its name, so a name is read (and
    /// allocated) once per run of one topic's messages.
    topic: (*mut rd::rd_kafka_topic_t, Arc<str>),
}

impl<'c, C: ConsumerContext> MessageQueue<'c, C> {
    /// A new, empty queue of `consumer`'s client.
    pub(super) fn new(consumer: &'c BaseConsumer<C>) -> Self {
        // SAFETY: the client pointer is valid while `consumer` lives, which outlives `self`.
        let queue = unsafe { rd::rd_kafka_queue_new(consumer.client().native_ptr()) };
        Self { consumer, queue, slots: Vec::new(), topic: (std::ptr::null_mut(), Arc::from("")) }
    }

    /// Sends the messages of these (newly assigned) partitions to this queue. Messages
    /// already queued for them move here too, ahead of later ones.
    pub(super) fn forward(&self, partitions: &[TopicPartition]) {
        let rk = self.consumer.client().native_ptr();
        for tp in partitions {
            let Ok(topic) = CString::new(tp.topic.as_str()) else { continue };
            // SAFETY: `rk` and `self.queue` are valid; the partition queue handle is ours
            // to destroy, and the forwarding outlives the handle.
            unsafe {
                let partition = rd::rd_kafka_queue_get_partition(rk, topic.as_ptr(), tp.partition);
                if partition.is_null() {
                    continue;
                }
                rd::rd_kafka_queue_forward(partition, self.queue);
                rd::rd_kafka_queue_destroy(partition);
            }
        }
    }

    /// Appends up to `max` records to `out`: those ready now, or, when none is and `wait` is
    /// not zero, those ready once the first arrives within `wait`. Returns how many.
    pub(super) fn consume(&mut self, wait: Duration, max: usize, out: &mut Vec<InRecord>) -> usize {
        if max == 0 {
            return 0;
        }
        let mut n = self.batch(Duration::ZERO, max, out);
        if n == 0 && !wait.is_zero() {
            // Block for the first message only: a batch call waits until it is full.
            n = self.batch(wait, 1, out);
            if n > 0 {
                n += self.batch(Duration::ZERO, max - 1, out);
            }
        }
        n
    }

    fn batch(&mut self, wait: Duration, max: usize, out: &mut Vec<InRecord>) -> usize {
        self.slots.resize(max, std::ptr::null_mut());
        let timeout = wait.as_millis().min(i32::MAX as u128) as i32;
        // SAFETY: `slots` has room for `max` pointers; librdkafka fills the first `n`.
        let n = unsafe {
            rd::rd_kafka_consume_batch_queue(self.queue, timeout, self.slots.as_mut_ptr(), max)
        };
        let n = usize::try_from(n).unwrap_or(0).min(max);
        // Keys and values of the whole batch go into one buffer the records slice.
        // SAFETY: the first `n` slots hold valid messages.
        let total: usize =
            self.slots[..n].iter().map(|&m| unsafe { (*m).len + (*m).key_len }).sum();
        let mut data = Vec::with_capacity(total);
        let mut spans = Vec::with_capacity(n);
        let first = out.len();
        for i in 0..n {
            let message = self.slots[i];
            // SAFETY: librdkafka returned `message`; it is read, then destroyed once.
            unsafe {
                let m = &*message;
                if m.err == rd::rd_kafka_resp_err_t::RD_KAFKA_RESP_ERR_NO_ERROR {
                    let key = copy(&mut data, m.key.cast_const(), m.key_len);
                    let value = copy(&mut data, m.payload.cast_const(), m.len);
                    spans.push((key, value));
                    out.push(self.record(message));
                } else {
                    // Transient (a broker away); librdkafka logs the cause and reconnects.
                    let reason = CStr::from_ptr(rd::rd_kafka_err2str(m.err));
                    tracing::debug!(error = %reason.to_string_lossy(), "Consumer error");
                }
                rd::rd_kafka_message_destroy(message);
            }
        }
        let data = Bytes::from(data);
        for (record, (key, value)) in out[first..].iter_mut().zip(spans) {
            record.key = key.map(|span| data.slice(span));
            record.value = value.map(|span| data.slice(span));
        }
        out.len() - first
    }

    /// Copies one message into a record, but for its key and value.
    ///
    /// # Safety
    /// `message` is a valid message without an error, not yet destroyed.
    unsafe fn record(&mut self, message: *mut rd::rd_kafka_message_t) -> InRecord {
        // SAFETY: per this function's contract.
        unsafe {
            let m = &*message;
            if m.rkt != self.topic.0 {
                let name = CStr::from_ptr(rd::rd_kafka_topic_name(m.rkt));
                self.topic = (m.rkt, Arc::from(name.to_string_lossy()));
            }
            let mut kind = rd::rd_kafka_timestamp_type_t::RD_KAFKA_TIMESTAMP_NOT_AVAILABLE;
            let timestamp = rd::rd_kafka_message_timestamp(message, &mut kind);
            let timestamp = (kind
                != rd::rd_kafka_timestamp_type_t::RD_KAFKA_TIMESTAMP_NOT_AVAILABLE
                && timestamp != -1)
                .then_some(timestamp);
            InRecord {
                topic: self.topic.1.clone(),
                partition: m.partition,
                offset: m.offset,
                timestamp,
                key: None,
                value: None,
                headers: headers(message),
            }
        }
    }
}

/// Appends the `len` bytes at `data` to `buf` and returns where they are, `None` for a null
/// pointer.
///
/// # Safety
/// `data` is null or points to `len` readable bytes.
unsafe fn copy(buf: &mut Vec<u8>, data: *const c_void, len: usize) -> Option<Range<usize>> {
    if data.is_null() {
        return None;
    }
    let start = buf.len();
    // SAFETY: per this function's contract.
    buf.extend_from_slice(unsafe { std::slice::from_raw_parts(data.cast::<u8>(), len) });
    Some(start..buf.len())
}

impl<C: ConsumerContext> Drop for MessageQueue<'_, C> {
    fn drop(&mut self) {
        // SAFETY: created in `new`, destroyed once, while the client still lives.
        unsafe { rd::rd_kafka_queue_destroy(self.queue) }
    }
}

/// A copy of `len` bytes at `data`, `None` for a null pointer.
///
/// # Safety
/// `data` is null or points to `len` readable bytes.
unsafe fn bytes(data: *const c_void, len: usize) -> Option<Vec<u8>> {
    if data.is_null() {
        return None;
    }
    // SAFETY: per this function's contract.
    Some(unsafe { std::slice::from_raw_parts(data.cast::<u8>(), len) }.to_vec())
}

/// The headers of `message`, in order.
///
/// # Safety
/// `message` is a valid message, not yet destroyed.
unsafe fn headers(message: *mut rd::rd_kafka_message_t) -> Vec<Header> {
    let mut list: *mut rd::rd_kafka_headers_t = std::ptr::null_mut();
    // SAFETY: per this function's contract; the header list belongs to the message.
    unsafe {
        if rd::rd_kafka_message_headers(message, &mut list)
            != rd::rd_kafka_resp_err_t::RD_KAFKA_RESP_ERR_NO_ERROR
            || list.is_null()
        {
            return Vec::new();
        }
        let mut out = Vec::new();
        let mut index = 0;
        loop {
            let mut name: *const c_char = std::ptr::null();
            let mut value: *const c_void = std::ptr::null();
            let mut size = 0usize;
            if rd::rd_kafka_header_get_all(list, index, &mut name, &mut value, &mut size)
                != rd::rd_kafka_resp_err_t::RD_KAFKA_RESP_ERR_NO_ERROR
            {
                return out;
            }
            out.push(Header {
                key: CStr::from_ptr(name).to_string_lossy().into_owned(),
                value: bytes(value, size),
            });
            index += 1;
        }
    }
}
