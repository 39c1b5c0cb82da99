//! Systems and the schedule: ordering, determinism, sync points, errors.

use crate::common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::panic_message;
use mosaic::schedule::ScheduleError;
use mosaic::{
    Commands, Component, Entity, ExecutorKind, Local, Query, Res, ResMut, Schedule, With, Without, World,
};

#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct A(u64);
#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct B(u64);
#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct C(u64);
#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct D(u64);

/// Names of systems in the order they ran.
#[derive(Default)]
struct Trace(Vec<&'static str>);

fn first(mut trace: ResMut<Trace>) {
    trace.0.push("first");
}
fn second(mut trace: ResMut<Trace>) {
    trace.0.push("second");
}
fn third(mut trace: ResMut<Trace>) {
    trace.0.push("third");
}

fn run_once(schedule: &mut Schedule) -> Vec<&'static str> {
    let mut world = World::new();
    world.insert_resource(Trace::default());
    schedule.run(&mut world);
    world.remove_resource::<Trace>().unwrap().0
}

#[test]
fn before_and_after_constraints_hold() {
    let mut schedule = Schedule::new();
    schedule.add_system(third).after("second");
    schedule.add_system(second).after("first");
    schedule.add_system(first);
    assert_eq!(run_once(&mut schedule), ["first", "second", "third"]);

    let mut schedule = Schedule::new();
    schedule.add_system(second);
    schedule.add_system(first).before("second");
    assert_eq!(schedule.order().unwrap(), ["first", "second"]);
}

#[test]
fn priority_breaks_ties_then_insertion_order() {
    let mut schedule = Schedule::new();
    schedule.add_system(first);
    schedule.add_system(second).priority(10);
    schedule.add_system(third);
    assert_eq!(schedule.order().unwrap(), ["second", "first", "third"]);
    // A constraint beats priority.
    let mut schedule = Schedule::new();
    schedule.add_system(first);
    schedule.add_system(second).priority(10).after("first");
    assert_eq!(schedule.order().unwrap(), ["first", "second"]);
}

#[test]
fn sets_order_their_members() {
    let mut schedule = Schedule::new();
    schedule.add_system(third).in_set("late");
    schedule.add_system(first).in_set("early");
    schedule.add_system(second).after("early").before("late");
    schedule.configure_set("early").before("late");
    assert_eq!(run_once(&mut schedule), ["first", "second", "third"]);
}

#[test]
fn cycle_error_names_every_system() {
    let mut schedule = Schedule::new();
    schedule.add_system(first).after("third");
    schedule.add_system(second).after("first");
    schedule.add_system(third).after("second");
    let error = schedule.build().unwrap_err();
    let ScheduleError::Cycle { systems, .. } = &error else { panic!("expected a cycle, got {error}") };
    assert_eq!(systems.first(), systems.last());
    let message = error.to_string();
    for name in ["first", "second", "third"] {
        assert!(message.contains(name), "{message}");
    }
    assert!(message.contains("->"), "{message}");
}

#[test]
fn unknown_label_is_an_error() {
    let mut schedule = Schedule::new();
    schedule.add_system(first).after("nobody");
    assert_eq!(
        schedule.build().unwrap_err(),
        ScheduleError::UnknownLabel { system: "first".into(), label: "nobody".into() }
    );
}

fn aliasing(_: Query<&mut A>, _: Query<&A>) {}

#[test]
fn conflicting_parameters_are_refused_naming_both() {
    let mut schedule = Schedule::new();
    let error = schedule.try_add_system(aliasing).err().expect("must be refused");
    let message = error.to_string();
    assert!(message.contains("aliasing"), "{message}");
    assert!(message.contains("`Query<&mut A>` and `Query<&A>`"), "{message}");
    assert!(message.contains("schedule::A"), "{message}");
    assert!(schedule.is_empty());
}

#[test]
#[should_panic(expected = "has conflicting parameters")]
fn add_system_panics_on_conflict() {
    Schedule::new().add_system(aliasing);
}

