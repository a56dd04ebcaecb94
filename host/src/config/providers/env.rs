//! The environment variable provider (`EnvVarConfigProvider`): keys are the names of the
//! worker process's environment variables, limited to those the `allowlist.pattern`
//! regular expression matches in full (default: all). References take no path: one with a
//! path is an error, as in Kafka.
//!
//! The pattern is compiled by the `regex` crate, whose syntax is Java's for everything
//! but look-around and back-references, which it refuses at start-up.

use std::collections::{BTreeMap, BTreeSet};

use regex::Regex;

/// The parameter's name.
pub const ALLOWLIST_PATTERN: &str = "allowlist.pattern";

/// The environment variable provider's parameters.
#[derive(Clone, Debug)]
pub struct EnvProvider {
    /// `allowlist.pattern` as written.
    pattern: String,
    /// The pattern anchored at both ends (Java's `Matcher.matches`).
    allowlist: Regex,
    /// The variables to read; `None`: the process's environment, read at each resolution.
    fixed: Option<BTreeMap<String, String>>,
}

impl EnvProvider {
    /// Reads `allowlist.pattern` (absent: every variable).
    pub fn new(pattern: Option<&str>) -> Result<Self, String> {
        let pattern = pattern.unwrap_or(".*").to_owned();
        let allowlist = Regex::new(&format!("^(?:{pattern})$")).map_err(|e| {
            let text = e.to_string();
            let reason = text.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("").trim();
            format!("not a valid regular expression: {}", reason.trim_start_matches("error: "))
        })?;
        Ok(Self { pattern, allowlist, fixed: None })
    }

    /// The same provider over the variables `vars` instead of the process's.
    #[cfg(test)]
    pub fn with_vars(mut self, vars: &[(&str, &str)]) -> Self {
        self.fixed = Some(vars.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect());
        self
    }

    /// The allowed variables among `keys`.
    pub fn get(
        &self,
        path: &str,
        keys: &BTreeSet<&str>,
    ) -> Result<BTreeMap<String, String>, String> {
        if !path.is_empty() {
            return Err(format!(
                "Path is not supported for EnvVarConfigProvider, invalid value '{path}'"
            ));
        }
        let read = |k: &str| match &self.fixed {
            Some(vars) => vars.get(k).cloned(),
            None => std::env::var(k).ok(),
        };
        Ok(keys
            .iter()
            .filter(|k| self.allowlist.is_match(k))
            .filter_map(|k| Some(((*k).to_owned(), read(k)?)))
            .collect())
    }
}

impl PartialEq for EnvProvider {
    fn eq(&self, other: &Self) -> bool {
        self.pattern == other.pattern && self.fixed == other.fixed
    }
}

impl Eq for EnvProvider {}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys<'a>(k: &[&'a str]) -> BTreeSet<&'a str> {
        k.iter().copied().collect()
    }

    #[test]
    fn only_variables_the_whole_pattern_matches() {
        let vars = [("DB_PASSWORD", "hunter2"), ("HOME", "/home/u"), ("DB_PASSWORD_OLD", "x")];
        let p = EnvProvider::new(Some("DB_[A-Z]+")).unwrap().with_vars(&vars);
        let got = p.get("", &keys(&["DB_PASSWORD", "HOME", "DB_PASSWORD_OLD", "MISSING"])).unwrap();
        assert_eq!(got, BTreeMap::from([("DB_PASSWORD".to_owned(), "hunter2".to_owned())]));
        let all = EnvProvider::new(None).unwrap().with_vars(&vars);
        assert_eq!(all.get("", &keys(&["HOME", "DB_PASSWORD_OLD"])).unwrap().len(), 2);
    }

    #[test]
    fn the_process_environment_by_default() {
        let path = std::env::var("PATH").expect("tests run with PATH set");
        let got = EnvProvider::new(None).unwrap().get("", &keys(&["PATH"])).unwrap();
        assert_eq!(got["PATH"], path);
    }

    #[test]
    fn a_path_is_an_error_and_a_bad_pattern_is_refused() {
        let e = EnvProvider::new(None).unwrap().get("/x", &keys(&["A"])).unwrap_err();
        assert_eq!(e, "Path is not supported for EnvVarConfigProvider, invalid value '/x'");
        let e = EnvProvider::new(Some("DB_(")).unwrap_err();
        assert!(e.starts_with("not a valid regular expression: ") && !e.contains('\n'), "{e}");
    }
}
