//! Telemetry of the Schema Registry converters: one event, [`RegistryLookup`], emitted by a
//! task after each lookup its converter ran (never per record), recording the registry
//! requests the lookup sent and the subjects the converter uses.
//!
//! | metric | labels | what |
//! |---|---|---|
//! | `wasm_connect_schema_registry_requests_total` | `connector`, `task`, `side` (`key`, `value`) | HTTP requests sent to the registry (every attempt, failed ones too) |
//! | `wasm_connect_schema_registry_subject` | `connector`, `task`, `side`, `converter` (e.g. `AvroConverter`), `subject` | `1` for each subject the converter has used |
//!
//! A connector's tasks share its converters: a subject another task of the connector added
//! shows under every task that looked something up since. The subjects are the
//! converter's bounded list (`schemas.cache.config`); a subject never goes back to `0`.

/// Metric: HTTP requests sent to a Schema Registry.
pub const REGISTRY_REQUESTS: &str = "wasm_connect_schema_registry_requests_total";
/// Metric: a subject a Schema Registry converter uses (always `1`).
pub const REGISTRY_SUBJECT: &str = "wasm_connect_schema_registry_subject";

/// A task's converter asked its registry about a schema.
pub struct RegistryLookup<'a> {
    /// Connector.
    pub connector: &'a str,
    /// Task.
    pub task: u32,
    /// `key` or `value`.
    pub side: &'static str,
    /// The converter's simple class name.
    pub converter: &'static str,
    /// Requests the lookup sent.
    pub requests: u64,
    /// The subjects the converter has used, this lookup's included.
    pub subjects: &'a [String],
}

impl RegistryLookup<'_> {
    /// Counts the requests and marks the subjects.
    pub fn emit(&self) {
        let connector = self.connector.to_owned();
        let task = self.task.to_string();
        metrics::counter!(
            REGISTRY_REQUESTS,
            "connector" => connector.clone(),
            "task" => task.clone(),
            "side" => self.side
        )
        .increment(self.requests);
        for subject in self.subjects {
            metrics::gauge!(
                REGISTRY_SUBJECT,
                "connector" => connector.clone(),
                "task" => task.clone(),
                "side" => self.side,
                "converter" => self.converter,
                "subject" => subject.clone()
            )
            .set(1.0);
        }
    }
}

#[cfg(test)]
mod tests {
    use metrics_exporter_prometheus::PrometheusBuilder;

    use super::*;

    #[test]
    fn lookups_show_in_the_prometheus_text() {
        let recorder = PrometheusBuilder::new().build_recorder();
        let handle = recorder.handle();
        let subjects = ["orders-value".to_owned(), "Order \"v2\"".to_owned()];
        metrics::with_local_recorder(&recorder, || {
            let lookup = |requests, subjects| RegistryLookup {
                connector: "c",
                task: 1,
                side: "value",
                converter: "AvroConverter",
                requests,
                subjects,
            };
            lookup(2, &subjects[..1]).emit();
            lookup(3, &subjects[..]).emit();
        });
        let text = handle.render();
        let has = |line: &str| text.lines().any(|l| l == line);
        assert!(
            has(
                r#"wasm_connect_schema_registry_requests_total{connector="c",task="1",side="value"} 5"#
            ),
            "{text}"
        );
        assert!(
            has(
                r#"wasm_connect_schema_registry_subject{connector="c",task="1",side="value",converter="AvroConverter",subject="orders-value"} 1"#
            ),
            "{text}"
        );
        // Label values are escaped as the exposition format says (`\"` for a quote).
        assert!(
            has(
                r#"wasm_connect_schema_registry_subject{connector="c",task="1",side="value",converter="AvroConverter",subject="Order \"v2\""} 1"#
            ),
            "{text}"
        );
    }
}
