//! `mosaic-web`: the arena in a web page. The arena's systems run in WebAssembly on the page's
//! thread (Mosaic without its `parallel` feature), and each frame is drawn on a canvas.
//!
//! Build with `scripts/web-build.sh` (installs the `wasm32-unknown-unknown` target and the
//! matching `wasm-bindgen-cli` from crates.io, then writes `demos/web/www/pkg/`); serve
//! `demos/web/www/` and open `index.html`. `scripts/web-test.sh` checks it in headless Chromium.
//!
//! [`render`] (plain Rust, tested natively) draws a world into an RGBA image; [`WebArena`] is the
//! JavaScript-facing handle; [`params`] reads the page's URL parameters through the command
//! line's checks ([`arena::validate`]).

pub mod params;
pub mod render;

use arena::report::checksum;
use arena::scene::{MAX_ENTITIES, Scene};
use arena::sim::{FrameChanges, Sim};
use mosaic::ExecutorKind;
use wasm_bindgen::prelude::*;
use web_sys::CanvasRenderingContext2d;

use crate::render::Image;

pub use params::{MAX_WEB_ENTITIES, PageParams};

/// Largest canvas side [`WebArena::new`] accepts, in pixels.
pub const MAX_CANVAS: u32 = 4096;

/// The arena for a web page: a [`Sim`] of the bundled scene and the image it is drawn into.
///
/// Single-threaded and deterministic: after N calls of `step(1)` (or one `step(N)`), the
/// [`WebArena::checksum`] equals what `arena --frames N` prints for the same seed and entity
/// count on any machine and executor.
#[wasm_bindgen]
pub struct WebArena {
    sim: Sim,
    scene: Scene,
    frame: u32,
    image: Image,
    /// Structural changes of the last frame run.
    last: FrameChanges,
}

#[wasm_bindgen]
impl WebArena {
    /// The bundled scene, scaled to about `entities` entities (0: the scene's own 100,500), its
    /// generator seeded with `seed` (the command line's default is `0x5EED`), drawn on a canvas
    /// of `width` x `height` pixels.
    ///
    /// # Errors
    /// A JavaScript `Error` naming the argument if `entities` is above the page's limit
    /// ([`MAX_WEB_ENTITIES`]), the scaled scene fails the command line's size check (its
    /// collision grid too large), or a canvas side is 0 or above [`MAX_CANVAS`].
    #[wasm_bindgen(constructor)]
    pub fn new(entities: u32, seed: u64, width: u32, height: u32) -> Result<WebArena, JsError> {
        Self::create(entities, seed, width, height).map_err(|message| JsError::new(&message))
    }

    /// Runs `frames` frames.
    pub fn step(&mut self, frames: u32) {
        for _ in 0..frames {
            self.last = self.sim.step();
            self.frame += 1;
        }
    }

    /// Entities spawned by the last frame run (0 before the first), in entities.
    pub fn spawned(&self) -> u32 {
        self.last.spawned as u32
    }

    /// Entities despawned (killed in combat or expired) by the last frame run, in entities.
    pub fn despawned(&self) -> u32 {
        self.last.despawned as u32
    }

    /// Frames run so far.
    pub fn frame(&self) -> u32 {
        self.frame
    }

    /// Live entities now.
    pub fn entities(&self) -> u32 {
        self.sim.world().len()
    }

    /// The world checksum ([`arena::report::checksum`]) as the arena's summary prints it:
    /// 16 lowercase hexadecimal digits. O(entities).
    pub fn checksum(&self) -> String {
        format!("{:016x}", checksum(self.sim.world()))
    }

    /// Draws the current frame ([`render::render`]) and puts it on `context` at (0, 0).
    ///
    /// # Errors
    /// The JavaScript exception if the browser refuses the image.
    pub fn draw(&mut self, context: &CanvasRenderingContext2d) -> Result<(), JsValue> {
        render::render(self.sim.world(), self.scene.width, self.scene.height, &mut self.image);
        let data = web_sys::ImageData::new_with_u8_clamped_array_and_sh(
            wasm_bindgen::Clamped(self.image.pixels()),
            self.image.width(),
            self.image.height(),
        )?;
        context.put_image_data(&data, 0.0, 0.0)
    }
}

impl WebArena {
    /// As [`WebArena::new`], with the error as text; usable off the web (tests).
    ///
    /// # Errors
    /// As [`WebArena::new`].
    pub fn create(entities: u32, seed: u64, width: u32, height: u32) -> Result<WebArena, String> {
        if u64::from(entities) > MAX_WEB_ENTITIES.min(MAX_ENTITIES) {
            return Err(format!("entities: {entities} is above the page's limit of {MAX_WEB_ENTITIES}"));
        }
        for (name, side) in [("width", width), ("height", height)] {
            if side == 0 || side > MAX_CANVAS {
                return Err(format!("{name}: {side} pixels; give 1 to {MAX_CANVAS}"));
            }
        }
        let scene = match entities {
            0 => Scene::bundled(),
            n => Scene::bundled().scaled(n.into()),
        };
        arena::validate::scene_size("entities", entities.into(), &scene)
            .map_err(|error| error.to_string())?;
        let sim = Sim::new(&scene, seed, ExecutorKind::SingleThreaded);
        Ok(WebArena { sim, scene, frame: 0, image: Image::new(width, height), last: FrameChanges::default() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_checksum_after_n_frames_is_the_native_runs() {
        let mut web = WebArena::create(3_000, 9, 64, 64).unwrap();
        web.step(30);
        assert_eq!(web.frame(), 30);
        assert!(web.spawned() > 0 && web.despawned() > 0, "every frame spawns and kills");
        let native = arena::sim::run(&Scene::bundled().scaled(3_000), 9, 30, ExecutorKind::Parallel);
        assert_eq!(web.checksum(), format!("{:016x}", native.checksum));
        assert_eq!(web.entities(), native.entities_end);
    }

    #[test]
    fn bad_arguments_name_the_argument() {
        assert!(WebArena::create(u32::MAX, 0, 8, 8).err().unwrap().starts_with("entities"));
        assert!(WebArena::create(10, 0, 0, 8).err().unwrap().starts_with("width"));
        assert!(WebArena::create(10, 0, 8, MAX_CANVAS + 1).err().unwrap().starts_with("height"));
    }
}
