// Immutable components hand out no `&mut`: the library's own (`Relationship`, `Pair`) keep links
// that a write would break, and `#[component(immutable)]` makes a user's type the same.
use mosaic::hierarchy::{Pair, Relation};
use mosaic::{Component, Relationship, World};

#[derive(Component)]
#[component(immutable)]
struct Id(u32);

struct Likes;
impl Relation for Likes {}

fn main() {
    let mut world = World::new();
    let e = world.spawn(Id(1));
    let _ = world.get_mut::<Id>(e);
    let _ = world.get_mut::<Relationship>(e);
    for _ in world.query::<&mut Relationship>() {}
    world.query::<Option<&mut Pair<Likes>>>().for_each(|_| {});
    world.entity_mut(e).get_mut::<Id>().ok();
}
