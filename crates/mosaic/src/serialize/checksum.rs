//! The checksum a snapshot carries from format 7 on: a CRC-32 (IEEE, the `crc32fast` crate) of
//! its content, so a flipped bit or a cut-off file is an error, never different data.
//!
//! - Binary: the postcard bytes, then the CRC-32 of those bytes as 4 bytes, little-endian.
//! - RON: a first line `// mosaic snapshot crc32 xxxxxxxx` (8 lowercase hex digits, then `\n`),
//!   then the RON text the CRC-32 is of. The line is a RON comment, so the text stays readable
//!   RON.
//!
//! CRC-32 detects every error of up to 3 flipped bits and every burst of up to 32 bits in a
//! snapshot (its Hamming distance is at least 4 up to about 11 KB, and every odd number of flips
//! anywhere). It guards against accidents (a bad disk, a truncated copy), not against someone who
//! edits the file on purpose: they can write a new checksum ([`seal_binary`], [`seal_ron`]).
//!
//! Snapshots of format 5 and 6, written before the checksum, carry none and still load as they
//! did; a snapshot that says format 7 without a matching checksum is refused
//! ([`SnapshotError::Checksum`](super::SnapshotError::Checksum)).

/// The start of a RON snapshot's checksum line, before the 8 hex digits.
const RON_PREFIX: &str = "// mosaic snapshot crc32 ";

/// Bytes of the binary checksum after the content.
const BINARY_BYTES: usize = 4;

/// Appends the checksum to binary snapshot content (`bytes` from the snapshot writer, or edited
/// by hand): 4 more bytes. O(`bytes.len()`).
pub fn seal_binary(mut bytes: Vec<u8>) -> Vec<u8> {
    let crc = crc32fast::hash(&bytes);
    bytes.extend_from_slice(&crc.to_le_bytes());
    bytes
}

/// Puts the checksum line in front of RON snapshot text (the text as written, or edited by
/// hand, without a checksum line): 34 more bytes. O(`text.len()`).
pub fn seal_ron(text: &str) -> String {
    let crc = crc32fast::hash(text.as_bytes());
    format!("{RON_PREFIX}{crc:08x}\n{text}")
}

/// What the checksum says about a snapshot.
pub(super) enum Opened<'a, T: ?Sized> {
    /// The checksum is there and matches: the content, without it.
    Sealed(&'a T),
    /// No checksum that matches: the whole input, for the formats before 7. If it says format
    /// 7 or later, this is the error to give.
    Unsealed {
        /// The whole input.
        content: &'a T,
        /// The checksum found, if the input has the place for one.
        stored: Option<u32>,
        /// The checksum of the content as it would be without that place.
        computed: u32,
    },
}

/// Splits a binary snapshot into its content and checksum, if the last 4 bytes are the CRC-32
/// of the rest. O(`bytes.len()`).
pub(super) fn open_binary(bytes: &[u8]) -> Opened<'_, [u8]> {
    let Some(at) = bytes.len().checked_sub(BINARY_BYTES) else {
        return Opened::Unsealed { content: bytes, stored: None, computed: crc32fast::hash(bytes) };
    };
    let (content, tail) = bytes.split_at(at);
    let mut stored = [0; BINARY_BYTES];
    stored.copy_from_slice(tail);
    let (stored, computed) = (u32::from_le_bytes(stored), crc32fast::hash(content));
    if stored == computed {
        Opened::Sealed(content)
    } else {
        Opened::Unsealed { content: bytes, stored: Some(stored), computed }
    }
}

/// Splits RON snapshot text into its content and checksum line, if the first line is one whose
/// checksum matches the rest. O(`text.len()`).
pub(super) fn open_ron(text: &str) -> Opened<'_, str> {
    let line = text.strip_prefix(RON_PREFIX).and_then(|rest| {
        let digits = rest.get(..8)?;
        let content = rest.get(8..)?.strip_prefix('\n')?;
        // Lowercase only, as written: any other byte there is a flipped bit.
        if !digits.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)) {
            return None;
        }
        Some((u32::from_str_radix(digits, 16).ok()?, content))
    });
    match line {
        Some((stored, content)) => {
            let computed = crc32fast::hash(content.as_bytes());
            if stored == computed {
                Opened::Sealed(content)
            } else {
                Opened::Unsealed { content: text, stored: Some(stored), computed }
            }
        }
        None => Opened::Unsealed { content: text, stored: None, computed: crc32fast::hash(text.as_bytes()) },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sealed_content_opens_and_a_flipped_bit_does_not() {
        let sealed = seal_binary(vec![7, 1, 2, 3]);
        assert!(matches!(open_binary(&sealed), Opened::Sealed(&[7, 1, 2, 3])));
        for bit in 0..sealed.len() * 8 {
            let mut flipped = sealed.clone();
            flipped[bit / 8] ^= 1 << (bit % 8);
            assert!(matches!(open_binary(&flipped), Opened::Unsealed { stored: Some(_), .. }), "bit {bit}");
        }
        assert!(matches!(open_binary(&[1, 2]), Opened::Unsealed { stored: None, .. }));
    }

    #[test]
    fn the_ron_line_is_checked_to_the_letter() {
        let sealed = seal_ron("Snapshot(format: 7)");
        assert!(sealed.starts_with("// mosaic snapshot crc32 "), "{sealed}");
        assert!(matches!(open_ron(&sealed), Opened::Sealed("Snapshot(format: 7)")));
        let upper = format!("{RON_PREFIX}ABCDEF12\nSnapshot(format: 7)");
        assert!(matches!(open_ron(&upper), Opened::Unsealed { stored: None, .. }));
        assert!(matches!(open_ron("Snapshot(format: 6)"), Opened::Unsealed { stored: None, .. }));
        let edited = sealed.replace("7)", "6)");
        assert!(matches!(open_ron(&edited), Opened::Unsealed { stored: Some(_), .. }));
    }
}
