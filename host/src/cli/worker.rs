//! `wasm-connect standalone|distributed WORKER.properties [CONNECTOR ...]`: runs a worker
//! until SIGTERM or Ctrl-C, then shuts it down gracefully (tasks stopped within their
//! timeout, statuses written, stores flushed), every step bounded so the process exits even
//! with its broker gone, and logs `Worker stopped` last. A distributed worker whose brokers
//! refuse its login or a certificate shuts down the same way and exits with status 1.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;

use crate::app::App;
use crate::config::{Mode, WorkerConfig, read_connector_file};

/// Runs a worker in `mode`.
pub async fn run(
    mode: Mode,
    worker_file: PathBuf,
    connector_files: Vec<PathBuf>,
    cache_dir: Option<PathBuf>,
) -> anyhow::Result<ExitCode> {
    let config = match WorkerConfig::load(&worker_file, mode) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}");
            return Ok(ExitCode::FAILURE);
        }
    };
    let mut connectors = Vec::new();
    for f in &connector_files {
        match read_connector_file(f) {
            Ok(c) => connectors.push(c),
            Err(e) => {
                eprintln!("error: {e}");
                return Ok(ExitCode::FAILURE);
            }
        }
    }
    let app = App::start(&config, cache_dir).await?;
    if let Err(e) = app.submit(connectors).await {
        app.shutdown().await;
        return Err(e);
    }
    let fatal = tokio::select! {
        signal = wait_for_signal() => {
            signal.context("waiting for a signal")?;
            None
        }
        reason = app.herder.fatal() => Some(reason),
    };
    tracing::info!("Shutting down");
    let began = std::time::Instant::now();
    app.shutdown().await;
    tracing::info!(took = ?began.elapsed(), "Worker stopped");
    match fatal {
        None => Ok(ExitCode::SUCCESS),
        Some(reason) => {
            eprintln!("error: {reason}");
            Ok(ExitCode::FAILURE)
        }
    }
}

async fn wait_for_signal() -> std::io::Result<()> {
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
    tokio::select! {
        r = tokio::signal::ctrl_c() => r,
        _ = term.recv() => Ok(()),
    }
}
