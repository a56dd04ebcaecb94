//! Assignor tests: rounds are simulated by applying each plan to the members' allocations,
//! checking on the way that no work is ever handed to a member while another runs it.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use proptest::prelude::*;

use super::*;

/// Kafka Connect's default `scheduled.rebalance.max.delay.ms`.
const MAX_DELAY: Duration = Duration::from_secs(300);

/// A group driven round by round.
struct Sim {
    state: AssignorState,
    now: Instant,
    max_delay: Duration,
    configured: BTreeMap<String, u32>,
    members: BTreeMap<String, Allocation>,
    next_id: u32,
}

impl Sim {
    fn new(max_delay: Duration, members: &[&str]) -> Self {
        let members = members.iter().map(|m| (m.to_string(), Allocation::default())).collect();
        let (state, now, configured) = (AssignorState::default(), Instant::now(), BTreeMap::new());
        Sim { state, now, max_delay, configured, members, next_id: 0 }
    }

    /// A group of `members` running `connectors` connectors of `tasks` tasks each, settled.
    fn settled(max_delay: Duration, members: &[&str], connectors: u32, tasks: u32) -> Self {
        let mut sim = Sim::new(max_delay, members);
        for c in 0..connectors {
            sim.configured.insert(format!("c{c:02}"), tasks);
        }
        sim.settle();
        sim
    }

    fn join(&mut self) -> String {
        self.next_id += 1;
        let id = format!("m{:03}", self.next_id);
        self.members.insert(id.clone(), Allocation::default());
        id
    }

    fn elapse(&mut self, by: Duration) {
        self.now += by;
    }

    /// One rebalance, applied to the members.
    fn round(&mut self) -> Plan {
        let plan = self.state.assign(self.now, self.max_delay, &self.configured, &self.members);
        assert!(plan.members.keys().eq(self.members.keys()), "{plan:?}");
        let running = union(self.members.values());
        let mut handed_out = Allocation::default();
        for (member, change) in &plan.members {
            let allocation = self.members.get_mut(member).unwrap();
            assert!(change.revoked.connectors.is_subset(&allocation.connectors), "{plan:?}");
            assert!(change.revoked.tasks.is_subset(&allocation.tasks), "{plan:?}");
            for c in &change.assigned.connectors {
                assert!(!running.connectors.contains(c), "{c} runs elsewhere: {plan:?}");
                assert!(handed_out.connectors.insert(c.clone()), "{c} assigned twice");
            }
            for t in &change.assigned.tasks {
                assert!(!running.tasks.contains(t), "{t:?} runs elsewhere: {plan:?}");
                assert!(handed_out.tasks.insert(t.clone()), "{t:?} assigned twice");
            }
            allocation.apply(&change.revoked, &change.assigned);
        }
        plan
    }

    /// Rounds as members would run them (again at once after revocations, after the delay
    /// when there is one) until one changes nothing; returns how many changed something.
    fn settle(&mut self) -> usize {
        for rounds in 0..20 {
            let plan = self.round();
            if is_empty(&plan) {
                return rounds;
            }
            self.elapse(plan.delay);
        }
        panic!("no stable assignment after 20 rounds: {:?}", self.members);
    }

    /// Everything configured runs exactly once, and members' loads differ by one at most.
    fn assert_complete_and_balanced(&self) {
        let (connectors, tasks) = configured_work(&self.configured);
        let all = self.members.values();
        let mut running_connectors: Vec<_> = all.clone().flat_map(|a| &a.connectors).collect();
        let mut running_tasks: Vec<_> = all.clone().flat_map(|a| &a.tasks).collect();
        running_connectors.sort();
        running_tasks.sort();
        assert!(running_connectors.into_iter().eq(&connectors), "{:?}", self.members);
        assert!(running_tasks.into_iter().eq(&tasks), "{:?}", self.members);
        for count in [|a: &Allocation| a.connectors.len(), |a: &Allocation| a.tasks.len()] {
            let (min, max) = (all.clone().map(count).min(), all.clone().map(count).max());
            assert!(max.unwrap() - min.unwrap() <= 1, "unbalanced: {:?}", self.members);
        }
    }
}

fn is_empty(plan: &Plan) -> bool {
    plan.delay.is_zero() && plan.members.values().all(|p| *p == MemberPlan::default())
}

fn assigned(plan: &Plan) -> Allocation {
    union(plan.members.values().map(|p| &p.assigned))
}

fn revoked(plan: &Plan) -> Allocation {
    union(plan.members.values().map(|p| &p.revoked))
}

fn task(connector: &str, task: u32) -> TaskId {
    TaskId { connector: connector.into(), task }
}

