//! The server's threads: one accept thread that never stops on an error, and a fixed pool of
//! workers fed through a bounded queue, each serving one connection at a time through
//! [`http::serve`].
//!
//! Bounds: at most [`MAX_CONNECTIONS`] connections are open at once (queued or being served);
//! the accept thread refuses the others at once with 503 and closes them. Each connection
//! carries one request and is then closed, within the request timeout (see [`http`]), so a slow
//! or silent client holds one worker for a bounded time. A worker that panics in a request goes
//! on with the next one.

use std::collections::HashMap;
use std::io::ErrorKind;
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::mpsc::{Receiver, SyncSender, TrySendError};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::error::ApiError;
use crate::http;
use crate::inspector::{Shared, lock};

/// The number of worker threads: how many requests are served at once.
pub(crate) const WORKERS: usize = 8;

/// The most connections open at once, queued or being served; the accept thread answers more
/// with 503 ([`ApiError::Busy`]) and closes them. Also the queue's capacity.
pub(crate) const MAX_CONNECTIONS: usize = 64;

/// The first pause of the accept thread after an accept error (out of file descriptors or
/// memory, a connection aborted before it was accepted); it doubles while errors repeat, up to
/// [`ACCEPT_BACKOFF_MAX`], and resets after a success.
pub(crate) const ACCEPT_BACKOFF_MIN: Duration = Duration::from_millis(10);

/// The longest pause of the accept thread after repeated accept errors.
pub(crate) const ACCEPT_BACKOFF_MAX: Duration = Duration::from_millis(500);

/// How long stopping the server waits for its threads to end before leaving them to end on
/// their own (a worker inside [`api::handle`](crate::api::handle) may wait for the frame loop).
pub(crate) const SHUTDOWN_WAIT: Duration = Duration::from_secs(2);

/// The connections open now, so that stopping can end them all and the accept thread can count
/// them.
#[derive(Debug, Default)]
struct Open {
    /// Set once, when the server stops: no connection is registered after.
    stopping: bool,
    /// The id of the next connection.
    next: u64,
    /// A handle of each open connection (a clone of its stream), by id.
    streams: HashMap<u64, TcpStream>,
}

/// An accepted connection, registered in [`Open`] until it is dropped.
struct Connection {
    id: u64,
    stream: TcpStream,
    open: Arc<Mutex<Open>>,
}

impl Drop for Connection {
    fn drop(&mut self) {
        lock(&self.open).streams.remove(&self.id);
    }
}

/// The running server: its accept thread and workers. Dropping it stops them (see
/// [`Server::stop`]).
pub(crate) struct Server {
    open: Arc<Mutex<Open>>,
    /// Where to connect to wake the accept thread.
    wake: SocketAddr,
    accept: Option<JoinHandle<()>>,
    workers: Vec<JoinHandle<()>>,
}

impl Server {
    /// Starts serving `listener` with [`WORKERS`] workers and an accept thread, answering
    /// through `shared`.
    ///
    /// # Errors
    /// The operating system's error if the listener's address cannot be read or a thread
    /// cannot be started (the threads already started are stopped).
    pub(crate) fn start(listener: TcpListener, shared: &Arc<Shared>) -> std::io::Result<Self> {
        let mut wake = listener.local_addr()?;
        if wake.ip().is_unspecified() {
            let loopback = match wake {
                SocketAddr::V4(_) => std::net::Ipv4Addr::LOCALHOST.into(),
                SocketAddr::V6(_) => std::net::Ipv6Addr::LOCALHOST.into(),
            };
            wake.set_ip(loopback);
        }
        let mut server =
            Self { open: Arc::default(), wake, accept: None, workers: Vec::with_capacity(WORKERS) };
        let (queue, receiver) = std::sync::mpsc::sync_channel::<Connection>(MAX_CONNECTIONS);
        let receiver = Arc::new(Mutex::new(receiver));
        for i in 0..WORKERS {
            let (receiver, shared) = (Arc::clone(&receiver), Arc::clone(shared));
            let spawned = std::thread::Builder::new()
                .name(format!("mosaic-inspect-{i}"))
                .spawn(move || work(&receiver, &shared));
            match spawned {
                Ok(worker) => server.workers.push(worker),
                Err(error) => {
                    // The workers end once the queue's sender is gone.
                    drop(queue);
                    return Err(error);
                }
            }
        }
        let open = Arc::clone(&server.open);
        server.accept = Some(
            std::thread::Builder::new()
                .name("mosaic-inspect".into())
                .spawn(move || accept(&listener, &open, &queue))?,
        );
        Ok(server)
    }

