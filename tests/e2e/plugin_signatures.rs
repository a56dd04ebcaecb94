//! Signed plugins: `plugins keygen|sign|verify` as a user runs them (OpenSSL's keys
//! included), and a worker with `plugin.signature.required=true` that loads only the
//! component signed by a trusted key, naming each refused file once in its log with the
//! reason; a required signature without a usable trusted key stops the start.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use crate::spawned::Spawned;
use crate::support::component;

/// A start that takes longer than this is a start that hangs.
const START_SECS: u64 = 240;

/// Runs the binary with the tests' shared artifact cache.
fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_wasm-connect"))
        .args(args)
        .arg("--cache-dir")
        .arg(crate::harness::shared_cache_dir())
        .env("RUST_LOG", "warn")
        .output()
        .expect("the binary runs")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// `plugins keygen --out <dir>/<name>`: the key pair's files.
fn keygen(dir: &Path, name: &str) -> (PathBuf, PathBuf) {
    let prefix = dir.join(name);
    let out = run(&["plugins", "keygen", "--out", s(&prefix)]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    (dir.join(format!("{name}.key")), dir.join(format!("{name}.pub")))
}

fn sign(key: &Path, files: &[&Path]) -> Output {
    let mut args = vec!["plugins", "sign", "--key", s(key)];
    args.extend(files.iter().map(|f| s(f)));
    run(&args)
}

fn verify(trusted: &[&str], files: &[&Path]) -> Output {
    let mut args = vec!["plugins", "verify"];
    for t in trusted {
        args.extend(["--trusted-key", t]);
    }
    args.extend(files.iter().map(|f| s(f)));
    run(&args)
}

/// The line of `stdout` that names `file`.
fn line_for<'a>(stdout: &'a str, file: &Path) -> &'a str {
    let name = file.display().to_string();
    let lines: Vec<&str> = stdout.lines().filter(|l| l.contains(&name)).collect();
    assert_eq!(lines.len(), 1, "one line for {name}:\n{stdout}");
    lines[0]
}

#[test]
fn keygen_sign_and_verify_from_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let (key, public) = keygen(dir.path(), "release");
    let mode = std::fs::metadata(&key).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "the private key is readable by its owner only");
    let private = std::fs::read_to_string(&key).unwrap();
    assert!(private.starts_with("-----BEGIN PRIVATE KEY-----"), "PKCS#8 PEM");
    assert!(std::fs::read_to_string(&public).unwrap().starts_with("-----BEGIN PUBLIC KEY-----"));
    // Never over an existing key.
    let again = run(&["plugins", "keygen", "--out", s(&dir.path().join("release"))]);
    assert!(!again.status.success());
    assert!(text(&again.stderr).contains("refusing to overwrite"), "{}", text(&again.stderr));
    assert_eq!(std::fs::read_to_string(&key).unwrap(), private, "the key is unchanged");

    let (a, b, unsigned) =
        (dir.path().join("a.wasm"), dir.path().join("b.wasm"), dir.path().join("u.wasm"));
    for f in [&a, &b, &unsigned] {
        std::fs::copy(component("fixtures", "chaos-source"), f).unwrap();
    }
    let signed = sign(&key, &[&a, &b]);
    assert!(signed.status.success(), "{}", text(&signed.stderr));
    let said = format!("{}{}", text(&signed.stdout), text(&signed.stderr));
    for secret_line in private.lines().filter(|l| !l.starts_with("-----")) {
        assert!(!said.contains(secret_line), "the private key was printed: {said}");
    }
    assert!(Path::new(&format!("{}.sig", a.display())).exists());

    let ok = verify(&[s(&public)], &[&a, &b]);
    assert!(ok.status.success(), "{}{}", text(&ok.stdout), text(&ok.stderr));
    let stdout = text(&ok.stdout);
    assert!(line_for(&stdout, &a).starts_with("ok "), "{stdout}");

    // The base64 entry keygen prints is the same key as the PEM file.
    let keygen_out = run(&["plugins", "keygen", "--out", s(&dir.path().join("other"))]);
    let entry = text(&keygen_out.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("plugin.trusted.keys entry: ").map(str::to_owned))
        .expect("keygen prints the key's base64");
    let other_pub = dir.path().join("other.pub");

    // A changed file, an unsigned one, and a signer that is not trusted.
    let mut bytes = std::fs::read(&b).unwrap();
    bytes.push(0);
    std::fs::write(&b, bytes).unwrap();
    let out = verify(&[s(&public)], &[&a, &b, &unsigned]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(line_for(&stdout, &a).starts_with("ok "), "{stdout}");
    let changed = line_for(&stdout, &b);
    assert!(changed.starts_with("FAILED") && changed.contains("changed after it was signed"));
    let missing = line_for(&stdout, &unsigned);
    assert!(missing.starts_with("FAILED") && missing.contains("not signed"), "{missing}");

    let out = verify(&[&entry], &[&a]);
    assert_eq!(out.status.code(), Some(1));
    let line = text(&out.stdout);
    assert!(line.contains("which is not in plugin.trusted.keys"), "{line}");
    // Trusting both keys (a PEM file and a base64 entry) accepts `a`.
    let out = verify(&[s(&other_pub), s(&public)], &[&a]);
    assert!(out.status.success(), "{}", text(&out.stdout));
}

