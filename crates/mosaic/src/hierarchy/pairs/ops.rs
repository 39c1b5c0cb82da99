//! Adding, removing and reading pairs: the `World` methods.

use super::store::unlink_reverse;
use super::{PairEntry, PairRelation, PairTarget, Targets};
use crate::entity::{Entity, EntityError};
use crate::world::World;

impl World {
    /// Adds the pair `(R, target)` to `source` with `R::default()` as its value; see
    /// [`World::add_pair_with`], whose rules and costs it shares.
    ///
    /// # Panics
    /// If `source` or `target` is not alive; see [`World::try_add_pair_with`].
    #[track_caller]
    pub fn add_pair<R: PairRelation + Default>(&mut self, source: Entity, target: Entity) -> Option<R> {
        self.add_pair_with(source, target, R::default())
    }

    /// Adds the pair `(R, target)` to `source` carrying `value`, beside the source's other
    /// targets of `R`; returns the value it replaces when the pair was there already. An
    /// [exclusive](PairRelation::EXCLUSIVE) kind first removes the source's other target; a
    /// [symmetric](PairRelation::SYMMETRIC) one also adds `(R, source)` to `target` with a
    /// clone of `value`. A source may be its own target.
    ///
    /// O(1) amortised, plus O(k) in the source's targets of `R` (to find an existing pair); the
    /// first pair of a source inserts its `Targets<R>`, the first pair naming a target marks it.
    ///
    /// # Panics
    /// If `source` or `target` is not alive; [`World::try_add_pair_with`] is the fallible form.
    ///
    /// # Examples
    /// ```
    /// use mosaic::World;
    /// use mosaic::hierarchy::PairRelation;
    ///
    /// #[derive(Clone, Debug, PartialEq)]
    /// struct Owes(u32);
    /// impl PairRelation for Owes {}
    ///
    /// let mut world = World::new();
    /// let [ann, ben, cid] = [(); 3].map(|()| world.spawn_empty());
    /// world.add_pair_with(ann, ben, Owes(10));
    /// world.add_pair_with(ann, cid, Owes(5));
    /// assert_eq!(world.add_pair_with(ann, ben, Owes(12)), Some(Owes(10)));
    /// world.pair_value_mut::<Owes>(ann, cid).unwrap().0 += 1;
    /// let total: u32 = world.pairs::<Owes>().map(|(_, _, owes)| owes.0).sum();
    /// assert_eq!(total, 18);
    /// ```
    #[track_caller]
    pub fn add_pair_with<R: PairRelation>(&mut self, source: Entity, target: Entity, value: R) -> Option<R> {
        match self.try_add_pair_with(source, target, value) {
            Ok(old) => old,
            Err(error) => panic!("cannot add pair ({}, {target}): {error}", std::any::type_name::<R>()),
        }
    }

    /// Adds the pair `(R, target)` to `source` carrying `value`: the fallible form of
    /// [`World::add_pair_with`], with its rules and costs.
    ///
    /// # Errors
    /// [`EntityError`] if `source` or `target` is not alive; nothing changes then.
    pub fn try_add_pair_with<R: PairRelation>(
        &mut self,
        source: Entity,
        target: Entity,
        value: R,
    ) -> Result<Option<R>, EntityError> {
        self.check_alive(source)?;
        self.check_alive(target)?;
        let k = self.init_pairs::<R>();
        if let Some(slot) = self.pair_value_mut::<R>(source, target) {
            let mirror = (R::SYMMETRIC && source != target).then(|| value.clone());
            let old = std::mem::replace(slot, value);
            if let Some(mirror) = mirror
                && let Some(slot) = self.pair_value_mut::<R>(target, source)
            {
                *slot = mirror;
            }
            return Ok(Some(old));
        }
        if R::EXCLUSIVE {
            let others: Vec<Entity> = self.targets::<R>(source).collect();
            for other in others {
                self.remove_pair::<R>(source, other);
            }
        }
        if R::SYMMETRIC && source != target {
            if R::EXCLUSIVE {
                let others: Vec<Entity> = self.targets::<R>(target).collect();
                for other in others {
                    self.remove_pair::<R>(target, other);
                }
            }
            self.link::<R>(k, target, source, value.clone());
        }
        self.link::<R>(k, source, target, value);
        Ok(None)
    }

