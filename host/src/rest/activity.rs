//! What one REST connection is doing, and when it has waited too long: the header-read
//! and idle timeouts of `rest.header.read.timeout.ms` and `rest.idle.timeout.ms`.
//!
//! [`Activity`] is shared by the connection's I/O ([`Watched`] notes every byte read or
//! written), its request bodies ([`WatchedBody`] notes a handler waiting for the body) and
//! the requests ([`Activity::request`] marks one being handled). [`Activity::expired`]
//! completes when the connection must be closed:
//! - no request being handled: a request's head not complete within the header-read
//!   timeout of its first byte (of the connection's start, for the first request), or
//!   nothing read or written for the idle timeout (keep-alive, a stalled answer);
//! - a request being handled that waits for its body: nothing read for the idle timeout.
//!
//! A handler at work (waiting for the herder) is never cut: the request timeout bounds it.
//! This file closes nothing itself and knows nothing of HTTP beyond those three states.

use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::Bytes;
use http_body::{Body, Frame, SizeHint};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::sync::Notify;
use tokio::time::Instant;

use crate::config::RestLimits;

/// Why a connection was closed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expiry {
    /// A request's head took longer than `rest.header.read.timeout.ms`.
    HeaderRead,
    /// Nothing moved for `rest.idle.timeout.ms`, with no request being handled.
    Idle,
    /// A handler waited `rest.idle.timeout.ms` for a request body that did not come.
    BodyStalled,
}

impl Expiry {
    /// For the log.
    pub fn reason(self) -> &'static str {
        match self {
            Self::HeaderRead => {
                "the request's headers took longer than rest.header.read.timeout.ms"
            }
            Self::Idle => "idle for rest.idle.timeout.ms",
            Self::BodyStalled => "the request body stalled for rest.idle.timeout.ms",
        }
    }
}

/// The state the timeouts are computed from.
#[derive(Debug)]
struct State {
    /// A request is being handled.
    busy: bool,
    /// When the head of the next request began: the connection's start for the first one,
    /// then its first byte; `None` while busy or before that byte.
    head_started: Option<Instant>,
    /// The last byte read or written (or the end of the last request).
    last_io: Instant,
    /// The handler waits for the request body.
    body_wait: bool,
}

/// One connection's activity. Cheap to clone.
#[derive(Clone, Debug)]
pub struct Activity {
    limits: RestLimits,
    state: Arc<Mutex<State>>,
    /// Wakes [`Activity::expired`] when a request ends (its deadline comes back).
    changed: Arc<Notify>,
}

