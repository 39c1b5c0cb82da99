//! The scene format: arena settings and entity templates, read from RON, checked, and spawned.
//!
//! A scene file looks like this (see `scenes/arena.ron` for the bundled one):
//!
//! ```ron
//! Scene(
//!     width: 1000.0,
//!     height: 1000.0,
//!     collision_radius: 2.0,
//!     damage: 1,
//!     templates: [
//!         Template(name: "drone", count: 100, components: [
//!             Position,
//!             Velocity(min_speed: 0.5, max_speed: 2.0),
//!             Lifetime(min: 300, max: 500),
//!         ]),
//!         Template(name: "hive", count: 1, components: [
//!             Position,
//!             Spawner(template: "drone", every: 2, count: 1),
//!         ]),
//!     ],
//! )
//! ```
//!
//! The initial world is spawned as if the simulation had already been running, so the death rate
//! is steady from the first frame instead of arriving in one wave: lifetimes are drawn from the
//! stationary distribution of remaining life (length-biased lifetime, then a uniform point in it),
//! health is uniform in `1..=max`, and spawner timers start at a uniform phase.

use std::collections::BTreeMap;
use std::path::Path;

use mosaic::{Bundle, Commands, World};
use rand::Rng;
use serde::Deserialize;

use crate::components::{Health, Lifetime, Position, Spawner, Team, Velocity};

/// The bundled default scene, so the binary runs from any directory.
/// The most entities a scene may be scaled to (`--entities`): 2^26, the scene check's grid-cell
/// limit.
pub const MAX_ENTITIES: u64 = 1 << 26;

const BUNDLED_SCENE: &str = include_str!("../scenes/arena.ron");

/// How the bundled scene is named in messages.
const BUNDLED_NAME: &str = "scenes/arena.ron (bundled)";

/// Most grid cells the collision radius may imply for the arena (each costs 4 bytes per frame).
const MAX_GRID_CELLS: f64 = (1u64 << 26) as f64;

/// Cells of the collision grid of a `width` x `height` arena whose cells are `radius` wide.
fn grid_cells(width: f32, height: f32, radius: f32) -> f64 {
    f64::from(width / radius).ceil() * f64::from(height / radius).ceil()
}

/// Why a scene could not be loaded. Every message names the file.
#[derive(Debug, thiserror::Error)]
pub enum SceneError {
    /// The file could not be read.
    #[error("cannot read scene file `{file}`: {source}; check the path given to --scene")]
    Read {
        /// The path as given.
        file: String,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The file is not valid RON or does not have the scene's shape.
    #[error("malformed scene file `{file}` at line {line}, column {column} ({line}:{column}): {message}")]
    Parse {
        /// The path as given.
        file: String,
        /// Line of the error, from 1.
        line: usize,
        /// Column of the error, from 1.
        column: usize,
        /// What the parser expected.
        message: String,
    },
    /// A `Spawner` names a template the scene does not define.
    #[error(
        "scene file `{file}`: template `{template}` has a Spawner for template `{target}`, \
         which the scene does not define; add a template named `{target}` or fix the name"
    )]
    UnknownTemplate {
        /// The path as given.
        file: String,
        /// The template holding the spawner.
        template: String,
        /// The missing template's name.
        target: String,
    },
    /// A value is out of range or a template is inconsistent.
    #[error("scene file `{file}`: {problem}")]
    Invalid {
        /// The path as given.
        file: String,
        /// What is wrong and how to fix it.
        problem: String,
    },
}

/// The file's shape, as deserialized.
#[derive(Debug, Deserialize)]
#[serde(rename = "Scene", deny_unknown_fields)]
struct SceneFile {
    width: f32,
    height: f32,
    collision_radius: f32,
    damage: i32,
    templates: Vec<TemplateFile>,
}

