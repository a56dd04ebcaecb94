//! Fencing transactional producers by `transactional.id`, as Kafka's
//! `Admin.fenceProducers` does (`FenceProducersHandler`): the zombie fencing of exactly-once
//! source tasks (KIP-618).
//!
//! For each id, FindCoordinator with key type TRANSACTION finds its transaction
//! coordinator, and InitProducerId with that id, no producer id and no epoch (-1, -1) bumps
//! the id's epoch there: any producer still using an older epoch of the id is fenced (its
//! next send or commit fails with PRODUCER_FENCED, which librdkafka reports as the fatal
//! `Fenced`), and a transaction it left open is aborted. An id the coordinator does not know
//! yet is created. COORDINATOR_LOAD_IN_PROGRESS and CONCURRENT_TRANSACTIONS are retried after
//! a back-off; NOT_COORDINATOR and COORDINATOR_NOT_AVAILABLE find the coordinator again; an
//! authorization error fails at once naming the id; all of it within one overall timeout.
//!
//! librdkafka has no FenceProducers call (`rdkafka.h` has none), so this speaks the protocol
//! with kafka-protocol over the crate's [`Connection`] (TLS, SASL and version checks
//! included), rather than opening one librdkafka producer per id only to call
//! `init_transactions` on it. Owns the requests and their retries only; which ids to fence
//! and when is the herder's business.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use kafka_protocol::error::ResponseError;
use kafka_protocol::messages::{
    ApiKey, FindCoordinatorRequest, InitProducerIdRequest, ProducerId, TransactionalId,
};
use kafka_protocol::protocol::StrBytes;
use tokio::time::Instant;
use wasm_connect_backoff::Backoff;

use crate::connection::{Connection, ConnectionError};
use crate::security::Security;

/// FindCoordinator's key type for a transactional id.
const KEY_TYPE_TRANSACTION: i8 = 1;

/// The first retry's delay, doubling to [`RETRY_MAX`]: Kafka's admin client
/// `retry.backoff.ms` and `retry.backoff.max.ms` defaults.
const RETRY_INITIAL: Duration = Duration::from_millis(100);

/// The longest delay between two rounds.
const RETRY_MAX: Duration = Duration::from_secs(1);

/// How to reach the brokers, and how long fencing may take.
#[derive(Clone, Debug)]
pub struct FenceSettings {
    /// `host:port` of each bootstrap broker.
    pub bootstrap_servers: Vec<String>,
    /// Sent in every request header.
    pub client_id: String,
    /// TLS and SASL for every connection.
    pub security: Security,
    /// Timeout for connecting and for each request.
    pub request_timeout: Duration,
    /// How long fencing every id may take, retries included.
    pub timeout: Duration,
    /// The transaction timeout sent in InitProducerId (Kafka sends the fencing's timeout);
    /// at most the broker's `transaction.max.timeout.ms`.
    pub transaction_timeout: Duration,
}

/// Why fencing failed. Every variant names the id or ids concerned.
#[derive(Debug, thiserror::Error)]
pub enum FenceError {
    /// The principal may not use the id (TRANSACTIONAL_ID_AUTHORIZATION_FAILED, say).
    #[error("not authorized to fence transactional id {id:?}: {error}")]
    Unauthorized {
        /// The transactional id.
        id: String,
        /// The broker's error.
        error: ResponseError,
    },
    /// The broker answered an error that retrying cannot fix.
    #[error("fencing transactional id {id:?} failed: {error}")]
    Broker {
        /// The transactional id.
        id: String,
        /// The broker's error.
        error: ResponseError,
    },
    /// The brokers refused the login or a certificate: every attempt would be refused.
    #[error("cannot fence transactional ids {ids:?}: {reason}")]
    Refused {
        /// The ids not fenced.
        ids: Vec<String>,
        /// The connection's error.
        reason: String,
    },
    /// The overall timeout passed with ids still not fenced.
    #[error("timed out after {timeout:?} fencing transactional ids {ids:?}; last error: {last}")]
    Timeout {
        /// The ids not fenced.
        ids: Vec<String>,
        /// [`FenceSettings::timeout`].
        timeout: Duration,
        /// The last retriable error seen.
        last: String,
    },
}

/// What one id's attempt came to.
enum Outcome {
    Fenced,
    /// Try again after the back-off; `true` if the coordinator must be found again.
    Retry {
        rediscover: bool,
        reason: String,
    },
}

