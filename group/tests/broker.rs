//! The member loop against the real broker (`KAFKA_BOOTSTRAP`, default 127.0.0.1:9092):
//! joining, leading, cooperative rounds between several members, departures with and
//! without a scheduled delay, new work, losing the coordinator, and a member whose leave
//! was lost removed by [`Departures`]; joining over its
//! secure listeners (SASL_SSL with each mechanism, SSL, SASL_PLAINTEXT), and giving up
//! once on a wrong password or an untrusted certificate. Each test uses its own group;
//! none skips when the broker or a secure listener is missing.

mod support;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use support::proxy::Proxy;
use support::secure;
use support::{
    Worker, bootstrap, describe, everything, require_broker, settings, settled, unique_group, view,
    wait_for,
};
use wasm_connect_group::{
    Allocation, AssignmentError, DepartureSettings, Departures, GroupEvent, SaslMechanism, Security,
};

#[tokio::test]
async fn one_member_leads_and_runs_everything() {
    require_broker().await;
    let group = unique_group("one");
    let config = view(5, &[("a", 2), ("b", 1)]);
    let url = "http://w1:8083";
    let w1 = Worker::start(settings(&bootstrap(), &group, url, Duration::ZERO), config.clone());
    wait_for("the member to run everything", || w1.running() == everything(&config)).await;

    let assigned = w1.last_assigned().unwrap();
    assert!(assigned.is_leader);
    assert_eq!(assigned.leader_url, url);
    assert_eq!(assigned.error, AssignmentError::None);
    assert_eq!(assigned.config_offset, 5);
    assert_eq!(assigned.members, Some(BTreeMap::from([(url.to_owned(), everything(&config))])));
    let events = w1.seen.lock().unwrap().events.clone();
    assert_eq!(events.first(), Some(&GroupEvent::Rebalancing), "{events:?}");
    assert!(!events.iter().any(|e| matches!(e, GroupEvent::Lost { .. })), "{events:?}");

    w1.handle.leave().await;
    wait_for("the events to end after leave", || w1.seen.lock().unwrap().ended).await;
}

#[tokio::test]
async fn three_members_share_the_work_evenly() {
    require_broker().await;
    let group = unique_group("three");
    let config = view(10, &[("a", 3), ("b", 2), ("c", 2), ("d", 1)]);
    let workers = start_workers(&group, &config, 3, Duration::ZERO).await;
    let all: Vec<&Worker> = workers.iter().collect();
    wait_for("three members to share everything evenly", || settled(&all, &config)).await;

    // The leader's view of who runs what matches what each member runs.
    let leader = workers.iter().find(|w| w.last_assigned().unwrap().is_leader).unwrap();
    wait_for("the leader's member map to match", || {
        leader.last_assigned().unwrap().members == Some(describe(&all))
    })
    .await;
    for worker in &workers {
        let assigned = worker.last_assigned().unwrap();
        assert_eq!(assigned.leader_url, leader.url);
        assert_eq!(assigned.members.is_some(), assigned.is_leader);
    }
    leave_all(&workers).await;
}

#[tokio::test]
async fn a_departed_members_work_moves_at_once_without_delay() {
    require_broker().await;
    let group = unique_group("leave-now");
    let config = view(3, &[("a", 2), ("b", 2), ("c", 2)]);
    let workers = start_workers(&group, &config, 3, Duration::ZERO).await;
    let all: Vec<&Worker> = workers.iter().collect();
    wait_for("three members to share everything evenly", || settled(&all, &config)).await;

    let (leaving, staying) = split_off_a_follower(&workers);
    leaving.handle.leave().await;
    wait_for("the remaining members to take over everything", || settled(&staying, &config)).await;
    leave_all(&workers).await;
}

