//! `wasm-connect plugins list|inspect|test`, including one clear line for every kind of
//! bad file and never a panic, transform plugins, and a component of an older contract. `plugins test` runs against the shipped connectors (every
//! check passes) and against the chaos fixtures told to break one rule each (that check
//! fails, and the exit status says so).

use std::path::Path;
use std::process::{Command, Output};

use crate::support::{component, root};

/// Runs the binary with its artifact cache in `<cache>/artifacts`, so the cache's key file
/// (beside the cache directory) stays inside the test's temporary directory.
fn run(args: &[&str], cache: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_wasm-connect"))
        .args(args)
        .arg("--cache-dir")
        .arg(cache.join("artifacts"))
        .env("RUST_LOG", "warn")
        .output()
        .expect("the binary runs")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn list_shows_every_shipped_plugin() {
    let cache = tempfile::tempdir().unwrap();
    let plugins = root().join("build/plugins");
    let out = run(&["plugins", "list", "--plugin-path", plugins.to_str().unwrap()], cache.path());
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    for (name, kind) in [
        ("org.apache.kafka.connect.file.FileStreamSourceConnector", "source"),
        ("org.apache.kafka.connect.file.FileStreamSinkConnector", "sink"),
        ("Datagen", "source"),
        ("io.confluent.connect.jdbc.JdbcSinkConnector", "sink"),
        ("io.confluent.connect.jdbc.JdbcSourceConnector", "source"),
    ] {
        let line = stdout
            .lines()
            .find(|l| l.starts_with(name))
            .unwrap_or_else(|| panic!("{name} missing:\n{stdout}"));
        assert!(line.contains(kind), "{line}");
    }
    assert!(stdout.contains("read-file (file)"), "capabilities missing:\n{stdout}");
}

#[test]
fn inspect_prints_world_config_definition_and_imports() {
    let cache = tempfile::tempdir().unwrap();
    let file = component("plugins", "file-source");
    let out = run(&["plugins", "inspect", file.to_str().unwrap()], cache.path());
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("world:        wasm-connect:connector/source-connector@0.1.2"),
        "{stdout}"
    );
    assert!(stdout.contains("compiled now"), "{stdout}");
    let table_line = stdout.lines().find(|l| l.starts_with("file ")).expect("`file` key row");
    assert!(table_line.contains("STRING") && table_line.contains("read-file"), "{table_line}");
    assert!(stdout.contains("wasm-connect:connector/host@0.1.2"), "{stdout}");
    // The second load comes from the artifact cache.
    let out = run(&["plugins", "inspect", file.to_str().unwrap()], cache.path());
    assert!(text(&out.stdout).contains("loaded from the cache"));
}

#[test]
fn a_cache_directory_others_can_write_is_refused_with_one_line() {
    use std::os::unix::fs::PermissionsExt;
    let cache = tempfile::tempdir().unwrap();
    let shared = cache.path().join("artifacts");
    std::fs::create_dir(&shared).unwrap();
    std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o777)).unwrap();
    let file = component("plugins", "file-source");
    for _ in 0..2 {
        let out = run(&["plugins", "inspect", file.to_str().unwrap()], cache.path());
        assert!(out.status.success(), "{}", text(&out.stderr));
        assert!(text(&out.stdout).contains("compiled now"), "never from a shared directory");
        let stderr = text(&out.stderr);
        let lines: Vec<&str> = stderr.lines().filter(|l| l.contains("cache")).collect();
        assert_eq!(lines.len(), 1, "{stderr}");
        assert!(lines[0].contains("0777") && lines[0].contains("compiling in memory"), "{stderr}");
    }
    assert_eq!(std::fs::read_dir(&shared).unwrap().count(), 0, "nothing written there");
}

fn assert_one_clear_line(out: &Output, file: &Path, reason: &str) {
    assert_one_line_with_code(out, 1, file, reason);
}

fn assert_one_line_with_code(out: &Output, code: i32, file: &Path, reason: &str) {
    assert_eq!(out.status.code(), Some(code), "stderr: {}", text(&out.stderr));
    let stderr = text(&out.stderr);
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "expected one line, got:\n{stderr}");
    assert!(lines[0].contains(&file.display().to_string()), "{stderr}");
    assert!(lines[0].contains(reason), "expected {reason:?} in {stderr}");
    assert!(!stderr.contains("panicked") && !stderr.contains("backtrace"), "{stderr}");
}

