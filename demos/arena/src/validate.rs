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
