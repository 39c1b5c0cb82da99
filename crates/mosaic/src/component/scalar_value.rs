//! [`ScalarValue`]: one scalar of a run-time component's value, of whichever [`Scalar`] type.

use super::schema::{Primitive, Scalar};

/// The value of one scalar of a [`Schema`](super::schema::Schema)'s values, tagged with its
/// type: what code that walks a schema's leaves (display, snapshots, tools, script bindings)
/// reads and writes without a match per type of its own.
///
/// # Examples
/// ```
/// use mosaic::dynamic::{Scalar, ScalarValue};
///
/// let mut bytes = [0u8; 4];
/// ScalarValue::F32(1.5).write(&mut bytes);
/// assert_eq!(ScalarValue::read(Scalar::F32, &bytes), ScalarValue::F32(1.5));
/// assert_eq!(ScalarValue::F32(1.5).scalar(), Scalar::F32);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[expect(missing_docs, reason = "each variant is the scalar type of its name")]
pub enum ScalarValue {
    Bool(bool),
    U8(u8),
    U16(u16),
    U32(u32),
    U64(u64),
    I8(i8),
    I16(i16),
    I32(i32),
    I64(i64),
    F32(f32),
    F64(f64),
}

impl ScalarValue {
    /// Reads a `scalar` from the first [`Scalar::size`] bytes of `bytes` (native byte order, as
    /// values are stored). A `bool` byte other than 0 reads as `true`. O(1).
    ///
    /// # Panics
    /// If `bytes` is shorter than the scalar.
    pub fn read(scalar: Scalar, bytes: &[u8]) -> Self {
        match scalar {
            Scalar::Bool => Self::Bool(bytes[0] != 0),
            Scalar::U8 => Self::U8(u8::read(bytes)),
            Scalar::U16 => Self::U16(u16::read(bytes)),
            Scalar::U32 => Self::U32(u32::read(bytes)),
            Scalar::U64 => Self::U64(u64::read(bytes)),
            Scalar::I8 => Self::I8(i8::read(bytes)),
            Scalar::I16 => Self::I16(i16::read(bytes)),
            Scalar::I32 => Self::I32(i32::read(bytes)),
            Scalar::I64 => Self::I64(i64::read(bytes)),
            Scalar::F32 => Self::F32(f32::read(bytes)),
            Scalar::F64 => Self::F64(f64::read(bytes)),
        }
    }

    /// Writes the value into the first [`Scalar::size`] bytes of `bytes`. O(1).
    ///
    /// # Panics
    /// If `bytes` is shorter than the scalar.
    pub fn write(self, bytes: &mut [u8]) {
        match self {
            Self::Bool(v) => v.write(bytes),
            Self::U8(v) => v.write(bytes),
            Self::U16(v) => v.write(bytes),
            Self::U32(v) => v.write(bytes),
            Self::U64(v) => v.write(bytes),
            Self::I8(v) => v.write(bytes),
            Self::I16(v) => v.write(bytes),
            Self::I32(v) => v.write(bytes),
            Self::I64(v) => v.write(bytes),
            Self::F32(v) => v.write(bytes),
            Self::F64(v) => v.write(bytes),
        }
    }

    /// Its scalar type.
    pub fn scalar(self) -> Scalar {
        match self {
            Self::Bool(_) => Scalar::Bool,
            Self::U8(_) => Scalar::U8,
            Self::U16(_) => Scalar::U16,
            Self::U32(_) => Scalar::U32,
            Self::U64(_) => Scalar::U64,
            Self::I8(_) => Scalar::I8,
            Self::I16(_) => Scalar::I16,
            Self::I32(_) => Scalar::I32,
            Self::I64(_) => Scalar::I64,
            Self::F32(_) => Scalar::F32,
            Self::F64(_) => Scalar::F64,
        }
    }
}

impl std::fmt::Display for ScalarValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Bool(v) => v.fmt(f),
            Self::U8(v) => v.fmt(f),
            Self::U16(v) => v.fmt(f),
            Self::U32(v) => v.fmt(f),
            Self::U64(v) => v.fmt(f),
            Self::I8(v) => v.fmt(f),
            Self::I16(v) => v.fmt(f),
            Self::I32(v) => v.fmt(f),
            Self::I64(v) => v.fmt(f),
            Self::F32(v) => v.fmt(f),
            Self::F64(v) => v.fmt(f),
        }
    }
}

/// Serialized as the bare scalar (`1.5`, `true`, `-3`), not as a tagged enum: what a schema's
/// fields look like in text (snapshots, tools).
#[cfg(feature = "serialize")]
impl serde::Serialize for ScalarValue {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match *self {
            Self::Bool(v) => serializer.serialize_bool(v),
            Self::U8(v) => serializer.serialize_u8(v),
            Self::U16(v) => serializer.serialize_u16(v),
            Self::U32(v) => serializer.serialize_u32(v),
            Self::U64(v) => serializer.serialize_u64(v),
            Self::I8(v) => serializer.serialize_i8(v),
            Self::I16(v) => serializer.serialize_i16(v),
            Self::I32(v) => serializer.serialize_i32(v),
            Self::I64(v) => serializer.serialize_i64(v),
            Self::F32(v) => serializer.serialize_f32(v),
            Self::F64(v) => serializer.serialize_f64(v),
        }
    }
}
