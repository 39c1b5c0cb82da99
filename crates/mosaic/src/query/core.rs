//! The [`Query`] type and `World::query*`.

use std::marker::PhantomData;

use super::access::assert_no_aliasing;
use super::default_filter::{Gate, Skip};
use super::plan::{ChangedWalk, Plan, visit_candidates, visit_entities, visit_rows};
use super::{Driving, QueryData, QueryError, QueryFilter, QueryIter, ReadOnlyQueryData};
use smallvec::SmallVec;

use crate::component::Components;
use crate::entity::{Entities, Entity};
use crate::storage::{SparseSet, Ticks};
use crate::world::World;

/// Which entities a query walks.
#[derive(Clone, Copy)]
pub(crate) enum Driver<'w> {
    /// A required component was never registered: nothing matches.
    Empty,
    /// The smallest required pool, or the matching owning group's rows.
    Pool(Driving<'w>),
    /// No component is required: every live entity.
    All,
}

/// A query over a borrowed world: the entities with the components `Q` names that pass filter
/// `F`, made by [`World::query`], [`World::query_filtered`] or [`World::query_ref`].
///
/// Iteration walks one pool of the required components (those fetched as `&T` or `&mut T`, and
/// those named by [`With`](crate::With)), tests each entity against the others, and yields the
/// matches in that pool's row order; O(n_walk * c). The walked pool is the smallest fetched one,
/// unless a `With` pool is under a quarter of its size; rows it shares in order with the other
/// pools (entities spawned together) need no lookup. A query that requires nothing (only `Entity`
/// and `Option`s) walks every live entity. When the walked pool holds consecutive entity indices
/// in order and a `With` pool is sorted by index, `for_each` and the parallel forms visit only the
/// `With` pool's entities among those rows (found by index, in the same order, with the same
/// items), so the rows the filter refuses cost nothing.
///
/// Made through `&mut World` (or `&World` for read-only `Q`), so no structural change can happen
/// while it exists; record those in a [`CommandBuffer`](crate::CommandBuffer).
///
/// Disabled entities (those with [`Disabled`](crate::Disabled), or a type registered with
/// [`World::register_disabling_component`]) are skipped by every method (iteration, `get`,
/// `count`, `single`, chunks, combinations, the parallel forms) unless `Q` or `F` names the
/// disabling type (`Has<Disabled>`, `Option<&Disabled>`, `With<Disabled>` ...); bevy's default
/// query filters. While no entity is disabled this costs one check when the query is built.
///
/// One name per operation, as in bevy: a read-only query's [`get`](Query::get),
/// [`iter`](Query::iter), [`single`](Query::single), [`try_single`](Query::try_single) and
/// `&query` take `&self`, so its items can be held side by side; the exclusive forms, which a
/// query that writes needs, are [`get_mut`](Query::get_mut), [`iter_mut`](Query::iter_mut),
/// [`single_mut`](Query::single_mut), [`try_single_mut`](Query::try_single_mut) and `&mut query`
/// (`_mut` marks the exclusive borrow). [`for_each`](Query::for_each) serves both: it takes
/// `&self` on a read-only query and `&mut self` on one that writes.
///
/// # Panics
/// Creating a query whose `Q` accesses one component mutably twice, or mutably and immutably
/// (also through `Option`), panics naming the component, since it would alias a `&mut`.
///
/// # Examples
/// ```
/// use mosaic::{Component, Entity, With, World};
///
/// #[derive(Component)] struct Position(f32);
/// #[derive(Component)] struct Velocity(f32);
/// #[derive(Component)] struct Player;
///
/// let mut world = World::new();
/// world.spawn((Position(0.0), Velocity(1.0)));
/// world.spawn((Position(0.0), Velocity(2.0), Player));
///
/// for (pos, vel) in world.query::<(&mut Position, &Velocity)>() {
///     pos.0 += vel.0;
/// }
/// let players: Vec<Entity> = world.query_filtered::<Entity, With<Player>>().into_iter().collect();
/// assert_eq!(players.len(), 1);
/// assert_eq!(world.get::<Position>(players[0]).unwrap().0, 2.0);
/// ```
pub struct Query<'w, Q: QueryData, F: QueryFilter = ()> {
    exclusive: ExclusiveQuery<'w, Q, F>,
}

