//! One connection to one broker (TCP, or TLS over it), carrying Kafka requests one at a
//! time.
//!
//! A request goes out as a frame: a big-endian `int32` length, the request header (API
//! key, version, correlation id, client id) and the body encoded with kafka-protocol at
//! the version fixed by its [`Api`] impl. The response frame's header must carry the same
//! correlation id. Header versions follow each message's flexible versions
//! ([`HeaderVersion`]). Every [`Connection::connect`] first asks the broker for its
//! supported versions (ApiVersions) and refuses a broker lacking any version this crate
//! uses, so an old broker fails with a clear error instead of a dropped connection. With
//! SASL it then logs in: SaslHandshake names the mechanism, SaslAuthenticate carries the
//! `sasl` exchange's messages until it is done. A broker that limits the login's lifetime
//! (`connections.max.reauth.ms`) gets a new connection before it ends
//! ([`Connection::is_expiring`]).
//!
//! A refused login or certificate is fatal ([`ConnectionError::is_fatal`]): retrying with
//! the same settings cannot succeed. Owns framing, versions, the login and timeouts only:
//! it knows nothing of groups or error codes in group responses. After any error
//! (including a timeout, or a request future being dropped) the stream's position is
//! unknown: drop the connection and open a new one.

use std::time::Duration;

use bytes::{Buf, Bytes};
use kafka_protocol::error::ResponseError;
use kafka_protocol::messages::{
    ApiKey, ApiVersionsRequest, ApiVersionsResponse, FindCoordinatorRequest,
    FindCoordinatorResponse, HeartbeatRequest, HeartbeatResponse, InitProducerIdRequest,
    InitProducerIdResponse, JoinGroupRequest, JoinGroupResponse, LeaveGroupRequest,
    LeaveGroupResponse, RequestHeader, ResponseHeader, SaslAuthenticateRequest,
    SaslAuthenticateResponse, SaslHandshakeRequest, SaslHandshakeResponse, SyncGroupRequest,
    SyncGroupResponse,
};
use kafka_protocol::protocol::{Decodable, Encodable, HeaderVersion, StrBytes};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::time::Instant;

use crate::sasl::{Exchange, Step};
use crate::security::{Sasl, SaslMechanism, Security};
use crate::stream::{BrokerStream, OpenError};

/// The largest response frame accepted. Kafka brokers cap requests at 100 MiB
/// (`socket.request.max.bytes`); a JoinGroup response carrying every member's allocation
/// stays far below it, and a larger length means a corrupt stream, not a message.
const MAX_RESPONSE_BYTES: usize = 100 * 1024 * 1024;

/// A request this crate sends, at the one version it speaks.
pub(crate) trait Api: Encodable + HeaderVersion {
    /// The API key.
    const KEY: ApiKey;
    /// The version sent. Fixed rather than negotiated: each of these is supported by every
    /// broker since Kafka 3.2 and still by Kafka 4.x, and one version per API keeps a
    /// single code path to test.
    const VERSION: i16;
    /// The response body.
    type Response: Decodable + HeaderVersion;
}

/// ApiVersions v3: the first flexible version, supported since Kafka 2.4. Its response
/// header is always v0, so even a broker that rejects the version can answer.
impl Api for ApiVersionsRequest {
    const KEY: ApiKey = ApiKey::ApiVersions;
    const VERSION: i16 = 3;
    type Response = ApiVersionsResponse;
}

/// FindCoordinator v4: batched keys (KIP-699, Kafka 3.0); Kafka 4 removed v0 and v1-v3
/// remain only for old clients.
impl Api for FindCoordinatorRequest {
    const KEY: ApiKey = ApiKey::FindCoordinator;
    const VERSION: i16 = 4;
    type Response = FindCoordinatorResponse;
}

/// JoinGroup v9 (Kafka 3.2): requires a member id (MEMBER_ID_REQUIRED, v4+), returns the
/// protocol type and name (v7+) and carries a rejoin reason (v8+).
impl Api for JoinGroupRequest {
    const KEY: ApiKey = ApiKey::JoinGroup;
    const VERSION: i16 = 9;
    type Response = JoinGroupResponse;
}

