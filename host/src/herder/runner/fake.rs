//! A fake [`Runner`] for the herder's unit tests: a well-behaved worker that reports every
//! start, stop and task-config request at once through the herder's event channel, unless
//! a test scripts a failure. Every call is logged, so a test asserts what the herder did.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex};

use tokio::sync::mpsc;

use super::{Runner, Running};
use crate::model::{InstanceId, TargetState};
use crate::worker::{Parsed, TaskConfigsError, TaskSpec, WorkerEvent};

/// What the herder asked of the fake.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Call {
    Start(InstanceId),
    Stop(InstanceId),
    Target(InstanceId, TargetState),
    TaskConfigs(String, u32),
}

/// What the fake does, shared with the test.
#[derive(Default)]
pub(crate) struct Script {
    /// Every call, in order.
    pub calls: Vec<Call>,
    /// Task configs each connector generates (one by default).
    pub tasks: BTreeMap<String, u32>,
    /// Instances whose next start fails, with the trace (a task's in its plugin's `start`,
    /// once created).
    pub fail_start: BTreeMap<InstanceId, String>,
    /// Tasks whose next start fails before they are created, with the trace.
    pub fail_create: BTreeMap<InstanceId, String>,
    /// Connectors whose task-config requests fail, retriably.
    pub fail_task_configs: BTreeSet<String>,
    /// The latest run number of each instance started.
    pub runs: BTreeMap<InstanceId, u64>,
}

/// The fake worker.
#[derive(Clone)]
pub(crate) struct FakeRunner {
    pub script: Arc<Mutex<Script>>,
    events: mpsc::UnboundedSender<WorkerEvent>,
}

impl FakeRunner {
    pub fn new(events: mpsc::UnboundedSender<WorkerEvent>) -> Self {
        Self { script: Arc::default(), events }
    }

    fn start(&self, id: InstanceId, run: u64) -> Box<dyn Running> {
        let mut script = self.script.lock().unwrap();
        script.calls.push(Call::Start(id.clone()));
        script.runs.insert(id.clone(), run);
        let created = !script.fail_create.contains_key(&id);
        let failure = script.fail_create.remove(&id).or_else(|| script.fail_start.remove(&id));
        let event = match (failure, &id) {
            (Some(trace), InstanceId::Connector(c)) => {
                WorkerEvent::ConnectorFailed { connector: c.clone(), run, trace }
            }
            (Some(trace), InstanceId::Task(c, t)) => {
                WorkerEvent::TaskFailed { connector: c.clone(), task: *t, run, trace, created }
            }
            (None, InstanceId::Connector(c)) => {
                WorkerEvent::ConnectorStarted { connector: c.clone(), run }
            }
            (None, InstanceId::Task(c, t)) => {
                WorkerEvent::TaskStarted { connector: c.clone(), task: *t, run }
            }
        };
        let _ = self.events.send(event);
        Box::new(FakeRunning {
            id: Some(id),
            run,
            script: Some(self.script.clone()),
            events: Some(self.events.clone()),
        })
    }
}

impl Runner for FakeRunner {
    fn start_connector(&mut self, name: &str, _: Parsed, run: u64) -> Box<dyn Running> {
        self.start(InstanceId::Connector(name.to_owned()), run)
    }

    fn start_task(
        &mut self,
        connector: &str,
        task: u32,
        _: TaskSpec,
        run: u64,
    ) -> Box<dyn Running> {
        self.start(InstanceId::Task(connector.to_owned(), task), run)
    }
}

/// A fake instance; the default one is inert (for registry tests).
#[derive(Default)]
pub(crate) struct FakeRunning {
    id: Option<InstanceId>,
    run: u64,
    script: Option<Arc<Mutex<Script>>>,
    events: Option<mpsc::UnboundedSender<WorkerEvent>>,
}

impl FakeRunning {
    fn log(&self, call: impl FnOnce(InstanceId) -> Call) {
        if let (Some(s), Some(id)) = (&self.script, &self.id) {
            s.lock().unwrap().calls.push(call(id.clone()));
        }
    }

    fn send(&self, event: WorkerEvent) {
        if let Some(e) = &self.events {
            let _ = e.send(event);
        }
    }
}

impl Running for FakeRunning {
    fn stop(&self) -> bool {
        self.log(Call::Stop);
        let run = self.run;
        match self.id.clone() {
            Some(InstanceId::Connector(connector)) => {
                self.send(WorkerEvent::ConnectorStopped { connector, run })
            }
            Some(InstanceId::Task(connector, task)) => {
                self.send(WorkerEvent::TaskStopped { connector, task, run })
            }
            None => {}
        }
        true
    }

    fn set_target(&self, target: TargetState) {
        self.log(|id| Call::Target(id, target));
    }

    fn task_configs(&self, max: u32) -> bool {
        let Some(InstanceId::Connector(connector)) = self.id.clone() else { return false };
        let Some(script) = &self.script else { return false };
        let result = {
            let mut s = script.lock().unwrap();
            s.calls.push(Call::TaskConfigs(connector.clone(), max));
            if s.fail_task_configs.contains(&connector) {
                Err(TaskConfigsError {
                    trace: "no database".into(),
                    retriable: true,
                    instance_lost: false,
                })
            } else {
                let n = s.tasks.get(&connector).copied().unwrap_or(1);
                Ok((0..n).map(|t| vec![("task".to_string(), t.to_string())]).collect())
            }
        };
        self.send(WorkerEvent::TaskConfigs { connector, run: self.run, result });
        true
    }
}
