//! Run-time components against a model: random registrations, spawns, inserts, in-place writes,
//! takes, removals, despawns and run-time queries (`dynamic_model.rs`), every answer compared.

use proptest::prelude::*;

use super::dynamic_model::{Model, Op};

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        1 => any::<u8>().prop_map(Op::Register),
        3 => prop::collection::vec((any::<u8>(), -100.0f32..100.0), 0..4).prop_map(Op::Spawn),
        3 => (any::<u8>(), any::<u8>(), -100.0f32..100.0).prop_map(|(e, c, v)| Op::Insert(e, c, v)),
        2 => (any::<u8>(), any::<u8>(), -100.0f32..100.0).prop_map(|(e, c, v)| Op::Set(e, c, v)),
        1 => (any::<u8>(), any::<u8>()).prop_map(|(e, c)| Op::Take(e, c)),
        1 => (any::<u8>(), any::<u8>()).prop_map(|(e, c)| Op::Remove(e, c)),
        1 => any::<u8>().prop_map(Op::Despawn),
        2 => (any::<u8>(), any::<Option<u8>>()).prop_map(|(r, w)| Op::Query(r, w)),
        1 => any::<u8>().prop_map(Op::Bump),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(if cfg!(miri) { 4 } else { 64 }))]
    #[test]
    fn run_time_components_match_the_model(ops in prop::collection::vec(op(), 1..80)) {
        let mut model = Model::default();
        model.apply(&Op::Register(0));
        for op in &ops {
            model.apply(op);
        }
    }
}
