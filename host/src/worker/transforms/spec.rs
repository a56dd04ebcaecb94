//! [`ChainSpec`]: a connector config's `transforms` and `predicates`, read as Kafka
//! Connect's `ConnectorConfig` reads them, each alias resolved to a built-in class or a
//! transform plugin, and every problem named by its key. A transform alias runs the
//! newest installed version of its plugin that its `plugin.version` key allows (KIP-891);
//! a built-in class, or a predicate, has the worker's version only (`version_keys`).
//!
//! Kafka Connect's checks and words: duplicate aliases, a missing or unknown
//! `transforms.<a>.type`, a `negate` without a `predicate`, each class's own keys. This
//! worker also refuses what Kafka Connect would silently ignore, because a config that
//! means to mask or filter must never run without doing so: a key under
//! `transforms.<a>.` or `predicates.<p>.` that the class does not define or whose alias is
//! not listed, and a `predicate` that names no listed predicate. It builds nothing that
//! runs: `chain` does, from the spec.

use wasm_connect_transforms::config::{self, Problem};
use wasm_connect_transforms::header_converter::HeaderConverter;
use wasm_connect_transforms::registry::{self, PredicateDef, TransformDef};

use crate::model::{Config, ConfigProblem, Properties};
use crate::runtime::Plugin;

use crate::worker::PluginRegistry;
use crate::worker::version_keys::{self, PLUGIN_VERSION};

/// The keys every transform alias has besides its class's own.
const STEP_KEYS: &[&str] = &["type", PLUGIN_VERSION, "predicate", "negate"];

/// The keys every predicate alias has besides its class's own.
const PREDICATE_KEYS: &[&str] = &["type", PLUGIN_VERSION];

/// What a transform alias runs.
#[derive(Clone)]
pub enum StepClass {
    /// A built-in class.
    Builtin(&'static TransformDef),
    /// A transform plugin: the version its `plugin.version` key chose.
    Plugin(Plugin),
}

impl StepClass {
    /// The class name, as the DLQ's `class.name` header and traces show it.
    pub fn name(&self) -> &str {
        match self {
            StepClass::Builtin(d) => d.class,
            StepClass::Plugin(p) => &p.info().name,
        }
    }
}

/// One alias of `transforms`.
#[derive(Clone)]
pub struct StepSpec {
    /// The alias.
    pub alias: String,
    /// What it runs.
    pub class: StepClass,
    /// Its own keys, without the `transforms.<alias>.` prefix (and without `type`,
    /// `predicate`, `negate`).
    pub props: Config,
    /// The predicate that decides whether it applies, and `negate`.
    pub predicate: Option<(PredicateSpec, bool)>,
}

/// One alias of `predicates` used by a transform.
#[derive(Clone)]
pub struct PredicateSpec {
    /// The alias.
    pub alias: String,
    /// The class.
    pub def: &'static PredicateDef,
    /// Its own keys, without the `predicates.<alias>.` prefix and `type`.
    pub props: Config,
}

/// A connector's transformation chain, as configured.
#[derive(Clone, Default)]
pub struct ChainSpec {
    /// The aliases of `transforms`, in order.
    pub steps: Vec<StepSpec>,
    /// `header.converter`.
    pub header_converter: HeaderConverter,
}

impl ChainSpec {
    /// Reads the chain of `config`; every problem, each with its key, when it cannot be
    /// built. Checks each class's keys but not a transform plugin's own `validate`
    /// ([`ChainSpec::plugin_problems`]).
    pub fn read(config: &Properties, plugins: &PluginRegistry) -> Result<Self, Vec<ConfigProblem>> {
        let mut problems = Vec::new();
        let header_converter = match config.get("header.converter").map(|c| c.trim()) {
            None | Some("") => HeaderConverter::default(),
            Some(class) => HeaderConverter::from_class(class).unwrap_or_else(|| {
                problems.push(ConfigProblem {
                    key: "header.converter".into(),
                    message: format!(
                        "Invalid value {class} for configuration header.converter: Class {class} \
                         could not be found."
                    ),
                });
                HeaderConverter::default()
            }),
        };
        let transforms = aliases(config, "transforms", &mut problems);
        let predicates = aliases(config, "predicates", &mut problems);
        let mut predicate_specs = Vec::new();
        for alias in &predicates {
            if let Some(spec) = read_predicate(config, alias, &mut problems) {
                predicate_specs.push(spec);
            }
        }
        let mut steps = Vec::new();
        for alias in &transforms {
            if let Some(step) = read_step(config, alias, plugins, &predicate_specs, &mut problems) {
                steps.push(step);
            }
        }
        unlisted_keys(config, "transforms", &transforms, &mut problems);
        unlisted_keys(config, "predicates", &predicates, &mut problems);
        if problems.is_empty() { Ok(Self { steps, header_converter }) } else { Err(problems) }
    }

