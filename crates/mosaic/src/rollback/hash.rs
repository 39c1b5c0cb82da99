//! The stable 64-bit hash: a written-out function, so its value never changes with a crate
//! update, a Rust release or the platform's word size.
//!
//! The mixing step is wyhash's (Wang Yi, public domain): `mum(a, b)` multiplies two 64-bit words
//! into 128 bits and folds the halves with xor. Input is read as little-endian 64-bit words, the
//! last one zero-padded, in steps of eight words through four independent lanes (four multiplies
//! in flight), so bulk input ([`hash_bytes`]) moves at several bytes per cycle; [`StableHasher`]
//! streams words through the same steps. It is fast and spreads every input bit, but it is not
//! cryptographic: do not use it against an adversary.

/// The version of the hash function and of what [`World`](crate::World) hashes cover; part of
/// every world hash, bumped whenever either changes.
pub const HASH_VERSION: u64 = 1;

const P0: u64 = 0xa076_1d64_78bd_642f;
const P1: u64 = 0xe703_7ed1_a0b4_28db;
const P2: u64 = 0x8ebc_6af0_9c88_c6e3;
const P3: u64 = 0x5899_65cc_7537_4cc3;

/// wyhash's mix: the 128-bit product of `a` and `b`, halves folded with xor.
#[inline(always)]
fn mum(a: u64, b: u64) -> u64 {
    let product = u128::from(a) * u128::from(b);
    (product as u64) ^ ((product >> 64) as u64)
}

/// Words per step: four independent lanes of two words each, so four multiplies are in flight.
const STEP: usize = 8;

/// One step of the four lanes over eight words.
#[inline(always)]
fn step(lanes: &mut [u64; 4], w: [u64; STEP]) {
    lanes[0] = mum(w[0] ^ P1, w[1] ^ lanes[0]);
    lanes[1] = mum(w[2] ^ P2, w[3] ^ lanes[1]);
    lanes[2] = mum(w[4] ^ P3, w[5] ^ lanes[2]);
    lanes[3] = mum(w[6] ^ P0, w[7] ^ lanes[3]);
}

#[inline(always)]
fn finish(lanes: [u64; 4], len: u64) -> u64 {
    mum(mum(lanes[0] ^ P3 ^ len, lanes[1] ^ P0) ^ lanes[2], lanes[3] ^ P1)
}

#[inline(always)]
fn seeded(seed: u64) -> [u64; 4] {
    [seed ^ P0, seed.rotate_left(16) ^ P1, seed.rotate_left(32) ^ P2, seed.rotate_left(48) ^ P3]
}

/// The hash of `bytes` under `seed`. O(len), 64 bytes per step of four independent multiplies.
///
/// Reads little-endian words, so a value's hash is the same on every platform where the value
/// has the same bytes (same endianness for numbers).
pub fn hash_bytes(seed: u64, bytes: &[u8]) -> u64 {
    let mut lanes = seeded(seed);
    let mut chunks = bytes.chunks_exact(STEP * 8);
    let word = |c: &[u8], i: usize| u64::from_le_bytes(c[i * 8..i * 8 + 8].try_into().expect("8 bytes"));
    for c in &mut chunks {
        step(&mut lanes, std::array::from_fn(|i| word(c, i)));
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let mut last = [0u8; STEP * 8];
        last[..rest.len()].copy_from_slice(rest);
        step(&mut lanes, std::array::from_fn(|i| word(&last, i)));
    }
    finish(lanes, bytes.len() as u64)
}

/// The hash of `words` under `seed`, equal to [`hash_bytes`] of their little-endian bytes.
/// O(len).
pub fn hash_words(seed: u64, words: impl IntoIterator<Item = u64>) -> u64 {
    let mut hasher = StableHasher::with_seed(seed);
    for w in words {
        hasher.write_word(w);
    }
    hasher.finish_words()
}

/// The hash of `items` mapped to one word each by `word`, under `seed`: equal to
/// [`hash_words`] of the mapped words, but eight words per step with no buffering. O(len).
#[inline]
pub(crate) fn hash_mapped<T>(seed: u64, items: &[T], word: impl Fn(&T) -> u64) -> u64 {
    let mut lanes = seeded(seed);
    let mut chunks = items.chunks_exact(STEP);
    for c in &mut chunks {
        step(&mut lanes, std::array::from_fn(|i| word(&c[i])));
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        step(&mut lanes, std::array::from_fn(|i| rest.get(i).map_or(0, &word)));
    }
    finish(lanes, items.len() as u64 * 8)
}

/// A streaming form of the hash, for values hashed through [`std::hash::Hash`] and for the
/// world hash's structure.
///
/// Every integer is written as one 64-bit word (`usize` and `isize` too, so lengths hash the same
/// on 32- and 64-bit platforms); byte strings are written as their length and their words.
/// [`std::hash::Hasher::finish`] does not consume the state.
#[derive(Clone, Debug)]
pub struct StableHasher {
    lanes: [u64; 4],
    buffer: [u64; STEP],
    buffered: usize,
    /// Words written, in words.
    words: u64,
}

impl Default for StableHasher {
    fn default() -> Self {
        Self::with_seed(0)
    }
}

impl StableHasher {
    /// A hasher with seed 0.
    pub fn new() -> Self {
        Self::default()
    }

    /// A hasher with `seed`.
    pub fn with_seed(seed: u64) -> Self {
        Self { lanes: seeded(seed), buffer: [0; STEP], buffered: 0, words: 0 }
    }

