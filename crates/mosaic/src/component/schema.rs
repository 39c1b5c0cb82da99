//! Field schemas of components defined at run time: what a script, a mod or an editor declares
//! instead of a Rust type, and the typed handles ([`FieldRef`]) that read and write one field.
//!
//! A schema is a list of named fields, each a scalar ([`Scalar`]: `bool`, integers, floats), a
//! fixed-length array, or a nested struct. It is laid out as a `#[repr(C)]` struct would be:
//! fields in order, each at the next offset aligned for it, the whole padded to its largest
//! alignment. Every leaf (scalar) gets a dotted path: `pos.x`, `hp.2`, `cells.1.x`.
//!
//! Values of a schema are plain bytes: no drop, no pointers, any bit pattern readable (a `bool`
//! is read as `byte != 0`), every byte initialized (values start zeroed). That is what makes the
//! safe byte views of `mosaic::dynamic` sound. flecs' meta module (`ecs_struct_init`) and bevy's
//! `ComponentDescriptor` with reflection are the models; this keeps to plain data.

use std::alloc::Layout;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicU64, Ordering};

/// The largest value a schema may describe, in bytes (1 MiB).
pub const MAX_SCHEMA_SIZE: usize = 1 << 20;
/// The most leaves (scalars, counting array elements) a schema may have.
pub const MAX_SCHEMA_LEAVES: usize = 4096;
/// The deepest nesting of arrays and structs a schema may have.
pub const MAX_SCHEMA_DEPTH: usize = 8;
/// The longest field name, in bytes.
pub const MAX_FIELD_NAME: usize = 64;

/// A scalar field type: the leaves of every schema.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scalar {
    /// One byte, read as `byte != 0`, written as 0 or 1.
    Bool,
    /// `u8`.
    U8,
    /// `u16`.
    U16,
    /// `u32`.
    U32,
    /// `u64`.
    U64,
    /// `i8`.
    I8,
    /// `i16`.
    I16,
    /// `i32`.
    I32,
    /// `i64`.
    I64,
    /// `f32`.
    F32,
    /// `f64`.
    F64,
}

impl Scalar {
    /// Size in bytes (also the alignment).
    pub const fn size(self) -> usize {
        match self {
            Self::Bool | Self::U8 | Self::I8 => 1,
            Self::U16 | Self::I16 => 2,
            Self::U32 | Self::I32 | Self::F32 => 4,
            Self::U64 | Self::I64 | Self::F64 => 8,
        }
    }

    /// The Rust name of the type (`"f32"`), for messages and schemas written as text.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Bool => "bool",
            Self::U8 => "u8",
            Self::U16 => "u16",
            Self::U32 => "u32",
            Self::U64 => "u64",
            Self::I8 => "i8",
            Self::I16 => "i16",
            Self::I32 => "i32",
            Self::I64 => "i64",
            Self::F32 => "f32",
            Self::F64 => "f64",
        }
    }

    /// The scalar named `name` (`"f32"`, as [`Scalar::name`] writes it), if any.
    pub fn from_name(name: &str) -> Option<Self> {
        const ALL: [Scalar; 11] = [
            Scalar::Bool,
            Scalar::U8,
            Scalar::U16,
            Scalar::U32,
            Scalar::U64,
            Scalar::I8,
            Scalar::I16,
            Scalar::I32,
            Scalar::I64,
            Scalar::F32,
            Scalar::F64,
        ];
        ALL.into_iter().find(|s| s.name() == name)
    }
}

/// The type of one field: a scalar, a fixed-length array of one type, or a nested struct.
#[derive(Clone, Debug, PartialEq)]
pub enum FieldType {
    /// One scalar.
    Scalar(Scalar),
    /// `len` elements of one type, one after another (`len` at least 1).
    Array(Box<FieldType>, u32),
    /// Named fields, laid out as a `#[repr(C)]` struct (at least one).
    Struct(Vec<Field>),
}

impl From<Scalar> for FieldType {
    fn from(scalar: Scalar) -> Self {
        Self::Scalar(scalar)
    }
}

