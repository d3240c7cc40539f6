//! Step-through debugging (UX.md moment 3) through the real binary: `youra replay` makes a
//! replay copy of a recorded demo run, a breakpoint before Coding & Validation stops it and
//! says why, `youra run --step` runs one stage (its gate and route) and pauses, a loosened
//! threshold changes a route, and `youra compare` names the step where the runs part. Also
//! `youra compare` on the public YouRA runs.

use crate::common;

use std::path::Path;

use common::replay_copy::{recorded, s, steer, tighten_and_finish, youra_exits};
use youra::stage::Stage;
use youra::vsa::enums::GateResult;
use youra::vsa::pause::PauseCause;
use youra::vsa::store::Store;

fn vsa(dir: &Path) -> youra::vsa::Vsa {
    Store::new(dir.join("verification_state.yaml"))
        .load()
        .expect("the VSA reads")
        .vsa
        .clone()
}

fn gate(dir: &Path, h: &str) -> Option<GateResult> {
    vsa(dir).hypothesis(h).and_then(|x| x.gate.result.clone())
}

#[test]
fn a_replay_copy_stops_at_its_breakpoint_steps_and_diverges_where_the_threshold_moved() {
    let tmp = tempfile::tempdir().unwrap();
    let a = recorded(tmp.path());
    // The recorder wraps the demo's replay provider too: the recorded run keeps every exchange.
    let recorded_exchanges = std::fs::read_dir(a.join("transcripts")).unwrap().count();
    assert!(recorded_exchanges > 20, "{recorded_exchanges} transcripts");

    let b = tmp.path().join("b");
    let out = youra_exits(&["replay", s(&a), s(&b)], 0);
    assert!(
        out.contains(&format!("{recorded_exchanges} recorded exchanges")),
        "{out}"
    );
    assert_eq!(vsa(&b).replayed_from.as_deref(), Some(s(&a)));
    let toml = std::fs::read_to_string(b.join("youra.toml")).unwrap();
    assert!(
        toml.contains("provider = \"replay\"\nreplay = \"replay/transcripts\""),
        "{toml}"
    );
    assert!(
        toml.contains("literature_search = false"),
        "the engine settings travel: {toml}"
    );
    assert_eq!(
        std::fs::read(b.join("data/penguins.csv")).unwrap(),
        std::fs::read(a.join("data/penguins.csv")).unwrap()
    );
    assert_eq!(
        std::fs::read_dir(b.join("replay/transcripts"))
            .unwrap()
            .count(),
        recorded_exchanges
    );

    // The breakpoint stops the engine before h-e1's experiment, and the VSA says why.
    steer(&b, &["breakpoint", "Coding & Validation"]);
    youra_exits(&["run", s(&b), "--until-pause"], 3);
    assert_eq!(
        PauseCause::of(&vsa(&b)),
        Some(PauseCause::Breakpoint(Stage::CodingValidation))
    );
    assert_eq!(gate(&b, "h-e1"), None, "stopped before the gate");

    // One step: h-e1's Coding & Validation runs, its gate fails as recorded, recovery
    // routes it (Method-Refine), and the engine pauses there: one experiment, not two.
    youra_exits(&["run", s(&b), "--step", "--until-pause"], 3);
    assert_eq!(gate(&b, "h-e1"), Some(GateResult::Fail));
    let Some(PauseCause::Stepped { after }) = PauseCause::of(&vsa(&b)) else {
        panic!("paused by the step: {:?}", PauseCause::of(&vsa(&b)));
    };
    assert!(
        after.starts_with("Coding & Validation (Phase 4) for h-e1"),
        "{after}"
    );
    let events = std::fs::read_to_string(b.join("events.jsonl")).unwrap();
    assert_eq!(events.matches("\"kind\":\"experiment_start\"").count(), 1);

    // Resume: the plan tree's next node (bill depth alone) misses too, and the breakpoint
    // stops before each attempt, until the standardized one passes and it stops before h-m1's.
    for _ in 0..3 {
        steer(&b, &["resume"]);
        youra_exits(&["run", s(&b), "--until-pause"], 3);
        assert_eq!(
            PauseCause::of(&vsa(&b)),
            Some(PauseCause::Breakpoint(Stage::CodingValidation))
        );
        if gate(&b, "h-e1") == Some(GateResult::Pass) {
            break;
        }
    }
    assert_eq!(gate(&b, "h-e1"), Some(GateResult::Pass));
    assert_eq!(gate(&b, "h-m1"), None);
    assert_eq!(
        PauseCause::of(&vsa(&b)),
        Some(PauseCause::Breakpoint(Stage::CodingValidation))
    );

    tighten_and_finish(&b);
    assert_eq!(gate(&a, "h-c1"), Some(GateResult::Pass));
    assert_eq!(gate(&b, "h-c1"), Some(GateResult::Fail));

    let out = common::youra(&["compare", s(&a), s(&b)]);
    let (text, err) = common::text(&out);
    assert_eq!(out.status.code(), Some(1), "{text}{err}");
    // h-m1's escalation is answered by the waiting policy in both runs (the same reject, so
    // the same recorded continuation); the first divergence is h-c1, whose tightened
    // threshold turns its PASS into a limitation.
    let first: Vec<&str> = text.lines().filter(|l| l.starts_with('»')).collect();
    assert_eq!(first.len(), 1, "{text}");
    assert!(first[0].contains("Coding & Validation h-c1"), "{text}");
    assert!(
        first[0].contains("PASS min_group_accuracy 0.9557 (>= 0.9)"),
        "{text}"
    );
    assert!(
        first[0].contains("FAIL min_group_accuracy 0.9557 (>= 0.99)"),
        "{text}"
    );
    assert!(
        text.contains("first divergence: Coding & Validation h-c1"),
        "{text}"
    );
    // The steps before agree, h-e1's refinement included.
    assert!(
        text.lines()
            .any(|l| l.starts_with("  Coding & Validation h-e1 #3") && l.contains("PASS")),
        "{text}"
    );

    let json = youra_exits(&["compare", s(&a), s(&b), "--json"], 1);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["diverged"], true);
    assert_eq!(v["first_divergence"]["stage"], "Coding & Validation");
    assert_eq!(v["first_divergence"]["hypothesis"], "h-c1");
    assert_eq!(v["end"]["a"], "COMPLETED");
    let end_b = v["end"]["b"].as_str().unwrap_or_default();
    assert!(end_b.starts_with("STOPPED: Evidence Check"), "{end_b}");

    let same = youra_exits(&["compare", s(&a), s(&a)], 0);
    assert!(same.contains("the runs agree at every step"), "{same}");
    // Issue 40: the gate written after n-0004 (which measured 0.7853) holds the search's best
    // node's 0.9708; the row says whose value it shows.
    let fourth = same
        .lines()
        .find(|l| l.contains("Coding & Validation h-e1 #4"))
        .unwrap_or_default();
    assert!(
        fourth.contains("n-0004 FAIL accuracy 0.7853; gate PASS"),
        "each attempt is labelled with its own measurement first: {same}"
    );
    let json = youra_exits(&["compare", s(&a), s(&a), "--json"], 0);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let row = v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["key"]["hypothesis"] == "h-e1" && r["key"]["attempt"] == 4)
        .expect("h-e1's fourth attempt");
    let gate = &row["a"]["gate"];
    assert_eq!(gate["own"]["node"], "n-0004", "{row}");
    assert_eq!(gate["own"]["result"], "FAIL", "{row}");
    // The JSON keeps the values as recorded (youra's means); the table rounds them.
    let value =
        |v: &serde_json::Value| format!("{:.4}", v.as_str().unwrap().parse::<f64>().unwrap());
    assert_eq!(value(&gate["own"]["measured"][0][1]), "0.7853", "{row}");
    assert_eq!(gate["from_node"], "n-0003", "{row}");
    assert_eq!(value(&gate["checks"][0]["measured"]), "0.9708", "{row}");
}

