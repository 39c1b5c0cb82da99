//! Values of run-time components: [`DynamicValue`] (owned bytes of a schema) and the views
//! [`DynamicRef`] / [`DynamicMut`] of a value in a pool.

use std::ptr::NonNull;
use std::sync::Arc;

use crate::component::schema::{FieldRef, Primitive, Scalar, Schema, SchemaError};

/// One value of a run-time component with a schema: the schema and the value's bytes (every
/// byte initialized; zeroed at first). What [`World::insert_by_id`](crate::World::insert_by_id)
/// takes and [`World::take_by_id`](crate::World::take_by_id) gives back.
///
/// # Examples
/// ```
/// use std::sync::Arc;
/// use mosaic::dynamic::{DynamicValue, Field, Scalar, Schema};
///
/// let schema = Arc::new(Schema::new(vec![Field::new("x", Scalar::F32), Field::new("alive", Scalar::Bool)]).unwrap());
/// let x = schema.field::<f32>("x").unwrap();
/// let mut value = DynamicValue::new(&schema);
/// value.set(x, 1.5);
/// value.set_path("alive", true).unwrap();
/// assert_eq!(value.get(x), 1.5);
/// assert_eq!(value.get_path::<bool>("alive"), Ok(true));
/// assert!(value.set_path("x", 1u32).is_err(), "x is an f32");
/// ```
#[derive(Clone)]
pub struct DynamicValue {
    schema: Arc<Schema>,
    bytes: Box<[u8]>,
}

impl DynamicValue {
    /// A value of `schema` with every byte zero (every number 0, every bool false). O(size).
    pub fn new(schema: &Arc<Schema>) -> Self {
        Self { schema: Arc::clone(schema), bytes: vec![0; schema.layout().size()].into_boxed_slice() }
    }

    /// A value of `schema` holding `bytes` (as [`DynamicValue::bytes`] gives them). O(size).
    ///
    /// # Errors
    /// [`SchemaError::WrongLength`], or [`SchemaError::InvalidBool`] naming the field.
    pub fn from_bytes(schema: &Arc<Schema>, bytes: &[u8]) -> Result<Self, SchemaError> {
        schema.check_bytes(bytes)?;
        Ok(Self { schema: Arc::clone(schema), bytes: bytes.into() })
    }

    /// The schema.
    pub fn schema(&self) -> &Arc<Schema> {
        &self.schema
    }

    /// The bytes, `schema().layout().size()` of them.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Where the bytes are, for a move of a value in from a pool.
    pub(super) fn bytes_mut_ptr(&mut self) -> *mut u8 {
        self.bytes.as_mut_ptr()
    }

    /// Reads the field `field` refers to.
    ///
    /// # Panics
    /// If `field` was made from another schema.
    #[track_caller]
    pub fn get<T: Primitive>(&self, field: FieldRef<T>) -> T {
        check_schema(&self.schema, field);
        field.read(&self.bytes)
    }

    /// Writes the field `field` refers to.
    ///
    /// # Panics
    /// If `field` was made from another schema.
    #[track_caller]
    pub fn set<T: Primitive>(&mut self, field: FieldRef<T>, value: T) {
        check_schema(&self.schema, field);
        field.write(&mut self.bytes, value);
    }

    /// Reads the field at dotted path `path`. O(leaves) to find it.
    ///
    /// # Errors
    /// [`SchemaError::NoSuchField`] or [`SchemaError::WrongType`].
    pub fn get_path<T: Primitive>(&self, path: &str) -> Result<T, SchemaError> {
        Ok(self.schema.field::<T>(path)?.read(&self.bytes))
    }

    /// Writes the field at dotted path `path`. O(leaves) to find it.
    ///
    /// # Errors
    /// [`SchemaError::NoSuchField`] or [`SchemaError::WrongType`].
    pub fn set_path<T: Primitive>(&mut self, path: &str, value: T) -> Result<(), SchemaError> {
        self.schema.field::<T>(path)?.write(&mut self.bytes, value);
        Ok(())
    }
}

