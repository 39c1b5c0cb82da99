//! The `arena` binary: parses the command line and runs [`arena::sim::run`]; see the library's
//! docs for what the simulation does.

use arena::{cli, scene, sim, trace};

use std::io::Write;
use std::process::ExitCode;

use clap::{Parser, ValueEnum};
use mosaic_inspect::InspectorOptions;

fn main() -> ExitCode {
    let args = cli::Args::parse();
    let scene = match scene::Scene::load(args.scene.as_deref()) {
        Ok(scene) => scene,
        Err(error) => {
            eprintln!("arena: error: {error}");
            return ExitCode::from(2);
        }
    };
    let scene = match args.entities {
        Some(total) => scene.scaled(total),
        None => scene,
    };
    let trace = match args.trace.as_deref().map(trace::start).transpose() {
        Ok(trace) => trace,
        Err(error) => {
            eprintln!("arena: error: {error}");
            return ExitCode::from(2);
        }
    };
    let start = match &args.load {
        Some(path) => match sim::Sim::load(&scene, path, args.executor.into()) {
            Ok(sim) => sim,
            Err(error) => {
                eprintln!("arena: error: {error}");
                return ExitCode::from(2);
            }
        },
        None => sim::Sim::new(&scene, args.seed, args.executor.into()),
    };
    if let Some(addr) = args.inspect {
        let options =
            InspectorOptions::with_addr(addr).writes(args.inspect_writes).remote(args.inspect_remote);
        let on_start = |url: &str| eprintln!("arena: inspector at {url}; stop with Ctrl-C");
        let on_end = |summary, end: &mut sim::Sim| {
            // Dropping the guard writes the rest of the trace and closes it.
            drop(trace);
            report(&args, &scene, summary, end);
        };
        let Err(error) = arena::inspect::run_inspected(start, args.frames, options, on_start, on_end);
        eprintln!("arena: error: {error}");
        return ExitCode::from(2);
    }
    let (summary, mut end) = sim::run_sim(start, args.frames);
    // Dropping the guard writes the rest of the trace and closes it.
    drop(trace);
    report(&args, &scene, summary, &mut end)
}

/// Saves the end of the run if asked, and prints its summary.
fn report(
    args: &cli::Args,
    scene: &scene::Scene,
    summary: arena::report::Summary,
    end: &mut sim::Sim,
) -> ExitCode {
    if let Some(path) = &args.save
        && let Err(error) = end.save(scene, path)
    {
        eprintln!("arena: error: {error}");
        return ExitCode::from(2);
    }
    let mut out = std::io::stdout().lock();
    let executor = args.executor.to_possible_value().map_or_else(String::new, |v| v.get_name().to_owned());
    let header = format!(
        "arena: {}, {:.1} x {:.1} arena, seed {}, {executor} executor",
        scene.file, scene.width, scene.height, args.seed
    );
    match writeln!(out, "{header}").and_then(|()| write!(out, "{summary}")) {
        Ok(()) => ExitCode::SUCCESS,
        // stdout closed early (e.g. piped into `head`): nothing more to say.
        Err(_) => ExitCode::FAILURE,
    }
}
