//! Response bodies: bytes in memory, or a JSON answer written while it is sent (the map of
//! every entity: no whole JSON text is held in memory), serialized on a blocking thread into a
//! small channel that the connection drains.

use std::io::{BufWriter, ErrorKind, Write};
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use http_body::Frame;
use http_body_util::BodyExt;
use http_body_util::combinators::BoxBody;
use tokio::sync::{OwnedSemaphorePermit, mpsc};

/// A response body as the connection sends it.
pub(crate) type ResponseBody = BoxBody<Bytes, std::io::Error>;

/// The buffer a streamed answer is written through, in bytes: each chunk sent is this size
/// (the last one smaller).
pub(crate) const STREAM_CHUNK: usize = 64 * 1024;

/// Chunks written ahead of the connection, in chunks: a streamed answer holds at most
/// `(STREAM_AHEAD + 2) * STREAM_CHUNK` bytes at once.
const STREAM_AHEAD: usize = 2;

/// The most answers streamed at once ([`json`]): each holds a blocking thread while its client
/// reads it (for as long as the connection lasts, at most); more wait for a turn, holding no
/// thread.
pub(crate) const MAX_STREAMS: usize = 8;

/// `bytes` as a body. O(1): the vector is not copied.
pub(crate) fn bytes(bytes: Vec<u8>) -> ResponseBody {
    http_body_util::Full::new(Bytes::from(bytes)).map_err(|never| match never {}).boxed()
}

/// `value` as JSON, written while it is sent: serialized on a blocking thread (holding
/// `permit`, one of [`MAX_STREAMS`], until it ends) into a channel of [`STREAM_AHEAD`] chunks
/// of [`STREAM_CHUNK`] bytes. If the connection goes away the serializer stops at its next
/// chunk; if serializing fails the body ends with an error, so the client sees a cut
/// response, never a short one that looks whole. Must be called within the server's runtime.
pub(crate) fn json(
    value: Box<dyn erased_serde::Serialize + Send>,
    permit: OwnedSemaphorePermit,
) -> ResponseBody {
    let (tx, rx) = mpsc::channel(STREAM_AHEAD);
    tokio::task::spawn_blocking(move || {
        let _permit = permit;
        let mut out = BufWriter::with_capacity(STREAM_CHUNK, Chunks(tx.clone()));
        let written =
            serde_json::to_writer(&mut out, &value).map_err(std::io::Error::other).and_then(|()| out.flush());
        if let Err(error) = written {
            // The connection may be gone already: then nobody reads this.
            let _ = tx.blocking_send(Err(error));
        }
    });
    Stream { rx }.boxed()
}

/// The writer end of a streamed answer: each write is one chunk sent.
struct Chunks(mpsc::Sender<std::io::Result<Bytes>>);

impl Write for Chunks {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0
            .blocking_send(Ok(Bytes::copy_from_slice(bytes)))
            .map_err(|_| std::io::Error::from(ErrorKind::BrokenPipe))?;
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The reader end of a streamed answer: a body of the chunks as they come.
struct Stream {
    rx: mpsc::Receiver<std::io::Result<Bytes>>,
}

impl http_body::Body for Stream {
    type Data = Bytes;
    type Error = std::io::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, std::io::Error>>> {
        self.rx.poll_recv(cx).map(|chunk| chunk.map(|chunk| chunk.map(Frame::data)))
    }
}
