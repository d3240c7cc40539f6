//! Making `tree.json`'s structure consistent (pure). Each node names its `parent` and lists
//! its `children`; the two can disagree after a hand edit. Rule: `parent` decides where a
//! node belongs (a node has one place), `children` only decides the order among siblings.

use std::collections::{HashMap, HashSet};

use super::files::NodeEntry;
use super::id::NodeId;

/// The entries made consistent, with one message per repair.
pub fn normalise(entries: Vec<NodeEntry>) -> (Vec<NodeEntry>, Vec<String>) {
    let mut notes = Vec::new();
    let mut seen = HashSet::new();
    let mut nodes: Vec<NodeEntry> = Vec::with_capacity(entries.len());
    for e in entries {
        if seen.insert(e.id.clone()) {
            nodes.push(e);
        } else {
            notes.push(format!(
                "node `{}` is listed twice; the first is kept",
                e.id
            ));
        }
    }
    let index: HashMap<NodeId, usize> = nodes
        .iter()
        .enumerate()
        .map(|(i, e)| (e.id.clone(), i))
        .collect();
    for e in &mut nodes {
        if let Some(p) = &e.parent
            && (p == &e.id || !index.contains_key(p))
        {
            notes.push(format!(
                "node `{}` names parent `{p}`, which is not in the tree; it becomes a root",
                e.id
            ));
            e.parent = None;
        }
    }
    break_cycles(&mut nodes, &index, &mut notes);
    rebuild_children(&mut nodes, &index, &mut notes);
    (nodes, notes)
}

/// A node unreachable from a root sits on (or under) a parent cycle: the first such node in
/// file order becomes a root, until every node is reachable.
fn break_cycles(nodes: &mut [NodeEntry], index: &HashMap<NodeId, usize>, notes: &mut Vec<String>) {
    loop {
        let parent: Vec<Option<usize>> = nodes
            .iter()
            .map(|e| e.parent.as_ref().and_then(|p| index.get(p).copied()))
            .collect();
        let reachable = reachable_from_roots(&parent);
        let Some(first) = reachable.iter().position(|r| !r) else {
            return;
        };
        notes.push(format!(
            "node `{}` is part of a parent cycle; it becomes a root",
            nodes[first].id
        ));
        nodes[first].parent = None;
    }
}

fn reachable_from_roots(parent: &[Option<usize>]) -> Vec<bool> {
    let mut kids: Vec<Vec<usize>> = vec![Vec::new(); parent.len()];
    for (i, p) in parent.iter().enumerate() {
        if let Some(p) = *p {
            kids[p].push(i);
        }
    }
    let mut reach = vec![false; parent.len()];
    let mut stack: Vec<usize> = (0..parent.len()).filter(|&i| parent[i].is_none()).collect();
    while let Some(i) = stack.pop() {
        if !std::mem::replace(&mut reach[i], true) {
            stack.extend(&kids[i]);
        }
    }
    reach
}

/// Children in their listed order, then any node naming this parent that was not listed.
fn rebuild_children(
    nodes: &mut [NodeEntry],
    index: &HashMap<NodeId, usize>,
    notes: &mut Vec<String>,
) {
    let mut members: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
    for (i, e) in nodes.iter().enumerate() {
        if let Some(p) = e.parent.as_ref().and_then(|p| index.get(p)) {
            members[*p].push(i);
        }
    }
    for (pi, kids) in members.iter().enumerate() {
        let listed = std::mem::take(&mut nodes[pi].children);
        let mut order: Vec<NodeId> = Vec::with_capacity(kids.len());
        for c in listed {
            let belongs = index
                .get(&c)
                .is_some_and(|&ci| nodes[ci].parent.as_ref() == Some(&nodes[pi].id));
            if belongs && !order.contains(&c) {
                order.push(c);
            } else if !belongs {
                notes.push(format!(
                    "node `{}` lists `{c}` as a child, but `{c}` is not its child; dropped from the list",
                    nodes[pi].id
                ));
            }
        }
        for &ci in kids {
            if !order.contains(&nodes[ci].id) {
                notes.push(format!(
                    "node `{}` names parent `{}`, which does not list it; added as its last child",
                    nodes[ci].id, nodes[pi].id
                ));
                order.push(nodes[ci].id.clone());
            }
        }
        nodes[pi].children = order;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::files::NodeStatus;

    fn entry(id: &str, parent: Option<&str>, children: &[&str]) -> NodeEntry {
        NodeEntry {
            id: NodeId::new(id).unwrap(),
            parent: parent.map(|p| NodeId::new(p).unwrap()),
            children: children.iter().map(|c| NodeId::new(c).unwrap()).collect(),
            status: NodeStatus::Untested,
            pinned: false,
            vetoed: false,
            created_at: String::new(),
            hypothesis_id: None,
            expansions: 0,
            extra: Default::default(),
        }
    }

    type Shape<'a> = &'a [(&'a str, Option<&'a str>, &'a [&'a str])];

    fn shape(nodes: &[NodeEntry]) -> Vec<(String, Option<String>, Vec<String>)> {
        nodes
            .iter()
            .map(|e| {
                (
                    e.id.to_string(),
                    e.parent.as_ref().map(ToString::to_string),
                    e.children.iter().map(ToString::to_string).collect(),
                )
            })
            .collect()
    }

    #[test]
    fn repairs() {
        let table: &[(&str, Shape, Shape, usize)] = &[
            (
                "consistent: untouched",
                &[
                    ("a", None, &["b", "c"]),
                    ("b", Some("a"), &[]),
                    ("c", Some("a"), &[]),
                ],
                &[
                    ("a", None, &["b", "c"]),
                    ("b", Some("a"), &[]),
                    ("c", Some("a"), &[]),
                ],
                0,
            ),
            (
                "listed order wins, unlisted appended",
                &[
                    ("a", None, &["c"]),
                    ("b", Some("a"), &[]),
                    ("c", Some("a"), &[]),
                ],
                &[
                    ("a", None, &["c", "b"]),
                    ("b", Some("a"), &[]),
                    ("c", Some("a"), &[]),
                ],
                1,
            ),
            (
                "a listed child that names another parent is dropped",
                &[("a", None, &["b"]), ("x", None, &[]), ("b", Some("x"), &[])],
                &[("a", None, &[]), ("x", None, &["b"]), ("b", Some("x"), &[])],
                2,
            ),
            (
                "unknown child and unknown parent",
                &[("a", None, &["zz"]), ("b", Some("gone"), &[])],
                &[("a", None, &[]), ("b", None, &[])],
                2,
            ),
            (
                "duplicate id keeps the first",
                &[("a", None, &[]), ("a", Some("a"), &[])],
                &[("a", None, &[])],
                1,
            ),
            (
                "a parent cycle is broken at its first node",
                &[
                    ("r", None, &[]),
                    ("x", Some("y"), &["y"]),
                    ("y", Some("x"), &["x"]),
                ],
                &[("r", None, &[]), ("x", None, &["y"]), ("y", Some("x"), &[])],
                2,
            ),
        ];
        for (name, input, want, notes) in table {
            let entries = input.iter().map(|(i, p, c)| entry(i, *p, c)).collect();
            let (got, msgs) = normalise(entries);
            let want: Vec<_> = want
                .iter()
                .map(|(i, p, c)| {
                    (
                        i.to_string(),
                        p.map(str::to_string),
                        c.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
                    )
                })
                .collect();
            assert_eq!(shape(&got), want, "{name}");
            assert_eq!(msgs.len(), *notes, "{name}: {msgs:?}");
        }
    }
}
