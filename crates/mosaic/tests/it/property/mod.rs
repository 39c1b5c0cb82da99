//! Model-based property test: random sequences of world operations (spawn, batches, despawn,
//! insert, replace, remove, get, queries, command buffers, stale and forged handles) run against
//! a naive model, with the world's answers and its invariants checked after every step. A third
//! run gives the world row subscribers on every component (add, replace and remove hooks, a
//! watch, an owning group) and checks after every step that each subscriber saw exactly the row
//! events the model implies.
//!
//! The case count defaults to 256 (8 under Miri, with shorter sequences) and follows the
//! `PROPTEST_CASES` environment variable, which the `proptest!` macro applies over the config.

use crate::common;

use std::any::type_name;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex};

use common::assert_pools_consistent;
use mosaic::{
    ApplyReport, CommandBuffer, ComponentError, Entity, EntityError, QueryError, With, Without, World,
};
use proptest::prelude::*;

/// Longest operation sequence (short under Miri, where every step's full check takes about a
/// second of wall time).
const MAX_OPS: usize = if cfg!(miri) { 8 } else { 200 };
/// Largest spawn batch and command list.
const MAX_BATCH: usize = if cfg!(miri) { 4 } else { 8 };

mod ops;
use ops::*;

/// Calls `$body` with `$bundle` bound to the bundle holding exactly `row`'s components.
macro_rules! with_bundle {
    ($row:expr, |$bundle:ident| $body:expr) => {{
        let row: &Row = $row;
        match (row.a.map(A), row.b.clone().map(B), row.c.then_some(C)) {
            (None, None, None) => {
                let $bundle = ();
                $body
            }
            (Some(a), None, None) => {
                let $bundle = a;
                $body
            }
            (None, Some(b), None) => {
                let $bundle = b;
                $body
            }
            (None, None, Some(c)) => {
                let $bundle = c;
                $body
            }
            (Some(a), Some(b), None) => {
                let $bundle = (a, b);
                $body
            }
            (Some(a), None, Some(c)) => {
                let $bundle = (a, c);
                $body
            }
            (None, Some(b), Some(c)) => {
                let $bundle = (b, c);
                $body
            }
            (Some(a), Some(b), Some(c)) => {
                let $bundle = (a, b, c);
                $body
            }
        }
    }};
}

/// `spawn_batch` of `rows`, which all have the components `shape` names.
fn spawn_batch(world: &mut World, shape: (bool, bool, bool), rows: &[Row]) -> Vec<Entity> {
    let a = |r: &Row| A(r.a.expect("row of the batch shape"));
    let b = |r: &Row| B(r.b.clone().expect("row of the batch shape"));
    let rows = rows.iter();
    match shape {
        (false, false, false) => world.spawn_batch(rows.map(|_| ())),
        (true, false, false) => world.spawn_batch(rows.map(a)),
        (false, true, false) => world.spawn_batch(rows.map(b)),
        (false, false, true) => world.spawn_batch(rows.map(|_| C)),
        (true, true, false) => world.spawn_batch(rows.map(|r| (a(r), b(r)))),
        (true, false, true) => world.spawn_batch(rows.map(|r| (a(r), C))),
        (false, true, true) => world.spawn_batch(rows.map(|r| (b(r), C))),
        (true, true, true) => world.spawn_batch(rows.map(|r| (a(r), b(r), C))),
    }
}

/// A handle with `world`'s tag that no world in this test ever issues (its index is never
/// reached).
fn never_issued(world: &World) -> Entity {
    let tag = u64::from(world.entities().world_tag());
    Entity::from_bits(tag << 56 | 1 << 32 | u64::from(u32::MAX - 1)).unwrap()
}

/// The world under test beside its model.
struct Harness {
    world: World,
    /// The live entities and their components.
    model: BTreeMap<Entity, Row>,
    /// Every handle ever issued, in issue order.
    handles: Vec<Entity>,
    /// Per slot index ever used, the generation of its latest handle.
    latest: BTreeMap<u32, u32>,
    /// `(max_entities, max_generation)` of a limited world.
    limits: Option<(u32, u32)>,
    /// One buffer reused by every command step.
    commands: CommandBuffer,
    /// What the world's row subscribers have seen, when it has them.
    observed: Option<Arc<Mutex<Observed>>>,
}

