//! The typed handle of a transform instance: the calls of the WIT `transformation`
//! interface, with record batches encoded on the caller's side and the answer decoded and
//! checked on the guest executor (at most one output per input, origins strictly
//! increasing and inside the batch).

use wasm_connect_batch::Record;

use super::error::InstanceError;
use super::instance::Instance;
use crate::model::{Config, ConfigDef, ConfigProblem, RecordFailure};

/// A running (or validation) transform instance.
pub struct TransformInstance(pub(crate) Instance);

/// What one `apply` came to.
#[derive(Debug)]
pub struct Transformed {
    /// The records that go on, in input order.
    pub records: Vec<Record>,
    /// For each of `records`, the index of the input record it came from.
    pub origins: Vec<u32>,
    /// Input records the transform could not handle.
    pub failures: Vec<RecordFailure>,
}

impl TransformInstance {
    /// The underlying instance.
    pub fn instance(&self) -> &Instance {
        &self.0
    }

    /// Name, version and config definition, as the plugin declares them.
    pub async fn describe(&self) -> Result<(String, String, ConfigDef), InstanceError> {
        self.0
            .call("describe", |live| {
                Box::pin(async move {
                    let name =
                        live.guest("name", |g, s| Box::pin(g.transform().call_name(s))).await?;
                    let version = live
                        .guest("version", |g, s| Box::pin(g.transform().call_version(s)))
                        .await?;
                    let keys = live
                        .guest("config-definition", |g, s| {
                            Box::pin(g.transform().call_config_definition(s))
                        })
                        .await?;
                    let def = ConfigDef { keys: keys.into_iter().map(Into::into).collect() };
                    Ok((name, version, def))
                })
            })
            .await
    }

    /// The plugin's own validation of `config`.
    pub async fn validate(&self, config: Config) -> Result<Vec<ConfigProblem>, InstanceError> {
        let problems = self
            .0
            .guest("validate", move |g, s| {
                Box::pin(async move { g.transform().call_validate(s, &config).await })
            })
            .await?;
        Ok(problems.into_iter().map(Into::into).collect())
    }

    /// Configures the instance.
    pub async fn configure(&self, config: Config) -> Result<(), InstanceError> {
        self.0
            .guest("configure", move |g, s| {
                Box::pin(async move { g.transform().call_configure(s, &config).await })
            })
            .await?
            .map_err(Into::into)
    }

    /// Transforms `records`.
    pub async fn apply(&self, records: &[Record]) -> Result<Transformed, InstanceError> {
        let batch = wasm_connect_batch::encode(records);
        let n = records.len();
        self.0
            .call("apply", move |live| {
                Box::pin(async move {
                    let out = live
                        .guest("apply", move |g, s| {
                            Box::pin(async move { g.transform().call_apply(s, &batch).await })
                        })
                        .await??;
                    let bad = |what: String| InstanceError::Oversized { call: "apply", what };
                    let limit = live.limits.max_batch_bytes;
                    if out.records.len() > limit {
                        return Err(bad(format!(
                            "a batch of {} bytes, over the limit of {limit}",
                            out.records.len()
                        )));
                    }
                    let records = wasm_connect_batch::decode(&out.records).map_err(|e| {
                        InstanceError::Malformed { call: "apply", reason: e.to_string() }
                    })?;
                    if records.len() != out.origins.len() {
                        return Err(InstanceError::Malformed {
                            call: "apply",
                            reason: format!(
                                "{} records but {} origins",
                                records.len(),
                                out.origins.len()
                            ),
                        });
                    }
                    let increasing = out.origins.windows(2).all(|w| w[0] < w[1]);
                    if !increasing || out.origins.last().is_some_and(|&o| o as usize >= n) {
                        return Err(bad(format!(
                            "origins that are not strictly increasing indices into the batch of {n}"
                        )));
                    }
                    if out.failures.iter().any(|f| f.index as usize >= n) {
                        return Err(bad(format!(
                            "a failure for a record index outside the batch of {n}"
                        )));
                    }
                    Ok(Transformed {
                        records,
                        origins: out.origins,
                        failures: out.failures.into_iter().map(Into::into).collect(),
                    })
                })
            })
            .await
    }

    /// Closes the transform and discards the instance.
    pub async fn close(self) -> Result<(), InstanceError> {
        self.0.guest("close", |g, s| Box::pin(g.transform().call_close(s))).await
    }
}
