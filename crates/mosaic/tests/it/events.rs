//! Events: readers with their own cursors, retention policies, bounded memory.

use mosaic::{Component, EventReader, EventWriter, Events, Query, ResMut, Retention, Schedule, World};

#[derive(Debug, Clone, Copy, PartialEq)]
struct Killed(u32);

#[derive(Component)]
struct Victim(u32);

fn killer(query: Query<&Victim>, mut kills: EventWriter<Killed>) {
    for victim in query {
        kills.send(Killed(victim.0));
    }
}

#[derive(Default)]
struct Score(u32, Vec<u32>);

fn scorer(mut kills: EventReader<Killed>, mut score: ResMut<Score>) {
    for kill in kills.read() {
        score.0 += 1;
        score.1.push(kill.0);
    }
}

#[test]
fn writer_to_reader_through_a_schedule() {
    let mut world = World::new();
    world.insert_resource(Score::default());
    world.spawn_batch([Victim(1), Victim(2), Victim(3)]);
    let mut schedule = Schedule::new();
    schedule.add_system(scorer).after("killer");
    schedule.add_system(killer);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Score>().0, 3);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Score>().0, 6, "each event read once");
    let mut sorted = world.resource::<Score>().1.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, [1, 1, 2, 2, 3, 3]);
    // One reader that has read everything: nothing retained after the frame end.
    assert!(world.resource::<Events<Killed>>().is_empty());
}

#[test]
fn every_reader_sees_every_event() {
    let mut events = Events::new(Retention::UntilRead);
    let mut a = events.register_reader();
    let mut b = events.register_reader();
    events.send_batch([Killed(1), Killed(2)]);
    assert_eq!(events.read(&mut a).len(), 2);
    events.send(Killed(3));
    assert_eq!(events.read(&mut a).map(|k| k.0).collect::<Vec<_>>(), [3]);
    assert_eq!(events.read(&mut b).map(|k| k.0).collect::<Vec<_>>(), [1, 2, 3]);
    events.update();
    assert!(events.is_empty());
}

#[test]
fn until_read_keeps_events_for_a_slow_reader() {
    let mut events = Events::new(Retention::UntilRead);
    let mut slow = events.register_reader();
    for frame in 0..10 {
        events.send(Killed(frame));
        events.update();
    }
    assert_eq!(events.len(), 10);
    assert_eq!(events.read(&mut slow).len(), 10);
    events.update();
    assert!(events.is_empty());
    assert_eq!(slow.missed(), 0);
}

#[test]
fn frame_retention_releases_unread_events() {
    let mut events = Events::new(Retention::Frames(3));
    let mut never = events.register_reader();
    for frame in 0..10 {
        events.send(Killed(frame));
        events.update();
        assert!(events.len() <= 3, "frame {frame}: {} events", events.len());
    }
    assert_eq!(events.read(&mut never).map(|k| k.0).collect::<Vec<_>>(), [8, 9]);
    assert_eq!(never.missed(), 8);
}

fn sender(mut kills: EventWriter<Killed>) {
    kills.send_batch((0..100).map(Killed));
}

#[test]
fn no_reader_memory_stays_bounded_over_1000_frames() {
    let mut world = World::new();
    let mut schedule = Schedule::new();
    schedule.add_system(sender);
    schedule.run(&mut world);
    let warm_capacity = world.resource::<Events<Killed>>().capacity();
    for _ in 0..if cfg!(miri) { 20 } else { 1000 } {
        schedule.run(&mut world);
        assert!(world.resource::<Events<Killed>>().is_empty(), "released at the frame end");
    }
    assert_eq!(world.resource::<Events<Killed>>().capacity(), warm_capacity, "no growth once warm");
}

#[test]
fn steady_state_reading_does_not_grow() {
    let mut world = World::new();
    world.insert_resource(Score::default());
    let mut schedule = Schedule::new();
    schedule.add_system(sender);
    schedule
        .add_system(|mut kills: EventReader<Killed>| assert_eq!(kills.read().len(), 100))
        .after("sender")
        .named("reader");
    for _ in 0..10 {
        schedule.run(&mut world);
    }
    let warm = world.resource::<Events<Killed>>().capacity();
    for _ in 0..if cfg!(miri) { 20 } else { 1000 } {
        schedule.run(&mut world);
    }
    assert_eq!(world.resource::<Events<Killed>>().capacity(), warm);
}

#[test]
fn add_event_keeps_existing_retention() {
    let mut world = World::new();
    world.add_event_with::<Killed>(Retention::Frames(2));
    assert_eq!(world.add_event::<Killed>().retention(), Retention::Frames(2));
    world.send_event(Killed(1));
    assert_eq!(world.resource::<Events<Killed>>().len(), 1);
}

#[test]
#[should_panic(expected = "at least one frame")]
fn zero_frame_retention_is_refused() {
    World::new().add_event_with::<Killed>(Retention::Frames(0));
}

#[test]
fn event_channels_report_backlog_and_sent_through_frames() {
    let mut world = World::new();
    world.add_event::<Killed>();
    world.add_event_with::<u8>(Retention::Frames(2));
    // A reader that never reads keeps every `Killed` alive: the backlog grows frame by frame.
    let _idle = world.resource_mut::<Events<Killed>>().register_reader();
    let mut schedule = Schedule::new();
    for frame in 1..=3u64 {
        world.send_event(Killed(0));
        world.send_event(Killed(1));
        world.send_event(9u8);
        schedule.run(&mut world);
        let channels: Vec<_> = world.event_channels().collect();
        assert_eq!(channels.len(), 2);
        let killed = &channels[0];
        assert!(killed.type_name.ends_with("Killed"), "{}", killed.type_name);
        assert_eq!((killed.len as u64, killed.sent, killed.readers), (2 * frame, 2 * frame, 1));
        assert_eq!((channels[1].type_name, channels[1].sent), ("u8", frame));
        assert_eq!(channels[1].len, 1, "each frame's `u8` is released at the next frame's end");
    }
}

#[test]
fn clear_and_drain_release_every_event_and_readers_count_them_missed() {
    let mut events = mosaic::Events::new(mosaic::Retention::UntilRead);
    let mut reader = events.register_reader();
    events.send_batch([1, 2, 3]);
    assert_eq!(events.read(&mut reader).count(), 3);
    events.send_batch([4, 5]);
    let capacity = events.capacity();
    // Every event held goes, read or not (none was released: no frame ended).
    let drained: Vec<i32> = events.drain().collect();
    assert_eq!(drained, [1, 2, 3, 4, 5]);
    assert!(events.is_empty() && events.capacity() == capacity, "capacity kept");
    assert_eq!(events.read(&mut reader).count(), 0);
    assert_eq!(reader.missed(), 2, "4 and 5 were drained before they were read");
    events.send(6);
    // A drain whose iterator is dropped early still empties the channel.
    assert_eq!(events.drain().next(), Some(6));
    events.send(7);
    events.clear();
    assert_eq!(events.next_seq(), 7, "numbering goes on");
    assert_eq!(events.read(&mut reader).count(), 0);
    assert_eq!(reader.missed(), 4);
    events.send(8);
    assert_eq!(events.read(&mut reader).copied().collect::<Vec<_>>(), [8]);
}
