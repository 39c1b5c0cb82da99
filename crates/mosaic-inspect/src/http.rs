//! One connection, served by hyper's HTTP/1.1 server ([`hyper::server::conn::http1`]): one
//! request, answered through [`api`], then a lingering close. hyper reads and parses the request
//! head within the limits below; the service checks what hyper leaves to it (the target's
//! length, the body's framing and size, [`guard::check`]), reads the body, and runs
//! [`api::handle`] on a blocking thread (it may wait for the frame loop, or rebuild a saved
//! frame), so the runtime's thread only ever moves bytes.
//!
//! Every refusal is a JSON error like the API's own ([`Reply::error`]), hyper's too: the
//! connection's socket ([`Socket`]) keeps back hyper's bare automatic responses, and once hyper
//! gives up on a request [`refusal`] answers in their place with the status the inspector has
//! always given (431, 414, 505, 400, and 408 for a head not complete in time).
//!
//! The limits, per connection: the whole request within [`InspectorOptions::request_timeout`]
//! (hyper's `header_read_timeout` for the head, a deadline for the body); a head of at most
//! [`MAX_HEAD`] bytes and [`MAX_HEADERS`] fields; a target of at most [`MAX_URL`] bytes; a
//! body of at most [`MAX_BODY`] bytes, announced by `Content-Length`; one request per
//! connection (no keep-alive); and the whole connection, answer and close included, within
//! [`connection_life`].
//!
//! [`InspectorOptions::request_timeout`]: crate::InspectorOptions::request_timeout

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Limited};
use hyper::body::Incoming;
use hyper::header::{CONNECTION, CONTENT_LENGTH, CONTENT_TYPE, HeaderValue, X_CONTENT_TYPE_OPTIONS};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioTimer;
use tokio::net::TcpStream;
use tokio::time::Instant;

use crate::api::{self, Body, Reply};
use crate::body::{self, ResponseBody};
use crate::error::ApiError;
use crate::guard;
use crate::inspector::Shared;
use crate::live::READ_WAIT;
use crate::socket::{Socket, Watch};

/// The largest request body read, in bytes, as given by `Content-Length`. Larger bodies get 413
/// without being read.
pub(crate) const MAX_BODY: usize = 1024;

/// The longest request target (path and query) answered, in bytes; longer ones get 414.
pub(crate) const MAX_URL: usize = 8 * 1024;

/// The most bytes of request line and headers read, in bytes (hyper's `max_header_size`, and
/// its read buffer); a longer head gets 431, or 414 if the request line alone does not fit.
pub(crate) const MAX_HEAD: usize = 16 * 1024;

// hyper panics on a `max_buf_size` under 8 KiB.
const _: () = assert!(MAX_HEAD >= 8 * 1024, "hyper's read buffer takes at least 8 KiB");

/// The most header fields a request may have (hyper's `max_headers`); more get 431.
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

/// How long one connection may last in all, for a request timeout `timeout`: the request
/// (`timeout`), the answer (up to [`READ_WAIT`] for the frame loop), the response's transfer
/// (`timeout` again) and the lingering close ([`LINGER`]). Past it the connection is dropped,
/// whatever it was doing.
pub(crate) fn connection_life(timeout: Duration) -> Duration {
    timeout * 2 + READ_WAIT + LINGER
}

/// Serves `stream` (one request) and closes it, within [`connection_life`]. Never panics on bad
/// input; a connection that sent nothing is closed unanswered.
pub(crate) async fn serve(stream: TcpStream, shared: Arc<Shared>) {
    let timeout = shared.options.request_timeout.max(MIN_TIMEOUT);
    // Small writes (the head, a short body) go out at once.
    let _ = stream.set_nodelay(true);
    let stream = Arc::new(stream);
    let watch = Arc::new(Watch::default());
    let deadline = Instant::now() + timeout;
    let service = {
        let watch = Arc::clone(&watch);
        hyper::service::service_fn(move |request| {
            let (shared, watch) = (Arc::clone(&shared), Arc::clone(&watch));
            async move { Ok::<_, Infallible>(respond(request, shared, &watch, deadline).await) }
        })
    };
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(timeout)
        .keep_alive(false)
        .half_close(true)
        .max_headers(MAX_HEADERS)
        .max_header_size(MAX_HEAD)
        .max_buf_size(MAX_HEAD);
    let connection = builder.serve_connection(Socket::new(Arc::clone(&stream), Arc::clone(&watch)), service);
    let life = Instant::now() + connection_life(timeout);
    match tokio::time::timeout_at(life, connection).await {
        Ok(Err(error)) if !watch.answering() && watch.read_any() => {
            if let Some(refused) = refusal(&error, &watch, timeout) {
                let _ = tokio::time::timeout_at(life, write_all(&stream, &refusal_bytes(&refused))).await;
            }
        }
        Ok(_) => {}
        // Out of time: dropped as it stands.
        Err(_) => return,
    }
    let linger = (Instant::now() + timeout.min(LINGER)).min(life);
    let _ = tokio::time::timeout_at(linger, drain(&stream)).await;
}