#[test]
fn keys_made_by_openssl_sign_and_verify() {
    let dir = tempfile::tempdir().unwrap();
    let key = dir.path().join("k.pem");
    let public = dir.path().join("k.pub.pem");
    let openssl = |args: &[&str]| {
        let out = Command::new("openssl").args(args).output().expect("openssl runs");
        assert!(out.status.success(), "openssl {args:?}: {}", text(&out.stderr));
    };
    openssl(&["genpkey", "-algorithm", "ed25519", "-out", s(&key)]);
    openssl(&["pkey", "-in", s(&key), "-pubout", "-out", s(&public)]);
    let file = dir.path().join("p.wasm");
    std::fs::copy(component("fixtures", "chaos-sink"), &file).unwrap();
    assert!(sign(&key, &[&file]).status.success());
    let out = verify(&[s(&public)], &[&file]);
    assert!(out.status.success(), "{}{}", text(&out.stdout), text(&out.stderr));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_requiring_signatures_loads_only_the_trusted_signed_plugin() {
    let dir = tempfile::tempdir().unwrap();
    let keys = dir.path().join("keys");
    std::fs::create_dir(&keys).unwrap();
    let (trusted_key, trusted_pub) = keygen(&keys, "trusted");
    let (other_key, _) = keygen(&keys, "other");
    let plugins = dir.path().join("plugins");
    std::fs::create_dir(&plugins).unwrap();
    let put = |name: &str, from: PathBuf| {
        let path = plugins.join(name);
        std::fs::copy(from, &path).unwrap();
        path
    };
    let signed = put("signed.wasm", component("plugins", "datagen"));
    let unsigned = put("unsigned.wasm", component("fixtures", "chaos-source"));
    let changed = put("changed.wasm", component("fixtures", "chaos-sink"));
    let untrusted = put("untrusted.wasm", component("fixtures", "chaos-transform"));
    assert!(sign(&trusted_key, &[&signed, &changed]).status.success());
    assert!(sign(&other_key, &[&untrusted]).status.success());
    // Signed, then replaced by another component.
    std::fs::copy(component("plugins", "file-sink"), &changed).unwrap();

    let extra =
        format!("plugin.signature.required=true\nplugin.trusted.keys={}\n", trusted_pub.display());
    let worker = Spawned::start(dir.path(), &plugins, &extra, &[], &[]);
    let base = worker.base(START_SECS).await;
    let listed: serde_json::Value =
        reqwest::get(format!("{base}/connector-plugins?connectorsOnly=false"))
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
    let classes: Vec<&str> =
        listed.as_array().unwrap().iter().filter_map(|p| p["class"].as_str()).collect();
    assert!(classes.contains(&"Datagen"), "{listed}");
    for refused in ["ChaosSource", "ChaosSink", "ChaosTransform", "FileStreamSink"] {
        assert!(!classes.iter().any(|c| c.contains(refused)), "{refused} loaded: {listed}");
    }

    let log = worker.log();
    let refusals: Vec<&String> =
        log.iter().filter(|l| l.contains("Skipping a plugin that did not load")).collect();
    assert_eq!(refusals.len(), 3, "{log:#?}");
    for (file, reason) in [
        (&unsigned, "refused: not signed"),
        (&changed, "refused: the file changed after it was signed"),
        (&untrusted, "which is not in plugin.trusted.keys"),
    ] {
        let name = file.display().to_string();
        let named: Vec<&&String> = refusals.iter().filter(|l| l.contains(&name)).collect();
        assert_eq!(named.len(), 1, "{name}: {log:#?}");
        assert!(named[0].contains(reason), "{name}: {}", named[0]);
    }
    assert_eq!(
        log.iter().filter(|l| l.contains("Loaded plugin") && l.contains("signed.wasm")).count(),
        1,
        "{log:#?}"
    );
}

/// Starts the worker binary in `dir` with `extra` worker config and expects it to exit with
/// an error: its stderr.
fn failed_start(dir: &Path, extra: &str) -> String {
    let plugins = dir.join("plugins");
    std::fs::create_dir_all(&plugins).unwrap();
    std::fs::write(
        dir.join("worker.properties"),
        format!(
            "plugin.path={}\nlisteners=http://127.0.0.1:0\noffset.storage.file.filename={}\n{extra}",
            plugins.display(),
            dir.join("worker.db").display()
        ),
    )
    .unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_wasm-connect"))
        .current_dir(dir)
        .args(["standalone", "worker.properties", "--no-cache"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("the worker started");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = child.wait_with_output().unwrap();
    assert!(!out.status.success());
    text(&out.stderr)
}

#[test]
fn a_required_signature_without_a_usable_trusted_key_stops_the_start() {
    let dir = tempfile::tempdir().unwrap();
    let stderr = failed_start(dir.path(), "plugin.signature.required=true\n");
    assert!(stderr.contains("plugin.trusted.keys"), "{stderr}");
    assert!(stderr.contains("required when plugin.signature.required is true"), "{stderr}");
    let missing = dir.path().join("nowhere.pub");
    let stderr = failed_start(
        dir.path(),
        &format!("plugin.signature.required=true\nplugin.trusted.keys={}\n", missing.display()),
    );
    assert!(stderr.contains("plugin.trusted.keys") && stderr.contains("nowhere.pub"), "{stderr}");
}

/// A compiled artifact in the cache is no way around the check: the unsigned file a runtime
/// without trust compiled and cached is refused by one that requires signatures, over the
/// same cache; once signed, it loads from that cache.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_signature_is_checked_before_the_artifact_cache() {
    use wasm_connect::runtime::{CacheOutcome, LoadError, Runtime, RuntimeOptions, Trust};
    let dir = tempfile::tempdir().unwrap();
    let (key, public) = keygen(dir.path(), "k");
    let file = dir.path().join("p.wasm");
    std::fs::copy(component("fixtures", "chaos-source"), &file).unwrap();
    let cache = dir.path().join("cache");
    let runtime = |trust: Option<Trust>| {
        Runtime::new(RuntimeOptions { cache_dir: Some(cache.clone()), pool: None, trust }).unwrap()
    };
    let open = runtime(None);
    open.load(&file).await.expect("loads without trust");
    assert_eq!(open.load(&file).await.unwrap().cache_outcome(), CacheOutcome::Hit);

    let strict = runtime(Some(Trust::from_entries(&[public.display().to_string()]).unwrap()));
    let e = strict.load(&file).await.unwrap_err();
    assert!(matches!(e, LoadError::Unsigned { .. }), "{e}");
    assert!(sign(&key, &[&file]).status.success());
    let loaded = strict.load(&file).await.expect("a signed file loads");
    assert_eq!(loaded.cache_outcome(), CacheOutcome::Hit);
}

#[test]
fn list_with_trusted_keys_shows_what_a_worker_requiring_signatures_loads() {
    let dir = tempfile::tempdir().unwrap();
    let (key, public) = keygen(dir.path(), "k");
    let plugins = dir.path().join("plugins");
    std::fs::create_dir(&plugins).unwrap();
    let signed = plugins.join("datagen.wasm");
    std::fs::copy(component("plugins", "datagen"), &signed).unwrap();
    let unsigned = plugins.join("chaos.wasm");
    std::fs::copy(component("fixtures", "chaos-source"), &unsigned).unwrap();
    assert!(sign(&key, &[&signed]).status.success());
    let list = |extra: &[&str]| {
        let mut args = vec!["plugins", "list", "--plugin-path", s(&plugins)];
        args.extend(extra);
        run(&args)
    };
    let all = list(&[]);
    assert!(all.status.success(), "{}", text(&all.stderr));
    assert!(text(&all.stdout).contains("ChaosSource"), "{}", text(&all.stdout));

    let out = list(&["--trusted-key", s(&public)]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("Datagen") && !stdout.contains("ChaosSource"), "{stdout}");
    let stderr = text(&out.stderr);
    let skipped: Vec<&str> = stderr.lines().filter(|l| l.starts_with("skipped")).collect();
    assert_eq!(skipped.len(), 1, "{stderr}");
    assert!(skipped[0].contains(s(&unsigned)) && skipped[0].contains("not signed"), "{stderr}");
}
