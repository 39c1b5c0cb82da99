//! The per-frame systems, the resources they share, and the event they send.
//!
//! Each system is a plain function whose parameters declare what it touches; [`crate::sim`]
//! puts them in a [`mosaic::Schedule`] in this order:
//!
//! 1. [`movement`] and [`lifetimes`] (no conflict and no order between them: one batch, run in
//!    parallel when the batch is large enough to pay for it);
//! 2. [`collisions`], after both: it damages the moved positions and never sees entities whose
//!    lifetime just ran out;
//! 3. [`spawners`] and [`score`], after [`collisions`]: new entities join the next frame, and
//!    the score reads every death of this frame;
//! 4. [`sort_fighters`], an exclusive system, last: re-sorts the fighters by grid cell when the
//!    frame's [`collisions`] found them out of order.
//!
//! Structural changes go through [`Commands`] (and [`ParCommands`] from parallel iteration),
//! which the schedule applies at the end of each batch in system order (chunk order within a
//! system), so the result is the same on one thread or many.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};

use mosaic::{Commands, Entity, EventReader, ParCommands, Query, Res, ResMut, View, ViewMut, World};
use rand_pcg::Pcg64Mcg;

use crate::components::{Health, Lifetime, Position, Spawner, Team, Velocity};
use crate::grid::Grid;
use crate::scene::{Birth, Scene, Template};

/// The arena's fixed settings and templates: a read-only resource.
#[derive(Clone, Debug)]
pub struct Arena {
    /// Arena width, in arena units.
    pub width: f32,
    /// Arena height, in arena units.
    pub height: f32,
    /// Hit points lost per frame per enemy within the collision radius.
    pub damage: i32,
    /// The scene's templates; a [`Spawner`] names one by index.
    pub templates: Vec<Template>,
}

impl Arena {
    /// The settings of `scene`.
    pub fn new(scene: &Scene) -> Self {
        Self {
            width: scene.width,
            height: scene.height,
            damage: scene.damage,
            templates: scene.templates.clone(),
        }
    }
}

/// The most live entities the world may hold, and what the cap refused: [`spawners`] spawn no
/// more than fits, so spawner writes of any valid `count` and templates that spawn themselves
/// stop at the cap instead of growing memory until the process aborts; the run goes on.
/// [`crate::sim::Sim::step`] sets `live` before each frame and warns once when the cap first
/// refuses a spawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EntityCap {
    /// The cap, in entities (at most [`crate::scene::MAX_ENTITIES`], the initial world's limit).
    pub limit: u32,
    /// Live entities at the start of the frame, in entities.
    pub live: u32,
    /// Spawns refused by the cap over the run, in entities (re-simulated frames count again).
    pub refused: u64,
}

impl EntityCap {
    /// The default cap of a world that starts with `initial` entities: 16 times that, at least
    /// 2^20 and at most [`crate::scene::MAX_ENTITIES`] (2^26, the limit the initial world has).
    /// About 100 bytes an entity with its pools and rollback copies: 1.6 million entities, some
    /// 160 MB, for the bundled scene's 100,500.
    pub fn default_limit(initial: u32) -> u32 {
        let max = u32::try_from(crate::scene::MAX_ENTITIES).unwrap_or(u32::MAX);
        initial.saturating_mul(16).clamp(1 << 20, max)
    }
}

/// Sent by [`collisions`] once per entity whose health drops to 0 or below, in the frame it dies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Killed {
    /// The entity that died (despawned at the end of [`collisions`]' batch).
    pub entity: Entity,
    /// The team the fallen entity fought for.
    pub team: u8,
}

/// Per-team kill counts kept by [`score`] from the [`Killed`] events: how many of each team's
/// entities were killed in combat. A resource.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Score {
    /// Entities killed, in entities, by the team they fought for; teams with no loss are absent.
    pub losses: BTreeMap<u8, u64>,
}