#[test]
fn spreads_work_evenly_over_any_number_of_members() {
    let ids = ["a", "b", "c", "d", "e", "f", "g"];
    for n in 1..=ids.len() {
        let mut sim = Sim::new(MAX_DELAY, &ids[..n]);
        for c in 0..11 {
            sim.configured.insert(format!("c{c:02}"), c % 5);
        }
        assert_eq!(sim.settle(), 1, "{n} members: one round assigns everything");
        sim.assert_complete_and_balanced();
    }
}

#[test]
fn a_stable_group_gets_an_empty_plan() {
    let mut sim = Sim::settled(MAX_DELAY, &["a", "b", "c"], 7, 3);
    assert!(is_empty(&sim.round()));
    assert!(is_empty(&sim.round()));
}

#[test]
fn a_joining_member_gets_revoked_work_in_the_next_round() {
    let mut sim = Sim::settled(MAX_DELAY, &["a", "b", "c"], 12, 2);
    let d = sim.join();
    let first = sim.round();
    assert_eq!(first.delay, Duration::ZERO);
    assert_eq!(assigned(&first), Allocation::default(), "nothing handed out while revoking");
    assert_eq!((revoked(&first).connectors.len(), revoked(&first).tasks.len()), (3, 6));
    let second = sim.round();
    assert_eq!(second.members[&d].assigned, revoked(&first));
    assert_eq!(revoked(&second), Allocation::default());
    sim.assert_complete_and_balanced();
    assert!(is_empty(&sim.round()));
}

#[test]
fn a_departed_members_work_waits_for_the_delay() {
    let mut sim = Sim::settled(MAX_DELAY, &["a", "b", "c"], 6, 2);
    let lost = sim.members.remove("c").unwrap();
    let plan = sim.round();
    assert_eq!((plan.delay, assigned(&plan)), (MAX_DELAY, Allocation::default()));
    sim.elapse(Duration::from_secs(100));
    let plan = sim.round();
    assert_eq!((plan.delay, assigned(&plan)), (Duration::from_secs(200), Allocation::default()));
    sim.elapse(Duration::from_secs(200) - Duration::from_nanos(1));
    assert_eq!(sim.round().delay, Duration::from_millis(1), "never rounded down to no delay");
    sim.elapse(Duration::from_nanos(1));
    let plan = sim.round();
    assert_eq!((plan.delay, assigned(&plan)), (Duration::ZERO, lost));
    sim.settle();
    sim.assert_complete_and_balanced();
}

#[test]
fn a_returning_member_gets_its_work_back() {
    let mut sim = Sim::settled(MAX_DELAY, &["a", "b", "c"], 6, 2);
    let lost = sim.members.remove("c").unwrap();
    assert_eq!(sim.round().delay, MAX_DELAY);
    sim.elapse(Duration::from_secs(10));
    let back = sim.join();
    let plan = sim.round();
    assert_eq!((plan.delay, assigned(&plan)), (Duration::from_secs(290), Allocation::default()));
    sim.elapse(plan.delay);
    let plan = sim.round();
    assert_eq!(plan.members[&back].assigned, lost);
    assert_eq!(sim.settle(), 0);
    sim.assert_complete_and_balanced();
}

#[test]
fn no_delay_reassigns_at_once() {
    let mut sim = Sim::settled(Duration::ZERO, &["a", "b", "c"], 6, 2);
    let lost = sim.members.remove("c").unwrap();
    let plan = sim.round();
    assert_eq!((plan.delay, assigned(&plan)), (Duration::ZERO, lost));
    sim.assert_complete_and_balanced();
}

#[test]
fn work_dropped_without_a_departure_is_reassigned_at_once() {
    let mut sim = Sim::settled(MAX_DELAY, &["a", "b"], 2, 2);
    let dropped = sim.members["a"].tasks.first().unwrap().clone();
    sim.members.get_mut("a").unwrap().tasks.remove(&dropped);
    let plan = sim.round();
    assert_eq!(plan.delay, Duration::ZERO);
    assert!(assigned(&plan).tasks.contains(&dropped));
    sim.assert_complete_and_balanced();
}

#[test]
fn deleted_connectors_and_tasks_are_revoked_from_every_holder() {
    let mut sim = Sim::settled(MAX_DELAY, &["a", "b", "c"], 3, 4);
    sim.configured.remove("c00");
    sim.configured.insert("c01".into(), 1);
    let plan = sim.round();
    let mut want = Allocation::default();
    want.connectors.insert("c00".into());
    want.tasks.extend((0..4).map(|t| task("c00", t)).chain((1..4).map(|t| task("c01", t))));
    assert_eq!(revoked(&plan), want);
    let holders = plan.members.values().filter(|p| !p.revoked.tasks.is_empty()).count();
    assert!(holders > 1, "the tasks ran on several members: {plan:?}");
    sim.settle();
    sim.assert_complete_and_balanced();
}

