//! `docs/benchmarks.md`: the tables, written from [`Results`].

use std::fmt::Write as _;

use crate::library::Library;
use crate::suite::{Results, Row, ScaleResult};
use crate::timing::Config;

/// Formats nanoseconds with a unit that keeps three significant digits: `42.1 ns`, `5.95 us`,
/// `1.23 ms`, `2.50 s`.
pub fn format_ns(ns: f64) -> String {
    let (value, unit) = if ns < 1e3 {
        (ns, "ns")
    } else if ns < 1e6 {
        (ns / 1e3, "us")
    } else if ns < 1e9 {
        (ns / 1e6, "ms")
    } else {
        (ns / 1e9, "s")
    };
    let digits = if value < 10.0 {
        2
    } else if value < 100.0 {
        1
    } else {
        0
    };
    format!("{value:.digits$} {unit}")
}

/// Whether a row label is Mosaic or one of its variants.
pub fn is_mosaic(label: &str) -> bool {
    label.starts_with("mosaic")
}

/// Whether a row label is a variant of a library (`mosaic (group)`, `hecs (column batch)`): a
/// second way to run one library, reported in the variants table beside its plain row, never in
/// the main table or as a fastest peer.
pub fn is_variant(label: &str) -> bool {
    label.contains(" (")
}

/// Whether a row label is a peer's plain row (not Mosaic, not the baseline, not a variant).
pub fn is_peer(label: &str) -> bool {
    !is_mosaic(label) && label != "plain" && !is_variant(label)
}

/// The variant's suffix (`(column batch)` of `hecs (column batch)`), which pairs a Mosaic variant
/// with the peer variant that does the same.
fn variant_suffix(label: &str) -> Option<&str> {
    label.find(" (").map(|at| &label[at + 1..])
}

fn find<'a>(rows: &'a [Row], label: &str) -> Option<&'a Row> {
    rows.iter().find(|r| r.label == label)
}

fn median(rows: &[Row], label: &str) -> Option<f64> {
    find(rows, label).and_then(|r| r.median_ns)
}

/// The fastest peer of a group: (label, median ns).
pub fn fastest_peer(rows: &[Row]) -> Option<(&str, f64)> {
    rows.iter()
        .filter(|r| is_peer(&r.label))
        .filter_map(|r| r.median_ns.map(|m| (r.label.as_str(), m)))
        .min_by(|a, b| a.1.total_cmp(&b.1))
}

fn ratio(a: Option<f64>, b: Option<f64>) -> String {
    match (a, b) {
        (Some(a), Some(b)) if b > 0.0 => format!("{:.2}", a / b),
        _ => "-".to_string(),
    }
}

/// The figures the issue asked us to report against (medians from the founding implementation's
/// run: fastest peer, then the plain baseline).
const TARGETS: [(&str, &str, &str); 8] = [
    ("simple_insert", "170 us (shipyard)", "31 us"),
    ("simple_iter", "5.95 us (legion)", "5.75 us"),
    ("frag_iter", "42 ns (sparsey)", "34 ns"),
    ("heavy_compute", "~935 us", "940 us"),
    ("schedule", "7.8 us (flecs, sequential)", "7.1 us"),
    ("add_remove", "59 us (specs)", "2.7 us"),
    ("serialize_binary", "54 us (hecs)", "57 us"),
    ("serialize_text", "5.0 ms (specs)", "4.3 ms"),
];

