//! Column-wise batch spawns: [`ColumnBatch`] and [`World::spawn_column_batch`] (hecs'
//! `ColumnBatch` and `World::spawn_column_batch`).

use std::any::TypeId;

use super::World;
use super::component_sets::EMPTY;
use super::row_events::{Ids, RowChange};
use crate::component::{Component, ComponentId, Components};
use crate::entity::{Entity, EntityError};
use crate::storage::SparseSet;

/// Why a [`ColumnBatch`] refused a column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum ColumnBatchError {
    /// The column's length differs from the batch's (its first column's).
    #[error(
        "column `{component}` has {found} values but the batch has {expected} rows; every column needs one value per row"
    )]
    Length {
        /// The column's component type name.
        component: &'static str,
        /// The batch's row count.
        expected: usize,
        /// The column's length.
        found: usize,
    },
    /// The batch already has a column of this type.
    #[error("the batch already has a `{component}` column; a batch holds each component type once")]
    Duplicate {
        /// The component type name.
        component: &'static str,
    },
}

/// One column of a batch, type-erased.
trait BatchColumn: Send + Sync {
    fn type_id(&self) -> TypeId;
    fn type_name(&self) -> &'static str;
    fn register(&self, components: &mut Components) -> ComponentId;
    /// Moves every value into `pool`, row `i` to `entities[i]` (new to the pool).
    fn append_all(self: Box<Self>, pool: &mut SparseSet, entities: &[Entity]);
    /// Turns the column around so [`BatchColumn::write_next`] hands out row 0 first.
    fn reverse(&mut self);
    /// Moves the next value (in row order, after [`BatchColumn::reverse`]) into `pool` for `entity`.
    fn write_next(&mut self, pool: &mut SparseSet, entity: Entity);
}

struct Typed<T>(Vec<T>);

impl<T: Component> BatchColumn for Typed<T> {
    fn type_id(&self) -> TypeId {
        TypeId::of::<T>()
    }

    fn type_name(&self) -> &'static str {
        std::any::type_name::<T>()
    }

    fn register(&self, components: &mut Components) -> ComponentId {
        components.register::<T>()
    }

    fn append_all(self: Box<Self>, pool: &mut SparseSet, entities: &[Entity]) {
        if pool.is_soa() || pool.is_lazy() {
            for (&entity, value) in entities.iter().zip(self.0) {
                T::insert(pool, entity, value);
            }
        } else {
            pool.append_new(entities, self.0);
        }
    }

    fn reverse(&mut self) {
        self.0.reverse();
    }

    fn write_next(&mut self, pool: &mut SparseSet, entity: Entity) {
        let value = self.0.pop().expect("one value per row");
        T::insert(pool, entity, value);
    }
}

/// Rows of components held column by column, one `Vec` per component type, all of one length,
/// for [`World::spawn_column_batch`]: the fastest bulk spawn, since each pool takes its column
/// with one copy instead of a value at a time (hecs' `ColumnBatch`; its typed writers are plain
/// `Vec`s here).
///
/// # Examples
/// ```
/// use mosaic::{ColumnBatch, Component, World};
///
/// #[derive(Component, Clone, Debug, PartialEq)]
/// struct Position(f32);
/// #[derive(Component, Clone, Debug, PartialEq)]
/// struct Velocity(f32);
///
/// let mut world = World::new();
/// let batch = ColumnBatch::new()
///     .with((0..1000).map(|i| Position(i as f32)).collect())?
///     .with(vec![Velocity(1.0); 1000])?;
/// let spawned = world.spawn_column_batch(batch)?;
/// assert_eq!(spawned.len(), 1000);
/// assert_eq!(world.get::<Position>(spawned[7]), Ok(&Position(7.0)));
///
/// // Columns of different lengths are refused, naming the column.
/// let short = ColumnBatch::new().with(vec![Position(0.0); 2])?.with(vec![Velocity(0.0); 3]);
/// assert!(short.unwrap_err().to_string().contains("Velocity"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Default)]
pub struct ColumnBatch {
    columns: Vec<Box<dyn BatchColumn>>,
    rows: usize,
}

