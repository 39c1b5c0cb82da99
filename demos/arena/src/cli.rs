//! The command line.

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::{Parser, ValueEnum};
use mosaic::ExecutorKind;

pub use crate::scene::MAX_ENTITIES;
/// The most frames `--frames` may ask for: 10^7 (46 hours at 60 frames per second), the web
/// page's limit too ([`crate::validate::MAX_FRAMES`]).
pub const MAX_FRAMES: i64 = crate::validate::MAX_FRAMES as i64;
/// The deepest `--rollback`: 1,024 frames, each a saved copy of the world.
pub const MAX_ROLLBACK: i64 = 1024;
/// The most frames `--inspect-frames` may keep: 65,536, each a saved copy of the world (and no
/// more than fit in `--inspect-memory`).
pub const MAX_INSPECT_FRAMES: i64 = 65_536;
/// The most samples `--rollback-timing` may take: 100,000 (each a frame and a rollback frame).
pub const MAX_TIMING_SAMPLES: i64 = 100_000;
/// The fastest `--inspect-fps`: 1,000 frames per second.
pub const MAX_INSPECT_FPS: i64 = 1_000;
/// The default `--inspect-memory`, in MiB: 1 GiB for the time-travel ring.
pub const DEFAULT_INSPECT_MEMORY_MIB: u32 = 1024;
/// The most `--inspect-memory`, in MiB: 1 TiB.
pub const MAX_INSPECT_MEMORY_MIB: i64 = 1 << 20;

/// Headless, deterministic 2D arena simulation on Mosaic: movers bounce in a box, teams fight,
/// spawners and lifetimes churn the population; prints frame times and a checksum of the final
/// world.
#[derive(Debug, Parser)]
#[command(name = "arena", version, about)]
pub struct Args {
    /// Scene file (RON) to load instead of the bundled `scenes/arena.ron`.
    #[arg(long, value_name = "PATH")]
    pub scene: Option<PathBuf>,

    /// Scale the scene's template counts (and its area, keeping the density) so the initial world
    /// holds about N entities. Default: the scene's own counts.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(0..=MAX_ENTITIES))]
    pub entities: Option<u64>,

    /// Frames to simulate (at most 10^7).
    #[arg(long, value_name = "N", default_value_t = 600, value_parser = clap::value_parser!(u32).range(0..=MAX_FRAMES))]
    pub frames: u32,

    /// Seed of the random generator; the same seed and arguments give the same result.
    #[arg(long, value_name = "S", default_value_t = 0x5EED)]
    pub seed: u64,

    /// How the schedule runs its systems; both give the same checksum.
    #[arg(long, value_enum, default_value_t = Executor::Parallel)]
    pub executor: Executor,

    /// Write a Chrome trace (JSON) of the run to PATH, with a span per frame and per system run;
    /// open it in Perfetto (ui.perfetto.dev) or chrome://tracing.
    #[arg(long, value_name = "PATH")]
    pub trace: Option<PathBuf>,

    /// After the last frame, save the world, the random generator and the run's totals to PATH
    /// (RON text if PATH ends in `.ron`, else a compact binary form).
    #[arg(long, value_name = "PATH")]
    pub save: Option<PathBuf>,

    /// Continue from a snapshot written by `--save` instead of spawning the scene (`--seed` is
    /// then unused: the generator's state comes from the snapshot). Give the same `--scene` and
    /// `--entities` as the run that saved it; `--frames` more frames are run.
    #[arg(long, value_name = "PATH")]
    pub load: Option<PathBuf>,

    /// Every frame, restore the state of K frames before and re-simulate to the present (as a
    /// rollback-netcode client does); the checksum equals a straight run's.
    #[arg(long, value_name = "K", default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=MAX_ROLLBACK))]
    pub rollback: u32,

    /// Write the world hash after each frame to PATH, one `FRAME HASH` line per frame.
    #[arg(long, value_name = "PATH")]
    pub hash_log: Option<PathBuf>,

    /// Compare two hash logs written by `--hash-log` and print the first frame where they differ
    /// (exit code 1), or that they agree (exit code 0); runs no simulation.
    #[arg(long, num_args = 2, value_names = ["A", "B"])]
    pub compare: Option<Vec<PathBuf>>,

