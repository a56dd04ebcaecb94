//! The group requests, sent to the group's coordinator: find it, join, sync, heartbeat,
//! leave.
//!
//! [`Coordinator`] keeps the connection to the coordinator and finds it again (through
//! the bootstrap servers, in turn) when it is unknown, unreachable or moved. Each method
//! is one request and maps the response's error code to a [`GroupError`]. It owns no
//! member state and never retries or sleeps: retries, back-offs and what a failure means
//! for the member belong to the member loop. Dropping a request future midway is safe:
//! the connection is dropped with it and the next request finds the coordinator anew.
//! A refused login or certificate ends the search at once: every broker would refuse it.

use std::time::Duration;

use bytes::Bytes;
use kafka_protocol::messages::join_group_request::JoinGroupRequestProtocol;
use kafka_protocol::messages::leave_group_request::MemberIdentity;
use kafka_protocol::messages::sync_group_request::SyncGroupRequestAssignment;
use kafka_protocol::messages::{
    ApiKey, FindCoordinatorRequest, GroupId, HeartbeatRequest, JoinGroupRequest, LeaveGroupRequest,
    SyncGroupRequest,
};
use kafka_protocol::protocol::StrBytes;

use crate::connection::{Api, Connection};
use crate::error::GroupError;
use crate::security::Security;
use crate::{PROTOCOL_NAME, PROTOCOL_TYPE};

/// How much longer than the rebalance timeout a JoinGroup or SyncGroup may take: the
/// broker holds them until the rebalance completes, at most the rebalance timeout, and
/// then needs a moment to answer. Kafka's own clients allow the same 5 s.
const REBALANCE_REQUEST_MARGIN: Duration = Duration::from_secs(5);

/// FindCoordinator's key type for a group (1 is a transaction).
const KEY_TYPE_GROUP: i8 = 0;

/// How to reach the group's coordinator.
#[derive(Clone, Debug)]
pub(crate) struct CoordinatorSettings {
    /// `host:port` of each bootstrap broker.
    pub(crate) bootstrap_servers: Vec<String>,
    /// The group.
    pub(crate) group_id: String,
    /// Sent in every request header.
    pub(crate) client_id: String,
    /// TLS and SASL for every connection.
    pub(crate) security: Security,
    /// Timeout for connecting and for requests that the broker answers at once
    /// (FindCoordinator, Heartbeat, LeaveGroup).
    pub(crate) request_timeout: Duration,
    /// The rebalance timeout sent in JoinGroup; JoinGroup and SyncGroup wait up to it.
    pub(crate) rebalance_timeout: Duration,
    /// The session timeout sent in JoinGroup.
    pub(crate) session_timeout: Duration,
}

/// A completed JoinGroup.
#[derive(Clone, Debug)]
pub(crate) struct Joined {
    /// The new generation.
    pub(crate) generation: i32,
    /// This member's id.
    pub(crate) member_id: String,
    /// The leader's member id.
    pub(crate) leader: String,
    /// Leader only: every member's id and metadata bytes (empty for followers).
    pub(crate) members: Vec<(String, Bytes)>,
}

impl Joined {
    /// Whether this member leads the generation.
    pub(crate) fn is_leader(&self) -> bool {
        self.leader == self.member_id
    }
}

/// The client of one group's coordinator.
#[derive(Debug)]
pub(crate) struct Coordinator {
    settings: CoordinatorSettings,
    group_id: GroupId,
    /// The coordinator's connection; `None` when it must be found (again).
    connection: Option<Connection>,
    /// The bootstrap server to ask first next time, so one dead broker is not always
    /// tried first.
    next_bootstrap: usize,
}

impl Coordinator {
    /// A client that finds the coordinator on its first request.
    pub(crate) fn new(settings: CoordinatorSettings) -> Self {
        let group_id = GroupId(StrBytes::from_string(settings.group_id.clone()));
        Self { settings, group_id, connection: None, next_bootstrap: 0 }
    }

    /// Forgets the coordinator: the next request finds it again.
    pub(crate) fn disconnect(&mut self) {
        self.connection = None;
    }