/// SyncGroup v5 (Kafka 2.5): protocol type and name in request and response (v5+).
impl Api for SyncGroupRequest {
    const KEY: ApiKey = ApiKey::SyncGroup;
    const VERSION: i16 = 5;
    type Response = SyncGroupResponse;
}

/// Heartbeat v4 (Kafka 2.4): the flexible version.
impl Api for HeartbeatRequest {
    const KEY: ApiKey = ApiKey::Heartbeat;
    const VERSION: i16 = 4;
    type Response = HeartbeatResponse;
}

/// LeaveGroup v5 (Kafka 3.2): members listed (v3+) with a reason (v5+).
impl Api for LeaveGroupRequest {
    const KEY: ApiKey = ApiKey::LeaveGroup;
    const VERSION: i16 = 5;
    type Response = LeaveGroupResponse;
}

/// InitProducerId v4 (Kafka 2.7, KIP-588): the flexible version with the producer id and
/// epoch (v3+), which fencing sends as -1, -1; it answers PRODUCER_FENCED rather than
/// INVALID_PRODUCER_EPOCH.
impl Api for InitProducerIdRequest {
    const KEY: ApiKey = ApiKey::InitProducerId;
    const VERSION: i16 = 4;
    type Response = InitProducerIdResponse;
}

/// SaslHandshake v1 (Kafka 1.0, KIP-152): the mechanism, then SaslAuthenticate requests
/// (not raw tokens) carry the exchange.
impl Api for SaslHandshakeRequest {
    const KEY: ApiKey = ApiKey::SaslHandshake;
    const VERSION: i16 = 1;
    type Response = SaslHandshakeResponse;
}

/// SaslAuthenticate v2 (Kafka 2.4): the flexible version, with the login's lifetime
/// (v1+, KIP-368).
impl Api for SaslAuthenticateRequest {
    const KEY: ApiKey = ApiKey::SaslAuthenticate;
    const VERSION: i16 = 2;
    type Response = SaslAuthenticateResponse;
}

/// The APIs of the SASL login, checked when one is configured.
const SASL_APIS: [(ApiKey, i16); 2] = [
    (ApiKey::SaslHandshake, SaslHandshakeRequest::VERSION),
    (ApiKey::SaslAuthenticate, SaslAuthenticateRequest::VERSION),
];

/// How early a connection whose login has a lifetime is replaced: at 85% of it, as Kafka's
/// clients re-authenticate between 85% and 95%.
const EXPIRY_MARGIN_PERCENT: u32 = 85;

/// The APIs checked against the broker's ApiVersions answer.
const USED_APIS: [(ApiKey, i16); 6] = [
    (ApiKey::FindCoordinator, FindCoordinatorRequest::VERSION),
    (ApiKey::JoinGroup, JoinGroupRequest::VERSION),
    (ApiKey::SyncGroup, SyncGroupRequest::VERSION),
    (ApiKey::Heartbeat, HeartbeatRequest::VERSION),
    (ApiKey::LeaveGroup, LeaveGroupRequest::VERSION),
    (ApiKey::InitProducerId, InitProducerIdRequest::VERSION),
];

