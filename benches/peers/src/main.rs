//! `mosaic-peers`: runs every workload for every library, the founding scaling grid, memory per
//! entity and Mosaic under cachegrind, then writes `docs/benchmarks.md` and `docs/benchmarks.svg`.
//!
//! ```sh
//! cargo run --release -p mosaic-peers -- --out docs          # the full run (under 15 minutes)
//! cargo run --release -p mosaic-peers -- --out /tmp --quick  # a rough run (under a minute)
//! ```
//!
//! Subcommands run one thing alone, for profilers: `one WORKLOAD --lib LIB --runs N`,
//! `scale OP --lib LIB --n N --profile A --runs R`, `cache-iterate --n N --frames F`.

use std::path::PathBuf;
use std::time::Instant;

use clap::{Parser, Subcommand};
use mosaic_peers::library::{PROFILES, Scale, Workload};
use mosaic_peers::suite::{self, Options};
use mosaic_peers::{chart, libs, report};

/// Mosaic beside bevy_ecs, hecs, shipyard, specs, legion, sparsey, flecs and a plain-Vec baseline.
#[derive(Parser)]
#[command(version, about)]
struct Cli {
    /// Directory that receives benchmarks.md and benchmarks.svg (nothing is written without it).
    #[arg(long)]
    out: Option<PathBuf>,
    /// A rough run: short samples, few rounds, scaling up to 10^5 entities.
    #[arg(long)]
    quick: bool,
    /// Only these libraries (row labels, e.g. `mosaic`, `bevy`); repeatable.
    #[arg(long)]
    only: Vec<String>,
    /// Skip the founding scaling grid.
    #[arg(long)]
    skip_scaling: bool,
    /// Skip the memory measurement.
    #[arg(long)]
    skip_memory: bool,
    /// Skip cachegrind.
    #[arg(long)]
    skip_cachegrind: bool,
    /// Re-render the files from the last run's saved results (target/mosaic-peers/results.ron).
    #[arg(long)]
    render_only: bool,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Runs one workload of one library `runs` times and nothing else (for callgrind).
    One {
        /// The workload.
        #[arg(value_enum)]
        workload: Workload,
        /// The library's row label.
        #[arg(long, default_value = "mosaic")]
        lib: String,
        /// Timed runs.
        #[arg(long, default_value_t = 100)]
        runs: usize,
    },
    /// Runs one cell of the scaling grid `runs` times.
    Scale {
        /// The operation.
        #[arg(value_enum)]
        op: Scale,
        /// The library's row label.
        #[arg(long, default_value = "mosaic")]
        lib: String,
        /// Entities.
        #[arg(long, default_value_t = 100_000)]
        n: usize,
        /// A, AA or AAA.
        #[arg(long, default_value = "A")]
        profile: String,
        /// Timed runs.
        #[arg(long, default_value_t = 10)]
        runs: usize,
    },
    /// Mosaic's founding iterate workload (profile A) alone, for cachegrind.
    CacheIterate {
        /// Entities.
        #[arg(long, default_value_t = 10_000)]
        n: usize,
        /// Frames (0 measures the setup alone).
        #[arg(long, default_value_t = 100)]
        frames: usize,
    },
}

fn time_alone(mut bench: Box<dyn mosaic_peers::Bench>, runs: usize) {
    bench.prepare(runs);
    let start = Instant::now();
    for _ in 0..runs {
        bench.run();
    }
    let elapsed = start.elapsed();
    bench.settle();
    println!("{runs} runs, {} per run", report::format_ns(elapsed.as_secs_f64() * 1e9 / runs.max(1) as f64));
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let cli = Cli::parse();
    match cli.command {
        Some(Command::One { workload, lib, runs }) => {
            let lib = libs::by_name(&lib).ok_or_else(|| format!("no library named {lib}"))?;
            let bench = lib.bench(workload).ok_or_else(|| format!("{} cannot run {workload}", lib.name()))?;
            time_alone(bench, runs);
            return Ok(());
        }
        Some(Command::Scale { op, lib, n, profile, runs }) => {
            let lib = libs::by_name(&lib).ok_or_else(|| format!("no library named {lib}"))?;
            let profile =
                PROFILES.into_iter().find(|p| p.name == profile).ok_or("profile is A, AA or AAA")?;
            let bench =
                lib.scale(op, n, profile).ok_or_else(|| format!("{} has no scaling grid", lib.name()))?;
            time_alone(bench, runs);
            return Ok(());
        }
        Some(Command::CacheIterate { n, frames }) => {
            println!("checksum {}", libs::mosaic::iterate_only(n, frames));
            return Ok(());
        }
        None => {}
    }

    let results = if cli.render_only {
        suite::load()?
    } else {
        let mut options = Options::new(cli.quick);
        options.only = cli.only;
        options.skip_scaling = cli.skip_scaling;
        options.skip_memory = cli.skip_memory;
        options.skip_cachegrind = cli.skip_cachegrind;
        let results = suite::run(&options);
        suite::save(&results)?;
        results
    };
    eprintln!("measured in {:.0} s", results.wall_s);

    if let Some(out) = cli.out {
        std::fs::create_dir_all(&out)?;
        let analysis_path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("analysis.md");
        let analysis = std::fs::read_to_string(analysis_path).ok();
        let md = report::render(&results, &libs::all(), analysis.as_deref());
        std::fs::write(out.join("benchmarks.md"), md)?;
        chart::render(&results, &out.join("benchmarks.svg"))?;
        eprintln!(
            "wrote {} and {}",
            out.join("benchmarks.md").display(),
            out.join("benchmarks.svg").display()
        );
    }
    Ok(())
}
