//! Time travel: the frames the frame loop saves into a [`RollbackRing`], read back as worlds,
//! compared two at a time, and rewound to.
//!
//! Reads of saved frames run on the server's threads, never under the lock the frame loop saves
//! through: under it they only take the frames they need ([`RollbackRing::saved_frame`], O(1),
//! shared, not copied), then rebuild and compare them with the lock released, so the frame loop
//! saves on meanwhile. They keep to the live reads' share of time ([`budget`]).

use std::sync::Arc;

use mosaic::World;
use mosaic::rollback::{RollbackError, RollbackRing, SavedFrame};
use serde_json::{Value, json};

use crate::budget;
use crate::error::ApiError;
use crate::inspector::{Shared, lock};
use crate::view::Source;

/// The saved frames and where the live world stands among them.
///
/// Invariants: `stamps[f % capacity]` changes whenever frame `f`'s slot is written, so a cached
/// view `(f, stamp, _)` is the view of what the ring holds as `f` exactly while
/// `stamps[f % capacity] == stamp`; `frames[s]` is `Some(f)` only if the ring holds `f` in slot
/// `s` and `f` belongs to the live world's timeline (saved, and not after a frame rewound to).
pub(crate) struct Travel {
    ring: RollbackRing,
    /// The frame number of the live world's state: the last frame saved or rewound to.
    current: u64,
    /// Per ring slot, the save count when the slot was last written.
    stamps: Vec<u64>,
    /// Per ring slot, the frame it holds for this timeline.
    frames: Vec<Option<u64>>,
    /// Saves made, from 0.
    saves: u64,
    /// The last frame rebuilt as a world, `(frame, stamp, world)`: the page reads one frame
    /// several times (summary, page, entity, map) as the scrubber stops on it.
    cache: Option<(u64, u64, Arc<World>)>,
}

impl Travel {
    /// Saves `world` into `ring` as frame `frame`, the live world's frame from now on.
    pub(crate) fn new(world: &mut World, ring: RollbackRing, frame: u64) -> Result<Self, RollbackError> {
        let mut travel = Self {
            stamps: vec![0; ring.capacity()],
            frames: vec![None; ring.capacity()],
            ring,
            current: frame,
            saves: 0,
            cache: None,
        };
        travel.save(world, frame)?;
        Ok(travel)
    }

    /// The frame number of the live world's state.
    pub(crate) fn current(&self) -> u64 {
        self.current
    }

    fn slot(&self, frame: u64) -> usize {
        (frame % self.stamps.len() as u64) as usize
    }

    /// Saves `world` as `frame` and makes it the current frame (even if the save fails: the
    /// numbering follows the frames run).
    fn save(&mut self, world: &mut World, frame: u64) -> Result<(), RollbackError> {
        self.current = frame;
        self.saves += 1;
        let slot = self.slot(frame);
        self.stamps[slot] = self.saves;
        self.ring.save(world, frame)?;
        self.frames[slot] = Some(frame);
        Ok(())
    }

    /// Saves `world` as the frame after the current one. O(entity slots + registered rows).
    pub(crate) fn save_next(&mut self, world: &mut World) -> Result<(), RollbackError> {
        self.save(world, self.current + 1)
    }

    /// What the ring takes when every slot holds a frame the size of the last one saved, in
    /// bytes (0 before any save).
    pub(crate) fn ring_bytes(&self) -> usize {
        let last = self.ring.saved_frames().last().and_then(|f| self.ring.frame_bytes(f)).unwrap_or(0);
        last.saturating_mul(self.ring.capacity())
    }

    /// Counts a frame run without saving it (no client watching).
    pub(crate) fn skip(&mut self) {
        self.current += 1;
    }

    /// Restores `world` to held frame `frame`, which becomes the current frame; frames saved
    /// after it (another timeline now) are no longer held.
    pub(crate) fn rewind(&mut self, world: &mut World, frame: u64) -> Result<(), String> {
        self.check(frame).map_err(|e| e.to_string())?;
        self.ring.restore(frame, world).map_err(|e| e.to_string())?;
        self.current = frame;
        for held in &mut self.frames {
            if held.is_some_and(|f| f > frame) {
                *held = None;
            }
        }
        Ok(())
    }

