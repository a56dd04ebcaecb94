use std::path::{Path, PathBuf};

use super::*;
use crate::runtime::RuntimeOptions;

/// A built test component (`scripts/build-guests.sh`).
fn built(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../build").join(path)
}

fn names(found: &Scanned) -> Vec<String> {
    found.plugins.iter().map(|p| format!("{} {}", p.info().name, p.info().version)).collect()
}

#[tokio::test]
async fn only_new_and_changed_files_load_and_a_failure_is_fresh_once() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let runtime = Runtime::new(RuntimeOptions::default()).unwrap();
    let mut scan = PluginScan::new(runtime, vec![root.to_path_buf()]);
    std::fs::copy(built("versions/chaos-transform-1.0.0.wasm"), root.join("t1.wasm")).unwrap();

    let first = scan.scan().await;
    assert!(first.changed);
    assert_eq!(names(&first), ["ChaosTransform 1.0.0"]);
    assert!(first.failures.is_empty() && first.fresh.is_empty(), "{:?}", first.failures);

    // Nothing changed: the same load, not a new one.
    let again = scan.scan().await;
    assert!(!again.changed);
    assert!(again.plugins[0].same(&first.plugins[0]));

    // A broken file: reported fresh once, then still listed among the failures.
    std::fs::write(root.join("broken.wasm"), b"\0asm not really").unwrap();
    let broken = scan.scan().await;
    assert!(!broken.changed, "the loaded plugins are the same");
    assert_eq!(broken.fresh.len(), 1, "{:?}", broken.fresh);
    assert!(broken.fresh[0].to_string().contains("broken.wasm"), "{}", broken.fresh[0]);
    let still = scan.scan().await;
    assert!(still.fresh.is_empty(), "{:?}", still.fresh);
    assert_eq!(still.failures.len(), 1);

    // A new version beside the first: both, oldest first; the first is not reloaded.
    std::fs::copy(built("versions/chaos-transform-2.0.0.wasm"), root.join("t2.wasm")).unwrap();
    let added = scan.scan().await;
    assert!(added.changed);
    assert_eq!(names(&added), ["ChaosTransform 1.0.0", "ChaosTransform 2.0.0"]);
    assert!(added.plugins[0].same(&first.plugins[0]));

    // A second file with a version already there is refused, naming both.
    std::fs::copy(built("versions/chaos-transform-2.0.0.wasm"), root.join("t3.wasm")).unwrap();
    let twice = scan.scan().await;
    assert!(!twice.changed);
    assert_eq!(twice.fresh.len(), 1, "{:?}", twice.fresh);
    let message = twice.fresh[0].to_string();
    assert!(message.contains("t3.wasm") && message.contains("t2.wasm"), "{message}");

    // Removed and changed files: the removed one is gone, the changed one loaded again.
    std::fs::remove_file(root.join("t1.wasm")).unwrap();
    std::fs::remove_file(root.join("t3.wasm")).unwrap();
    std::fs::remove_file(root.join("broken.wasm")).unwrap();
    std::fs::copy(built("versions/chaos-transform-3.0.0.wasm"), root.join("t2.wasm")).unwrap();
    let changed = scan.scan().await;
    assert!(changed.changed);
    assert_eq!(names(&changed), ["ChaosTransform 3.0.0"]);
    assert!(changed.failures.is_empty(), "{:?}", changed.failures);
    // A plugin whose file is gone stays usable by whoever holds it: it instantiates.
    assert!(first.plugins[0].transform_validator().await.is_ok());
}

#[tokio::test]
async fn new_files_load_smallest_first_and_each_is_told_as_it_is_done() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let runtime = Runtime::new(RuntimeOptions::default()).unwrap();
    let (tx, mut told) = mpsc::unbounded_channel();
    let mut scan = PluginScan::new(runtime, vec![root.to_path_buf()]).with_progress(tx);
    std::fs::copy(built("versions/chaos-transform-1.0.0.wasm"), root.join("a-big.wasm")).unwrap();
    std::fs::write(root.join("b-tiny.wasm"), b"\0asm").unwrap();
    std::fs::write(root.join("c-small.wasm"), b"\0asm not a component").unwrap();

    let found = scan.scan().await;
    assert_eq!(names(&found), ["ChaosTransform 1.0.0"]);
    let Some(ScanProgress::Loading(files)) = told.recv().await else { panic!("no Loading first") };
    let order: Vec<String> =
        files.iter().map(|(p, _)| p.file_name().unwrap().to_string_lossy().into()).collect();
    assert_eq!(order, ["b-tiny.wasm", "c-small.wasm", "a-big.wasm"], "smallest first");
    let mut done = Vec::new();
    while let Ok(ScanProgress::Loaded(f)) = told.try_recv() {
        assert_eq!(f.total, 3);
        done.push((
            f.done,
            f.path.file_name().unwrap().to_string_lossy().into_owned(),
            f.outcome.is_ok(),
        ));
    }
    done.sort();
    assert_eq!(done.iter().map(|d| d.0).collect::<Vec<_>>(), [1, 2, 3], "{done:?}");
    let ok: Vec<&str> = done.iter().filter(|d| d.2).map(|d| d.1.as_str()).collect();
    assert_eq!(ok, ["a-big.wasm"], "{done:?}");

    // A scan with nothing new tells nothing.
    scan.scan().await;
    assert!(told.try_recv().is_err(), "nothing to load, nothing told");
}
