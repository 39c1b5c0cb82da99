//! Errors of building a schedule.

/// Why a schedule could not be built or a system could not be added.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScheduleError {
    /// The ordering constraints form a cycle through at least one system; every system on it is
    /// named, in order, with the first repeated at the end, and so is every set it passes through.
    #[error(
        "ordering cycle between systems: {}{}; remove one of these `before`/`after` constraints{}",
        .systems.join(" -> "),
        through_sets(.sets),
        if .sets.is_empty() { "" } else { ", or take a system out of one of these sets" }
    )]
    Cycle {
        /// The systems on the cycle, first repeated at the end.
        systems: Vec<String>,
        /// The sets the cycle passes through (their order or their membership), each once, in
        /// cycle order; empty if the cycle runs through systems alone.
        sets: Vec<String>,
    },
    /// Sets are ordered in a cycle (a set after itself, two sets each after the other, ...),
    /// whether or not they hold systems.
    #[error(
        "ordering cycle between sets: {}; remove one of these `configure_set` `before`/`after` constraints",
        .sets.join(" -> ")
    )]
    SetCycle {
        /// The sets on the cycle, first repeated at the end.
        sets: Vec<String>,
    },
    /// A system is in two sets, and the first set must run before the second (directly or through
    /// other sets and systems): the system would have to run before itself.
    #[error(
        "system `{system}` is in sets `{first}` and `{second}`, but `{first}` runs before `{second}` ({}), \
         so `{system}` would have to run before itself; take `{system}` out of one of these sets, or \
         remove an ordering on that path",
        .path.join(" -> ")
    )]
    ConflictingSets {
        /// The system in both sets.
        system: String,
        /// The set that runs first.
        first: String,
        /// The set that runs after it.
        second: String,
        /// How `first` comes before `second`: the sets and systems in between, from `first` to
        /// `second`.
        path: Vec<String>,
    },
    /// A `before`/`after` names no system and no set.
    #[error(
        "`{system}` is ordered relative to `{label}`, which names no system or set in this schedule; \
         fix the name, add the system, or create the set with `in_set` or `configure_set`"
    )]
    UnknownLabel {
        /// The system (or set) with the constraint.
        system: String,
        /// The unknown name.
        label: String,
    },
    /// Two systems of one schedule have the same name: a name must pick out one system (for
    /// `before`/`after`, profiles and error messages). Adding one function twice, or adding
    /// systems from one closure-making line in a loop, gives this; rename with
    /// [`SystemConfig::named`](crate::schedule::SystemConfig::named).
    #[error(
        "two systems are named `{name}` (added {first} and {second}); a system name must be unique in \
         its schedule: rename one with `.named(..)`"
    )]
    DuplicateSystem {
        /// The shared name.
        name: String,
        /// When the first was added: `1st`, `2nd`, ...
        first: String,
        /// When the second was added.
        second: String,
    },
    /// A `before`/`after` names both a system and a set.
    #[error(
        "`{system}` is ordered relative to `{label}`, which names {}; rename the system with \
         `.named(..)` or the set",
        .matches.join(" and ")
    )]
    AmbiguousLabel {
        /// The system (or set) with the constraint.
        system: String,
        /// The ambiguous name.
        label: String,
        /// What the name matches, in the order added: ``system `foo` (added 1st)``, ``set `foo` ``.
        matches: Vec<String>,
    },
    /// Two parameters of one system alias.
    #[error(
        "system `{system}` has conflicting parameters: `{first}` and `{second}` both access `{component}` \
         and at least one writes it; merge them into one query or split the system"
    )]
    ConflictingParams {
        /// The system.
        system: String,
        /// The first parameter's type, without module paths.
        first: String,
        /// The second parameter's type, without module paths.
        second: String,
        /// The component or resource both access.
        component: &'static str,
    },
}

/// `, through set `a`` / `, through sets `a`, `b``; empty when no set is crossed.
fn through_sets(sets: &[String]) -> String {
    match sets {
        [] => String::new(),
        [set] => format!(", through set `{set}`"),
        _ => {
            format!(", through sets {}", sets.iter().map(|s| format!("`{s}`")).collect::<Vec<_>>().join(", "))
        }
    }
}
