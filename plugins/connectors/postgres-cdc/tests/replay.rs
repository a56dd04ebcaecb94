//! The scenario's streaming steps (`tests/cdc/changes.sql`) decoded from the real pgoutput
//! bytes of a real PostgreSQL and turned into records, compared record by record with what
//! Debezium 3.6.1 wrote for them (`tests/cdc/debezium-3.6.1/`).
//!
//! The pgoutput messages come from `pg_logical_slot_get_binary_changes` on a slot of our
//! own (the same bytes a walsender streams), so this exercises `pgoutput`, `catalog`
//! (`matches`/`align`), `transaction` and the emitter together, as a streaming loop would.
//! Masked: times, LSNs, transaction ids, the run id, and the order of an END's
//! `data_collections` (Debezium's is a HashMap's). Skipped when `POSTGRES_URL` is unset or
//! the scenario or capture is absent (`CDC_SCENARIO_DIR`, `CDC_GOLDEN_DIR`).

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use postgres_cdc::catalog::{self, TableMeta};
use postgres_cdc::envelope::{Emitter, Op};
use postgres_cdc::offset::Offset;
use postgres_cdc::pgoutput::{self, Message, PG_EPOCH_OFFSET_US, Relation};
use postgres_cdc::settings::Settings;
use postgres_cdc::source_info::{Source, sequence};
use postgres_cdc::transaction::{TxnTracker, transaction_id};
use postgres_wire::{Client, ConnectUrl};
use serde_json::Value;
use wasm_connect_sdk::{Config, SourceRecord};

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

fn parse(text: Option<&str>) -> Value {
    text.map_or(Value::Null, |t| serde_json::from_str(t).unwrap())
}

/// `0/16B3748` as a number.
fn lsn(text: &str) -> u64 {
    let (hi, lo) = text.split_once('/').unwrap();
    (u64::from_str_radix(hi, 16).unwrap() << 32) | u64::from_str_radix(lo, 16).unwrap()
}

#[test]
fn streamed_changes_match_debeziums() {
    let scenario = dir("CDC_SCENARIO_DIR", "tests/cdc");
    let golden = dir("CDC_GOLDEN_DIR", "tests/cdc/debezium-3.6.1");
    let (Some(mut c), true, true) = (client(), scenario.is_dir(), golden.is_dir()) else {
        eprintln!("POSTGRES_URL, the scenario or the capture missing: skipped");
        return;
    };
    let s = format!("cdccore_replay_{}", std::process::id());
    let read = |f: &str| std::fs::read_to_string(scenario.join(f)).unwrap();
    c.simple_query(&format!(
        "DROP SCHEMA IF EXISTS {s} CASCADE; CREATE SCHEMA {s}; SET search_path TO {s}, public; {}\n{}\n\
         CREATE PUBLICATION {s} FOR TABLE all_types, full_rows, docs;",
        read("schema.sql"),
        read("snapshot.sql")
    ))
    .unwrap();
    c.simple_query(&format!("SELECT pg_create_logical_replication_slot('{s}', 'pgoutput')"))
        .unwrap();
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        // One statement at a time: a multi-statement simple query is one transaction.
        // The server may run with synchronous_commit off: flush each commit, so the slot
        // sees every change at once.
        c.simple_query(&format!("SET search_path TO {s}, public; SET synchronous_commit = on"))
            .unwrap();
        for statement in statements(&read("changes.sql")) {
            c.simple_query(&statement).unwrap();
        }
        replay(&mut c, &s, &golden)
    }));
    c.simple_query(&format!("SELECT pg_drop_replication_slot('{s}')")).unwrap();
    c.simple_query(&format!("DROP PUBLICATION {s}; DROP SCHEMA {s} CASCADE")).unwrap();
    if let Err(e) = result {
        std::panic::resume_unwind(e);
    }
}

/// The statements of a SQL file: comments dropped, split at `;` ending a line.
fn statements(sql: &str) -> Vec<String> {
    let code: Vec<&str> = sql.lines().filter(|l| !l.trim_start().starts_with("--")).collect();
    code.join("\n")
        .split(";\n")
        .map(|s| s.trim().trim_end_matches(';').to_owned())
        .filter(|s| !s.is_empty())
        .collect()
}

