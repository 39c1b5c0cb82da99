//! Two `mosaic-ggrs peer` processes play a session over UDP on 127.0.0.1 with 30 ms of simulated
//! latency each way and one frame of input delay: GGRS predicts, mispredicts and rolls back, and
//! both peers still report the same world hash, the one a straight run with the same inputs
//! gives.

use std::net::UdpSocket;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use arena::rollback::rollback_registry;
use arena::scene::Scene;
use arena::sim::Sim;
use mosaic::ExecutorKind;
use mosaic_ggrs::game::straight_run;
use mosaic_ggrs::peer::delayed_inputs;

const FRAMES: i32 = 240;
const ENTITIES: u64 = 1_500;
const SEED: u64 = 77;
const INPUT_DELAY: usize = 1;

/// A loopback port free at the time of asking.
fn free_port() -> u16 {
    UdpSocket::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// `(frame, hash, rollbacks)` from a peer's report line.
fn parse(line: &str) -> (i32, String, u64) {
    let words: Vec<&str> = line.split_whitespace().collect();
    assert_eq!((words[0], words[2], words[4]), ("frame", "hash", "rollbacks"), "{line}");
    (words[1].parse().unwrap(), words[3].to_owned(), words[5].parse().unwrap())
}

#[test]
fn two_peers_over_udp_end_on_the_same_hash_as_a_straight_run() {
    let ports = [free_port(), free_port()];
    let mut peers: Vec<_> = (0..2)
        .map(|player: usize| {
            Command::new(env!("CARGO_BIN_EXE_mosaic-ggrs"))
                .args(["peer", "--player", &player.to_string()])
                .args(["--local", &format!("127.0.0.1:{}", ports[player])])
                .args(["--remote", &format!("127.0.0.1:{}", ports[1 - player])])
                .args(["--frames", &FRAMES.to_string(), "--entities", &ENTITIES.to_string()])
                .args(["--seed", &SEED.to_string(), "--input-delay", &INPUT_DELAY.to_string()])
                .args(["--latency-ms", "30", "--fps", "60", "--timeout-s", "60", "--linger-ms", "1500"])
                .args(["--match-secret", "p2p test match secret"])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("the peer binary starts")
        })
        .collect();
    // Bounded: both peers give up after 60 s; kill them at 90 s in any case.
    let deadline = Instant::now() + Duration::from_secs(90);
    while peers.iter_mut().any(|p| p.try_wait().unwrap().is_none()) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    let mut reports = Vec::new();
    for (player, mut peer) in peers.into_iter().enumerate() {
        let _ = peer.kill();
        let output = peer.wait_with_output().unwrap();
        let (stdout, stderr) =
            (String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
        assert!(output.status.success(), "peer {player}: {}\n{stdout}\n{stderr}", output.status);
        reports.push(parse(stdout.trim()));
    }
    assert_eq!(reports[0].0, FRAMES);
    assert_eq!(reports[0].1, reports[1].1, "both peers report the same hash");
    assert!(
        reports[0].2 + reports[1].2 > 0,
        "30 ms of latency with 1 frame of input delay makes GGRS roll back"
    );
    let sim = Sim::new(&Scene::bundled().scaled(ENTITIES), SEED, ExecutorKind::SingleThreaded);
    let expected = straight_run(sim, rollback_registry(), FRAMES, |frame| delayed_inputs(frame, INPUT_DELAY));
    assert_eq!(reports[0].1, format!("{expected:#018x}"), "the hash of a straight run with the same inputs");
}

#[test]
fn a_peer_without_a_match_secret_or_with_a_short_one_refuses_to_start() {
    let port = free_port().to_string();
    let run = |secret: Option<&str>| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_mosaic-ggrs"));
        command.args(["peer", "--player", "0", "--local", &format!("127.0.0.1:{port}")]);
        command.env_remove("MOSAIC_MATCH_SECRET");
        if let Some(secret) = secret {
            command.args(["--match-secret", secret]);
        }
        let output = command.output().unwrap();
        assert!(!output.status.success());
        String::from_utf8_lossy(&output.stderr).into_owned()
    };
    assert!(run(None).contains("no match secret: give --match-secret or set MOSAIC_MATCH_SECRET"));
    assert!(run(Some("short")).contains("the match secret is 5 bytes; give 16 to 1024 bytes"));
}
