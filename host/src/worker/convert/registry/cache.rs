//! [`Bounded`]: a map with a size bound, shared by a converter's tasks: the ids and
//! schemas a registry converter has looked up (`schemas.cache.config` entries at most).
//! When full, an insert evicts one entry, the oldest inserted. Reads take a shared lock.

use std::collections::{HashMap, VecDeque};
use std::hash::Hash;
use std::sync::RwLock;

/// A bounded map.
pub struct Bounded<K, V> {
    inner: RwLock<Inner<K, V>>,
    bound: usize,
}

struct Inner<K, V> {
    map: HashMap<K, V>,
    order: VecDeque<K>,
}

impl<K: Hash + Eq + Clone, V: Clone> Bounded<K, V> {
    /// An empty map of at most `bound` entries (at least one).
    pub fn new(bound: usize) -> Self {
        let inner = Inner { map: HashMap::new(), order: VecDeque::new() };
        Self { inner: RwLock::new(inner), bound: bound.max(1) }
    }

    /// The value of `key`.
    pub fn get<Q>(&self, key: &Q) -> Option<V>
    where
        K: std::borrow::Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        self.inner.read().expect("not poisoned").map.get(key).cloned()
    }

    /// Inserts `value` for `key`, evicting the oldest entry when full.
    pub fn insert(&self, key: K, value: V) {
        let mut inner = self.inner.write().expect("not poisoned");
        if inner.map.insert(key.clone(), value).is_some() {
            return;
        }
        inner.order.push_back(key);
        while inner.order.len() > self.bound {
            if let Some(old) = inner.order.pop_front() {
                inner.map.remove(&old);
            }
        }
    }

    /// The keys held, oldest first.
    pub fn keys(&self) -> Vec<K> {
        self.inner.read().expect("not poisoned").order.iter().cloned().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_at_most_its_bound_evicting_the_oldest() {
        let cache = Bounded::new(2);
        cache.insert("a", 1);
        cache.insert("b", 2);
        cache.insert("a", 3);
        assert_eq!(cache.get("a"), Some(3));
        cache.insert("c", 4);
        assert_eq!((cache.get("a"), cache.get("b"), cache.get("c")), (None, Some(2), Some(4)));
        assert_eq!(cache.keys(), vec!["b", "c"]);
    }
}
