//! Tests of [`Loggers`]: parsing the start-up filter, listing, effective levels, setting
//! namespaces and their children, and the filter actually applied.

use super::*;
use crate::telemetry::levels::{Levels, level_name};

fn level(l: &Loggers, name: &str) -> Option<String> {
    l.get(name).map(|l| l.level)
}

/// Runs `f` with `l`'s subscriber as the default.
fn with<T>(l: &Loggers, f: impl FnOnce() -> T) -> T {
    tracing::dispatcher::with_default(l.inner.dispatch.as_ref().unwrap(), f)
}

#[test]
fn start_up_filter_is_split_into_root_names_and_extras() {
    let (state, rejected) = Levels::parse("warn, a::b=debug,c.d=trace,e,[span]=info,f=loud");
    assert_eq!(level_name(state.root.level), "WARN");
    let names: Vec<_> =
        state.explicit.iter().map(|(n, e)| (n.as_str(), level_name(e.level))).collect();
    assert_eq!(names, [("a::b", "DEBUG"), ("c::d", "TRACE"), ("e", "TRACE")]);
    assert_eq!(state.extra, ["[span]=info"]);
    assert_eq!(rejected, ["f=loud"]);
    assert_eq!(state.filter().to_string().split(',').count(), 5);
    let (state, _) = Levels::parse("wasm_connect=debug");
    assert_eq!(level_name(state.root.level), "OFF");
}

#[test]
fn list_always_has_root_and_only_explicit_levels() {
    let l = Loggers::for_tests();
    let root = LoggerLevel { level: "INFO".into(), last_modified: None };
    assert_eq!(l.list(), BTreeMap::from([(ROOT.to_owned(), root.clone())]));
    assert_eq!(l.get("root"), Some(root));
    assert_eq!(l.set("wasm_connect::herder", "debug").unwrap(), ["wasm_connect.herder"]);
    let list = l.list();
    assert_eq!(list.keys().collect::<Vec<_>>(), ["root", "wasm_connect.herder"]);
    assert_eq!(list["wasm_connect.herder"].level, "DEBUG");
    assert!(list["wasm_connect.herder"].last_modified.is_some());
    assert_eq!(list["root"].last_modified, None);
}

#[test]
fn levels_are_case_insensitive_with_log4j_aliases() {
    let l = Loggers::for_tests();
    for (given, shown) in [("fatal", "ERROR"), ("ALL", "TRACE"), ("Warn", "WARN"), ("off", "OFF")] {
        l.set("x", given).unwrap();
        assert_eq!(level(&l, "x").as_deref(), Some(shown), "{given}");
    }
    let err = l.set("x", "LOUD").unwrap_err();
    assert_eq!(err.to_string(), "invalid log level 'LOUD'.");
    assert!(matches!(l.set("a,b=trace", "INFO"), Err(LoggerError::InvalidName(_))));
    assert!(matches!(l.set("", "INFO"), Err(LoggerError::InvalidName(_))));
}

#[test]
fn set_covers_explicit_children_and_reports_them_sorted() {
    let l = Loggers::for_tests();
    l.set("a::b::c", "DEBUG").unwrap();
    l.set("a::bc", "ERROR").unwrap();
    l.set("z", "WARN").unwrap();
    assert_eq!(l.set("a.b", "TRACE").unwrap(), ["a.b", "a.b.c", "a.bc"]);
    assert_eq!(level(&l, "a::b::c").as_deref(), Some("TRACE"));
    assert_eq!(level(&l, "z").as_deref(), Some("WARN"));
    assert_eq!(l.set("root", "ERROR").unwrap(), ["a.b", "a.b.c", "a.bc", "root", "z"]);
    assert!(l.list().values().all(|v| v.level == "ERROR"));
}

#[test]
fn last_modified_moves_only_when_the_level_changes() {
    let l = Loggers::for_tests();
    l.set("a", "DEBUG").unwrap();
    let first = l.get("a").unwrap().last_modified;
    std::thread::sleep(std::time::Duration::from_millis(5));
    l.set("a", "debug").unwrap();
    assert_eq!(l.get("a").unwrap().last_modified, first);
    // Setting a namespace to the level it already has records nothing (as Kafka does).
    assert_eq!(l.set("b", "INFO").unwrap(), ["b"]);
    assert!(!l.list().contains_key("b"));
    assert_eq!(l.get("b"), Some(LoggerLevel { level: "INFO".into(), last_modified: None }));
}

#[test]
fn get_gives_effective_levels_of_seen_targets_only() {
    let l = Loggers::for_tests();
    assert_eq!(l.get("loggers_test::seen"), None);
    with(&l, || tracing::debug!(target: "loggers_test::seen::inner", "hello"));
    assert_eq!(level(&l, "loggers_test::seen").as_deref(), Some("INFO"));
    assert_eq!(level(&l, "loggers_test.seen.inner").as_deref(), Some("INFO"));
    l.set("loggers_test", "TRACE").unwrap();
    let effective = l.get("loggers_test::seen::inner").unwrap();
    assert_eq!((effective.level.as_str(), effective.last_modified), ("TRACE", None));
    assert_eq!(l.get("nothing::here"), None);
    assert_eq!(l.get("bad name"), None);
}

#[test]
fn the_applied_filter_follows_the_levels() {
    let l = Loggers::for_tests();
    let debug_on =
        || with(&l, || tracing::enabled!(target: "loggers_test::apply", tracing::Level::DEBUG));
    assert!(!debug_on());
    l.set("loggers_test::apply", "DEBUG").unwrap();
    assert!(debug_on());
    l.set("root", "WARN").unwrap();
    assert!(!debug_on());
}

#[test]
fn names_are_answered_dotted_whichever_form_was_given() {
    let l = Loggers::for_tests();
    // Kafka Connect echoes `a.b.C` as given; `tracing`'s form is shown the same way.
    assert_eq!(l.set("a.b.C", "DEBUG").unwrap(), ["a.b.C"]);
    assert_eq!(l.set("a::b::C::d", "TRACE").unwrap(), ["a.b.C.d"]);
    assert_eq!(l.list().keys().collect::<Vec<_>>(), ["a.b.C", "a.b.C.d", "root"]);
    assert_eq!(l.set("a::b", "WARN").unwrap(), ["a.b", "a.b.C", "a.b.C.d"]);
    // The levels are kept by `tracing` target: the filter matches the `::` path, and both
    // forms read the same logger back.
    let warn_only =
        || with(&l, || !tracing::enabled!(target: "a::b::C::d::e", tracing::Level::INFO));
    assert!(warn_only());
    assert_eq!(level(&l, "a.b.C.d").as_deref(), Some("WARN"));
    assert_eq!(level(&l, "a::b::C::d").as_deref(), Some("WARN"));
    // A name with a lone `:` keeps it; the shown name round-trips.
    assert_eq!(l.set("x:::y", "DEBUG").unwrap(), ["x.:y"]);
    assert_eq!(level(&l, "x.:y").as_deref(), Some("DEBUG"));
}

#[test]
fn check_refuses_what_set_refuses_and_changes_nothing() {
    let l = Loggers::for_tests();
    assert!(Loggers::check("a.b", "debug").is_ok());
    assert!(matches!(Loggers::check("a.b", "LOUD"), Err(LoggerError::InvalidLevel(_))));
    assert!(matches!(Loggers::check("a b", "DEBUG"), Err(LoggerError::InvalidName(_))));
    assert_eq!(l.list().len(), 1);
}
