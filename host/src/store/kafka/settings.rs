//! [`ClientSettings`]: the librdkafka configuration of the backend's three clients (admin,
//! producer, consumer), with the properties that make the log's guarantees hold forced over
//! whatever the caller passed.
//!
//! Configuration only: it creates no client and opens no connection.

use std::fmt;
use std::time::Duration;

use rdkafka::ClientConfig;

use super::context::BackendContext;
use crate::config::security::RedactedProps;

/// Cap on librdkafka's reconnect backoff (default 10 s), so clients reconnect within a
/// second of a broker coming back instead of idling up to ten.
const RECONNECT_BACKOFF_MAX_MS: &str = "1000";

/// How the backend's clients reach the cluster.
#[derive(Clone)]
pub(super) struct ClientSettings {
    /// `bootstrap.servers`.
    pub(super) bootstrap_servers: String,
    /// Extra client properties (security, client id, ...) with librdkafka's names, applied
    /// to every client. Secrets among them are hidden from `Debug`.
    pub(super) extra: Vec<(String, String)>,
    /// How long a send waits for its acknowledgements, and any other request for its answer.
    pub(super) timeout: Duration,
    /// The clients' shared callbacks (authentication failures, logs).
    pub(super) context: BackendContext,
}

impl fmt::Debug for ClientSettings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClientSettings")
            .field("bootstrap_servers", &self.bootstrap_servers)
            .field("extra", &RedactedProps(&self.extra))
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

impl ClientSettings {
    /// Properties every client shares: defaults, then the caller's, then the forced ones.
    fn base(&self) -> ClientConfig {
        let mut config = ClientConfig::new();
        config.set("reconnect.backoff.max.ms", RECONNECT_BACKOFF_MAX_MS);
        for (key, value) in &self.extra {
            config.set(key, value);
        }
        config.set("bootstrap.servers", &self.bootstrap_servers);
        // Topics are created by the admin client with the right settings, never by a
        // metadata request on a broker that auto-creates them with its defaults.
        config.set("allow.auto.create.topics", "false");
        config
    }

    /// The admin client's configuration.
    pub(super) fn admin(&self) -> ClientConfig {
        self.base()
    }

    /// The producer's: idempotent, acknowledged by every in-sync replica, keys partitioned
    /// as the Java client partitions them, each record given up after the timeout.
    pub(super) fn producer(&self) -> ClientConfig {
        let mut config = self.base();
        config
            .set("enable.idempotence", "true")
            .set("acks", "all")
            .set("partitioner", "murmur2_random")
            .set("message.timeout.ms", millis(self.timeout));
        config
    }

    /// The client that only lists offsets: a consumer without a group, never assigned.
    pub(super) fn offsets(&self) -> ClientConfig {
        self.base()
    }

    /// A reader's consumer. librdkafka only assigns partitions in a consumer that has a
    /// `group.id`, so each reader gets its own, and never commits to it.
    pub(super) fn consumer(&self, group_id: &str) -> ClientConfig {
        let mut config = self.base();
        config
            .set("group.id", group_id)
            .set("enable.auto.commit", "false")
            .set("enable.auto.offset.store", "false")
            .set("auto.offset.reset", "earliest")
            .set("enable.partition.eof", "false");
        config
    }
}

/// A duration as librdkafka milliseconds (at least 1).
fn millis(duration: Duration) -> String {
    duration.as_millis().clamp(1, i32::MAX as u128).to_string()
}
