//! The Schema Registry converters (`io.confluent.connect.avro.AvroConverter`,
//! `…protobuf.ProtobufConverter`, `…json.JsonSchemaConverter`) against a real registry:
//! Apicurio Registry's Confluent API, started by scripts/schema-registry.sh. The test command
//! exports `SCHEMA_REGISTRY_URL`, and `SCHEMA_REGISTRY_AUTH_URL` with
//! `SCHEMA_REGISTRY_AUTH_USER_INFO` for a second one behind HTTP basic authentication.
//! Without them (a bare `cargo test`) these tests print a note and pass.
//!
//! - every PostgreSQL column type through each format, on both backends: the JDBC source
//!   (a struct with int16 … Decimal, Date, Time, Timestamp, nulls) → converter → topic →
//!   converter → the JDBC sink (`auto.create`) and FileStreamSink; the copy equals the
//!   source row for row, and the subject holds the format's schema type;
//! - a registry out of reach, on both sides: the conversion waits within
//!   `errors.retry.timeout`, and once the registry answers every record arrives, once;
//!   out of reach again mid-run, records of a known schema keep flowing;
//! - a change the subject's BACKWARD compatibility refuses: the task fails under
//!   `errors.tolerance=none`, skips the records under `all`, and nothing else is written;
//! - basic authentication: the right password works, a wrong one fails the task with the
//!   registry's 401 and never shows the password.

use std::path::Path;
use std::time::Duration;

use wasm_connect::app::App;
use wasm_connect::model::{Properties, State};

use crate::harness::{Backing, eventually, props, t, wait_state};
use crate::postgres::{Pg, lines, pg, wait_lines, wait_sql};

const AVRO: &str = "io.confluent.connect.avro.AvroConverter";
const PROTOBUF: &str = "io.confluent.connect.protobuf.ProtobufConverter";
const JSON_SCHEMA: &str = "io.confluent.connect.json.JsonSchemaConverter";

/// The registry's base URL, or `None` when none was started.
fn registry() -> Option<String> {
    let url = std::env::var("SCHEMA_REGISTRY_URL").ok().filter(|u| !u.is_empty());
    if url.is_none() {
        eprintln!("SCHEMA_REGISTRY_URL unset (scripts/schema-registry.sh start): skipped");
    }
    url
}

/// A name no earlier run used (topics, subjects and tables outlive a test).
fn unique(prefix: &str) -> String {
    let nanos =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
    format!("{prefix}_{nanos}")
}

async fn create(app: &App, name: &str, config: Properties) {
    app.herder.put_connector_config(name, config, None, false).await.unwrap();
}

/// `value.converter` = `class` at `url`, plus `extra` converter keys (prefix added).
fn converter(class: &str, url: &str, extra: &[(&str, &str)]) -> Properties {
    let mut p = props(&[("value.converter", class), ("value.converter.schema.registry.url", url)]);
    for (k, v) in extra {
        p.insert(format!("value.converter.{k}"), (*v).to_owned());
    }
    p
}

/// A FileStreamSource of `file` to `topic` whose lines become structs `{<field>: line}`
/// (HoistField), written with `value`'s converter.
fn lines_source(file: &Path, topic: &str, field: &str, value: Properties) -> Properties {
    let mut p = props(&[
        ("connector.class", "FileStreamSource"),
        ("file", file.to_str().unwrap()),
        ("topic", topic),
        ("transforms", "hoist"),
        ("transforms.hoist.type", "org.apache.kafka.connect.transforms.HoistField$Value"),
        ("transforms.hoist.field", field),
    ]);
    p.extend(value);
    p
}

/// A FileStreamSink of `topic` into `file`, read with `value`'s converter.
fn file_sink(file: &Path, topic: &str, value: Properties) -> Properties {
    let mut p = props(&[
        ("connector.class", "FileStreamSink"),
        ("file", file.to_str().unwrap()),
        ("topics", topic),
    ]);
    p.extend(value);
    p
}

/// A GET of the registry's `path`, as JSON.
async fn get(url: &str, path: &str) -> serde_json::Value {
    let answer = reqwest::Client::new().get(format!("{url}/{path}")).send().await.unwrap();
    answer.json().await.unwrap()
}

/// A port nothing listens on yet, and a forwarder to the registry that `open` starts on it.
struct Gate {
    port: u16,
    upstream: String,
}

impl Gate {
    fn new(registry: &str) -> Self {
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let upstream = registry.split("://").nth(1).unwrap().split('/').next().unwrap().to_owned();
        Self { port, upstream }
    }

