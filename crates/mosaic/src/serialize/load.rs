//! Reading snapshots: parse everything, check everything, then change the world.

use std::any::TypeId;
use std::cell::RefCell;
use std::fmt;
use std::num::NonZeroU32;

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};

use super::checksum::{self, Opened};
use super::dynamic::{DynamicSeed, Known, LoadedDynamic};
use super::hierarchy::SavedHierarchy;
use super::order::{self, PoolKey, SavedOrder};
use super::registry::{Entry, Pending};
use super::relation::SavedRelation;
use super::save::{FORMAT_VERSION, LAST_UNSEALED_VERSION, OLDEST_FORMAT_VERSION};
use super::{EntityMap, SnapshotError, SnapshotRegistry};
use crate::entity::{Entities, Entity};
use crate::hierarchy::Relationship;
use crate::world::World;

/// A snapshot read but not yet checked or applied.
struct Parsed {
    world: u8,
    generations: Vec<u32>,
    free: Vec<u32>,
    entities: Vec<u32>,
    sampler: u64,
    hierarchy: SavedHierarchy,
    relations: Vec<SavedRelation>,
    /// Pair kinds in the saved world's set-up order (empty before format 6).
    pairs: Vec<Loaded>,
    /// Pair target marks' entity indices, in their pool's row order.
    pair_marks: Vec<u32>,
    components: Vec<Loaded>,
    resources: Vec<Loaded>,
    /// Run-time components' columns (empty before format 8).
    dynamic: Vec<LoadedDynamic>,
}

/// One column or resource as read.
struct Loaded {
    name: String,
    type_id: TypeId,
    data: Box<dyn Pending>,
    /// A column's entity indices in pool row order (empty for a resource).
    order: Vec<u32>,
}

/// Where an error found inside a serde callback is kept with its structure (serde errors carry
/// only text).
pub(super) type Stash<'a> = &'a RefCell<Option<SnapshotError>>;

pub(super) fn stash<E: de::Error>(stash: Stash<'_>, error: SnapshotError) -> E {
    let message = error.to_string();
    *stash.borrow_mut() = Some(error);
    E::custom(message)
}

#[derive(Deserialize)]
#[serde(field_identifier, rename_all = "snake_case")]
enum Field {
    Format,
    World,
    Generations,
    Free,
    Entities,
    Sampler,
    Hierarchy,
    Relations,
    Pairs,
    PairMarks,
    Components,
    Resources,
    Dynamic,
}

const FIELDS: &[&str] = &[
    "format",
    "world",
    "generations",
    "free",
    "entities",
    "sampler",
    "hierarchy",
    "relations",
    "pairs",
    "pair_marks",
    "components",
    "resources",
    "dynamic",
];

struct SnapshotSeed<'a> {
    registry: &'a SnapshotRegistry,
    /// The run-time components of the world loaded into.
    known: &'a [Known],
    stash: Stash<'a>,
    /// Each entry's data is a byte string of postcard (binary snapshots), not a nested value.
    binary: bool,
    /// `None` if the checksum matched (the format must be 7 or later); else the error to give
    /// if the snapshot says format 7 or later (it must have had a checksum).
    unsealed: Option<&'a dyn Fn() -> SnapshotError>,
}

impl<'de> DeserializeSeed<'de> for SnapshotSeed<'_> {
    type Value = Parsed;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Parsed, D::Error> {
        deserializer.deserialize_struct("Snapshot", FIELDS, self)
    }
}

impl SnapshotSeed<'_> {
    fn check_format<E: de::Error>(&self, found: u32) -> Result<(), E> {
        let sealed = LAST_UNSEALED_VERSION + 1..=FORMAT_VERSION;
        match self.unsealed {
            None if sealed.contains(&found) => Ok(()),
            Some(_) if (OLDEST_FORMAT_VERSION..=LAST_UNSEALED_VERSION).contains(&found) => Ok(()),
            Some(error) if sealed.contains(&found) => Err(stash(self.stash, error())),
            _ => Err(stash(self.stash, SnapshotError::Version { found, expected: FORMAT_VERSION })),
        }
    }

    fn components(&self) -> EntriesSeed<'_> {
        EntriesSeed {
            entries: &self.registry.components,
            kind: "component",
            ordered: true,
            stash: self.stash,
            binary: self.binary,
        }
    }

    fn pairs(&self) -> EntriesSeed<'_> {
        EntriesSeed {
            entries: &self.registry.pairs,
            kind: "pair kind",
            ordered: false,
            stash: self.stash,
            binary: self.binary,
        }
    }

    fn dynamic(&self) -> DynamicSeed<'_> {
        DynamicSeed { known: self.known, stash: self.stash }
    }

    fn resources(&self) -> EntriesSeed<'_> {
        EntriesSeed {
            entries: &self.registry.resources,
            kind: "resource",
            ordered: false,
            stash: self.stash,
            binary: self.binary,
        }
    }
}

