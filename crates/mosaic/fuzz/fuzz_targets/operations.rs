//! Decodes the fuzzer's bytes into a sequence of world operations and checks every answer against
//! a naive model (a map from entity to its components), plus the storage invariants, after every
//! step. Run with `scripts/fuzz.sh`.

#![no_main]

use std::collections::BTreeMap;

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use mosaic::{CommandBuffer, Component, Entity, View, World};

#[derive(Component, Clone, Copy, Debug, PartialEq, Arbitrary)]
struct A(u8);
#[derive(Component, Clone, Copy, Debug, PartialEq, Arbitrary)]
#[component(storage = "soa")]
struct B {
    x: u16,
    y: u8,
}
#[derive(Component, Clone, Copy, Debug, PartialEq, Arbitrary)]
#[component(cleanup = "lazy")]
struct C(u32);

#[derive(Arbitrary, Debug)]
enum Op {
    Spawn(Option<A>, Option<B>, Option<C>),
    Despawn(u8),
    InsertA(u8, A),
    InsertB(u8, B),
    InsertC(u8, C),
    RemoveA(u8),
    RemoveB(u8),
    Collect,
    Group,
    Sort,
    Buffered(Vec<(u8, bool)>),
    UseStale(u8),
}

#[derive(Default, Clone, Debug, PartialEq)]
struct Row {
    a: Option<A>,
    b: Option<B>,
    c: Option<C>,
}

fuzz_target!(|ops: Vec<Op>| {
    let mut world = World::with_entity_limits(64, 8);
    let mut model: BTreeMap<Entity, Row> = BTreeMap::new();
    let mut dead: Vec<Entity> = Vec::new();
    let pick = |model: &BTreeMap<Entity, Row>, i: u8| model.keys().nth(i as usize % model.len().max(1)).copied();
    for op in ops.into_iter().take(200) {
        match op {
            Op::Spawn(a, b, c) => {
                let Ok(e) = world.try_spawn(()) else { continue };
                if let Some(a) = a { world.insert(e, a); }
                if let Some(b) = b { world.insert(e, b); }
                if let Some(c) = c { world.insert(e, c); }
                model.insert(e, Row { a, b, c });
            }
            Op::Despawn(i) => {
                if let Some(e) = pick(&model, i) {
                    world.despawn(e);
                    model.remove(&e);
                    dead.push(e);
                }
            }
            Op::InsertA(i, v) => if let Some(e) = pick(&model, i) { assert_eq!(world.insert(e, v), model.get_mut(&e).unwrap().a.replace(v)); },
            Op::InsertB(i, v) => if let Some(e) = pick(&model, i) { assert_eq!(world.insert(e, v), model.get_mut(&e).unwrap().b.replace(v)); },
            Op::InsertC(i, v) => if let Some(e) = pick(&model, i) { assert_eq!(world.insert(e, v), model.get_mut(&e).unwrap().c.replace(v)); },
            Op::RemoveA(i) => if let Some(e) = pick(&model, i) { assert_eq!(world.remove::<A>(e), model.get_mut(&e).unwrap().a.take()); },
            Op::RemoveB(i) => if let Some(e) = pick(&model, i) { assert_eq!(world.remove::<B>(e), model.get_mut(&e).unwrap().b.take()); },
            Op::Collect => { world.collect_lazy(); }
            Op::Group => { let _ = world.try_group::<(A, B)>(); }
            Op::Sort => { let _ = world.sort_by::<A>(|x, y| x.0.cmp(&y.0)); }
            Op::Buffered(list) => {
                let mut commands = CommandBuffer::new();
                let mut expected = model.clone();
                for (i, despawn) in list.into_iter().take(16) {
                    let Some(e) = pick(&model, i) else { continue };
                    if despawn {
                        commands.despawn(e);
                        if expected.remove(&e).is_some() { dead.push(e); }
                    } else if let Some(row) = expected.get_mut(&e) {
                        commands.insert(e, A(i));
                        row.a = Some(A(i));
                    }
                }
                commands.apply(&mut world);
                model = expected;
            }
            Op::UseStale(i) => {
                if let Some(&e) = dead.get(i as usize % dead.len().max(1)) {
                    if !model.contains_key(&e) {
                        assert!(!world.is_alive(e));
                        assert!(world.get::<A>(e).is_err());
                        assert!(world.try_despawn(e).is_err());
                        assert!(world.try_insert(e, A(0)).is_err());
                    }
                }
            }
        }
        // The world agrees with the model, and the storage invariants hold.
        assert_eq!(world.len() as usize, model.len());
        for (&e, row) in &model {
            assert!(world.is_alive(e));
            assert_eq!(world.get::<A>(e).ok().copied(), row.a);
            assert_eq!(world.get::<B>(e).ok().map(|b| b.read()), row.b);
            assert_eq!(world.get::<C>(e).ok().copied(), row.c);
        }
        assert_eq!(world.query::<&A>().into_iter().count(), model.values().filter(|r| r.a.is_some()).count());
        assert_eq!(world.query::<(&A, &B)>().into_iter().count(), model.values().filter(|r| r.a.is_some() && r.b.is_some()).count());
        assert_eq!(world.query::<&C>().into_iter().count(), model.values().filter(|r| r.c.is_some()).count());
        for pool in world.components().pools() {
            pool.assert_invariants();
        }
        world.assert_group_invariants();
    }
});