impl FieldType {
    /// An array of `len` elements of `of`.
    pub fn array(of: impl Into<FieldType>, len: u32) -> Self {
        Self::Array(Box::new(of.into()), len)
    }
}

/// A named field of a schema or of a nested struct.
#[derive(Clone, Debug, PartialEq)]
pub struct Field {
    /// The field's name: 1 to [`MAX_FIELD_NAME`] bytes of ASCII letters, digits and `_`, not
    /// starting with a digit (checked by [`Schema::new`]).
    pub name: String,
    /// Its type.
    pub ty: FieldType,
}

impl Field {
    /// A field named `name` of type `ty`.
    pub fn new(name: impl Into<String>, ty: impl Into<FieldType>) -> Self {
        Self { name: name.into(), ty: ty.into() }
    }
}

/// One scalar of a schema, where it sits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Leaf {
    /// The dotted path (`pos.x`, `hp.2`).
    pub path: Box<str>,
    /// Byte offset in the value.
    pub offset: u32,
    /// Its type.
    pub scalar: Scalar,
}

/// Why a schema or a field access was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SchemaError {
    /// A field name is empty, too long, or has characters other than ASCII letters, digits and
    /// `_` (or starts with a digit).
    #[error(
        "field `{path}`: a name is 1 to {MAX_FIELD_NAME} ASCII letters, digits or `_`, not starting with a digit"
    )]
    InvalidName {
        /// The path to the field, its name included.
        path: String,
    },
    /// Two fields of one struct share a name.
    #[error("field `{path}` is declared twice")]
    DuplicateField {
        /// The path of the second one.
        path: String,
    },
    /// An array of zero elements or a struct of no fields.
    #[error("field `{path}` is empty: an array needs at least 1 element and a struct at least 1 field")]
    Empty {
        /// The path to the field.
        path: String,
    },
    /// The value would pass [`MAX_SCHEMA_SIZE`] bytes, [`MAX_SCHEMA_LEAVES`] scalars or
    /// [`MAX_SCHEMA_DEPTH`] levels.
    #[error(
        "field `{path}` makes the schema too large: at most {MAX_SCHEMA_SIZE} bytes, {MAX_SCHEMA_LEAVES} scalars and {MAX_SCHEMA_DEPTH} levels of nesting"
    )]
    TooLarge {
        /// The path of the field that passed a limit.
        path: String,
    },
    /// No leaf has this path.
    #[error("no field `{path}` (the schema's scalars: {known})")]
    NoSuchField {
        /// The path asked for.
        path: String,
        /// The paths there are, comma-separated (at most 16, then `...`).
        known: String,
    },
    /// The field has another type than the one asked for.
    #[error("field `{path}` is `{found}`, not `{expected}`")]
    WrongType {
        /// The path.
        path: String,
        /// The type asked for.
        expected: &'static str,
        /// The field's type.
        found: &'static str,
    },
    /// Bytes given for a value are not one value's size.
    #[error("a value of this schema is {expected} bytes, not {found}")]
    WrongLength {
        /// The schema's size.
        expected: usize,
        /// The bytes given.
        found: usize,
    },
    /// A `bool` field holds a byte other than 0 or 1.
    #[error("field `{path}` is a bool, but its byte is {byte} (0 or 1 expected)")]
    InvalidBool {
        /// The path.
        path: String,
        /// The byte found.
        byte: u8,
    },
}

/// The layout of a run-time component's values: its fields, their offsets, its size.
///
/// Made by [`Schema::new`], which checks names and sizes; immutable after. Each schema gets a
/// process-wide unique id, which the [`FieldRef`]s it hands out carry.
#[derive(Debug)]
pub struct Schema {
    uid: u64,
    fields: Vec<Field>,
    layout: Layout,
    leaves: Vec<Leaf>,
}

/// Where the next schema id comes from.
static NEXT_SCHEMA: AtomicU64 = AtomicU64::new(1);

