//! Change data capture from PostgreSQL (`build/plugins/postgres-cdc.wasm`,
//! `io.debezium.connector.postgresql.PostgresConnector`) against the real server of
//! scripts/postgres.sh (`wal_level=logical`, a user with REPLICATION). Without
//! `POSTGRES_URL` these tests print a note and pass.
//!
//! - the scenario of `tests/cdc/` (every column type, both replica identities, deletes and
//!   tombstones, a primary-key change, a multi-statement transaction with transaction
//!   metadata, logical decoding messages, TRUNCATE, a TOASTed column left untouched) on
//!   both backends: snapshot, then streaming; the topics are compared event by event with
//!   Debezium 3.6.1's capture of the same scenario (`tests/cdc/debezium-3.6.1`) by
//!   `scripts/compare-cdc-events.py`, which masks only the volatile fields and knows the
//!   deliberate differences;
//! - the database going away mid-stream (a forwarder in front of it stops and starts
//!   again), on both backends: the task stays RUNNING, and every change arrives once;
//! - `kill -9` of a worker process mid-stream, and its restart: every change; none twice on
//!   the embedded store under exactly-once;
//! - a table added to `table.include.list` while running, on both backends;
//! - a slot dropped under a connector with offsets fails its task saying what to do;
//! - heartbeats, and their action query.
//!
//! The scenario's schema is `cdc` (the captured names must match Debezium's), so the tests
//! that load it take [`SCENARIO`] in turn; the others use schemas and slots of their own.

use std::collections::BTreeMap;
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};
use wasm_connect::app::App;
use wasm_connect::model::{Properties, State};

use crate::harness::{Backing, eventually, props, t};
use crate::postgres::{Pg, Running, pg};
use crate::support::root;
use crate::topic_records::{Rec, read_topic};

/// The scenario's schema is shared: one test at a time loads it.
static SCENARIO: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

const JSON: &str = "org.apache.kafka.connect.json.JsonConverter";

fn unique(prefix: &str) -> String {
    let nanos =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
    format!("{prefix}{nanos}")
}

impl Rec {
    fn value(&self) -> Value {
        self.value.as_deref().map_or(Value::Null, |v| serde_json::from_str(v).unwrap())
    }

    fn payload(&self) -> Value {
        self.value()["payload"].clone()
    }

    /// As scripts/lib/TopicDump.java writes it.
    fn dump(&self, topic: &str, offset: usize) -> Value {
        let headers: Vec<Value> = self.headers.iter().map(|(k, v)| json!([k, v])).collect();
        json!({"topic": topic, "partition": 0, "offset": offset, "key": self.key,
               "value": self.value, "headers": headers})
    }
}

/// Waits until `topic` holds at least `n` records; returns them.
async fn wait_records(b: &Backing, topic: &str, n: usize) -> Vec<Rec> {
    eventually(120, &format!("{n} records on {topic}"), async || {
        let records = read_topic(b, topic).await;
        (records.len() >= n).then_some(records)
    })
    .await
}

impl Pg {
    fn port_number(&self) -> u16 {
        let rest = self.url.rsplit("://").next().unwrap();
        rest.split('/').next().unwrap().rsplit(':').next().unwrap().parse().unwrap()
    }

    fn dbname(&self) -> String {
        self.url.rsplit('/').next().unwrap().split('?').next().unwrap().to_owned()
    }

    /// Runs the statements of `sql` one by one (each its own transaction unless it says
    /// BEGIN), with `schema` first on the search path.
    fn script(&self, schema: &str, sql: &str) {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("script.sql");
        std::fs::write(&file, format!("SET search_path TO {schema}, public;\n{sql}")).unwrap();
        let libpq = self.url.replace("jdbc:postgresql://", &format!("postgresql://{}@", self.user));
        let out = Command::new("psql")
            .args([libpq.as_str(), "-X", "-q", "-v", "ON_ERROR_STOP=1", "-f"])
            .arg(&file)
            .env("PGPASSWORD", &self.password)
            .output()
            .expect("psql runs");
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }

