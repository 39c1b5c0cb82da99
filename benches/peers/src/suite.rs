//! The whole run: the eight workloads, the founding scaling grid, memory per entity and Mosaic's
//! cache behaviour under cachegrind, collected into [`Results`].

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::library::{Library, PROFILES, Profile, Scale, Workload};
use crate::machine::Machine;
use crate::timing::{self, Config, Entry};

/// One library's figure in a group.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Row {
    /// The library's row label.
    pub label: String,
    /// Median time per run, in nanoseconds (`None` when it failed before any sample).
    pub median_ns: Option<f64>,
    /// Samples taken.
    pub samples: usize,
    /// Runs per sample.
    pub iters: usize,
    /// The panic message, if it panicked.
    pub failure: Option<String>,
}

/// A workload's rows.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct WorkloadResult {
    /// The workload's ecs_bench_suite name.
    pub workload: String,
    /// One row per library that can express it.
    pub rows: Vec<Row>,
}

/// One cell of the scaling grid: an operation, a profile and an entity count.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ScaleResult {
    /// `create`, `iterate` or `create_destroy`.
    pub op: String,
    /// `A`, `AA` or `AAA`.
    pub profile: String,
    /// Entities.
    pub n: usize,
    /// One row per library; divide `median_ns` by `n` for the time per entity.
    pub rows: Vec<Row>,
}

/// Heap use of one library holding 10^6 entities with (Position, Velocity).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct MemoryRow {
    /// The library.
    pub label: String,
    /// Entities spawned.
    pub n: usize,
    /// Peak heap bytes during the spawn (dhat), above what was live before it.
    pub peak_bytes: Option<u64>,
    /// Heap bytes still live after the spawn (dhat), above what was live before it.
    pub live_bytes: Option<u64>,
    /// Peak resident-set growth (`VmHWM` after minus `VmRSS` before), in bytes: the only figure
    /// that sees memory a C library takes from `malloc` directly (flecs).
    pub rss_bytes: Option<u64>,
    /// Why the figures are missing, if they are.
    pub error: Option<String>,
}

/// Cachegrind's data-cache figures for Mosaic's iterate workload.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CacheRow {
    /// Entities.
    pub n: usize,
    /// Frames run under cachegrind (setup excluded by subtracting a 0-frame run).
    pub frames: usize,
    /// Data references per entity per frame.
    pub refs_per_entity: f64,
    /// D1 misses / data references, in percent, iteration only.
    pub d1_miss: f64,
    /// LL data misses / data references, in percent, iteration only.
    pub lld_miss: f64,
    /// The same two over the whole process (setup included), as cachegrind prints them.
    pub whole_d1_miss: f64,
    /// See `whole_d1_miss`.
    pub whole_lld_miss: f64,
}

/// Everything one run measured.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Results {
    /// Where it ran.
    pub machine: Machine,
    /// `--quick` or not.
    pub quick: bool,
    /// Wall time of the whole run, in seconds.
    pub wall_s: f64,
    /// The eight workloads.
    pub workloads: Vec<WorkloadResult>,
    /// The founding scaling grid.
    pub scaling: Vec<ScaleResult>,
    /// Bytes per entity.
    pub memory: Vec<MemoryRow>,
    /// Mosaic under cachegrind, or why not.
    pub cache: Result<Vec<CacheRow>, String>,
}

impl Default for Results {
    fn default() -> Self {
        Results {
            machine: Machine::default(),
            quick: false,
            wall_s: 0.0,
            workloads: Vec::new(),
            scaling: Vec::new(),
            memory: Vec::new(),
            cache: Err("not run".to_string()),
        }
    }
}

/// What to run.
#[derive(Clone, Debug)]
pub struct Options {
    /// Rough and fast.
    pub quick: bool,
    /// Entity counts of the scaling grid.
    pub counts: Vec<usize>,
    /// Entities for the memory figure.
    pub memory_n: usize,
    /// Skip the scaling grid.
    pub skip_scaling: bool,
    /// Skip the memory subprocesses.
    pub skip_memory: bool,
    /// Skip cachegrind.
    pub skip_cachegrind: bool,
    /// Only these libraries (row labels); empty means all.
    pub only: Vec<String>,
}

impl Options {
    /// The full run, or `--quick` (counts up to 10^5, short samples, fewer cachegrind frames).
    pub fn new(quick: bool) -> Options {
        Options {
            quick,
            counts: if quick {
                vec![1_000, 10_000, 100_000]
            } else {
                vec![1_000, 10_000, 100_000, 1_000_000]
            },
            memory_n: 1_000_000,
            skip_scaling: false,
            skip_memory: false,
            skip_cachegrind: false,
            only: Vec::new(),
        }
    }

