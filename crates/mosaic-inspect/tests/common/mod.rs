//! The frame loop the inspector's server tests run against: a world, an optional schedule and
//! an inspector on a thread of their own, publishing every 2 ms until the test ends.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, mpsc};
use std::time::Duration;

use mosaic::serialize::SnapshotRegistry;
use mosaic::{Schedule, World};
use mosaic_inspect::{Inspector, InspectorOptions};

/// A game whose frame loop owns the world and the inspector: [`Game::start`] returns once the
/// server listens; dropping it (or [`Game::stop`]) ends the loop and joins its thread.
pub struct Game {
    /// Where the inspector listens (loopback, a port the system chose).
    pub addr: SocketAddr,
    /// The inspector's write token.
    #[allow(dead_code, reason = "each test crate includes this module; not every one writes")]
    pub token: String,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<World>>,
}

impl Game {
    /// Starts the loop: `setup` fills a new world and may give a schedule, which then runs
    /// whenever the inspector lets the game run (not paused, or a step), with a 0.5 ms frame
    /// time reported for each frame that ran. Panics if the server does not start within 10 s.
    pub fn start(
        options: InspectorOptions,
        registry: SnapshotRegistry,
        setup: impl FnOnce(&mut World) -> Option<Schedule> + Send + 'static,
    ) -> Self {
        let (tx, rx) = mpsc::channel();
        let stop = Arc::new(AtomicBool::new(false));
        let thread = std::thread::spawn({
            let stop = Arc::clone(&stop);
            move || {
                let mut world = World::new();
                let mut schedule = setup(&mut world);
                let mut inspector = Inspector::start(options, registry).unwrap();
                tx.send((inspector.addr(), inspector.token().to_owned())).unwrap();
                while !stop.load(Ordering::Acquire) {
                    let ran = inspector.should_run();
                    if ran && let Some(schedule) = &mut schedule {
                        schedule.run(&mut world);
                    }
                    inspector.publish(
                        &mut world,
                        schedule.as_mut(),
                        ran.then_some(Duration::from_micros(500)),
                    );
                    std::thread::sleep(Duration::from_millis(2));
                }
                world
            }
        });
        let (addr, token) = rx.recv_timeout(Duration::from_secs(10)).expect("the server starts");
        Self { addr, token, stop, thread: Some(thread) }
    }

    /// Ends the loop and gives back the world as the game left it.
    #[allow(dead_code, reason = "each test crate includes this module; not every one stops a game by hand")]
    pub fn stop(mut self) -> World {
        self.stop.store(true, Ordering::Release);
        self.thread.take().expect("running until stopped or dropped").join().unwrap()
    }
}

impl Drop for Game {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
        if let Some(thread) = self.thread.take() {
            // A test that failed already panics: do not panic again on the loop's result.
            let _ = thread.join();
        }
    }
}