/// The state of a [`Query`] and its internal walks: every `Query` dereferences to one, so you
/// never name this type.
///
/// Its [`for_each`](ExclusiveQuery::for_each) is the internal walk of a query that writes
/// (`&mut self`). Its `get`, `iter`, `single` and `try_single` taking `&mut self` are
/// deprecated: before 0.2 a writing query reached them through the same names as a read-only
/// query's `&self` methods, so `iter` silently meant `iter_mut`; call [`Query::get_mut`],
/// [`Query::iter_mut`], [`Query::single_mut`] and [`Query::try_single_mut`].
///
/// # Examples
/// ```
/// use mosaic::{Component, World};
///
/// #[derive(Component)]
/// struct Health(u32);
///
/// let mut world = World::new();
/// let e = world.spawn(Health(3));
/// let mut q = world.query::<&mut Health>();
/// q.get_mut(e).unwrap().0 -= 1;
/// for health in q.iter_mut() {
///     health.0 *= 10;
/// }
/// q.for_each(|health| health.0 += 1); // `ExclusiveQuery::for_each`, through `&mut q`
/// assert_eq!(world.get::<Health>(e).unwrap().0, 21);
/// ```
pub struct ExclusiveQuery<'w, Q: QueryData, F: QueryFilter = ()> {
    /// The world the query borrows: its entities, and the disabling pools `skip` names.
    pub(crate) world: &'w World,
    pub(crate) driver: Driver<'w>,
    /// The change window: what `Added` / `Changed` compare with, and the tick `&mut` terms stamp.
    pub(crate) ticks: Ticks,
    /// The disabling pools this query skips (none while no entity is disabled, or when the
    /// query names them): decided once, when the query is built.
    pub(crate) skip: Skip,
    _marker: PhantomData<fn() -> (Q, F)>,
}

impl<'w, Q: QueryData, F: QueryFilter> std::ops::Deref for Query<'w, Q, F> {
    type Target = ExclusiveQuery<'w, Q, F>;

    /// The query's state and its `&mut self` methods (see [`ExclusiveQuery`]).
    #[inline(always)]
    fn deref(&self) -> &ExclusiveQuery<'w, Q, F> {
        &self.exclusive
    }
}

impl<Q: QueryData, F: QueryFilter> std::ops::DerefMut for Query<'_, Q, F> {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.exclusive
    }
}

impl<'w, Q: QueryData, F: QueryFilter> Query<'w, Q, F> {
    /// Checks `Q` for aliasing and picks the driving pool.
    ///
    /// Only sound to call with a world the caller may access as `Q` says: exclusively borrowed,
    /// or shared when `Q` is read-only.
    /// World-level queries read changes since the last `clear_trackers` and stamp with the
    /// present tick.
    ///
    /// Inline: out of line, each query over one pool paid about 30 instructions more (the
    /// peer suite's frag_iter, 840 -> 871 per run, when unrelated code moved the inliner's
    /// choice).
    #[inline]
    #[track_caller]
    pub(super) fn new(world: &'w World) -> Self {
        assert_no_aliasing(std::any::type_name::<Q>(), |visit| Q::visit_access(visit));
        F::check_tracked(world.components());
        // SAFETY: the aliasing check just passed; access rights are the caller's (see above).
        unsafe { Self::new_unchecked(world, world.change_ticks()) }
    }

    /// Builds the query without the aliasing check, picking the driving pool.
    ///
    /// # Safety
    /// - `Q`'s accesses do not alias (checked elsewhere, e.g. when a system was added);
    /// - for `'w`, nothing else accesses `Q`'s components in a conflicting way and the world is
    ///   not changed structurally.
    ///
    /// `ticks` is the reader's change window (a system's last and present run).
    pub(crate) unsafe fn new_unchecked(world: &'w World, ticks: Ticks) -> Self {
        let components = world.components();
        let mut required = SmallVec::<[&'w SparseSet; 8]>::new();
        let mut missing = false;
        // Pools `Q` fetches from come first (`fetched` of them), then those only `F` names.
        let mut fetched = 0;
        let mut collect = |pool: Option<&'w SparseSet>, from_data: bool| match pool {
            Some(pool) => {
                if !required.iter().any(|&p| std::ptr::eq(p, pool)) {
                    required.push(pool);
                    fetched += usize::from(from_data);
                }
            }
            None => missing = true,
        };
        Q::visit_required(components, &mut |pool| collect(pool, true));
        F::visit_required(components, &mut |pool| collect(pool, false));
        let driver = if missing {
            Driver::Empty
        } else if let Some(group) = world.groups().owning.iter().find(|g| {
            g.owned.len() == required.len()
                && g.owned.iter().all(|&id| required.iter().any(|&p| std::ptr::eq(p, components.pool(id))))
        }) {
            // An owning group holds exactly the required components: walk its packed rows.
            let pool = components.pool(group.owned[0]);
            Driver::Pool(Driving { pool, group: Some((group.len, &group.owned)), groups: None })
        } else {
            match pick_driver(&required, fetched) {
                Some(pool) => Driver::Pool(Driving { pool, group: None, groups: Some(world.groups()) }),
                None => Driver::All,
            }
        };
        Self {
            exclusive: ExclusiveQuery {
                world,
                driver,
                ticks,
                skip: Skip::of::<Q, F>(world),
                _marker: PhantomData,
            },
        }
    }
}

