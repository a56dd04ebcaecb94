//! Per-language benchmark of the example plugins: for every component under
//! `build/examples/<language>/`, its size, the first load (Cranelift compile), a load from
//! the on-disk artifact cache by a fresh runtime, the time to instantiate a task, and the
//! records/s through `poll` (sources) or `put` (sinks) in batches of 1,000 records with
//! 100-byte values (JSON strings), per second of wall time and per second of the process's
//! CPU time (steadier on a shared machine). Prints a Markdown table.
//!
//! Run with `cargo bench --bench languages` after `scripts/build-guests.sh`,
//! `scripts/build-python-guests.sh` and `scripts/build-js-guests.sh`.
//! `LANG_BENCH_RECORDS` sets the records per throughput run (default 100,000);
//! `LANG_BENCH_ONLY` keeps the components whose path contains one of its comma-separated
//! words (`LANG_BENCH_ONLY=python/jsonl,js/`). `LANG_BENCH_CACHE` names an artifact cache
//! kept between runs instead of a fresh one per component: the first-load column then shows
//! a cached load after the first run, and runs that compare throughput skip the compiles.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use wasm_connect::model::{PluginKind, TopicPartition, TopicPartitionOffset};
use wasm_connect::runtime::{Identity, NoHost, Plugin, Runtime, RuntimeOptions};
use wasm_connect_batch::{Kind, Record};

/// Records per batch, as the worker polls and puts by default (`LANG_BENCH_BATCH` changes it).
fn batch_size() -> u32 {
    std::env::var("LANG_BENCH_BATCH").ok().and_then(|v| v.parse().ok()).unwrap_or(1000)
}

fn examples() -> Vec<(String, PathBuf)> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../build/examples");
    let mut found = Vec::new();
    for lang in ["rust", "python", "js"] {
        let Ok(dir) = std::fs::read_dir(root.join(lang)) else {
            eprintln!("no {lang} examples in {}: build them first", root.display());
            continue;
        };
        let mut files: Vec<PathBuf> = dir
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "wasm"))
            .collect();
        files.sort();
        found.extend(files.into_iter().map(|f| (lang.to_owned(), f)));
    }
    if let Ok(only) = std::env::var("LANG_BENCH_ONLY") {
        let words: Vec<&str> = only.split(',').filter(|w| !w.is_empty()).collect();
        found.retain(|(_, f)| words.iter().any(|w| f.display().to_string().contains(w)));
    }
    found
}

fn runtime(cache: Option<&Path>) -> Runtime {
    Runtime::new(RuntimeOptions { cache_dir: cache.map(Into::into), pool: None, trust: None })
        .unwrap()
}

/// CPU time of every thread of this process so far (the sum of `/proc/self/task/*/schedstat`),
/// or None where that cannot be read. Records per CPU-second stay comparable when other work
/// shares the cores, where records per second of wall time do not.
fn cpu_time() -> Option<Duration> {
    let mut ns = 0u64;
    for task in std::fs::read_dir("/proc/self/task").ok()?.flatten() {
        let stat = std::fs::read_to_string(task.path().join("schedstat")).ok()?;
        ns += stat.split_whitespace().next()?.parse::<u64>().ok()?;
    }
    Some(Duration::from_nanos(ns))
}

