//! A cluster of workers as separate `wasm-connect distributed` processes on loopback,
//! sharing one group and three internal topics on a real broker, driven over REST.
//!
//! Each worker logs to a file in the cluster's directory; a test that fails prints the
//! tail of every log, then its panic message again (kept by `panics`). Workers are killed
//! when the cluster is dropped.
//!
//! It uses no other test module but `panics`, so `benches/cluster.rs` includes the two.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::Value;

/// The repository root.
fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// Settings every worker of a cluster shares.
#[derive(Clone, Debug)]
pub struct ClusterSettings {
    /// `bootstrap.servers`.
    pub bootstrap: String,
    /// `scheduled.rebalance.max.delay.ms`.
    pub max_delay_ms: u64,
    /// `rest.basic.auth.credentials.file` contents, when the REST API is protected.
    pub credentials: Option<&'static str>,
    /// `session.timeout.ms`.
    pub session_timeout_ms: u64,
    /// `wasm.cache.dir`: compiled plugins shared by every worker.
    pub cache_dir: PathBuf,
    /// HTTPS only, when set: every worker listens on `https://` alone with these files, and
    /// the test's client trusts this trust store and shows this keystore.
    pub tls: Option<ClusterTls>,
    /// More worker properties, one `key=value` a line, appended to every worker's file
    /// (the security settings of a secured broker listener, for example).
    pub extra: String,
    /// More plugin directories for some workers, by worker index: every worker has a
    /// plugin path of its own.
    pub plugin_dirs: Vec<(usize, PathBuf)>,
}

impl ClusterSettings {
    /// Settings for the broker at `bootstrap`: a 6 s session, the given delay for departed
    /// workers, an open REST API over plain HTTP.
    pub fn new(bootstrap: String, max_delay_ms: u64, cache_dir: PathBuf) -> Self {
        Self {
            bootstrap,
            max_delay_ms,
            credentials: None,
            session_timeout_ms: 6000,
            cache_dir,
            tls: None,
            extra: String::new(),
            plugin_dirs: Vec::new(),
        }
    }
}

/// One worker's HTTPS settings, Kafka Connect's `listeners.https.ssl.*` keys with PEM files.
#[derive(Clone, Debug)]
pub struct ClusterTls {
    /// `listeners.https.ssl.keystore.location` (type PEM): the worker's private key and
    /// certificate chain in one PEM file.
    pub keystore: PathBuf,
    /// `listeners.https.ssl.truststore.location` (type PEM): the CA certificates the
    /// worker trusts, for the workers it calls and for the clients that call it.
    pub truststore: PathBuf,
    /// `listeners.https.ssl.client.auth=required`: callers must show a trusted certificate.
    pub client_auth: bool,
}

impl ClusterTls {
    /// The worker config lines: an `https://` listener only, advertised as such.
    fn properties(&self, port: u16) -> String {
        let mut text = format!(
            "listeners=https://127.0.0.1:{port}
rest.advertised.listener=https
             listeners.https.ssl.keystore.type=PEM
listeners.https.ssl.keystore.location={}
             listeners.https.ssl.truststore.type=PEM
listeners.https.ssl.truststore.location={}
",
            self.keystore.display(),
            self.truststore.display(),
        );
        if self.client_auth {
            text.push_str(
                "listeners.https.ssl.client.auth=required
",
            );
        }
        text
    }

    /// The test's REST client: trusts the trust store's CAs (and nothing else) and shows
    /// the keystore's certificate.
    fn client(&self) -> reqwest::Client {
        let roots = std::fs::read(&self.truststore).unwrap();
        let mut builder = reqwest::Client::builder().tls_built_in_root_certs(false);
        for root in reqwest::Certificate::from_pem_bundle(&roots).unwrap() {
            builder = builder.add_root_certificate(root);
        }
        let identity = reqwest::Identity::from_pem(&std::fs::read(&self.keystore).unwrap());
        builder.identity(identity.unwrap()).build().unwrap()
    }
}

/// One worker process.
pub struct Worker {
    /// Its REST URL (`http://127.0.0.1:port`, or `https://`).
    pub url: String,
    /// Its port.
    pub port: u16,
    config: PathBuf,
    log: PathBuf,
    child: Option<Child>,
}