#[tokio::test]
async fn a_departed_members_work_waits_for_the_scheduled_delay() {
    require_broker().await;
    let group = unique_group("leave-delay");
    let config = view(3, &[("a", 2), ("b", 2), ("c", 2)]);
    let max_delay = Duration::from_secs(2);
    let workers = start_workers(&group, &config, 3, max_delay).await;
    let all: Vec<&Worker> = workers.iter().collect();
    wait_for("three members to share everything evenly", || settled(&all, &config)).await;

    let (leaving, staying) = split_off_a_follower(&workers);
    let departed = leaving.running();
    assert!(!departed.tasks.is_empty() || !departed.connectors.is_empty());
    let before: Vec<usize> =
        staying.iter().map(|w| w.seen.lock().unwrap().assigned.len()).collect();
    leaving.handle.leave().await;

    wait_for("a remaining member to get a positive delay", || {
        staying
            .iter()
            .zip(&before)
            .any(|(w, n)| w.seen.lock().unwrap().assigned[*n..].iter().any(|a| !a.delay.is_zero()))
    })
    .await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    for worker in &staying {
        let running = worker.running();
        assert!(
            departed.connectors.is_disjoint(&running.connectors)
                && departed.tasks.is_disjoint(&running.tasks),
            "{} took departed work before the delay: {running:?}",
            worker.url
        );
    }
    wait_for("the departed work to be reassigned after the delay", || settled(&staying, &config))
        .await;
    leave_all(&workers).await;
}

#[tokio::test]
async fn new_connectors_spread_after_the_leader_rejoins() {
    require_broker().await;
    let group = unique_group("new-work");
    let before = view(1, &[("a", 1)]);
    let workers = start_workers(&group, &before, 2, Duration::ZERO).await;
    let all: Vec<&Worker> = workers.iter().collect();
    wait_for("two members to share the first connector", || settled(&all, &before)).await;

    let after = view(2, &[("a", 1), ("b", 2), ("c", 2)]);
    for worker in &workers {
        worker.config.send_replace(after.clone());
    }
    let leader = workers.iter().find(|w| w.last_assigned().unwrap().is_leader).unwrap();
    leader.handle.rejoin("new connectors");
    wait_for("the new connectors to spread", || settled(&all, &after)).await;
    for worker in &workers {
        assert_eq!(worker.last_assigned().unwrap().config_offset, 2);
    }
    leave_all(&workers).await;
}

#[tokio::test]
async fn a_member_whose_coordinator_is_cut_off_reports_lost_and_comes_back() {
    require_broker().await;
    let proxy = Proxy::start(bootstrap()).await;
    let group = unique_group("cut");
    let config = view(1, &[("a", 2)]);
    // A session longer than any wait: Lost can only come from the failing heartbeats.
    let w1 = Worker::start(
        long_session(settings(&proxy.addr, &group, "http://w1", Duration::ZERO)),
        config.clone(),
    );
    wait_for("the member to run everything", || w1.running() == everything(&config)).await;
    let assigned_before = w1.seen.lock().unwrap().assigned.len();

    proxy.cut();
    wait_for("Lost", || !w1.seen.lock().unwrap().lost.is_empty()).await;
    assert_eq!(w1.running(), Allocation::default());

    // Still cut: retries back off, and nothing is assigned or lost again.
    tokio::time::sleep(Duration::from_secs(2)).await;
    {
        let seen = w1.seen.lock().unwrap();
        assert_eq!(seen.lost.len(), 1, "{:?}", seen.lost);
        assert_eq!(seen.assigned.len(), assigned_before);
    }

    proxy.restore();
    wait_for("the member to rejoin and run everything again", || {
        w1.running() == everything(&config)
    })
    .await;
    w1.handle.leave().await;
}

