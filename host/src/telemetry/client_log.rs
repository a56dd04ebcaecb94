//! The Kafka clients' (librdkafka's) log lines and errors, into the worker's log once per
//! change of state: every rdkafka client of the process (the stores', the data path's
//! producers and consumers, the admin clients) routes its `log` and `error` callbacks here.
//!
//! A message is logged the first time it comes. The same message again (digits aside: they
//! carry timings, counts and client numbers) is only counted while it keeps coming; once it
//! has not come for [`QUIET`], it has cleared, and one line says how often it came:
//! `librdkafka: 1/1 brokers are down, repeated 239 times in 20 s`. One that goes on longer
//! is summed up every [`REMIND`]. A broker outage thus gives two lines per distinct
//! message, not one per reconnection of every client.
//!
//! [`Repeats`] is the state machine, pure (it is given the time); [`ClientLogContext`] is
//! the context of rdkafka clients that need no callbacks of their own. A background thread,
//! started at the first message and asleep while nothing repeats, reports what cleared.
//! This file owns that de-duplication; it must not decide what a message means to a store
//! or a task (their contexts do, and call [`log`] and [`error`] for the logging).

use std::collections::HashMap;
use std::sync::{Arc, Condvar, Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant};

use rdkafka::client::ClientContext;
use rdkafka::config::RDKafkaLogLevel;
use rdkafka::consumer::ConsumerContext;
use rdkafka::error::KafkaError;

/// How long a message must not come again to count as cleared. librdkafka retries a
/// broker that is down at least every `reconnect.backoff.max.ms` (10 s by default), so an
/// outage keeps its messages coming more often than this.
pub const QUIET: Duration = Duration::from_secs(30);

/// How often a message that keeps coming is summed up.
pub const REMIND: Duration = Duration::from_secs(300);

/// librdkafka's note in a message that it suppressed identical ones, digits removed.
const SUPPRESSED: &str = ",  identical error(s) suppressed";

/// Most messages followed at once; past it, the one seen longest ago is summed up early.
const MAX_FOLLOWED: usize = 256;

/// A log level, as the lines are logged.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Level {
    Error,
    Warn,
    Info,
    Debug,
}

/// One message of a client.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Message {
    pub level: Level,
    /// librdkafka's facility (`FAIL`, `REQTMOUT`, …), or `ERROR` for the error callback.
    pub facility: String,
    pub text: String,
}

impl Message {
    /// What makes two messages the same: level, facility and text without its digits and
    /// without librdkafka's own note of how many it suppressed.
    fn key(&self) -> (Level, String, String) {
        let text: String = self.text.chars().filter(|c| !c.is_ascii_digit()).collect();
        (self.level, self.facility.clone(), text.replace(SUPPRESSED, ""))
    }
}

/// A line to log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Line {
    /// A message, the first time (or the first time since it cleared).
    First(Message),
    /// `message` came `count` more times over `over`; `ongoing` when it still comes.
    Repeated { message: Message, count: u64, over: Duration, ongoing: bool },
}

impl Line {
    /// The text logged.
    pub fn text(&self) -> String {
        match self {
            Line::First(m) => format!("librdkafka: {}", m.text),
            Line::Repeated { message, count, over, ongoing } => {
                let times = if *count == 1 { "time" } else { "times" };
                let secs = over.as_secs().max(1);
                let tail = if *ongoing { ", and still repeating" } else { "" };
                format!("librdkafka: {}, repeated {count} {times} in {secs} s{tail}", message.text)
            }
        }
    }

    fn message(&self) -> &Message {
        match self {
            Line::First(m) | Line::Repeated { message: m, .. } => m,
        }
    }
}

/// A message followed while it repeats.
#[derive(Clone)]
struct Followed {
    /// The latest text (its digits may have changed).
    message: Message,
    /// When the counted run began (the first time, or the last summary).
    since: Instant,
    last: Instant,
    count: u64,
}

/// The messages seen and not cleared yet, with their repeat counts.
#[derive(Default)]
pub struct Repeats {
    followed: HashMap<(Level, String, String), Followed>,
}

impl Repeats {
    /// `message` came at `now`: the line to log, if any (the first time only), and the
    /// summary of a message dropped to make room.
    pub fn note(&mut self, now: Instant, message: Message) -> Vec<Line> {
        let key = message.key();
        if let Some(f) = self.followed.get_mut(&key) {
            f.count += 1;
            f.last = now;
            f.message = message;
            return Vec::new();
        }
        let mut lines = Vec::new();
        if self.followed.len() >= MAX_FOLLOWED
            && let Some(oldest) =
                self.followed.iter().min_by_key(|(_, f)| f.last).map(|(k, _)| k.clone())
            && let Some(f) = self.followed.remove(&oldest)
        {
            lines.extend(summary(f, false));
        }
        let followed = Followed { message: message.clone(), since: now, last: now, count: 0 };
        self.followed.insert(key, followed);
        lines.push(Line::First(message));
        lines
    }

