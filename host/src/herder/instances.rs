//! The registry of this worker's instances: one entry per [`InstanceId`] holding its run
//! (run number, lifecycle phase, what to do once it has stopped, and the worker's handle),
//! whether it failed here and stays down, and the requests waiting for it to (re)start.
//!
//! It is the only map of instances: the herder reads it to plan and its `apply` changes it;
//! the worker keeps none. It decides nothing and writes no status: it records.

use std::collections::BTreeMap;

use tokio::sync::oneshot;

use super::HerderError;
use super::runner::Running;
use crate::model::InstanceId;

/// A request waiting for an instance to (re)start.
pub(super) type Waiter = oneshot::Sender<Result<(), HerderError>>;

/// The lifecycle phase of an instance this worker started.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Phase {
    /// Started; its start has not been reported yet.
    Starting,
    /// Reported started.
    Running,
    /// Asked to stop; its stop has not been reported yet.
    Stopping,
}

/// One start of an instance, until the worker reports its end.
pub(super) struct Run {
    /// The run number given to the worker; events of other runs are stale.
    pub number: u64,
    /// Where it is in its lifecycle.
    pub phase: Phase,
    /// The next intent: start it again once it has stopped (config change, restart).
    pub then_start: bool,
    /// The worker's handle on it.
    pub handle: Box<dyn Running>,
    /// The version of the plugin it was started with, for its statuses.
    pub version: Option<String>,
}

/// Everything known about one instance.
#[derive(Default)]
struct Entry {
    run: Option<Run>,
    /// It failed here and stays down until something restarts it (a restart request, a
    /// restart policy, new configs, a stop and resume): never reconciled.
    failed: bool,
    waiters: Vec<Waiter>,
}

impl Entry {
    fn is_empty(&self) -> bool {
        self.run.is_none() && !self.failed && self.waiters.is_empty()
    }
}

/// Every instance this worker runs, failed or is waited on.
#[derive(Default)]
pub(super) struct Instances {
    entries: BTreeMap<InstanceId, Entry>,
    next_run: u64,
}

impl Instances {
    fn entry(&mut self, id: &InstanceId) -> &mut Entry {
        self.entries.entry(id.clone()).or_default()
    }

    fn tidy(&mut self, id: &InstanceId) {
        if self.entries.get(id).is_some_and(Entry::is_empty) {
            self.entries.remove(id);
        }
    }

    /// A fresh run number for a start.
    pub fn next_run(&mut self) -> u64 {
        self.next_run += 1;
        self.next_run
    }

    /// The current run of `id`, if it runs here.
    pub fn run(&self, id: &InstanceId) -> Option<&Run> {
        self.entries.get(id)?.run.as_ref()
    }

    /// The current run of `id`, to change its phase or intent.
    pub fn run_mut(&mut self, id: &InstanceId) -> Option<&mut Run> {
        self.entries.get_mut(id)?.run.as_mut()
    }

    /// The phase of `id`'s run, if it runs here.
    pub fn phase(&self, id: &InstanceId) -> Option<Phase> {
        self.run(id).map(|r| r.phase)
    }

    /// Whether `id` runs here (in any phase).
    pub fn is_running(&self, id: &InstanceId) -> bool {
        self.run(id).is_some()
    }

    /// Whether `number` is the current run of `id`.
    pub fn is_current(&self, id: &InstanceId, number: u64) -> bool {
        self.run(id).is_some_and(|r| r.number == number)
    }

    /// Records a new run; a run it replaces is abandoned (its handle dropped).
    pub fn insert(
        &mut self,
        id: &InstanceId,
        number: u64,
        handle: Box<dyn Running>,
        version: Option<String>,
    ) {
        let run = Run { number, phase: Phase::Starting, then_start: false, handle, version };
        self.entry(id).run = Some(run);
    }

    /// Run `number` of `id` reported its start. Returns whether it is the current run.
    pub fn started(&mut self, id: &InstanceId, number: u64) -> bool {
        match self.run_mut(id).filter(|r| r.number == number) {
            Some(r) => {
                if r.phase == Phase::Starting {
                    r.phase = Phase::Running;
                }
                true
            }
            None => false,
        }
    }

    /// Run `number` of `id` ended (stopped or failed): returns it if it was current.
    pub fn end(&mut self, id: &InstanceId, number: u64) -> Option<Run> {
        let entry = self.entries.get_mut(id)?;
        if entry.run.as_ref().is_none_or(|r| r.number != number) {
            return None;
        }
        let run = entry.run.take();
        self.tidy(id);
        run
    }

