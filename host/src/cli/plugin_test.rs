//! `wasm-connect plugins test FILE.wasm [--config CONNECTOR]`: runs the conformance
//! checks of [`crate::conformance`] against one component and prints a table of
//! CHECK, RESULT and DETAIL, then `N passed, M failed, K skipped`.
//!
//! Exit status: 0 when no check failed, 1 when one did, 2 when the file or the config
//! cannot be used at all (one line on stderr, no table). This module owns the command's
//! input and output only; the checks live in `conformance`.

use std::path::Path;
use std::process::ExitCode;

use super::table;
use crate::config::read_connector_file;
use crate::conformance::{self, Report, Subject};
use crate::model::PluginKind;
use crate::runtime::Runtime;

/// Exit status when the plugin file or the config file cannot be used.
const UNUSABLE: u8 = 2;

/// Runs the kit against `file`, with the connector config in `config` if given.
pub async fn run(runtime: &Runtime, file: &Path, config: Option<&Path>) -> ExitCode {
    let user = match config.map(read_connector_file).transpose() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(UNUSABLE);
        }
    };
    let plugin = match runtime.load(file).await {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(UNUSABLE);
        }
    };
    let info = plugin.info();
    // A transform is checked with its own keys: those of the alias that names it, when the
    // file is a connector config with `transforms.<alias>.*`.
    let user = match info.kind {
        PluginKind::Transform => user.map(|(name, c)| (name, transform_keys(&info.name, c))),
        _ => user,
    };
    let subject = Subject::new(&info.name, info.kind, &info.config_def, user);
    println!(
        "{} {} ({}, {}) from {}",
        info.name,
        info.version,
        info.kind,
        info.language,
        file.display()
    );
    if !subject.missing.is_empty() {
        println!("config: missing required keys {}", subject.missing.join(", "));
    }
    println!();
    let report = conformance::run(plugin, subject).await;
    print!("{}", render(&report));
    if report.passed() { ExitCode::SUCCESS } else { ExitCode::FAILURE }
}

/// The keys of the alias of `config` whose `transforms.<alias>.type` names `plugin`,
/// without the prefix (and without `type`, `predicate`, `negate`); `config` as it is when
/// no alias names it.
fn transform_keys(plugin: &str, config: Vec<(String, String)>) -> Vec<(String, String)> {
    let simple = plugin.rsplit('.').next().unwrap_or(plugin);
    let alias = config.iter().find_map(|(k, v)| {
        let alias = k.strip_prefix("transforms.")?.strip_suffix(".type")?;
        (v.trim() == plugin || v.trim() == simple).then(|| alias.to_owned())
    });
    let Some(alias) = alias else { return config };
    let prefix = format!("transforms.{alias}.");
    config
        .into_iter()
        .filter_map(|(k, v)| Some((k.strip_prefix(&prefix)?.to_owned(), v)))
        .filter(|(k, _)| !["type", "predicate", "negate"].contains(&k.as_str()))
        .collect()
}

/// The table and the summary line.
fn render(report: &Report) -> String {
    let rows: Vec<Vec<String>> = report
        .rows
        .iter()
        .map(|r| vec![r.check.to_owned(), r.outcome.to_string(), r.detail.clone()])
        .collect();
    let mut out = table::render(&["CHECK", "RESULT", "DETAIL"], &rows);
    out.push('\n');
    out.push_str(&report.summary());
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::conformance::Finding;

    #[test]
    fn a_transform_is_checked_with_its_aliases_keys() {
        let pairs = |p: &[(&str, &str)]| -> Vec<(String, String)> {
            p.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
        };
        let config = pairs(&[
            ("connector.class", "FileStreamSink"),
            ("transforms", "t"),
            ("transforms.t.type", "Redact"),
            ("transforms.t.redact.fields", "ssn"),
            ("transforms.t.negate", "false"),
        ]);
        assert_eq!(transform_keys("Redact", config.clone()), pairs(&[("redact.fields", "ssn")]));
        assert_eq!(transform_keys("Other", config.clone()), config);
    }

    #[test]
    fn the_table_ends_with_the_summary() {
        let report = Report {
            rows: vec![
                Finding::pass("fine").into_row("lifecycle order", Duration::from_millis(3)),
                Finding::fail("bad").into_row("clean stop", Duration::from_millis(4)),
            ],
        };
        let text = render(&report);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "CHECK            RESULT  DETAIL");
        assert_eq!(lines[1], "lifecycle order  PASS    fine (3 ms)");
        assert_eq!(lines[2], "clean stop       FAIL    bad (4 ms)");
        assert_eq!(lines.last(), Some(&"1 passed, 1 failed, 0 skipped"));
    }
}