/// The rate of `n` records over `wall` and over the CPU time since `cpu0`.
fn rates(n: usize, wall: Duration, cpu0: Option<Duration>) -> String {
    let per_cpu = match (cpu0, cpu_time()) {
        (Some(a), Some(b)) if b > a => format!("{:.1} k", n as f64 / (b - a).as_secs_f64() / 1e3),
        _ => "-".to_owned(),
    };
    format!("{:.1} k | {per_cpu}", n as f64 / wall.as_secs_f64() / 1e3)
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// A config that runs the example: every key the examples use, given a value that keeps it
/// busy (`count` large, files in `dir`), plus the defaults of its definition.
fn config(plugin: &Plugin, dir: &Path) -> Vec<(String, String)> {
    let mut config = vec![
        ("name".to_owned(), "bench".to_owned()),
        ("topic".to_owned(), "bench".to_owned()),
        ("topics".to_owned(), "bench".to_owned()),
    ];
    for key in &plugin.info().config_def.keys {
        let value = match key.name.as_str() {
            "topic" | "topics" => continue,
            "count" | "records" | "max.records" => "100000000".to_owned(),
            "batch.size" => batch_size().to_string(),
            "file" | "path" => dir.join("bench.out").display().to_string(),
            _ => match &key.default_value {
                Some(v) => v.clone(),
                None => continue,
            },
        };
        config.push((key.name.clone(), value));
    }
    config
}

/// Records/s through `poll` until `target` records (or an empty poll).
async fn poll_rate(plugin: &Plugin, config: &[(String, String)], target: usize) -> String {
    let task = plugin.source_task(Identity::task("bench", 0), config, Arc::new(NoHost)).await;
    let task = match task {
        Ok(t) => t,
        Err(e) => return format!("instantiate failed: {e}"),
    };
    if let Err(e) = task.start(config.to_vec()).await {
        return format!("start failed: {e}");
    }
    let cpu0 = cpu_time();
    let t0 = Instant::now();
    let mut n = 0;
    while n < target {
        match task.poll(batch_size()).await {
            Ok(batch) if batch.is_empty() => break,
            Ok(batch) => n += batch.len(),
            Err(e) => return format!("poll failed: {e}"),
        }
    }
    let rate = rates(n, t0.elapsed(), cpu0);
    let _ = task.stop().await;
    rate
}

/// Records/s through `put` of `target` records whose values are 100-byte JSON strings.
async fn put_rate(plugin: &Plugin, config: &[(String, String)], target: usize) -> String {
    let task = plugin.sink_task(Identity::task("bench", 0), config, Arc::new(NoHost)).await;
    let task = match task {
        Ok(t) => t,
        Err(e) => return format!("instantiate failed: {e}"),
    };
    if let Err(e) = task.start(config.to_vec()).await {
        return format!("start failed: {e}");
    }
    let tp = TopicPartition { topic: "bench".into(), partition: 0 };
    if let Err(e) = task.open(std::slice::from_ref(&tp)).await {
        return format!("open failed: {e}");
    }
    let mut offset = 0i64;
    let cpu0 = cpu_time();
    let t0 = Instant::now();
    while (offset as usize) < target {
        let batch: Vec<Record> = (0..batch_size() as i64)
            .map(|i| Record {
                topic: tp.topic.clone(),
                partition: Some(0),
                offset: Some(offset + i),
                // A JSON string of 100 bytes: what a JSON-lines sink is for.
                value_kind: Kind::Json,
                value: Some(format!("\"{:0>98}\"", offset + i).into_bytes()),
                ..Record::default()
            })
            .collect();
        offset += batch_size() as i64;
        if let Err(e) = task.put(&batch).await {
            return format!("put failed: {e}");
        }
    }
    let done = [TopicPartitionOffset { topic: tp.topic.clone(), partition: 0, offset }];
    if let Err(e) = task.pre_commit(&done).await {
        return format!("pre-commit failed: {e}");
    }
    let rate = rates(offset as usize, t0.elapsed(), cpu0);
    let _ = task.stop().await;
    rate
}

#[tokio::main]
async fn main() {
    let target: usize =
        std::env::var("LANG_BENCH_RECORDS").ok().and_then(|v| v.parse().ok()).unwrap_or(100_000);
    println!(
        "| language | plugin (file) | kind | size | first load (compile) | cached load | \
         instantiate (median) | records/s | records/CPU-s |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    for (lang, file) in examples() {
        let fresh = tempfile::tempdir().unwrap();
        let kept = std::env::var_os("LANG_BENCH_CACHE").map(PathBuf::from);
        let cache = kept.as_deref().unwrap_or(fresh.path());
        let work = tempfile::tempdir().unwrap();
        let size = std::fs::metadata(&file).unwrap().len();

        let t0 = Instant::now();
        let first = match runtime(Some(cache)).load(&file).await {
            Ok(p) => p,
            Err(e) => {
                println!("| {lang} | {} | - | - | failed: {e} | | | | |", file.display());
                continue;
            }
        };
        let compile = t0.elapsed();
        drop(first);
        let rt = runtime(Some(cache));
        let t0 = Instant::now();
        let plugin = rt.load(&file).await.unwrap();
        let cached = t0.elapsed();

        if plugin.info().kind == PluginKind::Transform {
            continue; // the examples' transforms are measured by the transform benches
        }
        let config = config(&plugin, work.path());
        let rounds = if lang == "rust" { 200 } else { 30 };
        let mut inst = Vec::new();
        for i in 0..rounds {
            let t0 = Instant::now();
            let made = match plugin.info().kind {
                PluginKind::Source => plugin
                    .source_task(Identity::task("bench", i), &config, Arc::new(NoHost))
                    .await
                    .map(drop),
                PluginKind::Sink => plugin
                    .sink_task(Identity::task("bench", i), &config, Arc::new(NoHost))
                    .await
                    .map(drop),
                PluginKind::Transform => unreachable!("the examples listed are connectors"),
            };
            made.unwrap();
            inst.push(t0.elapsed());
        }
        let rate = match plugin.info().kind {
            PluginKind::Source => poll_rate(&plugin, &config, target).await,
            PluginKind::Sink => put_rate(&plugin, &config, target).await,
            PluginKind::Transform => unreachable!("the examples listed are connectors"),
        };
        println!(
            "| {lang} | {} ({}) | {} | {:.1} MB | {:.2} s | {:.1} ms | {:.0} µs | {rate} |",
            plugin.info().name,
            file.file_stem().unwrap_or_default().display(),
            plugin.info().kind,
            size as f64 / 1e6,
            compile.as_secs_f64(),
            cached.as_secs_f64() * 1e3,
            median(inst).as_secs_f64() * 1e6,
        );
    }
}