    /// The problems the transform plugins' own `validate` finds, keys prefixed.
    pub async fn plugin_problems(&self) -> Result<Vec<ConfigProblem>, String> {
        let mut out = Vec::new();
        for step in &self.steps {
            let StepClass::Plugin(plugin) = &step.class else { continue };
            let prefix = format!("transforms.{}.", step.alias);
            let validator = plugin.transform_validator().await.map_err(|e| e.to_string())?;
            let problems =
                validator.validate(step.props.clone()).await.map_err(|e| e.to_string())?;
            out.extend(
                problems.into_iter().map(|p| ConfigProblem {
                    key: format!("{prefix}{}", p.key),
                    message: p.message,
                }),
            );
        }
        Ok(out)
    }
}

/// The aliases listed under `key` (`transforms` or `predicates`), each once, in order,
/// without empty ones.
pub fn listed_aliases(config: &Properties, key: &str) -> Vec<String> {
    let mut unique: Vec<String> = Vec::new();
    for alias in config.get(key).map(String::as_str).unwrap_or_default().split(',') {
        let alias = alias.trim();
        if !alias.is_empty() && !unique.iter().any(|a| a == alias) {
            unique.push(alias.to_owned());
        }
    }
    unique
}

/// [`listed_aliases`], with Kafka Connect's problem for a duplicate and one for an empty
/// alias.
fn aliases(config: &Properties, key: &str, problems: &mut Vec<ConfigProblem>) -> Vec<String> {
    let value = config.get(key).map(|v| v.trim()).unwrap_or_default();
    let unique = listed_aliases(config, key);
    if value.is_empty() {
        return unique;
    }
    let list: Vec<&str> = value.split(',').map(str::trim).collect();
    let distinct = unique.len() + usize::from(list.contains(&""));
    if distinct < list.len() {
        problems.push(ConfigProblem {
            key: key.into(),
            message: format!(
                "Invalid value [{}] for configuration {key}: Duplicate alias provided.",
                list.join(", ")
            ),
        });
    }
    if list.contains(&"") {
        problems.push(ConfigProblem {
            key: key.into(),
            message: format!("Invalid value {value} for configuration {key}: an alias is empty"),
        });
    }
    unique
}

/// The keys under `prefix` (the prefix stripped), but those in `skip`.
fn own_keys(config: &Properties, prefix: &str, skip: &[&str]) -> Config {
    config
        .iter()
        .filter_map(|(k, v)| Some((k.strip_prefix(prefix)?, v)))
        .filter(|(k, _)| !skip.contains(k))
        .map(|(k, v)| (k.to_owned(), v.clone()))
        .collect()
}

/// `transforms.<a>.type` or `predicates.<p>.type`: `None` after a problem.
fn class_of<'a>(
    config: &'a Properties,
    key: &str,
    problems: &mut Vec<ConfigProblem>,
) -> Option<&'a str> {
    match config.get(key).map(|v| v.trim()) {
        Some(class) if !class.is_empty() => Some(class),
        _ => {
            problems.push(ConfigProblem {
                key: key.into(),
                message: format!(
                    "Missing required configuration \"{key}\" which has no default value."
                ),
            });
            None
        }
    }
}

fn not_found(key: &str, class: &str) -> ConfigProblem {
    ConfigProblem {
        key: key.into(),
        message: format!(
            "Invalid value {class} for configuration {key}: Class {class} could not be found."
        ),
    }
}

fn read_predicate(
    config: &Properties,
    alias: &str,
    problems: &mut Vec<ConfigProblem>,
) -> Option<PredicateSpec> {
    let prefix = format!("predicates.{alias}.");
    let type_key = format!("{prefix}type");
    let class = class_of(config, &type_key, problems)?;
    let Some(def) = registry::predicate(class) else {
        problems.push(not_found(&type_key, class));
        return None;
    };
    let version_key = format!("{prefix}{PLUGIN_VERSION}");
    let what = format!("Plugin {}", def.class);
    // A version problem is the key's own: the transforms that use the alias still find it.
    problems.extend(version_keys::builtin_problem(config, &version_key, &type_key, &what));
    let props = own_keys(config, &prefix, PREDICATE_KEYS);
    let parsed = check_keys(def.keys, &props, &prefix, problems)?;
    if let Err(p) = (def.build)(&parsed) {
        problems.extend(p.into_iter().map(problem));
        return None;
    }
    Some(PredicateSpec { alias: alias.to_owned(), def, props })
}

