//! [`parse`]: a connector config read once, with the installed plugins: the framework
//! keys, the plugin `connector.class` and `connector.plugin.version` (KIP-891) choose, and
//! its tasks' settings.

use std::sync::Arc;

use super::{ConnectorConfig, Framework, Parsed, Rejected, RejectedReason, TaskSettings};
use crate::model::{Properties, RetryPolicy, VersionRequirement};

/// The key that chooses the connector plugin's version (KIP-891): a version, a Maven range
/// or `latest`; unset means the newest installed.
pub const CONNECTOR_PLUGIN_VERSION: &str = "connector.plugin.version";

use crate::worker::PluginRegistry;
use crate::worker::version_keys::no_match;

/// Parses connector `name`'s config `raw` with the installed `registry`; `defaults` is the
/// worker's task reconfiguration retry policy.
pub fn parse(
    name: &str,
    raw: &Properties,
    registry: &PluginRegistry,
    defaults: &RetryPolicy,
) -> Parsed {
    let framework = Framework::read(name, raw, defaults);
    let Some(class) = framework.class.as_deref() else {
        // The worker looks up an empty class, as it always has: the registry's message.
        let trace = registry.not_found("");
        return Err(Arc::new(Rejected { framework, reason: RejectedReason::NoClass, trace }));
    };
    let spec = raw.get(CONNECTOR_PLUGIN_VERSION).map(String::as_str);
    let requirement = match VersionRequirement::parse(spec) {
        Ok(r) => r,
        Err(e) => {
            let trace = format!("Invalid version range for connector.class: {e}");
            return Err(Arc::new(Rejected { framework, reason: RejectedReason::Version, trace }));
        }
    };
    let plugin = match registry.resolve_version(class, &requirement) {
        Ok(Some(plugin)) => plugin.clone(),
        Ok(None) => {
            let trace = registry.not_found(class);
            let reason = RejectedReason::UnknownClass;
            return Err(Arc::new(Rejected { framework, reason, trace }));
        }
        Err(installed) => {
            let what = format!("Plugin {class}");
            let trace = no_match(&what, spec.unwrap_or_default(), &installed);
            return Err(Arc::new(Rejected { framework, reason: RejectedReason::Version, trace }));
        }
    };
    Ok(Arc::new(ConnectorConfig {
        settings: TaskSettings::read(name, raw, plugin.info().kind, registry),
        plugin,
        framework,
        registry: registry.clone(),
    }))
}