/// Renders the whole document. `analysis` is the hand-written profile section
/// (`benches/peers/analysis.md`), included verbatim.
pub fn render(results: &Results, libs: &[Box<dyn Library>], analysis: Option<&str>) -> String {
    let mut md = String::new();
    let m = &results.machine;
    let columns: Vec<&str> = libs
        .iter()
        .map(|l| l.name())
        .filter(|n| !is_variant(n))
        .filter(|n| results.workloads.iter().any(|w| find(&w.rows, n).is_some()))
        .collect();

    let _ = writeln!(md, "# Benchmarks: Mosaic beside its peers\n");
    let _ = writeln!(
        md,
        "Written by `cargo run --release -p mosaic-peers -- --out docs`{} (crate `benches/peers`); do not edit \
         by hand: the analysis section comes from `benches/peers/analysis.md`. Workloads follow \
         rust-gamedev's ecs_bench_suite; the scaling grid is the founding implementation's.\n",
        if results.quick { " `--quick` (a rough run: short samples, few rounds)" } else { "" }
    );
    let _ = writeln!(md, "- Machine: {} logical cores (`nproc`), {}; {}", m.cores, m.cpu, m.os);
    let _ = writeln!(md, "- Toolchain: {}, release profile", m.rustc);
    let _ = writeln!(
        md,
        "- Wall time of this run: {:.0} s{}",
        results.wall_s,
        if results.quick { " (quick)" } else { "" }
    );
    let _ = writeln!(
        md,
        "- Method: every library's world is built first; then rounds of one sample per library, the order \
         rotating each round (drift on this shared machine spreads over all). A sample is as many runs as \
         fill ~{} ms; the figure is the median over samples of the time per run. World construction before a \
         run and drops after it are not timed (fresh worlds are built, and produced worlds dropped, between \
         samples). Ratios below 1 mean Mosaic is faster.\n",
        if results.quick { Config::QUICK } else { Config::FULL }.sample.as_millis()
    );

    // --- main table ---
    let _ = writeln!(md, "## Workloads (median time per run)\n");
    let mut header = "| workload |".to_string();
    let mut rule = "|---|".to_string();
    for c in &columns {
        let _ = write!(header, " {c} |");
        rule.push_str("---:|");
    }
    header.push_str(" fastest peer | mosaic / fastest peer | mosaic / plain |");
    rule.push_str("---|---:|---:|");
    let _ = writeln!(md, "{header}\n{rule}");
    for w in &results.workloads {
        let best_all = w
            .rows
            .iter()
            .filter(|r| r.label != "plain" && columns.contains(&r.label.as_str()))
            .filter_map(|r| r.median_ns)
            .min_by(f64::total_cmp);
        let mut line = format!("| {} |", w.workload);
        for c in &columns {
            let cell = match find(&w.rows, c) {
                None => "-".to_string(),
                Some(Row { failure: Some(_), .. }) => "failed".to_string(),
                Some(Row { median_ns: Some(ns), .. }) => {
                    if Some(*ns) == best_all {
                        format!("**{}**", format_ns(*ns))
                    } else {
                        format_ns(*ns)
                    }
                }
                Some(_) => "-".to_string(),
            };
            let _ = write!(line, " {cell} |");
        }
        let fastest = fastest_peer(&w.rows);
        let mosaic = median(&w.rows, "mosaic");
        let _ = write!(
            line,
            " {} | {} | {} |",
            fastest.map_or("-".to_string(), |(l, ns)| format!("{l} {}", format_ns(ns))),
            ratio(mosaic, fastest.map(|f| f.1)),
            ratio(mosaic, median(&w.rows, "plain")),
        );
        let _ = writeln!(md, "{line}");
    }
    let _ = writeln!(
        md,
        "\nBold: the fastest library in the row (the baseline aside). `-`: the library cannot express the workload.\n"
    );

    // --- variants ---
    let variants: Vec<(&str, &Row, &crate::suite::WorkloadResult)> = results
        .workloads
        .iter()
        .flat_map(|w| w.rows.iter().filter(|r| is_variant(&r.label)).map(move |r| (r.label.as_str(), r, w)))
        .collect();
    if !variants.is_empty() {
        let _ = writeln!(
            md,
            "### Variants (reported beside the plain rows, never instead of them; a peer's variant is never its fastest-peer figure)\n"
        );
        let _ = writeln!(
            md,
            "| workload | variant | median | variant / mosaic | variant / fastest peer | variant / plain |"
        );
        let _ = writeln!(md, "|---|---|---:|---:|---:|---:|");
        for (label, row, w) in variants {
            let _ = writeln!(
                md,
                "| {} | {} | {} | {} | {} | {} |",
                w.workload,
                label,
                row.median_ns.map_or("-".to_string(), format_ns),
                ratio(row.median_ns, median(&w.rows, "mosaic")),
                ratio(row.median_ns, fastest_peer(&w.rows).map(|f| f.1)),
                ratio(row.median_ns, median(&w.rows, "plain")),
            );
        }
        let _ = writeln!(md);
        // A Mosaic variant and a peer variant of the same suffix do the same thing: their ratio.
        for w in &results.workloads {
            for mine in w.rows.iter().filter(|r| is_mosaic(&r.label) && is_variant(&r.label)) {
                let suffix = variant_suffix(&mine.label);
                for theirs in w.rows.iter().filter(|r| !is_mosaic(&r.label) && is_variant(&r.label)) {
                    if variant_suffix(&theirs.label) == suffix {
                        let _ = writeln!(
                            md,
                            "- {}: `{}` / `{}` = {}",
                            w.workload,
                            mine.label,
                            theirs.label,
                            ratio(mine.median_ns, theirs.median_ns)
                        );
                    }
                }
            }
        }
        let _ = writeln!(md);
    }

    // --- targets ---
    let _ = writeln!(md, "### Against the figures we were asked to report against\n");
    let _ = writeln!(
        md,
        "| workload | target: fastest peer | target: plain | here: fastest peer | here: plain | here: mosaic |"
    );
    let _ = writeln!(md, "|---|---|---:|---|---:|---:|");
    for (name, peer, plain) in TARGETS {
        let Some(w) = results.workloads.iter().find(|w| w.workload == name) else { continue };
        let fastest = fastest_peer(&w.rows);
        let _ = writeln!(
            md,
            "| {name} | {peer} | {plain} | {} | {} | {} |",
            fastest.map_or("-".to_string(), |(l, ns)| format!("{} ({l})", format_ns(ns))),
            median(&w.rows, "plain").map_or("-".to_string(), format_ns),
            median(&w.rows, "mosaic").map_or("-".to_string(), format_ns),
        );
    }
    let _ = writeln!(md);

    // --- failures ---
    let failures: Vec<String> = results
        .workloads
        .iter()
        .flat_map(|w| w.rows.iter().map(move |r| (w.workload.clone(), r)))
        .chain(
            results
                .scaling
                .iter()
                .flat_map(|s| s.rows.iter().map(move |r| (format!("{} {} {}", s.op, s.profile, s.n), r))),
        )
        .filter_map(|(w, r)| r.failure.as_ref().map(|f| format!("- {w}, {}: panicked: {f}", r.label)))
        .collect();
    if !failures.is_empty() {
        let _ = writeln!(md, "### Failures\n\n{}\n", failures.join("\n"));
    }

    render_scaling(&mut md, results);
    render_memory(&mut md, results);
    render_cache(&mut md, results);

    // --- libraries ---
    let _ = writeln!(md, "## Libraries\n");
    let _ = writeln!(md, "| row | crate | version | how it runs the workloads |");
    let _ = writeln!(md, "|---|---|---|---|");
    for lib in libs {
        let (krate, version) = match lib.crate_name() {
            Some(c) => (c.to_string(), crate::machine::locked_version(c).unwrap_or_else(|| "?".to_string())),
            None => ("-".to_string(), "-".to_string()),
        };
        let _ = writeln!(md, "| {} | {} | {} | {} |", lib.name(), krate, version, lib.notes());
    }
    let _ = writeln!(md);
    let _ = writeln!(
        md,
        "Every library builds here with the workspace's toolchain; none was left out. bevy_ecs is built \
         without default features plus `std`, `multi_threaded` and `async_executor` (reflection off: it \
         costs build time and no workload uses it). Component types are generated once per library by one \
         macro (`src/components.rs`), with that library's derive, so every library moves the same bytes; \
         the matrix and vector types are glam's. Serialization: postcard (binary) and RON (text), both into \
         memory and back into a new world (whose construction is timed, as the suite does: it costs flecs \
         about 2 ms); hecs uses its own column serializer for both, legion its own for postcard only (its \
         RON does not read back under RON 0.10), and the others, Mosaic's main row included, serialize their \
         query results as a `Vec` of rows and spawn them back in a batch (the issue asked for that, as \
         Mosaic had no snapshot API then); `mosaic (snapshot)` is the same round trip through Mosaic's \
         snapshots, which landed since and also carry the entity allocator and pool row order.\n"
    );

    if let Some(analysis) = analysis {
        let _ = writeln!(md, "{}", analysis.trim_end());
        let _ = writeln!(md);
    }
    md
}