/// Fences every producer of each of `ids`; returns once every id is fenced. An empty list
/// succeeds at once.
pub async fn fence_producers(settings: &FenceSettings, ids: &[String]) -> Result<(), FenceError> {
    let deadline = Instant::now() + settings.timeout;
    let mut pending: BTreeSet<&str> = ids.iter().map(String::as_str).collect();
    let mut coordinators: BTreeMap<&str, String> = BTreeMap::new();
    let mut connections: BTreeMap<String, Connection> = BTreeMap::new();
    let mut backoff = Backoff::doubling(RETRY_INITIAL, RETRY_MAX).attempts();
    let mut next_bootstrap = 0;
    loop {
        // No request outlasts the overall timeout.
        let remaining = deadline.saturating_duration_since(Instant::now());
        let round = FenceSettings {
            request_timeout: settings.request_timeout.min(remaining),
            ..settings.clone()
        };
        let settings = &round;
        let mut last = String::new();
        let unknown: Vec<&str> =
            pending.iter().copied().filter(|id| !coordinators.contains_key(id)).collect();
        if !unknown.is_empty() {
            match find_coordinators(settings, &unknown, &mut next_bootstrap).await {
                Ok(found) => {
                    for (id, answer) in found {
                        match answer {
                            Ok(addr) => {
                                coordinators.insert(id, addr);
                            }
                            Err(error) => match classify(error) {
                                Class::Retry => last = format!("{id}: {error}"),
                                Class::Unauthorized => {
                                    return Err(FenceError::Unauthorized { id: id.into(), error });
                                }
                                Class::Fail => {
                                    return Err(FenceError::Broker { id: id.into(), error });
                                }
                            },
                        }
                    }
                }
                Err(error) if error.is_fatal() => {
                    return Err(refused(&pending, &error));
                }
                Err(error) => last = error.to_string(),
            }
        }
        for (id, addr) in coordinators.clone() {
            if !pending.contains(id) {
                continue;
            }
            match init_producer_id(settings, &mut connections, &addr, id).await? {
                Outcome::Fenced => {
                    tracing::debug!(transactional_id = id, coordinator = %addr, "Fenced producers");
                    pending.remove(id);
                }
                Outcome::Retry { rediscover, reason } => {
                    if rediscover {
                        coordinators.remove(id);
                    }
                    last = format!("{id}: {reason}");
                }
            }
        }
        if pending.is_empty() {
            return Ok(());
        }
        let delay = backoff.next_delay();
        if Instant::now() + delay >= deadline {
            return Err(FenceError::Timeout {
                ids: pending.iter().map(|id| (*id).to_owned()).collect(),
                timeout: round.timeout,
                last,
            });
        }
        tracing::debug!(pending = pending.len(), last = %last, "Fencing again after a back-off");
        tokio::time::sleep(delay).await;
    }
}

/// How an error code is handled.
enum Class {
    Retry,
    Unauthorized,
    Fail,
}

fn classify(error: ResponseError) -> Class {
    match error {
        ResponseError::CoordinatorLoadInProgress
        | ResponseError::ConcurrentTransactions
        | ResponseError::NotCoordinator
        | ResponseError::CoordinatorNotAvailable => Class::Retry,
        ResponseError::TransactionalIdAuthorizationFailed
        | ResponseError::ClusterAuthorizationFailed => Class::Unauthorized,
        _ => Class::Fail,
    }
}

/// InitProducerId for `id` at its coordinator `addr`, on a kept connection.
async fn init_producer_id(
    settings: &FenceSettings,
    connections: &mut BTreeMap<String, Connection>,
    addr: &str,
    id: &str,
) -> Result<Outcome, FenceError> {
    let timeout = settings.request_timeout;
    let mut connection = match connections.remove(addr) {
        Some(connection) if !connection.is_expiring() => connection,
        _ => {
            match Connection::connect(addr, &settings.client_id, &settings.security, timeout).await
            {
                Ok(connection) => connection,
                Err(error) => return connection_failed(id, &error),
            }
        }
    };
    let request = InitProducerIdRequest::default()
        .with_transactional_id(Some(TransactionalId(StrBytes::from_string(id.to_owned()))))
        .with_transaction_timeout_ms(millis(settings.transaction_timeout))
        .with_producer_id(ProducerId(-1))
        .with_producer_epoch(-1);
    let response = match connection.send(&request, timeout).await {
        Ok(response) => response,
        Err(error) => return connection_failed(id, &error),
    };
    connections.insert(addr.to_owned(), connection);
    let Some(error) = ResponseError::try_from_code(response.error_code) else {
        return Ok(Outcome::Fenced);
    };
    match classify(error) {
        Class::Retry => Ok(Outcome::Retry {
            rediscover: matches!(
                error,
                ResponseError::NotCoordinator | ResponseError::CoordinatorNotAvailable
            ),
            reason: format!("{:?} answered {error}", ApiKey::InitProducerId),
        }),
        Class::Unauthorized => Err(FenceError::Unauthorized { id: id.to_owned(), error }),
        Class::Fail => Err(FenceError::Broker { id: id.to_owned(), error }),
    }
}

/// A connection to a coordinator failed: find it again, unless no attempt can succeed.
fn connection_failed(id: &str, error: &ConnectionError) -> Result<Outcome, FenceError> {
    if error.is_fatal() {
        return Err(FenceError::Refused { ids: vec![id.to_owned()], reason: error.to_string() });
    }
    Ok(Outcome::Retry { rediscover: true, reason: error.to_string() })
}

