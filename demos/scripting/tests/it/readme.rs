//! The README's ten-line script loads and runs, and changes the arena.

use arena::report::checksum;
use arena::scene::Scene;
use arena::sim::Sim;
use mosaic::ExecutorKind;
use mosaic_scripting::ScriptedSim;

/// The first ```rhai block of the README.
fn readme_script() -> String {
    let readme = include_str!("../../../../README.md");
    let start = readme.find("```rhai\n").expect("the README shows a script") + "```rhai\n".len();
    let len = readme[start..].find("```").expect("closed");
    readme[start..start + len].to_owned()
}

#[test]
fn the_readme_script_runs() {
    let script = readme_script();
    assert!(script.lines().count() <= 11, "{script}");
    let scene = Scene::bundled().scaled(400);
    let mut plain = Sim::new(&scene, 3, ExecutorKind::SingleThreaded);
    let mut scripted =
        ScriptedSim::new(&scene, 3, ExecutorKind::SingleThreaded, "README.md", &script).unwrap();
    for _ in 0..60 {
        plain.step();
        scripted.step().unwrap();
    }
    let world = scripted.sim().world();
    let shield = world.component_id_by_name("Shield").unwrap();
    assert!(world.query_builder().read(shield).build().unwrap().count(world).unwrap() > 0);
    assert_ne!(checksum(plain.world()), checksum(world));
}
