//! The graph executor gives the single-threaded result (issue 14).

use super::*;

/// `N` resources; system `k` of a schedule reads one and writes another (or the same), so some
/// pairs conflict and most batches hold a few systems.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Cell<const N: usize>(u64);

fn mix<const W: usize, const R: usize>(mut w: ResMut<Cell<W>>, r: Res<Cell<R>>) {
    w.0 = w.0.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(r.0 ^ (W as u64 * 31 + R as u64));
}
fn bump<const W: usize>(mut w: ResMut<Cell<W>>) {
    w.0 = w.0.rotate_left(7) ^ 0x9e37;
}
#[derive(Component)]
struct Spark;

fn spawn_from<const R: usize>(r: Res<Cell<R>>, mut commands: Commands) {
    commands.spawn(Spark);
    let _ = r.0;
}
fn count_into<const W: usize>(mut w: ResMut<Cell<W>>, q: Query<&Spark>) {
    w.0 = w.0.wrapping_add(q.iter().count() as u64);
}

fn tangled_schedule(executor: ExecutorKind) -> Schedule {
    let mut schedule = Schedule::new();
    schedule.set_executor(executor).set_parallel_threshold(Duration::ZERO);
    schedule.add_system(mix::<0, 1>);
    schedule.add_system(mix::<1, 2>);
    schedule.add_system(bump::<3>);
    schedule.add_system(mix::<2, 0>);
    schedule.add_system(count_into::<4>);
    schedule.add_system(mix::<3, 4>);
    schedule.add_system(bump::<0>);
    schedule.add_system(spawn_from::<2>);
    schedule.add_system(mix::<4, 3>);
    schedule.add_system(mix::<1, 3>);
    schedule.add_system(bump::<2>).after(mix::<4, 3>);
    schedule.add_system(count_into::<1>);
    schedule.add_system(mix::<0, 4>);
    schedule
}

fn tangled_world() -> World {
    let mut world = World::new();
    world.insert_resource(Cell::<0>(1));
    world.insert_resource(Cell::<1>(2));
    world.insert_resource(Cell::<2>(3));
    world.insert_resource(Cell::<3>(4));
    world.insert_resource(Cell::<4>(5));
    world
}

fn cells(world: &World) -> [u64; 5] {
    [
        world.resource::<Cell<0>>().0,
        world.resource::<Cell<1>>().0,
        world.resource::<Cell<2>>().0,
        world.resource::<Cell<3>>().0,
        world.resource::<Cell<4>>().0,
    ]
}

#[test]
fn the_graph_executor_matches_the_single_threaded_one_on_any_pool_size() {
    let mut reference = tangled_world();
    let mut schedule = tangled_schedule(ExecutorKind::SingleThreaded);
    let mut expected = Vec::new();
    for _ in 0..20 {
        schedule.run(&mut reference);
        expected.push(cells(&reference));
    }
    assert!(schedule.batches().unwrap().len() > 2, "the test needs several batches");
    for threads in [1, 2, 3, 4] {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        let mut world = tangled_world();
        let mut schedule = tangled_schedule(ExecutorKind::Parallel);
        let seen: Vec<[u64; 5]> = pool.install(|| {
            (0..20)
                .map(|_| {
                    schedule.run(&mut world);
                    cells(&world)
                })
                .collect()
        });
        assert_eq!(seen, expected, "{threads} threads");
        assert_eq!(world.len(), reference.len());
    }
}

#[test]
fn a_panicking_system_in_the_graph_executor_reaches_the_caller_and_the_others_stop_waiting() {
    fn fine(mut left: ResMut<Cell<0>>) {
        left.0 += 1;
    }
    fn boom(_: Res<Cell<1>>) {
        panic!("boom in a system");
    }
    fn after_boom(mut right: ResMut<Cell<1>>) {
        right.0 += 1;
    }
    let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    let mut schedule = Schedule::new();
    schedule.set_executor(ExecutorKind::Parallel).set_parallel_threshold(Duration::ZERO);
    schedule.add_system(fine);
    schedule.add_system(boom);
    schedule.add_system(after_boom);
    let mut world = tangled_world();
    let message = pool.install(|| panic_message(|| schedule.run(&mut world)));
    assert!(message.contains("boom in a system"), "{message}");
    assert_eq!(world.resource::<Cell<1>>().0, 2, "a system waiting for the panicked one never ran");
}
