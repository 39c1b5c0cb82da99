//! `docs/benchmarks.svg`: one panel per workload (a bar per library, log scale where the values
//! span more than 20x), one for memory, and one per scaling operation and profile (nanoseconds per
//! entity against entity count, both logarithmic). plotters' SVG backend writes text as `<text>`
//! elements, so no font is needed at build or run time.

use std::path::Path;

use plotters::coord::Shift;
use plotters::coord::ranged1d::SegmentValue;
use plotters::prelude::*;

use crate::report::format_ns;
use crate::suite::{Results, Row};

type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;
type Error = Box<dyn std::error::Error>;
/// Draws one panel.
type Panel<'r> = Box<dyn Fn(&Area<'_>) -> Result<(), Error> + 'r>;

/// The colour a library keeps in every panel.
fn color(label: &str) -> RGBColor {
    match label {
        "mosaic" => RGBColor(214, 39, 40),
        l if l.starts_with("mosaic") => RGBColor(255, 127, 80),
        "plain" => RGBColor(90, 90, 90),
        "bevy" => RGBColor(31, 119, 180),
        "flecs" => RGBColor(255, 127, 14),
        "hecs" => RGBColor(44, 160, 44),
        "legion" => RGBColor(148, 103, 189),
        "shipyard" => RGBColor(23, 190, 207),
        "sparsey" => RGBColor(140, 86, 75),
        "specs" => RGBColor(227, 119, 194),
        _ => RGBColor(127, 127, 127),
    }
}

/// (divisor, unit) so that the largest value reads in a natural unit.
fn unit(max_ns: f64) -> (f64, &'static str) {
    if max_ns < 1e3 {
        (1.0, "ns")
    } else if max_ns < 1e6 {
        (1e3, "us")
    } else if max_ns < 1e9 {
        (1e6, "ms")
    } else {
        (1e9, "s")
    }
}

/// Draws a horizontal bar per `(label, value)`; `text` formats a value for its annotation.
fn bars(
    area: &Area<'_>,
    title: &str,
    items: &[(String, f64)],
    axis: &str,
    text: &dyn Fn(f64) -> String,
) -> Result<(), Error> {
    if items.is_empty() {
        return Ok(());
    }
    let k = items.len();
    let max = items.iter().map(|i| i.1).fold(f64::MIN, f64::max);
    let min = items.iter().map(|i| i.1).fold(f64::MAX, f64::min).max(f64::MIN_POSITIVE);
    // Row 0 is drawn at the bottom: reverse, so the first item reads first, at the top.
    let items: Vec<(String, f64)> = items.iter().rev().cloned().collect();
    let names: Vec<String> = items.iter().map(|i| i.0.clone()).collect();
    let label_of = move |v: &SegmentValue<usize>| match v {
        SegmentValue::CenterOf(i) if *i < names.len() => names[*i].clone(),
        _ => String::new(),
    };
    macro_rules! draw {
        ($x:expr, $lo:expr) => {{
            let mut chart = ChartBuilder::on(area)
                .caption(title, ("sans-serif", 18))
                .margin(10)
                .margin_right(70)
                .x_label_area_size(32)
                .y_label_area_size(120)
                .build_cartesian_2d($x, (0..k).into_segmented())?;
            chart
                .configure_mesh()
                .disable_y_mesh()
                .y_label_formatter(&label_of)
                .y_labels(k)
                .x_labels(6)
                .light_line_style(TRANSPARENT)
                .x_desc(axis)
                .label_style(("sans-serif", 12))
                .draw()?;
            chart.draw_series(items.iter().enumerate().map(|(i, (label, v))| {
                let mut bar = Rectangle::new(
                    [($lo, SegmentValue::Exact(i)), (*v, SegmentValue::Exact(i + 1))],
                    color(label).filled(),
                );
                bar.set_margin(3, 3, 0, 0);
                bar
            }))?;
            chart.draw_series(items.iter().enumerate().map(|(i, (_, v))| {
                Text::new(format!(" {}", text(*v)), (*v, SegmentValue::CenterOf(i)), ("sans-serif", 11))
            }))?;
        }};
    }
    if max / min > 20.0 {
        let lo = min / 2.0;
        draw!((lo..max * 3.0).log_scale(), lo);
    } else {
        draw!(0.0..max * 1.25, 0.0);
    }
    Ok(())
}

fn workload_panel(area: &Area<'_>, name: &str, rows: &[Row]) -> Result<(), Error> {
    let values: Vec<(String, f64)> =
        rows.iter().filter_map(|r| r.median_ns.map(|m| (r.label.clone(), m))).collect();
    let max = values.iter().map(|v| v.1).fold(0.0, f64::max);
    let (div, u) = unit(max);
    let scaled: Vec<(String, f64)> = values.into_iter().map(|(l, v)| (l, v / div)).collect();
    bars(area, name, &scaled, &format!("median time per run ({u})"), &|v| format_ns(v * div))
}

