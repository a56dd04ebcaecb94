//! The `host:port` addresses a `connect` grant's value names.
//!
//! A value is either a comma-separated list of `host:port` addresses, or one URL whose
//! authority names the host (and port) a connector talks to: `jdbc:postgresql://db:5432/app`,
//! `postgres://db/app`, `https://api.example.com/v1/events`. A URL's port defaults to its
//! scheme's (5432 for PostgreSQL, 80 for `http`, 443 for `https`); a scheme without a known
//! default must name its port. PostgreSQL's JDBC URLs may list several hosts
//! (`jdbc:postgresql://a:5432,b:5433/app`): each is granted. User info before `@` is
//! dropped, so a password written into a URL never becomes part of a grant.
//!
//! An `http://` or `https://` URL also names an origin ([`origin`]): `wasi:http` requests
//! may go there (see [`super::http`]).
//!
//! This module only parses; it resolves no name and opens nothing ([`super::grants`] does
//! that when it builds an instance's sandbox).

/// The addresses `value` grants, each `host:port`, or why it names none.
pub fn addresses(value: &str) -> Result<Vec<String>, String> {
    let value = value.trim();
    let Some((scheme, rest)) = value.split_once("://") else {
        return value
            .split(',')
            .map(str::trim)
            .filter(|a| !a.is_empty())
            .map(|a| host_port(a, None).map_err(|_| format!("{a:?} is not a host:port address")))
            .collect();
    };
    let scheme = scheme.to_ascii_lowercase();
    let scheme = scheme.strip_prefix("jdbc:").unwrap_or(&scheme);
    let default_port = match scheme {
        "postgresql" | "postgres" => Some(5432),
        "http" | "ws" => Some(80),
        "https" | "wss" => Some(443),
        _ => None,
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let hosts = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    if hosts.is_empty() {
        return Err("the URL names no host".to_owned());
    }
    hosts
        .split(',')
        .map(|h| host_port(h.trim(), default_port).map_err(|why| format!("the URL {why}")))
        .collect()
}

/// The origin an `http://` or `https://` URL names, `scheme://host:port` in lower case
/// with the scheme's default port: what a `connect` grant of that URL allows HTTP requests
/// to. `None` for any other value (an address list, another scheme, no valid host).
pub fn origin(value: &str) -> Option<String> {
    let (scheme, _) = value.trim().split_once("://")?;
    let scheme = scheme.to_ascii_lowercase();
    if scheme != "http" && scheme != "https" {
        return None;
    }
    match addresses(value).ok()?.as_slice() {
        [one] => Some(format!("{scheme}://{}", one.to_ascii_lowercase())),
        _ => None,
    }
}

/// `host:port` from `host[:port]` or `[v6][:port]`, with `default` when the port is absent.
/// Errors quote `item`, which holds no user info.
fn host_port(item: &str, default: Option<u16>) -> Result<String, String> {
    let (host, port) = if let Some(v6) = item.strip_prefix('[') {
        let (host, tail) = v6.split_once(']').ok_or("has an unclosed '['")?;
        (format!("[{host}]"), tail.strip_prefix(':'))
    } else {
        match item.rsplit_once(':') {
            Some((host, port)) => (host.to_owned(), Some(port)),
            None => (item.to_owned(), None),
        }
    };
    if host.is_empty() || host == "[]" || host.contains(['[', ']', ' ', '@']) && !is_v6(&host) {
        return Err(format!("has no valid host in {item:?}"));
    }
    let port = match port {
        Some(p) => p
            .parse::<u16>()
            .ok()
            .filter(|p| *p != 0)
            .ok_or(format!("has a bad port in {item:?}"))?,
        None => default.ok_or("names no port, and its scheme has no default port")?,
    };
    Ok(format!("{host}:{port}"))
}

fn is_v6(host: &str) -> bool {
    host.starts_with('[')
        && host.ends_with(']')
        && host[1..host.len() - 1].parse::<std::net::Ipv6Addr>().is_ok()
}

#[cfg(test)]
mod tests {
    use super::addresses;

    fn ok(value: &str) -> Vec<String> {
        addresses(value).unwrap_or_else(|e| panic!("{value}: {e}"))
    }

    #[test]
    fn plain_address_lists() {
        assert_eq!(ok("127.0.0.1:1, localhost:2"), ["127.0.0.1:1", "localhost:2"]);
        assert_eq!(ok("[::1]:9"), ["[::1]:9"]);
        for bad in ["nohost", "host:", "host:0", "host:99999", ":80", "[::1"] {
            assert!(addresses(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn urls_grant_their_authority_with_the_scheme_default_port() {
        assert_eq!(ok("jdbc:postgresql://db.internal:6543/app?ssl=true"), ["db.internal:6543"]);
        assert_eq!(ok("jdbc:postgresql://db/app"), ["db:5432"]);
        assert_eq!(ok("postgres://user:secret@127.0.0.1/app"), ["127.0.0.1:5432"]);
        assert_eq!(ok("https://api.example.com/v1/events"), ["api.example.com:443"]);
        assert_eq!(ok("http://127.0.0.1:8080"), ["127.0.0.1:8080"]);
        assert_eq!(ok("HTTP://[::1]/x"), ["[::1]:80"]);
        assert_eq!(ok("jdbc:postgresql://a:5432,b:5433/app"), ["a:5432", "b:5433"]);
    }

    #[test]
    fn http_urls_name_their_origin() {
        use super::origin;
        assert_eq!(origin("http://127.0.0.1:8080/x").as_deref(), Some("http://127.0.0.1:8080"));
        assert_eq!(
            origin("HTTPS://Api.Example.com/v1").as_deref(),
            Some("https://api.example.com:443")
        );
        assert_eq!(origin("https://u:pw@h:8443").as_deref(), Some("https://h:8443"));
        assert_eq!(origin("jdbc:postgresql://db/app"), None);
        assert_eq!(origin("127.0.0.1:80"), None);
        assert_eq!(origin("http://h,i/"), None);
    }

    #[test]
    fn urls_without_host_or_known_port_are_refused() {
        for bad in
            ["https:///path", "jdbc:postgresql:///db", "ftp://files.example.com/x", "http://h:x/"]
        {
            assert!(addresses(bad).is_err(), "{bad}");
        }
        assert_eq!(ok("ftp://files.example.com:21/x"), ["files.example.com:21"]);
        // The password of a URL never reaches the error or the grant.
        for bad in ["postgres://u:hunter2@/db", "postgres://u:hunter2@h:x/db"] {
            let err = addresses(bad).unwrap_err();
            assert!(!err.contains("hunter2"), "{err}");
        }
    }
}
