//! A comparison as text: one aligned row per step, `»` at the first divergence and `≠` at
//! every other row that differs, both runs' gate result and route, and what differs; then
//! how each run ended and a one-line verdict. And the same as one JSON object.

use super::diff::{Comparison, Row};

/// Widest a run's column grows before its text is cut with `…`.
const CELL: usize = 48;

fn clip(s: &str, width: usize) -> String {
    if s.chars().count() <= width {
        return s.to_string();
    }
    let mut out: String = s.chars().take(width.saturating_sub(1)).collect();
    out.push('…');
    out
}

fn cell(o: Option<&super::Outcome>) -> String {
    o.map_or("—".into(), super::Outcome::brief)
}

fn mark(c: &Comparison, i: usize, r: &Row) -> &'static str {
    if c.first_divergence == Some(i) {
        "»"
    } else if r.diverges() {
        "≠"
    } else {
        " "
    }
}

fn pad(s: &str, width: usize) -> String {
    let n = s.chars().count();
    format!("{s}{}", " ".repeat(width.saturating_sub(n)))
}

/// The table, with `a` and `b` naming the runs in its header.
pub fn render(c: &Comparison, a: &str, b: &str) -> String {
    let rows: Vec<[String; 4]> = c
        .rows
        .iter()
        .map(|r| {
            let differs: Vec<&str> = r.differs.iter().map(|d| d.as_str()).collect();
            [
                r.key.describe(),
                clip(&cell(r.a.as_ref()), CELL),
                clip(&cell(r.b.as_ref()), CELL),
                differs.join(", "),
            ]
        })
        .collect();
    let head = [
        "step".to_string(),
        "a".to_string(),
        "b".to_string(),
        "differs".to_string(),
    ];
    let width = |i: usize| {
        rows.iter()
            .chain(std::iter::once(&head))
            .map(|r| r[i].chars().count())
            .max()
            .unwrap_or(0)
    };
    let w = [width(0), width(1), width(2)];
    let line = |m: &str, r: &[String; 4]| {
        format!(
            "{m} {}  {}  {}  {}",
            pad(&r[0], w[0]),
            pad(&r[1], w[1]),
            pad(&r[2], w[2]),
            r[3]
        )
        .trim_end()
        .to_string()
    };
    let mut out = vec![
        format!("a: {a}"),
        format!("b: {b}"),
        String::new(),
        line(" ", &head),
    ];
    for (i, (r, cells)) in c.rows.iter().zip(&rows).enumerate() {
        out.push(line(mark(c, i, r), cells));
    }
    out.push(String::new());
    out.push(format!("end: a {} | b {}", c.end.0, c.end.1));
    out.push(verdict(c));
    out.join("\n") + "\n"
}

/// "first divergence: Coding & Validation h-m1 (gate result, route)", or that they agree.
pub fn verdict(c: &Comparison) -> String {
    match c.first_divergence.map(|i| &c.rows[i]) {
        Some(r) => {
            let what: Vec<&str> = r.differs.iter().map(|d| d.as_str()).collect();
            format!(
                "first divergence: {} ({})",
                r.key.describe(),
                what.join(", ")
            )
        }
        None if c.diverged() => "the runs took the same steps but ended differently".into(),
        None => "the runs agree at every step".into(),
    }
}

/// `youra compare --json`: the runs, whether they diverged, the first divergence's key,
/// every row (its key, both outcomes, what differs) and how each run ended.
pub fn json(c: &Comparison, a: &str, b: &str) -> serde_json::Value {
    serde_json::json!({
        "a": a,
        "b": b,
        "diverged": c.diverged(),
        "first_divergence": c.first_divergence.map(|i| &c.rows[i].key),
        "rows": c.rows,
        "end": {"a": c.end.0, "b": c.end.1},
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::trail::{Outcome, StepKey, Trail};
    use crate::stage::Stage;
    use crate::vsa::enums::{PhaseStatus, WorkflowStatus};

    #[test]
    fn the_table_aligns_its_columns_and_marks_the_first_divergence() {
        let k = |s: Stage| StepKey {
            stage: s,
            hypothesis: None,
            attempt: 1,
        };
        let o = |s: PhaseStatus| Outcome {
            status: Some(s),
            ..Outcome::default()
        };
        let t = |steps| Trail {
            steps,
            status: Some(WorkflowStatus::Completed),
            stop_reason: None,
        };
        let a = t(vec![
            (k(Stage::ProblemScoping), o(PhaseStatus::Completed)),
            (k(Stage::LiteratureGrounding), o(PhaseStatus::Completed)),
        ]);
        let b = t(vec![
            (k(Stage::ProblemScoping), o(PhaseStatus::Completed)),
            (k(Stage::LiteratureGrounding), o(PhaseStatus::Skipped)),
        ]);
        let text = render(&crate::compare::compare(&a, &b), "runs/a", "runs/b");
        assert_eq!(
            text,
            "a: runs/a\nb: runs/b\n\n  step                  a          b          differs\n  Problem Scoping       COMPLETED  COMPLETED\n» Literature Grounding  COMPLETED  SKIPPED    status\n\nend: a COMPLETED | b COMPLETED\nfirst divergence: Literature Grounding (status)\n"
        );
    }
}
