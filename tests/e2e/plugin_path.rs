//! Hostile `plugin.path` layouts: a link to `/dev/zero`, a FIFO, symbolic link loops, one
//! file reached through several links, a file over the size bound. Each time the worker
//! binary starts (its REST API listens), the good plugin beside them loads once, and each
//! refused entry is named once in the log with its reason.

use std::os::unix::fs::symlink;
use std::path::Path;

use crate::spawned::Spawned;
use crate::support::component;

/// A start that takes longer than this is a start that hangs (a loaded machine compiles
/// the plugin in seconds; the shared cache usually makes it milliseconds).
const START_SECS: u64 = 240;

const GOOD: &str = "org.apache.kafka.connect.file.FileStreamSinkConnector";

/// A plugin directory in `dir` with one good plugin (`good.wasm`).
fn plugins(dir: &Path) -> std::path::PathBuf {
    let plugins = dir.join("plugins");
    std::fs::create_dir(&plugins).unwrap();
    std::fs::copy(component("plugins", "file-sink"), plugins.join("good.wasm")).unwrap();
    plugins
}

/// Starts a worker on `plugins`, waits for its REST API and returns its log.
async fn start(dir: &Path, plugins: &Path) -> Vec<String> {
    let worker = Spawned::start(dir, plugins, "", &[], &[]);
    worker.base(START_SECS).await;
    worker.log()
}

/// The lines of `log` that contain every one of `parts`.
fn lines<'a>(log: &'a [String], parts: &[&str]) -> Vec<&'a String> {
    log.iter().filter(|l| parts.iter().all(|p| l.contains(p))).collect()
}

/// The good plugin loaded once, and no plugin version was found twice.
fn good_plugin_loaded_once(log: &[String]) {
    assert_eq!(lines(log, &["Loaded plugin", GOOD]).len(), 1, "{log:#?}");
    assert!(lines(log, &["is already installed from"]).is_empty(), "{log:#?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_link_to_dev_zero_is_refused_as_a_device() {
    let dir = tempfile::tempdir().unwrap();
    let plugins = plugins(dir.path());
    symlink("/dev/zero", plugins.join("zero.wasm")).unwrap();
    let log = start(dir.path(), &plugins).await;
    good_plugin_loaded_once(&log);
    let refused = lines(&log, &["zero.wasm"]);
    assert_eq!(refused.len(), 1, "{log:#?}");
    assert!(refused[0].contains("a character device, not a regular file"), "{refused:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fifo_is_refused_without_waiting_for_a_writer() {
    let dir = tempfile::tempdir().unwrap();
    let plugins = plugins(dir.path());
    let made = std::process::Command::new("mkfifo").arg(plugins.join("pipe.wasm")).status();
    assert!(made.unwrap().success());
    let log = start(dir.path(), &plugins).await;
    good_plugin_loaded_once(&log);
    let refused = lines(&log, &["pipe.wasm"]);
    assert_eq!(refused.len(), 1, "{log:#?}");
    assert!(refused[0].contains("a FIFO, not a regular file"), "{refused:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn symbolic_link_loops_end_and_list_each_file_once() {
    let dir = tempfile::tempdir().unwrap();
    let plugins = plugins(dir.path());
    symlink(".", plugins.join("a")).unwrap();
    symlink(".", plugins.join("b")).unwrap();
    let log = start(dir.path(), &plugins).await;
    good_plugin_loaded_once(&log);
    for link in ["a", "b"] {
        let path = plugins.join(link).display().to_string();
        let named = lines(&log, &["Skipping a plugin path met before", &format!("path={path} ")]);
        assert_eq!(named.len(), 1, "{link}: {log:#?}");
    }
    assert!(lines(&log, &["Skipping a plugin that did not load"]).is_empty(), "{log:#?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_file_reached_through_links_loads_once() {
    let dir = tempfile::tempdir().unwrap();
    let plugins = plugins(dir.path());
    symlink("good.wasm", plugins.join("soft.wasm")).unwrap();
    std::fs::hard_link(plugins.join("good.wasm"), plugins.join("hard.wasm")).unwrap();
    std::fs::create_dir(plugins.join("sub")).unwrap();
    symlink("../good.wasm", plugins.join("sub/up.wasm")).unwrap();
    let log = start(dir.path(), &plugins).await;
    good_plugin_loaded_once(&log);
    for link in ["soft.wasm", "hard.wasm", "sub/up.wasm"] {
        let named = lines(&log, &["Skipping a plugin path met before", link]);
        assert_eq!(named.len(), 1, "{link}: {log:#?}");
    }
    assert!(lines(&log, &["Skipping a plugin that did not load"]).is_empty(), "{log:#?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_file_over_the_bound_is_refused_unread() {
    let dir = tempfile::tempdir().unwrap();
    let plugins = plugins(dir.path());
    // Sparse: over the bound without taking the disk space.
    let big = std::fs::File::create(plugins.join("big.wasm")).unwrap();
    big.set_len(wasm_connect::runtime::MAX_PLUGIN_BYTES + 1).unwrap();
    let log = start(dir.path(), &plugins).await;
    good_plugin_loaded_once(&log);
    let refused = lines(&log, &["big.wasm"]);
    assert_eq!(refused.len(), 1, "{log:#?}");
    assert!(refused[0].contains("over the limit of 268435456 bytes"), "{refused:?}");
}