/// The refusal for a request hyper gave up on with `error` before the service saw it, from what
/// the socket saw (`watch`); `None` when there is nothing to answer (the connection failed).
fn refusal(error: &hyper::Error, watch: &Watch, timeout: Duration) -> Option<ApiError> {
    if error.is_timeout() {
        return Some(ApiError::Timeout(timeout.as_millis()));
    }
    if error.is_incomplete_message() {
        return Some(ApiError::BadRequest("the connection ended before the request's headers did".into()));
    }
    if error.is_parse_too_large() {
        return Some(if watch.line_ended() {
            ApiError::HeadersTooLarge { bytes: MAX_HEAD, fields: MAX_HEADERS }
        } else {
            ApiError::UriTooLong(MAX_URL)
        });
    }
    if error.is_parse() || error.is_parse_version_h2() {
        // `METHOD TARGET HTTP/x.y` with another version is 505; anything else is malformed.
        return Some(match watch.version() {
            Some(version) if version != "HTTP/1.0" && version != "HTTP/1.1" => {
                ApiError::VersionNotSupported(version)
            }
            _ => ApiError::BadRequest(format!("malformed request: {error}")),
        });
    }
    None
}

/// The bytes of a whole response refusing with `error` (for [`refusal`]s, which hyper does not
/// send): status line, the headers every response has, and the JSON body.
pub(crate) fn refusal_bytes(error: &ApiError) -> Vec<u8> {
    let reply = Reply::error(error);
    let body = match reply.body {
        Body::Bytes(bytes) => bytes,
        Body::Json(_) => Vec::new(),
    };
    let status = StatusCode::from_u16(reply.status).unwrap_or(StatusCode::BAD_REQUEST);
    let mut bytes = format!(
        "HTTP/1.1 {} {}\r\nContent-Type: {}\r\nContent-Length: {}\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n",
        status.as_u16(),
        status.canonical_reason().unwrap_or(""),
        reply.content_type,
        body.len(),
    )
    .into_bytes();
    bytes.extend_from_slice(&body);
    bytes
}

/// Writes all of `bytes` to `stream`.
///
/// # Errors
/// The write's error if it fails (the client went away).
async fn write_all(stream: &TcpStream, mut bytes: &[u8]) -> std::io::Result<()> {
    while !bytes.is_empty() {
        stream.writable().await?;
        match stream.try_write(bytes) {
            Ok(0) => return Err(std::io::ErrorKind::WriteZero.into()),
            Ok(n) => bytes = &bytes[n..],
            Err(error) if error.kind() == std::io::ErrorKind::WouldBlock => {}
            Err(error) => return Err(error),
        }
    }
    Ok(())
}

/// Ends the response (a FIN after its last byte), then reads and discards what the client still
/// sends until it closes or [`MAX_DRAIN`] bytes came (the caller bounds the time): the lingering
/// close of RFC 9112 section 9.6, so that the close does not reset the connection before the
/// client has read the response.
async fn drain(stream: &TcpStream) {
    let _ = socket2::SockRef::from(stream).shutdown(std::net::Shutdown::Write);
    let (mut chunk, mut drained) = ([0u8; 4096], 0);
    while drained < MAX_DRAIN {
        if stream.readable().await.is_err() {
            return;
        }
        match stream.try_read(&mut chunk) {
            Ok(0) => return,
            Ok(n) => drained += n,
            Err(error) if error.kind() == std::io::ErrorKind::WouldBlock => {}
            Err(_) => return,
        }
    }
}

