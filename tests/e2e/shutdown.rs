//! Shutdown always ends: workers given SIGTERM after their broker has gone exit within the
//! bound docs/failure-handling.md documents (Kafka Connect's keys), at several moments of
//! the outage, and a distributed worker does not rejoin its group once shutdown has begun.
//! Uses a broker of its own on free ports, stopped by the test.

use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::broker::PrivateBroker;
use crate::cluster::{Cluster, ClusterSettings};
use crate::harness::shared_cache_dir;
use crate::support::root;

/// The documented bound of a shutdown with the test cluster's settings
/// (`task.shutdown.graceful.timeout.ms=2000`, `worker.sync.timeout.ms` 3000 by default):
/// the REST listeners' 5 s, then the herder's stop timeout, 3 + 2 + 5 + 10 s.
const BOUND: Duration = Duration::from_secs(25);

/// The liveness deadline: the bound three times over, for a loaded machine. Before
/// shutdown was bounded, such a worker ran for minutes (statuses retried 20 times, the
/// group rejoined every 5 s).
fn deadline() -> Duration {
    BOUND * 3
}

fn file_source(input: &Path, topic: &str) -> Value {
    json!({"connector.class": "FileStreamSource", "tasks.max": "1",
        "file": input.display().to_string(), "topic": topic})
}

fn file_sink(output: &Path, topic: &str) -> Value {
    json!({"connector.class": "FileStreamSink", "tasks.max": "1",
        "file": output.display().to_string(), "topics": topic})
}

/// Appends a numbered line to each file every 10 ms until the returned flag is set.
fn feed(files: Vec<std::path::PathBuf>) -> std::sync::Arc<std::sync::atomic::AtomicBool> {
    use std::io::Write;
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flag = stop.clone();
    std::thread::spawn(move || {
        let mut out: Vec<std::fs::File> = files
            .iter()
            .map(|f| std::fs::OpenOptions::new().create(true).append(true).open(f).unwrap())
            .collect();
        let mut n = 0u64;
        while !flag.load(std::sync::atomic::Ordering::SeqCst) {
            for f in &mut out {
                writeln!(f, "line {n}").unwrap();
            }
            n += 1;
            std::thread::sleep(Duration::from_millis(10));
        }
    });
    stop
}

/// Waits until `output` has some lines: the pipeline into it runs.
async fn flowing(output: &Path, what: &str) {
    let until = Instant::now() + Duration::from_secs(120);
    while std::fs::read_to_string(output).map_or(0, |t| t.lines().count()) < 10 {
        assert!(Instant::now() < until, "{what}: nothing reached {}", output.display());
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The lines of `log` from the first containing `from`.
fn lines_after<'a>(log: &'a str, from: &str) -> Vec<&'a str> {
    log.lines().skip_while(|l| !l.contains(from)).collect()
}

/// A standalone worker process with Kafka data topics, killed when dropped.
struct Standalone {
    child: Child,
    log: std::path::PathBuf,
}

impl Standalone {
    fn start(dir: &Path, bootstrap: &str, topic: &str, input: &Path, output: &Path) -> Self {
        let worker = dir.join("standalone.properties");
        std::fs::write(
            &worker,
            format!(
                "plugin.path={}\nlisteners=http://127.0.0.1:0\nbootstrap.servers={bootstrap}\n\
                 offset.storage.file.filename={}\noffset.flush.interval.ms=500\n\
                 task.shutdown.graceful.timeout.ms=2000\nwasm.cache.dir={}\n",
                root().join("build/plugins").display(),
                dir.join("standalone.db").display(),
                shared_cache_dir().display(),
            ),
        )
        .unwrap();
        let mut files = Vec::new();
        for (name, config) in
            [("sa-src", file_source(input, topic)), ("sa-snk", file_sink(output, topic))]
        {
            let file = dir.join(format!("{name}.json"));
            std::fs::write(&file, json!({"name": name, "config": config}).to_string()).unwrap();
            files.push(file);
        }
        let log = dir.join("standalone.log");
        let child = Command::new(env!("CARGO_BIN_EXE_wasm-connect"))
            .arg("standalone")
            .arg(&worker)
            .args(&files)
            .env("RUST_LOG", "info")
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .unwrap();
        Self { child, log }
    }

    fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    fn terminate(&self) {
        let id = self.child.id().to_string();
        let ok = Command::new("kill").args(["-TERM", &id]).status().unwrap();
        assert!(ok.success(), "kill -TERM failed");
    }
}

impl Drop for Standalone {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        if std::thread::panicking() {
            eprintln!("---- standalone worker ----\n{}", self.log());
        }
    }
}

