//! Picks two numeric fields out of a value through its `Serialize` impl, without building its
//! JSON: the map reads `x` and `y` of every entity's position this way (tens of nanoseconds a
//! value, no allocation).
//!
//! The fields are found where a JSON object would have them: the value's own struct fields or
//! string map keys, after unwrapping newtype structs and `Some` (as serde_json writes them).

use serde::Serialize;
use serde::ser::{self, Impossible};

/// Fields `x` and `y` of `value` as numbers, if `value` is a struct or map with both as numbers
/// (any integer or float type, or a newtype around one); `None` otherwise (including NaN and
/// infinities).
pub(crate) fn pick_xy(value: &dyn erased_serde::Serialize, x: &str, y: &str) -> Option<(f64, f64)> {
    let picked = value.serialize(Object { x, y }).ok()?;
    match picked {
        [Some(x), Some(y)] if x.is_finite() && y.is_finite() => Some((x, y)),
        _ => None,
    }
}

/// Not a value the picker reads; also the error of a failed `Serialize` impl.
#[derive(Debug)]
pub(crate) struct Skip;

impl std::fmt::Display for Skip {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("not a number or object")
    }
}

impl std::error::Error for Skip {}

impl ser::Error for Skip {
    fn custom<T: std::fmt::Display>(_: T) -> Self {
        Skip
    }
}

/// Methods a serializer refuses: each returns [`Skip`].
macro_rules! refuse {
    ($($method:ident($($arg:ty),*);)*) => {
        $(fn $method(self, $(_: $arg),*) -> Result<Self::Ok, Skip> { Err(Skip) })*
    };
}

/// Methods that lead to compound values a serializer refuses.
macro_rules! refuse_compounds {
    () => {
        fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, Skip> {
            Err(Skip)
        }
        fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, Skip> {
            Err(Skip)
        }
        fn serialize_tuple_struct(
            self,
            _: &'static str,
            _: usize,
        ) -> Result<Self::SerializeTupleStruct, Skip> {
            Err(Skip)
        }
        fn serialize_tuple_variant(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: usize,
        ) -> Result<Self::SerializeTupleVariant, Skip> {
            Err(Skip)
        }
        fn serialize_struct_variant(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: usize,
        ) -> Result<Self::SerializeStructVariant, Skip> {
            Err(Skip)
        }
        fn serialize_newtype_variant<T: Serialize + ?Sized>(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: &T,
        ) -> Result<Self::Ok, Skip> {
            Err(Skip)
        }
    };
}

/// The top level: a struct or map whose fields `x` and `y` are wanted.
struct Object<'n> {
    x: &'n str,
    y: &'n str,
}

/// The fields found so far: `[x, y]`.
type Picked = [Option<f64>; 2];

/// Collects the wanted fields of one struct or map.
struct Fields<'n> {
    names: [&'n str; 2],
    picked: Picked,
    /// The key of the map entry whose value comes next, if it is a wanted one: 0 for x, 1 for y.
    next: Option<usize>,
}

impl Fields<'_> {
    fn field<T: Serialize + ?Sized>(&mut self, which: Option<usize>, value: &T) {
        if let Some(which) = which {
            self.picked[which] = value.serialize(Number).ok();
        }
    }

    fn which(&self, key: &str) -> Option<usize> {
        self.names.iter().position(|name| *name == key)
    }
}

impl<'n> ser::Serializer for Object<'n> {
    type Ok = Picked;
    type Error = Skip;
    type SerializeSeq = Impossible<Picked, Skip>;
    type SerializeTuple = Impossible<Picked, Skip>;
    type SerializeTupleStruct = Impossible<Picked, Skip>;
    type SerializeTupleVariant = Impossible<Picked, Skip>;
    type SerializeMap = Fields<'n>;
    type SerializeStruct = Fields<'n>;
    type SerializeStructVariant = Impossible<Picked, Skip>;