#[test]
fn bad_files_get_one_line_naming_file_and_reason() {
    let dir = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let good = std::fs::read(component("plugins", "file-source")).unwrap();
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("text.wasm", b"definitely not wasm".to_vec(), "magic number"),
        ("truncated.wasm", good[..good.len() / 2].to_vec(), "not a WebAssembly component"),
        ("core.wasm", b"\0asm\x01\0\0\0".to_vec(), "core WebAssembly module"),
        (
            "empty-component.wasm",
            wat::parse_str("(component)").unwrap(),
            "not a wasm-connect plugin",
        ),
    ];
    for (name, bytes, reason) in cases {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        let out = run(&["plugins", "inspect", path.to_str().unwrap()], cache.path());
        assert_one_clear_line(&out, &path, reason);
    }
    let missing = dir.path().join("missing.wasm");
    let out = run(&["plugins", "inspect", missing.to_str().unwrap()], cache.path());
    assert_one_clear_line(&out, &missing, "cannot read");
}

#[test]
fn list_skips_bad_files_and_keeps_the_good_ones() {
    let dir = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    std::fs::copy(component("plugins", "datagen"), dir.path().join("datagen.wasm")).unwrap();
    std::fs::write(dir.path().join("junk.wasm"), b"junk").unwrap();
    let out =
        run(&["plugins", "list", "--plugin-path", dir.path().to_str().unwrap()], cache.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stdout).contains("Datagen"));
    let stderr = text(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.starts_with("skipped ") && stderr.contains("junk.wasm"), "{stderr}");
}

/// Writes a `.properties` connector config named `chaos` into `dir`.
fn properties(dir: &Path, file: &str, pairs: &[(&str, &str)]) -> std::path::PathBuf {
    let path = dir.join(file);
    let mut body = String::from("name=chaos\n");
    for (k, v) in pairs {
        body.push_str(&format!("{k}={v}\n"));
    }
    std::fs::write(&path, body).unwrap();
    path
}

/// The table row of `check` in `plugins test` output.
fn row<'a>(stdout: &'a str, check: &str) -> &'a str {
    stdout
        .lines()
        .find(|l| l.starts_with(&format!("{check}  ")))
        .unwrap_or_else(|| panic!("no row for {check:?} in:\n{stdout}"))
}

/// The RESULT column of `check`'s row.
fn result<'a>(stdout: &'a str, check: &str) -> &'a str {
    row(stdout, check)[check.len()..].split_whitespace().next().unwrap_or("")
}