/// The state row subscribers keep, from the row events they see: per component, the entities
/// its add and remove hooks say have it (each add must find it absent, each remove and replace
/// present), and the entities a watch of (A, B) without C says match.
#[derive(Default, Debug)]
struct Observed {
    a: BTreeSet<Entity>,
    b: BTreeSet<Entity>,
    c: BTreeSet<Entity>,
    replaced: usize,
    watched: BTreeSet<Entity>,
}

impl Observed {
    fn set(&mut self, which: usize) -> &mut BTreeSet<Entity> {
        match which {
            0 => &mut self.a,
            1 => &mut self.b,
            _ => &mut self.c,
        }
    }
}

/// Gives `world` hooks of every kind on A, B and C, a watch of (A, B) without C and an owning
/// group of (A, C), all recording into the returned state.
fn observe(world: &mut World) -> Arc<Mutex<Observed>> {
    let state = Arc::new(Mutex::new(Observed::default()));
    macro_rules! hooks {
        ($t:ty, $which:expr) => {{
            let s = Arc::clone(&state);
            world.on_add::<$t>(move |ctx| {
                assert!(ctx.world.contains::<$t>(ctx.entity), "on_add runs after the row is in");
                assert!(s.lock().unwrap().set($which).insert(ctx.entity), "{} added twice", ctx.entity);
            });
            let s = Arc::clone(&state);
            world.on_replace::<$t>(move |ctx| {
                let mut s = s.lock().unwrap();
                assert!(s.set($which).contains(&ctx.entity), "replace of an absent row");
                s.replaced += 1;
            });
            let s = Arc::clone(&state);
            world.on_remove::<$t>(move |ctx| {
                assert!(ctx.world.contains::<$t>(ctx.entity), "on_remove runs before the row goes");
                assert!(s.lock().unwrap().set($which).remove(&ctx.entity), "{} removed twice", ctx.entity);
            });
        }};
    }
    hooks!(A, 0);
    hooks!(B, 1);
    hooks!(C, 2);
    let (enter, leave) = (Arc::clone(&state), Arc::clone(&state));
    world.watch::<(&A, &B), Without<C>>(
        move |ctx| assert!(enter.lock().unwrap().watched.insert(ctx.entity), "entered twice"),
        move |ctx| assert!(leave.lock().unwrap().watched.remove(&ctx.entity), "left without entering"),
    );
    world.group::<(A, C)>();
    state
}

impl Harness {
    fn new(limits: Option<(u32, u32)>, observed: bool) -> Self {
        let mut world = limits.map_or_else(World::new, |(n, g)| World::with_entity_limits(n, g));
        let observed = observed.then(|| observe(&mut world));
        Self {
            world,
            model: BTreeMap::new(),
            handles: Vec::new(),
            latest: BTreeMap::new(),
            limits,
            commands: CommandBuffer::new(),
            observed,
        }
    }

    /// The subscribers' state equals what the model's rows imply, and the group is packed.
    #[track_caller]
    fn check_subscribers(&self) {
        let Some(observed) = &self.observed else { return };
        let observed = observed.lock().unwrap();
        let having = |f: fn(&Row) -> bool| -> BTreeSet<Entity> {
            self.model.iter().filter(|(_, r)| f(r)).map(|(&e, _)| e).collect()
        };
        assert_eq!(observed.a, having(|r| r.a.is_some()), "A's add and remove hooks");
        assert_eq!(observed.b, having(|r| r.b.is_some()), "B's add and remove hooks");
        assert_eq!(observed.c, having(|r| r.c), "C's add and remove hooks");
        assert_eq!(observed.watched, having(|r| r.a.is_some() && r.b.is_some() && !r.c), "the watch");
        self.world.assert_group_invariants();
    }

    fn resolve(&self, pick: Pick) -> Entity {
        if pick.live && !self.model.is_empty() {
            *self.model.keys().nth(pick.n % self.model.len()).unwrap()
        } else if !self.handles.is_empty() {
            self.handles[pick.n % self.handles.len()]
        } else {
            never_issued(&self.world)
        }
    }

    /// How many entities can still be spawned: free slots that are not retired plus unused
    /// indices.
    fn capacity(&self) -> usize {
        let Some((max_slots, max_generation)) = self.limits else {
            return usize::MAX;
        };
        let live_indices: BTreeSet<u32> = self.model.keys().map(|e| e.index()).collect();
        let free = self
            .latest
            .iter()
            .filter(|&(index, &generation)| !live_indices.contains(index) && generation < max_generation)
            .count();
        free + (max_slots as usize - self.latest.len())
    }

