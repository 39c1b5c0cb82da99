//! `--trace PATH`: a Chrome trace of the run (Trace Event JSON), for Perfetto or
//! chrome://tracing.
//!
//! Every frame is a `frame` span (from [`crate::sim::Sim::step`]) and every system run a `system`
//! span with a `name` field (from Mosaic's executor); the arena's systems add `phase` spans
//! (`name`, and `parallel`: whether the phase's work is split over the thread pool). Slices are
//! named after the `name` field, so a frame shows `movement`, `collisions`, `grid build`, ... on
//! the threads that ran them instead of a row of `system`s; the field is kept as an argument too.
//!
//! Mosaic's executor also opens a `commands` span (with the system's `name`) while it applies a
//! system's commands at a sync point, and a `collect_lazy` span at the end of the frame.
//!
//! Beside the trace, [`Trace::summary`] totals each span's time and derives the serial fraction
//! of the frame (see `PhaseTotals`).

use std::collections::BTreeMap;
use std::fmt;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tracing::Subscriber;
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id};
use tracing_chrome::{ChromeLayerBuilder, EventOrSpan, FlushGuard};
use tracing_subscriber::layer::{Context, Layer};
use tracing_subscriber::prelude::*;
use tracing_subscriber::registry::LookupSpan;

/// Installs the global subscriber writing a Chrome trace to `path`; the trace is complete once
/// [`Trace::finish`] returns (or the trace is dropped).
///
/// # Errors
/// A message naming `path` if the file cannot be created.
///
/// # Panics
/// If a global subscriber is already installed (this is called once, from `main`).
pub fn start(path: &Path) -> Result<Trace, String> {
    let file = std::fs::File::create(path).map_err(|error| {
        format!("cannot create trace file `{}`: {error}; check the path given to --trace", path.display())
    })?;
    let failed = Arc::new(Mutex::new(None));
    let writer = CheckedWriter { inner: file, failed: failed.clone() };
    let (chrome, guard) =
        ChromeLayerBuilder::new().writer(writer).include_args(true).name_fn(Box::new(slice_name)).build();
    let totals = PhaseTotals::default();
    let spans = totals.spans.clone();
    tracing_subscriber::registry().with(SystemNames).with(totals).with(chrome).init();
    Ok(Trace { guard: Some(guard), spans, path: path.to_owned(), failed })
}

/// The trace file's writer: keeps the first write error for [`Trace::finish`] and reports every
/// write as done, so the trace-writing thread of `tracing-chrome` (which unwraps its writes)
/// does not panic on a full disk; nothing more is written after an error.
struct CheckedWriter<W> {
    inner: W,
    failed: Arc<Mutex<Option<io::Error>>>,
}

impl<W: Write> CheckedWriter<W> {
    fn guarded(&mut self, len: usize, op: impl FnOnce(&mut W) -> io::Result<usize>) -> io::Result<usize> {
        let mut failed = self.failed.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if failed.is_none()
            && let Err(error) = op(&mut self.inner)
        {
            *failed = Some(error);
        }
        Ok(len)
    }
}

impl<W: Write> Write for CheckedWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.guarded(buf.len(), |inner| inner.write_all(buf).map(|()| buf.len()))
    }

    fn flush(&mut self) -> io::Result<()> {
        self.guarded(0, |inner| inner.flush().map(|()| 0)).map(|_| ())
    }
}

/// A running trace: the Chrome trace's writer and the span totals.
pub struct Trace {
    guard: Option<FlushGuard>,
    spans: Arc<Mutex<BTreeMap<Label, Duration>>>,
    /// The trace file, for the error message.
    path: PathBuf,
    /// The first error writing the file.
    failed: Arc<Mutex<Option<io::Error>>>,
}

impl Trace {
    /// Writes the rest of the Chrome trace and closes the file (waiting for the writer thread);
    /// the totals stay readable. Calling it again only repeats the check.
    ///
    /// # Errors
    /// A message naming the file and the first write error (a full disk: `--trace /dev/full`)
    /// if any write to it failed; the trace file is then incomplete.
    pub fn finish(&mut self) -> Result<(), String> {
        self.guard.take();
        let failed = self.failed.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        match &*failed {
            None => Ok(()),
            Some(error) => Err(format!(
                "cannot write trace file `{}`: {error}; the trace is incomplete",
                self.path.display()
            )),
        }
    }