/// Several workers in one group.
pub struct Cluster {
    /// The workers, by index; a stopped worker keeps its slot.
    pub workers: Vec<Worker>,
    dir: tempfile::TempDir,
    settings: ClusterSettings,
    prefix: String,
    /// The REST client, with the cluster's credentials when it has some.
    pub http: reqwest::Client,
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

impl Cluster {
    /// Starts `n` workers and waits until each answers REST.
    pub async fn start(n: usize, settings: ClusterSettings) -> Self {
        crate::panics::remember();
        let nanos =
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
        let mut cluster = Self {
            workers: Vec::new(),
            dir: tempfile::tempdir().unwrap(),
            prefix: format!("wc-cluster-{nanos}"),
            http: settings.tls.as_ref().map_or_else(reqwest::Client::new, ClusterTls::client),
            settings,
        };
        for _ in 0..n {
            cluster.add_worker().await;
        }
        cluster
    }

    /// Writes a new worker's config, starts it and waits until it answers.
    pub async fn add_worker(&mut self) -> usize {
        let tls = self.settings.tls.clone();
        self.add_worker_with(tls).await
    }

    /// As [`add_worker`](Self::add_worker), with HTTPS settings of its own (`None`: plain
    /// HTTP).
    pub async fn add_worker_with(&mut self, tls: Option<ClusterTls>) -> usize {
        let i = self.workers.len();
        let port = free_port();
        self.write_worker(i, port, tls);
        self.restart(i).await;
        i
    }

    /// Writes worker `i`'s config for `port` (HTTPS with `tls`) and adds its stopped slot.
    fn write_worker(&mut self, i: usize, port: u16, tls: Option<ClusterTls>) {
        let config = self.dir.path().join(format!("worker-{i}.properties"));
        let mut plugin_path = format!(
            "{},{}",
            root().join("build/fixtures").display(),
            root().join("build/plugins").display()
        );
        for (_, dir) in self.settings.plugin_dirs.iter().filter(|(w, _)| *w == i) {
            plugin_path = format!("{},{plugin_path}", dir.display());
        }
        let p = &self.prefix;
        let mut text = format!(
            "bootstrap.servers={bootstrap}\ngroup.id={p}\nconfig.storage.topic={p}-configs\n\
             offset.storage.topic={p}-offsets\nstatus.storage.topic={p}-status\n\
             config.storage.replication.factor=1\noffset.storage.replication.factor=1\n\
             status.storage.replication.factor=1\noffset.storage.partitions=3\n\
             status.storage.partitions=2\n\
             plugin.path={plugin_path}\nscheduled.rebalance.max.delay.ms={delay}\n\
             session.timeout.ms={session}\nheartbeat.interval.ms=1000\nrebalance.timeout.ms=20000\n\
             task.shutdown.graceful.timeout.ms=2000\noffset.flush.interval.ms=500\n\
             wasm.cache.dir={cache}\nwasm.store.delivery.timeout.ms=5000\n\
             key.converter=org.apache.kafka.connect.storage.StringConverter\n\
             value.converter=org.apache.kafka.connect.storage.StringConverter\n",
            bootstrap = self.settings.bootstrap,
            delay = self.settings.max_delay_ms,
            session = self.settings.session_timeout_ms,
            cache = self.settings.cache_dir.display(),
        );
        match &tls {
            Some(tls) => text.push_str(&tls.properties(port)),
            None => text.push_str(&format!("listeners=http://127.0.0.1:{port}\n")),
        }
        if let Some(creds) = self.settings.credentials {
            let file = self.dir.path().join("credentials.properties");
            std::fs::write(&file, creds).unwrap();
            text.push_str(&format!("rest.basic.auth.credentials.file={}\n", file.display()));
        }
        text.push_str(&self.settings.extra);
        std::fs::write(&config, text).unwrap();
        let log = self.dir.path().join(format!("worker-{i}.log"));
        let scheme = if tls.is_some() { "https" } else { "http" };
        self.workers.push(Worker {
            url: format!("{scheme}://127.0.0.1:{port}"),
            port,
            config,
            log,
            child: None,
        });
    }

