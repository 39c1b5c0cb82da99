//! Queries built at run time: [`QueryBuilder`] (read, write, optional, with, without by
//! [`ComponentId`]), [`DynamicQuery`] and the rows it hands out.
//!
//! The walk is the typed query's: the smallest required pool drives, each other term finds its
//! row through its pool's sparse index (none when it is the driver), filters test membership,
//! and entities disabled by a disabling component the query does not name are skipped. Fields
//! are reached through [`TermField`] handles resolved once per query, so a row access is an
//! offset read, no name lookup.

use std::marker::PhantomData;
use std::ptr::NonNull;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use smallvec::SmallVec;

use super::{DynamicError, DynamicMut, DynamicRef};
use crate::component::ComponentId;
use crate::component::schema::{Primitive, Schema};
use crate::entity::Entity;
use crate::storage::{ChangeMarker, SparseSet};
use crate::world::{Disabled, World};

/// How a query term reaches its component.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TermAccess {
    /// Required, read.
    Read,
    /// Required, read and written (rows handed out are marked changed).
    Write,
    /// Read if the entity has it; the entity matches either way.
    Optional,
}

/// One term of a built query.
#[derive(Clone, Debug)]
struct Term {
    id: ComponentId,
    access: TermAccess,
    schema: Arc<Schema>,
}

/// Builds a [`DynamicQuery`] from component ids: [`World::query_builder`], then `read`,
/// `write`, `optional` (terms whose values the rows hand out, in this order) and `with`,
/// `without` (filters), then [`QueryBuilder::build`]. bevy's `QueryBuilder` is the model.
///
/// # Examples
/// ```
/// use mosaic::World;
/// use mosaic::dynamic::{ComponentDescriptor, DynamicValue, Field, Scalar, Schema};
///
/// let mut world = World::new();
/// let pos = world
///     .register_dynamic(ComponentDescriptor::new("Pos", Schema::new(vec![Field::new("x", Scalar::F32)]).unwrap()))
///     .unwrap();
/// let vel = world
///     .register_dynamic(ComponentDescriptor::new("Vel", Schema::new(vec![Field::new("x", Scalar::F32)]).unwrap()))
///     .unwrap();
/// for i in 0..3 {
///     let mut v = DynamicValue::new(world.dynamic_schema(vel).unwrap());
///     v.set_path("x", i as f32).unwrap();
///     let p = DynamicValue::new(world.dynamic_schema(pos).unwrap());
///     world.spawn_dynamic([(pos, p), (vel, v)]).unwrap();
/// }
/// let query = world.query_builder().write(pos).read(vel).build().unwrap();
/// let (px, vx) = (query.field::<f32>(0, "x").unwrap(), query.field::<f32>(1, "x").unwrap());
/// query.for_each_mut(&mut world, |mut row| {
///     let v = row.get(vx);
///     row.set(px, row.get(px) + v);
/// }).unwrap();
/// let mut total = 0.0;
/// query.for_each_mut(&mut world, |row| total += row.get(px)).unwrap();
/// assert_eq!(total, 3.0);
/// ```
#[derive(Debug)]
pub struct QueryBuilder<'w> {
    world: &'w World,
    terms: Vec<(ComponentId, TermAccess)>,
    with: Vec<ComponentId>,
    without: Vec<ComponentId>,
}

impl World {
    /// Starts a query built from component ids at run time; see [`QueryBuilder`].
    pub fn query_builder(&self) -> QueryBuilder<'_> {
        QueryBuilder { world: self, terms: Vec::new(), with: Vec::new(), without: Vec::new() }
    }
}

