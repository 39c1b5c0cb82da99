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
    /// One of the server's threads (the accept thread or a worker) could not be started.
    #[error("cannot start the inspector's server threads: {0}")]
    Thread(#[from] std::io::Error),
    /// The operating system gave no random bytes for the write token.
    #[error("cannot make the inspector's write token: the operating system's random source failed: {0}")]
    Random(String),
}

/// Why a request was refused: answered with a 4xx (or 503, 505) status and a JSON body
/// `{"error": "...", "status": N}`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum ApiError {
    #[error("no route {0}; see GET /api for the list")]
    NotFound(String),
    #[error("method {method} is not allowed on {path}")]
    MethodNotAllowed { method: String, path: String },
    #[error("bad request: {0}")]
    BadRequest(String),
    #[error("no live entity {0} in the world")]
    NoSuchEntity(String),
    #[error("no component is registered under the name `{0}`")]
    NoSuchComponent(String),
    #[error("writes are off; to change the world, {0}")]
    WritesOff(&'static str),
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
    /// The request line and headers together are over the limit in bytes, or have more fields
    /// than the limit (431).
    #[error("the request line and headers are over {bytes} bytes, or over {fields} header fields")]
    HeadersTooLarge { bytes: usize, fields: usize },
    /// The whole request did not arrive within the request timeout, in milliseconds (408).
    #[error("the whole request must arrive within {0} ms; this one did not")]
    Timeout(u128),
    /// As many connections as the limit are open (503).
    #[error("the inspector already has its limit of {0} connections open; try again in a moment")]
    Busy(usize),
    /// A body framed by `Transfer-Encoding` (chunked) rather than `Content-Length`, with the
    /// body limit in bytes (411).
    #[error(
        "a body sent with Transfer-Encoding is not read; send it with Content-Length (at most {0} bytes)"
    )]
    LengthRequired(usize),
    /// An `Expect` header other than `100-continue`, with its value (417).
    #[error("`Expect: {0}` is not supported; only `100-continue` is")]
    ExpectationFailed(String),
    /// An HTTP version other than 1.0 and 1.1, as written in the request line (505).
    #[error("HTTP version `{0}` is not served; use HTTP/1.1 or HTTP/1.0")]
    VersionNotSupported(String),
    /// The frame loop did not answer a read within the wait (503): it is not calling
    /// `Inspector::publish`, or it stopped.
    #[error(
        "the game did not reach its publish point within {0:?}; it is paused in a debugger, stopped, or not calling `Inspector::publish`"
    )]
    NoPublish(std::time::Duration),
    /// A read of the live world panicked on the frame loop (a component's `Serialize` impl), or
    /// the inspector stopped with it queued (500).
    #[error(
        "the read failed on the game's frame loop (a value's Serialize panicked; see the game's log) or the inspector stopped"
    )]
    ReadFailed,
    /// An answer that could not be written as JSON (a value's `Serialize` refused, e.g. a map
    /// with keys that are not strings): the inspector's failure, not the request's (500).
    #[error("the answer could not be written as JSON: {0}")]
    NotSerializable(String),
    /// A read of saved frames found no turn within the read budget in the wait, in time (503).
    #[error(
        "reads of saved frames take turns within the inspector's share of time (`view_budget_percent`); none came free within {0:?}; try again in a moment"
    )]
    ReadBudget(std::time::Duration),
    /// A read sent by a page of another site (`Sec-Fetch-Site`), with the header's value (403).
    #[error(
        "a read from another site (`Sec-Fetch-Site: {0}`) is refused; reads come only from the inspector's own page or a client that is not a browser page"
    )]
    CrossSiteRead(String),
    /// As many reads as the limit already wait for the frame loop (503).
    #[error("{0} reads already wait for the game's next publish point; try again in a moment")]
    ReadsQueued(usize),
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
            Self::WritesOff(_)
            | Self::HostNotAllowed(_)
            | Self::CrossOrigin(_)
            | Self::CrossSiteRead(_)
            | Self::BadToken => 403,
            Self::NotJson(_) => 415,
            Self::TooLarge(_) => 413,
            Self::UriTooLong(_) => 414,
            Self::HeadersTooLarge { .. } => 431,
            Self::Timeout(_) => 408,
            Self::Busy(_) | Self::NoPublish(_) | Self::ReadsQueued(_) | Self::ReadBudget(_) => 503,
            Self::ReadFailed | Self::NotSerializable(_) => 500,
            Self::LengthRequired(_) => 411,
            Self::ExpectationFailed(_) => 417,
            Self::VersionNotSupported(_) => 505,
        }
    }
}
