//! The native side of `scripts/bench-vs-kafka-connect.sh`: plain rdkafka clients doing the
//! work the connectors do (an idempotent `acks=all` producer, a consumer appending lines to a
//! file), and the probes the script measures every side with (a topic's end offsets, the
//! records a `read_committed` reader sees, a file's line count, a worker's Prometheus
//! counter, restarts through the REST API, REST latency).
//!
//! It owns no worker code and starts no worker: it is a tool the script drives.
//!
//! ```text
//! native_kafka produce         --bootstrap B --topic T --records N [--value-size 80] [--threads 1] [--transaction-records K]
//! native_kafka produce-file    --bootstrap B --topic T --file F
//! native_kafka consume-to-file --bootstrap B --topic T --records N --file F [--threads 1]
//! native_kafka watch-topic     --bootstrap B --topic T --records N [--timeout 300]
//! native_kafka watch-committed --bootstrap B --topic T --records N [--timeout 300]
//! native_kafka watch-file      --file F --records N [--timeout 300]
//! native_kafka watch-metric    --url http://127.0.0.1:8083/metrics --name M [--connector C] --records N [--timeout 300]
//! native_kafka restart         --url http://127.0.0.1:8083 --connector C --tasks 8 [--count 25] [--settle-ms 1000] [--fresh-config JSON]
//! native_kafka latency         --url http://127.0.0.1:8083/connectors?expand=status --seconds 30
//! ```
//! Each probe prints one JSON line on stdout; progress goes to stderr.

use std::io::{BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use clap::{Parser, Subcommand};
use rdkafka::ClientConfig;
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::error::{KafkaError, RDKafkaErrorCode};
use rdkafka::producer::{BaseRecord, DefaultProducerContext, Producer, ThreadedProducer};
use rdkafka::{Message, Offset, TopicPartitionList};

#[derive(Parser)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Produce N records of `value-size` bytes, idempotent and acks=all, from T threads
    /// (one producer each).
    Produce {
        #[arg(long)]
        bootstrap: String,
        #[arg(long)]
        topic: String,
        #[arg(long)]
        records: u64,
        #[arg(long, default_value_t = 80)]
        value_size: usize,
        #[arg(long, default_value_t = 1)]
        threads: u64,
        /// Transactional producers (`transactional.id` per thread) committing every this
        /// many records; the time spent in `commit_transaction` is reported on stderr.
        #[arg(long)]
        transaction_records: Option<u64>,
    },
    /// Read the file line by line and produce each line as a record (null key, the line's
    /// UTF-8 bytes as the value: what FileStreamSource with StringConverter writes), with the
    /// worker's producer settings (idempotent, `acks=all`, `murmur2_random`, no delivery
    /// deadline); waits for every acknowledgement. The native baseline of the `filesource`
    /// row.
    ProduceFile {
        #[arg(long)]
        bootstrap: String,
        #[arg(long)]
        topic: String,
        #[arg(long)]
        file: String,
    },
    /// Read N records from the topic's start (T threads, partitions split between them) and
    /// append each value as a line to the file.
    ConsumeToFile {
        #[arg(long)]
        bootstrap: String,
        #[arg(long)]
        topic: String,
        #[arg(long)]
        records: u64,
        #[arg(long)]
        file: String,
        #[arg(long, default_value_t = 1)]
        threads: usize,
    },
    /// Poll the topic's end offsets until they sum to N; the rate is taken from the first
    /// record seen to the Nth.
    WatchTopic {
        #[arg(long)]
        bootstrap: String,
        #[arg(long)]
        topic: String,
        #[arg(long)]
        records: u64,
        #[arg(long, default_value_t = 300)]
        timeout: u64,
    },
    /// Count the records a `read_committed` consumer reads from the topic's start (every
    /// partition) until N, measured as `watch-topic` does: transaction markers and the
    /// records of aborted or open transactions are not counted, as end offsets would.
    WatchCommitted {
        #[arg(long)]
        bootstrap: String,
        #[arg(long)]
        topic: String,
        #[arg(long)]
        records: u64,
        #[arg(long, default_value_t = 300)]
        timeout: u64,
    },
    /// Poll a Prometheus counter (summed over its label sets) until N, measured as
    /// `watch-topic` does (e.g. a standalone worker's records written to its embedded store).
    WatchMetric {
        #[arg(long)]
        url: String,
        #[arg(long)]
        name: String,
        /// Only the label sets of this connector (`connector="C"`).
        #[arg(long)]
        connector: Option<String>,
        #[arg(long)]
        records: u64,
        #[arg(long, default_value_t = 300)]
        timeout: u64,
    },
    /// Poll a file's line count until N, measured as `watch-topic` does.
    WatchFile {
        #[arg(long)]
        file: String,
        #[arg(long)]
        records: u64,
        #[arg(long, default_value_t = 300)]
        timeout: u64,
    },
    /// Restart a running connector with `includeTasks=true` `count` times; each restart is
    /// timed from the POST until its status shows it and all its tasks RUNNING again.
    Restart {
        #[arg(long)]
        url: String,
        #[arg(long)]
        connector: String,
        #[arg(long)]
        tasks: usize,
        #[arg(long, default_value_t = 25)]
        count: usize,
        #[arg(long, default_value_t = 30)]
        timeout: u64,
        /// Pause after all are RUNNING before the next restart, in ms.
        #[arg(long, default_value_t = 1000)]
        settle_ms: u64,
        /// Restart a fresh connector each time, created with this config (JSON) as
        /// `<connector>-<i>` and deleted after its restart.
        #[arg(long)]
        fresh_config: Option<String>,
    },
    /// GET a URL back to back for `seconds`; prints the count, median and p99.
    Latency {
        #[arg(long)]
        url: String,
        #[arg(long)]
        seconds: u64,
    },
}