struct Missing;
fn needs_missing(_: Res<Missing>) {}

#[test]
#[should_panic(expected = "system `needs_missing` cannot run: resource `it::schedule::Missing` is missing")]
fn missing_resource_names_system_and_type() {
    let mut schedule = Schedule::new();
    schedule.add_system(needs_missing);
    schedule.run(&mut World::new());
}

#[test]
fn missing_resource_skips_when_asked() {
    let mut schedule = Schedule::new();
    schedule.add_system(needs_missing).skip_if_missing();
    schedule.add_system(first);
    assert_eq!(run_once(&mut schedule), ["first"]);
}

#[derive(Default)]
struct Enabled(bool);

#[test]
fn run_conditions() {
    let mut schedule = Schedule::new();
    schedule.add_system(first).run_if(|world: &World| world.resource::<Enabled>().0);
    schedule.add_system(second);
    let mut world = World::new();
    world.insert_resource(Trace::default());
    world.insert_resource(Enabled(false));
    schedule.run(&mut world);
    world.resource_mut::<Enabled>().0 = true;
    schedule.run(&mut world);
    assert_eq!(world.resource::<Trace>().0, ["second", "first", "second"]);
}

fn count_runs(mut runs: Local<u32>, mut total: ResMut<Vec<u32>>) {
    *runs += 1;
    total.push(*runs);
}

#[test]
fn local_state_persists_per_system() {
    let mut schedule = Schedule::new();
    schedule.add_system(count_runs);
    let mut world = World::new();
    world.insert_resource(Vec::<u32>::new());
    for _ in 0..3 {
        schedule.run(&mut world);
    }
    assert_eq!(world.resource::<Vec<u32>>(), &[1, 2, 3]);
}

fn exclusive(world: &mut World) {
    world.spawn(A(7));
}

fn sees_a(query: Query<&A>, mut trace: ResMut<Trace>) {
    if query.into_iter().any(|a| a.0 == 7) {
        trace.0.push("saw");
    }
}

#[test]
fn exclusive_systems_run_alone_and_are_seen() {
    let mut schedule = Schedule::new();
    schedule.add_system(exclusive);
    schedule.add_system(sees_a).after("exclusive");
    assert_eq!(run_once(&mut schedule), ["saw"]);
}

// --- sync points: commands apply in system order, not completion order ---

/// Spawns `A(1)` after a busy wait, so it finishes last when run in parallel.
fn slow_spawner(mut commands: Commands, _: Query<&C>) {
    let start = std::time::Instant::now();
    while start.elapsed() < Duration::from_millis(2) {
        std::hint::spin_loop();
    }
    commands.spawn(A(1));
}
/// Spawns `A(2)` through `ParCommands` (numbered at apply, so it shares a batch with a system
/// holding `Commands`): finishes first.
fn fast_spawner(mut q: Query<&D>, mut commands: mosaic::ParCommands) {
    q.par_for_each_deferred(&mut commands, |_, buffer| buffer.spawn_at_apply(A(2)));
}

#[test]
fn commands_apply_in_system_order() {
    for executor in [ExecutorKind::SingleThreaded, ExecutorKind::Parallel] {
        let mut schedule = Schedule::new();
        schedule.set_executor(executor).set_parallel_threshold(Duration::ZERO);
        schedule.add_system(slow_spawner);
        schedule.add_system(fast_spawner);
        assert_eq!(schedule.batches().unwrap(), [vec!["slow_spawner", "fast_spawner"]]);
        let mut world = World::new();
        world.spawn(D(0));
        for _ in 0..3 {
            schedule.run(&mut world);
        }
        let order: Vec<u64> = world.query::<&A>().into_iter().map(|a| a.0).collect();
        assert_eq!(order, [1, 2, 1, 2, 1, 2], "{executor:?}");
        let changes = schedule.last_frame_changes();
        assert_eq!((changes.spawned, changes.applied, changes.skipped), (2, 2, 0), "{executor:?}");
    }
}

