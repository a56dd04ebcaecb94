//! Tests of [`AutoRestarts`] on tokio's virtual clock: restarts, their delays, the limit
//! and the reset after a healthy run.

use std::time::Duration;

use tokio::time::Instant;

use super::*;
use crate::model::{Backoff, RetryPolicy};

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

fn task() -> InstanceId {
    InstanceId::Task("c".into(), 1)
}

fn policy(max_retries: Option<u32>, healthy_after: Duration) -> RestartPolicy {
    let backoff = Backoff::doubling(ms(100), ms(400));
    RestartPolicy { retry: RetryPolicy { backoff, max_retries }, healthy_after }
}

/// Fails the task now and expects restart `attempt` after `delay`.
fn fails(book: &mut AutoRestarts, p: &RestartPolicy, attempt: u32, delay: Duration) {
    match book.failed(&task(), Instant::now(), "boom", p, 0.5) {
        AfterFailure::Restart { attempt: a, delay: d, due, .. } => {
            assert_eq!((a, d), (attempt, delay));
            assert_eq!(due, Instant::now() + delay);
        }
        other => panic!("{other:?}"),
    }
}

/// Sleeps until the waiting restart and takes it.
async fn restart(book: &mut AutoRestarts) -> u32 {
    tokio::time::sleep_until(book.next_due().expect("a restart waits")).await;
    let due = book.take_due(Instant::now());
    assert_eq!(due.len(), 1);
    assert_eq!(due[0].0, task());
    due[0].1
}

#[tokio::test(start_paused = true)]
async fn restarts_back_off_up_to_the_limit_then_give_up() {
    let p = policy(Some(3), Duration::from_secs(60));
    let mut book = AutoRestarts::default();
    let start = Instant::now();
    fails(&mut book, &p, 1, ms(100));
    assert_eq!(book.next_due(), Some(start + ms(100)));
    assert_eq!(restart(&mut book).await, 1);
    assert_eq!(start.elapsed(), ms(100));
    assert_eq!(book.note(&task()).unwrap(), "Restarted automatically, attempt 1 of 3, after: boom");
    fails(&mut book, &p, 2, ms(200));
    assert_eq!(restart(&mut book).await, 2);
    fails(&mut book, &p, 3, ms(400));
    assert_eq!(restart(&mut book).await, 3);
    assert_eq!(start.elapsed(), ms(700));
    let out = book.failed(&task(), Instant::now(), "boom", &p, 0.5);
    assert_eq!(
        out,
        AfterFailure::Exhausted {
            trace: "Not restarted automatically: the limit of 3 restarts (restart.retries.max) \
                    is reached, after: boom"
                .into()
        }
    );
    assert_eq!(book.next_due(), None);
    tokio::time::advance(Duration::from_secs(600)).await;
    assert!(book.take_due(Instant::now()).is_empty(), "no restart after the limit");
}

#[tokio::test(start_paused = true)]
async fn the_delay_is_capped_and_unlimited_policies_go_on() {
    let p = policy(None, Duration::from_secs(60));
    let mut book = AutoRestarts::default();
    for (attempt, delay) in [(1, 100), (2, 200), (3, 400), (4, 400), (5, 400)] {
        fails(&mut book, &p, attempt, ms(delay));
        restart(&mut book).await;
    }
    assert_eq!(book.note(&task()).unwrap(), "Restarted automatically, attempt 5, after: boom");
}

#[tokio::test(start_paused = true)]
async fn a_healthy_run_resets_the_count() {
    let p = policy(Some(2), Duration::from_secs(30));
    let mut book = AutoRestarts::default();
    fails(&mut book, &p, 1, ms(100));
    restart(&mut book).await;
    let note = book.running(&task(), Instant::now());
    assert_eq!(note.as_deref(), Some("Restarted automatically, attempt 1 of 2, after: boom"));
    tokio::time::advance(Duration::from_secs(29)).await;
    fails(&mut book, &p, 2, ms(200));
    restart(&mut book).await;
    book.running(&task(), Instant::now());
    tokio::time::advance(Duration::from_secs(30)).await;
    fails(&mut book, &p, 1, ms(100));
    restart(&mut book).await;
    fails(&mut book, &p, 2, ms(200));
}

#[tokio::test(start_paused = true)]
async fn forgetting_drops_the_waiting_restart_and_the_count() {
    let p = policy(Some(1), Duration::from_secs(60));
    let mut book = AutoRestarts::default();
    fails(&mut book, &p, 1, ms(100));
    book.forget(|id| id.connector() == "c");
    assert_eq!(book.next_due(), None);
    assert_eq!(book.note(&task()), None);
    fails(&mut book, &p, 1, ms(100));
    book.cancel_all();
    tokio::time::advance(Duration::from_secs(1)).await;
    assert!(book.take_due(Instant::now()).is_empty());
}

#[test]
fn zero_retries_never_restart() {
    let p = policy(Some(0), Duration::ZERO);
    let mut book = AutoRestarts::default();
    let out = book.failed(&task(), Instant::now(), "boom", &p, 0.5);
    assert!(matches!(out, AfterFailure::Exhausted { .. }), "{out:?}");
}
