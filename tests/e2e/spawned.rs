//! The worker binary in standalone mode, spawned in a directory of its own with a chosen
//! `plugin.path` and environment, its log (stderr) collected line by line: for tests about
//! what the process does at start and what its environment changes.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};

use crate::harness::eventually;

/// A spawned standalone worker; killed when dropped.
pub(crate) struct Spawned {
    child: Child,
    log: Arc<Mutex<Vec<String>>>,
}

impl Spawned {
    /// Starts `wasm-connect standalone` in `dir` on `plugin_path` (its store in
    /// `dir/worker.db`, `extra` worker config lines after), with `env` added to the test's
    /// environment and `remove` taken out of it.
    pub(crate) fn start(
        dir: &Path,
        plugin_path: &Path,
        extra: &str,
        env: &[(&str, &str)],
        remove: &[&str],
    ) -> Self {
        std::fs::write(
            dir.join("worker.properties"),
            format!(
                "plugin.path={}\nlisteners=http://127.0.0.1:0\noffset.storage.file.filename={}\n{extra}",
                plugin_path.display(),
                dir.join("worker.db").display()
            ),
        )
        .unwrap();
        let mut command = Command::new(env!("CARGO_BIN_EXE_wasm-connect"));
        command
            .current_dir(dir)
            .args(["standalone", "worker.properties", "--cache-dir"])
            .arg(crate::harness::shared_cache_dir())
            .env("RUST_LOG", "info")
            .env("NO_COLOR", "1")
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        for (k, v) in env {
            command.env(k, v);
        }
        for k in remove {
            command.env_remove(k);
        }
        let mut child = command.spawn().unwrap();
        let log = Arc::new(Mutex::new(Vec::new()));
        let (lines, stderr) = (log.clone(), child.stderr.take().unwrap());
        std::thread::spawn(move || {
            use std::io::BufRead;
            for line in std::io::BufReader::new(stderr).lines().map_while(Result::ok) {
                lines.lock().unwrap().push(line);
            }
        });
        Self { child, log }
    }

    /// `http://HOST:PORT` of the REST API, once it listens and the worker has loaded its
    /// plugin path (which it does in the background). A start that does not complete
    /// within `secs` fails the test with the log so far.
    pub(crate) async fn base(&self, secs: u64) -> String {
        let addr = eventually(secs, "the REST API to listen and the plugins to load", async || {
            let log = self.log.lock().unwrap();
            log.iter().find(|l| l.contains("Plugin path loaded"))?;
            let line = log.iter().find(|l| l.contains("REST API listening"))?;
            let addr = line.split("address=").nth(1)?.split_whitespace().next()?;
            Some(addr.to_owned())
        })
        .await;
        format!("http://{addr}")
    }

    /// Every line the worker logged so far.
    pub(crate) fn log(&self) -> Vec<String> {
        self.log.lock().unwrap().clone()
    }

    /// The worker's process id.
    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The worker's resident memory in KiB (`VmRSS`).
    pub(crate) fn rss_kib(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap();
        let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap();
        line.split_whitespace().nth(1).unwrap().parse().unwrap()
    }
}

impl Drop for Spawned {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
