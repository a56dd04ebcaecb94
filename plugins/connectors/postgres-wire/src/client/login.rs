//! The startup of a [`Client`]: the startup message with its parameters, the password
//! exchange the server asks for (SCRAM-SHA-256, md5 or cleartext) and the server's
//! `ParameterStatus` values, up to the first `ReadyForQuery`. Nothing after login.

use fallible_iterator::FallibleIterator;
use postgres_protocol::authentication::md5_hash;
use postgres_protocol::authentication::sasl::{ChannelBinding, SCRAM_SHA_256, ScramSha256};
use postgres_protocol::message::backend::Message;
use postgres_protocol::message::frontend;

use super::{Client, protocol, server_error};
use crate::{ConnectUrl, PgError};

impl Client {
    pub(super) fn startup(
        &mut self,
        url: &ConnectUrl,
        user: &str,
        password: &str,
        extra: &[(&str, &str)],
    ) -> Result<(), PgError> {
        let database = url.database.as_deref().unwrap_or(user);
        let params = [
            ("user", user),
            ("database", database),
            ("client_encoding", "UTF8"),
            ("DateStyle", "ISO"),
            ("TimeZone", "UTC"),
            ("application_name", "wasm-connect"),
        ];
        frontend::startup_message(
            params.into_iter().chain(extra.iter().copied()),
            &mut self.write,
        )?;
        self.flush()?;
        let mut scram = None;
        loop {
            match self.next()? {
                Message::AuthenticationOk => {}
                Message::AuthenticationCleartextPassword => {
                    frontend::password_message(password.as_bytes(), &mut self.write)?;
                    self.flush()?;
                }
                Message::AuthenticationMd5Password(body) => {
                    let hash = md5_hash(user.as_bytes(), password.as_bytes(), body.salt());
                    frontend::password_message(hash.as_bytes(), &mut self.write)?;
                    self.flush()?;
                }
                Message::AuthenticationSasl(body) => {
                    let mut mechanisms = body.mechanisms();
                    let mut found = false;
                    while let Some(m) = mechanisms.next()? {
                        found |= m == SCRAM_SHA_256;
                    }
                    if !found {
                        return Err(protocol("the server offers no SASL mechanism we speak"));
                    }
                    let s = ScramSha256::new(password.as_bytes(), ChannelBinding::unsupported());
                    frontend::sasl_initial_response(SCRAM_SHA_256, s.message(), &mut self.write)?;
                    self.flush()?;
                    scram = Some(s);
                }
                Message::AuthenticationSaslContinue(body) => {
                    let s = scram.as_mut().ok_or_else(|| protocol("unexpected SASL continue"))?;
                    s.update(body.data()).map_err(protocol)?;
                    frontend::sasl_response(s.message(), &mut self.write)?;
                    self.flush()?;
                }
                Message::AuthenticationSaslFinal(body) => {
                    let s = scram.as_mut().ok_or_else(|| protocol("unexpected SASL final"))?;
                    s.finish(body.data()).map_err(protocol)?;
                }
                Message::ErrorResponse(body) => return Err(server_error(&body)),
                Message::ReadyForQuery(_) => return Ok(()),
                Message::ParameterStatus(body) => {
                    self.parameters.push((body.name()?.to_owned(), body.value()?.to_owned()));
                }
                Message::BackendKeyData(_) | Message::NoticeResponse(_) => {}
                _ => return Err(protocol("unexpected message during startup")),
            }
        }
    }
}
