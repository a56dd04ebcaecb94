//! [`converted`]: a conversion that may wait for a Schema Registry converter's registry.
//!
//! A registry converter returns [`ConvertError::Unresolved`] for a schema it has not seen;
//! this runs the lookup ([`Converter::resolve`]) and the conversion again. An unreachable
//! registry is retried within a positive `errors.retry.timeout` (KIP-298's bound for
//! retriable errors; with `0` or `-1` the converter's own `max.retries` is all), then the
//! error is the record's, for the task loop to report as a converter failure. Other
//! converters never wait here: their conversions return at once.
//!
//! After each lookup (never per record) it emits the task's registry metrics
//! ([`RegistryLookup`]: the requests the lookup sent, the subjects the converter uses).

use super::convert::{ConvertError, Converter, Side};
use super::errors::{ErrorPolicy, Retries};
use crate::telemetry::registry::RegistryLookup;

/// Lookups one conversion may need (a registry converter needs one).
const LOOKUPS: usize = 3;

/// Whose conversions these are, and how long an unreachable registry is waited for.
#[derive(Clone, Copy)]
pub(super) struct Lookups<'a> {
    /// The connector, for metrics.
    pub connector: &'a str,
    /// The task, for metrics.
    pub task: u32,
    /// Bounds the retries of an unreachable registry.
    pub policy: &'a ErrorPolicy,
}

/// Runs `convert` with the lookups `converter` (of `side`) asks for done first.
pub(super) async fn converted<T>(
    converter: &dyn Converter,
    side: Side,
    lookups: &Lookups<'_>,
    mut convert: impl FnMut() -> Result<T, ConvertError>,
) -> Result<T, ConvertError> {
    let mut retries = Retries::default();
    let mut done = 0;
    loop {
        let unresolved = match convert() {
            Err(ConvertError::Unresolved(u)) if done < LOOKUPS => u,
            other => return other,
        };
        let lookup = converter.resolve(&unresolved).await;
        RegistryLookup {
            connector: lookups.connector,
            task: lookups.task,
            side: side.label(),
            converter: converter.name(),
            requests: lookup.requests,
            subjects: &converter.subjects(),
        }
        .emit();
        match lookup.result {
            Ok(()) => done += 1,
            Err(e) if e.is_retriable() && lookups.policy.retry_timeout.is_some() => {
                match retries.failed(lookups.policy) {
                    Some(delay) => tokio::time::sleep(delay).await,
                    None => return Err(e),
                }
            }
            Err(e) => return Err(e),
        }
    }
}

#[cfg(test)]
#[path = "schema_lookup_tests.rs"]
mod tests;