/// Why a connection or request failed. Any of these leaves the connection unusable.
#[derive(Debug, thiserror::Error)]
pub enum ConnectionError {
    /// The TCP connection could not be opened.
    #[error("cannot connect to {addr}: {source}")]
    Connect {
        /// The broker address.
        addr: String,
        /// The I/O error.
        source: std::io::Error,
    },
    /// Reading or writing failed (the broker closed the connection, a reset...).
    #[error("I/O error on {addr} during {api:?}: {source}")]
    Io {
        /// The broker address.
        addr: String,
        /// The request in flight.
        api: ApiKey,
        /// The I/O error.
        source: std::io::Error,
    },
    /// Connecting or a request took longer than its timeout.
    #[error("{api:?} to {addr} timed out after {timeout:?}")]
    Timeout {
        /// The broker address.
        addr: String,
        /// The request in flight (ApiVersions while connecting).
        api: ApiKey,
        /// The timeout.
        timeout: Duration,
    },
    /// kafka-protocol could not encode the request.
    #[error("cannot encode {api:?}: {reason}")]
    Encode {
        /// The request.
        api: ApiKey,
        /// The encoder's message.
        reason: String,
    },
    /// The response frame is not a valid response.
    #[error("invalid {api:?} response from {addr}: {reason}")]
    Decode {
        /// The broker address.
        addr: String,
        /// The request answered.
        api: ApiKey,
        /// What is wrong.
        reason: String,
    },
    /// The broker does not support the version this crate sends.
    #[error("broker {addr} does not support {api:?} v{version} (it supports {supported})")]
    Unsupported {
        /// The broker address.
        addr: String,
        /// The API.
        api: ApiKey,
        /// The version this crate sends.
        version: i16,
        /// The broker's range, `min..max`, or "none".
        supported: String,
    },
    /// The TLS handshake failed otherwise than on a certificate (the broker dropped the
    /// connection midway, say).
    #[error("TLS handshake with {addr} failed: {source}")]
    Handshake {
        /// The broker address.
        addr: String,
        /// The I/O error (wrapping rustls's).
        source: std::io::Error,
    },
    /// TLS refused the broker's certificate, or the broker refused this client's: fatal.
    #[error("TLS with {addr} failed: {reason}")]
    Certificate {
        /// The broker address.
        addr: String,
        /// What was refused, and why.
        reason: String,
    },
    /// The broker refused the SASL login: wrong credentials, a mechanism it does not
    /// enable, a listener without SASL... Fatal.
    #[error("SASL authentication failed on {addr} ({mechanism} as user {username:?}): {reason}")]
    Authentication {
        /// The broker address.
        addr: String,
        /// The mechanism tried.
        mechanism: SaslMechanism,
        /// The user name (the password is never shown).
        username: String,
        /// The broker's message, or what was wrong with its answer.
        reason: String,
    },
}

impl ConnectionError {
    /// Whether retrying with the same settings cannot succeed: a refused login or
    /// certificate. The member gives up on these rather than retry.
    pub(crate) fn is_fatal(&self) -> bool {
        matches!(self, Self::Certificate { .. } | Self::Authentication { .. })
    }
}

/// One connection to one broker. Requests are sent one at a time.
#[derive(Debug)]
pub(crate) struct Connection {
    stream: BrokerStream,
    addr: String,
    client_id: StrBytes,
    next_correlation_id: i32,
    /// When to replace the connection, if the broker limits the login's lifetime.
    expires: Option<Instant>,
}

impl Connection {
    /// Opens a connection secured as `security` says (the TLS handshake, then the SASL
    /// login after ApiVersions) and checks the broker supports every version used; each
    /// step within `timeout`.
    pub(crate) async fn connect(
        addr: &str,
        client_id: &str,
        security: &Security,
        timeout: Duration,
    ) -> Result<Self, ConnectionError> {
        let stream =
            tokio::time::timeout(timeout, crate::stream::open(addr, security.tls.as_ref()))
                .await
                .map_err(|_| ConnectionError::Timeout {
                    addr: addr.to_owned(),
                    api: ApiKey::ApiVersions,
                    timeout,
                })?
                .map_err(|error| {
                    let addr = addr.to_owned();
                    match error {
                        OpenError::Connect(source) => ConnectionError::Connect { addr, source },
                        OpenError::Handshake(source) => ConnectionError::Handshake { addr, source },
                        OpenError::Certificate(reason) => {
                            ConnectionError::Certificate { addr, reason }
                        }
                    }
                })?;
        let mut connection = Self {
            stream,
            addr: addr.to_owned(),
            client_id: StrBytes::from_string(client_id.to_owned()),
            next_correlation_id: 0,
            expires: None,
        };
        let request = ApiVersionsRequest::default()
            .with_client_software_name(StrBytes::from_static_str(env!("CARGO_PKG_NAME")))
            .with_client_software_version(StrBytes::from_static_str(env!("CARGO_PKG_VERSION")));
        let versions = connection.send(&request, timeout).await?;
        check_versions(addr, &versions, security.sasl.is_some())?;
        if let Some(sasl) = &security.sasl {
            connection.authenticate(sasl, timeout).await?;
        }
        Ok(connection)
    }

