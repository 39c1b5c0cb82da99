//! The command line.

use std::path::PathBuf;

use clap::Parser;

/// Headless, deterministic 2D arena simulation on Mosaic: movers bounce in a box, teams fight,
/// spawners and lifetimes churn the population; prints frame times and a checksum of the final
/// world.
#[derive(Debug, Parser)]
#[command(name = "arena", version, about)]
pub struct Args {
    /// Scene file (RON) to load instead of the bundled `scenes/arena.ron`.
    #[arg(long, value_name = "PATH")]
    pub scene: Option<PathBuf>,

    /// Scale the scene's template counts (and its area, keeping the density) so the initial world
    /// holds about N entities. Default: the scene's own counts.
    #[arg(long, value_name = "N")]
    pub entities: Option<u64>,

    /// Frames to simulate.
    #[arg(long, value_name = "N", default_value_t = 600)]
    pub frames: u32,

    /// Seed of the random generator; the same seed and arguments give the same result.
    #[arg(long, value_name = "S", default_value_t = 0x5EED)]
    pub seed: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults() {
        let args = Args::try_parse_from(["arena"]).unwrap();
        assert_eq!(args.scene, None);
        assert_eq!(args.entities, None);
        assert_eq!((args.frames, args.seed), (600, 0x5EED));
    }

    #[test]
    fn all_flags() {
        let args = Args::try_parse_from([
            "arena",
            "--scene",
            "x.ron",
            "--entities",
            "2000",
            "--frames",
            "30",
            "--seed",
            "9",
        ])
        .unwrap();
        assert_eq!(args.scene, Some(PathBuf::from("x.ron")));
        assert_eq!((args.entities, args.frames, args.seed), (Some(2000), 30, 9));
    }

    #[test]
    fn clap_definition_is_consistent() {
        use clap::CommandFactory;
        Args::command().debug_assert();
    }
}
