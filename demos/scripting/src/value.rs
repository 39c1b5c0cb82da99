//! [`Value`]: one field of a row as the script sees it, the checked conversions between it and
//! Rhai's `Dynamic`, and [`Handle`]: a typed field handle of a dynamic query that copies a
//! field between a query row and a [`Value`] with no name lookup.

use mosaic::dynamic::{DynamicRow, DynamicRowMut, DynamicValue, Scalar, TermField};
use rhai::{Dynamic, FLOAT, INT};

/// One field's value in a row: what a script reads and writes. Integers of every width are an
/// `i64` (Rhai's `INT`), `f32` is a float (Rhai's `FLOAT`, `f32` in this build), `bool` is a
/// bool.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value {
    /// An integer field (`u8` to `u32`, `i8` to `i64`).
    Int(i64),
    /// An `f32` field.
    Float(f32),
    /// A `bool` field.
    Bool(bool),
}

impl Value {
    /// The value as a Rhai value.
    #[inline(always)]
    pub fn to_dynamic(self) -> Dynamic {
        match self {
            Self::Int(v) => Dynamic::from_int(v as INT),
            Self::Float(v) => Dynamic::from_float(v as FLOAT),
            Self::Bool(v) => Dynamic::from_bool(v),
        }
    }

    /// The bits, for hashing and comparing (every variant in one `u64`).
    pub fn bits(self) -> u64 {
        match self {
            Self::Int(v) => v as u64,
            Self::Float(v) => u64::from(v.to_bits()),
            Self::Bool(v) => u64::from(v),
        }
    }
}

/// Whether scripts can hold `scalar`: every scalar but `u64` (above Rhai's `i64`) and `f64`
/// (script floats are `f32`).
pub fn scriptable(scalar: Scalar) -> bool {
    !matches!(scalar, Scalar::U64 | Scalar::F64)
}

/// The range of an integer scalar.
fn int_range(scalar: Scalar) -> (i64, i64) {
    match scalar {
        Scalar::U8 => (0, u8::MAX.into()),
        Scalar::U16 => (0, u16::MAX.into()),
        Scalar::U32 => (0, u32::MAX.into()),
        Scalar::I8 => (i8::MIN.into(), i8::MAX.into()),
        Scalar::I16 => (i16::MIN.into(), i16::MAX.into()),
        Scalar::I32 => (i32::MIN.into(), i32::MAX.into()),
        _ => (i64::MIN, i64::MAX),
    }
}

/// `value` as a value of field `field` of type `scalar`. An integer is accepted for an `f32`
/// field (converted); nothing else crosses kinds.
///
/// # Errors
/// A message naming the field: the wrong kind of value, an integer out of the field's range, or
/// a float that is not finite.
#[inline]
pub fn from_dynamic(scalar: Scalar, field: &str, value: &Dynamic) -> Result<Value, String> {
    let wrong = || format!("field `{field}` is {}, not {}", scalar.name(), value.type_name());
    match scalar {
        Scalar::Bool => value.as_bool().map(Value::Bool).map_err(|_| wrong()),
        Scalar::F32 => {
            let v = match (value.as_float(), value.as_int()) {
                (Ok(f), _) => f,
                (_, Ok(i)) => i as f32,
                _ => return Err(wrong()),
            };
            if v.is_finite() {
                Ok(Value::Float(v))
            } else {
                Err(format!("field `{field}` is f32: {v} is not a finite number"))
            }
        }
        Scalar::U64 | Scalar::F64 => {
            Err(format!("field `{field}` is {}: scripts cannot hold it", scalar.name()))
        }
        _ => {
            let v = value.as_int().map_err(|_| wrong())?;
            let (min, max) = int_range(scalar);
            if (min..=max).contains(&v) {
                Ok(Value::Int(v))
            } else {
                Err(format!("field `{field}` is {}: {v} is out of its range {min}..={max}", scalar.name()))
            }
        }
    }
}

/// Writes `value` (checked for `scalar` already) into field `path` of `target`.
///
/// # Errors
/// The schema's message if the path or type does not match (the caller checked both).
pub fn write_value(
    target: &mut DynamicValue,
    path: &str,
    scalar: Scalar,
    value: Value,
) -> Result<(), String> {
    let result = match (scalar, value) {
        (Scalar::Bool, Value::Bool(v)) => target.set_path(path, v),
        (Scalar::F32, Value::Float(v)) => target.set_path(path, v),
        (Scalar::U8, Value::Int(v)) => target.set_path(path, v as u8),
        (Scalar::U16, Value::Int(v)) => target.set_path(path, v as u16),
        (Scalar::U32, Value::Int(v)) => target.set_path(path, v as u32),
        (Scalar::I8, Value::Int(v)) => target.set_path(path, v as i8),
        (Scalar::I16, Value::Int(v)) => target.set_path(path, v as i16),
        (Scalar::I32, Value::Int(v)) => target.set_path(path, v as i32),
        (Scalar::I64, Value::Int(v)) => target.set_path(path, v),
        _ => return Err(format!("field `{path}` is {}: cannot hold {value:?}", scalar.name())),
    };
    result.map_err(|e| e.to_string())
}

