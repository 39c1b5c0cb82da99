//! The desync finder: where two runs diverged, first by frame (hash logs), then by component and
//! entity (two saved frames, [`RollbackRing::compare`](super::RollbackRing::compare)).

use std::fmt;

use super::HashLogError;
use crate::entity::Entity;

/// The first difference between two saved states, as
/// [`RollbackRing::compare`](super::RollbackRing::compare) finds it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StateDifference {
    /// The entity allocators differ: at slot `slot` (generation or liveness), or, with `None`,
    /// in the free list or the live count.
    Allocator {
        /// The first slot index that differs, if a slot does.
        slot: Option<u32>,
    },
    /// A registered component's pool differs at row `row`: the entity there, its value, or the
    /// pool's length (then `row` is the shorter length).
    Component {
        /// The component's registered name.
        name: String,
        /// The row, in the pool's row order.
        row: usize,
        /// The entity at that row in the first state (else in the second), if either has the row.
        entity: Option<Entity>,
    },
    /// The hierarchy differs: the relationship pool at row `row` (`entity` its entity), or the
    /// ordering bookkeeping (`row` 0, no entity).
    Hierarchy {
        /// The row of the relationship pool.
        row: usize,
        /// The entity at that row, if any.
        entity: Option<Entity>,
    },
    /// A relation kind (`World::relate`) differs: the pool of its pairs at row `row` (the entity
    /// there, or its target), its target marks, or its index (`row` 0, no entity).
    Relation {
        /// The relation type's name (`std::any::type_name` of `R`).
        name: String,
        /// The row of the pairs' pool.
        row: usize,
        /// The entity at that row, if any.
        entity: Option<Entity>,
    },
    /// A hashed resource differs.
    Resource {
        /// The resource's registered name.
        name: String,
    },
    /// The lazy collector's sampling state differs.
    Sampler,
}

impl fmt::Display for StateDifference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = |entity: &Option<Entity>| {
            entity.map_or_else(|| "no entity".to_owned(), |e| format!("entity {e}"))
        };
        match self {
            Self::Allocator { slot: Some(slot) } => write!(f, "the entity allocator differs at slot {slot}"),
            Self::Allocator { slot: None } => {
                write!(f, "the entity allocator's free list or live count differs")
            }
            Self::Component { name, row, entity } => {
                write!(f, "component `{name}` differs at row {row} ({})", at(entity))
            }
            Self::Hierarchy { row, entity } => {
                write!(f, "the hierarchy differs at row {row} ({})", at(entity))
            }
            Self::Relation { name, row, entity } => {
                write!(f, "relation `{name}` differs at row {row} ({})", at(entity))
            }
            Self::Resource { name } => write!(f, "resource `{name}` differs"),
            Self::Sampler => write!(f, "the lazy collector's sampler differs"),
        }
    }
}

/// Per-frame world hashes of one run, in increasing frame order.
///
/// Text form, one line per frame: the frame number in decimal, a space, the hash as 16 lowercase
/// hex digits (`42 00ff12ab34cd56ef`). Empty lines and lines starting with `#` are ignored.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HashLog {
    entries: Vec<(u64, u64)>,
}

/// Where two hash logs first disagree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FrameDivergence {
    /// The first frame whose hashes differ, or that only one log has.
    pub frame: u64,
    /// The first log's hash at that frame, if it has the frame.
    pub first: Option<u64>,
    /// The second log's hash at that frame, if it has the frame.
    pub second: Option<u64>,
}

impl fmt::Display for FrameDivergence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let hash = |h: Option<u64>| h.map_or_else(|| "absent".to_owned(), |h| format!("{h:016x}"));
        write!(f, "first divergence at frame {}: {} vs {}", self.frame, hash(self.first), hash(self.second))
    }
}

impl HashLog {
    /// An empty log.
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends frame `frame`'s hash.
    ///
    /// # Panics
    /// If `frame` is not above the last frame logged.
    #[track_caller]
    pub fn push(&mut self, frame: u64, hash: u64) {
        if let Some(&(last, _)) = self.entries.last() {
            assert!(frame > last, "frame {frame} logged after frame {last}; log frames in increasing order");
        }
        self.entries.push((frame, hash));
    }

    /// The `(frame, hash)` entries, in frame order.
    pub fn entries(&self) -> &[(u64, u64)] {
        &self.entries
    }

    /// The hash logged for `frame`. O(log n).
    pub fn get(&self, frame: u64) -> Option<u64> {
        self.entries.binary_search_by_key(&frame, |&(f, _)| f).ok().map(|i| self.entries[i].1)
    }

