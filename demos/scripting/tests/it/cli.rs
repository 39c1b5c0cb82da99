//! The binary: a run prints the checksum; a script error is one message with the line on stderr
//! and exit code 2.

use std::process::Command;

fn arena_script(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_arena-script")).args(args).output().unwrap()
}

#[test]
fn a_run_prints_the_checksum() {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/shield.rhai");
    let out = arena_script(&["--script", script, "--frames", "20", "--entities", "300", "--threads", "1"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("checksum: "), "{stdout}");
    assert!(stdout.contains("Shield: "), "{stdout}");
}

#[test]
fn a_script_error_exits_2_with_the_line() {
    let path = std::env::temp_dir().join(format!("arena-script-{}-bad.rhai", std::process::id()));
    std::fs::write(&path, "system(\"a\", [\"Health\"]);\nfn a() {\n  this.health = \"x\";\n}\n").unwrap();
    let out = arena_script(&["--script", path.to_str().unwrap(), "--frames", "5", "--entities", "300"]);
    std::fs::remove_file(&path).ok();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("line 3, column"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    let missing = arena_script(&["--script", "/nonexistent/x.rhai"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("x.rhai"));
}
