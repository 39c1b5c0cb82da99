//! A small colony: what a flecs or bevy user reaches for after day two, in one program.
//!
//! - **many-to-many pairs**: a worker works at several buildings at once, each pair carrying
//!   its shifts (`add_pair_with`), read back through a wildcard query term (`&Targets<WorksAt>`)
//!   and by target (`sources`, the `(*, mine)` view `pairs_to`);
//! - **traversal**: a room reads the `Colony` of its nearest ancestor (`get_up`);
//! - **an observer of a custom event that propagates**: an alarm raised in a storeroom goes up
//!   to the farm, then the colony, whose observers log it;
//! - **required components**: every `Worker` gets `Hunger` and `Energy` without naming them;
//! - **disabling**: a sick worker is skipped by the schedule's queries;
//! - **a value index**: the workers of one job, in O(1).
//!
//! Run with `cargo run -p mosaic-ecs --example relations`.

use mosaic::hierarchy::{OnDeleteTarget, PairRelation, Targets};
use mosaic::{Component, Event, Index, On, Query, ResMut, Schedule, World};

#[derive(Component)]
struct Colony(&'static str);

#[derive(Component)]
struct Building(&'static str);

#[derive(Component, Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Job {
    Farmer,
    Miner,
}

/// A worker: spawning one adds `Hunger` (its default) and `Energy(100)` as well.
#[derive(Component)]
#[require(Hunger, Energy = Energy(100))]
struct Worker(&'static str);

#[derive(Component, Default, Debug, PartialEq)]
struct Hunger(u32);

#[derive(Component, Debug, PartialEq)]
struct Energy(u32);

/// The pair `(WorksAt, building)`: a worker may work at several buildings, so many sources and
/// many targets; each pair holds the worker's shifts there. When a building is despawned, the
/// pairs naming it go (the workers stay).
#[derive(Clone, Debug)]
struct WorksAt {
    shifts: u32,
}

impl PairRelation for WorksAt {
    const ON_DELETE_TARGET: OnDeleteTarget = OnDeleteTarget::RemovePair;
}

/// An alarm raised at an entity; it propagates up the hierarchy (room, building, colony).
#[derive(Event)]
#[event(propagate)]
struct Alarm(&'static str);

/// What the colony's observers heard, in order.
#[derive(Default)]
struct AlarmLog(Vec<String>);

/// A day's work: each worker spends energy per shift and gets hungry. Disabled (sick) workers
/// are skipped, as every query skips them.
fn work(mut workers: Query<(&Worker, &Targets<WorksAt>, &mut Energy, &mut Hunger)>) {
    for (_, jobs, energy, hunger) in workers.iter_mut() {
        let shifts: u32 = jobs.iter().map(|(_, works)| works.shifts).sum();
        energy.0 = energy.0.saturating_sub(10 * shifts);
        hunger.0 += shifts;
    }
}

/// Counts the miners through the index, inside a system.
fn count_miners(miners: Index<Job>, mut log: ResMut<AlarmLog>) {
    log.0.push(format!("{} miners", miners.get(&Job::Miner).len()));
}

fn main() {
    let mut world = World::new();
    world.insert_resource(AlarmLog::default());
    world.add_index::<Job>();

    // The colony, its buildings (children in the hierarchy) and a room of the farm.
    let colony = world.spawn(Colony("Hearth"));
    let farm = world.spawn(Building("farm"));
    let mine = world.spawn(Building("mine"));
    let storeroom = world.spawn(Building("storeroom"));
    world.set_parent(farm, colony).unwrap();
    world.set_parent(mine, colony).unwrap();
    world.set_parent(storeroom, farm).unwrap();

    // Required components: a worker is spawned with `Hunger` and `Energy` it did not name.
    let alice = world.spawn((Worker("alice"), Job::Farmer));
    let bob = world.spawn((Worker("bob"), Job::Miner));
    let carol = world.spawn((Worker("carol"), Job::Miner));
    assert_eq!(world.get::<Energy>(alice), Ok(&Energy(100)));
    assert_eq!(world.get::<Hunger>(bob), Ok(&Hunger(0)));

    // Many-to-many: alice works at the farm and the mine, bob and carol at the mine.
    world.add_pair_with(alice, farm, WorksAt { shifts: 2 });
    world.add_pair_with(alice, mine, WorksAt { shifts: 1 });
    world.add_pair_with(bob, mine, WorksAt { shifts: 3 });
    world.add_pair_with(carol, mine, WorksAt { shifts: 2 });

    // Wildcard `(WorksAt, *)`: each worker with each building it works at.
    let mut rota = Vec::new();
    for (worker, jobs) in world.query::<(&Worker, &Targets<WorksAt>)>() {
        rota.extend(jobs.iter().map(|(building, works)| (worker.0, building, works.shifts)));
    }
    for (worker, building, shifts) in rota {
        println!("{worker} works {shifts} shifts at the {}", world.get::<Building>(building).unwrap().0);
    }
    // By target `(WorksAt, mine)`, and every pair of any kind pointing at the mine `(*, mine)`.
    assert_eq!(world.sources::<WorksAt>(mine), [alice, bob, carol]);
    assert_eq!(world.pairs_to(mine).count(), 3);

    // Traversal: the storeroom reads the colony of its nearest ancestor that has one.
    let (found, name) = world.get_up::<Colony>(storeroom).expect("the storeroom is in a colony");
    assert_eq!((found, name.0), (colony, "Hearth"));

    // Observers of a propagating event: the farm and the colony hear an alarm raised in the
    // storeroom, in that order; the farm's observer could stop it with `propagate(false)`.
    world.observe(farm, |alarm: On<Alarm>, mut log: ResMut<AlarmLog>| {
        log.0.push(format!("farm heard {}", alarm.0));
    });
    world.observe(colony, |alarm: On<Alarm>, mut log: ResMut<AlarmLog>| {
        let from = alarm.original_target().expect("raised at an entity");
        log.0.push(format!("colony heard {} from {from}", alarm.0));
    });
    world.trigger_targets(Alarm("fire"), storeroom);

    // Disabling: carol is sick; the day's work passes over her.
    world.disable(carol);
    let mut day = Schedule::new();
    day.add_system(work);
    day.add_system(count_miners).after(work);
    day.run(&mut world);
    assert_eq!(world.get::<Energy>(alice), Ok(&Energy(70)));
    assert_eq!(world.get::<Energy>(bob), Ok(&Energy(70)));
    assert_eq!(world.get::<Energy>(carol), Ok(&Energy(100)), "disabled: not worked");

    // The value index: the miners, in O(1), exact after every write.
    assert_eq!(world.index::<Job>().get(&Job::Miner), [bob, carol]);
    world.insert(carol, Job::Farmer);
    assert_eq!(world.index::<Job>().get(&Job::Miner), [bob]);

    // The mine closes: its pairs go, its workers stay.
    world.despawn(mine);
    assert!(world.is_alive(bob) && world.targets::<WorksAt>(bob).count() == 0);
    assert_eq!(world.targets::<WorksAt>(alice).collect::<Vec<_>>(), [farm]);

    for line in &world.resource::<AlarmLog>().0 {
        println!("{line}");
    }
    assert_eq!(
        world.resource::<AlarmLog>().0[..2],
        ["farm heard fire".to_owned(), format!("colony heard fire from {storeroom}")]
    );
    println!("colony: {} entities, {} observers", world.len(), world.observer_count());
}
