//! The task against a real PostgreSQL (`scripts/postgres.sh`), driven natively through
//! the SDK's harness: incrementing and timestamp+incrementing reads, rows added later,
//! and a restart that resumes after the committed offset. Skipped when `POSTGRES_URL` is
//! unset.

use postgres_wire::{Client, ConnectUrl};
use wasm_connect_sdk::Config;
use wasm_connect_sdk::testing::{ConnectorHarness, RecordsExt, SourceHarness};

use crate::connector::JdbcSourceConnector;
use crate::task::JdbcSourceTask;

fn env() -> Option<(String, String, String)> {
    let url = std::env::var("POSTGRES_URL").ok()?;
    Some((url, std::env::var("POSTGRES_USER").ok()?, std::env::var("POSTGRES_PASSWORD").ok()?))
}

fn sql(query: &str) {
    let (url, user, password) = env().unwrap();
    let mut c = Client::connect(&ConnectUrl::parse(&url).unwrap(), &user, &password).unwrap();
    c.simple_query(query).unwrap();
}

fn config(mode: &str, table: &str) -> Config {
    let (url, user, password) = env().unwrap();
    Config::new()
        .with("connection.url", url)
        .with("connection.user", user)
        .with("connection.password", password)
        .with("mode", mode)
        .with("incrementing.column.name", "id")
        .with("timestamp.column.name", "at")
        .with("table.whitelist", table)
        .with("tables", table)
        .with("topic.prefix", "pg-")
        .with("poll.interval.ms", "0")
        .with("batch.max.rows", "2")
}

#[test]
fn modes_read_new_rows_and_resume_after_the_committed_offset() {
    if env().is_none() {
        eprintln!("POSTGRES_URL unset: skipped");
        return;
    }
    for mode in ["incrementing", "timestamp+incrementing", "timestamp"] {
        let table = format!("src_native_{}_{}", mode.replace('+', "_"), std::process::id());
        sql(&format!(
            "DROP TABLE IF EXISTS {table}; CREATE TABLE {table} (id SERIAL PRIMARY KEY, name TEXT NOT NULL, \
             at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp()); \
             INSERT INTO {table} (name) VALUES ('a'), ('b'), ('c')"
        ));
        let mut task = SourceHarness::<JdbcSourceTask>::new().max_records(10);
        task.start(config(mode, &table)).unwrap();
        let first = task.poll_until_empty().unwrap();
        let names: Vec<_> =
            first.values_as_json().iter().map(|v| v["payload"]["name"].clone()).collect();
        assert_eq!(names, ["a", "b", "c"], "{mode}");
        assert_eq!(first[0].topic, format!("pg-{table}"));
        let schema = &first.values_as_json()[0]["schema"];
        assert_eq!(schema["fields"][0]["type"], "int32");
        assert_eq!(schema["fields"][2]["name"], "org.apache.kafka.connect.data.Timestamp");
        assert_eq!(schema["fields"][1]["optional"], false);
        task.commit().unwrap();
        sql(&format!("INSERT INTO {table} (name) VALUES ('d')"));
        task.restart().unwrap();
        let names: Vec<_> = task
            .poll_until_empty()
            .unwrap()
            .values_as_json()
            .iter()
            .map(|v| v["payload"]["name"].clone())
            .collect();
        assert_eq!(names, ["d"], "{mode}: resumes after the committed row");
        sql(&format!("DROP TABLE {table}"));
    }
}

#[test]
fn tables_are_split_between_tasks() {
    let Some(_) = env() else { return };
    let mut c = ConnectorHarness::<JdbcSourceConnector>::new();
    c.start(config("bulk", "").with("table.whitelist", "a,b,c")).unwrap();
    let tasks = c.task_configs(2).unwrap();
    assert_eq!(
        tasks.iter().map(|t| t.get("tables").unwrap().to_owned()).collect::<Vec<_>>(),
        ["a,c", "b"]
    );
}

#[test]
fn exactly_once_is_supported_in_the_incrementing_and_timestamp_modes() {
    use wasm_connect_sdk::ExactlyOnceSupport::{Supported, Unsupported};
    let c = ConnectorHarness::<JdbcSourceConnector>::new();
    let mode = |m: &str| Config::new().with("mode", m);
    for m in ["incrementing", "timestamp", "timestamp+incrementing"] {
        assert_eq!(c.exactly_once_support(&mode(m)), Some(Supported), "{m}");
    }
    assert_eq!(c.exactly_once_support(&mode("bulk")), Some(Unsupported));
    assert_eq!(c.exactly_once_support(&Config::new()), Some(Unsupported));
}
