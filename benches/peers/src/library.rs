//! The one trait every library implements, and the protocol of a timed benchmark.

use std::any::Any;
use std::fmt;

/// A workload from ecs_bench_suite (rust-gamedev), in the order the report lists them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, clap::ValueEnum)]
pub enum Workload {
    /// Fresh world (built untimed), 10,000 entities with Transform, Position, Rotation, Velocity.
    SimpleInsert,
    /// Those 10,000 entities: `position += velocity` over (Velocity, &mut Position), one thread.
    SimpleIter,
    /// `simple_iter` written as the library's idiomatic `for` loop over its query iterator (`-`
    /// where the library has no external iterator: flecs).
    SimpleIterFor,
    /// 10,000 entities with (Position, Velocity), every second one also with a zero-sized `Tag`:
    /// `position += velocity` over those with the tag (`With<Tag>` or the library's form).
    FilterIter,
    /// The same world: over all 10,000 with `Option<&Tag>`, `+=` where the tag is present and
    /// `-=` where it is not.
    OptionIter,
    /// 26 types A..Z, 20 entities each, each also with `Data`: `data *= 2`, one thread.
    FragIter,
    /// 1,000 entities with the four components; in parallel: invert the matrix 100 times, then
    /// transform the position by it.
    HeavyCompute,
    /// 10,000 each of (A,B), (A,B,C), (A,B,C,D), (A,B,C,E); systems AB, CD, CE swap values,
    /// through the library's scheduler.
    Schedule,
    /// 10,000 entities with A: add B to each, then remove B from each.
    AddRemove,
    /// 1,000 entities with the four components: serialize to postcard in memory, deserialize into
    /// a new world.
    SerializeBinary,
    /// The same through RON text.
    SerializeText,
    /// 100,000 entities with a `Health`; each run modifies 1% of them (every 100th, a different
    /// 1% each run) through the library's tracked write path, counts the changed ones with its
    /// change detection, and resets the window (libraries with change detection only).
    ChangeDetect,
}

impl Workload {
    /// Every workload, in report order.
    pub const ALL: [Workload; 12] = [
        Workload::SimpleInsert,
        Workload::SimpleIter,
        Workload::SimpleIterFor,
        Workload::FilterIter,
        Workload::OptionIter,
        Workload::FragIter,
        Workload::HeavyCompute,
        Workload::Schedule,
        Workload::AddRemove,
        Workload::SerializeBinary,
        Workload::SerializeText,
        Workload::ChangeDetect,
    ];

    /// The ecs_bench_suite name (`simple_insert`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Workload::SimpleInsert => "simple_insert",
            Workload::SimpleIter => "simple_iter",
            Workload::SimpleIterFor => "simple_iter_for",
            Workload::FilterIter => "filter_iter",
            Workload::OptionIter => "option_iter",
            Workload::FragIter => "frag_iter",
            Workload::HeavyCompute => "heavy_compute",
            Workload::Schedule => "schedule",
            Workload::AddRemove => "add_remove",
            Workload::SerializeBinary => "serialize_binary",
            Workload::SerializeText => "serialize_text",
            Workload::ChangeDetect => "change_detect",
        }
    }
}

impl fmt::Display for Workload {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The founding benchmarks' three operations, run at 10^3..10^6 entities under each [`Profile`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, clap::ValueEnum)]
pub enum Scale {
    /// Spawn n entities with (Position, Velocity) into a fresh world that has the profile's
    /// component types registered (the world is built untimed).
    Create,
    /// Run the profile's systems once over n entities: one moves (`pos += vel`), the rest each
    /// query a filler component no entity has.
    Iterate,
    /// Spawn n entities, then despawn them all, in a world that has the profile's types.
    CreateDestroy,
}

impl Scale {
    /// Every scaling operation, in report order.
    pub const ALL: [Scale; 3] = [Scale::Create, Scale::Iterate, Scale::CreateDestroy];

    /// The report's name for it.
    pub fn name(self) -> &'static str {
        match self {
            Scale::Create => "create",
            Scale::Iterate => "iterate",
            Scale::CreateDestroy => "create_destroy",
        }
    }
}

/// A founding profile: how many component types exist and how many systems run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Profile {
    /// "A", "AA" or "AAA".
    pub name: &'static str,
    /// Component types registered in the world (fillers; the entities use two more).
    pub types: usize,
    /// Systems in the schedule: one moving system and `systems - 1` idle ones.
    pub systems: usize,
}

/// The founding implementation's profiles: A (32 types, 16 systems), AA (128, 32), AAA (512, 64).
pub const PROFILES: [Profile; 3] = [
    Profile { name: "A", types: 32, systems: 16 },
    Profile { name: "AA", types: 128, systems: 32 },
    Profile { name: "AAA", types: 512, systems: 64 },
];

/// The largest filler count a profile asks for; libraries generate this many filler types.
pub const MAX_FILLERS: usize = 512;

