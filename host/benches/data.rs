//! Data-path benchmark: records/s and MB/s from `datagen` into Kafka and from Kafka into a
//! sink that discards (ChaosSink), next to a native rdkafka producer and consumer doing the
//! same work on the same broker; the same two flows on the embedded store; and the resident
//! memory per running task with 100 and 1,000 tasks. Prints Markdown tables.
//!
//! Run with `cargo bench --bench data` after `scripts/build-guests.sh`, with a broker from
//! `scripts/kafka.sh start` at `KAFKA_BOOTSTRAP` (default 127.0.0.1:9092). `DATA_BENCH_RECORDS`
//! sets the record count (default 1,000,000).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rdkafka::ClientConfig;
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::producer::{FutureProducer, FutureRecord};
use rdkafka::{Message, Offset, TopicPartitionList};
use wasm_connect::app::App;
use wasm_connect::config::{Mode, WorkerConfig};
use wasm_connect::model::State;

const VALUE_SIZE: usize = 100;

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

async fn wait_counter(app: &App, name: &str, connector: &str, n: usize) {
    let handle = wasm_connect::telemetry::prometheus::handle().expect("the recorder");
    loop {
        let text = wasm_connect::telemetry::prometheus::render(&handle);
        if counter(&text, name, connector) >= n as f64 {
            return;
        }
        let _ = app;
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Datagen into `topic`, until `n` records are written. Returns the elapsed time.
async fn source_run(app: &App, name: &str, topic: &str, n: usize) -> Duration {
    let config = props(&[
        ("connector.class", "Datagen"),
        ("topic", topic),
        ("records", &n.to_string()),
        ("value.size", &VALUE_SIZE.to_string()),
        ("batch.size", "1000"),
        ("tasks.max", "1"),
    ]);
    let started = Instant::now();
    app.herder.put_connector_config(name, config, None, false).await.unwrap();
    wait_counter(app, "wasm_connect_source_records_produced_total", name, n).await;
    started.elapsed()
}

/// ChaosSink (discards) from `topic`, until `n` records are put.
async fn sink_run(app: &App, name: &str, topic: &str, n: usize) -> Duration {
    let config = props(&[
        ("connector.class", "ChaosSink"),
        ("topics", topic),
        ("chaos.mode", "ok"),
        ("chaos.bad.marker", ""),
        ("tasks.max", "1"),
    ]);
    let started = Instant::now();
    app.herder.put_connector_config(name, config, None, false).await.unwrap();
    wait_counter(app, "wasm_connect_sink_records_put_total", name, n).await;
    started.elapsed()
}

async fn native_produce(topic: &str, n: usize) -> Duration {
    let producer: FutureProducer = ClientConfig::new()
        .set("bootstrap.servers", bootstrap())
        .set("enable.idempotence", "true")
        .set("acks", "all")
        .create()
        .unwrap();
    let value = [b'x'; VALUE_SIZE];
    let started = Instant::now();
    let mut pending = Vec::with_capacity(10_000);
    for i in 0..n {
        let key = i.to_string();
        loop {
            match producer
                .send_result(FutureRecord::to(topic).key(key.as_bytes()).payload(&value[..]))
            {
                Ok(f) => {
                    pending.push(f);
                    break;
                }
                Err(_) => tokio::time::sleep(Duration::from_millis(1)).await,
            }
        }
        if pending.len() == 10_000 {
            for f in pending.drain(..) {
                f.await.unwrap().unwrap();
            }
        }
    }
    for f in pending {
        f.await.unwrap().unwrap();
    }
    started.elapsed()
}

fn native_consume(topic: &str, n: usize) -> Duration {
    let consumer: BaseConsumer = ClientConfig::new()
        .set("bootstrap.servers", bootstrap())
        .set("group.id", unique("native"))
        .set("enable.auto.commit", "false")
        .create()
        .unwrap();
    let metadata = consumer.fetch_metadata(Some(topic), Duration::from_secs(10)).unwrap();
    let mut tpl = TopicPartitionList::new();
    for p in metadata.topics()[0].partitions() {
        tpl.add_partition_offset(topic, p.id(), Offset::Beginning).unwrap();
    }
    let started = Instant::now();
    consumer.assign(&tpl).unwrap();
    let mut seen = 0;
    while seen < n {
        if let Some(m) = consumer.poll(Duration::from_millis(100)) {
            let m = m.unwrap();
            std::hint::black_box(m.payload());
            seen += 1;
        }
    }
    started.elapsed()
}

fn row(what: &str, n: usize, d: Duration) {
    let secs = d.as_secs_f64();
    let rate = n as f64 / secs;
    let mb = rate * (VALUE_SIZE as f64 + 8.0) / 1e6;
    println!("| {what} | {n} | {:.2} s | {:.0} k | {mb:.1} |", secs, rate / 1000.0);
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
    println!("Records of {VALUE_SIZE}-byte values (MB/s counts value + 8 key bytes).\n");
    println!("| flow | records | time | records/s | MB/s |");
    println!("|---|---|---|---|---|");

    let dir = tempfile::tempdir().unwrap();
    let app = worker(dir.path(), Some(&bootstrap()), 64).await;
    let topic = unique("data");
    row("datagen → Kafka (wasm-connect)", n, source_run(&app, "src", &topic, n).await);
    row("Kafka → discarding sink (wasm-connect)", n, sink_run(&app, "snk", &topic, n).await);
    app.shutdown().await;

    let native_topic = unique("native");
    let admin: rdkafka::admin::AdminClient<_> =
        ClientConfig::new().set("bootstrap.servers", bootstrap()).create().unwrap();
    admin
        .create_topics(
            [&rdkafka::admin::NewTopic::new(
                &native_topic,
                1,
                rdkafka::admin::TopicReplication::Fixed(1),
            )],
            &rdkafka::admin::AdminOptions::new(),
        )
        .await
        .unwrap();
    row(
        "native rdkafka producer (idempotent, acks=all)",
        n,
        native_produce(&native_topic, n).await,
    );
    let t = native_topic.clone();
    let consumed = tokio::task::spawn_blocking(move || native_consume(&t, n)).await.unwrap();
    row("native rdkafka consumer", n, consumed);

    let dir = tempfile::tempdir().unwrap();
    let app = worker(dir.path(), None, 64).await;
    let topic = unique("embedded");
    row("datagen → embedded topic", n, source_run(&app, "esrc", &topic, n).await);
    row("embedded topic → discarding sink", n, sink_run(&app, "esnk", &topic, n).await);
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
