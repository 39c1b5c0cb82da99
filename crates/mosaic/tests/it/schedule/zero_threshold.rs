//! The parallel executor honours a zero threshold from the first frame (issue 19).

use super::*;

/// A two-party rendezvous that gives up after a timeout, so a schedule that runs both parties on
/// one thread fails the test instead of hanging it.
#[derive(Default)]
struct Meet {
    arrived: Mutex<usize>,
    all_here: std::sync::Condvar,
    missed: std::sync::atomic::AtomicUsize,
}

impl Meet {
    fn wait(&self) {
        let mut arrived = self.arrived.lock().unwrap();
        let round_end = (*arrived / 2 + 1) * 2;
        *arrived += 1;
        self.all_here.notify_all();
        let (arrived, timeout) = self
            .all_here
            .wait_timeout_while(arrived, Duration::from_secs(5), |arrived| *arrived < round_end)
            .unwrap();
        drop(arrived);
        if timeout.timed_out() {
            self.missed.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
    }
}

fn meet_left(meet: Res<Meet>) {
    meet.wait();
}
fn meet_right(meet: Res<Meet>) {
    meet.wait();
}

#[test]
fn zero_threshold_runs_a_batch_on_the_pool_from_the_first_frame() {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    let mut schedule = Schedule::new();
    schedule.set_executor(ExecutorKind::Parallel).set_parallel_threshold(Duration::ZERO);
    schedule.add_system(meet_left);
    schedule.add_system(meet_right);
    assert_eq!(schedule.batches().unwrap(), [vec!["meet_left", "meet_right"]]);
    let mut world = World::new();
    world.insert_resource(Meet::default());
    pool.install(|| {
        for _ in 0..4 {
            schedule.run(&mut world);
        }
    });
    let meet = world.resource::<Meet>();
    assert_eq!(*meet.arrived.lock().unwrap(), 8);
    assert_eq!(
        meet.missed.load(std::sync::atomic::Ordering::Relaxed),
        0,
        "a frame ran the batch on one thread"
    );
}

struct Left(u32);
struct Right(u32);

fn meet_and_write_left(meet: Res<Meet>, mut left: ResMut<Left>) {
    meet.wait();
    left.0 += 1;
}
fn write_left(mut left: ResMut<Left>) {
    left.0 *= 10;
}
fn meet_and_write_right(meet: Res<Meet>, mut right: ResMut<Right>) {
    meet.wait();
    right.0 += 1;
}

#[test]
fn a_system_starts_when_what_it_waits_for_is_done_not_when_the_batch_before_is() {
    // Batches [meet_and_write_left], [write_left, meet_and_write_right]: the right meeter is
    // in the second batch but waits for nothing, so it must run beside the left one.
    let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    let mut schedule = Schedule::new();
    schedule.set_executor(ExecutorKind::Parallel).set_parallel_threshold(Duration::ZERO);
    schedule.add_system(meet_and_write_left);
    schedule.add_system(write_left);
    schedule.add_system(meet_and_write_right);
    assert_eq!(
        schedule.batches().unwrap(),
        [vec!["meet_and_write_left"], vec!["write_left", "meet_and_write_right"]]
    );
    let mut world = World::new();
    world.insert_resource(Meet::default());
    world.insert_resource(Left(0));
    world.insert_resource(Right(0));
    pool.install(|| {
        for _ in 0..3 {
            schedule.run(&mut world);
        }
    });
    let meet = world.resource::<Meet>();
    assert_eq!(meet.missed.load(std::sync::atomic::Ordering::Relaxed), 0, "the meeters never overlapped");
    // The conflicting pair kept its order: ((0 + 1) * 10 + 1) * 10 + 1) * 10.
    assert_eq!(world.resource::<Left>().0, 1110);
    assert_eq!(world.resource::<Right>().0, 3);
}
