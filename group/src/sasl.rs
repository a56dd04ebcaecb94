//! The messages of one SASL login, without I/O: what the client sends next, given what
//! the broker answered last.
//!
//! PLAIN is one message (RFC 4616: no authorization id, the user name and the password,
//! NUL-separated). SCRAM-SHA-256/512 (RFC 5802, 7677) run through rsasl, which computes
//! the proofs and checks the server's signature in its final message, so a broker that
//! does not know the password cannot pass for one that does. Sending the messages
//! (SaslHandshake, SaslAuthenticate) and reading the broker's error codes is
//! `connection`'s job. No error of this module quotes the password.

use std::sync::Arc;

use rsasl::prelude::{Mechname, MessageSent, SASLClient, SASLConfig, Session, State};

use crate::security::{Sasl, SaslMechanism};

/// What to do next in the exchange.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Step {
    /// Send these bytes (in one SaslAuthenticate) and feed the answer to the next step.
    Send(Vec<u8>),
    /// The login is complete on the client's side.
    Done,
}

/// One login in progress.
pub(crate) struct Exchange {
    mechanism: Mechanism,
    /// The last message has been sent: the next step is [`Step::Done`].
    finished: bool,
}

enum Mechanism {
    /// PLAIN's one message, until it is sent.
    Plain(Vec<u8>),
    /// A SCRAM session.
    Scram(Box<Session>),
}

impl std::fmt::Debug for Exchange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Exchange").field("finished", &self.finished).finish_non_exhaustive()
    }
}

impl Exchange {
    /// Starts a login with `sasl`'s mechanism and credentials.
    pub(crate) fn start(sasl: &Sasl) -> Result<Self, String> {
        let mechanism = match sasl.mechanism {
            SaslMechanism::Plain => Mechanism::Plain(plain_message(sasl)),
            SaslMechanism::ScramSha256 | SaslMechanism::ScramSha512 => {
                let config: Arc<SASLConfig> = SASLConfig::with_credentials(
                    None,
                    sasl.username.clone(),
                    sasl.password.clone(),
                )
                .map_err(|e| format!("cannot set up {}: {e}", sasl.mechanism))?;
                let name = Mechname::parse(sasl.mechanism.name().as_bytes())
                    .map_err(|e| format!("{}: {e}", sasl.mechanism))?;
                let session = SASLClient::new(config)
                    .start_suggested(&[name])
                    .map_err(|e| format!("cannot start {}: {e}", sasl.mechanism))?;
                Mechanism::Scram(Box::new(session))
            }
        };
        Ok(Self { mechanism, finished: false })
    }

    /// The next step, given the broker's last message (`None` before the first). An error
    /// means the broker's message is wrong (a bad server signature, say): the login failed.
    pub(crate) fn step(&mut self, received: Option<&[u8]>) -> Result<Step, String> {
        if self.finished {
            return Ok(Step::Done);
        }
        match &mut self.mechanism {
            Mechanism::Plain(message) => {
                self.finished = true;
                Ok(Step::Send(std::mem::take(message)))
            }
            Mechanism::Scram(session) => {
                let mut out = Vec::new();
                let state = session.step(received, &mut out).map_err(|e| e.to_string())?;
                match state {
                    State::Running => Ok(Step::Send(out)),
                    State::Finished(MessageSent::Yes) => {
                        self.finished = true;
                        Ok(Step::Send(out))
                    }
                    State::Finished(MessageSent::No) => {
                        self.finished = true;
                        Ok(Step::Done)
                    }
                }
            }
        }
    }
}

/// PLAIN's message: `\0user\0password`.
fn plain_message(sasl: &Sasl) -> Vec<u8> {
    let mut message = Vec::with_capacity(sasl.username.len() + sasl.password.len() + 2);
    message.push(0);
    message.extend_from_slice(sasl.username.as_bytes());
    message.push(0);
    message.extend_from_slice(sasl.password.as_bytes());
    message
}

#[cfg(test)]
mod tests {
    use super::*;

    fn login(mechanism: SaslMechanism) -> Sasl {
        Sasl { mechanism, username: "connect".to_owned(), password: "connect-secret".to_owned() }
    }

    #[test]
    fn plain_is_one_message_of_user_and_password() {
        let mut exchange = Exchange::start(&login(SaslMechanism::Plain)).unwrap();
        assert_eq!(exchange.step(None).unwrap(), Step::Send(b"\0connect\0connect-secret".to_vec()));
        assert_eq!(exchange.step(Some(b"")).unwrap(), Step::Done);
    }

    /// The client's first SCRAM message: no channel binding, the user, a fresh nonce.
    fn client_first(mechanism: SaslMechanism) -> (Exchange, String) {
        let mut exchange = Exchange::start(&login(mechanism)).unwrap();
        let Step::Send(first) = exchange.step(None).unwrap() else { panic!("nothing to send") };
        let first = String::from_utf8(first).unwrap();
        assert!(first.starts_with("n,,n=connect,r="), "{first}");
        (exchange, first)
    }

    #[test]
    fn scram_starts_without_channel_binding_for_both_hashes() {
        let (_, a) = client_first(SaslMechanism::ScramSha256);
        let (_, b) = client_first(SaslMechanism::ScramSha512);
        assert_ne!(a, b, "the nonce is fresh each time");
        assert!(!a.contains("connect-secret"));
    }

    #[test]
    fn scram_refuses_a_server_nonce_that_does_not_extend_the_clients() {
        let (mut exchange, _) = client_first(SaslMechanism::ScramSha256);
        let server_first = b"r=someone-elses-nonce,s=c2FsdA==,i=4096";
        assert!(exchange.step(Some(server_first)).is_err());
    }

    #[test]
    fn scram_refuses_a_wrong_server_signature() {
        let (mut exchange, first) = client_first(SaslMechanism::ScramSha256);
        let nonce = first.rsplit_once("r=").unwrap().1;
        let server_first = format!("r={nonce}server,s=c2FsdA==,i=4096");
        let Step::Send(client_final) = exchange.step(Some(server_first.as_bytes())).unwrap() else {
            panic!("no final message")
        };
        let client_final = String::from_utf8(client_final).unwrap();
        assert!(client_final.contains(",p="), "{client_final}");
        let forged = b"v=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=";
        let error = exchange.step(Some(forged)).unwrap_err();
        assert!(!error.contains("connect-secret"), "{error}");
    }
}