    /// Writes one word. O(1).
    #[inline]
    pub fn write_word(&mut self, word: u64) {
        self.buffer[self.buffered] = word;
        self.buffered += 1;
        self.words += 1;
        if self.buffered == STEP {
            step(&mut self.lanes, self.buffer);
            self.buffered = 0;
        }
    }

    /// Writes a digest of `bytes` ([`hash_bytes`]) and their length: the fast way to add a large
    /// block of plain bytes. O(len).
    #[inline]
    pub fn write_block(&mut self, bytes: &[u8]) {
        self.write_word(bytes.len() as u64);
        self.write_word(hash_bytes(self.words, bytes));
    }

    /// The hash of the words written so far.
    fn finish_words(&self) -> u64 {
        let mut lanes = self.lanes;
        if self.buffered > 0 {
            let mut last = [0u64; STEP];
            last[..self.buffered].copy_from_slice(&self.buffer[..self.buffered]);
            step(&mut lanes, last);
        }
        finish(lanes, self.words * 8)
    }
}

impl std::hash::Hasher for StableHasher {
    fn finish(&self) -> u64 {
        self.finish_words()
    }

    fn write(&mut self, bytes: &[u8]) {
        self.write_word(bytes.len() as u64);
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.write_word(u64::from_le_bytes(c.try_into().expect("8 bytes")));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut last = [0u8; 8];
            last[..rest.len()].copy_from_slice(rest);
            self.write_word(u64::from_le_bytes(last));
        }
    }

    fn write_u8(&mut self, i: u8) {
        self.write_word(u64::from(i));
    }
    fn write_u16(&mut self, i: u16) {
        self.write_word(u64::from(i));
    }
    fn write_u32(&mut self, i: u32) {
        self.write_word(u64::from(i));
    }
    fn write_u64(&mut self, i: u64) {
        self.write_word(i);
    }
    fn write_u128(&mut self, i: u128) {
        self.write_word(i as u64);
        self.write_word((i >> 64) as u64);
    }
    fn write_usize(&mut self, i: usize) {
        self.write_word(i as u64);
    }
    fn write_i8(&mut self, i: i8) {
        self.write_word(i as u64);
    }
    fn write_i16(&mut self, i: i16) {
        self.write_word(i as u64);
    }
    fn write_i32(&mut self, i: i32) {
        self.write_word(i as u64);
    }
    fn write_i64(&mut self, i: i64) {
        self.write_word(i as u64);
    }
    fn write_i128(&mut self, i: i128) {
        self.write_u128(i as u128);
    }
    fn write_isize(&mut self, i: isize) {
        self.write_word(i as u64);
    }
}

/// The world hash: what it covers is listed in the module docs of [`crate::rollback`]; each part
/// of the world writes its own share (`rollback/part.rs`).
pub(crate) fn hash_world(registry: &super::RollbackRegistry, world: &crate::World) -> u64 {
    let mut hasher = StableHasher::new();
    hasher.write_word(HASH_VERSION);
    super::part::hash_parts(world, registry, &mut hasher);
    hasher.finish_words()
}

#[cfg(test)]
mod tests {
    use std::hash::{Hash, Hasher};

    use super::*;

    #[test]
    fn values_are_pinned() {
        // The function is part of the format of hash logs: these values must never change
        // (bump HASH_VERSION and update them if the function ever has to).
        assert_eq!(hash_bytes(0, b""), 0xb47f_8405_9b36_da47);
        assert_eq!(hash_bytes(0, b"mosaic"), 0x6794_0a0a_da7d_eebd);
        assert_eq!(hash_words(7, [1u64, 2, 3, 4, 5]), 0x5003_7333_41c4_c07e);
        assert_ne!(hash_bytes(0, b"mosaic"), hash_bytes(1, b"mosaic"));
        assert_ne!(hash_bytes(0, b"mosaic"), hash_bytes(0, b"mosaik"));
        assert_ne!(hash_bytes(0, &[0u8; 31]), hash_bytes(0, &[0u8; 32]), "the length counts");
    }

    #[test]
    fn words_equal_their_bytes() {
        let words = [1u64, 2, 3, 4, 5, u64::MAX];
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        assert_eq!(hash_words(7, words), hash_bytes(7, &bytes));
    }

    #[test]
    fn every_bit_of_a_word_counts() {
        let base = hash_words(0, [0u64; 9]);
        for bit in 0..64 {
            for at in 0..9 {
                let mut words = [0u64; 9];
                words[at] = 1 << bit;
                assert_ne!(hash_words(0, words), base, "bit {bit} of word {at}");
            }
        }
    }

    #[test]
    fn mapped_equals_words() {
        let items: Vec<u32> = (0..37).collect();
        for n in [0, 1, 7, 8, 9, 16, 37] {
            let words = items[..n].iter().map(|&i| u64::from(i) * 3);
            assert_eq!(hash_mapped(5, &items[..n], |&i| u64::from(i) * 3), hash_words(5, words), "{n} items");
        }
    }

    #[test]
    fn std_hash_writes_integers_as_words() {
        let mut a = StableHasher::new();
        (1u8, 2usize, -1i32).hash(&mut a);
        let mut b = StableHasher::new();
        b.write_word(1);
        b.write_word(2);
        b.write_word(u64::MAX);
        assert_eq!(a.finish(), b.finish());
    }
}
