//! The `arena` binary: parses the command line and runs [`arena::sim::run`]; see the library's
//! docs for what the simulation does.

use arena::{cli, scene, sim, trace};

use std::io::Write;
use std::process::ExitCode;

use clap::{Parser, ValueEnum};

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
    let (summary, mut end) = sim::run_sim(start, args.frames);
    // Dropping the guard writes the rest of the trace and closes it.
    drop(trace);
    if let Some(path) = &args.save
        && let Err(error) = end.save(&scene, path)
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
