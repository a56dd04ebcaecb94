//! [`ConnectorConfig`]: a connector config whose plugin is installed, every framework key
//! read.

use std::borrow::Cow;
use std::sync::Arc;

use super::{Framework, Rejected, TaskSettings};
use crate::config::providers::Resolved;
use crate::model::{ConfigProblem, PluginKind, Properties};
use crate::runtime::{Plugin, Sandbox};
use crate::worker::PluginRegistry;

/// What parsing a connector config gives: the typed config, or why no plugin runs it.
/// Both are shared (`Arc`): the herder keeps one per connector and hands it to every
/// instance it starts.
pub type Parsed = Result<Arc<ConnectorConfig>, Arc<Rejected>>;

/// The problems of one setting, each naming its key, in the words validation shows.
pub type Problems = Vec<ConfigProblem>;

/// A connector config whose plugin is installed.
#[derive(Clone)]
pub struct ConnectorConfig {
    /// The keys read without the plugin.
    pub framework: Framework,
    /// The plugin `connector.class` resolved to (a source or a sink).
    pub plugin: Plugin,
    /// What its tasks are built with.
    pub settings: TaskSettings,
    /// The installed plugins it was parsed with: its settings are read again with them
    /// when config provider references resolve to other values.
    pub registry: PluginRegistry,
}

impl ConnectorConfig {
    /// The connector's name.
    pub fn name(&self) -> &str {
        &self.framework.name
    }

    /// `connector.class` as written.
    pub fn class(&self) -> &str {
        self.framework.class.as_deref().unwrap_or_default()
    }

    /// Source or sink.
    pub fn kind(&self) -> PluginKind {
        self.plugin.info().kind
    }

    /// The config as written.
    pub fn raw(&self) -> &Properties {
        &self.framework.raw
    }

    /// The connector instance's sandbox for its config with the references resolved
    /// (`resolved`): the config with absolute paths, its grants and limits; `Err` with the
    /// trace when a path cannot be resolved. Computed when asked, at each start, never
    /// kept: paths resolve against the file system as it is then (a directory created
    /// after the config was accepted is granted).
    pub fn sandbox(&self, resolved: &Resolved) -> Result<Sandbox, String> {
        self.plugin.connector_sandbox(resolved.values())
    }

    /// The task settings for the config with the references resolved: these when nothing
    /// was resolved, else read again from the resolved values.
    pub fn resolved_settings(&self, resolved: &Resolved) -> Cow<'_, TaskSettings> {
        if !resolved.changed() {
            return Cow::Borrowed(&self.settings);
        }
        let values = resolved.properties();
        Cow::Owned(TaskSettings::read(self.name(), &values, self.kind(), &self.registry))
    }
}

impl std::fmt::Debug for ConnectorConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ConnectorConfig")
            .field("name", &self.framework.name)
            .field("plugin", &self.plugin.info().name)
            .finish_non_exhaustive()
    }
}
