//! Conditional breakpoints over a replay of the demo (issue 42, item 2): each condition
//! stops the run where it should and nowhere else, a one-shot one is used up by its stop,
//! `youra demo --step` then `c` runs to the end (one stop), `[breakpoints]` in youra.toml
//! sets them once, and `youra steer RUN break …` refuses what is not a breakpoint.

use crate::common;

use std::path::Path;

use youra::engine::RunEnd;
use youra::rundir::Layout;
use youra::steer::{Request, Verb};
use youra::vsa::pause::PauseCause;
use youra::vsa::store::Store;

fn store(dir: &Path) -> Store {
    Store::new(dir.join("verification_state.yaml"))
}

fn steer(dir: &Path, verb: Verb, target: Option<&str>) {
    youra::steer::apply(
        &store(dir),
        &Request::new(verb, target, "test"),
        Layout::Native,
    )
    .unwrap_or_else(|e| panic!("{verb} {target:?}: {e}"));
}

fn demo(dir: &Path, step: bool) {
    youra::cli::engine_cmd::demo_dir(
        Some(dir.to_path_buf()),
        youra::cli::engine_cmd::DemoOptions {
            headless: true,
            step,
            ..Default::default()
        },
    )
    .expect("the demo run is made");
}

/// Drive the run to its end, resuming at each pause (an escalation held for the researcher
/// is answered as the waiting policy would: reject). Each stop as "cause @ where".
fn stops(dir: &Path) -> Vec<String> {
    let mut seen = Vec::new();
    for _ in 0..40 {
        match common::script::run_engine(dir, true) {
            RunEnd::Completed => return seen,
            RunEnd::Paused => {}
            other => panic!("the demo ended {other:?} after stops {seen:#?}"),
        }
        let snap = store(dir).load().unwrap();
        let wf = &snap.vsa.workflow;
        let at = wf.current_phase.clone().unwrap_or_default();
        if let Some(esc) = &wf.escalation {
            seen.push(format!(
                "escalation {} @ {at}",
                esc.hypothesis.as_deref().unwrap_or("?")
            ));
            steer(dir, Verb::Reject, None);
            continue;
        }
        let cause = PauseCause::of(&snap.vsa).expect("paused with a cause");
        seen.push(format!("{} @ {at}", cause.describe()));
        steer(dir, Verb::Resume, None);
    }
    panic!("the demo never ended: {seen:#?}")
}

fn breakpoints(dir: &Path) -> Vec<String> {
    store(dir).load().unwrap().vsa.workflow.breakpoints.clone()
}

#[test]
fn each_condition_stops_where_it_should_and_nowhere_else() {
    // (breakpoint as typed, how many stops, a fragment each stop's line must hold, the
    // hypotheses the stops name in order where they name one). The demo, headless: h-e1
    // fails twice then passes (4 Coding & Validation steps), h-m1 fails twice (an
    // escalation between), h-c1 passes (2 steps); no gate is INCONCLUSIVE and no
    // experiment breaks the sandbox.
    let table: &[(&str, usize, &str, &[&str])] = &[
        ("", 0, "", &[]),
        (
            "after gate FAIL",
            4,
            "after a gate's FAIL",
            &["h-e1", "h-e1", "h-m1", "h-m1"],
        ),
        (
            "once after gate FAIL",
            1,
            "after a gate's FAIL (once)",
            &["h-e1"],
        ),
        ("after gate INCONCLUSIVE", 0, "", &[]),
        ("after gate any", 8, "after any gate verdict", &[]),
        ("budget 20%", 1, "when 20% of the plan budget is spent", &[]),
        (
            "new branch",
            3,
            "before the first experiment of a new plan branch",
            &["h-e1", "h-m1", "h-c1"],
        ),
        ("escalation", 1, "escalation h-m1", &["h-m1"]),
        ("sandbox violation", 0, "", &[]),
        (
            "once Coding & Validation",
            1,
            "breakpoint before Coding & Validation",
            &[],
        ),
    ];
    std::thread::scope(|s| {
        let rows: Vec<_> = table
            .iter()
            .map(|row| {
                s.spawn(move || {
                    let tmp = tempfile::tempdir().unwrap();
                    let dir = tmp.path().join("demo");
                    demo(&dir, false);
                    if !row.0.is_empty() {
                        steer(&dir, Verb::Breakpoint, Some(row.0));
                    }
                    let got = stops(&dir);
                    (row, got, breakpoints(&dir))
                })
            })
            .collect();
        for r in rows {
            let ((typed, n, fragment, hyps), got, left) = r.join().expect("row ran");
            assert_eq!(got.len(), *n, "{typed:?}: {got:#?}");
            for line in &got {
                assert!(line.contains(fragment), "{typed:?}: {line}");
            }
            let named: Vec<&str> = got
                .iter()
                .filter_map(|l| ["h-e1", "h-m1", "h-c1"].into_iter().find(|h| l.contains(h)))
                .collect();
            if !hyps.is_empty() {
                assert_eq!(named, *hyps, "{typed:?}: {got:#?}");
            }
            // A one-shot breakpoint is used up by its stop; a persistent one stays set.
            let once = typed.starts_with("once");
            assert_eq!(
                left.is_empty(),
                once || typed.is_empty(),
                "{typed:?}: {left:?}"
            );
        }
    });
}

