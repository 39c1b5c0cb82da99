//! `mosaic-ggrs`: the arena under GGRS. `synctest` runs GGRS's sync test and reports its cost
//! against a plain run of the same frames; `peer` runs one side of a two-player session over UDP,
//! every datagram authenticated under a key derived from `--match-secret`.

use std::net::SocketAddr;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use arena::scene::Scene;
use arena::sim::Sim;
use clap::{Parser, Subcommand};
use mosaic::ExecutorKind;
use mosaic_ggrs::auth::SessionKey;
use mosaic_ggrs::game::straight_run;
use mosaic_ggrs::peer::{PeerOptions, run_peer};
use mosaic_ggrs::synctest::{run_synctest, scripted_inputs};

/// The most entities `--entities` may ask for (the arena's own limit).
const MAX_ENTITIES: u64 = arena::scene::MAX_ENTITIES;

/// The environment variable read for the match secret when `--match-secret` is not given (an
/// environment variable is not shown to other users in `ps`, a command-line argument is).
const MATCH_SECRET_ENV: &str = "MOSAIC_MATCH_SECRET";

/// The arena driven by GGRS rollback netcode.
#[derive(Debug, Parser)]
#[command(name = "mosaic-ggrs", version, about)]
struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// GGRS's SyncTestSession: every frame rolls back `--check-distance` frames, re-simulates and
    /// compares hashes. Prints the frames per second of the sync test and of a plain run of the
    /// same frames (interleaved rounds, medians) and checks both end on the same hash.
    Synctest {
        /// Frames to run (at most 10^6).
        #[arg(long, default_value_t = 600, value_parser = clap::value_parser!(i32).range(1..=1_000_000))]
        frames: i32,
        /// Frames rolled back and re-simulated each frame (2 to 63).
        #[arg(long, default_value_t = 7, value_parser = clap::value_parser!(u8).range(2..=63))]
        check_distance: u8,
        /// Scale the bundled scene to about N entities (default: its own 100,500).
        #[arg(long, value_parser = clap::value_parser!(u64).range(1..=MAX_ENTITIES))]
        entities: Option<u64>,
        /// Seed of the arena's random generator.
        #[arg(long, default_value_t = 0x5EED)]
        seed: u64,
        /// Interleaved rounds of (plain run, sync test).
        #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u8).range(1..=50))]
        rounds: u8,
    },
    /// One peer of a two-player session over UDP; prints the world hash at `--frames` once every
    /// input before it is confirmed.
    Peer {
        /// This peer's player, 0 or 1.
        #[arg(long, value_parser = clap::value_parser!(u8).range(0..=1))]
        player: u8,
        /// Address to bind.
        #[arg(long, default_value = "127.0.0.1:7000")]
        local: SocketAddr,
        /// The other peer's address.
        #[arg(long, default_value = "127.0.0.1:7001")]
        remote: SocketAddr,
        /// The frame to report (at most 10^6).
        #[arg(long, default_value_t = 300, value_parser = clap::value_parser!(i32).range(1..=1_000_000))]
        frames: i32,
        /// GGRS's input delay, in frames (at most 7).
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u8).range(0..=7))]
        input_delay: u8,
        /// Latency added to every received packet, in milliseconds (at most 1000).
        #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u16).range(0..=1000))]
        latency_ms: u16,
        /// Frames per second (1 to 1000).
        #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u16).range(1..=1000))]
        fps: u16,
        /// Scale the bundled scene to about N entities.
        #[arg(long, default_value_t = 2_000, value_parser = clap::value_parser!(u64).range(1..=MAX_ENTITIES))]
        entities: u64,
        /// Seed of the arena's random generator (both peers must give the same).
        #[arg(long, default_value_t = 0x5EED)]
        seed: u64,
        /// Give up after this many seconds (1 to 3600).
        #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u16).range(1..=3600))]
        timeout_s: u16,
        /// Keep the session running this many milliseconds after the report (at most 10^4).
        #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u16).range(0..=10_000))]
        linger_ms: u16,
        /// The match secret both peers are given (16 to 1024 bytes, the same on both; a fresh
        /// random one per match): every datagram is authenticated under a key derived from it.
        /// Required, here or in the environment variable MOSAIC_MATCH_SECRET; there is no default.
        #[arg(long)]
        match_secret: Option<String>,
    },
}