fn main() {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Produce {
            bootstrap,
            topic,
            records,
            value_size,
            threads,
            transaction_records,
        } => produce(&bootstrap, &topic, records, value_size, threads, transaction_records),
        Command::ProduceFile { bootstrap, topic, file } => produce_file(&bootstrap, &topic, &file),
        Command::ConsumeToFile { bootstrap, topic, records, file, threads } => {
            consume_to_file(&bootstrap, &topic, records, &file, threads)
        }
        Command::WatchTopic { bootstrap, topic, records, timeout } => {
            watch(records, timeout, || end_offsets(&consumer(&bootstrap, None)?, &topic))
        }
        Command::WatchCommitted { bootstrap, topic, records, timeout } => {
            committed_counter(&bootstrap, &topic)
                .and_then(|mut counter| watch(records, timeout, move || counter.count()))
        }
        Command::WatchMetric { url, name, connector, records, timeout } => {
            let label = connector.map(|c| format!("connector=\"{c}\""));
            runtime().and_then(|rt| {
                let client = reqwest::Client::builder().timeout(Duration::from_secs(10)).build()?;
                watch(records, timeout, move || {
                    rt.block_on(metric(&client, &url, &name, label.as_deref()))
                })
            })
        }
        Command::WatchFile { file, records, timeout } => {
            let mut counter = LineCounter::new(file);
            watch(records, timeout, move || counter.count())
        }
        Command::Restart { url, connector, tasks, count, timeout, settle_ms, fresh_config } => {
            let (timeout, settle) =
                (Duration::from_secs(timeout), Duration::from_millis(settle_ms));
            restart(&url, &connector, tasks, count, timeout, settle, fresh_config.as_deref())
        }
        Command::Latency { url, seconds } => latency(&url, Duration::from_secs(seconds)),
    };
    if let Err(e) = result {
        eprintln!("native_kafka: {e}");
        std::process::exit(1);
    }
}

type Result<T> = std::result::Result<T, Box<dyn std::error::Error + Send + Sync>>;

fn consumer(bootstrap: &str, group: Option<&str>) -> Result<BaseConsumer> {
    let mut config = ClientConfig::new();
    config.set("bootstrap.servers", bootstrap).set("enable.auto.commit", "false");
    config.set("group.id", group.unwrap_or("native-kafka-probe"));
    // As the worker's consumer sets it: with librdkafka's default (1 s), a consumer reading
    // more than `queued.min.messages` (100,000) a second empties its queue and then waits.
    config.set("fetch.queue.backoff.ms", "10");
    Ok(config.create()?)
}

/// The topic's partitions. A topic created a moment ago may answer "not leader" until its
/// leaders are elected: that is retried for up to 10 s.
fn partitions(consumer: &BaseConsumer, topic: &str) -> Result<Vec<i32>> {
    let deadline = Instant::now() + Duration::from_secs(10);
    let metadata = loop {
        match consumer.fetch_metadata(Some(topic), Duration::from_secs(10)) {
            Ok(metadata) => break metadata,
            Err(_) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(50)),
            Err(e) => return Err(e.into()),
        }
    };
    let parts: Vec<i32> =
        metadata.topics().iter().flat_map(|t| t.partitions().iter().map(|p| p.id())).collect();
    if parts.is_empty() {
        return Err(format!("topic {topic} has no partitions").into());
    }
    Ok(parts)
}

