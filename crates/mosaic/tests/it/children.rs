//! Placing children at a position: `insert_children`, `replace_children`; and relations through
//! commands, with self-relations refused unless the relation allows them.

use mosaic::hierarchy::{HierarchyError, Relation};
use mosaic::{CommandBuffer, Entity, World};

fn spawn_n<const N: usize>(world: &mut World) -> [Entity; N] {
    std::array::from_fn(|_| world.spawn_empty())
}

fn children(world: &World, parent: Entity) -> Vec<Entity> {
    world.children(parent).collect()
}

#[test]
fn insert_children_places_them_from_the_index_on() {
    let mut world = World::new();
    let [p, a, b, c, d, e] = spawn_n(&mut world);
    world.insert_children(p, 0, &[a, d]).unwrap();
    assert_eq!(children(&world, p), [a, d]);
    world.insert_children(p, 1, &[b, c]).unwrap();
    assert_eq!(children(&world, p), [a, b, c, d]);
    world.insert_children(p, 99, &[e]).unwrap();
    assert_eq!(children(&world, p), [a, b, c, d, e], "an index past the end appends");
    // Moving a child already there: it ends at the index asked.
    world.insert_children(p, 3, &[a]).unwrap();
    assert_eq!(children(&world, p), [b, c, d, a, e]);
    world.insert_children(p, 0, &[e]).unwrap();
    assert_eq!(children(&world, p), [e, b, c, d, a]);
    world.assert_hierarchy_invariants();
    // A child of another parent moves, with its subtree.
    let [q, x, y] = spawn_n(&mut world);
    world.set_parent(x, q).unwrap();
    world.set_parent(y, x).unwrap();
    world.insert_children(p, 2, &[x]).unwrap();
    assert_eq!(children(&world, p), [e, b, x, c, d, a]);
    assert_eq!(world.parent(y), Some(x));
    assert!(children(&world, q).is_empty());
    world.assert_hierarchy_invariants();
}

#[test]
fn replace_children_sets_exactly_the_list() {
    let mut world = World::new();
    let [p, a, b, c, d] = spawn_n(&mut world);
    for child in [a, b, c] {
        world.set_parent(child, p).unwrap();
    }
    world.set_parent(d, b).unwrap();
    world.replace_children(p, &[c, d, a]).unwrap();
    assert_eq!(children(&world, p), [c, d, a]);
    assert_eq!(world.parent(b), None, "b was left out: a root now");
    assert!(children(&world, b).is_empty(), "d moved away from b");
    world.replace_children(p, &[]).unwrap();
    assert!(children(&world, p).is_empty());
    world.assert_hierarchy_invariants();
}

#[test]
fn children_refusals_change_nothing() {
    let mut world = World::new();
    let [p, a, b, grand] = spawn_n(&mut world);
    world.set_parent(a, p).unwrap();
    world.set_parent(grand, a).unwrap();
    let dead = world.spawn_empty();
    world.despawn(dead);
    assert_eq!(world.insert_children(a, 0, &[b, p]), Err(HierarchyError::Cycle { child: p, parent: a }));
    assert!(matches!(world.insert_children(p, 0, &[b, dead]), Err(HierarchyError::Entity(_))));
    assert_eq!(
        world.replace_children(grand, &[b, a]),
        Err(HierarchyError::Cycle { child: a, parent: grand })
    );
    assert_eq!(world.parent(b), None, "nothing moved before the refusal");
    assert_eq!(children(&world, p), [a]);
    world.assert_hierarchy_invariants();
}

struct Follows;
impl Relation for Follows {}

struct Likes;
impl Relation for Likes {
    const ALLOW_SELF: bool = true;
}

#[test]
fn self_relations_are_refused_unless_allowed() {
    let mut world = World::new();
    let [a, b] = spawn_n(&mut world);
    assert!(
        matches!(world.relate::<Follows>(a, a), Err(HierarchyError::SelfRelation { entity, .. }) if entity == a)
    );
    assert_eq!(world.target::<Follows>(a), None);
    world.relate::<Likes>(a, a).unwrap();
    assert_eq!(world.related::<Likes>(a), [a]);
    world.relate::<Follows>(a, b).unwrap();
    let error = world.relate::<Follows>(b, b).unwrap_err();
    assert!(error.to_string().contains("ALLOW_SELF"), "{error}");
    world.despawn(a);
    assert!(world.related::<Likes>(a).is_empty());
}

