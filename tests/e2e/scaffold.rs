//! `wasm-connect plugins new`: every language and kind is written by the CLI, unit-tested
//! and built with its own toolchain, then run in a worker, the new source feeding the new
//! sink through an embedded topic, so a template that does not build, test or run fails.

use std::path::{Path, PathBuf};
use std::process::Command;

use wasm_connect::config::read_connector_file;
use wasm_connect::model::{Properties, State};

use crate::harness::{Backing, eventually, t, wait_state};
use crate::support::root;

/// Runs `cmd` in `dir`, failing the test with its output when it fails.
fn run(dir: &Path, cmd: &mut Command) -> String {
    let out = cmd.current_dir(dir).output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    let text =
        format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{cmd:?} in {} failed:\n{text}", dir.display());
    text
}

/// The guest build directory shared with `scripts/build-guests.sh`, so the SDK's
/// dependencies are compiled once.
fn guest_target() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target"))
        .join("guests")
}

/// The guest toolchain of `lang` that `scripts/build-<lang>-guests.sh` installed.
fn tools(lang: &str) -> PathBuf {
    let dir = std::env::var_os("WASM_CONNECT_TOOLS")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("build/tools"))
        .join(lang);
    assert!(dir.exists(), "{} is missing: run scripts/build-{lang}-guests.sh", dir.display());
    dir
}

/// `PATH` with `dir` first.
fn with_path(dir: &Path) -> std::ffi::OsString {
    let mut paths = vec![dir.to_path_buf()];
    paths.extend(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()));
    std::env::join_paths(paths).unwrap()
}

/// `wasm-connect plugins new NAME --lang LANG --kind KIND` in `parent`.
fn new_project(parent: &Path, name: &str, lang: &str, kind: &str) -> PathBuf {
    let out = run(
        parent,
        Command::new(env!("CARGO_BIN_EXE_wasm-connect"))
            .args(["plugins", "new", name, "--lang", lang, "--kind", kind])
            .env("RUST_LOG", "warn"),
    );
    assert!(out.contains("Next:"), "{out}");
    parent.join(name)
}

/// Unit-tests and builds a project the way its README says; returns its component, copied
/// into the project's `plugins/` directory.
fn test_and_build(project: &Path, lang: &str) -> PathBuf {
    let snake = project.file_name().unwrap().to_str().unwrap().replace('-', "_");
    let plugins = project.join("plugins");
    match lang {
        "rust" => {
            let target = guest_target();
            let out = run(
                project,
                Command::new("cargo").args(["test", "--release"]).env("CARGO_TARGET_DIR", &target),
            );
            assert!(out.contains("test result: ok"), "{out}");
            run(
                project,
                Command::new("cargo")
                    .args(["build", "--release", "--target", "wasm32-wasip2"])
                    .env("CARGO_TARGET_DIR", &target),
            );
            std::fs::create_dir_all(&plugins).unwrap();
            let wasm = plugins.join(format!("{snake}.wasm"));
            std::fs::copy(target.join(format!("wasm32-wasip2/release/{snake}.wasm")), &wasm)
                .unwrap();
            wasm
        }
        "python" => {
            let bin = tools("python").join("bin");
            let python = bin.join("python");
            let out = run(project, Command::new(&python).args(["-m", "pytest", "-q"]));
            assert!(out.contains("passed"), "{out}");
            run(project, Command::new("sh").arg("build.sh").env("PATH", with_path(&bin)));
            plugins.join(format!("{snake}.wasm"))
        }
        "js" => {
            // `npm install` stands in for the toolchain scripts/build-js-guests.sh installed
            // from the same pins.
            let modules = root().join("plugins/sdk-js/node_modules");
            assert!(
                modules.exists(),
                "{} is missing: run scripts/build-js-guests.sh",
                modules.display()
            );
            std::os::unix::fs::symlink(&modules, project.join("node_modules")).unwrap();
            let out = run(project, Command::new("npm").arg("test"));
            assert!(out.contains("# fail 0"), "{out}");
            run(project, Command::new("npm").args(["run", "build"]));
            plugins.join(format!("{snake}.wasm"))
        }
        other => panic!("no build recipe for {other}"),
    }
}

/// The project's own `connector.properties`, with `overrides` applied.
fn connector_config(project: &Path, overrides: &[(&str, &str)]) -> (String, Properties) {
    let (name, pairs) = read_connector_file(&project.join("connector.properties")).unwrap();
    let mut config: Properties = pairs.into_iter().collect();
    for (k, v) in overrides {
        config.insert(k.to_string(), v.to_string());
    }
    (name, config)
}