fn scale_labels(results: &Results) -> Vec<String> {
    let mut labels: Vec<String> = Vec::new();
    for s in &results.scaling {
        for r in &s.rows {
            if !labels.contains(&r.label) {
                labels.push(r.label.clone());
            }
        }
    }
    labels
}

fn per_entity(s: &ScaleResult, label: &str) -> Option<f64> {
    median(&s.rows, label).map(|ns| ns / s.n as f64)
}

fn render_scaling(md: &mut String, results: &Results) {
    if results.scaling.is_empty() {
        return;
    }
    let labels = scale_labels(results);
    let _ = writeln!(md, "## The founding scaling benchmarks (nanoseconds per entity)\n");
    let _ = writeln!(
        md,
        "Profiles: A = 32 component types and 16 systems, AA = 128 and 32, AAA = 512 and 64. `create`: spawn n \
         entities with (Position, Velocity) into a fresh world that has the profile's types registered (the \
         world is built untimed). `iterate`: one run of the profile's systems, one moving `pos += vel` and the \
         rest each querying a filler type no entity has, through the library's scheduler (hecs has none: its \
         systems are calls in sequence). `create_destroy`: spawn n, then despawn them, in one world. Time per \
         entity = median / n; throughput is its inverse (1 ns/entity = 10^9 entities/s). hecs registers no \
         types, so the profile only changes its system count; the baseline ignores both.\n"
    );
    let ops: Vec<String> = results.scaling.iter().fold(Vec::new(), |mut ops, s| {
        if !ops.contains(&s.op) {
            ops.push(s.op.clone());
        }
        ops
    });
    for op in ops {
        let _ = writeln!(md, "### {op}\n");
        let mut header = "| profile | n |".to_string();
        let mut rule = "|---|---:|".to_string();
        for l in &labels {
            let _ = write!(header, " {l} |");
            rule.push_str("---:|");
        }
        header.push_str(" mosaic / best peer |");
        rule.push_str("---:|");
        let _ = writeln!(md, "{header}\n{rule}");
        for s in results.scaling.iter().filter(|s| s.op == op) {
            let mut line = format!("| {} | {} |", s.profile, s.n);
            for l in &labels {
                let cell = per_entity(s, l).map_or("-".to_string(), |v| format!("{v:.2}"));
                let _ = write!(line, " {cell} |");
            }
            let best = fastest_peer(&s.rows).map(|(_, ns)| ns);
            let _ = write!(line, " {} |", ratio(median(&s.rows, "mosaic"), best));
            let _ = writeln!(md, "{line}");
        }
        let _ = writeln!(md);
    }
}