impl<'de> Visitor<'de> for SnapshotSeed<'_> {
    type Value = Parsed;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a Mosaic snapshot")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Parsed, A::Error> {
        let missing =
            |i| de::Error::invalid_length(i, &"a snapshot of 13 fields (12 before format 8, 10 before 6)");
        let format: u32 = seq.next_element()?.ok_or_else(|| missing(0))?;
        self.check_format(format)?;
        let world = seq.next_element()?.ok_or_else(|| missing(1))?;
        let generations = seq.next_element()?.ok_or_else(|| missing(2))?;
        let free = seq.next_element()?.ok_or_else(|| missing(3))?;
        let entities = seq.next_element()?.ok_or_else(|| missing(4))?;
        let sampler = seq.next_element()?.ok_or_else(|| missing(5))?;
        let hierarchy = seq.next_element()?.ok_or_else(|| missing(6))?;
        let relations = seq.next_element()?.ok_or_else(|| missing(7))?;
        let (pairs, pair_marks) = if format >= 6 {
            (
                seq.next_element_seed(self.pairs())?.ok_or_else(|| missing(8))?,
                seq.next_element()?.ok_or_else(|| missing(9))?,
            )
        } else {
            (Vec::new(), Vec::new())
        };
        let at = if format >= 6 { 10 } else { 8 };
        Ok(Parsed {
            world,
            generations,
            free,
            entities,
            sampler,
            hierarchy,
            relations,
            pairs,
            pair_marks,
            components: seq.next_element_seed(self.components())?.ok_or_else(|| missing(at))?,
            resources: seq.next_element_seed(self.resources())?.ok_or_else(|| missing(at + 1))?,
            dynamic: if format >= 8 {
                seq.next_element_seed(self.dynamic())?.ok_or_else(|| missing(at + 2))?
            } else {
                Vec::new()
            },
        })
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Parsed, A::Error> {
        fn once<T, E: de::Error>(slot: &mut Option<T>, value: T, name: &'static str) -> Result<(), E> {
            match slot.replace(value) {
                None => Ok(()),
                Some(_) => Err(E::duplicate_field(name)),
            }
        }
        let (mut format, mut world, mut generations, mut free, mut entities) = (None, None, None, None, None);
        let (mut sampler, mut hierarchy, mut components, mut resources) = (None, None, None, None);
        let (mut relations, mut pairs, mut pair_marks, mut dynamic) = (None, None, None, None);
        while let Some(field) = map.next_key::<Field>()? {
            match field {
                Field::Format => {
                    let found: u32 = map.next_value()?;
                    self.check_format(found)?;
                    once(&mut format, found, "format")?;
                }
                Field::World => once(&mut world, map.next_value()?, "world")?,
                Field::Generations => once(&mut generations, map.next_value()?, "generations")?,
                Field::Free => once(&mut free, map.next_value()?, "free")?,
                Field::Entities => once(&mut entities, map.next_value()?, "entities")?,
                Field::Sampler => once(&mut sampler, map.next_value()?, "sampler")?,
                Field::Hierarchy => once(&mut hierarchy, map.next_value()?, "hierarchy")?,
                Field::Relations => once(&mut relations, map.next_value()?, "relations")?,
                Field::Pairs => once(&mut pairs, map.next_value_seed(self.pairs())?, "pairs")?,
                Field::PairMarks => once(&mut pair_marks, map.next_value()?, "pair_marks")?,
                Field::Components => {
                    once(&mut components, map.next_value_seed(self.components())?, "components")?
                }
                Field::Resources => {
                    once(&mut resources, map.next_value_seed(self.resources())?, "resources")?
                }
                Field::Dynamic => once(&mut dynamic, map.next_value_seed(self.dynamic())?, "dynamic")?,
            }
        }
        let format = format.ok_or_else(|| de::Error::missing_field("format"))?;
        // Format 5 had no pairs.
        if format < 6 {
            pairs = pairs.or_else(|| Some(Vec::new()));
            pair_marks = pair_marks.or_else(|| Some(Vec::new()));
        }
        // Formats before 8 had no run-time components.
        if format < 8 {
            dynamic = dynamic.or_else(|| Some(Vec::new()));
        }
        Ok(Parsed {
            world: world.ok_or_else(|| de::Error::missing_field("world"))?,
            generations: generations.ok_or_else(|| de::Error::missing_field("generations"))?,
            free: free.ok_or_else(|| de::Error::missing_field("free"))?,
            entities: entities.ok_or_else(|| de::Error::missing_field("entities"))?,
            sampler: sampler.ok_or_else(|| de::Error::missing_field("sampler"))?,
            hierarchy: hierarchy.ok_or_else(|| de::Error::missing_field("hierarchy"))?,
            relations: relations.ok_or_else(|| de::Error::missing_field("relations"))?,
            pairs: pairs.ok_or_else(|| de::Error::missing_field("pairs"))?,
            pair_marks: pair_marks.ok_or_else(|| de::Error::missing_field("pair_marks"))?,
            components: components.ok_or_else(|| de::Error::missing_field("components"))?,
            resources: resources.ok_or_else(|| de::Error::missing_field("resources"))?,
            dynamic: dynamic.ok_or_else(|| de::Error::missing_field("dynamic"))?,
        })
    }
}