    refuse! {
        serialize_bool(bool); serialize_i8(i8); serialize_i16(i16); serialize_i32(i32);
        serialize_i64(i64); serialize_i128(i128); serialize_u8(u8); serialize_u16(u16);
        serialize_u32(u32); serialize_u64(u64); serialize_u128(u128); serialize_f32(f32);
        serialize_f64(f64); serialize_char(char); serialize_str(&str); serialize_bytes(&[u8]);
        serialize_none(); serialize_unit(); serialize_unit_struct(&'static str);
        serialize_unit_variant(&'static str, u32, &'static str);
    }
    refuse_compounds!();

    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<Picked, Skip> {
        value.serialize(self)
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<Picked, Skip> {
        value.serialize(self)
    }

    fn serialize_map(self, _: Option<usize>) -> Result<Fields<'n>, Skip> {
        Ok(Fields { names: [self.x, self.y], picked: [None, None], next: None })
    }

    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Fields<'n>, Skip> {
        Ok(Fields { names: [self.x, self.y], picked: [None, None], next: None })
    }
}

impl ser::SerializeStruct for Fields<'_> {
    type Ok = Picked;
    type Error = Skip;

    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<(), Skip> {
        let which = self.which(key);
        self.field(which, value);
        Ok(())
    }

    fn end(self) -> Result<Picked, Skip> {
        Ok(self.picked)
    }
}

impl ser::SerializeMap for Fields<'_> {
    type Ok = Picked;
    type Error = Skip;

    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Skip> {
        let mut text = KeyText::default();
        self.next = key.serialize(&mut text).ok().and_then(|()| self.which(text.as_str()?));
        Ok(())
    }

    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Skip> {
        let which = self.next.take();
        self.field(which, value);
        Ok(())
    }

    fn end(self) -> Result<Picked, Skip> {
        Ok(self.picked)
    }
}

/// A map key, kept if it is a short string (field names are).
#[derive(Default)]
struct KeyText {
    bytes: [u8; 32],
    len: Option<usize>,
}

impl KeyText {
    fn as_str(&self) -> Option<&str> {
        std::str::from_utf8(&self.bytes[..self.len?]).ok()
    }
}

impl ser::Serializer for &mut KeyText {
    type Ok = ();
    type Error = Skip;
    type SerializeSeq = Impossible<(), Skip>;
    type SerializeTuple = Impossible<(), Skip>;
    type SerializeTupleStruct = Impossible<(), Skip>;
    type SerializeTupleVariant = Impossible<(), Skip>;
    type SerializeMap = Impossible<(), Skip>;
    type SerializeStruct = Impossible<(), Skip>;
    type SerializeStructVariant = Impossible<(), Skip>;

    refuse! {
        serialize_bool(bool); serialize_i8(i8); serialize_i16(i16); serialize_i32(i32);
        serialize_i64(i64); serialize_i128(i128); serialize_u8(u8); serialize_u16(u16);
        serialize_u32(u32); serialize_u64(u64); serialize_u128(u128); serialize_f32(f32);
        serialize_f64(f64); serialize_char(char); serialize_bytes(&[u8]);
        serialize_none(); serialize_unit(); serialize_unit_struct(&'static str);
        serialize_unit_variant(&'static str, u32, &'static str);
    }
    refuse_compounds!();

    fn serialize_str(self, key: &str) -> Result<(), Skip> {
        let bytes = key.as_bytes();
        let slot = self.bytes.get_mut(..bytes.len()).ok_or(Skip)?;
        slot.copy_from_slice(bytes);
        self.len = Some(bytes.len());
        Ok(())
    }

    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), Skip> {
        value.serialize(self)
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, value: &T) -> Result<(), Skip> {
        value.serialize(self)
    }

    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, Skip> {
        Err(Skip)
    }

    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeStruct, Skip> {
        Err(Skip)
    }
}

/// A number of any primitive type, as `f64` (64-bit and wider integers rounded).
struct Number;

impl ser::Serializer for Number {
    type Ok = f64;
    type Error = Skip;
    type SerializeSeq = Impossible<f64, Skip>;
    type SerializeTuple = Impossible<f64, Skip>;
    type SerializeTupleStruct = Impossible<f64, Skip>;
    type SerializeTupleVariant = Impossible<f64, Skip>;
    type SerializeMap = Impossible<f64, Skip>;
    type SerializeStruct = Impossible<f64, Skip>;
    type SerializeStructVariant = Impossible<f64, Skip>;