fn plugin_test(file: &Path, config: Option<&Path>, cache: &Path) -> (Output, String) {
    let mut args = vec!["plugins".to_string(), "test".into(), file.display().to_string()];
    if let Some(c) = config {
        args.extend(["--config".to_string(), c.display().to_string()]);
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = run(&args, cache);
    let stdout = text(&out.stdout);
    (out, stdout)
}

const SOURCE_CHECKS: [&str; 7] = [
    "config definition",
    "validate rejects bad configs",
    "lifecycle order",
    "task-configs respects max-tasks",
    "poll within sandbox limits",
    "restart",
    "clean stop",
];

#[test]
fn test_passes_every_check_of_the_shipped_connectors() {
    let dir = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.txt");
    std::fs::write(&input, "one\ntwo\nthree\n").unwrap();
    let source_config = dir.path().join("file-source.json");
    let body = serde_json::json!({"name": "lines", "config": {"file": input, "topic": "lines"}});
    std::fs::write(&source_config, body.to_string()).unwrap();
    let output = dir.path().join("out.txt");
    let sink_config = properties(
        dir.path(),
        "file-sink.properties",
        &[("file", output.to_str().unwrap()), ("topics", "lines")],
    );
    let datagen_config = properties(dir.path(), "datagen.properties", &[("topic", "gen")]);
    for (plugin, config) in
        [("file-source", &source_config), ("file-sink", &sink_config), ("datagen", &datagen_config)]
    {
        let (out, stdout) = plugin_test(&component("plugins", plugin), Some(config), cache.path());
        assert_eq!(out.status.code(), Some(0), "{plugin}:\n{stdout}\n{}", text(&out.stderr));
        let sink = plugin == "file-sink";
        for check in SOURCE_CHECKS {
            let check = match check {
                "poll within sandbox limits" if sink => "put within sandbox limits",
                other => other,
            };
            assert_eq!(result(&stdout, check), "PASS", "{plugin}:\n{stdout}");
        }
        assert!(stdout.ends_with("7 passed, 0 failed, 0 skipped\n"), "{plugin}:\n{stdout}");
    }
    // The sink wrote the synthetic records where its config said.
    let written = std::fs::read_to_string(&output).unwrap();
    assert!(written.contains("conformance record 0"), "{written}");
}

#[test]
fn test_without_a_config_names_the_missing_keys() {
    let cache = tempfile::tempdir().unwrap();
    let (out, stdout) = plugin_test(&component("plugins", "datagen"), None, cache.path());
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert_eq!(result(&stdout, "config definition"), "PASS", "{stdout}");
    let lifecycle = row(&stdout, "lifecycle order");
    assert!(
        lifecycle.contains("FAIL") && lifecycle.contains("pass --config with values for: topic"),
        "{stdout}"
    );
    assert!(stdout.ends_with("1 passed, 6 failed, 0 skipped\n"), "{stdout}");
}

/// A fixture, its config, the check that must fail, and text its detail must hold.
type Misbehaviour =
    (&'static str, &'static [(&'static str, &'static str)], &'static str, &'static str);

#[test]
fn test_fails_the_check_each_misbehaviour_breaks() {
    let dir = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let cases: &[Misbehaviour] = &[
        (
            "chaos-source",
            &[("chaos.task.configs.extra", "1")],
            "task-configs respects max-tasks",
            "9 task configs for max-tasks 8",
        ),
        (
            "chaos-source",
            &[("chaos.offsets.ignore", "true")],
            "restart",
            "repeat a committed position",
        ),
        (
            "chaos-source",
            &[("chaos.mode", "loop"), ("chaos.when", "stop"), ("wasm.call.timeout.ms", "300")],
            "clean stop",
            "task stop: stop trapped: CPU deadline exceeded",
        ),
        (
            "chaos-source",
            &[("chaos.mode", "loop"), ("wasm.call.timeout.ms", "300")],
            "poll within sandbox limits",
            "poll trapped: CPU deadline exceeded",
        ),
        (
            "chaos-source",
            &[("chaos.mode", "oom")],
            "poll within sandbox limits",
            "memory cap of 64 MiB",
        ),
        (
            "chaos-source",
            &[
                ("chaos.mode", "huge"),
                ("chaos.huge.bytes", "2000000"),
                ("wasm.batch.max.bytes", "1000000"),
            ],
            "poll within sandbox limits",
            "over the limit of 1000000",
        ),
        (
            "chaos-source",
            &[("chaos.mode", "trap"), ("chaos.when", "connector-start")],
            "lifecycle order",
            "connector start: start trapped",
        ),
        (
            "chaos-sink",
            &[("chaos.pre.commit.ahead", "5")],
            "put within sandbox limits",
            "beyond the delivered 2000",
        ),
        ("chaos-sink", &[("chaos.mode", "panic")], "put within sandbox limits", "chaos panic"),
        ("chaos-sink", &[("chaos.fail.tasks", "0")], "lifecycle order", "task 0 told to fail"),
    ];
    for (i, (fixture, pairs, check, detail)) in cases.iter().enumerate() {
        let config = properties(dir.path(), &format!("case-{i}.properties"), pairs);
        let (out, stdout) =
            plugin_test(&component("fixtures", fixture), Some(&config), cache.path());
        let case = format!("{fixture} {pairs:?}");
        // 1, not 101: whatever the guest does, the kit reports it and does not panic.
        assert_eq!(out.status.code(), Some(1), "{case}:\n{stdout}\n{}", text(&out.stderr));
        let line = row(&stdout, check);
        assert_eq!(result(&stdout, check), "FAIL", "{case}:\n{stdout}");
        assert!(line.contains(detail), "{case}: {detail:?} missing from {line}");
        assert_eq!(result(&stdout, "config definition"), "PASS", "{case}:\n{stdout}");
    }
    // Told nothing, both fixtures pass.
    let config = properties(dir.path(), "ok.properties", &[]);
    for fixture in ["chaos-source", "chaos-sink"] {
        let (out, stdout) =
            plugin_test(&component("fixtures", fixture), Some(&config), cache.path());
        assert_eq!(out.status.code(), Some(0), "{fixture}:\n{stdout}");
    }
}

#[test]
fn test_of_a_bad_file_or_config_is_one_line_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("text.wasm", b"definitely not wasm".to_vec(), "magic number"),
        (
            "empty-component.wasm",
            wat::parse_str("(component)").unwrap(),
            "not a wasm-connect plugin",
        ),
    ];
    for (name, bytes, reason) in cases {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        let (out, stdout) = plugin_test(&path, None, cache.path());
        assert!(stdout.is_empty(), "{stdout}");
        assert_one_line_with_code(&out, 2, &path, reason);
    }
    let missing = dir.path().join("missing.json");
    let (out, _) = plugin_test(&component("plugins", "datagen"), Some(&missing), cache.path());
    assert_one_line_with_code(&out, 2, &missing, "cannot read");
}