impl<'w, Q: QueryData, F: QueryFilter> ExclusiveQuery<'w, Q, F> {
    /// When the filter names `Added<T>` / `Changed<T>` and `T`'s change log since the window
    /// opened is shorter than a quarter of the walk: a walk over that part of the log, driven by
    /// `T`'s pool (each entity once, in the order of its latest change). Walking it and testing
    /// the rest of the query costs O(changes) instead of O(rows).
    pub(crate) fn change_candidates(&self) -> Option<ChangedWalk<'w>> {
        let pool = F::change_driver(self.components())?;
        let changes = pool.changes()?;
        let walk = match self.driver {
            Driver::Empty => return None,
            Driver::Pool(driving) => driving.rows().len(),
            Driver::All => self.entities().len() as usize,
        };
        // SAFETY: the query's filter reads `T`'s changes, so it holds read access to `T` for 'w
        // (declared to the scheduler by `Changed`/`Added`, or by borrowing the world): no query
        // writing `T` runs meanwhile, except this query's own terms, whose stamps only set
        // pending flags; the log is drained before the slice is taken.
        let (first, entries) = unsafe { changes.entries_since(self.ticks, pool.lookup()) };
        if entries.len().saturating_mul(4) >= walk {
            return None;
        }
        Some(ChangedWalk {
            driving: Driving { pool, group: None, groups: None },
            changes,
            lookup: pool.lookup(),
            entries: entries.iter(),
            end: first + entries.len(),
            window: self.ticks.window(),
        })
    }

    /// What the query walks (see `query/plan.rs`): picked once per iteration, from the driver
    /// and, for a change filter, the length of the change log since the window opened.
    pub(crate) fn plan(&self) -> Plan<'w> {
        if let Some(walk) = self.change_candidates() {
            return Plan::Changed(walk);
        }
        match self.driver {
            Driver::Empty => Plan::Empty,
            Driver::Pool(driving) => Plan::Rows(driving),
            Driver::All => Plan::All,
        }
    }

    /// The world's component pools.
    #[inline(always)]
    pub(crate) fn components(&self) -> &'w Components {
        self.world.components()
    }

    /// The world's entities.
    #[inline(always)]
    pub(crate) fn entities(&self) -> &'w Entities {
        self.world.entities()
    }

    /// What walks test besides the filter: liveness (for a lazily cleaned driver) and the
    /// disabling pools this query skips.
    #[inline(always)]
    pub(crate) fn gate(&self) -> Gate<'w> {
        Gate { world: self.world, skip: self.skip }
    }

    /// Builds an iterator whose items live for `'a`, a borrow of this query.
    #[inline]
    fn make_iter<'a>(&'a self) -> QueryIter<'a, Q, F> {
        make_iter(self.components(), self.gate(), self.plan(), self.ticks)
    }

    /// The old exclusive form of `iter`: on a query that writes, call [`Query::iter_mut`]
    /// (`_mut` marks the exclusive borrow); a read-only query's [`Query::iter`] takes `&self`.
    #[deprecated(since = "0.2.0", note = "on a query that writes, `iter_mut` is the exclusive walk")]
    #[inline]
    pub fn iter(&mut self) -> QueryIter<'_, Q, F> {
        self.make_iter()
    }

    /// Calls `f` with each matching entity's item, in the order [`Query::iter_mut`] yields
    /// them: internal iteration, a tight loop over the driving pool's rows.
    #[inline]
    pub fn for_each(&mut self, f: impl FnMut(Q::Item<'_>)) {
        // SAFETY: `&mut self` is held for the whole walk, so no other item of this query is alive.
        unsafe { self.for_each_unchecked(f) }
    }

    /// The item of one entity, borrowing the query exclusively: what [`Query::get_mut`] returns.
    /// O(c) lookups.
    ///
    /// # Errors
    /// [`QueryError::Entity`] if `entity` is not alive in this world ([`EntityError::NoSuchEntity`](crate::EntityError::NoSuchEntity),
    /// or [`EntityError::ForeignEntity`](crate::EntityError::ForeignEntity) for another world's handle); [`QueryError::NoMatch`] if it lacks
    /// a required component or fails the filter.
    pub(crate) fn get_exclusive(&mut self, entity: Entity) -> Result<Q::Item<'_>, QueryError> {
        // SAFETY: the item borrows `self` mutably, so no other item of this query is alive.
        unsafe { self.get_unchecked(entity) }
    }

    /// The item of the one entity the query matches, borrowing the query exclusively: what
    /// [`Query::try_single_mut`] returns. Walks at most two matches.
    ///
    /// # Errors
    /// [`QueryError::NoEntities`] if none matches; [`QueryError::MultipleEntities`] if more than
    /// one does.
    pub(crate) fn try_single_exclusive(&mut self) -> Result<Q::Item<'_>, QueryError> {
        single_in::<Q, _>(self.make_iter())
    }

    /// The old exclusive form of `get`: on a query that writes, call [`Query::get_mut`].
    ///
    /// # Errors
    /// As [`Query::get_mut`].
    #[deprecated(since = "0.2.0", note = "on a query that writes, `get_mut` is the exclusive lookup")]
    pub fn get(&mut self, entity: Entity) -> Result<Q::Item<'_>, QueryError> {
        self.get_exclusive(entity)
    }

    /// The old exclusive form of `single`: on a query that writes, call [`Query::single_mut`].
    ///
    /// # Panics
    /// As [`Query::single_mut`].
    #[deprecated(since = "0.2.0", note = "on a query that writes, `single_mut` is the exclusive form")]
    #[track_caller]
    pub fn single(&mut self) -> Q::Item<'_> {
        single_of(self.try_single_exclusive())
    }

    /// The old exclusive form of `try_single`: on a query that writes, call
    /// [`Query::try_single_mut`].
    ///
    /// # Errors
    /// As [`Query::try_single_mut`].
    #[deprecated(since = "0.2.0", note = "on a query that writes, `try_single_mut` is the exclusive form")]
    pub fn try_single(&mut self) -> Result<Q::Item<'_>, QueryError> {
        self.try_single_exclusive()
    }

    /// The old name of [`Query::try_single_mut`].
    ///
    /// # Errors
    /// As [`Query::try_single_mut`].
    #[deprecated(since = "0.2.0", note = "renamed to `try_single_mut`")]
    pub fn get_single(&mut self) -> Result<Q::Item<'_>, QueryError> {
        self.try_single_exclusive()
    }

    /// The body of [`ExclusiveQuery::for_each`] and [`Query::for_each`]: the query's plan, each
    /// walk through its loop body in `query/plan.rs` (which the parallel forms share), except the
    /// plain run below.
    ///
    /// # Safety
    /// No item `f` receives aliases another live item of this query: `Q` is read-only, or the
    /// caller holds `&mut` to the query for the call.
    #[inline]
    unsafe fn for_each_unchecked(&self, mut f: impl FnMut(Q::Item<'_>)) {
        let (components, gate, ticks) = (self.components(), self.gate(), self.ticks);
        let driving = match self.plan() {
            Plan::Rows(driving) => driving,
            Plan::Empty => return,
            Plan::Changed(mut walk) => {
                let driving = walk.driving;
                let rows = std::iter::from_fn(move || walk.next_row());
                // SAFETY: the walk is this query's, over the world it borrows, unchanged since;
                // it yields each row once, and no other item aliases (the caller's guarantee).
                return unsafe { visit_candidates::<Q, F>(components, gate, ticks, driving, rows, f) };
            }
            Plan::All => {
                // SAFETY: every live entity once, of the world this query borrows, with this
                // query's gate; no other item aliases (the caller's guarantee).
                return unsafe { visit_entities::<Q, F>(components, gate, ticks, gate.alive().iter(), f) };
            }
        };
        if !F::TRIVIAL || gate.is_needed(driving.pool.is_lazy()) {
            // SAFETY: the driver this query picked, over the world it borrows, unchanged since;
            // the whole range, visited once; no other item aliases (the caller's guarantee).
            return unsafe { self.visit_all_rows(driving, f) };
        }
        let data = Q::init_fetch(components, Some(driving), ticks);
        if Q::marks_changes(&data) {
            // SAFETY: as above.
            return unsafe { self.visit_all_rows(driving, f) };
        }
        // The hot loop, alone in this function so its fetch stays in registers: every aligned
        // row matches; no filter, no liveness, no disabled entity, no lookups, no change stamps.
        let entities = driving.rows();
        let aligned = Q::aligned_rows(&data).min(entities.len());
        for (row, &entity) in entities[..aligned].iter().enumerate() {
            // SAFETY: the fetch was made from the world this query borrows (exclusively, or
            // shared for read-only `Q`), unchanged since; `entity` is live (the driver is not
            // lazy) and not disabled for this query (it skips no disabling pool), `row` is its
            // row in the driver pool and below `aligned_rows`; each row is visited once, and no
            // other item aliases (the caller's guarantee); nothing is tracked (checked above).
            f(unsafe { Q::fetch_aligned_unmarked(&data, entity, row) });
        }
        for (row, &entity) in entities.iter().enumerate().skip(aligned) {
            // SAFETY: as above, through the checked lookup path; nothing stamps, so the writing
            // tuple's guard is not needed.
            if let Some(item) = unsafe { Q::fetch_matched(&data, entity, row) } {
                f(item);
            }
        }
    }

    /// Every driver row through [`visit_rows`]: a filter, a lazily cleaned driver, disabled
    /// entities to skip, or change stamps. Out of line, with its own fetch, so the plain loop's
    /// stays in registers (with every loop in one function, `option_iter` ran 11 -> 15.6 us).
    ///
    /// # Safety
    /// As [`ExclusiveQuery::for_each_unchecked`]; `driving` is this query's driver.
    #[inline(never)]
    unsafe fn visit_all_rows(&self, driving: Driving<'_>, f: impl FnMut(Q::Item<'_>)) {
        // SAFETY: forwarded from the caller: this query's driver over the world it borrows,
        // unchanged since, the whole range once, no aliasing item.
        unsafe {
            visit_rows::<Q, F>(self.components(), self.gate(), self.ticks, driving, 0, driving.rows(), f)
        }
    }

    /// The body of both `get`s.
    ///
    /// # Safety
    /// The item does not alias another live item of this query: `Q` is read-only, or the caller
    /// holds `&mut` to the query for the item's life.
    unsafe fn get_unchecked(&self, entity: Entity) -> Result<Q::Item<'_>, QueryError> {
        self.entities().check(entity)?;
        let no_match = QueryError::NoMatch { entity, query: std::any::type_name::<Q>() };
        let components: &Components = self.components();
        if !F::matches(&F::init_fetch(components, self.ticks), entity) || !self.gate().enabled(entity) {
            return Err(no_match);
        }
        let data = Q::init_fetch(components, None, self.ticks);
        // SAFETY: the fetch was made from the borrowed, unchanged world; `entity` is alive; with
        // no driver `row` is unused; no other item aliases (the caller's guarantee).
        unsafe { Q::fetch(&data, entity, usize::MAX) }.ok_or(no_match)
    }
}

