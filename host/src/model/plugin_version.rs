//! [`PluginVersion`]: a plugin's version as Kafka Connect orders them (KIP-891 picks versions
//! with Maven's `ComparableVersion`): items split at `.`, `-` and every change between
//! digits and letters, numbers compared as numbers, the qualifiers in Maven's order
//! (`alpha` < `beta` < `milestone` < `rc` = `cr` < `snapshot` < release (`""`, `ga`,
//! `final`, `release`) < `sp` < any other, those alphabetically), trailing zeros and
//! release qualifiers ignored (`1` = `1.0` = `1.0.0-final`), a `-` opening a sub-list that
//! sorts below a further number (`1-1` < `1.1`).
//!
//! This module owns the parsing and the order only; ranges are `version_range`'s.

use std::cmp::Ordering;
use std::fmt;

/// One item of a parsed version.
#[derive(Clone, Debug)]
enum Item {
    /// A number: its digits without leading zeros (empty for zero), so numbers of any
    /// length compare by length, then digit by digit.
    Int(String),
    /// A qualifier, already mapped to its sort key.
    Str(String),
    /// What follows a `-` (or a digit/letter change).
    List(Vec<Item>),
}

/// The qualifiers Maven knows, in order; the release (empty) one sits between `snapshot`
/// and `sp`.
const QUALIFIERS: [&str; 7] = ["alpha", "beta", "milestone", "rc", "snapshot", "", "sp"];

/// The sort key of a qualifier: its index among [`QUALIFIERS`], else after all of them.
fn qualifier_key(q: &str) -> String {
    match QUALIFIERS.iter().position(|k| *k == q) {
        Some(i) => i.to_string(),
        None => format!("{}-{q}", QUALIFIERS.len()),
    }
}

/// The key of the release qualifier, which a missing item compares as.
fn release_key() -> String {
    qualifier_key("")
}

fn string_item(text: &str, followed_by_digit: bool) -> Item {
    let text = match (text, followed_by_digit) {
        ("a", true) => "alpha",
        ("b", true) => "beta",
        ("m", true) => "milestone",
        ("ga" | "final" | "release", _) => "",
        ("cr", _) => "rc",
        (t, _) => t,
    };
    Item::Str(qualifier_key(text))
}

fn int_item(digits: &str) -> Item {
    let trimmed = digits.trim_start_matches('0');
    Item::Int(trimmed.to_owned())
}

impl Item {
    fn is_null(&self) -> bool {
        match self {
            Item::Int(d) => d.is_empty(),
            Item::Str(k) => *k == release_key(),
            Item::List(l) => l.is_empty(),
        }
    }

    /// This item against a missing one (the other version is shorter).
    fn cmp_missing(&self) -> Ordering {
        match self {
            Item::Int(d) if d.is_empty() => Ordering::Equal,
            Item::Int(_) => Ordering::Greater,
            Item::Str(k) => k.as_str().cmp(release_key().as_str()),
            Item::List(l) => l.first().map_or(Ordering::Equal, Item::cmp_missing),
        }
    }

    fn compare(&self, other: &Item) -> Ordering {
        match (self, other) {
            (Item::Int(a), Item::Int(b)) => a.len().cmp(&b.len()).then_with(|| a.cmp(b)),
            (Item::Int(_), _) => Ordering::Greater,
            (Item::Str(_), Item::Int(_)) => Ordering::Less,
            (Item::Str(a), Item::Str(b)) => a.cmp(b),
            (Item::Str(_), Item::List(_)) => Ordering::Less,
            (Item::List(_), Item::Int(_)) => Ordering::Less,
            (Item::List(_), Item::Str(_)) => Ordering::Greater,
            (Item::List(a), Item::List(b)) => compare_lists(a, b),
        }
    }
}

fn compare_lists(a: &[Item], b: &[Item]) -> Ordering {
    for i in 0..a.len().max(b.len()) {
        let order = match (a.get(i), b.get(i)) {
            (Some(x), Some(y)) => x.compare(y),
            (Some(x), None) => x.cmp_missing(),
            (None, Some(y)) => y.cmp_missing().reverse(),
            (None, None) => Ordering::Equal,
        };
        if order != Ordering::Equal {
            return order;
        }
    }
    Ordering::Equal
}

/// Drops the null items (zeros, release qualifiers, empty lists) of every list, innermost
/// first, from its end back to its last number or qualifier that is not null: a sub-list
/// does not stop the trimming (`1.0-1` is `1-1`).
fn normalize(list: &mut Vec<Item>) {
    for item in list.iter_mut() {
        if let Item::List(inner) = item {
            normalize(inner);
        }
    }
    let mut i = list.len();
    while i > 0 {
        i -= 1;
        if list[i].is_null() {
            list.remove(i);
        } else if !matches!(list[i], Item::List(_)) {
            break;
        }
    }
}

/// A plugin version, ordered as Maven orders versions.
#[derive(Clone, Debug)]
pub struct PluginVersion {
    text: String,
    items: Vec<Item>,
}

impl PluginVersion {
    /// Parses `text` (any text is a version, as in Maven).
    pub fn parse(text: &str) -> Self {
        let lower = text.trim().to_lowercase();
        // A stack of lists: the root, then one per `-` or digit/letter change.
        let mut stack: Vec<Vec<Item>> = vec![Vec::new()];
        let mut start = 0;
        let mut digits = false;
        let chars: Vec<(usize, char)> = lower.char_indices().collect();
        let end = lower.len();
        let push_item = |stack: &mut Vec<Vec<Item>>, item: Item| {
            stack.last_mut().expect("a list").push(item);
        };
        for &(i, c) in &chars {
            match c {
                '.' | '-' => {
                    let item = if i == start {
                        Item::Int(String::new())
                    } else if digits {
                        int_item(&lower[start..i])
                    } else {
                        string_item(&lower[start..i], false)
                    };
                    push_item(&mut stack, item);
                    start = i + c.len_utf8();
                    if c == '-' {
                        stack.push(Vec::new());
                    }
                }
                c if c.is_ascii_digit() => {
                    if !digits && i > start {
                        push_item(&mut stack, string_item(&lower[start..i], true));
                        start = i;
                        stack.push(Vec::new());
                    }
                    digits = true;
                }
                _ => {
                    if digits && i > start {
                        push_item(&mut stack, int_item(&lower[start..i]));
                        start = i;
                        stack.push(Vec::new());
                    }
                    digits = false;
                }
            }
        }
        if end > start {
            let item = if digits {
                int_item(&lower[start..])
            } else {
                string_item(&lower[start..], false)
            };
            push_item(&mut stack, item);
        }
        // Fold the stack: each list is the last item of the one below it.
        while stack.len() > 1 {
            let inner = stack.pop().expect("two lists");
            stack.last_mut().expect("one list").push(Item::List(inner));
        }
        let mut items = stack.pop().expect("the root list");
        normalize(&mut items);
        Self { text: text.trim().to_owned(), items }
    }

    /// The version as written.
    pub fn as_str(&self) -> &str {
        &self.text
    }
}

impl fmt::Display for PluginVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl Ord for PluginVersion {
    fn cmp(&self, other: &Self) -> Ordering {
        compare_lists(&self.items, &other.items)
    }
}

impl PartialOrd for PluginVersion {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for PluginVersion {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for PluginVersion {}

#[cfg(test)]
#[path = "plugin_version_tests.rs"]
mod tests;