#[test]
fn replay_refuses_a_run_that_recorded_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let a = tmp.path().join("a");
    youra_exits(&["init", s(&a), "--topic", "t", "--mode", "unattended"], 0);
    let b = tmp.path().join("b");
    let out = common::youra(&["replay", s(&a), s(&b)]);
    let (_, err) = common::text(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("recorded no model exchanges"), "{err}");
    assert!(!b.exists(), "nothing made");
}

#[test]
fn compare_exits_2_when_a_run_cannot_be_read() {
    let tmp = tempfile::tempdir().unwrap();
    let out = common::youra(&["compare", s(tmp.path()), s(tmp.path())]);
    let (_, err) = common::text(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("no verification_state.yaml"), "{err}");
}

#[test]
fn compare_reads_the_public_youra_runs() {
    let Some(root) = common::shared_fixtures() else {
        return;
    };
    let runs = [
        root.join(common::DATA_PROBLEMS_RUN),
        root.join(common::BI_ALIGN_RUN),
        root.join(common::DL4C),
    ];
    for r in &runs {
        let same = youra_exits(&["compare", s(r), s(r)], 0);
        assert!(same.contains("the runs agree at every step"), "{same}");
    }
    // Two different runs: read from their current state (their history has no field paths).
    let json = youra_exits(&["compare", s(&runs[0]), s(&runs[1]), "--json"], 1);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let rows = v["rows"].as_array().unwrap();
    let e1 = rows
        .iter()
        .find(|r| r["key"]["stage"] == "Coding & Validation" && r["key"]["hypothesis"] == "h-e1")
        .expect("h-e1's gate in both");
    assert_eq!(e1["a"]["gate"]["result"], "PARTIAL");
    assert_eq!(
        e1["a"]["gate"]["checks"][0]["metric"],
        "n_features_with_variance"
    );
}
