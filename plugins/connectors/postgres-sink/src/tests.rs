//! The task against a real PostgreSQL (`scripts/postgres.sh`), driven natively through
//! the SDK's harness: inserts, upserts, deletes, a rejected row as a record failure, and
//! a database that is down as a retriable error. Skipped when `POSTGRES_URL` is unset.

use postgres_wire::{Client, ConnectUrl};
use wasm_connect_sdk::serde_json::{Value, json};
use wasm_connect_sdk::testing::SinkHarness;
use wasm_connect_sdk::{Config, Error, Kind, SinkRecord, TopicPartition};

use crate::task::JdbcSinkTask;

fn env() -> Option<(String, String, String)> {
    let url = std::env::var("POSTGRES_URL").ok()?;
    Some((url, std::env::var("POSTGRES_USER").ok()?, std::env::var("POSTGRES_PASSWORD").ok()?))
}

fn sql(query: &str) -> Vec<Vec<Option<String>>> {
    let (url, user, password) = env().unwrap();
    let mut c = Client::connect(&ConnectUrl::parse(&url).unwrap(), &user, &password).unwrap();
    c.simple_query(query).unwrap().rows
}

fn record(
    sink: &mut SinkHarness<JdbcSinkTask>,
    topic: &str,
    id: i64,
    value: Option<Value>,
) -> SinkRecord {
    let key = json!({"schema": {"type": "struct", "fields": [{"field": "id", "type": "int64", "optional": false}]},
                     "payload": {"id": id}});
    let schema = json!({"type": "struct", "name": topic, "fields": [
        {"field": "id", "type": "int64", "optional": false},
        {"field": "name", "type": "string", "optional": true},
        {"field": "qty", "type": "int32", "optional": true}]});
    SinkRecord {
        key_kind: Kind::ConnectJson,
        key: Some(key.to_string().into()),
        value_kind: Kind::ConnectJson,
        value: value.map(|v| json!({"schema": schema, "payload": v}).to_string().into()),
        ..sink.next_record(topic, 0)
    }
}

fn config(table: &str) -> Config {
    let (url, user, password) = env().unwrap();
    Config::new()
        .with("connection.url", url)
        .with("connection.user", user)
        .with("connection.password", password)
        .with("topics", table)
        .with("insert.mode", "upsert")
        .with("pk.mode", "record_key")
        .with("auto.create", "true")
        .with("auto.evolve", "true")
        .with("delete.enabled", "true")
        .with("retry.backoff.ms", "0")
}

#[test]
fn upserts_deletes_and_a_rejected_row_in_one_transaction() {
    if env().is_none() {
        eprintln!("POSTGRES_URL unset: skipped");
        return;
    }
    let table = format!("sink_native_{}", std::process::id());
    sql(&format!(
        "DROP TABLE IF EXISTS {table}; CREATE TABLE {table} (id BIGINT PRIMARY KEY, name TEXT, qty INT CHECK (qty >= 0))"
    ));
    let mut sink = SinkHarness::<JdbcSinkTask>::new();
    sink.start(config(&table)).unwrap();
    let tp = TopicPartition { topic: table.clone(), partition: 0 };
    sink.open(std::slice::from_ref(&tp)).unwrap();
    let records = vec![
        record(&mut sink, &table, 1, Some(json!({"id": 1, "name": "a", "qty": 1}))),
        record(&mut sink, &table, 2, Some(json!({"id": 2, "name": "b", "qty": 2}))),
        record(&mut sink, &table, 3, Some(json!({"id": 3, "name": "c", "qty": -3}))),
        record(&mut sink, &table, 2, Some(json!({"id": 2, "name": "b2", "qty": 20}))),
        record(&mut sink, &table, 1, None),
    ];
    let failures = sink.put(&records).unwrap();
    assert_eq!(failures.len(), 1, "{failures:?}");
    assert_eq!(failures[0].index, 2);
    assert!(failures[0].reason.contains("23514"), "{}", failures[0].reason);
    let rows = sql(&format!("SELECT id::text, name, qty::text FROM {table} ORDER BY id"));
    assert_eq!(rows, vec![vec![Some("2".into()), Some("b2".into()), Some("20".into())]]);
    assert_eq!(sink.commit().unwrap()[0].offset, 5);
    sql(&format!("DROP TABLE {table}"));
}

#[test]
fn auto_create_makes_the_table_and_a_down_database_is_retriable() {
    let Some((url, ..)) = env() else { return };
    let table = format!("sink_create_{}", std::process::id());
    sql(&format!("DROP TABLE IF EXISTS {table}"));
    let mut sink = SinkHarness::<JdbcSinkTask>::new();
    sink.start(config(&table).with("insert.mode", "insert")).unwrap();
    let records =
        vec![record(&mut sink, &table, 7, Some(json!({"id": 7, "name": "x", "qty": null})))];
    assert!(sink.put(&records).unwrap().is_empty());
    let rows = sql(&format!("SELECT id::text, name, qty FROM {table}"));
    assert_eq!(rows, vec![vec![Some("7".into()), Some("x".into()), None]]);
    sql(&format!("DROP TABLE {table}"));
    drop(sink);

    let port = ConnectUrl::parse(&url).unwrap().port;
    let down = url.replace(&format!(":{port}/"), ":1/");
    let mut sink = SinkHarness::<JdbcSinkTask>::new();
    sink.start(config(&table).with("connection.url", down).with("max.retries", "1")).unwrap();
    assert!(matches!(sink.put(&records), Err(Error::Retriable(_))));
    assert!(matches!(sink.put(&records), Err(Error::Fatal(m)) if m.contains("max.retries")));
}

#[test]
fn md5_and_scram_users_both_log_in_and_a_wrong_password_is_refused() {
    let Some((url, user, password)) = env() else { return };
    let url = ConnectUrl::parse(&url).unwrap();
    let mut scram = Client::connect(&url, &user, &password).unwrap();
    assert_eq!(scram.simple_query("SELECT 1").unwrap().rows, vec![vec![Some("1".to_owned())]]);
    if let (Ok(md5_user), Ok(md5_password)) =
        (std::env::var("POSTGRES_MD5_USER"), std::env::var("POSTGRES_MD5_PASSWORD"))
    {
        let mut md5 = Client::connect(&url, &md5_user, &md5_password).unwrap();
        let who = md5.simple_query("SELECT current_user").unwrap().rows;
        assert_eq!(who, vec![vec![Some(md5_user.clone())]]);
    }
    let err = Client::connect(&url, &user, "wrong").err().expect("a wrong password fails");
    assert_eq!(err.code(), Some("28P01"), "{err}");
}
