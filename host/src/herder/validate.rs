//! Config validation before a write: the framework's keys (`connector.class`,
//! `tasks.max`, the retry and restart keys), the transformation chain (`transforms`,
//! `predicates`, `header.converter`, each class's keys), the plugin's config definition, the
//! sandbox the config asks for (file grants, addresses, `wasm.*` limits), then the
//! plugin's own `validate`. Whatever creating and starting an instance checks without
//! running it is checked here too, so that a config validate accepts does not fail at
//! start for a reason known up front. Runs in the caller's task, never on the herder loop, because
//! it calls plugin code.
//!
//! As in Kafka Connect, the config checked is the one the plugin would get: its config
//! provider references resolved. The problems and errors answered have the resolved values
//! put back as references; a reference that cannot be resolved is a problem on its key.

use super::HerderError;
use crate::config::providers::ConfigProviders;
use crate::model::{
    ConfigProblem, OverridePolicy, PluginKind, Properties, RELOAD_ACTION, RetryPolicy,
    reload_action_problem,
};
use crate::worker::PluginRegistry;
use crate::worker::connector_config::{RejectedReason, no_connector_type, parse};

/// Checks a connector name and fills `name` into the config, as Kafka Connect does.
pub fn check_name(name: &str, config: &mut Properties) -> Result<(), HerderError> {
    let name = name.trim();
    if name.is_empty() || name.chars().any(char::is_control) {
        return Err(HerderError::BadRequest(
            "Connector name must be a non-empty string without control characters".into(),
        ));
    }
    if name.len() > wasm_connect_group::protocol::MAX_STRING_LEN {
        // Group assignments carry connector names as Kafka strings (int16 length).
        return Err(HerderError::BadRequest(format!(
            "Connector name is longer than {} bytes",
            wasm_connect_group::protocol::MAX_STRING_LEN
        )));
    }
    match config.get("name") {
        Some(n) if n != name => Err(HerderError::BadRequest(format!(
            "Connector name configuration ({n}) doesn't match connector name in the URL ({name})"
        ))),
        Some(_) => Ok(()),
        None => {
            config.insert("name".into(), name.into());
            Ok(())
        }
    }
}

/// What validation needs besides the config: the installed plugins and the worker's
/// policies and providers.
#[derive(Clone, Copy)]
pub struct Rules<'a> {
    /// The installed plugins.
    pub registry: &'a PluginRegistry,
    /// The worker's reconfiguration policy.
    pub defaults: &'a RetryPolicy,
    /// The worker's client override policy.
    pub overrides: OverridePolicy,
    /// The worker's config providers.
    pub providers: &'a ConfigProviders,
}

/// Every problem with `config`, checked with its references resolved.
pub async fn validate(
    rules: Rules<'_>,
    config: &Properties,
) -> Result<Vec<ConfigProblem>, HerderError> {
    let resolved = match rules.providers.resolve_properties(config) {
        Ok(resolved) => resolved,
        Err(e) => return Ok(vec![ConfigProblem { key: e.key.clone(), message: e.to_string() }]),
    };
    if !resolved.changed() {
        return check(rules, config).await;
    }
    let scrub = |text: &str| resolved.scrub(text);
    match check(rules, &resolved.properties()).await {
        Ok(problems) => Ok(problems
            .into_iter()
            .map(|p| ConfigProblem { message: scrub(&p.message), key: p.key })
            .collect()),
        Err(HerderError::Failed(m)) => Err(HerderError::Failed(scrub(&m))),
        Err(HerderError::BadRequest(m)) => Err(HerderError::BadRequest(scrub(&m))),
        Err(other) => Err(other),
    }
}