impl Schema {
    /// A schema of `fields`, laid out as a `#[repr(C)]` struct. An empty list makes a
    /// zero-sized component (a tag). O(leaves).
    ///
    /// # Errors
    /// A [`SchemaError`] naming the field: an invalid or duplicate name, an empty array or
    /// struct, or a size past the limits ([`MAX_SCHEMA_SIZE`] bytes, [`MAX_SCHEMA_LEAVES`]
    /// scalars, [`MAX_SCHEMA_DEPTH`] levels), checked before anything is allocated for them.
    ///
    /// # Examples
    /// ```
    /// use mosaic::dynamic::{Field, FieldType, Scalar, Schema};
    ///
    /// let schema = Schema::new(vec![
    ///     Field::new("hp", Scalar::U16),
    ///     Field::new("pos", FieldType::Struct(vec![Field::new("x", Scalar::F32), Field::new("y", Scalar::F32)])),
    ///     Field::new("flags", FieldType::array(Scalar::Bool, 3)),
    /// ])
    /// .unwrap();
    /// assert_eq!(schema.layout().size(), 16); // hp 0..2, pad, pos 4..12, flags 12..15, pad
    /// assert_eq!(schema.leaf("pos.y").unwrap().offset, 8);
    /// assert!(Schema::new(vec![Field::new("2d", Scalar::F32)]).is_err());
    /// ```
    pub fn new(fields: Vec<Field>) -> Result<Self, SchemaError> {
        let mut leaves = Vec::new();
        let layout = lay_out_struct(&fields, "", 0, 0, &mut leaves)?;
        Ok(Self {
            uid: NEXT_SCHEMA.fetch_add(1, Ordering::Relaxed),
            fields,
            layout: layout.pad_to_align(),
            leaves,
        })
    }

    /// The process-wide id of this schema (what its [`FieldRef`]s carry).
    pub fn uid(&self) -> u64 {
        self.uid
    }

    /// The fields, as declared.
    pub fn fields(&self) -> &[Field] {
        &self.fields
    }

    /// Size and alignment of one value.
    pub fn layout(&self) -> Layout {
        self.layout
    }

    /// Every scalar, in offset order, with its dotted path.
    pub fn leaves(&self) -> &[Leaf] {
        &self.leaves
    }

    /// The scalar at dotted path `path`, if any. O(leaves).
    pub fn leaf(&self, path: &str) -> Option<&Leaf> {
        self.leaves.iter().find(|leaf| &*leaf.path == path)
    }

    /// A handle reading and writing the `T` at dotted path `path` of this schema's values.
    /// Resolve it once, use it per row: the handle is an offset and this schema's id. O(leaves).
    ///
    /// # Errors
    /// [`SchemaError::NoSuchField`] (listing the paths there are) or
    /// [`SchemaError::WrongType`].
    pub fn field<T: Primitive>(&self, path: &str) -> Result<FieldRef<T>, SchemaError> {
        let leaf = self
            .leaf(path)
            .ok_or_else(|| SchemaError::NoSuchField { path: path.to_owned(), known: self.known_paths() })?;
        if leaf.scalar != T::SCALAR {
            return Err(SchemaError::WrongType {
                path: path.to_owned(),
                expected: T::SCALAR.name(),
                found: leaf.scalar.name(),
            });
        }
        Ok(FieldRef { offset: leaf.offset, schema: self.uid, _type: PhantomData })
    }

    /// The leaf paths for a message, comma-separated, at most 16.
    fn known_paths(&self) -> String {
        let mut out: Vec<&str> = self.leaves.iter().take(16).map(|l| &*l.path).collect();
        if self.leaves.len() > 16 {
            out.push("...");
        }
        out.join(", ")
    }

    /// Checks that `bytes` are one valid value of this schema: the right length, every `bool`
    /// 0 or 1. O(leaves).
    ///
    /// # Errors
    /// [`SchemaError::WrongLength`] or [`SchemaError::InvalidBool`] naming the field.
    pub fn check_bytes(&self, bytes: &[u8]) -> Result<(), SchemaError> {
        if bytes.len() != self.layout.size() {
            return Err(SchemaError::WrongLength { expected: self.layout.size(), found: bytes.len() });
        }
        for leaf in self.leaves.iter().filter(|l| l.scalar == Scalar::Bool) {
            let byte = bytes[leaf.offset as usize];
            if byte > 1 {
                return Err(SchemaError::InvalidBool { path: leaf.path.to_string(), byte });
            }
        }
        Ok(())
    }
}

