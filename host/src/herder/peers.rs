//! The herder's traffic with the other workers of a group: the session key (KIP-507),
//! which the leader writes to the config topic and every worker hands to the key ring
//! ([`KeyRing`](crate::cluster::KeyRing)) REST verifies against; and task configs a
//! follower's connector generated, which only the leader may write, sent to it over REST
//! off the herder loop. The answer comes back to the loop as an [`Internal`] message, which
//! the actor dispatches to the reconfiguration retry chain. Only traffic with other
//! workers: what reaches them is [`Peers`](super::Peers), in `member_spec`.

use std::time::Duration;

use tokio::time::Instant;

use super::actor::{Herder, Internal};
use super::writes::{Then, Write};
use crate::cluster::now_ms;
use crate::model::Properties;
use crate::store::ConfigRecord;

/// How long the leader waits for a session-key write before it may try again.
const KEY_WRITE_WAIT: Duration = Duration::from_secs(60);

/// How long the leader waits before it writes a session key again after a failed write.
const KEY_RETRY: Duration = Duration::from_secs(1);

/// Kafka Connect's error when no leader URL is known.
const NO_LEADER_URL: &str = "Request to leader to reconfigure connector tasks failed because the URL of the leader's REST interface is empty!";

impl Herder {
    /// Hands the config topic's session key to the key ring, once per change.
    pub(super) fn share_session_key(&mut self) {
        let Some(peers) = &self.peers else { return };
        let key = self.config.session_key().cloned();
        if key.is_some() && peers.keyring.set(key) {
            tracing::info!("Read a new session key from the config topic");
        }
    }

    /// Leader only: writes a new session key when there is none, it has expired, or it was
    /// made with other settings. The write goes through the pipeline; no other is made
    /// while it is under way.
    pub(super) fn rotate_session_key(&mut self) {
        let Some(peers) = &self.peers else { return };
        if !self.member.is_leader() || self.key_retry_at.is_some_and(|t| t > Instant::now()) {
            return;
        }
        let now = now_ms();
        if !peers.keys.needs_new_key(self.config.session_key(), now) {
            return;
        }
        let key = match peers.keys.generate(now) {
            Ok(k) => k,
            Err(e) => {
                tracing::error!(error = %e, "Could not generate a session key");
                return;
            }
        };
        self.key_retry_at = Some(Instant::now() + KEY_WRITE_WAIT);
        self.write(Write {
            records: vec![ConfigRecord::SessionKey(key)],
            context: "Error writing a session key to the config topic".into(),
            then: Then::SessionKey,
        });
    }

    /// The session key written by [`Herder::rotate_session_key`] is durable and read back,
    /// or the write failed.
    pub(super) fn session_key_written(&mut self, result: Result<(), super::HerderError>) {
        match result {
            Ok(()) => {
                tracing::info!("Wrote a new session key to the config topic");
                self.key_retry_at = None;
                self.share_session_key();
            }
            Err(e) => {
                tracing::warn!(error = %e, "Could not write a session key; retrying in a second");
                self.key_retry_at = Some(Instant::now() + KEY_RETRY);
            }
        }
    }

    /// Leader only: when the session key must be written: at once without one, else when
    /// the current one expires; never before a failed write's retry time.
    pub(super) fn next_key_rotation(&self) -> Option<Instant> {
        let peers = self.peers.as_ref()?;
        if !self.member.is_leader() {
            return None;
        }
        let left = self
            .config
            .session_key()
            .map_or(0, |key| key.expires_at(peers.keys.ttl).saturating_sub(now_ms()).max(0));
        let due = Instant::now() + Duration::from_millis(left as u64);
        Some(self.key_retry_at.map_or(due, |retry| retry.max(due)))
    }

    /// A follower's connector generated new task configs: sends them to the leader, off
    /// the loop.
    pub(super) fn submit_to_leader(&mut self, name: &str, configs: Vec<Properties>) {
        let (Some(peers), Some(url)) = (self.peers.clone(), self.member.leader_url()) else {
            return self.reconfiguration_failed(name, NO_LEADER_URL);
        };
        let url = url.to_owned();
        let tx = self.internal_tx.clone();
        let connector = name.to_owned();
        tracing::debug!(connector = %name, leader = %url, tasks = configs.len(), "Sending task configs to the leader");
        tokio::spawn(async move {
            let key = peers.keyring.current();
            let result = peers
                .client
                .submit_task_configs(&url, &connector, &configs, key.as_ref())
                .await
                .map_err(|e| {
                    format!("Request to leader to reconfigure connector tasks failed: {e}")
                });
            let _ = tx.send(Internal::TaskConfigsSubmitted { connector, result });
        });
    }
}