impl PartialEq for DynamicValue {
    /// Same schema (the same registered one) and the same bytes.
    fn eq(&self, other: &Self) -> bool {
        self.schema.uid() == other.schema.uid() && self.bytes == other.bytes
    }
}

impl std::fmt::Debug for DynamicValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write_fields(f, &self.schema, &self.bytes)
    }
}

/// Panics unless `field` was made from `schema`.
#[inline(always)]
#[track_caller]
fn check_schema<T: Primitive>(schema: &Schema, field: FieldRef<T>) {
    assert!(
        field.schema() == schema.uid(),
        "a field handle of schema {} used on a value of schema {}",
        field.schema(),
        schema.uid()
    );
}

/// Writes `{ path: value, .. }` for every leaf of `bytes`.
fn write_fields(f: &mut std::fmt::Formatter<'_>, schema: &Schema, bytes: &[u8]) -> std::fmt::Result {
    let mut map = f.debug_map();
    for leaf in schema.leaves() {
        let at = &bytes[leaf.offset as usize..];
        match leaf.scalar {
            Scalar::Bool => map.entry(&leaf.path, &bool::read(at)),
            Scalar::U8 => map.entry(&leaf.path, &u8::read(at)),
            Scalar::U16 => map.entry(&leaf.path, &u16::read(at)),
            Scalar::U32 => map.entry(&leaf.path, &u32::read(at)),
            Scalar::U64 => map.entry(&leaf.path, &u64::read(at)),
            Scalar::I8 => map.entry(&leaf.path, &i8::read(at)),
            Scalar::I16 => map.entry(&leaf.path, &i16::read(at)),
            Scalar::I32 => map.entry(&leaf.path, &i32::read(at)),
            Scalar::I64 => map.entry(&leaf.path, &i64::read(at)),
            Scalar::F32 => map.entry(&leaf.path, &f32::read(at)),
            Scalar::F64 => map.entry(&leaf.path, &f64::read(at)),
        };
    }
    map.finish()
}

/// A shared view of one run-time component value in a pool: read its fields by handle or path.
#[derive(Clone, Copy)]
pub struct DynamicRef<'w> {
    schema: &'w Arc<Schema>,
    bytes: &'w [u8],
}

impl<'w> DynamicRef<'w> {
    /// A view of the value at `ptr`.
    ///
    /// # Safety
    /// `ptr` points to one initialized value of `schema` (every byte initialized), which
    /// nothing writes for `'w`.
    #[inline(always)]
    pub(super) unsafe fn new(schema: &'w Arc<Schema>, ptr: NonNull<u8>) -> Self {
        // SAFETY: the caller guarantees `size` initialized bytes, unwritten for 'w.
        let bytes = unsafe { std::slice::from_raw_parts(ptr.as_ptr(), schema.layout().size()) };
        Self { schema, bytes }
    }

    /// The schema.
    pub fn schema(&self) -> &'w Arc<Schema> {
        self.schema
    }

    /// The value's bytes.
    pub fn bytes(&self) -> &'w [u8] {
        self.bytes
    }

    /// Reads the field `field` refers to.
    ///
    /// # Panics
    /// If `field` was made from another schema.
    #[inline(always)]
    #[track_caller]
    pub fn get<T: Primitive>(&self, field: FieldRef<T>) -> T {
        check_schema(self.schema, field);
        field.read(self.bytes)
    }

    /// Reads the field at dotted path `path`.
    ///
    /// # Errors
    /// [`SchemaError::NoSuchField`] or [`SchemaError::WrongType`].
    pub fn get_path<T: Primitive>(&self, path: &str) -> Result<T, SchemaError> {
        Ok(self.schema.field::<T>(path)?.read(self.bytes))
    }

    /// A copy of the value. O(size).
    pub fn to_value(&self) -> DynamicValue {
        DynamicValue { schema: Arc::clone(self.schema), bytes: self.bytes.into() }
    }
}

impl std::fmt::Debug for DynamicRef<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write_fields(f, self.schema, self.bytes)
    }
}

