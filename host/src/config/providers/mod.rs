//! Config providers (KIP-297), with Kafka's names and behaviour: the worker file's
//! `config.providers` keys name providers ([`ConfigProviders`]: Kafka's
//! `FileConfigProvider`, `EnvVarConfigProvider` and `DirectoryConfigProvider`), and
//! connector config values refer to them as `${provider:path:key}` or `${provider:key}`.
//!
//! This module owns the syntax, the three providers and resolution
//! ([`ConfigProviders::resolve`]), and the reverse transform of task configs
//! ([`reverse_transform`]). It decides nothing about when to resolve: the worker resolves a
//! connector's config and its tasks' configs when it hands them to the plugin (and the
//! clients, converters and transforms built for it), validation resolves the config it
//! checks; what is stored, answered over REST or logged stays as written. A resolved
//! value never reaches a log line or an error from here: errors name keys, files and
//! paths, and [`Resolved`]'s `Debug` shows keys only.
//!
//! Kafka's three providers give values without a time to live, so nothing is reloaded:
//! a changed file or directory is read again when the connector or task starts again.
//!
//! Layout: `variable` (the pattern), `named` ([`ConfigProviders`] from the worker keys),
//! `provider` (the class names), `file`, `directory`, `env` (the providers),
//! `allowed_paths`, `resolve` ([`Resolved`]), `reverse`.

mod allowed_paths;
mod directory;
mod env;
mod file;
mod named;
mod provider;
mod resolve;
mod reverse;
mod variable;

pub use allowed_paths::AllowedPaths;
pub use directory::DirectoryProvider;
pub use env::EnvProvider;
pub use file::FileProvider;
pub use named::{CONFIG_PROVIDERS, ConfigProviders};
pub use provider::Provider;
pub use resolve::{ResolveError, Resolved, Secrets};
pub use reverse::reverse_transform;
pub use variable::has_variables;

#[cfg(test)]
mod tests;
