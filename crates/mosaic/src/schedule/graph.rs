//! The ordering graph: `before`/`after` constraints between systems and sets, sorted
//! topologically with deterministic tie-breaking.
//!
//! Every set is two nodes of the graph, its start and its end, with an edge from start to end;
//! each member runs between them (start -> member -> end). "x before set S" is an edge into S's
//! start, "x after S" one out of S's end, and "S before T" is S's end -> T's start. So an order
//! between sets holds through a set that has no systems (A -> B -> C with B empty still puts A's
//! systems before C's), a cycle between sets is a cycle of the graph whether or not they hold
//! systems, and a system in two sets that are ordered one before the other lies on a cycle.
//! This is the graph bevy's schedule flattens its set hierarchy into (`bevy_ecs::schedule`).

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

/// The systems in run order (indices into the input) and, for each system, the systems it must
/// run after directly or through sets alone (no other system in between), sorted.
pub(crate) struct Sorted {
    pub order: Vec<usize>,
    pub preds: Vec<Vec<usize>>,
}

/// What a label names.
#[derive(Clone, Copy)]
enum Target {
    System(usize),
    Set(usize),
}

/// The graph: systems are nodes `0..n`, set `k` is nodes `n + 2k` (start) and `n + 2k + 1` (end).
struct Graph<'a, 'n> {
    nodes: &'a [NodeSpec<'n>],
    set_names: Vec<&'a str>,
    succs: Vec<Vec<usize>>,
    preds: Vec<Vec<usize>>,
}

impl Graph<'_, '_> {
    fn systems(&self) -> usize {
        self.nodes.len()
    }
    fn start(&self, set: usize) -> usize {
        self.systems() + 2 * set
    }
    fn end(&self, set: usize) -> usize {
        self.systems() + 2 * set + 1
    }
    fn is_set(&self, node: usize) -> bool {
        node >= self.systems()
    }
    /// The set a set node belongs to.
    fn set_of(&self, node: usize) -> usize {
        (node - self.systems()) / 2
    }
    /// Where an edge into `target` lands.
    fn entry(&self, target: Target) -> usize {
        match target {
            Target::System(i) => i,
            Target::Set(k) => self.start(k),
        }
    }
    /// Where an edge out of `target` leaves.
    fn exit(&self, target: Target) -> usize {
        match target {
            Target::System(i) => i,
            Target::Set(k) => self.end(k),
        }
    }
    /// A system's name, or a set node's set's name.
    fn name(&self, node: usize) -> &str {
        if self.is_set(node) { self.set_names[self.set_of(node)] } else { self.nodes[node].name }
    }
}