fn later_sees_commands(query: Query<(Entity, &A)>, mut trace: ResMut<Trace>) {
    if query.into_iter().count() > 0 {
        trace.0.push("later saw spawn");
    }
}

#[test]
fn a_later_batch_sees_earlier_commands() {
    let mut schedule = Schedule::new();
    schedule.add_system(slow_spawner);
    schedule.add_system(later_sees_commands).after("slow_spawner");
    assert_eq!(run_once(&mut schedule), ["later saw spawn"]);
}

// --- the `schedule` workload: parallel equals sequential, every time ---

fn ab(mut q: Query<(&mut A, &mut B)>) {
    q.for_each(|(a, b)| std::mem::swap(&mut a.0, &mut b.0));
}
fn cd(mut q: Query<(&mut C, &mut D)>) {
    q.for_each(|(c, d)| std::mem::swap(&mut c.0, &mut d.0));
}
fn c_plus(mut q: Query<&mut C, With<A>>, mut commands: Commands, mut frame: Local<u64>) {
    *frame += 1;
    q.for_each(|c| c.0 = c.0.wrapping_mul(31).wrapping_add(*frame));
    commands.spawn((A(*frame), B(0)));
}
/// Rows of (entity id without its world tag, which differs per world, mixed with A ^ B; A ^ B; C; D).
fn checksum(world: &mut World) -> Vec<(u64, u64, Option<u64>, Option<u64>)> {
    let mut rows: Vec<_> = world
        .query::<(Entity, &A, &B, Option<&C>, Option<&D>)>()
        .into_iter()
        .map(|(e, a, b, c, d)| {
            (
                u64::from(e.generation()) << 32 | u64::from(e.index()),
                a.0 ^ b.0,
                c.map(|c| c.0),
                d.map(|d| d.0),
            )
        })
        .map(|(e, ab, c, d)| (e ^ ab, ab, c, d))
        .collect();
    rows.sort_unstable();
    rows
}

fn populated_world() -> World {
    let n = if cfg!(miri) { 20 } else { 500 };
    let mut world = World::new();
    world.spawn_batch((0..n).map(|i| (A(i), B(i * 2))));
    world.spawn_batch((0..n).map(|i| (A(i), B(i * 3), C(i))));
    world.spawn_batch((0..n).map(|i| (A(i), B(i), C(i * 5), D(i * 7))));
    world
}

#[test]
fn parallel_executor_is_deterministic_over_100_runs() {
    let mut expected = None;
    let runs = if cfg!(miri) { 3 } else { 100 };
    for run in 0..runs {
        let executor = if run == 0 { ExecutorKind::SingleThreaded } else { ExecutorKind::Parallel };
        let mut schedule = Schedule::new();
        schedule.set_executor(executor).set_parallel_threshold(Duration::ZERO);
        schedule.add_system(ab);
        schedule.add_system(cd);
        schedule.add_system(c_plus);
        let mut world = populated_world();
        for _ in 0..5 {
            schedule.run(&mut world);
        }
        let result = checksum(&mut world);
        match &expected {
            None => expected = Some(result),
            Some(expected) => assert_eq!(&result, expected, "run {run} differs"),
        }
    }
}

#[test]
fn non_conflicting_systems_share_a_batch() {
    let mut schedule = Schedule::new();
    schedule.add_system(ab);
    schedule.add_system(cd);
    schedule.add_system(c_plus);
    // c_plus writes C, which cd also writes: a new batch.
    assert_eq!(schedule.batches().unwrap(), [vec!["ab", "cd"], vec!["c_plus"]]);
}

// --- filtered access: `With<X>` and `Without<X>` queries are disjoint ---

fn c_with_d(mut q: Query<&mut C, With<D>>) {
    q.for_each(|c| c.0 = c.0.wrapping_mul(3).wrapping_add(1));
}
fn c_without_d(mut q: Query<&mut C, Without<D>>) {
    q.for_each(|c| c.0 = c.0.wrapping_mul(5).wrapping_add(2));
}
fn c_all(mut q: Query<&mut C>) {
    q.for_each(|c| c.0 ^= 0xff);
}
fn c_split(mut with: Query<(&mut C, &D)>, mut without: Query<&mut C, Without<D>>) {
    with.for_each(|(c, d)| c.0 += d.0);
    without.for_each(|c| c.0 += 1_000_000);
}
fn c_overlap(_: Query<&mut C, With<D>>, _: Query<&mut C, Without<A>>) {}

