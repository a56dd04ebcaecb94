//! The PostgreSQL connectors (`build/plugins/postgres-{sink,source}.wasm`) against a real
//! server: scripts/postgres.sh starts one and scripts/test.sh exports `POSTGRES_URL`,
//! `POSTGRES_USER` and `POSTGRES_PASSWORD`. Without them (a bare `cargo test`) these tests
//! print a note and pass.
//!
//! - the sink on both backends: FileStreamSource → topic → JdbcSinkConnector (insert,
//!   upsert, tombstone deletes, a row the table's CHECK rejects to the dead letter queue);
//! - the sink on both backends when the server is down at first: retriable, RUNNING,
//!   and the rows land once it answers;
//! - the source on both backends: incrementing and timestamp tables read while rows are
//!   added, with the JDBC source's struct schema on the topic;
//! - kill -9 of a worker process running source → topic → sink, and its restart: every
//!   row once in the destination table, none lost, none repeated;
//! - the sandbox: a task granted the server's port cannot connect to any other port.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use wasm_connect::app::App;
use wasm_connect::model::{Properties, State};

use crate::harness::{Backing, eventually, props, t};
use crate::support::{cfg, connector, no_host, root, task};

/// The test server, from scripts/postgres.sh's variables.
pub(crate) struct Pg {
    pub(crate) url: String,
    pub(crate) user: String,
    pub(crate) password: String,
}

pub(crate) fn pg() -> Option<Pg> {
    let get = |k| std::env::var(k).ok().filter(|v: &String| !v.is_empty());
    let pg = Pg {
        url: get("POSTGRES_URL")?,
        user: get("POSTGRES_USER")?,
        password: get("POSTGRES_PASSWORD")?,
    };
    Some(pg)
}

/// Returns from the test when there is no server.
macro_rules! pg_or_skip {
    () => {
        match pg() {
            Some(pg) => pg,
            None => {
                eprintln!("POSTGRES_URL unset (scripts/postgres.sh start): skipped");
                return;
            }
        }
    };
}

impl Pg {
    /// The port of the server.
    fn port(&self) -> u16 {
        let rest = self.url.rsplit("://").next().unwrap();
        rest.split('/').next().unwrap().rsplit(':').next().unwrap().parse().unwrap()
    }

