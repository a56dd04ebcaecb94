//! REST listener addresses (`listeners`, `rest.advertised.listener`) and Kafka broker
//! addresses (`bootstrap.servers`), parsed from their Kafka Connect string forms.
//!
//! Owns the syntax of one address; it resolves no names and binds nothing.

use std::fmt;
use std::str::FromStr;

/// The protocol of a REST listener.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scheme {
    /// Plain HTTP.
    Http,
    /// HTTP over TLS.
    Https,
}

impl FromStr for Scheme {
    type Err = ();

    /// `http` or `https`, in any case (Kafka Connect lower-cases them too).
    fn from_str(s: &str) -> Result<Self, ()> {
        match s.to_ascii_lowercase().as_str() {
            "http" => Ok(Self::Http),
            "https" => Ok(Self::Https),
            _ => Err(()),
        }
    }
}

impl fmt::Display for Scheme {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Http => "http",
            Self::Https => "https",
        })
    }
}

/// One REST listener, `http://host:port` or `https://host:port`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Listener {
    /// HTTP or HTTPS.
    pub scheme: Scheme,
    /// Host name or IP address, without IPv6 brackets. Empty (`http://:8083`, Kafka
    /// Connect's default form) means every interface.
    pub host: String,
    /// TCP port; 0 asks the system for a free one (tests).
    pub port: u16,
}

impl FromStr for Listener {
    type Err = String;

    /// Parses `scheme://host:port`; the error says which part is wrong.
    fn from_str(s: &str) -> Result<Self, String> {
        let (scheme, authority) = s.split_once("://").ok_or("no scheme")?;
        let scheme = scheme.parse().map_err(|()| format!("unsupported scheme {scheme:?}"))?;
        let authority = authority.strip_suffix('/').unwrap_or(authority);
        let (host, port) = host_port(authority)?;
        Ok(Self { scheme, host: host.to_owned(), port })
    }
}

impl fmt::Display for Listener {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.host.contains(':') {
            write!(f, "{}://[{}]:{}", self.scheme, self.host, self.port)
        } else {
            write!(f, "{}://{}:{}", self.scheme, self.host, self.port)
        }
    }
}

/// Splits `host:port` or `[v6]:port`. The host may be empty; the port may not.
fn host_port(authority: &str) -> Result<(&str, u16), String> {
    let (host, port) = if let Some(rest) = authority.strip_prefix('[') {
        let (host, after) = rest.split_once(']').ok_or("unclosed '['")?;
        (host, after.strip_prefix(':').ok_or("missing port")?)
    } else {
        let (host, port) = authority.rsplit_once(':').ok_or("missing port")?;
        if host.contains(':') {
            return Err("an IPv6 address needs brackets".to_owned());
        }
        (host, port)
    };
    if host.contains(['/', '?', '#', '@', '[', ']']) || host.contains(char::is_whitespace) {
        return Err(format!("invalid host {host:?}"));
    }
    let port = port
        .parse()
        .ok()
        .filter(|_| port.bytes().all(|b| b.is_ascii_digit()))
        .ok_or_else(|| format!("invalid port {port:?}"))?;
    Ok((host, port))
}

/// The listener whose URL this worker advertises to the others, by Kafka Connect's rule:
/// the first listener of the protocol `rest.advertised.listener` names; without that key,
/// the first `http://` listener if there is one, else the first `https://` one. `None`
/// when no listener has the protocol asked for.
pub fn advertised(listeners: &[Listener], asked: Option<Scheme>) -> Option<&Listener> {
    let has = |scheme| listeners.iter().any(|l| l.scheme == scheme);
    let scheme = asked.unwrap_or(if has(Scheme::Http) || !has(Scheme::Https) {
        Scheme::Http
    } else {
        Scheme::Https
    });
    listeners.iter().find(|l| l.scheme == scheme)
}

/// Checks one `bootstrap.servers` entry: `host:port` with a non-empty host and a port
/// from 1 to 65535. A `PROTOCOL://` prefix is accepted, as the Kafka clients do.
pub fn check_broker_address(entry: &str) -> Result<(), String> {
    let authority = entry.split_once("://").map_or(entry, |(_, rest)| rest);
    let (host, port) = host_port(authority)?;
    if host.is_empty() {
        return Err("missing host".to_owned());
    }
    if port == 0 {
        return Err("port 0".to_owned());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_http_https_empty_host_and_ipv6() {
        let l: Listener = "http://localhost:8083".parse().unwrap();
        assert_eq!(l, Listener { scheme: Scheme::Http, host: "localhost".into(), port: 8083 });
        let l: Listener = "HTTPS://:8443/".parse().unwrap();
        assert_eq!((l.scheme, l.host.as_str(), l.port), (Scheme::Https, "", 8443));
        let l: Listener = "http://[::1]:0".parse().unwrap();
        assert_eq!(l.host, "::1");
        assert_eq!(l.to_string(), "http://[::1]:0");
    }

    #[test]
    fn rejects_bad_scheme_port_and_host() {
        let err = |s: &str| s.parse::<Listener>().unwrap_err();
        assert_eq!(err("localhost:8083"), "no scheme");
        assert_eq!(err("ftp://h:1"), "unsupported scheme \"ftp\"");
        assert_eq!(err("http://h"), "missing port");
        assert_eq!(err("http://h:99999"), "invalid port \"99999\"");
        assert_eq!(err("http://h:80/path"), "invalid port \"80/path\"");
        assert_eq!(err("http://u@h:80"), "invalid host \"u@h\"");
        assert_eq!(err("http://::1:80"), "an IPv6 address needs brackets");
    }

    #[test]
    fn the_advertised_listener_is_the_first_of_the_protocol_asked_for() {
        let listeners: Vec<Listener> = ["https://a:1", "http://b:2", "https://c:3", "http://d:4"]
            .iter()
            .map(|s| s.parse().unwrap())
            .collect();
        let host = |asked| advertised(&listeners, asked).map(|l| l.host.as_str());
        assert_eq!(host(Some(Scheme::Https)), Some("a"));
        assert_eq!(host(Some(Scheme::Http)), Some("b"));
        // Without rest.advertised.listener, http wins even when https comes first.
        assert_eq!(host(None), Some("b"));
        let https_only = &listeners[..1];
        assert_eq!(advertised(https_only, None).map(|l| l.port), Some(1));
        assert_eq!(advertised(https_only, Some(Scheme::Http)), None);
    }

    #[test]
    fn broker_addresses() {
        assert!(check_broker_address("127.0.0.1:9092").is_ok());
        assert!(check_broker_address("SASL_SSL://broker-1.example.com:9093").is_ok());
        assert!(check_broker_address("[::1]:9092").is_ok());
        assert_eq!(check_broker_address("broker"), Err("missing port".to_owned()));
        assert_eq!(check_broker_address(":9092"), Err("missing host".to_owned()));
    }
}