/// Entities that joined each team (had a [`Team`] added) since the counter was created, counted
/// by an `on_add` hook (see [`crate::sim::Sim::new`]). A resource.
///
/// Atomic because a hook sees the world read-only; hooks run on the thread that applies the
/// commands, one at a time, so the counts are the same on every run.
#[derive(Debug)]
pub struct Reinforcements {
    /// Indexed by team.
    counts: [AtomicU64; 256],
}

impl Default for Reinforcements {
    fn default() -> Self {
        Self { counts: std::array::from_fn(|_| AtomicU64::new(0)) }
    }
}

impl Clone for Reinforcements {
    fn clone(&self) -> Self {
        Self { counts: std::array::from_fn(|team| AtomicU64::new(self.counts[team].load(Ordering::Relaxed))) }
    }

    /// Copies the counts in place (rollback restores it every frame): no allocation.
    fn clone_from(&mut self, source: &Self) {
        for (count, from) in self.counts.iter_mut().zip(&source.counts) {
            *count.get_mut() = from.load(Ordering::Relaxed);
        }
    }
}

/// Hashes the counts in team order.
impl std::hash::Hash for Reinforcements {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        for count in &self.counts {
            state.write_u64(count.load(Ordering::Relaxed));
        }
    }
}

impl Reinforcements {
    /// Counts one entity joining `team`.
    pub fn record(&self, team: u8) {
        self.counts[usize::from(team)].fetch_add(1, Ordering::Relaxed);
    }

    /// Counts `count` entities joining `team` (restoring counts from a snapshot).
    pub fn add(&self, team: u8, count: u64) {
        self.counts[usize::from(team)].fetch_add(count, Ordering::Relaxed);
    }

    /// Entities that joined `team`, in entities.
    pub fn get(&self, team: u8) -> u64 {
        self.counts[usize::from(team)].load(Ordering::Relaxed)
    }

    /// The teams with at least one entity counted, in increasing order.
    pub fn teams(&self) -> impl Iterator<Item = u8> + '_ {
        (0..=u8::MAX).filter(|&team| self.get(team) > 0)
    }
}

/// Moves every entity with a [`Position`] and [`Velocity`] by one frame, reflecting it (and its
/// velocity) at the arena's walls. Each entity is independent, so it runs with
/// [`Query::par_for_each`]. O(n) in the movers.
pub fn movement(mut movers: Query<(&mut Position, &mut Velocity)>, arena: Res<Arena>) {
    let (width, height) = (arena.width, arena.height);
    let _phase = tracing::info_span!("phase", name = "move", parallel = true).entered();
    // Through `View`/`ViewMut`, so this code is the same whichever layout the components use.
    movers.par_for_each(|(mut position, mut velocity)| {
        let (mut p, mut v) = (position.read(), velocity.read());
        (p.x, v.x) = bounce(p.x + v.x, v.x, width);
        (p.y, v.y) = bounce(p.y + v.y, v.y, height);
        position.write(p);
        velocity.write(v);
    });
}

/// Counts down every [`Lifetime`] and despawns each that reaches 0. O(n) in the entities with a
/// lifetime, spread over the threads ([`Query::par_for_each_deferred`]: the despawns are applied
/// in row order, as a sequential loop would record them).
pub fn lifetimes(mut lives: Query<(Entity, &mut Lifetime)>, mut commands: ParCommands) {
    let _phase = tracing::info_span!("phase", name = "count down", parallel = true).entered();
    lives.par_for_each_deferred(&mut commands, |(entity, lifetime), buffer| {
        lifetime.0 = lifetime.0.saturating_sub(1);
        if lifetime.0 == 0 {
            buffer.despawn(entity);
        }
    });
}

