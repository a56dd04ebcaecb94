//! [`BackendContext`]: the librdkafka callbacks of the backend's clients. It records an
//! authentication or TLS failure (a wrong password, an untrusted certificate) reported by
//! any client, so that a waiting request ends at once with one clear error
//! ([`StoreError::Authentication`]) instead of retrying until its timeout. Its log lines and
//! errors go to `telemetry::client_log`, which logs each repeated message once per change
//! of state.
//!
//! It owns that record; it never retries or reconnects.

use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rdkafka::client::ClientContext;
use rdkafka::config::RDKafkaLogLevel;
use rdkafka::consumer::ConsumerContext;
use rdkafka::error::KafkaError;
use rdkafka::types::RDKafkaErrorCode;
use tokio::sync::watch;

use crate::store::StoreError;
use crate::telemetry::client_log::{self, Level};

/// How long a recorded failure ends new requests at once. librdkafka reports an identical
/// error of the same broker at most every 30 s, so a request started within that time after
/// a failure would not hear of it again; a little more than that.
const FAILURE_WINDOW: Duration = Duration::from_secs(35);

/// The callbacks shared by the backend's clients. Clones share the record.
#[derive(Clone)]
pub(super) struct BackendContext {
    shared: Arc<Shared>,
}

struct Shared {
    /// The last authentication or TLS failure not yet followed by a success, and when.
    failure: watch::Sender<Option<(Instant, String)>>,
}

impl BackendContext {
    pub(super) fn new() -> Self {
        Self { shared: Arc::new(Shared { failure: watch::Sender::new(None) }) }
    }

    /// Runs `request`; ends it early when a client reports an authentication or TLS
    /// failure meanwhile, or reported one within [`FAILURE_WINDOW`] and no request has
    /// succeeded since. A success clears the record.
    pub(super) async fn guard<T>(
        &self,
        request: impl Future<Output = Result<T, StoreError>>,
    ) -> Result<T, StoreError> {
        let mut failure = self.shared.failure.subscribe();
        if let Some((at, reason)) = failure.borrow_and_update().clone()
            && at.elapsed() < FAILURE_WINDOW
        {
            return Err(StoreError::Authentication(reason));
        }
        let failed = async {
            match failure.changed().await {
                Ok(()) => failure.borrow().clone().map(|(_, reason)| reason),
                Err(_) => std::future::pending().await,
            }
        };
        let result = tokio::select! {
            result = request => result,
            Some(reason) = failed => return Err(StoreError::Authentication(reason)),
        };
        if result.is_ok() {
            self.shared.failure.send_if_modified(|f| f.take().is_some());
        }
        result
    }

    /// Records `reason` when `error` is an authentication or TLS failure; says whether it
    /// was one.
    fn record(&self, error: &KafkaError, reason: &str) -> bool {
        let code = error.rdkafka_error_code();
        let fatal = matches!(
            code,
            Some(
                RDKafkaErrorCode::Authentication
                    | RDKafkaErrorCode::SSL
                    | RDKafkaErrorCode::SaslAuthenticationFailed
            )
        );
        if fatal {
            self.shared.failure.send_replace(Some((Instant::now(), reason.to_owned())));
        }
        fatal
    }

    /// Whether an authentication or TLS failure is on record: the brokers then look down
    /// because they refused this client, which the failure itself says.
    fn failing(&self) -> bool {
        self.shared.failure.borrow().as_ref().is_some_and(|(at, _)| at.elapsed() < FAILURE_WINDOW)
    }
}

impl ClientContext for BackendContext {
    fn log(&self, level: RDKafkaLogLevel, fac: &str, log_message: &str) {
        client_log::log(level, fac, log_message);
    }

    /// An authentication or TLS failure ends the waiting request, whose error is the one
    /// line that reports it (and so is only logged for debugging here), as is the "all
    /// brokers are down" that follows it.
    fn error(&self, error: KafkaError, reason: &str) {
        let fatal = self.record(&error, reason);
        let follows =
            error.rdkafka_error_code() == Some(RDKafkaErrorCode::AllBrokersDown) && self.failing();
        let level = if fatal || follows { Level::Debug } else { Level::Error };
        client_log::error(level, &error, reason);
    }
}

impl ConsumerContext for BackendContext {}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn an_authentication_failure_ends_the_waiting_request() {
        let context = BackendContext::new();
        let waiting = {
            let context = context.clone();
            tokio::spawn(async move {
                context
                    .guard(async {
                        tokio::time::sleep(Duration::from_secs(3600)).await;
                        Ok(())
                    })
                    .await
            })
        };
        tokio::task::yield_now().await;
        context
            .error(KafkaError::ClientCreation("x".into()), "ignored: not an authentication error");
        let auth = KafkaError::Global(RDKafkaErrorCode::Authentication);
        context.error(auth, "SASL authentication error: invalid credentials");
        let got = waiting.await.unwrap().unwrap_err();
        assert_eq!(
            got.to_string(),
            "Authentication failed against the Kafka cluster: SASL authentication error: \
             invalid credentials"
        );
        // Recorded until a request succeeds.
        assert!(context.guard(async { Ok(()) }).await.is_err());
    }

    #[tokio::test]
    async fn an_old_failure_lets_requests_run_and_a_success_clears_it() {
        let context = BackendContext::new();
        context.error(KafkaError::Global(RDKafkaErrorCode::SSL), "certificate verify failed");
        let e = context.guard(async { Ok(()) }).await.unwrap_err();
        assert!(e.to_string().ends_with("certificate verify failed"), "{e}");
        let old = Instant::now().checked_sub(FAILURE_WINDOW * 2).unwrap();
        context.shared.failure.send_replace(Some((old, "old".into())));
        assert!(context.guard(async { Ok(1) }).await.is_ok());
        assert!(context.shared.failure.borrow().is_none(), "a success clears the record");
    }
}
