//! The "Layout" paragraphs of the module docs stay true: a module's layout names every file
//! and directory the module has, and nothing else.
//!
//! A module is a directory of sources; its docs are the `//!` lines at the top of its
//! `mod.rs`, of `lib.rs` for a crate's `src/`, or of the `name.rs` beside a `name/`
//! directory. Its layout is the paragraph of those docs that starts with `Layout:` and runs
//! to the next blank `//!` line. Every backticked bare lowercase name in that paragraph
//! (`` `writes` ``, `` `writes.rs` ``, `` `cache/` ``) is read as a child: it must exist as
//! `name.rs` or `name/` (`name.rs` only a file, `name/` only a directory). Other names belong
//! outside the paragraph or in a form that is not a bare lowercase name (a path, a type, a
//! key with dots). A link (`` [`model`] ``) names a child when one of that name exists, and
//! is otherwise taken for an item, whose link rustdoc checks.
//!
//! Every child of the module must be named, except test code, which may be named or not:
//! files and directories named `tests`, `*_tests`, `test_*`, `harness`, `test_support`
//! or `fake` (the same rule as `floors.rs`). `main.rs`, a crate's binary, is not a child.
//! Every module with a child must have a layout, in the host crate and in the `group`,
//! `transforms` and `backoff` crates.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

fn is_test_file(name: &str) -> bool {
    name == "tests"
        || name.ends_with("_tests")
        || name.starts_with("test_")
        || matches!(name, "harness" | "test_support" | "fake")
}

/// The module's children: `.rs` files (without `mod.rs`, `lib.rs`, `main.rs`) and
/// directories, by name, each with whether it is a directory.
fn children(dir: &Path) -> Vec<(String, bool)> {
    let mut found = BTreeSet::new();
    for entry in fs::read_dir(dir).expect("read module directory") {
        let path = entry.expect("dir entry").path();
        let name = path.file_stem().and_then(|s| s.to_str()).expect("utf-8 name").to_owned();
        if path.is_dir() {
            found.insert((name, true));
        } else if path.extension().is_some_and(|e| e == "rs")
            && !matches!(name.as_str(), "mod" | "lib" | "main")
        {
            found.insert((name, false));
        }
    }
    found.into_iter().collect()
}

/// The file holding a directory's module docs.
fn doc_file(dir: &Path, crate_root: bool) -> PathBuf {
    if crate_root {
        return dir.join("lib.rs");
    }
    let own = dir.join("mod.rs");
    if own.exists() { own } else { dir.with_extension("rs") }
}

/// The `Layout:` paragraph of a file's leading `//!` docs, if it has one.
fn layout(text: &str) -> Option<String> {
    let docs: Vec<&str> = text
        .lines()
        .take_while(|l| l.starts_with("//!"))
        .map(|l| l.trim_start_matches("//!").trim())
        .collect();
    let start = docs.iter().position(|l| l.starts_with("Layout:"))?;
    let paragraph = docs[start..].iter().take_while(|l| !l.is_empty()).copied();
    Some(paragraph.collect::<Vec<_>>().join(" "))
}

/// A name a layout shows as a child.
#[derive(Debug, PartialEq)]
struct Named {
    name: String,
    /// `Some(true)` when written `name/`, `Some(false)` when written `name.rs`.
    dir: Option<bool>,
    /// Written as an intra-doc link, `` [`name`] ``.
    link: bool,
}

/// The children a layout names: each backticked bare lowercase name.
fn named(layout: &str) -> Vec<Named> {
    let mut found = Vec::new();
    let spans: Vec<&str> = layout.split('`').collect();
    for (i, span) in spans.iter().enumerate() {
        if i % 2 == 0 {
            continue; // outside backticks
        }
        let link =
            spans[i - 1].ends_with('[') && spans.get(i + 1).is_some_and(|s| s.starts_with(']'));
        let (name, dir) = if let Some(n) = span.strip_suffix(".rs") {
            (n, Some(false))
        } else if let Some(n) = span.strip_suffix('/') {
            (n, Some(true))
        } else {
            (*span, None)
        };
        let bare = name.starts_with(|c: char| c.is_ascii_lowercase())
            && name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
        if bare {
            found.push(Named { name: name.to_owned(), dir, link });
        }
    }
    found
}

/// What is wrong with the layouts of `dir` and the modules under it.
fn check(dir: &Path, crate_root: bool, problems: &mut Vec<String>) {
    let kids = children(dir);
    let doc = doc_file(dir, crate_root);
    let shown = doc.strip_prefix(workspace()).unwrap_or(&doc);
    let text = fs::read_to_string(&doc).unwrap_or_default();
    let own: Vec<&(String, bool)> = kids.iter().filter(|(n, _)| !is_test_file(n)).collect();
    match layout(&text) {
        None if !own.is_empty() => {
            problems.push(format!("{}: no `Layout:` paragraph", shown.display()));
        }
        None => {}
        Some(layout) => {
            let names = named(&layout);
            for Named { name, dir, link } in &names {
                let exists =
                    kids.iter().any(|(n, d)| n == name && dir.is_none_or(|want| want == *d));
                if !exists && !link {
                    problems
                        .push(format!("{}: layout names `{name}`, no such child", shown.display()));
                }
            }
            for (name, _) in own {
                if !names.iter().any(|n| &n.name == name) {
                    problems.push(format!("{}: layout omits `{name}`", shown.display()));
                }
            }
        }
    }
    for (name, is_dir) in &kids {
        if *is_dir && !is_test_file(name) {
            check(&dir.join(name), false, problems);
        }
    }
}

fn workspace() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("the host crate is in the workspace")
}

#[test]
fn every_layout_names_exactly_the_files_of_its_module() {
    let mut problems = Vec::new();
    for krate in ["host", "group", "transforms", "backoff"] {
        check(&workspace().join(krate).join("src"), true, &mut problems);
    }
    assert!(problems.is_empty(), "module layouts out of step:\n{}", problems.join("\n"));
}

#[test]
fn the_check_reads_names_and_paragraphs_as_documented() {
    let text = "//! Intro `ignored`.\n//!\n//! Layout: [`model`], `writes.rs` (with `Action`s,\n//! \
                `bindgen!`, `wasi:http`, `store/embedded`), `cache/`.\n//!\n//! After: `later`.\n";
    let layout = layout(text).expect("a layout paragraph");
    let entry = |name: &str, dir, link| Named { name: name.to_owned(), dir, link };
    assert_eq!(
        named(&layout),
        vec![
            entry("model", None, true),
            entry("writes", Some(false), false),
            entry("cache", Some(true), false),
        ]
    );
    assert!(is_test_file("snapshot_tests") && is_test_file("harness") && !is_test_file("writes"));
}
