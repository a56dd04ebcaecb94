//! [`Session`]: a login (URL, user, password) and the connection it opened, opened again
//! once that connection broke or was closed.
//!
//! Both plugins hold one per instance; a change data capture task also opens its
//! replication connection with the same login ([`Session::replication`]). The login falls back to the URL's own user and
//! password (`postgres://user:secret@host/db`, `?user=`) when the config gives none. It
//! decides nothing about retries or back-off: a failed connect is returned to the caller.

use crate::{Client, ConnectUrl, PgError, Replication};

/// A login and its connection, if open.
pub struct Session {
    url: ConnectUrl,
    user: String,
    password: String,
    client: Option<Client>,
}

impl Session {
    /// A session for `url` as `user` with `password`, each falling back to the URL's own.
    /// Opens nothing yet.
    pub fn new(url: ConnectUrl, user: Option<&str>, password: Option<&str>) -> Self {
        let user = user.map(str::to_owned).or_else(|| url.user.clone()).unwrap_or_default();
        let password =
            password.map(str::to_owned).or_else(|| url.password.clone()).unwrap_or_default();
        Self { url, user, password, client: None }
    }

    /// Where it connects.
    pub fn url(&self) -> &ConnectUrl {
        &self.url
    }

    /// The open connection, and whether it was opened by this call (none was open, or the
    /// last one broke), so a caller can drop what it cached about the old one.
    pub fn client(&mut self) -> Result<(&mut Client, bool), PgError> {
        if self.client.as_ref().is_some_and(Client::is_broken) {
            self.client = None;
        }
        let opened = self.client.is_none();
        if opened {
            self.client = Some(Client::connect(&self.url, &self.user, &self.password)?);
        }
        Ok((self.client.as_mut().expect("opened above"), opened))
    }

    /// A new logical replication connection with this login (not kept by the session).
    pub fn replication(&self) -> Result<Replication, PgError> {
        Replication::connect(&self.url, &self.user, &self.password)
    }

    /// Closes the connection, if open; the next [`Session::client`] opens a new one.
    pub fn close(&mut self) {
        if let Some(c) = self.client.take() {
            c.close();
        }
    }
}
