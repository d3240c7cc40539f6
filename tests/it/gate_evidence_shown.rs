//! The interval a gate was decided on reaches every place a gate is shown (issue 40 item 2):
//! a real replay runs h-e1's experiment (`tests/fixtures/evidence/split.py`) on five seeds,
//! then five more; `accuracy ≥ 0.93` stays INCONCLUSIVE at `max_repeats = 10` and the run
//! stops. Then `youra status`, `youra report html` and the published paper (`paper.typ`,
//! `paper.tex`, the PDF read back with pdftotext) each carry h-e1's verdict and its interval,
//! built from the numbers the VSA holds, and INCONCLUSIVE is never shown as a pass.

use std::path::Path;
use std::process::Command;

use crate::common;
use common::script::{CONSISTENT, Script, brief, code_reply, replay_run, with_data};
use youra::engine::RunEnd;
use youra::vsa::model::GateEvidence;
use youra::vsa::store::Store;

const SPLIT_PY: &str = include_str!("../fixtures/evidence/split.py");

/// A MUST_WORK brief where the plan asks for repeats names a baseline (decision 0035).
fn brief_with_baseline() -> String {
    brief("accuracy", ">=", 0.93).replace(
        "## Procedure",
        "## Baselines\n- `accuracy_majority`: the majority class\n## Procedure",
    )
}

/// Up to h-e1's gate; h-e1's experiment runs twice (five seeds, then five more).
fn script() -> Script {
    let mut s = Script::default();
    s.scoping().literature().debate(6, true).planning();
    s.design_and_plan("h-e1", &brief_with_baseline())
        .reply(
            "executor",
            "coding_validation",
            Some("h-e1"),
            1,
            &code_reply("split.py", SPLIT_PY, &["0.5"]),
        )
        .reply("judge", "coding_validation", Some("h-e1"), 1, CONSISTENT)
        .reply("judge", "coding_validation", Some("h-e1"), 1, CONSISTENT)
        .ok("coding_validation", Some("h-e1"), 1);
    s
}

fn evidence(dir: &Path) -> GateEvidence {
    let s = Store::new(dir.join("verification_state.yaml"))
        .load()
        .unwrap();
    let h = s.vsa.hypothesis("h-e1").expect("h-e1");
    assert_eq!(
        h.gate.result.as_ref().map(|r| r.as_str()),
        Some("INCONCLUSIVE")
    );
    assert_eq!(h.gate.evidence.len(), 1, "{:?}", h.gate);
    h.gate.evidence[0].clone()
}

fn youra(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_youra"))
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("youra runs");
    String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr)
}

