//! Unit tests of the entity allocator.

use super::*;

#[test]
fn recycles_with_new_generation() {
    let mut entities = Entities::new();
    let a = entities.alloc().unwrap();
    entities.free(a).unwrap();
    let b = entities.alloc().unwrap();
    assert_eq!(a.index(), b.index());
    assert_eq!(b.generation(), a.generation() + 1);
    assert!(!entities.is_alive(a));
    assert!(entities.is_alive(b));
    assert_eq!(entities.free(a), Err(EntityError::NoSuchEntity(a)));
}

#[test]
fn retires_slot_at_max_generation() {
    let mut entities = Entities::with_limits(2, 3);
    let mut seen = Vec::new();
    for _ in 0..3 {
        let e = entities.alloc().unwrap();
        assert_eq!(e.index(), 0);
        seen.push(e);
        entities.free(e).unwrap();
    }
    assert_eq!(entities.retired_count(), 1);
    let e = entities.alloc().unwrap();
    assert_eq!(e.index(), 1, "retired slot 0 must not be reused");
    for old in seen {
        assert!(!entities.is_alive(old));
    }
}

#[test]
fn alloc_many_gives_what_repeated_alloc_gives() {
    let script = |entities: &mut Entities| {
        let made: Vec<Entity> = (0..6).map(|_| entities.alloc().unwrap()).collect();
        for &e in [made[1], made[4], made[2]].iter() {
            entities.free(e).unwrap();
        }
        let reserved = entities.reserve_entity().unwrap();
        (made, reserved)
    };
    let (mut one, mut many) = (Entities::with_limits(12, 100), Entities::with_limits(12, 100));
    script(&mut one);
    script(&mut many);
    let singly: Vec<Entity> = (0..5).map(|_| one.alloc().unwrap()).collect();
    let mut batch = Vec::new();
    many.alloc_many(5, &mut batch).unwrap();
    let ids = |v: &[Entity]| v.iter().map(|e| (e.index(), e.generation())).collect::<Vec<_>>();
    assert_eq!(ids(&batch), ids(&singly), "free list first, most recent first, then fresh slots");
    assert_eq!(many.len(), one.len());
    assert!(batch.iter().all(|&e| many.is_alive(e)));
    // All or nothing: asking for one more than is left allocates nothing.
    let before = many.len();
    let left = 12 - many.slot_count() as usize;
    assert_eq!(many.alloc_many(left + 1, &mut batch), Err(EntityError::Exhausted { limit: 12 }));
    assert_eq!(many.len(), before, "nothing allocated");
    many.alloc_many(left, &mut batch).unwrap();
    assert_eq!(many.alloc(), Err(EntityError::Exhausted { limit: 12 }));
}

#[test]
fn exhaustion_is_an_error() {
    let mut entities = Entities::with_limits(2, u32::MAX);
    assert_eq!(entities.max_generation(), Entity::MAX_GENERATION, "clamped");
    entities.alloc().unwrap();
    entities.alloc().unwrap();
    assert_eq!(entities.alloc(), Err(EntityError::Exhausted { limit: 2 }));
}

#[test]
fn handles_of_another_allocator_are_foreign_not_stale() {
    let mut ours = Entities::new();
    let mut theirs = Entities::new();
    assert_ne!(ours.world_tag(), theirs.world_tag());
    let mine = ours.alloc().unwrap();
    let other = theirs.alloc().unwrap();
    assert_eq!((mine.index(), mine.generation()), (other.index(), other.generation()));
    assert!(!ours.is_alive(other));
    let foreign = EntityError::ForeignEntity { entity: other, world_tag: ours.world_tag() };
    assert_eq!(ours.check(other), Err(foreign));
    assert_eq!(ours.free(other), Err(foreign));
    ours.free(mine).unwrap();
    assert_eq!(ours.check(mine), Err(EntityError::NoSuchEntity(mine)));
    assert_eq!(ours.alloc().unwrap().world_tag(), ours.world_tag(), "recycled slots keep the tag");
}

#[test]
fn a_slot_is_one_word_and_tells_live_from_vacant() {
    assert_eq!(size_of::<Slot>(), 4);
    let mut entities = Entities::new();
    let e = entities.alloc().unwrap();
    entities.free(e).unwrap();
    // A handle with tag 0 and the vacant slot's next generation: the word matches, the slot
    // is not alive.
    let forged = Entity::from_bits(u64::from(e.generation() + 1) << 32).unwrap();
    assert_eq!((forged.index(), forged.world_tag()), (0, 0));
    assert!(!entities.is_alive(forged));
    let next = entities.alloc().unwrap();
    assert_eq!(next.generation(), e.generation() + 1);
    assert!(entities.is_alive(next) && !entities.is_alive(forged));
}

#[test]
fn retirement_at_the_full_generation_range() {
    let mut entities = Entities::new();
    let e = entities.alloc().unwrap();
    // Jump the slot to the last generation, as if it had been reused 2^24 - 2 times.
    entities.slots[0] = Slot::live(
        Entity::new(0, NonZeroU32::new(Entity::MAX_GENERATION).unwrap(), entities.world_tag())
            .packed_generation(),
    );
    let last = entities.alive_at(0).unwrap();
    assert_ne!(last, e);
    assert_eq!(last.generation(), Entity::MAX_GENERATION);
    entities.free(last).unwrap();
    assert_eq!(entities.retired_count(), 1, "the generation never wraps into the tag");
    assert_eq!(entities.alloc().unwrap().index(), 1);
}

