//! [`parse`]: a connector config read once, with the installed plugins: the framework
//! keys, the plugin `connector.class` names and its tasks' settings.

use std::sync::Arc;

use super::{ConnectorConfig, Framework, Parsed, Rejected, RejectedReason, TaskSettings};
use crate::model::{Properties, RetryPolicy};

use crate::worker::PluginRegistry;

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
    let Some(plugin) = registry.resolve(class).cloned() else {
        let trace = registry.not_found(class);
        return Err(Arc::new(Rejected { framework, reason: RejectedReason::UnknownClass, trace }));
    };
    Ok(Arc::new(ConnectorConfig {
        settings: TaskSettings::read(name, raw, plugin.info().kind, registry),
        plugin,
        framework,
    }))
}