    /// Adds the entry `(target, value)` to `source` and `source` to `target`'s list; the pair is
    /// not there yet. O(1) amortised.
    fn link<R: PairRelation>(&mut self, k: usize, source: Entity, target: Entity, value: R) {
        if !self.contains::<Targets<R>>(source) {
            self.insert(source, Targets::<R> { entries: Vec::new() });
        }
        if !self.contains::<PairTarget>(target) {
            self.insert(target, PairTarget);
        }
        let (index, components) = self.pairs_and_components_mut();
        let kind = &mut index.kinds[k];
        let list = kind.sources.entry(target).or_default();
        let slot = u32::try_from(list.len()).expect("fewer than 2^32 sources per target");
        list.push(source);
        let targets = components.pool_mut(kind.pool).get_mut::<Targets<R>>(source);
        targets.expect("inserted above").entries.push(PairEntry { target, slot, value });
    }

    /// Removes the pair `(R, target)` from `source`; returns its value, or `None` if there was no
    /// such pair. For a [symmetric](PairRelation::SYMMETRIC) kind also removes `(R, source)` from
    /// `target`. The last pair of a source takes its `Targets<R>` off. The source's and target's
    /// other pairs stay.
    ///
    /// O(1) in the target's sources, plus O(k) in the source's targets of `R` (and in those of
    /// the source that moves into the freed slot).
    pub fn remove_pair<R: PairRelation>(&mut self, source: Entity, target: Entity) -> Option<R> {
        let k = self.pair_index().kind_of::<R>()?;
        let value = self.unlink::<R>(k, source, target)?;
        if R::SYMMETRIC && source != target {
            self.unlink::<R>(k, target, source);
        }
        Some(value)
    }

    /// Takes one pair out of both sides; `None` if absent.
    fn unlink<R: PairRelation>(&mut self, k: usize, source: Entity, target: Entity) -> Option<R> {
        let (index, components) = self.pairs_and_components_mut();
        let kind = &mut index.kinds[k];
        let pool = components.pool_mut(kind.pool);
        let targets = pool.get_mut::<Targets<R>>(source)?;
        let at = targets.entries.iter().position(|e| e.target == target)?;
        let entry = targets.entries.swap_remove(at);
        let empty = targets.entries.is_empty();
        unlink_reverse::<R>(&mut kind.sources, pool, target, entry.slot);
        if empty {
            self.remove::<Targets<R>>(source);
        }
        Some(entry.value)
    }

    /// Whether `source` has the pair `(R, target)`. O(k) in the source's targets of `R`.
    pub fn has_pair<R: PairRelation>(&self, source: Entity, target: Entity) -> bool {
        self.pair_value::<R>(source, target).is_some()
    }

    /// The value of `source`'s pair `(R, target)`, if it has it. O(k) in the source's targets.
    pub fn pair_value<R: PairRelation>(&self, source: Entity, target: Entity) -> Option<&R> {
        self.components().pool_of::<Targets<R>>()?.get::<Targets<R>>(source)?.get(target)
    }

    /// The value of `source`'s pair `(R, target)`, mutably, if it has it. The mirror of a
    /// symmetric pair is a separate value (re-add the pair to set both). O(k) in the source's
    /// targets.
    pub fn pair_value_mut<R: PairRelation>(&mut self, source: Entity, target: Entity) -> Option<&mut R> {
        let k = self.pair_index().kind_of::<R>()?;
        let id = self.pair_index().kinds[k].pool;
        let targets = self.components_mut().pool_mut(id).get_mut::<Targets<R>>(source)?;
        targets.entries.iter_mut().find(|e| e.target == target).map(|e| &mut e.value)
    }

