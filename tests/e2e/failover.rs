//! Failover resumes where the task stopped: a source task moved to another distributed
//! worker starts from the offsets its previous worker committed (the new worker reads the
//! offsets topic to its end before the task's first poll), and a run of three workers
//! with `kill -9`s restarts no source from position 0 and delivers every line. The run
//! prints its stall and duplicate figures (BENCHMARKS.md quotes them).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use reqwest::Method;
use serde_json::{Value, json};

use crate::cluster::{Cluster, all_running};
use crate::distributed::{file_source, index_of, settings, write_lines};
use crate::harness::{bootstrap, eventually};

/// A name no other test run on the shared broker uses.
pub(crate) fn unique(what: &str) -> String {
    let nanos =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
    format!("{what}-{}-{nanos}", std::process::id())
}

/// How many lines worker `i` has logged so far: a mark for [`starts`].
fn mark(cluster: &Cluster, i: usize) -> usize {
    cluster.log(i).lines().count()
}

/// The positions the FileStreamSource task reading `input` started from on worker `i`
/// after its log's line `from`, as it logs them ("Reading <file> from position <n>").
fn starts(cluster: &Cluster, i: usize, from: usize, input: &Path) -> Vec<u64> {
    let needle = format!("Reading {} from position ", input.display());
    cluster
        .log(i)
        .lines()
        .skip(from)
        .filter_map(|l| {
            let rest = &l[l.find(&needle)? + needle.len()..];
            let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
            digits.parse().ok()
        })
        .collect()
}

/// Every value of `topic`, read from the start until each number below `count` has been
/// seen and every partition has been read to the end it had then (so every copy written
/// by then is counted), or fails after `secs`. Reads `read_committed` (librdkafka's
/// default).
fn read_topic(topic: &str, count: usize, secs: u64) -> Vec<usize> {
    read_topic_as(topic, count, secs, "read_committed")
}

/// [`read_topic`] with Kafka's `isolation.level`: `read_uncommitted` also sees the records
/// of aborted transactions.
pub(crate) fn read_topic_as(topic: &str, count: usize, secs: u64, isolation: &str) -> Vec<usize> {
    use rdkafka::consumer::{BaseConsumer, Consumer};
    use rdkafka::{ClientConfig, Message, Offset, TopicPartitionList};
    let consumer: BaseConsumer = ClientConfig::new()
        .set("bootstrap.servers", bootstrap())
        .set("group.id", format!("{topic}-check-{isolation}"))
        .set("enable.auto.commit", "false")
        .set("isolation.level", isolation)
        .create()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(secs);
    let metadata = loop {
        let m = consumer.fetch_metadata(Some(topic), Duration::from_secs(10)).unwrap();
        if m.topics().first().is_some_and(|t| !t.partitions().is_empty()) {
            break m;
        }
        assert!(Instant::now() < deadline, "topic {topic} never appeared");
        std::thread::sleep(Duration::from_millis(200));
    };
    let partitions = metadata.topics()[0].partitions().len() as i32;
    let mut assignment = TopicPartitionList::new();
    for p in 0..partitions {
        assignment.add_partition_offset(topic, p, Offset::Beginning).unwrap();
    }
    consumer.assign(&assignment).unwrap();
    let mut next = vec![0i64; partitions as usize];
    let mut values = Vec::new();
    let mut seen = vec![false; count];
    let mut missing = count;
    let mut ends: Option<Vec<i64>> = None;
    loop {
        if missing == 0 {
            let ends = ends.get_or_insert_with(|| {
                (0..partitions)
                    .map(|p| {
                        consumer.fetch_watermarks(topic, p, Duration::from_secs(10)).unwrap().1
                    })
                    .collect()
            });
            if next.iter().zip(ends.iter()).all(|(n, e)| n >= e) {
                return values;
            }
            // A read_committed consumer never returns the transaction markers: its
            // positions say how far it got.
            if let Ok(positions) = consumer.position() {
                for e in positions.elements() {
                    if let (Offset::Offset(p), Some(n)) =
                        (e.offset(), next.get_mut(e.partition() as usize))
                    {
                        *n = (*n).max(p);
                    }
                }
            }
        }
        assert!(Instant::now() < deadline, "{missing} of {count} lines never reached {topic}");
        let Some(Ok(m)) = consumer.poll(Duration::from_millis(200)) else { continue };
        next[m.partition() as usize] = m.offset() + 1;
        let Some(n) = m.payload().and_then(|v| std::str::from_utf8(v).ok()?.parse().ok()) else {
            continue;
        };
        values.push(n);
        if n < count && !seen[n] {
            seen[n] = true;
            missing -= 1;
        }
    }
}

