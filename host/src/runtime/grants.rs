//! What an instance may reach outside its sandbox, derived from its connector config.
//!
//! Deny by default: no preopened directory, no socket, no environment variable, and
//! clocks that read zero. A capability exists only because a user set a key that the
//! plugin's config definition marks with a grant (`file` → its directory), or a
//! `wasm.env.NAME` key. A `connect` key's value is a list of `host:port` addresses or one
//! URL ([`endpoint`] parses both); an `http://` or `https://` URL also grants `wasi:http`
//! requests to its origin, sent by the host with TLS per the config's `https.ssl.*` keys
//! ([`super::http`]). [`Grants::from_config`] is pure, so the rules are unit-tested
//! without wasmtime; [`Grants::build_wasi`] turns them into a `WasiCtx`.
//!
//! File paths. A relative path is relative to the worker's working directory, as in Kafka
//! Connect's file connectors: [`resolve_paths`] rewrites it into the absolute path the
//! guest then sees and the grant covers. [`Grants::from_config`] itself takes absolute
//! paths only, so no instance ever starts with a path that means something else inside
//! the sandbox (whose preopens are absolute) than outside it.

use std::collections::{BTreeMap, BTreeSet};
use std::net::{SocketAddr, ToSocketAddrs};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use wasmtime_wasi::sockets::SocketAddrUse;
use wasmtime_wasi::{FsPerms, HostMonotonicClock, HostWallClock, WasiCtx, WasiCtxBuilder};

use super::endpoint;
use super::http::HttpAccess;
use crate::config::security::Secret;
use crate::model::{Config, ConfigDef, ConfigProblem, Grant};

