//! The handle the frame loop holds: starts the server, publishes views, applies queued writes.

use std::collections::VecDeque;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use mosaic::rollback::{RollbackError, RollbackRing};
use mosaic::serialize::SnapshotRegistry;
use mosaic::{Schedule, World};
use serde_json::Value;

use crate::error::InspectError;
use crate::live;
use crate::server;
use crate::travel::Travel;
use crate::view::{self, Live, Source};
use crate::{body, budget};

/// How the inspector serves.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct InspectorOptions {
    /// Where to listen. Default `127.0.0.1:7878`; port 0 picks a free port (see
    /// [`Inspector::addr`]). A non-loopback address is refused unless
    /// [`InspectorOptions::allow_remote`] is set.
    pub addr: SocketAddr,
    /// Serve on a non-loopback address. Default `false`. There is no authentication: anyone who
    /// can reach the address sees the world (and, with writes on, changes it).
    pub allow_remote: bool,
    /// Accept writes: set a component, despawn, pause, step. Default `false`: they get 403.
    pub allow_writes: bool,
    /// What the 403 of a refused write tells the client to do, in the application's terms
    /// (the arena says `run the arena with --inspect-writes`). Default: the library option,
    /// `start the inspector with InspectorOptions::writes(true)`.
    pub writes_hint: &'static str,
    /// The largest page of entities one request returns, in entities. Default 500.
    pub max_page_size: usize,
    /// How many frame times to keep for the chart, in frames. Default 600.
    pub frame_history: usize,
    /// Save frames for time travel ([`Inspector::keep_frames`]) even while no client is
    /// watching. Default `false`: frames are saved only while a client is (a request in the
    /// last [`InspectorOptions::watch_window`]) and the full ring fits in
    /// [`InspectorOptions::record_budget`], or while a client asked to record
    /// (`POST /api/frames/record`), so an idle inspector costs no save per frame; the ring then
    /// holds the frames run since someone looked.
    pub keep_frames_idle: bool,
    /// The most memory a full time-travel ring may take for frames to be saved just because a
    /// client watches, in bytes: the ring's capacity times the bytes of the last frame saved.
    /// Default [`RECORD_BUDGET`] (128 MiB). Past it (10^5 arena entities take about 10 MB a
    /// frame, 1.2 GB for 120 frames), opening the page saves nothing until the client asks to
    /// record (`POST /api/frames/record?on=true`, a write that needs the token but not
    /// [`InspectorOptions::allow_writes`]: it changes no state of the world), so looking costs
    /// no more than reading.
    pub record_budget: usize,
    /// How long after its last request a client counts as watching. Default [`WATCH_WINDOW`].
    pub watch_window: Duration,
    /// The most of the frame loop's time that answering clients may take, in percent (1 to 100;
    /// values outside are clamped). Default [`VIEW_BUDGET_PERCENT`], 10. Reads of the live world
    /// are answered by the frame loop at its publish point; after a publish spent `t` on them,
    /// the next reads are answered no sooner than `t * (100 / percent - 1)` later (they wait,
    /// up to 3 seconds), and one publish point spends at most a few milliseconds on them beyond
    /// the first. A write queued resets the wait, so a client reads its write back at once.
    pub view_budget_percent: u8,
    /// How long a client has to send a whole request (request line, headers and body), from
    /// the time it connects. Default [`REQUEST_TIMEOUT`]. A request not complete in time gets
    /// 408 and its connection is closed (one that sent nothing is closed unanswered). Each
    /// connection carries one request and lasts at most twice this, plus 3 s for the frame loop
    /// to answer and 1 s to close, whatever the client does: a response not taken by then is
    /// cut off. Values under 10 ms count as 10 ms.
    pub request_timeout: Duration,
    /// The most connections open at once, in connections. Default [`MAX_CONNECTIONS`] (4,096).
    /// More are answered 503 at once and closed. An open connection, idle or slow, costs memory
    /// (about 17 KiB, measured: hyper's buffers and a task), not a thread, so the limit can be
    /// high (4,096 take about 70 MB at most): what it bounds is memory and
    /// file descriptors (the process needs this many more; see `ulimit -n`). Values under 1 count
    /// as 1, over 2^20 as 2^20.
    pub max_connections: usize,
}

