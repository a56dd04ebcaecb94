//! The iteration order of Java's `HashMap`, which decides the order of keys in the schema
//! texts Confluent's converter writes (everit keeps properties and unknown keywords in
//! hash maps) and of the fields and parameters it reads back. This module owns that
//! simulation only: which maps go through which copies is the callers' business.
//!
//! A `HashMap` iterates its buckets in index order, and a bucket's entries in insertion
//! order (a resize splits buckets without reordering them). The bucket of a key is the
//! spread `String.hashCode` (`h ^ (h >>> 16)`) masked by the table size. Tree bins (eight
//! colliding keys in a table of 64 or more) are not simulated.

/// Java's `String.hashCode`, over UTF-16 code units, spread as `HashMap.hash` does.
fn spread_hash(key: &str) -> u32 {
    let h = key.encode_utf16().fold(0u32, |h, c| h.wrapping_mul(31).wrapping_add(u32::from(c)));
    h ^ (h >> 16)
}

/// `HashMap.tableSizeFor`: the power of two at or above `n` (at least 1).
fn table_size_for(n: usize) -> usize {
    n.max(1).next_power_of_two()
}

/// The table size of a map that received `len` distinct keys, starting at `initial`
/// (`new HashMap<>()` is 16; `new HashMap<>(n)` is `tableSizeFor(n)`).
fn final_capacity(initial: usize, len: usize) -> usize {
    let mut cap = initial;
    // `threshold = capacity * 0.75`; the table doubles when the size passes it.
    while len > cap * 3 / 4 {
        cap *= 2;
    }
    cap
}

/// Sorts `entries` (in insertion order) into the order a map of table size `cap` iterates.
fn in_buckets<T>(entries: &mut [(String, T)], cap: usize) {
    let mask = (cap - 1) as u32;
    entries.sort_by_key(|(k, _)| spread_hash(k) & mask);
}

/// The order of `new HashMap<>()` after putting `entries` in order.
pub fn hash_map<T>(mut entries: Vec<(String, T)>) -> Vec<(String, T)> {
    let cap = final_capacity(16, entries.len());
    in_buckets(&mut entries, cap);
    entries
}

/// The order of `new HashMap<>(m)` for a map `m` iterating as `entries`.
pub fn copy_of<T>(mut entries: Vec<(String, T)>) -> Vec<(String, T)> {
    if entries.is_empty() {
        return entries;
    }
    // `putMapEntries`: a table for `size / 0.75 + 1` entries.
    let wanted = (entries.len() as f32 / 0.75 + 1.0) as usize;
    let cap = final_capacity(table_size_for(wanted), entries.len());
    in_buckets(&mut entries, cap);
    entries
}

/// The order of `new HashMap<>(n)` (n = the entry count) after putting `entries`, as
/// org.json's `JSONObject(Map)` copies a map.
pub fn sized_copy_of<T>(mut entries: Vec<(String, T)>) -> Vec<(String, T)> {
    let cap = final_capacity(table_size_for(entries.len()), entries.len());
    in_buckets(&mut entries, cap);
    entries
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(entries: Vec<(String, ())>) -> Vec<String> {
        entries.into_iter().map(|(k, _)| k).collect()
    }

    fn of(names: &[&str]) -> Vec<(String, ())> {
        names.iter().map(|n| (n.to_string(), ())).collect()
    }

    #[test]
    fn string_hash_codes_are_javas() {
        // "Aa" and "BB" are Java's textbook colliding strings (2112 each).
        assert_eq!(spread_hash("Aa"), 2112);
        assert_eq!(spread_hash("BB"), 2112);
        // "hello".hashCode() is 99162322 (0x05E918D2); spread xors in its top half.
        assert_eq!(spread_hash("hello"), 0x05E9_18D2 ^ 0x05E9);
    }

    #[test]
    fn buckets_order_keys_and_collisions_keep_insertion_order() {
        // Single letters hash to their code: 'a' = 97 (bucket 1 of 16), 'b' = 98 (2),
        // 'q' = 113 (1): 'q' shares 'a''s bucket and comes after it.
        assert_eq!(keys(hash_map(of(&["b", "q", "a"]))), ["q", "a", "b"]);
        assert_eq!(keys(hash_map(of(&["b", "a", "q"]))), ["a", "q", "b"]);
        // A copy of two entries has a table of 4 (2 / 0.75 + 1 = 3): 'd' (100) falls in
        // bucket 0, 'a' in 1; with three entries the table is 8 and 'd' goes to bucket 4.
        assert_eq!(keys(copy_of(of(&["a", "d"]))), ["d", "a"]);
        assert_eq!(keys(copy_of(of(&["a", "d", "b"]))), ["a", "b", "d"]);
    }

    #[test]
    fn tables_grow_past_three_quarters() {
        assert_eq!(final_capacity(16, 12), 16);
        assert_eq!(final_capacity(16, 13), 32);
        assert_eq!(final_capacity(1, 1), 2);
        assert_eq!(final_capacity(4, 3), 4);
    }
}