/// Damages every entity with a [`Position`], [`Team`] and [`Health`] by the arena's damage for
/// each entity of another team within the collision radius; despawns each whose health drops to
/// 0 or below and sends a [`Killed`] for it. Uses the [`Grid`] resource, so O(n * k) for n such
/// entities and k neighbours each, not O(n^2).
///
/// Two passes over the same query: the first sorts the fighters into the grid by cell straight
/// from the group's aligned columns ([`Grid::build_from`], on the pool from
/// [`crate::grid::PARALLEL_BUILD`] fighters; a copy through [`Grid::push_with`] if the rows ever
/// come in several chunks); the second, with [`Query::par_for_each_deferred`], asks the
/// read-only grid for each fighter's contacts, takes the damage and records the deaths into its chunk's command buffer, every
/// fighter independently, so it spreads over the threads. The chunks' commands and events are
/// applied in chunk order (the query's row order) at the end of the batch, so they come out the
/// same on any thread count.
pub fn collisions(
    mut fighters: Query<(Entity, &Position, &Team, &mut Health)>,
    arena: Res<Arena>,
    mut grid: ResMut<Grid>,
    mut commands: ParCommands,
) {
    let grid = &mut *grid;
    // The fighters' rows are one aligned run of the group's pools: the grid sorts them straight
    // from those slices (no copy), on the pool when there are many.
    let phase = |n: usize| {
        let parallel = cfg!(feature = "parallel") && n >= crate::grid::PARALLEL_BUILD;
        tracing::info_span!("phase", name = "grid build", parallel = parallel)
    };
    let mut chunks = 0;
    fighters.for_each_chunk(|(_, positions, teams, _)| {
        chunks += 1;
        let _phase = phase(teams.len()).entered();
        #[cfg(not(feature = "aos-position"))]
        grid.build_from(teams.len(), |i| (positions.x[i], positions.y[i], teams[i].0));
        #[cfg(feature = "aos-position")]
        grid.build_from(teams.len(), |i| (positions[i].x, positions[i].y, teams[i].0));
    });
    if chunks != 1 {
        // Not one run (no fighter, or the group's pools were shared differently): copied out
        // chunk by chunk, then sorted (a build made for each chunk above is thrown away; the
        // fighters' owning group makes this path one for an empty arena).
        let mut n = 0;
        grid.clear();
        fighters.for_each_chunk(|(_, positions, teams, _)| {
            n += teams.len();
            #[cfg(not(feature = "aos-position"))]
            grid.push_with(teams.len(), |i| (positions.x[i], positions.y[i], teams[i].0));
            #[cfg(feature = "aos-position")]
            grid.push_with(teams.len(), |i| (positions[i].x, positions[i].y, teams[i].0));
        });
        phase(n).in_scope(|| grid.build());
    }
    let (grid, damage) = (&*grid, arena.damage);
    let _phase = tracing::info_span!("phase", name = "contacts", parallel = true).entered();
    fighters.par_for_each_deferred(&mut commands, |(entity, position, team, health), buffer| {
        let p = position.read();
        let hits = grid.contacts_of(p.x, p.y, team.0);
        if hits > 0 {
            let loss = i32::try_from(hits).unwrap_or(i32::MAX).saturating_mul(damage);
            health.0 = health.0.saturating_sub(loss);
            if health.0 <= 0 {
                buffer.despawn(entity);
                buffer.send_event(Killed { entity, team: team.0 });
            }
        }
    });
}

/// The components of a fighter, and the owning group that keeps fighters first (in this order)
/// in all four pools, nested inside the movers' group `(Position, Velocity)`: [`collisions`]
/// walks them as aligned slices, and [`sort_fighters`] can reorder them.
pub type Fighters = (Position, Velocity, Team, Health);

/// Above this [`Grid::disorder`], [`sort_fighters`] sorts the fighters by cell again.
pub const RESORT_DISORDER: f64 = 0.05;

