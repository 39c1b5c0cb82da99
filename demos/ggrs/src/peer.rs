//! One side of a two-player GGRS peer-to-peer session over UDP.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use arena::sim::Sim;
use ggrs::{DesyncDetection, Frame, GgrsError, GgrsEvent, PlayerType, SessionBuilder, SessionState};

use crate::auth::{DropCounts, SessionKey};
use crate::game::{ArenaConfig, GgrsArena, GgrsArenaError, RequestCounts};
use crate::input::Steer;
use crate::socket::{LatencySocket, SocketAuth};

/// How a peer runs.
#[derive(Clone, Debug)]
pub struct PeerOptions {
    /// The address to bind (loopback for a session on one machine).
    pub local: SocketAddr,
    /// The other peer's address.
    pub remote: SocketAddr,
    /// This peer's player handle, 0 or 1; the other peer plays the other one. Player `p` steers
    /// team `p` with [`Steer::scripted`] input.
    pub player: usize,
    /// The frame whose state the peer reports once every input before it is confirmed.
    pub frames: Frame,
    /// GGRS's input delay, in frames: input given at frame `f` is used at frame `f + delay`.
    pub input_delay: usize,
    /// Latency added to every packet received ([`LatencySocket`]).
    pub latency: Duration,
    /// Frames per second the peer advances at, in frames per second.
    pub fps: u32,
    /// Longest the whole run may take, synchronisation included.
    pub timeout: Duration,
    /// How long the peer keeps running after its report, so the other peer receives the inputs
    /// it still needs.
    pub linger: Duration,
    /// The session key every datagram is authenticated under, the same on both peers
    /// ([`SessionKey::from_match_secret`]).
    pub key: SessionKey,
}

/// What a peer reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PeerReport {
    /// [`PeerOptions::frames`].
    pub frame: Frame,
    /// The world hash of the state at `frame` with every input before it confirmed: the same on
    /// both peers, and the same as a straight run with those inputs.
    pub hash: u64,
    /// Requests fulfilled: `loads` is the number of rollbacks GGRS asked for.
    pub counts: RequestCounts,
    /// Wall time from start to report.
    pub elapsed: Duration,
    /// Datagrams received until the peer returned (the end of its linger), by what became of
    /// them: forged, replayed and strangers' datagrams are dropped and counted there.
    pub drops: DropCounts,
}

