//! The end-of-run summary table and the world checksum.

use std::fmt;
use std::time::Duration;

use hdrhistogram::Histogram;
use mosaic::schedule::FrameProfile;
use mosaic::{Entity, World};

use crate::components::{Health, Lifetime, Position, Spawner, Team, Velocity};
use crate::sim::FrameChanges;

/// One team's row group in the [`Summary`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TeamReport {
    /// The team.
    pub team: u8,
    /// The team's entities killed in combat, in entities (the score kept from `Killed` events).
    pub losses: u64,
    /// Entities that joined the team during the run, in entities (counted by the `on_add` hook
    /// on [`Team`]).
    pub reinforcements: u64,
}

/// The longest frame time recorded as itself, in nanoseconds: one hour. A longer frame counts as
/// one hour in the percentiles (the mean keeps its exact time).
pub const MAX_RECORDED_FRAME_NS: u64 = 3_600_000_000_000;

/// The frame times of a run in constant memory: a streaming histogram (HdrHistogram, the
/// `hdrhistogram` crate) of 1 ns to [`MAX_RECORDED_FRAME_NS`] at 3 significant digits (a
/// percentile is within 0.1% of the true frame time), about 200 KB whatever the number of frames,
/// plus the exact sum for the mean. A run used to keep one time per frame: 16 bytes a frame,
/// 1.1 MB a second on an unpaced `--frames 0` run.
#[derive(Clone, Debug)]
pub struct FrameTimes {
    histogram: Histogram<u64>,
    /// The sum of every recorded time, in nanoseconds.
    total_ns: u128,
}

impl Default for FrameTimes {
    fn default() -> Self {
        Self::new()
    }
}

impl FrameTimes {
    /// An empty record. Allocates the histogram's fixed buckets once.
    pub fn new() -> Self {
        let histogram = Histogram::new_with_bounds(1, MAX_RECORDED_FRAME_NS, 3)
            .unwrap_or_else(|_| unreachable!("1 <= 2 * 1 < one hour, 3 significant digits: valid bounds"));
        Self { histogram, total_ns: 0 }
    }

    /// Records one frame's time. O(1), no allocation.
    pub fn record(&mut self, time: Duration) {
        let ns = time.as_nanos();
        self.total_ns += ns;
        self.histogram.saturating_record(u64::try_from(ns).unwrap_or(u64::MAX).max(1));
    }

    /// Frames recorded, in frames.
    pub fn len(&self) -> u64 {
        self.histogram.len()
    }

    /// Whether no frame was recorded.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The frame time at quantile `q` (0 to 1), nearest rank, within 0.1%; 0 when empty.
    pub fn quantile(&self, q: f64) -> Duration {
        if self.is_empty() {
            return Duration::ZERO;
        }
        let value = self.histogram.value_at_quantile(q);
        Duration::from_nanos(self.histogram.median_equivalent(value))
    }

    /// The mean frame time, exact to the nanosecond; 0 when empty.
    pub fn mean(&self) -> Duration {
        match self.len() {
            0 => Duration::ZERO,
            n => Duration::from_nanos(u64::try_from(self.total_ns / u128::from(n)).unwrap_or(u64::MAX)),
        }
    }
}

/// What a run did, printed by its `Display` as an aligned two-column table followed by the
/// per-system profile table.
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    /// Live entities before the first frame.
    pub entities_start: u32,
    /// Live entities after the last frame.
    pub entities_end: u32,
    /// Frames run.
    pub frames: usize,
    /// Median frame time, nearest rank, within 0.1% ([`FrameTimes`]; 0 for no frames).
    pub median: Duration,
    /// 99th-percentile frame time, nearest rank, within 0.1% (0 for no frames).
    pub p99: Duration,
    /// Mean frame time (0 for no frames): the run's frames per second are its inverse, so it
    /// counts the rare slow frames a median hides.
    pub mean: Duration,
    /// Entities spawned by the systems' commands, in entities.
    pub spawned: u64,
    /// Entities despawned by the systems' commands, in entities.
    pub despawned: u64,
    /// Per team, in team order: losses and reinforcements.
    pub teams: Vec<TeamReport>,
    /// Order-independent hash of the final world; see [`checksum`].
    pub checksum: u64,
    /// Per-system run times (empty when profiling was off).
    pub profile: FrameProfile,
}