/// The records a streaming loop makes of the slot's changes, by topic.
fn replay(c: &mut Client, s: &str, golden: &Path) {
    let settings = Settings::parse(
        &Config::new()
            .with("database.hostname", "h")
            .with("database.user", "u")
            .with("database.dbname", "connect")
            .with("topic.prefix", "dbz")
            .with("skipped.operations", "none")
            .with("provide.transaction.metadata", "true")
            .with("table.include.list", format!("{s}\\..*")),
    )
    .unwrap();
    let tables: HashMap<u32, TableMeta> =
        catalog::tables(c, &settings).unwrap().into_iter().map(|t| (t.oid, t)).collect();
    let changes = c
        .simple_query(&format!(
            "SELECT lsn, data FROM pg_logical_slot_get_binary_changes('{s}', NULL, NULL, \
             'proto_version', '1', 'publication_names', '{s}', 'messages', 'true')"
        ))
        .unwrap()
        .rows;
    let mut e = Emitter::new(&settings, "run");
    let mut txn = TxnTracker::new();
    let mut relations: HashMap<u32, Relation> = HashMap::new();
    let (mut xid, mut commit_us, mut last_commit) = (0i64, 0i64, None::<u64>);
    let mut out: BTreeMap<String, Vec<SourceRecord>> = BTreeMap::new();
    let offset = Offset::default();
    for row in &changes {
        let at = lsn(row[0].as_deref().unwrap());
        let bytes = postgres_cdc::value::bytea(row[1].as_deref().unwrap()).unwrap();
        let source = |table: Option<&TableMeta>| Source {
            ts_us: commit_us,
            db: "connect".into(),
            sequence: Some(sequence(last_commit, Some(at))),
            schema: table.map_or(String::new(), |t| t.schema.clone()),
            table: table.map_or(String::new(), |t| t.name.clone()),
            tx_id: Some(xid),
            lsn: Some(at),
            ..Default::default()
        };
        let mut records = Vec::new();
        match pgoutput::decode(&bytes).unwrap() {
            Message::Begin { commit_ts_us, xid: x, .. } => {
                (xid, commit_us) = (i64::from(x), commit_ts_us + PG_EPOCH_OFFSET_US);
                txn.begin(xid);
                records.push(e.begin(&transaction_id(xid, at), commit_us / 1000, &offset));
            }
            Message::Commit { commit_lsn, .. } => {
                let (n, per) = txn.end();
                records.push(e.end(&transaction_id(xid, at), commit_us / 1000, n, &per, &offset));
                last_commit = Some(commit_lsn);
            }
            Message::Relation(r) => {
                assert!(tables[&r.oid].matches(&r), "{r:?}");
                relations.insert(r.oid, r);
            }
            Message::Insert { relation, new } => {
                let (t, r) = (&tables[&relation], &relations[&relation]);
                let new = t.align(r, &new);
                let src = source(Some(t));
                records = e
                    .change(t, Op::Create, None, Some(&new), &src, Some(&mut txn), &offset, 0)
                    .unwrap();
            }
            Message::Update { relation, old, new, .. } => {
                let (t, r) = (&tables[&relation], &relations[&relation]);
                let (old, new) = (old.map(|o| t.align(r, &o)), t.align(r, &new));
                let src = source(Some(t));
                records = e
                    .change(
                        t,
                        Op::Update,
                        old.as_deref(),
                        Some(&new),
                        &src,
                        Some(&mut txn),
                        &offset,
                        0,
                    )
                    .unwrap();
            }
            Message::Delete { relation, old, .. } => {
                let (t, r) = (&tables[&relation], &relations[&relation]);
                let old = t.align(r, &old);
                let src = source(Some(t));
                records = e
                    .change(t, Op::Delete, Some(&old), None, &src, Some(&mut txn), &offset, 0)
                    .unwrap();
            }
            Message::Truncate { relations: oids, .. } => {
                for oid in oids {
                    let src = source(Some(&tables[&oid]));
                    records.extend(e.truncate(&tables[&oid], &src, Some(&mut txn), &offset, 0));
                }
            }
            Message::Message { transactional, prefix, content, .. } => {
                let tx = if transactional { Some(&mut txn) } else { None };
                let src = Source { tx_id: transactional.then_some(xid), ..source(None) };
                records.push(e.message(&prefix, &content, &src, tx, &offset, 0));
            }
            Message::Origin { .. } | Message::Type { .. } => {}
        }
        for r in records {
            out.entry(r.topic.replace(&format!(".{s}."), ".cdc.")).or_default().push(r);
        }
    }
    let mut compared = 0;
    for (topic, got) in &out {
        let want: Vec<Value> = std::fs::read_to_string(golden.join(format!("{topic}.jsonl")))
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .filter(|r| {
                let v = parse(r["value"].as_str());
                v["payload"]["source"]["snapshot"].as_str().is_none_or(|m| m == "false")
            })
            .collect();
        let ops: Vec<String> = got
            .iter()
            .map(|r| {
                r.value.as_ref().map_or("tombstone".to_owned(), |v| {
                    let v: Value = serde_json::from_slice(v).unwrap();
                    v["payload"]["op"].to_string()
                })
            })
            .collect();
        assert_eq!(got.len(), want.len(), "records on {topic}: {ops:?}");
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            same(g, w, s, &format!("{topic} #{i}"));
            compared += 1;
        }
    }
    assert!(compared >= 50, "{compared} records compared");
}

