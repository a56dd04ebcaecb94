//! Guesses a component's source language from the `producers` custom sections of the
//! component and of the core modules inside it, to pick default sandbox limits.
//!
//! Interpreter components (componentize-py, componentize-js) embed runtimes that were
//! themselves compiled from Rust or C, so their markers are checked first. componentize-py
//! 0.25 names no Python producer at all (only `rustc` and `wit-component`); its components
//! are dynamically linked, and the symbols their core modules export are named after the
//! shared library (`libpython3.14.so:memory_base`), so such names count as markers too.
//! Reading never fails: an unreadable or silent component is `Language::Other`.

use wasmparser::{KnownCustom, Parser, Payload};

use crate::model::Language;

/// The language `bytes` were most likely written in.
pub fn language(bytes: &[u8]) -> Language {
    let mut seen = Vec::<String>::new();
    for payload in Parser::new(0).parse_all(bytes) {
        let section = match payload {
            Ok(Payload::CustomSection(section)) => section,
            Ok(Payload::ExportSection(reader)) => {
                // Only dynamic-linking symbols (`<library>.so:<symbol>`) say anything.
                let linked = reader.into_iter().flatten().filter(|e| e.name.contains(".so:"));
                seen.extend(linked.map(|e| format!("export={}", e.name).to_ascii_lowercase()));
                continue;
            }
            _ => continue,
        };
        let KnownCustom::Producers(reader) = section.as_known() else { continue };
        for field in reader.into_iter().flatten() {
            for value in field.values.into_iter().flatten() {
                seen.push(format!("{}={}", field.name, value.name).to_ascii_lowercase());
            }
        }
    }
    classify(&seen)
}

fn classify(seen: &[String]) -> Language {
    let any = |needles: &[&str]| seen.iter().any(|s| needles.iter().any(|n| s.contains(n)));
    if any(&["componentize-py", "componentize_py", "python"]) {
        Language::Python
    } else if any(&[
        "componentize-js",
        "componentizejs",
        "javascript",
        "starlingmonkey",
        "spidermonkey",
    ]) {
        Language::JavaScript
    } else if any(&["language=rust"]) {
        Language::Rust
    } else {
        Language::Other
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interpreter_markers_win_over_the_runtime_language() {
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert_eq!(
            classify(&s(&["language=rust", "processed-by=componentize-py"])),
            Language::Python
        );
        assert_eq!(
            classify(&s(&["language=rust", "processed-by=componentizejs"])),
            Language::JavaScript
        );
        assert_eq!(classify(&s(&["language=rust", "processed-by=rustc"])), Language::Rust);
        // componentize-py 0.25: a Rust producer, and libpython's linking symbols.
        assert_eq!(
            classify(&s(&[
                "language=rust",
                "processed-by=rustc",
                "processed-by=component-init-transform",
                "export=libcomponentize_py_runtime.so:memory_base",
            ])),
            Language::Python
        );
        assert_eq!(classify(&[]), Language::Other);
        assert_eq!(language(b"not wasm"), Language::Other);
    }

    /// A core module in the text format, as bytes.
    fn module(wat: &str) -> Vec<u8> {
        wat::parse_str(wat).unwrap()
    }

    #[test]
    fn dynamic_linking_exports_of_libpython_mean_python() {
        let python = module(
            r#"(module (global (export "libpython3.14.so:memory_base") i32 (i32.const 0)))"#,
        );
        assert_eq!(language(&python), Language::Python);
        let plain = module(r#"(module (global (export "memory_base") i32 (i32.const 0)))"#);
        assert_eq!(language(&plain), Language::Other);
    }
}
