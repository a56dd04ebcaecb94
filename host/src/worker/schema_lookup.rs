//! [`converted`]: a conversion that may wait for a Schema Registry converter's registry.
//!
//! A registry converter returns [`ConvertError::Unresolved`] for a schema it has not seen;
//! this runs the lookup ([`Converter::resolve`]) and the conversion again. An unreachable
//! registry is retried within a positive `errors.retry.timeout` (KIP-298's bound for
//! retriable errors; with `0` or `-1` the converter's own `max.retries` is all), then the
//! error is the record's, for the task loop to report as a converter failure. Other
//! converters never wait here: their conversions return at once.

use super::convert::{ConvertError, Converter};
use super::errors::{ErrorPolicy, Retries};

/// Lookups one conversion may need (a registry converter needs one).
const LOOKUPS: usize = 3;

/// Runs `convert` with `converter`'s lookups done first when it asks for them.
pub(super) async fn converted<T>(
    converter: &dyn Converter,
    policy: &ErrorPolicy,
    mut convert: impl FnMut() -> Result<T, ConvertError>,
) -> Result<T, ConvertError> {
    let mut retries = Retries::default();
    let mut lookups = 0;
    loop {
        let unresolved = match convert() {
            Err(ConvertError::Unresolved(u)) if lookups < LOOKUPS => u,
            other => return other,
        };
        match converter.resolve(&unresolved).await {
            Ok(()) => lookups += 1,
            Err(e) if e.is_retriable() && policy.retry_timeout.is_some() => {
                match retries.failed(policy) {
                    Some(delay) => tokio::time::sleep(delay).await,
                    None => return Err(e),
                }
            }
            Err(e) => return Err(e),
        }
    }
}
