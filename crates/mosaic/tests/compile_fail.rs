//! What the compiler must refuse: struct-of-arrays storage on types without named fields, unknown
//! component options, structural changes while a query borrows the world, storage types built
//! from hand-made parts or holding non-`Send` values, and `&mut` access to immutable components.

#[test]
#[cfg_attr(miri, ignore = "trybuild runs rustc, which Miri cannot")]
#[cfg_attr(
    not(all(feature = "serialize", feature = "transform", feature = "parallel", feature = "trace")),
    ignore = "the expected compiler output lists the types of the default build (the transforms)"
)]
fn compile_fail() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui/*.rs");
}
