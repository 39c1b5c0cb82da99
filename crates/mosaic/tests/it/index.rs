//! Value indexes: `World::add_index` / `add_index_by_key`, lookups through the world and the
//! `Index` system parameter, kept exact through every write path, restores and loads.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex};

use mosaic::{CommandBuffer, Component, Entity, Index, IndexError, Mut, Query, Schedule, Template, World};

#[derive(Component, Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Team {
    Red,
    Blue,
    Green,
}

#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct Pos {
    x: i32,
    y: i32,
}

#[derive(Component, Clone, Debug, PartialEq)]
struct Tag;

fn cell(p: &Pos) -> (i32, i32) {
    (p.x.div_euclid(10), p.y.div_euclid(10))
}

/// The index of `Team` as sorted sets, for order-free comparison.
fn buckets(world: &mut World) -> BTreeMap<Team, BTreeSet<Entity>> {
    world.index::<Team>().iter().map(|(k, b)| (*k, b.iter().copied().collect())).collect()
}

/// What the index must hold: every `Team` in the world, read by a query.
fn expected(world: &mut World) -> BTreeMap<Team, BTreeSet<Entity>> {
    let mut out: BTreeMap<Team, BTreeSet<Entity>> = BTreeMap::new();
    for (e, t) in world.query::<(Entity, &Team)>() {
        out.entry(*t).or_default().insert(e);
    }
    out
}

fn check(world: &mut World) {
    let want = expected(world);
    assert_eq!(buckets(world), want);
    let index = world.index::<Team>();
    assert_eq!(index.len(), want.len());
    assert_eq!(index.entity_count(), want.values().map(BTreeSet::len).sum::<usize>());
    for (team, set) in &want {
        for &e in set {
            assert_eq!(index.key_of(e), Some(team));
        }
    }
}

#[test]
fn structural_writes_refile() {
    let mut world = World::new();
    world.add_index::<Team>();
    let a = world.spawn(Team::Red);
    let b = world.spawn((Team::Blue, Tag));
    let c = world.spawn_empty();
    assert_eq!(world.index::<Team>().get(&Team::Red), [a]);
    world.insert(c, Team::Red);
    assert_eq!(world.index::<Team>().get(&Team::Red), [a, c], "bucket in filing order");
    world.insert(a, Team::Green); // replace
    assert_eq!(world.index::<Team>().get(&Team::Red), [c]);
    assert_eq!(world.index::<Team>().key_of(a), Some(&Team::Green));
    assert_eq!(world.remove::<Team>(b), Some(Team::Blue));
    assert!(!world.index::<Team>().contains_key(&Team::Blue), "empty buckets are dropped");
    assert_eq!(world.index::<Team>().key_of(b), None);
    world.despawn(c);
    assert_eq!(world.index::<Team>().get(&Team::Red), [] as [Entity; 0]);
    check(&mut world);
    assert_eq!(world.index::<Team>().len(), 1);
}

#[test]
fn an_index_added_late_files_existing_rows() {
    let mut world = World::new();
    let all = world.spawn_batch([Team::Red, Team::Blue, Team::Red]);
    world.add_index::<Team>();
    assert_eq!(world.index::<Team>().get(&Team::Red), [all[0], all[2]]);
    assert!(world.tracks_changes::<Team>(), "tracking switched on at run time");
    check(&mut world);
}

#[test]
fn in_place_writes_are_caught_up() {
    let mut world = World::new();
    world.add_index::<Team>();
    let all = world.spawn_batch([Team::Red, Team::Red, Team::Blue, Team::Green]);
    // Look up once so the catch-up has a tick, then write without advancing the clock.
    check(&mut world);
    *world.get_mut::<Team>(all[0]).unwrap() = Team::Blue;
    check(&mut world);
    *world.entity_mut(all[1]).get_mut::<Team>().unwrap() = Team::Green;
    check(&mut world);
    world.query::<&mut Team>().for_each(|t| {
        if *t == Team::Green {
            *t = Team::Red;
        }
    });
    check(&mut world);
    for mut t in world.query::<Mut<Team>>() {
        if *t == Team::Blue {
            *t = Team::Green;
        }
    }
    check(&mut world);
    assert_eq!(world.index::<Team>().len(), 2);
    // Written back to the same key twice in one tick: still filed right.
    *world.get_mut::<Team>(all[3]).unwrap() = Team::Blue;
    *world.get_mut::<Team>(all[3]).unwrap() = Team::Red;
    check(&mut world);
    world.clear_trackers();
    *world.get_mut::<Team>(all[3]).unwrap() = Team::Blue;
    check(&mut world);
}