/// The capabilities granted to one instance.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Grants {
    /// Directories preopened read-only, at the same path inside the sandbox.
    pub read_dirs: BTreeSet<PathBuf>,
    /// Directories preopened read-write, at the same path inside the sandbox.
    pub write_dirs: BTreeSet<PathBuf>,
    /// `host:port` addresses TCP connections may go to.
    pub connect: BTreeSet<String>,
    /// Origins (`scheme://host:port`) `wasi:http` requests may go to.
    pub http: BTreeSet<String>,
    /// The config's `https.ssl.*` keys: TLS to the `https` origins.
    pub https_tls: BTreeMap<String, Secret>,
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

    /// The grants the config's keys carry under `def`, or every problem with them, each
    /// naming its key. File paths must be absolute ([`resolve_paths`] makes them so); an
    /// empty value grants nothing (the definition's validators judge it).
    pub fn from_config(
        def: &ConfigDef,
        config: &[(String, String)],
    ) -> Result<Self, Vec<ConfigProblem>> {
        let mut g = Self::default();
        let mut problems = Vec::new();
        let mut problem = |key: &str, message: String| {
            problems.push(ConfigProblem { key: key.to_owned(), message })
        };
        for (k, v) in config {
            if k.starts_with("https.ssl.") {
                g.https_tls.insert(k.clone(), Secret::new(v.clone()));
            }
            if let Some(name) = k.strip_prefix("wasm.env.") {
                g.env.push((name.to_owned(), v.clone()));
                continue;
            }
            let Some(grant) = def.key(k).and_then(|key| key.grant) else { continue };
            match grant {
                Grant::ReadFile | Grant::WriteFile if v.trim().is_empty() => {}
                Grant::ReadFile | Grant::WriteFile => match file_dir(v) {
                    Ok(dir) if grant == Grant::ReadFile => {
                        g.read_dirs.insert(dir);
                    }
                    Ok(dir) => {
                        g.write_dirs.insert(dir);
                    }
                    Err(message) => problem(k, message),
                },
                Grant::Connect => match endpoint::addresses(v) {
                    Ok(addrs) => {
                        g.connect.extend(addrs);
                        g.http.extend(endpoint::origin(v));
                    }
                    Err(message) => problem(k, message),
                },
                Grant::Clock => g.clock |= !v.trim().eq_ignore_ascii_case("false"),
            }
        }
        if g.http.is_empty() {
            g.https_tls.clear();
        } else if let Err((key, message)) = HttpAccess::tls(&g.tls_props()) {
            problems.push(ConfigProblem { key, message });
        }
        if !problems.is_empty() {
            return Err(problems);
        }
        // A directory granted for writing needs no second, read-only preopen.
        g.read_dirs.retain(|d| !g.write_dirs.contains(d));
        Ok(g)
    }

    /// The `wasi:http` access these grants give instance `who`: the granted origins, or
    /// none at all.
    pub fn build_http(&self, who: &str) -> Result<HttpAccess, String> {
        if self.http.is_empty() {
            return Ok(HttpAccess::denied(who));
        }
        let tls = HttpAccess::tls(&self.tls_props()).map_err(|(k, m)| format!("{k}: {m}"))?;
        Ok(HttpAccess::new(who, self.http.clone(), Some(tls)))
    }

    fn tls_props(&self) -> BTreeMap<String, String> {
        self.https_tls.iter().map(|(k, v)| (k.clone(), v.expose().to_owned())).collect()
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

/// `config` with the value of every file-granting key under `def` made absolute: a
/// relative path is joined to `cwd` (the worker's working directory) and its directory
/// resolved as the file system does (`..`, symbolic links). Absolute and empty values are
/// kept as they are. Fails, naming the key, when a relative path's directory does not
/// exist or the path names no file.
pub fn resolve_paths(
    def: &ConfigDef,
    config: &[(String, String)],
    cwd: &Path,
) -> Result<Config, Vec<ConfigProblem>> {
    let mut problems = Vec::new();
    let resolved = config
        .iter()
        .map(|(k, v)| {
            let file_key = def
                .key(k)
                .and_then(|key| key.grant)
                .is_some_and(|g| matches!(g, Grant::ReadFile | Grant::WriteFile));
            let relative = !v.trim().is_empty() && Path::new(v.trim()).is_relative();
            if !(file_key && relative) {
                return (k.clone(), v.clone());
            }
            match absolute(cwd, v.trim()) {
                Ok(path) => (k.clone(), path),
                Err(message) => {
                    problems.push(ConfigProblem { key: k.clone(), message });
                    (k.clone(), v.clone())
                }
            }
        })
        .collect();
    if problems.is_empty() { Ok(resolved) } else { Err(problems) }
}

/// `relative` joined to `cwd`, with its directory canonicalised.
fn absolute(cwd: &Path, relative: &str) -> Result<String, String> {
    let joined = cwd.join(relative);
    let (Some(dir), Some(name)) = (joined.parent(), joined.file_name()) else {
        return Err(format!("{relative:?} names no file"));
    };
    let dir = dir.canonicalize().map_err(|_| {
        format!(
            "directory {} of the relative path {relative:?} does not exist (relative paths \
             start at the worker's working directory, {})",
            dir.display(),
            cwd.display()
        )
    })?;
    let path = dir.join(name);
    path.to_str().map(str::to_owned).ok_or_else(|| format!("{} is not valid UTF-8", path.display()))
}

/// The directory of an absolute file path: existing, and the path itself no directory.
fn file_dir(value: &str) -> Result<PathBuf, String> {
    let path = Path::new(value.trim());
    if !path.is_absolute() {
        return Err(format!("{value:?} must be an absolute path"));
    }
    if path.is_dir() {
        return Err(format!("{} is a directory, not a file", path.display()));
    }
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("/"));
    if !dir.is_dir() {
        return Err(format!("directory {} does not exist", dir.display()));
    }
    Ok(dir.to_path_buf())
}