#[test]
fn one_system_takes_disjoint_filtered_queries_of_one_component() {
    let mut schedule = Schedule::new();
    schedule.add_system(c_split);
    let mut world = populated_world();
    let before = checksum(&mut world);
    schedule.run(&mut world);
    for (old, new) in before.iter().zip(checksum(&mut world)) {
        let expected = match (old.2, old.3) {
            (Some(c), Some(d)) => Some(c + d),
            (Some(c), None) => Some(c + 1_000_000),
            (None, _) => None,
        };
        assert_eq!(new.2, expected);
    }
}

#[test]
fn filtered_queries_that_can_meet_are_refused() {
    let error = Schedule::new().try_add_system(c_overlap).err().expect("C on entities with D and A aliases");
    assert!(error.to_string().contains("schedule::C"), "{error}");
}

#[test]
fn disjoint_filtered_systems_share_a_batch_and_run_in_parallel_deterministically() {
    let build = |executor| {
        let mut schedule = Schedule::new();
        schedule.set_executor(executor).set_parallel_threshold(Duration::ZERO);
        schedule.add_system(c_with_d);
        schedule.add_system(c_without_d);
        schedule.add_system(c_all);
        schedule
    };
    let mut parallel = build(ExecutorKind::Parallel);
    // c_all writes C on every entity, so it meets both: a new batch.
    assert_eq!(parallel.batches().unwrap(), [vec!["c_with_d", "c_without_d"], vec!["c_all"]]);
    let mut sequential = build(ExecutorKind::SingleThreaded);
    let (mut a, mut b) = (populated_world(), populated_world());
    for _ in 0..5 {
        parallel.run(&mut a);
        sequential.run(&mut b);
    }
    assert_eq!(checksum(&mut a), checksum(&mut b));
}

#[test]
fn profiler_reports_every_system() {
    let mut schedule = Schedule::new();
    schedule.enable_profiling(10);
    schedule.add_system(ab);
    schedule.add_system(cd);
    let mut world = populated_world();
    for _ in 0..25 {
        schedule.run(&mut world);
    }
    let profile = schedule.profile();
    assert_eq!(profile.systems.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(), ["ab", "cd"]);
    for system in &profile.systems {
        assert_eq!(system.runs, 25);
        assert!(system.median <= system.max);
        assert!(system.max > Duration::ZERO);
    }
    let table = profile.to_string();
    assert!(
        table.contains("median ms") && table.contains("ab") && table.contains("last 10 frames"),
        "{table}"
    );
}

#[test]
fn systems_can_be_closures() {
    let seen = Arc::new(Mutex::new(0usize));
    let inner = seen.clone();
    let mut schedule = Schedule::new();
    schedule.add_system(move |q: Query<&A>| *inner.lock().unwrap() += q.into_iter().count()).named("count");
    let mut world = populated_world();
    schedule.run(&mut world);
    assert_eq!(*seen.lock().unwrap(), if cfg!(miri) { 60 } else { 1500 });
    assert_eq!(schedule.order().unwrap(), ["count"]);
}

// --- sets: ordering is transitive, cycles and contradictions are refused (issue 19) ---