    fn config(&self) -> Config {
        if self.quick { Config::QUICK } else { Config::FULL }
    }

    fn wants(&self, lib: &dyn Library) -> bool {
        self.only.is_empty() || self.only.iter().any(|o| o == lib.name())
    }
}

fn rows(entries: &[Entry]) -> Vec<Row> {
    entries
        .iter()
        .map(|e| Row {
            label: e.label.clone(),
            median_ns: e.median(),
            samples: e.samples.len(),
            iters: e.iters(),
            failure: e.failure.clone(),
        })
        .collect()
}

/// Builds every library's bench for `workload` and measures them interleaved.
pub fn run_workload(libs: &[Box<dyn Library>], workload: Workload, config: &Config) -> WorkloadResult {
    let mut entries: Vec<Entry> =
        libs.iter().filter_map(|lib| lib.bench(workload).map(|b| Entry::new(lib.name(), b))).collect();
    timing::measure(&mut entries, config);
    WorkloadResult { workload: workload.name().to_string(), rows: rows(&entries) }
}

/// Measures one cell of the scaling grid.
pub fn run_scale(
    libs: &[Box<dyn Library>],
    op: Scale,
    profile: Profile,
    n: usize,
    config: &Config,
) -> ScaleResult {
    let mut entries: Vec<Entry> =
        libs.iter().filter_map(|lib| lib.scale(op, n, profile).map(|b| Entry::new(lib.name(), b))).collect();
    timing::measure(&mut entries, config);
    ScaleResult { op: op.name().to_string(), profile: profile.name.to_string(), n, rows: rows(&entries) }
}

/// Runs everything `options` asks for, printing progress to stderr.
pub fn run(options: &Options) -> Results {
    let start = Instant::now();
    let libs: Vec<Box<dyn Library>> =
        crate::libs::all().into_iter().filter(|l| options.wants(l.as_ref())).collect();
    let config = options.config();
    let mut results = Results { machine: Machine::detect(), quick: options.quick, ..Results::default() };

    for workload in Workload::ALL {
        let t = Instant::now();
        let result = run_workload(&libs, workload, &config);
        eprintln!("{workload:<17} {:>6.1} s  {}", t.elapsed().as_secs_f64(), summary(&result.rows));
        results.workloads.push(result);
    }

    if !options.skip_scaling {
        let scaled = config.scaled();
        for op in Scale::ALL {
            for profile in PROFILES {
                for &n in &options.counts {
                    let t = Instant::now();
                    let result = run_scale(&libs, op, profile, n, &scaled);
                    eprintln!(
                        "{:<15} {:<3} {n:>8} {:>6.1} s  {}",
                        op.name(),
                        profile.name,
                        t.elapsed().as_secs_f64(),
                        summary(&result.rows)
                    );
                    results.scaling.push(result);
                }
            }
        }
    }

    if !options.skip_memory {
        for lib in &libs {
            if lib.populate(1).is_none() {
                continue;
            }
            let row = memory(lib.name(), options.memory_n);
            eprintln!("memory {:<18} {:?} bytes peak, {:?} live", row.label, row.peak_bytes, row.live_bytes);
            results.memory.push(row);
        }
    }

    if !options.skip_cachegrind {
        let frames = if options.quick { 20 } else { 100 };
        results.cache = [10_000, 100_000].iter().map(|&n| cachegrind(n, frames)).collect();
        eprintln!("cachegrind {:?}", results.cache);
    }

    results.wall_s = start.elapsed().as_secs_f64();
    results
}