/// Joins a parent path and a child name with a dot.
fn join(parent: &str, name: &str) -> String {
    if parent.is_empty() { name.to_owned() } else { format!("{parent}.{name}") }
}

/// Whether `name` is a valid field name.
fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_FIELD_NAME
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
        && !name.as_bytes()[0].is_ascii_digit()
}

/// Lays out `fields` as a `#[repr(C)]` struct starting at `base`, pushing its leaves; returns
/// the struct's layout (not padded to its alignment: the caller pads).
fn lay_out_struct(
    fields: &[Field],
    path: &str,
    base: usize,
    depth: usize,
    leaves: &mut Vec<Leaf>,
) -> Result<Layout, SchemaError> {
    let mut size = 0usize;
    let mut align = 1usize;
    for (i, field) in fields.iter().enumerate() {
        let field_path = join(path, &field.name);
        if !valid_name(&field.name) {
            return Err(SchemaError::InvalidName { path: field_path });
        }
        if fields[..i].iter().any(|f| f.name == field.name) {
            return Err(SchemaError::DuplicateField { path: field_path });
        }
        let field_align = align_of(&field.ty);
        let offset = size.next_multiple_of(field_align);
        let field_size = lay_out(&field.ty, &field_path, base + offset, depth + 1, leaves)?;
        size = offset + field_size;
        align = align.max(field_align);
        if base + size > MAX_SCHEMA_SIZE {
            return Err(SchemaError::TooLarge { path: field_path });
        }
    }
    Layout::from_size_align(size, align).map_err(|_| SchemaError::TooLarge { path: path.to_owned() })
}

/// The alignment of a field type (its largest scalar's size).
fn align_of(ty: &FieldType) -> usize {
    match ty {
        FieldType::Scalar(scalar) => scalar.size(),
        FieldType::Array(of, _) => align_of(of),
        FieldType::Struct(fields) => fields.iter().map(|f| align_of(&f.ty)).max().unwrap_or(1),
    }
}

/// Lays out one field of type `ty` at `offset`, pushing its leaves; returns its size (padded to
/// its alignment).
fn lay_out(
    ty: &FieldType,
    path: &str,
    offset: usize,
    depth: usize,
    leaves: &mut Vec<Leaf>,
) -> Result<usize, SchemaError> {
    let too_large = || SchemaError::TooLarge { path: path.to_owned() };
    if depth > MAX_SCHEMA_DEPTH {
        return Err(too_large());
    }
    match ty {
        FieldType::Scalar(scalar) => {
            if leaves.len() >= MAX_SCHEMA_LEAVES || offset + scalar.size() > MAX_SCHEMA_SIZE {
                return Err(too_large());
            }
            let offset = u32::try_from(offset).map_err(|_| too_large())?;
            leaves.push(Leaf { path: path.into(), offset, scalar: *scalar });
            Ok(scalar.size())
        }
        FieldType::Array(of, len) => {
            if *len == 0 {
                return Err(SchemaError::Empty { path: path.to_owned() });
            }
            // The element's size and leaf count are known from its first copy; the totals are
            // checked before the other copies are laid out.
            let first_leaf = leaves.len();
            let element = lay_out(of, &join(path, "0"), offset, depth + 1, leaves)?;
            let element_leaves = leaves.len() - first_leaf;
            let total = element.checked_mul(*len as usize).ok_or_else(too_large)?;
            let total_leaves = element_leaves.checked_mul(*len as usize).ok_or_else(too_large)?;
            if offset + total > MAX_SCHEMA_SIZE || first_leaf + total_leaves > MAX_SCHEMA_LEAVES {
                return Err(too_large());
            }
            for i in 1..*len as usize {
                lay_out(of, &join(path, &i.to_string()), offset + i * element, depth + 1, leaves)?;
            }
            Ok(total)
        }
        FieldType::Struct(fields) => {
            if fields.is_empty() {
                return Err(SchemaError::Empty { path: path.to_owned() });
            }
            let layout = lay_out_struct(fields, path, offset, depth, leaves)?;
            Ok(layout.pad_to_align().size())
        }
    }
}

