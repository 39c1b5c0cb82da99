//! Component lifecycle hooks and query watches: each fires exactly once per event.

use std::sync::{Arc, Mutex};

use mosaic::{CommandBuffer, Component, Entity, HookContext, Without, World};

#[derive(Component, Debug, Clone, Copy, PartialEq)]
struct Health(i32);
#[derive(Component, Debug, Clone, Copy, PartialEq)]
struct Armor(i32);
#[derive(Component, Debug, Clone, Copy, PartialEq)]
struct Dead;

type Log = Arc<Mutex<Vec<String>>>;

fn logging_world() -> (World, Log) {
    let mut world = World::new();
    let log: Log = Log::default();
    let (a, r, d) = (log.clone(), log.clone(), log.clone());
    world.on_add::<Health>(move |ctx| {
        let value = ctx.world.get::<Health>(ctx.entity).unwrap().0;
        a.lock().unwrap().push(format!("add {value}"));
    });
    world.on_replace::<Health>(move |ctx| {
        let old = ctx.world.get::<Health>(ctx.entity).unwrap().0;
        r.lock().unwrap().push(format!("replace {old}"));
    });
    world.on_remove::<Health>(move |ctx| {
        let value = ctx.world.get::<Health>(ctx.entity).unwrap().0;
        d.lock().unwrap().push(format!("remove {value}"));
    });
    (world, log)
}

fn take(log: &Log) -> Vec<String> {
    std::mem::take(&mut *log.lock().unwrap())
}

#[test]
fn hooks_fire_once_per_event_with_the_right_value() {
    let (mut world, log) = logging_world();
    let e = world.spawn(Health(1));
    assert_eq!(take(&log), ["add 1"]);
    world.insert(e, Health(2));
    assert_eq!(take(&log), ["replace 1"]);
    world.insert(e, Armor(5));
    assert_eq!(take(&log), Vec::<String>::new(), "other components fire nothing");
    assert_eq!(world.remove::<Health>(e), Some(Health(2)));
    assert_eq!(take(&log), ["remove 2"]);
    assert_eq!(world.remove::<Health>(e), None);
    assert_eq!(take(&log), Vec::<String>::new());
    world.insert_bundle(e, (Health(3), Dead));
    assert_eq!(take(&log), ["add 3"]);
    world.insert_bundle(e, (Health(4),));
    assert_eq!(take(&log), ["replace 3"]);
    world.despawn(e);
    assert_eq!(take(&log), ["remove 4"]);
}

#[test]
fn hooks_fire_for_batches_and_command_buffers() {
    let (mut world, log) = logging_world();
    let entities = world.spawn_batch((0..3).map(Health));
    assert_eq!(take(&log), ["add 0", "add 1", "add 2"]);
    let mut commands = CommandBuffer::new();
    commands.insert(entities[0], Health(10));
    commands.remove::<Health>(entities[1]);
    commands.despawn(entities[2]);
    commands.spawn(&world, Health(7));
    commands.apply(&mut world);
    assert_eq!(take(&log), ["replace 0", "remove 1", "remove 2", "add 7"]);
}

#[test]
fn hooks_fire_for_insert_batch_and_remove_batch() {
    let (mut world, log) = logging_world();
    let a = world.spawn(Health(1));
    let b = world.spawn_empty();
    let c = world.spawn_empty();
    take(&log);
    world.insert_batch([(a, Health(10)), (b, Health(20))]);
    assert_eq!(take(&log), ["replace 1", "add 20"]);
    assert_eq!(world.remove_batch::<Health>([a, c, b]), 2);
    assert_eq!(take(&log), ["remove 10", "remove 20"], "an entity without one fires nothing");
    assert!(!world.contains::<Health>(a) && !world.contains::<Health>(b));
}

#[test]
fn hooks_can_defer_structural_changes() {
    let mut world = World::new();
    // Health at zero or below marks the entity dead; a Dead entity is despawned by another hook.
    world.on_add::<Health>(|ctx: &mut HookContext<'_>| {
        if ctx.world.get::<Health>(ctx.entity).unwrap().0 <= 0 {
            ctx.commands.insert(ctx.entity, Dead);
        }
    });
    world.on_add::<Dead>(|ctx| ctx.commands.despawn(ctx.entity));
    let alive = world.spawn(Health(5));
    let doomed = world.spawn(Health(0));
    assert!(world.is_alive(alive));
    assert!(!world.is_alive(doomed), "the chain of deferred commands ran after the spawn");
}

