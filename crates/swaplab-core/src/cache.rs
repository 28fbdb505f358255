//! The tables every cache between reruns is made of: results keyed by the exact
//! (path, text) pairs they were made from, found by a cheap fingerprint and compared in
//! full, and dropped when a run did not use them. A leaf: the readers' cache
//! ([`crate::rasa::cache`]), the simulation's ([`crate::sim::cache`]) and the memo that
//! holds both ([`crate::memo`]) are built on it.

use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

/// The inputs a result was made from: (path, text) pairs, in a fixed order.
type Key = Vec<(String, String)>;

/// One kind of result, by the hash of its inputs.
pub(crate) struct Table<T> {
    entries: BTreeMap<u64, Vec<Entry<T>>>,
}

struct Entry<T> {
    key: Key,
    value: Arc<T>,
    /// The run that last used it.
    used: u64,
}

impl<T> Default for Table<T> {
    fn default() -> Table<T> {
        Table { entries: BTreeMap::new() }
    }
}

impl<T> Table<T> {
    /// The value made from `inputs`, made now by `make` if no earlier run made it. With
    /// `run` 0 (a cache for one run) nothing is looked up or kept.
    pub(crate) fn get_or_make(
        &mut self,
        run: u64,
        inputs: &[(&str, &str)],
        make: impl FnOnce() -> T,
    ) -> Arc<T> {
        if run == 0 {
            return Arc::new(make());
        }
        let bucket = self.entries.entry(fingerprint(inputs)).or_default();
        let same = |entry: &&mut Entry<T>| {
            entry.key.len() == inputs.len()
                && entry.key.iter().zip(inputs).all(|((p, t), (q, u))| p == q && t == u)
        };
        if let Some(entry) = bucket.iter_mut().find(|e| same(e)) {
            entry.used = run;
            return entry.value.clone();
        }
        let value = Arc::new(make());
        let key = inputs.iter().map(|(p, t)| ((*p).to_owned(), (*t).to_owned())).collect();
        bucket.push(Entry { key, value: value.clone(), used: run });
        value
    }

    /// Drops what `run` did not use.
    pub(crate) fn keep_only(&mut self, run: u64) {
        self.entries.retain(|_, bucket| {
            bucket.retain(|entry| entry.used == run);
            !bucket.is_empty()
        });
    }

    pub(crate) fn len(&self) -> usize {
        self.entries.values().map(Vec::len).sum()
    }
}

/// The bucket for `inputs`: each path with its text's length and ends. The hash only
/// picks a bucket and the key decides, so it need not read every byte, nor resist
/// crafted collisions (they would only share a bucket): hashing whole texts cost more
/// than the lookups it served once whole projects became keys, and SipHash on paths and
/// ends still cost 2 K instructions per 300-skill project key. [`WordHasher`] has no
/// random state, so the same inputs hash alike on every run and every machine.
fn fingerprint(inputs: &[(&str, &str)]) -> u64 {
    const END: usize = 32;
    let mut hasher = WordHasher::default();
    for (path, text) in inputs {
        let bytes = text.as_bytes();
        path.hash(&mut hasher);
        bytes.len().hash(&mut hasher);
        bytes[..bytes.len().min(END)].hash(&mut hasher);
        bytes[bytes.len().saturating_sub(END)..].hash(&mut hasher);
    }
    hasher.finish()
}

/// A fast, non-cryptographic hasher for [`fingerprint`]: eight bytes at a time, each
/// word folded in by a rotate, an xor and a multiply (the scheme of rustc's FxHasher).
#[derive(Default)]
struct WordHasher {
    hash: u64,
}

impl WordHasher {
    const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(WordHasher::SEED);
    }
}

impl Hasher for WordHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0; 8];
            word.copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut word = [0; 8];
            word[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(word) ^ (rest.len() as u64) << 56);
        }
    }

    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }

    fn finish(&self) -> u64 {
        self.hash
    }
}