#[tokio::test]
async fn an_unreachable_broker_is_lost_once_and_retried_with_backoff() {
    // A "broker" that accepts connections and closes them at once: every attempt fails,
    // and counting the connections shows the retry rate.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let attempts = Arc::new(AtomicUsize::new(0));
    let counter = attempts.clone();
    tokio::spawn(async move {
        while let Ok((socket, _)) = listener.accept().await {
            counter.fetch_add(1, Ordering::Relaxed);
            drop(socket);
        }
    });
    let w1 = Worker::start(
        settings(&addr, &unique_group("unreachable"), "http://w1", Duration::ZERO),
        view(1, &[("a", 1)]),
    );
    tokio::time::sleep(Duration::from_secs(4)).await;
    let seen = w1.seen.lock().unwrap();
    assert!(seen.assigned.is_empty());
    assert_eq!(seen.lost.len(), 1, "{:?}", seen.lost);
    // Back-off 0.1, 0.2, 0.4, 0.8, 1, 1 s...: about seven attempts in 4 s; a hot loop
    // makes thousands.
    let attempts = attempts.load(Ordering::Relaxed);
    assert!((2..=20).contains(&attempts), "{attempts} connection attempts in 4 s");
}

#[tokio::test]
async fn a_long_outage_is_retried_at_least_once_a_second() {
    // As above, with the time of each attempt: once the back-off has reached its cap, the
    // attempts are never further apart than the cap (1 s, with room for a loaded machine),
    // so a broker that comes back is found within about a second.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let times = Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = times.clone();
    tokio::spawn(async move {
        while let Ok((socket, _)) = listener.accept().await {
            seen.lock().unwrap().push(std::time::Instant::now());
            drop(socket);
        }
    });
    let w1 = Worker::start(
        settings(&addr, &unique_group("long-outage"), "http://w1", Duration::ZERO),
        view(1, &[("a", 1)]),
    );
    tokio::time::sleep(Duration::from_secs(12)).await;
    drop(w1);
    let times = times.lock().unwrap();
    let first = times[0];
    let gaps: Vec<Duration> = times
        .windows(2)
        .filter(|w| w[0].duration_since(first) >= Duration::from_secs(2))
        .map(|w| w[1].duration_since(w[0]))
        .collect();
    let at: Vec<Duration> = times.iter().map(|t| t.duration_since(first)).collect();
    assert!(gaps.len() >= 4, "attempts at {at:?}");
    let longest = gaps.iter().max().unwrap();
    assert!(*longest < Duration::from_millis(2500), "attempts {longest:?} apart: {gaps:?}");
}

#[tokio::test]
async fn dropping_the_events_receiver_leaves_the_group() {
    require_broker().await;
    let group = unique_group("drop-events");
    let config = view(1, &[("a", 2)]);
    let w1 =
        Worker::start(settings(&bootstrap(), &group, "http://w1", Duration::ZERO), config.clone());
    wait_for("the first member to join", || w1.last_assigned().is_some()).await;
    let (config2, config2_rx) = tokio::sync::watch::channel(config.clone());
    // A session longer than any wait: only a LeaveGroup removes the member in time.
    let (_handle2, events2) = wasm_connect_group::GroupMember::spawn(
        long_session(settings(&bootstrap(), &group, "http://w2", Duration::ZERO)),
        config2_rx,
    );
    let members = || w1.last_assigned().and_then(|a| a.members).unwrap_or_default();
    wait_for("the leader to see two members", || members().len() == 2).await;

    drop(events2);
    wait_for("the leader to see one member", || members().len() == 1).await;
    wait_for("the leader to run everything", || w1.running() == everything(&config)).await;
    drop(config2);
    w1.handle.leave().await;
}

#[tokio::test]
async fn leave_does_not_wait_for_a_join_the_broker_holds() {
    require_broker().await;
    let proxy = Proxy::start(bootstrap()).await;
    let group = unique_group("held-join");
    let config = view(1, &[("a", 1)]);
    let w1 =
        Worker::start(settings(&proxy.addr, &group, "http://w1", Duration::ZERO), config.clone());
    wait_for("the first member to join", || w1.last_assigned().is_some()).await;
    // w1 can no longer rejoin: the coordinator holds w2's JoinGroup until w1's session
    // (6 s) expires.
    proxy.cut();
    let w2 = Worker::start(settings(&bootstrap(), &group, "http://w2", Duration::ZERO), config);
    wait_for("w2 to start joining", || w2.seen.lock().unwrap().rebalancing > 0).await;
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert!(w2.last_assigned().is_none(), "the join was not held");
    let left = tokio::time::timeout(Duration::from_secs(3), w2.handle.leave()).await;
    assert!(left.is_ok(), "leave waited for the held JoinGroup");
    wait_for("w2's events to end", || w2.seen.lock().unwrap().ended).await;
}