/// One template, as deserialized.
#[derive(Debug, Deserialize)]
#[serde(rename = "Template", deny_unknown_fields)]
struct TemplateFile {
    name: String,
    count: u32,
    components: Vec<ComponentSpec>,
}

/// One component of a template, as written in the scene file.
#[derive(Clone, Debug, Deserialize, PartialEq)]
pub enum ComponentSpec {
    /// A [`Position`]: uniform in the arena, or the spawner's position for spawned entities.
    Position,
    /// A [`Velocity`] in a uniform direction with speed uniform in `min_speed..=max_speed`
    /// (arena units per frame).
    Velocity {
        /// Least speed, in arena units per frame.
        min_speed: f32,
        /// Greatest speed, in arena units per frame.
        max_speed: f32,
    },
    /// A [`Health`] with this many hit points.
    Health(i32),
    /// A [`Team`].
    Team(u8),
    /// A [`Lifetime`] uniform in `min..=max` frames.
    Lifetime {
        /// Shortest life, in frames; at least 1.
        min: u32,
        /// Longest life, in frames.
        max: u32,
    },
    /// A [`Spawner`] of `count` entities of `template` every `every` frames.
    Spawner {
        /// Name of the template to spawn.
        template: String,
        /// Period, in frames; at least 1.
        every: u32,
        /// Entities per period.
        count: u32,
    },
}

impl ComponentSpec {
    /// The variant's name, for messages.
    fn kind(&self) -> &'static str {
        match self {
            Self::Position => "Position",
            Self::Velocity { .. } => "Velocity",
            Self::Health(_) => "Health",
            Self::Team(_) => "Team",
            Self::Lifetime { .. } => "Lifetime",
            Self::Spawner { .. } => "Spawner",
        }
    }
}

/// What a template's spawner makes, with the target template resolved to its index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SpawnerSpec {
    /// Index of the template to spawn in [`Scene::templates`].
    pub template: u32,
    /// Period, in frames; at least 1.
    pub every: u32,
    /// Entities per period.
    pub count: u32,
}

/// A checked template: at most one of each component.
#[derive(Clone, Debug, PartialEq)]
pub struct Template {
    /// The template's name, unique in the scene.
    pub name: String,
    /// Entities of this template in the initial world.
    pub count: u32,
    /// Whether entities get a [`Position`].
    pub position: bool,
    /// Speed range of the [`Velocity`], in arena units per frame.
    pub velocity: Option<(f32, f32)>,
    /// Starting [`Health`].
    pub health: Option<i32>,
    /// [`Team`].
    pub team: Option<u8>,
    /// [`Lifetime`] range, in frames.
    pub lifetime: Option<(u32, u32)>,
    /// [`Spawner`].
    pub spawner: Option<SpawnerSpec>,
}

/// When an entity is made, which decides how its starting state is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Birth {
    /// Part of the initial world: spawned mid-life (see the module docs).
    Initial,
    /// Made by a spawner during a frame: fresh.
    Spawned,
}

/// Where spawned bundles go: straight into a [`World`] or recorded in a system's [`Commands`].
pub trait SpawnTarget {
    /// Spawns (or records spawning) one entity with `bundle`.
    fn spawn_bundle<B: Bundle>(&mut self, bundle: B);
}

impl SpawnTarget for World {
    fn spawn_bundle<B: Bundle>(&mut self, bundle: B) {
        self.spawn(bundle);
    }
}

impl SpawnTarget for Commands<'_, '_> {
    fn spawn_bundle<B: Bundle>(&mut self, bundle: B) {
        self.spawn(bundle);
    }
}

/// The drawn components of one entity. A bundle type is static, so [`Parts::spawn_into`] picks
/// the bundle for the present components with a chain of generic steps, one per component, each
/// either adding its value to the bundle or not (at most 2^6 bundle types).
#[derive(Clone, Copy)]
struct Parts {
    position: Option<Position>,
    velocity: Option<Velocity>,
    health: Option<Health>,
    team: Option<Team>,
    lifetime: Option<Lifetime>,
    spawner: Option<Spawner>,
}