    /// JoinGroup with `member_id` (empty the first time) and this member's metadata.
    /// Blocks at the broker until every member has joined or the rebalance timeout.
    pub(crate) async fn join(
        &mut self,
        member_id: &str,
        metadata: Bytes,
        reason: &str,
    ) -> Result<Joined, GroupError> {
        let request = JoinGroupRequest::default()
            .with_group_id(self.group_id.clone())
            .with_session_timeout_ms(millis(self.settings.session_timeout))
            .with_rebalance_timeout_ms(millis(self.settings.rebalance_timeout))
            .with_member_id(str_bytes(member_id))
            .with_protocol_type(StrBytes::from_static_str(PROTOCOL_TYPE))
            .with_protocols(vec![
                JoinGroupRequestProtocol::default()
                    .with_name(StrBytes::from_static_str(PROTOCOL_NAME))
                    .with_metadata(metadata),
            ])
            .with_reason(Some(str_bytes(reason)));
        let timeout = self.settings.rebalance_timeout + REBALANCE_REQUEST_MARGIN;
        let response = self.request(&request, timeout).await?;
        if response.error_code == kafka_protocol::error::ResponseError::MemberIdRequired.code() {
            return Err(GroupError::MemberIdRequired {
                member_id: response.member_id.as_str().to_owned(),
            });
        }
        self.check(ApiKey::JoinGroup, response.error_code)?;
        check_protocol(
            ApiKey::JoinGroup,
            response.protocol_type.as_ref(),
            response.protocol_name.as_ref(),
        )?;
        Ok(Joined {
            generation: response.generation_id,
            member_id: response.member_id.as_str().to_owned(),
            leader: response.leader.as_str().to_owned(),
            members: response
                .members
                .into_iter()
                .map(|m| (m.member_id.as_str().to_owned(), m.metadata))
                .collect(),
        })
    }

    /// SyncGroup: the leader sends every member's assignment, followers send none; returns
    /// this member's assignment bytes. Blocks at the broker until the leader has synced.
    pub(crate) async fn sync(
        &mut self,
        generation: i32,
        member_id: &str,
        assignments: Vec<(String, Bytes)>,
    ) -> Result<Bytes, GroupError> {
        let request = SyncGroupRequest::default()
            .with_group_id(self.group_id.clone())
            .with_generation_id(generation)
            .with_member_id(str_bytes(member_id))
            .with_protocol_type(Some(StrBytes::from_static_str(PROTOCOL_TYPE)))
            .with_protocol_name(Some(StrBytes::from_static_str(PROTOCOL_NAME)))
            .with_assignments(
                assignments
                    .into_iter()
                    .map(|(member_id, assignment)| {
                        SyncGroupRequestAssignment::default()
                            .with_member_id(StrBytes::from_string(member_id))
                            .with_assignment(assignment)
                    })
                    .collect(),
            );
        let timeout = self.settings.rebalance_timeout + REBALANCE_REQUEST_MARGIN;
        let response = self.request(&request, timeout).await?;
        self.check(ApiKey::SyncGroup, response.error_code)?;
        check_protocol(
            ApiKey::SyncGroup,
            response.protocol_type.as_ref(),
            response.protocol_name.as_ref(),
        )?;
        Ok(response.assignment)
    }

    /// Heartbeat for `generation`.
    pub(crate) async fn heartbeat(
        &mut self,
        generation: i32,
        member_id: &str,
    ) -> Result<(), GroupError> {
        let request = HeartbeatRequest::default()
            .with_group_id(self.group_id.clone())
            .with_generation_id(generation)
            .with_member_id(str_bytes(member_id));
        let response = self.request(&request, self.settings.request_timeout).await?;
        self.check(ApiKey::Heartbeat, response.error_code)
    }

    /// LeaveGroup for `member_id`. A member the coordinator no longer knows has left.
    pub(crate) async fn leave(&mut self, member_id: &str, reason: &str) -> Result<(), GroupError> {
        self.leave_members(&[member_id.to_owned()], reason).await
    }

    /// LeaveGroup for each of `member_ids` in one request (Kafka's LeaveGroup v3 and
    /// later). A member the coordinator no longer knows counts as gone.
    pub(crate) async fn leave_members(
        &mut self,
        member_ids: &[String],
        reason: &str,
    ) -> Result<(), GroupError> {
        let members = member_ids
            .iter()
            .map(|id| {
                MemberIdentity::default()
                    .with_member_id(str_bytes(id))
                    .with_reason(Some(str_bytes(reason)))
            })
            .collect();
        let request =
            LeaveGroupRequest::default().with_group_id(self.group_id.clone()).with_members(members);
        let response = self.request(&request, self.settings.request_timeout).await?;
        self.check(ApiKey::LeaveGroup, response.error_code)?;
        for member in &response.members {
            match GroupError::from_code(ApiKey::LeaveGroup, member.error_code) {
                None | Some(GroupError::MembershipLost(_)) => {}
                Some(error) => return Err(error),
            }
        }
        Ok(())
    }

    /// Sends `request` to the coordinator, finding it first if needed. The connection is
    /// kept only if the exchange succeeded.
    async fn request<R: Api>(
        &mut self,
        request: &R,
        timeout: Duration,
    ) -> Result<R::Response, GroupError> {
        let mut connection = match self.connection.take() {
            Some(connection) if !connection.is_expiring() => connection,
            Some(old) => {
                // The broker is about to end the login: log in again on a new connection.
                let timeout = self.settings.request_timeout;
                let settings = &self.settings;
                Connection::connect(old.addr(), &settings.client_id, &settings.security, timeout)
                    .await?
            }
            None => self.discover().await?,
        };
        let response = connection.send(request, timeout).await?;
        self.connection = Some(connection);
        Ok(response)
    }

