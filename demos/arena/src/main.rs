//! The `arena` binary: parses the command line and runs [`arena::sim::run`]; see the library's
//! docs for what the simulation does.

use arena::{cli, scene, sim, trace};

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use clap::{Parser, ValueEnum};
use mosaic::rollback::HashLog;
use mosaic_inspect::InspectorOptions;

fn main() -> ExitCode {
    // Run on a worker of a rayon pool sized as the global one would be (`RAYON_NUM_THREADS`, or
    // one per core): the frame's sequential work then is one of the pool's threads, instead of a
    // thread beside them that idle workers, spinning while they wait for work, compete with for
    // the cores (on 2 cores and 2 workers, a sequential system ran 2.5x slower).
    match rayon::ThreadPoolBuilder::new().build() {
        Ok(pool) => pool.install(run),
        Err(_) => run(),
    }
}

fn run() -> ExitCode {
    let args = cli::Args::parse();
    if let Some(logs) = &args.compare {
        return compare(&logs[0], &logs[1]);
    }
    let scene = match scene::Scene::load(args.scene.as_deref()) {
        Ok(scene) => scene,
        Err(error) => {
            arena::say!("arena: error: {error}");
            return ExitCode::from(2);
        }
    };
    let scene = match args.entities {
        Some(total) => scene.scaled(total),
        None => scene,
    };
    if let Err(error) = arena::validate::scene_size("--entities", args.entities.unwrap_or_default(), &scene) {
        arena::say!("arena: error: {error}");
        return ExitCode::from(2);
    }
    let trace = match args.trace.as_deref().map(trace::start).transpose() {
        Ok(trace) => trace,
        Err(error) => {
            arena::say!("arena: error: {error}");
            return ExitCode::from(2);
        }
    };
    let start = match &args.load {
        Some(path) => match sim::Sim::load(&scene, path, args.executor.into()) {
            Ok(sim) => sim,
            Err(error) => {
                arena::say!("arena: error: {error}");
                return ExitCode::from(2);
            }
        },
        None => sim::Sim::new(&scene, args.seed, args.executor.into()),
    };
    let mut start = start;
    if let Some(limit) = args.max_entities {
        start.set_entity_cap(limit);
    }
    if let Some(addr) = args.inspect {
        let options = InspectorOptions::with_addr(addr)
            .writes(args.inspect_writes)
            .writes_hint("run the arena with `--inspect-writes`")
            .remote(args.inspect_remote);
        let on_start = |url: &str| {
            // The page's link carries the token (`?token=`, which its writes send back); the JSON
            // API is under the base URL, and reads need no token.
            let base = url.split('?').next().unwrap_or(url);
            let token = url.split("token=").nth(1).unwrap_or("");
            // One write: a reader that stops after the first line finds the rest in the pipe.
            arena::say!(
                "arena: inspector at {base} (open {url} in a browser)\n\
                 arena: JSON API at {base}api (e.g. curl {base}api/world); writes send the header \
                 x-mosaic-token: {token}\n\
                 arena: stop with Ctrl-C"
            );
        };
        let mut trace = trace;
        let on_end = |summary, end: &mut sim::Sim| {
            // Writes the rest of the trace and closes it. The process keeps serving the last
            // frame until stopped, so a failed trace write is said here.
            if let Some(Err(error)) = trace.as_mut().map(trace::Trace::finish) {
                arena::say!("arena: error: {error}");
            }
            report(&args, &scene, summary, end);
        };
        let settings = arena::inspect::InspectSettings {
            options,
            saved_frames: args.inspect_frames as usize,
            fps: args.inspect_fps,
            memory: (args.inspect_memory as usize) << 20,
        };
        let Err(error) = arena::inspect::run_inspected(start, args.frames, settings, on_start, on_end);
        arena::say!("arena: error: {error}");
        return ExitCode::from(2);
    }
    if let Some(samples) = args.rollback_timing {
        let k = if args.rollback == 0 { 8 } else { args.rollback };
        arena::print_line!("{}", arena::rollback::measure(start, samples as usize, k));
        return ExitCode::SUCCESS;
    }
    let mut log = args.hash_log.as_ref().map(|_| HashLog::new());
    let (summary, mut end) = if args.rollback > 0 || log.is_some() {
        arena::rollback::run_rollback(start, args.frames, args.rollback, log.as_mut())
    } else {
        sim::run_sim(start, args.frames)
    };
    if let (Some(path), Some(log)) = (&args.hash_log, &log)
        && let Err(error) = std::fs::write(path, log.to_text())
    {
        arena::say!("arena: error: cannot write hash log `{}`: {error}", path.display());
        return ExitCode::from(2);
    }
    // Writes the rest of the trace and closes it.
    let mut trace = trace;
    let traced = trace.as_mut().map_or(Ok(()), trace::Trace::finish);
    let code = report(&args, &scene, summary, &mut end);
    if let Some(trace) = &trace {
        arena::print_line!("\n{}", trace.summary(args.frames));
    }
    // A trace that could not be written (a full disk) fails the run, after its report.
    if let Err(error) = traced {
        arena::say!("arena: error: {error}");
        return ExitCode::from(2);
    }
    code
}

/// Runs the desync finder on two hash logs: exit code 0 if they agree, 1 at the first frame they
/// differ, 2 if one cannot be read.
fn compare(a: &Path, b: &Path) -> ExitCode {
    let read = |path: &Path| -> Result<HashLog, String> {
        let text = arena::files::read_text_capped(path, arena::files::MAX_HASH_LOG_BYTES, "a hash log")
            .map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
        HashLog::parse(&text).map_err(|e| format!("`{}`: {e}", path.display()))
    };
    let (a_log, b_log) = match (read(a), read(b)) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(error), _) | (_, Err(error)) => {
            arena::say!("arena: error: {error}");
            return ExitCode::from(2);
        }
    };
    match a_log.first_divergence(&b_log) {
        None => {
            arena::print_line!("hash logs agree: {} frames", a_log.entries().len());
            ExitCode::SUCCESS
        }
        Some(divergence) => {
            arena::print_line!("{divergence}");
            ExitCode::from(1)
        }
    }
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
        arena::say!("arena: error: {error}");
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
