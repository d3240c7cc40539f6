//! `youra memory import <from-run> <record>… --into <run>` through the real binary: copies
//! with provenance and prior ids, the next debate prompt's "Lessons from earlier runs", clear
//! refusals (unknown record, not a run, a planted link), against a demo run and the corpus.

use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use common::lessons::demo_run;
use common::*;
use youra::rundir::memory::{MemoryRecord, load_dir};

fn init(dir: &Path) -> PathBuf {
    let o = youra(&["init", dir.to_str().unwrap(), "--topic", "penguins again"]);
    assert!(o.status.success(), "{:?}", text(&o));
    dir.to_path_buf()
}

fn import(from: &Path, records: &[&str], into: &Path) -> std::process::Output {
    let mut args = vec!["memory", "import", from.to_str().unwrap()];
    args.extend_from_slice(records);
    args.extend(["--into", into.to_str().unwrap()]);
    youra(&args)
}

/// The debate's turn prompt as the engine renders it for `run` (compiled template).
fn debate_prompt(run: &Path) -> String {
    let (records, _) = load_dir(&run.join("memory"));
    let d = youra::engine::lessons::digest(&records);
    let vars: BTreeMap<&str, String> = [
        ("exchange", "1".to_string()),
        ("persona", "novelty".into()),
        ("persona_brief", "-".into()),
        ("question", "q".into()),
        ("gaps", "-".into()),
        ("gap", "-".into()),
        ("memory", d.this_run),
        ("prior", d.earlier_runs),
        ("transcript", "-".into()),
    ]
    .into_iter()
    .collect();
    youra::engine::prompts::Prompts::new(run)
        .render("debate/turn", &vars)
        .unwrap()
}

/// The prompt's text between `heading` and the next blank line.
fn section<'a>(prompt: &'a str, heading: &str) -> &'a str {
    let start = prompt
        .find(heading)
        .unwrap_or_else(|| panic!("{heading} in {prompt}"));
    let body = &prompt[start..];
    let body = &body[body.find('\n').unwrap() + 1..];
    &body[..body.find("\n\n").unwrap_or(body.len())]
}

fn by_id<'a>(records: &'a [MemoryRecord], id: &str) -> &'a MemoryRecord {
    records.iter().find(|r| r.id == id).unwrap_or_else(|| {
        panic!(
            "{id} among {:?}",
            records.iter().map(|r| &r.id).collect::<Vec<_>>()
        )
    })
}

#[test]
fn demo_lessons_go_into_a_new_runs_prior_and_the_debate_reads_them() {
    let tmp = tempfile::tempdir().unwrap();
    let demo = demo_run(tmp.path());
    let new = init(&tmp.path().join("new"));
    // The engine's own first failure of h-e1 in the new run: the name the copy must not take.
    std::fs::create_dir_all(new.join("memory")).unwrap();
    std::fs::write(
        new.join("memory/failure_h-e1_run1.md"),
        "**Hypothesis:** h-e1\n## Lessons Learned\n1. mine\n",
    )
    .unwrap();
    let o = import(&demo, &["failure_h-e1_run1", "failure_h-m1_run1.md"], &new);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}{err}");
    assert!(
        out.contains("failure_h-e1_run1 → prior/from-demo/failure_h-e1_run1"),
        "{out}"
    );

    let (records, _) = load_dir(&new.join("memory"));
    assert_eq!(records.len(), 3);
    let copy = by_id(&records, "prior/from-demo/failure_h-e1_run1");
    let p = copy.provenance.as_ref().expect("provenance");
    assert_eq!(Path::new(&p.source_run), demo);
    assert_eq!(
        (p.source_name.as_str(), p.original_id.as_str()),
        ("demo", "failure_h-e1_run1")
    );
    assert!(
        chrono::DateTime::parse_from_rfc3339(&p.imported_at).is_ok(),
        "{}",
        p.imported_at
    );
    assert_eq!(
        (copy.kind.as_str(), copy.hypothesis.as_deref()),
        ("failure", Some("h-e1"))
    );
    // The fixes of the causes the critic believed (0.72, 0.2), not of the one it rejected.
    assert_eq!(copy.lessons.len(), 2);
    assert!(
        !copy.body.contains("youra-key"),
        "the source engine's key stays behind"
    );
    let own = by_id(&records, "failure_h-e1_run1");
    assert!(own.provenance.is_none() && own.lessons == ["mine"]);
    assert!(
        by_id(&records, "prior/from-demo/failure_h-m1_run1")
            .provenance
            .is_some()
    );

    // The next debate: the run's own record where it was, the copies under their heading.
    let prompt = debate_prompt(&new);
    assert_eq!(
        section(&prompt, "What failed before in this run"),
        "- failure h-e1: mine"
    );
    let earlier = section(&prompt, "Lessons from earlier runs");
    let lines: Vec<&str> = earlier.lines().collect();
    assert_eq!(
        lines[0],
        // The third cause's fix (0.1: rejected by the critic) is no lesson.
        "- from run demo (failure_h-e1_run1), failure h-e1: standardize the three features on each training fold before computing centroids; add body mass to the claim",
    );
    assert!(
        lines[1].starts_with("- from run demo (failure_h-m1_run1), failure h-m1: reframe the claim: flipper length adds information beyond the bills"),
        "{earlier}"
    );
    assert_eq!(lines.len(), 2, "{earlier}");

    // Again: recognised, nothing written twice.
    let o = import(&demo, &["failure_h-e1_run1"], &new);
    assert!(o.status.success());
    assert!(
        text(&o)
            .0
            .contains("already imported as prior/from-demo/failure_h-e1_run1")
    );
    assert_eq!(load_dir(&new.join("memory")).0.len(), 3);
}

