//! The member metadata and assignment wire formats, as Kafka Connect's `sessioned`
//! (version 2) protocol lays them out (`IncrementalCooperativeConnectProtocol`):
//!
//! - metadata: `version:int16, url:string, config_offset:int64, allocation:nullable bytes`,
//!   the allocation being an assignment (below) of what the member runs now;
//! - assignment: `version:int16, error:int16, leader:string, leader_url:string,
//!   config_offset:int64, assignment:[connector:string, tasks:[int32]],
//!   revoked:[connector:string, tasks:[int32]], delay:int32`.
//!
//! In the lists a task id of -1 stands for the connector instance itself. Strings are
//! int16-length-prefixed UTF-8, arrays int32-count-prefixed, all big-endian. Decoding
//! accepts any version from 1 up and ignores trailing bytes, as Kafka's schemas do.
//!
//! Owns encoding and decoding only: no I/O, no assignment logic.

use std::collections::BTreeSet;
use std::time::Duration;

/// One task of a connector.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TaskId {
    /// The connector's name.
    pub connector: String,
    /// The task's number, from 0.
    pub task: u32,
}

/// Connector instances and tasks: what a member runs, or is assigned or revoked.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Allocation {
    /// Connector instances.
    pub connectors: BTreeSet<String>,
    /// Tasks.
    pub tasks: BTreeSet<TaskId>,
}

/// What each member sends when it joins.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemberMetadata {
    /// The member's advertised REST URL (`http://host:port`).
    pub url: String,
    /// How far the member has read the config topic (the offset of the next record).
    pub config_offset: i64,
    /// What the member runs now.
    pub allocation: Allocation,
}

/// Whether the leader could assign.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AssignmentError {
    /// 0: the assignment is valid.
    None,
    /// 1: the leader could not read the config topic as far as a member had; everyone
    /// reads to the end and rejoins.
    ConfigMismatch,
}

/// What the leader sends each member.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Assignment {
    /// Whether the leader could assign.
    pub error: AssignmentError,
    /// The leader's member id.
    pub leader: String,
    /// The leader's REST URL.
    pub leader_url: String,
    /// The config-topic offset the assignment was computed at.
    pub config_offset: i64,
    /// Newly assigned to this member.
    pub assigned: Allocation,
    /// To stop on this member.
    pub revoked: Allocation,
    /// When positive, rejoin after this long (a departed member's work is held back).
    pub delay: Duration,
}

/// Bytes that are not a valid metadata or assignment.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ProtocolError {
    /// The bytes end before the field does.
    #[error("truncated {what}: {field} is missing")]
    Truncated {
        /// Metadata or assignment.
        what: &'static str,
        /// The field that is cut off.
        field: &'static str,
    },
    /// A version this worker does not read.
    #[error("unsupported {what} version {version}")]
    Version {
        /// Metadata or assignment.
        what: &'static str,
        /// The version found.
        version: i16,
    },
    /// Any other malformed field (negative length, invalid UTF-8, unknown error code).
    #[error("invalid {what}: {reason}")]
    Invalid {
        /// Metadata or assignment.
        what: &'static str,
        /// What is wrong.
        reason: String,
    },
}

impl MemberMetadata {
    /// The wire bytes (version 2).
    pub fn encode(&self) -> Vec<u8> {
        unimplemented!("SKELETON: codec")
    }

    /// Reads metadata bytes.
    pub fn decode(bytes: &[u8]) -> Result<Self, ProtocolError> {
        let _ = bytes;
        unimplemented!("SKELETON: codec")
    }
}

impl Assignment {
    /// The wire bytes (version 2).
    pub fn encode(&self) -> Vec<u8> {
        unimplemented!("SKELETON: codec")
    }

    /// Reads assignment bytes.
    pub fn decode(bytes: &[u8]) -> Result<Self, ProtocolError> {
        let _ = bytes;
        unimplemented!("SKELETON: codec")
    }
}