    /// Stops serving, in bounded time (about [`SHUTDOWN_WAIT`] at most): refuses new
    /// connections, shuts every open one down (a worker blocked reading or writing one returns
    /// at once), wakes the accept thread by connecting to it, and joins the threads that end
    /// within [`SHUTDOWN_WAIT`]; any still inside [`api::handle`](crate::api::handle) are left
    /// to end on their own. Calling it again does nothing.
    pub(crate) fn stop(&mut self) {
        {
            let mut open = lock(&self.open);
            open.stopping = true;
            for stream in open.streams.values() {
                let _ = stream.shutdown(Shutdown::Both);
            }
        }
        let deadline = Instant::now() + SHUTDOWN_WAIT;
        if let Some(accept) = self.accept.take() {
            // The accept thread sees `stopping` after its next accept (or error pause). If this
            // connection cannot be made, the next client's wakes it.
            let _ = TcpStream::connect_timeout(&self.wake, Duration::from_millis(200));
            join_before(accept, deadline);
        }
        // The accept thread has dropped the queue's sender: the workers drop what is queued
        // (every stream already shut down) and end.
        for worker in self.workers.drain(..) {
            join_before(worker, deadline);
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Joins `thread` if it ends before `deadline`, polling every 5 ms; otherwise leaves it running
/// on its own.
fn join_before(thread: JoinHandle<()>, deadline: Instant) {
    while !thread.is_finished() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
    }
    if thread.is_finished() {
        // A panic in the thread has already been reported; nothing more to do here.
        let _ = thread.join();
    }
}

/// The accept thread: accepts connections until the server stops, registers each in `open` and
/// queues it for a worker, or refuses it (503) past [`MAX_CONNECTIONS`]. An accept error pauses
/// the loop ([`ACCEPT_BACKOFF_MIN`] doubling up to [`ACCEPT_BACKOFF_MAX`]) and never ends it.
fn accept(listener: &TcpListener, open: &Arc<Mutex<Open>>, queue: &SyncSender<Connection>) {
    let mut backoff = Duration::ZERO;
    loop {
        let accepted = listener.accept();
        if lock(open).stopping {
            return;
        }
        match accepted {
            Ok((stream, _)) => {
                backoff = Duration::ZERO;
                admit(stream, open, queue);
            }
            Err(error) if error.kind() == ErrorKind::Interrupted => {}
            Err(_) => {
                backoff = (backoff * 2).clamp(ACCEPT_BACKOFF_MIN, ACCEPT_BACKOFF_MAX);
                std::thread::sleep(backoff);
            }
        }
    }
}

/// Registers `stream` and queues it for a worker, or refuses it at once if [`MAX_CONNECTIONS`]
/// are open (or the queue is full, which the count rules out). Never blocks on the client.
fn admit(stream: TcpStream, open: &Arc<Mutex<Open>>, queue: &SyncSender<Connection>) {
    let connection = {
        let mut registry = lock(open);
        if registry.stopping {
            return;
        }
        if registry.streams.len() >= MAX_CONNECTIONS {
            drop(registry);
            http::refuse_now(&stream, &ApiError::Busy(MAX_CONNECTIONS));
            return;
        }
        // Without a handle to shut it down on stop, a connection could outlive the server.
        let Ok(handle) = stream.try_clone() else { return };
        let id = registry.next;
        registry.next += 1;
        registry.streams.insert(id, handle);
        Connection { id, stream, open: Arc::clone(open) }
    };
    match queue.try_send(connection) {
        Ok(()) => {}
        Err(TrySendError::Full(connection)) => {
            http::refuse_now(&connection.stream, &ApiError::Busy(MAX_CONNECTIONS));
        }
        Err(TrySendError::Disconnected(_)) => {}
    }
}

/// A worker: serves queued connections one at a time until the queue's sender is gone. A panic
/// while serving one ends that connection only.
fn work(queue: &Mutex<Receiver<Connection>>, shared: &Shared) {
    loop {
        // The lock is held only while waiting for the next connection.
        let next = lock(queue).recv();
        let Ok(connection) = next else { return };
        if lock(&connection.open).stopping {
            continue;
        }
        let serve = std::panic::AssertUnwindSafe(|| http::serve(&connection.stream, shared));
        // The panic has been reported by the hook; the connection is dropped (closed) here.
        let _ = std::panic::catch_unwind(serve);
    }
}
