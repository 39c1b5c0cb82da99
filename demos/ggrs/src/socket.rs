//! A UDP socket for GGRS sessions that authenticates every datagram ([`crate::auth`]) and adds a
//! fixed latency to every packet it receives, so a session on one machine sees its remote inputs
//! late, predicts, and rolls back as it would over a real network.

use std::collections::VecDeque;
use std::io;
use std::net::{SocketAddr, UdpSocket};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use ggrs::{Message, NonBlockingSocket};

use crate::auth::{DropCounts, HEADER_BYTES, Rejected, ReplayWindow, SessionKey, TAG_BYTES};

/// Largest datagram read, in bytes; a longer one is cut there, fails to verify and is dropped
/// (GGRS messages of the arena's one-byte inputs, with the 41 bytes of header and tag, are far
/// smaller).
pub const MAX_DATAGRAM: usize = 4096;

/// Most received messages held back at once, in messages; beyond it new ones are dropped, as a
/// full router queue drops them (GGRS resends what is not acknowledged).
pub const MAX_IN_FLIGHT: usize = 4096;

/// Who this socket is in the session and the key it shares with the other peer.
#[derive(Clone, Debug)]
pub struct SocketAuth {
    /// The session key ([`SessionKey::from_match_secret`]), the same on both peers.
    pub key: SessionKey,
    /// This peer's player handle (0 or 1), written in every datagram it sends; datagrams it
    /// accepts must carry the other one.
    pub player: u8,
}

/// The counters of a [`LatencySocket`], readable from another owner while GGRS owns the socket.
/// Cloning shares them.
#[derive(Clone, Debug, Default)]
pub struct SocketCounters(Arc<[AtomicU64; 6]>);

impl SocketCounters {
    /// The counts so far. O(1).
    pub fn get(&self) -> DropCounts {
        let [accepted, strangers, malformed, forged, replayed, overflow] =
            std::array::from_fn(|i| self.0[i].load(Ordering::Relaxed));
        DropCounts { accepted, strangers, malformed, forged, replayed, overflow }
    }

    fn add(&self, which: Counter) {
        self.0[which as usize].fetch_add(1, Ordering::Relaxed);
    }
}

#[derive(Clone, Copy)]
enum Counter {
    Accepted,
    Strangers,
    Malformed,
    Forged,
    Replayed,
    Overflow,
}

/// A non-blocking UDP socket bound to one address, talking to one peer, that delivers each
/// received message `latency` after it arrived (the one-way delay of a link; two such peers see
/// a round trip of twice it).
///
/// Every datagram sent is sealed under the session key with the next sequence number (from 1);
/// every datagram received must come from the peer's address, verify under the key as sent by
/// the other player, and carry a sequence number not yet accepted inside the replay window
/// ([`crate::auth`]). Anything else is dropped and counted ([`LatencySocket::counters`]).
///
/// Messages are encoded with postcard (both peers must use this socket). Send errors are dropped
/// as lost packets (UDP gives no delivery promise; GGRS resends).
#[derive(Debug)]
pub struct LatencySocket {
    socket: UdpSocket,
    peer: SocketAddr,
    latency: Duration,
    auth: SocketAuth,
    /// The sequence number of the last datagram sent; 0 before the first.
    sent: u64,
    window: ReplayWindow,
    counters: SocketCounters,
    /// Received messages with the instant each is delivered, oldest first.
    in_flight: VecDeque<(Instant, Message)>,
    buffer: Vec<u8>,
    sealed: Vec<u8>,
}

impl LatencySocket {
    /// Binds `local` (use a loopback address, `127.0.0.1:port`, for a session on one machine; port
    /// 0 picks a free one) for a session with the peer at `peer`, authenticated by `auth`.
    ///
    /// # Errors
    /// The I/O error if the address cannot be bound or the socket cannot be made non-blocking.
    pub fn bind(
        local: SocketAddr,
        peer: SocketAddr,
        latency: Duration,
        auth: SocketAuth,
    ) -> io::Result<Self> {
        let socket = UdpSocket::bind(local)?;
        socket.set_nonblocking(true)?;
        Ok(Self {
            socket,
            peer,
            latency,
            auth,
            sent: 0,
            window: ReplayWindow::default(),
            counters: SocketCounters::default(),
            in_flight: VecDeque::new(),
            buffer: vec![0; MAX_DATAGRAM],
            sealed: Vec::with_capacity(MAX_DATAGRAM),
        })
    }

    /// The socket's received-datagram counters, shared: keep a clone before handing the socket
    /// to GGRS.
    pub fn counters(&self) -> SocketCounters {
        self.counters.clone()
    }

    /// The address the socket is bound to.
    ///
    /// # Errors
    /// As [`UdpSocket::local_addr`].
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.socket.local_addr()
    }
}

impl NonBlockingSocket<SocketAddr> for LatencySocket {
    fn send_to(&mut self, msg: &Message, addr: &SocketAddr) {
        let room = MAX_DATAGRAM - HEADER_BYTES - TAG_BYTES;
        if let Ok(bytes) = postcard::to_slice(msg, &mut self.buffer[..room]) {
            self.sent += 1;
            self.auth.key.seal(self.auth.player, self.sent, bytes, &mut self.sealed);
            // A failed send is a lost packet.
            let _ = self.socket.send_to(&self.sealed, addr);
        }
    }

