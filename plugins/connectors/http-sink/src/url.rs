//! [`Url`]: the parts of `http.api.url` (and of a redirect's `Location`) a request needs:
//! scheme, authority and path with query. User info is dropped: credentials go in
//! `connection.user` and `connection.password`.

/// An `http` or `https` URL, split.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Url {
    /// Whether the scheme is `https`.
    pub https: bool,
    /// `host[:port]`, without user info.
    pub authority: String,
    /// The path and query, `/` at least.
    pub path: String,
}

impl Url {
    /// Parses an absolute `http://` or `https://` URL.
    pub fn parse(text: &str) -> Result<Url, String> {
        let text = text.trim();
        let (scheme, rest) =
            text.split_once("://").ok_or_else(|| format!("{text:?} is not an http(s) URL"))?;
        let https = match scheme.to_ascii_lowercase().as_str() {
            "https" => true,
            "http" => false,
            other => return Err(format!("the scheme {other:?} is not http or https")),
        };
        let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
        let authority = &rest[..end];
        let authority = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
        if authority.is_empty() {
            return Err("the URL names no host".into());
        }
        let path = rest[end..].split('#').next().unwrap_or_default();
        let path = if path.starts_with('/') { path.to_owned() } else { format!("/{path}") };
        Ok(Url { https, authority: authority.to_owned(), path })
    }

    /// The URL a `Location` header names, relative to this one.
    pub fn join(&self, location: &str) -> Result<Url, String> {
        if location.contains("://") {
            return Url::parse(location);
        }
        if location.starts_with('/') {
            return Ok(Url { path: location.to_owned(), ..self.clone() });
        }
        let dir = self.path.rsplit_once('/').map_or("", |(d, _)| d);
        Ok(Url { path: format!("{dir}/{location}"), ..self.clone() })
    }
}

impl std::fmt::Display for Url {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let scheme = if self.https { "https" } else { "http" };
        write!(f, "{scheme}://{}{}", self.authority, self.path)
    }
}

#[cfg(test)]
mod tests {
    use super::Url;

    #[test]
    fn urls_split_and_join() {
        let u = Url::parse("https://user:pw@api.example.com:8443/v1/events?x=1#frag").unwrap();
        assert!(u.https);
        assert_eq!(u.authority, "api.example.com:8443");
        assert_eq!(u.path, "/v1/events?x=1");
        assert_eq!(Url::parse("http://h").unwrap().path, "/");
        assert_eq!(u.join("/other").unwrap().to_string(), "https://api.example.com:8443/other");
        assert_eq!(u.join("next").unwrap().path, "/v1/next");
        assert_eq!(u.join("http://b:1/").unwrap().authority, "b:1");
        for bad in ["ftp://h/", "http:///x", "nothing"] {
            assert!(Url::parse(bad).is_err(), "{bad}");
        }
    }
}