    /// Runs worker `i`'s process with `RUST_LOG=rust_log`, its stderr appended to its log.
    fn spawn(&self, i: usize, rust_log: &str) -> Child {
        let w = &self.workers[i];
        let log = std::fs::OpenOptions::new().create(true).append(true).open(&w.log).unwrap();
        Command::new(env!("CARGO_BIN_EXE_wasm-connect"))
            .arg("distributed")
            .arg(&w.config)
            .env("RUST_LOG", rust_log)
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("the worker binary starts")
    }

    /// Starts worker `i` again (after a stop or a kill), on the same port and config.
    pub async fn restart(&mut self, i: usize) {
        let child = self.spawn(i, "info,wasm_connect_group=debug");
        let w = &mut self.workers[i];
        w.child = Some(child);
        let url = format!("{}/", w.url);
        let deadline = std::time::Instant::now() + Duration::from_secs(60);
        loop {
            if self.http.get(&url).send().await.is_ok() {
                return;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "worker {i} did not answer REST\n{}",
                self.logs()
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Adds a worker that is expected to fail at start: waits up to `secs` seconds for its
    /// process to end and returns its exit status and whole log. Its slot stays, stopped.
    pub async fn add_failing_worker(&mut self, secs: u64) -> (std::process::ExitStatus, String) {
        let i = self.workers.len();
        let tls = self.settings.tls.clone();
        self.write_worker(i, free_port(), tls);
        let mut child = self.spawn(i, "info");
        let deadline = std::time::Instant::now() + Duration::from_secs(secs);
        loop {
            if let Some(status) = child.try_wait().unwrap() {
                return (status, self.log(i));
            }
            if std::time::Instant::now() > deadline {
                let _ = child.kill();
                let _ = child.wait();
                panic!("worker {i} still runs after {secs} s\n{}", self.log(i));
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// `kill -9`: no shutdown, no LeaveGroup.
    pub fn kill(&mut self, i: usize) {
        if let Some(mut c) = self.workers[i].child.take() {
            c.kill().unwrap();
            c.wait().unwrap();
        }
    }

    /// SIGTERM, then waits for a clean exit.
    pub async fn stop(&mut self, i: usize) {
        let Some(mut c) = self.workers[i].child.take() else { return };
        signal(&c, "-TERM");
        let deadline = std::time::Instant::now() + Duration::from_secs(30);
        loop {
            if let Some(status) = c.try_wait().unwrap() {
                assert!(status.success(), "worker {i} exited with {status}\n{}", self.logs());
                return;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "worker {i} did not exit\n{}",
                self.logs()
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// SIGTERM to worker `i`, without waiting ([`Cluster::exited`] says when it has gone).
    pub fn terminate(&self, i: usize) {
        signal(self.workers[i].child.as_ref().expect("a running worker"), "-TERM");
    }

    /// Worker `i`'s exit status once its process has ended (`None` while it runs); its
    /// slot is then stopped.
    pub fn exited(&mut self, i: usize) -> Option<std::process::ExitStatus> {
        let status = self.workers[i].child.as_mut()?.try_wait().unwrap()?;
        self.workers[i].child = None;
        Some(status)
    }

    /// SIGSTOP (`pause = true`) or SIGCONT a worker.
    pub fn freeze(&self, i: usize, pause: bool) {
        let c = self.workers[i].child.as_ref().expect("a running worker");
        signal(c, if pause { "-STOP" } else { "-CONT" });
    }

    /// The tail of every worker's log.
    pub fn logs(&self) -> String {
        let mut out = String::new();
        for (i, w) in self.workers.iter().enumerate() {
            let text = std::fs::read_to_string(&w.log).unwrap_or_default();
            let lines: Vec<&str> = text.lines().collect();
            let tail = &lines[lines.len().saturating_sub(60)..];
            out.push_str(&format!("---- worker {i} ({}) ----\n{}\n", w.url, tail.join("\n")));
        }
        out
    }

    /// The index of the worker whose latest completed rebalance says it leads.
    pub fn leader(&self) -> Option<usize> {
        (0..self.workers.len()).find(|i| {
            self.workers[*i].child.is_some()
                && self
                    .log(*i)
                    .lines()
                    .rev()
                    .find(|l| l.contains("Rebalance completed"))
                    .is_some_and(|l| l.contains("leader=true"))
        })
    }

    /// The workers' `group.id` (also the prefix of their internal topics).
    pub fn group_id(&self) -> &str {
        &self.prefix
    }

    /// The name of the cluster's internal topic `what` (`configs`, `offsets`, `status`).
    pub fn internal_topic(&self, what: &str) -> String {
        format!("{}-{what}", self.prefix)
    }

    /// One worker's whole log.
    pub fn log(&self, i: usize) -> String {
        std::fs::read_to_string(&self.workers[i].log).unwrap_or_default()
    }

    /// Sends a request to worker `i`; returns the status and the JSON body (Null when
    /// empty).
    pub async fn call(
        &self,
        i: usize,
        method: reqwest::Method,
        path: &str,
        body: Option<Value>,
    ) -> (u16, Value) {
        let mut req = self.http.request(method, format!("{}{path}", self.workers[i].url));
        if let Some(b) = body {
            req = req.json(&b);
        }
        if self.settings.credentials.is_some() {
            req = req.basic_auth("admin", Some("secret"));
        }
        let resp = req.send().await.unwrap_or_else(|e| panic!("worker {i}: {e}\n{}", self.logs()));
        let status = resp.status().as_u16();
        let text = resp.text().await.unwrap();
        (status, serde_json::from_str(&text).unwrap_or(Value::Null))
    }

    /// Creates a connector through worker `i`, retrying while the cluster answers 409 for
    /// a rebalance (as Kafka Connect tools do). Returns the final status.
    pub async fn create(&self, i: usize, name: &str, config: Value) -> (u16, Value) {
        let body = serde_json::json!({ "name": name, "config": config });
        let deadline = std::time::Instant::now() + Duration::from_secs(60);
        loop {
            let (status, v) =
                self.call(i, reqwest::Method::POST, "/connectors", Some(body.clone())).await;
            let rebalance =
                status == 409 && !v["message"].as_str().unwrap_or("").contains("already exists");
            if !rebalance || std::time::Instant::now() > deadline {
                return (status, v);
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    /// A connector's status through worker `i`.
    pub async fn status(&self, i: usize, name: &str) -> Value {
        self.call(i, reqwest::Method::GET, &format!("/connectors/{name}/status"), None).await.1
    }

    /// Waits until the connector and `tasks` tasks are RUNNING (as seen by worker `i`);
    /// returns the status.
    pub async fn wait_running(&self, i: usize, name: &str, tasks: usize, secs: u64) -> Value {
        let deadline = std::time::Instant::now() + Duration::from_secs(secs);
        loop {
            let s = self.status(i, name).await;
            if all_running(&s, tasks) {
                return s;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "{name} not RUNNING with {tasks} tasks: {s}\n{}",
                self.logs()
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

/// Whether a status shows the connector and exactly `tasks` tasks RUNNING.
pub fn all_running(s: &Value, tasks: usize) -> bool {
    let running = |v: &Value| v["state"] == "RUNNING";
    running(&s["connector"])
        && s["tasks"].as_array().is_some_and(|t| t.len() == tasks && t.iter().all(running))
}

fn signal(child: &Child, sig: &str) {
    let ok = Command::new("kill").arg(sig).arg(child.id().to_string()).status().unwrap();
    assert!(ok.success(), "kill {sig} failed");
}

impl Drop for Cluster {
    fn drop(&mut self) {
        for w in &mut self.workers {
            if let Some(mut c) = w.child.take() {
                let _ = Command::new("kill").arg("-CONT").arg(c.id().to_string()).status();
                let _ = c.kill();
                let _ = c.wait();
            }
        }
        if std::thread::panicking() {
            eprintln!("{}", self.logs());
            if let Some(message) = crate::panics::of_this_thread() {
                eprintln!("---- the test {message}");
            }
        }
    }
}