impl Activity {
    /// A connection accepted now.
    pub fn new(limits: RestLimits) -> Self {
        let now = Instant::now();
        let state = State { busy: false, head_started: Some(now), last_io: now, body_wait: false };
        Self { limits, state: Arc::new(Mutex::new(state)), changed: Arc::new(Notify::new()) }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A request's head is complete and its handler runs until the guard is dropped.
    pub fn request(&self) -> Handling {
        let mut s = self.lock();
        s.busy = true;
        s.head_started = None;
        Handling(self.clone())
    }

    /// Whether the connection is in a request's head: no request being handled, and the
    /// next one begun (or the connection new).
    pub fn in_head(&self) -> bool {
        let s = self.lock();
        !s.busy && s.head_started.is_some()
    }

    fn read(&self) {
        let now = Instant::now();
        let mut s = self.lock();
        s.last_io = now;
        if !s.busy && s.head_started.is_none() {
            s.head_started = Some(now);
        }
    }

    fn wrote(&self) {
        self.lock().last_io = Instant::now();
    }

    fn body_waits(&self, waits: bool) {
        self.lock().body_wait = waits;
    }

    /// When the connection expires as things stand, and why; `None` while a handler works.
    fn deadline(&self) -> Option<(Instant, Expiry)> {
        let s = self.lock();
        let idle = s.last_io + self.limits.idle_timeout;
        if s.busy {
            return s.body_wait.then_some((idle, Expiry::BodyStalled));
        }
        match s.head_started.map(|t| t + self.limits.header_read_timeout) {
            Some(head) if head < idle => Some((head, Expiry::HeaderRead)),
            _ => Some((idle, Expiry::Idle)),
        }
    }

    /// Completes when the connection has waited too long, saying why.
    pub async fn expired(&self) -> Expiry {
        loop {
            // Registered before the deadline is read, so no change is missed.
            let changed = self.changed.notified();
            // While a handler works, look again now and then: it may start waiting for its
            // body, which says nothing.
            let (at, why) = self
                .deadline()
                .map_or((Instant::now() + recheck(&self.limits), None), |(at, why)| {
                    (at, Some(why))
                });
            if let Some(why) = why
                && at <= Instant::now()
            {
                return why;
            }
            tokio::select! {
                _ = tokio::time::sleep_until(at) => {}
                _ = changed => {}
            }
        }
    }
}

/// How often a busy connection's state is looked at again.
fn recheck(limits: &RestLimits) -> Duration {
    (limits.idle_timeout / 4).clamp(Duration::from_millis(10), Duration::from_secs(1))
}

/// A request being handled; dropping it ends the request.
pub struct Handling(Activity);

impl Drop for Handling {
    fn drop(&mut self) {
        {
            let mut s = self.0.lock();
            s.busy = false;
            s.body_wait = false;
            s.last_io = Instant::now();
        }
        self.0.changed.notify_one();
    }
}

/// A connection's I/O, noting every byte moved in its [`Activity`].
pub struct Watched<T> {
    io: T,
    activity: Activity,
}

impl<T> Watched<T> {
    /// `io`, watched by `activity`.
    pub fn new(io: T, activity: Activity) -> Self {
        Self { io, activity }
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for Watched<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.io).poll_read(cx, buf);
        if matches!(polled, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            self.activity.read();
        }
        polled
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for Watched<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let polled = Pin::new(&mut self.io).poll_write(cx, buf);
        if matches!(polled, Poll::Ready(Ok(n)) if n > 0) {
            self.activity.wrote();
        }
        polled
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let polled = Pin::new(&mut self.io).poll_write_vectored(cx, bufs);
        if matches!(polled, Poll::Ready(Ok(n)) if n > 0) {
            self.activity.wrote();
        }
        polled
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_shutdown(cx)
    }
}

/// A request body that notes in its [`Activity`] when the handler waits for it.
pub struct WatchedBody<B> {
    body: B,
    activity: Activity,
}

impl<B> WatchedBody<B> {
    /// `body`, watched by `activity`.
    pub fn new(body: B, activity: Activity) -> Self {
        Self { body, activity }
    }
}

impl<B: Body<Data = Bytes> + Unpin> Body for WatchedBody<B> {
    type Data = Bytes;
    type Error = B::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, B::Error>>> {
        let polled = Pin::new(&mut self.body).poll_frame(cx);
        self.activity.body_waits(polled.is_pending());
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(header_ms: u64, idle_ms: u64) -> RestLimits {
        RestLimits {
            header_read_timeout: Duration::from_millis(header_ms),
            idle_timeout: Duration::from_millis(idle_ms),
            max_connections: 1,
        }
    }

    #[tokio::test(start_paused = true)]
    async fn a_head_that_never_ends_expires_at_the_header_timeout_despite_bytes() {
        let a = Activity::new(limits(1_000, 300));
        let watcher = tokio::spawn({
            let a = a.clone();
            async move { a.expired().await }
        });
        // A byte every 200 ms keeps the idle timeout away, not the header timeout.
        for _ in 0..4 {
            tokio::time::sleep(Duration::from_millis(200)).await;
            a.read();
        }
        assert!(!watcher.is_finished());
        assert_eq!(watcher.await.unwrap(), Expiry::HeaderRead);
    }

    #[tokio::test(start_paused = true)]
    async fn a_handler_at_work_is_never_cut_but_a_stalled_body_is() {
        let a = Activity::new(limits(100, 100));
        let handling = a.request();
        let watcher = tokio::spawn({
            let a = a.clone();
            async move { a.expired().await }
        });
        tokio::time::sleep(Duration::from_secs(60)).await;
        assert!(!watcher.is_finished(), "a handler at work was cut");
        a.body_waits(true);
        assert_eq!(watcher.await.unwrap(), Expiry::BodyStalled);
        drop(handling);
    }

    #[tokio::test(start_paused = true)]
    async fn after_a_request_the_connection_idles_out() {
        let a = Activity::new(limits(1_000, 100));
        drop(a.request());
        let started = Instant::now();
        assert_eq!(a.expired().await, Expiry::Idle);
        assert_eq!(started.elapsed(), Duration::from_millis(100));
    }
}