    /// The totals as a table, per frame over `frames` frames: each system, and each phase under
    /// its system, with its share of the frame; then the serial fraction `s`: the frame minus the
    /// phases marked parallel (their work is split over the pool; everything else, from the
    /// systems' serial code to applying commands and the schedule itself, runs on one thread),
    /// and the speed-up bound `1 / (s + (1 - s) / t)` it implies for 16 threads. Meaningful for
    /// Amdahl's law when the run used one thread (`RAYON_NUM_THREADS=1`); with more, the parallel
    /// phases already ran shorter.
    pub fn summary(&self, frames: u32) -> String {
        let spans = self.spans.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let per_frame = |total: Duration| total.as_secs_f64() * 1e3 / f64::from(frames.max(1));
        let frame = spans.get(&Label::Frame).map_or(0.0, |&t| per_frame(t));
        let mut out =
            format!("trace summary: mean per frame over {frames} frames (ms, share of the frame)\n");
        let mut parallel = 0.0;
        let share = |ms: f64| if frame > 0.0 { 100.0 * ms / frame } else { 0.0 };
        out += &format!("  {:<28} {:>9.3} {:>6.1}%\n", "frame", frame, 100.0);
        let phase_line = |out: &mut String, system: &str, name: &str, is_parallel: bool, ms: f64| {
            let kind = if is_parallel { "parallel" } else { "serial" };
            *out +=
                &format!("    {:<26} {ms:>9.3} {:>6.1}%  {kind}\n", format!("{system}: {name}"), share(ms));
        };
        let systems: Vec<&str> = spans
            .keys()
            .filter_map(|label| if let Label::System(name) = label { Some(name.as_str()) } else { None })
            .collect();
        for label in spans.keys() {
            if let Label::Phase { parallel: true, .. } = label {
                parallel += per_frame(spans[label]);
            }
        }
        for system in &systems {
            let ms = per_frame(spans[&Label::System((*system).to_owned())]);
            out += &format!("  {system:<28} {ms:>9.3} {:>6.1}%\n", share(ms));
            for (label, total) in spans.iter() {
                if let Label::Phase { system: owner, name, parallel } = label
                    && owner == system
                {
                    phase_line(&mut out, owner, name, *parallel, per_frame(*total));
                }
            }
        }
        for (label, total) in spans.iter() {
            if let Label::Phase { system, name, parallel } = label
                && !systems.contains(&system.as_str())
            {
                phase_line(&mut out, system, name, *parallel, per_frame(*total));
            }
        }
        let s = if frame > 0.0 { ((frame - parallel) / frame).clamp(0.0, 1.0) } else { 1.0 };
        out += &format!(
            "  serial fraction s = {s:.3} (frame minus parallel phases: {:.3} ms); 16-thread bound 1 / (s + (1 - s) / 16) = {:.2}x",
            frame - parallel,
            1.0 / (s + (1.0 - s) / 16.0)
        );
        out
    }
}

/// What a span's time is totalled under.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Label {
    Frame,
    System(String),
    /// A `phase` span inside the system `system`.
    Phase {
        system: String,
        name: String,
        parallel: bool,
    },
}

/// Totals the time between each `frame`, `system` and `phase` span's enter and exit, per label,
/// summed over entries and threads
/// (phases under their system's name). Times are summed over threads: a system run on a worker
/// counts as much as on the main thread; the work inside a phase that rayon spreads over other
/// threads is counted once, as the phase's wall time on the thread that entered it.
#[derive(Default)]
struct PhaseTotals {
    spans: Arc<Mutex<BTreeMap<Label, Duration>>>,
}

/// When the span was last entered (in its extensions).
struct Entered(Instant);

impl<S: Subscriber + for<'a> LookupSpan<'a>> Layer<S> for PhaseTotals {
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        let label = match attrs.metadata().name() {
            "frame" => Label::Frame,
            "system" => {
                let mut name = NameField(None);
                attrs.record(&mut name);
                Label::System(name.0.unwrap_or_default())
            }
            // Applying a system's commands at its batch's sync point, and the lazy collector at
            // the end of the frame (Mosaic's executor): serial by nature.
            "commands" => {
                let mut name = NameField(None);
                attrs.record(&mut name);
                Label::System(format!("{} commands", name.0.unwrap_or_default()))
            }
            "collect_lazy" => Label::System("collect_lazy".to_owned()),
            "phase" => {
                let mut fields = PhaseFields::default();
                attrs.record(&mut fields);
                let system = ctx
                    .span(id)
                    .and_then(|span| span.parent())
                    .and_then(|parent| parent.extensions().get::<SystemName>().map(|n| n.0.clone()))
                    .unwrap_or_default();
                Label::Phase { system, name: fields.name.unwrap_or_default(), parallel: fields.parallel }
            }
            _ => return,
        };
        if let Some(span) = ctx.span(id) {
            span.extensions_mut().insert(label);
        }
    }

    fn on_enter(&self, id: &Id, ctx: Context<'_, S>) {
        if let Some(span) = ctx.span(id)
            && span.extensions().get::<Label>().is_some()
        {
            span.extensions_mut().replace(Entered(Instant::now()));
        }
    }

    fn on_exit(&self, id: &Id, ctx: Context<'_, S>) {
        let Some(span) = ctx.span(id) else { return };
        let extensions = span.extensions();
        if let (Some(label), Some(Entered(at))) = (extensions.get::<Label>(), extensions.get::<Entered>()) {
            let mut spans = self.spans.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            *spans.entry(label.clone()).or_default() += at.elapsed();
        }
    }
}

