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
//! accepts any version from 1 up, reads null lists (count -1) as empty and ignores trailing
//! bytes, as Kafka's schemas do. Unlike Kafka it does not default fields cut off at the end
//! (a tolerance kept there for version 0 peers, which never join our group): bytes that
//! end early are [`ProtocolError::Truncated`].
//!
//! Owns encoding and decoding only: no I/O, no assignment logic.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use bytes::{Buf, BufMut};

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

impl Allocation {
    /// Applies one rebalance's changes: drops `revoked`, then adds `assigned`.
    pub fn apply(&mut self, revoked: &Allocation, assigned: &Allocation) {
        self.connectors.retain(|c| !revoked.connectors.contains(c));
        self.tasks.retain(|t| !revoked.tasks.contains(t));
        self.connectors.extend(assigned.connectors.iter().cloned());
        self.tasks.extend(assigned.tasks.iter().cloned());
    }
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

/// The version this worker writes. Version 2 (`sessioned`) has the same fields as 1; the
/// number tells peers that request signing is on.
const VERSION: i16 = 2;

/// The oldest version this worker reads: version 0 has no allocation, revocations or delay,
/// and our group never offers it.
const MIN_VERSION: i16 = 1;

/// The task id that stands for the connector instance in assignment lists.
const CONNECTOR_INSTANCE: i32 = -1;

/// The length or count that marks a null value (nullable bytes, nullable arrays).
const NULL: i32 = -1;

/// The longest string the wire format can carry: its length is an int16. Connector names
/// and URLs longer than this cannot be encoded, so callers must reject them first.
pub const MAX_STRING_LEN: usize = i16::MAX as usize;

impl MemberMetadata {
    /// The wire bytes (version 2). An empty allocation is written as null, as Kafka does
    /// for a worker that has not been assigned anything yet.
    ///
    /// # Panics
    /// If the URL or a connector name is longer than [`MAX_STRING_LEN`] bytes.
    pub fn encode(&self) -> Vec<u8> {
        let mut buf = Vec::new();
        buf.put_i16(VERSION);
        put_string(&mut buf, &self.url);
        buf.put_i64(self.config_offset);
        if self.allocation == Allocation::default() {
            buf.put_i32(NULL);
        } else {
            let allocation = Assignment {
                error: AssignmentError::None,
                leader: String::new(),
                leader_url: String::new(),
                config_offset: self.config_offset,
                assigned: self.allocation.clone(),
                revoked: Allocation::default(),
                delay: Duration::ZERO,
            }
            .encode();
            buf.put_i32(len_i32(allocation.len()));
            buf.put_slice(&allocation);
        }
        buf
    }

    /// Reads metadata bytes. A null allocation reads as an empty one.
    pub fn decode(bytes: &[u8]) -> Result<Self, ProtocolError> {
        let mut r = Reader { buf: bytes, what: "metadata" };
        r.version()?;
        let url = r.string("url")?;
        let config_offset = r.i64("config offset")?;
        let allocation = match r.nullable_bytes("allocation")? {
            None => Allocation::default(),
            Some(inner) => {
                Assignment::decode(inner)
                    .map_err(|e| r.invalid(format!("allocation: {e}")))?
                    .assigned
            }
        };
        Ok(Self { url, config_offset, allocation })
    }
}

impl Assignment {
    /// The wire bytes (version 2).
    ///
    /// # Panics
    /// If a URL, the leader id or a connector name is longer than [`MAX_STRING_LEN`] bytes.
    pub fn encode(&self) -> Vec<u8> {
        let mut buf = Vec::new();
        buf.put_i16(VERSION);
        buf.put_i16(match self.error {
            AssignmentError::None => 0,
            AssignmentError::ConfigMismatch => 1,
        });
        put_string(&mut buf, &self.leader);
        put_string(&mut buf, &self.leader_url);
        buf.put_i64(self.config_offset);
        put_allocation(&mut buf, &self.assigned);
        put_allocation(&mut buf, &self.revoked);
        buf.put_i32(i32::try_from(self.delay.as_millis()).unwrap_or(i32::MAX));
        buf
    }

