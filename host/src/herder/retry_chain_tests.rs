//! Tests of [`RetryChains`] on tokio's virtual clock: the schedule is slept through with
//! `sleep_until` and checked to the millisecond.

use std::time::Duration;

use tokio::time::Instant;

use super::*;
use crate::model::{Backoff, KAFKA_14732};

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

/// Fails the attempt in flight now and returns the delay, checking it is a retry.
fn fail(chains: &mut RetryChains, policy: &RetryPolicy) -> Duration {
    assert!(!chains.answered("c"), "no rerun was asked");
    match chains.failed("c", Instant::now(), "boom", policy, 0.5) {
        AfterFailure::Retry { delay, due, .. } => {
            assert_eq!(due, Instant::now() + delay);
            delay
        }
        other => panic!("{other:?}"),
    }
}

/// Sleeps until the next due retry and takes it.
async fn wait_for_retry(chains: &mut RetryChains) {
    tokio::time::sleep_until(chains.next_due().expect("a retry is pending")).await;
    assert_eq!(chains.take_due(Instant::now()), ["c"]);
}

#[tokio::test(start_paused = true)]
async fn kafka_connect_scenario_fail_fail_succeed_then_no_further_retry() {
    let policy = RetryPolicy::default();
    let mut chains = RetryChains::default();
    let start = Instant::now();
    chains.begin("c");
    assert_eq!(fail(&mut chains, &policy), ms(250));
    wait_for_retry(&mut chains).await;
    assert_eq!(start.elapsed(), ms(250));
    assert_eq!(fail(&mut chains, &policy), ms(500));
    wait_for_retry(&mut chains).await;
    assert_eq!(start.elapsed(), ms(750));
    assert!(!chains.answered("c"));
    assert!(chains.succeeded("c"), "there had been failures");
    assert_eq!(chains.next_due(), None);
    tokio::time::advance(Duration::from_secs(600)).await;
    assert!(chains.take_due(Instant::now()).is_empty(), "no further retry");
    assert_eq!(chains.get("c").unwrap().failures, 0);
}

#[tokio::test(start_paused = true)]
async fn the_delay_doubles_to_the_60_second_cap() {
    let policy = RetryPolicy::default();
    let mut chains = RetryChains::default();
    let start = Instant::now();
    chains.begin("c");
    let mut delays = Vec::new();
    for _ in 0..11 {
        delays.push(fail(&mut chains, &policy).as_millis());
        wait_for_retry(&mut chains).await;
    }
    assert_eq!(delays, [250, 500, 1000, 2000, 4000, 8000, 16000, 32000, 60000, 60000, 60000]);
    assert_eq!(start.elapsed(), ms(delays.iter().sum::<u128>() as u64));
    assert_eq!(chains.get("c").unwrap().failures, 11);
}

#[tokio::test(start_paused = true)]
async fn jitter_stays_within_its_bounds() {
    let policy =
        RetryPolicy { backoff: Backoff { jitter: 0.25, ..KAFKA_14732 }, ..RetryPolicy::default() };
    let mut chains = RetryChains::default();
    chains.begin("c");
    for failure in 0..12u32 {
        assert!(!chains.answered("c"));
        let plain = KAFKA_14732.delay(failure, 0.5).as_secs_f64();
        let AfterFailure::Retry { delay, .. } =
            chains.failed("c", Instant::now(), "boom", &policy, crate::model::random_unit())
        else {
            panic!("no limit")
        };
        let d = delay.as_secs_f64();
        assert!(d >= plain * 0.75 - 1e-6 && d <= (plain * 1.25).min(60.0) + 1e-6, "{d} vs {plain}");
        wait_for_retry(&mut chains).await;
    }
}

#[tokio::test(start_paused = true)]
async fn the_limit_gives_up_after_the_last_retry() {
    let policy = RetryPolicy { max_retries: Some(2), ..RetryPolicy::default() };
    let mut chains = RetryChains::default();
    chains.begin("c");
    assert_eq!(fail(&mut chains, &policy), ms(250));
    wait_for_retry(&mut chains).await;
    assert_eq!(fail(&mut chains, &policy), ms(500));
    wait_for_retry(&mut chains).await;
    chains.answered("c");
    let out = chains.failed("c", Instant::now(), "last", &policy, 0.5);
    assert_eq!(out, AfterFailure::GiveUp { failures: 3 });
    assert_eq!(chains.get("c"), None);
    assert_eq!(chains.next_due(), None);
    let none = RetryPolicy { max_retries: Some(0), ..RetryPolicy::default() };
    chains.begin("d");
    chains.answered("d");
    let out = chains.failed("d", Instant::now(), "first", &none, 0.5);
    assert_eq!(out, AfterFailure::GiveUp { failures: 1 });
}

#[tokio::test(start_paused = true)]
async fn cancelling_drops_the_pending_retry() {
    let policy = RetryPolicy::default();
    let mut chains = RetryChains::default();
    chains.begin("c");
    fail(&mut chains, &policy);
    assert!(chains.cancel("c"), "a retry was waiting");
    assert_eq!(chains.next_due(), None);
    tokio::time::advance(Duration::from_secs(120)).await;
    assert!(chains.take_due(Instant::now()).is_empty());
    assert!(!chains.cancel("c"), "nothing left to cancel");
}

#[tokio::test(start_paused = true)]
async fn success_resets_the_count() {
    let policy = RetryPolicy { max_retries: Some(2), ..RetryPolicy::default() };
    let mut chains = RetryChains::default();
    chains.begin("c");
    fail(&mut chains, &policy);
    wait_for_retry(&mut chains).await;
    fail(&mut chains, &policy);
    wait_for_retry(&mut chains).await;
    chains.answered("c");
    assert!(chains.succeeded("c"));
    assert!(!chains.succeeded("c"), "nothing to clear the second time");
    assert!(chains.trigger("c"));
    assert_eq!(fail(&mut chains, &policy), ms(250), "the schedule starts over");
}

#[tokio::test(start_paused = true)]
async fn a_trigger_replaces_the_pending_retry_and_keeps_the_count() {
    let policy = RetryPolicy::default();
    let mut chains = RetryChains::default();
    chains.begin("c");
    fail(&mut chains, &policy);
    assert!(chains.trigger("c"), "sent at once");
    assert_eq!(chains.next_due(), None, "the pending retry is replaced, not doubled");
    assert_eq!(fail(&mut chains, &policy), ms(500), "one chain: the count goes on");
    chains.begin("c");
    assert_eq!(fail(&mut chains, &policy), ms(250), "a new instance starts over");
}

#[test]
fn a_trigger_while_in_flight_runs_once_more_after_the_answer() {
    let mut chains = RetryChains::default();
    chains.begin("c");
    assert!(!chains.trigger("c"), "one request at a time");
    assert!(!chains.trigger("c"));
    assert!(chains.answered("c"), "one more run");
    assert!(chains.trigger("c"));
    assert!(!chains.answered("c"));
}