#[test]
fn work_reported_twice_is_revoked_from_both_and_reassigned_once() {
    let mut sim = Sim::settled(MAX_DELAY, &["a", "b"], 2, 2);
    let b = sim.members["b"].clone();
    sim.members.get_mut("a").unwrap().tasks.extend(b.tasks.iter().cloned());
    let plan = sim.round();
    assert_eq!(plan.members["a"].revoked.tasks, b.tasks);
    assert_eq!(plan.members["b"].revoked.tasks, b.tasks);
    let plan = sim.round();
    assert_eq!(assigned(&plan).tasks, b.tasks);
    sim.settle();
    sim.assert_complete_and_balanced();
}

#[test]
fn consecutive_revoking_rounds_back_off() {
    let mut sim = Sim::settled(MAX_DELAY, &["a", "b"], 1, 60);
    sim.join();
    assert!(!revoked(&sim.round()).tasks.is_empty());
    sim.join(); // before the second cooperative round: it must revoke again
    let plan = sim.round();
    assert_eq!((plan.delay, revoked(&plan)), (Duration::from_millis(40), Allocation::default()));
    sim.elapse(Duration::from_millis(20));
    assert_eq!(sim.round().delay, Duration::from_millis(20));
    sim.elapse(Duration::from_millis(20));
    assert!(!revoked(&sim.round()).tasks.is_empty(), "the backoff has passed");
    sim.join();
    let plan = sim.round();
    assert_eq!((plan.delay, revoked(&plan)), (Duration::from_millis(1600), Allocation::default()));
    sim.settle();
    sim.assert_complete_and_balanced();
}

#[test]
fn no_delay_revokes_in_consecutive_rounds() {
    let mut sim = Sim::settled(Duration::ZERO, &["a", "b"], 1, 12);
    sim.join();
    assert!(!revoked(&sim.round()).tasks.is_empty());
    sim.join();
    let plan = sim.round();
    assert_eq!(plan.delay, Duration::ZERO);
    assert!(!revoked(&plan).tasks.is_empty());
}

#[test]
fn forgetting_reassigns_lost_work_as_new() {
    let mut sim = Sim::settled(MAX_DELAY, &["a", "b", "c"], 3, 3);
    sim.members.remove("c");
    assert_eq!(sim.round().delay, MAX_DELAY);
    sim.state.forget();
    assert_eq!(sim.state.assignment(), None);
    let plan = sim.round();
    assert_eq!(plan.delay, Duration::ZERO);
    sim.settle();
    sim.assert_complete_and_balanced();
    assert_eq!(sim.state.assignment(), Some(&sim.members));
}

/// A change to the group or its configuration.
#[derive(Clone, Debug)]
enum Op {
    Join,
    Leave(usize),
    Put(u8, u32),
    Delete(usize),
    Forget,
    Elapse(u64),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        2 => Just(Op::Join),
        2 => any::<usize>().prop_map(Op::Leave),
        3 => (0u8..8, 0u32..6).prop_map(|(c, n)| Op::Put(c, n)),
        1 => any::<usize>().prop_map(Op::Delete),
        1 => Just(Op::Forget),
        2 => (0u64..400_000).prop_map(Op::Elapse),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn random_histories_stay_exclusive_and_settle_balanced(
        max_delay_ms in prop_oneof![Just(0u64), Just(1_000), Just(300_000)],
        ops in proptest::collection::vec(op(), 1..40),
    ) {
        let mut sim = Sim::new(Duration::from_millis(max_delay_ms), &[]);
        sim.join();
        for op in ops {
            let pick = |i: usize, len: usize| i % len;
            match op {
                Op::Join => {
                    sim.join();
                }
                Op::Leave(i) if sim.members.len() > 1 => {
                    let id = sim.members.keys().nth(pick(i, sim.members.len())).unwrap().clone();
                    sim.members.remove(&id);
                }
                Op::Leave(_) => {}
                Op::Put(c, n) => {
                    sim.configured.insert(format!("c{c}"), n);
                }
                Op::Delete(i) if !sim.configured.is_empty() => {
                    let c = sim.configured.keys().nth(pick(i, sim.configured.len())).unwrap();
                    let c = c.clone();
                    sim.configured.remove(&c);
                }
                Op::Delete(_) => {}
                Op::Forget => sim.state.forget(),
                Op::Elapse(ms) => sim.elapse(Duration::from_millis(ms)),
            }
            let plan = sim.round();
            if !revoked(&plan).connectors.is_empty() || !revoked(&plan).tasks.is_empty() {
                sim.round(); // the second cooperative round
            }
        }
        sim.settle();
        sim.assert_complete_and_balanced();
        prop_assert!(is_empty(&sim.round()));
    }
}