fn end_offsets(consumer: &BaseConsumer, topic: &str) -> Result<u64> {
    let mut sum = 0;
    for p in partitions(consumer, topic)? {
        let (_, high) = consumer.fetch_watermarks(topic, p, Duration::from_secs(10))?;
        sum += high.max(0) as u64;
    }
    Ok(sum)
}

fn produce(
    bootstrap: &str,
    topic: &str,
    records: u64,
    size: usize,
    threads: u64,
    transaction_records: Option<u64>,
) -> Result<()> {
    let value: Vec<u8> =
        (0..size).map(|i| b"abcdefghijklmnopqrstuvwxyz0123456789"[i % 36]).collect();
    let handles: Vec<_> = (0..threads)
        .map(|t| {
            let (bootstrap, topic, value) =
                (bootstrap.to_string(), topic.to_string(), value.clone());
            let share = records / threads + u64::from(t < records % threads);
            std::thread::spawn(move || -> Result<()> {
                let mut config = ClientConfig::new();
                config
                    .set("bootstrap.servers", &bootstrap)
                    .set("enable.idempotence", "true")
                    .set("acks", "all");
                if transaction_records.is_some() {
                    let id = format!("native-kafka-{}-{t}", std::process::id());
                    config.set("transactional.id", id);
                }
                let producer: ThreadedProducer<DefaultProducerContext> = config.create()?;
                let every = transaction_records.unwrap_or(0);
                let (mut commits, mut in_commit) = (0u32, Duration::ZERO);
                if every > 0 {
                    producer.init_transactions(Duration::from_secs(60))?;
                    producer.begin_transaction()?;
                }
                for seq in 0..share {
                    if every > 0 && seq > 0 && seq % every == 0 {
                        let t0 = Instant::now();
                        producer.commit_transaction(Duration::from_secs(60))?;
                        in_commit += t0.elapsed();
                        commits += 1;
                        producer.begin_transaction()?;
                    }
                    let key = format!("{t}-{seq:012}");
                    let mut record = BaseRecord::to(&topic).key(&key).payload(&value);
                    loop {
                        match producer.send(record) {
                            Ok(()) => break,
                            Err((
                                KafkaError::MessageProduction(RDKafkaErrorCode::QueueFull),
                                r,
                            )) => {
                                record = r;
                                std::thread::sleep(Duration::from_millis(1));
                            }
                            Err((e, _)) => return Err(e.into()),
                        }
                    }
                }
                if every > 0 {
                    producer.commit_transaction(Duration::from_secs(60))?;
                    if commits > 0 {
                        let each = in_commit.as_secs_f64() * 1000.0 / f64::from(commits);
                        eprintln!("    thread {t}: {commits} commits, {each:.1} ms each");
                    }
                }
                producer.flush(Duration::from_secs(120))?;
                Ok(())
            })
        })
        .collect();
    for h in handles {
        h.join().map_err(|_| "a producer thread panicked")??;
    }
    Ok(())
}

/// `produce-file`: one producer, the file's lines in order. A line ends at `\n` (a `\r`
/// before it is dropped), as FileStreamSource splits the files the bench writes.
fn produce_file(bootstrap: &str, topic: &str, file: &str) -> Result<()> {
    let mut config = ClientConfig::new();
    config
        .set("bootstrap.servers", bootstrap)
        .set("enable.idempotence", "true")
        .set("acks", "all")
        .set("partitioner", "murmur2_random")
        .set("message.timeout.ms", "0")
        .set("queue.buffering.max.messages", "10000000");
    let producer: ThreadedProducer<DefaultProducerContext> = config.create()?;
    let mut reader = BufReader::with_capacity(64 * 1024, std::fs::File::open(file)?);
    let mut line = Vec::with_capacity(256);
    let mut sent = 0u64;
    loop {
        line.clear();
        // A last line without its terminator is left out: FileStreamSource waits for it.
        if reader.read_until(b'\n', &mut line)? == 0 || !line.ends_with(b"\n") {
            break;
        }
        let end = line.len() - 1 - usize::from(line[..line.len() - 1].ends_with(b"\r"));
        let mut record = BaseRecord::<(), [u8]>::to(topic).payload(&line[..end]);
        loop {
            match producer.send(record) {
                Ok(()) => break,
                Err((KafkaError::MessageProduction(RDKafkaErrorCode::QueueFull), r)) => {
                    record = r;
                    std::thread::sleep(Duration::from_millis(1));
                }
                Err((e, _)) => return Err(e.into()),
            }
        }
        sent += 1;
    }
    producer.flush(Duration::from_secs(300))?;
    eprintln!("    produced {sent} lines of {file}");
    Ok(())
}

