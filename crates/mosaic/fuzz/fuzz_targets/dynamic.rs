//! Run-time components against a model (the `Model` of `tests/it/dynamic_model.rs`, shared with
//! the property test): the fuzzer's bytes decode into registrations, spawns, inserts, in-place
//! writes, takes, removals, despawns and run-time queries, every answer compared. Run with
//! `scripts/fuzz.sh` (it runs every target).

#![no_main]

use arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;

#[path = "../../tests/it/dynamic_model.rs"]
mod dynamic_model;

use dynamic_model::{Model, Op};

fn op(u: &mut Unstructured<'_>) -> Result<Op> {
    Ok(match u.int_in_range(0..=8u8)? {
        0 => Op::Register(u.arbitrary()?),
        1 => {
            let n = u.int_in_range(0..=3u8)?;
            let mut values = Vec::new();
            for _ in 0..n {
                values.push((u.arbitrary()?, f32::from(u.arbitrary::<i16>()?)));
            }
            Op::Spawn(values)
        }
        2 => Op::Insert(u.arbitrary()?, u.arbitrary()?, f32::from(u.arbitrary::<i16>()?)),
        3 => Op::Set(u.arbitrary()?, u.arbitrary()?, f32::from(u.arbitrary::<i16>()?)),
        4 => Op::Take(u.arbitrary()?, u.arbitrary()?),
        5 => Op::Remove(u.arbitrary()?, u.arbitrary()?),
        6 => Op::Despawn(u.arbitrary()?),
        7 => Op::Query(u.arbitrary()?, u.arbitrary()?),
        _ => Op::Bump(u.arbitrary()?),
    })
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let mut model = Model::default();
    model.apply(&Op::Register(0));
    for _ in 0..200 {
        let Ok(op) = op(&mut u) else { break };
        model.apply(&op);
    }
});