mod sealed {
    pub trait Sealed {}
}

/// A Rust type a schema scalar reads as: `bool`, the integers and the floats. Sealed.
pub trait Primitive: Copy + Send + Sync + std::fmt::Debug + 'static + sealed::Sealed {
    /// The scalar this type is.
    const SCALAR: Scalar;
    /// Reads one value from the first `size` bytes of `bytes`.
    ///
    /// # Panics
    /// If `bytes` is shorter than the type.
    fn read(bytes: &[u8]) -> Self;
    /// Writes `self` into the first `size` bytes of `bytes`.
    ///
    /// # Panics
    /// If `bytes` is shorter than the type.
    fn write(self, bytes: &mut [u8]);
    /// Reads one value at `ptr` (any alignment).
    ///
    /// # Safety
    /// `ptr` is valid for reads of the type's size, every byte initialized.
    #[doc(hidden)]
    unsafe fn read_ptr(ptr: *const u8) -> Self;
    /// Writes `self` at `ptr` (any alignment).
    ///
    /// # Safety
    /// `ptr` is valid for writes of the type's size.
    #[doc(hidden)]
    unsafe fn write_ptr(self, ptr: *mut u8);
}

macro_rules! numeric_primitive {
    ($($t:ty => $scalar:ident),*) => {$(
        impl sealed::Sealed for $t {}
        impl Primitive for $t {
            const SCALAR: Scalar = Scalar::$scalar;
            #[inline(always)]
            fn read(bytes: &[u8]) -> Self {
                <$t>::from_ne_bytes(bytes[..size_of::<$t>()].try_into().expect("sliced to size"))
            }
            #[inline(always)]
            fn write(self, bytes: &mut [u8]) {
                bytes[..size_of::<$t>()].copy_from_slice(&self.to_ne_bytes());
            }
            #[inline(always)]
            unsafe fn read_ptr(ptr: *const u8) -> Self {
                // SAFETY: the caller guarantees initialized bytes of the size; every bit pattern
                // is a valid number; unaligned reads need no alignment.
                unsafe { ptr.cast::<$t>().read_unaligned() }
            }
            #[inline(always)]
            unsafe fn write_ptr(self, ptr: *mut u8) {
                // SAFETY: the caller guarantees the bytes are writable.
                unsafe { ptr.cast::<$t>().write_unaligned(self) }
            }
        }
    )*};
}

numeric_primitive!(u8 => U8, u16 => U16, u32 => U32, u64 => U64, i8 => I8, i16 => I16, i32 => I32,
    i64 => I64, f32 => F32, f64 => F64);

impl sealed::Sealed for bool {}
impl Primitive for bool {
    const SCALAR: Scalar = Scalar::Bool;
    #[inline(always)]
    fn read(bytes: &[u8]) -> Self {
        bytes[0] != 0
    }
    #[inline(always)]
    fn write(self, bytes: &mut [u8]) {
        bytes[0] = u8::from(self);
    }
    #[inline(always)]
    unsafe fn read_ptr(ptr: *const u8) -> Self {
        // SAFETY: the caller guarantees one initialized byte; it is read as a `u8`, so any value
        // is sound.
        unsafe { ptr.read() != 0 }
    }
    #[inline(always)]
    unsafe fn write_ptr(self, ptr: *mut u8) {
        // SAFETY: the caller guarantees one writable byte.
        unsafe { ptr.write(u8::from(self)) }
    }
}

/// A typed handle to one scalar of a schema's values: its offset and the schema's id. Made by
/// [`Schema::field`] (or a dynamic query's `field`); `Copy`, two words.
#[derive(Debug)]
pub struct FieldRef<T> {
    offset: u32,
    schema: u64,
    _type: PhantomData<fn() -> T>,
}