    /// The broker address this connection goes to.
    pub(crate) fn addr(&self) -> &str {
        &self.addr
    }

    /// Whether the broker will soon end this connection's login: open a new one instead.
    pub(crate) fn is_expiring(&self) -> bool {
        self.expires.is_some_and(|at| Instant::now() >= at)
    }

    /// The SASL login: SaslHandshake, then SaslAuthenticate rounds until the exchange is
    /// done. Any refusal is [`ConnectionError::Authentication`].
    async fn authenticate(
        &mut self,
        sasl: &Sasl,
        timeout: Duration,
    ) -> Result<(), ConnectionError> {
        let failed = |addr: &str, reason: String| ConnectionError::Authentication {
            addr: addr.to_owned(),
            mechanism: sasl.mechanism,
            username: sasl.username.clone(),
            reason,
        };
        let handshake = SaslHandshakeRequest::default()
            .with_mechanism(StrBytes::from_static_str(sasl.mechanism.name()));
        let response = self.send(&handshake, timeout).await?;
        if response.error_code != 0 {
            let enabled: Vec<&str> = response.mechanisms.iter().map(|m| m.as_str()).collect();
            let reason = match ResponseError::try_from_code(response.error_code) {
                Some(ResponseError::UnsupportedSaslMechanism) => format!(
                    "the broker does not enable {} on this listener (it enables {})",
                    sasl.mechanism,
                    if enabled.is_empty() { "none".to_owned() } else { enabled.join(", ") }
                ),
                Some(ResponseError::IllegalSaslState) => {
                    "the listener does not expect a SASL login (is it a SASL listener?)".to_owned()
                }
                error => format!("SaslHandshake answered {}", describe(error, response.error_code)),
            };
            return Err(failed(&self.addr, reason));
        }
        let mut exchange = Exchange::start(sasl).map_err(|reason| failed(&self.addr, reason))?;
        let mut received: Option<Bytes> = None;
        let mut lifetime_ms = 0;
        loop {
            let step = exchange.step(received.as_deref());
            let message = match step.map_err(|reason| failed(&self.addr, reason))? {
                Step::Send(message) => message,
                Step::Done => break,
            };
            let request = SaslAuthenticateRequest::default().with_auth_bytes(Bytes::from(message));
            let response = self.send(&request, timeout).await?;
            if response.error_code != 0 {
                let reason = match &response.error_message {
                    Some(message) if !message.is_empty() => message.as_str().to_owned(),
                    _ => describe(
                        ResponseError::try_from_code(response.error_code),
                        response.error_code,
                    ),
                };
                return Err(failed(&self.addr, reason));
            }
            lifetime_ms = response.session_lifetime_ms;
            received = Some(response.auth_bytes);
        }
        if let Ok(lifetime_ms) = u64::try_from(lifetime_ms)
            && lifetime_ms > 0
        {
            let lifetime = Duration::from_millis(lifetime_ms) * EXPIRY_MARGIN_PERCENT / 100;
            self.expires = Some(Instant::now() + lifetime);
        }
        tracing::debug!(broker = %self.addr, mechanism = %sasl.mechanism, "SASL login succeeded");
        Ok(())
    }