#[test]
fn commands_bundles_batches_and_templates() {
    let mut world = World::new();
    world.add_index::<Team>();
    world.register_clone::<Team>();
    let mut commands = CommandBuffer::new();
    let a = commands.spawn(&world, (Team::Red, Tag));
    let b = world.spawn(Tag);
    commands.insert(b, Team::Blue);
    commands.apply(&mut world);
    check(&mut world);
    assert_eq!(world.index::<Team>().get(&Team::Blue), [b]);
    commands.remove::<Team>(a);
    commands.despawn(b);
    commands.apply(&mut world);
    check(&mut world);
    assert!(world.index::<Team>().is_empty());

    let many =
        world.spawn_batch((0..6u32).map(|i| (if i.is_multiple_of(2) { Team::Red } else { Team::Blue }, Tag)));
    check(&mut world);
    world.insert_batch(many.iter().map(|&e| (e, Team::Green)));
    assert_eq!(world.index::<Team>().get(&Team::Green).len(), 6);
    world.insert_bundle(many[0], (Team::Red, Pos { x: 0, y: 0 }));
    check(&mut world);
    assert_eq!(world.remove_batch::<Team>(many[1..3].iter().copied()), 2);
    check(&mut world);
    assert_eq!(world.remove::<(Team, Pos)>(many[0]), Some((Team::Red, Pos { x: 0, y: 0 })));
    check(&mut world);

    let copy = world.clone_entity(many[3]).unwrap();
    assert_eq!(world.index::<Team>().key_of(copy), Some(&Team::Green));
    let template = Template::new().with(Team::Blue).with(Tag);
    let spawned = world.spawn_template_batch(&template, 3);
    assert_eq!(world.index::<Team>().get(&Team::Blue), spawned);
    world.spawn_template(&template);
    check(&mut world);
}

#[test]
fn despawn_and_clear_empty_the_index() {
    let mut world = World::new();
    world.add_index::<Team>();
    let all = world.spawn_batch([Team::Red, Team::Blue, Team::Red]);
    world.despawn(all[0]);
    assert_eq!(world.index::<Team>().get(&Team::Red), [all[2]]);
    world.clear();
    assert!(world.index::<Team>().is_empty());
    assert_eq!(world.index::<Team>().entity_count(), 0);
    // The next spawns reuse the freed entity indices: the index's per-entity slots with them.
    let again = world.spawn_batch([Team::Red, Team::Blue, Team::Red]);
    assert_eq!(world.index::<Team>().get(&Team::Red), [again[0], again[2]]);
    check(&mut world);
    assert_eq!(world.index::<Team>().key_of(all[0]), None, "a stale handle has no key");
}

#[test]
fn keyed_index_follows_the_key_function() {
    let mut world = World::new();
    world.add_index_by_key::<Pos, (i32, i32)>(cell);
    let a = world.spawn(Pos { x: 3, y: 4 });
    let b = world.spawn(Pos { x: 15, y: -1 });
    assert_eq!(world.index_by_key::<Pos, (i32, i32)>().get(&(0, 0)), [a]);
    assert_eq!(world.index_by_key::<Pos, (i32, i32)>().get(&(1, -1)), [b]);
    world.get_mut::<Pos>(a).unwrap().x = 4; // same cell: nothing moves
    world.query::<&mut Pos>().for_each(|p| p.y += 10);
    let cells = world.index_by_key::<Pos, (i32, i32)>();
    assert_eq!(cells.get(&(0, 1)), [a]);
    assert_eq!(cells.get(&(1, 0)), [b]);
    assert_eq!(cells.keys().count(), 2);
    // A second key type on the same component is a second index.
    world.add_index_by_key::<Pos, i32>(|p| p.x);
    assert_eq!(world.index_by_key::<Pos, i32>().get(&15), [b]);
    assert!(world.remove_index_by_key::<Pos, i32>());
    assert!(!world.remove_index_by_key::<Pos, i32>());
    assert!(world.try_index_by_key::<Pos, i32>().is_err());
    assert_eq!(world.index_by_key::<Pos, (i32, i32)>().len(), 2, "the other index stays");
}

