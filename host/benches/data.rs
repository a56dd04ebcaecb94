//! Data-path benchmark: records/s from Datagen into Kafka and from Kafka into
//! FileStreamSink (writing a file), at 1 and 4 tasks, next to native rdkafka clients doing
//! the same work on the same broker: an idempotent `acks=all` producer (1 and 4 producers,
//! one thread each) of the same records, and a consumer group (1 and 4 members) writing the
//! same lines to a file. Prints one Markdown table with the ratios. `DATA_BENCH_EXTRA=1`
//! adds the embedded-store flows and the resident memory per running task.
//!
//! Run with `cargo bench --bench data` after `scripts/build-guests.sh`, with a broker from
//! `scripts/kafka.sh start` at `KAFKA_BOOTSTRAP` (default 127.0.0.1:9092). `DATA_BENCH_RECORDS`
//! sets the record count per flow (default 1,000,000); `DATA_BENCH_WORKER` adds worker
//! properties (`k=v,k=v`); `DATA_BENCH_TASKS` picks the task counts (default `1,4`).

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use rdkafka::ClientConfig;
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::message::DeliveryResult;
use rdkafka::producer::{BaseRecord, ProducerContext, ThreadedProducer};
use rdkafka::{ClientContext, Message};
use wasm_connect::app::App;
use wasm_connect::config::{Mode, WorkerConfig};
use wasm_connect::model::State;

/// Value bytes per record (Kafka Connect's VerifiableSource writes about 80).
const VALUE_SIZE: usize = 80;
/// Key bytes per record (Datagen's default `key.size`).
const KEY_SIZE: usize = 8;
/// Partitions of every data topic, so that 4 tasks all have work.
const PARTITIONS: i32 = 4;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

fn bootstrap() -> String {
    std::env::var("KAFKA_BOOTSTRAP").unwrap_or_else(|_| "127.0.0.1:9092".into())
}

fn unique(tag: &str) -> String {
    let nanos =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
    format!("bench-{tag}-{nanos}")
}

