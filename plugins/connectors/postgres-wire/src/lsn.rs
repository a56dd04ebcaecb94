//! [`Lsn`]: a position in the write-ahead log, as a number and in PostgreSQL's text form
//! (`16/B374D848`: the high and low 32 bits in upper-case hex, without leading zeros).
//!
//! It only converts; it knows nothing of slots or streams.

use std::fmt;
use std::str::FromStr;

/// A write-ahead log position (`pg_lsn`). `Lsn(0)` is PostgreSQL's invalid position
/// (`0/0`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Lsn(pub u64);

impl Lsn {
    /// The invalid position `0/0`.
    pub const INVALID: Lsn = Lsn(0);

    /// The position as a number.
    pub fn as_u64(self) -> u64 {
        self.0
    }

    /// Whether it is `0/0`.
    pub fn is_invalid(self) -> bool {
        self.0 == 0
    }
}

impl From<u64> for Lsn {
    fn from(v: u64) -> Self {
        Self(v)
    }
}

impl From<Lsn> for u64 {
    fn from(v: Lsn) -> Self {
        v.0
    }
}

impl fmt::Display for Lsn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:X}/{:X}", self.0 >> 32, self.0 & 0xFFFF_FFFF)
    }
}

impl FromStr for Lsn {
    type Err = String;

    /// Parses `X/Y` (each half at most 8 hex digits, either case).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || format!("invalid LSN {s:?}: expected two hex numbers as in 16/B374D848");
        let (hi, lo) = s.trim().split_once('/').ok_or_else(bad)?;
        let half = |p: &str| {
            if p.is_empty() || p.len() > 8 || !p.bytes().all(|b| b.is_ascii_hexdigit()) {
                return Err(bad());
            }
            u64::from_str_radix(p, 16).map_err(|_| bad())
        };
        Ok(Self((half(hi)? << 32) | half(lo)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_text_form_is_two_hex_halves() {
        // 0x16 << 32 | 0xB374D848 = 22 * 4294967296 + 3010779208
        let lsn: Lsn = "16/B374D848".parse().unwrap();
        assert_eq!(lsn, Lsn(22 * 4_294_967_296 + 3_010_779_208));
        assert_eq!(lsn.to_string(), "16/B374D848");
        assert_eq!(Lsn(0).to_string(), "0/0");
        assert_eq!(Lsn::from(0x1_0000_0000).to_string(), "1/0");
        assert_eq!(Lsn(0x0000_0000_0000_00AB).to_string(), "0/AB");
        assert_eq!("0/ab".parse::<Lsn>().unwrap(), Lsn(0xAB));
        assert_eq!("FFFFFFFF/FFFFFFFF".parse::<Lsn>().unwrap(), Lsn(u64::MAX));
        assert!(Lsn(0).is_invalid() && !lsn.is_invalid());
        assert!(Lsn(1) < Lsn(0x1_0000_0000));
        for bad in ["", "16", "16/", "/1", "1/2/3", "G/0", "100000000/0", "-1/0", "1/+2"] {
            assert!(bad.parse::<Lsn>().is_err(), "{bad:?}");
        }
    }
}
