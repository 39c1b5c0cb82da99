//! A browser inspector for a running Mosaic world.
//!
//! [`Inspector::start`] serves, on background threads, a JSON API and a web page (embedded in
//! the binary: no network needed) on a loopback address. The frame loop calls
//! [`Inspector::publish`] at a point it chooses; reads are answered there, from the live world,
//! within a share of the frame loop's time ([`InspectorOptions::view_budget_percent`]): no copy
//! of the world is kept, the server threads never touch the world while systems run, and a slow
//! client never stalls a frame.
//!
//! Routes (all answer JSON; errors are 4xx, or 503 when the frame loop does not publish within
//! 3 s, with `{"error": ..., "status": ...}`):
//! - `GET /api/world`: entity count, registered component types with their pool sizes, resources;
//! - `GET /api/entities?page=N&page_size=N&with=a,b&search=text`: entities by index, a page at a
//!   time (`page_size` at most [`InspectorOptions::max_page_size`]), those with every component
//!   in `with`;
//! - `GET /api/entities/{index}v{generation}`: one entity's registered components as JSON, its
//!   parent and children;
//! - `GET /api/hierarchy`: the entities in a hierarchy, as nodes with parent and children, and
//!   the roots;
//! - `GET /api/schedule`: systems in run order, their batches, per-system median and max run
//!   time (with [`Schedule::enable_profiling`](mosaic::Schedule::enable_profiling));
//! - `GET /api/events`: the world's event channels ([`World::event_channels`](mosaic::World::event_channels)):
//!   type name, backlog (events held), events sent, readers, buffer capacity;
//! - `GET /api/map?component=C&x=X&y=Y&color=K`: every entity with component `C` as a point
//!   (fields `X`, `Y` of its value), coloured by the value of `K`, as parallel arrays;
//! - `GET /api/frames`: the frame times given to `publish`, oldest first.
//!
//! Time travel, once the game hands the inspector a rollback ring ([`Inspector::keep_frames`]; it
//! then saves every frame run while a client watches, see [`InspectorOptions::watch_window`], if
//! the full ring fits in [`InspectorOptions::record_budget`], else while a client records):
//! - `GET /api/frames/saved`: the frames held (oldest first), the live world's frame, the ring's
//!   capacity, whether frames are being recorded, and what the full ring would take;
//! - `POST /api/frames/record?on=true|false` (the token, not writes): records every frame run
//!   even past the record budget, or stops;
//! - `GET /api/frames/{F}/world`, `GET /api/frames/{F}/entities?...`,
//!   `GET /api/frames/{F}/entities/{id}` and `GET /api/frames/{F}/map?...`: as the routes above,
//!   as of saved frame `F`;
//! - `GET /api/diff?a=F1&b=F2`: what differs from frame `F1` to `F2`: entities spawned and
//!   despawned, per component the entities that gained, lost or changed it (with both values),
//!   resources changed, and the first difference [`RollbackRing::compare`](mosaic::rollback::RollbackRing::compare) finds;
//! - `POST /api/rewind?frame=F` (writes on): restores the live world to frame `F` and pauses.
//!
//! A frame not held (never saved, overwritten, or after the frame rewound to) is a 404. Reads of
//! saved frames are answered on the server's threads, not at the publish point, and never under
//! the lock the frame loop saves through: they share the frames they need out of the ring
//! ([`RollbackRing::saved_frame`](mosaic::rollback::RollbackRing::saved_frame), O(1)) and
//! rebuild or compare them with it released, one at a time, within the same budget as reads of
//! the live world, so polling them does not stall the game.
//!
//! Writes are refused (403) unless [`InspectorOptions::allow_writes`] is set; then
//! `POST /api/entities/{id}/components/{name}` (the value as JSON), `DELETE /api/entities/{id}`,
//! `POST /api/pause`, `/api/resume` and `/api/step?frames=N` are queued (202) and applied by the
//! frame loop at its next `publish` (pause and step through [`Inspector::should_run`]).
//!
//! Run-time components (`mosaic::dynamic`) need no registration here: the entity view shows each
//! as `{dotted field path: value}` read through its schema, and a write to one takes the same
//! shape (the fields named are written over the present value, each checked against the
//! schema: its path, its type, its range).
//!
//! Every request must name this server in its `Host` header (`127.0.0.1:PORT`, `localhost:PORT`
//! or another IP literal with the port; 403 otherwise, against DNS rebinding), and if it has an
//! `Origin`, the server's own (403). A read of the API (`GET /api/...`) is refused (403) when its
//! `Sec-Fetch-Site` says another site sent it (`cross-site`, or `same-site`: another port of
//! localhost), so a web page's no-cors requests cannot make the server work for it; the page's
//! own reads (`same-origin`), a typed URL (`none`) and clients that are not browsers (no header)
//! pass. A write (any method but GET and HEAD) must also have
//! `Content-Type: application/json` (415) and the token of [`Inspector::token`] in an
//! `X-Mosaic-Token` header (403). [`Inspector::url`] carries the token (`?token=...`); the page
//! reads it from there and sends it with its writes.
//!
//! # Server
//!
//! The server is [hyper](https://hyper.rs)'s HTTP/1.1 server (1.x, with `hyper-util`'s tokio
//! glue, as `bevy_remote` serves) on a small tokio runtime: one thread runs every connection as
//! a task, and answers run on blocking threads (they wait for the frame loop, or rebuild a saved
//! frame). The runtime sits on a thread of its own, so this crate's API stays synchronous. A
//! well-kept HTTP stack rather than one of our own: a connection that is idle or slow costs a
//! task and its buffers, not a thread, so slow clients cannot take the server's threads from
//! everyone else (the thread-per-connection server this replaced, 8 workers and 64 connections,
//! made a normal client wait 4.8 s behind 8 connections sending a byte a second, 12 s behind
//! 16, and refused it with 503 behind 64; now 1,000 such connections leave its answers at a few
//! milliseconds), and hyper's parser, timers and limits are the field's, tested far beyond ours.
//!
//! # Limits
//!
//! What is bounded, by what, and what a client sees when it hits the bound. Every refusal is
//! JSON, `{"error": "...", "status": N}` with the response's status, also where hyper's parser
//! refuses the request (the server answers in its place), and every response says
//! `Connection: close`.
//!
//! | bounded | bound | past it |
//! |---|---|---|
//! | connections open at once | [`InspectorOptions::max_connections`] (4,096) | 503 at once, closed |
//! | requests per connection | 1 (no keep-alive) | closed after the response |
//! | time to send the request head | [`InspectorOptions::request_timeout`] (5 s), hyper's `header_read_timeout` | 408 (a connection that sent nothing: closed unanswered) |
//! | time to send the whole request, body included | the same, from the connection's start | 408 |
//! | a connection's whole life, response and close included | twice the request timeout + 3 s + 1 s | cut off |
//! | request line and headers | 16 KiB and 64 fields | 431, or 414 if the request line alone is over |
//! | request target (path and query) | 8 KiB | 414 |
//! | request body | 1 KiB, by `Content-Length` (read only if within) | 413 unread; `Transfer-Encoding` 411 |
//! | HTTP version | 1.0 and 1.1 | 505; a malformed request 400 |
//! | reads waiting for the frame loop | 64, each at most 3 s | 503 |
//! | time answering reads, live and saved frames together | [`InspectorOptions::view_budget_percent`] (10%) | the next answers wait (at most 3 s, then 503) |
//! | saved-frame rebuilds and diffs at once | 1, off the frame loop's lock | wait for their turn (at most 3 s, then 503) |
//! | answers being serialized at once | 64 threads; 8 streamed (the map) | wait for a thread, holding none |
//! | a page of entities | [`InspectorOptions::max_page_size`] (500) | 400 |
//! | writes queued for the next publish | 1,024 | 400 |
//!
//! `HEAD` gets the headers of `GET`. A streamed answer (the map) is sent chunked (close-delimited
//! to HTTP/1.0 clients), serialized while it is sent, so no whole JSON text is held in memory.
//! Dropping the [`Inspector`] closes every connection and ends the server's thread in bounded
//! time.
// No unsafe code here. (Tests derive `Component`, whose expansion allows unsafe code in its own
// items, which `forbid` would reject; `deny` still rejects any written here.)
#![cfg_attr(not(test), forbid(unsafe_code))]
#![cfg_attr(test, deny(unsafe_code))]
#![warn(missing_docs)]

mod api;
mod assets;
mod body;
mod budget;
mod dynamic;
mod error;
mod guard;
mod http;
mod inspector;
mod live;
mod map;
mod pick;
mod server;
mod socket;
mod travel;
mod view;

pub use error::InspectError;
pub use inspector::{
    Inspector, InspectorOptions, MAX_CONNECTIONS, RECORD_BUDGET, REQUEST_TIMEOUT, VIEW_BUDGET_PERCENT,
    WATCH_WINDOW,
};