fn render_memory(md: &mut String, results: &Results) {
    if results.memory.is_empty() {
        return;
    }
    let n = results.memory[0].n;
    let _ = writeln!(md, "## Memory: bytes per entity, {n} entities with (Position, Velocity)\n");
    let _ = writeln!(
        md,
        "Each library spawns them through its batch API in a process of its own (`peers-memory`, dhat's \
         counting allocator as the global allocator). Peak: the heap's high-water mark during the spawn, above \
         what was live before, / n (growth by doubling shows here). Live: what is still allocated after the \
         spawn / n. RSS: peak resident-set growth / n, the only figure that sees flecs, whose C core calls \
         `malloc` directly (dhat sees only Rust's allocator). The data alone is 24 bytes per entity.\n"
    );
    let _ =
        writeln!(md, "| library | peak bytes / entity | live bytes / entity | RSS growth bytes / entity |");
    let _ = writeln!(md, "|---|---:|---:|---:|");
    for r in &results.memory {
        let per = |b: Option<u64>| b.map_or("-".to_string(), |b| format!("{:.1}", b as f64 / r.n as f64));
        match &r.error {
            Some(e) => {
                let _ = writeln!(md, "| {} | failed: {e} | | |", r.label);
            }
            None => {
                let _ = writeln!(
                    md,
                    "| {} | {} | {} | {} |",
                    r.label,
                    per(r.peak_bytes),
                    per(r.live_bytes),
                    per(r.rss_bytes)
                );
            }
        }
    }
    let _ = writeln!(md);
}

fn render_cache(md: &mut String, results: &Results) {
    let _ = writeln!(md, "## Cache behaviour: Mosaic's iterate workload under cachegrind\n");
    match &results.cache {
        Err(e) => {
            let _ = writeln!(md, "Not measured: {e}.\n");
        }
        Ok(rows) => {
            let _ = writeln!(
                md,
                "`valgrind --tool=cachegrind --cache-sim=yes` on `mosaic-peers cache-iterate --n N --frames F` \
                 (profile A: 32 types, 16 systems, the founding iterate workload through `Schedule`). Each figure \
                 is from two runs, F frames and 0 frames, subtracted, so world setup is excluded; the whole-process \
                 rates (setup included) are what cachegrind prints. Cachegrind simulates this machine's cache \
                 sizes.\n"
            );
            let _ = writeln!(
                md,
                "| entities | frames | data refs / entity / frame | D1 miss | LLd miss | whole process D1 / LLd | founding implementation D1 / LLd |"
            );
            let _ = writeln!(md, "|---:|---:|---:|---:|---:|---:|---:|");
            for r in rows {
                let founding = match r.n {
                    10_000 => "5.1% / 0.4%",
                    100_000 => "5.4% / 0.6%",
                    _ => "-",
                };
                let _ = writeln!(
                    md,
                    "| {} | {} | {:.1} | {:.2}% | {:.2}% | {:.2}% / {:.2}% | {founding} |",
                    r.n,
                    r.frames,
                    r.refs_per_entity,
                    r.d1_miss,
                    r.lld_miss,
                    r.whole_d1_miss,
                    r.whole_lld_miss
                );
            }
            let _ = writeln!(md);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nanoseconds_read_in_natural_units() {
        assert_eq!(format_ns(42.13), "42.1 ns");
        assert_eq!(format_ns(5_950.0), "5.95 us");
        assert_eq!(format_ns(935_000.0), "935 us");
        assert_eq!(format_ns(5.0e6), "5.00 ms");
    }

    #[test]
    fn the_fastest_peer_skips_mosaic_and_the_baseline() {
        let row = |label: &str, ns: f64| Row {
            label: label.to_string(),
            median_ns: Some(ns),
            samples: 1,
            iters: 1,
            failure: None,
        };
        let rows = vec![row("mosaic", 1.0), row("plain", 0.5), row("hecs", 3.0), row("bevy", 2.0)];
        assert_eq!(fastest_peer(&rows), Some(("bevy", 2.0)));
    }
}
