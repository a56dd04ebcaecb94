//! Shared helpers: component paths, one runtime per test process, config builders.

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use wasm_connect::model::Config;
use wasm_connect::runtime::{Identity, NoHost, Plugin, PoolSize, Runtime, RuntimeOptions};

/// The repository root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// A built component: `build/<dir>/<name>.wasm`.
pub fn component(dir: &str, name: &str) -> PathBuf {
    let p = root().join("build").join(dir).join(format!("{name}.wasm"));
    assert!(p.exists(), "{} is missing: run scripts/build-guests.sh first", p.display());
    p
}

/// One runtime for the whole test process, on the pooling allocator as the worker runs,
/// with its own artifact cache.
pub fn runtime() -> Runtime {
    static RT: OnceLock<Runtime> = OnceLock::new();
    RT.get_or_init(|| {
        let cache =
            std::env::temp_dir().join(format!("wasm-connect-test-cache-{}", std::process::id()));
        Runtime::new(RuntimeOptions {
            cache_dir: Some(cache),
            pool: Some(PoolSize::default()),
            trust: None,
        })
        .expect("runtime")
    })
    .clone()
}

/// Loads a fixture from `build/fixtures/`.
pub async fn fixture(name: &str) -> Plugin {
    runtime().load(component("fixtures", name)).await.expect("fixture loads")
}

/// Loads a connector from `build/plugins/`.
pub async fn connector(name: &str) -> Plugin {
    runtime().load(component("plugins", name)).await.expect("connector loads")
}

/// A config from pairs.
pub fn cfg(pairs: &[(&str, &str)]) -> Config {
    pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

/// No host callbacks.
pub fn no_host() -> Arc<NoHost> {
    Arc::new(NoHost)
}

/// The identity of task 0 of a connector.
pub fn task(name: &str) -> Identity {
    Identity::task(name, 0)
}