fn scaling_panel(area: &Area<'_>, results: &Results, op: &str, profile: &str) -> Result<(), Error> {
    let cells: Vec<_> = results.scaling.iter().filter(|s| s.op == op && s.profile == profile).collect();
    if cells.is_empty() {
        return Ok(());
    }
    let mut labels: Vec<String> = Vec::new();
    for c in &cells {
        for r in &c.rows {
            if !labels.contains(&r.label) {
                labels.push(r.label.clone());
            }
        }
    }
    let points = |label: &str| -> Vec<(f64, f64)> {
        cells
            .iter()
            .filter_map(|c| {
                c.rows
                    .iter()
                    .find(|r| r.label == label)
                    .and_then(|r| r.median_ns)
                    .map(|m| (c.n as f64, m / c.n as f64))
            })
            .collect()
    };
    let all: Vec<f64> = labels.iter().flat_map(|l| points(l)).map(|p| p.1).collect();
    let (lo, hi) = (all.iter().copied().fold(f64::MAX, f64::min), all.iter().copied().fold(0.0, f64::max));
    let (nlo, nhi) = (
        cells.iter().map(|c| c.n).min().unwrap_or(1) as f64,
        cells.iter().map(|c| c.n).max().unwrap_or(10) as f64,
    );
    let mut chart = ChartBuilder::on(area)
        .caption(format!("{op}, profile {profile}"), ("sans-serif", 18))
        .margin(10)
        .x_label_area_size(32)
        .y_label_area_size(50)
        .build_cartesian_2d((nlo / 1.5..nhi * 1.5).log_scale(), (lo / 1.5..hi * 1.5).log_scale())?;
    chart
        .configure_mesh()
        .x_desc("entities")
        .y_desc("ns per entity")
        .x_labels(4)
        .y_labels(12)
        .light_line_style(TRANSPARENT)
        .x_label_formatter(&|x| format!("1e{:.0}", x.log10()))
        .y_label_formatter(&|y| if *y >= 10.0 { format!("{y:.0}") } else { format!("{y:.2}") })
        .label_style(("sans-serif", 12))
        .draw()?;
    for label in &labels {
        let c = color(label);
        let pts = points(label);
        chart
            .draw_series(LineSeries::new(pts.clone(), c.stroke_width(2)))?
            .label(label.as_str())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], c.stroke_width(2)));
        chart.draw_series(pts.into_iter().map(|p| Circle::new(p, 3, c.filled())))?;
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK.mix(0.3))
        .label_font(("sans-serif", 11))
        .position(SeriesLabelPosition::UpperRight)
        .draw()?;
    Ok(())
}

/// Writes the chart to `path`.
///
/// # Errors
/// If plotters cannot draw or the file cannot be written.
pub fn render(results: &Results, path: &Path) -> Result<(), Error> {
    let mut panels: Vec<Panel<'_>> = Vec::new();
    for w in &results.workloads {
        panels.push(Box::new(move |a| workload_panel(a, &w.workload, &w.rows)));
    }
    if !results.memory.is_empty() {
        panels.push(Box::new(move |a| {
            let items: Vec<(String, f64)> = results
                .memory
                .iter()
                .filter_map(|m| {
                    let bytes = if m.label == "flecs" { m.rss_bytes } else { m.peak_bytes };
                    bytes.map(|b| (m.label.clone(), b as f64 / m.n as f64))
                })
                .collect();
            let n = results.memory[0].n;
            bars(
                a,
                &format!("memory, {n} entities (P, V)"),
                &items,
                "peak heap bytes per entity (flecs: RSS)",
                &|v| format!("{v:.1} B"),
            )
        }));
    }
    let mut ops: Vec<&str> = Vec::new();
    let mut profiles: Vec<&str> = Vec::new();
    for s in &results.scaling {
        if !ops.contains(&s.op.as_str()) {
            ops.push(&s.op);
        }
        if !profiles.contains(&s.profile.as_str()) {
            profiles.push(&s.profile);
        }
    }
    for op in &ops {
        for profile in &profiles {
            let (op, profile) = (*op, *profile);
            panels.push(Box::new(move |a| scaling_panel(a, results, op, profile)));
        }
    }
    let cols = 3;
    let rows = panels.len().div_ceil(cols).max(1);
    let (panel_w, panel_h) = (560u32, 330u32);
    let root = SVGBackend::new(path, (panel_w * cols as u32, panel_h * rows as u32 + 50)).into_drawing_area();
    root.fill(&WHITE)?;
    let title = format!(
        "Mosaic beside its peers: medians on {} cores ({}){}",
        results.machine.cores,
        results.machine.cpu,
        if results.quick { ", quick run" } else { "" }
    );
    let root = root.titled(&title, ("sans-serif", 24))?;
    let areas = root.split_evenly((rows, cols));
    for (panel, area) in panels.iter().zip(areas.iter()) {
        panel(area)?;
    }
    root.present()?;
    Ok(())
}