/// The default [`InspectorOptions::request_timeout`]: 5 seconds.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(5);

/// The default [`InspectorOptions::max_connections`]: 4,096 connections.
pub const MAX_CONNECTIONS: usize = 4096;

/// The default [`InspectorOptions::view_budget_percent`]: answering clients may take a tenth of
/// the frame loop's time.
pub const VIEW_BUDGET_PERCENT: u8 = 10;

/// The default [`InspectorOptions::record_budget`]: 128 MiB.
pub const RECORD_BUDGET: usize = 128 << 20;

/// The default [`InspectorOptions::writes_hint`].
pub const WRITES_HINT: &str = "start the inspector with `InspectorOptions::writes(true)`";

/// The default [`InspectorOptions::watch_window`]: 5 seconds (the page polls every second).
pub const WATCH_WINDOW: Duration = Duration::from_secs(5);

impl Default for InspectorOptions {
    fn default() -> Self {
        Self {
            addr: SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), 7878),
            allow_remote: false,
            allow_writes: false,
            writes_hint: WRITES_HINT,
            max_page_size: 500,
            frame_history: 600,
            keep_frames_idle: false,
            record_budget: RECORD_BUDGET,
            watch_window: WATCH_WINDOW,
            view_budget_percent: VIEW_BUDGET_PERCENT,
            request_timeout: REQUEST_TIMEOUT,
            max_connections: MAX_CONNECTIONS,
        }
    }
}

impl InspectorOptions {
    /// The defaults with `addr`.
    pub fn with_addr(addr: SocketAddr) -> Self {
        Self { addr, ..Self::default() }
    }

    /// These options with writes allowed or not.
    pub fn writes(mut self, allow: bool) -> Self {
        self.allow_writes = allow;
        self
    }

    /// These options with `hint` as what a refused write's 403 says to do (see
    /// [`InspectorOptions::writes_hint`]).
    pub fn writes_hint(mut self, hint: &'static str) -> Self {
        self.writes_hint = hint;
        self
    }

    /// These options with frames saved for time travel while no client watches, or not (see
    /// [`InspectorOptions::keep_frames_idle`]).
    pub fn frames_idle(mut self, keep: bool) -> Self {
        self.keep_frames_idle = keep;
        self
    }

    /// These options with non-loopback addresses allowed or not.
    pub fn remote(mut self, allow: bool) -> Self {
        self.allow_remote = allow;
        self
    }

    /// These options with `timeout` as the time a client has to send a request and to take
    /// its response (see [`InspectorOptions::request_timeout`]).
    pub fn request_timeout(mut self, timeout: Duration) -> Self {
        self.request_timeout = timeout;
        self
    }

    /// These options with at most `limit` connections open at once (see
    /// [`InspectorOptions::max_connections`]).
    pub fn connections(mut self, limit: usize) -> Self {
        self.max_connections = limit;
        self
    }
}

/// A write asked for by a client, applied by the frame loop at its next publish.
#[derive(Debug, Clone)]
pub(crate) enum Command {
    /// Insert (or replace) component `component` on `entity` with `value`.
    Set { entity: String, component: String, value: Value },
    /// Despawn `entity`.
    Despawn { entity: String },
    /// Restore the live world to saved frame `frame` (and stay paused).
    Rewind { frame: u64 },
}