/// A sequence of `(name, data)` pairs (`(name, data, order)` triples for columns), each data
/// read by its registered type.
struct EntriesSeed<'a> {
    entries: &'a [Entry],
    kind: &'static str,
    ordered: bool,
    stash: Stash<'a>,
    binary: bool,
}

impl<'de> DeserializeSeed<'de> for EntriesSeed<'_> {
    type Value = Vec<Loaded>;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for EntriesSeed<'_> {
    type Value = Vec<Loaded>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a sequence of (name, data) {}s", self.kind)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        // No capacity from the declared length: a hostile count must not reserve memory.
        let mut out = Vec::new();
        while let Some(item) = seq.next_element_seed(EntrySeed { parent: &self })? {
            out.push(item);
        }
        Ok(out)
    }
}

/// One `(name, data)` pair or `(name, data, order)` triple.
struct EntrySeed<'a> {
    parent: &'a EntriesSeed<'a>,
}

impl<'de> DeserializeSeed<'de> for EntrySeed<'_> {
    type Value = Loaded;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_tuple(if self.parent.ordered { 3 } else { 2 }, self)
    }
}

impl<'de> Visitor<'de> for EntrySeed<'_> {
    type Value = Loaded;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a (name, data) pair of a {}", self.parent.kind)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let parent = self.parent;
        let name: String = seq.next_element()?.ok_or_else(|| de::Error::invalid_length(0, &self))?;
        let Ok(at) = parent.entries.binary_search_by(|e| e.name.as_str().cmp(&name)) else {
            return Err(stash(parent.stash, SnapshotError::Unknown { kind: parent.kind, name }));
        };
        let entry = &parent.entries[at];
        let data = seq
            .next_element_seed(DataSeed { entry, binary: parent.binary, stash: parent.stash })?
            .ok_or_else(|| de::Error::invalid_length(1, &self))?;
        let order = if parent.ordered {
            seq.next_element()?.ok_or_else(|| de::Error::invalid_length(2, &self))?
        } else {
            Vec::new()
        };
        Ok(Loaded { name, type_id: entry.type_id, data, order })
    }
}

/// The data of one registered type: a byte string decoded by the type's own postcard code in a
/// binary snapshot, else read through its type-erased loader.
struct DataSeed<'a> {
    entry: &'a Entry,
    binary: bool,
    stash: Stash<'a>,
}

impl<'de> DeserializeSeed<'de> for DataSeed<'_> {
    type Value = Box<dyn Pending>;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        if self.binary {
            let bytes = <&'de [u8]>::deserialize(deserializer)?;
            return (self.entry.load_binary)(bytes).map_err(|error| stash(self.stash, error));
        }
        let mut erased = <dyn erased_serde::Deserializer>::erase(deserializer);
        (self.entry.load)(&mut erased).map_err(de::Error::custom)
    }
}

