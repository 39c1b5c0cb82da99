//! The commands hook and watch callbacks record, and how they are applied.
//!
//! Callbacks run inside a structural change with the world read-only; what they want changed
//! goes into one command buffer the world keeps, applied as soon as the change that fired them
//! is complete, round after round (commands applied may fire more callbacks), breadth first:
//! every command of a round runs before the commands it causes.

use super::{CommandBuffer, HookContext, World};
use crate::entity::Entity;

/// The deferred command buffer and its reentrancy flag.
#[derive(Debug, Default)]
pub(crate) struct Deferred {
    /// Commands recorded by callbacks, applied when the firing operation returns.
    buffer: CommandBuffer,
    /// An empty buffer swapped in while `buffer` is applied, keeping both capacities.
    spare: CommandBuffer,
    /// Whether the world is applying `buffer` now (nested operations leave it to the outer loop).
    flushing: bool,
}

impl Deferred {
    /// The buffer callbacks record into, for parts of the world that queue commands themselves
    /// (observers move their parameters' commands here).
    pub(crate) fn buffer_mut(&mut self) -> &mut CommandBuffer {
        &mut self.buffer
    }
}

impl World {
    /// The buffer callbacks record into (observers move their parameters' commands here).
    #[inline]
    pub(crate) fn deferred_buffer(&mut self) -> &mut CommandBuffer {
        &mut self.deferred.buffer
    }

    /// Runs `callback` for `entity` with the world read-only and the deferred command buffer.
    pub(crate) fn call(&mut self, entity: Entity, callback: impl FnOnce(&World, &mut HookContext<'_>)) {
        let mut commands = std::mem::take(&mut self.deferred.buffer);
        let world: &World = self;
        callback(world, &mut HookContext { entity, world, commands: &mut commands });
        self.deferred.buffer = commands;
    }

    /// Runs `operation` (several structural changes that make one: a bundle's removals) with the
    /// commands callbacks record held back, then applies them: the callbacks of the first change
    /// cannot change the world before the last is made. Also when `operation` panics, the hold
    /// ends (the commands stay queued for the next change).
    pub(crate) fn holding_deferred<R>(&mut self, operation: impl FnOnce(&mut World) -> R) -> R {
        /// Restores the flag when the operation ends, also by panic.
        struct Hold<'a> {
            world: &'a mut World,
            was: bool,
        }
        impl Drop for Hold<'_> {
            fn drop(&mut self) {
                self.world.deferred.flushing = self.was;
            }
        }
        let was = std::mem::replace(&mut self.deferred.flushing, true);
        let hold = Hold { world: self, was };
        let result = operation(hold.world);
        drop(hold);
        if !was {
            self.flush_deferred();
        }
        result
    }

    /// Applies the commands callbacks recorded, repeatedly, until none are left. Nested calls
    /// (from the operations being applied) return at once; the outer loop picks their commands
    /// up. O(1) when nothing was recorded.
    ///
    /// # Panics
    /// If callbacks keep recording commands for 10,000 rounds (a hook feeding itself).
    #[inline]
    pub(crate) fn flush_deferred(&mut self) {
        if self.deferred.flushing || self.deferred.buffer.is_empty() {
            return;
        }
        self.flush_deferred_now();
    }

    /// [`World::flush_deferred`]'s loop, out of line: most operations have nothing to apply.
    #[cold]
    #[inline(never)]
    fn flush_deferred_now(&mut self) {
        /// Clears the flag when flushing ends, also by panic.
        struct Flushing<'a>(&'a mut World);
        impl Drop for Flushing<'_> {
            fn drop(&mut self) {
                self.0.deferred.flushing = false;
            }
        }
        self.deferred.flushing = true;
        let guard = Flushing(self);
        let mut rounds = 0;
        while !guard.0.deferred.buffer.is_empty() {
            rounds += 1;
            assert!(rounds <= 10_000, "hooks kept recording commands for 10,000 rounds; a hook feeds itself");
            let spare = std::mem::take(&mut guard.0.deferred.spare);
            let mut batch = std::mem::replace(&mut guard.0.deferred.buffer, spare);
            batch.apply(guard.0);
            guard.0.deferred.spare = batch;
        }
    }
}