    fn receive_all_messages(&mut self) -> Vec<(SocketAddr, Message)> {
        let now = Instant::now();
        // Read until nothing is left; other errors (an ICMP "port unreachable" while the peer is
        // not up yet) end this poll too, and the next poll reads on.
        let other = 1 - self.auth.player.min(1);
        while let Ok((len, from)) = self.socket.recv_from(&mut self.buffer) {
            if from != self.peer {
                self.counters.add(Counter::Strangers);
                continue;
            }
            let (sequence, payload) = match self.auth.key.open(other, &self.buffer[..len]) {
                Ok(opened) => opened,
                Err(Rejected::Malformed) => {
                    self.counters.add(Counter::Malformed);
                    continue;
                }
                Err(Rejected::Forged) => {
                    self.counters.add(Counter::Forged);
                    continue;
                }
            };
            let Ok(msg) = postcard::from_bytes::<Message>(payload) else {
                self.counters.add(Counter::Malformed);
                continue;
            };
            if self.in_flight.len() >= MAX_IN_FLIGHT {
                // Not recorded as seen: a resend of it may still be accepted.
                self.counters.add(Counter::Overflow);
                continue;
            }
            if !self.window.accept(sequence) {
                self.counters.add(Counter::Replayed);
                continue;
            }
            self.counters.add(Counter::Accepted);
            self.in_flight.push_back((now + self.latency, msg));
        }
        let due = self.in_flight.iter().take_while(|(at, _)| *at <= now).count();
        self.in_flight.drain(..due).map(|(_, msg)| (self.peer, msg)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn auth(player: u8) -> SocketAuth {
        SocketAuth { key: SessionKey::from_match_secret("socket test secret").unwrap(), player }
    }

    /// GGRS's keep-alive message as postcard encodes it: header magic 1, body variant 7.
    const KEEP_ALIVE: [u8; 2] = [1, 7];

    /// Two sockets on loopback that talk to each other, `b` with `latency`.
    fn pair(latency: Duration) -> (LatencySocket, LatencySocket) {
        let any = "127.0.0.1:0".parse().unwrap();
        let mut b = LatencySocket::bind(any, any, Duration::ZERO, auth(1)).unwrap();
        let a = LatencySocket::bind(any, b.local_addr().unwrap(), Duration::ZERO, auth(0)).unwrap();
        b.peer = a.local_addr().unwrap();
        b.latency = latency;
        (a, b)
    }

    /// Polls `b` until it delivers something or 5 s pass.
    fn receive(b: &mut LatencySocket) -> Vec<(SocketAddr, Message)> {
        let start = Instant::now();
        let mut got = Vec::new();
        while got.is_empty() && start.elapsed() < Duration::from_secs(5) {
            got = b.receive_all_messages();
        }
        got
    }

    #[test]
    fn messages_arrive_after_the_latency_and_strangers_are_ignored() {
        let (mut a, mut b) = pair(Duration::from_millis(60));
        let stranger = UdpSocket::bind("127.0.0.1:0").unwrap();
        let msg: Message = postcard::from_bytes(&KEEP_ALIVE).expect("a keep-alive message");
        stranger.send_to(&KEEP_ALIVE, b.local_addr().unwrap()).unwrap();
        let sent = Instant::now();
        a.send_to(&msg, &b.local_addr().unwrap());
        let got = receive(&mut b);
        assert!(sent.elapsed() >= Duration::from_millis(60), "delivered after {:?}", sent.elapsed());
        assert_eq!(got.len(), 1, "only the peer's message");
        assert_eq!(got[0].0, a.local_addr().unwrap());
        assert_eq!(b.counters().get(), DropCounts { accepted: 1, strangers: 1, ..DropCounts::default() });
    }

    #[test]
    fn forged_reflected_and_replayed_datagrams_from_the_peer_address_are_dropped_and_counted() {
        let (a, mut b) = pair(Duration::ZERO);
        let to_b = b.local_addr().unwrap();
        // `a`'s own socket sends everything, so every datagram comes from the peer's address.
        let raw = |bytes: &[u8]| {
            a.socket.send_to(bytes, to_b).unwrap();
        };
        // Unauthenticated GGRS messages, as before authentication, and a short one.
        raw(&KEEP_ALIVE);
        raw(&[0; 8]);
        // Well-formed datagrams under the wrong key, and under the right key with a bad tag.
        let mut forged = Vec::new();
        SessionKey::from_match_secret("a guessed match secret").unwrap().seal(0, 1, &KEEP_ALIVE, &mut forged);
        raw(&forged);
        auth(0).key.seal(0, 2, &KEEP_ALIVE, &mut forged);
        *forged.last_mut().unwrap() ^= 1;
        raw(&forged);
        // `b`'s own datagram reflected back to it.
        auth(1).key.seal(1, 3, &KEEP_ALIVE, &mut forged);
        raw(&forged);
        // One genuine datagram, then the same bytes twice more.
        let mut genuine = Vec::new();
        auth(0).key.seal(0, 7, &KEEP_ALIVE, &mut genuine);
        raw(&genuine);
        raw(&genuine);
        raw(&genuine);
        let got = receive(&mut b);
        std::thread::sleep(Duration::from_millis(50));
        let later = b.receive_all_messages();
        assert_eq!(got.len() + later.len(), 1, "only the genuine datagram, once");
        assert_eq!(
            b.counters().get(),
            DropCounts { accepted: 1, malformed: 2, forged: 3, replayed: 2, ..DropCounts::default() }
        );
        assert_eq!(b.counters().get().dropped(), 7);
    }
}