    /// Records a newly issued handle, checking the allocator never repeats or revives one.
    #[track_caller]
    fn issued(&mut self, entity: Entity, row: Row) {
        assert!(self.world.is_alive(entity));
        assert!(
            !self.model.keys().any(|e| e.index() == entity.index()),
            "{entity} reuses the slot of a live entity"
        );
        match self.latest.get(&entity.index()) {
            Some(&generation) => assert!(
                entity.generation() > generation,
                "{entity} reissues generation {generation} or older"
            ),
            None => {
                assert_eq!(entity.generation(), 1, "{entity}: a fresh slot starts at 1");
                assert_eq!(
                    entity.index() as usize,
                    self.latest.len(),
                    "{entity}: fresh slots are handed out in index order"
                );
            }
        }
        if let Some((max_slots, max_generation)) = self.limits {
            assert!(entity.index() < max_slots && entity.generation() <= max_generation);
        }
        self.latest.insert(entity.index(), entity.generation());
        self.handles.push(entity);
        self.model.insert(entity, row);
    }

    fn step(&mut self, op: Op) {
        match op {
            Op::Spawn(row) => {
                let capacity = self.capacity();
                let result = with_bundle!(&row, |bundle| self.world.try_spawn(bundle));
                if capacity == 0 {
                    let limit = self.limits.unwrap().0;
                    assert_eq!(result, Err(EntityError::Exhausted { limit }));
                } else {
                    self.issued(result.unwrap(), row);
                }
            }
            Op::SpawnBatch(shape, mut rows) => {
                rows.truncate(self.capacity());
                let spawned = spawn_batch(&mut self.world, shape, &rows);
                assert_eq!(spawned.len(), rows.len());
                for (entity, row) in spawned.into_iter().zip(rows) {
                    self.issued(entity, row);
                }
            }
            Op::Despawn(pick) => {
                let entity = self.resolve(pick);
                let result = self.world.try_despawn(entity);
                if self.model.remove(&entity).is_some() {
                    assert_eq!(result, Ok(()));
                } else {
                    assert_eq!(result, Err(EntityError::NoSuchEntity(entity)));
                }
            }
            Op::Insert(pick, value) => self.insert(self.resolve(pick), value),
            Op::InsertBundle(pick, a, b) => {
                let entity = self.resolve(pick);
                let result = self.world.try_insert_bundle(entity, (A(a), B(b.clone())));
                match self.model.get_mut(&entity) {
                    Some(row) => {
                        assert_eq!(result, Ok(()));
                        row.a = Some(a);
                        row.b = Some(b);
                    }
                    None => {
                        assert_eq!(result, Err(ComponentError::Entity(EntityError::NoSuchEntity(entity))))
                    }
                }
            }
            Op::Remove(pick, kind) => self.remove(self.resolve(pick), kind),
            Op::InsertBatch(rows) => {
                let rows: Vec<(Entity, u32)> = rows
                    .iter()
                    .map(|&(pick, a)| (self.resolve(pick), a))
                    .filter(|(entity, _)| self.model.contains_key(entity))
                    .collect();
                self.world.insert_batch(rows.iter().map(|&(entity, a)| (entity, A(a))));
                for (entity, a) in rows {
                    self.model.get_mut(&entity).unwrap().a = Some(a);
                }
            }
            Op::RemoveBatch(picks, kind) => {
                let entities: Vec<Entity> = picks
                    .iter()
                    .map(|&pick| self.resolve(pick))
                    .filter(|e| self.model.contains_key(e))
                    .collect();
                let removed = match kind {
                    Kind::A => self.world.remove_batch::<A>(entities.iter().copied()),
                    Kind::B => self.world.remove_batch::<B>(entities.iter().copied()),
                    Kind::C => self.world.remove_batch::<C>(entities.iter().copied()),
                };
                let mut expected = 0;
                for entity in &entities {
                    let row = self.model.get_mut(entity).unwrap();
                    expected += usize::from(match kind {
                        Kind::A => row.a.take().is_some(),
                        Kind::B => row.b.take().is_some(),
                        Kind::C => std::mem::take(&mut row.c),
                    });
                }
                assert_eq!(removed, expected, "remove_batch counts the entities that had one");
            }
            Op::Get(pick) => self.check_entity(self.resolve(pick)),
            Op::Forge(pick, up) => {
                let entity = self.resolve(pick);
                let generation = if up {
                    entity.generation().checked_add(1)
                } else {
                    entity.generation().checked_sub(1).filter(|&g| g > 0)
                };
                if let Some(generation) = generation {
                    // Same world tag (top 8 bits) and index, another generation.
                    let bits = (entity.to_bits() & !(u64::from(Entity::MAX_GENERATION) << 32))
                        | (u64::from(generation) << 32);
                    let forged = Entity::from_bits(bits).unwrap();
                    self.check_entity(forged);
                    // A forged handle changes nothing unless it names a live entity.
                    let result = self.world.try_insert(forged, C);
                    match self.model.get_mut(&forged) {
                        Some(row) => {
                            assert_eq!(result, Ok(row.c.then_some(C)));
                            row.c = true;
                        }
                        None => {
                            assert_eq!(result, Err(ComponentError::Entity(EntityError::NoSuchEntity(forged))))
                        }
                    }
                }
            }
            Op::Query => self.check_queries(),
            Op::QueryMut(delta) => {
                for (a, c) in self.world.query::<(&mut A, Option<&C>)>() {
                    if c.is_some() {
                        a.0 = a.0.wrapping_add(delta);
                    }
                }
                for row in self.model.values_mut() {
                    if let (Some(a), true) = (&mut row.a, row.c) {
                        *a = a.wrapping_add(delta);
                    }
                }
            }
            Op::Commands(cmds) => self.commands(cmds),
            Op::CommandsFromQuery => self.commands_from_query(),
        }
    }

