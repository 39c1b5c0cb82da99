//! Reading input files with a size cap: a scene, a snapshot or a hash log larger than its cap
//! (or a device such as `/dev/zero` that never ends) is an error naming the limit, read no
//! further than one byte past it, instead of filling memory.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

/// The largest scene file read, in bytes: 1 MiB (the bundled scene is 1.6 KB).
pub const MAX_SCENE_BYTES: u64 = 1 << 20;

/// The largest snapshot read by `--load`, in bytes: 512 MiB (a binary snapshot of the bundled
/// scene's 100,500 entities is about 7 MB; RON about twice that).
pub const MAX_SNAPSHOT_BYTES: u64 = 512 << 20;

/// The largest hash log read by `--compare`, in bytes: 512 MiB (a log of 10^7 frames, the most
/// `--frames` runs, is about 270 MB).
pub const MAX_HASH_LOG_BYTES: u64 = 512 << 20;

/// Reads the whole file at `path` if it holds at most `cap` bytes. A regular file's size is
/// checked before reading; anything else (a pipe, a device) is read up to `cap + 1` bytes.
/// O(min(size, cap)) time and memory.
///
/// # Errors
/// The I/O error of opening or reading; an error of kind [`io::ErrorKind::FileTooLarge`]
/// saying "larger than the limit of N bytes for WHAT" if there is more than `cap`.
pub fn read_capped(path: &Path, cap: u64, what: &str) -> io::Result<Vec<u8>> {
    let file = File::open(path)?;
    let too_large = || {
        io::Error::new(
            io::ErrorKind::FileTooLarge,
            format!("larger than the limit of {cap} bytes for {what}"),
        )
    };
    if let Ok(metadata) = file.metadata()
        && metadata.is_file()
        && metadata.len() > cap
    {
        return Err(too_large());
    }
    let mut bytes = Vec::new();
    file.take(cap.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > cap {
        return Err(too_large());
    }
    Ok(bytes)
}

/// [`read_capped`], as UTF-8 text.
///
/// # Errors
/// As [`read_capped`]; an error of kind [`io::ErrorKind::InvalidData`] if the bytes are not
/// UTF-8.
pub fn read_text_capped(path: &Path, cap: u64, what: &str) -> io::Result<String> {
    String::from_utf8(read_capped(path, cap, what)?)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, format!("{what} is not UTF-8 text")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_over_the_cap_and_endless_devices_are_refused() {
        let path = std::env::temp_dir().join(format!("arena-files-{}", std::process::id()));
        std::fs::write(&path, b"0123456789").unwrap();
        assert_eq!(read_capped(&path, 10, "a test").unwrap(), b"0123456789");
        let error = read_capped(&path, 9, "a test").unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::FileTooLarge);
        assert_eq!(error.to_string(), "larger than the limit of 9 bytes for a test");
        std::fs::write(&path, [0xff, 0xfe]).unwrap();
        assert_eq!(read_text_capped(&path, 10, "a test").unwrap_err().kind(), io::ErrorKind::InvalidData);
        std::fs::remove_file(&path).unwrap();
        if Path::new("/dev/zero").exists() {
            let error = read_capped(Path::new("/dev/zero"), 1 << 16, "a test").unwrap_err();
            assert_eq!(error.kind(), io::ErrorKind::FileTooLarge);
        }
    }
}