fn pdf_text(pdf: &Path) -> String {
    let out = Command::new("pdftotext")
        .args([pdf.to_str().unwrap(), "-"])
        .output()
        .expect("pdftotext (poppler-utils) must be installed");
    String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn status_the_html_report_and_the_paper_show_h_e1s_interval_and_verdict() {
    let (_g, dir) = replay_run(
        &script(),
        "experiment_time_limit_s = 60\n\n[evidence]\nmin_repeats = 5\nmax_repeats = 10\n",
    );
    with_data(&dir);
    // INTERACTIVE: the undecided gate stops the run for the researcher.
    common::evidence::interactive(&dir);
    let end = common::script::run_engine(&dir, true);
    let RunEnd::Stopped(reason) = &end else {
        panic!("expected a stop, got {end:?}")
    };
    assert!(
        reason.contains("h-e1: MUST_WORK gate INCONCLUSIVE"),
        "{reason}"
    );
    let e = evidence(&dir);
    let (mean, lo, hi) = (e.mean.unwrap(), e.lo.unwrap(), e.hi.unwrap());
    let pct = youra::vsa::model::percent(e.confidence.unwrap());
    assert_eq!((e.n, e.method.as_deref()), (Some(10), Some("t")));
    // The card the engine wrote is the one every reader shows.
    let card = e.card.clone().expect("the engine writes the card");
    assert_eq!(card, e.card_line());
    assert_eq!(
        card,
        format!(
            "{mean:.3} ± {:.3}, n 10, {pct} CI {lo:.3}–{hi:.3} vs ≥ 0.93",
            (hi - lo) / 2.0
        )
    );
    let d = dir.to_str().unwrap();

    // youra status: the verdict beside the card, and why the interval did not decide.
    let status = youra(&["status", d]);
    assert!(
        status.contains(&format!("interval: INCONCLUSIVE accuracy: {card}")),
        "{status}"
    );
    assert!(
        status.contains("undecided: accuracy: ") && status.contains("holds the threshold"),
        "{status}"
    );
    let row = status
        .lines()
        .find(|l| l.trim_start().starts_with("h-e1 "))
        .expect("h-e1's row");
    assert!(
        row.contains("INCONCLUSIVE") && !row.contains("PASS"),
        "{row}"
    );

    // The HTML report: the card in the gates section, the verdict in its own class.
    let html_path = dir.join("out.html");
    youra(&["report", "html", d, "-o", html_path.to_str().unwrap()]);
    let html = std::fs::read_to_string(&html_path).expect("report.html written");
    let gates = &html[html.find("id=\"gate-h-e1\"").expect("h-e1's gate")..];
    let gates = &gates[..gates.find("<h3").unwrap_or(gates.len())];
    assert!(
        gates.contains(&format!(
            "<td>accuracy</td><td>{card}</td><td><span class=\"inconclusive\">INCONCLUSIVE</span></td>"
        )),
        "{gates}"
    );
    assert!(
        gates.contains("<span class=\"inconclusive\">INCONCLUSIVE</span></h3>"),
        "the heading's verdict: {gates}"
    );

    // The paper: Results states h-e1's mean with its interval, the table gives n, mean and
    // interval, the Method section says how the gate was decided.
    let md = format!(
        "# Penguins\n\n## Method\n\nA nearest centroid.\n\n## Results\n\nOn h-e1 the accuracy was {mean:.4}.\n\n## Discussion\n\nD.\n"
    );
    let published = youra::paper::publish(&dir, &md).expect("published");
    assert!(published.no_pdf.is_none(), "{:?}", published.no_pdf);
    let stated = format!("{mean:.4} [{lo:.4}, {hi:.4}] ({pct} CI, n 10, t)");
    let cell = format!("{mean:.3} [{lo:.3}, {hi:.3}] (n 10, {pct} t) INCONCLUSIVE");
    let stats = format!(
        "Each gate was decided on a {pct} confidence interval of n repeats computed by youra"
    );
    let pdf = pdf_text(&dir.join("paper/paper.pdf"));
    for want in [
        &stated,
        &cell,
        &stats,
        &"otherwise INCONCLUSIVE".to_string(),
    ] {
        assert!(pdf.contains(want), "the PDF lacks {want:?}: {pdf}");
    }
    let typ = std::fs::read_to_string(dir.join("paper/paper.typ")).unwrap();
    let tex = std::fs::read_to_string(dir.join("paper/paper.tex")).unwrap();
    for (name, text) in [("paper.typ", &typ), ("paper.tex", &tex)] {
        for want in [
            format!("{mean:.4}"),
            format!("{lo:.4}"),
            format!("{hi:.4}"),
            "n 10".into(),
            "INCONCLUSIVE".into(),
        ] {
            assert!(text.contains(&want), "{name} lacks {want:?}");
        }
    }
    assert!(
        !tex.contains('≥'),
        "plain pdflatex's inputenc has no ≥: youra's table writes >="
    );
    assert!(
        tex.contains("{[}"),
        "TeX's bracket escape, not an optional argument"
    );
    // The checked text itself is not rewritten: the intervals are youra's record.
    assert!(!md.contains(&pct));
}

/// The example run with h-m1's gate decided on repeats and a metric named with an ESC
/// sequence, braces and a right-to-left override (`tui_gate_evidence::inconclusive_run`):
/// `youra status` and the HTML report show the name as text and each verdict as its own.
#[test]
fn a_hostile_metric_name_is_text_in_status_and_the_report() {
    let (_g, dir) = crate::tui_gate_evidence::inconclusive_run();
    let d = dir.to_str().unwrap();
    let status = youra(&["status", d]);
    assert!(
        !status.contains('\u{1b}') && !status.contains('\u{202e}'),
        "{status:?}"
    );
    for want in [
        "interval: INCONCLUSIVE spearman_rho_decay_vs_step: -0.710 ± 0.112, n 5, 95% CI -0.822–-0.598 vs ≤ -0.8",
        "interval: PASS acc\\u001b[31m{x}}\\u202e: 0.936 ± 0.008, n 5, 95% CI 0.928–0.944 vs ≥ 0.92",
        "undecided: spearman_rho_decay_vs_step: the 95% interval -0.822–-0.598 holds the threshold of ≤ -0.8",
    ] {
        assert!(status.contains(want), "{want}\n{status}");
    }
    let html_path = dir.join("out.html");
    youra(&["report", "html", d, "-o", html_path.to_str().unwrap()]);
    let html = std::fs::read_to_string(&html_path).expect("report.html written");
    assert!(!html.contains('\u{1b}') && !html.contains('\u{202e}'));
    // The name's controls are dropped by the HTML escape (`webreport::escape::text`).
    assert!(
        html.contains(
            "<td>acc[31m{x}}</td><td>0.936 ± 0.008, n 5, 95% CI 0.928–0.944 vs ≥ 0.92</td><td><span class=\"pass\">PASS</span></td>"
        ),
        "{html}"
    );
    assert!(
        html.contains("vs ≤ -0.8</td><td><span class=\"inconclusive\">INCONCLUSIVE</span></td>")
    );
}
