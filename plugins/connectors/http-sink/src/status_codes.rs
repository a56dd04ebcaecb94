//! [`StatusCodes`]: the set `retry.on.status.codes` names, in the Confluent HTTP sink's
//! syntax: comma-separated codes (`503`), inclusive ranges (`500-599`), open ranges
//! (`500-`: 500 and above) and classes (`5xx`).

use std::str::FromStr;

/// A set of HTTP status codes, as inclusive ranges.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StatusCodes(Vec<(u16, u16)>);

impl StatusCodes {
    /// Whether `status` is in the set.
    pub fn contains(&self, status: u16) -> bool {
        self.0.iter().any(|&(lo, hi)| (lo..=hi).contains(&status))
    }
}

impl FromStr for StatusCodes {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let code = |t: &str| {
            t.trim()
                .parse::<u16>()
                .ok()
                .filter(|c| (100..=599).contains(c))
                .ok_or_else(|| format!("{t:?} is not an HTTP status code (100-599)"))
        };
        let mut ranges = Vec::new();
        for item in s.split(',').map(str::trim).filter(|i| !i.is_empty()) {
            let lower = item.to_ascii_lowercase();
            let range = if let Some(class) = lower.strip_suffix("xx") {
                let lo = code(&format!("{class}00"))?;
                (lo, lo + 99)
            } else if let Some((lo, hi)) = item.split_once('-') {
                let lo = code(lo)?;
                let hi = if hi.trim().is_empty() { 599 } else { code(hi)? };
                if hi < lo {
                    return Err(format!("the range {item:?} is empty"));
                }
                (lo, hi)
            } else {
                let c = code(item)?;
                (c, c)
            };
            ranges.push(range);
        }
        Ok(Self(ranges))
    }
}

#[cfg(test)]
mod tests {
    use super::StatusCodes;

    #[test]
    fn codes_ranges_and_classes() {
        let s: StatusCodes = "408, 429,500-503,520-,4xx".parse().unwrap();
        for yes in [408, 429, 500, 503, 520, 599, 400, 499] {
            assert!(s.contains(yes), "{yes}");
        }
        for no in [200, 301, 504, 519] {
            assert!(!s.contains(no), "{no}");
        }
        assert!(!"".parse::<StatusCodes>().unwrap().contains(500));
        for bad in ["abc", "600", "503-500", "9xx", "50"] {
            assert!(bad.parse::<StatusCodes>().is_err(), "{bad}");
        }
    }
}
