//! The records of the shared CDC scenario: snapshot records (`tests/cdc/schema.sql` and
//! `snapshot.sql`) built by the emitter from rows read back from a real PostgreSQL, compared
//! with what Debezium 3.6.1 wrote for the same rows (`tests/cdc/debezium-3.6.1/`, topic
//! prefix `dbz`, schema `cdc`): keys, value schemas and payloads, and headers, with the
//! volatile fields (times, LSNs, transaction ids, the run id) masked; then streamed records
//! rebuilt from the tuples pgoutput sends for some of `changes.sql` (a key-only delete, a
//! primary-key change, a TOAST-untouched update, TRUNCATE, messages, BEGIN/END).
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
use postgres_cdc::transaction::TxnTracker;
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
fn snapshot_and_streamed_records_match_debeziums() {
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
            .with("skipped.operations", "none")
            .with("table.include.list", format!("{s}\\..*")),
    )
    .unwrap();
    let tables = catalog::tables(c, &settings).unwrap();
    let names: Vec<_> = tables.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["all_types", "docs", "full_rows"]);
    let mut emitter = Emitter::new(&settings, "run");
    let mut compared = 0;
    for (t, table) in tables.iter().enumerate() {
        let rows =
            c.simple_query(&format!("SELECT * FROM {s}.{} ORDER BY id", table.name)).unwrap().rows;
        let file = golden.join(format!("dbz.cdc.{}.jsonl", table.name));
        let expected: Vec<Value> = std::fs::read_to_string(file)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        for (r, (row, want)) in rows.iter().zip(&expected).enumerate() {
            let datums: Vec<Datum> = row
                .iter()
                .map(|v| v.as_ref().map_or(Datum::Null, |t| Datum::Text(t.clone())))
                .collect();
            let source = Source {
                ts_us: 0,
                snapshot: SnapshotMarker::resolve(
                    t == 0 && r == 0,
                    t == tables.len() - 1 && r == rows.len() - 1,
                    r == 0,
                    r == rows.len() - 1,
                ),
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
            let got = mask(rename(&recs[0].value));
            let want_v = mask(parse(want["value"].as_str()));
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
    streamed(&settings, &tables, golden);
}

fn golden_lines(golden: &std::path::Path, topic: &str) -> Vec<Value> {
    std::fs::read_to_string(golden.join(format!("{topic}.jsonl")))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn text(v: &Option<Vec<u8>>) -> Option<String> {
    v.as_ref().map(|b| String::from_utf8(b.clone()).unwrap())
}

/// Compares one record with a captured one: topic, key, masked value, headers but runId.
fn same(got: &wasm_connect_sdk::SourceRecord, want: &Value, s: &str) {
    let rename = |t: Option<String>| {
        parse(
            t.map(|t| {
                t.replace(&format!("dbz.{s}."), "dbz.cdc.").replace(&format!("\"{s}\""), "\"cdc\"")
            })
            .as_deref(),
        )
    };
    assert_eq!(got.topic.replace(&format!(".{s}."), ".cdc."), want["topic"].as_str().unwrap());
    assert_eq!(rename(text(&got.key)), parse(want["key"].as_str()), "key");
    assert_eq!(mask(rename(text(&got.value))), mask(parse(want["value"].as_str())), "value");
    let headers: Vec<(String, String)> = got
        .headers
        .iter()
        .filter(|h| !h.key.ends_with("runId"))
        .map(|h| (h.key.clone(), text(&h.value).unwrap()))
        .collect();
    let want_headers: Vec<(String, String)> = want["headers"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|h| !h[0].as_str().unwrap().ends_with("runId"))
        .map(|h| (h[0].as_str().unwrap().to_owned(), h[1].as_str().unwrap().to_owned()))
        .collect();
    assert_eq!(headers, want_headers, "headers");
}

/// The transaction (opened at the captured record's `txId`) and source (at its `lsn`) of a
/// streamed record, as the task would have them from the WAL.
fn at(want: &Value, table: &catalog::TableMeta) -> (TxnTracker, Source) {
    let src = &parse(want["value"].as_str())["payload"]["source"];
    let mut txn = TxnTracker::new();
    txn.begin(src["txId"].as_i64().unwrap());
    (txn, Source { lsn: src["lsn"].as_u64(), ..streamed_source(table) })
}

fn streamed_source(table: &catalog::TableMeta) -> Source {
    Source {
        db: "connect".into(),
        schema: table.schema.clone(),
        table: table.name.clone(),
        ..Default::default()
    }
}

/// Streamed shapes rebuilt from what pgoutput sends for the scenario's changes: a
/// REPLICA IDENTITY DEFAULT delete (key only), a primary-key change, a TOAST-untouched
/// update, a TRUNCATE, messages and transaction records.
fn streamed(settings: &Settings, tables: &[catalog::TableMeta], golden: &std::path::Path) {
    let s = &tables[0].schema;
    let mut e = Emitter::new(settings, "run");
    let all = &tables[0];
    let key_only = |id: &str, n: usize| -> Vec<Datum> {
        std::iter::once(Datum::Text(id.into()))
            .chain(std::iter::repeat_n(Datum::Null, n - 1))
            .collect()
    };
    let want = golden_lines(golden, "dbz.cdc.all_types");
    // DELETE FROM all_types WHERE name = 'nulls' (id 3): the delete and its tombstone.
    let old = key_only("3", all.columns.len());
    let (mut txn, src) = at(&want[9], all);
    let recs = e
        .change(all, Op::Delete, Some(&old), None, &src, Some(&mut txn), &Offset::default(), 0)
        .unwrap();
    assert_eq!(recs.len(), 2);
    same(&recs[0], &want[9], s);
    same(&recs[1], &want[10], s);
    // UPDATE all_types SET id = 100 WHERE name = 'past': the row of id 4 as pgoutput sends it.
    let mut new: Vec<Datum> =
        ["100", "past", "0", "t", "0.00", "32767", "-2147483648", "-9223372036854775808"]
            .iter()
            .map(|t| Datum::Text((*t).into()))
            .collect();
    new.extend([Datum::Null, Datum::Null]);
    new.extend(["-0.01", "0.000"].iter().map(|t| Datum::Text((*t).into())));
    new.extend([Datum::Null, Datum::Null, Datum::Text("dflt".into()), Datum::Null]);
    new.push(Datum::Text("-infinity".into()));
    new.extend([Datum::Null, Datum::Null, Datum::Null]);
    new.extend(
        ["1969-12-31 23:59:59.999999", "1900-01-01 00:00:00", "-infinity", "00:00:00"]
            .iter()
            .map(|t| Datum::Text((*t).into())),
    );
    new.extend([Datum::Null, Datum::Null, Datum::Null, Datum::Null]);
    new.extend(["{NULL,-1}", "{NULL}"].iter().map(|t| Datum::Text((*t).into())));
    new.extend([Datum::Null, Datum::Null, Datum::Null, Datum::Null]);
    assert_eq!(new.len(), all.columns.len());
    let old = key_only("4", all.columns.len());
    let (mut txn, src) = at(&want[11], all);
    let recs = e
        .change(
            all,
            Op::Update,
            Some(&old),
            Some(&new),
            &src,
            Some(&mut txn),
            &Offset::default(),
            0,
        )
        .unwrap();
    assert_eq!(recs.len(), 3);
    same(&recs[0], &want[11], s);
    same(&recs[1], &want[12], s);
    same(&recs[2], &want[13], s);
    // UPDATE docs SET title = 'big, retitled' WHERE id = 1: body not sent.
    let docs = &tables[1];
    let want = golden_lines(golden, "dbz.cdc.docs");
    let new = [Datum::Text("1".into()), Datum::Text("big, retitled".into()), Datum::Unchanged];
    let (mut txn, src) = at(&want[2], docs);
    let recs = e
        .change(docs, Op::Update, None, Some(&new), &src, Some(&mut txn), &Offset::default(), 0)
        .unwrap();
    same(&recs[0], &want[2], s);
    // TRUNCATE full_rows.
    let full = &tables[2];
    let want = golden_lines(golden, "dbz.cdc.full_rows");
    let (mut txn, src) = at(&want[11], full);
    let recs = e.truncate(full, &src, Some(&mut txn), &Offset::default(), 0);
    same(&recs[0], &want[11], s);
    // Messages: transactional in a transaction, and not.
    let want = golden_lines(golden, "dbz.message");
    let msg_source = Source { db: "connect".into(), ..Default::default() };
    // Fourth in its transaction, after two full_rows events and one docs event.
    let (mut txn, src) = at(&want[0], &tables[1]);
    txn.event("cdc.full_rows", 1);
    txn.event("cdc.full_rows", 2);
    txn.event("cdc.docs", 3);
    let msg_source = Source { lsn: src.lsn, ..msg_source };
    let r = e.message(
        "cdc-test",
        b"inside a transaction",
        &msg_source,
        Some(&mut txn),
        &Offset::default(),
        0,
    );
    same(&r, &want[0], s);
    let r = e.message(
        "cdc-audit",
        b"outside any transaction",
        &msg_source,
        None,
        &Offset::default(),
        0,
    );
    same(&r, &want[1], s);
    // The first transaction's BEGIN and END.
    let want = golden_lines(golden, "dbz.transaction");
    let value = |i: usize| parse(want[i]["value"].as_str())["payload"].clone();
    let (b, end) = (value(0), value(1));
    let r = e.begin(b["id"].as_str().unwrap(), b["ts_ms"].as_i64().unwrap(), &Offset::default());
    same(&r, &want[0], s);
    let r = e.end(
        end["id"].as_str().unwrap(),
        end["ts_ms"].as_i64().unwrap(),
        1,
        &[("cdc.all_types".into(), 1)],
        &Offset::default(),
    );
    same(&r, &want[1], s);
}
