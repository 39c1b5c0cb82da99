//! The server thread: reads requests, answers them through [`api`](crate::api).

use std::io::Read;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::api::{self, Reply};
use crate::guard;
use crate::inspector::Shared;

/// The largest request body read, in bytes: the size tiny_http reads on the connection's own
/// thread before the request reaches this one, so a client that sends part of a body holds up
/// only its own connection. Larger, chunked or `Expect: 100-continue` bodies get 413 unread.
pub(crate) const MAX_BODY: usize = 1024;

/// The longest request target (path and query) answered, in bytes; longer ones get 414.
pub(crate) const MAX_URL: usize = 8 * 1024;

/// A response with its body in memory.
type Response = tiny_http::Response<std::io::Cursor<Vec<u8>>>;

/// The most requests refused with their body unread that are being finished at once (see
/// [`finish_unread`]).
const MAX_FINISHING: usize = 32;

/// Requests being finished by [`finish_unread`] threads now.
static FINISHING: AtomicUsize = AtomicUsize::new(0);

/// Sends `response` to a request whose body was left unread, off the server thread: tiny_http
/// reads the rest of such a body when the request is dropped, which waits as long as the client
/// makes it. At most [`MAX_FINISHING`] such threads run; past that (or if no thread can be
/// started) the request is leaked unanswered, holding only its own connection.
fn finish_unread(request: tiny_http::Request, response: Response) {
    if FINISHING.fetch_add(1, Ordering::AcqRel) >= MAX_FINISHING {
        FINISHING.fetch_sub(1, Ordering::AcqRel);
        std::mem::forget(request);
        return;
    }
    // The request goes over a channel, so that if no thread can be started it is still here to
    // be leaked instead of dropped (a drop would read the body on this thread).
    let (tx, rx) = std::sync::mpsc::sync_channel::<(tiny_http::Request, Response)>(1);
    let spawned = std::thread::Builder::new().name("mosaic-inspect-finish".into()).spawn(move || {
        if let Ok((request, response)) = rx.recv() {
            let _ = request.respond(response);
        }
        FINISHING.fetch_sub(1, Ordering::AcqRel);
    });
    if spawned.is_err() {
        FINISHING.fetch_sub(1, Ordering::AcqRel);
        std::mem::forget(request);
    } else if let Err(std::sync::mpsc::SendError(unsent)) = tx.send((request, response)) {
        std::mem::forget(unsent);
    }
}

/// Serves until the server is unblocked (the inspector dropped). One request at a time: a slow
/// client delays other clients, never the frame loop. Every request passes
/// [`guard::check`](crate::guard) first (Host; for writes JSON, origin and token).
pub(crate) fn serve(server: &tiny_http::Server, shared: &Shared) {
    for mut request in server.incoming_requests() {
        shared.touch();
        let method = request.method().as_str().to_owned();
        let url = request.url().to_owned();
        let headers = guard::Headers::of(&request);
        let unread = headers.streamed_body || request.body_length().is_some_and(|n| n > MAX_BODY);
        let refused = if unread {
            // Reading it here could wait on the client forever; refuse it unread.
            Err(crate::error::ApiError::TooLarge(MAX_BODY))
        } else if url.len() > MAX_URL {
            Err(crate::error::ApiError::UriTooLong(MAX_URL))
        } else {
            guard::check(&method, &headers, shared.addr, &shared.token)
        };
        let mut body = Vec::new();
        // Only a body tiny_http has already read (at most `MAX_BODY` bytes) is read, so this
        // returns at once.
        let read = if refused.is_ok() {
            request.as_reader().take(MAX_BODY as u64 + 1).read_to_end(&mut body)
        } else {
            Ok(0)
        };
        let reply = match (refused, read) {
            (Err(error), _) => Reply::error(&error),
            (Ok(()), Err(error)) => {
                Reply::error(&crate::error::ApiError::BadRequest(format!("cannot read the body: {error}")))
            }
            (Ok(()), Ok(_)) if body.len() > MAX_BODY => {
                Reply::error(&crate::error::ApiError::TooLarge(MAX_BODY))
            }
            (Ok(()), Ok(_)) => api::handle(&method, &url, &body, shared),
        };
        let header = tiny_http::Header::from_bytes(&b"Content-Type"[..], reply.content_type.as_bytes())
            .expect("content types are ASCII");
        let nosniff = tiny_http::Header::from_bytes(&b"X-Content-Type-Options"[..], &b"nosniff"[..])
            .expect("ASCII header");
        let response = tiny_http::Response::from_data(reply.body)
            .with_status_code(reply.status)
            .with_header(header)
            .with_header(nosniff);
        if unread {
            finish_unread(request, response);
            continue;
        }
        // The client may have gone away; nothing to do about it.
        let _ = request.respond(response);
    }
}
