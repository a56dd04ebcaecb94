//! [`PrivateBroker`]: a broker of one test's own, on a port of its own, started, restarted
//! and stopped with `scripts/kafka.sh`, so a test can take it down without disturbing the
//! shared broker. It is stopped (and its data removed) when dropped, even by a failing test.

use std::path::PathBuf;
use std::process::Output;

/// Port of the private broker (its controller listens on the next one). Far from the
/// shared broker's 9092/9093.
const PORT: u16 = 29_392;

/// A private single-node broker.
pub(super) struct PrivateBroker {
    port: u16,
}

impl PrivateBroker {
    /// Starts the broker and waits until it serves metadata.
    pub(super) async fn start() -> Self {
        let broker = Self { port: PORT };
        broker.run(&["start"]).await;
        broker
    }

    /// Its `bootstrap.servers`.
    pub(super) fn bootstrap(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// Stops it, keeping its data for [`Self::start_again`].
    pub(super) async fn stop_keeping_data(&self) {
        self.run(&["stop", "--keep-data"]).await;
    }

    /// Starts it again on its kept data.
    pub(super) async fn start_again(&self) {
        self.run(&["start"]).await;
    }

    async fn run(&self, args: &[&str]) {
        let output = tokio::process::Command::from(self.command(args)).output().await;
        check(args, output);
    }

    fn command(&self, args: &[&str]) -> std::process::Command {
        let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../scripts/kafka.sh");
        let mut command = std::process::Command::new(script);
        // Everything per port, whatever the environment says for the shared broker.
        command
            .args(args)
            .env("KAFKA_PORT", self.port.to_string())
            .env("KAFKA_CONTROLLER_PORT", (self.port + 1).to_string())
            .env("KAFKA_STATE_DIR", format!("/tmp/wasm-connect-kafka-{}", self.port))
            .env("KAFKA_STOP_TIMEOUT", "20");
        command
    }
}

impl Drop for PrivateBroker {
    fn drop(&mut self) {
        check(&["stop"], self.command(&["stop"]).output());
    }
}

fn check(args: &[&str], output: std::io::Result<Output>) {
    let output = output.unwrap_or_else(|e| panic!("cannot run scripts/kafka.sh {args:?}: {e}"));
    if !output.status.success() && !std::thread::panicking() {
        panic!(
            "scripts/kafka.sh {args:?} failed ({}):\n{}{}",
            output.status,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    }
}
