//! Hierarchy changes recorded in a [`CommandBuffer`] (and so in a system's
//! [`Commands`](crate::Commands)), applied with it.

use super::Relation;
use crate::entity::Entity;
use crate::world::{CommandBuffer, OpOutcome, World};

/// `World::relate::<R>(source, target)`: skipped if either is dead, refused on a self-relation `R`
/// does not allow.
fn relate<R: Relation>(world: &mut World, source: Entity, target: Option<Entity>) -> OpOutcome {
    let target = target.expect("recorded with a target");
    if !world.is_alive(source) || !world.is_alive(target) {
        return OpOutcome::Skipped;
    }
    match world.relate::<R>(source, target) {
        Ok(()) => OpOutcome::Applied { despawned: 0 },
        Err(_) => OpOutcome::Refused,
    }
}

/// `World::unrelate::<R>(source)`: skipped if it is dead.
fn unrelate<R: Relation>(world: &mut World, source: Entity, _: Option<Entity>) -> OpOutcome {
    if !world.is_alive(source) {
        return OpOutcome::Skipped;
    }
    world.unrelate::<R>(source);
    OpOutcome::Applied { despawned: 0 }
}

/// `World::set_parent(child, parent)`: skipped if either is dead, refused on a cycle.
fn set_parent(world: &mut World, child: Entity, parent: Option<Entity>) -> OpOutcome {
    let parent = parent.expect("recorded with a parent");
    if !world.is_alive(child) || !world.is_alive(parent) {
        return OpOutcome::Skipped;
    }
    match world.set_parent(child, parent) {
        Ok(()) => OpOutcome::Applied { despawned: 0 },
        Err(_) => OpOutcome::Refused,
    }
}

/// `World::remove_parent(child)`: skipped if it is dead.
fn remove_parent(world: &mut World, child: Entity, _: Option<Entity>) -> OpOutcome {
    match world.remove_parent(child) {
        Ok(_) => OpOutcome::Applied { despawned: 0 },
        Err(_) => OpOutcome::Skipped,
    }
}

/// `World::despawn_recursive(entity)`: skipped if it is dead.
fn despawn_recursive(world: &mut World, entity: Entity, _: Option<Entity>) -> OpOutcome {
    match world.try_despawn_recursive(entity) {
        Ok(despawned) => OpOutcome::Applied { despawned },
        Err(_) => OpOutcome::Skipped,
    }
}

impl CommandBuffer {
    /// Records [`World::set_parent`]`(child, parent)`. At apply time it is skipped (counted in
    /// [`ApplyReport::skipped`](crate::ApplyReport::skipped)) if either entity is no longer
    /// alive, and refused (counted in [`ApplyReport::refused`](crate::ApplyReport::refused)) if
    /// it would close a cycle. Either entity may be one this buffer spawns.
    ///
    /// # Examples
    /// ```
    /// use mosaic::{CommandBuffer, World};
    ///
    /// let mut world = World::new();
    /// let mut commands = CommandBuffer::new();
    /// let ship = commands.spawn(&world, ());
    /// let turrets: Vec<_> = (0..2).map(|_| commands.spawn(&world, ())).collect();
    /// for &turret in &turrets {
    ///     commands.set_parent(turret, ship);
    /// }
    /// commands.set_parent(ship, turrets[0]); // a cycle: refused
    /// let report = commands.apply(&mut world);
    /// assert_eq!((report.applied, report.refused), (5, 1));
    /// assert_eq!(world.children(ship).collect::<Vec<_>>(), turrets);
    /// ```
    pub fn set_parent(&mut self, child: Entity, parent: Entity) {
        self.push_op(child, Some(parent), set_parent);
    }

    /// Records [`World::remove_parent`]`(child)`; skipped at apply time if `child` is no longer
    /// alive.
    pub fn remove_parent(&mut self, child: Entity) {
        self.push_op(child, None, remove_parent);
    }

    /// Records [`World::despawn_recursive`]`(entity)`: `entity` and all its descendants as they
    /// are at apply time. Skipped if `entity` is no longer alive; every entity despawned is
    /// counted in [`ApplyReport::despawned`](crate::ApplyReport::despawned).
    pub fn despawn_recursive(&mut self, entity: Entity) {
        self.push_op(entity, None, despawn_recursive);
    }

    /// Records [`World::relate`]`::<R>(source, target)`. At apply time it is skipped if either
    /// entity is no longer alive, and refused (counted in
    /// [`ApplyReport::refused`](crate::ApplyReport::refused)) for a self-relation `R` does not
    /// allow. Either entity may be one this buffer spawns.
    ///
    /// # Examples
    /// ```
    /// use mosaic::hierarchy::Relation;
    /// use mosaic::{CommandBuffer, World};
    ///
    /// struct Follows;
    /// impl Relation for Follows {}
    ///
    /// let mut world = World::new();
    /// let leader = world.spawn_empty();
    /// let mut commands = CommandBuffer::new();
    /// let scout = commands.spawn(&world, ());
    /// commands.relate::<Follows>(scout, leader);
    /// commands.relate::<Follows>(leader, leader); // refused: no self-relation
    /// let report = commands.apply(&mut world);
    /// assert_eq!(report.refused, 1);
    /// assert_eq!(world.related::<Follows>(leader), [scout]);
    /// ```
    pub fn relate<R: Relation>(&mut self, source: Entity, target: Entity) {
        self.push_op(source, Some(target), relate::<R>);
    }

    /// Records [`World::unrelate`]`::<R>(source)`; skipped at apply time if `source` is no
    /// longer alive.
    pub fn unrelate<R: Relation>(&mut self, source: Entity) {
        self.push_op(source, None, unrelate::<R>);
    }
}
