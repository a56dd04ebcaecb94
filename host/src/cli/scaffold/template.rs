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
    for (dir, into) in vendored(lang) {
        collect(dir, dir.path(), Path::new(into), values, &mut files);
    }
    files
}

/// The SDK sources a language's projects carry with them.
fn vendored(lang: Lang) -> Vec<(&'static Dir<'static>, &'static str)> {
    match lang {
        Lang::Rust => Vec::new(),
    }
}

fn collect(
    dir: &Dir<'_>,
    base: &Path,
    into: &Path,
    values: &Values<'_>,
    out: &mut Vec<ProjectFile>,
) {
    for file in dir.files() {
        let relative = file.path().strip_prefix(base).unwrap_or(file.path());
        let path = into.join(target_name(relative));
        let contents = match std::str::from_utf8(file.contents()) {
            Ok(text) => substitute(text, values).into_bytes(),
            Err(_) => file.contents().to_vec(),
        };
        out.retain(|f: &ProjectFile| f.path != path);
        out.push(ProjectFile { path, contents });
    }
    for sub in dir.dirs() {
        collect(sub, base, into, values, out);
    }
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
            for f in &files {
                let t = String::from_utf8_lossy(&f.contents);
                assert!(!t.contains("{{"), "{} keeps a placeholder", f.path.display());
                assert!(!f.path.to_string_lossy().ends_with(".tmpl"));
            }
        }
    }
}