    /// The registry's URL through the gate.
    fn url(&self, registry: &str) -> String {
        registry.replacen(&self.upstream, &format!("127.0.0.1:{}", self.port), 1)
    }

    /// Starts forwarding.
    async fn open(&self) -> tokio::task::JoinHandle<()> {
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", self.port)).await.unwrap();
        let upstream = self.upstream.clone();
        tokio::spawn(async move {
            loop {
                let Ok((mut inbound, _)) = listener.accept().await else { return };
                let upstream = upstream.clone();
                tokio::spawn(async move {
                    if let Ok(mut out) = tokio::net::TcpStream::connect(upstream).await {
                        let _ = tokio::io::copy_bidirectional(&mut inbound, &mut out).await;
                    }
                });
            }
        })
    }
}

/// One row of `table` per line, every column as text (`epoch` ms for the timestamp, hex
/// for bytes), ordered by id.
fn rows(pg: &Pg, table: &str) -> String {
    pg.sql(&format!(
        "SELECT string_agg(concat_ws('|', id, i2, i4, i8, f4, f8, b, t, encode(bin, 'hex'), \
         dec, d, tm, round(extract(epoch FROM ts) * 1000)), E'\\n' \
         ORDER BY id) FROM {table}"
    ))
}

async fn every_column_type_through_each_format(b: Backing) {
    let Some(pg) = pg() else {
        eprintln!("POSTGRES_URL unset (scripts/postgres.sh start): skipped");
        return;
    };
    let Some(url) = registry() else { return };
    let dir = tempfile::tempdir().unwrap();
    let app = b.start_with(&[("offset.flush.interval.ms", "500")]).await;
    // Protobuf has no null for a plain scalar field: nullable columns go in wrapper types.
    let wrappers = [("wrapper.for.nullables", "true")];
    let formats = [
        ("avro", AVRO, None, &[][..]),
        ("proto", PROTOBUF, Some("PROTOBUF"), &wrappers[..]),
        ("json", JSON_SCHEMA, Some("JSON"), &[][..]),
    ];
    let mut tables = Vec::new();
    for (name, class, _, keys) in &formats {
        let table = unique(&format!("sr_{name}"));
        pg.sql(&format!(
            "CREATE TABLE {table} (id SERIAL PRIMARY KEY, i2 SMALLINT NOT NULL, i4 INT, \
             i8 BIGINT, f4 REAL, f8 DOUBLE PRECISION, b BOOLEAN, t TEXT, bin BYTEA, \
             dec NUMERIC(10,2), d DATE, tm TIME, ts TIMESTAMPTZ); \
             INSERT INTO {table} (i2, i4, i8, f4, f8, b, t, bin, dec, d, tm, ts) VALUES \
             (-7, 2147483647, -9007199254740993, 1.5, -2.25, true, 'ünï \"q\"', '\\x00ff10', \
              -12345678.91, '1969-07-20', '12:34:56.789', '2024-02-29 23:59:59.123+00'), \
             (8, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)"
        ));
        let topic = format!("sr-{table}");
        let mut source = props(&[
            ("connector.class", "io.confluent.connect.jdbc.JdbcSourceConnector"),
            ("mode", "incrementing"),
            ("incrementing.column.name", "id"),
            ("table.whitelist", &table),
            ("topic.prefix", "sr-"),
            ("poll.interval.ms", "200"),
        ]);
        source.extend(props(&pg.connection()));
        source.extend(converter(class, &url, keys));
        create(&app, &format!("{table}-src"), source).await;
        let mut sink = props(&[
            ("connector.class", "JdbcSinkConnector"),
            ("topics", &topic),
            ("auto.create", "true"),
            ("table.name.format", &format!("{table}_copy")),
        ]);
        sink.extend(props(&pg.connection()));
        sink.extend(converter(class, &url, keys));
        create(&app, &format!("{table}-snk"), sink).await;
        let out = dir.path().join(format!("{table}.txt"));
        let file = file_sink(&out, &topic, converter(class, &url, keys));
        create(&app, &format!("{table}-file"), file).await;
        tables.push(table);
    }
    for ((name, _, schema_type, _), table) in formats.iter().zip(&tables) {
        let want = rows(&pg, table);
        assert!(want.contains("-12345678.91|1969-07-20|12:34:56.789"), "{want}");
        let copy = format!("{table}_copy");
        let count =
            format!("SELECT count(*) FROM information_schema.tables WHERE table_name = '{copy}'");
        eventually(60, &format!("{name}: the table {copy}"), async || {
            for connector in ["src", "snk", "file"] {
                let name = format!("{table}-{connector}");
                if let Ok(status) = app.herder.task_status(&name, 0) {
                    assert_ne!(status.state, State::Failed, "{name}: {:?}", status.trace);
                }
            }
            (pg.sql(&count) == "1").then_some(())
        })
        .await;
        wait_sql(&pg, &format!("SELECT count(*) FROM {copy}"), "2").await;
        assert_eq!(rows(&pg, &copy), want, "{name}: the copy differs from the source");
        let out = wait_lines(&dir.path().join(format!("{table}.txt")), 2).await;
        let first: serde_json::Value = serde_json::from_str(&out[0]).unwrap();
        assert_eq!(
            (&first["id"], &first["i2"], &first["t"]),
            (&1.into(), &(-7).into(), &"ünï \"q\"".into()),
            "{name}: {first}"
        );
        let latest = get(&url, &format!("subjects/sr-{table}-value/versions/latest")).await;
        assert_eq!(latest["schemaType"].as_str(), *schema_type, "{name}: {latest}");
        assert_eq!(latest["version"], 1, "{name}: one schema for every record: {latest}");
        for connector in ["src", "snk", "file"] {
            let task = t(&format!("{table}-{connector}"), 0);
            assert_eq!(crate::harness::state(&app, &task).await, Some(State::Running));
        }
    }
    app.shutdown().await;
    for table in tables {
        pg.sql(&format!("DROP TABLE {table}; DROP TABLE IF EXISTS {table}_copy"));
    }
}