    /// Forgets the run of `id` whose worker handle is gone (nothing will report its end).
    pub fn drop_run(&mut self, id: &InstanceId) {
        if let Some(e) = self.entries.get_mut(id) {
            e.run = None;
        }
        self.tidy(id);
    }

    /// Whether `id` failed here and stays down.
    pub fn is_failed(&self, id: &InstanceId) -> bool {
        self.entries.get(id).is_some_and(|e| e.failed)
    }

    /// Marks `id` failed (kept down) or not.
    pub fn set_failed(&mut self, id: &InstanceId, failed: bool) {
        if failed {
            self.entry(id).failed = true;
        } else if let Some(e) = self.entries.get_mut(id) {
            e.failed = false;
            self.tidy(id);
        }
    }

    /// Clears the failure of every instance `which` selects.
    pub fn forget_failures(&mut self, which: impl Fn(&InstanceId) -> bool) {
        for (id, e) in &mut self.entries {
            if which(id) {
                e.failed = false;
            }
        }
        self.entries.retain(|_, e| !e.is_empty());
    }

    /// Adds a request waiting for `id` to (re)start.
    pub fn wait(&mut self, id: &InstanceId, waiter: Waiter) {
        self.entry(id).waiters.push(waiter);
    }

    /// Answers and clears the requests waiting on `id`.
    pub fn wake(&mut self, id: &InstanceId, result: Result<(), HerderError>) {
        let Some(e) = self.entries.get_mut(id) else { return };
        for w in std::mem::take(&mut e.waiters) {
            let _ = w.send(result.clone());
        }
        self.tidy(id);
    }

    /// Answers every waiting request with `error` (shutdown).
    pub fn wake_all(&mut self, error: HerderError) {
        for e in self.entries.values_mut() {
            for w in std::mem::take(&mut e.waiters) {
                let _ = w.send(Err(error.clone()));
            }
        }
        self.entries.retain(|_, e| !e.is_empty());
    }

    /// The instances running here, in id order.
    pub fn running(&self) -> impl Iterator<Item = &InstanceId> {
        self.entries.iter().filter(|(_, e)| e.run.is_some()).map(|(id, _)| id)
    }

    /// The tasks of `connector` running here.
    pub fn tasks_of(&self, connector: &str) -> Vec<u32> {
        self.running()
            .filter_map(|id| match id {
                InstanceId::Task(c, t) if c == connector => Some(*t),
                _ => None,
            })
            .collect()
    }

    /// The connectors with an instance (connector or task) running here.
    pub fn connectors(&self) -> Vec<String> {
        let names: std::collections::BTreeSet<&str> =
            self.running().map(|id| id.connector()).collect();
        names.into_iter().map(str::to_owned).collect()
    }

    /// Whether nothing runs here.
    pub fn is_idle(&self) -> bool {
        self.running().next().is_none()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::herder::runner::fake::FakeRunning;

    fn task(t: u32) -> InstanceId {
        InstanceId::Task("c".into(), t)
    }

    #[test]
    fn only_the_current_run_starts_and_ends() {
        let mut i = Instances::default();
        let (a, b) = (i.next_run(), i.next_run());
        i.insert(&task(0), a, Box::new(FakeRunning::default()), None);
        i.insert(&task(0), b, Box::new(FakeRunning::default()), None);
        assert!(!i.started(&task(0), a), "a replaced run is stale");
        assert!(i.started(&task(0), b));
        assert_eq!(i.phase(&task(0)), Some(Phase::Running));
        assert!(i.end(&task(0), a).is_none());
        assert!(i.end(&task(0), b).is_some());
        assert!(i.is_idle());
    }

    #[test]
    fn failures_and_waiters_keep_an_entry_until_cleared() {
        let mut i = Instances::default();
        i.set_failed(&task(1), true);
        let (tx, mut rx) = oneshot::channel();
        i.wait(&task(1), tx);
        assert!(i.is_failed(&task(1)));
        i.forget_failures(|id| *id == task(1));
        assert!(!i.is_failed(&task(1)));
        i.wake(&task(1), Ok(()));
        assert!(matches!(rx.try_recv(), Ok(Ok(()))));
        assert!(i.entries.is_empty(), "an entry with nothing left is removed");
    }

    #[test]
    fn lists_running_tasks_and_connectors() {
        let mut i = Instances::default();
        for id in [task(2), task(0), InstanceId::Connector("d".into())] {
            let n = i.next_run();
            i.insert(&id, n, Box::new(FakeRunning::default()), None);
        }
        i.set_failed(&task(5), true);
        assert_eq!(i.tasks_of("c"), vec![0, 2]);
        assert_eq!(i.connectors(), vec!["c".to_string(), "d".to_string()]);
    }
}