/// Checks names are strictly increasing.
fn check_names(entries: &[Loaded], kind: &'static str) -> Result<(), SnapshotError> {
    for pair in entries.windows(2) {
        if pair[0].name >= pair[1].name {
            return Err(SnapshotError::DuplicateName { kind, name: pair[1].name.clone() });
        }
    }
    Ok(())
}

/// Checks one column: its entity indices (what `indices` yields, in the order read) strictly increasing and
/// live, and its row order `order` listing exactly them, once each. `mark` is all zeros, one per
/// slot, and left so. O(rows).
fn check_column<I: Iterator<Item = u32>>(
    name: &str,
    indices: impl Fn() -> I,
    order: &[u32],
    live: &[bool],
    mark: &mut [u8],
) -> Result<(), SnapshotError> {
    // Per slot index: 0 = not in the column, 1 = in it, 2 = also listed in its row order.
    const IN_COLUMN: u8 = 1;
    const ORDERED: u8 = 2;
    let is_live = |index: u32| live.get(index as usize).copied().unwrap_or(false);
    let place = || format!("component `{name}`");
    let in_order = || format!("the row order of component `{name}`");
    let mut previous = None;
    let mut result = Ok(());
    for index in indices() {
        if previous.is_some_and(|p| p >= index) {
            result = Err(SnapshotError::DuplicateEntity { index, place: place() });
            break;
        }
        if !is_live(index) {
            result = Err(SnapshotError::MissingEntity { index, place: place() });
            break;
        }
        previous = Some(index);
        mark[index as usize] = IN_COLUMN;
    }
    if result.is_ok() {
        // The row order must list exactly the column's entities, once each.
        for &index in order {
            match mark.get(index as usize) {
                Some(&IN_COLUMN) => mark[index as usize] = ORDERED,
                Some(&ORDERED) => {
                    result = Err(SnapshotError::DuplicateEntity { index, place: in_order() });
                    break;
                }
                _ => {
                    result = Err(SnapshotError::MissingEntity { index, place: in_order() });
                    break;
                }
            }
        }
    }
    let mut unlisted = None;
    for index in indices() {
        match mark.get_mut(index as usize) {
            Some(m) => {
                if *m != ORDERED && unlisted.is_none() {
                    unlisted = Some(index);
                }
                *m = 0;
            }
            None => break,
        }
    }
    result?;
    match unlisted {
        Some(index) => Err(SnapshotError::MissingEntity { index, place: in_order() }),
        None => Ok(()),
    }
}

/// Checks everything that could make applying fail or break an invariant.
fn validate(parsed: &Parsed, live: &[bool]) -> Result<(), SnapshotError> {
    let is_live = |index: u32| live.get(index as usize).copied().unwrap_or(false);
    check_names(&parsed.components, "component")?;
    check_names(&parsed.resources, "resource")?;
    for pair in parsed.dynamic.windows(2) {
        if pair[0].name >= pair[1].name {
            return Err(SnapshotError::DuplicateName {
                kind: "run-time component",
                name: pair[1].name.clone(),
            });
        }
    }
    // One buffer serves every column: each check leaves it zeroed.
    let mut mark = vec![0u8; live.len()];
    for column in &parsed.components {
        check_column(&column.name, || column.data.indices(), &column.order, live, &mut mark)?;
    }
    for column in &parsed.dynamic {
        let indices = || column.rows.iter().map(|&(index, _)| index);
        check_column(&column.name, indices, &column.order, live, &mut mark)?;
    }
    parsed.hierarchy.validate(&is_live, live.len())?;
    validate_pairs(parsed, live, &mut mark)?;
    if parsed.sampler == 0 {
        return Err(SnapshotError::Sampler);
    }
    Ok(())
}

