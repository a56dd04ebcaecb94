//! How this worker takes part in the cluster, as the process tells the herder at spawn:
//! a group of one, or one member of a Kafka group with what it needs to reach the other
//! workers ([`Peers`]). Plain values; the herder's traffic with other workers is `peers`,
//! its link to the member loop `group_link`.

use wasm_connect_group::MemberSettings;

use crate::cluster::{InterWorkerClient, KeyRing, KeySettings};

/// How this worker takes part in the cluster.
// Built once per process and moved into the herder: the group variant's size is no cost.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
pub enum MemberSpec {
    /// A group of one (standalone mode): leads and runs everything.
    Single {
        /// `host:port` written into statuses.
        worker_id: String,
        /// Advertised REST URL.
        url: String,
    },
    /// One member of a Kafka group (distributed mode).
    Group {
        /// `host:port` written into statuses.
        worker_id: String,
        /// How to join (the advertised REST URL is `settings.url`).
        settings: MemberSettings,
        /// How to reach the other workers.
        peers: Peers,
    },
}

/// What the herder needs to talk to other workers.
#[derive(Clone, Debug)]
pub struct Peers {
    /// Sends requests to other workers.
    pub client: InterWorkerClient,
    /// The current session key, shared with REST.
    pub keyring: KeyRing,
    /// How the leader makes session keys.
    pub keys: KeySettings,
}