fn props(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

/// A worker: standalone with data topics in Kafka (`bootstrap`), or fully embedded.
async fn worker(dir: &Path, bootstrap: Option<&str>, pool: u32) -> App {
    let mut p = vec![
        (
            "plugin.path".to_string(),
            format!(
                "{},{}",
                root().join("build/plugins").display(),
                root().join("build/fixtures").display()
            ),
        ),
        ("listeners".into(), "http://127.0.0.1:0".into()),
        ("offset.storage.file.filename".into(), dir.join("bench.db").display().to_string()),
        ("offset.flush.interval.ms".into(), "1000".into()),
        ("wasm.pool.instances".into(), pool.to_string()),
        ("key.converter".into(), "org.apache.kafka.connect.storage.StringConverter".into()),
        ("value.converter".into(), "org.apache.kafka.connect.storage.StringConverter".into()),
    ];
    if let Some(b) = bootstrap {
        p.push(("bootstrap.servers".into(), b.to_owned()));
    }
    // Extra worker properties, `k=v,k=v` (e.g. `consumer.max.poll.records=2000`).
    for pair in std::env::var("DATA_BENCH_WORKER").unwrap_or_default().split(',') {
        if let Some((k, v)) = pair.split_once('=') {
            p.push((k.trim().to_owned(), v.trim().to_owned()));
        }
    }
    let config = WorkerConfig::from_properties(&p, Mode::Standalone).unwrap();
    App::start(&config, None).await.unwrap()
}

/// The value of a counter summed over its label sets, from the Prometheus text.
fn counter(text: &str, name: &str, connector: &str) -> f64 {
    let want = format!("connector=\"{connector}\"");
    text.lines()
        .filter(|l| l.starts_with(name) && l.contains(&want))
        .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
        .sum()
}

/// Waits until the counter reaches `n`; returns the rate from its first non-zero value
/// (so starting the task, compiling the plugin and joining the group are left out).
async fn wait_counter(name: &str, connector: &str, n: usize) -> f64 {
    let handle = wasm_connect::telemetry::prometheus::handle().expect("the recorder");
    let mut first: Option<(Instant, f64)> = None;
    loop {
        let text = wasm_connect::telemetry::prometheus::render(&handle);
        let now = counter(&text, name, connector);
        if now > 0.0 && first.is_none() {
            first = Some((Instant::now(), now));
        }
        if now >= n as f64 {
            let (t0, c0) = first.expect("counted");
            return (n as f64 - c0) / t0.elapsed().as_secs_f64().max(1e-3);
        }
        // Rendering the metrics costs CPU the worker would otherwise have: not too often.
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Datagen into `topic` with `tasks` tasks until `n` records are written.
async fn source_run(app: &App, name: &str, topic: &str, n: usize, tasks: u32) -> f64 {
    let config = props(&[
        ("connector.class", "Datagen"),
        ("topic", topic),
        ("records", &n.to_string()),
        ("value.size", &VALUE_SIZE.to_string()),
        ("key.size", &KEY_SIZE.to_string()),
        ("batch.size", "1000"),
        ("tasks.max", &tasks.to_string()),
    ]);
    app.herder.put_connector_config(name, config, None, false).await.unwrap();
    wait_counter("wasm_connect_source_records_produced_total", name, n).await
}

/// FileStreamSink from `topic` into `file` with `tasks` tasks until `n` records are put.
async fn sink_run(app: &App, name: &str, topic: &str, file: &Path, n: usize, tasks: u32) -> f64 {
    let config = props(&[
        ("connector.class", "FileStreamSink"),
        ("topics", topic),
        ("file", &file.display().to_string()),
        ("tasks.max", &tasks.to_string()),
    ]);
    app.herder.put_connector_config(name, config, None, false).await.unwrap();
    wait_counter("wasm_connect_sink_records_put_total", name, n).await
}

/// ChaosSink (discards) from `topic`, until `n` records are put.
async fn discard_run(app: &App, name: &str, topic: &str, n: usize) -> f64 {
    let config = props(&[
        ("connector.class", "ChaosSink"),
        ("topics", topic),
        ("chaos.mode", "ok"),
        ("chaos.bad.marker", ""),
        ("tasks.max", "1"),
    ]);
    app.herder.put_connector_config(name, config, None, false).await.unwrap();
    wait_counter("wasm_connect_sink_records_put_total", name, n).await
}

async fn create_topic(topic: &str) {
    let admin: rdkafka::admin::AdminClient<_> =
        ClientConfig::new().set("bootstrap.servers", bootstrap()).create().unwrap();
    let new = rdkafka::admin::NewTopic::new(
        topic,
        PARTITIONS,
        rdkafka::admin::TopicReplication::Fixed(1),
    );
    admin.create_topics([&new], &rdkafka::admin::AdminOptions::new()).await.unwrap();
}

/// Counts the records the broker acknowledged, as a source task's acknowledgements do.
struct Acks(Arc<AtomicUsize>);

impl ClientContext for Acks {}

impl ProducerContext for Acks {
    type DeliveryOpaque = ();
    fn delivery(&self, result: &DeliveryResult<'_>, _: ()) {
        result.as_ref().expect("delivered");
        self.0.fetch_add(1, Ordering::Relaxed);
    }
}

/// Datagen's key of record `seq` into `key`, and the range of its value in the repeated
/// alphabet, as the native clients write them.
fn datagen_record(seq: usize, key: &mut String) -> std::ops::Range<usize> {
    key.clear();
    let digits = seq.to_string();
    key.extend(std::iter::repeat_n('0', KEY_SIZE.saturating_sub(digits.len())));
    key.push_str(&digits[digits.len().saturating_sub(KEY_SIZE)..]);
    let start = seq % 36;
    start..start + VALUE_SIZE
}

/// `producers` idempotent `acks=all` producers (a thread each) writing `n` records in all,
/// until every one is acknowledged.
fn native_produce(topic: &str, n: usize, producers: usize) -> f64 {
    let values: Vec<u8> = b"abcdefghijklmnopqrstuvwxyz0123456789"
        .iter()
        .copied()
        .cycle()
        .take(VALUE_SIZE + 36)
        .collect();
    let started = Instant::now();
    std::thread::scope(|scope| {
        for p in 0..producers {
            let values = &values;
            scope.spawn(move || {
                let acked = Arc::new(AtomicUsize::new(0));
                let producer: ThreadedProducer<Acks> = ClientConfig::new()
                    .set("bootstrap.servers", bootstrap())
                    .set("enable.idempotence", "true")
                    .set("acks", "all")
                    .set("partitioner", "murmur2_random")
                    .create_with_context(Acks(acked.clone()))
                    .unwrap();
                let share = n / producers + usize::from(p < n % producers);
                let mut key = String::new();
                for i in 0..share {
                    let range = datagen_record(i * producers + p, &mut key);
                    let mut record =
                        BaseRecord::to(topic).key(key.as_bytes()).payload(&values[range]);
                    loop {
                        match producer.send(record) {
                            Ok(()) => break,
                            Err((_, back)) => {
                                record = back;
                                std::thread::sleep(Duration::from_millis(1));
                            }
                        }
                    }
                }
                while acked.load(Ordering::Relaxed) < share {
                    std::thread::sleep(Duration::from_millis(1));
                }
            });
        }
    });
    n as f64 / started.elapsed().as_secs_f64()
}

/// A consumer group of `members` (a thread each) writing every value of `topic` as a line
/// to `file` until `n` records are written in all; the rate from the first record.
fn native_consume(topic: &str, file: &Path, n: usize, members: usize) -> f64 {
    let group = unique("native-group");
    let seen = AtomicUsize::new(0);
    let first = std::sync::OnceLock::new();
    std::thread::scope(|scope| {
        for _ in 0..members {
            let (group, seen, first) = (&group, &seen, &first);
            scope.spawn(move || {
                let consumer: BaseConsumer = ClientConfig::new()
                    .set("bootstrap.servers", bootstrap())
                    .set("group.id", group)
                    .set("enable.auto.commit", "false")
                    .set("auto.offset.reset", "earliest")
                    // As the worker's consumer sets it (librdkafka's default waits 1 s
                    // whenever 100,000 records are queued).
                    .set("fetch.queue.backoff.ms", "10")
                    .create()
                    .unwrap();
                consumer.subscribe(&[topic]).unwrap();
                let out = std::fs::OpenOptions::new().create(true).append(true).open(file).unwrap();
                let mut out = std::io::BufWriter::new(out);
                while seen.load(Ordering::Relaxed) < n {
                    if let Some(m) = consumer.poll(Duration::from_millis(100)) {
                        let m = m.unwrap();
                        out.write_all(m.payload().unwrap_or_default()).unwrap();
                        out.write_all(b"\n").unwrap();
                        if seen.fetch_add(1, Ordering::Relaxed) == 0 {
                            let _ = first.set(Instant::now());
                        }
                    }
                }
                out.flush().unwrap();
                let _ = consumer.commit_consumer_state(rdkafka::consumer::CommitMode::Sync);
            });
        }
    });
    let started: &Instant = first.get().expect("a record");
    (n - 1) as f64 / started.elapsed().as_secs_f64()
}

fn row(what: &str, tasks: u32, ours: Option<f64>, native: Option<f64>) {
    let k = |r: Option<f64>| r.map_or("-".to_owned(), |r| format!("{:.0} k", r / 1000.0));
    let ratio = match (ours, native) {
        (Some(o), Some(v)) => format!("{:.0} %", 100.0 * o / v),
        _ => "-".to_owned(),
    };
    println!("| {what} | {tasks} | {} | {} | {ratio} |", k(ours), k(native));
}

fn rss_bytes() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse::<u64>().unwrap() * 1024
}

/// Resident memory per running task: datagen tasks that each emit one record a second.
async fn rss_per_task(tasks: u32, bootstrap: Option<&str>) -> (u64, u64) {
    let dir = tempfile::tempdir().unwrap();
    let app = worker(dir.path(), bootstrap, tasks + 64).await;
    tokio::time::sleep(Duration::from_secs(1)).await;
    let before = rss_bytes();
    let connectors = tasks.div_ceil(100);
    for c in 0..connectors {
        let per = (tasks - c * 100).min(100);
        let topic = unique("rss");
        let config = props(&[
            ("connector.class", "Datagen"),
            ("topic", &topic),
            ("rate", "1"),
            ("tasks.max", &per.to_string()),
        ]);
        app.herder.put_connector_config(&format!("rss-{c}"), config, None, false).await.unwrap();
    }
    for c in 0..connectors {
        let per = (tasks - c * 100).min(100);
        for t in 0..per {
            loop {
                let s = app.herder.task_status(&format!("rss-{c}"), t);
                if s.is_ok_and(|s| s.state == State::Running) {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        }
    }
    tokio::time::sleep(Duration::from_secs(3)).await;
    let after = rss_bytes();
    app.shutdown().await;
    (after.saturating_sub(before) / u64::from(tasks), after)
}

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    let n: usize =
        std::env::var("DATA_BENCH_RECORDS").ok().and_then(|v| v.parse().ok()).unwrap_or(1_000_000);
    let only: Option<String> = std::env::var("DATA_BENCH_ONLY").ok();
    let wants = |flow: &str| only.as_deref().is_none_or(|o| o.split(',').any(|f| f == flow));
    // `ours` or `native` runs one side only (to profile it).
    let side = std::env::var("DATA_BENCH_SIDE").unwrap_or_default();
    let (ours, native) = (side != "native", side != "ours");
    // `DATA_BENCH_TASKS=4` runs the 4-task (and 4-client) flows only.
    let counts: Vec<u32> = std::env::var("DATA_BENCH_TASKS")
        .ok()
        .map(|v| v.split(',').filter_map(|t| t.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![1, 4]);
    let out = tempfile::tempdir().unwrap();
    let mut source = Vec::new();
    let mut sink = Vec::new();
    for tasks in counts.iter().copied().filter(|_| ours) {
        let dir = tempfile::tempdir().unwrap();
        let app = worker(dir.path(), Some(&bootstrap()), 64).await;
        let topic = unique(&format!("data{tasks}"));
        create_topic(&topic).await;
        if wants("source") || wants("sink") {
            let name = unique("src");
            source.push(source_run(&app, &name, &topic, n, tasks).await);
        }
        if wants("sink") {
            let file = out.path().join(format!("sink-{tasks}.txt"));
            sink.push(sink_run(&app, &unique("snk"), &topic, &file, n, tasks).await);
        }
        app.shutdown().await;
    }
    let mut native_source = Vec::new();
    let mut native_sink = Vec::new();
    for clients in counts.iter().map(|&c| c as usize).filter(|_| native) {
        let topic = unique(&format!("native{clients}"));
        create_topic(&topic).await;
        let t = topic.clone();
        if wants("source") || wants("sink") {
            native_source.push(
                tokio::task::spawn_blocking(move || native_produce(&t, n, clients)).await.unwrap(),
            );
        }
        if wants("sink") {
            let file = out.path().join(format!("native-{clients}.txt"));
            native_sink.push(
                tokio::task::spawn_blocking(move || native_consume(&topic, &file, n, clients))
                    .await
                    .unwrap(),
            );
        }
    }
    println!(
        "{n} records per flow, {KEY_SIZE}-byte keys and {VALUE_SIZE}-byte values, StringConverter; topics of {PARTITIONS} partitions.\n"
    );
    println!(
        "| flow | tasks / clients | wasm-connect records/s | native rdkafka records/s | of native |"
    );
    println!("|---|---|---|---|---|");
    for (i, &tasks) in counts.iter().enumerate() {
        let (o, v) = (source.get(i).copied(), native_source.get(i).copied());
        row("Datagen → Kafka (native: idempotent acks=all producer)", tasks, o, v);
    }
    for (i, &tasks) in counts.iter().enumerate() {
        let (o, v) = (sink.get(i).copied(), native_sink.get(i).copied());
        row("Kafka → FileStreamSink (native: group member writing lines)", tasks, o, v);
    }
    if std::env::var("DATA_BENCH_EXTRA").is_ok_and(|v| v == "1") {
        extra(n).await;
    }
}

/// The embedded-store flows and the resident memory per task.
async fn extra(n: usize) {
    println!("\n| flow | records | records/s |");
    println!("|---|---|---|");
    let dir = tempfile::tempdir().unwrap();
    let app = worker(dir.path(), None, 64).await;
    let topic = unique("embedded");
    let r = source_run(&app, "esrc", &topic, n, 1).await;
    println!("| datagen → embedded topic | {n} | {:.0} k |", r / 1000.0);
    let r = discard_run(&app, "esnk", &topic, n).await;
    println!("| embedded topic → discarding sink | {n} | {:.0} k |", r / 1000.0);
    app.shutdown().await;

    println!("\n| running tasks | data topics | RSS per task | process RSS |");
    println!("|---|---|---|---|");
    for (tasks, kafka) in [(100, false), (1000, false), (100, true)] {
        let b = bootstrap();
        let (per, total) = rss_per_task(tasks, kafka.then_some(b.as_str())).await;
        println!(
            "| {tasks} | {} | {:.0} KiB | {:.0} MiB |",
            if kafka { "Kafka" } else { "embedded" },
            per as f64 / 1024.0,
            total as f64 / 1024.0 / 1024.0
        );
    }
}
