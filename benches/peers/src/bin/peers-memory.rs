//! `peers-memory LIB N`: spawns N entities with (Position, Velocity) through LIB's batch API with
//! dhat's counting allocator as the global allocator, and prints three numbers: peak heap bytes
//! during the spawn and heap bytes live after it (both above what was live before), and the peak
//! resident-set growth in bytes. `mosaic-peers` runs it once per library, each in a fresh process,
//! so the peak belongs to that spawn alone. It is a binary of its own because a counting allocator
//! would slow every timed workload of `mosaic-peers`.

#[global_allocator]
static ALLOC: dhat::Alloc = dhat::Alloc;

/// `VmRSS` or `VmHWM` from `/proc/self/status`, in bytes.
fn status_bytes(key: &str) -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with(key))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|kb| kb.parse::<u64>().ok())
        })
        .map_or(0, |kb| kb * 1024)
}

fn main() {
    let mut args = std::env::args().skip(1);
    let (Some(name), Some(n)) = (args.next(), args.next().and_then(|n| n.parse::<usize>().ok())) else {
        eprintln!("usage: peers-memory LIB N");
        std::process::exit(2);
    };
    let Some(lib) = mosaic_peers::libs::by_name(&name) else {
        eprintln!("no library named {name}");
        std::process::exit(2);
    };
    // Warm the library's one-time state (type registries, thread pools) outside the measurement.
    drop(lib.populate(1));
    let _profiler = dhat::Profiler::builder().testing().build();
    let rss_before = status_bytes("VmRSS:");
    let before = dhat::HeapStats::get();
    let world = lib.populate(n);
    let after = dhat::HeapStats::get();
    let rss_peak = status_bytes("VmHWM:");
    if world.is_none() {
        eprintln!("{name} has no memory workload");
        std::process::exit(1);
    }
    let peak = (after.max_bytes as u64).saturating_sub(before.curr_bytes as u64);
    let live = (after.curr_bytes as u64).saturating_sub(before.curr_bytes as u64);
    println!("{peak} {live} {}", rss_peak.saturating_sub(rss_before));
    drop(world);
}
