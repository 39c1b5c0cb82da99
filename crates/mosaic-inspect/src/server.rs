//! The server: a small tokio runtime (one thread for all connections, [`BLOCKING_THREADS`] at
//! most for answers) on a thread of its own, so the library stays synchronous for its callers.
//! An accept loop that never stops on an error hands each connection to a task of its own
//! ([`http::serve`]).
//!
//! Bounds: at most [`InspectorOptions::max_connections`] connections are open at once; the
//! accept loop refuses the others at once with 503 and closes them, without waiting on them. An
//! open connection that sends nothing, or sends slowly, costs a task and its buffers (about
//! 17 KiB, measured), never a thread: a thousand of them do not slow anyone else. Each connection is
//! ended within its life ([`http::connection_life`]). A task that panics ends its connection
//! only.
//!
//! [`InspectorOptions::max_connections`]: crate::InspectorOptions::max_connections

use std::net::TcpListener;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use tokio::sync::{Semaphore, oneshot};

use crate::http;
use crate::inspector::Shared;

/// The most threads answering requests at once ([`api::handle`](crate::api::handle), which may
/// wait up to 3 s for the frame loop, and the streamed answers of [`body`](crate::body)); more
/// answers wait for a thread, holding none. Threads are started as needed and end when idle.
pub(crate) const BLOCKING_THREADS: usize = 64;

/// The first pause of the accept loop after an accept error (out of file descriptors or memory,
/// a connection aborted before it was accepted); it doubles while errors repeat, up to
/// [`ACCEPT_BACKOFF_MAX`], and resets after a success.
pub(crate) const ACCEPT_BACKOFF_MIN: Duration = Duration::from_millis(10);

/// The longest pause of the accept loop after repeated accept errors.
pub(crate) const ACCEPT_BACKOFF_MAX: Duration = Duration::from_millis(500);

/// How long stopping the server waits for its thread to end before leaving it to end on its own
/// (an answer may still be waiting for the frame loop on a blocking thread).
pub(crate) const SHUTDOWN_WAIT: Duration = Duration::from_secs(2);

/// How long the runtime, once the accept loop ended, waits for answers still running on its
/// blocking threads before it lets them finish on their own.
const RUNTIME_SHUTDOWN: Duration = Duration::from_millis(500);

/// The listen backlog, in connections: how many connections the system completes and queues
/// for the accept loop before it drops new ones (a client then retries after a second). The
/// standard library's 128 overflowed when a thousand clients connected at once on a loaded
/// machine; the system caps this at `net.core.somaxconn` (4,096 by default on Linux).
pub(crate) const BACKLOG: i32 = 1024;

/// A listener on `addr` with a backlog of [`BACKLOG`] (and `SO_REUSEADDR` where the standard
/// library sets it, so a restarted game gets its port back at once).
///
/// # Errors
/// The operating system's error if the socket cannot be made, bound or listened on.
pub(crate) fn listen(addr: std::net::SocketAddr) -> std::io::Result<TcpListener> {
    let socket = socket2::Socket::new(socket2::Domain::for_address(addr), socket2::Type::STREAM, None)?;
    #[cfg(unix)]
    socket.set_reuse_address(true)?;
    socket.bind(&addr.into())?;
    socket.listen(BACKLOG)?;
    Ok(socket.into())
}

/// The running server: its thread, and the signal that stops it. Dropping it stops it (see
/// [`Server::stop`]).
pub(crate) struct Server {
    stop: Option<oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl Server {
    /// Starts serving `listener` on a thread of its own, answering through `shared`.
    ///
    /// # Errors
    /// The operating system's error if the runtime, the listener's registration with it, or the
    /// thread cannot be made.
    pub(crate) fn start(listener: TcpListener, shared: &Arc<Shared>) -> std::io::Result<Self> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_io()
            .enable_time()
            .max_blocking_threads(BLOCKING_THREADS)
            .thread_name("mosaic-inspect-answer")
            .build()?;
        listener.set_nonblocking(true)?;
        let listener = {
            let _context = runtime.enter();
            tokio::net::TcpListener::from_std(listener)?
        };
        let (stop, stopped) = oneshot::channel();
        let shared = Arc::clone(shared);
        let thread = std::thread::Builder::new().name("mosaic-inspect".into()).spawn(move || {
            runtime.block_on(accept(listener, shared, stopped));
            // Every connection's task is dropped (its socket closed) here.
            runtime.shutdown_timeout(RUNTIME_SHUTDOWN);
        })?;
        Ok(Self { stop: Some(stop), thread: Some(thread) })
    }

