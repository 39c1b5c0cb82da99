//! `RollbackRing::saved_frame`: a frame shared out of the ring reads as the ring reads it (world,
//! diff, first difference), on another thread, and keeps its state while the ring saves over its
//! slot.
#![cfg(feature = "rollback")]

use mosaic::rollback::{NoUninit, RollbackRegistry, RollbackRing};
use mosaic::{Component, World};

#[derive(Component, Clone, Copy, Debug, PartialEq, NoUninit)]
#[bytemuck(crate = "mosaic::rollback::bytemuck")]
#[repr(C)]
struct Body {
    x: f32,
    y: f32,
}

/// A component with heap data, cloned.
#[derive(Component, Clone, Debug, PartialEq, Eq, Hash)]
struct Label(String);

fn ring(capacity: usize) -> RollbackRing {
    let mut registry = RollbackRegistry::new();
    registry.register::<Body>("body").register_clone::<Label>("label");
    RollbackRing::new(registry, capacity)
}

#[test]
fn a_shared_frame_reads_as_the_ring_does() {
    let mut ring = ring(4);
    let mut world = World::new();
    let a = world.spawn((Body { x: 0.0, y: 0.0 }, Label("a".into())));
    ring.save(&mut world, 0).unwrap();
    world.get_mut::<Body>(a).unwrap().x = 3.0;
    let b = world.spawn(Label("b".into()));
    ring.save(&mut world, 1).unwrap();

    let (zero, one) = (ring.saved_frame(0).unwrap(), ring.saved_frame(1).unwrap());
    assert_eq!((zero.frame(), one.frame()), (0, 1));
    assert_eq!(zero.bytes(), ring.frame_bytes(0).unwrap());
    assert_eq!(zero.diff(&one), ring.diff(0, 1).unwrap());
    assert_eq!(
        zero.compare(&one).map(|d| d.to_string()),
        ring.compare(0, &ring, 1).unwrap().map(|d| d.to_string())
    );
    assert!(one.compare(&one).is_none());
    // Read on another thread.
    let then = std::thread::spawn(move || one.world()).join().unwrap();
    assert_eq!(then.get::<Body>(a), Ok(&Body { x: 3.0, y: 0.0 }));
    assert_eq!(then.get::<Label>(b), Ok(&Label("b".into())));
    assert!(ring.saved_frame(2).is_err());
}

#[test]
fn a_shared_frame_outlives_the_ring_saving_over_its_slot() {
    let mut ring = ring(2);
    let mut world = World::new();
    let a = world.spawn((Body { x: 0.0, y: 0.0 }, Label("zero".into())));
    ring.save(&mut world, 0).unwrap();
    let zero = ring.saved_frame(0).unwrap();
    for frame in 1..=4 {
        world.get_mut::<Body>(a).unwrap().x = frame as f32;
        world.get_mut::<Label>(a).unwrap().0 = format!("{frame}");
        ring.save(&mut world, frame).unwrap();
    }
    assert!(!ring.contains(0));
    let then = zero.world();
    assert_eq!(then.get::<Body>(a), Ok(&Body { x: 0.0, y: 0.0 }));
    assert_eq!(then.get::<Label>(a), Ok(&Label("zero".into())));
    // The ring still restores what it holds.
    ring.restore(4, &mut world).unwrap();
    assert_eq!(world.get::<Label>(a), Ok(&Label("4".into())));
}