#[test]
fn refusals_say_what_exists_and_what_to_do() {
    let tmp = tempfile::tempdir().unwrap();
    let demo = demo_run(tmp.path());
    let new = init(&tmp.path().join("new"));
    let o = import(&demo, &["failure_h-x_run9"], &new);
    let err = text(&o).1;
    assert_eq!(o.status.code(), Some(1));
    assert!(err.contains("no memory record `failure_h-x_run9`"), "{err}");
    assert!(
        err.contains("failure_h-e1_run1, failure_h-e1_run2, failure_h-m1_run1"),
        "{err}"
    );

    let o = import(&demo, &["failure_h-e1_run1"], &tmp.path().join("nowhere"));
    let err = text(&o).1;
    // No run there: the exit status every command gives a folder without one (`cli::NO_RUN`).
    assert_eq!(o.status.code(), Some(2));
    assert!(
        err.contains("is not a run") && err.contains("youra init"),
        "{err}"
    );

    // A link planted where the prior goes: refused, nothing written through it.
    let elsewhere = tmp.path().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::fs::create_dir_all(new.join("memory")).unwrap();
    std::os::unix::fs::symlink(&elsewhere, new.join("memory/prior")).unwrap();
    let o = import(&demo, &["failure_h-e1_run1"], &new);
    let err = text(&o).1;
    assert_eq!(o.status.code(), Some(1));
    assert!(err.contains("is a symlink"), "{err}");
    assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0);
}

#[test]
fn youra_corpus_records_are_imported_with_their_subfolders_and_plain_lessons() {
    let Some(corpus) = shared_fixtures() else {
        return;
    };
    let source = corpus.join(DATA_PROBLEMS);
    let tmp = tempfile::tempdir().unwrap();
    let new = init(&tmp.path().join("new"));
    let o = import(
        &source,
        &["failures/h-m1_must_work_fail", "failure_h-e1_run2.md"],
        &new,
    );
    assert!(o.status.success(), "{:?}", text(&o));
    let (records, _) = load_dir(&new.join("memory"));
    let ids: Vec<&str> = records.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "prior/from-2026_data_problems/failure_h-e1_run2",
            "prior/from-2026_data_problems/failures/h-m1_must_work_fail",
        ]
    );
    let h_m1 = &records[1];
    assert_eq!(
        (h_m1.kind.as_str(), h_m1.hypothesis.as_deref()),
        ("failure", Some("h-m1"))
    );
    assert_eq!(h_m1.category.as_deref(), Some("MUST_WORK_FAIL"));
    let p = h_m1.provenance.as_ref().unwrap();
    assert!(
        p.source_run
            .ends_with("docs/youra_research/2026_data_problems"),
        "{}",
        p.source_run
    );
    assert_eq!(p.original_id, "failures/h-m1_must_work_fail");
    let prompt = debate_prompt(&new);
    let earlier = section(&prompt, "Lessons from earlier runs");
    assert!(
        earlier.contains(
            "(failures/h-m1_must_work_fail), failure h-m1: Validate preliminary evidence direction"
        ),
        "{earlier}"
    );
    // The record writes `**Lesson:** Always normalize…`: the prompt gets the words only.
    assert!(
        earlier.contains(
            "DateTime Handling in Python APIs — Lesson: Always normalize datetime objects"
        ),
        "{earlier}"
    );
    assert!(!earlier.contains("**"), "{earlier}");
    assert_eq!(section(&prompt, "What failed before in this run"), "(none)");
}
