//! The budget charged from the run's ledger (`ledger.tsv`, written by `llm::ledger`): each
//! row once, across a torn last line, a restart, and a kill between the charge and its save.

use std::fs;

use youra::llm::ledger::{Ledger, LedgerRow, PriceTable};
use youra::plan::{Budget, PlanError, Plans, charge_from_ledger, load, save_budget};

fn row(node: Option<&str>, input: u64, output: u64) -> LedgerRow {
    LedgerRow {
        time: "2026-03-17T10:00:00Z".into(),
        role: "reflector".into(),
        stage: "plan".into(),
        model: "m".into(),
        input_tokens: input,
        output_tokens: output,
        plan_node: node.map(str::to_string),
        ..LedgerRow::default()
    }
}

#[test]
fn the_budget_is_charged_from_the_ledger_once() {
    let run = tempfile::tempdir().unwrap();
    let path = run.path().join("ledger.tsv");
    let ledger = Ledger::new(path.clone(), PriceTable::default());
    ledger.append(&row(Some("n-0001"), 1000, 200)).unwrap();
    ledger.append(&row(None, 50, 50)).unwrap();
    // A kill mid-append: the last row has no newline yet.
    let mut f = fs::OpenOptions::new().append(true).open(&path).unwrap();
    std::io::Write::write_all(&mut f, b"2026-03-17T10:02:00Z\tcoder\texec\tm\t7").unwrap();

    let mut b = Budget::tokens(10_000);
    let c = charge_from_ledger(run.path(), &mut b, None).unwrap();
    // The row of no node is not the plan's call: only the node's row counts.
    assert_eq!((c.rows, c.tokens, c.torn), (1, 1200, true));
    assert_eq!(b.used_tokens, 1200);
    assert_eq!(b.node_tokens["n-0001"], 1200);
    save_budget(run.path(), &b).unwrap();

    // A restart charges nothing twice.
    let mut again = load(run.path(), Plans::Skip).unwrap().budget.unwrap();
    let c = charge_from_ledger(run.path(), &mut again, None).unwrap();
    assert_eq!((c.rows, again.used_tokens), (0, 1200));

    // The torn row completes; a charge computed but killed before its save is redone once.
    std::io::Write::write_all(&mut f, b"00\t0\t0.0\tn-0002\n").unwrap();
    ledger.append(&row(Some("n-0001"), 10, 0)).unwrap();
    let mut lost = again.clone();
    charge_from_ledger(run.path(), &mut lost, None).unwrap();
    let mut b = load(run.path(), Plans::Skip).unwrap().budget.unwrap();
    let c = charge_from_ledger(run.path(), &mut b, None).unwrap();
    assert_eq!((c.rows, c.tokens, c.torn), (2, 710, false));
    assert_eq!(b, lost);
    assert_eq!(b.used_tokens, 1910);
    assert_eq!(
        (b.node_tokens["n-0001"], b.node_tokens["n-0002"]),
        (1210, 700)
    );
    assert_eq!(b.ledger_offset, fs::metadata(&path).unwrap().len());

    // Wall time counts only with a time limit, from the first charge on.
    b.time_budget_secs = Some(100.0);
    charge_from_ledger(run.path(), &mut b, Some(1000.0)).unwrap();
    let c = charge_from_ledger(run.path(), &mut b, Some(1060.0)).unwrap();
    assert_eq!((c.secs, b.used_secs), (60.0, 60.0));

    // A ledger replaced by a shorter one is not guessed at.
    fs::write(&path, "time\n").unwrap();
    let e = charge_from_ledger(run.path(), &mut b, None).unwrap_err();
    assert!(matches!(e, PlanError::LedgerShrank { .. }), "{e}");
    assert!(e.to_string().contains("set ledger_offset to 0"), "{e}");
}