#[test]
fn a_second_file_with_a_taken_name_and_version_is_skipped_and_named() {
    let cache = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let file = component("plugins", "file-sink");
    // Same plugin name, different bytes (a custom section appended), two files.
    std::fs::copy(&file, dir.path().join("a.wasm")).unwrap();
    let mut bytes = std::fs::read(&file).unwrap();
    bytes.extend_from_slice(&[0, 4, 1, b'x', 0, 0]);
    std::fs::write(dir.path().join("b.wasm"), bytes).unwrap();
    let out =
        run(&["plugins", "list", "--plugin-path", dir.path().to_str().unwrap()], cache.path());
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout)
            .lines()
            .filter(|l| l.starts_with("org.apache.kafka.connect.file.FileStreamSinkConnector"))
            .count(),
        1
    );
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains(
            "b.wasm: plugin org.apache.kafka.connect.file.FileStreamSinkConnector version "
        ) && stderr.contains("is already installed from"),
        "{stderr}"
    );
    assert!(stderr.contains("a.wasm"), "{stderr}");
}

#[test]
fn transform_plugins_are_listed_inspected_and_tested() {
    let dir = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let path = format!(
        "{},{}",
        root().join("build/examples/rust").display(),
        root().join("build/fixtures").display()
    );
    let out = run(&["plugins", "list", "--plugin-path", &path], cache.path());
    let stdout = text(&out.stdout);
    for name in ["Redact", "ChaosTransform"] {
        let line =
            stdout.lines().find(|l| l.starts_with(&format!("{name} "))).unwrap_or_else(|| {
                panic!("{name} missing:\n{stdout}");
            });
        assert!(line.contains("transform"), "{line}");
    }
    let redact = component("examples/rust", "redact-transform");
    let out = run(&["plugins", "inspect", redact.to_str().unwrap()], cache.path());
    let stdout = text(&out.stdout);
    assert!(stdout.contains("world:        wasm-connect:connector/transform@0.1.2"), "{stdout}");
    assert!(stdout.contains("redact.fields"), "{stdout}");

    // A connector config that runs the transform: the kit checks the alias's own keys.
    let config = properties(
        dir.path(),
        "redact.properties",
        &[
            ("connector.class", "FileStreamSink"),
            ("topics", "people"),
            ("transforms", "r"),
            ("transforms.r.type", "Redact"),
            ("transforms.r.redact.fields", "ssn"),
        ],
    );
    let (out, stdout) = plugin_test(&redact, Some(&config), cache.path());
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{}", text(&out.stderr));
    for check in [
        "config definition",
        "validate rejects bad configs",
        "apply within sandbox limits",
        "restart",
        "clean stop",
    ] {
        assert_eq!(result(&stdout, check), "PASS", "{stdout}");
    }
    assert!(stdout.ends_with("5 passed, 0 failed, 0 skipped\n"), "{stdout}");
    // Without its required key the kit names it.
    let (out, stdout) = plugin_test(&redact, None, cache.path());
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("missing required keys redact.fields"), "{stdout}");

    // A transform whose apply errors fails that check.
    let chaos = component("fixtures", "chaos-transform");
    let config = properties(dir.path(), "chaos.properties", &[("chaos.apply.error", "true")]);
    let (out, stdout) = plugin_test(&chaos, Some(&config), cache.path());
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert_eq!(result(&stdout, "apply within sandbox limits"), "FAIL", "{stdout}");
}

#[test]
fn a_component_built_against_contract_0_1_0_still_loads() {
    // 0.1.1 only added the transform world: a 0.1.0 component links and describes itself.
    let cache = tempfile::tempdir().unwrap();
    let old = root().join("tests/fixtures/file-sink-contract-0.1.0.wasm");
    let out = run(&["plugins", "inspect", old.to_str().unwrap()], cache.path());
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", text(&out.stderr));
    assert!(stdout.contains("org.apache.kafka.connect.file.FileStreamSinkConnector"), "{stdout}");
    assert!(stdout.contains("wasm-connect:connector/host@0.1.0"), "imports the old host: {stdout}");
}