    fn insert(&mut self, entity: Entity, value: Value) {
        let row = self.model.get_mut(&entity);
        let alive = row.is_some();
        let dead = ComponentError::Entity(EntityError::NoSuchEntity(entity));
        match (value, row) {
            (Value::A(v), Some(row)) => {
                assert_eq!(self.world.try_insert(entity, A(v)), Ok(row.a.map(A)));
                row.a = Some(v);
            }
            (Value::B(v), Some(row)) => {
                assert_eq!(self.world.try_insert(entity, B(v.clone())), Ok(row.b.clone().map(B)));
                row.b = Some(v);
            }
            (Value::C, Some(row)) => {
                assert_eq!(self.world.try_insert(entity, C), Ok(row.c.then_some(C)));
                row.c = true;
            }
            (Value::A(v), None) => assert_eq!(self.world.try_insert(entity, A(v)), Err(dead)),
            (Value::B(v), None) => assert_eq!(self.world.try_insert(entity, B(v)), Err(dead)),
            (Value::C, None) => assert_eq!(self.world.try_insert(entity, C), Err(dead)),
        }
        assert_eq!(self.world.is_alive(entity), alive);
    }

    fn remove(&mut self, entity: Entity, kind: Kind) {
        fn expect<T: PartialEq + std::fmt::Debug>(
            result: Result<T, ComponentError>,
            entity: Entity,
            model: Option<Option<T>>,
        ) {
            match model {
                None => assert_eq!(result, Err(ComponentError::Entity(EntityError::NoSuchEntity(entity)))),
                Some(None) => assert_eq!(
                    result,
                    Err(ComponentError::MissingComponent { entity, component: type_name::<T>() })
                ),
                Some(Some(value)) => assert_eq!(result, Ok(value)),
            }
        }
        let row = self.model.get_mut(&entity);
        match kind {
            Kind::A => {
                let model = row.map(|row| row.a.take().map(A));
                expect(self.world.try_remove::<A>(entity), entity, model);
            }
            Kind::B => {
                let model = row.map(|row| row.b.take().map(B));
                expect(self.world.try_remove::<B>(entity), entity, model);
            }
            Kind::C => {
                let model = row.map(|row| std::mem::take(&mut row.c).then_some(C));
                expect(self.world.try_remove::<C>(entity), entity, model);
            }
        }
    }