impl Parts {
    fn spawn_into<S: SpawnTarget>(self, target: &mut S) {
        self.with_position(target, ());
    }
    fn with_position<S: SpawnTarget, B: Bundle>(self, target: &mut S, bundle: B) {
        match self.position {
            Some(c) => self.with_velocity(target, (bundle, c)),
            None => self.with_velocity(target, bundle),
        }
    }
    fn with_velocity<S: SpawnTarget, B: Bundle>(self, target: &mut S, bundle: B) {
        match self.velocity {
            Some(c) => self.with_health(target, (bundle, c)),
            None => self.with_health(target, bundle),
        }
    }
    fn with_health<S: SpawnTarget, B: Bundle>(self, target: &mut S, bundle: B) {
        match self.health {
            Some(c) => self.with_team(target, (bundle, c)),
            None => self.with_team(target, bundle),
        }
    }
    fn with_team<S: SpawnTarget, B: Bundle>(self, target: &mut S, bundle: B) {
        match self.team {
            Some(c) => self.with_lifetime(target, (bundle, c)),
            None => self.with_lifetime(target, bundle),
        }
    }
    fn with_lifetime<S: SpawnTarget, B: Bundle>(self, target: &mut S, bundle: B) {
        match self.lifetime {
            Some(c) => self.with_spawner(target, (bundle, c)),
            None => self.with_spawner(target, bundle),
        }
    }
    fn with_spawner<S: SpawnTarget, B: Bundle>(self, target: &mut S, bundle: B) {
        match self.spawner {
            Some(c) => target.spawn_bundle((bundle, c)),
            None => target.spawn_bundle(bundle),
        }
    }
}

impl Template {
    /// Spawns one entity of this template into `target`.
    ///
    /// `at` is the spawner's position: a spawned entity with a [`Position`] starts there; without
    /// it (or for [`Birth::Initial`]) the position is uniform in `width` x `height`. Draws from
    /// `rng` in a fixed order, so the same generator state gives the same entity.
    pub fn spawn<S: SpawnTarget>(
        &self,
        target: &mut S,
        (width, height): (f32, f32),
        at: Option<Position>,
        birth: Birth,
        rng: &mut impl Rng,
    ) {
        let position = self.position.then(|| match at {
            Some(at) if birth == Birth::Spawned => at,
            _ => Position { x: rng.random::<f32>() * width, y: rng.random::<f32>() * height },
        });
        let velocity = self.velocity.map(|(min, max)| {
            let angle = rng.random::<f32>() * std::f32::consts::TAU;
            let speed = min + rng.random::<f32>() * (max - min);
            // libm's (a port of musl's), not the platform's: `f32::sin_cos` calls the system
            // library natively and another one in WebAssembly, which differ in the last bit for
            // some angles, and the web page must reproduce the native checksum.
            let (sin, cos) = libm::sincosf(angle);
            Velocity { x: speed * cos, y: speed * sin }
        });
        let health = self.health.map(|max| match birth {
            Birth::Initial if max > 1 => Health(rng.random_range(1..=max)),
            _ => Health(max),
        });
        let lifetime = self.lifetime.map(|(min, max)| match birth {
            Birth::Spawned => Lifetime(rng.random_range(min..=max)),
            Birth::Initial => {
                // Stationary remaining life: a length-biased lifetime (density proportional to
                // its length on min..=max), then a uniform point within it.
                let (lo, hi) = (f64::from(min), f64::from(max));
                let length = (lo * lo + rng.random::<f64>() * (hi * hi - lo * lo)).sqrt();
                let left = 1.0 + (rng.random::<f64>() * length).floor();
                Lifetime((left as u32).clamp(1, max))
            }
        });
        let spawner = self.spawner.map(|spec| Spawner {
            template: spec.template,
            every: spec.every,
            count: spec.count,
            timer: rng.random_range(0..spec.every),
        });
        Parts { position, velocity, health, team: self.team.map(Team), lifetime, spawner }.spawn_into(target);
    }
}