#[test]
fn set_order_is_transitive_through_an_empty_set() {
    // a -> b -> c with b empty: `first` (in a) runs before `third` (in c), though added after it.
    let mut schedule = Schedule::new();
    schedule.add_system(third).in_set("c");
    schedule.add_system(first).in_set("a");
    schedule.configure_set("a").before("b");
    schedule.configure_set("b").before("c");
    assert_eq!(run_once(&mut schedule), ["first", "third"]);

    // The same with `after`, through two empty sets, and with systems ordered against a set.
    let mut schedule = Schedule::new();
    schedule.add_system(third).after("late");
    schedule.add_system(first).before("early");
    schedule.configure_set("late").after("middle");
    schedule.configure_set("middle").after("early");
    schedule.configure_set("early");
    assert_eq!(schedule.order().unwrap(), ["first", "third"]);

    // Systems that do not conflict but are ordered through an empty set do not share a batch.
    let mut schedule = Schedule::new();
    schedule.add_system(cd).in_set("c");
    schedule.add_system(ab).in_set("a");
    schedule.configure_set("a").before("b");
    schedule.configure_set("b").before("c");
    assert_eq!(schedule.batches().unwrap(), [vec!["ab"], vec!["cd"]]);
}

#[test]
fn set_order_holds_when_the_middle_set_is_skipped() {
    for executor in [ExecutorKind::SingleThreaded, ExecutorKind::Parallel] {
        let mut schedule = Schedule::new();
        schedule.set_executor(executor).set_parallel_threshold(Duration::ZERO);
        schedule.add_system(third).in_set("c");
        schedule.add_system(second).in_set("b").run_if(|_: &World| false);
        schedule.add_system(first).in_set("a");
        schedule.configure_set("a").before("b");
        schedule.configure_set("b").before("c");
        assert_eq!(run_once(&mut schedule), ["first", "third"], "{executor:?}");
    }
}

#[test]
fn a_set_ordered_after_itself_is_an_error() {
    let mut schedule = Schedule::new();
    schedule.add_system(first);
    schedule.configure_set("physics").after("physics");
    let error = schedule.build().unwrap_err();
    assert_eq!(error, ScheduleError::SetCycle { sets: vec!["physics".into(), "physics".into()] });
    let message = error.to_string();
    assert!(message.contains("physics -> physics") && message.contains("remove"), "{message}");

    // The same when the set holds a system: the sets are named, not only the system.
    let mut schedule = Schedule::new();
    schedule.add_system(first).in_set("physics");
    schedule.configure_set("physics").before("physics");
    assert_eq!(
        schedule.build().unwrap_err(),
        ScheduleError::SetCycle { sets: vec!["physics".into(), "physics".into()] }
    );
}

#[test]
fn two_sets_each_after_the_other_are_an_error() {
    let mut schedule = Schedule::new();
    schedule.add_system(first);
    schedule.configure_set("input").before("physics");
    schedule.configure_set("physics").before("render");
    schedule.configure_set("render").before("input");
    let error = schedule.build().unwrap_err();
    let ScheduleError::SetCycle { sets } = &error else { panic!("expected a set cycle, got {error:?}") };
    assert_eq!(sets.len(), 4, "{sets:?}");
    assert_eq!(sets.first(), sets.last());
    let message = error.to_string();
    for set in ["input", "physics", "render"] {
        assert!(sets.iter().any(|s| s == set), "{sets:?} lacks {set}");
        assert!(message.contains(set), "{message}");
    }
}

#[test]
fn a_system_in_two_sets_that_must_run_apart_is_refused() {
    // `first` is in a and c, with a -> b -> c: it would have to run before and after b.
    for b_holds_a_system in [false, true] {
        let mut schedule = Schedule::new();
        schedule.add_system(first).in_set("a").in_set("c");
        if b_holds_a_system {
            schedule.add_system(second).in_set("b");
        }
        schedule.configure_set("a").before("b");
        schedule.configure_set("b").before("c");
        let error = schedule.build().unwrap_err();
        assert_eq!(
            error,
            ScheduleError::ConflictingSets {
                system: "first".into(),
                first: "a".into(),
                second: "c".into(),
                path: vec!["a".into(), "b".into(), "c".into()],
            },
            "b holds a system: {b_holds_a_system}"
        );
        let message = error.to_string();
        assert!(message.contains("`first`") && message.contains("a -> b -> c"), "{message}");
        assert!(message.contains("take `first` out of"), "{message}");
    }
}

