use std::collections::BTreeSet;
use std::time::Duration;

use wasm_connect_group::{Allocation, Assigned, AssignmentError, TaskId};

use super::*;
use crate::herder::runner::fake::FakeRunning;
use crate::model::Properties;
use crate::store::ConfigRecord;

fn state(tasks: u32, target: TargetState) -> ConfigState {
    let mut s = ConfigState::default();
    let config = Properties::from([("connector.class".to_string(), "X".to_string())]);
    s.apply(ConfigRecord::Connector { name: "c".into(), config: Some(config) });
    for task in 0..tasks {
        s.apply(ConfigRecord::Task {
            connector: "c".into(),
            task,
            config: Some(Properties::new()),
        });
    }
    s.apply(ConfigRecord::Commit { connector: "c".into(), tasks });
    s.apply(ConfigRecord::TargetState { connector: "c".into(), state: Some(target) });
    s
}

fn conn() -> InstanceId {
    InstanceId::Connector("c".into())
}

fn task(t: u32) -> InstanceId {
    InstanceId::Task("c".into(), t)
}

fn running(ids: &[InstanceId]) -> Instances {
    let mut i = Instances::default();
    for id in ids {
        let n = i.next_run();
        i.insert(id, n, Box::new(FakeRunning::default()), None);
        i.started(id, n);
    }
    i
}

fn single() -> Membership {
    Membership::single("w:1", "http://w:1")
}

#[test]
fn a_new_connector_starts_with_its_tasks() {
    let actions = plan("c", &state(2, TargetState::Started), &single(), &Instances::default());
    assert_eq!(actions, [Action::Start(conn()), Action::Start(task(0)), Action::Start(task(1))]);
}

#[test]
fn what_runs_as_wanted_is_left_alone() {
    let i = running(&[conn(), task(0)]);
    assert!(plan("c", &state(1, TargetState::Started), &single(), &i).is_empty());
    assert!(plan("c", &state(1, TargetState::Paused), &single(), &i).is_empty(), "paused runs");
}

#[test]
fn failed_instances_stay_down() {
    let mut i = running(&[]);
    i.set_failed(&conn(), true);
    i.set_failed(&task(1), true);
    let actions = plan("c", &state(2, TargetState::Started), &single(), &i);
    assert_eq!(actions, [Action::Start(task(0))]);
}

#[test]
fn a_stopped_connector_stops_everything_and_shows_stopped_once_down() {
    let i = running(&[conn(), task(0), task(1)]);
    let actions = plan("c", &state(2, TargetState::Stopped), &single(), &i);
    assert_eq!(actions, [Action::Stop(conn()), Action::Stop(task(0)), Action::Stop(task(1))]);
    let actions = plan("c", &state(0, TargetState::Stopped), &single(), &Instances::default());
    assert_eq!(actions, [Action::ShowStopped("c".into())]);
}

#[test]
fn fewer_task_configs_stop_the_extra_tasks_once() {
    let mut i = running(&[conn(), task(0), task(1), task(2)]);
    let actions = plan("c", &state(1, TargetState::Started), &single(), &i);
    assert_eq!(actions, [Action::Stop(task(1)), Action::Stop(task(2))]);
    i.run_mut(&task(1)).unwrap().phase = Phase::Stopping;
    let actions = plan("c", &state(1, TargetState::Started), &single(), &i);
    assert_eq!(actions, [Action::Stop(task(2))], "a stopping task is not stopped twice");
}

#[test]
fn a_deleted_connector_stops_what_runs_and_shows_nothing() {
    let i = running(&[conn(), task(0)]);
    let actions = plan("c", &ConfigState::default(), &single(), &i);
    assert_eq!(actions, [Action::Stop(conn()), Action::Stop(task(0))]);
}

fn member_with(connectors: &[&str], tasks: &[u32]) -> Membership {
    let mut m = Membership::group("w:1");
    let assigned = Allocation {
        connectors: connectors.iter().map(|c| c.to_string()).collect::<BTreeSet<_>>(),
        tasks: tasks.iter().map(|&task| TaskId { connector: "c".into(), task }).collect(),
    };
    m.assigned(&Assigned {
        error: AssignmentError::None,
        generation: 3,
        member_id: "w:1".into(),
        leader_url: "http://other".into(),
        is_leader: false,
        config_offset: 0,
        assigned,
        revoked: Allocation::default(),
        delay: Duration::ZERO,
        members: None,
    });
    m
}

#[test]
fn only_assigned_work_starts_and_revoked_work_stops() {
    let s = state(3, TargetState::Started);
    let actions = plan("c", &s, &member_with(&[], &[1]), &Instances::default());
    assert_eq!(actions, [Action::Start(task(1))], "neither the connector nor tasks 0 and 2");
    let i = running(&[conn(), task(0), task(1)]);
    let actions = plan("c", &s, &member_with(&[], &[1]), &i);
    assert_eq!(actions, [Action::Stop(conn()), Action::Stop(task(0))]);
}

#[test]
fn a_lost_membership_stops_everything_here() {
    let mut m = member_with(&["c"], &[0]);
    m.lost();
    let i = running(&[conn(), task(0)]);
    let actions = plan("c", &state(1, TargetState::Started), &m, &i);
    assert_eq!(actions, [Action::Stop(conn()), Action::Stop(task(0))]);
}

#[test]
fn actions_read_as_sentences() {
    assert_eq!(
        Action::Restart { id: task(2), shown: true }.to_string(),
        "restart c-2 (shown RESTARTING)"
    );
    assert_eq!(Action::ShowStopped("c".into()).to_string(), "show c STOPPED");
}
