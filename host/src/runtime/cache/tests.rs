//! The cache's two attacks (an artifact copied over another component's, an artifact not
//! sealed by this cache) and its refusals (a shared directory, a key file others can read).

use std::os::unix::fs::PermissionsExt;

use sha2::{Digest, Sha256};
use wasmtime::Engine;
use wasmtime::component::Component;

use super::*;

/// Two components told apart by their imports: none, and one function `f`.
const A: &str = "(component)";
const B: &str = r#"(component (import "f" (func)))"#;

fn bytes(wat: &str) -> (String, Vec<u8>) {
    let bytes = wat::parse_str(wat).unwrap();
    (hex::encode(Sha256::digest(&bytes)), bytes)
}

fn imports(engine: &Engine, c: &Component) -> usize {
    c.component_type().imports(engine).count()
}

fn load(cache: &ArtifactCache, engine: &Engine, wat: &str) -> (Component, CacheOutcome) {
    let (digest, bytes) = bytes(wat);
    cache.load_or_compile(engine, &digest, &bytes).unwrap()
}

#[test]
fn a_compiled_component_is_loaded_from_its_sealed_artifact() {
    let tmp = tempfile::tempdir().unwrap();
    let engine = Engine::default();
    let cache = ArtifactCache::open(tmp.path().join("cache")).unwrap();
    assert_eq!(load(&cache, &engine, B).1, CacheOutcome::Compiled);
    let (c, outcome) = load(&cache, &engine, B);
    assert_eq!(outcome, CacheOutcome::Hit);
    assert_eq!(imports(&engine, &c), 1);
    assert!(tmp.path().join("cache.key").exists(), "the key sits beside the directory");
    assert!(!cache.dir().join("cache.key").exists());
}

#[test]
fn an_artifact_copied_over_another_components_is_compiled_again() {
    let tmp = tempfile::tempdir().unwrap();
    let engine = Engine::default();
    let cache = ArtifactCache::open(tmp.path().join("cache")).unwrap();
    load(&cache, &engine, A);
    load(&cache, &engine, B);
    let path = |wat| cache.path_for(&engine, &bytes(wat).0);
    std::fs::copy(path(A), path(B)).unwrap();

    let (c, outcome) = load(&cache, &engine, B);
    assert_eq!(outcome, CacheOutcome::Compiled);
    assert_eq!(imports(&engine, &c), 1, "B is B, not the A whose artifact was copied");
    // The artifact was rewritten with B's own seal.
    assert_eq!(load(&cache, &engine, B).1, CacheOutcome::Hit);
}

#[test]
fn an_artifact_not_sealed_by_this_caches_key_is_never_loaded() {
    let tmp = tempfile::tempdir().unwrap();
    let engine = Engine::default();
    let ours = ArtifactCache::open(tmp.path().join("ours")).unwrap();
    let theirs = ArtifactCache::open(tmp.path().join("theirs")).unwrap();
    // A real artifact of the same component, sealed under another key: what an attacker
    // who can write artifacts but not read our key can produce at best.
    load(&theirs, &engine, B);
    let target = ours.path_for(&engine, &bytes(B).0);
    std::fs::copy(theirs.path_for(&engine, &bytes(B).0), &target).unwrap();
    assert_eq!(load(&ours, &engine, B).1, CacheOutcome::Compiled);

    // A bare wasmtime artifact with no seal, and a forged header.
    let bare = Component::new(&engine, bytes(B).1).unwrap().serialize().unwrap();
    std::fs::write(&target, &bare).unwrap();
    assert_eq!(load(&ours, &engine, B).1, CacheOutcome::Compiled);
    let mut forged = b"wcseal01".to_vec();
    forged.extend_from_slice(&[0u8; 32]);
    forged.extend_from_slice(&bare);
    std::fs::write(&target, &forged).unwrap();
    assert_eq!(load(&ours, &engine, B).1, CacheOutcome::Compiled);
    assert_eq!(load(&ours, &engine, B).1, CacheOutcome::Hit, "replaced by our own artifact");
}

#[test]
fn a_directory_others_can_write_is_refused_and_left_untouched() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("shared");
    std::fs::create_dir(&dir).unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o777)).unwrap();
    let why = ArtifactCache::open(&dir).unwrap_err();
    assert!(why.contains("0777") && why.contains(&dir.display().to_string()), "{why}");
    assert!(ArtifactCache::open_or_warn(dir.clone()).is_none());
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
    assert!(!tmp.path().join("shared.key").exists(), "no key is made for a refused directory");
}

#[test]
fn a_key_file_others_can_read_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("cache");
    ArtifactCache::open(&dir).unwrap();
    let key = tmp.path().join("cache.key");
    std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o644)).unwrap();
    let why = ArtifactCache::open(&dir).unwrap_err();
    assert!(why.contains("cache key file") && why.contains("0644"), "{why}");
}