fn consume_to_file(
    bootstrap: &str,
    topic: &str,
    records: u64,
    file: &str,
    threads: usize,
) -> Result<()> {
    let all = partitions(&consumer(bootstrap, None)?, topic)?;
    let done = Arc::new(AtomicU64::new(0));
    let group = format!("native-kafka-{}", std::process::id());
    let handles: Vec<_> = (0..threads)
        .map(|t| {
            let mine: Vec<i32> = all.iter().copied().skip(t).step_by(threads).collect();
            let (bootstrap, topic, file, group) =
                (bootstrap.to_string(), topic.to_string(), file.to_string(), group.clone());
            let done = done.clone();
            std::thread::spawn(move || -> Result<()> {
                if mine.is_empty() {
                    return Ok(());
                }
                let consumer = consumer(&bootstrap, Some(&group))?;
                let mut tpl = TopicPartitionList::new();
                for p in mine {
                    tpl.add_partition_offset(&topic, p, Offset::Beginning)?;
                }
                consumer.assign(&tpl)?;
                let mut out = std::fs::OpenOptions::new().create(true).append(true).open(&file)?;
                let mut buf = Vec::with_capacity(1 << 20);
                while done.load(Ordering::Relaxed) < records {
                    let mut n = 0;
                    // One write per batch of what is ready, as a sink's put writes a batch.
                    let mut next = consumer.poll(Duration::from_millis(100));
                    while let Some(message) = next {
                        let message = message?;
                        buf.extend_from_slice(message.payload().unwrap_or_default());
                        buf.push(b'\n');
                        n += 1;
                        if n >= 10_000 {
                            break;
                        }
                        next = consumer.poll(Duration::ZERO);
                    }
                    if n > 0 {
                        out.write_all(&buf)?;
                        buf.clear();
                        done.fetch_add(n, Ordering::Relaxed);
                    }
                }
                Ok(())
            })
        })
        .collect();
    for h in handles {
        h.join().map_err(|_| "a consumer thread panicked")??;
    }
    Ok(())
}

/// Counts what a `read_committed` consumer assigned to every partition of a topic reads.
struct CommittedCounter {
    consumer: BaseConsumer,
    read: u64,
}

fn committed_counter(bootstrap: &str, topic: &str) -> Result<CommittedCounter> {
    let mut config = ClientConfig::new();
    config.set("bootstrap.servers", bootstrap).set("enable.auto.commit", "false");
    config.set("group.id", format!("native-kafka-committed-{}", std::process::id()));
    config.set("isolation.level", "read_committed").set("fetch.queue.backoff.ms", "10");
    let consumer: BaseConsumer = config.create()?;
    let mut tpl = TopicPartitionList::new();
    for p in partitions(&consumer, topic)? {
        tpl.add_partition_offset(topic, p, Offset::Beginning)?;
    }
    consumer.assign(&tpl)?;
    Ok(CommittedCounter { consumer, read: 0 })
}

impl CommittedCounter {
    /// Reads what is ready (for up to 5 ms) and returns the count so far.
    fn count(&mut self) -> Result<u64> {
        let until = Instant::now() + Duration::from_millis(5);
        let mut next = self.consumer.poll(Duration::from_millis(5));
        while let Some(message) = next {
            message?;
            self.read += 1;
            if Instant::now() >= until {
                break;
            }
            next = self.consumer.poll(Duration::ZERO);
        }
        Ok(self.read)
    }
}

/// The sum of a Prometheus counter over its label sets (those with `label` when given).
async fn metric(
    client: &reqwest::Client,
    url: &str,
    name: &str,
    label: Option<&str>,
) -> Result<u64> {
    let text = client.get(url).send().await?.error_for_status()?.text().await?;
    let sum: f64 = text
        .lines()
        .filter(|l| l.strip_prefix(name).is_some_and(|rest| rest.starts_with(['{', ' '])))
        .filter(|l| label.is_none_or(|label| l.contains(label)))
        .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
        .sum();
    Ok(sum as u64)
}