impl Summary {
    /// Summarises a run from its frame times and its summed frame changes, with no team rows
    /// and an empty profile. O(1) in the frames.
    pub fn new(
        entities_start: u32,
        entities_end: u32,
        frame_times: &FrameTimes,
        total: FrameChanges,
        checksum: u64,
    ) -> Self {
        Self {
            entities_start,
            entities_end,
            frames: usize::try_from(frame_times.len()).unwrap_or(usize::MAX),
            median: frame_times.quantile(0.5),
            p99: frame_times.quantile(0.99),
            mean: frame_times.mean(),
            spawned: total.spawned,
            despawned: total.despawned,
            teams: Vec::new(),
            checksum,
            profile: FrameProfile::default(),
        }
    }
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ms = |d: Duration| format!("{:.3} ms", d.as_secs_f64() * 1e3);
        let mut rows = vec![
            ("entities at start".to_owned(), self.entities_start.to_string()),
            ("entities at end".to_owned(), self.entities_end.to_string()),
            ("frames".to_owned(), self.frames.to_string()),
            ("frame time median".to_owned(), ms(self.median)),
            ("frame time p99".to_owned(), ms(self.p99)),
            ("frame time mean".to_owned(), ms(self.mean)),
            ("spawned".to_owned(), self.spawned.to_string()),
            ("despawned".to_owned(), self.despawned.to_string()),
        ];
        for t in &self.teams {
            rows.push((format!("team {} losses", t.team), t.losses.to_string()));
            rows.push((format!("team {} reinforcements", t.team), t.reinforcements.to_string()));
        }
        rows.push(("checksum".to_owned(), format!("{:016x}", self.checksum)));
        let label_width = rows.iter().map(|(l, _)| l.len()).max().unwrap_or(0);
        let value_width = rows.iter().map(|(_, v)| v.len()).max().unwrap_or(0);
        for (label, value) in rows {
            writeln!(f, "{label:<label_width$} {value:>value_width$}")?;
        }
        if !self.profile.systems.is_empty() {
            writeln!(f, "\n{}", self.profile)?;
        }
        Ok(())
    }
}

/// The splitmix64 finaliser: a fast, well-mixing 64-bit permutation.
#[inline]
fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// Folds one field into a running hash. `tag` keeps a missing component distinct from a zero one.
#[inline]
fn absorb(hash: u64, tag: u64, value: u64) -> u64 {
    mix(hash ^ mix(value.wrapping_add(tag.wrapping_mul(0x9e37_79b9_7f4a_7c15))))
}

/// An order-independent hash of every live entity and its arena components.
///
/// Each entity's hash mixes its index and generation (not its world tag, which depends on how
/// many worlds the process made before), the `f32::to_bits` of its position and
/// velocity, its health, team, lifetime and spawner state; the per-entity hashes are combined with
/// wrapping addition, so the order the world stores entities in does not matter. O(n) in the live
/// entities.
pub fn checksum(world: &World) -> u64 {
    let mut sum = 0u64;
    world
        .query_ref::<(
            Entity,
            Option<&Position>,
            Option<&Velocity>,
            Option<&Health>,
            Option<&Team>,
            Option<&Lifetime>,
            Option<&Spawner>,
        )>()
        .for_each(|(entity, position, velocity, health, team, lifetime, spawner)| {
            let id = u64::from(entity.generation()) << 32 | u64::from(entity.index());
            let mut h = absorb(0, 1, id);
            if let Some(p) = position {
                h = absorb(h, 2, u64::from(p.x.to_bits()) << 32 | u64::from(p.y.to_bits()));
            }
            if let Some(v) = velocity {
                h = absorb(h, 3, u64::from(v.x.to_bits()) << 32 | u64::from(v.y.to_bits()));
            }
            if let Some(health) = health {
                h = absorb(h, 4, u64::from(health.0 as u32));
            }
            if let Some(team) = team {
                h = absorb(h, 5, u64::from(team.0));
            }
            if let Some(lifetime) = lifetime {
                h = absorb(h, 6, u64::from(lifetime.0));
            }
            if let Some(s) = spawner {
                h = absorb(h, 7, u64::from(s.template) << 32 | u64::from(s.timer));
                h = absorb(h, 8, u64::from(s.every) << 32 | u64::from(s.count));
            }
            sum = sum.wrapping_add(h);
        });
    sum
}

#[cfg(test)]
mod tests {
    use mosaic::{View, ViewMut};

    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    fn times(times: impl IntoIterator<Item = Duration>) -> FrameTimes {
        let mut out = FrameTimes::new();
        times.into_iter().for_each(|t| out.record(t));
        out
    }

    /// Within 0.1% of `expected`.
    fn near(value: Duration, expected: Duration) -> bool {
        (value.as_secs_f64() - expected.as_secs_f64()).abs() <= expected.as_secs_f64() * 1e-3
    }