#[tokio::test]
async fn a_departure_removes_a_member_whose_own_leave_could_not_reach_the_broker() {
    require_broker().await;
    let proxy = Proxy::start(bootstrap()).await;
    let group = unique_group("departure");
    let config = view(1, &[("a", 1)]);
    let w1 = Worker::start(
        long_session(settings(&proxy.addr, &group, "http://w1", Duration::ZERO)),
        config.clone(),
    );
    wait_for("the first member to join", || w1.last_assigned().is_some()).await;
    let member_id = w1.last_assigned().unwrap().member_id;
    // w1 closes while its broker is out of reach: its LeaveGroup is lost, and the broker
    // would keep it, and hold w2's join, until its session (longer than any wait) expires.
    proxy.cut();
    let left = tokio::time::timeout(Duration::from_secs(10), w1.handle.leave()).await;
    assert!(left.is_ok(), "leave waited for the unreachable broker");
    drop(w1);
    let departures = Departures::spawn(DepartureSettings {
        bootstrap_servers: vec![bootstrap()],
        client_id: "test-departures".to_owned(),
        security: Security::default(),
        request_timeout: Duration::from_secs(5),
        give_up_after: Duration::from_secs(60),
    });
    departures.depart(&group, &member_id);
    let w2 =
        Worker::start(settings(&bootstrap(), &group, "http://w2", Duration::ZERO), config.clone());
    wait_for("the second member to run everything", || w2.running() == everything(&config)).await;
    w2.handle.leave().await;
}

#[tokio::test]
async fn members_join_over_sasl_ssl_with_each_mechanism() {
    require_broker().await;
    let addr = secure::sasl_ssl_bootstrap();
    for mechanism in SaslMechanism::ALL {
        joins_and_leaves(&addr, secure::sasl_ssl(secure::login(mechanism)), mechanism.name()).await;
    }
}

#[tokio::test]
async fn a_member_joins_over_ssl_with_and_without_a_client_certificate() {
    require_broker().await;
    let addr = secure::ssl_bootstrap();
    let tls = Security { tls: Some(secure::tls()), sasl: None };
    joins_and_leaves(&addr, tls, "ssl").await;
    let mutual = Security { tls: Some(secure::tls_with_client_certificate()), sasl: None };
    joins_and_leaves(&addr, mutual, "ssl-client-cert").await;
}

#[tokio::test]
async fn members_join_over_sasl_plaintext_with_each_mechanism() {
    require_broker().await;
    let addr = secure::sasl_plaintext_bootstrap();
    for mechanism in SaslMechanism::ALL {
        let security = Security { tls: None, sasl: Some(secure::login(mechanism)) };
        joins_and_leaves(&addr, security, mechanism.name()).await;
    }
}

#[tokio::test]
async fn a_wrong_password_is_one_fatal_event_and_the_end() {
    require_broker().await;
    let addr = secure::sasl_ssl_bootstrap();
    for mechanism in [SaslMechanism::Plain, SaslMechanism::ScramSha512] {
        let mut sasl = secure::login(mechanism);
        sasl.password = "not-the-password".to_owned();
        let reason = gives_up(&addr, secure::sasl_ssl(sasl), "wrong-password").await;
        assert!(reason.contains("SASL authentication failed"), "{reason}");
        assert!(reason.contains(mechanism.name()), "{reason}");
        assert!(!reason.contains("not-the-password"), "{reason}");
    }
}

#[tokio::test]
async fn a_login_on_a_listener_without_sasl_is_fatal() {
    require_broker().await;
    // The SSL listener has no SASL: the login is refused, not retried.
    let security = Security {
        tls: Some(secure::tls()),
        sasl: Some(secure::login(SaslMechanism::ScramSha256)),
    };
    let reason = gives_up(&secure::ssl_bootstrap(), security, "no-sasl").await;
    assert!(reason.contains("SASL authentication failed"), "{reason}");
}

