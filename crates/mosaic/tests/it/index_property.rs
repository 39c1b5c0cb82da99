//! Model-based property test of value indexes: random spawns, despawns, inserts, removes,
//! `get_mut` writes, query writes (`&mut T` and `Mut<T>`), command buffers, clears and clock
//! steps run against a naive model (entity -> key). After every step the value index equals one
//! rebuilt from scratch (the model); a second index, by a key function, is looked up only now and
//! then, so it catches up on many writes at once, and is checked each time it is.
//!
//! The case count defaults to 256 and follows `PROPTEST_CASES`.

use std::collections::{BTreeMap, BTreeSet};

use mosaic::{CommandBuffer, Component, Entity, Mut, World};
use proptest::prelude::*;

#[derive(Component, Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct Key(u8);

#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct Other;

/// The key function of the second index.
fn parity(key: &Key) -> bool {
    key.0.is_multiple_of(2)
}

#[derive(Clone, Debug)]
enum Op {
    /// Spawn with a key or without, with `Other` or not.
    Spawn(Option<u8>, bool),
    /// Spawn a batch with these keys.
    SpawnBatch(Vec<u8>),
    /// Despawn the picked live entity.
    Despawn(usize),
    /// Insert (add or replace) a key on the picked entity.
    Insert(usize, u8),
    /// Insert a key and `Other` together.
    InsertBundle(usize, u8),
    /// Remove the picked entity's key.
    Remove(usize),
    /// Write the picked entity's key in place.
    GetMut(usize, u8),
    /// Write in place through `EntityMut`.
    EntityMut(usize, u8),
    /// Every key `from` becomes `to`, through a `&mut Key` query.
    QueryWrite(u8, u8),
    /// Every key `from` becomes `to`, through a `Mut<Key>` query.
    QueryMutWrite(u8, u8),
    /// Record an insert, a remove and a despawn in a command buffer and apply it.
    Commands(usize, u8, usize, usize),
    /// Advance the change clock.
    ClearTrackers,
    /// Look the keyed index up and check it.
    CheckKeyed,
    /// Despawn everything.
    Clear,
}

fn op() -> impl Strategy<Value = Op> {
    let key = 0u8..5;
    prop_oneof![
        4 => (proptest::option::of(key.clone()), any::<bool>()).prop_map(|(k, o)| Op::Spawn(k, o)),
        1 => proptest::collection::vec(key.clone(), 0..6).prop_map(Op::SpawnBatch),
        2 => any::<usize>().prop_map(Op::Despawn),
        3 => (any::<usize>(), key.clone()).prop_map(|(p, k)| Op::Insert(p, k)),
        1 => (any::<usize>(), key.clone()).prop_map(|(p, k)| Op::InsertBundle(p, k)),
        2 => any::<usize>().prop_map(Op::Remove),
        4 => (any::<usize>(), key.clone()).prop_map(|(p, k)| Op::GetMut(p, k)),
        2 => (any::<usize>(), key.clone()).prop_map(|(p, k)| Op::EntityMut(p, k)),
        2 => (key.clone(), key.clone()).prop_map(|(a, b)| Op::QueryWrite(a, b)),
        2 => (key.clone(), key.clone()).prop_map(|(a, b)| Op::QueryMutWrite(a, b)),
        2 => (any::<usize>(), key, any::<usize>(), any::<usize>())
            .prop_map(|(a, k, b, c)| Op::Commands(a, k, b, c)),
        1 => Just(Op::ClearTrackers),
        2 => Just(Op::CheckKeyed),
        1 => Just(Op::Clear),
    ]
}

/// The live entities and their keys (`None`: alive without a key).
#[derive(Default)]
struct Model(BTreeMap<Entity, Option<u8>>);

impl Model {
    fn pick(&self, at: usize) -> Option<Entity> {
        (!self.0.is_empty()).then(|| *self.0.keys().nth(at % self.0.len()).unwrap())
    }

    /// The index rebuilt from scratch: key -> entities.
    fn buckets<K: Ord>(&self, key: impl Fn(&Key) -> K) -> BTreeMap<K, BTreeSet<Entity>> {
        let mut out: BTreeMap<K, BTreeSet<Entity>> = BTreeMap::new();
        for (&e, k) in &self.0 {
            if let Some(k) = k {
                out.entry(key(&Key(*k))).or_default().insert(e);
            }
        }
        out
    }
}