/// Sorts the fighters' group by grid cell ([`Grid::cell_of`] of their [`Position`]) when the
/// last [`collisions`] pass found them out of cell order ([`Grid::disorder`] above
/// [`RESORT_DISORDER`]): spawns join at the end, deaths swap the last fighter into the hole,
/// and movement carries fighters across cells. In cell order, [`collisions`] reads the grid
/// and the pools in memory order instead of at random: the difference between fitting in cache
/// and not at 10^6 entities. An exclusive system (it reorders pools), at the end of the frame.
///
/// Deterministic: the decision depends only on this frame's positions and row order, which the
/// world's state fixes (snapshots and rollback restore row order too). O(m + c) for m
/// fighters and c grid cells when it sorts (a counting sort, [`World::sort_group_by_bucket`]),
/// O(1) otherwise.
pub fn sort_fighters(world: &mut World) {
    let grid = world.resource::<Grid>();
    if grid.disorder() <= RESORT_DISORDER {
        return;
    }
    let cells = grid.cells();
    let group = world.group::<Fighters>();
    // Counted as serial: the counting sort runs on this thread, and the pools' permutations
    // make at most four tasks.
    let _phase = tracing::info_span!("phase", name = "sort", parallel = false).entered();
    // A counting sort: the bundled scene has 62,500 cells for about 40,000 fighters (and
    // `--entities` keeps the density), under the four buckets per row past which
    // `sort_group_by_bucket` gives way to a comparison sort.
    world
        .sort_group_by_bucket::<Position>(group, cells.count(), |p| {
            let p = p.read();
            cells.cell_of(p.x, p.y) as usize
        })
        .expect("the fighters' group owns Position, and every cell is below the count");
}

/// Advances every [`Spawner`] and spawns `count` entities of its template each time its period
/// comes round, at the spawner's [`Position`] if it has one, as long as the world stays within
/// its [`EntityCap`] (live entities at the frame's start plus this frame's spawns): past it the
/// rest are refused and counted. The only user of the random generator resource, so draws
/// happen in query order. O(n) in the spawners plus the spawns.
pub fn spawners(
    mut spawners: Query<(&mut Spawner, Option<&Position>)>,
    arena: Res<Arena>,
    mut rng: ResMut<Pcg64Mcg>,
    mut cap: ResMut<EntityCap>,
    mut commands: Commands,
) {
    let bounds = (arena.width, arena.height);
    let (rng, commands, cap) = (&mut *rng, &mut commands, &mut *cap);
    let mut room = cap.limit.saturating_sub(cap.live);
    spawners.for_each(|(spawner, position)| {
        spawner.timer += 1;
        if spawner.timer < spawner.every {
            return;
        }
        spawner.timer = 0;
        // Every way in checks the index (`validate::spawner`); a bad one spawns nothing.
        let Some(template) = arena.templates.get(spawner.template as usize) else { return };
        let count = spawner.count.min(room);
        room -= count;
        cap.refused += u64::from(spawner.count - count);
        for _ in 0..count {
            template.spawn(commands, bounds, position.map(|p| p.read()), Birth::Spawned, rng);
        }
    });
}

/// Adds every [`Killed`] sent since its last run to the [`Score`].
pub fn score(mut killed: EventReader<Killed>, mut score: ResMut<Score>) {
    for event in killed.read() {
        *score.losses.entry(event.team).or_default() += 1;
    }
}

/// Reflects a coordinate `value` that moved with speed `speed` at the walls `0` and `limit`;
/// returns the new coordinate, clamped into `0..=limit`, and speed.
#[inline]
pub fn bounce(value: f32, speed: f32, limit: f32) -> (f32, f32) {
    if value < 0.0 {
        ((-value).min(limit), speed.abs())
    } else if value > limit {
        ((2.0 * limit - value).max(0.0), -speed.abs())
    } else {
        (value, speed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounce_reflects_at_both_walls() {
        assert_eq!(bounce(-1.0, -2.0, 10.0), (1.0, 2.0));
        assert_eq!(bounce(11.5, 3.0, 10.0), (8.5, -3.0));
        assert_eq!(bounce(5.0, 1.0, 10.0), (5.0, 1.0));
        assert_eq!(bounce(-30.0, -40.0, 10.0), (10.0, 40.0));
    }

    #[test]
    fn reinforcements_count_per_team() {
        let counts = Reinforcements::default();
        counts.record(1);
        counts.record(1);
        counts.record(255);
        assert_eq!((counts.get(0), counts.get(1), counts.get(255)), (0, 2, 1));
        assert_eq!(counts.teams().collect::<Vec<_>>(), [1, 255]);
    }
}