    /// Stops serving, in bounded time (about [`SHUTDOWN_WAIT`] at most): the accept loop ends
    /// (the listener is closed), every open connection is closed, and the server's thread is
    /// joined if it ends within [`SHUTDOWN_WAIT`]; answers still running on blocking threads
    /// are left to end on their own. Calling it again does nothing.
    pub(crate) fn stop(&mut self) {
        if let Some(stop) = self.stop.take() {
            // The loop may have ended already: nothing to tell then.
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let deadline = Instant::now() + SHUTDOWN_WAIT;
            while !thread.is_finished() && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(5));
            }
            if thread.is_finished() {
                // A panic in the thread has already been reported; nothing more to do here.
                let _ = thread.join();
            }
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop();
    }
}

/// The accept loop: accepts connections until `stopped` fires, and serves each on a task of its
/// own while fewer than the connection limit are open, else refuses it at once
/// ([`refuse_now`]). An accept error pauses the loop ([`ACCEPT_BACKOFF_MIN`] doubling up to
/// [`ACCEPT_BACKOFF_MAX`]) and never ends it.
async fn accept(listener: tokio::net::TcpListener, shared: Arc<Shared>, mut stopped: oneshot::Receiver<()>) {
    let open = Arc::new(Semaphore::new(shared.options.max_connections.clamp(1, MAX_CONNECTIONS_LIMIT)));
    let mut backoff = Duration::ZERO;
    loop {
        let accepted = tokio::select! {
            _ = &mut stopped => return,
            accepted = listener.accept() => accepted,
        };
        match accepted {
            Ok((stream, _)) => {
                backoff = Duration::ZERO;
                let mut permit = Arc::clone(&open).try_acquire_owned();
                for _ in 0..FULL_RETRIES {
                    if permit.is_ok() {
                        break;
                    }
                    // Connections that closed in the same instant may not have been seen yet:
                    // let the runtime poll its sockets (their tasks end and free their places).
                    tokio::task::yield_now().await;
                    permit = Arc::clone(&open).try_acquire_owned();
                }
                match permit {
                    Ok(permit) => {
                        let shared = Arc::clone(&shared);
                        tokio::spawn(async move {
                            http::serve(stream, shared).await;
                            drop(permit);
                        });
                    }
                    Err(_) => refuse_now(&stream, shared.options.max_connections),
                }
            }
            Err(_) => {
                backoff = (backoff * 2).clamp(ACCEPT_BACKOFF_MIN, ACCEPT_BACKOFF_MAX);
                tokio::select! {
                    _ = &mut stopped => return,
                    () = tokio::time::sleep(backoff) => {}
                }
            }
        }
    }
}

/// How many times the accept loop lets the runtime poll its sockets before it refuses a
/// connection past the limit (each a yield: microseconds when nothing is ready).
const FULL_RETRIES: usize = 3;

/// The largest [`InspectorOptions::max_connections`](crate::InspectorOptions::max_connections)
/// taken; larger values count as this.
pub(crate) const MAX_CONNECTIONS_LIMIT: usize = 1 << 20;

/// Refuses `stream` at once with 503 ([`ApiError::Busy`](crate::error::ApiError::Busy)), without
/// waiting: what is already in its receive buffer is discarded (so the close is less likely to
/// reset the connection), the response is written only as far as the send buffer takes it, and
/// the connection is closed when `stream` is dropped.
fn refuse_now(stream: &tokio::net::TcpStream, limit: usize) {
    let mut chunk = [0u8; 4096];
    for _ in 0..4 {
        if !matches!(stream.try_read(&mut chunk), Ok(n) if n > 0) {
            break;
        }
    }
    let _ = stream.try_write(&http::refusal_bytes(&crate::error::ApiError::Busy(limit)));
    let _ = socket2::SockRef::from(stream).shutdown(std::net::Shutdown::Write);
}
