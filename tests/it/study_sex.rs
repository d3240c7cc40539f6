//! The second recorded study end to end (issue 41 item 5): `youra demo --study sex` replays
//! to a checked paper under the Independent Controller and, from the same bundle, under
//! SAGE's table; the two part at h-c1's route (the controller redesigns, the table resets)
//! and `youra compare` says so; on the way a SHOULD_WORK miss is retried from Experiment
//! Design until the refine cap makes it a limitation, every experiment trains a network for epochs with its curve streamed, and each
//! search runs its plan tree.

use crate::common;

use std::path::{Path, PathBuf};

const BUNDLE: &str = "assets/studies/sex/replay.jsonl";

#[test]
fn the_bundled_study_is_the_generated_one() {
    let generated = common::study_sex::script().text();
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(BUNDLE);
    if std::env::var_os("YOURA_UPDATE_DEMO").is_some() {
        std::fs::write(&path, &generated).expect("write the bundle");
    }
    let bundled = std::fs::read_to_string(&path).expect("bundle");
    assert!(
        bundled == generated,
        "{BUNDLE} is stale: run `YOURA_UPDATE_DEMO=1 cargo test --test it study_sex::`"
    );
}

/// The study made headless into `dir`, its router set, run to its end.
fn study(tmp: &Path, name: &str, router: &str) -> PathBuf {
    let dir = tmp.join(name);
    youra::cli::engine_cmd::demo_dir(
        Some(dir.clone()),
        youra::cli::engine_cmd::DemoOptions {
            headless: true,
            study: youra::cli::engine_cmd::Study::Sex,
            table_router: router == "table",
            ..Default::default()
        },
    )
    .unwrap();
    let toml = std::fs::read_to_string(dir.join("youra.toml")).unwrap();
    assert!(toml.contains(&format!("router = \"{router}\"")), "{toml}");
    let end = common::script::run_engine(&dir, true);
    assert_eq!(end, youra::engine::RunEnd::Completed, "{router}: {end:?}");
    dir
}

fn deviations(dir: &Path) -> String {
    let p = std::fs::read_to_string(dir.join("paper/06_paper_final.md")).unwrap();
    p[p.find("Deviations from the plan").expect("the section")..].to_string()
}

#[test]
fn under_both_routers_the_study_reaches_a_checked_paper_and_compare_marks_where_they_part() {
    let tmp = tempfile::tempdir().unwrap();
    let table = study(tmp.path(), "table", "table");
    let controller = study(tmp.path(), "controller", "controller");

    // Each experiment trains for epochs, its held-out curve streamed epoch by epoch (h-e2's;
    // the first round's are archived).
    let curve = std::fs::read_to_string(controller.join("h-e2/results/metrics.jsonl")).unwrap();
    let epochs: Vec<serde_json::Value> = curve
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    assert!(
        epochs.len() >= 60 && epochs.len().is_multiple_of(60),
        "{curve}"
    );
    assert!(
        epochs
            .iter()
            .all(|e| e["epoch"].is_u64() && e["accuracy"].is_f64() && e["loss"].is_f64())
    );

    for dir in [&table, &controller] {
        // A SHOULD_WORK miss retried from Experiment Design, then a limitation.
        let record = std::fs::read_to_string(dir.join("memory/failure_h-m1_run1.md")).unwrap();
        assert!(
            record.contains("ROUTED_TO_PHASE_2C (Design-Refine)"),
            "{record}"
        );
        let (records, _) = youra::rundir::memory::load_dir(&dir.join("memory"));
        assert!(
            records.iter().any(|r| r.id.starts_with("limitation_h-m1")),
            "{:?}",
            records.iter().map(|r| &r.id).collect::<Vec<_>>()
        );
        // Its second miss reached the refine cap.
        let capped: Vec<String> = common::events_of(dir, "refine_cap")
            .into_iter()
            .filter_map(|e| e.message)
            .collect();
        assert_eq!(capped.len(), 1, "{capped:?}");
        assert!(
            capped[0].contains("h-m1: Design-Refine would be refine 2 of this gate")
                && capped[0].contains("recorded as a limitation"),
            "{}",
            capped[0]
        );
        // The restated claims pass on fresh seeds, and the paper checks.
        for h in ["h-e2", "h-m2", "h-c2"] {
            assert_eq!(
                common::vsa_field(dir, &format!("sub_hypotheses.{h}.status")).as_deref(),
                Some("VALIDATED"),
                "{h}"
            );
        }
        let out = common::youra(&["report", "check", dir.to_str().unwrap()]);
        assert!(out.status.success(), "{:?}", common::text(&out));
        assert_eq!(youra::rundir::archive::load_archives(dir).len(), 1);
    }
    // The table redesigned; the controller reset, and said why.
    assert!(
        deviations(&table).contains("- **redesign**")
            && deviations(&table)
                .contains("by the recovery table: `h-c1 failed; back to Hypothesis Debate"),
        "{}",
        deviations(&table)
    );
    assert!(
        deviations(&controller).contains("- **reset**")
            && deviations(&controller)
                .contains("by the controller: `h-c1 failed; back to Problem Scoping"),
        "{}",
        deviations(&controller)
    );

    // `youra compare`: they agree up to h-c1's route, then only the controller scopes again.
    let out = common::youra(&[
        "compare",
        table.to_str().unwrap(),
        controller.to_str().unwrap(),
    ]);
    let (text, err) = common::text(&out);
    assert_eq!(out.status.code(), Some(1), "{text}{err}");
    let first: Vec<&str> = text.lines().filter(|l| l.starts_with('»')).collect();
    assert_eq!(first.len(), 1, "{text}");
    assert!(
        first[0].contains("Coding & Validation h-c1") && first[0].contains("→ Pivot"),
        "{text}"
    );
    assert!(
        text.lines()
            .any(|l| l.contains("Problem Scoping #2") && l.contains("only in b")),
        "{text}"
    );
}