/// One prepared benchmark: its world is built, [`Bench::run`] does the timed work once.
///
/// A sample is `prepare(iters)`, then `iters` calls of `run` under the clock, then `settle()`.
/// `prepare` and `settle` are not timed: fresh worlds are built in `prepare`, and worlds that
/// `run` produced are dropped in `settle`, so neither world construction nor drop is measured.
pub trait Bench {
    /// Untimed, before a sample of `iters` runs.
    fn prepare(&mut self, _iters: usize) {}
    /// The timed work, once.
    fn run(&mut self);
    /// Untimed, after a sample.
    fn settle(&mut self) {}
}

/// A bench that runs `f` on a state built once; whatever `f` returns is kept until the sample
/// ends, so its drop is not timed.
struct Keep<S, T, F> {
    state: S,
    f: F,
    kept: Vec<T>,
}

impl<S, T, F: FnMut(&mut S) -> T> Bench for Keep<S, T, F> {
    fn run(&mut self) {
        let out = (self.f)(&mut self.state);
        self.kept.push(out);
    }
    fn settle(&mut self) {
        self.kept.clear();
    }
}

/// A bench over one state that `f` changes and leaves ready for the next run (iteration,
/// add-then-remove, a schedule).
pub fn repeat<S: 'static>(state: S, f: impl FnMut(&mut S) + 'static) -> Box<dyn Bench> {
    Box::new(Keep { state, f, kept: Vec::new() })
}

/// A bench whose run produces something (a deserialized world) that is dropped untimed.
pub fn keep<S: 'static, T: 'static>(state: S, f: impl FnMut(&mut S) -> T + 'static) -> Box<dyn Bench> {
    Box::new(Keep { state, f, kept: Vec::new() })
}

/// A bench that fills a fresh `W` each run: `make` builds the worlds before the sample (untimed),
/// `fill` is timed, and the filled worlds are dropped after the sample (untimed).
struct Fresh<W, M, F> {
    make: M,
    fill: F,
    ready: Vec<W>,
    done: Vec<W>,
}

impl<W, M: FnMut() -> W, F: FnMut(&mut W)> Bench for Fresh<W, M, F> {
    fn prepare(&mut self, iters: usize) {
        self.ready.extend((0..iters).map(|_| (self.make)()));
    }
    fn run(&mut self) {
        let mut world = self.ready.pop().unwrap_or_else(|| (self.make)());
        (self.fill)(&mut world);
        self.done.push(world);
    }
    fn settle(&mut self) {
        self.done.clear();
    }
}

/// See [`Fresh`]: `make` untimed, `fill` timed, drop untimed.
pub fn fresh<W: 'static>(
    make: impl FnMut() -> W + 'static,
    fill: impl FnMut(&mut W) + 'static,
) -> Box<dyn Bench> {
    Box::new(Fresh { make, fill, ready: Vec::new(), done: Vec::new() })
}

/// One ECS library (or the plain-`Vec` baseline, or a variant of Mosaic) under test.
///
/// Each method hands back a prepared benchmark, or `None` where the library cannot express the
/// workload (the report shows "-" and says why in [`Library::notes`]).
pub trait Library {
    /// The row label: `mosaic`, `bevy`, `hecs`, ... Variants add a suffix (`mosaic (group)`).
    fn name(&self) -> &'static str;
    /// The crates.io crate whose version the report lists, if any.
    fn crate_name(&self) -> Option<&'static str>;
    /// How this library does each workload (which APIs), one line each, for the report.
    fn notes(&self) -> &'static str;
    /// The ecs_bench_suite workload, built and ready to time.
    fn bench(&self, workload: Workload) -> Option<Box<dyn Bench>>;
    /// A founding scaling case: `op` on `n` entities under `profile`.
    fn scale(&self, _op: Scale, _n: usize, _profile: Profile) -> Option<Box<dyn Bench>> {
        None
    }
    /// Builds a world with `n` entities holding (Position, Velocity) through the library's batch
    /// spawn, for the memory measurement; the caller keeps it alive while it reads the heap.
    fn populate(&self, _n: usize) -> Option<Box<dyn Any>> {
        None
    }
}

/// The number of entities the insert and iteration workloads use.
pub const N_SIMPLE: usize = 10_000;
/// Entities in `filter_iter` and `option_iter`; every second one (even index) has the tag.
pub const N_FILTER: usize = 10_000;
/// Entities per type in `frag_iter`.
pub const N_FRAG: usize = 20;
/// Entities in `heavy_compute`.
pub const N_HEAVY: usize = 1_000;
/// Entities in each of the four `schedule` archetypes.
pub const N_SCHEDULE: usize = 10_000;
/// Entities in `add_remove`.
pub const N_ADD_REMOVE: usize = 10_000;
/// Entities in the serialize workloads.
pub const N_SERIALIZE: usize = 1_000;
/// Entities in `change_detect`; 1% of them change per run.
pub const N_CHANGE: usize = 100_000;
/// Matrix inversions per entity in `heavy_compute`.
pub const HEAVY_INVERSIONS: usize = 100;