/// Runs one peer of a two-player session with `sim` until every input before
/// `options.frames` is confirmed, reports the world hash at that frame, then keeps the session
/// going for `options.linger`. GGRS's desync detection compares the peers' hashes every 10
/// frames. Every datagram is authenticated under `options.key` ([`crate::auth`]); others are
/// dropped and counted in [`PeerReport::drops`].
///
/// # Errors
/// - [`PeerError::Io`] if the socket cannot be bound;
/// - [`PeerError::Ggrs`] if GGRS refuses the session's settings or a call;
/// - [`PeerError::Desync`] if GGRS reports differing hashes for a frame;
/// - [`PeerError::Disconnected`] if the other peer leaves before the report;
/// - [`PeerError::Timeout`] if the report is not reached within `options.timeout`;
/// - [`PeerError::Arena`] if a request could not be fulfilled.
pub fn run_peer(sim: Sim, options: &PeerOptions) -> Result<PeerReport, PeerError> {
    let start = Instant::now();
    let other = 1 - options.player.min(1);
    let auth = SocketAuth { key: options.key.clone(), player: u8::from(options.player != 0) };
    let socket = LatencySocket::bind(options.local, options.remote, options.latency, auth)?;
    let counters = socket.counters();
    let mut session = SessionBuilder::<ArenaConfig>::new()
        .with_num_players(2)?
        .with_input_delay(options.input_delay)
        .with_fps(options.fps.max(1) as usize)?
        .with_desync_detection_mode(DesyncDetection::On { interval: 10 })
        .add_player(PlayerType::Local, options.player)?
        .add_player(PlayerType::Remote(options.remote), other)?
        .start_p2p_session(socket)?;
    let mut game = GgrsArena::new(sim, session.max_prediction());
    let tick = Duration::from_secs(1) / options.fps.max(1);
    let mut next_tick = Instant::now();
    let mut report: Option<PeerReport> = None;
    loop {
        let now = Instant::now();
        if let Some(report) = report {
            if now >= start + report.elapsed + options.linger {
                return Ok(PeerReport { drops: counters.get(), ..report });
            }
        } else if now >= start + options.timeout {
            return Err(PeerError::Timeout {
                timeout: options.timeout,
                frame: game.frame(),
                confirmed: session.confirmed_frame(),
            });
        }
        session.poll_remote_clients();
        for event in session.events() {
            match event {
                GgrsEvent::DesyncDetected { frame, local_checksum, remote_checksum, .. } => {
                    return Err(PeerError::Desync { frame, local: local_checksum, remote: remote_checksum });
                }
                GgrsEvent::Disconnected { .. } => {
                    return report
                        .map(|report| PeerReport { drops: counters.get(), ..report })
                        .ok_or(PeerError::Disconnected { frame: game.frame() });
                }
                _ => {}
            }
        }
        if now < next_tick {
            std::thread::sleep((next_tick - now).min(Duration::from_millis(1)));
            continue;
        }
        next_tick = (next_tick + tick).max(now - tick);
        if session.current_state() != SessionState::Running {
            continue;
        }
        session.add_local_input(options.player, Steer::scripted(options.player, session.current_frame()))?;
        match session.advance_frame() {
            Ok(requests) => game.handle_requests(requests)?,
            // Too far ahead of the other peer: wait for its inputs.
            Err(GgrsError::PredictionThreshold) => continue,
            Err(error) => return Err(error.into()),
        }
        if report.is_none()
            && session.confirmed_frame() >= options.frames
            && let Some(hash) = game.saved_hash(options.frames)
        {
            report = Some(PeerReport {
                frame: options.frames,
                hash,
                counts: game.counts(),
                elapsed: start.elapsed(),
                drops: counters.get(),
            });
        }
    }
}

/// The inputs a session with input delay `delay` uses at frame `frame`: each player's
/// [`Steer::scripted`] input of frame `frame - delay`, nothing pressed before `delay`. For
/// [`crate::game::straight_run`].
pub fn delayed_inputs(frame: Frame, delay: usize) -> Vec<Steer> {
    let given = frame - delay as Frame;
    (0..2).map(|player| if given >= 0 { Steer::scripted(player, given) } else { Steer::default() }).collect()
}

/// Why a peer stopped before its report.
#[derive(Debug, thiserror::Error)]
pub enum PeerError {
    /// The socket could not be bound.
    #[error("socket: {0}")]
    Io(#[from] std::io::Error),
    /// GGRS refused a setting or a call.
    #[error("GGRS: {0}")]
    Ggrs(#[from] GgrsError),
    /// The peers' hashes differ for a frame.
    #[error("desync at frame {frame}: local hash {local:#x}, remote {remote:#x}")]
    Desync {
        /// The frame compared.
        frame: Frame,
        /// This peer's hash.
        local: u128,
        /// The other peer's hash.
        remote: u128,
    },
    /// The other peer disconnected before the report.
    #[error("the other peer disconnected at frame {frame}")]
    Disconnected {
        /// This peer's frame then.
        frame: Frame,
    },
    /// The report frame was not confirmed in time.
    #[error(
        "no report within {timeout:?}: at frame {frame}, confirmed up to {confirmed}; is the other peer running?"
    )]
    Timeout {
        /// [`PeerOptions::timeout`].
        timeout: Duration,
        /// This peer's frame then.
        frame: Frame,
        /// The last frame with every input confirmed.
        confirmed: Frame,
    },
    /// A request could not be fulfilled.
    #[error(transparent)]
    Arena(#[from] GgrsArenaError),
}
