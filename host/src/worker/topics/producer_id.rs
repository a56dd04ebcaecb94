//! [`request_early`]: a new idempotent producer gets its producer id within a broker
//! connection's time of its creation, instead of on librdkafka's 500 ms retry timer.
//!
//! An idempotent producer sends nothing before it has a producer id. librdkafka (2.12) asks
//! for one when a metadata answer arrives, or else every 500 ms. The first answer comes
//! from the bootstrap broker, which librdkafka then retires in favour of the brokers the
//! answer names; none of those is connected yet, so the request falls back to the timer,
//! and nothing else asks again: records sent at the producer's creation were acknowledged
//! about 500 ms later. A source task sends its first records as soon as it starts, and its
//! stop waits for the records in flight (so that their offsets are committed and nothing
//! is polled twice): a restart right after a start took 400–900 ms where it otherwise takes
//! 20 ms (issue 39, "the first restart").
//!
//! [`request_early`] asks for the broker list twice, on a thread of its own: the first
//! answer retires the bootstrap broker, the second comes from a named broker that is up,
//! and librdkafka asks that broker for the id at once. The producer connects to the named
//! brokers as soon as it learns them (`enable.sparse.connections=false`, set by
//! `kafka_producer.rs` unless configured), else the second answer waits out the 50 ms
//! librdkafka leaves between sparse connections. Measured with a bare librdkafka producer
//! against `scripts/kafka.sh`'s broker, a record sent at creation was acknowledged after
//! 505 ms; after 56 ms with the two requests alone, 503 ms with the connections alone, and
//! 11 ms with both. The requests name no topic, so the answers carry only the brokers and
//! the topics the client already writes to.
//!
//! It owns that request only; producing is `kafka_producer.rs`'s.

use std::ptr;
use std::sync::Arc;
use std::time::Duration;

use rdkafka::bindings as rd;
use rdkafka::producer::{Producer, ProducerContext, ThreadedProducer};

/// Metadata answers asked for: the bootstrap broker's, then a named broker's.
const ANSWERS: usize = 2;

/// How long each request may wait for a broker (one that is down is reported by the
/// client's own log; records wait for it either way).
const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);

/// Starts the producer id request of a new idempotent `producer` in the background. The
/// thread holds the producer until it is done, so a producer released meanwhile is dropped
/// there (off the async threads).
pub(super) fn request_early<C: ProducerContext>(producer: Arc<ThreadedProducer<C>>) {
    let spawned = std::thread::Builder::new().name("producer-id".into()).spawn(move || {
        for _ in 0..ANSWERS {
            if !broker_list(&producer) {
                break;
            }
        }
    });
    if let Err(e) = spawned {
        // Only the speed of the first acknowledgement depends on it.
        tracing::debug!(error = %e, "Could not start the producer id request");
    }
}

/// Asks for the cluster's brokers and waits for the answer; whether it came.
#[allow(unsafe_code)]
fn broker_list<C: ProducerContext>(producer: &ThreadedProducer<C>) -> bool {
    let mut metadata: *const rd::rd_kafka_metadata = ptr::null();
    let timeout_ms = REQUEST_TIMEOUT.as_millis() as i32;
    // SAFETY: the client is alive for the call (borrowed from `producer`); `all_topics` 0
    // with no topic handle asks for the brokers and the topics the client knows; the
    // answer, set only on success, is freed once, below.
    let err = unsafe {
        rd::rd_kafka_metadata(
            producer.client().native_ptr(),
            0,
            ptr::null_mut(),
            &mut metadata,
            timeout_ms,
        )
    };
    if err != rd::rd_kafka_resp_err_t::RD_KAFKA_RESP_ERR_NO_ERROR {
        return false;
    }
    // SAFETY: `metadata` is the answer librdkafka allocated above, not used after this.
    unsafe { rd::rd_kafka_metadata_destroy(metadata) };
    true
}