    /// The targets of `source`'s pairs of `R`, in the order described on [`Targets`]; empty if
    /// it has none. O(1) to start, each step O(1).
    pub fn targets<R: PairRelation>(&self, source: Entity) -> impl ExactSizeIterator<Item = Entity> + '_ {
        let targets = self.components().pool_of::<Targets<R>>().and_then(|p| p.get::<Targets<R>>(source));
        targets.map_or(&[][..], |t| &t.entries[..]).iter().map(|e| e.target)
    }

    /// The sources of the pairs `(R, target)`: the `(R, target)` query. Order: the order the
    /// pairs were added, except that removing one moves the last source into its place (swap
    /// remove, so removal is O(1)). Empty for a target with none, or dead. O(1): a slice of the
    /// world's reverse index, valid until the next change.
    ///
    /// # Examples
    /// ```
    /// use mosaic::World;
    /// use mosaic::hierarchy::PairRelation;
    ///
    /// #[derive(Clone, Default)]
    /// struct Likes;
    /// impl PairRelation for Likes {}
    ///
    /// let mut world = World::new();
    /// let [pizza, a, b, c] = [(); 4].map(|()| world.spawn_empty());
    /// for fan in [a, b, c] {
    ///     world.add_pair::<Likes>(fan, pizza);
    /// }
    /// world.remove_pair::<Likes>(a, pizza);
    /// assert_eq!(world.sources::<Likes>(pizza), [c, b], "c moved into a's place");
    /// ```
    pub fn sources<R: PairRelation>(&self, target: Entity) -> &[Entity] {
        let index = self.pair_index();
        index.kind_of::<R>().and_then(|k| index.kinds[k].sources.get(&target)).map_or(&[], Vec::as_slice)
    }

    /// Every pair of `R` as `(source, target, value)`: the `(R, *)` wildcard. Sources in the row
    /// order of the `Targets<R>` pool (the order `Query<&Targets<R>>` visits), each source's
    /// targets in its order. O(sources + pairs) for the walk, no allocation.
    pub fn pairs<R: PairRelation>(&self) -> impl Iterator<Item = (Entity, Entity, &R)> + '_ {
        let pool = self.components().pool_of::<Targets<R>>();
        let (entities, values) =
            pool.map_or((&[][..], &[][..]), |p| (p.entities(), p.values::<Targets<R>>()));
        entities
            .iter()
            .zip(values)
            .flat_map(|(&source, targets)| targets.entries.iter().map(move |e| (source, e.target, &e.value)))
    }

    /// Every pair of any kind naming `target`, as `(kind, source)`: the `(*, target)` query. The
    /// kind is type-erased, as `R`'s type name (`std::any::type_name::<R>()`). Kinds in the order
    /// the world set them up, each kind's sources in [`World::sources`] order. O(kinds + pairs
    /// found).
    ///
    /// # Examples
    /// ```
    /// use mosaic::World;
    /// use mosaic::hierarchy::PairRelation;
    ///
    /// #[derive(Clone, Default)]
    /// struct Likes;
    /// impl PairRelation for Likes {}
    /// #[derive(Clone, Default)]
    /// struct Fears;
    /// impl PairRelation for Fears {}
    ///
    /// let mut world = World::new();
    /// let [dog, cat, mouse] = [(); 3].map(|()| world.spawn_empty());
    /// world.add_pair::<Likes>(dog, cat);
    /// world.add_pair::<Fears>(mouse, cat);
    /// let names: Vec<(&str, _)> = world.pairs_to(cat).collect();
    /// assert_eq!(names, [(std::any::type_name::<Likes>(), dog), (std::any::type_name::<Fears>(), mouse)]);
    /// ```
    pub fn pairs_to(&self, target: Entity) -> impl Iterator<Item = (&'static str, Entity)> + '_ {
        self.pair_index().kinds.iter().flat_map(move |kind| {
            kind.sources.get(&target).into_iter().flatten().map(move |&source| (kind.name, source))
        })
    }
}
