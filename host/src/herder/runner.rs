//! How the herder starts and stops instances. [`Runner`] starts one and hands back a
//! [`Running`] handle, which the herder keeps in its [`Instances`] registry; outcomes come
//! back to the loop as [`WorkerEvent`]s, never as return values. The real runner is the
//! [`Worker`]; the herder's unit tests use [`fake`], on a paused clock, without wasm.
//!
//! Only the herder's `apply` calls these traits. They start and signal; they decide
//! nothing and write no status.
//!
//! [`Instances`]: super::instances::Instances
//! [`WorkerEvent`]: crate::worker::WorkerEvent

use crate::model::TargetState;
use crate::worker::{ConnectorHandle, Parsed, TaskHandle, TaskSpec, Worker};

/// Starts instances; each start is reported later as an event tagged with `run`.
pub(crate) trait Runner: Send {
    /// Starts the connector instance of `name` with its parsed `config`.
    fn start_connector(&mut self, name: &str, config: Parsed, run: u64) -> Box<dyn Running>;
    /// Starts task `task` of `connector`.
    fn start_task(
        &mut self,
        connector: &str,
        task: u32,
        spec: TaskSpec,
        run: u64,
    ) -> Box<dyn Running>;
}

/// A started instance. Dropping it abandons the instance: it stops and reports nothing.
pub(crate) trait Running: Send {
    /// Asks it to stop; its stop is reported as an event. `false` when it is gone already
    /// (nothing will report).
    fn stop(&self) -> bool;
    /// Tells a task to pause or resume (a connector instance ignores it).
    fn set_target(&self, target: TargetState);
    /// Asks a connector instance for at most `max` task configs; `false` when it cannot
    /// be asked (gone, or a task).
    fn task_configs(&self, max: u32) -> bool;
}

impl Runner for Worker {
    fn start_connector(&mut self, name: &str, config: Parsed, run: u64) -> Box<dyn Running> {
        Box::new(Worker::start_connector(self, name, config, run))
    }

    fn start_task(
        &mut self,
        connector: &str,
        task: u32,
        spec: TaskSpec,
        run: u64,
    ) -> Box<dyn Running> {
        Box::new(Worker::start_task(self, connector, task, spec, run))
    }
}

impl Running for ConnectorHandle {
    fn stop(&self) -> bool {
        ConnectorHandle::stop(self)
    }

    fn set_target(&self, _: TargetState) {}

    fn task_configs(&self, max: u32) -> bool {
        ConnectorHandle::task_configs(self, max)
    }
}

impl Running for TaskHandle {
    fn stop(&self) -> bool {
        TaskHandle::stop(self)
    }

    fn set_target(&self, target: TargetState) {
        TaskHandle::set_target(self, target)
    }

    fn task_configs(&self, _: u32) -> bool {
        false
    }
}

#[cfg(test)]
pub(crate) mod fake;
