//! The component shapes of ecs_bench_suite, generated once per library with that library's derive
//! (so every library moves the same bytes), and the values every world starts from.
//!
//! `components!(#[derive(...)])` defines, in the calling module:
//! - `Transform(Mat4)` (64 bytes), `Position(Vec3)`, `Rotation(Vec3)`, `Velocity(Vec3)` (12 bytes
//!   each), all `Copy + Serialize + Deserialize`, the `Row` tuple of the four and `row(i)`;
//! - `Tag`, a zero-sized marker (`filter_iter`, `option_iter`);
//! - `frag::{A, ..., Z, Data}`, each a `f32` newtype;
//! - `sched::{A, B, C, D, E}`, each a `f32` newtype (also used by `add_remove`).
//!
//! `fillers!(#[derive(...)])` defines `Filler<const N: usize>(u32)` for the founding profiles.

use glam::{Mat4, Vec3};

/// The matrix every entity starts with: a rotation about X, invertible, as in ecs_bench_suite.
pub fn start_matrix() -> Mat4 {
    Mat4::from_axis_angle(Vec3::X, 1.2)
}

/// The starting position of entity `i`.
pub fn start_position(i: usize) -> Vec3 {
    Vec3::new(i as f32, 0.0, 0.0)
}

/// Whether entity `i` of `filter_iter` / `option_iter` has the tag: every second one.
pub fn tagged(i: usize) -> bool {
    i.is_multiple_of(2)
}

/// The velocity every entity starts with.
pub const START_VELOCITY: Vec3 = Vec3::new(1.0, 0.5, 0.25);

/// The heavy_compute step: invert the matrix `HEAVY_INVERSIONS` times, then transform the
/// position by it. Shared by every library so they all do the same arithmetic.
#[inline]
pub fn heavy_step(matrix: &mut Mat4, position: &mut Vec3) {
    for _ in 0..crate::library::HEAVY_INVERSIONS {
        *matrix = matrix.inverse();
    }
    *position = matrix.transform_vector3(*position);
}

/// Defines the workload components with the given attributes (a library's derives) on each.
#[macro_export]
macro_rules! components {
    ($(#[$attr:meta])*) => {
        /// A 4x4 `f32` transform (64 bytes).
        $(#[$attr])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, ::serde::Serialize, ::serde::Deserialize)]
        pub struct Transform(pub ::glam::Mat4);
        /// A position (12 bytes).
        $(#[$attr])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, ::serde::Serialize, ::serde::Deserialize)]
        pub struct Position(pub ::glam::Vec3);
        /// A rotation (12 bytes).
        $(#[$attr])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, ::serde::Serialize, ::serde::Deserialize)]
        pub struct Rotation(pub ::glam::Vec3);
        /// A velocity (12 bytes).
        $(#[$attr])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, ::serde::Serialize, ::serde::Deserialize)]
        pub struct Velocity(pub ::glam::Vec3);

        /// A zero-sized marker, on every second entity of `filter_iter` and `option_iter`.
        $(#[$attr])*
        #[derive(Clone, Copy, Debug, Default, PartialEq)]
        pub struct Tag;

        /// The four components of one entity, as serialized.
        pub type Row = (Transform, Position, Rotation, Velocity);

        /// Entity `i`'s starting components.
        pub fn row(i: usize) -> Row {
            (
                Transform($crate::components::start_matrix()),
                Position($crate::components::start_position(i)),
                Rotation(::glam::Vec3::X),
                Velocity($crate::components::START_VELOCITY),
            )
        }

        /// `frag_iter`'s 26 types and `Data`.
        pub mod frag {
            $crate::components!(@newtypes [$(#[$attr])*] A B C D E F G H I J K L M N O P Q R S T U V W X Y Z Data);
        }

        /// `schedule`'s and `add_remove`'s five types.
        pub mod sched {
            $crate::components!(@newtypes [$(#[$attr])*] A B C D E);
        }
    };
    (@newtypes $attrs:tt $($name:ident)*) => {
        $( $crate::components!(@newtype $attrs $name); )*
    };
    (@newtype [$(#[$attr:meta])*] $name:ident) => {
        /// A `f32` newtype.
        $(#[$attr])*
        #[derive(Clone, Copy, Debug, Default, PartialEq)]
        pub struct $name(pub f32);
    };
}

/// Defines `Filler<const N: usize>(u32)` with the given attributes: the founding profiles'
/// extra component types (no entity holds one; they exist to be registered and queried).
#[macro_export]
macro_rules! fillers {
    ($(#[$attr:meta])*) => {
        /// A filler component type, one per `N`.
        $(#[$attr])*
        #[derive(Clone, Copy, Debug, Default)]
        pub struct Filler<const N: usize>(pub u32);
    };
}
