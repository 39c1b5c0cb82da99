//! What `#[derive(QueryData)]` on an enum needs at run time: the access of a query whose item
//! is one of several variants (hecs' enum queries: the first variant whose terms all match).

use smallvec::SmallVec;

use super::access::{ComponentAccess, assert_no_aliasing};

/// Reports one variant's accesses: its fields' `visit_access`, in order.
#[doc(hidden)]
pub type VisitVariant = fn(&mut dyn FnMut(ComponentAccess));

/// The accesses of an enum query with `variants` (each named `Enum::Variant` and reporting its
/// fields' accesses), handed to `visit`: each variant is checked for aliasing on its own,
/// then the union is reported with one access per component type, a write if any variant
/// writes it. Variants are never fetched together for one entity, so `&mut A` in one and `&A`
/// in another do not alias. O(v * c^2) for v variants of c terms.
///
/// # Panics
/// If a variant aliases a `&mut` within itself, naming the enum, the variant and the component.
#[doc(hidden)]
#[track_caller]
pub fn visit_enum_access(variants: &[(&'static str, VisitVariant)], visit: &mut dyn FnMut(ComponentAccess)) {
    let mut union = SmallVec::<[ComponentAccess; 12]>::new();
    for &(variant, visit_variant) in variants {
        assert_no_aliasing(variant, |v| visit_variant(v));
        visit_variant(&mut |access| match union.iter_mut().find(|seen| seen.type_id == access.type_id) {
            Some(seen) => seen.write |= access.write,
            None => union.push(access),
        });
    }
    union.into_iter().for_each(visit);
}