#[test]
fn demo_step_stops_once_and_c_runs_to_the_end() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("demo");
    demo(&dir, true);
    assert_eq!(breakpoints(&dir), ["once Phase 4"]);
    let got = stops(&dir);
    assert_eq!(
        got,
        ["breakpoint before Coding & Validation @ Phase 3"],
        "one stop, before the first experiment"
    );
    assert!(breakpoints(&dir).is_empty(), "used up by its stop");
}

#[test]
fn config_breakpoints_are_set_once_and_a_cleared_one_stays_cleared() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("demo");
    demo(&dir, false);
    let toml = dir.join("youra.toml");
    let mut text = std::fs::read_to_string(&toml).unwrap();
    text.push_str("\n[breakpoints]\nset = [\"once new branch\", \"sandbox violation\"]\n");
    std::fs::write(&toml, text).unwrap();
    let got = stops(&dir);
    assert_eq!(got.len(), 1, "{got:#?}");
    assert!(got[0].contains("new plan branch (once)"), "{got:#?}");
    // The persistent one stays; the engine does not add the used one again on a restart.
    assert_eq!(breakpoints(&dir), ["sandbox violation"]);
    assert_eq!(common::script::run_engine(&dir, true), RunEnd::Completed);
    assert_eq!(breakpoints(&dir), ["sandbox violation"], "not set again");
    let mut off = Request::new(Verb::Breakpoint, Some("sandbox violation"), "test");
    off.off = true;
    let e = youra::steer::apply(&store(&dir), &off, Layout::Native);
    assert!(e.is_ok(), "{e:?}");
    assert_eq!(common::script::run_engine(&dir, true), RunEnd::Completed);
    assert!(breakpoints(&dir).is_empty());
}

#[test]
fn steer_break_sets_conditions_and_refuses_what_is_not_one() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("demo");
    demo(&dir, false);
    let d = dir.to_str().unwrap();
    let out = common::youra(&["steer", d, "break", "once gate fail", "--reason", "see it"]);
    let (stdout, stderr) = common::text(&out);
    assert!(out.status.success(), "{stdout}{stderr}");
    assert!(
        stdout.contains("breakpoint set after a gate's FAIL (once)"),
        "{stdout}"
    );
    assert_eq!(breakpoints(&dir), ["once after gate FAIL"]);
    // The same condition again is refused, persistent or not.
    let again = common::youra(&["steer", d, "break", "after gate FAIL", "--reason", "x"]);
    assert!(!again.status.success());
    for bad in ["gate PASS", "budget 0%", "lunch"] {
        let out = common::youra(&["steer", d, "break", bad, "--reason", "x"]);
        let (stdout, stderr) = common::text(&out);
        assert_eq!(out.status.code(), Some(2), "{bad}: {stdout}{stderr}");
        assert!(stderr.contains(bad), "{bad}: {stderr}");
    }
    assert_eq!(
        breakpoints(&dir),
        ["once after gate FAIL"],
        "nothing else written"
    );
}