/// A typed handle to one scalar field of one term of a dynamic query: resolved once when the
/// system is built, then a row access is an offset read or write.
#[derive(Clone, Copy, Debug)]
pub enum Handle {
    /// A `bool` field.
    Bool(TermField<bool>),
    /// A `u8` field.
    U8(TermField<u8>),
    /// A `u16` field.
    U16(TermField<u16>),
    /// A `u32` field.
    U32(TermField<u32>),
    /// An `i8` field.
    I8(TermField<i8>),
    /// An `i16` field.
    I16(TermField<i16>),
    /// An `i32` field.
    I32(TermField<i32>),
    /// An `i64` field.
    I64(TermField<i64>),
    /// An `f32` field.
    F32(TermField<f32>),
}

impl Handle {
    /// The handle of field `path` of term `term` of `query`, of type `scalar`.
    ///
    /// # Errors
    /// The query's error (no such term or field, another type), or a scalar scripts cannot hold.
    pub fn resolve(
        query: &mosaic::dynamic::DynamicQuery,
        term: usize,
        path: &str,
        scalar: Scalar,
    ) -> Result<Self, String> {
        let e = |e: mosaic::dynamic::DynamicError| e.to_string();
        Ok(match scalar {
            Scalar::Bool => Self::Bool(query.field(term, path).map_err(e)?),
            Scalar::U8 => Self::U8(query.field(term, path).map_err(e)?),
            Scalar::U16 => Self::U16(query.field(term, path).map_err(e)?),
            Scalar::U32 => Self::U32(query.field(term, path).map_err(e)?),
            Scalar::I8 => Self::I8(query.field(term, path).map_err(e)?),
            Scalar::I16 => Self::I16(query.field(term, path).map_err(e)?),
            Scalar::I32 => Self::I32(query.field(term, path).map_err(e)?),
            Scalar::I64 => Self::I64(query.field(term, path).map_err(e)?),
            Scalar::F32 => Self::F32(query.field(term, path).map_err(e)?),
            Scalar::U64 | Scalar::F64 => {
                return Err(format!("field `{path}` is {}: scripts cannot hold it", scalar.name()));
            }
        })
    }

    /// Reads the field from a row of a reading query.
    #[inline(always)]
    pub fn read(self, row: &DynamicRow<'_>) -> Value {
        match self {
            Self::Bool(h) => Value::Bool(row.get(h)),
            Self::U8(h) => Value::Int(row.get(h).into()),
            Self::U16(h) => Value::Int(row.get(h).into()),
            Self::U32(h) => Value::Int(row.get(h).into()),
            Self::I8(h) => Value::Int(row.get(h).into()),
            Self::I16(h) => Value::Int(row.get(h).into()),
            Self::I32(h) => Value::Int(row.get(h).into()),
            Self::I64(h) => Value::Int(row.get(h)),
            Self::F32(h) => Value::Float(row.get(h)),
        }
    }

    /// Writes `value` into the field of a row of a writing query. `value` is of the field's kind
    /// and in its range ([`from_dynamic`] checked it); a value of another kind is left unwritten.
    #[inline(always)]
    pub fn write(self, row: &mut DynamicRowMut<'_>, value: Value) {
        match (self, value) {
            (Self::Bool(h), Value::Bool(v)) => row.set(h, v),
            (Self::U8(h), Value::Int(v)) => row.set(h, v as u8),
            (Self::U16(h), Value::Int(v)) => row.set(h, v as u16),
            (Self::U32(h), Value::Int(v)) => row.set(h, v as u32),
            (Self::I8(h), Value::Int(v)) => row.set(h, v as i8),
            (Self::I16(h), Value::Int(v)) => row.set(h, v as i16),
            (Self::I32(h), Value::Int(v)) => row.set(h, v as i32),
            (Self::I64(h), Value::Int(v)) => row.set(h, v),
            (Self::F32(h), Value::Float(v)) => row.set(h, v),
            _ => debug_assert!(false, "a value of another kind than its field"),
        }
    }
}