    /// Instead of the frame loop, measure save, restore, hash and a `--rollback` frame (K = 8
    /// unless given) against a straight frame and a plain memcpy of the same bytes, N samples
    /// each (1 to 100,000), interleaved; print the medians and ratios.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=MAX_TIMING_SAMPLES))]
    pub rollback_timing: Option<u32>,

    /// The most live entities the world may hold (1 to 2^26, the initial world's limit):
    /// spawners and self-spawning templates spawn only what fits, with one warning, and the run
    /// goes on. Default: 16 times the entities at the start, at least 2^20.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=MAX_ENTITIES as i64))]
    pub max_entities: Option<u32>,

    /// Serve the running simulation to a browser inspector at ADDR (default 127.0.0.1:7878; open
    /// http://ADDR/). Frames are then paced to 60 per second, `--frames 0` runs until stopped,
    /// and the last frame stays served until the process is stopped (Ctrl-C).
    #[arg(long, value_name = "ADDR", num_args = 0..=1, default_missing_value = "127.0.0.1:7878")]
    pub inspect: Option<SocketAddr>,

    /// With `--inspect`: let the page change the world (set components, despawn, pause, step).
    #[arg(long, requires = "inspect")]
    pub inspect_writes: bool,

    /// With `--inspect`: allow an ADDR that is not loopback. Anyone who can reach it sees the
    /// world (and, with `--inspect-writes`, changes it); there is no authentication.
    #[arg(long, requires = "inspect")]
    pub inspect_remote: bool,

    /// With `--inspect`: keep the last N frames for time travel (scrub back, diff two frames,
    /// rewind with `--inspect-writes`); 0 keeps none. Each frame then costs one rollback save.
    #[arg(
        long,
        value_name = "N",
        default_value_t = 120,
        requires = "inspect",
        value_parser = clap::value_parser!(u32).range(0..=MAX_INSPECT_FRAMES)
    )]
    pub inspect_frames: u32,

    /// With `--inspect`: frames per second to pace to, so a person can watch (at most 1,000);
    /// 0 runs unpaced.
    #[arg(
        long,
        value_name = "FPS",
        default_value_t = 60,
        requires = "inspect",
        value_parser = clap::value_parser!(u32).range(0..=MAX_INSPECT_FPS)
    )]
    pub inspect_fps: u32,

    /// With `--inspect`: the most memory the time-travel ring may take, in MiB (1 to 2^20;
    /// default 1024). The ring is sized from the first frame saved, with room for the world to
    /// double: `--inspect-frames` past that is shortened to fit, and a message says so.
    #[arg(
        long,
        value_name = "MIB",
        default_value_t = DEFAULT_INSPECT_MEMORY_MIB,
        requires = "inspect",
        value_parser = clap::value_parser!(u32).range(1..=MAX_INSPECT_MEMORY_MIB)
    )]
    pub inspect_memory: u32,
}

/// The schedule executor, as named on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Executor {
    /// Every system on the main thread, one after another (queries may still split their own
    /// work across threads, as `movement` does).
    Single,
    /// Batches of systems that do not conflict run on the thread pool when they hold enough work.
    Parallel,
}

