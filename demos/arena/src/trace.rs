//! `--trace PATH`: a Chrome trace of the run (Trace Event JSON), for Perfetto or
//! chrome://tracing.
//!
//! Every frame is a `frame` span (from [`crate::sim::Sim::step`]) and every system run a `system`
//! span with a `name` field (from Mosaic's executor). Slices are named after that field, so a
//! frame shows `movement`, `lifetimes`, ... on the threads that ran them instead of a row of
//! `system`s; the field is kept as an argument too.

use std::fmt;
use std::path::Path;

use tracing::Subscriber;
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id};
use tracing_chrome::{ChromeLayerBuilder, EventOrSpan, FlushGuard};
use tracing_subscriber::layer::{Context, Layer};
use tracing_subscriber::prelude::*;
use tracing_subscriber::registry::LookupSpan;

/// Installs the global subscriber writing a Chrome trace to `path`; the trace is complete once
/// the returned guard is dropped.
///
/// # Errors
/// A message naming `path` if the file cannot be created.
///
/// # Panics
/// If a global subscriber is already installed (this is called once, from `main`).
pub fn start(path: &Path) -> Result<FlushGuard, String> {
    let file = std::fs::File::create(path).map_err(|error| {
        format!("cannot create trace file `{}`: {error}; check the path given to --trace", path.display())
    })?;
    let (chrome, guard) =
        ChromeLayerBuilder::new().writer(file).include_args(true).name_fn(Box::new(slice_name)).build();
    tracing_subscriber::registry().with(SystemNames).with(chrome).init();
    Ok(guard)
}

/// A `system` span's `name` field, kept in the span's extensions.
struct SystemName(String);

/// Stores the `name` field of each `system` span as a [`SystemName`] when the span is created.
struct SystemNames;

impl<S: Subscriber + for<'a> LookupSpan<'a>> Layer<S> for SystemNames {
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        if attrs.metadata().name() != "system" {
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