#[test]
fn relations_through_commands() {
    let mut world = World::new();
    let [leader, old] = spawn_n(&mut world);
    let mut commands = CommandBuffer::new();
    let scout = commands.spawn(&world, ());
    commands.relate::<Follows>(scout, old);
    commands.relate::<Follows>(scout, leader); // moves the pair
    commands.relate::<Follows>(leader, leader); // refused
    let gone = world.spawn_empty();
    world.despawn(gone);
    commands.relate::<Follows>(gone, leader); // skipped
    let report = commands.apply(&mut world);
    assert_eq!((report.applied, report.refused, report.skipped), (3, 1, 1));
    assert_eq!(world.target::<Follows>(scout), Some(leader));
    assert!(world.related::<Follows>(old).is_empty());
    commands.unrelate::<Follows>(scout);
    commands.unrelate::<Follows>(gone);
    let report = commands.apply(&mut world);
    assert_eq!((report.applied, report.skipped), (1, 1));
    assert_eq!(world.target::<Follows>(scout), None);
}

mod in_systems {
    use mosaic::hierarchy::{Hierarchy, Relation, Relations};
    use mosaic::schedule::{IntoSystem, System};
    use mosaic::{Component, Entity, Query, ResMut, Schedule, World};

    #[derive(Component)]
    struct Speed(#[allow(dead_code)] f32);

    struct Targets;
    impl Relation for Targets {}

    type Seen = Vec<(Entity, Option<Entity>, Vec<Entity>, Vec<Entity>, Vec<Entity>, Entity)>;

    fn walk(hierarchy: Hierarchy, entities: Query<Entity>, mut seen: ResMut<Seen>) {
        let mut all: Vec<Entity> = entities.iter().collect();
        all.sort();
        for e in all {
            seen.push((
                e,
                hierarchy.parent(e),
                hierarchy.children(e).collect(),
                hierarchy.ancestors(e).collect(),
                hierarchy.descendants(e).collect(),
                hierarchy.root(e),
            ));
        }
    }

    #[test]
    fn a_systems_hierarchy_reads_what_the_world_reads() {
        let mut world = World::new();
        let [root, a, b, a1, lone] = [(); 5].map(|()| world.spawn_empty());
        world.set_parent(a, root).unwrap();
        world.set_parent(b, root).unwrap();
        world.set_parent(a1, a).unwrap();
        world.insert_resource(Seen::new());
        world.run_system(walk);
        let seen = world.resource::<Seen>();
        assert_eq!(seen.len(), 5);
        for (e, parent, children, ancestors, descendants, top) in seen {
            assert_eq!(*parent, world.parent(*e));
            assert_eq!(*children, world.children(*e).collect::<Vec<_>>());
            assert_eq!(*ancestors, world.ancestors(*e).collect::<Vec<_>>());
            assert_eq!(*descendants, world.descendants(*e).collect::<Vec<_>>());
            assert_eq!(*top, if *e == lone { lone } else { root });
        }
    }

    #[test]
    fn hierarchy_and_relations_readers_run_beside_writers_of_other_components() {
        fn reads(_: Hierarchy, _: Relations<Targets>) {}
        fn writes(_: Query<&mut Speed>) {}
        fn access<M>(system: impl IntoSystem<M>) -> mosaic::schedule::Access {
            system.into_system().unwrap().access().clone()
        }
        assert_eq!(access(reads).conflict_with(&access(writes)), None);
        assert!(access(reads).conflict_with(&mosaic::schedule::Access::exclusive()).is_some());
    }

    #[test]
    fn a_systems_relations_read_targets_and_sources() {
        fn gather(
            relations: Relations<Targets>,
            q: Query<Entity>,
            mut out: ResMut<Vec<(Entity, Option<Entity>, usize)>>,
        ) {
            let mut all: Vec<Entity> = q.iter().collect();
            all.sort();
            for e in all {
                out.push((e, relations.target(e), relations.related(e).len()));
            }
        }
        let mut world = World::new();
        let [turret, tank, truck] = [(); 3].map(|()| world.spawn_empty());
        world.relate::<Targets>(turret, tank).unwrap();
        world.relate::<Targets>(truck, tank).unwrap();
        world.insert_resource(Vec::<(Entity, Option<Entity>, usize)>::new());
        let mut schedule = Schedule::new();
        schedule.add_system(gather);
        schedule.run(&mut world);
        let mut expected = vec![(turret, Some(tank), 0), (tank, None, 2), (truck, Some(tank), 0)];
        expected.sort();
        assert_eq!(world.resource::<Vec<(Entity, Option<Entity>, usize)>>(), &expected);
    }
}
