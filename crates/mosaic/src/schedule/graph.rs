//! The ordering graph: `before`/`after` constraints between systems and sets, sorted
//! topologically with deterministic tie-breaking.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use rustc_hash::FxHashMap;

use super::ScheduleError;

/// What the sort needs to know about one system.
pub(crate) struct NodeSpec<'a> {
    pub name: &'a str,
    pub sets: &'a [String],
    pub before: &'a [String],
    pub after: &'a [String],
    pub priority: i32,
}

/// Ordering of a named set relative to other labels.
#[derive(Clone, Debug, Default)]
pub(crate) struct SetSpec {
    pub before: Vec<String>,
    pub after: Vec<String>,
}

/// The systems in run order (indices into the input) and each one's direct predecessors.
pub(crate) struct Sorted {
    pub order: Vec<usize>,
    pub preds: Vec<Vec<usize>>,
}

/// Sorts the systems so every constraint holds. Among systems free to go next, the higher
/// priority goes first, then the earlier added: the order is the same on every run and machine.
/// O((n + e) log n) for n systems and e constraint edges.
///
/// # Errors
/// [`ScheduleError::UnknownLabel`] for a constraint naming nothing; [`ScheduleError::Cycle`] naming
/// every system on a cycle.
pub(crate) fn sort(
    nodes: &[NodeSpec<'_>],
    sets: &FxHashMap<String, SetSpec>,
) -> Result<Sorted, ScheduleError> {
    let n = nodes.len();
    let mut members: FxHashMap<&str, Vec<usize>> = FxHashMap::default();
    for (i, node) in nodes.iter().enumerate() {
        members.entry(node.name).or_default().push(i);
        for set in node.sets {
            members.entry(set.as_str()).or_default().push(i);
        }
    }
    for set in sets.keys() {
        members.entry(set.as_str()).or_default();
    }
    let resolve = |owner: &str, label: &str| -> Result<&[usize], ScheduleError> {
        members.get(label).map(Vec::as_slice).ok_or_else(|| ScheduleError::UnknownLabel {
            system: owner.to_string(),
            label: label.to_string(),
        })
    };

    let mut succs: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut add_edges = |from: &[usize], to: &[usize]| {
        for &a in from {
            for &b in to {
                if !succs[a].contains(&b) {
                    succs[a].push(b);
                }
            }
        }
    };
    for (i, node) in nodes.iter().enumerate() {
        for label in node.before {
            add_edges(&[i], resolve(node.name, label)?);
        }
        for label in node.after {
            add_edges(resolve(node.name, label)?, &[i]);
        }
    }
    let mut set_names: Vec<&String> = sets.keys().collect();
    set_names.sort();
    for name in set_names {
        let spec = &sets[name];
        let own = resolve(name, name)?.to_vec();
        for label in &spec.before {
            add_edges(&own, resolve(name, label)?);
        }
        for label in &spec.after {
            add_edges(resolve(name, label)?, &own);
        }
    }

    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (a, out) in succs.iter().enumerate() {
        for &b in out {
            preds[b].push(a);
        }
    }
    let mut indegree: Vec<usize> = preds.iter().map(Vec::len).collect();
    let mut ready: BinaryHeap<(i32, Reverse<usize>)> =
        (0..n).filter(|&i| indegree[i] == 0).map(|i| (nodes[i].priority, Reverse(i))).collect();
    let mut order = Vec::with_capacity(n);
    while let Some((_, Reverse(i))) = ready.pop() {
        order.push(i);
        for &j in &succs[i] {
            indegree[j] -= 1;
            if indegree[j] == 0 {
                ready.push((nodes[j].priority, Reverse(j)));
            }
        }
    }
    if order.len() < n {
        let stuck: Vec<bool> = indegree.iter().map(|&d| d > 0).collect();
        return Err(ScheduleError::Cycle { systems: find_cycle(&succs, &stuck, nodes) });
    }
    Ok(Sorted { order, preds })
}

/// Names the systems of one cycle among the `stuck` nodes (every stuck node lies on or after a
/// cycle, and following stuck successors must revisit a node).
fn find_cycle(succs: &[Vec<usize>], stuck: &[bool], nodes: &[NodeSpec<'_>]) -> Vec<String> {
    let start = stuck.iter().position(|&s| s).expect("a cycle leaves nodes stuck");
    let mut path = vec![start];
    let mut position: FxHashMap<usize, usize> = FxHashMap::default();
    position.insert(start, 0);
    let mut current = start;
    loop {
        let next = *succs[current].iter().find(|&&j| stuck[j]).expect("a stuck node has a stuck successor");
        if let Some(&at) = position.get(&next) {
            let mut names: Vec<String> = path[at..].iter().map(|&i| nodes[i].name.to_string()).collect();
            names.push(nodes[next].name.to_string());
            return names;
        }
        position.insert(next, path.len());
        path.push(next);
        current = next;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec<'a>(name: &'a str, before: &'a [String], after: &'a [String], priority: i32) -> NodeSpec<'a> {
        NodeSpec { name, sets: &[], before, after, priority }
    }

    #[test]
    fn priority_then_insertion_order() {
        let none: Vec<String> = Vec::new();
        let after_a = vec!["a".to_string()];
        let nodes = [spec("a", &none, &none, 0), spec("b", &none, &after_a, 0), spec("c", &none, &none, 5)];
        let sorted = sort(&nodes, &FxHashMap::default()).unwrap();
        assert_eq!(sorted.order, vec![2, 0, 1]);
    }

    #[test]
    fn cycle_names_every_system() {
        let after_c = vec!["c".to_string()];
        let after_a = vec!["a".to_string()];
        let after_b = vec!["b".to_string()];
        let none: Vec<String> = Vec::new();
        let nodes = [
            spec("a", &none, &after_c, 0),
            spec("b", &none, &after_a, 0),
            spec("c", &none, &after_b, 0),
            spec("d", &none, &none, 0),
        ];
        let Err(ScheduleError::Cycle { systems }) = sort(&nodes, &FxHashMap::default()) else {
            panic!("expected a cycle");
        };
        assert_eq!(systems.len(), 4);
        assert_eq!(systems.first(), systems.last());
        for name in ["a", "b", "c"] {
            assert!(systems.iter().any(|s| s == name), "{systems:?} lacks {name}");
        }
    }
}
