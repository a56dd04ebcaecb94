//! The sandbox probes: `open-file`, `socket`, `env` and `clock`. Each tries one thing the
//! sandbox may or may not allow and describes the outcome as `allowed: <detail>` or
//! `denied: <error>`. A probe never fails and never traps.

use std::io::Read;
use std::time::{SystemTime, UNIX_EPOCH};

use crate::{Mode, Settings};

/// 2020-01-01T00:00:00Z: a wall clock before this is not a real one.
const YEAR_2020: u64 = 1_577_836_800;

/// The most bytes of a file `open-file` reports.
const FILE_PREFIX: u64 = 1024;

/// The outcome of the probe `settings.mode`, or `None` if the mode is not a probe.
pub fn probe(settings: &Settings) -> Option<String> {
    Some(match settings.mode {
        Mode::OpenFile => open_file(&settings.path),
        Mode::Socket => socket(&settings.address),
        Mode::Env => env(),
        Mode::Clock => clock(),
        _ => return None,
    })
}

/// Reads up to 1 KiB of `path`: `allowed: <text, trimmed>`.
fn open_file(path: &str) -> String {
    let mut text = String::new();
    match std::fs::File::open(path).and_then(|f| f.take(FILE_PREFIX).read_to_string(&mut text)) {
        Ok(_) => format!("allowed: {}", text.trim()),
        Err(e) => format!("denied: {e}"),
    }
}

/// Opens a TCP connection to `address` through WASI sockets (Rust's `std::net` on
/// `wasm32-wasip2` goes through `wasi:sockets`): `allowed: connected to <peer>`.
fn socket(address: &str) -> String {
    match std::net::TcpStream::connect(address) {
        Ok(stream) => match stream.peer_addr() {
            Ok(peer) => format!("allowed: connected to {peer}"),
            Err(_) => format!("allowed: connected to {address}"),
        },
        Err(e) => format!("denied: {e}"),
    }
}

/// The environment: `allowed: NAME=value,...`, or `denied: empty`.
fn env() -> String {
    let vars: Vec<String> = std::env::vars_os()
        .map(|(k, v)| format!("{}={}", k.to_string_lossy(), v.to_string_lossy()))
        .collect();
    if vars.is_empty() {
        "denied: empty".to_owned()
    } else {
        format!("allowed: {}", vars.join(","))
    }
}

/// The wall clock in Unix seconds: allowed if it reads after 2020.
fn clock() -> String {
    let secs = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    if secs > YEAR_2020 { format!("allowed: {secs}") } else { format!("denied: {secs}") }
}
