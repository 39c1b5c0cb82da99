//! The end-of-run summary table and the world checksum.

use std::fmt;
use std::time::Duration;

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
    /// Median frame time (mean of the two middle frames for an even count; 0 for no frames).
    pub median: Duration,
    /// 99th-percentile frame time, nearest rank (0 for no frames).
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
    /// Summarises a run from its per-frame durations (any order) and its summed frame changes,
    /// with no team rows and an empty profile.
    pub fn new(
        entities_start: u32,
        entities_end: u32,
        mut frame_times: Vec<Duration>,
        total: FrameChanges,
        checksum: u64,
    ) -> Self {
        frame_times.sort_unstable();
        let n = frame_times.len();
        let mean = if n == 0 { Duration::ZERO } else { frame_times.iter().sum::<Duration>() / n as u32 };
        let (median, p99) = if n == 0 {
            (Duration::ZERO, Duration::ZERO)
        } else {
            let median = (frame_times[(n - 1) / 2] + frame_times[n / 2]) / 2;
            // Nearest rank: the smallest time at or above 99% of the frames.
            let rank = (n * 99).div_ceil(100).max(1);
            (median, frame_times[rank - 1])
        };
        Self {
            entities_start,
            entities_end,
            frames: n,
            median,
            p99,
            mean,
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

    #[test]
    fn median_and_p99_from_sorted_times() {
        let none = FrameChanges::default();
        let times: Vec<Duration> = (1..=100).rev().map(ms).collect();
        let s = Summary::new(1, 2, times, none, 0);
        assert_eq!((s.frames, s.p99), (100, ms(99)));
        assert_eq!(s.mean, Duration::from_micros(50_500), "the mean of 1..=100 ms");
        assert_eq!(s.median, Duration::from_micros(50_500));
        let s = Summary::new(0, 0, vec![ms(3), ms(1), ms(2)], none, 0);
        assert_eq!((s.median, s.p99), (ms(2), ms(3)));
        let s = Summary::new(0, 0, Vec::new(), none, 0);
        assert_eq!((s.median, s.p99), (Duration::ZERO, Duration::ZERO));
    }

    #[test]
    fn table_is_aligned() {
        let changes = FrameChanges { spawned: 12, despawned: 7 };
        let text = Summary::new(100, 105, vec![ms(1)], changes, 0xabc).to_string();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 9);
        assert!(lines.iter().all(|l| l.len() == lines[0].len()), "{text}");
        assert_eq!(lines[8], format!("{:<17} {}", "checksum", "0000000000000abc"), "{text}");
        assert!(text.contains("spawned"), "{text}");
    }

    #[test]
    fn team_rows_come_before_the_checksum_and_the_profile_after() {
        let mut summary = Summary::new(1, 1, vec![ms(1)], FrameChanges::default(), 0xabc);
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
