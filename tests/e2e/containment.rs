//! A misbehaving instance fails alone: each fixture mode is contained, reported with a
//! readable trace, and a healthy instance running beside it keeps producing.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use wasm_connect::runtime::{InstanceError, SourceTaskInstance, TrapKind};

use crate::support::{cfg, fixture, no_host, task};

/// Starts a healthy counting source and polls it in the background until `stop`.
async fn healthy_beside(stop: Arc<AtomicBool>) -> (Arc<AtomicUsize>, tokio::task::JoinHandle<()>) {
    let plugin = fixture("chaos-source").await;
    let config = cfg(&[("chaos.mode", "ok"), ("batch.size", "10")]);
    let t = plugin.source_task(task("healthy"), &config, no_host()).await.unwrap();
    t.start(config).await.unwrap();
    let count = Arc::new(AtomicUsize::new(0));
    let c = count.clone();
    let handle = tokio::spawn(async move {
        while !stop.load(Ordering::Relaxed) {
            let records = t.poll(10).await.expect("the healthy task keeps working");
            c.fetch_add(records.len(), Ordering::Relaxed);
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
    });
    (count, handle)
}

/// Starts a chaos source task in `mode`, ready to poll.
async fn chaos(mode: &str, extra: &[(&str, &str)]) -> SourceTaskInstance {
    let plugin = fixture("chaos-source").await;
    let mut config = cfg(&[("chaos.mode", mode)]);
    config.extend(cfg(extra));
    let t = plugin.source_task(task(&format!("chaos-{mode}")), &config, no_host()).await.unwrap();
    t.start(config).await.unwrap();
    t
}

/// Runs one misbehaving poll beside a healthy task; returns the error and how many
/// records the healthy task produced while the bad call ran.
async fn contained(mode: &str, extra: &[(&str, &str)]) -> (InstanceError, usize) {
    let stop = Arc::new(AtomicBool::new(false));
    let (count, healthy) = healthy_beside(stop.clone()).await;
    let bad = chaos(mode, extra).await;
    let before = count.load(Ordering::Relaxed);
    let err = bad.poll(100).await.expect_err("the misbehaving poll fails");
    // Let the healthy task run a little longer after the failure, too.
    tokio::time::sleep(Duration::from_millis(50)).await;
    let during = count.load(Ordering::Relaxed) - before;
    stop.store(true, Ordering::Relaxed);
    healthy.await.expect("healthy task never failed");
    // The failed instance is discarded: later calls fail at once, without running guest code.
    assert!(bad.instance().is_discarded(), "{mode}: instance not discarded");
    let again = bad.poll(1).await.expect_err("a discarded instance refuses calls");
    assert!(matches!(again, InstanceError::Discarded(_)), "{mode}: {again:?}");
    (err, during)
}

fn trap_kind(e: &InstanceError) -> &TrapKind {
    match e {
        InstanceError::Trap { kind, .. } => kind,
        other => panic!("expected a trap, got {other:?}"),
    }
}

#[tokio::test]
async fn a_trap_fails_only_its_instance() {
    let (err, during) = contained("trap", &[]).await;
    assert_eq!(trap_kind(&err), &TrapKind::Unreachable);
    assert!(err.trace().contains("poll"), "{}", err.trace());
    assert!(during > 0, "the healthy task stalled");
}

#[tokio::test]
async fn a_panic_is_reported_with_its_message_from_stderr() {
    let (err, during) = contained("panic", &[]).await;
    assert_eq!(trap_kind(&err), &TrapKind::Unreachable);
    let trace = err.trace();
    assert!(trace.contains("chaos panic"), "panic message missing from trace:\n{trace}");
    assert!(during > 0);
}

#[tokio::test]
async fn an_endless_loop_is_stopped_by_the_cpu_deadline() {
    let (err, during) = contained("loop", &[("wasm.call.timeout.ms", "300")]).await;
    assert_eq!(trap_kind(&err), &TrapKind::Deadline);
    // The healthy task produced while the other instance spun for 300 ms.
    assert!(during >= 10, "healthy task produced only {during} records meanwhile");
}

#[tokio::test]
async fn a_memory_bomb_hits_the_summed_cap() {
    let (err, during) =
        contained("oom", &[("wasm.memory.max.bytes", &(32u64 << 20).to_string())]).await;
    match trap_kind(&err) {
        TrapKind::LimitExceeded(what) => assert!(what.contains("memory cap of 32 MiB"), "{what}"),
        other => panic!("expected the memory cap, got {other:?}"),
    }
    assert!(during > 0);
}

#[tokio::test]
async fn deep_recursion_is_a_stack_overflow() {
    let (err, during) = contained("recurse", &[]).await;
    assert_eq!(trap_kind(&err), &TrapKind::StackOverflow);
    assert!(during > 0);
}

#[tokio::test]
async fn an_enormous_batch_is_refused() {
    // Enough memory for the guest to build its 24 MiB batch: the host must refuse it.
    let (err, during) =
        contained("huge", &[("wasm.memory.max.bytes", &(256u64 << 20).to_string())]).await;
    match &err {
        InstanceError::Oversized { call, what } => {
            assert_eq!(*call, "poll");
            assert!(what.contains("over the limit"), "{what}");
        }
        other => panic!("expected Oversized, got {other:?}"),
    }
    assert!(during > 0);
}

#[tokio::test]
async fn a_trap_while_starting_fails_the_start_not_the_worker() {
    let plugin = fixture("chaos-source").await;
    let config = cfg(&[("chaos.mode", "panic"), ("chaos.when", "start")]);
    let t = plugin.source_task(task("start-panic"), &config, no_host()).await.unwrap();
    let err = t.start(config).await.expect_err("start traps");
    assert_eq!(trap_kind(&err), &TrapKind::Unreachable);
    // A fresh instance of the same plugin still works: nothing is shared.
    let ok = cfg(&[("chaos.mode", "ok"), ("batch.size", "3")]);
    let t = plugin.source_task(task("after"), &ok, no_host()).await.unwrap();
    t.start(ok).await.unwrap();
    assert_eq!(t.poll(3).await.unwrap().len(), 3);
}

#[tokio::test]
async fn a_connector_error_value_keeps_the_instance() {
    let plugin = fixture("chaos-source").await;
    let config = cfg(&[("chaos.task.configs.failures", "1"), ("tasks.max", "2")]);
    let c = plugin
        .connector(wasm_connect::runtime::Identity::connector("c"), &config, no_host())
        .await
        .unwrap();
    c.start(config).await.unwrap();
    let err = c.task_configs(2).await.expect_err("first call fails");
    assert!(matches!(err, InstanceError::Connector(ref e) if e.is_retriable()), "{err:?}");
    let configs = c.task_configs(2).await.expect("second call succeeds on the same instance");
    assert_eq!(configs.len(), 2);
    c.stop().await.unwrap();
}

/// Instances have no threads of their own: guest calls share a pool with one thread per
/// core. A guest that spins yields at every epoch tick, so with more spinning guests than
/// pool threads, a healthy instance on the same pool is still created and called while
/// they all spin, and each spinner still ends at its own deadline.
#[tokio::test]
async fn spinning_guests_do_not_starve_another_instance_on_the_pool() {
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let mut spinners = Vec::new();
    for _ in 0..=threads {
        let t = chaos("loop", &[("wasm.call.timeout.ms", "3000")]).await;
        spinners.push(tokio::spawn(async move { t.poll(1).await }));
    }
    // Let every spinner enter its call (no assertion rests on how long this takes).
    tokio::time::sleep(Duration::from_millis(100)).await;
    let plugin = fixture("chaos-source").await;
    let config = cfg(&[("chaos.mode", "ok"), ("batch.size", "5")]);
    let healthy = plugin.source_task(task("beside-spinners"), &config, no_host()).await.unwrap();
    healthy.start(config).await.unwrap();
    assert_eq!(healthy.poll(5).await.expect("the healthy instance answers").len(), 5);
    let still_spinning = spinners.iter().filter(|s| !s.is_finished()).count();
    assert_eq!(still_spinning, threads + 1, "the healthy calls ran while every guest spun");
    for s in spinners {
        let err = s.await.unwrap().expect_err("a spinner ends at its deadline");
        assert_eq!(trap_kind(&err), &TrapKind::Deadline);
    }
}
