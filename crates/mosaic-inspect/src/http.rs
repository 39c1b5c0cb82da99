//! One request on one connection: read it (request line, headers, body) within a deadline,
//! answer it through [`api`], and close. No keep-alive: each connection carries one
//! request, so an idle client never holds a worker.
//!
//! The head is parsed with `httparse`; the limits below are checked before anything is read
//! past them, and each refusal is a JSON error like the API's own ([`Reply::error`]).

use std::io::{ErrorKind, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::time::{Duration, Instant};

use crate::api::{self, Body, Reply};
use crate::error::ApiError;
use crate::guard;
use crate::inspector::Shared;

/// The largest request body read, in bytes, as given by `Content-Length`. Larger bodies get 413
/// without being read.
pub(crate) const MAX_BODY: usize = 1024;

/// The longest request target (path and query) answered, in bytes; longer ones get 414.
pub(crate) const MAX_URL: usize = 8 * 1024;

/// The most bytes of request line and headers read, in bytes (blank line included); a longer
/// head gets 431, or 414 if the request line alone does not fit.
pub(crate) const MAX_HEAD: usize = 16 * 1024;

/// The most header fields a request may have; more get 431.
pub(crate) const MAX_HEADERS: usize = 64;

/// The shortest request timeout used, whatever [`InspectorOptions::request_timeout`] says
/// (a zero timeout would refuse every request).
///
/// [`InspectorOptions::request_timeout`]: crate::InspectorOptions::request_timeout
pub(crate) const MIN_TIMEOUT: Duration = Duration::from_millis(10);

/// The longest time spent after a response reading (and discarding) what the client still
/// sends, so that closing does not reset the connection before the client reads the response
/// (a close with unread input sends a TCP reset, which can discard the response at the client).
/// Also at most the request timeout.
pub(crate) const LINGER: Duration = Duration::from_secs(1);

/// The most bytes read and discarded after a response, in bytes (see [`LINGER`]).
pub(crate) const MAX_DRAIN: usize = 256 * 1024;

/// Why no request was answered by the API.
#[derive(Debug)]
enum Failure {
    /// The connection ended or failed: nothing to answer.
    Closed,
    /// The deadline passed before the request was complete: 408.
    TimedOut,
    /// The request is refused with this error.
    Refused(ApiError),
}

/// Serves one request on `stream` and closes it: the whole request must arrive within
/// [`InspectorOptions::request_timeout`] (408 otherwise; a connection that sent nothing is
/// closed without an answer), the response must be taken within the same time from its first
/// byte (the rest is dropped otherwise), and then the input is drained for at most [`LINGER`].
/// Every request passes the limits of this module and [`guard::check`] (Host; for writes JSON,
/// origin and token) before [`api::handle`] sees it. Never panics on bad input.
///
/// Blocks for at most about twice the request timeout plus [`LINGER`], plus the time
/// [`api::handle`] takes (it waits for the frame loop).
///
/// [`InspectorOptions::request_timeout`]: crate::InspectorOptions::request_timeout
pub(crate) fn serve(stream: &TcpStream, shared: &Shared) {
    let timeout = shared.options.request_timeout.max(MIN_TIMEOUT);
    // Small writes (the head, a short body) go out at once.
    let _ = stream.set_nodelay(true);
    let mut head_only = false;
    let reply = match answer(stream, shared, Instant::now() + timeout, &mut head_only) {
        Ok(reply) => reply,
        Err(Failure::Closed) => return,
        Err(Failure::TimedOut) => Reply::error(&ApiError::Timeout(timeout.as_millis())),
        Err(Failure::Refused(error)) => Reply::error(&error),
    };
    if write_response(stream, &reply, head_only, Instant::now() + timeout).is_ok() {
        linger(stream, Instant::now() + timeout.min(LINGER));
    }
}

/// Refuses `stream` at once with `error`, without blocking: what is already in its receive
/// buffer is discarded (so the close is less likely to reset the connection), the response is
/// written only as far as the send buffer takes it, and the connection is closed. For the
/// accept thread, which must never wait on a client.
pub(crate) fn refuse_now(mut stream: &TcpStream, error: &ApiError) {
    if stream.set_nonblocking(true).is_err() {
        return;
    }
    let mut chunk = [0u8; 4096];
    for _ in 0..4 {
        if !matches!(stream.read(&mut chunk), Ok(n) if n > 0) {
            break;
        }
    }
    let reply = Reply::error(error);
    let body = match &reply.body {
        Body::Bytes(bytes) => bytes.as_slice(),
        Body::Json(_) => b"",
    };
    let _ = stream.write_all(&response_head(&reply)).and_then(|()| stream.write_all(body));
    let _ = stream.shutdown(Shutdown::Write);
}

/// Reads one request from `stream` before `deadline` and answers it. Sets `head_only` once the
/// request line shows a HEAD (its answer, a refusal too, is sent without a body).
///
/// # Errors
/// The [`Failure`] of reading or checking the request.
fn answer(
    stream: &TcpStream,
    shared: &Shared,
    deadline: Instant,
    head_only: &mut bool,
) -> Result<Reply, Failure> {
    let mut buf = Vec::with_capacity(2048);
    let head_len = read_head(stream, &mut buf, deadline)?;
    shared.touch();
    let mut slots = [httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut request = httparse::Request::new(&mut slots);
    // `read_head` parsed these very bytes to completion.
    if !matches!(request.parse(&buf[..head_len]), Ok(httparse::Status::Complete(_))) {
        return Err(Failure::Refused(ApiError::BadRequest("malformed request".to_owned())));
    }
    let (Some(method), Some(target)) = (request.method, request.path) else {
        return Err(Failure::Refused(ApiError::BadRequest("malformed request line".to_owned())));
    };
    *head_only = method == "HEAD";
    let mut pairs = Vec::with_capacity(request.headers.len());
    for header in request.headers.iter() {
        let value = std::str::from_utf8(header.value).map_err(|_| {
            Failure::Refused(ApiError::BadRequest(format!(
                "the value of header `{}` is not UTF-8",
                header.name
            )))
        })?;
        pairs.push((header.name, value.trim()));
    }
    let length = check_head(target, &pairs).map_err(Failure::Refused)?;
    let headers = guard::Headers::of(&pairs).map_err(Failure::Refused)?;
    guard::check(method, &headers, shared.addr, &shared.token).map_err(Failure::Refused)?;
    if let Some((_, expect)) = pairs.iter().rev().find(|(name, _)| name.eq_ignore_ascii_case("Expect")) {
        if !expect.eq_ignore_ascii_case("100-continue") {
            return Err(Failure::Refused(ApiError::ExpectationFailed(expect.chars().take(200).collect())));
        }
        // HTTP/1.0 clients do not wait for it (RFC 9110 section 10.1.1).
        if request.version == Some(1) && length > 0 && buf.len() == head_len {
            write_before(stream, b"HTTP/1.1 100 Continue\r\n\r\n", deadline).map_err(|_| Failure::Closed)?;
        }
    }
    let body = read_body(stream, &buf, head_len, length, deadline)?;
    // A HEAD is answered as the GET of the same target, without the body.
    Ok(api::handle(if *head_only { "GET" } else { method }, target, &body, shared))
}

/// Checks the request target and the body's framing, and returns the body's length in bytes.
///
/// # Errors
/// [`ApiError::UriTooLong`] for a target over [`MAX_URL`]; [`ApiError::LengthRequired`] with any
/// `Transfer-Encoding`; [`ApiError::BadRequest`] for a `Content-Length` that is not a number, or
/// several that differ; [`ApiError::TooLarge`] for one over [`MAX_BODY`].
fn check_head(target: &str, pairs: &[(&str, &str)]) -> Result<usize, ApiError> {
    if target.len() > MAX_URL {
        return Err(ApiError::UriTooLong(MAX_URL));
    }
    if pairs.iter().any(|(name, _)| name.eq_ignore_ascii_case("Transfer-Encoding")) {
        return Err(ApiError::LengthRequired(MAX_BODY));
    }
    let mut length: Option<u64> = None;
    let lengths = pairs.iter().filter(|(name, _)| name.eq_ignore_ascii_case("Content-Length"));
    for (_, value) in lengths {
        // A repeated header, or a list, is allowed when every value is the same number.
        for item in value.split(',').map(str::trim) {
            if item.is_empty() || !item.bytes().all(|b| b.is_ascii_digit()) {
                let shown: String = value.chars().take(40).collect();
                return Err(ApiError::BadRequest(format!("bad Content-Length `{shown}`")));
            }
            // All digits: only an overflow fails, and it is over the limit anyway.
            let n = item.parse::<u64>().unwrap_or(u64::MAX);
            if length.is_some_and(|seen| seen != n) {
                return Err(ApiError::BadRequest("Content-Length headers that differ".to_owned()));
            }
            length = Some(n);
        }
    }
    match length {
        Some(n) if n > MAX_BODY as u64 => Err(ApiError::TooLarge(MAX_BODY)),
        // At most MAX_BODY, so it fits.
        Some(n) => Ok(n as usize),
        None => Ok(0),
    }
}

/// Reads into `buf` until it holds a complete request head, and returns the head's length in
/// bytes (`buf` may hold the start of the body after it). Parses only after a read that brought
/// a line end, so a client sending a byte at a time costs O([`MAX_HEAD`]) parses at most.
///
/// # Errors
/// [`Failure::Closed`] if the connection ends, fails, or sends nothing before `deadline` (a
/// browser's spare connection is closed unanswered); [`Failure::TimedOut`] if the head is not
/// complete before `deadline`; [`Failure::Refused`] with 400 (malformed, or the connection ended
/// mid-head), 414 (a request line over [`MAX_HEAD`]), 431 (a head over [`MAX_HEAD`], or over
/// [`MAX_HEADERS`] fields) or 505 (another HTTP version).
fn read_head(stream: &TcpStream, buf: &mut Vec<u8>, deadline: Instant) -> Result<usize, Failure> {
    let mut chunk = [0u8; 4096];
    loop {
        let room = (MAX_HEAD - buf.len()).min(chunk.len());
        let n = match read_before(stream, &mut chunk[..room], deadline) {
            Err(Failure::TimedOut) if buf.is_empty() => return Err(Failure::Closed),
            other => other?,
        };
        if n == 0 {
            if buf.is_empty() {
                return Err(Failure::Closed);
            }
            let error = ApiError::BadRequest("the connection ended before the request's headers did".into());
            return Err(Failure::Refused(error));
        }
        buf.extend_from_slice(&chunk[..n]);
        if chunk[..n].contains(&b'\n') {
            let mut slots = [httparse::EMPTY_HEADER; MAX_HEADERS];
            match httparse::Request::new(&mut slots).parse(buf) {
                Ok(httparse::Status::Complete(len)) => return Ok(len),
                Ok(httparse::Status::Partial) => {}
                Err(error) => return Err(Failure::Refused(parse_error(error, buf))),
            }
        }
        if buf.len() >= MAX_HEAD {
            let line_ended = buf.iter().skip_while(|&&b| b == b'\r' || b == b'\n').any(|&b| b == b'\n');
            let error =
                if line_ended { ApiError::HeadersTooLarge(MAX_HEAD) } else { ApiError::UriTooLong(MAX_URL) };
            return Err(Failure::Refused(error));
        }
    }
}

/// The refusal for `httparse`'s `error` on the head in `buf`.
fn parse_error(error: httparse::Error, buf: &[u8]) -> ApiError {
    match error {
        httparse::Error::TooManyHeaders => ApiError::TooManyHeaders(MAX_HEADERS),
        httparse::Error::Version => {
            // `METHOD TARGET HTTP/x.y` with another version is 505; anything else is malformed.
            let start = buf.iter().position(|&b| b != b'\r' && b != b'\n').unwrap_or(0);
            let line = buf[start..].split(|&b| b == b'\n').next().unwrap_or(&[]);
            let line = String::from_utf8_lossy(line);
            let parts: Vec<&str> = line.trim_end().split(' ').collect();
            match parts.as_slice() {
                [_, _, version] if version.starts_with("HTTP/") => {
                    ApiError::VersionNotSupported(version.chars().take(20).collect())
                }
                _ => ApiError::BadRequest("malformed request line: no HTTP version".to_owned()),
            }
        }
        other => ApiError::BadRequest(format!("malformed request: {other}")),
    }
}

/// The body of `length` bytes: what `buf` holds after the head (`head_len` bytes), then the rest
/// read from `stream` before `deadline`. Bytes past the body (a pipelined request) are ignored.
///
/// # Errors
/// [`Failure::TimedOut`] if the body is not complete before `deadline`; [`Failure::Refused`]
/// with 400 if the connection ends first; [`Failure::Closed`] if it fails.
fn read_body(
    stream: &TcpStream,
    buf: &[u8],
    head_len: usize,
    length: usize,
    deadline: Instant,
) -> Result<Vec<u8>, Failure> {
    let mut body = buf[head_len..].to_vec();
    body.truncate(length);
    let mut chunk = [0u8; MAX_BODY];
    while body.len() < length {
        let want = (length - body.len()).min(chunk.len());
        let n = read_before(stream, &mut chunk[..want], deadline)?;
        if n == 0 {
            let error =
                ApiError::BadRequest(format!("the body ended after {} of {length} bytes", body.len()));
            return Err(Failure::Refused(error));
        }
        body.extend_from_slice(&chunk[..n]);
    }
    Ok(body)
}

/// One read from `stream` into `into` that waits no later than `deadline`: the read timeout is
/// set to the time left before each try. Returns the bytes read (0: the connection ended).
///
/// # Errors
/// [`Failure::TimedOut`] once `deadline` passes; [`Failure::Closed`] if the read fails.
fn read_before(mut stream: &TcpStream, into: &mut [u8], deadline: Instant) -> Result<usize, Failure> {
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(Failure::TimedOut);
        }
        stream.set_read_timeout(Some(left)).map_err(|_| Failure::Closed)?;
        match stream.read(into) {
            Ok(n) => return Ok(n),
            // A timeout: the loop checks the deadline again.
            Err(error) if matches!(error.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {}
            Err(error) if error.kind() == ErrorKind::Interrupted => {}
            Err(_) => return Err(Failure::Closed),
        }
    }
}

/// Writes all of `bytes` to `stream` before `deadline`: the write timeout is set to the time
/// left before each write.
///
/// # Errors
/// [`ErrorKind::TimedOut`] once `deadline` passes with bytes unwritten; the write's own error if
/// it fails (the client went away).
fn write_before(mut stream: &TcpStream, mut bytes: &[u8], deadline: Instant) -> std::io::Result<()> {
    while !bytes.is_empty() {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(ErrorKind::TimedOut.into());
        }
        stream.set_write_timeout(Some(left))?;
        match stream.write(bytes) {
            Ok(0) => return Err(ErrorKind::WriteZero.into()),
            Ok(n) => bytes = &bytes[n..],
            Err(error)
                if matches!(
                    error.kind(),
                    ErrorKind::WouldBlock | ErrorKind::TimedOut | ErrorKind::Interrupted
                ) => {}
            Err(error) => return Err(error),
        }
    }
    Ok(())
}

