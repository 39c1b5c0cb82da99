//! Input recording and replay.

use serde::{Deserialize, Serialize};

use super::{HashLog, RecordingError, RollbackRegistry};
use crate::world::World;

/// The recording format version [`Recording::to_bytes`] writes.
pub const RECORDING_VERSION: u32 = 1;

/// Marks a recording's bytes.
const MAGIC: [u8; 4] = *b"MRCD";

/// One recorded frame: the inputs present before it ran, and the world hash after it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct RecordedFrame {
    frame: u64,
    /// (input index in the recording's name list, postcard bytes), in index order.
    inputs: Vec<(u32, Vec<u8>)>,
    hash: Option<u64>,
}

/// The file form. Field order is the format.
#[derive(Serialize, Deserialize)]
struct RecordingFile {
    magic: [u8; 4],
    version: u32,
    inputs: Vec<String>,
    frames: Vec<RecordedFrame>,
}

/// What the outside world injected into a run, frame by frame, and the world hash after each
/// frame: enough to replay the run and check it reproduces.
///
/// The inputs are the resources the registry names with
/// [`RollbackRegistry::register_input`]; a frame records each one the world has (as postcard
/// bytes) and notes the absent ones by leaving them out. Replaying a frame puts exactly those
/// inputs in the world (removing the absent ones) before it runs.
///
/// Shape: frames in increasing order (not necessarily consecutive). The byte form
/// ([`Recording::to_bytes`]) is postcard: magic `MRCD`, [`RECORDING_VERSION`], the input names,
/// then per frame its number, its `(input index, bytes)` pairs and its hash.
///
/// # Examples
/// ```
/// use mosaic::rollback::{Recording, RollbackRegistry};
/// use mosaic::World;
/// use serde::{Deserialize, Serialize};
///
/// #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
/// struct Buttons(u8);
///
/// let mut registry = RollbackRegistry::new();
/// registry.register_input::<Buttons>("buttons");
/// let mut world = World::new();
/// let mut recording = Recording::new(&registry);
/// for frame in 0..3 {
///     world.insert_resource(Buttons(frame as u8));
///     recording.record_inputs(&registry, &world, frame).unwrap();
///     recording.record_hash(frame, registry.hash(&world));
/// }
/// let bytes = recording.to_bytes().unwrap();
/// let read = Recording::from_bytes(&bytes, &registry).unwrap();
/// read.apply_inputs(&registry, 1, &mut world).unwrap();
/// assert_eq!(world.resource::<Buttons>(), &Buttons(1));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Recording {
    inputs: Vec<String>,
    frames: Vec<RecordedFrame>,
}

impl Recording {
    /// An empty recording of `registry`'s inputs.
    pub fn new(registry: &RollbackRegistry) -> Self {
        Self { inputs: registry.input_names().map(str::to_owned).collect(), frames: Vec::new() }
    }

    /// Number of frames recorded.
    pub fn len(&self) -> usize {
        self.frames.len()
    }

    /// Whether no frame is recorded.
    pub fn is_empty(&self) -> bool {
        self.frames.is_empty()
    }