/// State shared by the frame loop and the server threads. Locks are held only to push or pop
/// a short queue or clone an `Arc`, never while a read is answered or a request served.
pub(crate) struct Shared {
    /// Reads waiting for the frame loop ([`live::read`]).
    pub(crate) reads: Mutex<live::Queue>,
    pub(crate) commands: Mutex<Vec<Command>>,
    pub(crate) paused: AtomicBool,
    /// Frames to run while paused.
    pub(crate) steps: AtomicU32,
    /// A client asked to save frames for time travel (`POST /api/frames/record`).
    pub(crate) recording: AtomicBool,
    /// Errors of writes applied (most recent last, at most 20).
    pub(crate) write_errors: Mutex<VecDeque<String>>,
    pub(crate) options: InspectorOptions,
    /// Registered component names, sorted.
    pub(crate) component_names: Vec<String>,
    /// The world's run-time components with a schema (`mosaic::dynamic`), sorted: refreshed by
    /// the frame loop at each publish when their number changed, so a write route can check a
    /// name without the world.
    pub(crate) dynamic_names: Mutex<Vec<String>>,
    /// How components and resources turn into JSON (and back).
    pub(crate) registry: SnapshotRegistry,
    /// The saved frames, once [`Inspector::keep_frames`] was called. The frame loop locks it to
    /// save a frame or rewind; the server threads only to copy a saved frame out.
    pub(crate) travel: Mutex<Option<Travel>>,
    /// When the server started.
    pub(crate) epoch: Instant,
    /// When the last request came, in milliseconds after `epoch`, plus 1 (0: none yet).
    pub(crate) last_request_ms: AtomicU64,
    /// The earliest time the frame loop may answer the next reads, in microseconds after
    /// `epoch` (the budget, [`InspectorOptions::view_budget_percent`]).
    pub(crate) next_view_us: AtomicU64,
    /// The address the server listens on (Host headers must name it).
    pub(crate) addr: SocketAddr,
    /// The secret every write must carry (`X-Mosaic-Token`), printed in [`Inspector::url`].
    pub(crate) token: String,
    /// Reads of saved frames take turns ([`budget::spend`]).
    pub(crate) turns: budget::Turns,
    /// Turns for answers streamed while they are serialized ([`body::MAX_STREAMS`]).
    pub(crate) streams: Arc<tokio::sync::Semaphore>,
}

/// Locks `mutex`, going on with the data if a thread panicked while holding it (every critical
/// section here leaves the data whole).
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Shared {
    /// Notes that a request came now.
    pub(crate) fn touch(&self) {
        let ms = self.epoch.elapsed().as_millis() as u64 + 1;
        self.last_request_ms.store(ms, Ordering::Relaxed);
    }

    /// Whether a request came in the last `options.watch_window`.
    pub(crate) fn watched(&self) -> bool {
        let last = self.last_request_ms.load(Ordering::Relaxed);
        let now = self.epoch.elapsed().as_millis() as u64 + 1;
        last != 0 && u128::from(now.saturating_sub(last)) <= self.options.watch_window.as_millis()
    }

    /// Microseconds since `epoch`.
    pub(crate) fn now_us(&self) -> u64 {
        u64::try_from(self.epoch.elapsed().as_micros()).unwrap_or(u64::MAX)
    }
}

/// A game's check of a component value a client wants to write; see [`Inspector::check_writes`].
type WriteCheck = Box<dyn Fn(&World, &str, &Value) -> Result<(), String> + Send + Sync>;

/// A browser inspector attached to a world: an HTTP server on background threads, answering
/// from the world at the frame loop's publish points.
///
/// The frame loop calls [`Inspector::publish`] at a point of the frame it chooses (between
/// schedule runs): queued writes are applied there, and the reads clients wait on are answered
/// there from the live world, each building only what it returns (no copy of the world is
/// kept). Server threads never touch the world; a slow client holds only its own connection,
/// never a frame. With no client, `publish` costs a few atomic loads and a push to the
/// frame-time ring.
///
/// Dropping the inspector stops the server in bounded time (about 2 seconds at most): open
/// connections are closed and the server's threads joined (any still waiting on the frame loop
/// are left to end on their own).
///
/// # Examples
/// ```no_run
/// use mosaic::{Component, Schedule, World};
/// use mosaic_inspect::{Inspector, InspectorOptions};
/// use std::time::Instant;
///
/// #[derive(Component, Clone, serde::Serialize, serde::Deserialize)]
/// #[register(name = "health", serde)] // shown and edited by the inspector
/// struct Health(u32);
///
/// let mut world = World::new();
/// world.register::<Health>();
/// let mut schedule = Schedule::new();
/// let mut inspector = Inspector::for_world(InspectorOptions::default(), &world).unwrap();
/// println!("open {}", inspector.url());
/// loop {
///     let start = Instant::now();
///     let ran = inspector.should_run();
///     if ran {
///         schedule.run(&mut world);
///     }
///     let frame_time = ran.then(|| start.elapsed());
///     inspector.publish(&mut world, Some(&mut schedule), frame_time);
///     if !ran {
///         std::thread::sleep(std::time::Duration::from_millis(10));
///     }
/// }
/// ```
pub struct Inspector {
    shared: Arc<Shared>,
    write_check: Option<WriteCheck>,
    addr: SocketAddr,
    frame_times: VecDeque<f64>,
    version: u64,
    /// The server's thread and runtime; dropping it stops them.
    server: server::Server,
}