    /// Runs `sql` with psql as the test user; returns its unaligned output.
    pub(crate) fn sql(&self, sql: &str) -> String {
        let libpq = self.url.replace("jdbc:postgresql://", &format!("postgresql://{}@", self.user));
        let out = Command::new("psql")
            .args([libpq.as_str(), "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", "-c", sql])
            .env("PGPASSWORD", &self.password)
            .output()
            .expect("psql runs");
        assert!(out.status.success(), "{sql}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap().trim().to_owned()
    }

    /// The keys every connector config of these tests shares.
    pub(crate) fn connection(&self) -> Vec<(&str, &str)> {
        vec![
            ("connection.url", self.url.as_str()),
            ("connection.user", self.user.as_str()),
            ("connection.password", self.password.as_str()),
        ]
    }
}

/// A name no earlier run used (tables, topics and connectors outlive a test).
fn unique(prefix: &str) -> String {
    let nanos =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
    format!("{prefix}_{nanos}")
}

async fn create(app: &App, name: &str, config: Properties) {
    app.herder.put_connector_config(name, config, None, false).await.unwrap();
}

/// Waits until `query` answers `want`.
pub(crate) async fn wait_sql(pg: &Pg, query: &str, want: &str) {
    let mut last = String::new();
    let found = tokio::time::timeout(Duration::from_secs(60), async {
        loop {
            last = pg.sql(query);
            if last == want {
                return;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    })
    .await;
    assert!(found.is_ok(), "{query}: wanted {want:?}, last {last:?}");
}

pub(crate) fn lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .map(|s| s.lines().map(str::to_owned).collect())
        .unwrap_or_default()
}

pub(crate) async fn wait_lines(path: &Path, n: usize) -> Vec<String> {
    eventually(60, &format!("{n} lines in {}", path.display()), async || {
        let l = lines(path);
        (l.len() >= n).then_some(l)
    })
    .await
}

const KEY_SCHEMA: &str = r#"{"type":"struct","fields":[{"field":"id","type":"int64","optional":false}],"optional":false}"#;
const VALUE_SCHEMA: &str = r#"{"type":"struct","name":"item","fields":[{"field":"id","type":"int64","optional":false},{"field":"name","type":"string","optional":true},{"field":"qty","type":"int32","optional":true}],"optional":false}"#;

fn value(id: i64, name: &str, qty: i32) -> String {
    format!(r#"{{"schema":{VALUE_SCHEMA},"payload":{{"id":{id},"name":"{name}","qty":{qty}}}}}"#)
}

fn key(id: i64) -> String {
    format!(r#"{{"schema":{KEY_SCHEMA},"payload":{{"id":{id}}}}}"#)
}

/// Appends keyed records (`None` value: a tombstone) to `topic` on `b`'s data topics.
async fn produce(b: &Backing, topic: &str, records: Vec<(String, Option<String>)>) {
    match b {
        Backing::Embedded(db) => {
            let backend = wasm_connect::store::EmbeddedBackend::open(db).unwrap();
            let records = records
                .into_iter()
                .map(|(k, v)| wasm_connect::store::DataRecord {
                    topic: topic.to_owned(),
                    partition: None,
                    timestamp_ms: None,
                    key: Some(k.into_bytes()),
                    value: v.map(String::into_bytes),
                    headers: Vec::new(),
                })
                .collect();
            backend.append_data(records).await.unwrap();
        }
        Backing::Kafka(_, bootstrap) => {
            use rdkafka::producer::{BaseProducer, BaseRecord, Producer};
            let producer: BaseProducer =
                rdkafka::ClientConfig::new().set("bootstrap.servers", bootstrap).create().unwrap();
            for (k, v) in &records {
                let record = BaseRecord::<String, String>::to(topic).key(k);
                let record = match v {
                    Some(v) => record.payload(v),
                    None => record,
                };
                producer.send(record).map_err(|(e, _)| e).unwrap();
            }
            producer.flush(Duration::from_secs(10)).unwrap();
        }
    }
}

async fn sink_inserts_upserts_deletes_and_routes_a_bad_row(b: Backing) {
    let pg = pg_or_skip!();
    let table = unique("pg_sink");
    pg.sql(&format!(
        "CREATE TABLE {table} (id BIGINT PRIMARY KEY, name TEXT, qty INT CHECK (qty >= 0))"
    ));
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.txt");
    let rows: Vec<String> = [(1, "one", 1), (2, "two", 2), (3, "bad", -3), (4, "four", 4)]
        .iter()
        .map(|(id, name, qty)| value(*id, name, *qty))
        .collect();
    std::fs::write(&input, rows.join("\n") + "\n").unwrap();
    let app = b.start_with(&[("offset.flush.interval.ms", "500")]).await;
    let dlq = format!("{table}-dlq");
    let string = "org.apache.kafka.connect.storage.StringConverter";
    let json = "org.apache.kafka.connect.json.JsonConverter";
    create(
        &app,
        &format!("{table}-src"),
        props(&[
            ("connector.class", "FileStreamSource"),
            ("file", input.to_str().unwrap()),
            ("topic", &table),
            ("value.converter", string),
        ]),
    )
    .await;
    let mut sink = props(&[
        ("connector.class", "JdbcSinkConnector"),
        ("topics", &table),
        ("key.converter", json),
        ("key.converter.schemas.enable", "true"),
        ("value.converter", json),
        ("value.converter.schemas.enable", "true"),
        ("insert.mode", "upsert"),
        ("pk.mode", "record_key"),
        ("pk.fields", "id"),
        ("delete.enabled", "true"),
        // FileStreamSource's records have no key: take it from the value, but not from a
        // tombstone (which has none to take).
        ("transforms", "key"),
        ("transforms.key.type", "ValueToKey"),
        ("transforms.key.fields", "id"),
        ("transforms.key.predicate", "tombstone"),
        ("transforms.key.negate", "true"),
        ("predicates", "tombstone"),
        ("predicates.tombstone.type", "RecordIsTombstone"),
        ("errors.tolerance", "all"),
        ("errors.deadletterqueue.topic.name", &dlq),
        ("errors.deadletterqueue.topic.replication.factor", "1"),
    ]);
    sink.extend(props(&pg.connection()));
    create(&app, &format!("{table}-snk"), sink).await;
    let all =
        format!("SELECT string_agg(id || ':' || name || ':' || qty, ',' ORDER BY id) FROM {table}");
    wait_sql(&pg, &all, "1:one:1,2:two:2,4:four:4").await;

    // The rejected row went to the dead letter queue, as it was on the topic.
    let dead = dir.path().join("dead.txt");
    create(
        &app,
        &format!("{table}-dead"),
        props(&[
            ("connector.class", "FileStreamSink"),
            ("file", dead.to_str().unwrap()),
            ("topics", &dlq),
            ("value.converter", string),
        ]),
    )
    .await;
    assert_eq!(wait_lines(&dead, 1).await, [rows[2].clone()]);

    // An upsert of a key that exists, and a tombstone that deletes a row.
    produce(&b, &table, vec![(key(2), Some(value(2, "TWO", 22))), (key(1), None)]).await;
    wait_sql(&pg, &all, "2:TWO:22,4:four:4").await;
    let task = t(&format!("{table}-snk"), 0);
    assert_eq!(crate::harness::state(&app, &task).await, Some(State::Running));
    app.shutdown().await;
    pg.sql(&format!("DROP TABLE {table}"));
}

async fn source_reads_new_rows_while_running(b: Backing) {
    let pg = pg_or_skip!();
    let (inc, ts) = (unique("pg_inc"), unique("pg_ts"));
    for t in [&inc, &ts] {
        pg.sql(&format!(
            "CREATE TABLE {t} (id SERIAL PRIMARY KEY, name TEXT NOT NULL, \
             at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp()); \
             INSERT INTO {t} (name) VALUES ('a'), ('b'), ('c')"
        ));
    }
    let dir = tempfile::tempdir().unwrap();
    let app = b.start_with(&[("offset.flush.interval.ms", "500")]).await;
    let json = "org.apache.kafka.connect.json.JsonConverter";
    for (table, mode) in [(&inc, "incrementing"), (&ts, "timestamp")] {
        let mut source = props(&[
            ("connector.class", "io.confluent.connect.jdbc.JdbcSourceConnector"),
            ("mode", mode),
            ("incrementing.column.name", "id"),
            ("timestamp.column.name", "at"),
            ("table.whitelist", table),
            ("topic.prefix", "pg-"),
            ("poll.interval.ms", "200"),
            ("value.converter", json),
            ("value.converter.schemas.enable", "true"),
        ]);
        source.extend(props(&pg.connection()));
        create(&app, &format!("{table}-src"), source).await;
        let out = dir.path().join(format!("{table}.txt"));
        create(
            &app,
            &format!("{table}-snk"),
            props(&[
                ("connector.class", "FileStreamSink"),
                ("file", out.to_str().unwrap()),
                ("topics", &format!("pg-{table}")),
                ("value.converter", "org.apache.kafka.connect.storage.StringConverter"),
            ]),
        )
        .await;
    }
    for table in [&inc, &ts] {
        let out = dir.path().join(format!("{table}.txt"));
        let first = wait_lines(&out, 3).await;
        let v: serde_json::Value = serde_json::from_str(&first[0]).unwrap();
        assert_eq!(v["schema"]["type"], "struct", "{v}");
        assert_eq!(v["schema"]["name"], table.as_str());
        assert_eq!(
            v["schema"]["fields"][0],
            serde_json::json!({"type": "int32", "optional": false, "field": "id"})
        );
        assert_eq!(v["schema"]["fields"][2]["name"], "org.apache.kafka.connect.data.Timestamp");
        assert_eq!(v["payload"]["name"], "a");
        pg.sql(&format!("INSERT INTO {table} (name) VALUES ('d'), ('e')"));
    }
    for table in [&inc, &ts] {
        let out = dir.path().join(format!("{table}.txt"));
        wait_lines(&out, 5).await;
        tokio::time::sleep(Duration::from_millis(600)).await;
        let names: Vec<String> = lines(&out)
            .iter()
            .map(|l| {
                serde_json::from_str::<serde_json::Value>(l).unwrap()["payload"]["name"]
                    .as_str()
                    .unwrap()
                    .to_owned()
            })
            .collect();
        assert_eq!(names, ["a", "b", "c", "d", "e"], "{table}: every row once, in order");
    }
    app.shutdown().await;
    pg.sql(&format!("DROP TABLE {inc}; DROP TABLE {ts}"));
}

/// A database that is down fails `put` retriably: the task keeps RUNNING, backs off and
/// writes the rows once the server answers. The sink reaches the server through a
/// loopback forwarder that only starts listening after the rows are on their way.
async fn sink_waits_out_a_database_that_is_down(b: Backing) {
    let pg = pg_or_skip!();
    let table = unique("pg_down");
    pg.sql(&format!("CREATE TABLE {table} (id BIGINT PRIMARY KEY, name TEXT, qty INT)"));
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let url = pg.url.replace(&format!(":{}/", pg.port()), &format!(":{port}/"));
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.txt");
    std::fs::write(&input, format!("{}\n{}\n", value(1, "one", 1), value(2, "two", 2))).unwrap();
    let app = b.start_with(&[("offset.flush.interval.ms", "500")]).await;
    create(
        &app,
        &format!("{table}-src"),
        props(&[
            ("connector.class", "FileStreamSource"),
            ("file", input.to_str().unwrap()),
            ("topic", &table),
            ("value.converter", "org.apache.kafka.connect.storage.StringConverter"),
        ]),
    )
    .await;
    create(
        &app,
        &format!("{table}-snk"),
        props(&[
            ("connector.class", "JdbcSinkConnector"),
            ("topics", &table),
            ("value.converter", "org.apache.kafka.connect.json.JsonConverter"),
            ("connection.url", &url),
            ("connection.user", &pg.user),
            ("connection.password", &pg.password),
            ("max.retries", "1000"),
            ("retry.backoff.ms", "100"),
        ]),
    )
    .await;
    let task = t(&format!("{table}-snk"), 0);
    crate::harness::wait_state(&app, task.clone(), State::Running).await;
    // Time for puts to fail against the closed port; then the server "comes back".
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert_eq!(pg.sql(&format!("SELECT count(*) FROM {table}")), "0");
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await.unwrap();
    let upstream = pg.port();
    let forwarder = tokio::spawn(async move {
        loop {
            let Ok((mut inbound, _)) = listener.accept().await else { return };
            tokio::spawn(async move {
                if let Ok(mut out) = tokio::net::TcpStream::connect(("127.0.0.1", upstream)).await {
                    let _ = tokio::io::copy_bidirectional(&mut inbound, &mut out).await;
                }
            });
        }
    });
    let all = format!("SELECT string_agg(id || ':' || name, ',' ORDER BY id) FROM {table}");
    wait_sql(&pg, &all, "1:one,2:two").await;
    assert_eq!(crate::harness::state(&app, &task).await, Some(State::Running));
    app.shutdown().await;
    forwarder.abort();
    pg.sql(&format!("DROP TABLE {table}"));
}

on_both_backends!(
    sink_inserts_upserts_deletes_and_routes_a_bad_row,
    source_reads_new_rows_while_running,
    sink_waits_out_a_database_that_is_down,
);

/// A standalone worker process, killed with SIGKILL when dropped.
pub(crate) struct Running(pub(crate) Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

async fn kill_9_and_resume(bootstrap: Option<String>) {
    let pg = pg_or_skip!();
    let (src, dst) = (unique("pg_kill_src"), unique("pg_kill_dst"));
    pg.sql(&format!(
        "CREATE TABLE {src} (id SERIAL PRIMARY KEY, name TEXT NOT NULL); \
         INSERT INTO {src} (name) SELECT 'row ' || g FROM generate_series(1, 500) g"
    ));
    let dir = tempfile::tempdir().unwrap();
    let worker = dir.path().join("worker.properties");
    let mut w = format!(
        "plugin.path={}\nlisteners=http://127.0.0.1:0\noffset.storage.file.filename={}\n\
         offset.flush.interval.ms=200\n",
        root().join("build/plugins").display(),
        dir.path().join("worker.db").display(),
    );
    if let Some(b) = &bootstrap {
        w.push_str(&format!("bootstrap.servers={b}\n"));
    }
    std::fs::write(&worker, w).unwrap();
    let mut common = serde_json::json!({
        "connection.url": pg.url, "connection.user": pg.user, "connection.password": pg.password,
        "value.converter": "org.apache.kafka.connect.json.JsonConverter",
        "value.converter.schemas.enable": "true",
    });
    let topic = format!("pg-{src}");
    let mut source = common.clone();
    source.as_object_mut().unwrap().extend(
        serde_json::json!({"connector.class": "JdbcSourceConnector", "mode": "incrementing",
            "incrementing.column.name": "id", "table.whitelist": src, "topic.prefix": "pg-",
            "poll.interval.ms": "100", "batch.max.rows": "50"})
        .as_object()
        .unwrap()
        .clone(),
    );
    common.as_object_mut().unwrap().extend(
        serde_json::json!({"connector.class": "JdbcSinkConnector", "topics": topic,
            "table.name.format": dst, "auto.create": "true", "batch.size": "100"})
        .as_object()
        .unwrap()
        .clone(),
    );
    let files = [("src", source), ("snk", common)].map(|(n, config)| {
        let path = dir.path().join(format!("{n}.json"));
        let body = serde_json::json!({"name": format!("{src}-{n}"), "config": config});
        std::fs::write(&path, body.to_string()).unwrap();
        path
    });
    let spawn = || {
        Running(
            Command::new(env!("CARGO_BIN_EXE_wasm-connect"))
                .arg("standalone")
                .arg(&worker)
                .args(&files)
                .arg("--cache-dir")
                .arg(crate::harness::shared_cache_dir())
                .env("RUST_LOG", "warn")
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap(),
        )
    };
    let count = format!("SELECT count(*) || '/' || count(DISTINCT id) FROM {dst}");
    let child = spawn();
    wait_sql_or_missing(&pg, &count, "500/500").await;
    // Past a few offset flushes, so both tasks' positions are committed, then SIGKILL.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    drop(child);
    pg.sql(&format!("INSERT INTO {src} (name) SELECT 'late ' || g FROM generate_series(1, 300) g"));
    let child = spawn();
    wait_sql(&pg, &count, "800/800").await;
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(pg.sql(&count), "800/800", "no row repeated after the restart");
    drop(child);
    pg.sql(&format!("DROP TABLE {src}; DROP TABLE {dst}"));
}

/// [`wait_sql`] for a table the sink creates: a query on it fails until it exists.
async fn wait_sql_or_missing(pg: &Pg, query: &str, want: &str) {
    let table = query.rsplit(' ').next().unwrap();
    let exists =
        format!("SELECT count(*) FROM information_schema.tables WHERE table_name = '{table}'");
    wait_sql(pg, &exists, "1").await;
    wait_sql(pg, query, want).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_9_and_resume_embedded() {
    kill_9_and_resume(None).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_9_and_resume_kafka() {
    kill_9_and_resume(Some(crate::harness::bootstrap())).await;
}

/// The grant is the host and port of `connection.url`: a task whose config (the one the
/// sandbox is built from) names the server cannot reach a listener on another port, even
/// when the plugin itself is handed that port.
#[tokio::test]
async fn the_source_reaches_only_the_granted_port() {
    let pg = pg_or_skip!();
    let table = unique("pg_sandbox");
    pg.sql(&format!("CREATE TABLE {table} (id SERIAL PRIMARY KEY, name TEXT); INSERT INTO {table} (name) VALUES ('x')"));
    let other = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    other.set_nonblocking(true).unwrap();
    let other_url = pg
        .url
        .replace(&format!(":{}/", pg.port()), &format!(":{}/", other.local_addr().unwrap().port()));
    let mut pairs = pg.connection();
    pairs.extend([
        ("mode", "incrementing"),
        ("incrementing.column.name", "id"),
        ("tables", table.as_str()),
        ("topic.prefix", "pg-"),
        ("poll.interval.ms", "100"),
    ]);
    let granted = cfg(&pairs);
    let plugin = connector("postgres-source").await;

    let t =
        plugin.source_task(task(&format!("{table}-denied")), &granted, no_host()).await.unwrap();
    let mut elsewhere = granted.clone();
    elsewhere.retain(|(k, _)| k != "connection.url");
    elsewhere.push(("connection.url".into(), other_url));
    t.start(elsewhere).await.unwrap();
    let err = t.poll(10).await.expect_err("a port outside the grant is refused");
    let port = other.local_addr().unwrap().port();
    assert!(err.to_string().contains(&format!("cannot connect to 127.0.0.1:{port}")), "{err}");
    assert!(other.accept().is_err(), "the listener saw a connection from the sandbox");

    let t =
        plugin.source_task(task(&format!("{table}-granted")), &granted, no_host()).await.unwrap();
    t.start(granted).await.unwrap();
    let records = t.poll(10).await.unwrap();
    assert_eq!(records.len(), 1, "the granted server answers");
    pg.sql(&format!("DROP TABLE {table}"));
}
