//! Version keys as Kafka Connect reads them (`PluginUtils.connectorVersionRequirement` over
//! Maven's `VersionRange`).

use super::*;

fn versions(list: &[&str]) -> Vec<PluginVersion> {
    list.iter().map(|s| PluginVersion::parse(s)).collect()
}

fn pick(spec: Option<&str>, installed: &[&str]) -> Option<String> {
    let installed = versions(installed);
    let req = VersionRequirement::parse(spec).unwrap();
    req.pick(&installed).map(|v| v.to_string())
}

const INSTALLED: [&str; 5] = ["1.0.0", "1.1.0", "1.5.2", "2.0.0-rc1", "2.0.0"];

#[test]
fn unset_and_latest_pick_the_newest() {
    assert_eq!(pick(None, &INSTALLED).as_deref(), Some("2.0.0"));
    assert_eq!(pick(Some("latest"), &INSTALLED).as_deref(), Some("2.0.0"));
    assert_eq!(pick(None, &[]), None);
}

#[test]
fn a_bare_version_is_exactly_that_version() {
    assert_eq!(pick(Some("1.1.0"), &INSTALLED).as_deref(), Some("1.1.0"));
    assert_eq!(pick(Some(" 1.1 "), &INSTALLED).as_deref(), Some("1.1.0"), "1.1 = 1.1.0");
    assert_eq!(pick(Some("1.2.0"), &INSTALLED), None, "not installed");
}

#[test]
fn ranges_pick_the_newest_inside() {
    assert_eq!(pick(Some("[1.0,2.0)"), &INSTALLED).as_deref(), Some("2.0.0-rc1"));
    assert_eq!(pick(Some("[1.0,1.5.2)"), &INSTALLED).as_deref(), Some("1.1.0"));
    assert_eq!(pick(Some("[1.0,1.5.2]"), &INSTALLED).as_deref(), Some("1.5.2"));
    assert_eq!(pick(Some("(1.0.0,1.1.0]"), &INSTALLED).as_deref(), Some("1.1.0"));
    assert_eq!(pick(Some("(1.0.0,1.1.0)"), &INSTALLED), None, "an empty range");
    assert_eq!(pick(Some("(,1.1]"), &INSTALLED).as_deref(), Some("1.1.0"));
    assert_eq!(pick(Some("[1.5,)"), &INSTALLED).as_deref(), Some("2.0.0"));
    assert_eq!(pick(Some("[1.1.0]"), &INSTALLED).as_deref(), Some("1.1.0"));
    assert_eq!(pick(Some("(,1.0.0],[1.5,1.6)"), &INSTALLED).as_deref(), Some("1.5.2"));
    assert_eq!(pick(Some("(,1.0.0], [1.9, 2.0)"), &INSTALLED).as_deref(), Some("2.0.0-rc1"));
    assert_eq!(pick(Some("1.0,1.1"), &INSTALLED).as_deref(), Some("1.1.0"), "enclosed in []");
}

#[test]
fn bad_specs_say_what_is_wrong_in_mavens_words() {
    let err = |s: &str| VersionRequirement::parse(Some(s)).unwrap_err();
    assert_eq!(err("[1.0,2.0"), "Unbounded range: [1.0,2.0");
    assert_eq!(err("(1.0)"), "Single version must be surrounded by []: (1.0)");
    assert_eq!(err("[2.0,1.0]"), "Range defies version ordering: [2.0,1.0]");
    assert_eq!(err("[1.0,1.0]"), "Range cannot have identical boundaries: [1.0,1.0]");
    assert_eq!(err("[1.0,2.0],[1.5,3.0]"), "Ranges overlap: [1.0,2.0],[1.5,3.0]");
    assert_eq!(err("[1.0,2.0],(,3.0]"), "Ranges overlap: [1.0,2.0],(,3.0]");
    assert_eq!(
        err("[1.0,2.0] 3.0"),
        "Only fully-qualified sets allowed in multiple set scenario: [1.0,2.0] 3.0"
    );
    assert!(VersionRequirement::parse(Some("")).is_err());
}

#[test]
fn allows_is_what_pick_chooses_from() {
    let req = VersionRequirement::parse(Some("[1.0,2.0)")).unwrap();
    let allowed: Vec<String> =
        versions(&INSTALLED).iter().filter(|v| req.allows(v)).map(|v| v.to_string()).collect();
    assert_eq!(allowed, ["1.0.0", "1.1.0", "1.5.2", "2.0.0-rc1"]);
    assert!(VersionRequirement::Latest.allows(&PluginVersion::parse("0.0.1")));
}