    /// The summaries due at `now`: of messages quiet for [`QUIET`] (cleared, and forgotten,
    /// so their next coming is logged again), and of those repeating for [`REMIND`] since
    /// their last line.
    pub fn due(&mut self, now: Instant) -> Vec<Line> {
        let mut lines = Vec::new();
        self.followed.retain(|_, f| {
            if now.duration_since(f.last) >= QUIET {
                lines.extend(summary(f.clone(), false));
                return false;
            }
            if now.duration_since(f.since) >= REMIND && f.count > 0 {
                lines.extend(summary(f.clone(), true));
                f.since = now;
                f.count = 0;
            }
            true
        });
        lines
    }

    /// When the next summary may be due, if anything is followed.
    pub fn next_due(&self) -> Option<Instant> {
        self.followed.values().map(|f| (f.last + QUIET).min(f.since + REMIND)).min()
    }
}

/// The line summing up `f`, when it repeated at all.
fn summary(f: Followed, ongoing: bool) -> Option<Line> {
    (f.count > 0).then(|| Line::Repeated {
        over: f.last.duration_since(f.since),
        message: f.message,
        count: f.count,
        ongoing,
    })
}

/// The process's one [`Repeats`], and the thread that reports what cleared.
struct Shared {
    repeats: Mutex<Repeats>,
    wake: Condvar,
}

fn shared() -> &'static Arc<Shared> {
    static SHARED: OnceLock<Arc<Shared>> = OnceLock::new();
    SHARED.get_or_init(|| {
        let shared = Arc::new(Shared { repeats: Mutex::default(), wake: Condvar::new() });
        let reporter = shared.clone();
        let spawned = std::thread::Builder::new()
            .name("client-log".into())
            .spawn(move || report_due(&reporter));
        if let Err(e) = spawned {
            tracing::warn!(error = %e, "No thread to sum up repeated Kafka client messages");
        }
        shared
    })
}

/// Logs the summaries as they come due; sleeps while nothing is followed.
fn report_due(shared: &Shared) {
    let mut repeats = shared.repeats.lock().unwrap_or_else(PoisonError::into_inner);
    loop {
        repeats = match repeats.next_due() {
            None => shared.wake.wait(repeats).unwrap_or_else(PoisonError::into_inner),
            Some(due) => {
                let wait = due.saturating_duration_since(Instant::now());
                shared.wake.wait_timeout(repeats, wait).unwrap_or_else(PoisonError::into_inner).0
            }
        };
        let lines = repeats.due(Instant::now());
        if !lines.is_empty() {
            drop(repeats);
            lines.iter().for_each(emit);
            repeats = shared.repeats.lock().unwrap_or_else(PoisonError::into_inner);
        }
    }
}

/// Notes `message` and logs what is due.
fn note(message: Message) {
    let shared = shared();
    let lines = {
        let mut repeats = shared.repeats.lock().unwrap_or_else(PoisonError::into_inner);
        repeats.note(Instant::now(), message)
    };
    if !lines.is_empty() {
        shared.wake.notify_one();
    }
    lines.iter().for_each(emit);
}

fn emit(line: &Line) {
    let m = line.message();
    let text = line.text();
    let facility = m.facility.as_str();
    match m.level {
        Level::Error => tracing::error!(facility, "{text}"),
        Level::Warn => tracing::warn!(facility, "{text}"),
        Level::Info => tracing::info!(facility, "{text}"),
        Level::Debug => tracing::debug!(facility, "{text}"),
    }
}

/// A librdkafka log line. Its `FAIL` lines repeat what the error callback reports, so they
/// are kept for debugging.
pub fn log(level: RDKafkaLogLevel, facility: &str, text: &str) {
    let level = match level {
        _ if facility == "FAIL" => Level::Debug,
        RDKafkaLogLevel::Emerg
        | RDKafkaLogLevel::Alert
        | RDKafkaLogLevel::Critical
        | RDKafkaLogLevel::Error => Level::Error,
        RDKafkaLogLevel::Warning => Level::Warn,
        RDKafkaLogLevel::Notice | RDKafkaLogLevel::Info => Level::Info,
        RDKafkaLogLevel::Debug => Level::Debug,
    };
    note(Message { level, facility: facility.to_owned(), text: text.to_owned() });
}

/// A client error, at `level` (a context that handles an error itself may log it lower).
pub fn error(level: Level, error: &KafkaError, reason: &str) {
    let text = format!("{reason} ({error})");
    note(Message { level, facility: "ERROR".to_owned(), text });
}