    /// Sends `request` and reads its response, within `timeout`.
    pub(crate) async fn send<R: Api>(
        &mut self,
        request: &R,
        timeout: Duration,
    ) -> Result<R::Response, ConnectionError> {
        let correlation_id = self.next_correlation_id;
        self.next_correlation_id = self.next_correlation_id.wrapping_add(1);
        let frame = encode_frame(request, correlation_id, &self.client_id)?;
        let exchange = async {
            self.stream.write_all(&frame).await?;
            let mut len = [0u8; 4];
            self.stream.read_exact(&mut len).await?;
            let len = i32::from_be_bytes(len);
            let len = usize::try_from(len)
                .ok()
                .filter(|len| *len <= MAX_RESPONSE_BYTES)
                .ok_or_else(|| std::io::Error::other(format!("invalid frame length {len}")))?;
            let mut body = vec![0u8; len];
            self.stream.read_exact(&mut body).await?;
            Ok::<_, std::io::Error>(Bytes::from(body))
        };
        let frame = tokio::time::timeout(timeout, exchange)
            .await
            .map_err(|_| ConnectionError::Timeout {
                addr: self.addr.clone(),
                api: R::KEY,
                timeout,
            })?
            .map_err(|source| ConnectionError::Io {
                addr: self.addr.clone(),
                api: R::KEY,
                source,
            })?;
        decode_response::<R>(frame, correlation_id).map_err(|reason| ConnectionError::Decode {
            addr: self.addr.clone(),
            api: R::KEY,
            reason,
        })
    }
}

/// Checks the broker `addr` supports every version this crate sends, the SASL login's too
/// when `sasl`.
fn check_versions(
    addr: &str,
    versions: &ApiVersionsResponse,
    sasl: bool,
) -> Result<(), ConnectionError> {
    if versions.error_code != 0 {
        return Err(ConnectionError::Decode {
            addr: addr.to_owned(),
            api: ApiKey::ApiVersions,
            reason: format!("error code {}", versions.error_code),
        });
    }
    let sasl_apis = if sasl { &SASL_APIS[..] } else { &[] };
    for &(api, version) in USED_APIS.iter().chain(sasl_apis) {
        let range = versions.api_keys.iter().find(|v| v.api_key == api as i16);
        if !range.is_some_and(|r| (r.min_version..=r.max_version).contains(&version)) {
            return Err(ConnectionError::Unsupported {
                addr: addr.to_owned(),
                api,
                version,
                supported: range.map_or_else(
                    || "none".to_owned(),
                    |r| format!("{}..{}", r.min_version, r.max_version),
                ),
            });
        }
    }
    Ok(())
}

/// A response error code for a message: its name, or the bare code.
fn describe(error: Option<ResponseError>, code: i16) -> String {
    match error {
        Some(error) => format!("{error} (error code {code})"),
        None => format!("error code {code}"),
    }
}

/// The whole request frame: length, header, body.
fn encode_frame<R: Api>(
    request: &R,
    correlation_id: i32,
    client_id: &StrBytes,
) -> Result<Vec<u8>, ConnectionError> {
    let encode_error = |e: &dyn std::fmt::Display| ConnectionError::Encode {
        api: R::KEY,
        reason: format!("{e:#}"),
    };
    let header = RequestHeader::default()
        .with_request_api_key(R::KEY as i16)
        .with_request_api_version(R::VERSION)
        .with_correlation_id(correlation_id)
        .with_client_id(Some(client_id.clone()));
    let mut frame = vec![0u8; 4];
    header.encode(&mut frame, R::header_version(R::VERSION)).map_err(|e| encode_error(&e))?;
    request.encode(&mut frame, R::VERSION).map_err(|e| encode_error(&e))?;
    let len = i32::try_from(frame.len() - 4).map_err(|_| ConnectionError::Encode {
        api: R::KEY,
        reason: format!("request of {} bytes", frame.len()),
    })?;
    frame[..4].copy_from_slice(&len.to_be_bytes());
    Ok(frame)
}

