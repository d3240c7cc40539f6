//! The Method's sentence on selection and reporting (issue 40 item 3): where a plan-tree
//! search chose a configuration and a confirmation run on fresh seeds decided its gate
//! (`search.confirmation_seeds`), the paper says so, so a reader knows the reported numbers
//! are not the ones the choice was made on. No digit of its own (`report check`).

use crate::vsa::store::Snapshot;

/// The sentence, naming each confirmed sub-hypothesis and its chosen node.
pub fn note(snap: &Snapshot) -> Option<String> {
    let confirmed: Vec<String> = snap
        .vsa
        .sub_hypotheses
        .iter()
        .filter_map(|h| {
            let search = |k: &str| {
                super::fields::hypothesis_node(snap, &h.id, &["search", k])
                    .and_then(|n| n.as_scalar())
                    .map(|s| s.text.trim_matches(['\'', '"']).to_string())
                    .filter(|t| !t.is_empty())
            };
            search("confirmation_seeds")?;
            Some(match search("best_node") {
                Some(node) => format!("{} (node {node})", h.id),
                None => h.id.clone(),
            })
        })
        .collect();
    let list = match confirmed.as_slice() {
        [] => return None,
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    };
    Some(format!(
        "Selection apart from reporting: the plan tree chose the configuration of {list} on its \
         selection seeds; the gate, and every number reported for it here, come from a \
         confirmation run of that configuration on fresh seeds the selection never saw."
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn snap(text: &str) -> Snapshot {
        Snapshot::of_text(text).unwrap()
    }

    #[test]
    fn only_confirmed_searches_are_named() {
        let text = "sub_hypotheses:\n  h-e1:\n    status: VALIDATED\n    search:\n      best_node: n-0003\n      confirmation_seeds: '1000000,1000001'\n  h-m1:\n    status: FAILED\n    search:\n      best_node: n-0007\n  h-c1:\n    status: VALIDATED\n";
        let n = note(&snap(text)).unwrap();
        assert!(
            n.contains("the configuration of h-e1 (node n-0003) on its selection seeds"),
            "{n}"
        );
        assert!(!n.contains("h-m1") && !n.contains("h-c1"), "{n}");
        assert_eq!(
            note(&snap("sub_hypotheses:\n  h-e1:\n    status: READY\n")),
            None
        );
    }
}
