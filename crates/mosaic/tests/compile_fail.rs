//! What the compiler must refuse: struct-of-arrays storage on types without named fields, unknown
//! component options, and structural changes while a query borrows the world.

#[test]
#[cfg_attr(miri, ignore = "trybuild runs rustc, which Miri cannot")]
fn compile_fail() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui/*.rs");
}