fn refused(pending: &BTreeSet<&str>, error: &ConnectionError) -> FenceError {
    FenceError::Refused {
        ids: pending.iter().map(|id| (*id).to_owned()).collect(),
        reason: error.to_string(),
    }
}

/// One FindCoordinator (batched, v4) through the bootstrap servers in turn: each id with its
/// coordinator's address or its error code.
async fn find_coordinators<'a>(
    settings: &FenceSettings,
    ids: &[&'a str],
    next_bootstrap: &mut usize,
) -> Result<Vec<(&'a str, Result<String, ResponseError>)>, ConnectionError> {
    let servers = &settings.bootstrap_servers;
    let timeout = settings.request_timeout;
    let mut last_error = None;
    for i in 0..servers.len() {
        let index = (*next_bootstrap + i) % servers.len();
        let request = FindCoordinatorRequest::default()
            .with_key_type(KEY_TYPE_TRANSACTION)
            .with_coordinator_keys(
                ids.iter().map(|id| StrBytes::from_string((*id).to_owned())).collect(),
            );
        let answer = async {
            let mut connection = Connection::connect(
                &servers[index],
                &settings.client_id,
                &settings.security,
                timeout,
            )
            .await?;
            connection.send(&request, timeout).await
        };
        match answer.await {
            Ok(response) => {
                return Ok(ids
                    .iter()
                    .map(|id| {
                        let found = response.coordinators.iter().find(|c| c.key.as_str() == *id);
                        let answer = match found {
                            None => Err(ResponseError::CoordinatorNotAvailable),
                            Some(c) => match ResponseError::try_from_code(c.error_code) {
                                Some(error) => Err(error),
                                None => Ok(format!("{}:{}", c.host.as_str(), c.port)),
                            },
                        };
                        (*id, answer)
                    })
                    .collect());
            }
            Err(error) if error.is_fatal() => return Err(error),
            Err(error) => {
                tracing::debug!(bootstrap = %servers[index], error = %error, "Bootstrap server unreachable");
                *next_bootstrap = (index + 1) % servers.len();
                last_error = Some(error);
            }
        }
    }
    Err(last_error.unwrap_or_else(|| ConnectionError::Decode {
        addr: String::new(),
        api: ApiKey::FindCoordinator,
        reason: "no bootstrap servers configured".to_owned(),
    }))
}

/// A duration as the `int32` milliseconds Kafka takes, saturating.
fn millis(duration: Duration) -> i32 {
    i32::try_from(duration.as_millis()).unwrap_or(i32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retriable_codes_are_retried_and_authorization_fails() {
        for code in [14, 15, 16, 51] {
            let error = ResponseError::try_from_code(code).unwrap();
            assert!(matches!(classify(error), Class::Retry), "{code}");
        }
        for code in [31, 53] {
            let error = ResponseError::try_from_code(code).unwrap();
            assert!(matches!(classify(error), Class::Unauthorized), "{code}");
        }
        assert!(matches!(classify(ResponseError::InvalidTransactionTimeout), Class::Fail));
    }

    #[test]
    fn an_authorization_error_names_the_id() {
        let error = FenceError::Unauthorized {
            id: "connect-cluster-c-0".to_owned(),
            error: ResponseError::TransactionalIdAuthorizationFailed,
        };
        let message = error.to_string();
        assert!(message.contains("\"connect-cluster-c-0\""), "{message}");
        assert!(message.contains("TransactionalIdAuthorizationFailed"), "{message}");
    }

    #[tokio::test]
    async fn nothing_to_fence_succeeds_without_a_broker() {
        let settings = FenceSettings {
            bootstrap_servers: vec!["127.0.0.1:1".to_owned()],
            client_id: "t".to_owned(),
            security: Security::default(),
            request_timeout: Duration::from_secs(1),
            timeout: Duration::from_secs(1),
            transaction_timeout: Duration::from_secs(60),
        };
        fence_producers(&settings, &[]).await.unwrap();
    }

    #[tokio::test]
    async fn an_unreachable_cluster_times_out_naming_the_ids() {
        // Port 1 (tcpmux) is not served on test machines: every connection is refused.
        let settings = FenceSettings {
            bootstrap_servers: vec!["127.0.0.1:1".to_owned()],
            client_id: "t".to_owned(),
            security: Security::default(),
            request_timeout: Duration::from_millis(500),
            timeout: Duration::from_millis(700),
            transaction_timeout: Duration::from_secs(60),
        };
        let ids = ["g-c-0".to_owned(), "g-c-1".to_owned()];
        let error = fence_producers(&settings, &ids).await.unwrap_err();
        assert!(
            matches!(&error, FenceError::Timeout { ids, .. } if ids == &["g-c-0", "g-c-1"]),
            "{error}"
        );
    }
}
