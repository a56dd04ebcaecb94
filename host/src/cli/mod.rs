//! The command line: `wasm-connect plugins list|inspect|test|new|keygen|sign|verify` and the
//! worker modes,
//! `standalone` and `distributed`. This file parses the arguments and hands each command to
//! the file that runs it, which returns an exit code; errors reach the user as one line,
//! never as a panic or a backtrace.
//!
//! Layout: `worker` (the worker modes), `plugins` (`plugins list|inspect|test|new`),
//! `plugin_test` (`plugins test`), `scaffold/` (`plugins new`), `signing` (`plugins
//! keygen|sign|verify`), `table` (plain-text tables).

mod plugin_test;
mod plugins;
mod scaffold;
mod signing;
mod table;
mod worker;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

use crate::config::Mode;
use crate::runtime::{Runtime, RuntimeOptions};
use crate::telemetry::Loggers;

/// A Kafka Connect compatible worker running connectors as WebAssembly components.
#[derive(Debug, Parser)]
#[command(name = "wasm-connect", version)]
pub struct Cli {
    /// Where compiled plugins are cached. Defaults to `$XDG_CACHE_HOME/wasm-connect`
    /// (or `~/.cache/wasm-connect`).
    #[arg(long, global = true, env = "WASM_CONNECT_CACHE_DIR")]
    pub cache_dir: Option<PathBuf>,
    /// Compile plugins without reading or writing the cache.
    #[arg(long, global = true)]
    pub no_cache: bool,
    /// Log format on stderr.
    #[arg(long, global = true, value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,
    #[command(subcommand)]
    command: Command,
}

/// Log output format.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum LogFormat {
    /// Human-readable lines.
    Text,
    /// One JSON object per line.
    Json,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Inspect plugin components.
    #[command(subcommand)]
    Plugins(plugins::PluginsCommand),
    /// Run one worker with embedded storage (no Kafka needed for its state).
    Standalone {
        /// The worker's `.properties` file.
        worker_config: PathBuf,
        /// Connector configs to create at start (`.json` or `.properties`).
        connectors: Vec<PathBuf>,
    },
    /// Run a worker whose state lives in Kafka topics.
    Distributed {
        /// The worker's `.properties` file.
        worker_config: PathBuf,
    },
}

impl Cli {
    /// Runs the command.
    pub async fn run(self) -> anyhow::Result<ExitCode> {
        let cache_dir =
            if self.no_cache { None } else { self.cache_dir.or_else(default_cache_dir) };
        match self.command {
            // Writing a project needs no wasm engine.
            Command::Plugins(plugins::PluginsCommand::New(args)) => args.run(),
            // Neither does signing.
            Command::Plugins(plugins::PluginsCommand::Keygen(args)) => args.run(),
            Command::Plugins(plugins::PluginsCommand::Sign(args)) => args.run(),
            Command::Plugins(plugins::PluginsCommand::Verify(args)) => args.run(),
            Command::Plugins(cmd) => {
                let trust = cmd.trust()?;
                let runtime = Runtime::new(RuntimeOptions { cache_dir, pool: None, trust })?;
                cmd.run(&runtime).await
            }
            Command::Standalone { worker_config, connectors } => {
                worker::run(Mode::Standalone, worker_config, connectors, cache_dir).await
            }
            Command::Distributed { worker_config } => {
                worker::run(Mode::Distributed, worker_config, Vec::new(), cache_dir).await
            }
        }
    }
}

/// The default artifact cache directory.
pub fn default_cache_dir() -> Option<PathBuf> {
    std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .map(|d| d.join("wasm-connect"))
}

/// Sets up `tracing` on stderr; `RUST_LOG` (if set and not empty) replaces the default
/// filter (`info`). The returned handle changes levels at run time (`/admin/loggers`).
pub fn init_logging(format: LogFormat) -> Loggers {
    let filter = std::env::var("RUST_LOG").ok().filter(|f| !f.trim().is_empty());
    let loggers =
        Loggers::init(filter.as_deref().unwrap_or("info"), matches!(format, LogFormat::Json));
    crate::telemetry::set_installed(loggers.clone());
    loggers
}
