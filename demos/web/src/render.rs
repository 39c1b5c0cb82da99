//! Drawing a frame of the arena into an RGBA image: one pixel per entity, coloured by what it is.

use arena::components::{Position, Spawner, Team};
use mosaic::{View, World};

/// Background, RGBA.
pub const BACKGROUND: [u8; 4] = [16, 19, 26, 255];
/// An entity with no team and no spawner (the scene's drones), RGBA.
pub const NEUTRAL: [u8; 4] = [110, 116, 128, 255];
/// Team 0's fighters, RGBA.
pub const TEAM_0: [u8; 4] = [236, 84, 72, 255];
/// Team 1's fighters, RGBA.
pub const TEAM_1: [u8; 4] = [72, 144, 242, 255];
/// Fighters of any other team, RGBA.
pub const OTHER_TEAM: [u8; 4] = [96, 220, 120, 255];
/// Spawners (hives and gates), drawn 3 x 3 pixels over everything else, RGBA.
pub const SPAWNER: [u8; 4] = [250, 214, 90, 255];

/// An RGBA image, 4 bytes per pixel, rows top to bottom; the layout of a canvas's `ImageData`.
#[derive(Clone, Debug)]
pub struct Image {
    width: u32,
    height: u32,
    pixels: Vec<u8>,
    /// Spawner pixels found in the last pass, drawn after it (reused).
    spawners: Vec<(u32, u32)>,
}

impl Image {
    /// A `width` x `height` image of [`BACKGROUND`]; allocates `4 * width * height` bytes.
    pub fn new(width: u32, height: u32) -> Self {
        let mut image = Self { width, height, pixels: Vec::new(), spawners: Vec::new() };
        image.pixels = BACKGROUND.repeat(width as usize * height as usize);
        image
    }

    /// Width, in pixels.
    pub fn width(&self) -> u32 {
        self.width
    }

    /// Height, in pixels.
    pub fn height(&self) -> u32 {
        self.height
    }

    /// The RGBA bytes, `4 * width * height` of them.
    pub fn pixels(&self) -> &[u8] {
        &self.pixels
    }

    /// The colour of pixel `(x, y)`. Panics if it is outside the image.
    pub fn pixel(&self, x: u32, y: u32) -> [u8; 4] {
        let at = self.offset(x, y);
        self.pixels[at..at + 4].try_into().expect("4 bytes")
    }

    fn offset(&self, x: u32, y: u32) -> usize {
        (y as usize * self.width as usize + x as usize) * 4
    }

    fn put(&mut self, x: u32, y: u32, colour: [u8; 4]) {
        let at = self.offset(x, y);
        self.pixels[at..at + 4].copy_from_slice(&colour);
    }
}

/// Draws `world` (an arena of `width` x `height` arena units) into `image`: the background,
/// then each entity with a [`Position`] as one pixel coloured by its [`Team`] (or [`NEUTRAL`]),
/// then each [`Spawner`] as 3 x 3 pixels of [`SPAWNER`]. Positions are scaled to the image and
/// clamped to its edges. O(pixels + entities); allocates nothing once the spawner list has grown.
pub fn render(world: &World, width: f32, height: f32, image: &mut Image) {
    for pixel in image.pixels.chunks_exact_mut(4) {
        pixel.copy_from_slice(&BACKGROUND);
    }
    let (w, h) = (image.width, image.height);
    let (sx, sy) = (w as f32 / width.max(f32::MIN_POSITIVE), h as f32 / height.max(f32::MIN_POSITIVE));
    let mut spawners = std::mem::take(&mut image.spawners);
    spawners.clear();
    for (position, team, spawner) in world.query_ref::<(&Position, Option<&Team>, Option<&Spawner>)>() {
        let p = position.read();
        // `as` saturates: NaN and negatives go to 0, large values to u32::MAX, then the clamp.
        let x = ((p.x * sx) as u32).min(w - 1);
        let y = ((p.y * sy) as u32).min(h - 1);
        if spawner.is_some() {
            spawners.push((x, y));
            continue;
        }
        let colour = match team {
            None => NEUTRAL,
            Some(Team(0)) => TEAM_0,
            Some(Team(1)) => TEAM_1,
            Some(_) => OTHER_TEAM,
        };
        image.put(x, y, colour);
    }
    for &(x, y) in &spawners {
        for py in y.saturating_sub(1)..=(y + 1).min(h - 1) {
            for px in x.saturating_sub(1)..=(x + 1).min(w - 1) {
                image.put(px, py, SPAWNER);
            }
        }
    }
    image.spawners = spawners;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entities_are_drawn_where_they_are_in_their_colours() {
        let mut world = World::new();
        world.spawn((Position { x: 10.0, y: 20.0 }, Team(0)));
        world.spawn((Position { x: 50.0, y: 20.0 }, Team(1)));
        world.spawn(Position { x: 99.9, y: 99.9 });
        world.spawn((Position { x: 200.0, y: -5.0 }, Team(4)));
        world.spawn((Position { x: 50.0, y: 50.0 }, Spawner { template: 0, every: 1, count: 1, timer: 0 }));
        let mut image = Image::new(50, 25);
        render(&world, 100.0, 100.0, &mut image);
        assert_eq!(image.pixel(5, 5), TEAM_0);
        assert_eq!(image.pixel(25, 5), TEAM_1);
        assert_eq!(image.pixel(49, 24), NEUTRAL, "the far corner");
        assert_eq!(image.pixel(49, 0), OTHER_TEAM, "clamped to the edge");
        for (x, y) in [(24, 11), (25, 12), (26, 13)] {
            assert_eq!(image.pixel(x, y), SPAWNER);
        }
        assert_eq!(image.pixel(0, 0), BACKGROUND);
        let drawn = image.pixels().chunks_exact(4).filter(|p| *p != BACKGROUND).count();
        assert_eq!(drawn, 4 + 9);
        // Drawn again after the world changed: the old pixels are gone.
        world.clear();
        render(&world, 100.0, 100.0, &mut image);
        assert!(image.pixels().chunks_exact(4).all(|p| p == BACKGROUND));
    }
}
