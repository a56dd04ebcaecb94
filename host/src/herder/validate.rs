//! Config validation before a write: the framework's keys (`connector.class`,
//! `tasks.max`, the retry and restart keys), the transformation chain (`transforms`,
//! `predicates`, `header.converter`, each class's keys), the plugin's config definition, the
//! sandbox the config asks for (file grants, addresses, `wasm.*` limits), then the
//! plugin's own `validate`; for a source, the exactly-once keys and their preflight checks
//! (`exactly_once`). Whatever creating and starting an instance checks without
//! running it is checked here too, so that a config validate accepts does not fail at
//! start for a reason known up front. Runs in the caller's task, never on the herder loop, because
//! it calls plugin code.
//!
//! As in Kafka Connect, the config checked is the one the plugin would get: its config
//! provider references resolved. The problems and errors answered have the resolved values
//! put back as references; a reference that cannot be resolved is a problem on its key.

use super::HerderError;
use super::exactly_once;
use crate::config::providers::ConfigProviders;
use crate::model::{
    ConfigProblem, ExactlyOnceSourceSupport, OverridePolicy, PluginKind, Properties, RELOAD_ACTION,
    RetryPolicy, reload_action_problem,
};
use crate::store::{ConfigRecord, StoreError};
use crate::worker::PluginRegistry;
use crate::worker::connector_config::{
    CONNECTOR_PLUGIN_VERSION, RejectedReason, no_connector_type, parse,
};

/// The longest connector name, percent-encoded, that every REST path of the connector can
/// carry: the listener refuses a request target over 65,534 bytes (hyper's limit, answered
/// 414), and the longest path around a name
/// (`/connectors/{name}/restart?includeTasks=true&onlyFailed=true`, a task's restart, a
/// forwarded request's query) takes well under the 1,534 bytes left.
pub const MAX_ENCODED_NAME: usize = 64_000;

/// The length of `name` percent-encoded as a path segment by a client that keeps only
/// RFC 3986's unreserved characters: each other byte takes three (`%E2%98%83`).
pub fn encoded_len(name: &str) -> usize {
    name.bytes()
        .map(|b| if b.is_ascii_alphanumeric() || b"-._~".contains(&b) { 1 } else { 3 })
        .sum()
}

/// Checks a connector name and fills `name` into the config, as Kafka Connect does. A
/// name that could not be addressed in a URL afterwards ([`MAX_ENCODED_NAME`]) is refused.
pub fn check_name(name: &str, config: &mut Properties) -> Result<(), HerderError> {
    let name = name.trim();
    if name.is_empty() || name.chars().any(char::is_control) {
        return Err(HerderError::BadRequest(
            "Connector name must be a non-empty string without control characters".into(),
        ));
    }
    let encoded = encoded_len(name);
    if encoded > MAX_ENCODED_NAME {
        return Err(HerderError::BadRequest(format!(
            "Connector name is too long to address: percent-encoded in a URL it takes {encoded} \
             bytes, more than {MAX_ENCODED_NAME} (the REST listener refuses request targets \
             over 65534 bytes)"
        )));
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

/// Checks that connector `name`'s config fits in one config-topic record
/// ([`MAX_CONFIG_RECORD_BYTES`](crate::store::MAX_CONFIG_RECORD_BYTES)), on every backend.
pub fn check_size(name: &str, config: &Properties) -> Result<(), HerderError> {
    let record = ConfigRecord::Connector { name: name.to_owned(), config: Some(config.clone()) };
    match record.oversized() {
        Some(StoreError::RecordTooLarge { size, max, .. }) => {
            Err(HerderError::BadRequest(format!(
                "Connector configuration is too large: it takes {size} bytes as stored, more than the \
             {max} a config record may take (Kafka's config topic refuses records over its \
             max.message.bytes)"
            )))
        }
        _ => Ok(()),
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
    /// The worker's `exactly.once.source.support`, for a source's `exactly.once.support`.
    pub exactly_once: ExactlyOnceSourceSupport,
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
    let Rules { registry, defaults, overrides, exactly_once: eos, .. } = rules;
    let problem = |key: &str, message: String| ConfigProblem { key: key.into(), message };
    let name = config.get("name").map(String::as_str).unwrap_or_default();
    let typed = match parse(name, config, registry, defaults) {
        Ok(typed) => typed,
        Err(rejected) => {
            return match rejected.reason {
                RejectedReason::NoClass => Err(HerderError::BadRequest(no_connector_type(config))),
                RejectedReason::UnknownClass => Err(HerderError::Failed(rejected.trace.clone())),
                // As Kafka Connect: a problem of the version key, in the validate answer.
                RejectedReason::Version => {
                    Ok(vec![problem(CONNECTOR_PLUGIN_VERSION, rejected.trace.clone())])
                }
            };
        }
    };
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
            problems.extend(typed.settings.topic_creation.clone().err().unwrap_or_default());
            problems.extend(exactly_once::value_problems(config));
        }
        PluginKind::Transform => {
            unreachable!("connector.class never resolves to a transform plugin")
        }
    }
    problems.extend(typed.settings.errors.clone().err().unwrap_or_default());
    problems.extend(typed.framework.policies.clone().err().unwrap_or_default());
    problems.extend(typed.settings.converter_versions.iter().cloned());
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
    if typed.kind() == PluginKind::Source {
        let found = exactly_once::preflight(eos, config, &problems, &validator).await;
        problems.extend(found);
    }
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

    #[test]
    fn names_that_no_url_could_carry_are_refused() {
        // 10,000 snowmen: 30,000 bytes, 90,000 percent-encoded.
        let snowmen = "\u{2603}".repeat(10_000);
        assert_eq!(encoded_len(&snowmen), 90_000);
        let Err(HerderError::BadRequest(m)) = check_name(&snowmen, &mut Properties::new()) else {
            panic!("accepted");
        };
        assert!(m.contains("90000 bytes, more than 64000"), "{m}");
        let longest = "\u{2603}".repeat(MAX_ENCODED_NAME / 9);
        assert!(check_name(&longest, &mut Properties::new()).is_ok());
        assert_eq!(encoded_len("a-b_c.d~e f"), 13);
    }
}