impl std::fmt::Debug for ColumnBatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<_> = self.columns.iter().map(|column| column.type_name()).collect();
        f.debug_struct("ColumnBatch").field("rows", &self.rows).field("columns", &names).finish()
    }
}

impl ColumnBatch {
    /// An empty batch (no column, no row).
    pub fn new() -> Self {
        Self::default()
    }

    /// The batch with column `values` added: row `i` of the batch gets `values[i]`. The first
    /// column sets the row count. O(1).
    ///
    /// # Errors
    /// [`ColumnBatchError::Length`] if the batch has columns of another length;
    /// [`ColumnBatchError::Duplicate`] if it has a `T` column already. `values` is dropped.
    pub fn with<T: Component>(mut self, values: Vec<T>) -> Result<Self, ColumnBatchError> {
        self.add(values)?;
        Ok(self)
    }

    /// Adds column `values`; as [`ColumnBatch::with`].
    ///
    /// # Errors
    /// As [`ColumnBatch::with`].
    pub fn add<T: Component>(&mut self, values: Vec<T>) -> Result<&mut Self, ColumnBatchError> {
        let component = std::any::type_name::<T>();
        if self.columns.iter().any(|column| column.type_id() == TypeId::of::<T>()) {
            return Err(ColumnBatchError::Duplicate { component });
        }
        if !self.columns.is_empty() && values.len() != self.rows {
            return Err(ColumnBatchError::Length { component, expected: self.rows, found: values.len() });
        }
        self.rows = values.len();
        self.columns.push(Box::new(Typed(values)));
        Ok(self)
    }

    /// Number of rows (entities a spawn makes): the columns' common length, 0 without columns.
    pub fn len(&self) -> usize {
        self.rows
    }

    /// Whether the batch has no row.
    pub fn is_empty(&self) -> bool {
        self.rows == 0
    }

    /// The columns' component type names, in the order they were added.
    pub fn type_names(&self) -> impl ExactSizeIterator<Item = &'static str> + '_ {
        self.columns.iter().map(|column| column.type_name())
    }
}

impl World {
    /// Spawns one entity per row of `batch`, returning them in row order: each pool takes its
    /// column whole (one copy of the values for an array-of-structs pool with no subscriber), so
    /// this is the fastest way to spawn many entities from data laid out by column (hecs'
    /// `spawn_column_batch`). The entities, their pools and hooks end as if each row were
    /// spawned as a bundle of the columns' types: where the batch's types have row-event
    /// subscribers (hooks, watches, groups, a hierarchy), rows are spawned one by one on that
    /// path, each entity's `on_add`/`on_insert` hooks running once all its components are in.
    /// O(rows * columns).
    ///
    /// # Errors
    /// [`EntityError::Exhausted`] if fewer than `rows` entity indices are left; nothing is
    /// spawned and the batch is dropped.
    pub fn spawn_column_batch(&mut self, batch: ColumnBatch) -> Result<Vec<Entity>, EntityError> {
        self.flush();
        let ColumnBatch { mut columns, rows } = batch;
        let ids: Ids = columns.iter().map(|column| column.register(&mut self.components)).collect();
        self.settle_registrations();
        let set = self.component_sets.set_with_all(EMPTY, &ids);
        self.reserve(rows);
        let mut spawned = Vec::new();
        self.entities.alloc_many(rows, &mut spawned)?;
        self.component_sets.fit(self.entities.slot_count() as usize);
        if self.component_sets.events(set).is_empty() {
            for &entity in &spawned {
                self.component_sets.replace(entity.index(), set);
            }
            for (column, &id) in columns.into_iter().zip(&ids) {
                column.append_all(self.components.pool_mut(id), &spawned);
            }
            return Ok(spawned);
        }
        columns.iter_mut().for_each(|column| column.reverse());
        for &entity in &spawned {
            let change = RowChange::insert(entity, &ids, &[]);
            self.emit_before(&change);
            self.component_sets.replace(entity.index(), set);
            for (column, &id) in columns.iter_mut().zip(&ids) {
                column.write_next(self.components.pool_mut(id), entity);
            }
            self.emit_after(&change);
        }
        Ok(spawned)
    }
}