    /// The frames held, in increasing order: the run of consecutive frames of this timeline
    /// that ends at the newest one (frames after a frame rewound to are another timeline; earlier
    /// runs, from before a time nobody watched, are left out so the frames held have no gaps).
    /// O(capacity log capacity).
    pub(crate) fn held(&self) -> Vec<u64> {
        let mut frames: Vec<u64> = self.frames.iter().flatten().copied().collect();
        frames.sort_unstable();
        debug_assert!(frames.iter().all(|&f| f <= self.current && self.ring.contains(f)));
        let start = frames.windows(2).rposition(|w| w[1] != w[0] + 1).map_or(0, |at| at + 1);
        frames.drain(..start);
        frames
    }

    /// `Ok` if frame `frame` is held, else the 404 that names the frames that are.
    pub(crate) fn check(&self, frame: u64) -> Result<(), ApiError> {
        let held = self.held();
        if held.binary_search(&frame).is_ok() {
            return Ok(());
        }
        Err(ApiError::NoSuchFrame {
            frame,
            held: match (held.first(), held.last()) {
                (Some(first), Some(last)) => format!("frames {first} to {last}"),
                _ => "no frames".to_owned(),
            },
        })
    }
}

/// Parses a frame number from a path segment or query value named `what`.
pub(crate) fn parse_frame(what: &str, text: &str) -> Result<u64, ApiError> {
    text.parse().map_err(|_| {
        ApiError::BadRequest(format!("`{what}` must be a frame number (a whole number), not `{text}`"))
    })
}

/// `GET /api/frames/saved`: the frames held, the live world's frame, the ring's capacity and the
/// bytes one save copies.
pub(crate) fn saved(shared: &Shared) -> Result<Value, ApiError> {
    let travel = lock(&shared.travel);
    let travel = travel.as_ref().ok_or(ApiError::NoFrames)?;
    let frames = travel.held();
    let ring_bytes = travel.ring_bytes();
    let budget = shared.options.record_budget;
    Ok(json!({
        "recording": shared.recording.load(std::sync::atomic::Ordering::Acquire),
        "auto": shared.options.keep_frames_idle || ring_bytes <= budget,
        "ring_bytes": ring_bytes,
        "record_budget": budget,
        "frames": frames,
        "oldest": frames.first(),
        "newest": frames.last(),
        "current": travel.current,
        "capacity": travel.ring.capacity(),
        "frame_bytes": frames.last().and_then(|&f| travel.ring.frame_bytes(f)),
    }))
}

/// Held frame `frame`, shared out of the ring ([`RollbackRing::saved_frame`]) with its slot's
/// stamp, or the world already rebuilt for it. The ring is locked only for this: O(capacity).
fn take(shared: &Shared, frame: u64) -> Result<Result<Arc<World>, (SavedFrame, u64)>, ApiError> {
    let guard = lock(&shared.travel);
    let travel = guard.as_ref().ok_or(ApiError::NoFrames)?;
    travel.check(frame)?;
    let stamp = travel.stamps[travel.slot(frame)];
    if let Some((_, _, world)) = travel.cache.as_ref().filter(|(f, s, _)| *f == frame && *s == stamp) {
        return Ok(Ok(Arc::clone(world)));
    }
    let saved =
        travel.ring.saved_frame(frame).map_err(|e| ApiError::NoSuchFrame { frame, held: e.to_string() })?;
    Ok(Err((saved, stamp)))
}

/// Held frame `frame` rebuilt as a world ([`SavedFrame::world`]), kept for the next reads of
/// the same frame (one frame is kept). The ring is locked only to share the frame out; the
/// rebuild runs with it released, within the read budget ([`budget::spend`]). O(slots + rows)
/// of the frame, once per frame asked for.
///
/// # Errors
/// [`ApiError::NoFrames`], [`ApiError::NoSuchFrame`]; [`ApiError::ReadBudget`] if the budget
/// has no turn free within the read wait.
pub(crate) fn frame_world(shared: &Shared, frame: u64) -> Result<Arc<World>, ApiError> {
    let (saved, stamp) = match take(shared, frame)? {
        Ok(world) => return Ok(world),
        Err(taken) => taken,
    };
    let world = Arc::new(budget::spend(shared, || saved.world())?);
    drop(saved);
    if let Some(travel) = lock(&shared.travel).as_mut() {
        // The old copy goes: at most one rebuilt frame is kept.
        travel.cache = Some((frame, stamp, Arc::clone(&world)));
    }
    Ok(world)
}

