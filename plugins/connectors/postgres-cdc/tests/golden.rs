//! The snapshot records of the shared CDC scenario (`tests/cdc/schema.sql` and
//! `snapshot.sql`) built by the emitter from rows read back from a real PostgreSQL, compared
//! with what Debezium 3.6.1 wrote for the same rows (`tests/cdc/debezium-3.6.1/`, topic
//! prefix `dbz`, schema `cdc`): keys, value schemas and payloads, and headers, with the
//! volatile fields (times, LSNs, transaction ids, the run id) masked.
//!
//! Skipped when `POSTGRES_URL` is unset or the scenario or capture is absent. The
//! directories default to the repository's `tests/cdc` and can be set with
//! `CDC_SCENARIO_DIR` and `CDC_GOLDEN_DIR`.

use std::path::PathBuf;

use postgres_cdc::catalog;
use postgres_cdc::envelope::{Emitter, Op};
use postgres_cdc::offset::Offset;
use postgres_cdc::pgoutput::Datum;
use postgres_cdc::settings::Settings;
use postgres_cdc::source_info::{SnapshotMarker, Source};
use postgres_wire::{Client, ConnectUrl};
use serde_json::Value;
use wasm_connect_sdk::Config;

fn dir(var: &str, default: &str) -> PathBuf {
    std::env::var(var).map(PathBuf::from).unwrap_or_else(|_| {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../..").join(default)
    })
}

fn client() -> Option<Client> {
    let url = std::env::var("POSTGRES_URL").ok()?;
    let user = std::env::var("POSTGRES_USER").ok()?;
    let password = std::env::var("POSTGRES_PASSWORD").ok()?;
    Some(Client::connect(&ConnectUrl::parse(&url).unwrap(), &user, &password).unwrap())
}

/// Removes the fields that differ from run to run.
fn mask(mut v: Value) -> Value {
    if let Some(p) = v.get_mut("payload").and_then(Value::as_object_mut) {
        for k in ["ts_ms", "ts_us", "ts_ns"] {
            p.remove(k);
        }
        if let Some(s) = p.get_mut("source").and_then(Value::as_object_mut) {
            for k in ["ts_ms", "ts_us", "ts_ns", "txId", "lsn", "sequence", "db"] {
                s.remove(k);
            }
        }
    }
    v
}

fn parse(text: Option<&str>) -> Value {
    text.map_or(Value::Null, |t| serde_json::from_str(t).unwrap())
}

#[test]
fn snapshot_records_match_debeziums() {
    let scenario = dir("CDC_SCENARIO_DIR", "tests/cdc");
    let golden = dir("CDC_GOLDEN_DIR", "tests/cdc/debezium-3.6.1");
    let (Some(mut c), true, true) = (client(), scenario.is_dir(), golden.is_dir()) else {
        eprintln!("POSTGRES_URL, the scenario or the capture missing: skipped");
        return;
    };
    let s = format!("cdccore_golden_{}", std::process::id());
    let read = |f: &str| std::fs::read_to_string(scenario.join(f)).unwrap();
    c.simple_query(&format!(
        "DROP SCHEMA IF EXISTS {s} CASCADE; CREATE SCHEMA {s}; SET search_path TO {s}, public; {}\n{}",
        read("schema.sql"),
        read("snapshot.sql")
    ))
    .unwrap();
    let result =
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| compare(&mut c, &s, &golden)));
    c.simple_query(&format!("DROP SCHEMA {s} CASCADE")).unwrap();
    if let Err(e) = result {
        std::panic::resume_unwind(e);
    }
}

fn compare(c: &mut Client, s: &str, golden: &std::path::Path) {
    let settings = Settings::parse(
        &Config::new()
            .with("database.hostname", "h")
            .with("database.user", "u")
            .with("database.dbname", "connect")
            .with("topic.prefix", "dbz")
            .with("table.include.list", format!("{s}\\..*")),
    )
    .unwrap();
    let tables = catalog::tables(c, &settings).unwrap();
    let names: Vec<_> = tables.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["all_types", "docs", "full_rows"]);
    let mut emitter = Emitter::new(&settings, "run");
    let mut compared = 0;
    for table in &tables {
        let rows =
            c.simple_query(&format!("SELECT * FROM {s}.{} ORDER BY id", table.name)).unwrap().rows;
        let file = golden.join(format!("dbz.cdc.{}.jsonl", table.name));
        let expected: Vec<Value> = std::fs::read_to_string(file)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        for (row, want) in rows.iter().zip(&expected) {
            let datums: Vec<Datum> = row
                .iter()
                .map(|v| v.as_ref().map_or(Datum::Null, |t| Datum::Text(t.clone())))
                .collect();
            let source = Source {
                ts_us: 0,
                snapshot: SnapshotMarker::True,
                db: "connect".into(),
                schema: table.schema.clone(),
                table: table.name.clone(),
                ..Default::default()
            };
            let recs = emitter
                .change(table, Op::Read, None, Some(&datums), &source, None, &Offset::default(), 0)
                .unwrap();
            let rename = |b: &Option<Vec<u8>>| -> Value {
                let text = String::from_utf8(b.clone().unwrap()).unwrap();
                let text = text
                    .replace(&format!("dbz.{s}."), "dbz.cdc.")
                    .replace(&format!("\"{s}\""), "\"cdc\"");
                serde_json::from_str(&text).unwrap()
            };
            let got_key = rename(&recs[0].key);
            let want_key = parse(want["key"].as_str());
            assert_eq!(got_key, want_key, "key of {} {:?}", table.name, row.first());
            let mut got = mask(rename(&recs[0].value));
            let mut want_v = mask(parse(want["value"].as_str()));
            // The snapshot marker depends on the row's place in the snapshot: the caller's.
            got["payload"]["source"]["snapshot"] = Value::Null;
            want_v["payload"]["source"]["snapshot"] = Value::Null;
            assert_eq!(got["schema"], want_v["schema"], "value schema of {}", table.name);
            let (gp, wp) = (&got["payload"], &want_v["payload"]);
            for field in wp["after"].as_object().unwrap().keys() {
                assert_eq!(
                    gp["after"][field],
                    wp["after"][field],
                    "{}.{field} of row {:?}",
                    table.name,
                    row.first()
                );
            }
            assert_eq!(gp, wp, "payload of {}", table.name);
            let headers: Vec<(String, String)> = recs[0]
                .headers
                .iter()
                .filter(|h| !h.key.ends_with("runId"))
                .map(|h| (h.key.clone(), String::from_utf8(h.value.clone().unwrap()).unwrap()))
                .collect();
            let want_headers: Vec<(String, String)> = want["headers"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|h| !h[0].as_str().unwrap().ends_with("runId"))
                .map(|h| (h[0].as_str().unwrap().to_owned(), h[1].as_str().unwrap().to_owned()))
                .collect();
            assert_eq!(headers, want_headers);
            compared += 1;
        }
    }
    assert_eq!(compared, 4 + 2 + 3, "every snapshot row compared");
}
