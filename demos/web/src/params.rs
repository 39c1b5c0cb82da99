//! The page's URL parameters (`?entities=N&seed=S&frames=F`), read through the same checks as
//! the command line's `--entities`, `--seed` and `--frames` ([`arena::validate::parse_count`],
//! [`arena::validate::parse_seed`]; the scene size check runs in
//! [`crate::WebArena::new`]): `entities=4294967396`, `abc`, `NaN`, `Infinity` or an empty value
//! is an error naming the parameter, shown on the page, never a wrapped or default value.

use arena::validate::{MAX_FRAMES, parse_count, parse_seed};
use wasm_bindgen::prelude::*;

/// The most entities the page runs: 2^21 (2,097,152). A wasm32 page has at most 4 GiB of
/// memory, and the arena takes about 100 bytes an entity with its headroom and entity cap; the
/// command line allows up to 2^26.
pub const MAX_WEB_ENTITIES: u64 = 1 << 21;

/// The page's settings, from its URL.
#[wasm_bindgen]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PageParams {
    entities: u32,
    seed: u64,
    frames: u32,
}

impl Default for PageParams {
    /// No parameters: the bundled scene's own count (0), the command line's seed `0x5EED`, and
    /// the checksum at frame 600.
    fn default() -> Self {
        Self { entities: 0, seed: 0x5EED, frames: 600 }
    }
}

#[wasm_bindgen]
impl PageParams {
    /// Reads `query` (the page's `location.search`, with or without its `?`). Parameters other
    /// than `entities`, `seed` and `frames` are ignored; each of these may be given once, its
    /// value as written (decimal digits; `seed` also `0x` and hexadecimal digits), not
    /// percent-encoded.
    ///
    /// # Errors
    /// A JavaScript `Error` naming the parameter and its value, for the page to show.
    #[wasm_bindgen(js_name = parse)]
    pub fn parse_js(query: &str) -> Result<PageParams, JsError> {
        Self::parse(query).map_err(|message| JsError::new(&message))
    }

    /// `entities`: about how many entities to scale the bundled scene to; 0 keeps its own.
    #[wasm_bindgen(getter)]
    pub fn entities(&self) -> u32 {
        self.entities
    }

    /// `seed`: the random generator's seed.
    #[wasm_bindgen(getter)]
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// `frames`: the frame whose checksum the page shows (1 to 10^7).
    #[wasm_bindgen(getter)]
    pub fn frames(&self) -> u32 {
        self.frames
    }
}

impl PageParams {
    /// As [`PageParams::parse_js`], with the error as text; usable off the web (tests).
    /// O(`query.len()`).
    ///
    /// # Errors
    /// As [`PageParams::parse_js`].
    pub fn parse(query: &str) -> Result<Self, String> {
        let mut params = Self::default();
        let mut seen = [false; 3];
        for pair in query.strip_prefix('?').unwrap_or(query).split('&').filter(|pair| !pair.is_empty()) {
            let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
            let slot = match name {
                "entities" => 0,
                "seed" => 1,
                "frames" => 2,
                _ => continue,
            };
            if std::mem::replace(&mut seen[slot], true) {
                return Err(format!("{name}: given twice; give it once"));
            }
            let error = |e: arena::validate::BadArgument| e.to_string();
            match slot {
                0 => params.entities = parse_count(name, value, MAX_WEB_ENTITIES).map_err(error)? as u32,
                1 => params.seed = parse_seed(name, value).map_err(error)?,
                _ => {
                    let frames = parse_count(name, value, MAX_FRAMES).map_err(error)?;
                    if frames == 0 {
                        return Err(format!("{name}: 0; give 1 to {MAX_FRAMES}"));
                    }
                    params.frames = frames as u32;
                }
            }
        }
        Ok(params)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::WebArena;

    #[test]
    fn good_parameters_and_none() {
        assert_eq!(PageParams::parse(""), Ok(PageParams::default()));
        assert_eq!(PageParams::parse("?"), Ok(PageParams::default()));
        let params = PageParams::parse("?entities=2000&seed=7&frames=30&debug=1").unwrap();
        assert_eq!((params.entities(), params.seed(), params.frames()), (2000, 7, 30));
        assert_eq!(PageParams::parse("seed=0x5eed").unwrap().seed(), 0x5EED);
        assert_eq!(PageParams::parse("entities=0").unwrap().entities(), 0);
    }

    #[test]
    fn bad_values_are_errors_naming_the_parameter() {
        for (query, start) in [
            ("entities=4294967396", "entities: 4294967396 is above the limit of 2097152"),
            ("entities=abc", "entities: `abc` is not a whole number"),
            ("entities=NaN", "entities: `NaN` is not a whole number"),
            ("entities=Infinity", "entities: `Infinity` is not a whole number"),
            ("entities=-5", "entities: `-5` is not a whole number"),
            ("entities=", "entities: `` is not a whole number"),
            ("entities", "entities: `` is not a whole number"),
            ("entities=2097153", "entities: 2097153 is above the limit"),
            ("seed=abc", "seed: `abc` is not a whole number"),
            ("seed=0xzz", "seed: `0xzz` is not a hexadecimal number"),
            ("seed=18446744073709551616", "seed: 18446744073709551616 is above the limit"),
            ("frames=0", "frames: 0; give 1 to 10000000"),
            ("frames=10000001", "frames: 10000001 is above the limit of 10000000"),
            ("entities=5&entities=6", "entities: given twice"),
        ] {
            let error = PageParams::parse(query).unwrap_err();
            assert!(error.starts_with(start), "{query}: {error}");
        }
    }

    #[test]
    fn the_command_line_size_check_applies_to_the_page() {
        // The bundled scene's grid at 2^21 entities: 2^21 / 100,500 times the area, within the
        // grid limit; the arena's limit applies to the constructor too.
        let error = WebArena::create(u32::MAX, 0, 8, 8).err().unwrap();
        assert!(error.starts_with("entities: 4294967295 is above the page's limit"), "{error}");
        let error = WebArena::create((MAX_WEB_ENTITIES + 1) as u32, 0, 8, 8).err().unwrap();
        assert!(error.starts_with("entities:"), "{error}");
    }
}