/// A checked scene: arena settings and templates, ready to spawn.
#[derive(Clone, Debug, PartialEq)]
pub struct Scene {
    /// Where the scene came from, for messages and the report.
    pub file: String,
    /// Arena width, in arena units.
    pub width: f32,
    /// Arena height, in arena units.
    pub height: f32,
    /// Entities of different teams closer than this (arena units) damage each other.
    pub collision_radius: f32,
    /// Hit points lost per frame per enemy within the collision radius.
    pub damage: i32,
    /// The templates, in file order; spawners refer to them by index.
    pub templates: Vec<Template>,
}

impl Scene {
    /// The bundled default scene.
    ///
    /// # Panics
    /// If the bundled file is invalid (a build defect, caught by the tests).
    #[track_caller]
    pub fn bundled() -> Self {
        Self::parse(BUNDLED_SCENE, BUNDLED_NAME)
            .unwrap_or_else(|error| panic!("bundled scene is invalid: {error}"))
    }

    /// Loads the scene file at `path`, or the bundled scene when `path` is `None`.
    ///
    /// # Errors
    /// [`SceneError::Read`] if the file cannot be read, is not UTF-8 or is larger than
    /// [`crate::files::MAX_SCENE_BYTES`]; otherwise as [`Scene::parse`].
    pub fn load(path: Option<&Path>) -> Result<Self, SceneError> {
        let Some(path) = path else {
            return Ok(Self::bundled());
        };
        let file = path.display().to_string();
        let text = crate::files::read_text_capped(path, crate::files::MAX_SCENE_BYTES, "a scene file")
            .map_err(|source| SceneError::Read { file: file.clone(), source })?;
        Self::parse(&text, &file)
    }

