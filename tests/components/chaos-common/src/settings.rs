//! [`Settings`]: the `chaos.*` keys both fixtures understand, their definitions, and the
//! parsed [`Mode`] (what goes wrong) and [`Call`] (where).
//!
//! This module owns key names and parsing; it does nothing chaotic itself.

use wasm_connect_sdk::{Config, ConfigDef, ConfigKey, Error, Grant, Importance, Result};

/// The keys, by name.
pub mod keys {
    /// What goes wrong: see [`Mode`](super::Mode).
    pub const MODE: &str = "chaos.mode";
    /// Where it goes wrong: see [`Call`](super::Call).
    pub const WHEN: &str = "chaos.when";
    /// The file `open-file` reads; grants read access to its directory.
    pub const PATH: &str = "chaos.path";
    /// The file `open-file` opens, when it is not `chaos.path` itself (grants nothing).
    pub const OPEN: &str = "chaos.open";
    /// The `host:port` `socket` connects to; grants that connection.
    pub const ADDRESS: &str = "chaos.address";
    /// A boolean that grants the clock (`clock` mode).
    pub const CLOCK: &str = "chaos.clock";
    /// How many bytes a `huge` batch (or task config) carries.
    pub const HUGE_BYTES: &str = "chaos.huge.bytes";
    /// How many times `task_configs` fails (retriable) before it succeeds.
    pub const TASK_CONFIGS_FAILURES: &str = "chaos.task.configs.failures";
    /// How many task configs beyond `max-tasks` `task_configs` returns (a contract breach).
    pub const TASK_CONFIGS_EXTRA: &str = "chaos.task.configs.extra";
    /// Task indexes whose `start` fails (fatal), comma-separated.
    pub const FAIL_TASKS: &str = "chaos.fail.tasks";
    /// A password the fixture ignores: it shows that secrets stay hidden.
    pub const SECRET: &str = "chaos.secret";
    /// Set by the connector in each task config: the task's index, from 0.
    pub const TASK_INDEX: &str = "chaos.task.index";
    /// Set by the connector in each task config: a probe's result at the connector.
    pub const PROBE_RESULT: &str = "chaos.probe.result";
    /// Set by the connector when `huge` happens at `task-configs`: padding.
    pub const PADDING: &str = "chaos.padding";
}

/// What goes wrong.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Nothing: the plugin works.
    Ok,
    /// A wasm `unreachable` trap.
    Trap,
    /// `panic!("chaos panic")` (a trap, after a message on stderr).
    Panic,
    /// Spins forever.
    Loop,
    /// Allocates and touches memory without bound, infallibly (an abort, so a trap).
    Oom,
    /// Recurses without bound (a stack overflow, so a trap).
    Recurse,
    /// Returns about `chaos.huge.bytes` bytes, regardless of `max-records`.
    Huge,
    /// Logs about `chaos.huge.bytes` bytes through the host's log calls (lines of 1 KiB),
    /// then goes on as `ok` (the source's `poll` only).
    Chatty,
    /// Reads `chaos.path` and reports whether it could.
    OpenFile,
    /// Connects to `chaos.address` and reports whether it could.
    Socket,
    /// Reads the environment and reports what it saw.
    Env,
    /// Reads the wall clock and reports whether it is real.
    Clock,
}

impl Mode {
    /// Whether the mode is a probe: it reports and never fails the call.
    pub fn is_probe(self) -> bool {
        matches!(self, Self::OpenFile | Self::Socket | Self::Env | Self::Clock)
    }

    fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "ok" => Self::Ok,
            "trap" => Self::Trap,
            "panic" => Self::Panic,
            "loop" => Self::Loop,
            "oom" => Self::Oom,
            "recurse" => Self::Recurse,
            "huge" => Self::Huge,
            "chatty" => Self::Chatty,
            "open-file" => Self::OpenFile,
            "socket" => Self::Socket,
            "env" => Self::Env,
            "clock" => Self::Clock,
            _ => return None,
        })
    }
}

/// The call where the mode applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Call {
    /// The data call: `poll` (source) or `put` (sink).
    Data,
    /// The task's `start`.
    TaskStart,
    /// The connector's `task_configs`.
    TaskConfigs,
    /// The connector's `start`.
    ConnectorStart,
    /// The task's `stop`.
    TaskStop,
}

