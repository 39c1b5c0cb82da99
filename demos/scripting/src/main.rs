//! The `arena-script` binary: the arena with a Rhai script's systems; see the library docs.

use std::path::PathBuf;
use std::process::ExitCode;

use arena::scene::Scene;
use clap::Parser;
use mosaic::ExecutorKind;
use mosaic_scripting::{ScriptedSim, bench};

/// The arena with systems written in Rhai.
#[derive(Debug, Parser)]
#[command(name = "arena-script", version)]
struct Args {
    /// The Rhai script: its components and systems run every frame after the arena's systems.
    #[arg(long, value_name = "FILE", required_unless_present = "bench_script")]
    script: Option<PathBuf>,
    /// Frames to run.
    #[arg(long, default_value_t = 600)]
    frames: u32,
    /// Rescales the bundled scene to about this many entities.
    #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(1..=1 << 22))]
    entities: u64,
    /// Seed of the arena's random generator.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Threads of the rayon pool the arena's systems run on (0: one per core).
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u16).range(0..=256))]
    threads: u16,
    /// Every frame, go back K frames and re-simulate to the present (0: off).
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=64))]
    rollback: u32,
    /// Instead of a run: time the scripted Shield logic per row beside the same logic in Rust
    /// (over the same dynamic query, and over a typed component), for this many rounds.
    #[arg(long, value_name = "ROUNDS")]
    bench_script: Option<u32>,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let pool = match rayon::ThreadPoolBuilder::new().num_threads(usize::from(args.threads)).build() {
        Ok(pool) => pool,
        Err(error) => {
            arena::say!("arena-script: error: cannot start {} threads: {error}", args.threads);
            return ExitCode::from(2);
        }
    };
    pool.install(|| run(&args))
}

fn run(args: &Args) -> ExitCode {
    if let Some(rounds) = args.bench_script {
        let rows = usize::try_from(args.entities).unwrap_or(usize::MAX);
        match bench::compare(rows, rounds.max(1)) {
            Ok(report) => {
                arena::print_line!("{report}");
                return ExitCode::SUCCESS;
            }
            Err(error) => {
                arena::say!("arena-script: error: {error}");
                return ExitCode::from(2);
            }
        }
    }
    let scene = Scene::bundled().scaled(args.entities);
    if let Err(error) = arena::validate::scene_size("--entities", args.entities, &scene) {
        arena::say!("arena-script: error: {error}");
        return ExitCode::from(2);
    }
    let Some(path) = &args.script else {
        arena::say!("arena-script: error: --script FILE is required");
        return ExitCode::from(2);
    };
    let file = path.display().to_string();
    let source = match arena::files::read_capped(path, mosaic_scripting::MAX_SCRIPT_BYTES, "a script")
        .map_err(|e| e.to_string())
        .and_then(|bytes| String::from_utf8(bytes).map_err(|_| "not UTF-8 text".to_owned()))
    {
        Ok(source) => source,
        Err(reason) => {
            arena::say!("arena-script: error: script `{file}`: {reason}");
            return ExitCode::from(2);
        }
    };
    let sim = match ScriptedSim::new(&scene, args.seed, ExecutorKind::Parallel, &file, &source) {
        Ok(sim) => sim,
        Err(error) => {
            arena::say!("arena-script: error: {error}");
            return ExitCode::from(2);
        }
    };
    let systems: Vec<String> = sim.script().systems().map(str::to_owned).collect();
    let outcome = match sim.run(args.frames, args.rollback) {
        Ok(outcome) => outcome,
        Err(error) => {
            arena::say!("arena-script: error: {error}");
            return ExitCode::from(2);
        }
    };
    arena::print_line!(
        "{} frames, {} entities at the end, {} threads, rollback {}; script systems: {}",
        outcome.frames,
        outcome.entities,
        rayon::current_num_threads(),
        args.rollback,
        systems.join(", ")
    );
    for (name, rows) in &outcome.rows {
        arena::print_line!("  {name}: {rows} rows");
    }
    let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
    arena::print_line!(
        "time: arena systems {:.1} ms, script systems {:.1} ms",
        ms(outcome.rust_time),
        ms(outcome.script_time)
    );
    let c = outcome.checksums;
    arena::print_line!(
        "checksum: {:016x} (arena {:016x}, script components {:016x})",
        c.combined,
        c.arena,
        c.script
    );
    ExitCode::SUCCESS
}
