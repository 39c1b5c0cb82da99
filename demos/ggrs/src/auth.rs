//! Authenticated datagrams for a GGRS session: a session key, a MAC on every datagram, and a
//! sliding replay window per direction.
//!
//! GGRS itself checks only a 16-bit magic number on what it receives, so without this any host
//! able to spoof the other peer's UDP source address could end a match with one forged
//! "disconnect" input or a forged checksum report (65,536 tries at most). Here every datagram is
//!
//! ```text
//! [sender: u8][sequence: u64, little-endian][payload: GGRS message, postcard][tag: 32 bytes]
//! ```
//!
//! where `tag = BLAKE3-keyed(key, sender ‖ sequence ‖ payload)`. A receiver drops, and counts
//! ([`DropCounts`]), every datagram whose tag does not verify under the session key (compared in
//! constant time), whose sender byte is not the other peer's player (so a peer's own datagrams
//! reflected back to it are refused), or whose sequence number it has already accepted or is
//! older than the replay window ([`ReplayWindow`]).
//!
//! **Why keyed BLAKE3.** It is a MAC by construction (a PRF under a 32-byte key; no HMAC
//! wrapper needed), one well-kept crate (`blake3`, by the BLAKE3 authors) with no unsafe API to
//! get wrong, its [`blake3::Hash`] compares in constant time, and it also gives the key
//! derivation ([`blake3::derive_key`]) used for [`SessionKey::from_match_secret`]. `hmac` +
//! `sha2` would do as well, at two crates and a slower hash; a Noise or DTLS channel would add
//! a handshake that a game whose matchmaker already hands both peers a secret does not need.
//! The datagrams are authenticated, not encrypted: the inputs of a game are not secret.
//!
//! **The key.** Both peers derive the 32-byte session key from the same match secret, a string
//! a matchmaking server would hand both players for one match (here given on the command line
//! or in the environment: see the binary's `--match-secret`). Use a fresh secret per match:
//! sequence numbers start again at 1 in each session, so datagrams recorded in an earlier match
//! under the same secret would be accepted once in a new one.

use std::fmt;

/// The context string of [`SessionKey::from_match_secret`]'s key derivation (BLAKE3's
/// `derive_key` mode): fixed, unique to this protocol and its version, as BLAKE3 asks.
pub const KEY_CONTEXT: &str = "mosaic-ggrs 2026-11-28 GGRS datagram MAC key v1";

/// The shortest match secret accepted, in bytes: 16 bytes of a random string are 128 bits at
/// best, and a shorter secret is guessable offline from one captured datagram.
pub const MIN_SECRET_BYTES: usize = 16;

/// The longest match secret accepted, in bytes.
pub const MAX_SECRET_BYTES: usize = 1024;

/// Bytes before the payload: the sender's player (1) and the sequence number (8).
pub const HEADER_BYTES: usize = 1 + 8;

/// Bytes of the tag after the payload (a BLAKE3 output).
pub const TAG_BYTES: usize = blake3::OUT_LEN;

/// Sequence numbers below the highest accepted one that are still accepted once, in datagrams
/// (UDP may reorder; GGRS resends what is lost).
pub const REPLAY_WINDOW: u64 = 64;

/// The 32-byte key every datagram's tag is computed under. Its `Debug` form does not show it.
#[derive(Clone, PartialEq, Eq)]
pub struct SessionKey([u8; blake3::KEY_LEN]);

impl SessionKey {
    /// Derives the session key from a match secret with BLAKE3's key derivation under
    /// [`KEY_CONTEXT`]. O(length of `secret`).
    ///
    /// # Errors
    /// [`KeyError::SecretLength`] if `secret` is shorter than [`MIN_SECRET_BYTES`] or longer than
    /// [`MAX_SECRET_BYTES`] bytes.
    pub fn from_match_secret(secret: &str) -> Result<Self, KeyError> {
        let len = secret.len();
        if !(MIN_SECRET_BYTES..=MAX_SECRET_BYTES).contains(&len) {
            return Err(KeyError::SecretLength { len });
        }
        Ok(Self(blake3::derive_key(KEY_CONTEXT, secret.as_bytes())))
    }