/// A record's JSON with the run-to-run differences masked.
fn mask(mut v: Value) -> Value {
    let Some(p) = v.get_mut("payload").and_then(Value::as_object_mut) else { return v };
    for k in ["ts_ms", "ts_us", "ts_ns", "id"] {
        if p.contains_key(k) {
            p.insert(k.into(), Value::Null);
        }
    }
    if let Some(t) = p.get_mut("transaction").and_then(Value::as_object_mut) {
        t.insert("id".into(), Value::Null);
    }
    if let Some(src) = p.get_mut("source").and_then(Value::as_object_mut) {
        for k in ["ts_ms", "ts_us", "ts_ns", "txId", "lsn", "sequence"] {
            src.insert(k.into(), Value::Null);
        }
    }
    if let Some(Value::Array(per)) = p.get_mut("data_collections") {
        for c in per.iter_mut() {
            if c["data_collection"].as_str().is_some_and(|d| d.contains("MessageId@")) {
                c["data_collection"] = Value::from("message");
            }
        }
        per.sort_by_key(|c| c["data_collection"].to_string());
    }
    v
}

fn same(got: &SourceRecord, want: &Value, s: &str, what: &str) {
    let text = |b: &Option<Vec<u8>>| {
        b.as_ref().map(|b| {
            String::from_utf8(b.clone())
                .unwrap()
                .replace(&format!("dbz.{s}."), "dbz.cdc.")
                .replace(&format!("\"{s}\""), "\"cdc\"")
                .replace(&format!("\"{s}."), "\"cdc.")
        })
    };
    assert_eq!(
        mask(parse(text(&got.key).as_deref())),
        mask(parse(want["key"].as_str())),
        "key of {what}"
    );
    let (g, w) = (mask(parse(text(&got.value).as_deref())), mask(parse(want["value"].as_str())));
    assert_eq!(g["schema"], w["schema"], "value schema of {what}");
    assert_eq!(g["payload"], w["payload"], "payload of {what}");
    let headers = |pairs: Vec<(String, String)>| -> Vec<(String, String)> {
        pairs.into_iter().filter(|(k, _)| !k.ends_with("runId")).collect()
    };
    let got_h = headers(
        got.headers
            .iter()
            .map(|h| (h.key.clone(), String::from_utf8(h.value.clone().unwrap()).unwrap()))
            .collect(),
    );
    let want_h = headers(
        want["headers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| (h[0].as_str().unwrap().to_owned(), h[1].as_str().unwrap().to_owned()))
            .collect(),
    );
    assert_eq!(got_h, want_h, "headers of {what}");
}