/// What the routes show of saved frame `frame` rebuilt as `world`.
pub(crate) fn frame_source<'a>(shared: &'a Shared, world: &'a World, frame: u64) -> Source<'a> {
    Source {
        world,
        registry: &shared.registry,
        version: 0,
        frame,
        paused: shared.paused.load(std::sync::atomic::Ordering::Acquire),
        writes: shared.options.allow_writes,
        errors: Vec::new(),
    }
}

/// `GET /api/diff?a=F1&b=F2`: what differs from held frame `a` to held frame `b`. Lists of ids
/// and values are cut at `limit` entries each (the counts are whole).
///
/// Computed from the two frames shared out of the ring ([`SavedFrame::diff`]: entity by entity,
/// values compared as bytes or by their registered hash), plus [`SavedFrame::compare`]'s first
/// difference; only the listed changed values are serialized, from the two frames rebuilt as
/// worlds ([`SavedFrame::world`]). The ring is locked only to share the two frames out; the
/// work runs with it released, within the read budget ([`budget::spend`]). O(slots + rows) of
/// the two frames, no JSON per entity.
///
/// # Errors
/// [`ApiError::NoFrames`], [`ApiError::NoSuchFrame`], [`ApiError::ReadBudget`].
pub(crate) fn diff(shared: &Shared, a: u64, b: u64, limit: usize) -> Result<Value, ApiError> {
    let held = |frame| move |e: RollbackError| ApiError::NoSuchFrame { frame, held: e.to_string() };
    let (fa, fb) = {
        let travel = lock(&shared.travel);
        let travel = travel.as_ref().ok_or(ApiError::NoFrames)?;
        travel.check(a)?;
        travel.check(b)?;
        (travel.ring.saved_frame(a).map_err(held(a))?, travel.ring.saved_frame(b).map_err(held(b))?)
    };
    // The ring's lock is released: the frame loop saves on while the frames are compared.
    let (changes, first_difference, (wa, wb)) = budget::spend(shared, || {
        let first = fa.compare(&fb).map(|d| d.to_string());
        (fa.diff(&fb), first, (fa.world(), fb.world()))
    })?;
    drop((fa, fb));
    let ids =
        |list: &[mosaic::Entity]| list.iter().take(limit).map(|e| json!(e.to_string())).collect::<Vec<_>>();
    let value = |world: &World, name: &str, entity| {
        shared
            .registry
            .component_value(world, name, entity)
            .and_then(|value| serde_json::to_value(&*value).ok())
            .unwrap_or(Value::Null)
    };
    let mut components = Vec::new();
    let mut unchanged = Vec::new();
    for c in &changes.components {
        if c.is_empty() {
            unchanged.push(c.name.as_str());
            continue;
        }
        let changed_values: Vec<Value> = c
            .changed
            .iter()
            .take(limit)
            .map(
                |&e| json!({ "id": e.to_string(), "a": value(&wa, &c.name, e), "b": value(&wb, &c.name, e) }),
            )
            .collect();
        components.push(json!({
            "name": c.name,
            "added": c.added.len(),
            "removed": c.removed.len(),
            "changed": c.changed.len(),
            "added_ids": ids(&c.added),
            "removed_ids": ids(&c.removed),
            "changed_values": changed_values,
        }));
    }
    Ok(json!({
        "a": a,
        "b": b,
        "same": first_difference.is_none(),
        "first_difference": first_difference,
        "entities": {
            "a": wa.len(),
            "b": wb.len(),
            "spawned": changes.spawned.len(),
            "despawned": changes.despawned.len(),
            "spawned_ids": ids(&changes.spawned),
            "despawned_ids": ids(&changes.despawned),
        },
        "components": components,
        "unchanged_components": unchanged,
        "resources_changed": changes.resources_changed,
        "limit": limit,
    }))
}