#[test]
fn restored_round_trips_and_refuses_inconsistent_state() {
    let mut entities = Entities::with_limits(10, 5);
    let all: Vec<_> = (0..4).map(|_| entities.alloc().unwrap()).collect();
    entities.free(all[2]).unwrap();
    entities.free(all[0]).unwrap();
    let generations: Vec<u32> = entities.slot_generations().collect();
    let live: Vec<u32> = entities.iter().map(Entity::index).collect();
    let tag = entities.world_tag();
    let copy = entities.restored(tag, &generations, &live, entities.free_list()).unwrap();
    assert_eq!(copy.world_tag(), tag);
    assert_eq!(copy.slot_generations().collect::<Vec<_>>(), generations);
    assert_eq!(copy.iter().collect::<Vec<_>>(), entities.iter().collect::<Vec<_>>());
    assert_eq!(copy.free_list(), entities.free_list());
    assert_eq!((copy.len(), copy.max_slots(), copy.max_generation()), (2, 10, 5));
    assert!(entities.restored(tag, &[1; 11], &[], &[]).is_none(), "too many slots");
    assert!(entities.restored(tag, &[0], &[], &[]).is_none(), "generation 0");
    assert!(entities.restored(tag, &[6], &[], &[]).is_none(), "generation above the maximum");
    assert!(entities.restored(tag, &[1, 1], &[1, 0], &[]).is_none(), "live not increasing");
    assert!(entities.restored(tag, &[1, 1], &[0], &[0]).is_none(), "a live slot on the free list");
    assert!(entities.restored(tag, &[1, 1], &[], &[1, 1]).is_none(), "a free slot listed twice");
    assert!(entities.restored(tag, &[1], &[3], &[]).is_none(), "live out of range");
    assert!(entities.restored(tag, &[1, 2], &[0], &[]).is_none(), "a dead slot lost from the free list");
    assert!(
        entities.restored(tag, &[1, 5], &[0], &[]).is_some(),
        "a dead slot at the last generation is retired"
    );
}

#[test]
fn iter_yields_live_in_index_order() {
    let mut entities = Entities::new();
    let all: Vec<_> = (0..5).map(|_| entities.alloc().unwrap()).collect();
    entities.free(all[1]).unwrap();
    entities.free(all[3]).unwrap();
    let live: Vec<_> = entities.iter().collect();
    assert_eq!(live, vec![all[0], all[2], all[4]]);
    assert_eq!(entities.len(), 3);
}

#[test]
fn reserved_ids_match_what_alloc_would_give_and_flush_makes_them_alive() {
    let mut entities = Entities::with_limits(10, 5);
    let all: Vec<_> = (0..3).map(|_| entities.alloc().unwrap()).collect();
    entities.free(all[0]).unwrap();
    entities.free(all[2]).unwrap();
    let mut twin = entities.clone();
    let reserved: Vec<_> = (0..4).map(|_| entities.reserve_entity().unwrap()).collect();
    let allocated: Vec<_> = (0..4).map(|_| twin.alloc().unwrap()).collect();
    assert_eq!(reserved, allocated, "same ids, same order, same generations and tag");
    assert!(entities.needs_flush());
    assert!(reserved.iter().all(|&e| !entities.is_alive(e)), "reserved is not alive yet");
    assert_eq!(entities.len(), 1);
    assert_eq!(entities.flush(), 4);
    assert!(!entities.needs_flush());
    assert!(reserved.iter().all(|&e| entities.is_alive(e)));
    assert_eq!((entities.len(), entities.slot_count(), entities.free_list().len()), (5, 5, 0));
    assert_eq!(entities.flush(), 0);
}

#[test]
fn reserve_entities_is_all_or_nothing_and_alloc_flushes_first() {
    let mut entities = Entities::with_limits(4, 5);
    let first = entities.alloc().unwrap();
    entities.free(first).unwrap();
    let batch: Vec<_> = entities.reserve_entities(3).unwrap().collect();
    assert_eq!(batch.iter().map(|e| e.index()).collect::<Vec<_>>(), [0, 1, 2]);
    assert_eq!(batch[0].generation(), 2, "the freed slot's next generation");
    assert_eq!(entities.reserve_entities(2).err(), Some(EntityError::Exhausted { limit: 4 }));
    let last = entities.reserve_entity().unwrap();
    assert_eq!(last.index(), 3);
    assert_eq!(entities.reserve_entity(), Err(EntityError::Exhausted { limit: 4 }));
    // A free flushes the reservations before it touches the free list.
    entities.free(batch[1]).unwrap();
    assert_eq!(entities.len(), 3);
    assert!(entities.is_alive(last));
    assert_eq!(entities.alloc().unwrap().index(), 1);
}

#[test]
fn reservations_from_many_threads_are_distinct() {
    let mut entities = Entities::new();
    let freed: Vec<_> = (0..100).map(|_| entities.alloc().unwrap()).collect();
    for e in freed.iter().step_by(2) {
        entities.free(*e).unwrap();
    }
    let shared = &entities;
    let mut all: Vec<Entity> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..4)
            .map(|_| {
                scope.spawn(move || (0..100).map(|_| shared.reserve_entity().unwrap()).collect::<Vec<_>>())
            })
            .collect();
        workers.into_iter().flat_map(|w| w.join().unwrap()).collect()
    });
    all.sort_unstable();
    all.dedup();
    assert_eq!(all.len(), 400);
    assert_eq!(entities.flush(), 400);
    assert!(all.iter().all(|&e| entities.is_alive(e)));
    assert_eq!(entities.len(), 450);
}
