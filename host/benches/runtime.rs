//! Runtime benchmark: instantiate time per task, call overhead, and records/s through
//! `poll` for batches of 1, 100 and 1,000 records with 100-byte values, next to a native
//! Rust baseline doing the same work without wasm. Prints a Markdown table.
//!
//! Run with `cargo bench --bench runtime` after `scripts/build-guests.sh`.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use wasm_connect::runtime::{Identity, NoHost, Runtime, RuntimeOptions};
use wasm_connect_batch::Record;

fn plugin_path(name: &str) -> PathBuf {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../build/plugins")
        .join(format!("{name}.wasm"));
    assert!(p.exists(), "{} missing: run scripts/build-guests.sh", p.display());
    p
}

fn cfg(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn percentile(mut v: Vec<Duration>, p: f64) -> Duration {
    v.sort();
    v[((v.len() as f64 - 1.0) * p).round() as usize]
}

/// The records datagen makes, built natively: key = zero-padded sequence, value = a
/// repeated byte pattern, JSON source partition and offset.
fn native_batch(seq: &mut u64, n: usize, value_size: usize) -> Vec<Record> {
    (0..n)
        .map(|_| {
            let s = *seq;
            *seq += 1;
            let value: Vec<u8> =
                (0..value_size).map(|i| b'a' + ((s as usize + i) % 26) as u8).collect();
            Record {
                topic: "bench".into(),
                key: Some(format!("{s:08}").into_bytes()),
                value: Some(value),
                source_partition: Some(br#"{"task":0}"#.to_vec()),
                source_offset: Some(format!(r#"{{"seq":{s}}}"#).into_bytes()),
                ..Record::default()
            }
        })
        .collect()
}

#[tokio::main]
async fn main() {
    let cache = tempfile::tempdir().unwrap();
    let rt = Runtime::new(RuntimeOptions {
        cache_dir: Some(cache.path().into()),
        pool: Some(Default::default()),
        trust: None,
    })
    .unwrap();
    let path = plugin_path("datagen");

    let t = Instant::now();
    let datagen = rt.load(&path).await.unwrap();
    let first_load = t.elapsed();
    let t = Instant::now();
    rt.load(&path).await.unwrap();
    let cached_load = t.elapsed();

    let base = cfg(&[
        ("topic", "bench"),
        ("value.size", "100"),
        ("key.size", "8"),
        ("batch.size", "1000"),
    ]);
    let host = Arc::new(NoHost);

    // Instantiate: thread + Store + instance, ready for calls.
    let mut inst = Vec::new();
    for i in 0..300 {
        let t0 = Instant::now();
        let task =
            datagen.source_task(Identity::task("bench", i), &base, host.clone()).await.unwrap();
        inst.push(t0.elapsed());
        drop(task);
    }
    let inst = inst.split_off(50);

    // Call overhead: a no-op export (`commit`) through the instance handle.
    let task = datagen.source_task(Identity::task("bench", 0), &base, host.clone()).await.unwrap();
    task.start(base.clone()).await.unwrap();
    let mut calls = Vec::new();
    for _ in 0..20_000 {
        let t0 = Instant::now();
        task.commit().await.unwrap();
        calls.push(t0.elapsed());
    }
    let calls = calls.split_off(2_000);

    println!("| measure | value |");
    println!("|---|---|");
    println!(
        "| plugin load, first (compile + describe) | {:.1} ms |",
        first_load.as_secs_f64() * 1e3
    );
    println!("| plugin load, cached artifact | {:.2} ms |", cached_load.as_secs_f64() * 1e3);
    println!(
        "| instantiate per task (median / p99) | {:.1} µs / {:.1} µs |",
        median(inst.clone()).as_secs_f64() * 1e6,
        percentile(inst, 0.99).as_secs_f64() * 1e6
    );
    println!(
        "| call overhead, no-op export via the instance handle (median) | {:.1} µs |",
        median(calls).as_secs_f64() * 1e6
    );
    println!();
    println!("| batch | wasm records/s | wasm MB/s (values) | native records/s | wasm / native |");
    println!("|---|---|---|---|---|");
    for batch in [1u32, 100, 1000] {
        let target = 200_000usize.max(batch as usize * 200);
        // Warm up, then time polls until `target` records.
        for _ in 0..10 {
            task.poll(batch).await.unwrap();
        }
        let t0 = Instant::now();
        let mut n = 0usize;
        while n < target {
            n += task.poll(batch).await.unwrap().len();
        }
        let wasm = n as f64 / t0.elapsed().as_secs_f64();

        let mut seq = 0;
        let t0 = Instant::now();
        let mut m = 0usize;
        while m < target {
            let b = native_batch(&mut seq, batch as usize, 100);
            m += std::hint::black_box(b).len();
        }
        let native = m as f64 / t0.elapsed().as_secs_f64();
        println!(
            "| {batch} | {:.0} k | {:.1} | {:.0} k | {:.2} |",
            wasm / 1e3,
            wasm * 100.0 / 1e6,
            native / 1e3,
            wasm / native
        );
    }
}
