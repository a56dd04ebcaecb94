//! The key partitioner of the local backends (memory and embedded): Kafka's murmur2, so a
//! key lands in the partition a Java producer (or librdkafka's `murmur2_random`) would put
//! it in, and moving a topic between backends keeps every key in its partition.
//!
//! Pure functions; this module must not depend on any backend.

/// Seed of Kafka's murmur2 (`Utils.murmur2`).
const SEED: u32 = 0x9747_b28c;
/// Mixing constant of murmur2.
const M: u32 = 0x5bd1_e995;
/// Shift of murmur2.
const R: u32 = 24;

/// Kafka's 32-bit murmur2 hash of `data` (`org.apache.kafka.common.utils.Utils.murmur2`).
pub(crate) fn murmur2(data: &[u8]) -> i32 {
    // Kafka hashes the length as an int: keys longer than 2^31 bytes do not exist.
    let mut h = SEED ^ (data.len() as u32);
    let chunks = data.chunks_exact(4);
    let tail = chunks.remainder();
    for chunk in chunks {
        let mut k = u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
        k = k.wrapping_mul(M);
        k ^= k >> R;
        k = k.wrapping_mul(M);
        h = h.wrapping_mul(M);
        h ^= k;
    }
    if tail.len() == 3 {
        h ^= u32::from(tail[2]) << 16;
    }
    if tail.len() >= 2 {
        h ^= u32::from(tail[1]) << 8;
    }
    if !tail.is_empty() {
        h ^= u32::from(tail[0]);
        h = h.wrapping_mul(M);
    }
    h ^= h >> 13;
    h = h.wrapping_mul(M);
    h ^= h >> 15;
    h as i32
}

/// The partition of `key` in a topic of `partitions` partitions (at least 1), as Kafka's
/// default partitioner computes it: `toPositive(murmur2(key)) % partitions`.
pub(crate) fn partition_for_key(key: &[u8], partitions: i32) -> i32 {
    debug_assert!(partitions >= 1, "a topic has at least one partition");
    (murmur2(key) & 0x7fff_ffff) % partitions.max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The vectors of Kafka's `UtilsTest.testMurmur2`.
    #[test]
    fn murmur2_matches_kafka() {
        let cases: [(&str, i32); 6] = [
            ("21", -973_932_308),
            ("foobar", -790_332_482),
            ("a-little-bit-long-string", -985_981_536),
            ("a-little-bit-longer-string", -1_486_304_829),
            ("lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8", -58_897_971),
            ("abc", 479_470_107),
        ];
        for (input, expected) in cases {
            assert_eq!(murmur2(input.as_bytes()), expected, "murmur2({input:?})");
        }
    }

    #[test]
    fn partitions_are_in_range_and_stable() {
        for i in 0..1000 {
            let key = format!("key-{i}");
            let p = partition_for_key(key.as_bytes(), 7);
            assert!((0..7).contains(&p), "{key} -> {p}");
            assert_eq!(p, partition_for_key(key.as_bytes(), 7));
        }
        assert_eq!(partition_for_key(b"anything", 1), 0);
    }
}
