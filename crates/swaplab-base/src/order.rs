//! Sorting and ordered collections that compile once, not once per element type.
//!
//! The standard library's stable sort is generic over the element and the comparison,
//! so each `sort`, `sort_by_key` and each `collect` into a `BTreeMap` or `BTreeSet`
//! (which sorts its input first) links its own copy, about 4 KB of WebAssembly: twenty
//! such copies were 100 KB of the site's code. Here only positions are sorted, by one
//! shared instance, and the items are then moved into that order; the maps and sets
//! are built by inserting, which sorts nothing. Same results, same stability.

use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};

/// Sorts `items` by `compare`, keeping equal items in their order (like
/// `slice::sort_by`).
pub fn sort_by<T>(items: &mut [T], compare: impl Fn(&T, &T) -> Ordering) {
    let order = sorted_positions(items.len(), &|a, b| compare(&items[a], &items[b]));
    permute(order, &mut |a, b| items.swap(a, b));
}

/// Sorts `items` in ascending order, keeping equal items in their order.
pub fn sort<T: Ord>(items: &mut [T]) {
    sort_by(items, T::cmp);
}

/// Sorts `items` by the key `key` gives each, keeping items with equal keys in their
/// order (like `slice::sort_by_key`).
pub fn sort_by_key<T, K: Ord>(items: &mut [T], key: impl Fn(&T) -> K) {
    sort_by(items, |a, b| key(a).cmp(&key(b)));
}

/// The positions `0..len` in the order `compare` puts the items at them, ties in
/// position order: the one sort every element type shares.
#[inline(never)]
fn sorted_positions(len: usize, compare: &dyn Fn(usize, usize) -> Ordering) -> Vec<usize> {
    let mut order: Vec<usize> = (0..len).collect();
    order.sort_by(|&a, &b| compare(a, b));
    order
}

/// Moves the item at `order[k]` to `k`, for every `k`, with `swap`: each cycle of the
/// permutation is walked once, so every item moves at most once into its place.
#[inline(never)]
fn permute(mut order: Vec<usize>, swap: &mut dyn FnMut(usize, usize)) {
    for start in 0..order.len() {
        let mut at = start;
        loop {
            let from = order[at];
            order[at] = at;
            if from == start {
                break;
            }
            swap(at, from);
            at = from;
        }
    }
}

/// A map of `pairs`; of pairs with equal keys, the last one's value stays (like
/// `collect`).
pub fn map_of<K: Ord, V>(pairs: impl IntoIterator<Item = (K, V)>) -> BTreeMap<K, V> {
    let mut map = BTreeMap::new();
    map.extend(pairs);
    map
}

/// A set of `items`; of equal items, the first stays.
pub fn set_of<T: Ord>(items: impl IntoIterator<Item = T>) -> BTreeSet<T> {
    let mut set = BTreeSet::new();
    set.extend(items);
    set
}