/// The one item `iter` yields, or why it yields none or several. Takes at most two items.
fn single_in<Q: QueryData, I: Iterator>(mut iter: I) -> Result<I::Item, QueryError> {
    let query = std::any::type_name::<Q>();
    let first = iter.next().ok_or(QueryError::NoEntities { query })?;
    if iter.next().is_some() {
        return Err(QueryError::MultipleEntities { query });
    }
    Ok(first)
}

/// The item of a `try_single`, or its error as a panic at the caller's `single`.
#[track_caller]
fn single_of<T>(result: Result<T, QueryError>) -> T {
    match result {
        Ok(item) => item,
        Err(error) => panic!("{error}"),
    }
}

/// Read-only queries: the item methods take `&self`, so items can be held side by side (bevy's
/// `get`/`iter`/`single` on a read-only query), and a query parameter needs no `mut`.
impl<'w, Q: ReadOnlyQueryData, F: QueryFilter> Query<'w, Q, F> {
    /// Iterates the matching entities' items; see [`QueryIter`] for the order.
    ///
    /// A query that writes has [`Query::iter_mut`] (`&mut self`) instead.
    ///
    /// # Examples
    /// ```
    /// use mosaic::{Component, World};
    ///
    /// #[derive(Component)]
    /// struct Score(u32);
    ///
    /// let mut world = World::new();
    /// world.spawn(Score(3));
    /// world.spawn(Score(4));
    /// let q = world.query::<&Score>(); // no `mut` needed
    /// let total: u32 = q.iter().map(|s| s.0).sum();
    /// let best = q.iter().map(|s| s.0).max();
    /// assert_eq!((total, best), (7, Some(4)));
    /// ```
    #[inline]
    pub fn iter(&self) -> QueryIter<'_, Q, F> {
        self.make_iter()
    }

    /// Calls `f` with each matching entity's item, in the order [`Query::iter`] yields them:
    /// internal iteration, a tight loop over the driving pool's rows.
    #[inline]
    pub fn for_each(&self, f: impl FnMut(Q::Item<'_>)) {
        // SAFETY: `Q` is read-only: its items are shared references, which may alias.
        unsafe { self.for_each_unchecked(f) }
    }

    /// The item of one entity, through a shared borrow: several may be held at once. O(c)
    /// lookups. A query that writes has [`Query::get_mut`] (`&mut self`) instead.
    ///
    /// # Errors
    /// [`QueryError::Entity`] if `entity` is not alive in this world ([`EntityError::NoSuchEntity`](crate::EntityError::NoSuchEntity),
    /// or [`EntityError::ForeignEntity`](crate::EntityError::ForeignEntity) for another world's handle); [`QueryError::NoMatch`] if it lacks
    /// a required component or fails the filter.
    ///
    /// # Examples
    /// ```
    /// use mosaic::{Component, Entity, Query, World};
    ///
    /// #[derive(Component)]
    /// struct Position(f32);
    ///
    /// fn distance(q: &Query<&Position>, a: Entity, b: Entity) -> f32 {
    ///     let (pa, pb) = (q.get(a).unwrap(), q.get(b).unwrap());
    ///     (pa.0 - pb.0).abs()
    /// }
    ///
    /// let mut world = World::new();
    /// let (a, b) = (world.spawn(Position(1.0)), world.spawn(Position(4.0)));
    /// assert_eq!(distance(&world.query::<&Position>(), a, b), 3.0);
    /// ```
    pub fn get(&self, entity: Entity) -> Result<Q::Item<'_>, QueryError> {
        // SAFETY: `Q` is read-only: its items are shared references, which may alias.
        unsafe { self.get_unchecked(entity) }
    }

    /// The items of `N` entities at once, in the order given; an entity may be listed more than
    /// once, since the items only read. O(N * c).
    ///
    /// # Errors
    /// For the first entity that fails, as [`Query::get`].
    pub fn get_many<const N: usize>(&self, entities: [Entity; N]) -> Result<[Q::Item<'_>; N], QueryError> {
        let mut items = [(); N].map(|()| None);
        for (slot, entity) in items.iter_mut().zip(entities) {
            *slot = Some(self.get(entity)?);
        }
        Ok(items.map(|item| item.expect("each slot filled above")))
    }

    /// The item of the one entity the query matches.
    ///
    /// # Panics
    /// If the query matches no entity or more than one; see [`Query::try_single`].
    #[track_caller]
    pub fn single(&self) -> Q::Item<'_> {
        single_of(self.try_single())
    }

    /// The item of the one entity the query matches; the fallible form of [`Query::single`].
    /// Walks at most two matches.
    ///
    /// # Errors
    /// [`QueryError::NoEntities`] if none matches; [`QueryError::MultipleEntities`] if more than
    /// one does.
    ///
    /// # Examples
    /// ```
    /// use mosaic::{Component, QueryError, World};
    ///
    /// #[derive(Component)]
    /// struct Player(u32);
    ///
    /// let mut world = World::new();
    /// assert!(matches!(world.query::<&Player>().try_single(), Err(QueryError::NoEntities { .. })));
    /// world.spawn(Player(1));
    /// world.query::<&mut Player>().single_mut().0 += 1;
    /// assert_eq!(world.query::<&Player>().single().0, 2);
    /// ```
    pub fn try_single(&self) -> Result<Q::Item<'_>, QueryError> {
        single_in::<Q, _>(self.iter())
    }

    /// The old name of [`Query::try_single`] (`try_` names the fallible twin of a panicking
    /// call; bevy 0.16 retired `get_single` too).
    ///
    /// # Errors
    /// As [`Query::try_single`].
    #[deprecated(since = "0.2.0", note = "renamed to `try_single`")]
    pub fn get_single(&self) -> Result<Q::Item<'_>, QueryError> {
        self.try_single()
    }
}

