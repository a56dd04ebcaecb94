//! The checks of a transform plugin (the `transform` world): its config is validated as a
//! connector's transform keys would be, and instances created exactly as a task's chain
//! creates them (`Plugin::transform` with the config's grants and `wasm.*` limits) are
//! configured and given records of every kind.
//!
//! The config under test is the transform's own keys (no `transforms.<alias>.` prefix);
//! the framework keys the subject adds (`name`, `connector.class`) are left out.

use std::sync::Arc;
use std::time::{Duration, Instant};

use wasm_connect_batch::{Header, Kind, Record};

use super::kit::{Kit, describe};
use super::offsets::MemoryOffsets;
use super::report::{Finding, one_line};
use super::validation::bad_configs;
use crate::model::Config;
use crate::runtime::{Identity, TransformInstance, Transformed};

/// Keys the subject adds for connectors, not a transform's.
const FRAMEWORK_KEYS: [&str; 3] = ["name", "connector.class", "tasks.max"];

/// The transform's own keys under test.
fn own_config(kit: &Kit) -> Config {
    kit.subject
        .config
        .iter()
        .filter(|(k, _)| !FRAMEWORK_KEYS.contains(&k.as_str()))
        .cloned()
        .collect()
}

/// Every problem the worker would report for `config`: the definition's, the sandbox's,
/// then the plugin's own `validate`.
async fn problems(kit: &Kit, config: &Config) -> Result<Vec<String>, String> {
    let mut out: Vec<String> = kit
        .def()
        .check(config)
        .into_iter()
        .chain(kit.plugin.sandbox_problems(config))
        .map(|p| format!("{}: {}", p.key, p.message))
        .collect();
    let validator =
        kit.plugin.transform_validator().await.map_err(|e| describe("validator", &e))?;
    let own = validator.validate(config.clone()).await.map_err(|e| describe("validate", &e))?;
    out.extend(own.into_iter().map(|p| format!("{}: {}", p.key, p.message)));
    Ok(out)
}

/// The config under test is accepted and every broken variant is rejected naming its key.
pub async fn validation_check(kit: &Kit) -> Finding {
    if let Err(why) = kit.subject.runnable() {
        return Finding::fail(format!("the config under test cannot validate: {why}"));
    }
    let good = own_config(kit);
    match problems(kit, &good).await {
        Ok(p) if p.is_empty() => {}
        Ok(p) => {
            return Finding::fail(format!("the config under test is rejected: {}", p.join("; ")));
        }
        Err(e) => return Finding::fail(e),
    }
    let bad = bad_configs(kit.def(), &good);
    let mut failures = Vec::new();
    for b in &bad {
        let config: Config = b.config.clone().into_iter().collect();
        match problems(kit, &config).await {
            Ok(p) if p.iter().any(|p| b.expect.iter().any(|k| p.contains(k.as_str()))) => {}
            Ok(p) if p.is_empty() => failures.push(format!("{}: accepted", b.what)),
            Ok(_) => {
                failures.push(format!("{}: no problem names {}", b.what, b.expect.join(" or ")))
            }
            Err(e) => failures.push(format!("{}: {}", b.what, one_line(&e))),
        }
    }
    if !failures.is_empty() {
        return Finding::fail(failures.join("; "));
    }
    Finding::pass(format!(
        "config under test is valid; {} broken configs rejected naming the key",
        bad.len()
    ))
}

/// A configured instance, as a task's chain makes it.
async fn configured(kit: &Kit) -> Result<TransformInstance, String> {
    kit.subject.runnable()?;
    let config = kit.plugin.resolve_paths(&own_config(kit))?;
    let host = Arc::new(MemoryOffsets::default());
    let instance = kit
        .plugin
        .transform(Identity::task(&kit.subject.name, 0), &config, host)
        .await
        .map_err(|e| describe("instantiate", &e))?;
    let full = kit.def().with_defaults(&config);
    instance.configure(full).await.map_err(|e| describe("configure", &e))?;
    Ok(instance)
}

/// One record of every kind, a tombstone and a record with headers.
pub fn sample_records() -> Vec<Record> {
    let record = |kind: Kind, value: Option<&str>| Record {
        topic: "conformance-test".into(),
        partition: Some(0),
        offset: Some(0),
        timestamp: Some(1_700_000_000_000),
        key_kind: Kind::String,
        key: Some(b"key".to_vec()),
        value_kind: kind,
        value: value.map(|v| v.as_bytes().to_vec()),
        headers: Vec::new(),
        source_partition: None,
        source_offset: None,
    };
    let mut with_headers = record(Kind::Json, Some(r#"{"id":2,"name":"b"}"#));
    with_headers.headers = vec![Header { key: "h".into(), value: Some(b"v".to_vec()) }];
    vec![
        record(Kind::Bytes, Some("raw bytes")),
        record(Kind::String, Some("a line of text")),
        record(Kind::Json, Some(r#"{"id":1,"name":"a","nested":{"x":[1,2]}}"#)),
        record(
            Kind::ConnectJson,
            Some(
                r#"{"schema":{"type":"struct","fields":[{"field":"id","type":"int32","optional":false}],"optional":false},"payload":{"id":3}}"#,
            ),
        ),
        record(Kind::Json, None),
        with_headers,
    ]
}

fn summary(out: &Transformed, took: Duration) -> String {
    let n = sample_records().len();
    format!(
        "{n} records in: {} kept, {} failed, {} dropped, in {} ms",
        out.records.len(),
        out.failures.len(),
        n - out.records.len() - out.failures.len(),
        took.as_millis()
    )
}

/// `configure` then `apply` on every kind of record stay within the sandbox.
pub async fn apply_check(kit: &Kit) -> Finding {
    let instance = match configured(kit).await {
        Ok(i) => i,
        Err(e) => return Finding::fail(e),
    };
    let started = Instant::now();
    match instance.apply(&sample_records()).await {
        Ok(out) => Finding::pass(summary(&out, started.elapsed())),
        Err(e) => Finding::fail(describe("apply", &e)),
    }
}

/// A fresh instance (what a task restart makes) configures and applies again after the
/// first one was closed; the detail says whether it answered the same.
pub async fn restart_check(kit: &Kit) -> Finding {
    let first = async {
        let i = configured(kit).await?;
        let out = i.apply(&sample_records()).await.map_err(|e| describe("apply", &e))?;
        i.close().await.map_err(|e| describe("close", &e))?;
        let second = configured(kit).await?;
        let again = second
            .apply(&sample_records())
            .await
            .map_err(|e| describe("apply after a restart", &e))?;
        Ok::<_, String>((out, again))
    };
    match first.await {
        Ok((a, b)) => {
            let same = a.records == b.records && a.origins == b.origins && a.failures == b.failures;
            Finding::pass(if same {
                "a fresh instance answers the same records the same way"
            } else {
                "a fresh instance applies again (its answer differs: the transform keeps state)"
            })
        }
        Err(e) => Finding::fail(e),
    }
}

/// `close` returns in time, without a trap.
pub async fn close_check(kit: &Kit) -> Finding {
    let instance = match configured(kit).await {
        Ok(i) => i,
        Err(e) => return Finding::fail(e),
    };
    let started = Instant::now();
    match instance.close().await {
        Ok(()) => Finding::pass(format!("close returned in {} ms", started.elapsed().as_millis())),
        Err(e) => Finding::fail(describe("close", &e)),
    }
}
