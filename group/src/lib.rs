//! Kafka group membership for wasm-connect workers.
//!
//! Workers of one cluster form a Kafka group (`group.id`) with a protocol type of their
//! own, [`PROTOCOL_TYPE`]. Kafka's group coordinator decides who is in the group, who
//! leads and when a rebalance happens; this crate speaks the group protocol to it and
//! computes the leader's assignment. It knows nothing of connectors' configs, the herder
//! or REST: the herder feeds it a [`ConfigView`] and reads [`GroupEvent`]s.
//!
//! Layout:
//! - `protocol`: the member metadata and assignment wire formats (Kafka Connect's
//!   "sessioned" schemas);
//! - `assignor`: the leader's incremental cooperative assignment, pure, with
//!   `assignor_pool` (one pool of work it balances: connector instances or tasks);
//! - `security`: TLS and SASL settings ([`Security`]), filled in by the host;
//! - `stream`: the TCP or TLS stream under a connection;
//! - `sasl`: the messages of a SASL login (PLAIN, SCRAM-SHA-256/512), without I/O;
//! - `connection`: one connection to a broker, framed requests with kafka-protocol, the
//!   SASL login;
//! - `coordinator`: the group requests (find coordinator, join, sync, heartbeat, leave);
//! - `departures`: LeaveGroup sent again, for any group, for consumers closed while their
//!   coordinator may have been out of reach;
//! - `fencing`: fencing transactional producers by id ([`fence_producers`]), Kafka's
//!   `Admin.fenceProducers`, for exactly-once source tasks;
//! - `error`: their error codes, mapped to what the member does about them;
//! - `member`: the task that keeps this worker in the group and reports assignments.

pub mod assignor;
mod connection;
mod coordinator;
pub mod departures;
mod error;
mod fencing;
pub mod member;
pub mod protocol;
mod sasl;
pub mod security;
mod stream;

pub use assignor::{AssignorState, MemberPlan, Plan};
pub use departures::{DepartureSettings, Departures};
pub use fencing::{FenceError, FenceSettings, fence_producers};
pub use member::{Assigned, ConfigView, GroupEvent, GroupMember, MemberHandle, MemberSettings};
pub use protocol::{
    Allocation, Assignment, AssignmentError, MemberMetadata, ProtocolError, TaskId,
};
pub use security::{Sasl, SaslMechanism, Security, Tls};

/// The protocol type our workers join with: only wasm-connect workers share a group.
pub const PROTOCOL_TYPE: &str = "wasm-connect";

/// The one sub-protocol offered: Kafka Connect's v2 schemas, with request signing.
pub const PROTOCOL_NAME: &str = "sessioned";