/// Writes `reply` (its head, and its body unless `head_only`) before `deadline`.
///
/// # Errors
/// As [`write_before`]: the response is given up at `deadline`.
fn write_response(
    stream: &TcpStream,
    reply: &Reply,
    head_only: bool,
    deadline: Instant,
) -> std::io::Result<()> {
    write_before(stream, &response_head(reply), deadline)?;
    if head_only {
        return Ok(());
    }
    match &reply.body {
        Body::Bytes(bytes) => write_before(stream, bytes, deadline),
        Body::Json(value) => {
            let mut out = std::io::BufWriter::with_capacity(STREAM_BUFFER, Before { stream, deadline });
            serde_json::to_writer(&mut out, value).map_err(std::io::Error::other)?;
            out.flush()
        }
    }
}

/// The buffer a streamed body ([`Body::Json`]) is written through, in bytes.
const STREAM_BUFFER: usize = 64 * 1024;

/// A connection written to before a deadline ([`write_before`]).
struct Before<'s> {
    stream: &'s TcpStream,
    deadline: Instant,
}

impl Write for Before<'_> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        write_before(self.stream, bytes, self.deadline)?;
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The status line and headers of `reply`: Content-Type, Content-Length (of a body in memory,
/// also for HEAD; a streamed body has none and ends with the connection),
/// `X-Content-Type-Options: nosniff` and `Connection: close`.
fn response_head(reply: &Reply) -> Vec<u8> {
    let length = match &reply.body {
        Body::Bytes(bytes) => format!("Content-Length: {}\r\n", bytes.len()),
        // Streamed: the close ends the body (RFC 9112 section 6.3).
        Body::Json(_) => String::new(),
    };
    format!(
        "HTTP/1.1 {} {}\r\nContent-Type: {}\r\n{length}X-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n",
        reply.status,
        reason(reply.status),
        reply.content_type,
    )
    .into_bytes()
}

/// The reason phrase of `status` (RFC 9110 section 15); empty for codes not used here.
fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        202 => "Accepted",
        400 => "Bad Request",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        411 => "Length Required",
        413 => "Content Too Large",
        414 => "URI Too Long",
        415 => "Unsupported Media Type",
        417 => "Expectation Failed",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        505 => "HTTP Version Not Supported",
        _ => "",
    }
}