    /// The log as text (see the type's docs). O(n).
    pub fn to_text(&self) -> String {
        use std::fmt::Write;
        let mut out = String::with_capacity(self.entries.len() * 24);
        for (frame, hash) in &self.entries {
            writeln!(out, "{frame} {hash:016x}").expect("writing to a String cannot fail");
        }
        out
    }

    /// Reads the text form. O(n).
    ///
    /// # Errors
    /// [`HashLogError::Line`] for a line that is not `FRAME HASH`; [`HashLogError::Order`] if
    /// frames do not increase.
    pub fn parse(text: &str) -> Result<Self, HashLogError> {
        let mut log = Self::new();
        for (i, line) in text.lines().enumerate() {
            let line_no = i + 1;
            let trimmed = line.trim();
            if trimmed.is_empty() || trimmed.starts_with('#') {
                continue;
            }
            let bad = || HashLogError::Line { line: line_no, text: line.to_owned() };
            let mut parts = trimmed.split_whitespace();
            let (Some(frame), Some(hash), None) = (parts.next(), parts.next(), parts.next()) else {
                return Err(bad());
            };
            let frame: u64 = frame.parse().map_err(|_| bad())?;
            if hash.len() != 16 {
                return Err(bad());
            }
            let hash = u64::from_str_radix(hash, 16).map_err(|_| bad())?;
            if let Some(&(previous, _)) = log.entries.last()
                && frame <= previous
            {
                return Err(HashLogError::Order { line: line_no, frame, previous });
            }
            log.entries.push((frame, hash));
        }
        Ok(log)
    }

    /// The first frame at which `self` and `other` disagree: both logged it with different
    /// hashes, or only one logged it (so a log that stops early differs at the first frame it
    /// lacks). `None` if the logs are equal. O(n + m) in the two logs' lengths.
    pub fn first_divergence(&self, other: &HashLog) -> Option<FrameDivergence> {
        let (mut i, mut j) = (0, 0);
        let (a, b) = (&self.entries, &other.entries);
        while i < a.len() || j < b.len() {
            match (a.get(i), b.get(j)) {
                (Some(&(fa, ha)), Some(&(fb, hb))) if fa == fb => {
                    if ha != hb {
                        return Some(FrameDivergence { frame: fa, first: Some(ha), second: Some(hb) });
                    }
                    i += 1;
                    j += 1;
                }
                (Some(&(fa, ha)), Some(&(fb, _))) if fa < fb => {
                    return Some(FrameDivergence { frame: fa, first: Some(ha), second: None });
                }
                (Some(_), Some(&(fb, hb))) => {
                    return Some(FrameDivergence { frame: fb, first: None, second: Some(hb) });
                }
                (Some(&(fa, ha)), None) => {
                    return Some(FrameDivergence { frame: fa, first: Some(ha), second: None });
                }
                (None, Some(&(fb, hb))) => {
                    return Some(FrameDivergence { frame: fb, first: None, second: Some(hb) });
                }
                (None, None) => break,
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn log(entries: &[(u64, u64)]) -> HashLog {
        let mut log = HashLog::new();
        for &(f, h) in entries {
            log.push(f, h);
        }
        log
    }

    #[test]
    fn text_round_trip_and_errors() {
        let a = log(&[(0, 1), (1, 0xdead_beef), (5, u64::MAX)]);
        assert_eq!(HashLog::parse(&a.to_text()).unwrap(), a);
        assert_eq!(HashLog::parse("# comment\n\n3 00000000000000ff\n").unwrap().get(3), Some(255));
        assert!(matches!(HashLog::parse("1 xyz"), Err(HashLogError::Line { line: 1, .. })));
        assert!(matches!(HashLog::parse("1 0000000000000001 extra"), Err(HashLogError::Line { .. })));
        assert!(matches!(
            HashLog::parse("2 0000000000000001\n2 0000000000000001"),
            Err(HashLogError::Order { line: 2, frame: 2, previous: 2 })
        ));
    }

    #[test]
    fn first_divergence_finds_the_earliest_frame() {
        let a = log(&[(0, 1), (1, 2), (2, 3), (3, 4)]);
        assert_eq!(a.first_divergence(&a.clone()), None);
        let b = log(&[(0, 1), (1, 2), (2, 9), (3, 9)]);
        assert_eq!(
            a.first_divergence(&b),
            Some(FrameDivergence { frame: 2, first: Some(3), second: Some(9) })
        );
        let short = log(&[(0, 1), (1, 2)]);
        assert_eq!(
            a.first_divergence(&short),
            Some(FrameDivergence { frame: 2, first: Some(3), second: None })
        );
        assert_eq!(short.first_divergence(&a).map(|d| d.frame), Some(2));
    }
}
