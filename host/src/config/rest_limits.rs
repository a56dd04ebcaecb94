//! The REST listeners' connection limits: how long a client may take over a request's
//! head, how long a connection may sit idle, and how many connections may be open at once.
//!
//! Kafka Connect's REST server is Jetty, whose `ServerConnector` closes a connection idle
//! for 30 s (its default idle timeout, which Kafka Connect keeps) and which bounds a
//! request's head at 8 KiB; Kafka Connect has no key for either. These keys give the same
//! bounds names in Kafka Connect's `rest.*` family. Owns the keys and their defaults only;
//! `rest` enforces them.

use std::time::Duration;

use crate::config::reader::Reader;

/// Default `rest.header.read.timeout.ms`: Jetty's idle timeout (and hyper's default header
/// read timeout).
pub const DEFAULT_REST_HEADER_READ_TIMEOUT: Duration = Duration::from_millis(30_000);
/// Default `rest.idle.timeout.ms`: Jetty's `ServerConnector` idle timeout.
pub const DEFAULT_REST_IDLE_TIMEOUT: Duration = Duration::from_millis(30_000);
/// Default `rest.max.connections`: far more than the tools, dashboards and other workers
/// of a cluster open, and few enough that a flood of connections leaves file descriptors
/// for the worker's stores and Kafka clients under a 1,024-descriptor limit.
pub const DEFAULT_REST_MAX_CONNECTIONS: usize = 256;

/// The REST listeners' connection limits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RestLimits {
    /// `rest.header.read.timeout.ms`: how long a client may take, from its first byte of a
    /// request (or from the connection's start, for the first request) to the end of the
    /// request's headers, TLS handshake included; the connection is closed after it.
    pub header_read_timeout: Duration,
    /// `rest.idle.timeout.ms`: how long a connection may stay open with nothing moving, no
    /// request being handled and no byte read or written (between requests, or a request
    /// body or an answer stalled); it is closed after it.
    pub idle_timeout: Duration,
    /// `rest.max.connections`: the most connections open at once over all listeners. At
    /// the limit, further connections wait in the listen backlog until one closes.
    pub max_connections: usize,
}

impl Default for RestLimits {
    fn default() -> Self {
        Self {
            header_read_timeout: DEFAULT_REST_HEADER_READ_TIMEOUT,
            idle_timeout: DEFAULT_REST_IDLE_TIMEOUT,
            max_connections: DEFAULT_REST_MAX_CONNECTIONS,
        }
    }
}

impl RestLimits {
    /// Reads the keys; zero is a problem on its key (it would close or refuse everything).
    pub(super) fn read(r: &mut Reader<'_>) -> Self {
        let d = Self::default();
        let mut positive = |key: &'static str, default: Duration| {
            let v = r.millis(key, default);
            if v.is_zero() {
                r.problem(key, "expected a positive number of milliseconds, got 0");
                return default;
            }
            v
        };
        let header_read_timeout = positive("rest.header.read.timeout.ms", d.header_read_timeout);
        let idle_timeout = positive("rest.idle.timeout.ms", d.idle_timeout);
        let max_connections = match r.number("rest.max.connections", "a positive integer") {
            Some(0) => {
                r.problem("rest.max.connections", "expected a positive integer, got 0");
                d.max_connections
            }
            Some(n) => n,
            None => d.max_connections,
        };
        Self { header_read_timeout, idle_timeout, max_connections }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(pairs: &[(&str, &str)]) -> (RestLimits, Vec<String>) {
        let props: Vec<(String, String)> =
            pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        let mut r = Reader::new(&props);
        let limits = RestLimits::read(&mut r);
        (limits, r.problems.iter().map(|p| format!("{}: {}", p.key, p.message)).collect())
    }

    #[test]
    fn defaults_are_jettys_and_zero_is_refused_on_its_key() {
        assert_eq!(read(&[]), (RestLimits::default(), vec![]));
        let (limits, problems) = read(&[
            ("rest.header.read.timeout.ms", "1500"),
            ("rest.idle.timeout.ms", "2500"),
            ("rest.max.connections", "8"),
        ]);
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(limits.header_read_timeout, Duration::from_millis(1500));
        assert_eq!(limits.idle_timeout, Duration::from_millis(2500));
        assert_eq!(limits.max_connections, 8);
        let (_, problems) = read(&[("rest.idle.timeout.ms", "0"), ("rest.max.connections", "0")]);
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert!(problems[0].starts_with("rest.idle.timeout.ms: "), "{problems:?}");
        assert!(problems[1].starts_with("rest.max.connections: "), "{problems:?}");
    }
}
