//! [`ScriptError`]: why a script could not be loaded or one of its systems failed.

use std::fmt;

use mosaic::dynamic::DynamicError;

/// Where in the script something went wrong: a line and a column, both from 1, as Rhai's
/// `Position` gives them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Place {
    /// The line, from 1.
    pub line: usize,
    /// The column, from 1.
    pub column: usize,
}

impl Place {
    /// The place of Rhai position `position`, or `None` when it has none.
    pub fn of(position: rhai::Position) -> Option<Self> {
        Some(Self { line: position.line()?, column: position.position().unwrap_or(1) })
    }
}

impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}, column {}", self.line, self.column)
    }
}

/// Writes `, line L, column C` when there is a place.
struct At(Option<Place>);

impl fmt::Display for At {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(place) => write!(f, " {place}"),
            None => Ok(()),
        }
    }
}

/// Why a script could not be loaded, or why one of its systems stopped. Every message names the
/// script file and, where the script is at fault, the line (and column) in it.
#[derive(Debug, thiserror::Error)]
pub enum ScriptError {
    /// The file could not be read (missing, unreadable, over [`crate::MAX_SCRIPT_BYTES`], not
    /// UTF-8).
    #[error("script `{file}`: {reason}")]
    Read {
        /// The script file.
        file: String,
        /// What went wrong.
        reason: String,
    },
    /// Rhai could not parse the script.
    #[error("script `{file}`{at}: syntax error: {message}", at = At(*place))]
    Syntax {
        /// The script file.
        file: String,
        /// Where.
        place: Option<Place>,
        /// Rhai's message.
        message: String,
    },
    /// A declaration at the script's top level (`component`, `system`) was refused, or the
    /// top level failed to run.
    #[error("script `{file}`{at}: {message}", at = At(*place))]
    Load {
        /// The script file.
        file: String,
        /// Where.
        place: Option<Place>,
        /// What was wrong, naming the component, field or system.
        message: String,
    },
    /// A system failed on a row: a runtime error of the script, an unknown field, a value of the
    /// wrong type or out of its field's range, or too many operations.
    #[error("script `{file}`{at}: system `{system}` on entity {entity}: {message}", at = At(*place))]
    Run {
        /// The script file.
        file: String,
        /// Where.
        place: Option<Place>,
        /// The system.
        system: String,
        /// The row's entity index.
        entity: u32,
        /// What was wrong.
        message: String,
    },
    /// The world refused an operation a system asked for (`add`, `remove`) or a query.
    #[error("script `{file}`: system `{system}`: {source}")]
    World {
        /// The script file.
        file: String,
        /// The system.
        system: String,
        /// The world's error (boxed: it is large and rare).
        source: Box<DynamicError>,
    },
}

impl ScriptError {
    /// The line in the script the error is at, if it has one.
    pub fn line(&self) -> Option<usize> {
        match self {
            Self::Syntax { place, .. } | Self::Load { place, .. } | Self::Run { place, .. } => {
                place.map(|p| p.line)
            }
            Self::Read { .. } | Self::World { .. } => None,
        }
    }
}

/// The innermost position and the message of a Rhai runtime error: an error inside a function
/// called from another is reported where it happened, not at the outer call.
pub(crate) fn unwrap_eval(error: &rhai::EvalAltResult) -> (Option<Place>, String) {
    use rhai::EvalAltResult as E;
    match error {
        E::ErrorInFunctionCall(_, _, inner, _) => unwrap_eval(inner),
        E::ErrorRuntime(value, position) => {
            (Place::of(*position), value.clone().into_string().unwrap_or_else(|_| value.to_string()))
        }
        other => {
            let position = other.position();
            let mut message = other.to_string();
            // Rhai appends " (line L, position C)"; the place is said separately.
            if let Some(cut) = message.rfind(" (line ") {
                message.truncate(cut);
            }
            (Place::of(position), message)
        }
    }
}
