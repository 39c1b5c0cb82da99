//! A model of run-time components, shared by the property test (`dynamic_property.rs`) and the
//! fuzz target (`fuzz/fuzz_targets/dynamic.rs`): a sequence of [`Op`]s applied to a world and to
//! a plain map, every answer compared.

use std::collections::BTreeMap;

use mosaic::dynamic::{ComponentDescriptor, DynamicError, DynamicValue, Field, Scalar, Schema};
use mosaic::{ComponentId, Entity, World};

/// One step. Small integers pick among the entities and components there are.
#[derive(Clone, Debug)]
pub enum Op {
    /// Register component `C{name}` (a second registration of a name must be refused).
    Register(u8),
    /// Spawn an entity with values for some components.
    Spawn(Vec<(u8, f32)>),
    /// Insert (add or replace) a value.
    Insert(u8, u8, f32),
    /// Write a value in place through `get_mut_by_id`.
    Set(u8, u8, f32),
    /// Take a value out.
    Take(u8, u8),
    /// Remove a value (dropped).
    Remove(u8, u8),
    /// Despawn an entity.
    Despawn(u8),
    /// Query component `read` without component `without`, compared with the model.
    Query(u8, Option<u8>),
    /// Add 1 to every value of a component through a writing query.
    Bump(u8),
}

/// The world and its model.
pub struct Model {
    world: World,
    ids: Vec<ComponentId>,
    rows: BTreeMap<Entity, BTreeMap<ComponentId, (f32, u16)>>,
}

fn schema() -> Schema {
    Schema::new(vec![Field::new("v", Scalar::F32), Field::new("n", Scalar::U16)]).expect("a valid schema")
}

impl Default for Model {
    fn default() -> Self {
        Self { world: World::new(), ids: Vec::new(), rows: BTreeMap::new() }
    }
}

impl Model {
    fn entity(&self, i: u8) -> Option<Entity> {
        self.rows.keys().nth(i as usize % self.rows.len().max(1)).copied()
    }

    fn component(&self, i: u8) -> Option<ComponentId> {
        self.ids.get(i as usize % self.ids.len().max(1)).copied()
    }

    fn value(&self, id: ComponentId, v: f32) -> DynamicValue {
        let mut value = DynamicValue::new(self.world.dynamic_schema(id).expect("a registered schema"));
        value.set_path("v", v).expect("v is an f32");
        value.set_path("n", v.to_bits() as u16).expect("n is a u16");
        value
    }

    fn read(&self, e: Entity, id: ComponentId) -> Option<(f32, u16)> {
        let view = self.world.get_by_id(e, id).ok()?;
        Some((view.get_path("v").expect("v"), view.get_path("n").expect("n")))
    }