    /// A key from its 32 bytes, for a caller that has its own key exchange.
    pub fn from_bytes(bytes: [u8; blake3::KEY_LEN]) -> Self {
        Self(bytes)
    }

    fn tag(&self, sender: u8, sequence: u64, payload: &[u8]) -> blake3::Hash {
        let mut hasher = blake3::Hasher::new_keyed(&self.0);
        hasher.update(&[sender]);
        hasher.update(&sequence.to_le_bytes());
        hasher.update(payload);
        hasher.finalize()
    }

    /// Writes the datagram of `payload` from player `sender` with sequence number `sequence`
    /// into `out` (cleared first): [`HEADER_BYTES`] + `payload.len()` + [`TAG_BYTES`] bytes.
    /// O(`payload.len()`).
    pub fn seal(&self, sender: u8, sequence: u64, payload: &[u8], out: &mut Vec<u8>) {
        out.clear();
        out.push(sender);
        out.extend_from_slice(&sequence.to_le_bytes());
        out.extend_from_slice(payload);
        out.extend_from_slice(self.tag(sender, sequence, payload).as_bytes());
    }

    /// Checks a datagram said to come from player `sender`; gives its sequence number and
    /// payload. The tag is compared in constant time ([`blake3::Hash`]'s `PartialEq`).
    /// O(`datagram.len()`). The replay check is the caller's ([`ReplayWindow::accept`]), after
    /// this.
    ///
    /// # Errors
    /// [`Rejected::Malformed`] if the datagram is shorter than a header and a tag;
    /// [`Rejected::Forged`] if the sender byte is not `sender` or the tag does not verify.
    pub fn open<'a>(&self, sender: u8, datagram: &'a [u8]) -> Result<(u64, &'a [u8]), Rejected> {
        if datagram.len() < HEADER_BYTES + TAG_BYTES {
            return Err(Rejected::Malformed);
        }
        let (head, rest) = datagram.split_at(HEADER_BYTES);
        let (payload, tag) = rest.split_at(rest.len() - TAG_BYTES);
        let mut sequence = [0; 8];
        sequence.copy_from_slice(&head[1..]);
        let sequence = u64::from_le_bytes(sequence);
        let mut given = [0; TAG_BYTES];
        given.copy_from_slice(tag);
        // Computed whatever the sender byte, so the time taken does not tell which check failed.
        let verified = self.tag(head[0], sequence, payload) == blake3::Hash::from_bytes(given);
        if !verified || head[0] != sender {
            return Err(Rejected::Forged);
        }
        Ok((sequence, payload))
    }
}

impl fmt::Debug for SessionKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SessionKey(..)")
    }
}

/// Why a session key could not be made.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum KeyError {
    /// The match secret's length is out of range.
    #[error(
        "the match secret is {len} bytes; give {MIN_SECRET_BYTES} to {MAX_SECRET_BYTES} bytes \
         (a random string the matchmaker hands both peers, the same on both)"
    )]
    SecretLength {
        /// The secret's length, in bytes.
        len: usize,
    },
}

/// Why a received datagram was dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rejected {
    /// Too short to hold a header and a tag.
    Malformed,
    /// The tag does not verify, or the sender byte is not the other peer's.
    Forged,
}

/// The sequence numbers accepted from one sender: a datagram is accepted once, and only if its
/// number is above the highest accepted minus [`REPLAY_WINDOW`] (RFC 4303's anti-replay
/// window, as IPsec and DTLS use). Constant memory, O(1) per datagram. Sequence number 0 is
/// never accepted (senders start at 1).
#[derive(Clone, Copy, Debug, Default)]
pub struct ReplayWindow {
    /// The highest sequence number accepted; 0 before any.
    highest: u64,
    /// Bit `i` set: `highest - i` was accepted.
    seen: u64,
}

