//! Guest stdout and stderr: each complete line goes to the worker's log with the
//! instance's connector and task fields, and the last lines are kept for failure traces.
//!
//! Output is bounded: past the instance's byte budget, writes are accepted and dropped
//! (counted: said once in the log, then in the `wasm_connect_guest_output_dropped_bytes_total`
//! metric and a trap's trace), so a guest that prints without end neither fills the host's
//! memory nor the log. The pipe never blocks and never fails the guest. The guest's log
//! calls have a budget of the same size (`log_budget`).

use std::collections::VecDeque;
use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use bytes::Bytes;
use tokio::io::AsyncWrite;
use wasmtime_wasi::cli::{IsTerminal, StdoutStream};
use wasmtime_wasi::p2::{OutputStream, Pollable, StreamResult};

use super::state::Identity;
use crate::telemetry::events::GuestOutputDropped;

/// Lines of guest output kept for a failure trace.
const TAIL_LINES: usize = 20;
/// A line longer than this is cut: one guest write cannot make a huge log record.
const MAX_LINE: usize = 4096;

/// Which stream a [`GuestOutput`] captures.
#[derive(Clone, Copy, Debug)]
pub enum Stream {
    /// stdout.
    Stdout,
    /// stderr.
    Stderr,
}

impl Stream {
    /// `stdout` or `stderr`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Stdout => "stdout",
            Self::Stderr => "stderr",
        }
    }
}

/// One instance's captured output stream. Cloning shares the buffer.
#[derive(Clone)]
pub struct GuestOutput {
    inner: Arc<Mutex<Inner>>,
}

struct Inner {
    ident: Identity,
    stream: Stream,
    partial: Vec<u8>,
    tail: VecDeque<String>,
    /// The budget over the instance's life.
    limit: usize,
    /// Bytes still allowed.
    budget: usize,
    dropped: usize,
}

impl GuestOutput {
    /// A capture for `ident`'s `stream`, allowing `budget` bytes over its life.
    pub fn new(ident: Identity, stream: Stream, budget: usize) -> Self {
        Self {
            inner: Arc::new(Mutex::new(Inner {
                ident,
                stream,
                partial: Vec::new(),
                tail: VecDeque::new(),
                limit: budget,
                budget,
                dropped: 0,
            })),
        }
    }

    /// The last lines written (including an unterminated last line), oldest first.
    pub fn tail(&self) -> Vec<String> {
        let inner = self.lock();
        let mut lines: Vec<String> = inner.tail.iter().cloned().collect();
        if !inner.partial.is_empty() {
            lines.push(String::from_utf8_lossy(&inner.partial).into_owned());
        }
        lines
    }

    /// Bytes dropped because the budget was spent.
    pub fn dropped(&self) -> usize {
        self.lock().dropped
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn write_bytes(&self, mut buf: &[u8]) {
        let mut inner = self.lock();
        if buf.len() > inner.budget {
            let bytes = buf.len() - inner.budget;
            let event = GuestOutputDropped {
                connector: &inner.ident.connector,
                task: inner.ident.task,
                stream: inner.stream.name(),
                budget: inner.limit,
                bytes,
                first: inner.dropped == 0,
            };
            event.emit();
            inner.dropped += bytes;
            buf = &buf[..inner.budget];
        }
        inner.budget -= buf.len();
        for &b in buf {
            if b == b'\n' {
                let line = String::from_utf8_lossy(&inner.partial).into_owned();
                inner.partial.clear();
                inner.emit(line);
            } else if inner.partial.len() < MAX_LINE {
                inner.partial.push(b);
            }
        }
    }
}

impl Inner {
    fn emit(&mut self, line: String) {
        let Identity { connector, task } = &self.ident;
        let task = task.map(|t| t as i64).unwrap_or(-1);
        match self.stream {
            Stream::Stdout => {
                tracing::info!(target: "guest", connector = %connector, task, stream = "stdout", "{line}")
            }
            Stream::Stderr => {
                tracing::warn!(target: "guest", connector = %connector, task, stream = "stderr", "{line}")
            }
        }
        if self.tail.len() == TAIL_LINES {
            self.tail.pop_front();
        }
        self.tail.push_back(line);
    }
}

impl IsTerminal for GuestOutput {
    fn is_terminal(&self) -> bool {
        false
    }
}

impl StdoutStream for GuestOutput {
    fn p2_stream(&self) -> Box<dyn OutputStream> {
        Box::new(self.clone())
    }

    fn async_stream(&self) -> Box<dyn AsyncWrite + Send + Sync> {
        Box::new(self.clone())
    }
}

impl OutputStream for GuestOutput {
    fn write(&mut self, bytes: Bytes) -> StreamResult<()> {
        self.write_bytes(&bytes);
        Ok(())
    }

    fn flush(&mut self) -> StreamResult<()> {
        Ok(())
    }

    fn check_write(&mut self) -> StreamResult<usize> {
        Ok(64 * 1024)
    }
}

#[wasmtime_wasi::async_trait]
impl Pollable for GuestOutput {
    async fn ready(&mut self) {}
}

impl AsyncWrite for GuestOutput {
    fn poll_write(
        self: Pin<&mut Self>,
        _: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.write_bytes(buf);
        Poll::Ready(Ok(buf.len()))
    }

    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn out(budget: usize) -> GuestOutput {
        GuestOutput::new(Identity { connector: "c".into(), task: Some(0) }, Stream::Stderr, budget)
    }

    #[test]
    fn keeps_the_last_lines_and_the_unterminated_one() {
        let o = out(1 << 20);
        for i in 0..30 {
            o.write_bytes(format!("line {i}\n").as_bytes());
        }
        o.write_bytes(b"partial");
        let tail = o.tail();
        assert_eq!(tail.len(), TAIL_LINES + 1);
        assert_eq!(tail[0], "line 10");
        assert_eq!(tail.last().unwrap(), "partial");
    }

    #[test]
    fn output_past_the_budget_is_dropped_and_counted() {
        let o = out(10);
        o.write_bytes(b"0123456789abcdef\n");
        assert_eq!(o.dropped(), 7);
        assert_eq!(o.tail(), vec!["0123456789".to_string()]);
    }
}