impl std::fmt::Debug for Inspector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Inspector")
            .field("addr", &self.addr)
            .field("checks_writes", &self.write_check.is_some())
            .field("version", &self.version)
            .finish_non_exhaustive()
    }
}

impl Inspector {
    /// Starts serving on `options.addr`, showing (and setting) the components and resources
    /// `world`'s type registry declares `serde` ([`World::register`](mosaic::World::register)),
    /// under their registered names, and run-time components through their schema: no per-type
    /// code. The registry is read now: declare types before starting.
    ///
    /// # Errors
    /// As [`Inspector::start`].
    pub fn for_world(options: InspectorOptions, world: &mosaic::World) -> Result<Self, InspectError> {
        Self::start(options, world.types().snapshot().clone())
    }

    /// Starts serving on `options.addr`. Components and resources are shown (and set) through
    /// `registry`: registered names, values as JSON through their serde impls.
    ///
    /// # Errors
    /// - [`InspectError::NotLoopback`] if the address is not loopback and `allow_remote` is off;
    /// - [`InspectError::Bind`] if the server cannot listen there;
    /// - [`InspectError::Thread`] if one of its threads cannot be started.
    pub fn start(options: InspectorOptions, registry: SnapshotRegistry) -> Result<Self, InspectError> {
        if !options.addr.ip().is_loopback() && !options.allow_remote {
            return Err(InspectError::NotLoopback(options.addr));
        }
        let listener = server::listen(options.addr)
            .map_err(|source| InspectError::Bind { addr: options.addr, source: Box::new(source) })?;
        let addr = listener.local_addr().unwrap_or(options.addr);
        let token = crate::guard::new_token().map_err(InspectError::Random)?;
        let shared = Arc::new(Shared {
            reads: Mutex::new(live::Queue::new()),
            commands: Mutex::new(Vec::new()),
            paused: AtomicBool::new(false),
            steps: AtomicU32::new(0),
            recording: AtomicBool::new(false),
            write_errors: Mutex::new(VecDeque::new()),
            component_names: registry.component_names().map(str::to_owned).collect(),
            dynamic_names: Mutex::new(Vec::new()),
            registry,
            travel: Mutex::new(None),
            epoch: Instant::now(),
            last_request_ms: AtomicU64::new(0),
            next_view_us: AtomicU64::new(0),
            addr,
            token,
            turns: budget::Turns::default(),
            streams: Arc::new(tokio::sync::Semaphore::new(body::MAX_STREAMS)),
            options,
        });
        let server = server::Server::start(listener, &shared)?;
        Ok(Self { shared, write_check: None, addr, frame_times: VecDeque::new(), version: 0, server })
    }

    /// The address the server listens on (with the port picked when port 0 was asked for).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The page's URL with the write token: `http://{addr}/?token={token}`. Print this one:
    /// the page sends the token with its writes, and a write without it is refused.
    pub fn url(&self) -> String {
        format!("http://{}/?token={}", self.addr, self.shared.token)
    }

