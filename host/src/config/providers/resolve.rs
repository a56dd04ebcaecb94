//! [`ConfigProviders::resolve`]: Kafka's `ConfigTransformer.transform`. The references of
//! every value are gathered by provider and path, each provider is asked once per path for
//! the keys wanted there, and each reference is replaced by its value. A reference to a
//! provider not configured, or to a key the provider has no value for, stays as written.
//! A provider that fails (a file that cannot be read) fails the whole resolution.
//!
//! [`Resolved`] keeps which values were put in ([`Secrets`]), so that text derived from the
//! resolved config (an error, a status trace) can have them put back as the references
//! they came from ([`Secrets::scrub`]) before it is shown or logged.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use super::named::ConfigProviders;
use super::variable;
use crate::model::{Config, Properties};

/// Why a config's references could not be resolved.
#[derive(Debug, thiserror::Error)]
#[error("Could not resolve the config provider references in {key}: {reason}")]
pub struct ResolveError {
    /// The first key whose value refers to the provider and path that failed.
    pub key: String,
    /// The provider's error (it names the file or path, never a value).
    pub reason: String,
}

/// A config with its references resolved.
#[derive(Clone, Default)]
pub struct Resolved {
    values: Config,
    secrets: Secrets,
}

/// The values references were replaced by, each with its reference.
#[derive(Clone, Default)]
pub struct Secrets {
    replaced: Vec<(String, String)>,
}

impl ConfigProviders {
    /// Resolves the references in `config`'s values.
    pub fn resolve(&self, config: &[(String, String)]) -> Result<Resolved, ResolveError> {
        // (provider, path) → the keys wanted there and the first config key asking.
        let mut wanted: BTreeMap<(&str, &str), (BTreeSet<&str>, &str)> = BTreeMap::new();
        for (key, value) in config {
            for v in variable::find(value).filter(|v| self.by_name.contains_key(v.provider)) {
                wanted
                    .entry((v.provider, v.path))
                    .or_insert((BTreeSet::new(), key.as_str()))
                    .0
                    .insert(v.key);
            }
        }
        if wanted.is_empty() {
            return Ok(Resolved { values: config.to_vec(), secrets: Secrets::default() });
        }
        let mut lookups: Lookups<'_> = BTreeMap::new();
        for ((name, path), (keys, first)) in wanted {
            let provider = &self.by_name[name];
            let data = provider
                .get(path, &keys)
                .map_err(|reason| ResolveError { key: first.to_owned(), reason })?;
            lookups.entry(name).or_default().insert(path, data);
        }
        let mut replaced = Vec::new();
        let values = config
            .iter()
            .map(|(k, v)| {
                (k.clone(), variable::replace(v, |var| value(&lookups, var), &mut replaced))
            })
            .collect();
        Ok(Resolved { values, secrets: Secrets { replaced } })
    }

    /// [`Self::resolve`] over a map.
    pub fn resolve_properties(&self, config: &Properties) -> Result<Resolved, ResolveError> {
        let pairs: Config = config.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
        self.resolve(&pairs)
    }
}

/// What each provider gave, by provider and path.
type Lookups<'c> = BTreeMap<&'c str, BTreeMap<&'c str, BTreeMap<String, String>>>;

/// The value `var` resolves to, if its provider gave one.
fn value<'m>(lookups: &'m Lookups<'_>, var: &variable::Variable<'_>) -> Option<&'m str> {
    lookups.get(var.provider)?.get(var.path)?.get(var.key).map(String::as_str)
}

impl Resolved {
    /// The config with its references resolved.
    pub fn values(&self) -> &Config {
        &self.values
    }

    /// The same, as a map.
    pub fn properties(&self) -> Properties {
        self.values.iter().cloned().collect()
    }

    /// Whether any reference was replaced.
    pub fn changed(&self) -> bool {
        !self.secrets.replaced.is_empty()
    }

    /// The values put in.
    pub fn secrets(&self) -> &Secrets {
        &self.secrets
    }

    /// [`Secrets::scrub`].
    pub fn scrub(&self, text: &str) -> String {
        self.secrets.scrub(text)
    }
}

impl Secrets {
    /// These and `other`'s.
    pub fn join(mut self, other: &Secrets) -> Self {
        self.replaced.extend(other.replaced.iter().cloned());
        self
    }

    /// `text` with every value a reference was replaced by put back as that reference
    /// (the longest value first), and every other run of at least [`FRAGMENT`] bytes that
    /// also occurs in one of the values (the directory of a resolved path, in "directory
    /// … does not exist") replaced by `[hidden]`. One pass: what is put in is not scanned
    /// again. For errors and traces.
    pub fn scrub(&self, text: &str) -> String {
        let mut values: Vec<&(String, String)> =
            self.replaced.iter().filter(|(v, _)| !v.is_empty()).collect();
        if values.is_empty() {
            return text.to_owned();
        }
        values.sort_by_key(|(v, _)| std::cmp::Reverse(v.len()));
        let mut out = String::with_capacity(text.len());
        let mut at = 0;
        'scan: while let Some(c) = text[at..].chars().next() {
            for (value, reference) in &values {
                if text[at..].starts_with(value.as_str()) {
                    out.push_str(reference);
                    at += value.len();
                    continue 'scan;
                }
            }
            let mut shared = values.iter().map(|(v, _)| shared_run(&text[at..], v)).max();
            while let Some(n) = shared.filter(|&n| n > 0 && !text.is_char_boundary(at + n)) {
                shared = Some(n - 1);
            }
            match shared {
                Some(n) if n >= FRAGMENT => {
                    out.push_str("[hidden]");
                    at += n;
                }
                _ => {
                    out.push(c);
                    at += c.len_utf8();
                }
            }
        }
        out
    }
}

/// The shortest run of a resolved value's bytes that [`Secrets::scrub`] hides when it
/// shows up on its own: long enough that ordinary words and short paths (`/tmp/`) in a
/// message stay readable, short enough for any useful piece of a password or path.
pub const FRAGMENT: usize = 8;

/// The length of the longest prefix of `text` that occurs somewhere in `value`.
fn shared_run(text: &str, value: &str) -> usize {
    let (t, v) = (text.as_bytes(), value.as_bytes());
    (0..v.len())
        .map(|start| t.iter().zip(&v[start..]).take_while(|(a, b)| a == b).count())
        .max()
        .unwrap_or(0)
}

/// The references only.
impl fmt::Debug for Secrets {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let references: Vec<&str> = self.replaced.iter().map(|(_, r)| r.as_str()).collect();
        f.debug_struct("Secrets").field("references", &references).finish()
    }
}

/// Keys only: the values may be secrets.
impl fmt::Debug for Resolved {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let keys: Vec<&str> = self.values.iter().map(|(k, _)| k.as_str()).collect();
        f.debug_struct("Resolved").field("keys", &keys).finish_non_exhaustive()
    }
}