fn scene(entities: Option<u64>) -> Scene {
    let scene = Scene::bundled();
    match entities {
        Some(n) => scene.scaled(n),
        None => scene,
    }
}

fn median(mut values: Vec<Duration>) -> Duration {
    values.sort_unstable();
    values[values.len() / 2]
}

fn main() -> ExitCode {
    match Args::parse().command {
        Command::Synctest { frames, check_distance, entities, seed, rounds } => {
            let scene = scene(entities);
            let sim = || Sim::new(&scene, seed, ExecutorKind::SingleThreaded);
            let (mut plain, mut synced) = (Vec::new(), Vec::new());
            for _ in 0..rounds {
                let start = Instant::now();
                let expected =
                    straight_run(sim(), arena::rollback::rollback_registry(), frames, scripted_inputs);
                plain.push(start.elapsed());
                let report = match run_synctest(sim(), frames, usize::from(check_distance)) {
                    Ok(report) => report,
                    Err(error) => {
                        arena::say!("mosaic-ggrs: sync test failed: {error}");
                        return ExitCode::FAILURE;
                    }
                };
                synced.push(report.elapsed);
                if report.hash != expected {
                    arena::say!(
                        "mosaic-ggrs: the sync test ended on hash {:#018x}, the plain run on {expected:#018x}",
                        report.hash
                    );
                    return ExitCode::FAILURE;
                }
                arena::print_line!(
                    "round: {} frames, {} rollbacks, {} frames advanced, hash {:#018x}: plain {:.1} ms, sync test {:.1} ms",
                    report.frames,
                    report.counts.loads,
                    report.counts.advances,
                    report.hash,
                    plain.last().unwrap().as_secs_f64() * 1e3,
                    report.elapsed.as_secs_f64() * 1e3
                );
            }
            let (plain, synced) = (median(plain), median(synced));
            let fps = |d: Duration| f64::from(frames) / d.as_secs_f64();
            arena::print_line!(
                "{} entities at start, {frames} frames, check distance {check_distance}, medians of {rounds} rounds: plain {:.1} frames/s, sync test {:.1} frames/s ({:.2}x the time)",
                Sim::new(&scene, seed, ExecutorKind::SingleThreaded).world().len(),
                fps(plain),
                fps(synced),
                synced.as_secs_f64() / plain.as_secs_f64()
            );
            ExitCode::SUCCESS
        }
        Command::Peer {
            player,
            local,
            remote,
            frames,
            input_delay,
            latency_ms,
            fps,
            entities,
            seed,
            timeout_s,
            linger_ms,
            match_secret,
        } => {
            let Some(secret) = match_secret.or_else(|| std::env::var(MATCH_SECRET_ENV).ok()) else {
                arena::say!(
                    "mosaic-ggrs: peer {player}: no match secret: give --match-secret or set \
                     {MATCH_SECRET_ENV} (the same random string on both peers, fresh for each match)"
                );
                return ExitCode::FAILURE;
            };
            let key = match SessionKey::from_match_secret(&secret) {
                Ok(key) => key,
                Err(error) => {
                    arena::say!("mosaic-ggrs: peer {player}: --match-secret: {error}");
                    return ExitCode::FAILURE;
                }
            };
            let options = PeerOptions {
                local,
                remote,
                player: usize::from(player),
                frames,
                input_delay: usize::from(input_delay),
                latency: Duration::from_millis(latency_ms.into()),
                fps: fps.into(),
                timeout: Duration::from_secs(timeout_s.into()),
                linger: Duration::from_millis(linger_ms.into()),
                key,
            };
            let sim = Sim::new(&scene(Some(entities)), seed, ExecutorKind::SingleThreaded);
            match run_peer(sim, &options) {
                Ok(report) => {
                    arena::print_line!(
                        "frame {} hash {:#018x} rollbacks {} advances {} seconds {:.2} {}",
                        report.frame,
                        report.hash,
                        report.counts.loads,
                        report.counts.advances,
                        report.elapsed.as_secs_f64(),
                        report.drops
                    );
                    ExitCode::SUCCESS
                }
                Err(error) => {
                    arena::say!("mosaic-ggrs: peer {player}: {error}");
                    ExitCode::FAILURE
                }
            }
        }
    }
}
