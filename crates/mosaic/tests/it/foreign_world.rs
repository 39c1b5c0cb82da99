//! Handles used in a world that did not make them: every API names the mistake
//! (`ForeignEntity`) instead of calling the handle stale, and none reaches the other world's
//! entity in the same slot.

use crate::common;

use common::{Position, Velocity};
#[cfg(feature = "serialize")]
use mosaic::SnapshotRegistry;
use mosaic::{CommandBuffer, ComponentError, EntityError, HierarchyError, QueryError, World};

/// A serializable component for the snapshot cases.
#[cfg(feature = "serialize")]
#[derive(mosaic::Component, Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
struct Speed(i32);

/// Two worlds whose first entities share index and generation, and differ only in world tag.
fn two_worlds() -> (World, World, mosaic::Entity, mosaic::Entity) {
    let mut ours = World::new();
    let mut theirs = World::new();
    let mine = ours.spawn((Position::new(1, 1), Velocity(1)));
    let other = theirs.spawn((Position::new(2, 2), Velocity(2)));
    assert_eq!((mine.index(), mine.generation()), (other.index(), other.generation()));
    assert_ne!(mine.world_tag(), other.world_tag());
    assert_ne!(mine, other);
    (ours, theirs, mine, other)
}

#[test]
fn every_entity_api_refuses_a_handle_of_another_world() {
    let (mut ours, _theirs, mine, other) = two_worlds();
    let world_tag = ours.entities().world_tag();
    assert!(!ours.is_alive(other));
    assert!(!ours.contains::<Position>(other));

    let foreign = EntityError::ForeignEntity { entity: other, world_tag };
    let component = ComponentError::Entity(EntityError::ForeignEntity { entity: other, world_tag });
    assert_eq!(ours.try_despawn(other), Err(foreign));
    assert_eq!(ours.get::<Position>(other).err(), Some(component));
    assert_eq!(ours.get_mut::<Position>(other).err(), Some(component));
    assert_eq!(ours.try_insert(other, Velocity(9)), Err(component));
    assert_eq!(ours.try_insert_bundle(other, (Velocity(9),)), Err(component));
    assert_eq!(ours.try_remove::<Velocity>(other), Err(component));
    assert_eq!(ours.component_ids(other).err(), Some(foreign));
    assert_eq!(ours.get_entity(other).err(), Some(foreign));
    assert_eq!(ours.get_entity_mut(other).err(), Some(foreign));
    assert_eq!(
        ours.query::<&Position>().get(other).err(),
        Some(QueryError::Entity(EntityError::ForeignEntity { entity: other, world_tag }))
    );
    assert_eq!(
        ours.set_parent(other, mine),
        Err(HierarchyError::Entity(EntityError::ForeignEntity { entity: other, world_tag }))
    );
    assert_eq!(
        ours.set_parent(mine, other),
        Err(HierarchyError::Entity(EntityError::ForeignEntity { entity: other, world_tag }))
    );

    // Nothing above touched our entity in the same slot.
    assert_eq!(ours.get::<Position>(mine), Ok(&Position::new(1, 1)));
    assert_eq!(ours.get::<Velocity>(mine), Ok(&Velocity(1)));
    assert_eq!(ours.len(), 1);
}

#[test]
fn the_message_names_both_worlds() {
    let (mut ours, _theirs, _mine, other) = two_worlds();
    let message = ours.try_despawn(other).unwrap_err().to_string();
    let (theirs_tag, ours_tag) = (other.world_tag(), ours.entities().world_tag());
    assert!(message.contains("belongs to another world"), "{message}");
    assert!(message.contains(&format!("world tag {theirs_tag}")), "{message}");
    assert!(message.contains(&format!("world tag {ours_tag}")), "{message}");
}

#[test]
#[should_panic(expected = "belongs to another world")]
fn despawn_panics_naming_the_other_world() {
    let (mut ours, _theirs, _mine, other) = two_worlds();
    ours.despawn(other);
}

#[test]
fn a_stale_handle_of_this_world_is_still_reported_as_stale() {
    let (mut ours, _theirs, mine, _other) = two_worlds();
    ours.despawn(mine);
    assert_eq!(ours.try_despawn(mine), Err(EntityError::NoSuchEntity(mine)));
}

#[test]
fn commands_for_another_worlds_entity_are_skipped() {
    let (mut ours, _theirs, mine, other) = two_worlds();
    let mut commands = CommandBuffer::new();
    commands.insert(other, Velocity(7));
    commands.despawn(other);
    let report = commands.apply(&mut ours);
    assert_eq!((report.applied, report.skipped, report.despawned), (0, 2, 0));
    assert_eq!(ours.get::<Velocity>(mine), Ok(&Velocity(1)));
}

#[test]
#[cfg(feature = "serialize")]
fn a_snapshot_loaded_into_an_empty_world_keeps_the_saved_handles() {
    let (mut ours, _theirs, mine, _other) = two_worlds();
    ours.insert(mine, Speed(1));
    let mut registry = SnapshotRegistry::new();
    registry.register::<Speed>("speed");
    let bytes = registry.save_binary(&mut ours).unwrap();
    let mut copy = World::new();
    let map = registry.load_binary(&mut copy, &bytes).unwrap();
    assert_eq!(copy.entities().world_tag(), ours.entities().world_tag(), "the copy takes the saved tag");
    assert_eq!(map.get(mine), Some(mine));
    assert_eq!(copy.get::<Speed>(mine), Ok(&Speed(1)));
    // Spawned after loading: same tag, next index.
    assert_eq!(copy.spawn_empty().world_tag(), mine.world_tag());
}

#[test]
#[cfg(feature = "serialize")]
fn a_snapshot_loaded_into_a_busy_world_remaps_to_that_worlds_tag() {
    let (mut ours, mut theirs, mine, other) = two_worlds();
    ours.insert(mine, Speed(1));
    let mut registry = SnapshotRegistry::new();
    registry.register::<Speed>("speed");
    let bytes = registry.save_binary(&mut ours).unwrap();
    let map = registry.load_binary(&mut theirs, &bytes).unwrap();
    let moved = map.get(mine).unwrap();
    assert_eq!(moved.world_tag(), other.world_tag());
    assert_eq!(theirs.get::<Speed>(moved), Ok(&Speed(1)));
    assert!(matches!(theirs.try_despawn(mine), Err(EntityError::ForeignEntity { .. })));
}