/// Reads a response frame (without its length prefix), checking the correlation id.
fn decode_response<R: Api>(mut frame: Bytes, correlation_id: i32) -> Result<R::Response, String> {
    let header = ResponseHeader::decode(&mut frame, R::Response::header_version(R::VERSION))
        .map_err(|e| format!("header: {e:#}"))?;
    if header.correlation_id != correlation_id {
        return Err(format!(
            "correlation id {} where {correlation_id} was expected",
            header.correlation_id
        ));
    }
    let response =
        R::Response::decode(&mut frame, R::VERSION).map_err(|e| format!("body: {e:#}"))?;
    if frame.has_remaining() {
        return Err(format!("{} bytes left after the body", frame.remaining()));
    }
    Ok(response)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frame_has_length_flexible_header_and_body() {
        let request = HeartbeatRequest::default()
            .with_group_id(kafka_protocol::messages::GroupId(StrBytes::from_static_str("g")))
            .with_generation_id(7)
            .with_member_id(StrBytes::from_static_str("m"));
        let frame = encode_frame(&request, 42, &StrBytes::from_static_str("cid")).unwrap();
        let len = i32::from_be_bytes(frame[..4].try_into().unwrap());
        assert_eq!(len as usize, frame.len() - 4);
        let expected_header: &[u8] = &[
            0, 12, // api key: Heartbeat
            0, 4, // version
            0, 0, 0, 42, // correlation id
            0, 3, b'c', b'i', b'd', // client id: a classic int16 string even in header v2
            0,    // no tagged fields (header v2, flexible)
        ];
        assert_eq!(&frame[4..4 + expected_header.len()], expected_header);
        let body = &frame[4 + expected_header.len()..];
        let expected_body: &[u8] = &[
            2, b'g', // compact string: length + 1
            0, 0, 0, 7, // generation
            2, b'm', // member id
            0,    // no group instance id (compact nullable)
            0,    // no tagged fields
        ];
        assert_eq!(body, expected_body);
    }

    /// A Heartbeat v4 response frame body: header v1 (correlation id, tagged fields),
    /// then throttle time, error code, tagged fields.
    fn heartbeat_response(correlation_id: i32, error_code: i16) -> Bytes {
        let mut frame = correlation_id.to_be_bytes().to_vec();
        frame.push(0);
        frame.extend_from_slice(&0i32.to_be_bytes());
        frame.extend_from_slice(&error_code.to_be_bytes());
        frame.push(0);
        Bytes::from(frame)
    }

    #[test]
    fn response_with_matching_correlation_id_decodes() {
        let response = decode_response::<HeartbeatRequest>(heartbeat_response(5, 27), 5).unwrap();
        assert_eq!(response.error_code, 27);
    }

    #[test]
    fn response_with_other_correlation_id_is_rejected() {
        let error = decode_response::<HeartbeatRequest>(heartbeat_response(6, 0), 5).unwrap_err();
        assert!(error.contains("correlation id 6"), "{error}");
    }

    #[test]
    fn trailing_bytes_are_rejected() {
        let mut frame = heartbeat_response(1, 0).to_vec();
        frame.push(9);
        assert!(decode_response::<HeartbeatRequest>(Bytes::from(frame), 1).is_err());
    }

    #[test]
    fn sasl_versions_are_checked_only_with_a_login() {
        use kafka_protocol::messages::api_versions_response::ApiVersion;
        let range = |api: ApiKey, min, max| {
            ApiVersion::default()
                .with_api_key(api as i16)
                .with_min_version(min)
                .with_max_version(max)
        };
        let mut keys: Vec<ApiVersion> =
            USED_APIS.iter().map(|&(api, version)| range(api, 0, version)).collect();
        keys.push(range(ApiKey::SaslHandshake, 0, 1));
        // A broker whose SaslAuthenticate stops at v1.
        keys.push(range(ApiKey::SaslAuthenticate, 0, 1));
        let versions = ApiVersionsResponse::default().with_api_keys(keys);
        assert!(check_versions("b:9092", &versions, false).is_ok());
        let error = check_versions("b:9092", &versions, true).unwrap_err();
        assert!(
            matches!(
                &error,
                ConnectionError::Unsupported { api: ApiKey::SaslAuthenticate, version: 2, .. }
            ),
            "{error}"
        );
    }

    #[tokio::test]
    async fn connect_to_nothing_fails_typed() {
        // Port 1 (tcpmux) is not served on test machines: the connection is refused.
        let security = Security::default();
        let error =
            Connection::connect("127.0.0.1:1", "t", &security, Duration::from_secs(2)).await;
        assert!(matches!(
            error,
            Err(ConnectionError::Connect { .. } | ConnectionError::Timeout { .. })
        ));
    }
}
