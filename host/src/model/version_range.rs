//! [`VersionRequirement`]: what a KIP-891 version key (`connector.plugin.version`,
//! `<prefix>converter.plugin.version`, `transforms.<alias>.plugin.version`, …) asks for, read
//! as Kafka Connect reads it (`PluginUtils.connectorVersionRequirement` over Maven's
//! `VersionRange.createFromVersionSpec`): unset or `latest` means the newest installed; a
//! bare value is enclosed in `[]` (`1.2` is exactly 1.2); otherwise one or more ranges,
//! `[1.0,2.0)`, `(,1.0]`, `[1.5,)`, `[1.0]`, several separated by commas in ascending order
//! (`(,1.0],[1.2,)`). [`VersionRequirement::pick`] chooses among installed versions.
//!
//! This module owns the syntax, its error messages (Maven's wording) and the choice; which
//! versions are installed is the runtime's business.

use super::plugin_version::PluginVersion;

/// One range: bounds (`None` is unbounded) and whether each is included.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Restriction {
    lower: Option<PluginVersion>,
    lower_inclusive: bool,
    upper: Option<PluginVersion>,
    upper_inclusive: bool,
}

impl Restriction {
    fn contains(&self, v: &PluginVersion) -> bool {
        let above = match &self.lower {
            None => true,
            Some(l) => v > l || (self.lower_inclusive && v == l),
        };
        let below = match &self.upper {
            None => true,
            Some(u) => v < u || (self.upper_inclusive && v == u),
        };
        above && below
    }

    fn parse(spec: &str, whole: &str) -> Result<Self, String> {
        let lower_inclusive = spec.starts_with('[');
        let upper_inclusive = spec.ends_with(']');
        let inner = spec[1..spec.len() - 1].trim();
        let Some((lo, hi)) = inner.split_once(',') else {
            if !lower_inclusive || !upper_inclusive {
                return Err(format!("Single version must be surrounded by []: {whole}"));
            }
            let v = PluginVersion::parse(inner);
            return Ok(Self {
                lower: Some(v.clone()),
                lower_inclusive,
                upper: Some(v),
                upper_inclusive,
            });
        };
        let (lo, hi) = (lo.trim(), hi.trim());
        if lo == hi && !lo.is_empty() {
            return Err(format!("Range cannot have identical boundaries: {whole}"));
        }
        let bound = |b: &str| (!b.is_empty()).then(|| PluginVersion::parse(b));
        let (lower, upper) = (bound(lo), bound(hi));
        if let (Some(l), Some(u)) = (&lower, &upper)
            && u < l
        {
            return Err(format!("Range defies version ordering: {whole}"));
        }
        Ok(Self { lower, lower_inclusive, upper, upper_inclusive })
    }
}

/// What a version key asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum VersionRequirement {
    /// Unset or `latest`: the newest installed version.
    Latest,
    /// Any version inside one of these ranges (the newest such).
    Ranges(Vec<Restriction>),
}

impl VersionRequirement {
    /// Reads a version key's value (`None`: the key is unset). An invalid value is an
    /// error in Maven's words, naming the value.
    pub fn parse(value: Option<&str>) -> Result<Self, String> {
        let Some(spec) = value.map(str::trim) else { return Ok(Self::Latest) };
        if spec == "latest" {
            return Ok(Self::Latest);
        }
        if spec.is_empty() {
            return Err("An empty version is not a version or range".to_owned());
        }
        if !spec.starts_with('[') && !spec.starts_with('(') {
            // Kafka Connect encloses a bare version in `[]`: exactly that version.
            return Self::parse(Some(&format!("[{spec}]")));
        }
        let mut rest = spec;
        let mut ranges: Vec<Restriction> = Vec::new();
        while rest.starts_with('[') || rest.starts_with('(') {
            let close = rest.find([')', ']']).ok_or_else(|| format!("Unbounded range: {spec}"))?;
            let restriction = Restriction::parse(&rest[..=close], spec)?;
            if let Some(previous) = ranges.last() {
                let overlaps = match (&previous.upper, &restriction.lower) {
                    (Some(u), Some(l)) => {
                        l < u || (l == u && previous.upper_inclusive && restriction.lower_inclusive)
                    }
                    _ => true,
                };
                if overlaps {
                    return Err(format!("Ranges overlap: {spec}"));
                }
            }
            ranges.push(restriction);
            rest = rest[close + 1..].trim_start();
            if let Some(after) = rest.strip_prefix(',') {
                rest = after.trim_start();
            }
        }
        if !rest.is_empty() {
            return Err(format!(
                "Only fully-qualified sets allowed in multiple set scenario: {spec}"
            ));
        }
        Ok(Self::Ranges(ranges))
    }

    /// Whether `version` satisfies the requirement.
    pub fn allows(&self, version: &PluginVersion) -> bool {
        match self {
            Self::Latest => true,
            Self::Ranges(ranges) => ranges.iter().any(|r| r.contains(version)),
        }
    }

    /// The newest of `installed` the requirement allows.
    pub fn pick<'a>(&self, installed: &'a [PluginVersion]) -> Option<&'a PluginVersion> {
        installed.iter().filter(|v| self.allows(v)).max()
    }
}

#[cfg(test)]
#[path = "version_range_tests.rs"]
mod tests;
