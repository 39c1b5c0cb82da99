//! Errors of saving and loading snapshots.

/// Why a snapshot could not be saved or loaded. Loading checks the whole snapshot before it
/// changes the world, so on any error the world is left as it was.
#[derive(Debug, thiserror::Error)]
pub enum SnapshotError {
    /// Writing RON failed (a registered type's `Serialize` reported an error).
    #[error("cannot write the snapshot as RON: {0}")]
    EncodeRon(#[source] ron::Error),
    /// Writing postcard failed (a registered type's `Serialize` reported an error).
    #[error("cannot write the snapshot as postcard: {0}")]
    EncodePostcard(#[source] postcard::Error),
    /// The RON text is malformed or truncated, or a value does not fit its registered type.
    #[error("cannot read the RON snapshot: {0}; is it a complete snapshot written by this version?")]
    DecodeRon(#[source] ron::error::SpannedError),
    /// The postcard bytes are malformed or truncated, or a value does not fit its registered type.
    #[error("cannot read the binary snapshot: {0}; is it a complete snapshot written by this version?")]
    DecodePostcard(#[source] postcard::Error),
    /// Bytes are left over after the snapshot.
    #[error("{0} bytes follow the end of the binary snapshot; it is corrupt or not a snapshot")]
    TrailingBytes(usize),
    /// The snapshot's format version is not the one this library reads.
    #[error(
        "snapshot format version {found} is not supported (this library writes version {expected} \
         and reads versions {} to {expected})",
        super::save::OLDEST_FORMAT_VERSION
    )]
    Version {
        /// The version in the snapshot.
        found: u32,
        /// The version this library writes and reads.
        expected: u32,
    },
    /// The snapshot's checksum (format 7 on: see [`seal_binary`](super::seal_binary) and
    /// [`seal_ron`](super::seal_ron)) is missing or does not match its content: a bit changed
    /// on disk or in transit, the file was cut off or edited. Nothing was loaded.
    #[error(
        "the {format} snapshot's checksum {}; the snapshot is corrupt (a changed bit, a cut-off or          hand-edited file): load a good copy",
        match stored {
            Some(stored) => format!("{stored:#010x} does not match its content's {computed:#010x}"),
            None => "is missing, and its format (7 or later) must have one".to_owned(),
        }
    )]
    Checksum {
        /// `"binary"` or `"RON"`.
        format: &'static str,
        /// The CRC-32 the snapshot carries; `None` if it has no place for one (a RON snapshot
        /// without the checksum line, a binary one under 4 bytes).
        stored: Option<u32>,
        /// The CRC-32 of the content.
        computed: u32,
    },
    /// The snapshot names a component or resource the registry does not know.
    #[error(
        "the snapshot has a {kind} named `{name}`, which is not registered; declare it under that \
         name before loading: `world.register::<T>().name(\"{name}\").serde()` \
         (`register_resource`, `register_relation`, `register_pair` for the other kinds), or on a \
         hand-built registry `SnapshotRegistry::register`"
    )]
    Unknown {
        /// `"component"`, `"resource"`, `"relation"` or `"pair kind"`.
        kind: &'static str,
        /// The unknown name.
        name: String,
    },
    /// A component or resource name appears twice, or names are not in sorted order.
    #[error("the snapshot lists the {kind} `{name}` twice or out of name order; it is corrupt")]
    DuplicateName {
        /// `"component"`, `"resource"`, `"relation"` or `"pair kind"`.
        kind: &'static str,
        /// The repeated or misplaced name.
        name: String,
    },
    /// An entity index appears twice (or out of index order) where each may appear once.
    #[error("entity index {index} appears twice (or out of index order) in {place}; the snapshot is corrupt")]
    DuplicateEntity {
        /// The repeated entity index.
        index: u32,
        /// Where: `"the entity list"`, `"the hierarchy"`, or the component's name.
        place: String,
    },
    /// Something refers to an entity index that is not a live entity of the snapshot.
    #[error("{place} refers to entity index {index}, which is not a live entity of the snapshot")]
    MissingEntity {
        /// The entity index referred to.
        index: u32,
        /// Where: `"the hierarchy"` or the component's name.
        place: String,
    },
    /// The world holds pairs of a relation kind the registry does not name, which the snapshot
    /// would lose.
    #[error(
        "the world holds pairs of relation `{relation}`, which the snapshot registry does not name; \
         declare it with `world.register_relation::<{short}>()` (a hand-built registry: \
         `registry.register_relation::<{short}>(\"name\")`) before saving",
        short = crate::types::short_name(relation)
    )]
    UnregisteredRelation {
        /// The relation type's name.
        relation: &'static str,
    },
    /// The world holds many-to-many pairs ([`World::add_pair`](crate::World::add_pair)) of a
    /// kind the registry does not name, which the snapshot would lose.
    #[error(
        "the world holds pairs of `{relation}`, which the snapshot registry does not name; declare \
         it with `world.register_pair::<{short}>().serde()` (a hand-built registry: \
         `registry.register_pair::<{short}>(\"name\")`; the name is what the snapshot calls the kind) \
         before saving and loading",
        short = crate::types::short_name(relation)
    )]
    UnregisteredPair {
        /// The pair kind's type name (`std::any::type_name::<R>()`).
        relation: &'static str,
    },
    /// The world holds rows of a component defined at run time from raw parts (a layout and a
    /// drop function, no schema), whose bytes snapshots cannot interpret: refused rather than
    /// saved without them. Run-time components with a schema are saved.
    #[error(
        "the world holds `{component}` rows, a run-time component made from raw parts (no schema), \
         which snapshots cannot save; give it a schema (`ComponentDescriptor::new`) or remove its rows \
         before saving (rollback and the world hash do cover them)"
    )]
    RunTimeComponent {
        /// The component's registered name.
        component: &'static str,
    },
    /// The world holds rows of a component type its [`TypeRegistry`](crate::types::TypeRegistry)
    /// cannot save (not declared `serde`): [`World::save_ron`](crate::World::save_ron) and
    /// [`World::save_binary`](crate::World::save_binary) refuse rather than drop them.
    #[error(
        "component `{type_name}` has rows in the world but snapshots cannot save it; declare it with \
         `world.register::<{short}>().serde()` (or `#[register(serde)]` on its derive), or remove it before saving",
        short = crate::types::short_name(type_name)
    )]
    UnsavedComponent {
        /// The type's Rust name.
        type_name: &'static str,
    },
    /// A run-time component in the snapshot has another schema than the component of that name
    /// the world declares.
    #[error("run-time component `{component}` has another schema in the snapshot: {detail}")]
    DynamicSchema {
        /// The component's name.
        component: String,
        /// The first difference, with the field's path.
        detail: String,
    },
    /// A relation's pairs, target marks and index do not agree, or a pair kind's pairs break
    /// its rules (a pair listed twice, an exclusive kind with two targets, a symmetric pair
    /// without its mirror, an unmarked target, slots that are not `0..n` per target).
    #[error(
        "relation `{relation}` is inconsistent at entity index {index}: {problem}; the snapshot is corrupt"
    )]
    Relation {
        /// The relation's or pair kind's registered name.
        relation: String,
        /// The entity index where the problem shows.
        index: u32,
        /// What is wrong.
        problem: &'static str,
    },
    /// Following parents in the snapshot's hierarchy comes back to an entity.
    #[error("the snapshot's hierarchy has a cycle through entity index {index}; the snapshot is corrupt")]
    HierarchyCycle {
        /// An entity on the cycle.
        index: u32,
    },
    /// The saved row orders would break an owning group of the world loaded into: a pool the
    /// group owns does not list first the entities that have all of the group's components, in
    /// the same order as the group's other pools.
    #[error(
        "the snapshot's row order of `{column}` does not list the members of this world's group ({}) \
         first, in the order of the group's other components; create exactly the groups the saved \
         world had before loading (and any other group after loading), or the snapshot is corrupt",
        .group.join(", ")
    )]
    GroupOrder {
        /// The group's component type names.
        group: Vec<&'static str>,
        /// The snapshot's name of the column whose order breaks it.
        column: String,
    },
    /// The saved state of the lazy collector's sampling sequence is 0, which the sequence never
    /// reaches.
    #[error("the snapshot's lazy-collector sampling state is 0, which no world has; the snapshot is corrupt")]
    Sampler,
    /// The saved entity allocator breaks an invariant, or does not fit this world's limits.
    #[error(
        "the snapshot's entity allocator is inconsistent or exceeds this world's limits ({slots} slots, \
         {live} live, {free} free; a free list missing a dead slot counts); the snapshot is corrupt or \
         from a world with other limits"
    )]
    Allocator {
        /// Slots in the snapshot.
        slots: usize,
        /// Live entities in the snapshot.
        live: usize,
        /// Free-list entries in the snapshot.
        free: usize,
    },
    /// The snapshot has more live entities than the world can still spawn.
    #[error("the snapshot has {needed} live entities but this world can spawn only {available} more")]
    Exhausted {
        /// Live entities in the snapshot.
        needed: usize,
        /// Entities the world can still spawn.
        available: u64,
    },
}