/// Checks the pair kinds and the target marks: each kind once, each mark live and once, then
/// each kind's own rules (`Pending::check`). `mark` is all zeros, one per slot, and left so.
fn validate_pairs(parsed: &Parsed, live: &[bool], mark: &mut [u8]) -> Result<(), SnapshotError> {
    let is_live = |index: u32| live.get(index as usize).copied().unwrap_or(false);
    let mut names: Vec<&str> = parsed.pairs.iter().map(|p| p.name.as_str()).collect();
    names.sort_unstable();
    if let Some(pair) = names.windows(2).find(|pair| pair[0] == pair[1]) {
        return Err(SnapshotError::DuplicateName { kind: "pair kind", name: pair[1].to_owned() });
    }
    let place = || "the pair target marks".to_owned();
    let mut result = Ok(());
    for &index in &parsed.pair_marks {
        if !is_live(index) {
            result = Err(SnapshotError::MissingEntity { index, place: place() });
            break;
        }
        if mark[index as usize] != 0 {
            result = Err(SnapshotError::DuplicateEntity { index, place: place() });
            break;
        }
        mark[index as usize] = 1;
    }
    let is_marked = |index: u32| mark.get(index as usize) == Some(&1);
    if result.is_ok() {
        result = parsed.pairs.iter().try_for_each(|kind| kind.data.check(&kind.name, &is_live, &is_marked));
    }
    for &index in &parsed.pair_marks {
        if let Some(m) = mark.get_mut(index as usize) {
            *m = 0;
        }
    }
    result
}

impl SnapshotRegistry {
    /// Loads a RON snapshot written by [`SnapshotRegistry::save_ron`] into `world`.
    ///
    /// Into a world that never had an entity (no slot used), the saved entity allocator is
    /// restored: every entity keeps its handle (generation included), so handles stored in
    /// components, resources or elsewhere stay valid, and later spawns reuse slots as the saved
    /// world would have. Into any other world, each saved entity is spawned anew; handles inside
    /// components registered with [`SnapshotRegistry::register_mapped`], hierarchy links, and the
    /// sources and targets of relations and pairs are rewritten to the new ids (handles to entities not in the snapshot become dead handles), and
    /// the returned [`EntityMap`] tells where each saved entity went.
    ///
    /// Each saved pool (the relationship pool included) takes its saved row order, the world's
    /// own rows after the loaded ones; the members of the world's owning groups stay packed in
    /// front. Into a world that never had an entity, the lazy collector's sampling state and the
    /// hierarchy ordering bookkeeping are restored too, so with the same groups the loaded world
    /// evolves exactly as the saved one would; into any other world, the world keeps its own and
    /// the loaded relationships are marked for the next ordering pass.
    ///
    /// Registered resources in the snapshot are inserted, replacing the world's. O(size of the
    /// snapshot + g * rows for g owning groups). Nothing in `world` changes unless the whole
    /// snapshot reads and checks out, its row orders against the world's groups included (except
    /// that ids reserved with [`World::reserve_entity`] are flushed into live entities first).
    ///
    /// A snapshot of format 7 or later must start with its checksum line (as
    /// [`SnapshotRegistry::save_ron`] writes it); formats 5 and 6 carry none and load without.
    ///
    /// # Errors
    /// [`SnapshotError::Checksum`] if the snapshot says format 7 or later and its checksum line
    /// is missing or does not match the text (a changed bit, a cut-off or edited file);
    /// [`SnapshotError::DecodeRon`] for malformed or truncated text or a value that does not fit
    /// its type; [`SnapshotError::Version`] for a format other than
    /// [`OLDEST_FORMAT_VERSION`](super::OLDEST_FORMAT_VERSION) to
    /// [`FORMAT_VERSION`](super::FORMAT_VERSION); [`SnapshotError::Unknown`] for an unregistered name;
    /// [`SnapshotError::Relation`] for relations or pairs that break their kind's rules;
    /// [`SnapshotError::DuplicateName`], [`SnapshotError::DuplicateEntity`],
    /// [`SnapshotError::MissingEntity`], [`SnapshotError::HierarchyCycle`],
    /// [`SnapshotError::Sampler`] and [`SnapshotError::Allocator`] for inconsistent data;
    /// [`SnapshotError::GroupOrder`] if the saved row orders would break one of the world's
    /// owning groups (create the saved world's groups before loading, others after);
    /// [`SnapshotError::Exhausted`] if the world cannot spawn that many entities.
    pub fn load_ron(&self, world: &mut World, text: &str) -> Result<EntityMap, SnapshotError> {
        // Sealed, the whole text is still parsed: the checksum line is a RON comment, and the
        // parser's line numbers then match the file's.
        let unsealed = match checksum::open_ron(text) {
            Opened::Sealed(_) => None,
            Opened::Unsealed { stored, computed, .. } => Some((stored, computed)),
        };
        let checksum_error = |&(stored, computed): &(Option<u32>, u32)| SnapshotError::Checksum {
            format: "RON",
            stored,
            computed,
        };
        let unsealed_error = unsealed.map(|u| move || checksum_error(&u));
        let stash = RefCell::new(None);
        let mut deserializer = ron::Deserializer::from_str(text).map_err(SnapshotError::DecodeRon)?;
        let known = super::dynamic::known(world);
        let seed = SnapshotSeed {
            registry: self,
            known: &known,
            stash: &stash,
            binary: false,
            unsealed: unsealed_error.as_ref().map(|f| f as &dyn Fn() -> SnapshotError),
        };
        let parsed = match seed.deserialize(&mut deserializer) {
            Ok(parsed) => parsed,
            Err(error) => {
                return Err(stash
                    .take()
                    .unwrap_or_else(|| SnapshotError::DecodeRon(deserializer.span_error(error))));
            }
        };
        if let Err(error) = deserializer.end() {
            return Err(SnapshotError::DecodeRon(deserializer.span_error(error)));
        }
        apply(self, world, parsed)
    }