#[test]
fn hooks_of_one_kind_run_in_registration_order_and_are_removable() {
    let log = Arc::new(Mutex::new(Vec::<String>::new()));
    let mut world = World::new();
    let ids: Vec<mosaic::HookId> = ["first", "second", "third"]
        .into_iter()
        .map(|name| {
            let log = log.clone();
            world.on_add::<Health>(move |ctx: &mut HookContext<'_>| {
                let health = ctx.world.get::<Health>(ctx.entity).unwrap().0;
                log.lock().unwrap().push(format!("{name} {health}"));
            })
        })
        .collect();
    world.spawn(Health(1));
    assert_eq!(take(&log), ["first 1", "second 1", "third 1"]);
    assert!(world.remove_hook(ids[1]));
    assert!(!world.remove_hook(ids[1]), "already removed");
    world.spawn(Health(2));
    assert_eq!(take(&log), ["first 2", "third 2"]);
    assert!(world.remove_hook(ids[0]) && world.remove_hook(ids[2]));
    world.spawn(Health(3));
    assert!(take(&log).is_empty(), "no hook left");
}

#[test]
fn a_user_hook_on_relationship_lives_beside_the_hierarchy() {
    let log = Arc::new(Mutex::new(Vec::<String>::new()));
    let mut world = World::new();
    let (added, removed) = (log.clone(), log.clone());
    world.on_add::<mosaic::Relationship>(move |_| added.lock().unwrap().push("add".into()));
    let id = world.on_remove::<mosaic::Relationship>(move |_| removed.lock().unwrap().push("remove".into()));
    let [parent, child] = [(); 2].map(|()| world.spawn_empty());
    world.set_parent(child, parent).unwrap();
    assert_eq!(take(&log), ["add", "add"]);
    world.despawn(parent);
    assert_eq!(world.parent(child), None, "the hierarchy's own hooks still ran");
    assert_eq!(take(&log), ["remove"], "the despawned parent's");
    world.remove_hook(id);
    world.assert_hierarchy_invariants();
}

#[test]
fn a_removed_watch_stops_firing_and_the_fast_path_returns() {
    let log = Arc::new(Mutex::new(Vec::<String>::new()));
    let mut world = World::new();
    let (enter, leave) = (log.clone(), log.clone());
    let id = world.watch::<&Health, Without<Dead>>(
        move |_| enter.lock().unwrap().push("enter".into()),
        move |_| leave.lock().unwrap().push("leave".into()),
    );
    let e = world.spawn(Health(1));
    assert_eq!(take(&log), ["enter"]);
    assert!(world.remove_watch(id));
    assert!(!world.remove_watch(id));
    world.insert(e, Dead);
    world.despawn(e);
    world.spawn(Health(2));
    assert!(take(&log).is_empty());
}

#[test]
fn watch_enter_and_leave_fire_once_each() {
    let mut world = World::new();
    let log: Arc<Mutex<Vec<(char, Entity)>>> = Default::default();
    let (enter, leave) = (log.clone(), log.clone());
    world.watch::<(&Health, &Armor), Without<Dead>>(
        move |ctx| enter.lock().unwrap().push(('+', ctx.entity)),
        move |ctx| {
            // Components are still readable while leaving.
            assert!(ctx.world.get::<Health>(ctx.entity).is_ok());
            leave.lock().unwrap().push(('-', ctx.entity));
        },
    );
    let take = || std::mem::take(&mut *log.lock().unwrap());

    let a = world.spawn(Health(1));
    assert_eq!(take(), []);
    world.insert(a, Armor(1));
    assert_eq!(take(), [('+', a)]);
    world.insert(a, Armor(2));
    assert_eq!(take(), [], "replacing keeps it in the set");
    world.insert(a, Dead);
    assert_eq!(take(), [('-', a)]);
    world.remove::<Dead>(a);
    assert_eq!(take(), [('+', a)]);
    world.remove::<Armor>(a);
    assert_eq!(take(), [('-', a)]);

    let b = world.spawn((Health(1), Armor(1)));
    assert_eq!(take(), [('+', b)]);
    let c = world.spawn((Health(1), Armor(1), Dead));
    assert_eq!(take(), [], "never matched: no enter, no leave");
    world.despawn(b);
    assert_eq!(take(), [('-', b)]);
    world.despawn(c);
    assert_eq!(take(), []);
}

/// An immutable component: no `&mut` access (see `tests/ui/immutable_component.rs`), so it
/// changes only by a whole replacement, which the `on_replace` hook sees.
#[derive(Component, Debug, Clone, Copy, PartialEq)]
#[component(immutable)]
struct Team(u8);