    /// Records `cmds` (resolving handles now), applies them, and checks the report and the
    /// spawned entities against the model.
    fn commands(&mut self, cmds: Vec<Cmd>) {
        assert!(self.commands.is_empty());
        let mut spawn_budget = self.capacity();
        // Record, resolving picks against the world as it is now.
        let mut recorded = Vec::new();
        for cmd in cmds {
            match cmd {
                Cmd::Spawn(row) => {
                    if spawn_budget == 0 {
                        continue;
                    }
                    spawn_budget -= 1;
                    with_bundle!(&row, |bundle| self.commands.spawn(&self.world, bundle));
                    recorded.push((None, Cmd::Spawn(row)));
                }
                Cmd::Insert(pick, value) => {
                    let e = self.resolve(pick);
                    match &value {
                        Value::A(v) => self.commands.insert(e, A(*v)),
                        Value::B(v) => self.commands.insert(e, B(v.clone())),
                        Value::C => self.commands.insert(e, C),
                    }
                    recorded.push((Some(e), Cmd::Insert(pick, value)));
                }
                Cmd::InsertAb(pick, a, b) => {
                    let e = self.resolve(pick);
                    self.commands.insert(e, (A(a), B(b.clone())));
                    recorded.push((Some(e), Cmd::InsertAb(pick, a, b)));
                }
                Cmd::Remove(pick, kind) => {
                    let e = self.resolve(pick);
                    match kind {
                        Kind::A => self.commands.remove::<A>(e),
                        Kind::B => self.commands.remove::<B>(e),
                        Kind::C => self.commands.remove::<C>(e),
                    }
                    recorded.push((Some(e), Cmd::Remove(pick, kind)));
                }
                Cmd::Despawn(pick) => {
                    let e = self.resolve(pick);
                    self.commands.despawn(e);
                    recorded.push((Some(e), Cmd::Despawn(pick)));
                }
            }
        }
        assert_eq!(self.commands.len(), recorded.len());

        // The model applies them in order.
        let mut expected = ApplyReport::default();
        let mut spawned_rows = Vec::new();
        for (entity, cmd) in recorded {
            let row = entity.and_then(|e| self.model.get_mut(&e));
            let alive = entity.is_none() || row.is_some();
            match (cmd, row) {
                (Cmd::Spawn(row), _) => {
                    spawned_rows.push(row);
                    expected.spawned += 1;
                }
                (_, None) => {}
                (Cmd::Insert(_, Value::A(v)), Some(row)) => row.a = Some(v),
                (Cmd::Insert(_, Value::B(v)), Some(row)) => row.b = Some(v),
                (Cmd::Insert(_, Value::C), Some(row)) => row.c = true,
                (Cmd::InsertAb(_, a, b), Some(row)) => {
                    row.a = Some(a);
                    row.b = Some(b);
                }
                (Cmd::Remove(_, Kind::A), Some(row)) => row.a = None,
                (Cmd::Remove(_, Kind::B), Some(row)) => row.b = None,
                (Cmd::Remove(_, Kind::C), Some(row)) => row.c = false,
                (Cmd::Despawn(_), Some(_)) => {
                    self.model.remove(&entity.unwrap());
                    expected.despawned += 1;
                }
            }
            if alive {
                expected.applied += 1;
            } else {
                expected.skipped += 1;
            }
        }

        let report = self.commands.apply(&mut self.world);
        assert_eq!(report, expected);
        assert!(self.commands.is_empty());
        self.adopt_spawned(spawned_rows);
    }

    /// Finds the entities a command buffer spawned (live in the world, unknown to the model),
    /// checks their components are `rows` in some order, and adds them to the model.
    fn adopt_spawned(&mut self, mut rows: Vec<Row>) {
        let new: Vec<Entity> = self.world.entities().iter().filter(|e| !self.model.contains_key(e)).collect();
        assert_eq!(new.len(), rows.len(), "spawned entities");
        let mut found: Vec<(Entity, Row)> = new.into_iter().map(|e| (e, self.row_of(e))).collect();
        let mut found_rows: Vec<Row> = found.iter().map(|(_, r)| r.clone()).collect();
        found_rows.sort();
        rows.sort();
        assert_eq!(found_rows, rows);
        found.sort_by_key(|&(e, _)| e);
        for (e, row) in found {
            self.issued(e, row);
        }
    }