impl<T> Clone for FieldRef<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for FieldRef<T> {}

impl<T: Primitive> FieldRef<T> {
    /// The field's byte offset in a value.
    #[inline]
    pub fn offset(self) -> usize {
        self.offset as usize
    }

    /// The id of the schema it was made from.
    #[inline]
    pub fn schema(self) -> u64 {
        self.schema
    }

    /// Reads the field from `value`, one value of its schema.
    ///
    /// # Panics
    /// If `value` is too short for the field (not a value of its schema).
    #[inline(always)]
    pub fn read(self, value: &[u8]) -> T {
        T::read(&value[self.offset as usize..])
    }

    /// Writes the field into `value`, one value of its schema.
    ///
    /// # Panics
    /// If `value` is too short for the field.
    #[inline(always)]
    pub fn write(self, value: &mut [u8], to: T) {
        to.write(&mut value[self.offset as usize..]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_is_repr_c() {
        let schema = Schema::new(vec![
            Field::new("a", Scalar::U8),
            Field::new("b", Scalar::F64),
            Field::new("c", FieldType::array(FieldType::Struct(vec![Field::new("x", Scalar::U16)]), 3)),
        ])
        .unwrap();
        assert_eq!(schema.layout().size(), 24);
        assert_eq!(schema.layout().align(), 8);
        let offsets: Vec<_> = schema.leaves().iter().map(|l| (&*l.path, l.offset)).collect();
        assert_eq!(offsets, [("a", 0), ("b", 8), ("c.0.x", 16), ("c.1.x", 18), ("c.2.x", 20)]);
    }

    #[test]
    fn limits_are_checked_before_expanding() {
        let huge = Schema::new(vec![Field::new("a", FieldType::array(Scalar::U64, u32::MAX))]);
        assert!(matches!(huge, Err(SchemaError::TooLarge { path }) if path == "a"));
        let nested = Schema::new(vec![Field::new(
            "a",
            FieldType::array(FieldType::array(Scalar::U8, 100_000), 100_000),
        )]);
        assert!(matches!(nested, Err(SchemaError::TooLarge { .. })));
        let mut deep = FieldType::Scalar(Scalar::U8);
        for _ in 0..20 {
            deep = FieldType::array(deep, 1);
        }
        assert!(matches!(Schema::new(vec![Field::new("d", deep)]), Err(SchemaError::TooLarge { .. })));
    }

    #[test]
    fn names_are_checked() {
        for bad in ["", "1x", "a.b", "a b", &"x".repeat(65)] {
            assert!(matches!(
                Schema::new(vec![Field::new(bad, Scalar::U8)]),
                Err(SchemaError::InvalidName { .. })
            ));
        }
        let dup = Schema::new(vec![Field::new("x", Scalar::U8), Field::new("x", Scalar::U8)]);
        assert_eq!(dup.unwrap_err(), SchemaError::DuplicateField { path: "x".into() });
        let empty = Schema::new(vec![Field::new("s", FieldType::Struct(vec![]))]);
        assert_eq!(empty.unwrap_err(), SchemaError::Empty { path: "s".into() });
    }

    #[test]
    fn field_refs_check_path_and_type() {
        let schema = Schema::new(vec![Field::new("x", Scalar::F32), Field::new("on", Scalar::Bool)]).unwrap();
        let x = schema.field::<f32>("x").unwrap();
        let mut bytes = vec![0u8; schema.layout().size()];
        x.write(&mut bytes, 2.5);
        assert_eq!(x.read(&bytes), 2.5);
        assert!(matches!(schema.field::<u32>("x"), Err(SchemaError::WrongType { found: "f32", .. })));
        assert!(
            matches!(schema.field::<f32>("y"), Err(SchemaError::NoSuchField { known, .. }) if known == "x, on")
        );
        bytes[4] = 2;
        assert_eq!(schema.check_bytes(&bytes), Err(SchemaError::InvalidBool { path: "on".into(), byte: 2 }));
        assert!(matches!(schema.check_bytes(&[0]), Err(SchemaError::WrongLength { expected: 8, found: 1 })));
    }
}
