//! The floors of the host crate (ARCHITECTURE.md): each top-level module may use the modules
//! on its floor or below, never one above; and within a module, no two files use each other,
//! directly or round a circle.
//!
//! It reads the sources, not the compiled crate: a path `crate::<module>` names the module
//! it uses, and `super::<file>` or `crate::<module>::<file>` the sibling file. Test code
//! (`*_tests.rs`, `tests.rs`, test harnesses, a trailing `#[cfg(test)] mod tests`) may wire
//! anything and is left out. An item reached through a parent's re-export (`super::Item`)
//! is not traced to its file; the compiler's privacy keeps most of those inside the module.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// Top-level modules by floor, lowest first. A module may use its own floor and those below.
const FLOORS: &[&[&str]] = &[
    &["model"],
    &["config", "telemetry"],
    &["runtime", "store", "cluster"],
    &["worker"],
    &["herder"],
    &["rest"],
    &["app", "cli", "conformance", "main", "lib"],
];

/// One source file: its module path (`["worker", "errors", "reporter"]`) and its code with
/// comments and test code removed.
struct Source {
    module: Vec<String>,
    code: String,
}

fn floor(module: &str) -> usize {
    FLOORS
        .iter()
        .position(|floor| floor.contains(&module))
        .unwrap_or_else(|| panic!("module `{module}` has no floor: add it to FLOORS"))
}

fn is_test_file(name: &str) -> bool {
    name == "tests"
        || name.ends_with("_tests")
        || name.starts_with("test_")
        || matches!(name, "harness" | "test_support" | "fake")
}

/// The code of a file without comments and without its trailing test module.
fn code_of(text: &str) -> String {
    let text = text.split("#[cfg(test)]\nmod tests {").next().unwrap_or_default();
    text.lines()
        .map(|line| match line.find("//") {
            Some(at) => &line[..at],
            None => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn sources(dir: &Path, module: &[String], out: &mut Vec<Source>) {
    let mut entries: Vec<PathBuf> =
        fs::read_dir(dir).expect("read src").map(|e| e.expect("dir entry").path()).collect();
    entries.sort();
    for path in entries {
        let name = path.file_stem().and_then(|s| s.to_str()).expect("utf-8 name").to_owned();
        if path.is_dir() {
            if !is_test_file(&name) {
                let mut child = module.to_vec();
                child.push(name);
                sources(&path, &child, out);
            }
            continue;
        }
        if path.extension().is_none_or(|e| e != "rs") || is_test_file(&name) {
            continue;
        }
        let mut file = module.to_vec();
        if name != "mod" {
            file.push(name);
        }
        let code = code_of(&fs::read_to_string(&path).expect("read source"));
        out.push(Source { module: file, code });
    }
}

fn all_sources() -> Vec<Source> {
    let mut out = Vec::new();
    sources(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"), &[], &mut out);
    out
}

/// Every path that starts with `prefix` (`crate::` or `super::`), as its segments.
fn paths<'a>(code: &'a str, prefix: &str) -> Vec<Vec<&'a str>> {
    let mut found = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find(prefix) {
        let before = rest[..at].chars().next_back();
        rest = &rest[at + prefix.len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let end = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
            .unwrap_or(rest.len());
        let segments: Vec<&str> = rest[..end].split("::").filter(|s| !s.is_empty()).collect();
        if !segments.is_empty() {
            found.push(segments);
        }
    }
    found
}

#[test]
fn no_module_uses_a_floor_above_it() {
    let mut violations = BTreeSet::new();
    for source in all_sources() {
        let own = source.module.first().map_or("lib", String::as_str);
        for path in paths(&source.code, "crate::") {
            let used = path[0];
            if FLOORS.iter().all(|f| !f.contains(&used)) {
                continue; // a macro or an item of lib.rs itself
            }
            if floor(used) > floor(own) {
                violations.insert(format!("{} uses crate::{used}", source.module.join("::")));
            }
        }
    }
    assert!(violations.is_empty(), "floors broken:\n{}", Vec::from_iter(violations).join("\n"));
}

#[test]
fn no_two_files_of_a_module_use_each_other() {
    let sources = all_sources();
    let files: BTreeSet<Vec<String>> = sources.iter().map(|s| s.module.clone()).collect();
    let mut edges: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = BTreeMap::new();
    for source in &sources {
        let parent = &source.module[..source.module.len().saturating_sub(1)];
        let crate_paths = paths(&source.code, "crate::").into_iter().map(|p| (Vec::new(), p));
        let super_paths = paths(&source.code, "super::").into_iter().map(|p| (parent.to_vec(), p));
        for (base, path) in crate_paths.chain(super_paths) {
            let full: Vec<String> =
                base.into_iter().chain(path.iter().map(|s| s.to_string())).collect();
            // The longest prefix that is a file.
            let Some(target) =
                (1..=full.len()).rev().map(|n| full[..n].to_vec()).find(|p| files.contains(p))
            else {
                continue;
            };
            // Both sides as the children of their closest common parent.
            let common = source.module.iter().zip(&target).take_while(|(a, b)| a == b).count();
            if common >= source.module.len() || common >= target.len() {
                continue; // a parent and its child
            }
            let (from, to) = (source.module[..=common].to_vec(), target[..=common].to_vec());
            if from != to {
                edges.entry(from).or_default().insert(to);
            }
        }
    }
    let circles = circles(&edges);
    assert!(
        circles.is_empty(),
        "files that use each other:\n{}",
        circles.iter().map(|c| c.join(" -> ")).collect::<Vec<_>>().join("\n")
    );
}

/// One circle through each strongly connected group of `edges`, as `a::b -> a::c -> a::b`.
fn circles(edges: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>) -> Vec<Vec<String>> {
    let mut found = Vec::new();
    let mut done: BTreeSet<&Vec<String>> = BTreeSet::new();
    for start in edges.keys() {
        if done.contains(start) {
            continue;
        }
        // Depth-first search from `start` back to `start`.
        let mut stack = vec![(start, vec![start])];
        let mut seen = BTreeSet::new();
        while let Some((at, trail)) = stack.pop() {
            for next in edges.get(at).into_iter().flatten() {
                if next == start {
                    let mut circle: Vec<String> = trail.iter().map(|m| m.join("::")).collect();
                    circle.push(start.join("::"));
                    done.extend(trail.iter().copied());
                    found.push(circle);
                    stack.clear();
                    break;
                }
                if seen.insert(next) {
                    let mut longer = trail.clone();
                    longer.push(next);
                    stack.push((next, longer));
                }
            }
        }
        done.insert(start);
    }
    found
}

#[test]
fn the_checks_see_a_circle_and_a_floor_they_must_refuse() {
    // The checks themselves, on made-up input: a circle of two files is found, and a path
    // to a higher floor is read as one.
    let a = vec!["m".to_string(), "a".to_string()];
    let b = vec!["m".to_string(), "b".to_string()];
    let edges = BTreeMap::from([
        (a.clone(), BTreeSet::from([b.clone()])),
        (b.clone(), BTreeSet::from([a.clone()])),
    ]);
    assert_eq!(circles(&edges), vec![vec!["m::a", "m::b", "m::a"]]);
    let code = code_of(
        "use crate::herder::Herder; // crate::rest\n#[cfg(test)]\nmod tests { use crate::app; }",
    );
    assert_eq!(paths(&code, "crate::"), vec![vec!["herder", "Herder"]]);
    assert!(floor("herder") > floor("worker"));
}
