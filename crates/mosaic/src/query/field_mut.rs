//! [`FieldMut<F>`]: one field of a struct-of-arrays row that records a change of that field only
//! when written through.

use std::marker::PhantomData;
use std::ops::{Deref, DerefMut};

use crate::storage::RowStamp;

/// Mutable access to one field of a struct-of-arrays component value that records a change of
/// that field (and of the row) only when written through: the fields of the view that a
/// [`Mut<T>`](crate::Mut) term hands out for a `#[component(storage = "soa")]` component (the
/// generated `TTracked` struct).
///
/// The first [`DerefMut`] (`*pos.x += 1.0`), [`FieldMut::set_changed`] or
/// [`FieldMut::into_inner`] stamps the field's tick and the row's; reading ([`Deref`]) stamps
/// nothing. So a [`Changed<T>`](crate::Changed) reader sees the row, and a
/// [`FieldChanged<T, I>`](crate::FieldChanged) reader sees exactly the fields written. No peer
/// ECS tracks changes per field (bevy and flecs track rows, EnTT reports `patch` calls).
///
/// Not `Send`: the fields of one row share the row's tick, which two threads must not stamp at
/// once. Cost: the first write of a field is two plain stores when the component is tracked
/// (plus three for the row's first), later ones test one flag.
///
/// # Examples
/// ```
/// use mosaic::{Component, Entity, FieldChanged, Mut, World};
///
/// #[derive(Component)]
/// #[component(storage = "soa", track_changes)]
/// struct Position { x: f32, y: f32 }
///
/// let mut world = World::new();
/// let a = world.spawn(Position { x: 0.0, y: 0.0 });
/// let b = world.spawn(Position { x: 5.0, y: 0.0 });
/// world.clear_trackers();
///
/// for mut p in world.query::<Mut<Position>>() {
///     if *p.x > 1.0 {
///         *p.y += 1.0; // marks `y` of `b` only
///     }
/// }
/// let moved_y: Vec<Entity> =
///     world.query_filtered::<Entity, FieldChanged<Position, { Position::FIELD_Y }>>().into_iter().collect();
/// let moved_x: Vec<Entity> =
///     world.query_filtered::<Entity, FieldChanged<Position, { Position::FIELD_X }>>().into_iter().collect();
/// assert_eq!(moved_y, [b]);
/// assert!(moved_x.is_empty());
/// # let _ = a;
/// ```
///
/// The fields of one row cannot go to different threads:
/// ```compile_fail
/// use mosaic::{Component, Mut, World};
///
/// #[derive(Component)]
/// #[component(storage = "soa")]
/// struct Position { x: f32, y: f32 }
///
/// let mut world = World::new();
/// let e = world.spawn(Position { x: 0.0, y: 0.0 });
/// let mut q = world.query::<Mut<Position>>();
/// let p = q.get(e).unwrap();
/// std::thread::scope(|s| {
///     s.spawn(move || *p.x.into_inner() = 1.0);
/// });
/// ```
pub struct FieldMut<'w, F> {
    value: &'w mut F,
    /// The row's stamp, shared by every field of the row.
    stamp: RowStamp<'w>,
    /// This field's index in declaration order.
    field: usize,
    /// Whether this field already recorded its write.
    marked: bool,
    /// Keeps the field on the thread that holds its row (see the type's doc).
    _not_send: PhantomData<*mut ()>,
}

impl<'w, F> FieldMut<'w, F> {
    /// The view of field `field` (declaration order) of the row `stamp` was made for. Called by
    /// the code `#[derive(Component)]` generates; not for use elsewhere.
    ///
    /// # Safety
    /// `value` is field `field` of the row `stamp` was made for, and the view's holder holds
    /// that row exclusively for `'w` (see [`RowStamp::new`]).
    #[doc(hidden)]
    #[inline(always)]
    pub unsafe fn from_stamp(value: &'w mut F, stamp: RowStamp<'w>, field: usize) -> Self {
        Self { value, stamp, field, marked: false, _not_send: PhantomData }
    }

    /// Records the field (and its row) as changed without writing. O(1).
    #[inline]
    pub fn set_changed(&mut self) {
        if !self.marked {
            self.marked = true;
            self.stamp.mark_field(self.field);
        }
    }

    /// Whether this field changed within the reader's window: since the system last ran, or
    /// since `World::clear_trackers` for a world-level query. A whole-row write (an insert,
    /// `&mut T`, `World::get_mut`) counts for every field. `true` when the component's changes
    /// are not tracked. O(1).
    #[inline]
    pub fn is_changed(&self) -> bool {
        self.stamp.is_field_changed(self.field)
    }

    /// The field, mutably, without recording a change.
    #[inline]
    pub fn bypass_change_detection(&mut self) -> &mut F {
        self.value
    }

    /// The `&mut F` inside for the view's whole lifetime, recording the change first.
    #[inline]
    pub fn into_inner(mut self) -> &'w mut F {
        self.set_changed();
        self.value
    }
}

impl<F> Deref for FieldMut<'_, F> {
    type Target = F;

    /// Reads the field; records nothing.
    #[inline(always)]
    fn deref(&self) -> &F {
        self.value
    }
}

impl<F> DerefMut for FieldMut<'_, F> {
    /// Hands out the field for writing, recording the change (once per view).
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut F {
        self.set_changed();
        self.value
    }
}

impl<F: std::fmt::Debug> std::fmt::Debug for FieldMut<'_, F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("FieldMut").field(&self.value).finish()
    }
}