#[test]
fn lookup_without_an_index_is_an_error() {
    let mut world = World::new();
    world.spawn(Team::Red);
    let error = world.try_index::<Team>().unwrap_err();
    assert!(matches!(error, IndexError::NoIndex { .. }));
    assert!(error.to_string().contains("World::add_index"), "{error}");
    world.add_index::<Team>();
    assert!(world.try_index::<Team>().is_ok());
    assert!(world.remove_index::<Team>());
    assert!(world.try_index::<Team>().is_err());
}

#[test]
#[should_panic(expected = "no index of")]
fn index_panics_without_one() {
    let mut world = World::new();
    world.index::<Team>();
}

#[test]
fn system_parameter_sees_writes_of_earlier_systems() {
    let mut world = World::new();
    world.add_index::<Team>();
    let all = world.spawn_batch([Team::Red, Team::Blue, Team::Blue]);
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    let mut schedule = Schedule::new();
    fn recolor(mut teams: Query<&mut Team>) {
        teams.for_each(|t| {
            *t = match *t {
                Team::Red => Team::Blue,
                Team::Blue => Team::Green,
                Team::Green => Team::Red,
            }
        });
    }
    schedule.add_system(recolor);
    schedule.add_system(move |teams: Index<Team>| {
        let mut reds = teams.get(&Team::Red).to_vec();
        reds.sort();
        log.lock().unwrap().push((reds, teams.get(&Team::Green).len()));
    });
    schedule.run(&mut world);
    schedule.run(&mut world);
    assert_eq!(*seen.lock().unwrap(), [(vec![], 2), (vec![all[1], all[2]], 1)]);
    check(&mut world);
}

#[test]
#[should_panic(expected = "Index")]
fn system_parameter_without_an_index_panics() {
    let mut world = World::new();
    let mut schedule = Schedule::new();
    schedule.add_system(|_: Index<Team>| {});
    schedule.run(&mut world);
}

#[cfg(feature = "rollback")]
mod rollback {
    use mosaic::rollback::{NoUninit, RollbackRegistry, RollbackRing};
    use mosaic::{Component, World};

    #[derive(Component, Clone, Copy, Debug, PartialEq, Eq, Hash, NoUninit)]
    #[bytemuck(crate = "mosaic::rollback::bytemuck")]
    #[repr(transparent)]
    struct Room(u32);

    #[test]
    fn restore_never_leaves_the_index_stale() {
        let mut registry = RollbackRegistry::new();
        registry.register::<Room>("room");
        let mut ring = RollbackRing::new(registry, 4);
        let mut world = World::new();
        world.add_index::<Room>();
        let all = world.spawn_batch((0..4).map(Room));
        assert_eq!(world.index::<Room>().get(&Room(1)), [all[1]]);
        ring.save(&mut world, 0).unwrap();
        *world.get_mut::<Room>(all[1]).unwrap() = Room(7);
        world.despawn(all[2]);
        let late = world.spawn(Room(1));
        assert_eq!(world.index::<Room>().get(&Room(1)), [late]);
        ring.restore(0, &mut world).unwrap();
        let index = world.index::<Room>();
        assert_eq!(index.get(&Room(1)), [all[1]]);
        assert_eq!(index.get(&Room(2)), [all[2]]);
        assert!(!index.contains_key(&Room(7)));
        assert_eq!(index.entity_count(), 4);
        // Writes after the restore are followed as before.
        *world.get_mut::<Room>(all[0]).unwrap() = Room(9);
        assert_eq!(world.index::<Room>().get(&Room(9)), [all[0]]);
    }
}

#[cfg(feature = "serialize")]
mod snapshot {
    use mosaic::{Component, SnapshotRegistry, World};
    use serde::{Deserialize, Serialize};

    #[derive(Component, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
    struct Name(String);