/// `wasm-connect plugins test` on a project's component, with its own connector config
/// plus `overrides`: every check (`checks` of them) must pass.
fn conformance(
    project: &Path,
    wasm: &Path,
    cache: &Path,
    overrides: &[(&str, &str)],
    checks: usize,
) {
    let (_, config) = connector_config(project, overrides);
    let file = project.join("kit.properties");
    let text: String = config.iter().map(|(k, v)| format!("{k}={v}\n")).collect();
    std::fs::write(&file, text).unwrap();
    let out = run(
        project,
        Command::new(env!("CARGO_BIN_EXE_wasm-connect"))
            .args(["plugins", "test"])
            .arg(wasm)
            .arg("--config")
            .arg(&file)
            .arg("--cache-dir")
            .arg(cache)
            .env("RUST_LOG", "error"),
    );
    assert!(out.contains(&format!("{checks} passed, 0 failed")), "{out}");
}

/// Writes a source, a sink and a transform project in `lang`, tests and builds them, then
/// runs them in one standalone worker, the transform on the source: the sink's file must
/// get the source's records, in order, from the topic the transform moved them to.
async fn scaffolds_build_test_and_run(lang: &str) {
    let dir = tempfile::tempdir().unwrap();
    let source = new_project(dir.path(), &format!("{lang}-feed"), lang, "source");
    let sink = new_project(dir.path(), &format!("{lang}-drain"), lang, "sink");
    let transform = new_project(dir.path(), &format!("{lang}-shape"), lang, "transform");
    let source_wasm = test_and_build(&source, lang);
    let sink_wasm = test_and_build(&sink, lang);
    let transform_wasm = test_and_build(&transform, lang);
    // The kit and the worker share one artifact cache: each component compiles once.
    let cache = dir.path().join("cache");
    let out = dir.path().join("out.txt");
    conformance(&source, &source_wasm, &cache, &[("topic", "scaffold")], 7);
    let sink_overrides = [("topics", "moved.scaffold"), ("file", out.to_str().unwrap())];
    conformance(&sink, &sink_wasm, &cache, &sink_overrides, 7);
    conformance(&transform, &transform_wasm, &cache, &[], 5);
    let plugins = dir.path().join("plugins");
    std::fs::create_dir_all(&plugins).unwrap();
    for wasm in [&source_wasm, &sink_wasm, &transform_wasm] {
        std::fs::copy(wasm, plugins.join(wasm.file_name().unwrap())).unwrap();
    }

    let _ = std::fs::remove_file(&out);
    let class = format!("{}Shape", lang[..1].to_uppercase() + &lang[1..]);
    let (source_name, source_config) = connector_config(
        &source,
        &[
            ("topic", "scaffold"),
            ("count", "250"),
            ("transforms", "move"),
            ("transforms.move.type", &class),
            ("transforms.move.topic.prefix", "moved."),
        ],
    );
    let (sink_name, sink_config) =
        connector_config(&sink, &[("topics", "moved.scaffold"), ("file", out.to_str().unwrap())]);
    let app = Backing::embedded(&dir)
        .start_with(&[
            ("plugin.path", plugins.to_str().unwrap()),
            ("wasm.cache.dir", cache.to_str().unwrap()),
            ("offset.flush.interval.ms", "200"),
        ])
        .await;
    for (name, config) in [(&source_name, source_config), (&sink_name, sink_config)] {
        app.herder.put_connector_config(name, config, None, false).await.unwrap();
    }
    wait_state(&app, t(&source_name, 0), State::Running).await;
    wait_state(&app, t(&sink_name, 0), State::Running).await;
    let want: Vec<String> = (0..250).map(|n| format!("hello {n}")).collect();
    let got = eventually(60, "250 lines from the scaffolded sink", async || {
        let text = std::fs::read_to_string(&out).unwrap_or_default();
        let lines: Vec<String> = text.lines().map(str::to_owned).collect();
        (lines.len() >= want.len()).then_some(lines)
    })
    .await;
    assert_eq!(got, want);
    app.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn rust_scaffolds_build_test_and_run() {
    scaffolds_build_test_and_run("rust").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn python_scaffolds_build_test_and_run() {
    scaffolds_build_test_and_run("python").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn js_scaffolds_build_test_and_run() {
    scaffolds_build_test_and_run("js").await;
}

#[test]
fn a_non_empty_directory_is_refused_and_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("taken");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::write(project.join("keep.txt"), "mine").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_wasm-connect"))
        .args(["plugins", "new", "taken", "--lang", "rust", "--kind", "sink"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("exists and is not empty"), "{stderr}");
    assert_eq!(std::fs::read_dir(&project).unwrap().count(), 1);
    assert_eq!(std::fs::read_to_string(project.join("keep.txt")).unwrap(), "mine");
}
