//! One module per library, each implementing [`Library`](crate::Library) with that library's
//! fastest fair API, plus the plain-`Vec` baseline.

pub mod bevy;
pub mod flecs;
pub mod hecs;
pub mod legion;
pub mod mosaic;
pub mod plain;
pub mod shipyard;
pub mod sparsey;
pub mod specs;

use crate::library::Library;

/// Every library, in report order: Mosaic and its variants, the baseline, then the peers
/// alphabetically.
pub fn all() -> Vec<Box<dyn Library>> {
    vec![
        Box::new(mosaic::Mosaic(mosaic::Variant::Plain)),
        Box::new(mosaic::Mosaic(mosaic::Variant::Group)),
        Box::new(mosaic::Mosaic(mosaic::Variant::SingleThreaded)),
        Box::new(mosaic::Mosaic(mosaic::Variant::Snapshot)),
        Box::new(mosaic::Mosaic(mosaic::Variant::Observed)),
        Box::new(mosaic::Mosaic(mosaic::Variant::ColumnBatch)),
        Box::new(plain::Plain),
        Box::new(bevy::Bevy),
        Box::new(flecs::Flecs),
        Box::new(hecs::Hecs),
        Box::new(hecs::HecsColumnBatch),
        Box::new(legion::Legion),
        Box::new(shipyard::Shipyard),
        Box::new(sparsey::Sparsey),
        Box::new(specs::Specs),
    ]
}

/// The library named `name` (a row label, or its first word: `mosaic`, `bevy`, ...).
pub fn by_name(name: &str) -> Option<Box<dyn Library>> {
    all().into_iter().find(|lib| lib.name() == name)
}

/// The serialize workloads' round trip, shared so every library pays the same codec: postcard
/// for binary, RON for text, both into and out of memory.
pub mod serde_rows {
    use serde::Serialize;
    use serde::de::DeserializeOwned;

    /// Serializes `value` (postcard, or RON when `text`) and reads it back as a `D`.
    ///
    /// # Panics
    /// If either codec fails (it cannot on these plain types).
    pub fn round_trip_from<S: Serialize + ?Sized, D: DeserializeOwned>(value: &S, text: bool) -> D {
        if text {
            let encoded = ron::to_string(value).expect("RON serialization");
            ron::from_str(&encoded).expect("RON deserialization")
        } else {
            let encoded = postcard::to_allocvec(value).expect("postcard serialization");
            postcard::from_bytes(&encoded).expect("postcard deserialization")
        }
    }

    /// [`round_trip_from`] to the same type.
    pub fn round_trip<T: Serialize + DeserializeOwned>(value: &T, text: bool) -> T {
        round_trip_from(value, text)
    }
}