/// The parsed chaos keys.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    /// What goes wrong.
    pub mode: Mode,
    /// Where.
    pub when: Call,
    /// The file `open-file` reads.
    pub path: String,
    /// The address `socket` connects to.
    pub address: String,
    /// The size of a `huge` answer, in bytes.
    pub huge_bytes: usize,
}

impl Settings {
    /// Parses the keys; `data_call` is what `when` calls the data call (`poll` or `put`).
    pub fn parse(config: &Config, data_call: &str) -> Result<Self> {
        let mode = config.get_or(keys::MODE, "ok").trim();
        let mode = Mode::parse(mode).ok_or_else(|| {
            Error::config(format!("config key `{}`: unknown mode `{mode}`", keys::MODE))
        })?;
        let when = match config.get_or(keys::WHEN, data_call).trim() {
            w if w == data_call => Call::Data,
            "start" => Call::TaskStart,
            "task-configs" => Call::TaskConfigs,
            "connector-start" => Call::ConnectorStart,
            "stop" => Call::TaskStop,
            other => {
                return Err(Error::config(format!(
                    "config key `{}`: `{other}` is not one of {data_call}, start, \
                     task-configs, connector-start, stop",
                    keys::WHEN
                )));
            }
        };
        let huge_bytes = config.get_i64(keys::HUGE_BYTES)?.unwrap_or(24 << 20);
        Ok(Self {
            mode,
            when,
            path: config
                .get(keys::OPEN)
                .unwrap_or_else(|| config.get_or(keys::PATH, "/etc/hostname"))
                .trim()
                .to_owned(),
            address: config.get_or(keys::ADDRESS, "127.0.0.1:9").trim().to_owned(),
            huge_bytes: usize::try_from(huge_bytes).unwrap_or(0),
        })
    }

    /// Whether `mode` applies at `call`.
    pub fn at(&self, call: Call) -> bool {
        self.when == call
    }

    /// The chaos keys' definitions, to add to a plugin's own. Keys that grant a capability
    /// declare no default, so that only a user's value grants it.
    pub fn define(def: ConfigDef, data_call: &str) -> ConfigDef {
        let low = |k: ConfigKey| k.importance(Importance::Low);
        def.define(low(ConfigKey::string(keys::MODE).default_value("ok").doc(
            "ok, trap, panic, loop, oom, recurse, huge, chatty, open-file, socket, env or clock.",
        )))
        .define(low(ConfigKey::string(keys::WHEN).default_value(data_call).doc(format!(
            "Where the mode applies: {data_call}, start, task-configs, connector-start or stop \
                 (the task's)."
        ))))
        .define(low(ConfigKey::string(keys::PATH)
            .grant(Grant::ReadFile)
            .doc("The file open-file reads (unset: /etc/hostname, not granted).")))
        .define(low(ConfigKey::string(keys::OPEN)
            .doc("The file open-file opens instead of chaos.path; it grants nothing.")))
        .define(low(ConfigKey::string(keys::ADDRESS)
            .grant(Grant::Connect)
            .doc("The host:port socket connects to (unset: 127.0.0.1:9, not granted).")))
        .define(low(ConfigKey::boolean(keys::CLOCK)
            .grant(Grant::Clock)
            .doc("Set to true to grant the clock.")))
        .define(low(ConfigKey::long(keys::HUGE_BYTES)
            .default_value(24 << 20)
            .doc("Bytes a huge answer carries, or a chatty call logs.")))
        .define(low(ConfigKey::int(keys::TASK_CONFIGS_FAILURES)
            .default_value(0)
            .doc("How many times task-configs fails (retriable) before it succeeds.")))
        .define(low(ConfigKey::int(keys::TASK_CONFIGS_EXTRA)
            .default_value(0)
            .doc("How many task configs beyond max-tasks task-configs returns.")))
        .define(low(ConfigKey::list(keys::FAIL_TASKS)
            .default_value("")
            .doc("Indexes of the tasks whose start fails (fatal).")))
        .define(low(ConfigKey::password(keys::SECRET)
            .doc("A secret the fixture never uses; it must never appear in logs or answers.")))
    }
}