#[test]
fn a_cycle_through_a_set_names_the_systems_and_the_set() {
    let mut schedule = Schedule::new();
    schedule.add_system(first).before("physics");
    schedule.add_system(second).in_set("physics").before("first");
    let error = schedule.build().unwrap_err();
    let ScheduleError::Cycle { systems, sets } = &error else { panic!("expected a cycle, got {error:?}") };
    assert_eq!(systems.first(), systems.last());
    assert!(systems.iter().any(|s| s == "first") && systems.iter().any(|s| s == "second"), "{systems:?}");
    assert_eq!(sets, &["physics"]);
    assert!(error.to_string().contains("physics"), "{error}");
}

#[test]
fn a_cycle_is_named_when_a_system_after_it_was_added_first() {
    // `third` waits on the cycle but is not on it; it must not hide the cycle.
    let mut schedule = Schedule::new();
    schedule.add_system(third).after("first");
    schedule.add_system(first).after("second");
    schedule.add_system(second).after("first");
    let error = schedule.build().unwrap_err();
    let ScheduleError::Cycle { systems, .. } = &error else { panic!("expected a cycle, got {error:?}") };
    assert_eq!(systems.len(), 3, "{systems:?}");
    assert!(!systems.iter().any(|s| s == "third"), "{systems:?}");
}

#[test]
fn two_systems_of_one_name_are_an_error() {
    // Renamed onto another system's name.
    let mut schedule = Schedule::new();
    schedule.add_system(first);
    schedule.add_system(second).named("first");
    schedule.add_system(third).after("first");
    let error = schedule.build().unwrap_err();
    let ScheduleError::DuplicateSystem { name, first: rank1, second: rank2 } = &error else {
        panic!("expected a duplicate name, got {error:?}")
    };
    assert_eq!((name.as_str(), rank1.as_str(), rank2.as_str()), ("first", "1st", "2nd"));
    let message = error.to_string();
    assert!(message.contains("`first`") && message.contains("named("), "{message}");

    // One function added twice, with no ordering at all: still an error, and renaming fixes it.
    let mut schedule = Schedule::new();
    schedule.add_system(third);
    schedule.add_system(first);
    schedule.add_system(first);
    let error = schedule.build().unwrap_err();
    assert!(
        matches!(&error, ScheduleError::DuplicateSystem { name, second, .. } if name == "first" && second == "3rd"),
        "{error:?}"
    );
    let mut schedule = Schedule::new();
    schedule.add_system(first);
    schedule.add_system(first).named("first again");
    assert_eq!(schedule.order().unwrap(), ["first", "first again"]);

    // Closures added from one line in a loop share a name until renamed.
    let mut schedule = Schedule::new();
    for _ in 0..2 {
        schedule.add_system(|| {});
    }
    let error = schedule.build().unwrap_err();
    assert!(
        matches!(&error, ScheduleError::DuplicateSystem { name, .. } if name.starts_with("closure@")),
        "{error:?}"
    );
    let mut schedule = Schedule::new();
    for i in 0..2 {
        schedule.add_system(|| {}).named(format!("worker {i}"));
    }
    assert_eq!(schedule.order().unwrap(), ["worker 0", "worker 1"]);
}

#[test]
fn a_label_naming_a_system_and_a_set_is_an_error() {
    // A label naming a system and a set is ambiguous too.
    let mut schedule = Schedule::new();
    schedule.add_system(second);
    schedule.add_system(first).in_set("second");
    schedule.add_system(third).after("second");
    let error = schedule.build().unwrap_err();
    let ScheduleError::AmbiguousLabel { matches, .. } = &error else {
        panic!("expected an ambiguous label, got {error:?}")
    };
    assert_eq!(matches, &["system `second` (added 1st)", "set `second`"]);
}

// --- the parallel executor honours a zero threshold from the first frame (issue 19) ---
#[cfg(feature = "parallel")]
mod zero_threshold;

// --- the graph executor gives the single-threaded result (issue 14) ---
#[cfg(feature = "parallel")]
mod graph_executor;