/// An exclusive view of one run-time component value in a pool: read and write its fields.
/// Handed out by [`World::get_mut_by_id`](crate::World::get_mut_by_id) (which marks the value
/// changed, as `get_mut` does) and by writing dynamic queries.
pub struct DynamicMut<'w> {
    schema: &'w Arc<Schema>,
    bytes: &'w mut [u8],
}

impl<'w> DynamicMut<'w> {
    /// A view of the value at `ptr`.
    ///
    /// # Safety
    /// `ptr` points to one initialized value of `schema` (every byte initialized), which
    /// nothing else reads or writes for `'w`.
    #[inline(always)]
    pub(super) unsafe fn new(schema: &'w Arc<Schema>, ptr: NonNull<u8>) -> Self {
        // SAFETY: the caller guarantees `size` initialized bytes, held exclusively for 'w.
        let bytes = unsafe { std::slice::from_raw_parts_mut(ptr.as_ptr(), schema.layout().size()) };
        Self { schema, bytes }
    }

    /// The schema.
    pub fn schema(&self) -> &'w Arc<Schema> {
        self.schema
    }

    /// The value's bytes.
    pub fn bytes(&self) -> &[u8] {
        self.bytes
    }

    /// The value's bytes, mutably. Any bytes are sound (a `bool` reads as `byte != 0`); keep
    /// `bool` fields 0 or 1 for values that compare and hash as expected.
    pub fn bytes_mut(&mut self) -> &mut [u8] {
        self.bytes
    }

    /// Reads the field `field` refers to.
    ///
    /// # Panics
    /// If `field` was made from another schema.
    #[inline(always)]
    #[track_caller]
    pub fn get<T: Primitive>(&self, field: FieldRef<T>) -> T {
        check_schema(self.schema, field);
        field.read(self.bytes)
    }

    /// Writes the field `field` refers to.
    ///
    /// # Panics
    /// If `field` was made from another schema.
    #[inline(always)]
    #[track_caller]
    pub fn set<T: Primitive>(&mut self, field: FieldRef<T>, value: T) {
        check_schema(self.schema, field);
        field.write(self.bytes, value);
    }

    /// Reads the field at dotted path `path`.
    ///
    /// # Errors
    /// [`SchemaError::NoSuchField`] or [`SchemaError::WrongType`].
    pub fn get_path<T: Primitive>(&self, path: &str) -> Result<T, SchemaError> {
        Ok(self.schema.field::<T>(path)?.read(self.bytes))
    }

    /// Writes the field at dotted path `path`.
    ///
    /// # Errors
    /// [`SchemaError::NoSuchField`] or [`SchemaError::WrongType`].
    pub fn set_path<T: Primitive>(&mut self, path: &str, value: T) -> Result<(), SchemaError> {
        self.schema.field::<T>(path)?.write(self.bytes, value);
        Ok(())
    }

    /// Overwrites the whole value with `value`'s bytes.
    ///
    /// # Errors
    /// [`SchemaError::WrongLength`] when `value` is of a schema of another size; a value of
    /// another schema of the same size is accepted only if it is the same schema (else
    /// `WrongType` naming the first field).
    pub fn assign(&mut self, value: &DynamicValue) -> Result<(), SchemaError> {
        if value.schema().uid() != self.schema.uid() {
            return Err(if value.bytes().len() == self.bytes.len() {
                mismatch(self.schema)
            } else {
                SchemaError::WrongLength { expected: self.bytes.len(), found: value.bytes().len() }
            });
        }
        self.bytes.copy_from_slice(value.bytes());
        Ok(())
    }
}

/// The error for a value of another schema of the same size.
fn mismatch(schema: &Schema) -> SchemaError {
    let first = schema.leaves().first().map_or("", |l| &*l.path).to_owned();
    SchemaError::WrongType { path: first, expected: "this component's schema", found: "another schema" }
}

impl std::fmt::Debug for DynamicMut<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write_fields(f, self.schema, self.bytes)
    }
}