fn read_step(
    config: &Properties,
    alias: &str,
    plugins: &PluginRegistry,
    predicates: &[PredicateSpec],
    problems: &mut Vec<ConfigProblem>,
) -> Option<StepSpec> {
    let prefix = format!("transforms.{alias}.");
    let type_key = format!("{prefix}type");
    let predicate_key = format!("{prefix}predicate");
    let negate_key = format!("{prefix}negate");
    let before = problems.len();
    let negate = match config.get(&negate_key).map(|v| v.trim().to_ascii_lowercase()) {
        None => false,
        Some(v) if v == "true" => true,
        Some(v) if v == "false" => false,
        Some(v) => {
            problems.push(ConfigProblem {
                key: negate_key.clone(),
                message: format!(
                    "Invalid value {v} for configuration {negate_key}: Expected value to be either \
                     true or false"
                ),
            });
            false
        }
    };
    let predicate = match config.get(&predicate_key).map(|v| v.trim()) {
        None | Some("") => {
            if config.contains_key(&negate_key) {
                problems.push(ConfigProblem {
                    key: type_key.clone(),
                    message: format!(
                        "Config '{negate_key}' was provided but there is no config \
                         '{predicate_key}' defining a predicate to be negated."
                    ),
                });
            }
            None
        }
        Some(p) => match predicates.iter().find(|s| s.alias == p) {
            Some(spec) => Some((spec.clone(), negate)),
            None => {
                problems.push(ConfigProblem {
                    key: predicate_key.clone(),
                    message: format!(
                        "Invalid value {p} for configuration {predicate_key}: no predicate with \
                         alias '{p}' is listed in predicates"
                    ),
                });
                None
            }
        },
    };
    let class = class_of(config, &type_key, problems)?;
    let props = own_keys(config, &prefix, STEP_KEYS);
    let version_key = format!("{prefix}{PLUGIN_VERSION}");
    let class = if let Some(def) = registry::transform(class) {
        let what = format!("Plugin {}", def.class);
        if let Some(p) = version_keys::builtin_problem(config, &version_key, &type_key, &what) {
            problems.push(p);
            return None;
        }
        let parsed = check_keys(def.keys, &props, &prefix, problems)?;
        if let Err(p) = (def.build)(&parsed) {
            problems.extend(p.into_iter().map(problem));
        }
        StepClass::Builtin(def)
    } else if let Some(versions) = plugins.transform_versions(class) {
        let what = format!("Plugin {class}");
        let plugin = match version_keys::pick(config, &version_key, &type_key, &what, versions) {
            Ok(plugin) => plugin,
            Err(p) => {
                problems.push(p);
                return None;
            }
        };
        let def = &plugin.info().config_def;
        for key in props.iter().map(|(k, _)| k) {
            if !def.keys.iter().any(|d| &d.name == key) && !key.starts_with("wasm.") {
                problems.push(unknown_key(&prefix, key, plugin.info().name.as_str()));
            }
        }
        let own = def.check(&props).into_iter().chain(plugin.sandbox_problems(&props));
        problems.extend(
            own.map(|p| ConfigProblem { key: format!("{prefix}{}", p.key), message: p.message }),
        );
        StepClass::Plugin(plugin.clone())
    } else {
        problems.push(not_found(&type_key, class));
        return None;
    };
    (problems.len() == before).then(|| StepSpec {
        alias: alias.to_owned(),
        class,
        props,
        predicate,
    })
}

/// Parses a built-in class's keys, refusing keys it does not define.
fn check_keys(
    defs: &'static [config::KeyDef],
    props: &Config,
    prefix: &str,
    problems: &mut Vec<ConfigProblem>,
) -> Option<config::Parsed> {
    let class = prefix.trim_end_matches('.');
    let mut ok = true;
    for (key, _) in props {
        if !defs.iter().any(|d| d.name == key) {
            problems.push(unknown_key(prefix, key, class));
            ok = false;
        }
    }
    match config::parse(defs, props, prefix) {
        Ok(parsed) if ok => Some(parsed),
        Ok(_) => None,
        Err(p) => {
            problems.extend(p.into_iter().map(problem));
            None
        }
    }
}

fn unknown_key(prefix: &str, key: &str, what: &str) -> ConfigProblem {
    let full = format!("{prefix}{key}");
    ConfigProblem {
        message: format!("Unknown configuration '{full}': {what} defines no key '{key}'"),
        key: full,
    }
}

/// Keys under `transforms.` or `predicates.` whose alias is not listed.
fn unlisted_keys(
    config: &Properties,
    list: &str,
    aliases: &[String],
    problems: &mut Vec<ConfigProblem>,
) {
    let prefix = format!("{list}.");
    for key in config.keys() {
        let Some(rest) = key.strip_prefix(&prefix) else { continue };
        let alias = rest.split('.').next().unwrap_or_default();
        if !aliases.iter().any(|a| a == alias)
            && !aliases.iter().any(|a| rest.starts_with(&format!("{a}.")))
        {
            problems.push(ConfigProblem {
                key: key.clone(),
                message: format!(
                    "Unknown configuration '{key}': '{alias}' is not an alias listed in {list}"
                ),
            });
        }
    }
}

fn problem(p: Problem) -> ConfigProblem {
    ConfigProblem { key: p.key, message: p.message }
}