/// Problems as one line: `key: message; key: message`.
pub fn problems_line(problems: &[ConfigProblem]) -> String {
    problems.iter().map(|p| format!("{}: {}", p.key, p.message)).collect::<Vec<_>>().join("; ")
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
    fn relative_missing_or_directory_paths_are_refused_by_key() {
        let problems = Grants::from_config(&def(), &cfg(&[("in", "x.txt")])).unwrap_err();
        assert_eq!(problems[0].key, "in");
        assert!(problems[0].message.contains("must be an absolute path"), "{problems:?}");
        let problems =
            Grants::from_config(&def(), &cfg(&[("out", "/no/such/dir/x.txt")])).unwrap_err();
        assert!(problems[0].message.contains("does not exist"), "{problems:?}");
        let dir = tempfile::tempdir().unwrap();
        let problems = Grants::from_config(&def(), &cfg(&[("out", dir.path().to_str().unwrap())]))
            .unwrap_err();
        assert!(problems[0].message.contains("is a directory, not a file"), "{problems:?}");
        // Every problem is reported, not only the first.
        let both = cfg(&[("in", "x.txt"), ("addr", "nohost")]);
        let keys: Vec<String> =
            Grants::from_config(&def(), &both).unwrap_err().into_iter().map(|p| p.key).collect();
        assert_eq!(keys, ["in", "addr"]);
        // An empty value grants nothing: the definition's validators judge it.
        assert_eq!(Grants::from_config(&def(), &cfg(&[("in", " ")])).unwrap(), Grants::none());
    }

    #[test]
    fn relative_paths_resolve_against_the_working_directory() {
        let cwd = tempfile::tempdir().unwrap();
        std::fs::create_dir(cwd.path().join("data")).unwrap();
        let real = cwd.path().canonicalize().unwrap();
        let config = cfg(&[
            ("in", "data/in.txt"),
            ("out", " ./data/../out.txt "),
            ("plain", "relative/but/no/grant"),
            ("addr", "localhost:1"),
        ]);
        let resolved = resolve_paths(&def(), &config, cwd.path()).unwrap();
        let want_in = real.join("data/in.txt").to_str().unwrap().to_owned();
        let want_out = real.join("out.txt").to_str().unwrap().to_owned();
        assert_eq!(
            resolved,
            cfg(&[
                ("in", &want_in),
                ("out", &want_out),
                ("plain", "relative/but/no/grant"),
                ("addr", "localhost:1"),
            ])
        );
        // The grants of the resolved config cover exactly the resolved directories.
        let g = Grants::from_config(&def(), &resolved).unwrap();
        assert_eq!(g.read_dirs.into_iter().collect::<Vec<_>>(), vec![real.join("data")]);
        assert_eq!(g.write_dirs.into_iter().collect::<Vec<_>>(), vec![real.clone()]);
        // Absolute and empty values are kept as given.
        let kept = cfg(&[("in", "/etc/hostname"), ("out", "")]);
        assert_eq!(resolve_paths(&def(), &kept, cwd.path()).unwrap(), kept);
    }

    #[test]
    fn relative_paths_into_missing_directories_are_refused_by_key() {
        let cwd = tempfile::tempdir().unwrap();
        let problems =
            resolve_paths(&def(), &cfg(&[("out", "nope/out.txt")]), cwd.path()).unwrap_err();
        assert_eq!(problems[0].key, "out");
        assert!(problems[0].message.contains("does not exist"), "{problems:?}");
        assert!(problems[0].message.contains("working directory"), "{problems:?}");
        let problems = resolve_paths(&def(), &cfg(&[("in", "..")]), cwd.path()).unwrap_err();
        assert!(problems[0].message.contains("names no file"), "{problems:?}");
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
        // A URL grants its host and port, and only those.
        let g = Grants::from_config(&def(), &cfg(&[("addr", "jdbc:postgresql://127.0.0.1/app")]))
            .unwrap();
        assert_eq!(g.connect.into_iter().collect::<Vec<_>>(), ["127.0.0.1:5432"]);
        assert!(g.http.is_empty());
    }

    #[test]
    fn http_urls_grant_their_origin_and_tls_keys_only_with_one() {
        let config = cfg(&[
            ("addr", "https://user:pw@api.example.com/v1"),
            ("https.ssl.truststore.password", "secret"),
        ]);
        let g = Grants::from_config(&def(), &config).unwrap();
        assert_eq!(g.connect.iter().collect::<Vec<_>>(), ["api.example.com:443"]);
        assert_eq!(g.http.iter().collect::<Vec<_>>(), ["https://api.example.com:443"]);
        assert!(!format!("{g:?}").contains("secret"), "{g:?}");
        // Without a URL the TLS keys grant nothing and are not kept.
        let g = Grants::from_config(&def(), &config[1..]).unwrap();
        assert_eq!(g, Grants::none());
        // A trust store that cannot be read is a problem of its key.
        let bad = cfg(&[
            ("addr", "https://api.example.com"),
            ("https.ssl.truststore.location", "/no/such/ca.pem"),
        ]);
        let problems = Grants::from_config(&def(), &bad).unwrap_err();
        assert_eq!(problems[0].key, "https.ssl.truststore.location", "{problems:?}");
    }
}