/// The service: answers `request` (a HEAD as the GET of the same target, without the body,
/// which hyper leaves out) with the headers every response has.
async fn respond(
    request: Request<Incoming>,
    shared: Arc<Shared>,
    watch: &Watch,
    deadline: Instant,
) -> Response<ResponseBody> {
    watch.answer();
    shared.touch();
    let reply = answer(request, &shared, deadline).await.unwrap_or_else(|error| Reply::error(&error));
    let length = match &reply.body {
        Body::Bytes(bytes) => Some(bytes.len()),
        Body::Json(_) => None,
    };
    let mut response = Response::new(match reply.body {
        Body::Bytes(bytes) => body::bytes(bytes),
        Body::Json(value) => match Arc::clone(&shared.streams).acquire_owned().await {
            Ok(permit) => body::json(value, permit),
            // The semaphore is never closed; answer as if the stream had failed.
            Err(_) => return Response::new(body::bytes(Vec::new())),
        },
    });
    *response.status_mut() = StatusCode::from_u16(reply.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let headers = response.headers_mut();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static(reply.content_type));
    headers.insert(X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(CONNECTION, HeaderValue::from_static("close"));
    if let Some(length) = length {
        headers.insert(CONTENT_LENGTH, HeaderValue::from(length));
    }
    response
}

/// Checks `request` (what hyper leaves to the server), reads its body before `deadline`, and
/// answers it through [`api::handle`] on a blocking thread.
///
/// # Errors
/// The refusal of [`check_head`], [`guard::Headers::of`] and [`guard::check`];
/// [`ApiError::BadRequest`] for a header value that is not UTF-8 or a body cut short;
/// [`ApiError::ExpectationFailed`] for an `Expect` other than `100-continue`;
/// [`ApiError::Timeout`] if the body is not complete before `deadline`;
/// [`ApiError::ReadFailed`] if answering panicked.
async fn answer(
    request: Request<Incoming>,
    shared: &Arc<Shared>,
    deadline: Instant,
) -> Result<Reply, ApiError> {
    let method = if request.method() == Method::HEAD { "GET" } else { request.method().as_str() }.to_owned();
    let target =
        request.uri().path_and_query().map_or_else(|| request.uri().to_string(), |p| p.as_str().to_owned());
    let mut pairs = Vec::with_capacity(request.headers().len());
    for (name, value) in request.headers() {
        let value = std::str::from_utf8(value.as_bytes())
            .map_err(|_| ApiError::BadRequest(format!("the value of header `{name}` is not UTF-8")))?;
        pairs.push((name.as_str(), value.trim()));
    }
    let length = check_head(&target, &pairs)?;
    let headers = guard::Headers::of(&pairs)?;
    let path = target.split_once('?').map_or(target.as_str(), |(path, _)| path);
    guard::check(request.method().as_str(), path, &headers, shared.addr, &shared.token)?;
    if let Some((_, expect)) = pairs.iter().rev().find(|(name, _)| name.eq_ignore_ascii_case("Expect"))
        && !expect.eq_ignore_ascii_case("100-continue")
    {
        return Err(ApiError::ExpectationFailed(expect.chars().take(200).collect()));
    }
    drop(pairs);
    // hyper sends `100 Continue` when the body is first read, if the client asked for it.
    let body = if length == 0 {
        Bytes::new()
    } else {
        let read = Limited::new(request.into_body(), MAX_BODY).collect();
        match tokio::time::timeout_at(deadline, read).await {
            Ok(Ok(collected)) => collected.to_bytes(),
            Ok(Err(error)) => {
                return Err(ApiError::BadRequest(format!(
                    "the body ended before its {length} bytes: {error}"
                )));
            }
            Err(_) => {
                let timeout = shared.options.request_timeout.max(MIN_TIMEOUT);
                return Err(ApiError::Timeout(timeout.as_millis()));
            }
        }
    };
    let shared = Arc::clone(shared);
    tokio::task::spawn_blocking(move || api::handle(&method, &target, &body, &shared))
        .await
        .map_err(|_| ApiError::ReadFailed)
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

#[cfg(test)]
mod tests {
    use super::*;

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
    fn refusals_carry_length_type_nosniff_close_and_json() {
        let bytes = refusal_bytes(&ApiError::VersionNotSupported("HTTP/2.0".into()));
        let text = String::from_utf8(bytes).unwrap();
        let (head, body) = text.split_once("\r\n\r\n").unwrap();
        assert!(head.starts_with("HTTP/1.1 505 HTTP Version Not Supported\r\n"), "{head}");
        for line in ["Content-Type: application/json", "X-Content-Type-Options: nosniff", "Connection: close"]
        {
            assert!(head.contains(line), "{head}");
        }
        assert!(head.contains(&format!("Content-Length: {}", body.len())), "{head}");
        let body: serde_json::Value = serde_json::from_str(body).unwrap();
        assert_eq!(body["status"], 505);
    }
}