    /// Maps an error code, forgetting the coordinator when it moved or is unavailable.
    fn check(&mut self, api: ApiKey, code: i16) -> Result<(), GroupError> {
        match GroupError::from_code(api, code) {
            None => Ok(()),
            Some(error) => {
                if error.needs_rediscovery() {
                    self.disconnect();
                }
                Err(error)
            }
        }
    }

    /// Asks the bootstrap servers, in turn, where the coordinator is, and connects to it.
    async fn discover(&mut self) -> Result<Connection, GroupError> {
        let servers = &self.settings.bootstrap_servers;
        let mut last_error = None;
        for i in 0..servers.len() {
            let index = (self.next_bootstrap + i) % servers.len();
            match self.find_coordinator(&servers[index]).await {
                Ok(addr) => {
                    let timeout = self.settings.request_timeout;
                    let settings = &self.settings;
                    let connection = Connection::connect(
                        &addr,
                        &settings.client_id,
                        &settings.security,
                        timeout,
                    )
                    .await?;
                    tracing::debug!(
                        group_id = %self.settings.group_id,
                        coordinator = %connection.addr(),
                        "Found the group coordinator"
                    );
                    return Ok(connection);
                }
                Err(error) if error.is_fatal() => return Err(error),
                Err(error @ GroupError::Connection(_)) => {
                    tracing::debug!(
                        bootstrap = %servers[index],
                        error = %error,
                        "Bootstrap server unreachable"
                    );
                    self.next_bootstrap = (index + 1) % servers.len();
                    last_error = Some(error);
                }
                Err(error) => return Err(error),
            }
        }
        Err(last_error.unwrap_or_else(|| GroupError::InvalidResponse {
            api: ApiKey::FindCoordinator,
            reason: "no bootstrap servers configured".to_owned(),
        }))
    }

    /// FindCoordinator through one bootstrap server; returns the coordinator's address.
    async fn find_coordinator(&self, bootstrap: &str) -> Result<String, GroupError> {
        let timeout = self.settings.request_timeout;
        let settings = &self.settings;
        let mut connection =
            Connection::connect(bootstrap, &settings.client_id, &settings.security, timeout)
                .await?;
        let request = FindCoordinatorRequest::default()
            .with_key_type(KEY_TYPE_GROUP)
            .with_coordinator_keys(vec![self.group_id.0.clone()]);
        let response = connection.send(&request, timeout).await?;
        if let Some(error) = GroupError::from_code(ApiKey::FindCoordinator, response.error_code) {
            return Err(error);
        }
        let coordinator = response.coordinators.into_iter().next().ok_or_else(|| {
            GroupError::InvalidResponse {
                api: ApiKey::FindCoordinator,
                reason: "no coordinator in the response".to_owned(),
            }
        })?;
        if let Some(error) = GroupError::from_code(ApiKey::FindCoordinator, coordinator.error_code)
        {
            return Err(error);
        }
        Ok(format!("{}:{}", coordinator.host.as_str(), coordinator.port))
    }
}

/// Checks the coordinator chose our protocol type and name (absent before it chose).
fn check_protocol(
    api: ApiKey,
    protocol_type: Option<&StrBytes>,
    protocol_name: Option<&StrBytes>,
) -> Result<(), GroupError> {
    let wrong = |field: &str, got: &StrBytes, want: &str| GroupError::InvalidResponse {
        api,
        reason: format!("{field} {:?} where {want:?} was expected", got.as_str()),
    };
    match (protocol_type, protocol_name) {
        (Some(t), _) if t.as_str() != PROTOCOL_TYPE => {
            Err(wrong("protocol type", t, PROTOCOL_TYPE))
        }
        (_, Some(n)) if n.as_str() != PROTOCOL_NAME => {
            Err(wrong("protocol name", n, PROTOCOL_NAME))
        }
        _ => Ok(()),
    }
}

fn str_bytes(s: &str) -> StrBytes {
    StrBytes::from_string(s.to_owned())
}

/// A duration as the `int32` milliseconds Kafka takes, saturating.
fn millis(duration: Duration) -> i32 {
    i32::try_from(duration.as_millis()).unwrap_or(i32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn millis_saturates() {
        assert_eq!(millis(Duration::from_millis(6000)), 6000);
        assert_eq!(millis(Duration::from_secs(u64::MAX / 2)), i32::MAX);
    }

    #[test]
    fn protocol_check_accepts_ours_and_absent() {
        let ours_t = StrBytes::from_static_str(PROTOCOL_TYPE);
        let ours_n = StrBytes::from_static_str(PROTOCOL_NAME);
        assert!(check_protocol(ApiKey::SyncGroup, None, None).is_ok());
        assert!(check_protocol(ApiKey::SyncGroup, Some(&ours_t), Some(&ours_n)).is_ok());
        let consumer = StrBytes::from_static_str("consumer");
        assert!(check_protocol(ApiKey::SyncGroup, Some(&consumer), Some(&ours_n)).is_err());
        assert!(check_protocol(ApiKey::SyncGroup, Some(&ours_t), Some(&consumer)).is_err());
    }
}
