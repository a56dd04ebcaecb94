//! The order of Maven's version specification (the POM reference's "Version Order
//! Specification"), which KIP-891 uses to pick plugin versions.

use super::*;

fn v(s: &str) -> PluginVersion {
    PluginVersion::parse(s)
}

/// Each version is strictly below the next.
fn ascending(versions: &[&str]) {
    for pair in versions.windows(2) {
        assert!(v(pair[0]) < v(pair[1]), "{} < {}", pair[0], pair[1]);
        assert!(v(pair[1]) > v(pair[0]), "{} > {}", pair[1], pair[0]);
    }
}

fn equal(versions: &[&str]) {
    for pair in versions.windows(2) {
        assert_eq!(v(pair[0]), v(pair[1]), "{} = {}", pair[0], pair[1]);
    }
}

#[test]
fn qualifiers_follow_the_release_order() {
    ascending(&[
        "1-alpha-1",
        "1-alpha-2",
        "1-beta-1",
        "1-milestone-1",
        "1-rc-1",
        "1-rc-2",
        "1-snapshot",
        "1",
        "1-sp",
        "1-sp-1",
        "1-abc",
        "1-def",
        "1-1",
        "1-2",
        "1.1",
    ]);
}

#[test]
fn numbers_compare_as_numbers() {
    ascending(&["1.9", "1.10", "1.99.99", "2", "2.0.1", "10.0", "123456789012345678901234567890"]);
    ascending(&["1-foo2", "1-foo10"]);
    ascending(&["0.1.0", "0.2.0", "1.0.0-SNAPSHOT", "1.0.0", "1.0.1"]);
}

#[test]
fn trailing_zeros_and_release_qualifiers_do_not_count() {
    equal(&["1", "1.0", "1.0.0", "1-0", "1-ga", "1.ga", "1-final", "1-release", "1.0.0.Final"]);
    equal(&["3.6.1.Final", "3.6.1", "3.6.1-GA"]);
    equal(&["1-rc-1", "1-cr-1", "1-RC1"]);
    equal(&["1-a1", "1-alpha-1", "1-alpha1"]);
    equal(&["1-b2", "1-beta-2"]);
    equal(&["1-m3", "1-milestone-3"]);
    equal(&["01.002", "1.2"]);
}

#[test]
fn a_letter_not_followed_by_a_digit_is_its_own_qualifier() {
    // `a` alone is an unknown qualifier, not `alpha`: above the release.
    assert!(v("1-a") > v("1"));
    assert!(v("1-a1") < v("1"));
}

#[test]
fn the_text_is_kept_as_written() {
    assert_eq!(v(" 1.0-RC1 ").to_string(), "1.0-RC1");
    assert_eq!(v("3.6.1.Final").as_str(), "3.6.1.Final");
}

#[test]
fn any_text_parses_without_panicking() {
    for s in ["", ".", "-", "..--..", "1..2", "a-b-c", "é1ü", "1-", "-1", "1.-1", "x.y.z9"] {
        let p = v(s);
        assert_eq!(p.cmp(&p), std::cmp::Ordering::Equal, "{s:?} equals itself");
    }
    assert_eq!(v(""), v("0"));
}