/// Counts the lines of a growing file, reading only what was appended since the last call.
struct LineCounter {
    path: String,
    read: u64,
    lines: u64,
}

impl LineCounter {
    fn new(path: String) -> Self {
        LineCounter { path, read: 0, lines: 0 }
    }

    fn count(&mut self) -> Result<u64> {
        let Ok(mut f) = std::fs::File::open(&self.path) else { return Ok(0) };
        f.seek(SeekFrom::Start(self.read))?;
        let mut buf = vec![0u8; 1 << 20];
        loop {
            let n = f.read(&mut buf)?;
            if n == 0 {
                return Ok(self.lines);
            }
            self.read += n as u64;
            self.lines += buf[..n].iter().filter(|b| **b == b'\n').count() as u64;
        }
    }
}

/// Polls `count` every 5 ms until it reaches `target`; prints the rate from the first
/// non-zero count to the target.
fn watch(target: u64, timeout: u64, mut count: impl FnMut() -> Result<u64>) -> Result<()> {
    let start = Instant::now();
    let deadline = start + Duration::from_secs(timeout);
    let mut first: Option<(Instant, u64)> = None;
    let mut last_zero = start;
    let mut last_progress = Instant::now();
    loop {
        let n = count()?;
        let now = Instant::now();
        if n == 0 {
            last_zero = now;
        } else if first.is_none() {
            first = Some((now, n));
        }
        if n >= target {
            let (mut t0, mut n0) = first.expect("set above");
            if n0 >= target {
                // All arrived between two samples: count from the last sample that saw none.
                (t0, n0) = (last_zero, 0);
            }
            let secs = now.duration_since(t0).as_secs_f64().max(1e-6);
            let rate = (n - n0) as f64 / secs;
            println!("{{\"records\":{n},\"secs\":{secs:.3},\"rate\":{rate:.0}}}");
            return Ok(());
        }
        if now > deadline {
            // The rate so far, marked: a slow flow is still measured over the time given.
            match first {
                Some((t0, n0)) if n > n0 => {
                    let secs = now.duration_since(t0).as_secs_f64().max(1e-6);
                    let rate = (n - n0) as f64 / secs;
                    println!(
                        "{{\"records\":{n},\"secs\":{secs:.3},\"rate\":{rate:.0},\"timeout\":true}}"
                    );
                }
                _ => println!("{{\"records\":{n},\"timeout\":true}}"),
            }
            return Err(format!("{n} of {target} after {timeout}s").into());
        }
        if now.duration_since(last_progress) > Duration::from_secs(5) {
            eprintln!("    {n} of {target}");
            last_progress = now;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

fn runtime() -> Result<tokio::runtime::Runtime> {
    Ok(tokio::runtime::Builder::new_current_thread().enable_all().build()?)
}

fn all_running(status: &serde_json::Value, tasks: usize) -> bool {
    let running = |v: &serde_json::Value| v["state"] == "RUNNING";
    let list = status["tasks"].as_array();
    running(&status["connector"]) && list.is_some_and(|l| l.len() == tasks && l.iter().all(running))
}

fn any_restarting(status: &serde_json::Value) -> bool {
    let restarting = |v: &serde_json::Value| v["state"] == "RESTARTING";
    restarting(&status["connector"])
        || status["tasks"].as_array().is_some_and(|l| l.iter().any(restarting))
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let i = ((sorted.len() as f64 * p).ceil() as usize).clamp(1, sorted.len()) - 1;
    sorted[i]
}

/// One restart is observed when the 202 body shows RESTARTING and a status GET showed some
/// instance not RUNNING before all were RUNNING again (a status store that answers before
/// it applied the restart would otherwise time a restart that has not happened yet).
///
/// With `fresh_config` (a connector config, JSON), each restart is of a connector created
/// for it (`<connector>-<i>`): created, all RUNNING, `settle`, restarted and timed, then
/// deleted; so every restart comes `settle` after its tasks' first start.
fn restart(
    url: &str,
    connector: &str,
    tasks: usize,
    count: usize,
    timeout: Duration,
    settle: Duration,
    fresh_config: Option<&str>,
) -> Result<()> {
    let fresh: Option<serde_json::Value> = fresh_config.map(serde_json::from_str).transpose()?;
    runtime()?.block_on(async {
        let client = reqwest::Client::new();
        let mut times = Vec::new();
        let mut unobserved = 0;
        for i in 0..count {
            let name = match fresh {
                Some(_) => format!("{connector}-{i}"),
                None => connector.to_owned(),
            };
            if let Some(config) = &fresh {
                let body = serde_json::json!({ "name": name, "config": config });
                let answer = client.post(format!("{url}/connectors")).json(&body).send().await?;
                if !answer.status().is_success() {
                    let code = answer.status();
                    return Err(format!("create {name}: {code} {}", answer.text().await?).into());
                }
            }
            let probe = Probe { client: &client, url, connector: &name, tasks, timeout };
            match probe.restart_once(i, settle).await? {
                Some(ms) => times.push(ms),
                None => unobserved += 1,
            }
            if fresh.is_some() {
                let answer = client.delete(format!("{url}/connectors/{name}")).send().await?;
                if !answer.status().is_success() {
                    return Err(format!("delete {name}: {}", answer.status()).into());
                }
            }
        }
        times.sort_by(f64::total_cmp);
        if times.is_empty() {
            return Err("no restart was observed".into());
        }
        println!(
            "{{\"restarts\":{},\"unobserved\":{unobserved},\"median_ms\":{:.1},\"p99_ms\":{:.1},\"max_ms\":{:.1}}}",
            times.len(),
            percentile(&times, 0.5),
            percentile(&times, 0.99),
            times[times.len() - 1]
        );
        eprintln!("    restart times (ms): {:?}", times.iter().map(|t| t.round()).collect::<Vec<_>>());
        Ok(())
    })
}

/// One connector the restart probe times.
struct Probe<'a> {
    client: &'a reqwest::Client,
    url: &'a str,
    connector: &'a str,
    tasks: usize,
    timeout: Duration,
}

impl Probe<'_> {
    async fn status(&self) -> Result<serde_json::Value> {
        let status_url = format!("{}/connectors/{}/status", self.url, self.connector);
        Ok(self.client.get(&status_url).send().await?.json().await?)
    }

    /// Waits for every instance RUNNING, then `settle`, then restarts the connector with its
    /// tasks: the ms until all are RUNNING again, or `None` when no instance was seen down.
    async fn restart_once(&self, i: usize, settle: Duration) -> Result<Option<f64>> {
        let running_by = Instant::now() + self.timeout;
        loop {
            // A fresh connector has no status until its first write: not RUNNING yet.
            let s = self.status().await.unwrap_or_default();
            if all_running(&s, self.tasks) {
                break;
            }
            if Instant::now() > running_by {
                return Err(format!("restart {i}: not RUNNING before the restart: {s}").into());
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        tokio::time::sleep(settle).await;
        let post_url =
            format!("{}/connectors/{}/restart?includeTasks=true", self.url, self.connector);
        let t0 = Instant::now();
        let answer = self.client.post(&post_url).send().await?;
        let code = answer.status().as_u16();
        let body: serde_json::Value = answer.json().await.unwrap_or_default();
        if code != 202 || !any_restarting(&body) {
            return Err(format!("restart {i}: answer {code} {body}").into());
        }
        let mut seen_down = false;
        loop {
            let s = self.status().await?;
            if all_running(&s, self.tasks) {
                if seen_down {
                    return Ok(Some(t0.elapsed().as_secs_f64() * 1000.0));
                }
                if t0.elapsed() > Duration::from_secs(3) {
                    return Ok(None);
                }
            } else {
                seen_down = true;
            }
            if t0.elapsed() > self.timeout {
                let timeout = self.timeout;
                return Err(format!("restart {i}: not RUNNING after {timeout:?}: {s}").into());
            }
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
    }
}

fn latency(url: &str, duration: Duration) -> Result<()> {
    runtime()?.block_on(async {
        let client = reqwest::Client::builder().timeout(Duration::from_secs(30)).build()?;
        let end = Instant::now() + duration;
        let (mut times, mut errors) = (Vec::new(), 0);
        while Instant::now() < end {
            let t0 = Instant::now();
            match client.get(url).send().await {
                Ok(r) if r.status().is_success() => {
                    let _ = r.bytes().await?;
                    times.push(t0.elapsed().as_secs_f64() * 1000.0);
                }
                _ => errors += 1,
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        times.sort_by(f64::total_cmp);
        if times.is_empty() {
            return Err(format!("no answer from {url} ({errors} errors)").into());
        }
        println!(
            "{{\"requests\":{},\"errors\":{errors},\"median_ms\":{:.1},\"p99_ms\":{:.1}}}",
            times.len(),
            percentile(&times, 0.5),
            percentile(&times, 0.99)
        );
        Ok(())
    })
}