    refuse! {
        serialize_bool(bool); serialize_char(char); serialize_str(&str); serialize_bytes(&[u8]);
        serialize_none(); serialize_unit(); serialize_unit_struct(&'static str);
        serialize_unit_variant(&'static str, u32, &'static str);
    }
    refuse_compounds!();

    fn serialize_i8(self, v: i8) -> Result<f64, Skip> {
        Ok(f64::from(v))
    }
    fn serialize_i16(self, v: i16) -> Result<f64, Skip> {
        Ok(f64::from(v))
    }
    fn serialize_i32(self, v: i32) -> Result<f64, Skip> {
        Ok(f64::from(v))
    }
    fn serialize_i64(self, v: i64) -> Result<f64, Skip> {
        Ok(v as f64)
    }
    fn serialize_i128(self, v: i128) -> Result<f64, Skip> {
        Ok(v as f64)
    }
    fn serialize_u8(self, v: u8) -> Result<f64, Skip> {
        Ok(f64::from(v))
    }
    fn serialize_u16(self, v: u16) -> Result<f64, Skip> {
        Ok(f64::from(v))
    }
    fn serialize_u32(self, v: u32) -> Result<f64, Skip> {
        Ok(f64::from(v))
    }
    fn serialize_u64(self, v: u64) -> Result<f64, Skip> {
        Ok(v as f64)
    }
    fn serialize_u128(self, v: u128) -> Result<f64, Skip> {
        Ok(v as f64)
    }
    fn serialize_f32(self, v: f32) -> Result<f64, Skip> {
        Ok(f64::from(v))
    }
    fn serialize_f64(self, v: f64) -> Result<f64, Skip> {
        Ok(v)
    }

    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<f64, Skip> {
        value.serialize(self)
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<f64, Skip> {
        value.serialize(self)
    }

    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, Skip> {
        Err(Skip)
    }

    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeStruct, Skip> {
        Err(Skip)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    #[derive(Serialize)]
    struct Pos {
        x: f32,
        y: f32,
        z: u8,
    }

    #[derive(Serialize)]
    struct Wrapped(Pos);

    #[derive(Serialize)]
    struct Meters(f64);

    #[derive(Serialize)]
    struct Grid {
        y: i64,
        x: Meters,
    }

    #[test]
    fn picks_struct_fields_through_newtypes_and_maps() {
        let pos = Pos { x: 1.5, y: -2.0, z: 3 };
        assert_eq!(pick_xy(&pos, "x", "y"), Some((1.5, -2.0)));
        assert_eq!(pick_xy(&pos, "z", "x"), Some((3.0, 1.5)));
        assert_eq!(pick_xy(&Wrapped(Pos { x: 4.0, y: 5.0, z: 0 }), "x", "y"), Some((4.0, 5.0)));
        assert_eq!(pick_xy(&Grid { y: -7, x: Meters(0.25) }, "x", "y"), Some((0.25, -7.0)));
        let map: BTreeMap<&str, u16> = [("x", 9), ("y", 10), ("w", 1)].into_iter().collect();
        assert_eq!(pick_xy(&map, "x", "y"), Some((9.0, 10.0)));
        assert_eq!(pick_xy(&Some(Pos { x: 1.0, y: 2.0, z: 0 }), "x", "y"), Some((1.0, 2.0)));
    }

    #[test]
    fn anything_else_is_none() {
        assert_eq!(pick_xy(&Pos { x: 1.0, y: 2.0, z: 3 }, "x", "q"), None, "a missing field");
        assert_eq!(pick_xy(&Pos { x: f32::NAN, y: 2.0, z: 3 }, "x", "y"), None, "NaN");
        assert_eq!(pick_xy(&(1.0, 2.0), "x", "y"), None, "a tuple");
        assert_eq!(pick_xy(&3u32, "x", "y"), None, "a number");
        let texts: BTreeMap<&str, &str> = [("x", "a"), ("y", "b")].into_iter().collect();
        assert_eq!(pick_xy(&texts, "x", "y"), None, "text fields");
        let long_keys: BTreeMap<String, f32> = [("x".repeat(40), 1.0)].into_iter().collect();
        assert_eq!(pick_xy(&long_keys, "x", "y"), None);
    }
}
