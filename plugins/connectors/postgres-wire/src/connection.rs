//! The connection keys both PostgreSQL plugins declare, under Confluent's JDBC names
//! (`connection.url`, `connection.user`, `connection.password`): their definitions with
//! the `connect` grant on the URL, validate's check of the URL, and [`Connection`], their
//! parsed form, which opens a [`Session`].
//!
//! These are the only config keys this crate owns; each plugin defines the rest of its
//! keys itself.

use wasm_connect_sdk::{
    Config, ConfigDef, ConfigKey, ConfigProblem, Grant, Importance, NonEmptyString, Result,
};

use crate::session::Session;
use crate::url::ConnectUrl;

pub const CONNECTION_URL: &str = "connection.url";
pub const CONNECTION_USER: &str = "connection.user";
pub const CONNECTION_PASSWORD: &str = "connection.password";

/// `def` with the three connection keys defined.
pub fn define(def: ConfigDef) -> ConfigDef {
    def.define(
        ConfigKey::string(CONNECTION_URL)
            .required()
            .ensure(NonEmptyString)
            .importance(Importance::High)
            .grant(Grant::Connect)
            .doc(
                "JDBC URL of the database: jdbc:postgresql://host:port/database (or \
                 postgres://host:port/database). The sandbox may open TCP connections to \
                 this host and port (5432 if none) and nowhere else. Plain TCP: sslmode \
                 is not supported yet.",
            ),
    )
    .define(ConfigKey::string(CONNECTION_USER).importance(Importance::High).doc("The login."))
    .define(
        ConfigKey::password(CONNECTION_PASSWORD)
            .importance(Importance::High)
            .doc("The password; SCRAM-SHA-256 or md5, as the server asks."),
    )
}

/// Validate's problem with `connection.url`, when it is set and not a URL this crate reads.
pub fn url_problem(config: &Config) -> Option<ConfigProblem> {
    let url = config.get(CONNECTION_URL)?;
    ConnectUrl::parse(url).err().map(|e| ConfigProblem::new(CONNECTION_URL, e))
}

/// The parsed connection keys.
#[derive(Clone, Debug)]
pub struct Connection {
    /// `connection.url`, trimmed.
    pub url: String,
    /// `connection.user`; `None` when unset or empty.
    pub user: Option<String>,
    /// `connection.password`; `None` when unset or empty.
    pub password: Option<String>,
}

impl Connection {
    /// The connection keys of `config`; `connection.url` is required.
    pub fn parse(config: &Config) -> Result<Self> {
        Ok(Self {
            url: config.require(CONNECTION_URL)?.trim().to_owned(),
            user: config.get(CONNECTION_USER).map(str::to_owned).filter(|u| !u.is_empty()),
            password: config.get(CONNECTION_PASSWORD).map(str::to_owned).filter(|p| !p.is_empty()),
        })
    }

    /// A session with this login to the database of `url` (not opened yet); the URL's
    /// problem when it is not one this crate reads.
    pub fn session(&self) -> std::result::Result<Session, String> {
        let url = ConnectUrl::parse(&self.url)?;
        Ok(Session::new(url, self.user.as_deref(), self.password.as_deref()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_keys_parse_and_empty_logins_are_none() {
        let config = Config::new()
            .with(CONNECTION_URL, " jdbc:postgresql://db:5433/shop ")
            .with(CONNECTION_USER, "")
            .with(CONNECTION_PASSWORD, "secret");
        let c = Connection::parse(&config).unwrap();
        assert_eq!(c.url, "jdbc:postgresql://db:5433/shop");
        assert_eq!((c.user, c.password.as_deref()), (None, Some("secret")));
        let session = Connection::parse(&config).unwrap().session().unwrap();
        assert_eq!((session.url().host.as_str(), session.url().port), ("db", 5433));
        assert!(Connection::parse(&Config::new()).is_err());
    }

    #[test]
    fn validate_names_a_bad_url_on_its_key() {
        assert!(url_problem(&Config::new()).is_none());
        let bad = Config::new().with(CONNECTION_URL, "mysql://db/x");
        assert_eq!(url_problem(&bad).map(|p| p.key), Some(CONNECTION_URL.to_owned()));
        let def = define(ConfigDef::new());
        let names: Vec<&str> = def.keys().iter().map(|k| k.name.as_str()).collect();
        assert_eq!(names, [CONNECTION_URL, CONNECTION_USER, CONNECTION_PASSWORD]);
    }
}