    /// The connector config for `prefix` (its slot and publication named after it),
    /// reaching the server at `port`.
    fn cdc_config(&self, prefix: &str, port: u16, extra: &[(&str, &str)]) -> Properties {
        let port = port.to_string();
        let db = self.dbname();
        let publication = format!("{prefix}_pub");
        let mut p = props(&[
            ("connector.class", "io.debezium.connector.postgresql.PostgresConnector"),
            ("tasks.max", "1"),
            ("database.hostname", "127.0.0.1"),
            ("database.port", &port),
            ("database.dbname", &db),
            ("database.user", &self.user),
            ("database.password", &self.password),
            ("topic.prefix", prefix),
            ("slot.name", prefix),
            ("publication.name", &publication),
            ("plugin.name", "pgoutput"),
            ("publication.autocreate.mode", "filtered"),
            ("snapshot.mode", "initial"),
            ("skipped.operations", "none"),
            ("provide.transaction.metadata", "true"),
            ("key.converter", JSON),
            ("value.converter", JSON),
        ]);
        p.extend(props(extra));
        p
    }

    /// Drops the slot and publication of `prefix` (the slot once no walsender holds it).
    async fn drop_cdc(&self, prefix: &str) {
        let active = format!(
            "SELECT count(*) FROM pg_replication_slots WHERE slot_name = '{prefix}' AND active"
        );
        let _ = tokio::time::timeout(Duration::from_secs(30), async {
            while self.sql(&active) != "0" {
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
        })
        .await;
        self.sql(&format!(
            "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = '{prefix}'; \
             DROP PUBLICATION IF EXISTS {prefix}_pub"
        ));
    }

    /// Waits until the walsender of slot `slot` streams (the snapshot is over).
    async fn wait_streaming(&self, slot: &str) {
        crate::postgres::wait_sql(self, &streaming(slot), "1").await;
    }

    /// [`Pg::wait_streaming`] for connector `name` of `app`, whose task's trace the
    /// failure shows.
    async fn wait_task_streaming(&self, app: &App, name: &str, slot: &str) {
        let task = t(name, 0);
        let query = streaming(slot);
        let deadline = std::time::Instant::now() + Duration::from_secs(90);
        loop {
            let state = crate::harness::state(app, &task).await;
            let trace = || app.herder.task_status(name, 0).ok().and_then(|s| s.trace);
            assert_ne!(state, Some(State::Failed), "{name} failed: {:?}", trace());
            if self.sql(&query) == "1" {
                return;
            }
            let slots = self.sql(
                "SELECT string_agg(slot_name || ':' || active, ',') FROM pg_replication_slots",
            );
            assert!(
                std::time::Instant::now() < deadline,
                "slot {slot} not streaming; task {state:?} {:?}; slots {slots}",
                trace()
            );
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
}

/// Counts 1 once a walsender streams slot `slot` (the snapshot is over). Read from
/// `pg_stat_activity`, which shows the test user its own walsenders' commands
/// (`pg_stat_replication.state` needs `pg_read_all_stats`).
fn streaming(slot: &str) -> String {
    format!(
        "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'walsender' \
         AND query LIKE 'START_REPLICATION SLOT \"{slot}\"%'"
    )
}

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

fn scenario(file: &str) -> String {
    std::fs::read_to_string(root().join("tests/cdc").join(file)).unwrap()
}

/// The reference capture: topic (without the `dbz` prefix) → record count.
fn reference_counts() -> BTreeMap<String, usize> {
    let dir = root().join("tests/cdc/debezium-3.6.1");
    std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| {
            let name = e.unwrap().file_name().into_string().unwrap();
            let topic = name.strip_suffix(".jsonl")?.strip_prefix("dbz")?.to_owned();
            let text = std::fs::read_to_string(dir.join(&name)).unwrap();
            Some((topic, text.lines().filter(|l| !l.trim().is_empty()).count()))
        })
        .collect()
}

async fn create(app: &App, name: &str, config: Properties) {
    app.herder.put_connector_config(name, config, None, true).await.unwrap();
}

/// The scenario of `tests/cdc/`, snapshot and stream, compared with Debezium's capture.
async fn scenario_matches_debezium_event_by_event(b: Backing) {
    let pg = pg_or_skip!();
    let _scenario = SCENARIO.lock().await;
    let prefix = unique("wc");
    pg.sql("DROP SCHEMA IF EXISTS cdc CASCADE; CREATE SCHEMA cdc");
    pg.script("cdc", &scenario("schema.sql"));
    pg.script("cdc", &scenario("snapshot.sql"));
    let app = b.start_with(&[("offset.flush.interval.ms", "500")]).await;
    let config = pg.cdc_config(&prefix, pg.port_number(), &[("schema.include.list", "cdc")]);
    create(&app, "cdc", config).await;
    pg.wait_task_streaming(&app, "cdc", &prefix).await;
    pg.script("cdc", &scenario("changes.sql"));
    let counts = reference_counts();
    let dir = tempfile::tempdir().unwrap();
    for (suffix, n) in &counts {
        let topic = format!("{prefix}{suffix}");
        let records = wait_records(&b, &topic, *n).await;
        let lines: Vec<String> =
            records.iter().enumerate().map(|(i, r)| r.dump(&topic, i).to_string()).collect();
        std::fs::write(dir.path().join(format!("{topic}.jsonl")), lines.join("\n") + "\n").unwrap();
    }
    // Nothing more arrives: one more second, then the counts must not have grown.
    tokio::time::sleep(Duration::from_secs(1)).await;
    for (suffix, n) in &counts {
        let topic = format!("{prefix}{suffix}");
        assert_eq!(
            read_topic(&b, &topic).await.len(),
            *n,
            "{topic}: no record more than Debezium's"
        );
    }
    app.shutdown().await;
    pg.drop_cdc(&prefix).await;
    let report = dir.path().join("report.md");
    let out = Command::new("python3")
        .arg(root().join("scripts/compare-cdc-events.py"))
        .arg(root().join("tests/cdc/debezium-3.6.1"))
        .arg(dir.path())
        .args(["--to", &prefix, "--report"])
        .arg(&report)
        .output()
        .unwrap();
    eprintln!("{}", String::from_utf8_lossy(&out.stdout));
    assert!(
        out.status.success(),
        "the events differ from Debezium's:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        std::fs::read_to_string(&report).unwrap_or_default()
    );
}

on_both_backends!(
    scenario_matches_debezium_event_by_event,
    a_database_that_goes_away_loses_nothing,
    a_table_added_to_the_include_list_is_captured,
);

/// A loopback forwarder to the server that can be stopped (every connection cut) and
/// started again on the same port.
struct Forwarder {
    port: u16,
    upstream: u16,
    task: Option<tokio::task::JoinHandle<()>>,
}

impl Forwarder {
    async fn start(upstream: u16) -> Self {
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let mut f = Self { port, upstream, task: None };
        f.up().await;
        f
    }

    async fn up(&mut self) {
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", self.port)).await.unwrap();
        let upstream = self.upstream;
        self.task = Some(tokio::spawn(async move {
            let mut set = tokio::task::JoinSet::new();
            loop {
                let Ok((mut inbound, _)) = listener.accept().await else { return };
                set.spawn(async move {
                    if let Ok(mut out) =
                        tokio::net::TcpStream::connect(("127.0.0.1", upstream)).await
                    {
                        let _ = tokio::io::copy_bidirectional(&mut inbound, &mut out).await;
                    }
                });
            }
        }));
    }

    /// Stops listening and cuts every connection (the JoinSet aborts them when dropped).
    fn down(&mut self) {
        if let Some(task) = self.task.take() {
            task.abort();
        }
    }
}

/// The ids of the `c` events of `records`, in order.
fn created_ids(records: &[Rec]) -> Vec<i64> {
    records
        .iter()
        .filter(|r| r.payload()["op"] == "c")
        .map(|r| r.payload()["after"]["id"].as_i64().unwrap())
        .collect()
}

/// The database goes away mid-stream: the task stays RUNNING (retriable failures, backed
/// off), and once it is back every change arrives exactly once.
async fn a_database_that_goes_away_loses_nothing(b: Backing) {
    let pg = pg_or_skip!();
    let (prefix, schema) = (unique("wcd"), unique("cdc_down"));
    pg.sql(&format!(
        "CREATE SCHEMA {schema}; CREATE TABLE {schema}.t (id int PRIMARY KEY, v text)"
    ));
    let mut forwarder = Forwarder::start(pg.port_number()).await;
    let app = b.start_with(&[("offset.flush.interval.ms", "300")]).await;
    let config = pg.cdc_config(
        &prefix,
        forwarder.port,
        &[("schema.include.list", &schema), ("provide.transaction.metadata", "false")],
    );
    create(&app, "cdc-down", config).await;
    pg.wait_task_streaming(&app, "cdc-down", &prefix).await;
    let topic = format!("{prefix}.{schema}.t");
    let insert = |from: i64, to: i64| {
        pg.sql(&format!(
            "INSERT INTO {schema}.t SELECT g, 'v' || g FROM generate_series({from}, {to}) g"
        ))
    };
    insert(1, 50);
    wait_records(&b, &topic, 50).await;
    forwarder.down();
    insert(51, 100);
    tokio::time::sleep(Duration::from_secs(3)).await;
    let task = t("cdc-down", 0);
    assert_eq!(
        crate::harness::state(&app, &task).await,
        Some(State::Running),
        "retriable, not FAILED"
    );
    forwarder.up().await;
    insert(101, 150);
    let records = wait_records(&b, &topic, 150).await;
    tokio::time::sleep(Duration::from_secs(1)).await;
    let records = if records.len() == 150 { read_topic(&b, &topic).await } else { records };
    assert_eq!(created_ids(&records), (1..=150).collect::<Vec<_>>(), "every change once, in order");
    app.shutdown().await;
    forwarder.down();
    pg.drop_cdc(&prefix).await;
    pg.sql(&format!("DROP SCHEMA {schema} CASCADE"));
}

/// `kill -9` of a standalone worker mid-stream, then its restart: every change arrives. On
/// the embedded store with `exactly.once.source.support=enabled`, records and offsets
/// commit in one transaction, so the restart resumes right after the last record written
/// and none repeats; on Kafka (at least once) the records after the last flushed offset may
/// come again, but none is lost.
async fn kill_9_mid_stream(bootstrap: Option<String>) {
    let pg = pg_or_skip!();
    let (prefix, schema) = (unique("wck"), unique("cdc_kill"));
    pg.sql(&format!(
        "CREATE SCHEMA {schema}; CREATE TABLE {schema}.t (id int PRIMARY KEY, v text)"
    ));
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("worker.db");
    let worker = dir.path().join("worker.properties");
    let mut w = format!(
        "plugin.path={}\nlisteners=http://127.0.0.1:0\noffset.storage.file.filename={}\n\
         offset.flush.interval.ms=200\n",
        root().join("build/plugins").display(),
        db.display()
    );
    match &bootstrap {
        Some(b) => w.push_str(&format!("bootstrap.servers={b}\n")),
        None => w.push_str("exactly.once.source.support=enabled\n"),
    }
    std::fs::write(&worker, w).unwrap();
    let config = pg.cdc_config(
        &prefix,
        pg.port_number(),
        &[("schema.include.list", &schema), ("provide.transaction.metadata", "false")],
    );
    let file = dir.path().join("cdc.json");
    std::fs::write(&file, json!({"name": "cdc-kill", "config": config}).to_string()).unwrap();
    let spawn = || {
        Running(
            Command::new(env!("CARGO_BIN_EXE_wasm-connect"))
                .arg("standalone")
                .arg(&worker)
                .arg(&file)
                .arg("--cache-dir")
                .arg(crate::harness::shared_cache_dir())
                .env("RUST_LOG", "warn")
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap(),
        )
    };
    let b = match &bootstrap {
        Some(bootstrap) => Backing::Kafka(String::new(), bootstrap.clone()),
        None => Backing::Embedded(db.clone()),
    };
    let topic = format!("{prefix}.{schema}.t");
    let child = spawn();
    pg.wait_streaming(&prefix).await;
    // Many small transactions, so the kill lands mid-stream.
    for i in 0..20 {
        pg.sql(&format!(
            "INSERT INTO {schema}.t SELECT g, 'v' FROM generate_series({}, {}) g",
            i * 10 + 1,
            i * 10 + 10
        ));
    }
    wait_records(&b, &topic, 60).await;
    drop(child);
    for i in 20..30 {
        pg.sql(&format!(
            "INSERT INTO {schema}.t SELECT g, 'v' FROM generate_series({}, {}) g",
            i * 10 + 1,
            i * 10 + 10
        ));
    }
    let child = spawn();
    wait_records(&b, &topic, 300).await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    let records = read_topic(&b, &topic).await;
    let ids = created_ids(&records);
    let mut unique_ids = ids.clone();
    unique_ids.sort_unstable();
    unique_ids.dedup();
    assert_eq!(unique_ids, (1..=300).collect::<Vec<_>>(), "no change lost");
    if bootstrap.is_none() {
        assert_eq!(ids.len(), 300, "no change repeated");
    }
    drop(child);
    pg.drop_cdc(&prefix).await;
    pg.sql(&format!("DROP SCHEMA {schema} CASCADE"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_9_mid_stream_embedded_loses_and_repeats_nothing() {
    kill_9_mid_stream(None).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_9_mid_stream_kafka_loses_nothing() {
    kill_9_mid_stream(Some(crate::harness::bootstrap())).await;
}

/// A table added to `table.include.list` while running is streamed from then on; a table
/// left out never is.
async fn a_table_added_to_the_include_list_is_captured(b: Backing) {
    let pg = pg_or_skip!();
    let (prefix, schema) = (unique("wca"), unique("cdc_add"));
    pg.sql(&format!(
        "CREATE SCHEMA {schema}; CREATE TABLE {schema}.a (id int PRIMARY KEY); \
         CREATE TABLE {schema}.b (id int PRIMARY KEY)"
    ));
    let app = b.start_with(&[("offset.flush.interval.ms", "300")]).await;
    let only_a = format!("{schema}.a");
    let both = format!("{schema}.a,{schema}.b");
    let config = |tables: &str| {
        pg.cdc_config(
            &prefix,
            pg.port_number(),
            &[("table.include.list", tables), ("provide.transaction.metadata", "false")],
        )
    };
    create(&app, "cdc-add", config(&only_a)).await;
    pg.wait_task_streaming(&app, "cdc-add", &prefix).await;
    pg.sql(&format!("INSERT INTO {schema}.a VALUES (1); INSERT INTO {schema}.b VALUES (1)"));
    let (ta, tb) = (format!("{prefix}.{schema}.a"), format!("{prefix}.{schema}.b"));
    wait_records(&b, &ta, 1).await;
    let walsender = format!(
        "SELECT string_agg(pid::text, ',') FROM pg_stat_activity WHERE backend_type = 'walsender' AND query LIKE 'START_REPLICATION SLOT \"{prefix}\"%'"
    );
    let before = pg.sql(&walsender);
    create(&app, "cdc-add", config(&both)).await;
    // The task restarted with the new list: a new walsender streams, after the publication
    // took the table in (changes decoded before that are not published, as for Debezium).
    eventually(90, "a new walsender", async || {
        let now = pg.sql(&walsender);
        (!now.is_empty() && !now.contains(',') && now != before).then_some(())
    })
    .await;
    pg.sql(&format!("INSERT INTO {schema}.a VALUES (2); INSERT INTO {schema}.b VALUES (2)"));
    let a = wait_records(&b, &ta, 2).await;
    let bs = wait_records(&b, &tb, 1).await;
    assert_eq!(created_ids(&a), [1, 2]);
    assert_eq!(created_ids(&bs), [2], "b is captured from the change on, its earlier row not");
    app.shutdown().await;
    pg.drop_cdc(&prefix).await;
    pg.sql(&format!("DROP SCHEMA {schema} CASCADE"));
}

/// A slot dropped while the connector has offsets: the task fails, and its trace says what
/// happened and what to do.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_slot_fails_the_task_saying_what_to_do() {
    let pg = pg_or_skip!();
    let (prefix, schema) = (unique("wcs"), unique("cdc_slot"));
    pg.sql(&format!("CREATE SCHEMA {schema}; CREATE TABLE {schema}.t (id int PRIMARY KEY)"));
    let dir = tempfile::tempdir().unwrap();
    let b = Backing::embedded(&dir);
    let app = b.start_with(&[("offset.flush.interval.ms", "200")]).await;
    let config = pg.cdc_config(&prefix, pg.port_number(), &[("schema.include.list", &schema)]);
    create(&app, "cdc-slot", config.clone()).await;
    pg.wait_task_streaming(&app, "cdc-slot", &prefix).await;
    pg.sql(&format!("INSERT INTO {schema}.t VALUES (1)"));
    wait_records(&b, &format!("{prefix}.{schema}.t"), 1).await;
    tokio::time::sleep(Duration::from_secs(1)).await;
    app.herder.delete_connector("cdc-slot").await.ok();
    pg.drop_cdc(&prefix).await;
    // The same connector again: its offsets are still there, its slot is not.
    create(&app, "cdc-slot", config).await;
    let task = t("cdc-slot", 0);
    crate::harness::wait_state(&app, task.clone(), State::Failed).await;
    let status = app.herder.task_status("cdc-slot", 0).unwrap();
    let trace = status.trace.unwrap_or_default();
    assert!(trace.contains(&format!("Replication slot '{prefix}' does not exist")), "{trace}");
    assert!(trace.contains("reset its offsets"), "{trace}");
    app.shutdown().await;
    pg.drop_cdc(&prefix).await;
    pg.sql(&format!("DROP SCHEMA {schema} CASCADE"));
}

/// Heartbeats: with `heartbeat.interval.ms`, records on `__debezium-heartbeat.<prefix>`
/// (key `serverName`, value `ts_ms`) while nothing is captured, and
/// `heartbeat.action.query` runs on each, so an idle slot's WAL can be let go of.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn heartbeats_run_their_action_query() {
    let pg = pg_or_skip!();
    let (prefix, schema) = (unique("wch"), unique("cdc_hb"));
    pg.sql(&format!(
        "CREATE SCHEMA {schema}; CREATE TABLE {schema}.t (id int PRIMARY KEY); \
         CREATE TABLE {schema}.beats (at timestamptz NOT NULL)"
    ));
    let dir = tempfile::tempdir().unwrap();
    let b = Backing::embedded(&dir);
    let app = b.start_with(&[("offset.flush.interval.ms", "300")]).await;
    let query = format!("INSERT INTO {schema}.beats VALUES (now())");
    let config = pg.cdc_config(
        &prefix,
        pg.port_number(),
        &[
            ("table.include.list", &format!("{schema}.t")),
            ("heartbeat.interval.ms", "300"),
            ("heartbeat.action.query", &query),
        ],
    );
    create(&app, "cdc-hb", config).await;
    pg.wait_task_streaming(&app, "cdc-hb", &prefix).await;
    let beats = wait_records(&b, &format!("__debezium-heartbeat.{prefix}"), 3).await;
    let key: Value = serde_json::from_str(beats[0].key.as_deref().unwrap()).unwrap();
    assert_eq!(key["payload"], json!({"serverName": prefix}));
    assert_eq!(key["schema"]["name"], "io.debezium.connector.common.ServerNameKey");
    assert!(beats[0].payload()["ts_ms"].as_i64().unwrap() > 1_600_000_000_000);
    let count = format!("SELECT (count(*) >= 3)::text FROM {schema}.beats");
    crate::postgres::wait_sql(&pg, &count, "true").await;
    app.shutdown().await;
    pg.drop_cdc(&prefix).await;
    pg.sql(&format!("DROP SCHEMA {schema} CASCADE"));
}
