//! The default stable name of a registered type.

/// `type_name` with every path shortened to its last segment: `game::units::Health` becomes
/// `Health`, `game::Pool<game::Ammo>` becomes `Pool<Ammo>`. O(len).
///
/// Used as a registered type's name when none is given, and to name the type in error messages
/// (the line a user types, `world.register::<Health>()`, uses the short path).
pub(crate) fn short_name(type_name: &str) -> String {
    let mut out = String::with_capacity(type_name.len());
    // Start of the current path segment in `out`.
    let mut segment = 0;
    let mut chars = type_name.char_indices().peekable();
    while let Some((_, c)) = chars.next() {
        if c == ':' && chars.peek().is_some_and(|&(_, next)| next == ':') {
            chars.next();
            out.truncate(segment);
            continue;
        }
        out.push(c);
        if !(c.is_alphanumeric() || c == '_') {
            segment = out.len();
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::short_name;

    #[test]
    fn paths_lose_their_modules() {
        assert_eq!(short_name("Health"), "Health");
        assert_eq!(short_name("game::units::Health"), "Health");
        assert_eq!(short_name("game::Pool<game::Ammo>"), "Pool<Ammo>");
        assert_eq!(short_name("a::Pair<b::X, c::d::Y>"), "Pair<X, Y>");
        assert_eq!(short_name("(a::X, [b::Y; 3])"), "(X, [Y; 3])");
        assert_eq!(short_name("&'static a::B"), "&'static B");
    }
}