/// Every problem with `config` as given.
async fn check(rules: Rules<'_>, config: &Properties) -> Result<Vec<ConfigProblem>, HerderError> {
    let Rules { registry, defaults, overrides, .. } = rules;
    let problem = |key: &str, message: String| ConfigProblem { key: key.into(), message };
    let name = config.get("name").map(String::as_str).unwrap_or_default();
    let typed =
        parse(name, config, registry, defaults).map_err(|rejected| match rejected.reason {
            RejectedReason::NoClass => HerderError::BadRequest(no_connector_type(config)),
            RejectedReason::UnknownClass => HerderError::Failed(rejected.trace.clone()),
        })?;
    let plugin = &typed.plugin;
    let mut problems = Vec::new();
    problems.extend(typed.framework.tasks_max_problem.clone());
    problems.extend(reload_action_problem(config.get(RELOAD_ACTION).map(String::as_str)));
    problems.extend(overrides.problems(config));
    let pairs: Vec<(String, String)> = config.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
    match typed.kind() {
        PluginKind::Sink => {
            let topics = config.get("topics").is_some_and(|t| !t.trim().is_empty());
            let regex = config.get("topics.regex").is_some_and(|t| !t.trim().is_empty());
            if topics == regex {
                problems.push(problem(
                    "topics",
                    "Must configure one of topics or topics.regex, and not both".into(),
                ));
            }
            if let Some(message) = config.get("topics.regex").and_then(|r| regex_problem(r)) {
                problems.push(problem("topics.regex", message));
            }
        }
        PluginKind::Source => {
            problems.extend(typed.settings.topic_creation.clone().err().unwrap_or_default())
        }
        PluginKind::Transform => {
            unreachable!("connector.class never resolves to a transform plugin")
        }
    }
    problems.extend(typed.settings.errors.clone().err().unwrap_or_default());
    problems.extend(typed.framework.policies.clone().err().unwrap_or_default());
    for converter in [&typed.settings.key_converter, &typed.settings.value_converter] {
        if let Some(Err(e)) = converter {
            let key = e.config_key().unwrap_or_default().to_owned();
            problems.push(ConfigProblem { key, message: e.to_string() });
        }
    }
    match &typed.settings.chain {
        Ok(chain) => problems.extend(chain.plugin_problems().await.map_err(HerderError::Failed)?),
        Err(chain_problems) => problems.extend(chain_problems.iter().cloned()),
    }
    problems.extend(plugin.info().config_def.check(&pairs));
    problems.extend(plugin.sandbox_problems(&pairs));
    let validator = plugin.validator().await.map_err(|e| HerderError::Failed(e.to_string()))?;
    let own = validator.validate(pairs).await.map_err(|e| HerderError::Failed(e.to_string()))?;
    merge(&mut problems, own);
    Ok(problems)
}

/// Why `topics.regex` would not compile when the sink task subscribes, in Kafka
/// Connect's words (its `RegexValidator`); `None` when it compiles or is empty.
fn regex_problem(pattern: &str) -> Option<String> {
    let pattern = pattern.trim();
    if pattern.is_empty() {
        return None;
    }
    let e = regex::Regex::new(pattern).err()?;
    // The parser's message spans lines (the pattern, a caret, the error): keep the error.
    let text = e.to_string();
    let reason = text.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("").trim();
    let reason = reason.strip_prefix("error: ").unwrap_or(reason);
    Some(format!("Invalid value {pattern} for configuration topics.regex: Invalid regex: {reason}"))
}

/// Adds the plugin's problems to the worker's, skipping any the worker already reported:
/// the Rust SDK checks types and required keys against the definition too, in the same
/// words, so each such problem is reported once.
fn merge(problems: &mut Vec<ConfigProblem>, own: Vec<ConfigProblem>) {
    for p in own {
        if !problems.contains(&p) {
            problems.push(p);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_plugins_repeats_of_worker_problems_are_dropped() {
        let p = |k: &str, m: &str| ConfigProblem { key: k.into(), message: m.into() };
        let mut problems = vec![p("n", "Not a number")];
        merge(&mut problems, vec![p("n", "Not a number"), p("n", "Too big"), p("m", "Bad")]);
        assert_eq!(problems, [p("n", "Not a number"), p("n", "Too big"), p("m", "Bad")]);
    }

    #[test]
    fn a_topics_regex_that_cannot_compile_is_a_problem() {
        assert_eq!(regex_problem("orders-.*|audit"), None);
        assert_eq!(regex_problem(" "), None);
        let m = regex_problem("orders-(").unwrap();
        assert!(
            m.starts_with("Invalid value orders-( for configuration topics.regex: Invalid regex: "),
            "{m}"
        );
        assert!(m.contains("unclosed group") && !m.contains('\n'), "{m}");
    }

    #[test]
    fn names_are_checked_and_filled_in() {
        let mut c = Properties::new();
        check_name("c", &mut c).unwrap();
        assert_eq!(c.get("name").unwrap(), "c");
        let mut c = Properties::from([("name".to_string(), "other".to_string())]);
        assert!(matches!(check_name("c", &mut c), Err(HerderError::BadRequest(_))));
        assert!(check_name("  ", &mut Properties::new()).is_err());
    }
}
