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
//! A frame not held (never saved, overwritten, or after the frame rewound to) is a 404.
//!
//! Writes are refused (403) unless [`InspectorOptions::allow_writes`] is set; then
//! `POST /api/entities/{id}/components/{name}` (the value as JSON), `DELETE /api/entities/{id}`,
//! `POST /api/pause`, `/api/resume` and `/api/step?frames=N` are queued (202) and applied by the
//! frame loop at its next `publish` (pause and step through [`Inspector::should_run`]).
//!
//! Every request must name this server in its `Host` header (`127.0.0.1:PORT`, `localhost:PORT`
//! or another IP literal with the port; 403 otherwise, against DNS rebinding). A write (any
//! method but GET and HEAD) must also have `Content-Type: application/json` (415), no `Origin`
//! but the server's own (403), and the token of [`Inspector::token`] in an `X-Mosaic-Token`
//! header (403). [`Inspector::url`] carries the token (`?token=...`); the page reads it from
//! there and sends it with its writes.
//!
//! The server is a small HTTP/1.1 server on `std::net` with `httparse`, bounded in threads, time
//! and bytes: an accept thread (which pauses on an accept error and goes on) hands connections
//! to 8 worker threads through a bounded queue; at most 64 connections are open at once (more
//! get 503 and are closed). Each connection carries one request and is closed after it
//! (`Connection: close`): the whole request must arrive within
//! [`InspectorOptions::request_timeout`] (5 s by default; 408 otherwise) and the response be
//! taken within the same time. Request line and headers over 16 KiB or over 64 fields get 431, a
//! target over 8 KiB 414, a body over 1 KiB (by `Content-Length`, unread) 413, a
//! `Transfer-Encoding` body 411, a malformed request 400, an HTTP version but 1.0 and 1.1 505;
//! `HEAD` gets the headers of `GET`. Dropping the [`Inspector`] closes every connection and
//! joins the threads in bounded time.
// No unsafe code here. (Tests derive `Component`, whose expansion allows unsafe code in its own
// items, which `forbid` would reject; `deny` still rejects any written here.)
#![cfg_attr(not(test), forbid(unsafe_code))]
#![cfg_attr(test, deny(unsafe_code))]
#![warn(missing_docs)]

mod api;
mod assets;
mod body;
mod budget;
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