// --- run conditions: every condition is evaluated every frame (issue 19) ---

struct Counter(u32);

#[test]
fn every_run_condition_is_evaluated_every_frame() {
    let evaluations = Arc::new(std::sync::atomic::AtomicU32::new(0));
    let last_seen = Arc::new(std::sync::atomic::AtomicU32::new(0));
    let (evaluated, seen) = (evaluations.clone(), last_seen.clone());
    // A stateful condition: true when the counter changed since it last looked.
    let changed = move |world: &World| {
        evaluated.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let now = world.resource::<Counter>().0;
        seen.swap(now, std::sync::atomic::Ordering::Relaxed) != now
    };
    let mut schedule = Schedule::new();
    schedule.add_system(first).run_if(|world: &World| world.resource::<Enabled>().0).run_if(changed);
    let mut world = World::new();
    world.insert_resource(Trace::default());
    world.insert_resource(Enabled(false));
    world.insert_resource(Counter(1));
    // Frame 1: disabled; `changed` still looks, and sees 1.
    schedule.run(&mut world);
    // Frame 2: enabled, but the counter has not changed since frame 1.
    world.resource_mut::<Enabled>().0 = true;
    schedule.run(&mut world);
    assert_eq!(world.resource::<Trace>().0, Vec::<&str>::new(), "fired on a stale observation");
    // Frame 3: changed.
    world.resource_mut::<Counter>().0 = 2;
    schedule.run(&mut world);
    assert_eq!(world.resource::<Trace>().0, ["first"]);
    assert_eq!(evaluations.load(std::sync::atomic::Ordering::Relaxed), 3);
    assert_eq!(last_seen.load(std::sync::atomic::Ordering::Relaxed), 2);
}

// --- Commands::spawn: handles at once, reserved in system order ---

/// Spawns a parent and a child with `A`, and tags the child with its parent's handle in `B`.
fn spawn_family(mut commands: Commands, _: Query<&C>) {
    for _ in 0..50 {
        let parent = commands.spawn(A(1));
        let child = commands.spawn((A(2), B(u64::from(parent.index()))));
        commands.set_parent(child, parent);
    }
}
fn spawn_family_too(mut commands: Commands, _: Query<&D>) {
    for _ in 0..50 {
        let parent = commands.spawn(A(1));
        let child = commands.spawn((A(2), B(u64::from(parent.index()))));
        commands.set_parent(child, parent);
    }
}

#[test]
fn commands_spawn_returns_distinct_handles_and_spawners_take_turns() {
    for executor in [ExecutorKind::SingleThreaded, ExecutorKind::Parallel] {
        let mut schedule = Schedule::new();
        schedule.set_executor(executor).set_parallel_threshold(Duration::ZERO);
        schedule.add_system(spawn_family);
        schedule.add_system(spawn_family_too);
        // They touch different data, but both reserve ids: they run one after the other, in
        // system order, so each gets the same ids on every run.
        assert_eq!(schedule.batches().unwrap().len(), 2, "spawners take turns");
        let mut world = World::new();
        let old = world.spawn_empty();
        world.despawn(old); // a freed slot for one reservation to reuse
        schedule.run(&mut world);
        assert_eq!(world.len(), 200, "{executor:?}");
        assert_eq!(schedule.last_frame_changes().spawned, 200, "{executor:?}");
        let children: Vec<(Entity, u64)> =
            world.query::<(Entity, &B)>().into_iter().map(|(e, b)| (e, b.0)).collect();
        assert_eq!(children.len(), 100);
        for (child, parent_index) in children {
            let parent = world.parent(child).expect("set_parent applied");
            assert_eq!(u64::from(parent.index()), parent_index, "{executor:?}");
            assert_eq!(world.get::<A>(parent).map(|a| a.0), Ok(1));
        }
        world.assert_hierarchy_invariants();
    }
}

// --- one-shot systems ---

