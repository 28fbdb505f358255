//! The shared sort: the same order as the standard stable sort, ties kept in place, on
//! every length and shape of input; and maps and sets built by insertion hold what
//! `collect` would.

use std::collections::{BTreeMap, BTreeSet};

use swaplab_core::order::{map_of, set_of, sort, sort_by, sort_by_key};

/// Sorts `items` by key with `order::sort_by` and with the standard stable sort, and
/// checks that both give the same items in the same order (ties included: the second
/// field tells equal keys apart).
fn check(items: &[(u8, usize)]) {
    let mut ours = items.to_vec();
    sort_by(&mut ours, |a, b| a.0.cmp(&b.0));
    let mut std_order = items.to_vec();
    std_order.sort_by_key(|item| item.0);
    assert_eq!(ours, std_order, "sorting {items:?}");
}

#[test]
fn sorts_like_the_standard_stable_sort() {
    check(&[]);
    check(&[(1, 0)]);
    check(&[(2, 0), (1, 1)]);
    check(&[(1, 0), (1, 1), (1, 2)]);
    check(&[(3, 0), (2, 1), (1, 2), (0, 3)]);
    // Every length up to 40, with many ties and long cycles, from a fixed generator.
    let mut seed = 7u32;
    for len in 0..40 {
        let items: Vec<(u8, usize)> = (0..len)
            .map(|i| {
                seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                ((seed >> 16) as u8 % 5, i)
            })
            .collect();
        check(&items);
    }
}

#[test]
fn sort_and_sort_by_key_order_by_value_and_by_key() {
    let mut words = vec!["pear", "apple", "fig", "apple"];
    sort(&mut words);
    assert_eq!(words, ["apple", "apple", "fig", "pear"]);
    let mut by_length = vec!["pear", "apple", "fig", "kiwi"];
    sort_by_key(&mut by_length, |w| w.len());
    assert_eq!(by_length, ["fig", "pear", "kiwi", "apple"], "ties keep their order");
}

#[test]
fn maps_and_sets_hold_what_collect_would() {
    let pairs = [("b", 1), ("a", 2), ("b", 3)];
    assert_eq!(map_of(pairs), pairs.into_iter().collect::<BTreeMap<_, _>>(), "the last b wins");
    let items = [3, 1, 3, 2];
    assert_eq!(set_of(items), items.into_iter().collect::<BTreeSet<_>>());
}