    /// The recorded frame numbers, in increasing order.
    pub fn frames(&self) -> impl Iterator<Item = u64> + '_ {
        self.frames.iter().map(|f| f.frame)
    }

    /// Records the inputs `world` holds now as frame `frame`'s (call before running the frame).
    /// O(inputs' encoded size).
    ///
    /// # Errors
    /// [`RecordingError::FrameOrder`] if `frame` is not above the last frame recorded;
    /// [`RecordingError::Encode`] if an input fails to encode (nothing is recorded).
    ///
    /// # Panics
    /// If `registry`'s inputs are not the ones this recording was made for.
    #[track_caller]
    pub fn record_inputs(
        &mut self,
        registry: &RollbackRegistry,
        world: &World,
        frame: u64,
    ) -> Result<(), RecordingError> {
        assert!(
            registry.input_names().eq(self.inputs.iter().map(String::as_str)),
            "the registry's inputs are not the recording's"
        );
        if let Some(last) = self.frames.last().map(|f| f.frame)
            && frame <= last
        {
            return Err(RecordingError::FrameOrder { frame, last });
        }
        let mut inputs = Vec::new();
        for (index, entry) in registry.inputs.iter().enumerate() {
            if let Some(bytes) = (entry.encode)(world) {
                let bytes =
                    bytes.map_err(|source| RecordingError::Encode { name: entry.name.clone(), source })?;
                inputs.push((index as u32, bytes));
            }
        }
        self.frames.push(RecordedFrame { frame, inputs, hash: None });
        Ok(())
    }

    /// Records the world hash after frame `frame` ran (see [`RollbackRegistry::hash`]).
    ///
    /// # Panics
    /// If `frame` is not the last frame recorded by [`Recording::record_inputs`].
    #[track_caller]
    pub fn record_hash(&mut self, frame: u64, hash: u64) {
        let last = self.frames.last_mut().filter(|f| f.frame == frame);
        let last = last.unwrap_or_else(|| panic!("record the inputs of frame {frame} before its hash"));
        last.hash = Some(hash);
    }

    /// The hash recorded after frame `frame`, if any. O(log frames).
    pub fn hash_of(&self, frame: u64) -> Option<u64> {
        self.find(frame).and_then(|f| f.hash)
    }

    /// The recorded hashes as a [`HashLog`].
    pub fn hash_log(&self) -> HashLog {
        let mut log = HashLog::new();
        for f in &self.frames {
            if let Some(hash) = f.hash {
                log.push(f.frame, hash);
            }
        }
        log
    }

    fn find(&self, frame: u64) -> Option<&RecordedFrame> {
        self.frames.binary_search_by_key(&frame, |f| f.frame).ok().map(|i| &self.frames[i])
    }

    /// Puts frame `frame`'s inputs into `world`: each recorded input is inserted (replacing the
    /// world's), each input not recorded for the frame is removed. Every input is decoded before
    /// the world changes. O(inputs' size).
    ///
    /// # Errors
    /// [`RecordingError::NoSuchFrame`] if `frame` is not recorded; [`RecordingError::BadInput`]
    /// if an input does not decode as its type. The world is then unchanged.
    ///
    /// # Panics
    /// If `registry`'s inputs are not the ones this recording was made for.
    #[track_caller]
    pub fn apply_inputs(
        &self,
        registry: &RollbackRegistry,
        frame: u64,
        world: &mut World,
    ) -> Result<(), RecordingError> {
        assert!(
            registry.input_names().eq(self.inputs.iter().map(String::as_str)),
            "the registry's inputs are not the recording's"
        );
        let recorded = self.find(frame).ok_or(RecordingError::NoSuchFrame { frame })?;
        let mut decoded = Vec::with_capacity(recorded.inputs.len());
        for (index, bytes) in &recorded.inputs {
            let entry = &registry.inputs[*index as usize];
            let value = (entry.decode)(bytes).map_err(|source| RecordingError::BadInput {
                name: entry.name.clone(),
                frame,
                source,
            })?;
            decoded.push((*index as usize, value));
        }
        let mut present = vec![false; registry.inputs.len()];
        for (index, value) in decoded {
            present[index] = true;
            (registry.inputs[index].insert)(world, value);
        }
        for (entry, present) in registry.inputs.iter().zip(present) {
            if !present {
                (entry.remove)(world);
            }
        }
        Ok(())
    }

    /// Replays the recording on `world` (which must be in the state the recorded run started
    /// from): for each frame, puts its inputs in, calls `step`, and checks the world hash against
    /// the recorded one. Returns the replay's hash log.
    ///
    /// # Errors
    /// [`RecordingError::Diverged`] at the first frame whose hash differs (the world is left
    /// after that frame); [`RecordingError::BadInput`] as [`Recording::apply_inputs`].
    pub fn replay(
        &self,
        registry: &RollbackRegistry,
        world: &mut World,
        mut step: impl FnMut(&mut World),
    ) -> Result<HashLog, RecordingError> {
        let mut log = HashLog::new();
        for recorded in &self.frames {
            self.apply_inputs(registry, recorded.frame, world)?;
            step(world);
            let hash = registry.hash(world);
            log.push(recorded.frame, hash);
            if let Some(expected) = recorded.hash
                && expected != hash
            {
                return Err(RecordingError::Diverged {
                    frame: recorded.frame,
                    recorded: expected,
                    replayed: hash,
                });
            }
        }
        Ok(log)
    }

    /// The recording as bytes (postcard; see the type's docs). O(size).
    ///
    /// # Errors
    /// [`RecordingError::Encode`] if postcard fails (it does not for these types).
    pub fn to_bytes(&self) -> Result<Vec<u8>, RecordingError> {
        let file = RecordingFile {
            magic: MAGIC,
            version: RECORDING_VERSION,
            inputs: self.inputs.clone(),
            frames: self.frames.clone(),
        };
        postcard::to_allocvec(&file)
            .map_err(|source| RecordingError::Encode { name: "recording".into(), source })
    }

    /// Reads a recording written by [`Recording::to_bytes`], for `registry`'s inputs, checking
    /// its whole structure (the inputs' own bytes are decoded when applied). O(size).
    ///
    /// # Errors
    /// [`RecordingError::Decode`] for bytes that are not a recording (or have bytes left over);
    /// [`RecordingError::Version`] for another format version; [`RecordingError::UnknownInput`]
    /// for an input the registry does not name; [`RecordingError::Corrupt`] for frames out of
    /// order, an input index out of range or an input given twice in a frame.
    pub fn from_bytes(bytes: &[u8], registry: &RollbackRegistry) -> Result<Self, RecordingError> {
        let (file, rest) =
            postcard::take_from_bytes::<RecordingFile>(bytes).map_err(RecordingError::Decode)?;
        if file.magic != MAGIC {
            return Err(RecordingError::Decode(postcard::Error::DeserializeBadEncoding));
        }
        if file.version != RECORDING_VERSION {
            return Err(RecordingError::Version { found: file.version, expected: RECORDING_VERSION });
        }
        if !rest.is_empty() {
            return Err(RecordingError::Corrupt { what: format!("{} bytes after the end", rest.len()) });
        }
        let known: Vec<&str> = registry.input_names().collect();
        // Map the file's input order to the registry's (the file may list them in any order).
        let mut to_registry = Vec::with_capacity(file.inputs.len());
        for name in &file.inputs {
            let at = known
                .iter()
                .position(|k| k == name)
                .ok_or_else(|| RecordingError::UnknownInput { name: name.clone() })?;
            to_registry.push(at as u32);
        }
        let mut frames = file.frames;
        let mut last = None;
        for frame in &mut frames {
            if last.is_some_and(|l| frame.frame <= l) {
                return Err(RecordingError::Corrupt {
                    what: format!("frame {} follows frame {}", frame.frame, last.unwrap_or(0)),
                });
            }
            last = Some(frame.frame);
            let mut seen = vec![false; known.len()];
            for (index, _) in &mut frame.inputs {
                let mapped = *to_registry.get(*index as usize).ok_or_else(|| RecordingError::Corrupt {
                    what: format!("frame {} names input #{index} of {}", frame.frame, file.inputs.len()),
                })?;
                if std::mem::replace(&mut seen[mapped as usize], true) {
                    return Err(RecordingError::Corrupt {
                        what: format!("frame {} gives an input twice", frame.frame),
                    });
                }
                *index = mapped;
            }
            frame.inputs.sort_unstable_by_key(|&(index, _)| index);
        }
        Ok(Self { inputs: known.iter().map(|&s| s.to_owned()).collect(), frames })
    }
}
