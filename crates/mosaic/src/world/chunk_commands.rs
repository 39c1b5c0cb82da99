//! Command buffers for parallel iteration: one per chunk, applied in chunk order.

use super::{ApplyReport, CommandBuffer, World};

/// Structural changes recorded from inside parallel iteration
/// ([`Query::par_for_each_deferred`](crate::Query::par_for_each_deferred)): each chunk of rows
/// records into its own [`CommandBuffer`], and [`ChunkedCommands::apply`] applies the buffers in
/// chunk order, i.e. in the query's row order, so the world afterwards is the same as if the
/// items had been visited one after another on one thread, for every thread count.
///
/// Chunks are contiguous runs of rows taken in order, so however many chunks a thread count
/// makes, their buffers concatenated hold the commands in the order a sequential
/// [`Query::for_each`](crate::Query::for_each) would have recorded them.
///
/// Memory: the buffers are kept, and keep their capacity, across `apply`; once every chunk
/// count in use has been seen and the buffers are warm, recording and applying allocate
/// nothing. Several deferred iterations before one `apply` take fresh buffers after the ones in
/// use, so their commands apply in call order.
///
/// # Examples
/// ```
/// use mosaic::{ChunkedCommands, Component, Entity, World};
///
/// #[derive(Component)] struct Health(i32);
/// let mut world = World::new();
/// world.spawn_batch((0..1000).map(|i| Health(i % 3)));
/// let mut commands = ChunkedCommands::new();
/// world.query::<(Entity, &Health)>().par_for_each_deferred(&mut commands, |(entity, health), buffer| {
///     if health.0 == 0 {
///         buffer.despawn(entity);
///     }
/// });
/// let report = commands.apply(&mut world);
/// assert_eq!((report.despawned, world.len()), (334, 666));
/// ```
#[derive(Debug, Default)]
pub struct ChunkedCommands {
    buffers: Vec<CommandBuffer>,
    /// Buffers `..used` hold commands not yet applied, in order.
    used: usize,
}

impl ChunkedCommands {
    /// No buffers. Allocates nothing until used.
    pub fn new() -> Self {
        Self::default()
    }

    /// The next `n` buffers, after those already holding commands; grows the pool if needed.
    pub(crate) fn take(&mut self, n: usize) -> &mut [CommandBuffer] {
        let start = self.used;
        self.used += n;
        if self.buffers.len() < self.used {
            self.buffers.resize_with(self.used, CommandBuffer::new);
        }
        &mut self.buffers[start..self.used]
    }

    /// Commands recorded and not yet applied. O(b) in the buffers in use.
    pub fn len(&self) -> usize {
        self.buffers[..self.used].iter().map(CommandBuffer::len).sum()
    }

    /// Whether no command waits to be applied.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Applies every buffer in use, in chunk order (each as [`CommandBuffer::apply`], with a
    /// run of despawns continuing from one buffer into the next), and returns the summed
    /// report. The buffers stay, empty, for reuse.
    pub fn apply(&mut self, world: &mut World) -> ApplyReport {
        let mut report = ApplyReport::default();
        // One despawn run across the buffers: the despawns of consecutive chunks are one batch.
        let mut runs = super::command_buffer::DespawnRuns::new(world);
        for buffer in &mut self.buffers[..self.used] {
            report += buffer.apply_in(&mut runs);
        }
        self.used = 0;
        report
    }
}