    /// Checks every component value a client writes before it is written: `check(world,
    /// component_name, value)` runs at the publish point with the live world; an `Err` refuses
    /// the write, and its text goes to the view's `errors` (the page shows it). The game's own
    /// validation (the one its scene and snapshot loads use) belongs here, so a write cannot
    /// give the systems a value they cannot run on. Replaces an earlier check.
    pub fn check_writes(
        &mut self,
        check: impl Fn(&World, &str, &Value) -> Result<(), String> + Send + Sync + 'static,
    ) {
        self.write_check = Some(Box::new(check));
    }

    /// The secret every write must carry in its `X-Mosaic-Token` header: 128 random bits from
    /// the operating system, as 32 hex digits, new for each [`Inspector::start`]. Reads need no
    /// token; they need a `Host` header naming this server (`127.0.0.1:PORT`, `localhost:PORT`,
    /// or another IP literal with the port), which a DNS-rebinding page cannot send.
    pub fn token(&self) -> &str {
        &self.shared.token
    }

    /// Whether a client paused the world (writes on only).
    pub fn paused(&self) -> bool {
        self.shared.paused.load(Ordering::Acquire)
    }

    /// Whether the frame loop should run the schedule this frame: `true` unless paused; while
    /// paused, `true` once per step a client asked for (consuming it).
    pub fn should_run(&self) -> bool {
        if !self.paused() {
            return true;
        }
        self.shared.steps.fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| n.checked_sub(1)).is_ok()
    }

    /// The publish point: when frames are kept ([`Inspector::keep_frames`]) and `frame_time` is
    /// given (the frame ran), numbers the frame and saves it while a client watches; then applies
    /// the writes clients queued since the last call (in the order they came; a rewind among
    /// them restores a saved frame), records `frame_time` for the chart, and answers the reads
    /// clients are waiting on from `world` and `schedule` (within the budget of
    /// [`InspectorOptions::view_budget_percent`]). Returns how many writes were applied.
    ///
    /// Call it between schedule runs, on the thread that owns the world. Cost without clients:
    /// O(1); with one: what its reads cost (a page of entities or one entity: O(entities) to
    /// filter, JSON for the page only; the map: O(entity slots + rows of the components it
    /// reads), no JSON), plus one rollback save per frame when frames are kept.
    pub fn publish(
        &mut self,
        world: &mut World,
        schedule: Option<&mut Schedule>,
        frame_time: Option<Duration>,
    ) -> usize {
        if frame_time.is_some()
            && let Some(travel) = lock(&self.shared.travel).as_mut()
        {
            let options = &self.shared.options;
            let record = options.keep_frames_idle
                || self.shared.recording.load(Ordering::Acquire)
                || (self.shared.watched() && travel.ring_bytes() <= options.record_budget);
            if record {
                if let Err(error) = travel.save_next(world) {
                    self.record_error(format!("saving a frame for time travel: {error}"));
                }
            } else {
                travel.skip();
            }
        }
        crate::dynamic::refresh_names(&self.shared, world);
        let commands = {
            let mut queue = lock(&self.shared.commands);
            if !queue.is_empty() {
                // Writes are shown at once: a client that wrote reads its write back. (Writes
                // need the token, so only the game's own page can spend the budget this way.)
                self.shared.next_view_us.store(0, Ordering::Release);
            }
            std::mem::take(&mut *queue)
        };
        let applied = commands.len();
        for command in commands {
            if let Err(error) = self.apply(world, command) {
                self.record_error(error);
            }
        }
        if let Some(time) = frame_time {
            if self.frame_times.len() == self.shared.options.frame_history.max(1) {
                self.frame_times.pop_front();
            }
            self.frame_times.push_back(view::ms(time));
        }
        let due = self.shared.now_us() >= self.shared.next_view_us.load(Ordering::Acquire);
        if due && live::pending(&self.shared) {
            self.version += 1;
            let frame = schedule.as_deref().map_or(0, Schedule::frame);
            let mut live = Live {
                source: Source {
                    world,
                    registry: &self.shared.registry,
                    version: self.version,
                    frame,
                    paused: self.paused(),
                    writes: self.shared.options.allow_writes,
                    errors: lock(&self.shared.write_errors).iter().cloned().collect(),
                },
                schedule,
                frame_times: &self.frame_times,
            };
            let charged = live::answer(&self.shared, &mut live);
            // The budget: the time the reads that completed took, scaled, must pass before the
            // next.
            budget::spent(&self.shared, charged);
        }
        applied
    }

    /// Keeps the last `ring.capacity()` frames of `world` for the time-travel routes
    /// (`/api/frames/saved`, `/api/frames/{F}/...`, `/api/diff`, `/api/rewind`): saves `world`
    /// now as frame `frame`, then [`Inspector::publish`] numbers every frame that ran (a frame
    /// time given) with the next number and saves it while a client watches (a request in the
    /// [`InspectorOptions::watch_window`]; always with [`InspectorOptions::keep_frames_idle`]).
    /// Replaces a
    /// ring kept before.
    ///
    /// `ring`'s registry says what is saved (see [`RollbackRing`]); what the page shows of a
    /// saved frame is what the inspector's snapshot registry shows of those components and
    /// resources. Cost per frame watched: one [`RollbackRing::save`], O(entity slots + registered
    /// rows), no allocation once every slot has held the largest world; per frame unwatched, a
    /// clock read.
    ///
    /// # Errors
    /// [`RollbackError::UnregisteredComponent`] if `world` has rows of a component `ring`'s
    /// registry does not name (nothing is kept then).
    pub fn keep_frames(
        &mut self,
        world: &mut World,
        ring: RollbackRing,
        frame: u64,
    ) -> Result<(), RollbackError> {
        let travel = Travel::new(world, ring, frame)?;
        *lock(&self.shared.travel) = Some(travel);
        Ok(())
    }

    /// The frame number of the live world's state when frames are kept
    /// ([`Inspector::keep_frames`]): the number of the last frame saved or rewound to.
    pub fn frame(&self) -> Option<u64> {
        lock(&self.shared.travel).as_ref().map(Travel::current)
    }

    /// Keeps `error` for the world summary (the 20 most recent).
    fn record_error(&self, error: String) {
        let mut errors = lock(&self.shared.write_errors);
        if errors.len() == 20 {
            errors.pop_front();
        }
        errors.push_back(error);
    }

    fn apply(&self, world: &mut World, command: Command) -> Result<(), String> {
        match command {
            Command::Set { entity, component, value } => {
                let target = view::live_entity(world, &entity)
                    .ok_or_else(|| format!("set {component} on {entity}: no such entity"))?;
                if let Some(check) = &self.write_check {
                    check(world, &component, &value)
                        .map_err(|error| format!("set {component} on {entity}: {error}"))?;
                }
                if self.shared.component_names.binary_search(&component).is_err()
                    && let Some(id) = world.component_id_by_name(&component)
                {
                    return crate::dynamic::set(world, id, target, &value)
                        .map_err(|error| format!("set {component} on {entity}: {error}"));
                }
                let mut de = <dyn erased_serde::Deserializer>::erase(value);
                match self.shared.registry.insert_by_name(world, &component, target, &mut de) {
                    Ok(true) => Ok(()),
                    Ok(false) => Err(format!("set {component} on {entity}: no such component or entity")),
                    Err(error) => Err(format!("set {component} on {entity}: {error}")),
                }
            }
            Command::Despawn { entity } => {
                let target = view::live_entity(world, &entity)
                    .ok_or_else(|| format!("despawn {entity}: no such entity"))?;
                world.despawn(target);
                Ok(())
            }
            Command::Rewind { frame } => {
                let mut travel = lock(&self.shared.travel);
                let travel =
                    travel.as_mut().ok_or_else(|| format!("rewind to {frame}: no frames are kept"))?;
                travel.rewind(world, frame).map_err(|error| format!("rewind to {frame}: {error}"))?;
                self.shared.paused.store(true, Ordering::Release);
                Ok(())
            }
        }
    }
}

impl Drop for Inspector {
    /// Stops the server in bounded time; see [`Inspector`].
    fn drop(&mut self) {
        // Reads waiting for a publish that will never come end now (their answer channels
        // close), so the workers waiting on them stop at once.
        lock(&self.shared.reads).clear();
        self.server.stop();
    }
}