    /// What the world says `entity` has.
    fn row_of(&self, entity: Entity) -> Row {
        let row = Row {
            a: self.world.get::<A>(entity).ok().map(|a| a.0),
            b: self.world.get::<B>(entity).ok().map(|b| b.0.clone()),
            c: self.world.contains::<C>(entity),
        };
        assert_eq!(
            self.world.component_ids(entity).map(<[_]>::len),
            Ok(row.component_count()),
            "component set of {entity}"
        );
        let ids = self.world.components();
        let mut expected: Vec<_> =
            [(row.a.is_some(), ids.id::<A>()), (row.b.is_some(), ids.id::<B>()), (row.c, ids.id::<C>())]
                .into_iter()
                .filter(|&(has, _)| has)
                .map(|(_, id)| id.expect("a component present is registered"))
                .collect();
        expected.sort();
        assert_eq!(self.world.component_ids(entity), Ok(expected.as_slice()), "component ids of {entity}");
        row
    }

    /// Records commands while iterating a query: despawn, insert or remove, chosen by `A`'s value.
    fn commands_from_query(&mut self) {
        let mut expected = ApplyReport::default();
        for (e, a, b) in self.world.query::<(Entity, &A, Option<&B>)>() {
            match a.0 % 3 {
                0 => self.commands.despawn(e),
                1 => self.commands.insert(e, C),
                _ if b.is_some() => self.commands.remove::<B>(e),
                _ => self.commands.insert(e, B(format!("q{}", a.0))),
            }
        }
        let mut despawn = Vec::new();
        for (&e, row) in &mut self.model {
            let Some(a) = row.a else { continue };
            expected.applied += 1;
            match a % 3 {
                0 => {
                    despawn.push(e);
                    expected.despawned += 1;
                }
                1 => row.c = true,
                _ if row.b.is_some() => row.b = None,
                _ => row.b = Some(format!("q{a}")),
            }
        }
        for e in despawn {
            self.model.remove(&e);
        }
        assert_eq!(self.commands.apply(&mut self.world), expected);
    }

    /// The world's answers about `entity` equal the model's.
    #[track_caller]
    fn check_entity(&mut self, entity: Entity) {
        let dead = ComponentError::Entity(EntityError::NoSuchEntity(entity));
        match self.model.get(&entity) {
            Some(row) => {
                assert!(self.world.is_alive(entity));
                assert_eq!(&self.row_of(entity), row, "components of {entity}");
                assert_eq!(self.world.get_entity(entity).map(|r| r.id()), Ok(entity));
                let expected = match (row.a, &row.b) {
                    (Some(a), Some(b)) => Ok((a, b.clone())),
                    _ => Err(QueryError::NoMatch { entity, query: type_name::<(&A, &B)>() }),
                };
                let query = self.world.query::<(&A, &B)>();
                let got = query.get(entity).map(|(a, b)| (a.0, b.0.clone()));
                assert_eq!(got, expected);
            }
            None => {
                assert!(!self.world.is_alive(entity));
                assert_eq!(self.world.get::<A>(entity), Err(dead));
                assert_eq!(self.world.get_mut::<B>(entity), Err(dead));
                assert!(!self.world.contains::<C>(entity));
                assert_eq!(self.world.component_ids(entity), Err(EntityError::NoSuchEntity(entity)));
                let query = self.world.query::<Entity>();
                assert_eq!(query.get(entity), Err(QueryError::Entity(EntityError::NoSuchEntity(entity))));
            }
        }
    }

    /// Query answers equal the model's.
    fn check_queries(&mut self) {
        let model = &self.model;
        let a_values: Vec<u32> = model.values().filter_map(|r| r.a).collect();
        let count = self.world.query::<&A>().into_iter().count();
        let sum: u64 = self.world.query::<&A>().into_iter().map(|a| u64::from(a.0)).sum();
        assert_eq!(count, a_values.len());
        assert_eq!(sum, a_values.iter().map(|&a| u64::from(a)).sum::<u64>());

        let ab: BTreeMap<Entity, (u32, String)> = self
            .world
            .query::<(Entity, &A, &B)>()
            .into_iter()
            .map(|(e, a, b)| (e, (a.0, b.0.clone())))
            .collect();
        let expected: BTreeMap<Entity, (u32, String)> =
            model.iter().filter_map(|(&e, r)| Some((e, (r.a?, r.b.clone()?)))).collect();
        assert_eq!(ab, expected);

        let c_not_a: BTreeSet<Entity> =
            self.world.query_filtered::<Entity, (With<C>, Without<A>)>().into_iter().collect();
        let expected: BTreeSet<Entity> =
            model.iter().filter(|(_, r)| r.c && r.a.is_none()).map(|(&e, _)| e).collect();
        assert_eq!(c_not_a, expected);

        let mut all = Vec::new();
        self.world.query::<(Entity, Option<&B>)>().for_each(|(e, b)| all.push((e, b.map(|b| b.0.clone()))));
        let expected: Vec<(Entity, Option<String>)> = model.iter().map(|(&e, r)| (e, r.b.clone())).collect();
        assert_eq!(all, expected, "a query requiring nothing walks live entities in index order");

        let world = &self.world;
        let b_of_c = world.query_ref_filtered::<(Entity, &B), With<C>>();
        let mut n = 0;
        for (e, b) in b_of_c.iter() {
            assert_eq!(world.get::<B>(e), Ok(b));
            assert_eq!(model[&e].b.as_ref(), Some(&b.0));
            assert!(model[&e].c);
            n += 1;
        }
        assert_eq!(n, model.values().filter(|r| r.c && r.b.is_some()).count());
    }