impl QueryBuilder<'_> {
    /// Adds a term reading run-time component `id` (required).
    pub fn read(mut self, id: ComponentId) -> Self {
        self.terms.push((id, TermAccess::Read));
        self
    }

    /// Adds a term reading and writing run-time component `id` (required).
    pub fn write(mut self, id: ComponentId) -> Self {
        self.terms.push((id, TermAccess::Write));
        self
    }

    /// Adds a term reading run-time component `id` when the entity has it.
    pub fn optional(mut self, id: ComponentId) -> Self {
        self.terms.push((id, TermAccess::Optional));
        self
    }

    /// Requires component `id` (any component) without reading it.
    pub fn with(mut self, id: ComponentId) -> Self {
        self.with.push(id);
        self
    }

    /// Excludes entities that have component `id` (any component).
    pub fn without(mut self, id: ComponentId) -> Self {
        self.without.push(id);
        self
    }

    /// The query. O(terms^2).
    ///
    /// # Errors
    /// [`DynamicError::NoSuchComponent`]; [`DynamicError::NoSchema`] for a read, write or
    /// optional term on a component without a schema; [`DynamicError::Query`] if a component
    /// appears twice among the terms and filters, or nothing is required (no read, write or
    /// with).
    pub fn build(self) -> Result<DynamicQuery, DynamicError> {
        let world = self.world;
        let mut terms = Vec::with_capacity(self.terms.len());
        for &(id, access) in &self.terms {
            terms.push(Term { id, access, schema: Arc::clone(world.dynamic_schema(id)?) });
        }
        let all: Vec<ComponentId> = self
            .terms
            .iter()
            .map(|t| t.0)
            .chain(self.with.iter().copied())
            .chain(self.without.iter().copied())
            .collect();
        for (i, &id) in all.iter().enumerate() {
            world.check_id(id)?;
            if all[..i].contains(&id) {
                return Err(DynamicError::Query {
                    reason: format!(
                        "component `{}` appears twice among the terms and filters",
                        world.name_of(id)
                    ),
                });
            }
        }
        let required = terms.iter().any(|t| t.access != TermAccess::Optional) || !self.with.is_empty();
        if !required {
            return Err(DynamicError::Query {
                reason: "nothing is required: add a read, write or with term to drive the walk".into(),
            });
        }
        Ok(DynamicQuery {
            uid: NEXT_QUERY.fetch_add(1, Ordering::Relaxed),
            terms,
            with: self.with,
            without: self.without,
        })
    }
}

/// Where the next query id comes from.
static NEXT_QUERY: AtomicU64 = AtomicU64::new(1);

/// A query built at run time by [`QueryBuilder`]. Keeps ids and schemas, not borrows: build it
/// once, run it every frame with [`DynamicQuery::for_each`] / [`DynamicQuery::for_each_mut`].
#[derive(Debug)]
pub struct DynamicQuery {
    uid: u64,
    terms: Vec<Term>,
    with: Vec<ComponentId>,
    without: Vec<ComponentId>,
}

/// A handle to one scalar field of one term of a [`DynamicQuery`], for its rows: resolve it once
/// with [`DynamicQuery::field`], read (and write) it per row. `Copy`, two words.
#[derive(Debug)]
pub struct TermField<T> {
    query: u64,
    term: u32,
    offset: u32,
    /// Whether the term is `Write`.
    writable: bool,
    _type: PhantomData<fn() -> T>,
}

impl<T> Clone for TermField<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for TermField<T> {}