    /// Parses and checks scene `text`; `file` names it in errors.
    ///
    /// # Errors
    /// - [`SceneError::Parse`] with line and column if `text` is not RON of the scene's shape;
    /// - [`SceneError::UnknownTemplate`] if a `Spawner` names a template that does not exist;
    /// - [`SceneError::Invalid`] if a size is not positive and finite, the radius implies more
    ///   than 2^26 grid cells, `damage` is negative, a health is below 1, a range is empty, a
    ///   spawner period is 0, a template name repeats, or a template lists a component twice.
    pub fn parse(text: &str, file: &str) -> Result<Self, SceneError> {
        let raw: SceneFile = ron::from_str(text).map_err(|error| SceneError::Parse {
            file: file.to_owned(),
            line: error.position.line,
            column: error.position.col,
            message: error.code.to_string(),
        })?;
        let invalid = |problem: String| SceneError::Invalid { file: file.to_owned(), problem };
        let positive = |value: f32| value.is_finite() && value > 0.0;
        if !positive(raw.width) || !positive(raw.height) {
            return Err(invalid(format!(
                "width and height must be positive and finite, got {} x {}",
                raw.width, raw.height
            )));
        }
        if !positive(raw.collision_radius) {
            return Err(invalid(format!(
                "collision_radius must be positive and finite, got {}",
                raw.collision_radius
            )));
        }
        let cells = grid_cells(raw.width, raw.height, raw.collision_radius);
        if cells > MAX_GRID_CELLS {
            return Err(invalid(format!(
                "collision_radius {} makes a {cells}-cell grid for a {} x {} arena; \
                 use a radius of at least {:.3}",
                raw.collision_radius,
                raw.width,
                raw.height,
                (f64::from(raw.width) * f64::from(raw.height) / MAX_GRID_CELLS).sqrt()
            )));
        }
        if raw.damage < 0 {
            return Err(invalid(format!("damage must be 0 or more, got {}", raw.damage)));
        }
        let mut index = BTreeMap::new();
        for (i, template) in raw.templates.iter().enumerate() {
            if index.insert(template.name.as_str(), i as u32).is_some() {
                return Err(invalid(format!(
                    "template name `{}` is used twice; names must be unique",
                    template.name
                )));
            }
        }
        let mut templates = Vec::with_capacity(raw.templates.len());
        for raw_template in &raw.templates {
            let name = &raw_template.name;
            let mut template = Template {
                name: name.clone(),
                count: raw_template.count,
                position: false,
                velocity: None,
                health: None,
                team: None,
                lifetime: None,
                spawner: None,
            };
            let mut seen = Vec::new();
            for spec in &raw_template.components {
                if seen.contains(&spec.kind()) {
                    return Err(invalid(format!(
                        "template `{name}` lists {} twice; give each component once",
                        spec.kind()
                    )));
                }
                seen.push(spec.kind());
                match spec {
                    ComponentSpec::Position => template.position = true,
                    &ComponentSpec::Velocity { min_speed, max_speed } => {
                        if !(min_speed.is_finite()
                            && max_speed.is_finite()
                            && 0.0 <= min_speed
                            && min_speed <= max_speed)
                        {
                            return Err(invalid(format!(
                                "template `{name}`: Velocity needs 0 <= min_speed <= max_speed, \
                                 got {min_speed}..{max_speed}"
                            )));
                        }
                        template.velocity = Some((min_speed, max_speed));
                    }
                    &ComponentSpec::Health(health) => {
                        if health < 1 {
                            return Err(invalid(format!(
                                "template `{name}`: Health must be at least 1, got {health}"
                            )));
                        }
                        template.health = Some(health);
                    }
                    &ComponentSpec::Team(team) => template.team = Some(team),
                    &ComponentSpec::Lifetime { min, max } => {
                        if !(1 <= min && min <= max) {
                            return Err(invalid(format!(
                                "template `{name}`: Lifetime needs 1 <= min <= max, got {min}..{max}"
                            )));
                        }
                        template.lifetime = Some((min, max));
                    }
                    ComponentSpec::Spawner { template: target, every, count } => {
                        let &target_index =
                            index.get(target.as_str()).ok_or_else(|| SceneError::UnknownTemplate {
                                file: file.to_owned(),
                                template: name.clone(),
                                target: target.clone(),
                            })?;
                        // The check snapshot loads and inspector writes make too (`timer`
                        // is drawn below `every` at spawn).
                        let probe =
                            Spawner { template: target_index, every: *every, count: *count, timer: 0 };
                        if let Err(error) = crate::validate::spawner(&probe, index.len()) {
                            return Err(invalid(format!("template `{name}`: {error}")));
                        }
                        template.spawner =
                            Some(SpawnerSpec { template: target_index, every: *every, count: *count });
                    }
                }
            }
            templates.push(template);
        }
        Ok(Self {
            file: file.to_owned(),
            width: raw.width,
            height: raw.height,
            collision_radius: raw.collision_radius,
            damage: raw.damage,
            templates,
        })
    }

    /// Entities in the initial world: the sum of the template counts.
    pub fn initial_count(&self) -> u64 {
        self.templates.iter().map(|t| u64::from(t.count)).sum()
    }

    /// This scene with every template count scaled by `f = total / initial_count()` (rounded,
    /// and at least 1 for a template that had any), so the initial world holds about `total`
    /// entities; width and height are scaled by `sqrt(f)` so the density, and with it the rates
    /// of collisions, stay the same. Spawner periods and counts are unchanged: the number of
    /// spawners scales instead.
    pub fn scaled(&self, total: u64) -> Self {
        let current = self.initial_count();
        let mut scene = self.clone();
        if current == 0 || total == current {
            return scene;
        }
        let factor = total as f64 / current as f64;
        for template in &mut scene.templates {
            if template.count > 0 {
                let count = (f64::from(template.count) * factor).round();
                let floor = if total > 0 { 1.0 } else { 0.0 };
                template.count = count.clamp(floor, f64::from(u32::MAX)) as u32;
            }
        }
        let side = factor.sqrt();
        // Keep at least one collision cell per side.
        scene.width = ((f64::from(self.width) * side) as f32).max(self.collision_radius);
        scene.height = ((f64::from(self.height) * side) as f32).max(self.collision_radius);
        scene
    }