    /// Applies `op` to both and compares; panics on a difference.
    pub fn apply(&mut self, op: &Op) {
        match *op {
            Op::Register(name) => {
                let name = format!("C{}", name % 8);
                match self.world.register_dynamic(ComponentDescriptor::new(name.clone(), schema())) {
                    Ok(id) => self.ids.push(id),
                    Err(DynamicError::NameTaken { name: taken }) => {
                        assert_eq!(taken, name);
                        assert!(self.world.component_id_by_name(&name).is_some());
                    }
                    Err(other) => panic!("register {name}: {other}"),
                }
            }
            Op::Spawn(ref values) => {
                let mut row = BTreeMap::new();
                let mut given = Vec::new();
                for &(c, v) in values.iter().take(4) {
                    if let Some(id) = self.component(c) {
                        given.push((id, self.value(id, v)));
                        row.insert(id, (v, v.to_bits() as u16));
                    }
                }
                let e = self.world.spawn_dynamic(given).expect("values of registered schemas");
                self.rows.insert(e, row);
            }
            Op::Insert(e, c, v) => {
                let (Some(e), Some(id)) = (self.entity(e), self.component(c)) else { return };
                let replaced = self.world.insert_by_id(e, id, self.value(id, v)).expect("a live entity");
                let old = self.rows.get_mut(&e).expect("modelled").insert(id, (v, v.to_bits() as u16));
                assert_eq!(replaced, old.is_some());
            }
            Op::Set(e, c, v) => {
                let (Some(e), Some(id)) = (self.entity(e), self.component(c)) else { return };
                let has = self.rows[&e].contains_key(&id);
                match self.world.get_mut_by_id(e, id) {
                    Ok(mut view) => {
                        assert!(has);
                        view.set_path("v", v).expect("v");
                        self.rows.get_mut(&e).expect("modelled").get_mut(&id).expect("has").0 = v;
                    }
                    Err(DynamicError::Missing { .. }) => assert!(!has),
                    Err(other) => panic!("set: {other}"),
                }
            }
            Op::Take(e, c) => {
                let (Some(e), Some(id)) = (self.entity(e), self.component(c)) else { return };
                let taken = self.world.take_by_id(e, id).expect("a live entity");
                let old = self.rows.get_mut(&e).expect("modelled").remove(&id);
                let taken =
                    taken.map(|t| (t.get_path::<f32>("v").expect("v"), t.get_path::<u16>("n").expect("n")));
                assert_eq!(taken.map(|t| (t.0.to_bits(), t.1)), old.map(|o| (o.0.to_bits(), o.1)));
            }
            Op::Remove(e, c) => {
                let (Some(e), Some(id)) = (self.entity(e), self.component(c)) else { return };
                let removed = self.world.remove_by_id(e, id).expect("a live entity");
                assert_eq!(removed, self.rows.get_mut(&e).expect("modelled").remove(&id).is_some());
            }
            Op::Despawn(e) => {
                let Some(e) = self.entity(e) else { return };
                self.world.despawn(e);
                self.rows.remove(&e);
                assert!(matches!(self.world.get_by_id(e, self.ids[0]), Err(DynamicError::Entity(_))));
            }
            Op::Query(read, without) => {
                let Some(read) = self.component(read) else { return };
                let without = without.and_then(|w| self.component(w)).filter(|&w| w != read);
                let mut builder = self.world.query_builder().read(read);
                if let Some(w) = without {
                    builder = builder.without(w);
                }
                let query = builder.build().expect("distinct registered components");
                let v = query.field::<f32>(0, "v").expect("v");
                let mut seen = Vec::new();
                query
                    .for_each(&self.world, |row| seen.push((row.entity(), row.get(v).to_bits())))
                    .expect("reads");
                seen.sort_unstable();
                let want: Vec<(Entity, u32)> = self
                    .rows
                    .iter()
                    .filter(|(_, row)| without.is_none_or(|w| !row.contains_key(&w)))
                    .filter_map(|(&e, row)| row.get(&read).map(|r| (e, r.0.to_bits())))
                    .collect();
                assert_eq!(seen, want);
                assert_eq!(query.count(&self.world), Ok(want.len()));
            }
            Op::Bump(c) => {
                let Some(id) = self.component(c) else { return };
                let query = self.world.query_builder().write(id).build().expect("one term");
                let v = query.field::<f32>(0, "v").expect("v");
                query.for_each_mut(&mut self.world, |mut row| row.set(v, row.get(v) + 1.0)).expect("writes");
                for row in self.rows.values_mut() {
                    if let Some(value) = row.get_mut(&id) {
                        value.0 += 1.0;
                    }
                }
            }
        }
        self.check();
    }

    /// Every modelled value is in the world, and the world has no other.
    fn check(&self) {
        assert_eq!(self.world.len() as usize, self.rows.len());
        for (&e, row) in &self.rows {
            for &id in &self.ids {
                let got = self.read(e, id).map(|(v, n)| (v.to_bits(), n));
                assert_eq!(got, row.get(&id).map(|&(v, n)| (v.to_bits(), n)), "{e:?} component {id:?}");
                assert_eq!(self.world.contains_by_id(e, id), row.contains_key(&id));
            }
        }
    }
}
