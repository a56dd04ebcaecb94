//! `wasm-connect plugins list|inspect`, including one clear line for every kind of bad
//! file and never a panic.

use std::path::Path;
use std::process::{Command, Output};

use crate::support::{component, root};

fn run(args: &[&str], cache: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_wasm-connect"))
        .args(args)
        .arg("--cache-dir")
        .arg(cache)
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
    for (name, kind) in
        [("FileStreamSource", "source"), ("FileStreamSink", "sink"), ("Datagen", "source")]
    {
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
        stdout.contains("world:        wasm-connect:connector/source-connector@0.1.0"),
        "{stdout}"
    );
    assert!(stdout.contains("compiled now"), "{stdout}");
    let table_line = stdout.lines().find(|l| l.starts_with("file ")).expect("`file` key row");
    assert!(table_line.contains("STRING") && table_line.contains("read-file"), "{table_line}");
    assert!(stdout.contains("wasm-connect:connector/host@0.1.0"), "{stdout}");
    // The second load comes from the artifact cache.
    let out = run(&["plugins", "inspect", file.to_str().unwrap()], cache.path());
    assert!(text(&out.stdout).contains("loaded from the cache"));
}

fn assert_one_clear_line(out: &Output, file: &Path, reason: &str) {
    assert_eq!(out.status.code(), Some(1), "stderr: {}", text(&out.stderr));
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