impl<'w, Q: QueryData, F: QueryFilter> Query<'w, Q, F> {
    /// Iterates the matching entities' items, borrowing the query exclusively, with `&mut` items
    /// for `&mut T` terms (bevy's name; see [`QueryIter`] for the order). On a read-only query
    /// [`Query::iter`] (`&self`) yields the same items.
    #[inline]
    pub fn iter_mut(&mut self) -> QueryIter<'_, Q, F> {
        self.exclusive.make_iter()
    }

    /// The item of one entity, borrowing the query exclusively, with `&mut` items for `&mut T`
    /// terms (bevy's name). O(c) lookups.
    ///
    /// # Errors
    /// As [`Query::get`].
    #[inline]
    pub fn get_mut(&mut self, entity: Entity) -> Result<Q::Item<'_>, QueryError> {
        self.exclusive.get_exclusive(entity)
    }

    /// The item of the one entity the query matches, borrowing the query exclusively (bevy's
    /// name for mutable access).
    ///
    /// # Panics
    /// If the query matches no entity or more than one; see [`Query::try_single_mut`].
    #[track_caller]
    pub fn single_mut(&mut self) -> Q::Item<'_> {
        single_of(self.exclusive.try_single_exclusive())
    }

    /// The fallible form of [`Query::single_mut`]. Walks at most two matches.
    ///
    /// # Errors
    /// As [`Query::try_single`].
    pub fn try_single_mut(&mut self) -> Result<Q::Item<'_>, QueryError> {
        self.exclusive.try_single_exclusive()
    }

    /// The old name of [`Query::try_single_mut`].
    ///
    /// # Errors
    /// As [`Query::try_single`].
    #[deprecated(since = "0.2.0", note = "renamed to `try_single_mut`")]
    pub fn get_single_mut(&mut self) -> Result<Q::Item<'_>, QueryError> {
        self.exclusive.try_single_exclusive()
    }

    /// The items of `N` distinct entities at once, in the order given: the mutable form of
    /// [`Query::get`] for several entities (bevy's `get_many_mut`). O(N^2 + N * c).
    ///
    /// # Errors
    /// [`QueryError::DuplicateEntity`] if an entity is listed twice (checked first, so nothing is
    /// fetched); else, for the first entity that fails, as [`Query::get`]: not alive (the
    /// entity layer's error), or [`QueryError::NoMatch`].
    ///
    /// # Examples
    /// ```
    /// use mosaic::{Component, World};
    ///
    /// #[derive(Component)]
    /// struct Fuel(u32);
    ///
    /// let mut world = World::new();
    /// let (a, b) = (world.spawn(Fuel(10)), world.spawn(Fuel(0)));
    /// let mut q = world.query::<&mut Fuel>();
    /// let [from, to] = q.get_many_mut([a, b]).unwrap();
    /// std::mem::swap(&mut from.0, &mut to.0);
    /// assert!(q.get_many_mut([a, a]).is_err()); // the same entity twice
    /// ```
    pub fn get_many_mut<const N: usize>(
        &mut self,
        entities: [Entity; N],
    ) -> Result<[Q::Item<'_>; N], QueryError> {
        for (i, &entity) in entities.iter().enumerate() {
            if entities[..i].contains(&entity) {
                return Err(QueryError::DuplicateEntity { entity });
            }
        }
        for &entity in &entities {
            self.entities().check(entity)?;
            if !self.contains(entity) {
                return Err(QueryError::NoMatch { entity, query: std::any::type_name::<Q>() });
            }
        }
        let data = Q::init_fetch(self.components(), None, self.ticks);
        Ok(entities.map(|entity| {
            // SAFETY: the fetch was made from the borrowed, unchanged world; every entity is alive
            // and matches (checked above, so the fetch returns `Some`); with no driver `row` is
            // unused; the entities are distinct, so no row is handed out twice, and the items
            // borrow `self` mutably, so no other item of this query is alive meanwhile.
            unsafe { Q::fetch(&data, entity, usize::MAX) }.expect("checked to match above")
        }))
    }
}

