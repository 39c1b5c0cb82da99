//! Why a rollback operation failed. Every error leaves the world as it was.

/// Why a frame could not be saved, restored or compared.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RollbackError {
    /// The frame asked for is not in the ring: never saved, or overwritten by a newer frame.
    #[error(
        "frame {frame} is not in the rollback ring (it holds {}); save frames at most `capacity` apart, \
         or make the ring larger",
        match (.oldest, .newest) { (Some(o), Some(n)) => format!("frames {o} to {n}"), _ => "no frame".to_owned() }
    )]
    FrameNotSaved {
        /// The frame asked for.
        frame: u64,
        /// The oldest frame held, if any.
        oldest: Option<u64>,
        /// The newest frame held, if any.
        newest: Option<u64>,
    },
    /// The frame was saved from another world (another world tag or other entity limits).
    #[error(
        "the frame was saved from another world (world tag {saved}, this world's is {world}); restore a \
         frame into the world it was saved from"
    )]
    ForeignWorld {
        /// The saved world's tag.
        saved: u8,
        /// This world's tag.
        world: u8,
    },
    /// The world holds components of a type the registry does not name, which a restore could not
    /// put back consistently.
    #[error(
        "component `{type_name}` has rows in the world but rollback cannot save or hash it; declare it with \
         `world.register::<{short}>().plain()` (plain data, `NoUninit`) or `world.register::<{short}>().hash()` \
         (`Clone + Hash`), or with `#[register(plain)]` / `#[register(hash)]` on its derive (a hand-built \
         `RollbackRegistry`: `register` or `register_clone`), or remove it before saving or restoring",
        short = crate::types::short_name(type_name)
    )]
    UnregisteredComponent {
        /// The unregistered type.
        type_name: &'static str,
    },
    /// An observer was added or removed since the frame was saved: observers are code, which a
    /// frame cannot carry, so the world's observers must be the ones it had then.
    #[error(
        "the world has {now} observers and the frame was saved with {saved} (or other ones); add observers before the first save and despawn none while frames that hold them are kept"
    )]
    ObserversChanged {
        /// Observers the saved frame had.
        saved: usize,
        /// Observers the world has now.
        now: usize,
    },
    /// The world's owning groups are not the ones of the world the frame was saved from.
    #[error(
        "the world has {world} owning group(s) but the frame was saved with {saved}, or they own other \
         components; create the same groups before saving and restoring"
    )]
    GroupsDiffer {
        /// Groups in the saved frame.
        saved: usize,
        /// Groups in the world.
        world: usize,
    },
}

/// Why a recording could not be written, read or replayed.
#[derive(Debug, thiserror::Error)]
pub enum RecordingError {
    /// The bytes are not a recording (truncated, corrupted, or another format).
    #[error("the recording is corrupt: {0}; it was not written by `Recording::to_bytes`, or was damaged")]
    Decode(#[source] postcard::Error),
    /// Encoding an input failed.
    #[error("input `{name}` could not be encoded: {source}")]
    Encode {
        /// The input's name.
        name: String,
        /// What postcard said.
        source: postcard::Error,
    },
    /// The recording's format version is not the one this build reads.
    #[error("the recording has format version {found}, this build reads version {expected}")]
    Version {
        /// The version found.
        found: u32,
        /// The version read.
        expected: u32,
    },
    /// The recording names an input the registry does not have.
    #[error(
        "the recording has input `{name}`, which the registry does not name; register it with `register_input`"
    )]
    UnknownInput {
        /// The input's name.
        name: String,
    },
    /// The recording's structure is inconsistent (frames out of order, an input index out of
    /// range, an input given twice in a frame).
    #[error("the recording is corrupt: {what}")]
    Corrupt {
        /// What is wrong.
        what: String,
    },
    /// An input's bytes do not decode as its type.
    #[error("input `{name}` of frame {frame} does not decode: {source}")]
    BadInput {
        /// The input's name.
        name: String,
        /// The frame.
        frame: u64,
        /// What postcard said.
        source: postcard::Error,
    },
    /// Frames must be recorded in increasing order.
    #[error("frame {frame} was recorded after frame {last}; record frames in increasing order")]
    FrameOrder {
        /// The frame being recorded.
        frame: u64,
        /// The last frame recorded.
        last: u64,
    },
    /// The recording has no entry for the frame.
    #[error("the recording has no frame {frame}")]
    NoSuchFrame {
        /// The frame asked for.
        frame: u64,
    },
    /// Replaying gave another world hash than the recorded one.
    #[error("replay diverged at frame {frame}: recorded hash {recorded:016x}, replayed {replayed:016x}")]
    Diverged {
        /// The first frame whose hash differs.
        frame: u64,
        /// The recorded hash.
        recorded: u64,
        /// The replayed hash.
        replayed: u64,
    },
}

/// Why a hash log could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HashLogError {
    /// A line is not `FRAME HASH` (decimal frame, 16 hex digits).
    #[error("hash log line {line} is not `FRAME HASH` (a decimal frame and 16 hex digits): `{text}`")]
    Line {
        /// The line number, from 1.
        line: usize,
        /// The line.
        text: String,
    },
    /// Frames must increase from line to line.
    #[error("hash log line {line}: frame {frame} does not follow frame {previous}; frames must increase")]
    Order {
        /// The line number, from 1.
        line: usize,
        /// The frame on the line.
        frame: u64,
        /// The frame before it.
        previous: u64,
    },
}
