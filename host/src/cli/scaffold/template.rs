//! The project templates compiled into the binary (`plugins/templates/`, the WIT contract
//! and the Python and JavaScript SDKs), and [`render`], which turns them into the files of
//! a new project.
//!
//! This module owns the template layout rules documented in `plugins/templates/README.md`:
//! `<lang>/common/` then `<lang>/<kind>/`, a `.tmpl` suffix dropped, a `dot_` prefix turned
//! into `.`, and the `{{…}}` placeholders. Rendering is pure; writing files is the caller's.

use std::path::{Path, PathBuf};

use include_dir::{Dir, include_dir};

use super::{Kind, Lang, ProjectNames};

/// Every language's templates.
static TEMPLATES: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/../plugins/templates");
/// The WIT contract, copied into every project.
static WIT: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/../wit");
/// The Python SDK, copied into Python projects.
static SDK_PYTHON: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/../plugins/sdk-python");
/// The JavaScript SDK's sources and build tool, copied into JavaScript projects.
static SDK_JS_SRC: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/../plugins/sdk-js/src");
static SDK_JS_TOOLS: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/../plugins/sdk-js/tools");

/// One file of a new project.
#[derive(Debug)]
pub struct ProjectFile {
    /// Relative to the project directory.
    pub path: PathBuf,
    /// The file's bytes.
    pub contents: Vec<u8>,
}

/// What the placeholders stand for in one project.
pub struct Values<'a> {
    /// The project's names.
    pub names: &'a ProjectNames,
    /// The Rust SDK crate's directory (Rust projects only).
    pub sdk_path: &'a Path,
}

/// The files of a new `lang` `kind` project.
pub fn render(lang: Lang, kind: Kind, values: &Values<'_>) -> Vec<ProjectFile> {
    let mut files = Vec::new();
    for part in ["common", kind.dir()] {
        if let Some(dir) = TEMPLATES.get_dir(format!("{}/{part}", lang.dir())) {
            collect(dir, dir.path(), Path::new(""), values, &mut files);
        }
    }
    collect(&WIT, WIT.path(), Path::new("wit"), values, &mut files);
    match lang {
        Lang::Rust => {}
        Lang::Python => {
            let sdk = SDK_PYTHON.get_dir("wasm_connect").expect("the Python SDK is embedded");
            collect(sdk, sdk.path(), Path::new("wasm_connect"), values, &mut files);
            let pins = SDK_PYTHON.get_file("requirements-build.txt").expect("pinned toolchain");
            files.push(ProjectFile {
                path: "requirements.txt".into(),
                contents: pins.contents().to_vec(),
            });
        }
        Lang::Js => {
            collect(&SDK_JS_SRC, SDK_JS_SRC.path(), Path::new("sdk/src"), values, &mut files);
            collect(&SDK_JS_TOOLS, SDK_JS_TOOLS.path(), Path::new("sdk/tools"), values, &mut files);
        }
    }
    files
}

fn collect(
    dir: &Dir<'_>,
    base: &Path,
    into: &Path,
    values: &Values<'_>,
    out: &mut Vec<ProjectFile>,
) {
    for file in dir.files().filter(|f| !is_build_debris(f.path())) {
        let relative = file.path().strip_prefix(base).unwrap_or(file.path());
        let path = into.join(target_name(relative));
        let contents = match std::str::from_utf8(file.contents()) {
            Ok(text) => substitute(text, values).into_bytes(),
            Err(_) => file.contents().to_vec(),
        };
        out.retain(|f: &ProjectFile| f.path != path);
        out.push(ProjectFile { path, contents });
    }
    for sub in dir.dirs().filter(|d| !is_build_debris(d.path())) {
        collect(sub, base, into, values, out);
    }
}

/// Files a checkout may hold next to the sources (bytecode caches), never copied.
fn is_build_debris(path: &Path) -> bool {
    path.components().any(|c| c.as_os_str() == "__pycache__" || c.as_os_str() == ".pytest_cache")
        || path.extension().is_some_and(|e| e == "pyc")
}

