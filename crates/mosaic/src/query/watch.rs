//! Watching the entity set of a query.

use std::any::TypeId;
use std::sync::Arc;

use smallvec::SmallVec;

use super::{QueryData, QueryFilter};
use crate::component::ComponentId;
use crate::world::{Disabled, HookContext, WatchId, World};

impl World {
    /// Calls `on_enter` right after an entity starts matching the query `Q` filtered by `F`, and
    /// `on_leave` right before it stops matching (a removal, an insert of a `Without` component,
    /// or despawn), while its components are still readable. `Option` and `Entity` terms do not
    /// affect matching. Disabled entities (see [`Disabled`](crate::Disabled)) are outside the
    /// set unless the query names the disabling type: disabling an entity leaves, enabling it
    /// enters. See [`World::add_watch`] for the cost and the callbacks' context.
    ///
    /// The founding design's `onManagedEntityAdded` / `onManagedEntityRemoved`.
    ///
    /// # Panics
    /// If the query requires no component, or is an enum query (or holds one): which variant an
    /// entity matches is not a set of required components.
    ///
    /// # Examples
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// use std::sync::Arc;
    /// use mosaic::{Component, Without, World};
    ///
    /// #[derive(Component)] struct Body;
    /// #[derive(Component)] struct Frozen;
    ///
    /// let mut world = World::new();
    /// let active = Arc::new(AtomicUsize::new(0));
    /// let (enter, leave) = (active.clone(), active.clone());
    /// world.watch::<&Body, Without<Frozen>>(
    ///     move |_| { enter.fetch_add(1, Ordering::Relaxed); },
    ///     move |_| { leave.fetch_sub(1, Ordering::Relaxed); },
    /// );
    /// let e = world.spawn(Body);
    /// assert_eq!(active.load(Ordering::Relaxed), 1);
    /// world.insert(e, Frozen);
    /// assert_eq!(active.load(Ordering::Relaxed), 0);
    /// ```
    #[track_caller]
    pub fn watch<Q: QueryData, F: QueryFilter>(
        &mut self,
        on_enter: impl Fn(&mut HookContext<'_>) + Send + Sync + 'static,
        on_leave: impl Fn(&mut HookContext<'_>) + Send + Sync + 'static,
    ) -> WatchId {
        assert!(
            !Q::SELECTIVE,
            "a watch cannot follow the query `{}`: an enum query's match is not a set of required \
             components; watch each variant's components instead",
            std::any::type_name::<Q>()
        );
        let mut required = SmallVec::<[ComponentId; 4]>::new();
        let mut excluded = SmallVec::<[ComponentId; 2]>::new();
        Q::register_required(self.components_mut(), &mut |id| required.push(id));
        F::register_ids(self.components_mut(), &mut |id| required.push(id), &mut |id| excluded.push(id));
        // A query skips disabled entities unless it names the disabling type, so its watch
        // treats each type it does not name as a `Without` (disabling leaves, enabling enters).
        let mut mentioned = SmallVec::<[TypeId; 8]>::new();
        Q::visit_mentioned(&mut |t| mentioned.push(t));
        F::visit_mentioned(&mut |t| mentioned.push(t));
        let disabled = (TypeId::of::<Disabled>(), self.register_component::<Disabled>());
        let disabling: SmallVec<[(TypeId, ComponentId); 4]> =
            std::iter::once(disabled).chain(self.disabling_components().iter().copied()).collect();
        for (type_id, id) in disabling {
            if !mentioned.contains(&type_id) && !excluded.contains(&id) {
                excluded.push(id);
            }
        }
        self.add_watch(&required, &excluded, Some(Arc::new(on_enter)), Some(Arc::new(on_leave)))
    }
}
