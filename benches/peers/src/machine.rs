//! What the report says about where it ran: cores, CPU model, rustc, and the versions of the
//! libraries as `Cargo.lock` resolved them.

use std::path::Path;
use std::process::Command;

/// The machine a run happened on.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Machine {
    /// `nproc` (available parallelism), in logical cores.
    pub cores: usize,
    /// The first `model name` of `/proc/cpuinfo`, or "unknown".
    pub cpu: String,
    /// `rustc --version`, or "unknown".
    pub rustc: String,
    /// `uname -sr`, or "unknown".
    pub os: String,
}

impl Machine {
    /// Reads the machine's description (spawns `rustc` and `uname`).
    pub fn detect() -> Machine {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let cpu = std::fs::read_to_string("/proc/cpuinfo")
            .ok()
            .and_then(|info| {
                info.lines()
                    .find(|l| l.starts_with("model name"))
                    .and_then(|l| l.split_once(':'))
                    .map(|(_, model)| model.trim().to_string())
            })
            .unwrap_or_else(|| "unknown".to_string());
        Machine {
            cores,
            cpu,
            rustc: command_line("rustc", &["--version"]),
            os: command_line("uname", &["-sr"]),
        }
    }
}

/// The first line a command prints, or "unknown" if it cannot run.
fn command_line(program: &str, args: &[&str]) -> String {
    Command::new(program)
        .args(args)
        .output()
        .ok()
        .and_then(|out| String::from_utf8(out.stdout).ok())
        .and_then(|s| s.lines().next().map(str::to_string))
        .unwrap_or_else(|| "unknown".to_string())
}

/// The version `Cargo.lock` (the workspace's, beside this crate) pins for `crate_name`.
pub fn locked_version(crate_name: &str) -> Option<String> {
    let lock = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../Cargo.lock");
    let text = std::fs::read_to_string(lock).ok()?;
    let needle = format!("name = \"{crate_name}\"");
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if line.trim() == needle {
            let version = lines.next()?.trim().strip_prefix("version = \"")?.strip_suffix('"')?;
            return Some(version.to_string());
        }
    }
    None
}
