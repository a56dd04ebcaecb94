//! A rescan of the plugin path applied (`impl Herder`): the new registry published to the
//! handles, the configs it affects parsed again, and the connectors that now find their
//! plugin (or the version they ask for) started again, with their tasks. While a scan
//! loads files, it applies a registry after each file; when the scan is done, the
//! connectors held for a plugin the loading scan might have held (`apply`) start, or fail.
//!
//! Nothing that runs is stopped or restarted: an instance keeps the compiled plugin it
//! started with, even when its file is gone; the next start of a version no longer
//! installed fails with the versions that are.

use super::actor::Herder;
use crate::model::InstanceId;
use crate::worker::PluginsScanned;

impl Herder {
    /// Applies a scan of the plugin path, then answers the requests that asked for it.
    pub(super) fn plugins_scanned(&mut self, scanned: PluginsScanned) {
        let PluginsScanned { registry, report, waiters } = scanned;
        if let Some(registry) = registry {
            let was_loading = self.registry.borrow().loading().is_some();
            self.registry.send_replace(registry.clone());
            if was_loading && registry.loading().is_none() {
                // The scan is done: a connector held for a plugin it did not find starts
                // now, and fails saying what is installed if it still finds none.
                for name in self.typed.rejected() {
                    self.dirty.insert(name);
                }
            }
            if !report.added.is_empty() || !report.removed.is_empty() {
                self.plugin_changes += 1;
                let found =
                    self.typed.resync(&self.config, &registry, &self.settings.reconfiguration);
                for name in found {
                    tracing::info!(connector = %name, "The connector's plugin is installed now; starting it");
                    self.forget_failures(|i| i.connector() == name);
                    let id = InstanceId::Connector(name.clone());
                    if self.instances.is_running(&id) {
                        self.apply(super::reconcile::Action::Restart { id, shown: false });
                    }
                    self.dirty.insert(name);
                }
            }
        }
        for w in waiters {
            let _ = w.send(report.clone());
        }
    }
}

#[cfg(test)]
#[path = "plugin_changes_tests.rs"]
mod tests;