    /// Loads a binary snapshot written by [`SnapshotRegistry::save_binary`] into `world`; see
    /// [`SnapshotRegistry::load_ron`] for what loading does.
    ///
    /// # Errors
    /// As [`SnapshotRegistry::load_ron`] ([`SnapshotError::Checksum`] if the snapshot says format 7
    /// or later and its last 4 bytes are not the checksum of the rest), with
    /// [`SnapshotError::DecodePostcard`] for malformed or truncated bytes and
    /// [`SnapshotError::TrailingBytes`] for bytes after the snapshot.
    pub fn load_binary(&self, world: &mut World, bytes: &[u8]) -> Result<EntityMap, SnapshotError> {
        let (bytes, unsealed) = match checksum::open_binary(bytes) {
            Opened::Sealed(content) => (content, None),
            Opened::Unsealed { content, stored, computed } => (content, Some((stored, computed))),
        };
        let checksum_error = |&(stored, computed): &(Option<u32>, u32)| SnapshotError::Checksum {
            format: "binary",
            stored,
            computed,
        };
        let unsealed_error = unsealed.map(|u| move || checksum_error(&u));
        let stash = RefCell::new(None);
        let mut deserializer = postcard::Deserializer::from_bytes(bytes);
        let known = super::dynamic::known(world);
        let seed = SnapshotSeed {
            registry: self,
            known: &known,
            stash: &stash,
            binary: true,
            unsealed: unsealed_error.as_ref().map(|f| f as &dyn Fn() -> SnapshotError),
        };
        let parsed = match seed.deserialize(&mut deserializer) {
            Ok(parsed) => parsed,
            Err(error) => return Err(stash.take().unwrap_or(SnapshotError::DecodePostcard(error))),
        };
        let rest = deserializer.finalize().map_err(SnapshotError::DecodePostcard)?;
        if !rest.is_empty() {
            return Err(SnapshotError::TrailingBytes(rest.len()));
        }
        apply(self, world, parsed)
    }
}

