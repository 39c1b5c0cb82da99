//! 2D and 3D transforms and their propagation down the hierarchy.

use glam::{Affine2, Affine3A, Quat, Vec3};

use super::ops::HierarchyState;
use super::propagate::{TransformKind, propagate};
use crate::Component;
use crate::world::World;

/// An entity's 2D affine transform relative to its parent (to the world for a root).
#[derive(Component, Clone, Copy, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serialize", derive(serde::Serialize, serde::Deserialize))]
pub struct LocalTransform(pub Affine2);

/// An entity's 2D affine transform relative to the world, written by [`propagate_transforms`]:
/// the parent's global transform times the entity's [`LocalTransform`].
#[derive(Component, Clone, Copy, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serialize", derive(serde::Serialize, serde::Deserialize))]
pub struct GlobalTransform(pub Affine2);

/// Computes every [`GlobalTransform`] from its parent's and its [`LocalTransform`]: the parent's
/// global times the entity's local, roots using the identity as parent; entities outside any
/// hierarchy get `global = local`. An entity in the hierarchy without a `LocalTransform` passes
/// its parent's transform through (identity local); one without a `GlobalTransform` is computed
/// but not written.
///
/// First [`World::update_hierarchy_order`] puts parents before children (re-placing only what
/// changed). Then:
/// - **The first call** (and any call after more than 65,536 reparentings went unpropagated)
///   recomputes everything in one linear pass over the relationship pool, each row's global
///   being its parent row's global (already computed) times its local: O(n) in the entities with
///   transforms, one lookup per entity (its parent's row). The pools of `LocalTransform` and
///   `GlobalTransform` are put in the relationship pool's order ([`World::sort_as`], O(n) only
///   when that order changed), so their rows are read by index.
/// - **Every later call** recomputes only the subtrees of the entities whose `LocalTransform`
///   changed (or was added), whose `GlobalTransform` was added, or whose parent changed
///   (attach, detach, a parent's despawn) since the previous call, each entity once, parents
///   first: O(s log s + affected entities) for s such entities, with lookups; a call with no
///   change costs the ordering pass and two binary searches. It turns change tracking on for
///   both transform components ([`World::track_changes`]) and counts as a system run (it takes
///   a change tick).
///
/// Every global it writes counts as changed for [`Changed`](crate::Changed) readers. Writing a
/// `GlobalTransform` yourself is not undone until its entity's subtree is recomputed.
///
/// Add it to a [`Schedule`](crate::Schedule) as an exclusive system, or call it directly.
///
/// # Panics
/// If a group owns the pool of [`Relationship`](super::Relationship) (see [`super::HierarchyError::OwnedByGroup`]).
///
/// # Examples
/// ```
/// use glam::{Affine2, Vec2};
/// use mosaic::World;
/// use mosaic::hierarchy::{GlobalTransform, LocalTransform, propagate_transforms};
///
/// let mut world = World::new();
/// let shift = |x: f32| LocalTransform(Affine2::from_translation(Vec2::new(x, 0.0)));
/// let root = world.spawn((shift(1.0), GlobalTransform::default()));
/// let child = world.spawn((shift(2.0), GlobalTransform::default()));
/// world.set_parent(child, root).unwrap();
/// propagate_transforms(&mut world);
/// assert_eq!(world.get::<GlobalTransform>(child).unwrap().0.translation, Vec2::new(3.0, 0.0));
/// ```
#[track_caller]
pub fn propagate_transforms(world: &mut World) {
    propagate::<Flat>(world);
}

/// An entity's 3D transform relative to its parent (to the world for a root): translation,
/// rotation and scale, applied scale first (bevy's `Transform`).
#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serialize", derive(serde::Serialize, serde::Deserialize))]
pub struct Transform3d {
    /// Position, in the parent's units.
    pub translation: Vec3,
    /// Orientation, a unit quaternion.
    pub rotation: Quat,
    /// Scale per axis.
    pub scale: Vec3,
}

impl Default for Transform3d {
    fn default() -> Self {
        Self::IDENTITY
    }
}

