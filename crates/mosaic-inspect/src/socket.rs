//! The connection as hyper sees it: a TCP stream shared with the code around hyper ([`http`]),
//! which notes what it reads (whether anything came, and how the request line ends) and keeps
//! back hyper's own error responses, so that every refusal, those of hyper's parser too, is
//! answered in the API's JSON form with the status the inspector has always given
//! ([`http::refusal`]).
//!
//! [`http`]: crate::http
//! [`http::refusal`]: crate::http

use std::io::ErrorKind;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, ready};

use hyper::rt::{Read, ReadBufCursor, Write};
use tokio::net::TcpStream;

use crate::inspector::lock;

/// The most bytes read from the socket in one go, in bytes (a stack buffer).
const READ_CHUNK: usize = 8 * 1024;

/// The end of the request line kept, in bytes: enough for ` HTTP/x.y\r`.
const LINE_TAIL: usize = 16;

/// What a connection's reads and the service have seen, shared between the socket (read by
/// hyper) and the code that serves the connection.
#[derive(Debug, Default)]
pub(crate) struct Watch {
    /// A byte came from the client.
    read_any: AtomicBool,
    /// hyper has handed a request to the service: from then on what hyper writes is the
    /// service's response (or hyper's `100 Continue`) and goes out.
    answering: AtomicBool,
    line: Mutex<RequestLine>,
}

impl Watch {
    /// Whether a byte came from the client.
    pub(crate) fn read_any(&self) -> bool {
        self.read_any.load(Ordering::Acquire)
    }

    /// Whether the service has a request to answer.
    pub(crate) fn answering(&self) -> bool {
        self.answering.load(Ordering::Acquire)
    }

    /// Notes that the service has a request: what hyper writes from now on goes out.
    pub(crate) fn answer(&self) {
        self.answering.store(true, Ordering::Release);
    }

    /// Whether the request line ended (a line feed came after its first byte).
    pub(crate) fn line_ended(&self) -> bool {
        lock(&self.line).ended
    }

    /// The request line's last word if it ended and that word is `HTTP/...` (at most
    /// [`LINE_TAIL`] bytes of it).
    pub(crate) fn version(&self) -> Option<String> {
        lock(&self.line).version()
    }

    fn saw(&self, bytes: &[u8]) {
        if bytes.is_empty() {
            return;
        }
        self.read_any.store(true, Ordering::Release);
        let mut line = lock(&self.line);
        if !line.ended {
            line.push(bytes);
        }
    }
}

/// The end of a request line as it arrives, in constant memory.
#[derive(Debug, Default)]
struct RequestLine {
    /// A byte other than CR and LF came (blank lines before a request are skipped, RFC 9112
    /// section 2.2).
    started: bool,
    /// The line feed that ends the line came.
    ended: bool,
    /// The last [`LINE_TAIL`] bytes of the line (`tail[..len]`).
    tail: [u8; LINE_TAIL],
    len: usize,
}

impl RequestLine {
    /// Takes `bytes` that came next. O(bytes).
    fn push(&mut self, bytes: &[u8]) {
        for &b in bytes {
            if !self.started && (b == b'\r' || b == b'\n') {
                continue;
            }
            self.started = true;
            if b == b'\n' {
                self.ended = true;
                return;
            }
            if self.len == LINE_TAIL {
                self.tail.copy_within(1.., 0);
                self.len -= 1;
            }
            self.tail[self.len] = b;
            self.len += 1;
        }
    }

    fn version(&self) -> Option<String> {
        if !self.ended {
            return None;
        }
        let line = self.tail[..self.len].strip_suffix(b"\r").unwrap_or(&self.tail[..self.len]);
        let word = line.rsplit(|&b| b == b' ').next()?;
        word.starts_with(b"HTTP/").then(|| String::from_utf8_lossy(word).into_owned())
    }
}

/// A TCP stream shared with the code serving the connection, watched ([`Watch`]). Reads go
/// through (and are noted); writes go through once the service answers, and before that (an
/// automatic response of hyper's to a request it could not parse) are dropped, since the
/// server sends its own refusal in their place. Flush and shutdown do nothing: writes are not
/// buffered here, and the server ends the connection itself (a lingering close).
pub(crate) struct Socket {
    stream: Arc<TcpStream>,
    watch: Arc<Watch>,
}

impl Socket {
    /// `stream`, watched by `watch`.
    pub(crate) fn new(stream: Arc<TcpStream>, watch: Arc<Watch>) -> Self {
        Self { stream, watch }
    }
}

impl Read for Socket {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        mut buf: ReadBufCursor<'_>,
    ) -> Poll<std::io::Result<()>> {
        let mut chunk = [0u8; READ_CHUNK];
        let room = buf.remaining().min(READ_CHUNK);
        loop {
            ready!(self.stream.poll_read_ready(cx))?;
            match self.stream.try_read(&mut chunk[..room]) {
                Ok(n) => {
                    self.watch.saw(&chunk[..n]);
                    buf.put_slice(&chunk[..n]);
                    return Poll::Ready(Ok(()));
                }
                // Readiness was stale: poll again (it registers the waker).
                Err(error) if error.kind() == ErrorKind::WouldBlock => {}
                Err(error) => return Poll::Ready(Err(error)),
            }
        }
    }
}

impl Write for Socket {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, bytes: &[u8]) -> Poll<std::io::Result<usize>> {
        if !self.watch.answering() {
            // hyper's own response to a request it refused: the server sends the JSON one.
            return Poll::Ready(Ok(bytes.len()));
        }
        loop {
            ready!(self.stream.poll_write_ready(cx))?;
            match self.stream.try_write(bytes) {
                Ok(n) => return Poll::Ready(Ok(n)),
                Err(error) if error.kind() == ErrorKind::WouldBlock => {}
                Err(error) => return Poll::Ready(Err(error)),
            }
        }
    }

    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(parts: &[&[u8]]) -> RequestLine {
        let mut line = RequestLine::default();
        for part in parts {
            line.push(part);
        }
        line
    }

    #[test]
    fn the_request_lines_version_is_its_last_word_once_it_ends() {
        assert_eq!(line(&[b"GET / HTTP/2.0\r\n"]).version().as_deref(), Some("HTTP/2.0"));
        assert_eq!(
            line(&[b"\r\n\r\nGET /a", b"aaaaaaaaaaaaaaaaaaaaaaa HTT", b"P/1.2\r", b"\nHost"])
                .version()
                .as_deref(),
            Some("HTTP/1.2")
        );
        assert_eq!(line(&[b"GET /api\r\n"]).version(), None);
        assert_eq!(line(&[b"GET / HTTP/2.0"]).version(), None, "not ended");
        assert!(!line(&[b"GET /", b"aaaa"]).ended);
        assert!(line(&[b"\x00\x01garbage\r\n\r\n"]).ended);
        assert_eq!(line(&[b"\x00\x01garbage\r\n\r\n"]).version(), None);
    }
}