/// The pool to walk among the `required` ones, of which the first `fetched` are fetched by the
/// query's data and the rest only named by its filter (`With`).
///
/// The smallest fetched pool, which the other fetched pools filled by the same spawns line up
/// with (so its rows need no lookups), unless a filter's pool is smaller than a quarter of it:
/// then walking that pool and looking the fetched components up costs less than testing the
/// filter on every row. With no fetched pool, the smallest filter pool.
fn pick_driver<'w>(required: &[&'w SparseSet], fetched: usize) -> Option<&'w SparseSet> {
    let smallest = |pools: &[&'w SparseSet]| pools.iter().copied().min_by_key(|p| p.len());
    let (data, filter) = required.split_at(fetched);
    match (smallest(data), smallest(filter)) {
        (Some(data), Some(filter)) if filter.len().saturating_mul(4) < data.len() => Some(filter),
        (Some(data), _) => Some(data),
        (None, filter) => filter,
    }
}

/// An iterator over what `plan` walks, with fetches made from `components`.
///
/// Each plan builds its iterator in its own arm, the change walk set on that one alone: with the
/// walk assigned after a shared constructor, the compiler no longer knew the row plan's walk is
/// `None`, and the `for` loop over the fast run kept its state on the stack (simple_iter_for: 171k
/// against 191k instructions per 10,000 items).
#[inline]
fn make_iter<'a, Q: QueryData, F: QueryFilter>(
    components: &'a Components,
    gate: Gate<'a>,
    plan: Plan<'a>,
    ticks: Ticks,
) -> QueryIter<'a, Q, F> {
    let filter = F::init_fetch(components, ticks);
    // The gate of a driver that is lazily cleaned or has disabled entities to skip: `None` (no
    // test per row) otherwise.
    let gate_of = |lazy: bool| gate.is_needed(lazy).then_some((lazy, gate));
    match plan {
        Plan::Rows(driving) => {
            let live_check = gate_of(driving.pool.is_lazy());
            QueryIter::new(
                (components, ticks),
                Q::init_fetch(components, Some(driving), ticks),
                filter,
                driving.rows(),
                None,
                live_check,
            )
        }
        Plan::Empty => QueryIter::new(
            (components, ticks),
            Q::init_fetch(components, None, ticks),
            filter,
            &[],
            None,
            None,
        ),
        Plan::All => QueryIter::new(
            (components, ticks),
            Q::init_fetch(components, None, ticks),
            filter,
            &[],
            Some(gate.alive().iter()),
            gate_of(false),
        ),
        Plan::Changed(walk) => {
            // A change walk's iterator has no rows of its own.
            let live_check = gate_of(walk.driving.pool.is_lazy());
            let data = Q::init_fetch(components, Some(walk.driving), ticks);
            let mut iter = QueryIter::new((components, ticks), data, filter, &[], None, live_check);
            iter.changed = Some(walk);
            iter
        }
    }
}

impl<'w, Q: QueryData, F: QueryFilter> IntoIterator for Query<'w, Q, F> {
    type Item = Q::Item<'w>;
    type IntoIter = QueryIter<'w, Q, F>;

    /// Iterates the items for the query's whole borrow of the world.
    fn into_iter(self) -> QueryIter<'w, Q, F> {
        make_iter(self.components(), self.gate(), self.plan(), self.ticks)
    }
}

impl<'a, Q: ReadOnlyQueryData, F: QueryFilter> IntoIterator for &'a Query<'_, Q, F> {
    type Item = Q::Item<'a>;
    type IntoIter = QueryIter<'a, Q, F>;

    /// `for item in &query` on a read-only query, as [`Query::iter`].
    fn into_iter(self) -> QueryIter<'a, Q, F> {
        self.make_iter()
    }
}

impl<'a, Q: QueryData, F: QueryFilter> IntoIterator for &'a mut Query<'_, Q, F> {
    type Item = Q::Item<'a>;
    type IntoIter = QueryIter<'a, Q, F>;

    fn into_iter(self) -> QueryIter<'a, Q, F> {
        self.make_iter()
    }
}