/// Sorts the systems so every constraint holds. Among systems free to go next, the higher
/// priority goes first, then the earlier added: the order is the same on every run and machine.
/// O((n + s + e) log(n + s)) for n systems, s sets and e constraint edges (a system in a set is
/// two edges, `a before b` one).
///
/// # Errors
/// [`ScheduleError::DuplicateSystem`] for two systems of one name (the first such pair in
/// insertion order);
/// [`ScheduleError::UnknownLabel`] for a constraint naming nothing;
/// [`ScheduleError::AmbiguousLabel`] for one naming a system and a set;
/// [`ScheduleError::SetCycle`] naming every set on a cycle of sets;
/// [`ScheduleError::ConflictingSets`] for a system in two sets ordered one before the other;
/// [`ScheduleError::Cycle`] naming every system (and set) on any other cycle.
pub(crate) fn sort(
    nodes: &[NodeSpec<'_>],
    sets: &FxHashMap<String, SetSpec>,
) -> Result<Sorted, ScheduleError> {
    let n = nodes.len();
    let mut set_names: Vec<&str> = nodes
        .iter()
        .flat_map(|node| node.sets.iter().map(String::as_str))
        .chain(sets.keys().map(String::as_str))
        .collect();
    set_names.sort_unstable();
    set_names.dedup();
    let set_index: FxHashMap<&str, usize> =
        set_names.iter().enumerate().map(|(k, &name)| (name, k)).collect();
    let mut named: FxHashMap<&str, Vec<usize>> = FxHashMap::default();
    for (i, node) in nodes.iter().enumerate() {
        let same = named.entry(node.name).or_default();
        if let Some(&first) = same.first() {
            return Err(ScheduleError::DuplicateSystem {
                name: node.name.to_string(),
                first: ordinal(first + 1),
                second: ordinal(i + 1),
            });
        }
        same.push(i);
    }
    let resolve = |owner: &str, label: &str| -> Result<Target, ScheduleError> {
        let systems = named.get(label).map_or(&[][..], Vec::as_slice);
        let set = set_index.get(label).copied();
        match (systems, set) {
            ([], None) => {
                Err(ScheduleError::UnknownLabel { system: owner.to_string(), label: label.to_string() })
            }
            (&[i], None) => Ok(Target::System(i)),
            ([], Some(k)) => Ok(Target::Set(k)),
            _ => Err(ScheduleError::AmbiguousLabel {
                system: owner.to_string(),
                label: label.to_string(),
                matches: systems
                    .iter()
                    .map(|&i| format!("system `{label}` (added {})", ordinal(i + 1)))
                    .chain(set.map(|_| format!("set `{label}`")))
                    .collect(),
            }),
        }
    };

    let mut graph = Graph { nodes, set_names, succs: Vec::new(), preds: Vec::new() };
    let total = n + 2 * graph.set_names.len();
    let mut edges: Vec<(usize, usize)> = Vec::new();
    for k in 0..graph.set_names.len() {
        edges.push((graph.start(k), graph.end(k)));
    }
    for (i, node) in nodes.iter().enumerate() {
        for set in node.sets {
            let k = set_index[set.as_str()];
            edges.push((graph.start(k), i));
            edges.push((i, graph.end(k)));
        }
        for label in node.before {
            edges.push((i, graph.entry(resolve(node.name, label)?)));
        }
        for label in node.after {
            edges.push((graph.exit(resolve(node.name, label)?), i));
        }
    }
    for (k, name) in graph.set_names.iter().enumerate() {
        let Some(spec) = sets.get(*name) else { continue };
        for label in &spec.before {
            edges.push((graph.end(k), graph.entry(resolve(name, label)?)));
        }
        for label in &spec.after {
            edges.push((graph.exit(resolve(name, label)?), graph.start(k)));
        }
    }
    edges.sort_unstable();
    edges.dedup();
    graph.succs = vec![Vec::new(); total];
    graph.preds = vec![Vec::new(); total];
    for &(a, b) in &edges {
        graph.succs[a].push(b);
        graph.preds[b].push(a);
    }

    // Kahn's algorithm. Set nodes go as soon as they are free (they run nothing), so only the
    // constraints decide when a system is free; among free systems, priority then insertion.
    let mut indegree: Vec<usize> = graph.preds.iter().map(Vec::len).collect();
    let key = |i: usize| if i >= n { (true, 0, Reverse(i)) } else { (false, nodes[i].priority, Reverse(i)) };
    let mut ready: BinaryHeap<(bool, i32, Reverse<usize>)> =
        (0..total).filter(|&i| indegree[i] == 0).map(key).collect();
    let mut visited = Vec::with_capacity(total);
    while let Some((_, _, Reverse(i))) = ready.pop() {
        visited.push(i);
        for &j in &graph.succs[i] {
            indegree[j] -= 1;
            if indegree[j] == 0 {
                ready.push(key(j));
            }
        }
    }
    if visited.len() < total {
        let stuck: Vec<bool> = indegree.iter().map(|&d| d > 0).collect();
        return Err(cycle_error(&graph, &stuck));
    }

    // Each system's predecessors through set nodes: `through[v]` for a set node holds the systems
    // that reach it by set nodes alone. A non-empty set's start -> end edge is left out: its
    // members stand between the two, so that order already runs through a system.
    let mut members = vec![0usize; graph.set_names.len()];
    for node in nodes {
        for set in node.sets {
            members[set_index[set.as_str()]] += 1;
        }
    }
    let inside_filled_set = |u: usize, v: usize| {
        let k = graph.set_of(u);
        u == graph.start(k) && v == graph.end(k) && members[k] > 0
    };
    let mut through: Vec<Vec<usize>> = vec![Vec::new(); total];
    for &v in &visited {
        let mut reach = Vec::new();
        for &u in &graph.preds[v] {
            if !graph.is_set(u) {
                reach.push(u);
            } else if !inside_filled_set(u, v) {
                reach.extend_from_slice(&through[u]);
            }
        }
        reach.sort_unstable();
        reach.dedup();
        through[v] = reach;
    }
    let order = visited.into_iter().filter(|&i| i < n).collect();
    through.truncate(n);
    Ok(Sorted { order, preds: through })
}

/// The error for a graph whose `stuck` nodes (those Kahn's algorithm could not free) hold a cycle.
/// A cycle of set nodes alone is reported first, as [`ScheduleError::SetCycle`]; then a cycle
/// that leaves a system for one of its sets' end and comes back from another of its sets' start
/// is [`ScheduleError::ConflictingSets`]; any other is [`ScheduleError::Cycle`].
fn cycle_error(graph: &Graph<'_, '_>, stuck: &[bool]) -> ScheduleError {
    // Cycles among set nodes alone: peel the set-only subgraph of the stuck nodes.
    let total = stuck.len();
    let in_sets = |a: usize, b: usize| graph.is_set(a) && graph.is_set(b) && stuck[a] && stuck[b];
    let mut indegree: Vec<usize> =
        (0..total).map(|v| graph.preds[v].iter().filter(|&&u| in_sets(u, v)).count()).collect();
    let mut free: Vec<usize> =
        (0..total).filter(|&v| graph.is_set(v) && stuck[v] && indegree[v] == 0).collect();
    while let Some(u) = free.pop() {
        for &v in &graph.succs[u] {
            if in_sets(u, v) {
                indegree[v] -= 1;
                if indegree[v] == 0 {
                    free.push(v);
                }
            }
        }
    }
    let set_stuck: Vec<bool> = (0..total).map(|v| graph.is_set(v) && stuck[v] && indegree[v] > 0).collect();
    if let Some(start) = set_stuck.iter().position(|&s| s) {
        let cycle = find_cycle(graph, &set_stuck, start);
        let mut sets = names(graph, &cycle);
        rotate_to_min(&mut sets);
        return ScheduleError::SetCycle { sets };
    }

    let start = stuck.iter().position(|&s| s).expect("a cycle leaves nodes stuck");
    let cycle = find_cycle(graph, stuck, start);
    let len = cycle.len() - 1;
    for p in 0..len {
        let (prev, x, next) = (cycle[(p + len - 1) % len], cycle[p], cycle[p + 1]);
        if graph.is_set(x) || !graph.is_set(prev) || !graph.is_set(next) {
            continue;
        }
        let (later, earlier) = (graph.set_of(prev), graph.set_of(next));
        // Only membership makes an edge from a set's start to a system or from a system to a set's
        // end, so `x` is in both sets, and `earlier` must end before `later` starts.
        if prev == graph.start(later) && next == graph.end(earlier) && later != earlier {
            let path: Vec<usize> = (1..len).map(|step| cycle[(p + step) % len]).collect();
            return ScheduleError::ConflictingSets {
                system: graph.nodes[x].name.to_string(),
                first: graph.set_names[earlier].to_string(),
                second: graph.set_names[later].to_string(),
                path: names(graph, &path),
            };
        }
    }
    let first = (0..len).filter(|&p| !graph.is_set(cycle[p])).min_by_key(|&p| cycle[p]).expect("a system");
    let rotated: Vec<usize> = (0..=len).map(|step| cycle[(first + step) % len]).collect();
    let systems =
        rotated.iter().filter(|&&v| !graph.is_set(v)).map(|&v| graph.nodes[v].name.to_string()).collect();
    let mut sets: Vec<String> = Vec::new();
    for &v in &rotated {
        let name = graph.name(v);
        if graph.is_set(v) && !sets.iter().any(|s| s == name) {
            sets.push(name.to_string());
        }
    }
    ScheduleError::Cycle { systems, sets }
}

/// One cycle among the `stuck` nodes, found from `start` by following stuck predecessors (every
/// stuck node has one, so the walk must revisit a node), set nodes first so the cycle crosses
/// as few systems as it can. In edge order, the first node repeated at the end.
fn find_cycle(graph: &Graph<'_, '_>, stuck: &[bool], start: usize) -> Vec<usize> {
    let mut path = vec![start];
    let mut position: FxHashMap<usize, usize> = FxHashMap::default();
    position.insert(start, 0);
    let mut current = start;
    loop {
        let next = graph.preds[current]
            .iter()
            .copied()
            .filter(|&u| stuck[u])
            .max()
            .expect("a stuck node has a stuck predecessor");
        if let Some(&at) = position.get(&next) {
            let mut cycle: Vec<usize> = path[at..].to_vec();
            cycle.push(next);
            cycle.reverse();
            return cycle;
        }
        position.insert(next, path.len());
        path.push(next);
        current = next;
    }
}

/// `1st`, `2nd`, `3rd`, `4th`, ..., `11th`, `21st`.
fn ordinal(n: usize) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// The names along `path`, a set's consecutive nodes (start, end) written once.
fn names(graph: &Graph<'_, '_>, path: &[usize]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut last: Option<usize> = None;
    for &v in path {
        let same_set =
            graph.is_set(v) && last.is_some_and(|l| graph.is_set(l) && graph.set_of(l) == graph.set_of(v));
        if !same_set {
            out.push(graph.name(v).to_string());
        }
        last = Some(v);
    }
    out
}

/// Rotates a cycle written with its first name repeated at the end so it starts at its least
/// name (a stable report), keeping the repetition.
fn rotate_to_min(cycle: &mut Vec<String>) {
    if cycle.len() > 1 && cycle.first() == cycle.last() {
        cycle.pop();
    }
    if let Some(min) = (0..cycle.len()).min_by(|&a, &b| cycle[a].cmp(&cycle[b])) {
        cycle.rotate_left(min);
    }
    if let Some(first) = cycle.first().cloned() {
        cycle.push(first);
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
        let Err(ScheduleError::Cycle { systems, sets }) = sort(&nodes, &FxHashMap::default()) else {
            panic!("expected a cycle");
        };
        assert_eq!(systems.len(), 4);
        assert!(sets.is_empty());
        assert_eq!(systems.first(), systems.last());
        for name in ["a", "b", "c"] {
            assert!(systems.iter().any(|s| s == name), "{systems:?} lacks {name}");
        }
    }

    #[test]
    fn preds_run_through_sets_but_stop_at_systems() {
        let none: Vec<String> = Vec::new();
        let (in_a, in_b, in_c) = (vec!["a".to_string()], vec!["b".to_string()], vec!["c".to_string()]);
        let mut sets = FxHashMap::default();
        sets.insert("a".to_string(), SetSpec { before: vec!["b".to_string()], after: Vec::new() });
        sets.insert("b".to_string(), SetSpec { before: vec!["c".to_string()], after: Vec::new() });
        let system = |name, sets| NodeSpec { name, sets, before: &none, after: &none, priority: 0 };

        // b empty: z (in c) must run after x (in a), through b alone.
        let nodes = [system("z", &in_c), system("x", &in_a)];
        let sorted = sort(&nodes, &sets).unwrap();
        assert_eq!(sorted.order, vec![1, 0]);
        assert_eq!(sorted.preds, vec![vec![1], vec![]]);

        // b holds y: z runs after y, y after x; x -> z runs through y, so it is not repeated.
        let nodes = [system("z", &in_c), system("x", &in_a), system("y", &in_b)];
        let sorted = sort(&nodes, &sets).unwrap();
        assert_eq!(sorted.order, vec![1, 2, 0]);
        assert_eq!(sorted.preds, vec![vec![2], vec![], vec![1]]);
    }

    #[test]
    fn ordinals() {
        let written: Vec<String> =
            [1, 2, 3, 4, 11, 12, 13, 21, 22, 101, 111].into_iter().map(ordinal).collect();
        assert_eq!(
            written,
            ["1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "101st", "111th"]
        );
    }
}
