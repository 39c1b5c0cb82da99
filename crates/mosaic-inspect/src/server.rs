//! The server thread: reads requests, answers them through [`api`](crate::api).

use std::io::Read;

use crate::api::{self, Reply};
use crate::guard;
use crate::inspector::Shared;

/// The largest request body read, in bytes.
pub(crate) const MAX_BODY: usize = 64 * 1024;

/// The longest request target (path and query) answered, in bytes; longer ones get 414.
pub(crate) const MAX_URL: usize = 8 * 1024;

/// Serves until the server is unblocked (the inspector dropped). One request at a time: a slow
/// client delays other clients, never the frame loop. Every request passes
/// [`guard::check`](crate::guard) first (Host; for writes JSON, origin and token).
pub(crate) fn serve(server: &tiny_http::Server, shared: &Shared) {
    for mut request in server.incoming_requests() {
        shared.touch();
        let method = request.method().as_str().to_owned();
        let url = request.url().to_owned();
        let mut body = Vec::new();
        let read = request.as_reader().take(MAX_BODY as u64 + 1).read_to_end(&mut body);
        let refused = if url.len() > MAX_URL {
            Err(crate::error::ApiError::UriTooLong(MAX_URL))
        } else {
            guard::check(&method, &guard::Headers::of(&request), shared.addr, &shared.token)
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
        // The client may have gone away; nothing to do about it.
        let _ = request.respond(response);
    }
}
