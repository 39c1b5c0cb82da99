//! One check for every way a component value enters the arena's world: scene files, snapshot
//! loads and the inspector's writes all call these, so a value the systems cannot run on (a
//! spawner of a template that does not exist, a period of 0, a NaN position) is an error naming
//! the component and the field, never a panic or a run that silently differs.

use mosaic::{View, World};
use rand::RngCore;
use rand_pcg::Pcg64Mcg;

use crate::components::{Position, Spawner, Velocity};
use crate::systems::Arena;

/// The most entities one spawner makes per period: bounds the commands one frame can queue.
pub const MAX_SPAWN_COUNT: u32 = 1 << 16;

/// The most frames a run may ask for (`--frames`, the web page's `frames`): 10^7, 46 hours at
/// 60 frames per second.
pub const MAX_FRAMES: u64 = 10_000_000;

/// A command-line flag or URL parameter that is not a value the arena takes: which one and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{name}: {problem}")]
pub struct BadArgument {
    /// The flag or parameter, as the user wrote it (`--entities`, `entities`).
    pub name: String,
    /// What is wrong, with what is allowed.
    pub problem: String,
}

fn bad(name: &str, problem: String) -> BadArgument {
    BadArgument { name: name.to_owned(), problem }
}

/// Parses a whole number `text` given for `name`, in `0..=max`: decimal digits only, so `abc`,
/// `NaN`, `Infinity`, `-1`, `1e3`, ` 5` and the empty string are errors, and so is a number
/// above `max` (never wrapped: `4294967396` is not 100). O(`text.len()`).
///
/// # Errors
/// [`BadArgument`] naming `name` and the value.
pub fn parse_count(name: &str, text: &str, max: u64) -> Result<u64, BadArgument> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad(name, format!("`{text}` is not a whole number; give 0 to {max}")));
    }
    match text.parse::<u64>() {
        Ok(value) if value <= max => Ok(value),
        _ => Err(bad(name, format!("{text} is above the limit of {max}"))),
    }
}

/// Parses a random seed `text` given for `name`: a whole number in `0..=2^64 - 1`, in decimal
/// or in hexadecimal after `0x` (as the command line prints the default, `0x5EED`).
///
/// # Errors
/// [`BadArgument`] naming `name` and the value.
pub fn parse_seed(name: &str, text: &str) -> Result<u64, BadArgument> {
    let hex = text.strip_prefix("0x").or_else(|| text.strip_prefix("0X"));
    match hex {
        Some(digits) if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_hexdigit()) => {
            u64::from_str_radix(digits, 16)
                .map_err(|_| bad(name, format!("{text} is above the largest seed, 0xffffffffffffffff")))
        }
        Some(_) => Err(bad(name, format!("`{text}` is not a hexadecimal number"))),
        None => parse_count(name, text, u64::MAX),
    }
}

/// Checks a scene scaled for `name` (`--entities`, `entities`): the collision grid within its
/// limit and the initial world within [`crate::scene::MAX_ENTITIES`] ([`Scene::check_size`],
/// what the command line checks after scaling).
///
/// # Errors
/// [`BadArgument`] naming `name` and the limit passed.
///
/// [`Scene::check_size`]: crate::scene::Scene::check_size
pub fn scene_size(name: &str, entities: u64, scene: &crate::scene::Scene) -> Result<(), BadArgument> {
    scene.check_size().map_err(|problem| bad(name, format!("{entities}: {problem}")))
}

/// A value the arena cannot run on: which component, which field, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{component}.{field}`: {problem}")]
pub struct Invalid {
    /// The component's (or resource's) snapshot name.
    pub component: &'static str,
    /// The field.
    pub field: &'static str,
    /// What is wrong, with the allowed range.
    pub problem: String,
}

fn invalid(component: &'static str, field: &'static str, problem: String) -> Invalid {
    Invalid { component, field, problem }
}

/// Checks a [`Spawner`] against a scene of `templates` templates: `template < templates`,
/// `1 <= every`, `count <= MAX_SPAWN_COUNT`, `timer < every`.
///
/// # Errors
/// The first field out of range.
pub fn spawner(spawner: &Spawner, templates: usize) -> Result<(), Invalid> {
    if spawner.template as usize >= templates {
        let problem = format!("template {} does not exist; the scene has {templates}", spawner.template);
        return Err(invalid("spawner", "template", problem));
    }
    if spawner.every == 0 {
        return Err(invalid("spawner", "every", "the period must be at least 1 frame".into()));
    }
    if spawner.count > MAX_SPAWN_COUNT {
        let problem = format!("{} entities per period is over the limit of {MAX_SPAWN_COUNT}", spawner.count);
        return Err(invalid("spawner", "count", problem));
    }
    if spawner.timer >= spawner.every {
        let problem = format!("{} must be below the period {}", spawner.timer, spawner.every);
        return Err(invalid("spawner", "timer", problem));
    }
    Ok(())
}

/// Checks a [`Position`]: finite and inside the arena, `0..=width` by `0..=height`.
///
/// # Errors
/// The first coordinate that is not.
pub fn position(position: &Position, width: f32, height: f32) -> Result<(), Invalid> {
    for (field, value, limit) in [("x", position.x, width), ("y", position.y, height)] {
        if !value.is_finite() || !(0.0..=limit).contains(&value) {
            return Err(invalid("position", field, format!("{value} is not in 0..={limit}")));
        }
    }
    Ok(())
}

/// Checks a [`Velocity`]: finite.
///
/// # Errors
/// The first coordinate that is not.
pub fn velocity(velocity: &Velocity) -> Result<(), Invalid> {
    for (field, value) in [("x", velocity.x), ("y", velocity.y)] {
        if !value.is_finite() {
            return Err(invalid("velocity", field, format!("{value} is not a finite speed")));
        }
    }
    Ok(())
}

