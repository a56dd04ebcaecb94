//! What an instance may reach outside its sandbox, derived from its connector config.
//!
//! Deny by default: no preopened directory, no socket, no environment variable, and
//! clocks that read zero. A capability exists only because a user set a key that the
//! plugin's config definition marks with a grant (`file` → its directory), or a
//! `wasm.env.NAME` key. [`Grants::from_config`] is pure, so the rules are unit-tested
//! without wasmtime; [`Grants::build_wasi`] turns them into a `WasiCtx`.

use std::collections::BTreeSet;
use std::net::{SocketAddr, ToSocketAddrs};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use wasmtime_wasi::sockets::SocketAddrUse;
use wasmtime_wasi::{FsPerms, HostMonotonicClock, HostWallClock, WasiCtx, WasiCtxBuilder};

use crate::model::{ConfigDef, Grant};

/// The capabilities granted to one instance.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Grants {
    /// Directories preopened read-only, at the same path inside the sandbox.
    pub read_dirs: BTreeSet<PathBuf>,
    /// Directories preopened read-write, at the same path inside the sandbox.
    pub write_dirs: BTreeSet<PathBuf>,
    /// `host:port` addresses TCP connections may go to.
    pub connect: BTreeSet<String>,
    /// Whether the clocks are real.
    pub clock: bool,
    /// Environment variables.
    pub env: Vec<(String, String)>,
}

impl Grants {
    /// No capability at all: what validation and metadata instances get.
    pub fn none() -> Self {
        Self::default()
    }

    /// The grants the config's keys carry under `def`. Errors name the key.
    pub fn from_config(def: &ConfigDef, config: &[(String, String)]) -> Result<Self, String> {
        let mut g = Self::default();
        for (k, v) in config {
            if let Some(name) = k.strip_prefix("wasm.env.") {
                g.env.push((name.to_owned(), v.clone()));
                continue;
            }
            let Some(grant) = def.key(k).and_then(|key| key.grant) else { continue };
            match grant {
                Grant::ReadFile => {
                    g.read_dirs.insert(parent_dir(k, v)?);
                }
                Grant::WriteFile => {
                    g.write_dirs.insert(parent_dir(k, v)?);
                }
                Grant::Connect => {
                    for addr in v.split(',').map(str::trim).filter(|a| !a.is_empty()) {
                        if !addr.contains(':') {
                            return Err(format!("{k}: {addr:?} is not a host:port address"));
                        }
                        g.connect.insert(addr.to_owned());
                    }
                }
                Grant::Clock => g.clock |= !v.trim().eq_ignore_ascii_case("false"),
            }
        }
        // A directory granted for writing needs no second, read-only preopen.
        g.read_dirs.retain(|d| !g.write_dirs.contains(d));
        Ok(g)
    }

    /// A `WasiCtx` with exactly these grants and the given stdio capture.
    pub fn build_wasi(
        &self,
        stdout: impl wasmtime_wasi::cli::StdoutStream + 'static,
        stderr: impl wasmtime_wasi::cli::StdoutStream + 'static,
    ) -> Result<WasiCtx, String> {
        let mut b = WasiCtxBuilder::new();
        b.stdout(stdout).stderr(stderr);
        for (dir, perms) in self
            .read_dirs
            .iter()
            .map(|d| (d, FsPerms::ReadOnly))
            .chain(self.write_dirs.iter().map(|d| (d, FsPerms::ReadWrite)))
        {
            let guest = dir.to_str().ok_or_else(|| format!("{}: not UTF-8", dir.display()))?;
            b.preopened_dir(dir, guest, perms)
                .map_err(|e| format!("cannot open directory {}: {e}", dir.display()))?;
        }
        if !self.connect.is_empty() {
            let allowed: Arc<BTreeSet<SocketAddr>> = Arc::new(
                self.connect
                    .iter()
                    .flat_map(|a| a.to_socket_addrs().into_iter().flatten())
                    .collect(),
            );
            b.allow_tcp(true).allow_ip_name_lookup(true);
            b.socket_addr_check(move |addr, usage| {
                let ok = match usage {
                    // `connect` binds implicitly to the wildcard address first.
                    SocketAddrUse::TcpBind => addr.ip().is_unspecified() && addr.port() == 0,
                    SocketAddrUse::TcpConnect => allowed.contains(&addr),
                    _ => false,
                };
                Box::pin(async move { ok })
            });
        }
        if !self.clock {
            b.wall_clock(FrozenClock).monotonic_clock(FrozenClock);
        }
        b.envs(&self.env);
        Ok(b.build())
    }
}