/// A `phase` span's `name` and `parallel` fields.
#[derive(Default)]
struct PhaseFields {
    name: Option<String>,
    parallel: bool,
}

impl Visit for PhaseFields {
    fn record_bool(&mut self, field: &Field, value: bool) {
        if field.name() == "parallel" {
            self.parallel = value;
        }
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "name" {
            self.name = Some(value.to_owned());
        }
    }

    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        if field.name() == "name" {
            self.name = Some(format!("{value:?}"));
        }
    }
}

/// A `system` or `phase` span's `name` field, kept in the span's extensions.
struct SystemName(String);

/// Stores the `name` field of each `system` and `phase` span as a [`SystemName`] when the span is
/// created.
struct SystemNames;

impl<S: Subscriber + for<'a> LookupSpan<'a>> Layer<S> for SystemNames {
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        if !matches!(attrs.metadata().name(), "system" | "phase") {
            return;
        }
        let mut name = NameField(None);
        attrs.record(&mut name);
        if let (Some(name), Some(span)) = (name.0, ctx.span(id)) {
            span.extensions_mut().insert(SystemName(name));
        }
    }
}

/// Picks the `name` field out of a span's fields.
struct NameField(Option<String>);

impl Visit for NameField {
    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "name" {
            self.0 = Some(value.to_owned());
        }
    }

    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        if field.name() == "name" {
            self.0 = Some(format!("{value:?}"));
        }
    }
}

/// A slice's name in the trace: the system's name for `system` spans, else the span's or event's.
fn slice_name<S: Subscriber + for<'a> LookupSpan<'a> + Send + Sync>(item: &EventOrSpan<'_, '_, S>) -> String {
    match item {
        EventOrSpan::Span(span) => match span.extensions().get::<SystemName>() {
            Some(name) => name.0.clone(),
            None => span.name().to_owned(),
        },
        EventOrSpan::Event(event) => event.metadata().name().to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_write_is_kept_and_later_writes_are_swallowed() {
        struct Full;
        impl Write for Full {
            fn write(&mut self, _: &[u8]) -> io::Result<usize> {
                Err(io::Error::from(io::ErrorKind::StorageFull))
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        let failed = Arc::new(Mutex::new(None));
        let mut writer = CheckedWriter { inner: Full, failed: failed.clone() };
        assert_eq!(writer.write(b"[\n").unwrap(), 2, "no error reaches the writer thread");
        assert_eq!(writer.write(b"more").unwrap(), 4);
        writer.flush().unwrap();
        let mut trace =
            Trace { guard: None, spans: Arc::default(), path: PathBuf::from("/dev/full"), failed };
        let error = trace.finish().unwrap_err();
        assert!(error.contains("cannot write trace file `/dev/full`"), "{error}");
    }

    #[test]
    fn the_summary_lists_phases_under_their_system_and_derives_the_serial_fraction() {
        let ms = Duration::from_millis;
        let phase = |system: &str, name: &str, parallel| Label::Phase {
            system: system.to_owned(),
            name: name.to_owned(),
            parallel,
        };
        let spans = BTreeMap::from([
            (Label::Frame, ms(200)),
            (Label::System("collisions".to_owned()), ms(120)),
            (phase("collisions", "contacts", true), ms(100)),
            (phase("collisions", "grid fill", false), ms(10)),
            (Label::System("movement".to_owned()), ms(20)),
            (phase("movement", "move", true), ms(20)),
        ]);
        let trace = Trace {
            guard: None,
            spans: Arc::new(Mutex::new(spans)),
            path: PathBuf::new(),
            failed: Arc::default(),
        };
        let text = trace.summary(2);
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[1].starts_with("  frame") && lines[1].contains("100.000"), "{text}");
        assert!(lines[2].starts_with("  collisions") && lines[2].contains("60.000"), "{text}");
        assert!(lines[3].contains("collisions: contacts") && lines[3].ends_with("parallel"), "{text}");
        assert!(lines[4].contains("collisions: grid fill") && lines[4].ends_with("serial"), "{text}");
        assert!(lines[5].starts_with("  movement"), "{text}");
        // Parallel phases: 120 of 200 ms, so s = 0.4 and the bound is 1 / (0.4 + 0.6 / 16).
        assert!(lines[7].contains("s = 0.400") && lines[7].contains("2.29x"), "{text}");
    }
}