impl DynamicQuery {
    /// The components of the terms, in order, with their access.
    pub fn terms(&self) -> impl Iterator<Item = (ComponentId, TermAccess)> + '_ {
        self.terms.iter().map(|t| (t.id, t.access))
    }

    /// A handle to the `T` at dotted path `path` of term `term`'s component. O(leaves).
    ///
    /// # Errors
    /// [`DynamicError::Query`] if there is no term `term`; [`DynamicError::Schema`] if the
    /// component has no such field or it is not a `T`.
    pub fn field<T: Primitive>(&self, term: usize, path: &str) -> Result<TermField<T>, DynamicError> {
        let t = self.terms.get(term).ok_or_else(|| DynamicError::Query {
            reason: format!("no term {term}: the query has {}", self.terms.len()),
        })?;
        let field = t
            .schema
            .field::<T>(path)
            .map_err(|error| DynamicError::Schema { component: format!("term {term}"), error })?;
        Ok(TermField {
            query: self.uid,
            term: term as u32,
            offset: field.offset() as u32,
            writable: t.access == TermAccess::Write,
            _type: PhantomData,
        })
    }

    /// Runs `f` on every matching entity's row, reading. O(driver rows x terms).
    ///
    /// # Errors
    /// [`DynamicError::Query`] if the query writes (use [`DynamicQuery::for_each_mut`]) or was
    /// built on another world (a term's schema differs).
    pub fn for_each(&self, world: &World, mut f: impl FnMut(DynamicRow<'_>)) -> Result<(), DynamicError> {
        if self.terms.iter().any(|t| t.access == TermAccess::Write) {
            return Err(DynamicError::Query {
                reason: "the query writes: run it with `for_each_mut`".into(),
            });
        }
        self.walk(
            world,
            None,
            #[inline(always)]
            |entity, ptrs| {
                f(DynamicRow { row: RowPtrs { entity, ptrs, query: self.uid }, _world: PhantomData })
            },
        )
    }

    /// Runs `f` on every matching entity's row, reading and writing; the rows of `Write` terms
    /// are marked changed (when tracked) as they are handed out, as a `&mut T` query term
    /// does. O(driver rows x terms).
    ///
    /// # Errors
    /// [`DynamicError::Query`] if the query was built on another world.
    pub fn for_each_mut(
        &self,
        world: &mut World,
        mut f: impl FnMut(DynamicRowMut<'_>),
    ) -> Result<(), DynamicError> {
        world.flush();
        let world: &World = world;
        let tick = world.components().clock().now();
        self.walk(
            world,
            Some(tick),
            #[inline(always)]
            |entity, ptrs| {
                let row = RowPtrs { entity, ptrs, query: self.uid };
                f(DynamicRowMut { row, terms: &self.terms, _world: PhantomData })
            },
        )
    }

    /// Number of matching entities. O(driver rows x filters).
    ///
    /// # Errors
    /// As [`DynamicQuery::for_each`], but a writing query may be counted.
    pub fn count(&self, world: &World) -> Result<usize, DynamicError> {
        let mut n = 0;
        self.walk(world, None, |_, _| n += 1)?;
        Ok(n)
    }

    /// The walk: `visit(entity, pointers)` for every match, one pointer per term (`None` for an
    /// absent optional term). With `mark`, write terms' rows are stamped at that tick.
    fn walk(
        &self,
        world: &World,
        mark: Option<crate::Tick>,
        mut visit: impl FnMut(Entity, &[Option<NonNull<u8>>]),
    ) -> Result<(), DynamicError> {
        let components = world.components();
        for term in &self.terms {
            if world.dynamic_schema(term.id).ok().is_none_or(|s| s.uid() != term.schema.uid()) {
                return Err(DynamicError::Query { reason: "the query was built on another world".into() });
            }
        }
        for &id in self.with.iter().chain(&self.without) {
            world.check_id(id)?;
        }
        struct TermPool<'p> {
            pool: &'p SparseSet,
            base: NonNull<u8>,
            size: usize,
            required: bool,
            marker: Option<ChangeMarker<'p>>,
        }
        let terms: SmallVec<[TermPool<'_>; 8]> = self
            .terms
            .iter()
            .map(|t| {
                let pool = components.pool(t.id);
                let marker = match (t.access, mark) {
                    (TermAccess::Write, Some(tick)) => pool.changes().map(|c| c.marker(tick)),
                    _ => None,
                };
                TermPool {
                    pool,
                    base: pool.base_ptr(),
                    size: t.schema.layout().size(),
                    required: t.access != TermAccess::Optional,
                    marker,
                }
            })
            .collect();
        let with: SmallVec<[&SparseSet; 4]> = self.with.iter().map(|&id| components.pool(id)).collect();
        // Filters out, and the disabling pools holding entities that the query does not name.
        let mut without: SmallVec<[&SparseSet; 4]> =
            self.without.iter().map(|&id| components.pool(id)).collect();
        let named = |id: ComponentId| self.terms.iter().any(|t| t.id == id) || self.with.contains(&id);
        let disabling = components
            .id::<Disabled>()
            .into_iter()
            .chain(world.disabling_components().iter().map(|&(_, id)| id));
        for id in disabling {
            let pool = components.pool(id);
            if !pool.is_empty() && !named(id) && !self.without.contains(&id) {
                without.push(pool);
            }
        }
        // The driver: the smallest required pool.
        let driver = terms
            .iter()
            .filter(|t| t.required)
            .map(|t| t.pool)
            .chain(with.iter().copied())
            .min_by_key(|pool| pool.len())
            .expect("build checked that something is required");
        let lazy = driver.is_lazy();
        let marking = terms.iter().any(|t| t.marker.is_some());
        let mut ptr_buf: SmallVec<[Option<NonNull<u8>>; 8]> = SmallVec::from_elem(None, terms.len());
        let mut row_buf: SmallVec<[usize; 8]> = SmallVec::from_elem(0, terms.len());
        let (ptrs, rows) = (ptr_buf.as_mut_slice(), row_buf.as_mut_slice());
        // The common shape first: one term, no filter, the driver itself; rows are contiguous.
        if terms.len() == 1 && with.is_empty() && without.is_empty() && !lazy && !marking {
            walk_contiguous(driver.entities(), terms[0].base, terms[0].size, visit);
            return Ok(());
        }
        'rows: for (row, &entity) in driver.entities().iter().enumerate() {
            if lazy && !world.is_alive(entity) {
                continue;
            }
            if !with.iter().all(|pool| pool.contains(entity))
                || without.iter().any(|pool| pool.contains(entity))
            {
                continue;
            }
            for ((slot, at_row), term) in ptrs.iter_mut().zip(rows.iter_mut()).zip(&terms) {
                let at = if std::ptr::eq(term.pool, driver) { Some(row) } else { term.pool.row_of(entity) };
                *slot = match at {
                    Some(at) => {
                        *at_row = at;
                        // SAFETY: `at` is a row of the pool (`row_of`, or the driver's own row),
                        // so the offset stays inside its column; rows are `size` bytes apart.
                        Some(unsafe { NonNull::new_unchecked(term.base.as_ptr().add(at * term.size)) })
                    }
                    None if term.required => continue 'rows,
                    None => None,
                };
            }
            if marking {
                for ((slot, &at), term) in ptrs.iter().zip(rows.iter()).zip(&terms) {
                    if let (Some(marker), Some(_)) = (term.marker, slot) {
                        // SAFETY: `at` is this entity's row of a pool the query writes; the
                        // caller holds the world exclusively (`for_each_mut`), each row is
                        // visited once, and no other term names this pool (build refused
                        // duplicates).
                        unsafe { marker.mark(at) };
                    }
                }
            }
            visit(entity, ptrs);
        }
        Ok(())
    }
}

