//! Access sets: what a system reads and writes, and when two systems conflict.

use std::any::TypeId;

/// What one access is to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AccessTarget {
    /// A component type's values.
    Component(TypeId),
    /// A resource.
    Resource(TypeId),
}

/// One read or write, with the type's name for messages.
#[derive(Clone, Copy, Debug)]
pub struct AccessItem {
    /// What is accessed.
    pub target: AccessTarget,
    /// The type's name.
    pub name: &'static str,
    /// Whether it is written.
    pub write: bool,
    /// The system parameter that makes the access (its type name), for messages.
    pub param: &'static str,
}

/// Everything a system reads and writes. Built when the system is added, from its parameters.
///
/// Two systems conflict when one writes something the other reads or writes; an exclusive system
/// (one taking `&mut World`) conflicts with every system.
#[derive(Clone, Debug, Default)]
pub struct Access {
    items: Vec<AccessItem>,
    exclusive: bool,
}

impl Access {
    /// An access set of an exclusive system.
    pub fn exclusive() -> Self {
        Self { items: Vec::new(), exclusive: true }
    }

    /// Whether this is an exclusive (`&mut World`) access.
    pub fn is_exclusive(&self) -> bool {
        self.exclusive
    }

    /// The reads and writes, in parameter order.
    pub fn items(&self) -> &[AccessItem] {
        &self.items
    }

    /// Adds an access.
    ///
    /// # Errors
    /// The existing item the new one conflicts with (same target, one of them a write), so a
    /// system whose own parameters alias is refused naming both.
    pub fn add(&mut self, item: AccessItem) -> Result<(), Box<(AccessItem, AccessItem)>> {
        if let Some(existing) = self.items.iter().find(|e| e.target == item.target && (e.write || item.write))
        {
            return Err(Box::new((*existing, item)));
        }
        self.items.push(item);
        Ok(())
    }

    /// The first conflict with `other`, if any: a target one writes and the other accesses.
    /// O(a * b) in the two sets' sizes.
    pub fn conflict_with(&self, other: &Access) -> Option<Conflict> {
        if self.exclusive || other.exclusive {
            return Some(Conflict::Exclusive);
        }
        self.items.iter().find_map(|a| {
            other
                .items
                .iter()
                .find(|b| a.target == b.target && (a.write || b.write))
                .map(|_| Conflict::On(a.name))
        })
    }
}

/// Why two systems cannot run at the same time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Conflict {
    /// One of them takes `&mut World`.
    Exclusive,
    /// Both access this type and at least one writes it.
    On(&'static str),
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item<T: 'static>(write: bool) -> AccessItem {
        AccessItem {
            target: AccessTarget::Component(TypeId::of::<T>()),
            name: std::any::type_name::<T>(),
            write,
            param: "test",
        }
    }

    #[test]
    fn reads_share_writes_conflict() {
        let mut a = Access::default();
        a.add(item::<u8>(false)).unwrap();
        let mut b = Access::default();
        b.add(item::<u8>(false)).unwrap();
        assert_eq!(a.conflict_with(&b), None);
        b.add(item::<u16>(true)).unwrap();
        a.add(item::<u16>(false)).unwrap();
        assert_eq!(a.conflict_with(&b), Some(Conflict::On("u16")));
        assert!(a.add(item::<u8>(true)).is_err());
        assert_eq!(Access::exclusive().conflict_with(&Access::default()), Some(Conflict::Exclusive));
    }
}