#[test]
fn immutable_components_change_only_by_replacement_and_hooks_see_it() {
    let mut world = World::new();
    let replaced: Log = Log::default();
    let seen = replaced.clone();
    world.on_replace::<Team>(move |ctx| {
        let old = *ctx.world.get::<Team>(ctx.entity).unwrap();
        seen.lock().unwrap().push(format!("{} leaves team {}", ctx.entity, old.0));
    });
    let e = world.spawn(Team(1));
    assert_eq!(world.insert(e, Team(2)), Some(Team(1)));
    assert_eq!(world.get::<Team>(e), Ok(&Team(2)));
    let teams: Vec<u8> = world.query::<&Team>().into_iter().map(|t| t.0).collect();
    assert_eq!(teams, [2]);
    assert_eq!(*replaced.lock().unwrap(), [format!("{e} leaves team 1")]);
    assert_eq!(world.remove::<Team>(e), Some(Team(2)));
}

#[test]
fn a_hook_can_spawn_through_its_commands_during_a_despawn() {
    /// Left behind by a despawned `Health`.
    #[derive(mosaic::Component)]
    struct Wreck(Entity);

    let mut world = World::new();
    world.on_remove::<Health>(|ctx: &mut HookContext<'_>| {
        let wreck = ctx.commands.spawn(ctx.world, Wreck(ctx.entity));
        assert!(!ctx.world.is_alive(wreck), "reserved while the despawn runs");
    });
    let ships = world.spawn_batch((0..3).map(Health));
    world.despawn(ships[1]);
    let wrecks: Vec<Entity> = world.query::<&Wreck>().into_iter().map(|w| w.0).collect();
    assert_eq!(wrecks, [ships[1]]);
    assert_eq!(world.len(), 3);
    // Every live entity has its component set (the allocator flushed inside the despawn).
    for e in world.entities().iter().collect::<Vec<_>>() {
        world.despawn(e);
    }
    assert_eq!(world.query::<&Wreck>().into_iter().count(), 2, "the hook ran for the others");
}

/// The five hook kinds fire in bevy's order: add then insert after a new value; replace, discard,
/// then insert around an overwrite; discard then remove before a removal and a despawn.
#[test]
fn every_hook_kind_fires_in_order() {
    use std::sync::{Arc, Mutex};
    #[derive(Component)]
    struct Gauge(u32);
    let mut world = World::new();
    let log: Arc<Mutex<Vec<String>>> = Arc::default();
    macro_rules! record {
        ($on:ident, $name:literal) => {{
            let log = Arc::clone(&log);
            world.$on::<Gauge>(move |ctx| {
                let value = ctx.world.get::<Gauge>(ctx.entity).map_or(0, |g| g.0);
                log.lock().unwrap().push(format!("{} {value}", $name));
            });
        }};
    }
    record!(on_add, "add");
    record!(on_insert, "insert");
    record!(on_replace, "replace");
    record!(on_discard, "discard");
    record!(on_remove, "remove");
    let e = world.spawn(Gauge(1));
    world.insert(e, Gauge(2));
    world.remove::<Gauge>(e);
    world.insert(e, Gauge(3));
    world.despawn(e);
    assert_eq!(
        *log.lock().unwrap(),
        [
            "add 1",
            "insert 1", // spawn
            "replace 1",
            "discard 1",
            "insert 2", // overwrite: old value before, new after
            "discard 2",
            "remove 2", // remove
            "add 3",
            "insert 3", // insert again
            "discard 3",
            "remove 3", // despawn
        ]
    );
}

/// Commands recorded by hooks apply as soon as the operation that fired them ends, breadth first:
/// every command a round recorded runs before the commands those commands' hooks record. (bevy
/// applies them depth first; breadth first keeps a cascade of any length off the call stack.)
#[test]
fn commands_from_hooks_apply_breadth_first() {
    use std::sync::{Arc, Mutex};
    #[derive(Component)]
    struct Root;
    #[derive(Component)]
    struct Left;
    #[derive(Component)]
    struct Right;
    #[derive(Component)]
    struct LeftChild;
    let mut world = World::new();
    let log: Arc<Mutex<Vec<&str>>> = Arc::default();
    let l = Arc::clone(&log);
    world.on_add::<Root>(move |ctx| {
        l.lock().unwrap().push("root");
        ctx.commands.insert(ctx.entity, Left);
        ctx.commands.insert(ctx.entity, Right);
    });
    let l = Arc::clone(&log);
    world.on_add::<Left>(move |ctx| {
        l.lock().unwrap().push("left");
        ctx.commands.insert(ctx.entity, LeftChild);
    });
    let l = Arc::clone(&log);
    world.on_add::<Right>(move |_| l.lock().unwrap().push("right"));
    let l = Arc::clone(&log);
    world.on_add::<LeftChild>(move |_| l.lock().unwrap().push("left child"));
    let e = world.spawn(Root);
    assert_eq!(*log.lock().unwrap(), ["root", "left", "right", "left child"]);
    assert!(world.contains::<LeftChild>(e), "every round applied before `spawn` returned");
}