/// How many of `values` are copies of a value seen before.
pub(crate) fn duplicates(values: &[usize]) -> usize {
    let mut distinct = values.to_vec();
    distinct.sort_unstable();
    distinct.dedup();
    values.len() - distinct.len()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_source_task_moved_to_another_worker_resumes_from_its_latest_commit() {
    let mut cluster = Cluster::start(2, settings(1000)).await;
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("moved.txt");
    let before: String = (0..2000).map(|n| format!("{n}\n")).collect();
    std::fs::write(&input, &before).unwrap();
    let topic = unique("moved");
    assert_eq!(cluster.create(0, "moved", file_source(&input, &topic)).await.0, 201);
    let status = cluster.wait_running(0, "moved", 1, 90).await;
    let owner = index_of(&cluster, status["tasks"][0]["worker_id"].as_str().unwrap());
    let survivor = 1 - owner;
    // Every line committed. Asked of the owner: the survivor must learn of the commit
    // only when the task starts there.
    let end = json!([{"partition": {"filename": input.display().to_string()},
        "offset": {"position": before.len()}}]);
    eventually(90, "every line's offset committed", async || {
        let (_, v) = cluster.call(owner, Method::GET, "/connectors/moved/offsets", None).await;
        (v["offsets"] == end).then_some(())
    })
    .await;

    // The worker is killed: the task moves to the survivor, which started long before
    // those offsets were committed.
    let from = mark(&cluster, survivor);
    assert!(
        starts(&cluster, survivor, 0, &input).is_empty(),
        "the task must not have run on the survivor before\n{}",
        cluster.logs()
    );
    cluster.kill(owner);
    let here = format!("127.0.0.1:{}", cluster.workers[survivor].port);
    eventually(90, "the task RUNNING on the survivor", async || {
        let s = cluster.status(survivor, "moved").await;
        (all_running(&s, 1) && s["tasks"][0]["worker_id"] == here.as_str()).then_some(())
    })
    .await;
    let after: String = (2000..2500).map(|n| format!("{n}\n")).collect();
    std::fs::OpenOptions::new()
        .append(true)
        .open(&input)
        .and_then(|mut f| std::io::Write::write_all(&mut f, after.as_bytes()))
        .unwrap();
    let t = topic.clone();
    let values = tokio::task::spawn_blocking(move || read_topic(&t, 2500, 120)).await.unwrap();

    assert_eq!(
        starts(&cluster, survivor, from, &input),
        [before.len() as u64],
        "the survivor must start the task at the committed position\n{}",
        cluster.logs()
    );
    assert_eq!(duplicates(&values), 0, "every line was committed before the kill");
}

/// Line counts of the outputs, sampled every 200 ms while the writers run: the longest
/// time each output did not grow.
fn sample_stalls(
    outputs: Vec<PathBuf>,
    stop: Arc<AtomicBool>,
) -> std::thread::JoinHandle<Vec<Duration>> {
    std::thread::spawn(move || {
        let lines =
            |p: &PathBuf| std::fs::read(p).map_or(0, |b| b.iter().filter(|c| **c == b'\n').count());
        let mut last: Vec<(usize, Instant)> =
            outputs.iter().map(|p| (lines(p), Instant::now())).collect();
        let mut longest = vec![Duration::ZERO; outputs.len()];
        while !stop.load(Ordering::SeqCst) {
            std::thread::sleep(Duration::from_millis(200));
            for (i, p) in outputs.iter().enumerate() {
                let n = lines(p);
                let (seen, since) = &mut last[i];
                longest[i] = longest[i].max(since.elapsed());
                if n != *seen {
                    *seen = n;
                    *since = Instant::now();
                }
            }
        }
        longest
    })
}

/// A killed sink may leave a torn last line (FileStreamSink's writes are not atomic); its
/// next task appends after it. Cut it while nothing writes the file.
fn cut_torn_line(path: &Path) {
    let Ok(bytes) = std::fs::read(path) else { return };
    let keep = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    std::fs::write(path, &bytes[..keep]).unwrap();
}

/// Worker index → names of the instances it runs, from statuses seen by worker `from`.
async fn owners(cluster: &Cluster, from: usize, names: &[String]) -> BTreeMap<String, usize> {
    let mut owners = BTreeMap::new();
    for name in names {
        let s = cluster.status(from, name).await;
        if let Some(id) = s["tasks"][0]["worker_id"].as_str() {
            owners.insert(name.clone(), index_of(cluster, id));
        }
    }
    owners
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_9_during_a_run_restarts_no_source_from_zero_and_delivers_every_line() {
    const PIPELINES: usize = 3;
    let mut s = settings(3000);
    // The sink consumers' group notices a killed member after this (Kafka's default,
    // 45 s, would hold the killed worker's sink partitions that long).
    s.extra = "consumer.session.timeout.ms=10000\n".into();
    let mut cluster = Cluster::start(3, s).await;
    let dir = tempfile::tempdir().unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let (mut inputs, mut outputs, mut topics, mut writers) = (vec![], vec![], vec![], vec![]);
    let (mut sources, mut sinks) = (vec![], vec![]);
    for n in 0..PIPELINES {
        let input = dir.path().join(format!("in-{n}.txt"));
        let output = dir.path().join(format!("out-{n}.txt"));
        std::fs::write(&input, "").unwrap();
        let topic = unique(&format!("kill-run-{n}"));
        writers.push(write_lines(input.clone(), 20, stop.clone()));
        let (source, sink) = (format!("run-src-{n}"), format!("run-snk-{n}"));
        assert_eq!(cluster.create(n, &source, file_source(&input, &topic)).await.0, 201);
        let config = json!({"connector.class": "FileStreamSink", "tasks.max": "1",
            "file": output.display().to_string(), "topics": topic});
        assert_eq!(cluster.create(n, &sink, config).await.0, 201);
        inputs.push(input);
        outputs.push(output);
        topics.push(topic);
        sources.push(source);
        sinks.push(sink);
    }
    let all: Vec<String> = sources.iter().chain(&sinks).cloned().collect();
    for name in &all {
        cluster.wait_running(0, name, 1, 90).await;
    }
    let stalls = sample_stalls(outputs.clone(), stop.clone());
    // Every source has committed offsets by now (`offset.flush.interval.ms` is 500): from
    // here on, no start of a source task may read from position 0.
    tokio::time::sleep(Duration::from_secs(5)).await;
    let marks: Vec<usize> = (0..3).map(|i| mark(&cluster, i)).collect();

    let mut moves = Vec::new();
    let mut last_victim = None;
    for round in 0..2 {
        // A worker that runs a source task (the first time a follower, then another one).
        let leader = cluster.leader();
        let live = (0..3).find(|i| Some(*i) != last_victim).unwrap();
        let placed = owners(&cluster, live, &all).await;
        let sources_on = |i: usize| sources.iter().filter(|s| placed.get(*s) == Some(&i)).count();
        let victim = (0..3)
            .filter(|i| Some(*i) != last_victim && (round > 0 || Some(*i) != leader))
            .max_by_key(|i| sources_on(*i))
            .unwrap();
        cluster.kill(victim);
        let killed = Instant::now();
        for (n, sink) in sinks.iter().enumerate() {
            if placed.get(sink).is_none_or(|o| *o == victim) {
                cut_torn_line(&outputs[n]);
            }
        }
        let survivor = (0..3).find(|i| *i != victim).unwrap();
        let gone = format!("127.0.0.1:{}", cluster.workers[victim].port);
        let deadline = killed + Duration::from_secs(120);
        loop {
            let mut moved = true;
            for name in &all {
                let s = cluster.status(survivor, name).await;
                let elsewhere = |v: &Value| v["worker_id"] != gone.as_str();
                moved &= all_running(&s, 1)
                    && elsewhere(&s["connector"])
                    && s["tasks"].as_array().unwrap().iter().all(elsewhere);
            }
            if moved {
                break;
            }
            assert!(Instant::now() < deadline, "work did not move\n{}", cluster.logs());
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        moves.push(killed.elapsed());
        tokio::time::sleep(Duration::from_secs(3)).await;
        cluster.restart(victim).await;
        last_victim = Some(victim);
        tokio::time::sleep(Duration::from_secs(8)).await;
    }
    stop.store(true, Ordering::SeqCst);
    let longest = stalls.join().unwrap();
    let written: Vec<usize> = writers.into_iter().map(|w| w.join().unwrap()).collect();

    // Every line reaches its output (at least once).
    let mut output_duplicates = Vec::new();
    for (n, output) in outputs.iter().enumerate() {
        let count = written[n];
        let values = eventually(180, &format!("every line in {}", output.display()), async || {
            let text = std::fs::read_to_string(output).unwrap_or_default();
            let values: Vec<usize> = text.lines().filter_map(|l| l.parse().ok()).collect();
            let mut seen = vec![false; count];
            values.iter().filter(|v| **v < count).for_each(|v| seen[*v] = true);
            seen.iter().all(|s| *s).then_some(values)
        })
        .await;
        output_duplicates.push(duplicates(&values));
    }
    let mut source_duplicates = Vec::new();
    for (n, topic) in topics.iter().enumerate() {
        let (t, count) = (topic.clone(), written[n]);
        let values = tokio::task::spawn_blocking(move || read_topic(&t, count, 120)).await.unwrap();
        source_duplicates.push(duplicates(&values));
    }
    eprintln!(
        "kill -9 run: {written:?} lines written; kill to all RUNNING elsewhere {moves:?}; \
         longest output stall per pipeline {longest:?}; duplicates in the topics \
         {source_duplicates:?}, in the outputs {output_duplicates:?}"
    );
    // No source task started from position 0 once its offsets had been committed.
    for input in &inputs {
        for (i, from) in marks.iter().enumerate() {
            let from_zero = starts(&cluster, i, *from, input).contains(&0);
            assert!(!from_zero, "worker {i} read {} from 0\n{}", input.display(), cluster.logs());
        }
    }
}