/// The directory of a file path given as `key`'s value: absolute, and existing.
fn parent_dir(key: &str, value: &str) -> Result<PathBuf, String> {
    let path = Path::new(value.trim());
    if !path.is_absolute() {
        return Err(format!("{key}: {value:?} must be an absolute path"));
    }
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("/"));
    if !dir.is_dir() {
        return Err(format!("{key}: directory {} does not exist", dir.display()));
    }
    Ok(dir.to_path_buf())
}

/// The clock an instance without the clock grant sees: always zero.
struct FrozenClock;

impl HostWallClock for FrozenClock {
    fn resolution(&self) -> Duration {
        Duration::from_secs(1)
    }

    fn now(&self) -> Duration {
        Duration::ZERO
    }
}

impl HostMonotonicClock for FrozenClock {
    fn resolution(&self) -> u64 {
        1_000_000_000
    }

    fn now(&self) -> u64 {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{ConfigKey, ConfigType, Importance};

    fn def() -> ConfigDef {
        let key = |name: &str, grant| ConfigKey {
            name: name.into(),
            ty: ConfigType::String,
            default_value: None,
            importance: Importance::High,
            documentation: String::new(),
            required: false,
            sensitive: false,
            grant,
        };
        ConfigDef {
            keys: vec![
                key("in", Some(Grant::ReadFile)),
                key("out", Some(Grant::WriteFile)),
                key("addr", Some(Grant::Connect)),
                key("rate", Some(Grant::Clock)),
                key("plain", None),
            ],
        }
    }

    fn cfg(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn nothing_is_granted_without_keys() {
        let g = Grants::from_config(&def(), &cfg(&[("plain", "/etc/passwd")])).unwrap();
        assert_eq!(g, Grants::none());
    }

    #[test]
    fn file_keys_grant_exactly_their_directory() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("x.txt");
        let g = Grants::from_config(&def(), &cfg(&[("in", file.to_str().unwrap())])).unwrap();
        assert_eq!(g.read_dirs.into_iter().collect::<Vec<_>>(), vec![dir.path().to_path_buf()]);
        assert!(g.write_dirs.is_empty());
    }

    #[test]
    fn relative_or_missing_paths_are_refused_by_key() {
        let err = Grants::from_config(&def(), &cfg(&[("in", "x.txt")])).unwrap_err();
        assert!(err.starts_with("in:"), "{err}");
        let err = Grants::from_config(&def(), &cfg(&[("out", "/no/such/dir/x.txt")])).unwrap_err();
        assert!(err.contains("does not exist"), "{err}");
    }

    #[test]
    fn connect_clock_and_env_grants() {
        let g = Grants::from_config(
            &def(),
            &cfg(&[("addr", "127.0.0.1:1, localhost:2"), ("rate", "10"), ("wasm.env.A", "b")]),
        )
        .unwrap();
        assert_eq!(g.connect.len(), 2);
        assert!(g.clock);
        assert_eq!(g.env, vec![("A".to_string(), "b".to_string())]);
        let g = Grants::from_config(&def(), &cfg(&[("rate", "false")])).unwrap();
        assert!(!g.clock);
        assert!(Grants::from_config(&def(), &cfg(&[("addr", "nohost")])).is_err());
    }
}