impl From<Executor> for ExecutorKind {
    fn from(executor: Executor) -> Self {
        match executor {
            Executor::Single => ExecutorKind::SingleThreaded,
            Executor::Parallel => ExecutorKind::Parallel,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults() {
        let args = Args::try_parse_from(["arena"]).unwrap();
        assert_eq!(args.scene, None);
        assert_eq!(args.entities, None);
        assert_eq!((args.frames, args.seed), (600, 0x5EED));
        assert_eq!((args.executor, args.trace), (Executor::Parallel, None));
        assert_eq!((args.save, args.load), (None, None));
        assert_eq!((args.inspect, args.inspect_writes, args.inspect_remote), (None, false, false));
        assert_eq!((args.rollback, args.hash_log, args.compare, args.rollback_timing), (0, None, None, None));
    }

    #[test]
    fn rollback_flags() {
        let args = Args::try_parse_from(["arena", "--rollback", "8", "--hash-log", "h.txt"]).unwrap();
        assert_eq!((args.rollback, args.hash_log), (8, Some(PathBuf::from("h.txt"))));
        let args = Args::try_parse_from(["arena", "--compare", "a.txt", "b.txt"]).unwrap();
        assert_eq!(args.compare, Some(vec![PathBuf::from("a.txt"), PathBuf::from("b.txt")]));
        assert!(Args::try_parse_from(["arena", "--compare", "a.txt"]).is_err(), "two logs are needed");
    }

    #[test]
    fn inspect_defaults_to_loopback() {
        let args = Args::try_parse_from(["arena", "--inspect"]).unwrap();
        assert_eq!(args.inspect, Some("127.0.0.1:7878".parse().unwrap()));
        let args =
            Args::try_parse_from(["arena", "--inspect", "127.0.0.1:9000", "--inspect-writes"]).unwrap();
        assert_eq!((args.inspect, args.inspect_writes), (Some("127.0.0.1:9000".parse().unwrap()), true));
        assert!(Args::try_parse_from(["arena", "--inspect-writes"]).is_err());
        assert_eq!((args.inspect_frames, args.inspect_fps), (120, 60));
        let args =
            Args::try_parse_from(["arena", "--inspect", "--inspect-frames", "0", "--inspect-fps", "0"])
                .unwrap();
        assert_eq!((args.inspect_frames, args.inspect_fps), (0, 0));
        assert!(Args::try_parse_from(["arena", "--inspect-frames", "5"]).is_err());
    }

    #[test]
    fn all_flags() {
        let args = Args::try_parse_from([
            "arena",
            "--scene",
            "x.ron",
            "--entities",
            "2000",
            "--frames",
            "30",
            "--seed",
            "9",
            "--executor",
            "single",
            "--trace",
            "t.json",
            "--save",
            "s.bin",
            "--load",
            "l.ron",
        ])
        .unwrap();
        assert_eq!(args.scene, Some(PathBuf::from("x.ron")));
        assert_eq!((args.entities, args.frames, args.seed), (Some(2000), 30, 9));
        assert_eq!(args.executor, Executor::Single);
        assert_eq!(ExecutorKind::from(args.executor), ExecutorKind::SingleThreaded);
        assert_eq!(args.trace, Some(PathBuf::from("t.json")));
        assert_eq!(args.save, Some(PathBuf::from("s.bin")));
        assert_eq!(args.load, Some(PathBuf::from("l.ron")));
    }

    #[test]
    fn counts_are_bounded_and_the_error_names_the_flag() {
        for (flag, bad) in [
            ("--rollback-timing", "0"),
            ("--rollback-timing", "100001"),
            ("--rollback-timing", "18446744073709551615"),
            ("--max-entities", "0"),
            ("--max-entities", "67108865"),
            ("--frames", "10000001"),
            ("--rollback", "1025"),
            ("--entities", "4294967396"),
        ] {
            let error = Args::try_parse_from(["arena", flag, bad]).unwrap_err();
            assert!(error.to_string().contains(flag), "{flag} {bad}: {error}");
        }
        for (flag, bad) in
            [("--inspect-fps", "1001"), ("--inspect-memory", "0"), ("--inspect-frames", "65537")]
        {
            let error = Args::try_parse_from(["arena", "--inspect", flag, bad]).unwrap_err();
            assert!(error.to_string().contains(flag), "{flag} {bad}: {error}");
        }
        let args =
            Args::try_parse_from(["arena", "--rollback-timing", "5", "--max-entities", "1000"]).unwrap();
        assert_eq!((args.rollback_timing, args.max_entities), (Some(5), Some(1000)));
    }

    #[test]
    fn unknown_executor_is_rejected() {
        let error = Args::try_parse_from(["arena", "--executor", "threads"]).unwrap_err();
        assert_eq!(error.kind(), clap::error::ErrorKind::InvalidValue);
    }

    #[test]
    fn clap_definition_is_consistent() {
        use clap::CommandFactory;
        Args::command().debug_assert();
    }
}
