//! The outcome of a conformance run: one [`CheckRow`] per check, each passed, failed or
//! skipped with a one-line reason, and the [`Report`] that sums them up.
//!
//! This module owns the result shapes and their wording only; it runs nothing.

use std::fmt;
use std::time::Duration;

/// How one check ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The plugin did what the contract asks.
    Pass,
    /// The plugin broke the contract (or could not be run to find out).
    Fail,
    /// The check had nothing to look at (the reason says why).
    Skip,
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Pass => "PASS",
            Self::Fail => "FAIL",
            Self::Skip => "SKIP",
        })
    }
}

/// One row of the report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckRow {
    /// The check's name, e.g. `lifecycle order`.
    pub check: &'static str,
    /// How it ended.
    pub outcome: Outcome,
    /// Why, on one line, with the time the check took.
    pub detail: String,
}

/// What a check found, before it is timed and named.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// How it ended.
    pub outcome: Outcome,
    /// Why, on one line.
    pub detail: String,
}

impl Finding {
    /// A pass, with what was seen.
    pub fn pass(detail: impl Into<String>) -> Self {
        Self { outcome: Outcome::Pass, detail: detail.into() }
    }

    /// A failure, with the reason.
    pub fn fail(detail: impl Into<String>) -> Self {
        Self { outcome: Outcome::Fail, detail: detail.into() }
    }

    /// A skip, with the reason.
    pub fn skip(detail: impl Into<String>) -> Self {
        Self { outcome: Outcome::Skip, detail: detail.into() }
    }

    /// The row for check `check`, which took `took`. The detail is flattened to one line.
    pub fn into_row(self, check: &'static str, took: Duration) -> CheckRow {
        let detail = one_line(&self.detail);
        let detail = if detail.is_empty() {
            format!("({})", millis(took))
        } else {
            format!("{detail} ({})", millis(took))
        };
        CheckRow { check, outcome: self.outcome, detail }
    }
}

/// Every check's row, in the order they ran.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    /// The rows.
    pub rows: Vec<CheckRow>,
}

impl Report {
    /// How many rows have `outcome`.
    pub fn count(&self, outcome: Outcome) -> usize {
        self.rows.iter().filter(|r| r.outcome == outcome).count()
    }

    /// Whether no check failed.
    pub fn passed(&self) -> bool {
        self.count(Outcome::Fail) == 0
    }

    /// `N passed, M failed, K skipped`.
    pub fn summary(&self) -> String {
        format!(
            "{} passed, {} failed, {} skipped",
            self.count(Outcome::Pass),
            self.count(Outcome::Fail),
            self.count(Outcome::Skip)
        )
    }
}

/// A duration as `12 ms`, or in seconds from ten seconds on (`10 s`, `12.5 s`).
pub fn millis(d: Duration) -> String {
    if d < Duration::from_secs(10) {
        format!("{} ms", d.as_millis())
    } else if d.subsec_millis() == 0 {
        format!("{} s", d.as_secs())
    } else {
        format!("{:.1} s", d.as_secs_f64())
    }
}

/// A count with thousands separators: `12,345`.
pub fn count(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Collapses whitespace runs (newlines included) into single spaces, so guest text
/// cannot break a table row.
pub fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_one_line_and_timed() {
        let row = Finding::fail("poll trapped:\n  guest panicked")
            .into_row("poll within sandbox limits", Duration::from_millis(7));
        assert_eq!(row.detail, "poll trapped: guest panicked (7 ms)");
        assert_eq!(row.outcome, Outcome::Fail);
    }

    #[test]
    fn numbers_read_easily() {
        assert_eq!(millis(Duration::from_millis(12)), "12 ms");
        assert_eq!(millis(Duration::from_secs(10)), "10 s");
        assert_eq!(millis(Duration::from_millis(12_500)), "12.5 s");
        assert_eq!(count(0), "0");
        assert_eq!(count(999), "999");
        assert_eq!(count(1_000), "1,000");
        assert_eq!(count(2_311_318), "2,311,318");
    }

    #[test]
    fn summary_counts_each_outcome() {
        let row = |f: Finding| f.into_row("c", Duration::ZERO);
        let report = Report {
            rows: vec![row(Finding::pass("")), row(Finding::skip("x")), row(Finding::pass(""))],
        };
        assert_eq!(report.summary(), "2 passed, 0 failed, 1 skipped");
        assert!(report.passed());
        let failed = Report { rows: vec![row(Finding::fail("x"))] };
        assert!(!failed.passed());
    }
}