/// The context of rdkafka clients with no callbacks of their own: their log lines and
/// errors go through [`log`] and [`error`].
#[derive(Clone, Copy, Debug, Default)]
pub struct ClientLogContext;

impl ClientContext for ClientLogContext {
    fn log(&self, level: RDKafkaLogLevel, fac: &str, log_message: &str) {
        log(level, fac, log_message);
    }

    fn error(&self, e: KafkaError, reason: &str) {
        error(Level::Error, &e, reason);
    }
}

impl ConsumerContext for ClientLogContext {}

#[cfg(test)]
mod tests {
    use super::*;

    fn down(n: u32) -> Message {
        Message {
            level: Level::Error,
            facility: "ERROR".into(),
            text: format!("{n}/1 brokers are down (All broker connections are down)"),
        }
    }

    fn refused(ms: u32) -> Message {
        Message {
            level: Level::Error,
            facility: "ERROR".into(),
            text: format!("127.0.0.1:19300/1: Connect failed: Connection refused (after {ms}ms)"),
        }
    }

    fn texts(lines: &[Line]) -> Vec<String> {
        lines.iter().map(Line::text).collect()
    }

    #[test]
    fn an_outage_is_one_line_per_message_and_one_count_when_it_clears() {
        let t0 = Instant::now();
        let at = |ms: u64| t0 + Duration::from_millis(ms);
        let mut r = Repeats::default();
        let mut logged = Vec::new();
        // 240 reports of each in 20 s, interleaved, as librdkafka's clients sent them.
        for i in 0..240u64 {
            logged.extend(r.note(at(i * 83), down(1)));
            logged.extend(r.note(at(i * 83 + 10), refused((i % 7) as u32)));
            assert!(r.due(at(i * 83 + 20)).is_empty(), "nothing is due while it repeats");
        }
        assert_eq!(
            texts(&logged),
            [
                "librdkafka: 1/1 brokers are down (All broker connections are down)",
                "librdkafka: 127.0.0.1:19300/1: Connect failed: Connection refused (after 0ms)",
            ]
        );
        let last = at(239 * 83 + 10);
        assert_eq!(r.next_due(), Some(at(239 * 83) + QUIET));
        // Cleared: the counts, once each.
        let mut cleared = texts(&r.due(last + QUIET));
        cleared.sort();
        assert_eq!(
            cleared,
            [
                "librdkafka: 1/1 brokers are down (All broker connections are down), \
                 repeated 239 times in 19 s",
                "librdkafka: 127.0.0.1:19300/1: Connect failed: Connection refused (after 1ms), \
                 repeated 239 times in 19 s",
            ]
        );
        assert!(r.due(last + QUIET * 2).is_empty(), "each count once");
        assert_eq!(r.next_due(), None);
        // The next outage is logged again.
        assert_eq!(texts(&r.note(last + QUIET * 3, down(1))).len(), 1);
    }

    #[test]
    fn a_message_once_gets_no_count_and_a_long_one_is_summed_up_as_it_goes() {
        let t0 = Instant::now();
        let mut r = Repeats::default();
        assert_eq!(r.note(t0, down(1)).len(), 1);
        assert!(r.due(t0 + QUIET).is_empty(), "no repeat, no count");
        assert_eq!(r.next_due(), None);
        let mut t = t0;
        r.note(t, refused(1));
        let mut reminders = Vec::new();
        while t < t0 + REMIND + Duration::from_secs(5) {
            t += Duration::from_secs(5);
            assert!(r.note(t, refused(1)).is_empty());
            reminders.extend(r.due(t));
        }
        assert_eq!(
            texts(&reminders),
            ["librdkafka: 127.0.0.1:19300/1: Connect failed: Connection refused (after 1ms), \
              repeated 60 times in 300 s, and still repeating"]
        );
    }

    #[test]
    fn levels_and_facilities_are_told_apart() {
        let t0 = Instant::now();
        let mut r = Repeats::default();
        let warn = Message { level: Level::Warn, ..down(1) };
        let fail = Message { facility: "FAIL".into(), ..down(1) };
        assert_eq!(r.note(t0, down(1)).len(), 1);
        assert_eq!(r.note(t0, warn).len(), 1);
        assert_eq!(r.note(t0, fail).len(), 1);
        assert!(r.note(t0, down(2)).is_empty(), "digits aside, the same message");
        let connect = |tail: &str| Message {
            text: format!("b:9092/1: Connect to b:9092 failed (after 0ms in state CONNECT{tail})"),
            ..down(1)
        };
        assert_eq!(r.note(t0, connect("")).len(), 1);
        assert!(r.note(t0, connect(", 3 identical error(s) suppressed")).is_empty());
    }
}