#[test]
fn run_system_runs_once_with_fresh_state_and_applies_commands() {
    fn tick(mut a: Query<&mut A>, mut commands: Commands, mut runs: Local<u64>) {
        *runs += 1;
        a.for_each(|a| a.0 += *runs);
        commands.spawn(B(*runs));
    }
    let mut world = World::new();
    let e = world.spawn(A(0));
    let report = world.run_system(tick);
    assert_eq!((report.spawned, report.applied), (1, 1));
    world.run_system(tick);
    assert_eq!(world.get::<A>(e), Ok(&A(2)), "Local starts fresh each call");
    assert_eq!(world.query::<&B>().into_iter().map(|b| b.0).collect::<Vec<_>>(), [1, 1]);
    // Exclusive functions run too.
    world.run_system(|world: &mut World| world.clear());
    assert!(world.is_empty());
}

#[test]
fn run_system_names_the_missing_resource_and_aliasing_parameters() {
    fn needs_trace(_: ResMut<Trace>) {}
    fn aliasing(_: Query<&mut A>, _: Query<&A>) {}
    let mut world = World::new();
    let message = panic_message(|| world.run_system(needs_trace));
    assert!(message.contains("needs_trace") && message.contains("Trace"), "{message}");
    let message = panic_message(|| world.run_system(aliasing));
    assert!(message.contains("aliasing") && message.contains("conflicting parameters"), "{message}");
}

#[test]
fn systems_order_by_the_function_itself() {
    let mut schedule = Schedule::new();
    schedule.add_system(third).after(second);
    schedule.add_system(second).after(first).before(third);
    schedule.add_system(first);
    assert_eq!(run_once(&mut schedule), ["first", "second", "third"]);

    // A renamed system is no longer found under its function's name.
    let mut schedule = Schedule::new();
    schedule.add_system(first).named("renamed");
    schedule.add_system(second).after(first);
    assert!(matches!(schedule.build(), Err(ScheduleError::UnknownLabel { .. })), "{:?}", schedule.build());

    // Sets order against functions too.
    let mut schedule = Schedule::new();
    schedule.add_system(second).in_set("late");
    schedule.configure_set("late").after(first);
    schedule.add_system(first);
    assert_eq!(run_once(&mut schedule), ["first", "second"]);
}

#[test]
fn closures_are_named_where_they_were_added() {
    let mut schedule = Schedule::new();
    schedule.add_system(|mut trace: ResMut<Trace>| trace.0.push("closure"));
    schedule.add_system(first);
    let order = schedule.order().unwrap();
    assert!(order[0].starts_with("closure@") && order[0].contains("schedule/mod.rs:"), "{order:?}");
    assert_eq!(order[1], "first");
}

/// Systems take up to 16 parameters, as bevy's do.
#[test]
fn a_system_of_sixteen_parameters_runs() {
    use mosaic::Local;
    #[derive(Default)]
    struct N(u32);
    #[allow(clippy::too_many_arguments, reason = "the test is about the parameter count")]
    fn sixteen(
        mut a: Local<N>,
        mut b: Local<N>,
        mut c: Local<N>,
        mut d: Local<N>,
        mut e: Local<N>,
        mut f: Local<N>,
        mut g: Local<N>,
        mut h: Local<N>,
        mut i: Local<N>,
        mut j: Local<N>,
        mut k: Local<N>,
        mut l: Local<N>,
        mut m: Local<N>,
        mut n: Local<N>,
        mut o: Local<N>,
        mut total: ResMut<Total>,
    ) {
        for local in [
            &mut *a, &mut *b, &mut *c, &mut *d, &mut *e, &mut *f, &mut *g, &mut *h, &mut *i, &mut *j,
            &mut *k, &mut *l, &mut *m, &mut *n, &mut *o,
        ] {
            local.0 += 1;
            total.0 += local.0;
        }
    }
    #[derive(Default)]
    struct Total(u32);
    let mut world = World::new();
    world.insert_resource(Total::default());
    let mut schedule = Schedule::new();
    schedule.add_system(sixteen);
    schedule.run(&mut world);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Total>().0, 15 + 30);
}
