//! The model test's vocabulary: the components, the model of an entity, the operations and
//! the strategies that generate them.

use mosaic::Component;
use proptest::prelude::*;

use super::MAX_BATCH;

#[derive(Component, Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct A(pub(super) u32);
#[derive(Component, Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct B(pub(super) String);
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct C;

/// The model of one entity: which of the three components it has, and their values.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Row {
    pub(super) a: Option<u32>,
    pub(super) b: Option<String>,
    pub(super) c: bool,
}

impl Row {
    pub(super) fn component_count(&self) -> usize {
        usize::from(self.a.is_some()) + usize::from(self.b.is_some()) + usize::from(self.c)
    }
}

#[derive(Clone, Copy, Debug)]
pub(super) enum Kind {
    A,
    B,
    C,
}

#[derive(Clone, Debug)]
pub(super) enum Value {
    A(u32),
    B(String),
    C,
}

/// Chooses an entity handle: a live one (when `live` and there is one), or any handle ever issued,
/// live, dead or stale.
#[derive(Clone, Copy, Debug)]
pub(super) struct Pick {
    pub(super) live: bool,
    pub(super) n: usize,
}

#[derive(Clone, Debug)]
pub(super) enum Cmd {
    Spawn(Row),
    Insert(Pick, Value),
    InsertAb(Pick, u32, String),
    Remove(Pick, Kind),
    Despawn(Pick),
}

#[derive(Clone, Debug)]
pub(super) enum Op {
    Spawn(Row),
    SpawnBatch((bool, bool, bool), Vec<Row>),
    Despawn(Pick),
    Insert(Pick, Value),
    InsertBundle(Pick, u32, String),
    Remove(Pick, Kind),
    /// `World::insert_batch` of `A`s on the picked live entities (a pick may repeat).
    InsertBatch(Vec<(Pick, u32)>),
    /// `World::remove_batch` of one kind from the picked live entities (a pick may repeat).
    RemoveBatch(Vec<Pick>, Kind),
    Get(Pick),
    /// Uses the picked handle with its generation moved by one: stale or not yet issued.
    Forge(Pick, bool),
    Query,
    QueryMut(u32),
    Commands(Vec<Cmd>),
    CommandsFromQuery,
}

pub(super) fn value_a() -> impl Strategy<Value = u32> {
    0u32..1000
}

pub(super) fn value_b() -> impl Strategy<Value = String> {
    (0u16..1000).prop_map(|n| format!("b{n}"))
}

pub(super) fn row() -> impl Strategy<Value = Row> {
    (proptest::option::of(value_a()), proptest::option::of(value_b()), any::<bool>())
        .prop_map(|(a, b, c)| Row { a, b, c })
}

pub(super) fn batch() -> impl Strategy<Value = Op> {
    (any::<(bool, bool, bool)>(), proptest::collection::vec((value_a(), value_b()), 0..=MAX_BATCH)).prop_map(
        |(shape, values)| {
            let rows = values
                .into_iter()
                .map(|(a, b)| Row { a: shape.0.then_some(a), b: shape.1.then_some(b), c: shape.2 })
                .collect();
            Op::SpawnBatch(shape, rows)
        },
    )
}

pub(super) fn pick() -> impl Strategy<Value = Pick> {
    (proptest::bool::weighted(0.8), any::<usize>()).prop_map(|(live, n)| Pick { live, n })
}

pub(super) fn kind() -> impl Strategy<Value = Kind> {
    prop_oneof![Just(Kind::A), Just(Kind::B), Just(Kind::C)]
}

pub(super) fn value() -> impl Strategy<Value = Value> {
    prop_oneof![value_a().prop_map(Value::A), value_b().prop_map(Value::B), Just(Value::C),]
}

pub(super) fn cmd() -> impl Strategy<Value = Cmd> {
    prop_oneof![
        2 => row().prop_map(Cmd::Spawn),
        3 => (pick(), value()).prop_map(|(p, v)| Cmd::Insert(p, v)),
        1 => (pick(), value_a(), value_b()).prop_map(|(p, a, b)| Cmd::InsertAb(p, a, b)),
        2 => (pick(), kind()).prop_map(|(p, k)| Cmd::Remove(p, k)),
        2 => pick().prop_map(Cmd::Despawn),
    ]
}

pub(super) fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => row().prop_map(Op::Spawn),
        2 => batch(),
        4 => pick().prop_map(Op::Despawn),
        6 => (pick(), value()).prop_map(|(p, v)| Op::Insert(p, v)),
        1 => (pick(), value_a(), value_b()).prop_map(|(p, a, b)| Op::InsertBundle(p, a, b)),
        4 => (pick(), kind()).prop_map(|(p, k)| Op::Remove(p, k)),
        1 => proptest::collection::vec((pick(), value_a()), 0..=MAX_BATCH).prop_map(Op::InsertBatch),
        1 => (proptest::collection::vec(pick(), 0..=MAX_BATCH), kind()).prop_map(|(p, k)| Op::RemoveBatch(p, k)),
        2 => pick().prop_map(Op::Get),
        1 => (pick(), any::<bool>()).prop_map(|(p, up)| Op::Forge(p, up)),
        1 => Just(Op::Query),
        1 => value_a().prop_map(Op::QueryMut),
        2 => proptest::collection::vec(cmd(), 0..=MAX_BATCH).prop_map(Op::Commands),
        1 => Just(Op::CommandsFromQuery),
    ]
}