/// A template's path in the project: `.tmpl` dropped, `dot_` made `.`.
fn target_name(relative: &Path) -> PathBuf {
    let name = relative.file_name().and_then(|n| n.to_str()).unwrap_or_default();
    let name = name.strip_suffix(".tmpl").unwrap_or(name);
    let name = match name.strip_prefix("dot_") {
        Some(rest) => format!(".{rest}"),
        None => name.to_owned(),
    };
    relative.with_file_name(name)
}

fn substitute(text: &str, values: &Values<'_>) -> String {
    text.replace("{{name}}", &values.names.name)
        .replace("{{snake}}", &values.names.snake)
        .replace("{{class}}", &values.names.class)
        .replace("{{sdk_path}}", &values.sdk_path.display().to_string())
        .replace("{{contract}}", crate::runtime::CONTRACT)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(lang: Lang, kind: Kind) -> Vec<ProjectFile> {
        let names = ProjectNames::parse("orders-feed").unwrap();
        render(lang, kind, &Values { names: &names, sdk_path: Path::new("/sdk") })
    }

    fn text<'a>(files: &'a [ProjectFile], path: &str) -> &'a str {
        let file = files.iter().find(|f| f.path == Path::new(path)).expect(path);
        std::str::from_utf8(&file.contents).unwrap()
    }

    #[test]
    fn a_rust_project_has_its_manifest_code_wit_and_readme() {
        for kind in [Kind::Source, Kind::Sink] {
            let files = files(Lang::Rust, kind);
            let manifest = text(&files, "Cargo.toml");
            assert!(manifest.contains("name = \"orders-feed\""), "{manifest}");
            assert!(manifest.contains("path = \"/sdk\""), "{manifest}");
            let code = text(&files, "src/lib.rs");
            assert!(code.contains("\"OrdersFeed\""), "{code}");
            let export = if kind == Kind::Source { "export_source!" } else { "export_sink!" };
            assert!(code.contains(export), "{code}");
            assert!(text(&files, "wit/connector.wit").contains("world source-connector"));
            assert!(text(&files, "README.md").contains("orders-feed"));
            assert!(files.iter().any(|f| f.path == Path::new(".gitignore")));
            no_placeholders_left(&files);
        }
    }

    fn no_placeholders_left(files: &[ProjectFile]) {
        for f in files {
            let t = String::from_utf8_lossy(&f.contents);
            for p in ["{{name}}", "{{snake}}", "{{class}}", "{{sdk_path}}", "{{contract}}"] {
                assert!(!t.contains(p), "{} keeps {p}", f.path.display());
            }
            assert!(!f.path.to_string_lossy().ends_with(".tmpl"));
            assert!(!is_build_debris(&f.path), "{} copied", f.path.display());
        }
    }

    #[test]
    fn a_javascript_project_carries_the_sdk_and_its_build_tool() {
        for (kind, export) in [(Kind::Source, "exportSource"), (Kind::Sink, "exportSink")] {
            let files = files(Lang::Js, kind);
            assert!(text(&files, "index.js").contains(export));
            assert!(text(&files, "test/connector.test.js").contains("node:test"));
            assert!(
                text(&files, "package.json").contains("\"@bytecodealliance/wizer\": \"10.0.0\"")
            );
            assert!(text(&files, "sdk/src/index.js").contains("exportSource"));
            assert!(text(&files, "sdk/tools/build.mjs").contains("componentize"));
            no_placeholders_left(&files);
        }
    }

    #[test]
    fn a_python_project_carries_the_sdk_and_the_pinned_toolchain() {
        for (kind, world) in [(Kind::Source, "source-connector"), (Kind::Sink, "sink-connector")] {
            let files = files(Lang::Python, kind);
            assert!(text(&files, "app.py").contains("class OrdersFeedConnector(Connector)"));
            assert!(text(&files, "test_app.py").contains("MockHost"));
            assert!(text(&files, "build.sh").contains(&format!("-w {world}")));
            assert!(text(&files, "wasm_connect/__init__.py").contains("export_source"));
            assert!(text(&files, "wasm_connect/testing.py").contains("class MockHost"));
            assert!(text(&files, "requirements.txt").contains("componentize-py=="));
            no_placeholders_left(&files);
        }
    }
}