async fn a_registry_out_of_reach_loses_nothing(b: Backing) {
    let Some(url) = registry() else { return };
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.txt");
    let want: Vec<String> = (0..20).map(|i| format!(r#"{{"line":"l{i}"}}"#)).collect();
    std::fs::write(&input, (0..20).map(|i| format!("l{i}\n")).collect::<String>()).unwrap();
    let app = b.start_with(&[("offset.flush.interval.ms", "500")]).await;
    let topic = unique("sr-reach");
    // Quick client retries: the wait is `errors.retry.timeout`'s.
    let quick = [("max.retries", "0"), ("retries.wait.ms", "50")];
    let waiting =
        props(&[("errors.retry.timeout", "120000"), ("errors.retry.delay.max.ms", "200")]);
    let (write_gate, read_gate) = (Gate::new(&url), Gate::new(&url));

    let mut source =
        lines_source(&input, &topic, "line", converter(AVRO, &write_gate.url(&url), &quick));
    source.extend(waiting.clone());
    create(&app, "reach-src", source).await;
    let direct = dir.path().join("direct.txt");
    create(&app, "reach-direct", file_sink(&direct, &topic, converter(AVRO, &url, &[]))).await;
    wait_state(&app, t("reach-src", 0), State::Running).await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert!(lines(&direct).is_empty(), "a record was written without its schema's id");
    let open = write_gate.open().await;
    assert_eq!(wait_lines(&direct, 20).await, want);
    // The registry out of reach again, mid-run: the schema's id is known, records flow.
    open.abort();
    let mut more = std::fs::OpenOptions::new().append(true).open(&input).unwrap();
    std::io::Write::write_all(&mut more, b"l20\nl21\n").unwrap();
    let mut want = want;
    want.extend(["l20", "l21"].map(|l| format!(r#"{{"line":"{l}"}}"#)));
    assert_eq!(wait_lines(&direct, 22).await, want);

    // The reading side: the id's schema is out of reach for a new sink.
    let gated = dir.path().join("gated.txt");
    let mut sink = file_sink(&gated, &topic, converter(AVRO, &read_gate.url(&url), &quick));
    sink.extend(waiting);
    create(&app, "reach-gated", sink).await;
    wait_state(&app, t("reach-gated", 0), State::Running).await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert!(lines(&gated).is_empty());
    let open_read = read_gate.open().await;
    assert_eq!(wait_lines(&gated, 22).await, want);
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert_eq!(lines(&direct), want, "a record was written twice");
    assert_eq!(lines(&gated), want, "a record was read twice");
    for name in ["reach-src", "reach-direct", "reach-gated"] {
        assert_eq!(crate::harness::state(&app, &t(name, 0)).await, Some(State::Running));
    }
    app.shutdown().await;
    open_read.abort();
}

async fn a_change_the_subject_refuses_fails_or_is_tolerated(b: Backing) {
    let Some(url) = registry() else { return };
    let dir = tempfile::tempdir().unwrap();
    let topic = unique("sr-compat");
    let app = b.start().await;
    let first = dir.path().join("first.txt");
    std::fs::write(&first, "a\nb\n").unwrap();
    create(&app, "compat-v1", lines_source(&first, &topic, "line", converter(AVRO, &url, &[])))
        .await;
    let out = dir.path().join("out.txt");
    create(&app, "compat-out", file_sink(&out, &topic, converter(AVRO, &url, &[]))).await;
    assert_eq!(wait_lines(&out, 2).await, [r#"{"line":"a"}"#, r#"{"line":"b"}"#]);
    let put = reqwest::Client::new()
        .put(format!("{url}/config/{topic}-value"))
        .header("Content-Type", "application/vnd.schemaregistry.v1+json")
        .body(r#"{"compatibility":"BACKWARD"}"#)
        .send()
        .await
        .unwrap();
    assert!(put.status().is_success());

    let second = dir.path().join("second.txt");
    std::fs::write(&second, "3\n4\n").unwrap();
    // The same field as an int: a reader of the new schema cannot read the older records.
    let as_int = props(&[
        ("transforms", "hoist,cast"),
        ("transforms.cast.type", "org.apache.kafka.connect.transforms.Cast$Value"),
        ("transforms.cast.spec", "line:int32"),
    ]);
    let mut strict = lines_source(&second, &topic, "line", converter(AVRO, &url, &[]));
    strict.extend(as_int.clone());
    create(&app, "compat-strict", strict).await;
    let task = t("compat-strict", 0);
    let trace = eventually(30, "the strict task to fail", async || {
        let status = app.herder.task_status("compat-strict", 0).ok()?;
        (status.state == State::Failed).then(|| status.trace.unwrap_or_default())
    })
    .await;
    assert!(trace.contains("409"), "the trace does not show the refusal: {trace}");
    assert_eq!(crate::harness::state(&app, &task).await, Some(State::Failed));

    let mut tolerant = lines_source(&second, &topic, "line", converter(AVRO, &url, &[]));
    tolerant.extend(as_int);
    tolerant.extend(props(&[("errors.tolerance", "all"), ("errors.log.enable", "true")]));
    create(&app, "compat-tolerant", tolerant).await;
    wait_state(&app, t("compat-tolerant", 0), State::Running).await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert_eq!(lines(&out), [r#"{"line":"a"}"#, r#"{"line":"b"}"#], "a refused record was written");
    assert_eq!(crate::harness::state(&app, &t("compat-tolerant", 0)).await, Some(State::Running));
    let versions = get(&url, &format!("subjects/{topic}-value/versions")).await;
    assert_eq!(versions, serde_json::json!([1]));
    app.shutdown().await;
}

async fn basic_auth_with_the_right_password_only(b: Backing) {
    let get_env = |k| std::env::var(k).ok().filter(|v: &String| !v.is_empty());
    let (Some(url), Some(user_info)) =
        (get_env("SCHEMA_REGISTRY_AUTH_URL"), get_env("SCHEMA_REGISTRY_AUTH_USER_INFO"))
    else {
        eprintln!("SCHEMA_REGISTRY_AUTH_URL unset (see scripts/test.sh): skipped");
        return;
    };
    let (user, password) = user_info.split_once(':').unwrap();
    let wrong = format!("{user}:not-{password}");
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.txt");
    std::fs::write(&input, "x\ny\n").unwrap();
    let topic = unique("sr-auth");
    let app = b.start().await;
    let auth = |info: &str| {
        converter(
            PROTOBUF,
            &url,
            &[("basic.auth.credentials.source", "USER_INFO"), ("basic.auth.user.info", info)],
        )
    };
    create(&app, "auth-src", lines_source(&input, &topic, "line", auth(&user_info))).await;
    let out = dir.path().join("out.txt");
    create(&app, "auth-out", file_sink(&out, &topic, auth(&user_info))).await;
    assert_eq!(wait_lines(&out, 2).await, [r#"{"line":"x"}"#, r#"{"line":"y"}"#]);

    let denied = dir.path().join("denied.txt");
    create(&app, "auth-denied", file_sink(&denied, &topic, auth(&wrong))).await;
    let trace = eventually(30, "the denied task to fail", async || {
        let status = app.herder.task_status("auth-denied", 0).ok()?;
        (status.state == State::Failed).then(|| status.trace.unwrap_or_default())
    })
    .await;
    assert!(trace.contains("401"), "{trace}");
    assert!(!trace.contains(password) && !trace.contains(&wrong), "a password in {trace}");
    assert!(lines(&denied).is_empty());
    app.shutdown().await;
}

on_both_backends!(
    every_column_type_through_each_format,
    a_registry_out_of_reach_loses_nothing,
    a_change_the_subject_refuses_fails_or_is_tolerated,
    basic_auth_with_the_right_password_only,
);