impl Transform3d {
    /// No translation, rotation or scaling.
    pub const IDENTITY: Self = Self { translation: Vec3::ZERO, rotation: Quat::IDENTITY, scale: Vec3::ONE };

    /// A pure translation.
    pub fn from_translation(translation: Vec3) -> Self {
        Self { translation, ..Self::IDENTITY }
    }

    /// The affine matrix: scale, then rotate, then translate.
    pub fn matrix(&self) -> Affine3A {
        Affine3A::from_scale_rotation_translation(self.scale, self.rotation, self.translation)
    }
}

/// An entity's 3D affine transform relative to the world, written by
/// [`propagate_transforms_3d`]: the parent's global transform times the entity's
/// [`Transform3d`].
#[derive(Component, Clone, Copy, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serialize", derive(serde::Serialize, serde::Deserialize))]
pub struct GlobalTransform3d(pub Affine3A);

/// [`propagate_transforms`] for 3D transforms: computes every [`GlobalTransform3d`] from its
/// parent's and its [`Transform3d`], recomputing only what changed after the first call. Same
/// contract, costs and panics.
///
/// # Examples
/// ```
/// use glam::Vec3;
/// use mosaic::World;
/// use mosaic::hierarchy::{GlobalTransform3d, Transform3d, propagate_transforms_3d};
///
/// let mut world = World::new();
/// let up = |y: f32| Transform3d::from_translation(Vec3::new(0.0, y, 0.0));
/// let root = world.spawn((up(1.0), GlobalTransform3d::default()));
/// let child = world.spawn((up(2.0), GlobalTransform3d::default()));
/// world.set_parent(child, root).unwrap();
/// propagate_transforms_3d(&mut world);
/// assert_eq!(world.get::<GlobalTransform3d>(child).unwrap().0.translation, Vec3::new(0.0, 3.0, 0.0).into());
/// world.get_mut::<Transform3d>(root).unwrap().translation.y = 5.0;
/// propagate_transforms_3d(&mut world); // recomputes the root's subtree only
/// assert_eq!(world.get::<GlobalTransform3d>(child).unwrap().0.translation, Vec3::new(0.0, 7.0, 0.0).into());
/// ```
#[track_caller]
pub fn propagate_transforms_3d(world: &mut World) {
    propagate::<Solid>(world);
}

/// 2D transforms.
struct Flat;

impl TransformKind for Flat {
    type Local = LocalTransform;
    type Global = GlobalTransform;
    type Matrix = Affine2;
    const IDENTITY: Affine2 = Affine2::IDENTITY;
    const SLOT: usize = 0;
    #[inline]
    fn local(local: &LocalTransform) -> Affine2 {
        local.0
    }
    #[inline]
    fn set_global(global: &mut GlobalTransform, matrix: Affine2) {
        global.0 = matrix;
    }
    #[inline]
    fn global(global: &GlobalTransform) -> Affine2 {
        global.0
    }
    fn scratch(state: &mut HierarchyState) -> &mut Vec<Affine2> {
        &mut state.scratch
    }
    fn aligned(state: &mut HierarchyState) -> &mut [usize; 2] {
        &mut state.aligned
    }
}

/// 3D transforms.
struct Solid;

impl TransformKind for Solid {
    type Local = Transform3d;
    type Global = GlobalTransform3d;
    type Matrix = Affine3A;
    const IDENTITY: Affine3A = Affine3A::IDENTITY;
    const SLOT: usize = 1;
    #[inline]
    fn local(local: &Transform3d) -> Affine3A {
        local.matrix()
    }
    #[inline]
    fn set_global(global: &mut GlobalTransform3d, matrix: Affine3A) {
        global.0 = matrix;
    }
    #[inline]
    fn global(global: &GlobalTransform3d) -> Affine3A {
        global.0
    }
    fn scratch(state: &mut HierarchyState) -> &mut Vec<Affine3A> {
        &mut state.scratch3
    }
    fn aligned(state: &mut HierarchyState) -> &mut [usize; 2] {
        &mut state.aligned3
    }
}