    /// Checks what [`Scene::scaled`] may have grown: the collision grid stays within the limit
    /// the scene file check enforces, and the initial world within [`MAX_ENTITIES`].
    ///
    /// # Errors
    /// The limit passed, as text.
    pub fn check_size(&self) -> Result<(), String> {
        let cells = grid_cells(self.width, self.height, self.collision_radius);
        if cells.is_nan() || cells > MAX_GRID_CELLS {
            return Err(format!(
                "a {} x {} arena with collision radius {} needs a {cells}-cell grid, over the limit of {MAX_GRID_CELLS}",
                self.width, self.height, self.collision_radius
            ));
        }
        let total = self.initial_count();
        if total > MAX_ENTITIES {
            return Err(format!("{total} initial entities is over the limit of {}", MAX_ENTITIES));
        }
        Ok(())
    }

    /// Spawns the initial world: each template's `count` entities, templates in file order, all
    /// drawn from `rng` (see the module docs for the mid-life state).
    pub fn spawn_initial(&self, world: &mut World, rng: &mut impl Rng) {
        world.reserve(usize::try_from(self.initial_count()).unwrap_or(usize::MAX));
        for template in &self.templates {
            for _ in 0..template.count {
                template.spawn(world, (self.width, self.height), None, Birth::Initial, rng);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::components::{Health, Lifetime, Spawner};
    use mosaic::Entity;
    use rand::SeedableRng;
    use rand_pcg::Pcg64Mcg;

    const SMALL: &str = r#"
Scene(
    width: 100.0,
    height: 50.0,
    collision_radius: 2.0,
    damage: 1,
    templates: [
        Template(name: "drone", count: 30, components: [
            Position,
            Velocity(min_speed: 0.5, max_speed: 1.0),
            Lifetime(min: 10, max: 20),
        ]),
        Template(name: "fighter", count: 10, components: [Position, Health(5), Team(1)]),
        Template(name: "hive", count: 2, components: [
            Position,
            Spawner(template: "drone", every: 3, count: 2),
        ]),
    ],
)
"#;

    #[test]
    fn bundled_scene_is_valid_and_large() {
        let scene = Scene::bundled();
        assert!(scene.initial_count() >= 100_000);
        assert_eq!(Scene::load(None).unwrap(), scene);
    }

    #[test]
    fn parses_templates_and_resolves_spawners() {
        let scene = Scene::parse(SMALL, "small.ron").unwrap();
        assert_eq!(scene.initial_count(), 42);
        let drone = &scene.templates[0];
        assert!(drone.position);
        assert_eq!(drone.velocity, Some((0.5, 1.0)));
        assert_eq!(drone.lifetime, Some((10, 20)));
        assert_eq!(scene.templates[2].spawner, Some(SpawnerSpec { template: 0, every: 3, count: 2 }));
    }

    #[test]
    fn syntax_error_reports_file_line_and_column() {
        let text = "Scene(\n    width: 100.0,\n    height: oops,\n)";
        let error = Scene::parse(text, "broken.ron").unwrap_err();
        let SceneError::Parse { line, column, .. } = &error else {
            panic!("expected a parse error, got {error:?}");
        };
        assert_eq!((*line, *column), (3, 13));
        let message = error.to_string();
        assert!(message.contains("broken.ron"), "{message}");
        assert!(message.contains("3:13"), "{message}");
    }

    #[test]
    fn unknown_component_is_a_parse_error() {
        let text = SMALL.replace("Health(5)", "Shield(5)");
        let error = Scene::parse(&text, "s.ron").unwrap_err();
        assert!(matches!(error, SceneError::Parse { line: 13, .. }), "{error:?}");
    }

    #[test]
    fn unknown_spawner_template_is_named() {
        let text = SMALL.replace("template: \"drone\"", "template: \"dron\"");
        let error = Scene::parse(&text, "s.ron").unwrap_err();
        assert!(matches!(&error, SceneError::UnknownTemplate { target, template, .. }
            if target == "dron" && template == "hive"));
        let message = error.to_string();
        assert!(message.contains("`dron`") && message.contains("s.ron"), "{message}");
    }

    #[test]
    fn invalid_values_are_rejected() {
        for (from, to) in [
            ("width: 100.0", "width: -1.0"),
            ("collision_radius: 2.0", "collision_radius: 0.0"),
            ("collision_radius: 2.0", "collision_radius: 0.0001"),
            ("every: 3", "every: 0"),
            ("min: 10", "min: 0"),
            ("min: 10", "min: 30"),
            ("min_speed: 0.5", "min_speed: 2.0"),
            ("Health(5)", "Health(0)"),
            ("damage: 1", "damage: -1"),
            ("Team(1)", "Team(1), Team(2)"),
            ("name: \"hive\"", "name: \"drone\""),
        ] {
            let text = SMALL.replace(from, to);
            let error = Scene::parse(&text, "s.ron").unwrap_err();
            assert!(matches!(error, SceneError::Invalid { .. }), "{to}: {error:?}");
        }
    }

    #[test]
    fn missing_file_names_the_path() {
        let error = Scene::load(Some(Path::new("no/such/scene.ron"))).unwrap_err();
        assert!(matches!(error, SceneError::Read { .. }));
        assert!(error.to_string().contains("no/such/scene.ron"));
    }

    #[test]
    fn scaling_keeps_proportions_and_density() {
        let scene = Scene::parse(SMALL, "s.ron").unwrap();
        let big = scene.scaled(4200);
        let counts: Vec<u32> = big.templates.iter().map(|t| t.count).collect();
        assert_eq!(counts, [3000, 1000, 200]);
        assert_eq!((big.width, big.height), (1000.0, 500.0));
        let tiny = scene.scaled(5);
        let counts: Vec<u32> = tiny.templates.iter().map(|t| t.count).collect();
        assert_eq!(counts, [4, 1, 1], "rounded, at least one per template");
        assert_eq!(scene.scaled(42), scene);
    }

    #[test]
    fn initial_world_is_spawned_mid_life() {
        let scene = Scene::parse(SMALL, "s.ron").unwrap().scaled(4200);
        let mut world = World::new();
        scene.spawn_initial(&mut world, &mut Pcg64Mcg::seed_from_u64(1));
        assert_eq!(u64::from(world.len()), scene.initial_count());
        let lifetimes: Vec<u32> = world.query::<&Lifetime>().into_iter().map(|l| l.0).collect();
        assert_eq!(lifetimes.len(), 3000);
        assert!(lifetimes.iter().all(|&l| (1..=20).contains(&l)));
        assert!(lifetimes.iter().any(|&l| l < 10), "some are part-way through life");
        let health: Vec<i32> = world.query::<&Health>().into_iter().map(|h| h.0).collect();
        assert!(health.iter().all(|&h| (1..=5).contains(&h)));
        for (_, spawner) in world.query::<(Entity, &Spawner)>() {
            assert!(spawner.timer < spawner.every);
        }
        for (position, _) in world.query::<(&Position, &Team)>() {
            let p = mosaic::View::read(&position);
            assert!((0.0..=1000.0).contains(&p.x) && (0.0..=500.0).contains(&p.y));
        }
    }
}