/// Polls every process SIGTERM was sent to (the cluster's `workers`, sent at `sent`, and
/// the standalone worker, sent at `sa_sent`) until all have exited; returns each one's exit
/// status and how long after its SIGTERM it was seen gone. Fails past the liveness
/// deadline.
async fn all_exit(
    cluster: &mut Cluster,
    sent: &[Instant],
    sa: &mut Standalone,
    sa_sent: Instant,
) -> Vec<(String, ExitStatus, Duration)> {
    let mut done: Vec<Option<(String, ExitStatus, Duration)>> = vec![None; sent.len() + 1];
    loop {
        for (i, since) in sent.iter().enumerate() {
            if done[i].is_none()
                && let Some(status) = cluster.exited(i)
            {
                done[i] = Some((format!("distributed worker {i}"), status, since.elapsed()));
            }
        }
        if done[sent.len()].is_none()
            && let Some(status) = sa.child.try_wait().unwrap()
        {
            done[sent.len()] = Some(("standalone worker".into(), status, sa_sent.elapsed()));
        }
        if done.iter().all(Option::is_some) {
            return done.into_iter().flatten().collect();
        }
        let late = sent
            .iter()
            .chain([&sa_sent])
            .zip(&done)
            .find(|(since, d)| d.is_none() && since.elapsed() >= deadline());
        assert!(
            late.is_none(),
            "still running {:?} after SIGTERM with the broker gone: {:?}\n{}\n---- standalone ----\n{}",
            deadline(),
            done.iter().map(Option::is_some).collect::<Vec<_>>(),
            cluster.logs(),
            sa.log()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_with_the_broker_gone_exits_within_the_bound() {
    let broker = PrivateBroker::start_free();
    let bootstrap = format!("127.0.0.1:{}", broker.port);
    let dir = tempfile::tempdir().unwrap();
    let mut cluster =
        Cluster::start(3, ClusterSettings::new(bootstrap.clone(), 1000, shared_cache_dir())).await;
    // A source and a sink per worker (as the assignor spreads them), under load, so that
    // offsets and statuses are being written when the broker goes.
    let mut inputs = Vec::new();
    let mut outputs = Vec::new();
    for n in 0..3 {
        let input = dir.path().join(format!("in-{n}.txt"));
        let output = dir.path().join(format!("out-{n}.txt"));
        let topic = format!("shutdown-{}-{n}", std::process::id());
        std::fs::write(&input, "").unwrap();
        let (code, body) =
            cluster.create(n, &format!("sd-src-{n}"), file_source(&input, &topic)).await;
        assert_eq!(code, 201, "{body}");
        let (code, body) =
            cluster.create(n, &format!("sd-snk-{n}"), file_sink(&output, &topic)).await;
        assert_eq!(code, 201, "{body}");
        inputs.push(input);
        outputs.push(output);
    }
    let sa_input = dir.path().join("sa-in.txt");
    let sa_output = dir.path().join("sa-out.txt");
    std::fs::write(&sa_input, "").unwrap();
    let sa_topic = format!("shutdown-sa-{}", std::process::id());
    let mut standalone =
        Standalone::start(dir.path(), &bootstrap, &sa_topic, &sa_input, &sa_output);
    inputs.push(sa_input);
    let stop_feeding = feed(inputs);
    for (n, output) in outputs.iter().enumerate() {
        cluster.wait_running(0, &format!("sd-src-{n}"), 1, 120).await;
        cluster.wait_running(0, &format!("sd-snk-{n}"), 1, 120).await;
        flowing(output, "distributed").await;
    }
    flowing(&sa_output, "standalone").await;

    broker.kafka(&["stop"]);
    // At once: sources are flushing offsets (every 500 ms) and writing records the broker
    // will never acknowledge, statuses are being written.
    let at_once = Instant::now();
    cluster.terminate(0);
    let sa_since = Instant::now();
    standalone.terminate();
    // After a few seconds: membership lost, every instance stopped, statuses of that queued
    // and retried, the group rejoined in vain.
    tokio::time::sleep(Duration::from_secs(4)).await;
    let after_4 = Instant::now();
    cluster.terminate(1);
    tokio::time::sleep(Duration::from_secs(11)).await;
    let after_15 = Instant::now();
    cluster.terminate(2);

    let sent = [at_once, after_4, after_15];
    let results = all_exit(&mut cluster, &sent, &mut standalone, sa_since).await;
    stop_feeding.store(true, std::sync::atomic::Ordering::SeqCst);
    for (what, status, took) in &results {
        eprintln!("{what}: exited with {status} {took:?} after SIGTERM (bound {BOUND:?})");
        assert!(status.success(), "{what} exited with {status}\n{}", cluster.logs());
    }

    for i in 0..3 {
        let log = cluster.log(i);
        let after = lines_after(&log, "Shutting down");
        assert!(!after.is_empty(), "worker {i} never logged its shutdown\n{log}");
        assert!(
            after.iter().any(|l| l.contains("Worker stopped")),
            "worker {i} did not say it stopped\n{}",
            after.join("\n")
        );
        // No rejoin once shutdown has begun: at most the attempt already under way fails.
        let joins = after.iter().filter(|l| l.contains("Joining the group failed")).count();
        assert!(joins <= 1, "worker {i} kept rejoining during shutdown\n{}", after.join("\n"));
    }
    let sa_log = standalone.log();
    assert!(
        lines_after(&sa_log, "Shutting down").iter().any(|l| l.contains("Worker stopped")),
        "{sa_log}"
    );
}