/// The walk of a one-term query without filters: `visit` on each row of the pool whose column
/// starts at `base`, rows `size` bytes apart. Its own function, so `visit` (the user's closure)
/// has one call site and inlines into this loop.
#[inline(always)]
fn walk_contiguous(
    entities: &[Entity],
    base: NonNull<u8>,
    size: usize,
    mut visit: impl FnMut(Entity, &[Option<NonNull<u8>>]),
) {
    for (row, &entity) in entities.iter().enumerate() {
        // SAFETY: `row` is a row of the pool whose column starts at `base` (`entities` is its
        // entity list), so the offset stays inside the column.
        let ptr = Some(unsafe { NonNull::new_unchecked(base.as_ptr().add(row * size)) });
        visit(entity, std::slice::from_ref(&ptr));
    }
}

/// The panic of a handle used on another query's rows (out of line: rows' accessors stay small
/// enough to inline into the user's loop).
#[cold]
#[inline(never)]
#[track_caller]
fn another_query() -> ! {
    panic!("a field handle of another query")
}

/// The panic of `get` on an optional term the entity lacks.
#[cold]
#[inline(never)]
#[track_caller]
fn absent(term: u32) -> ! {
    panic!("term {term} is optional and this entity does not have it: read it with `try_get`")
}

/// The panic of `set` on a term that is not `Write`.
#[cold]
#[inline(never)]
#[track_caller]
fn read_only(term: u32) -> ! {
    panic!("term {term} is read-only: build it with `write`")
}

/// One matching entity of a reading [`DynamicQuery`]: its terms' values by [`TermField`].
pub struct DynamicRow<'a> {
    row: RowPtrs<'a>,
    _world: PhantomData<&'a World>,
}

/// What both row types hold: the entity, one pointer per term (`None`: an absent optional
/// term) and the id of the query that made them. Built only by [`DynamicQuery::walk`], whose
/// pointers are the entity's values of the terms' components for as long as the row lives.
#[derive(Clone, Copy)]
struct RowPtrs<'a> {
    entity: Entity,
    ptrs: &'a [Option<NonNull<u8>>],
    query: u64,
}

impl RowPtrs<'_> {
    /// Reads `field`, or `None` when its optional term is absent.
    ///
    /// # Panics
    /// If `field` was made by another query.
    #[inline(always)]
    #[track_caller]
    fn try_get<T: Primitive>(&self, field: TermField<T>) -> Option<T> {
        let ptr = term_ptr(self.query, self.ptrs, field)?;
        // SAFETY: the pointer is this row's value of the term's component (the walk made it),
        // whose schema the handle's offset was resolved against (offset + size within the
        // value); schema values are initialized bytes; while a row lives nothing else writes
        // them (a reading walk borrows the world shared; a writing walk hands each row out once
        // and this read borrows the row shared).
        Some(unsafe { T::read_ptr(ptr.as_ptr().add(field.offset as usize)) })
    }

    /// Reads `field`; panics (out of line) when its optional term is absent.
    #[inline(always)]
    #[track_caller]
    fn get<T: Primitive>(&self, field: TermField<T>) -> T {
        match self.try_get(field) {
            Some(value) => value,
            None => absent(field.term),
        }
    }
}

