//! Errors of building a schedule.

/// Why a schedule could not be built or a system could not be added.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScheduleError {
    /// The ordering constraints form a cycle; every system on it is named, in order, with the
    /// first repeated at the end.
    #[error("ordering cycle between systems: {}; remove one of these `before`/`after` constraints", .systems.join(" -> "))]
    Cycle {
        /// The systems on the cycle, first repeated at the end.
        systems: Vec<String>,
    },
    /// A `before`/`after` names no system and no set.
    #[error(
        "system `{system}` is ordered relative to `{label}`, which names no system or set in this schedule"
    )]
    UnknownLabel {
        /// The system (or set) with the constraint.
        system: String,
        /// The unknown name.
        label: String,
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
