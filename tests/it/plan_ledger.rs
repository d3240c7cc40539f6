//! Honest accounting (issue 27, item 3): on the offline demo, every ledger row written while a
//! sub-hypothesis is searched (Coding & Validation, plan tree on) names its plan node and what
//! it was for, no other row does, and the plan's spent budget is exactly the sum of those
//! rows, by kind and by node; charging again (a restart) adds nothing.

use crate::common;

use std::collections::BTreeMap;
use std::path::Path;

use youra::plan::{Plans, SpendKind, charge_from_ledger, load, spent_now};

/// (stage, tokens, plan node, plan kind) of each ledger row.
fn rows(dir: &Path) -> Vec<(String, u64, String, String)> {
    let text = std::fs::read_to_string(dir.join("ledger.tsv")).expect("a ledger");
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some(youra::llm::ledger::HEADER));
    lines
        .map(|l| {
            let c: Vec<&str> = l.split('\t').collect();
            assert_eq!(c.len(), 10, "a whole row: {l}");
            let tokens = c[4].parse::<u64>().unwrap() + c[5].parse::<u64>().unwrap();
            (c[2].into(), tokens, c[7].into(), c[9].into())
        })
        .collect()
}

#[test]
fn every_search_row_is_tagged_and_the_budget_is_their_sum() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("demo");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_youra"))
        .args(["demo", "--headless", "--dir", dir.to_str().unwrap()])
        .env("YOURA_CONFIG_DIR", tmp.path().join("no-config"))
        .output()
        .expect("youra demo runs");
    let (stdout, stderr) = common::text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");

    let loaded = load(&dir, Plans::Skip).unwrap();
    let tree = loaded.tree;
    let saved = loaded.budget.expect("a plan budget");
    let mut by_kind: BTreeMap<String, u64> = BTreeMap::new();
    let mut by_node: BTreeMap<String, u64> = BTreeMap::new();
    let (mut searched, mut other) = (0, 0);
    for (stage, tokens, node, kind) in rows(&dir) {
        if stage != "coding_validation" {
            other += 1;
            assert_eq!(
                (node.as_str(), kind.as_str()),
                ("-", "-"),
                "{stage}: not the search's"
            );
            continue;
        }
        searched += 1;
        let id = youra::plan::NodeId::new(&node).unwrap_or_else(|e| panic!("{node}: {e}"));
        assert!(tree.get(&id).is_some(), "{node} is a node of the tree");
        let k = SpendKind::parse(&kind).unwrap_or_else(|| panic!("{node}: kind `{kind}`"));
        *by_kind.entry(kind.clone()).or_default() += tokens;
        if k != SpendKind::Planning {
            *by_node.entry(node).or_default() += tokens;
        }
    }
    assert!(
        searched >= 30 && other > 0,
        "{searched} search rows, {other} others"
    );
    for k in SpendKind::ALL {
        assert!(
            by_kind.get(k.name()).is_some_and(|&n| n > 0),
            "{k:?}: {by_kind:?}"
        );
    }
    let sum: u64 = by_kind.values().sum();

    // The plan's spent budget, as the engine will have charged it: the sum of those rows.
    // The demo's roots are drafted by the reflector (`expand:<root>` rows, planning, among
    // them), so no design brief is charged as a root (issue 41).
    let now = spent_now(&dir, &saved).unwrap();
    assert!(now.root_tokens.is_empty(), "{:?}", now.root_tokens);
    assert_eq!(now.used_tokens, sum);
    assert_eq!(now.split.total(), sum);
    for k in SpendKind::ALL {
        assert_eq!(now.split.get(k), by_kind[k.name()], "{k:?}");
    }
    assert_eq!(now.node_tokens, by_node);
    assert!(saved.used_tokens <= now.used_tokens);
    eprintln!(
        "demo: {searched} search rows ({}), saved {} of {} tokens",
        now.split.text(now.used_tokens),
        saved.used_tokens,
        now.used_tokens
    );

    // Charged again from where it stopped (a restart, a kill between charge and save):
    // nothing counts twice.
    let mut again = now.clone();
    let c = charge_from_ledger(&dir, &mut again, None).unwrap();
    assert_eq!((c.rows, again), (0, now));
}