/// Checks the random generator: a multiplicative generator whose state is 0 draws only zeros
/// forever. A working one draws two zero words in a row once in 2^128.
///
/// # Errors
/// If the state is 0.
pub fn rng(rng: &Pcg64Mcg) -> Result<(), Invalid> {
    let mut probe = rng.clone();
    if probe.next_u64() == 0 && probe.next_u64() == 0 {
        return Err(invalid("rng", "state", "a state of 0 draws only zeros; it must be odd".into()));
    }
    Ok(())
}

/// Checks every spawner, position and velocity in `world` against its [`Arena`] settings, and
/// the random generator: what a snapshot load runs before the world is used. O(n) in those
/// components.
///
/// # Errors
/// The first invalid value found.
///
/// # Panics
/// If `world` has no [`Arena`] resource (every sim has one).
pub fn world(world: &World) -> Result<(), Invalid> {
    let arena = world.resource::<Arena>();
    let templates = arena.templates.len();
    for s in world.query_ref::<&Spawner>() {
        spawner(s, templates)?;
    }
    for p in world.query_ref::<&Position>() {
        position(&p.read(), arena.width, arena.height)?;
    }
    for v in world.query_ref::<&Velocity>() {
        velocity(v)?;
    }
    if let Some(generator) = world.get_resource::<Pcg64Mcg>() {
        rng(generator)?;
    }
    Ok(())
}

/// Checks a value an inspector client wants to write into component `name` (its snapshot
/// name) of the sim in `world`, before it is written: the inspector's write check.
///
/// # Errors
/// The value's problem, as text naming the component and field; a value that does not parse
/// as the component is left to the inspector's own error.
pub fn write(world: &World, name: &str, value: &serde_json::Value) -> Result<(), String> {
    let arena = world.resource::<Arena>();
    let checked = match name {
        "spawner" => {
            serde_json::from_value::<Spawner>(value.clone()).map(|s| spawner(&s, arena.templates.len()))
        }
        "position" => {
            serde_json::from_value::<Position>(value.clone()).map(|p| position(&p, arena.width, arena.height))
        }
        "velocity" => serde_json::from_value::<Velocity>(value.clone()).map(|v| velocity(&v)),
        _ => Ok(Ok(())),
    };
    match checked {
        Ok(result) => result.map_err(|error| error.to_string()),
        Err(_) => Ok(()), // not this type's shape: the registry's deserializer reports it
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn spawner_fields_are_checked_in_range() {
        let good = Spawner { template: 1, every: 3, count: 2, timer: 2 };
        assert_eq!(spawner(&good, 2), Ok(()));
        let cases = [
            (Spawner { template: 999, ..good }, "template"),
            (Spawner { template: 2, ..good }, "template"),
            (Spawner { every: 0, timer: 0, ..good }, "every"),
            (Spawner { count: u32::MAX, ..good }, "count"),
            (Spawner { timer: 3, ..good }, "timer"),
            (Spawner { timer: u32::MAX, ..good }, "timer"),
        ];
        for (bad, field) in cases {
            let error = spawner(&bad, 2).unwrap_err();
            assert_eq!(error.field, field, "{bad:?}");
            assert!(error.to_string().contains(&format!("spawner.{field}")), "{error}");
        }
    }

    #[test]
    fn counts_and_seeds_parse_strictly() {
        assert_eq!(parse_count("n", "0", 10), Ok(0));
        assert_eq!(parse_count("n", "10", 10), Ok(10));
        for text in ["", "abc", "NaN", "Infinity", "-1", "+1", "1e3", " 5", "5 ", "1.5", "0x10"] {
            let error = parse_count("entities", text, 1 << 26).unwrap_err();
            assert!(error.to_string().starts_with("entities: "), "{text}: {error}");
        }
        let error = parse_count("entities", "4294967396", 1 << 26).unwrap_err();
        assert_eq!(error.to_string(), "entities: 4294967396 is above the limit of 67108864");
        assert!(parse_count("n", "99999999999999999999999", u64::MAX).is_err());
        assert_eq!(parse_seed("seed", "0x5EED"), Ok(0x5EED));
        assert_eq!(parse_seed("seed", "24301"), Ok(24301));
        assert_eq!(parse_seed("seed", "18446744073709551615"), Ok(u64::MAX));
        for text in ["abc", "0x", "0xg", "0x10000000000000000", "18446744073709551616", "NaN"] {
            assert!(parse_seed("seed", text).is_err(), "{text}");
        }
    }

    #[test]
    fn positions_velocities_and_the_generator() {
        assert_eq!(position(&Position { x: 0.0, y: 10.0 }, 10.0, 10.0), Ok(()));
        for (x, y, field) in
            [(f32::NAN, 1.0, "x"), (1.0, f32::INFINITY, "y"), (-0.5, 1.0, "x"), (1.0, 10.5, "y")]
        {
            assert_eq!(position(&Position { x, y }, 10.0, 10.0).unwrap_err().field, field);
        }
        assert!(velocity(&Velocity { x: f32::NEG_INFINITY, y: 0.0 }).is_err());
        assert_eq!(velocity(&Velocity { x: -3.0, y: 2.0 }), Ok(()));
        assert_eq!(rng(&Pcg64Mcg::seed_from_u64(7)), Ok(()));
        let zero: Pcg64Mcg = serde_json::from_str(r#"{"state":0}"#).expect("the generator's serde form");
        assert_eq!(rng(&zero).unwrap_err().component, "rng");
    }
}