impl ReplayWindow {
    /// Accepts `sequence` if it is new and inside the window, and records it; `false` for a
    /// replay (already accepted, 0, or at or below the highest accepted minus the window).
    pub fn accept(&mut self, sequence: u64) -> bool {
        if sequence == 0 {
            return false;
        }
        if sequence > self.highest {
            let shift = sequence - self.highest;
            self.seen = if shift >= REPLAY_WINDOW { 0 } else { self.seen << shift };
            self.seen |= 1;
            self.highest = sequence;
            return true;
        }
        let behind = self.highest - sequence;
        if behind >= REPLAY_WINDOW || self.seen & (1 << behind) != 0 {
            return false;
        }
        self.seen |= 1 << behind;
        true
    }
}

/// Datagrams a socket received, by what became of them, in datagrams since the socket was bound.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DropCounts {
    /// Authenticated, new, and passed to GGRS.
    pub accepted: u64,
    /// Dropped: from an address other than the peer's.
    pub strangers: u64,
    /// Dropped: too short for a header and a tag, or an authenticated payload GGRS cannot
    /// decode.
    pub malformed: u64,
    /// Dropped: the tag does not verify under the session key, or the sender is not the peer.
    pub forged: u64,
    /// Dropped: authenticated but already accepted, or older than the replay window.
    pub replayed: u64,
    /// Dropped: authenticated and new, but the delivery queue was full.
    pub overflow: u64,
}

impl DropCounts {
    /// Every datagram dropped, in datagrams.
    pub fn dropped(&self) -> u64 {
        self.strangers + self.malformed + self.forged + self.replayed + self.overflow
    }
}

impl fmt::Display for DropCounts {
    /// `accepted A strangers S malformed M forged F replayed R overflow O`: words and numbers,
    /// for a report line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "accepted {} strangers {} malformed {} forged {} replayed {} overflow {}",
            self.accepted, self.strangers, self.malformed, self.forged, self.replayed, self.overflow
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key() -> SessionKey {
        SessionKey::from_match_secret("a test match secret").unwrap()
    }

    #[test]
    fn a_sealed_datagram_opens_and_any_flipped_bit_is_forged() {
        let mut datagram = Vec::new();
        key().seal(1, 42, b"payload", &mut datagram);
        assert_eq!(key().open(1, &datagram), Ok((42, &b"payload"[..])));
        for bit in 0..datagram.len() * 8 {
            let mut flipped = datagram.clone();
            flipped[bit / 8] ^= 1 << (bit % 8);
            assert_eq!(key().open(1, &flipped), Err(Rejected::Forged), "bit {bit}");
        }
    }

    #[test]
    fn another_key_another_sender_or_a_short_datagram_is_refused() {
        let mut datagram = Vec::new();
        key().seal(0, 1, b"x", &mut datagram);
        let other = SessionKey::from_match_secret("another match secret").unwrap();
        assert_eq!(other.open(0, &datagram), Err(Rejected::Forged));
        // A peer's own datagram reflected back to it.
        assert_eq!(key().open(1, &datagram), Err(Rejected::Forged));
        assert_eq!(key().open(0, &datagram[..HEADER_BYTES + TAG_BYTES - 1]), Err(Rejected::Malformed));
    }

    #[test]
    fn secrets_out_of_range_are_refused() {
        assert_eq!(SessionKey::from_match_secret("short"), Err(KeyError::SecretLength { len: 5 }));
        assert!(SessionKey::from_match_secret(&"x".repeat(MAX_SECRET_BYTES + 1)).is_err());
        assert_eq!(format!("{:?}", key()), "SessionKey(..)");
    }

    #[test]
    fn the_window_accepts_each_number_once_and_nothing_too_old() {
        let mut window = ReplayWindow::default();
        assert!(!window.accept(0));
        assert!(window.accept(5));
        assert!(!window.accept(5));
        assert!(window.accept(3), "reordered, inside the window");
        assert!(!window.accept(3));
        assert!(window.accept(5 + REPLAY_WINDOW));
        assert!(!window.accept(5), "at the window's edge");
        assert!(window.accept(6));
        assert!(window.accept(1000));
        assert!(!window.accept(5 + REPLAY_WINDOW));
        assert!(!window.accept(1000));
        assert!(window.accept(u64::MAX));
        assert!(!window.accept(u64::MAX));
    }
}