/// Checks `parsed` (against `world`'s groups too) and puts it into `world`.
fn apply(registry: &SnapshotRegistry, world: &mut World, parsed: Parsed) -> Result<EntityMap, SnapshotError> {
    // Reserved ids become live first: a world with reservations is not pristine, and a loaded
    // allocator must not hand a reserved id out again.
    world.flush();
    // Rows are written below without row events (into a pristine world): the value indexes
    // rebuild from the loaded pools on their next lookups.
    world.parts_mut().indexes.invalidate();
    let allocator_error = || SnapshotError::Allocator {
        slots: parsed.generations.len(),
        live: parsed.entities.len(),
        free: parsed.free.len(),
    };
    for pair in parsed.entities.windows(2) {
        if pair[0] >= pair[1] {
            return Err(SnapshotError::DuplicateEntity { index: pair[1], place: "the entity list".into() });
        }
    }
    let pristine = world.entities().slot_count() == 0;
    // The saved allocator must be consistent in any case; restoring it also needs this world's
    // limits to fit it.
    let limits = if pristine { world.entities().clone() } else { Entities::new() };
    let restored = limits
        .restored(parsed.world, &parsed.generations, &parsed.entities, &parsed.free)
        .ok_or_else(allocator_error)?;
    let mut live = vec![false; parsed.generations.len()];
    for &index in &parsed.entities {
        live[index as usize] = true;
    }
    validate(&parsed, &live)?;
    registry
        .check_relations(&parsed.relations, &|index| live.get(index as usize).copied().unwrap_or(false))?;
    let Parsed {
        world: saved_world,
        sampler,
        hierarchy,
        relations,
        pairs,
        pair_marks,
        components,
        resources,
        dynamic,
        generations,
        entities,
        ..
    } = parsed;
    // Each column's (name, type, row order), and the hierarchy's; the data goes in separately.
    let (columns, data): (Vec<_>, Vec<_>) =
        components.into_iter().map(|c| ((c.name, c.type_id, c.order), c.data)).unzip();
    let (dynamic_columns, dynamic_rows): (Vec<_>, Vec<_>) =
        dynamic.into_iter().map(|c| ((c.name, c.id, c.order), (c.id, c.rows))).unzip();
    let orders: Vec<SavedOrder<'_>> = columns
        .iter()
        .map(|(name, type_id, order)| SavedOrder { key: PoolKey::Type(*type_id), name, order })
        .chain(dynamic_columns.iter().map(|(name, id, order)| SavedOrder {
            key: PoolKey::Id(*id),
            name,
            order,
        }))
        .chain(std::iter::once(SavedOrder {
            key: PoolKey::Type(TypeId::of::<Relationship>()),
            name: "the hierarchy",
            order: &hierarchy.order,
        }))
        .collect();
    order::check_groups(world, &orders, live.len())?;
    if !pristine {
        let allocator = world.entities();
        let available =
            u64::from(allocator.max_slots() - allocator.slot_count()) + allocator.free_list().len() as u64;
        // One more for the dead handle unknown references map to.
        if (entities.len() as u64) + 1 > available {
            return Err(SnapshotError::Exhausted { needed: entities.len(), available });
        }
    }

    // Everything is checked: from here on the world changes.
    let mut map = EntityMap::default();
    map.reserve(entities.len());
    // Per saved slot index, where its live entity lives now (`None` for a slot not live).
    let mut now: Vec<Option<Entity>> = vec![None; generations.len()];
    let saved_entity = |index: u32| {
        // In range and valid: checked by `Entities::restored`.
        let generation = NonZeroU32::new(generations[index as usize]).unwrap_or(NonZeroU32::MIN);
        Entity::new(index, generation, saved_world)
    };
    if pristine {
        let parts = world.parts_mut();
        *parts.entities = restored;
        parts.component_sets.fit(generations.len());
        *parts.sampler = sampler;
        for &index in &entities {
            now[index as usize] = Some(saved_entity(index));
        }
    } else {
        world.reserve(entities.len());
        for &index in &entities {
            now[index as usize] = Some(world.spawn_empty());
        }
    }
    // Every index reaching this is live: checked by `validate`.
    let entity_of = |index: u32| now[index as usize].unwrap_or_else(|| unreachable!("{index} was validated"));
    // Into a world that had entities, handles inside values are rewritten: a saved entity's to
    // where it went, any other to a dead handle.
    let dead = (!pristine).then(|| {
        let dead = world.spawn_empty();
        world.despawn(dead);
        dead
    });
    let mut remap = |handle: Entity| {
        let index = handle.index();
        match now.get(index as usize).copied().flatten() {
            Some(entity)
                if handle.world_tag() == saved_world
                    && generations.get(index as usize) == Some(&handle.generation()) =>
            {
                entity
            }
            _ => dead.unwrap_or(handle),
        }
    };
    for column in data {
        column.apply(
            world,
            &entity_of,
            dead.is_some().then_some(&mut remap as &mut dyn FnMut(Entity) -> Entity),
        );
    }
    // Run-time components hold no entity handles (their scalars are numbers): nothing to remap.
    for (id, rows) in dynamic_rows {
        super::dynamic::insert_rows(world, id, rows, &entity_of);
    }
    hierarchy.apply(world, &entity_of, pristine);
    registry.apply_relations(world, relations, &entity_of);
    if !pair_marks.is_empty() {
        world.load_pair_marks(pair_marks.into_iter().map(&entity_of));
    }
    for kind in pairs {
        kind.data.apply(
            world,
            &entity_of,
            dead.is_some().then_some(&mut remap as &mut dyn FnMut(Entity) -> Entity),
        );
    }
    for resource in resources {
        resource.data.apply(world, &entity_of, None);
    }
    order::restore(world, &orders, &entity_of);
    for index in entities {
        map.insert(saved_entity(index), entity_of(index));
    }
    Ok(map)
}