/// Ends the response (a FIN after its last byte), then reads and discards what the client still
/// sends until it closes, [`MAX_DRAIN`] bytes or `deadline`: the lingering close of RFC 9112
/// section 9.6, so that the close does not reset the connection before the client has read the
/// response.
fn linger(stream: &TcpStream, deadline: Instant) {
    let _ = stream.shutdown(Shutdown::Write);
    let (mut chunk, mut drained) = ([0u8; 4096], 0);
    while drained < MAX_DRAIN {
        match read_before(stream, &mut chunk, deadline) {
            Ok(n) if n > 0 => drained += n,
            _ => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::TcpListener;

    #[test]
    fn content_length_is_a_number_within_the_limit() {
        let cl = |value| check_head("/", &[("Content-Length", value)]);
        assert_eq!(cl("0"), Ok(0));
        assert_eq!(cl(" 17 "), Ok(17));
        assert_eq!(cl("5, 5"), Ok(5));
        assert_eq!(cl("1024"), Ok(1024));
        for bad in ["", "-1", "+5", "1e3", "5, 6", "0x10", "1 2"] {
            assert_eq!(cl(bad).unwrap_err().status(), 400, "{bad:?}");
        }
        assert_eq!(cl("1025").unwrap_err().status(), 413);
        assert_eq!(cl("99999999999999999999999999").unwrap_err().status(), 413);
        let twice = [("Content-Length", "3"), ("content-length", "4")];
        assert_eq!(check_head("/", &twice).unwrap_err().status(), 400);
        assert_eq!(check_head("/", &[("Transfer-Encoding", "chunked")]).unwrap_err().status(), 411);
        assert_eq!(check_head(&"a".repeat(MAX_URL + 1), &[]).unwrap_err().status(), 414);
        assert_eq!(check_head(&"a".repeat(MAX_URL), &[]), Ok(0));
    }

    #[test]
    fn other_versions_are_505_and_garbage_is_400() {
        let status = |head: &[u8]| {
            let mut slots = [httparse::EMPTY_HEADER; MAX_HEADERS];
            let error = httparse::Request::new(&mut slots).parse(head).unwrap_err();
            parse_error(error, head).status()
        };
        assert_eq!(status(b"GET / HTTP/2.0\r\n\r\n"), 505);
        assert_eq!(status(b"GET / HTTP/1.2\r\n\r\n"), 505);
        assert_eq!(status(b"GET / FOO\r\n\r\n"), 400);
        assert_eq!(status(b"\x00\x01garbage\r\n\r\n"), 400);
        assert_eq!(status(b"GET / HTTP/1.1\r\nbad header\r\n\r\n"), 400);
    }

    #[test]
    fn response_heads_carry_length_type_nosniff_and_close() {
        let reply =
            Reply { status: 404, content_type: "application/json", body: Body::Bytes(b"{}".to_vec()) };
        let head = String::from_utf8(response_head(&reply)).unwrap();
        assert_eq!(
            head,
            "HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\
             X-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n"
        );
    }

    /// A client that stops reading a response larger than the socket buffers holds the writer
    /// only until the deadline.
    #[test]
    fn a_response_nobody_reads_is_given_up_at_the_deadline() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let client = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let (server, _) = listener.accept().unwrap();
        let reply =
            Reply { status: 200, content_type: "text/plain", body: Body::Bytes(vec![b'x'; 64 << 20]) };
        let start = Instant::now();
        let result = write_response(&server, &reply, false, start + Duration::from_millis(200));
        let elapsed = start.elapsed();
        assert_eq!(result.unwrap_err().kind(), ErrorKind::TimedOut);
        assert!(elapsed >= Duration::from_millis(190), "{elapsed:?}");
        assert!(elapsed < Duration::from_secs(3), "{elapsed:?}");
        drop(client);
    }
}