#[tokio::test]
async fn an_untrusted_broker_certificate_is_one_fatal_event_and_the_end() {
    require_broker().await;
    let security = Security {
        tls: Some(secure::tls_trusting_a_stranger()),
        sasl: Some(secure::login(SaslMechanism::ScramSha256)),
    };
    let reason = gives_up(&secure::sasl_ssl_bootstrap(), security, "stranger-ca").await;
    assert!(reason.contains("certificate"), "{reason}");
    assert!(reason.contains("UnknownIssuer"), "{reason}");
}

/// One member joins through `addr` secured by `security`, runs everything and leaves.
async fn joins_and_leaves(addr: &str, security: Security, name: &str) {
    let group = unique_group(&format!("secure-{name}"));
    let config = view(1, &[("a", 2)]);
    let mut settings = settings(addr, &group, "http://w1", Duration::ZERO);
    settings.security = security;
    let w1 = Worker::start(settings, config.clone());
    wait_for(&format!("the member to run everything ({name})"), || {
        w1.running() == everything(&config)
    })
    .await;
    {
        let seen = w1.seen.lock().unwrap();
        assert!(seen.lost.is_empty() && seen.fatal.is_empty(), "{name}: {:?}", seen.events);
    }
    w1.handle.leave().await;
    wait_for("the events to end after leave", || w1.seen.lock().unwrap().ended).await;
}

/// A member through `addr` secured by `security` gives up: exactly one Fatal, nothing
/// assigned or lost, and the events end. Returns the Fatal's reason.
async fn gives_up(addr: &str, security: Security, name: &str) -> String {
    let mut settings = settings(addr, &unique_group(name), "http://w1", Duration::ZERO);
    settings.security = security;
    let w1 = Worker::start(settings, view(1, &[("a", 1)]));
    wait_for("the events to end", || w1.seen.lock().unwrap().ended).await;
    let seen = w1.seen.lock().unwrap();
    assert_eq!(seen.fatal.len(), 1, "{:?}", seen.events);
    assert!(seen.assigned.is_empty() && seen.lost.is_empty(), "{:?}", seen.events);
    assert!(matches!(seen.events.last(), Some(GroupEvent::Fatal { .. })), "{:?}", seen.events);
    seen.fatal[0].clone()
}

/// Starts `count` members in `group`; the first leads (it joins alone first).
async fn start_workers(
    group: &str,
    config: &wasm_connect_group::ConfigView,
    count: usize,
    max_delay: Duration,
) -> Vec<Worker> {
    let start = |i: usize| {
        let url = format!("http://w{i}:8083");
        Worker::start(settings(&bootstrap(), group, &url, max_delay), config.clone())
    };
    let first = start(1);
    wait_for("the first member to join", || first.last_assigned().is_some()).await;
    let mut workers = vec![first];
    workers.extend((2..=count).map(start));
    workers
}

/// A follower that runs something, and the other members.
fn split_off_a_follower(workers: &[Worker]) -> (&Worker, Vec<&Worker>) {
    let leaving = workers
        .iter()
        .find(|w| {
            let running = w.running();
            let has_work = !running.connectors.is_empty() || !running.tasks.is_empty();
            !w.last_assigned().unwrap().is_leader && has_work
        })
        .expect("a follower with work");
    let staying = workers.iter().filter(|w| w.url != leaving.url).collect();
    (leaving, staying)
}

async fn leave_all(workers: &[Worker]) {
    for worker in workers {
        worker.handle.leave().await;
    }
}

/// `settings` with a session longer than [`support::WAIT`]: a condition awaited in the test
/// cannot come true because the session expired.
fn long_session(
    mut settings: wasm_connect_group::MemberSettings,
) -> wasm_connect_group::MemberSettings {
    settings.session_timeout = support::WAIT + Duration::from_secs(15);
    settings.rebalance_timeout = settings.session_timeout;
    settings
}
