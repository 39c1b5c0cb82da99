//! Queries whose filters cannot yield the same entity may write the same component: in one
//! system, and in two systems that the scheduler then runs side by side. `Or` filters count
//! through each alternative.

// System signatures with filters are long by nature, as in bevy.
#![allow(clippy::type_complexity)]

use mosaic::schedule::{IntoSystem, System};
use mosaic::{Component, Or, Query, Schedule, With, Without, World};

#[derive(Component)]
struct A;
#[derive(Component)]
struct B;
#[derive(Component, Debug, PartialEq)]
struct Score(u32);

fn conflicts<M1, M2>(one: impl IntoSystem<M1>, two: impl IntoSystem<M2>) -> bool {
    let (one, two) = (one.into_system().unwrap(), two.into_system().unwrap());
    one.access().conflict_with(two.access()).is_some()
}

fn tagged(_: Query<&mut Score, Or<(With<A>, With<B>)>>) {}
fn untagged(_: Query<&mut Score, (Without<A>, Without<B>)>) {}
fn not_a(_: Query<&mut Score, Without<A>>) {}

#[test]
fn or_filters_are_disjoint_from_the_negation_of_every_alternative() {
    assert!(!conflicts(tagged, untagged));
    assert!(!conflicts(untagged, tagged));
    assert!(conflicts(tagged, not_a), "an entity with B and no A is in both");
}

#[test]
fn one_system_may_hold_both_and_each_sees_its_own_entities() {
    fn split(
        mut tagged: Query<&mut Score, Or<(With<A>, With<B>)>>,
        mut rest: Query<&mut Score, (Without<A>, Without<B>)>,
    ) {
        for s in tagged.iter_mut() {
            s.0 += 100;
        }
        for s in rest.iter_mut() {
            s.0 += 1;
        }
    }
    let mut world = World::new();
    let a = world.spawn((A, Score(0)));
    let b = world.spawn((B, Score(0)));
    let ab = world.spawn((A, B, Score(0)));
    let none = world.spawn(Score(0));
    let mut schedule = Schedule::new();
    schedule.add_system(split);
    schedule.run(&mut world);
    for (entity, expected) in [(a, 100), (b, 100), (ab, 100), (none, 1)] {
        assert_eq!(world.get::<Score>(entity), Ok(&Score(expected)));
    }

    fn overlapping(_: Query<&mut Score, Or<(With<A>, With<B>)>>, _: Query<&mut Score, Without<A>>) {}
    assert!(Schedule::new().try_add_system(overlapping).is_err());
}