    #[test]
    fn load_rebuilds_the_index() {
        let mut registry = SnapshotRegistry::new();
        registry.register::<Name>("name");
        let mut world = World::new();
        let all = world.spawn_batch(["a", "b", "a"].map(|s| Name(s.into())));
        let text = registry.save_ron(&mut world).unwrap();

        // Into an empty world that has the index already.
        let mut copy = World::new();
        copy.add_index::<Name>();
        registry.load_ron(&mut copy, &text).unwrap();
        assert_eq!(copy.index::<Name>().get(&Name("a".into())), [all[0], all[2]]);
        assert_eq!(copy.index::<Name>().get(&Name("b".into())), [all[1]]);

        // Into a populated world (remapped handles).
        let mut other = World::new();
        other.add_index::<Name>();
        let own = other.spawn(Name("a".into()));
        let map = registry.load_ron(&mut other, &text).unwrap();
        let mut a = other.index::<Name>().get(&Name("a".into())).to_vec();
        a.sort();
        let mut want = vec![own, map.get(all[0]).unwrap(), map.get(all[2]).unwrap()];
        want.sort();
        assert_eq!(a, want);
    }
}

#[test]
fn batches_reach_the_index_once_and_a_panicking_batch_leaves_it_exact() {
    let mut world = World::new();
    world.add_index::<Team>();
    // Spawn, insert and remove batches on a pool whose only listener is the index take the
    // plain loops and file the rows once.
    let reds = world.spawn_batch((0..4).map(|_| Team::Red));
    let blank: Vec<Entity> = (0..3).map(|_| world.spawn_empty()).collect();
    world.insert_batch(blank.iter().map(|&e| (e, Team::Blue)));
    world.insert_batch(reds[..2].iter().map(|&e| (e, Team::Green)));
    assert_eq!(world.remove_batch::<Team>([reds[3], blank[0]]), 2);
    let index = world.index::<Team>();
    assert_eq!(index.get(&Team::Red), [reds[2]]);
    assert_eq!(index.get(&Team::Green).len(), 2);
    assert_eq!(index.get(&Team::Blue).len(), 2);
    assert_eq!(index.key_of(reds[3]), None);

    // A dead entity mid-batch panics after some rows were written: the index must still equal
    // the pool afterwards.
    let dead = world.spawn_empty();
    world.despawn(dead);
    let live = world.spawn_empty();
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        world.insert_batch([(live, Team::Red), (dead, Team::Red)]);
    }));
    assert!(result.is_err());
    assert_eq!(world.get::<Team>(live), Ok(&Team::Red));
    assert!(world.index::<Team>().get(&Team::Red).contains(&live), "the written row is filed");
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        world.remove_batch::<Team>([live, dead]);
    }));
    assert!(result.is_err());
    assert_eq!(world.index::<Team>().key_of(live), None, "the removed row is unfiled");
}

#[test]
fn changes_between_lookups_are_filed_at_the_next_one() {
    let mut world = World::new();
    world.add_index::<Team>();
    let a = world.spawn(Team::Red);
    let b = world.spawn(Team::Blue);
    check(&mut world);
    // Between two lookups: b leaves and its index is reused by c; a changes team twice, is
    // removed and comes back; d comes and goes.
    world.despawn(b);
    let c = world.spawn(Team::Green);
    assert_eq!(c.index(), b.index(), "the freed index is reused");
    world.insert(a, Team::Blue);
    world.insert(a, Team::Green);
    world.remove::<Team>(a);
    world.insert(a, Team::Red);
    let d = world.spawn(Team::Blue);
    world.despawn(d);
    check(&mut world);
    assert_eq!(world.index::<Team>().key_of(b), None, "the old generation is not filed");
    assert_eq!(world.index::<Team>().get(&Team::Green), [c]);
}

#[test]
fn many_changes_between_lookups_rebuild_instead_of_growing() {
    let mut world = World::new();
    world.add_index::<Team>();
    let entities: Vec<Entity> = (0..50).map(|_| world.spawn(Tag)).collect();
    // Far more row changes than the pending bound (2 x 50 + 1,024) before any lookup.
    for round in 0..100 {
        for (i, &e) in entities.iter().enumerate() {
            world.insert(e, [Team::Red, Team::Blue, Team::Green][(i + round) % 3]);
        }
        world.remove_batch::<Team>(entities.iter().copied().step_by(2));
    }
    check(&mut world);
    assert_eq!(world.index::<Team>().entity_count(), 25);
    // And exact again from there, through the pending list.
    world.despawn(entities[1]);
    world.insert(entities[0], Team::Red);
    check(&mut world);
}
