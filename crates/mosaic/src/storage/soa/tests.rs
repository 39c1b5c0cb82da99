//! Unit tests of the struct-of-arrays columns.

use super::*;

/// Two fields, one of which needs drop; `a == LIE` makes `split` write too few fields.
#[derive(Debug, PartialEq)]
struct Sample {
    a: u32,
    b: String,
}

const LIE: u32 = 999;

// SAFETY: `fields`, `split` and `join` list both fields in order with their types, except
// that `split` deliberately writes one field for `a == LIE`, to test that the count check
// catches it before the row counts as filled.
unsafe impl SoaLayout for Sample {
    fn fields(out: &mut Vec<ColumnInfo>) {
        out.push(ColumnInfo::of::<u32>());
        out.push(ColumnInfo::of::<String>());
    }
    fn split(self, writer: &mut SoaWriter<'_>) {
        writer.put(self.a);
        if self.a != LIE {
            writer.put(self.b);
        }
    }
    fn join(reader: &mut SoaReader<'_>) -> Self {
        Self { a: reader.take(), b: reader.take() }
    }
}

fn sample(a: u32, b: &str) -> Sample {
    Sample { a, b: b.to_string() }
}

#[test]
fn replace_swaps_whole_rows() {
    let mut columns = SoaColumns::new(SoaInfo::of::<Sample>());
    columns.push(sample(1, "one"));
    columns.push(sample(2, "two"));
    assert_eq!(columns.replace(0, sample(3, "three")), sample(1, "one"));
    assert_eq!(columns.swap_remove::<Sample>(0), sample(3, "three"));
    assert_eq!(columns.swap_remove::<Sample>(0), sample(2, "two"));
    assert!(columns.is_empty());
}

#[test]
fn a_short_layout_is_caught_before_the_row_changes() {
    let mut columns = SoaColumns::new(SoaInfo::of::<Sample>());
    columns.push(sample(1, "one"));
    let replace = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        columns.replace(0, sample(LIE, "lost"));
    }));
    let message = replace.expect_err("a short layout must panic");
    assert!(message.downcast_ref::<String>().is_some_and(|m| m.contains("wrote too few fields")));
    assert!(
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| columns.push(sample(LIE, "x")))).is_err()
    );
    // The row still holds its old value, whole, and nothing else counts as filled.
    assert_eq!(columns.len(), 1);
    assert_eq!(columns.swap_remove::<Sample>(0), sample(1, "one"));
}