    /// Reads assignment bytes. Null lists read as empty.
    pub fn decode(bytes: &[u8]) -> Result<Self, ProtocolError> {
        let mut r = Reader { buf: bytes, what: "assignment" };
        r.version()?;
        let error = match r.i16("error")? {
            0 => AssignmentError::None,
            1 => AssignmentError::ConfigMismatch,
            code => return Err(r.invalid(format!("unknown error code {code}"))),
        };
        let leader = r.string("leader")?;
        let leader_url = r.string("leader url")?;
        let config_offset = r.i64("config offset")?;
        let assigned = r.allocation("assignment")?;
        let revoked = r.allocation("revoked")?;
        let delay = r.i32("delay")?;
        let delay =
            u64::try_from(delay).map_err(|_| r.invalid(format!("negative delay {delay}")))?;
        Ok(Self {
            error,
            leader,
            leader_url,
            config_offset,
            assigned,
            revoked,
            delay: Duration::from_millis(delay),
        })
    }
}

/// Writes an int16-length-prefixed UTF-8 string.
fn put_string(buf: &mut Vec<u8>, s: &str) {
    let len = i16::try_from(s.len()).expect("string longer than MAX_STRING_LEN");
    buf.put_i16(len);
    buf.put_slice(s.as_bytes());
}

/// Converts a length or count to its int32 wire form.
fn len_i32(len: usize) -> i32 {
    i32::try_from(len).expect("more than i32::MAX items")
}

/// Writes an allocation as `[connector:string, tasks:[int32]]`, one entry per connector,
/// the instance (-1) first, then the tasks in order.
fn put_allocation(buf: &mut Vec<u8>, allocation: &Allocation) {
    let mut by_connector: BTreeMap<&str, Vec<i32>> = BTreeMap::new();
    for connector in &allocation.connectors {
        by_connector.entry(connector).or_default().push(CONNECTOR_INSTANCE);
    }
    for task in &allocation.tasks {
        let id = i32::try_from(task.task).expect("task number above i32::MAX");
        by_connector.entry(&task.connector).or_default().push(id);
    }
    buf.put_i32(len_i32(by_connector.len()));
    for (connector, ids) in by_connector {
        put_string(buf, connector);
        buf.put_i32(len_i32(ids.len()));
        for id in ids {
            buf.put_i32(id);
        }
    }
}

/// A cursor over bytes being decoded; every read names its field for errors.
struct Reader<'a> {
    /// What is left to read.
    buf: &'a [u8],
    /// Metadata or assignment, for errors.
    what: &'static str,
}

impl<'a> Reader<'a> {
    fn invalid(&self, reason: String) -> ProtocolError {
        ProtocolError::Invalid { what: self.what, reason }
    }

    /// Fails unless `n` more bytes are there.
    fn need(&self, n: usize, field: &'static str) -> Result<(), ProtocolError> {
        if self.buf.remaining() < n {
            return Err(ProtocolError::Truncated { what: self.what, field });
        }
        Ok(())
    }

    fn i16(&mut self, field: &'static str) -> Result<i16, ProtocolError> {
        self.need(2, field)?;
        Ok(self.buf.get_i16())
    }

    fn i32(&mut self, field: &'static str) -> Result<i32, ProtocolError> {
        self.need(4, field)?;
        Ok(self.buf.get_i32())
    }

    fn i64(&mut self, field: &'static str) -> Result<i64, ProtocolError> {
        self.need(8, field)?;
        Ok(self.buf.get_i64())
    }

    fn version(&mut self) -> Result<(), ProtocolError> {
        let version = self.i16("version")?;
        if version < MIN_VERSION {
            return Err(ProtocolError::Version { what: self.what, version });
        }
        Ok(())
    }

    /// Takes `len` raw bytes.
    fn take(&mut self, len: usize, field: &'static str) -> Result<&'a [u8], ProtocolError> {
        self.need(len, field)?;
        let (head, tail) = self.buf.split_at(len);
        self.buf = tail;
        Ok(head)
    }

    /// A length or count, which must not be negative (callers handle null first).
    fn len(&mut self, n: i64, field: &'static str) -> Result<usize, ProtocolError> {
        usize::try_from(n).map_err(|_| self.invalid(format!("negative length {n} for {field}")))
    }

    fn string(&mut self, field: &'static str) -> Result<String, ProtocolError> {
        let n = self.i16(field)?;
        let len = self.len(n.into(), field)?;
        let bytes = self.take(len, field)?;
        String::from_utf8(bytes.to_vec()).map_err(|_| self.invalid(format!("{field} is not UTF-8")))
    }

    fn nullable_bytes(&mut self, field: &'static str) -> Result<Option<&'a [u8]>, ProtocolError> {
        match self.i32(field)? {
            NULL => Ok(None),
            n => {
                let len = self.len(n.into(), field)?;
                self.take(len, field).map(Some)
            }
        }
    }

    /// Reads a nullable `[connector:string, tasks:[int32]]` list; null reads as empty.
    fn allocation(&mut self, field: &'static str) -> Result<Allocation, ProtocolError> {
        let mut allocation = Allocation::default();
        let count = match self.i32(field)? {
            NULL => return Ok(allocation),
            n => self.len(n.into(), field)?,
        };
        for _ in 0..count {
            let connector = self.string(field)?;
            let n = self.i32(field)?;
            for _ in 0..self.len(n.into(), field)? {
                match self.i32(field)? {
                    CONNECTOR_INSTANCE => {
                        allocation.connectors.insert(connector.clone());
                    }
                    task => {
                        let task = u32::try_from(task)
                            .map_err(|_| self.invalid(format!("task id {task} in {field}")))?;
                        allocation.tasks.insert(TaskId { connector: connector.clone(), task });
                    }
                }
            }
        }
        Ok(allocation)
    }
}

#[cfg(test)]
#[path = "protocol_tests.rs"]
mod tests;
