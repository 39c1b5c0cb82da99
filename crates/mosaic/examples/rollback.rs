//! Rollback netcode in miniature: a two-player simulation advances every frame on a *predicted*
//! input for the remote player (their last known one); when the real input arrives three frames
//! late and differs, the world goes back to that frame and re-simulates to the present. The end
//! state equals a run that knew every input in time, which the world hash shows. The recording of
//! the inputs then replays to the same hashes, and a deliberately desynced run is located by the
//! desync finder.
//!
//! Run with `cargo run -p mosaic-ecs --example rollback`.

use mosaic::rollback::{HashLog, NoUninit, Recording, RollbackRegistry, RollbackRing};
use mosaic::{Component, Entity, World};
use serde::{Deserialize, Serialize};

#[derive(Component, Clone, Copy, Debug, PartialEq, NoUninit)]
#[bytemuck(crate = "mosaic::rollback::bytemuck")]
#[repr(C)]
#[register(name = "position", plain)] // copied and hashed as bytes by rollback
struct Position {
    x: i32,
    y: i32,
}

/// Which player an entity belongs to.
#[derive(Component, Clone, Copy, Debug, PartialEq, NoUninit)]
#[bytemuck(crate = "mosaic::rollback::bytemuck")]
#[repr(transparent)]
#[register(name = "player", plain)]
struct Player(u32);

/// The input of one frame: each player's move.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
struct Moves([i32; 2]);

const DELAY: u64 = 3;
const FRAMES: u64 = 40;

/// The remote player's real move at `frame` (a function of the frame, standing in for the
/// network).
fn remote(frame: u64) -> i32 {
    [1, 1, -1, 0, 2][(frame * 7 % 5) as usize]
}

fn local(frame: u64) -> i32 {
    (frame % 3) as i32 - 1
}

/// One frame: each player's entities move by that player's input; every tenth frame a player-0
/// entity spawns where player 1 stands.
fn step(world: &mut World, frame: u64) {
    let moves = *world.resource::<Moves>();
    world.query::<(&mut Position, &Player)>().for_each(|(p, player)| {
        p.x += moves.0[player.0 as usize];
        p.y += 1;
    });
    if frame % 10 == 9 {
        let at = world.query::<(&Position, &Player)>().into_iter().find(|(_, pl)| pl.0 == 1).map(|(p, _)| *p);
        if let Some(at) = at {
            world.spawn((at, Player(0)));
        }
    }
}

/// A world that declares, once, what rollback saves, hashes and records: the two components (on
/// their derives) and the input.
fn start() -> World {
    let mut world = World::new();
    world.register::<Position>();
    world.register::<Player>();
    world.register_resource::<Moves>().name("moves").input();
    for i in 0..4 {
        world.spawn((Position { x: i * 10, y: 0 }, Player(i as u32 % 2)));
    }
    world.insert_resource(Moves::default());
    world
}

/// The rollback view of those declarations, for the ring, the recording and the hash log.
fn registry() -> RollbackRegistry {
    start().types().rollback().clone()
}

fn main() {
    let registry = registry();

    // The reference: every input known in time.
    let mut reference = start();
    let mut recording = Recording::new(&registry);
    for frame in 0..FRAMES {
        *reference.resource_mut::<Moves>() = Moves([local(frame), remote(frame)]);
        recording.record_inputs(&registry, &reference, frame).unwrap();
        step(&mut reference, frame);
        recording.record_hash(frame, registry.hash(&reference));
    }

    // The client: predicts the remote move, learns it DELAY frames late, rolls back if wrong.
    let mut world = start();
    let mut ring = RollbackRing::new(self::registry(), DELAY as usize + 2);
    let mut inputs: Vec<Moves> = Vec::new();
    let mut rollbacks = 0;
    for frame in 0..FRAMES {
        ring.save(&mut world, frame).unwrap(); // the state before `frame`
        let predicted = inputs.last().map_or(0, |m| m.0[1]);
        inputs.push(Moves([local(frame), predicted]));
        // The remote move of frame - DELAY arrives now.
        if let Some(late) = frame.checked_sub(DELAY) {
            let real = remote(late);
            if inputs[late as usize].0[1] != real {
                // Correct it (and the predictions made from it), go back, re-simulate.
                for m in &mut inputs[late as usize..frame as usize] {
                    m.0[1] = real;
                }
                ring.restore(late, &mut world).unwrap();
                for again in late..frame {
                    *world.resource_mut::<Moves>() = inputs[again as usize];
                    step(&mut world, again);
                    ring.save(&mut world, again + 1).unwrap();
                }
                rollbacks += 1;
            }
        }
        *world.resource_mut::<Moves>() = inputs[frame as usize];
        step(&mut world, frame);
    }
    // Settle the last DELAY frames' inputs (they arrive after the loop).
    for late in FRAMES - DELAY..FRAMES {
        if inputs[late as usize].0[1] != remote(late) {
            for m in &mut inputs[late as usize..] {
                m.0[1] = remote(late);
            }
            ring.restore(late, &mut world).unwrap();
            for again in late..FRAMES {
                *world.resource_mut::<Moves>() = inputs[again as usize];
                step(&mut world, again);
                ring.save(&mut world, again + 1).unwrap();
            }
            rollbacks += 1;
        }
    }
    println!(
        "{rollbacks} rollbacks; client hash {:016x}, reference {:016x}",
        registry.hash(&world),
        registry.hash(&reference)
    );
    assert_eq!(registry.hash(&world), registry.hash(&reference));

    // The recording replays to the same hashes, frame by frame (`replay` puts each frame's inputs
    // in; a step that needs the frame number keeps its own count).
    let mut replayed = start();
    let mut frame = 0;
    let log = recording
        .replay(&registry, &mut replayed, |w| {
            step(w, frame);
            frame += 1;
        })
        .expect("the replay reproduces every recorded hash");
    println!("replay: {} frames agree with the recording", log.entries().len());

    // A desynced run: one entity nudged in frame 25. The hash logs give the frame; the two runs'
    // saved frames give the component and the entity.
    let (mut straight, mut desynced) = (start(), start());
    let (mut ring_a, mut ring_b) =
        (RollbackRing::new(self::registry(), 64), RollbackRing::new(self::registry(), 64));
    let (mut log_a, mut log_b) = (HashLog::new(), HashLog::new());
    for frame in 0..FRAMES {
        for w in [&mut straight, &mut desynced] {
            *w.resource_mut::<Moves>() = Moves([local(frame), remote(frame)]);
            step(w, frame);
        }
        if frame == 25 {
            let e: Entity = desynced.query::<(Entity, &Player)>().into_iter().nth(2).unwrap().0;
            desynced.get_mut::<Position>(e).unwrap().x += 1;
        }
        for (w, log, ring) in
            [(&mut straight, &mut log_a, &mut ring_a), (&mut desynced, &mut log_b, &mut ring_b)]
        {
            log.push(frame, registry.hash(w));
            ring.save(w, frame).unwrap();
        }
    }
    let divergence = log_a.first_divergence(&log_b).expect("the runs differ");
    let difference =
        ring_a.compare(divergence.frame, &ring_b, divergence.frame).unwrap().expect("the states differ");
    println!("{divergence}; {difference}");
}