    /// Every invariant, and the world's answers for every handle ever issued.
    #[track_caller]
    fn check(&mut self) {
        assert_eq!(self.world.len() as usize, self.model.len());
        assert_eq!(self.world.is_empty(), self.model.is_empty());
        assert_eq!(self.world.entities().slot_count() as usize, self.latest.len());
        if let Some((_, max_generation)) = self.limits {
            let retired = self
                .latest
                .iter()
                .filter(|&(&index, &generation)| {
                    generation == max_generation && !self.model.keys().any(|e| e.index() == index)
                })
                .count();
            assert_eq!(self.world.entities().retired_count() as usize, retired);
        }
        assert_pools_consistent(&self.world);
        let count = |f: fn(&Row) -> bool| self.model.values().filter(|r| f(r)).count();
        let pool_len =
            |id: Option<mosaic::ComponentId>| id.map_or(0, |id| self.world.components().pool(id).len());
        let components = self.world.components();
        assert_eq!(pool_len(components.id::<A>()), count(|r| r.a.is_some()));
        assert_eq!(pool_len(components.id::<B>()), count(|r| r.b.is_some()));
        assert_eq!(pool_len(components.id::<C>()), count(|r| r.c));

        let live: Vec<Entity> = self.world.entities().iter().collect();
        assert!(live.iter().copied().eq(self.model.keys().copied()));
        for (&e, row) in &self.model {
            assert_eq!(&self.row_of(e), row, "components of {e}");
        }
        for &e in &self.handles {
            assert_eq!(self.world.is_alive(e), self.model.contains_key(&e), "{e}");
        }
        assert!(!self.world.is_alive(never_issued(&self.world)));
        self.check_subscribers();
    }
}

fn run(limits: Option<(u32, u32)>, observed: bool, ops: Vec<Op>) {
    let mut harness = Harness::new(limits, observed);
    harness.check();
    for op in ops {
        harness.step(op);
        harness.check();
    }
    // Tear down through despawn: everything goes, and every pool ends empty.
    let live: Vec<Entity> = harness.model.keys().copied().collect();
    for e in live {
        harness.world.despawn(e);
    }
    assert!(harness.world.is_empty());
    for pool in harness.world.components().pools() {
        assert!(pool.is_empty());
    }
    // Every remove hook and watch leave fired for the despawns.
    harness.model.clear();
    harness.check_subscribers();
}

fn config() -> ProptestConfig {
    let mut config = ProptestConfig::with_cases(if cfg!(miri) { 8 } else { 256 });
    if cfg!(miri) {
        // Miri's isolation forbids the file access of failure persistence.
        config.failure_persistence = None;
    }
    config
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn world_matches_model(ops in proptest::collection::vec(op(), 0..=MAX_OPS)) {
        run(None, false, ops);
    }

    #[test]
    fn limited_world_matches_model(ops in proptest::collection::vec(op(), 0..=MAX_OPS)) {
        // Eight slots of three generations: exhaustion and retirement happen within a case.
        run(Some((8, 3)), false, ops);
    }

    #[test]
    fn observed_world_matches_model_and_subscribers_see_every_row_event(
        ops in proptest::collection::vec(op(), 0..=MAX_OPS)
    ) {
        run(None, true, ops);
    }
}
