//! A UDP socket for GGRS sessions that adds a fixed latency to every packet it receives, so a
//! session on one machine sees its remote inputs late, predicts, and rolls back as it would over a
//! real network.

use std::collections::VecDeque;
use std::io;
use std::net::{SocketAddr, UdpSocket};
use std::time::{Duration, Instant};

use ggrs::{Message, NonBlockingSocket};

/// Largest datagram read, in bytes; a longer one is cut there, fails to decode and is dropped
/// (GGRS messages of the arena's one-byte inputs are far smaller).
pub const MAX_DATAGRAM: usize = 4096;

/// Most received messages held back at once, in messages; beyond it new ones are dropped, as a
/// full router queue drops them (GGRS resends what is not acknowledged).
pub const MAX_IN_FLIGHT: usize = 4096;

/// A non-blocking UDP socket bound to one address, talking to one peer, that delivers each
/// received message `latency` after it arrived (the one-way delay of a link; two such peers see
/// a round trip of twice it). Messages from any address other than the peer's are dropped.
///
/// Messages are encoded with postcard (both peers must use this socket). Send errors are dropped
/// as lost packets (UDP gives no delivery promise; GGRS resends).
#[derive(Debug)]
pub struct LatencySocket {
    socket: UdpSocket,
    peer: SocketAddr,
    latency: Duration,
    /// Received messages with the instant each is delivered, oldest first.
    in_flight: VecDeque<(Instant, Message)>,
    buffer: Vec<u8>,
}

impl LatencySocket {
    /// Binds `local` (use a loopback address, `127.0.0.1:port`, for a session on one machine; port
    /// 0 picks a free one) for a session with the peer at `peer`.
    ///
    /// # Errors
    /// The I/O error if the address cannot be bound or the socket cannot be made non-blocking.
    pub fn bind(local: SocketAddr, peer: SocketAddr, latency: Duration) -> io::Result<Self> {
        let socket = UdpSocket::bind(local)?;
        socket.set_nonblocking(true)?;
        Ok(Self { socket, peer, latency, in_flight: VecDeque::new(), buffer: vec![0; MAX_DATAGRAM] })
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
        if let Ok(bytes) = postcard::to_slice(msg, &mut self.buffer) {
            // A failed send is a lost packet.
            let _ = self.socket.send_to(bytes, addr);
        }
    }

    fn receive_all_messages(&mut self) -> Vec<(SocketAddr, Message)> {
        let now = Instant::now();
        // Read until nothing is left; other errors (an ICMP "port unreachable" while the peer is
        // not up yet) end this poll too, and the next poll reads on.
        while let Ok((len, from)) = self.socket.recv_from(&mut self.buffer) {
            if from != self.peer || self.in_flight.len() >= MAX_IN_FLIGHT {
                continue;
            }
            if let Ok(msg) = postcard::from_bytes::<Message>(&self.buffer[..len]) {
                self.in_flight.push_back((now + self.latency, msg));
            }
        }
        let due = self.in_flight.iter().take_while(|(at, _)| *at <= now).count();
        self.in_flight.drain(..due).map(|(_, msg)| (self.peer, msg)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_arrive_after_the_latency_and_strangers_are_ignored() {
        let any = "127.0.0.1:0".parse().unwrap();
        let mut b = LatencySocket::bind(any, any, Duration::ZERO).unwrap();
        let mut a = LatencySocket::bind(any, b.local_addr().unwrap(), Duration::ZERO).unwrap();
        b.peer = a.local_addr().unwrap();
        b.latency = Duration::from_millis(60);
        let stranger = UdpSocket::bind(any).unwrap();
        // GGRS's keep-alive message as postcard encodes it: header magic 1, body variant 7.
        let encoded = [1u8, 7];
        let msg: Message = postcard::from_bytes(&encoded).expect("a keep-alive message");
        stranger.send_to(&encoded, b.local_addr().unwrap()).unwrap();
        let sent = Instant::now();
        a.send_to(&msg, &b.local_addr().unwrap());
        let mut got = Vec::new();
        while got.is_empty() && sent.elapsed() < Duration::from_secs(5) {
            got = b.receive_all_messages();
        }
        assert!(sent.elapsed() >= Duration::from_millis(60), "delivered after {:?}", sent.elapsed());
        assert_eq!(got.len(), 1, "only the peer's message");
        assert_eq!(got[0].0, a.local_addr().unwrap());
    }
}
