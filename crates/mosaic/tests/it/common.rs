//! Components and helpers shared by the integration tests.
//!
//! Each test module uses a different subset of this module.
#![allow(dead_code, reason = "not every helper is used by the modules of every feature set")]

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use mosaic::{Component, Entity, World};

/// A plain sized component.
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Position {
    pub x: i32,
    pub y: i32,
}

impl Position {
    pub fn new(x: i32, y: i32) -> Self {
        Self { x, y }
    }
}

/// A second sized component.
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Velocity(pub i32);

/// A component that owns heap memory.
#[derive(Component, Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Name(pub String);

/// A zero-sized tag component.
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Marker;

/// Counts the drops of the [`Tracked`] values made from it. One per test, so tests running in
/// parallel threads never see each other's drops.
#[derive(Clone, Debug, Default)]
pub struct DropCounter(Arc<AtomicUsize>);

impl DropCounter {
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of values dropped so far.
    pub fn drops(&self) -> usize {
        self.0.load(Ordering::SeqCst)
    }

    /// A new value counted by this counter.
    pub fn track(&self, id: u32) -> Tracked {
        Tracked { id, drops: Arc::clone(&self.0) }
    }

    /// A new value of the second counted type.
    pub fn track2(&self, id: u32) -> Tracked2 {
        Tracked2(self.track(id))
    }
}

/// A component that counts its drops in a [`DropCounter`].
#[derive(Component, Debug)]
pub struct Tracked {
    pub id: u32,
    drops: Arc<AtomicUsize>,
}

impl Drop for Tracked {
    fn drop(&mut self) {
        self.drops.fetch_add(1, Ordering::SeqCst);
    }
}

/// A second counted component type, so one entity can hold two counted values.
#[derive(Component, Debug)]
pub struct Tracked2(pub Tracked);

/// Runs `f`, which must panic, and returns the panic message.
///
/// # Panics
/// If `f` returns normally.
#[track_caller]
pub fn panic_message<R>(f: impl FnOnce() -> R) -> String {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(_) => panic!("expected a panic, but the call returned"),
        Err(payload) => payload
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| payload.downcast_ref::<&str>().map(|s| (*s).to_owned()))
            .unwrap_or_else(|| "<non-string panic payload>".to_owned()),
    }
}

/// Number of values in `T`'s pool (0 when `T` was never registered).
pub fn pool_len<T: Component>(world: &World) -> usize {
    world.components().pool_of::<T>().map_or(0, |pool| pool.len())
}

/// Checks every pool's internal invariants and that each entity in a pool is alive.
#[track_caller]
pub fn assert_pools_consistent(world: &World) {
    for pool in world.components().pools() {
        pool.assert_invariants();
        for &entity in pool.entities() {
            assert!(world.is_alive(entity), "dead entity {entity} found in the `{}` pool", pool.type_name());
        }
    }
}

/// The live entities, sorted.
pub fn live_entities(world: &World) -> Vec<Entity> {
    let mut live: Vec<Entity> = world.entities().iter().collect();
    live.sort();
    live
}

/// A component that logs its value when dropped, for tests that drops happen in the order a
/// reference run makes.
#[derive(Component, Debug)]
pub struct Logged(pub u32, pub Arc<std::sync::Mutex<Vec<u32>>>);

impl Drop for Logged {
    fn drop(&mut self) {
        self.1.lock().unwrap().push(self.0);
    }
}

/// An entity as two worlds can compare it (handles carry their world's tag).
pub type Key = (u32, u32);

/// `e`'s index and generation.
pub fn key(e: Entity) -> Key {
    (e.index(), e.generation())
}

/// Runs `f` on a rayon pool of `threads` threads (on this thread without the `parallel`
/// feature).
pub fn in_threads<R: Send>(threads: usize, f: impl FnOnce() -> R + Send) -> R {
    #[cfg(feature = "parallel")]
    return rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap().install(f);
    #[cfg(not(feature = "parallel"))]
    {
        let _ = threads;
        f()
    }
}