    #[test]
    fn median_and_p99_in_any_order_within_a_tenth_of_a_percent() {
        let none = FrameChanges::default();
        let s = Summary::new(1, 2, &times((1..=100).rev().map(ms)), none, 0);
        assert_eq!(s.frames, 100);
        assert!(near(s.p99, ms(99)), "{:?}", s.p99);
        assert_eq!(s.mean, Duration::from_micros(50_500), "the mean of 1..=100 ms, exact");
        assert!(near(s.median, ms(50)), "nearest rank: {:?}", s.median);
        let s = Summary::new(0, 0, &times([ms(3), ms(1), ms(2)]), none, 0);
        assert!(near(s.median, ms(2)) && near(s.p99, ms(3)), "{s:?}");
        let s = Summary::new(0, 0, &FrameTimes::new(), none, 0);
        assert_eq!((s.median, s.p99, s.mean), (Duration::ZERO, Duration::ZERO, Duration::ZERO));
        // Small times are exact; an absurd one is kept at the top bucket.
        let s = Summary::new(0, 0, &times([Duration::from_nanos(700), Duration::from_secs(10_000)]), none, 0);
        assert_eq!(s.median, Duration::from_nanos(700));
        assert!(near(s.p99, Duration::from_nanos(MAX_RECORDED_FRAME_NS)), "{:?}", s.p99);
    }

    #[test]
    fn a_million_frames_take_no_more_memory_than_one() {
        let mut record = FrameTimes::new();
        let before = std::mem::size_of_val(&record) + record.histogram.distinct_values() * 8;
        for i in 0..1_000_000u64 {
            record.record(Duration::from_nanos(1 + i * 7919 % 50_000_000));
        }
        assert_eq!(record.len(), 1_000_000);
        assert_eq!(std::mem::size_of_val(&record) + record.histogram.distinct_values() * 8, before);
    }

    #[test]
    fn table_is_aligned() {
        let changes = FrameChanges { spawned: 12, despawned: 7 };
        let text = Summary::new(100, 105, &times([ms(1)]), changes, 0xabc).to_string();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 9);
        assert!(lines.iter().all(|l| l.len() == lines[0].len()), "{text}");
        assert_eq!(lines[8], format!("{:<17} {}", "checksum", "0000000000000abc"), "{text}");
        assert!(text.contains("spawned"), "{text}");
    }

    #[test]
    fn team_rows_come_before_the_checksum_and_the_profile_after() {
        let mut summary = Summary::new(1, 1, &times([ms(1)]), FrameChanges::default(), 0xabc);
        summary.teams = vec![
            TeamReport { team: 0, losses: 5, reinforcements: 6 },
            TeamReport { team: 1, losses: 7, reinforcements: 8 },
        ];
        summary.profile = FrameProfile {
            systems: vec![mosaic::schedule::SystemProfile {
                name: "movement".into(),
                median: ms(1),
                max: ms(2),
                runs: 3,
            }],
            window: 3,
        };
        let text = summary.to_string();
        let (table, profile) = text.split_once("\n\n").expect("a blank line before the profile");
        let lines: Vec<&str> = table.lines().collect();
        assert_eq!(lines.len(), 13, "{text}");
        assert!(lines.iter().all(|l| l.len() == lines[0].len()), "{text}");
        assert!(lines[8].starts_with("team 0 losses ") && lines[8].ends_with(" 5"), "{text}");
        assert!(lines[11].starts_with("team 1 reinforcements ") && lines[11].ends_with(" 8"), "{text}");
        assert!(lines[12].starts_with("checksum"), "{text}");
        assert!(profile.starts_with("system") && profile.contains("movement"), "{text}");
        assert!(profile.ends_with("(last 3 frames)\n"), "{text}");
    }

    #[test]
    fn checksum_ignores_storage_order_but_sees_values() {
        let spawn = |order: &[usize]| {
            let mut world = World::new();
            let entities: Vec<Entity> = (0..3).map(|_| world.spawn_empty()).collect();
            for &i in order {
                world.insert(entities[i], Position { x: i as f32, y: 1.0 });
                world.insert(entities[i], Health(i as i32));
            }
            world
        };
        let a = spawn(&[0, 1, 2]);
        let b = spawn(&[2, 0, 1]);
        assert_eq!(checksum(&a), checksum(&b));
        let mut c = spawn(&[0, 1, 2]);
        let e = c.entities().iter().next().unwrap();
        let set_x = |world: &mut World, x: f32| {
            let mut view = world.get_mut::<Position>(e).unwrap();
            let mut p = view.read();
            p.x = x;
            view.write(p);
        };
        set_x(&mut c, -0.0);
        assert_ne!(checksum(&a), checksum(&c), "-0.0 and 0.0 differ in bits");
        set_x(&mut c, 0.0);
        assert_eq!(checksum(&a), checksum(&c));
        c.remove::<Health>(e);
        assert_ne!(checksum(&a), checksum(&c));
    }
}