fn summary(rows: &[Row]) -> String {
    rows.iter()
        .map(|r| match (r.median_ns, &r.failure) {
            (_, Some(f)) => format!("{}=FAILED({f})", r.label),
            (Some(ns), None) => format!("{}={}", r.label, crate::report::format_ns(ns)),
            (None, None) => format!("{}=-", r.label),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The `peers-memory` binary beside this one; built with cargo if it is missing.
fn memory_binary() -> Result<PathBuf, String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let sibling = exe.with_file_name("peers-memory");
    if !sibling.exists() {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
        let profile = if cfg!(debug_assertions) { vec![] } else { vec!["--release"] };
        let status = Command::new(cargo)
            .args(["build", "-p", "mosaic-peers", "--bin", "peers-memory"])
            .args(profile)
            .status()
            .map_err(|e| format!("cannot run cargo to build peers-memory: {e}"))?;
        if !status.success() {
            return Err("building peers-memory failed".to_string());
        }
    }
    Ok(sibling)
}

/// Runs `peers-memory LIB N` (a process of its own, so dhat's peak covers only that spawn) and
/// parses its `peak live rss` line.
pub fn memory(label: &str, n: usize) -> MemoryRow {
    let mut row = MemoryRow {
        label: label.to_string(),
        n,
        peak_bytes: None,
        live_bytes: None,
        rss_bytes: None,
        error: None,
    };
    let output = memory_binary().and_then(|bin| {
        Command::new(bin)
            .arg(label)
            .arg(n.to_string())
            .output()
            .map_err(|e| format!("cannot run peers-memory: {e}"))
    });
    match output {
        Ok(out) if out.status.success() => {
            let text = String::from_utf8_lossy(&out.stdout);
            let fields: Vec<u64> = text.split_whitespace().filter_map(|f| f.parse().ok()).collect();
            if let [peak, live, rss] = fields[..] {
                row.peak_bytes = Some(peak);
                row.live_bytes = Some(live);
                row.rss_bytes = Some(rss);
            } else {
                row.error = Some(format!("unexpected output: {text}"));
            }
        }
        Ok(out) => {
            row.error =
                Some(String::from_utf8_lossy(&out.stderr).lines().last().unwrap_or("failed").to_string())
        }
        Err(e) => row.error = Some(e),
    }
    row
}

/// Totals from a cachegrind summary: (data refs, D1 misses, LLd misses).
fn cachegrind_totals(stderr: &str) -> Option<(f64, f64, f64)> {
    let field = |name: &str| -> Option<f64> {
        let line =
            stderr.lines().find(|l| l.split_once("== ").is_some_and(|(_, rest)| rest.starts_with(name)))?;
        let value = line.split(':').nth(1)?.split_whitespace().next()?;
        value.replace(',', "").parse().ok()
    };
    Some((field("D   refs")?, field("D1  misses")?, field("LLd misses")?))
}

fn run_cachegrind(exe: &Path, n: usize, frames: usize) -> Result<(f64, f64, f64), String> {
    let out = Command::new("valgrind")
        .args(["--tool=cachegrind", "--cache-sim=yes", "--cachegrind-out-file=/dev/null"])
        .arg(exe)
        .args(["cache-iterate", "--n", &n.to_string(), "--frames", &frames.to_string()])
        .output()
        .map_err(|e| format!("cannot run valgrind: {e}"))?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        return Err(format!("valgrind failed: {}", stderr.lines().last().unwrap_or("")));
    }
    cachegrind_totals(&stderr).ok_or_else(|| "no cachegrind summary in valgrind's output".to_string())
}

/// Mosaic's iterate workload at `n` entities under cachegrind: a run of `frames` frames minus a
/// run of none, so the miss rates are those of iteration alone.
pub fn cachegrind(n: usize, frames: usize) -> Result<CacheRow, String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let (refs0, d10, ll0) = run_cachegrind(&exe, n, 0)?;
    let (refs, d1, ll) = run_cachegrind(&exe, n, frames)?;
    let (dr, dd1, dll) = (refs - refs0, d1 - d10, ll - ll0);
    if dr <= 0.0 {
        return Err("the iteration made no data references".to_string());
    }
    Ok(CacheRow {
        n,
        frames,
        refs_per_entity: dr / (n * frames) as f64,
        d1_miss: 100.0 * dd1 / dr,
        lld_miss: 100.0 * dll / dr,
        whole_d1_miss: 100.0 * d1 / refs,
        whole_lld_miss: 100.0 * ll / refs,
    })
}

/// Where `--render-only` finds the last run's results (under the workspace's `target/`).
pub fn results_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/mosaic-peers/results.ron")
}

/// Saves `results` for `--render-only`.
///
/// # Errors
/// If the file cannot be written.
pub fn save(results: &Results) -> std::io::Result<()> {
    let path = results_path();
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let text = ron::ser::to_string_pretty(results, ron::ser::PrettyConfig::default())
        .map_err(|e| std::io::Error::other(e.to_string()))?;
    std::fs::write(path, text)
}

/// Loads what [`save`] wrote.
///
/// # Errors
/// If the file is missing or does not parse.
pub fn load() -> std::io::Result<Results> {
    let text = std::fs::read_to_string(results_path())?;
    ron::from_str(&text).map_err(|e| std::io::Error::other(e.to_string()))
}
