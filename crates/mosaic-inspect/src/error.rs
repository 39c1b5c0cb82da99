//! Errors of the inspector.

use std::net::SocketAddr;

/// Why [`Inspector::start`](crate::Inspector::start) failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum InspectError {
    /// The server could not listen on the address.
    #[error("cannot listen on {addr}: {source}; is the port taken? pass port 0 for any free port")]
    Bind {
        /// The address asked for.
        addr: SocketAddr,
        /// What the operating system said.
        source: Box<dyn std::error::Error + Send + Sync + 'static>,
    },
    /// The address is not a loopback address and the options did not allow others.
    #[error(
        "{0} is not a loopback address; the inspector shows (and with writes on, changes) the whole \
         world, so set `InspectorOptions::allow_remote` to serve on it anyway"
    )]
    NotLoopback(SocketAddr),
    /// The server thread could not be started.
    #[error("cannot start the inspector's server thread: {0}")]
    Thread(#[from] std::io::Error),
    /// The operating system gave no random bytes for the write token.
    #[error("cannot make the inspector's write token: the operating system's random source failed: {0}")]
    Random(String),
}

/// Why a request was refused: answered with a 4xx status and a JSON body
/// `{"error": "...", "status": N}`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum ApiError {
    #[error("no route {0}; see GET /api for the list")]
    NotFound(String),
    #[error("method {method} is not allowed on {path}")]
    MethodNotAllowed { method: String, path: String },
    #[error("bad request: {0}")]
    BadRequest(String),
    #[error("no live entity {0} in the last published view")]
    NoSuchEntity(String),
    #[error("no component is registered under the name `{0}`")]
    NoSuchComponent(String),
    #[error("writes are off; start the inspector with `InspectorOptions::allow_writes` to change the world")]
    WritesOff,
    #[error("the request body is over {0} bytes")]
    TooLarge(usize),
    #[error("the request's path and query are over {0} bytes")]
    UriTooLong(usize),
    #[error("no entity {id} was alive at frame {frame}")]
    NoSuchEntityAt { id: String, frame: u64 },
    #[error(
        "Host `{0}` is not this inspector's address; use http://127.0.0.1:PORT/ or http://localhost:PORT/ (other host names are refused against DNS rebinding)"
    )]
    HostNotAllowed(String),
    #[error("a write needs `Content-Type: application/json`, not `{0}`")]
    NotJson(String),
    #[error("a write from origin `{0}` is refused; writes come only from the inspector's own page")]
    CrossOrigin(String),
    #[error(
        "a write needs the inspector's token in the `X-Mosaic-Token` header; open the URL the game printed (it ends in `?token=...`)"
    )]
    BadToken,
    #[error("no frames are kept; the game calls `Inspector::keep_frames` with a rollback ring to keep them")]
    NoFrames,
    #[error("frame {frame} is not held (held: {held}); GET /api/frames/saved lists them")]
    NoSuchFrame { frame: u64, held: String },
}

impl ApiError {
    /// The HTTP status code of the error.
    pub(crate) fn status(&self) -> u16 {
        match self {
            Self::NotFound(_)
            | Self::NoSuchEntity(_)
            | Self::NoSuchComponent(_)
            | Self::NoSuchEntityAt { .. }
            | Self::NoFrames
            | Self::NoSuchFrame { .. } => 404,
            Self::MethodNotAllowed { .. } => 405,
            Self::BadRequest(_) => 400,
            Self::WritesOff | Self::HostNotAllowed(_) | Self::CrossOrigin(_) | Self::BadToken => 403,
            Self::NotJson(_) => 415,
            Self::TooLarge(_) => 413,
            Self::UriTooLong(_) => 414,
        }
    }
}