/// Checks a handle against the row's query and finds its pointer.
#[inline(always)]
#[track_caller]
fn term_ptr<T>(query: u64, ptrs: &[Option<NonNull<u8>>], field: TermField<T>) -> Option<NonNull<u8>> {
    if field.query != query {
        another_query();
    }
    debug_assert!((field.term as usize) < ptrs.len());
    // SAFETY: the handle was made by this query (checked: query ids are unique), for one of
    // its terms, and a row carries one pointer per term.
    unsafe { *ptrs.get_unchecked(field.term as usize) }
}

impl DynamicRow<'_> {
    /// The entity.
    #[inline(always)]
    pub fn entity(&self) -> Entity {
        self.row.entity
    }

    /// Reads `field` of this row.
    ///
    /// # Panics
    /// If `field` was made by another query, or its term is optional and absent here (see
    /// [`DynamicRow::try_get`]).
    #[inline(always)]
    #[track_caller]
    pub fn get<T: Primitive>(&self, field: TermField<T>) -> T {
        self.row.get(field)
    }

    /// Reads `field` of this row, or `None` when its optional term is absent.
    ///
    /// # Panics
    /// If `field` was made by another query.
    #[inline(always)]
    #[track_caller]
    pub fn try_get<T: Primitive>(&self, field: TermField<T>) -> Option<T> {
        self.row.try_get(field)
    }
}

/// One matching entity of a [`DynamicQuery`] run by `for_each_mut`: reads any term, writes
/// `Write` terms.
pub struct DynamicRowMut<'a> {
    row: RowPtrs<'a>,
    terms: &'a [Term],
    _world: PhantomData<&'a mut World>,
}

impl DynamicRowMut<'_> {
    /// The entity.
    #[inline(always)]
    pub fn entity(&self) -> Entity {
        self.row.entity
    }

    /// Reads `field` of this row.
    ///
    /// # Panics
    /// As [`DynamicRow::get`].
    #[inline(always)]
    #[track_caller]
    pub fn get<T: Primitive>(&self, field: TermField<T>) -> T {
        self.row.get(field)
    }

    /// Reads `field` of this row, or `None` when its optional term is absent.
    ///
    /// # Panics
    /// If `field` was made by another query.
    #[inline(always)]
    #[track_caller]
    pub fn try_get<T: Primitive>(&self, field: TermField<T>) -> Option<T> {
        self.row.try_get(field)
    }

    /// Writes `field` of this row.
    ///
    /// # Panics
    /// If `field` was made by another query, or its term is not `Write`.
    #[inline(always)]
    #[track_caller]
    pub fn set<T: Primitive>(&mut self, field: TermField<T>, value: T) {
        if !field.writable {
            read_only(field.term);
        }
        let Some(ptr) = term_ptr(self.row.query, self.row.ptrs, field) else { absent(field.term) };
        // SAFETY: the pointer is this row's value of a `Write` term (checked), offset in range as
        // in `try_get`; the walk holds the world exclusively, each row is handed out once, and
        // `&mut self` makes this the only access to the value now.
        unsafe { value.write_ptr(ptr.as_ptr().add(field.offset as usize)) }
    }

    /// The whole value of term `term`, read-only, or `None` when an optional term is absent.
    ///
    /// # Panics
    /// If there is no term `term`.
    pub fn value(&self, term: usize) -> Option<DynamicRef<'_>> {
        let ptr = self.row.ptrs[term]?;
        // SAFETY: as in `try_get`: one initialized value of the term's schema, not written while
        // the view (borrowing `self` shared) lives.
        Some(unsafe { DynamicRef::new(&self.terms[term].schema, ptr) })
    }

    /// The whole value of `Write` term `term`, mutably.
    ///
    /// # Panics
    /// If there is no term `term` or it is not `Write`.
    pub fn value_mut(&mut self, term: usize) -> DynamicMut<'_> {
        assert!(
            self.terms[term].access == TermAccess::Write,
            "term {term} is read-only: build it with `write`"
        );
        let ptr = self.row.ptrs[term].expect("a write term is required");
        // SAFETY: as in `set`: the only access to this value while the view (borrowing `self`
        // exclusively) lives.
        unsafe { DynamicMut::new(&self.terms[term].schema, ptr) }
    }
}

impl DynamicRow<'_> {
    /// The whole value of term `term`, or `None` when an optional term is absent. Needs the
    /// query's terms, so it takes the query.
    ///
    /// # Panics
    /// If there is no term `term`.
    pub fn value<'q>(&'q self, query: &'q DynamicQuery, term: usize) -> Option<DynamicRef<'q>> {
        assert!(query.uid == self.row.query, "a row of another query");
        let ptr = self.row.ptrs[term]?;
        // SAFETY: as in `try_get`.
        Some(unsafe { DynamicRef::new(&query.terms[term].schema, ptr) })
    }
}
