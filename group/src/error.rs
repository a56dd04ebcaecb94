//! What a group request can fail with, and what each failure means for the member.
//!
//! Broker error codes are mapped once, here, to the few cases the member loop handles
//! differently; the rest stay typed as [`ResponseError`] for the log. Owns the mapping
//! only: deciding what to do (rejoin, report Lost, back off) is the member loop's job.

use kafka_protocol::error::ResponseError;
use kafka_protocol::messages::ApiKey;

use crate::connection::ConnectionError;

/// A failed group request.
#[derive(Debug, thiserror::Error)]
pub(crate) enum GroupError {
    /// REBALANCE_IN_PROGRESS: rejoin, keeping the allocation.
    #[error("the group is rebalancing")]
    RebalanceInProgress,
    /// MEMBER_ID_REQUIRED: the coordinator assigned a member id; join again with it.
    #[error("the coordinator assigned member id {member_id}, to join with")]
    MemberIdRequired {
        /// The id to join with.
        member_id: String,
    },
    /// UNKNOWN_MEMBER_ID, ILLEGAL_GENERATION or FENCED_INSTANCE_ID: the coordinator no
    /// longer counts this member in; its work may already run elsewhere.
    #[error("membership lost: {0}")]
    MembershipLost(ResponseError),
    /// NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE or COORDINATOR_LOAD_IN_PROGRESS: find
    /// the coordinator again, after a back-off.
    #[error("coordinator unavailable: {0}")]
    CoordinatorUnavailable(ResponseError),
    /// INCONSISTENT_GROUP_PROTOCOL: the group runs another protocol type (a consumer
    /// group of the same name, say).
    #[error("group.id is used by a group of another protocol type")]
    InconsistentGroupProtocol,
    /// Any other error code (authorization, invalid session timeout, group full...).
    #[error("{api:?} failed: {error}")]
    Broker {
        /// The request.
        api: ApiKey,
        /// The broker's error.
        error: ResponseError,
    },
    /// The response makes no sense (another protocol chosen, an undecodable assignment).
    #[error("invalid {api:?} response: {reason}")]
    InvalidResponse {
        /// The request.
        api: ApiKey,
        /// What is wrong.
        reason: String,
    },
    /// The broker could not be reached or the exchange failed.
    #[error(transparent)]
    Connection(#[from] ConnectionError),
}

impl GroupError {
    /// Maps a response's error code; `None` for 0 (no error).
    pub(crate) fn from_code(api: ApiKey, code: i16) -> Option<Self> {
        let error = ResponseError::try_from_code(code)?;
        Some(match error {
            ResponseError::RebalanceInProgress => Self::RebalanceInProgress,
            ResponseError::UnknownMemberId
            | ResponseError::IllegalGeneration
            | ResponseError::FencedInstanceId => Self::MembershipLost(error),
            ResponseError::NotCoordinator
            | ResponseError::CoordinatorNotAvailable
            | ResponseError::CoordinatorLoadInProgress => Self::CoordinatorUnavailable(error),
            ResponseError::InconsistentGroupProtocol => Self::InconsistentGroupProtocol,
            error => Self::Broker { api, error },
        })
    }

    /// Whether retrying cannot help: the brokers refused the login or a certificate.
    pub(crate) fn is_fatal(&self) -> bool {
        matches!(self, Self::Connection(error) if error.is_fatal())
    }

    /// Whether the coordinator must be found again before the next request.
    pub(crate) fn needs_rediscovery(&self) -> bool {
        matches!(self, Self::CoordinatorUnavailable(_) | Self::Connection(_))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::security::SaslMechanism;

    #[test]
    fn refused_logins_and_certificates_are_fatal_and_outages_not() {
        let fatal = [
            ConnectionError::Authentication {
                addr: "b:9094".to_owned(),
                mechanism: SaslMechanism::ScramSha256,
                username: "connect".to_owned(),
                reason: "invalid credentials".to_owned(),
            },
            ConnectionError::Certificate {
                addr: "b:9094".to_owned(),
                reason: "unknown issuer".to_owned(),
            },
        ];
        for error in fatal {
            let error = GroupError::from(error);
            assert!(error.is_fatal(), "{error}");
        }
        let io = || std::io::Error::from(std::io::ErrorKind::ConnectionRefused);
        let passing = [
            ConnectionError::Connect { addr: "b:9092".to_owned(), source: io() },
            ConnectionError::Handshake { addr: "b:9092".to_owned(), source: io() },
            ConnectionError::Io { addr: "b:9092".to_owned(), api: ApiKey::Heartbeat, source: io() },
            ConnectionError::Timeout {
                addr: "b:9092".to_owned(),
                api: ApiKey::Heartbeat,
                timeout: std::time::Duration::from_secs(1),
            },
        ];
        for error in passing {
            let error = GroupError::from(error);
            assert!(!error.is_fatal(), "{error}");
        }
        assert!(!GroupError::RebalanceInProgress.is_fatal());
    }

    #[test]
    fn an_authentication_failure_names_the_user_and_mechanism_only() {
        let error = ConnectionError::Authentication {
            addr: "127.0.0.1:9094".to_owned(),
            mechanism: SaslMechanism::Plain,
            username: "connect".to_owned(),
            reason: "Authentication failed: Invalid username or password".to_owned(),
        };
        assert_eq!(
            error.to_string(),
            "SASL authentication failed on 127.0.0.1:9094 (PLAIN as user \"connect\"): \
             Authentication failed: Invalid username or password"
        );
    }

    fn map(code: i16) -> Option<GroupError> {
        GroupError::from_code(ApiKey::Heartbeat, code)
    }

    #[test]
    fn no_error_maps_to_none() {
        assert!(map(0).is_none());
    }

    #[test]
    fn group_codes_map_to_their_cases() {
        assert!(matches!(map(27), Some(GroupError::RebalanceInProgress)));
        for code in [25, 22, 82] {
            assert!(matches!(map(code), Some(GroupError::MembershipLost(_))), "{code}");
        }
        for code in [14, 15, 16] {
            let error = map(code).unwrap();
            assert!(matches!(error, GroupError::CoordinatorUnavailable(_)), "{code}");
            assert!(error.needs_rediscovery());
        }
        assert!(matches!(map(23), Some(GroupError::InconsistentGroupProtocol)));
    }

    #[test]
    fn other_codes_keep_the_broker_error() {
        let error = map(30).unwrap();
        assert!(matches!(
            error,
            GroupError::Broker {
                api: ApiKey::Heartbeat,
                error: ResponseError::GroupAuthorizationFailed
            }
        ));
        assert!(!error.needs_rediscovery());
        assert!(!error.is_fatal());
        assert!(matches!(
            map(9999),
            Some(GroupError::Broker { error: ResponseError::Unknown(9999), .. })
        ));
    }
}
