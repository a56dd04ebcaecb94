//! [`ConnectUrl`]: the host, port and database of a `connection.url`, written as the JDBC
//! connectors write it (`jdbc:postgresql://host:port/db?...`) or as libpq does
//! (`postgres://host:port/db`, `postgresql://...`). User info in a `postgres://` URL is
//! read as the login when the config gives none.

/// Where to connect.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConnectUrl {
    /// Host name or IP address (IPv6 without brackets).
    pub host: String,
    /// TCP port (5432 when the URL has none).
    pub port: u16,
    /// The database (the user name when the URL has none, as PostgreSQL does).
    pub database: Option<String>,
    /// `user` from the URL's user info or `?user=`.
    pub user: Option<String>,
    /// `password` from the URL's user info or `?password=`.
    pub password: Option<String>,
}

impl ConnectUrl {
    /// Parses `url`, or says what is wrong with it (never echoing a password).
    pub fn parse(url: &str) -> Result<Self, String> {
        let url = url.trim();
        let rest = ["jdbc:postgresql://", "postgresql://", "postgres://"]
            .iter()
            .find_map(|p| url.strip_prefix(p))
            .ok_or_else(|| {
                "expected jdbc:postgresql://host:port/database (or postgres://...)".to_owned()
            })?;
        let (rest, query) = rest.split_once('?').unwrap_or((rest, ""));
        let (authority, path) = rest.split_once('/').unwrap_or((rest, ""));
        let (userinfo, hostport) = match authority.rsplit_once('@') {
            Some((u, h)) => (Some(u), h),
            None => (None, authority),
        };
        let (host, port) = if let Some(v6) = hostport.strip_prefix('[') {
            let (h, p) = v6.split_once(']').ok_or("unclosed [ in the host")?;
            (h, p.strip_prefix(':'))
        } else {
            match hostport.rsplit_once(':') {
                Some((h, p)) => (h, Some(p)),
                None => (hostport, None),
            }
        };
        if host.is_empty() {
            return Err("the URL has no host".into());
        }
        let port = match port {
            None | Some("") => 5432,
            Some(p) => p.parse().map_err(|_| format!("invalid port {p:?}"))?,
        };
        let mut out = Self {
            host: host.to_owned(),
            port,
            database: Some(path).filter(|p| !p.is_empty()).map(str::to_owned),
            user: None,
            password: None,
        };
        if let Some(info) = userinfo {
            let (u, p) = info.split_once(':').map_or((info, None), |(u, p)| (u, Some(p)));
            out.user = Some(u.to_owned()).filter(|u| !u.is_empty());
            out.password = p.map(str::to_owned);
        }
        for pair in query.split('&').filter(|p| !p.is_empty()) {
            match pair.split_once('=') {
                Some(("user", v)) => out.user = Some(v.to_owned()),
                Some(("password", v)) => out.password = Some(v.to_owned()),
                _ => {}
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jdbc_and_libpq_urls_parse() {
        let u = ConnectUrl::parse("jdbc:postgresql://127.0.0.1:5433/shop?user=a").unwrap();
        assert_eq!((u.host.as_str(), u.port), ("127.0.0.1", 5433));
        assert_eq!((u.database.as_deref(), u.user.as_deref()), (Some("shop"), Some("a")));
        let u = ConnectUrl::parse("postgres://bob:pw@db.local/x").unwrap();
        assert_eq!((u.host.as_str(), u.port), ("db.local", 5432));
        assert_eq!((u.user.as_deref(), u.password.as_deref()), (Some("bob"), Some("pw")));
        let u = ConnectUrl::parse("jdbc:postgresql://[::1]:6000/d").unwrap();
        assert_eq!((u.host.as_str(), u.port), ("::1", 6000));
        assert!(ConnectUrl::parse("jdbc:mysql://h/d").is_err());
        assert!(ConnectUrl::parse("jdbc:postgresql://h:x/d").is_err());
    }
}