fn check_value_index(world: &mut World, model: &Model) {
    let want = model.buckets(|k| *k);
    let index = world.index::<Key>();
    let got: BTreeMap<Key, BTreeSet<Entity>> =
        index.iter().map(|(k, b)| (*k, b.iter().copied().collect())).collect();
    assert_eq!(got, want);
    for (&e, k) in &model.0 {
        assert_eq!(index.key_of(e), k.map(Key).as_ref(), "key of {e}");
    }
    assert_eq!(index.entity_count(), want.values().map(BTreeSet::len).sum::<usize>());
    for (k, bucket) in index.iter() {
        assert_eq!(index.get(k), bucket);
    }
}

fn check_keyed_index(world: &mut World, model: &Model) {
    let want = model.buckets(parity);
    let index = world.index_by_key::<Key, bool>();
    let got: BTreeMap<bool, BTreeSet<Entity>> =
        index.iter().map(|(k, b)| (*k, b.iter().copied().collect())).collect();
    assert_eq!(got, want);
}

fn run(ops: Vec<Op>) {
    let mut world = World::new();
    world.add_index::<Key>();
    world.add_index_by_key::<Key, bool>(parity);
    let mut model = Model::default();
    for op in ops {
        match op {
            Op::Spawn(key, other) => {
                let e = match (key, other) {
                    (Some(k), true) => world.spawn((Key(k), Other)),
                    (Some(k), false) => world.spawn(Key(k)),
                    (None, true) => world.spawn(Other),
                    (None, false) => world.spawn_empty(),
                };
                model.0.insert(e, key);
            }
            Op::SpawnBatch(keys) => {
                let all = world.spawn_batch(keys.iter().map(|&k| Key(k)));
                model.0.extend(all.into_iter().zip(keys.into_iter().map(Some)));
            }
            Op::Despawn(at) => {
                if let Some(e) = model.pick(at) {
                    world.despawn(e);
                    model.0.remove(&e);
                }
            }
            Op::Insert(at, k) => {
                if let Some(e) = model.pick(at) {
                    world.insert(e, Key(k));
                    model.0.insert(e, Some(k));
                }
            }
            Op::InsertBundle(at, k) => {
                if let Some(e) = model.pick(at) {
                    world.insert_bundle(e, (Other, Key(k)));
                    model.0.insert(e, Some(k));
                }
            }
            Op::Remove(at) => {
                if let Some(e) = model.pick(at) {
                    assert_eq!(world.remove::<Key>(e).map(|k| k.0), model.0[&e]);
                    model.0.insert(e, None);
                }
            }
            Op::GetMut(at, k) => {
                if let Some(e) = model.pick(at)
                    && let Ok(key) = world.get_mut::<Key>(e)
                {
                    key.0 = k;
                    model.0.insert(e, Some(k));
                }
            }
            Op::EntityMut(at, k) => {
                if let Some(e) = model.pick(at)
                    && let Ok(key) = world.entity_mut(e).get_mut::<Key>()
                {
                    *key = Key(k);
                    model.0.insert(e, Some(k));
                }
            }
            Op::QueryWrite(from, to) => {
                world.query::<&mut Key>().for_each(|k| {
                    if k.0 == from {
                        k.0 = to;
                    }
                });
                model.0.values_mut().filter(|k| **k == Some(from)).for_each(|k| *k = Some(to));
            }
            Op::QueryMutWrite(from, to) => {
                for mut k in world.query::<Mut<Key>>() {
                    if k.0 == from {
                        k.0 = to;
                    }
                }
                model.0.values_mut().filter(|k| **k == Some(from)).for_each(|k| *k = Some(to));
            }
            Op::Commands(a, k, b, c) => {
                let mut commands = CommandBuffer::new();
                let (a, b, c) = (model.pick(a), model.pick(b), model.pick(c));
                if let Some(a) = a {
                    commands.insert(a, Key(k));
                    model.0.insert(a, Some(k));
                }
                if let Some(b) = b {
                    commands.remove::<Key>(b);
                    model.0.insert(b, None);
                }
                if let Some(c) = c {
                    commands.despawn(c);
                    model.0.remove(&c);
                }
                commands.apply(&mut world);
            }
            Op::ClearTrackers => world.clear_trackers(),
            Op::CheckKeyed => check_keyed_index(&mut world, &model),
            Op::Clear => {
                world.clear();
                model.0.clear();
            }
        }
        check_value_index(&mut world, &model);
    }
    check_keyed_index(&mut world, &model);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(if cfg!(miri) { 8 } else { 256 }))]

    #[test]
    fn indexes_match_a_rebuild_after_every_step(ops in proptest::collection::vec(op(), 0..=120)) {
        run(ops);
    }
}
