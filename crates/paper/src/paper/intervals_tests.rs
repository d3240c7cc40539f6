//! The intervals reach the paper only where there is evidence, once, where Results states a
//! gated value, and as literal text whatever the metric is called.

use super::*;
use crate::vsa::enums::{GateResult, HypothesisStatus};
use crate::vsa::model::{Gate, SubHypothesis};
use proptest::prelude::*;
use pulldown_cmark::{Event, Options, Parser};

fn ev(metric: &str, mean: f64, lo: f64, hi: f64, verdict: GateResult) -> GateEvidence {
    GateEvidence {
        metric: Some(metric.into()),
        op: Some(crate::vocab::Op::Ge),
        threshold: Some(0.92),
        verdict: Some(verdict),
        n: Some(5),
        repeats: Some(5),
        mean: Some(mean),
        sd: Some(0.006),
        lo: Some(lo),
        hi: Some(hi),
        confidence: Some(0.95),
        method: Some("t".into()),
        ..GateEvidence::default()
    }
}

fn vsa(gates: Vec<(&str, Vec<GateEvidence>)>) -> Vsa {
    Vsa {
        sub_hypotheses: gates
            .into_iter()
            .map(|(id, evidence)| SubHypothesis {
                id: id.into(),
                kind: None,
                statement: None,
                status: HypothesisStatus::InProgress,
                gate: Gate {
                    evidence,
                    ..Gate::default()
                },
                prerequisites: Vec::new(),
                post_hoc: false,
                confirmation_seeds: None,
                line: 1,
            })
            .collect(),
        ..Vsa::default()
    }
}

const PAPER: &str = "# Penguins\n\n## Method\n\nNearest centroid.\n\n## Results\n\n| Sub-hypothesis | Measured |\n|---|---|\n| h-e1 | 0.9356 |\n| h-e10 | 0.9356 |\n\nh-e1 reached an accuracy of 0.9356 on 342 birds; 0.93 is rounder.\n\n```\nh-e1 0.9356\n```\n\n## Discussion\n\nh-e1 at 0.9356 holds.\n";

#[test]
fn a_paper_without_evidence_is_unchanged_byte_for_byte() {
    let none = vsa(vec![("h-e1", Vec::new())]);
    for md in [PAPER, "", "no heading", "# T\n\n## Results\n\n0.9356\n"] {
        assert_eq!(with_intervals(md, &none), md);
    }
}

#[test]
fn results_states_each_gated_value_with_its_interval_and_ends_with_the_table() {
    let v = vsa(vec![(
        "h-e1",
        vec![ev(
            "accuracy",
            0.93561,
            0.928,
            0.944,
            GateResult::Inconclusive,
        )],
    )]);
    let out = with_intervals(PAPER, &v);
    let ann = "0.9356 \\[0.9280, 0.9440\\] (95% CI, n 5, t)";
    // The row and the sentence naming h-e1, not h-e10's row, not 0.93, not the code block,
    // not the Discussion (outside Results).
    assert!(out.contains(&format!("| h-e1 | {ann} |")), "{out}");
    assert!(out.contains("| h-e10 | 0.9356 |"), "{out}");
    assert!(
        out.contains(&format!("accuracy of {ann} on 342 birds; 0.93 is rounder")),
        "{out}"
    );
    assert!(out.contains("```\nh-e1 0.9356\n```"), "{out}");
    assert!(out.contains("h-e1 at 0.9356 holds."), "{out}");
    // The table closes Results, before the Discussion.
    let table = out.find(TABLE_LEAD).expect("the table");
    assert!(table < out.find("## Discussion").unwrap());
    assert!(table > out.find("```\nh-e1").unwrap());
    assert!(
        out.contains("| h\\-e1 | accuracy | \\>\\= 0\\.92 | 0.936 \\[0.928, 0.944\\] (n 5, 95\\% t) | INCONCLUSIVE |"),
        "{out}"
    );
    // The statistics paragraph opens the Method section.
    let method = out.find("## Method\n\n").unwrap() + "## Method\n\n".len();
    assert!(out[method..].starts_with(STATISTICS_LEAD), "{out}");
    assert!(out.contains("decided on a 95% confidence interval of n repeats"));
    assert!(
        out.contains(
            "otherwise INCONCLUSIVE; top-up looks at a stricter confidence (decision 0033)"
        )
    );
    // A second pass adds nothing.
    assert_eq!(with_intervals(&out, &v), out);
}

#[test]
fn without_results_or_method_the_table_and_paragraph_still_find_a_place() {
    let v = vsa(vec![(
        "h-e1",
        vec![ev("accuracy", 0.93, 0.92, 0.94, GateResult::Pass)],
    )]);
    // (paper, where the table goes: before this text, or at the end when None)
    let table: &[(&str, Option<&str>)] = &[
        (
            "# T\n\nIntro.\n\n## Discussion\n\nD.\n",
            Some("## Discussion"),
        ),
        ("# T\n\nIntro.\n", None),
        (
            "# T\n\n## 4 Results\n\nR.\n\n## 5 Conclusion\n\nC.\n",
            Some("## 5 Conclusion"),
        ),
    ];
    for (md, before) in table {
        let out = with_intervals(md, &v);
        let at = out.find(TABLE_LEAD).expect("the table");
        match before {
            Some(h) => assert!(at < out.find(h).unwrap(), "{out}"),
            None => assert!(out.contains("## Results: gate intervals"), "{out}"),
        }
        // No Method section: the paragraph follows the title.
        assert!(
            out.starts_with(&format!("# T\n\n{STATISTICS_LEAD}")),
            "{out}"
        );
        assert_eq!(out.matches(TABLE_LEAD).count(), 1);
    }
}

/// The text of `md` as a Markdown reader sees it (what the Typst and TeX emitters get).
fn read_back(md: &str) -> String {
    Parser::new_ext(md, Options::ENABLE_TABLES)
        .filter_map(|e| match e {
            Event::Text(t) | Event::Code(t) => Some(t.to_string()),
            Event::SoftBreak | Event::HardBreak => Some(" ".into()),
            _ => None,
        })
        .collect()
}

#[test]
fn a_hostile_metric_name_is_literal_text_in_the_table() {
    let evil = "acc|<b>*x*</b>](javascript:1)\\{#}`$\n# H";
    let v = vsa(vec![(
        "h-e1",
        vec![ev(evil, 0.93, 0.92, 0.94, GateResult::Pass)],
    )]);
    let out = with_intervals("# T\n\n## Results\n\nR.\n", &v);
    let row = out
        .lines()
        .find(|l| l.starts_with("| h\\-e1"))
        .expect("the row");
    assert_eq!(row.matches(" | ").count(), 4, "five cells: {row}");
    let text = read_back(&out);
    assert!(
        text.contains("acc|<b>*x*</b>](javascript:1)\\{#}`$ # H"),
        "{text}"
    );
    assert!(!out.lines().any(|l| l.starts_with("# H")), "{out}");
}

proptest! {
    #[test]
    fn md_text_reads_back_as_the_same_text(s in "\\PC{0,40}") {
        let md = md_text(&s);
        let want: String = s
            .chars()
            .map(|c| if matches!(c, '\n' | '\r' | '\t') { ' ' } else { c })
            .filter(|c| !c.is_control())
            .collect();
        // Inside a paragraph that starts with a letter (no block-level reading of a lead mark).
        let got = read_back(&format!("x {md}"));
        let want = format!("x {want}");
        prop_assert_eq!(got.trim_end(), want.trim_end());
    }
}
