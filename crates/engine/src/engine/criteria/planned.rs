//! The gate's criteria as planned, and the rule that holds a design to them. Verification
//! Planning states each sub-hypothesis's criterion as text (`gate.criterion`, e.g.
//! `accuracy >= 0.92`); Experiment Design then writes the machine-readable block the gate is
//! judged by. A design model that lowers the bar (`accuracy >= 0.5`), flips the comparison,
//! or renames or drops a planned metric would let a miss pass as VALIDATED, so such a design
//! is refused; a stricter one is accepted and named, so the history says the bar moved.

use super::{Criterion, Op};

/// The criteria a planned criterion text states: every `<metric> <op> <number>` in it
/// (`accuracy >= 0.92 and gain <= 0.02`, `min island accuracy ≥ 0.85`, `share > 50%`).
/// Prose with no comparison states none, and then there is nothing to hold a design to.
pub fn parse(text: &str) -> Vec<Criterion> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some((at, len, op)) = next_op(&text[from..]) {
        let (at, end) = (from + at, from + at + len);
        from = end;
        let metric = metric_before(&text[..at]);
        let Some(value) = number_after(&text[end..]) else {
            continue;
        };
        if !metric.is_empty() {
            out.push(Criterion {
                metric,
                op,
                value,
                baseline: None,
            });
        }
    }
    out
}

/// A metric's name as compared: lower case, every run of other characters one `_`
/// (`Min island accuracy` and `min_island_accuracy` are the same metric).
pub fn normalized(metric: &str) -> String {
    let mut out = String::new();
    for c in metric.trim().chars() {
        if c.is_alphanumeric() {
            out.extend(c.to_lowercase());
        } else if !out.is_empty() && !out.ends_with('_') {
            out.push('_');
        }
    }
    out.trim_end_matches('_').to_string()
}

/// What a design's criteria mean against the plan's.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Conformance {
    /// Why the design cannot be the gate: one line per weakened, flipped, renamed or
    /// dropped planned criterion. Empty when the design keeps the plan.
    pub refused: Vec<String>,
    /// Where the design is stricter than the plan (a higher bar, an extra criterion).
    pub stricter: Vec<String>,
}

/// Holds `designed` to `planned`. Every planned criterion needs a designed one on the same
/// metric that is at least as strict; the gate requires all its criteria, so extra ones can
/// only make it stricter.
pub(crate) fn conform(planned: &[Criterion], designed: &[Criterion]) -> Conformance {
    let mut c = Conformance::default();
    for p in planned {
        let metric = normalized(&p.metric);
        let same: Vec<&Criterion> = designed
            .iter()
            .filter(|d| normalized(&d.metric) == metric)
            .collect();
        if same.is_empty() {
            let unplanned: Vec<String> = designed
                .iter()
                .filter(|d| !planned.iter().any(|q| same_metric(q, d)))
                .map(|d| format!("`{d}`"))
                .collect();
            c.refused.push(if unplanned.is_empty() {
                format!("the planned criterion `{p}` is dropped")
            } else {
                format!(
                    "the planned criterion `{p}` is dropped or renamed (the design has {} instead); keep the metric name `{}`",
                    unplanned.join(", "),
                    p.metric
                )
            });
            continue;
        }
        if let Some(d) = same.iter().find(|d| at_least_as_strict(d, p)) {
            if d.op != p.op || d.value != p.value {
                c.stricter
                    .push(format!("`{d}` is stricter than the planned `{p}`"));
            }
            continue;
        }
        for d in same {
            c.refused.push(if direction(d.op) != direction(p.op) {
                format!("`{d}` flips the planned `{p}`")
            } else {
                format!("`{d}` is weaker than the planned `{p}`")
            });
        }
    }
    for d in designed {
        // A refused design's unplanned metric is already named as the likely rename.
        if c.refused.is_empty() && !planned.is_empty() && !planned.iter().any(|p| same_metric(p, d))
        {
            c.stricter
                .push(format!("`{d}` is added to the planned criteria"));
        }
    }
    c
}

fn same_metric(a: &Criterion, b: &Criterion) -> bool {
    normalized(&a.metric) == normalized(&b.metric)
}

/// +1 for a lower bound (`>=`, `>`), -1 for an upper bound, 0 for `==`.
fn direction(op: Op) -> i8 {
    match op {
        Op::Ge | Op::Gt => 1,
        Op::Le | Op::Lt => -1,
        Op::Eq => 0,
    }
}

/// Whether every value that meets `d` also meets `p`.
fn at_least_as_strict(d: &Criterion, p: &Criterion) -> bool {
    let (w, v) = (d.value, p.value);
    match (p.op, d.op) {
        (Op::Ge, Op::Ge | Op::Gt | Op::Eq) => w >= v,
        (Op::Gt, Op::Gt) => w >= v,
        (Op::Gt, Op::Ge | Op::Eq) => w > v,
        (Op::Le, Op::Le | Op::Lt | Op::Eq) => w <= v,
        (Op::Lt, Op::Lt) => w <= v,
        (Op::Lt, Op::Le | Op::Eq) => w < v,
        (Op::Eq, Op::Eq) => w == v,
        _ => false,
    }
}

/// The first comparison in `text`: (byte offset, length, op). Two-character forms first; a
/// lone `=` is not one (`k=5 folds` is a setting, not a criterion).
fn next_op(text: &str) -> Option<(usize, usize, Op)> {
    const FORMS: [(&str, Op); 7] = [
        (">=", Op::Ge),
        ("<=", Op::Le),
        ("==", Op::Eq),
        ("≥", Op::Ge),
        ("≤", Op::Le),
        (">", Op::Gt),
        ("<", Op::Lt),
    ];
    text.char_indices().find_map(|(i, _)| {
        FORMS
            .iter()
            .find(|(f, _)| text[i..].starts_with(f))
            .map(|(f, op)| (i, f.len(), *op))
    })
}

/// The metric named just before a comparison: the words back to a clause boundary
/// (punctuation, a sentence's full stop, `and`, `or`, `with`, …), a number or another
/// comparison. A `.` inside a name (`top1.acc`) is part of it.
fn metric_before(text: &str) -> String {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let cut = chars
        .iter()
        .enumerate()
        .rev()
        .find(|(k, (_, c))| {
            matches!(c, ',' | ';' | ':' | '(' | ')' | '\n' | '[' | ']')
                || (*c == '.' && chars.get(k + 1).is_none_or(|(_, n)| n.is_whitespace()))
        })
        .map_or(0, |(_, (i, c))| i + c.len_utf8());
    let words: Vec<&str> = text[cut..].split_whitespace().collect();
    let stop = |w: &str| {
        matches!(
            w.to_ascii_lowercase().as_str(),
            "and" | "or" | "with" | "where" | "if" | "when" | "while" | "&&" | "||"
        ) || w.contains(['<', '>', '=', '≥', '≤'])
            || w.trim_end_matches('%').parse::<f64>().is_ok()
    };
    let start = words.iter().rposition(|w| stop(w)).map_or(0, |i| i + 1);
    words[start..].join(" ")
}

/// The number that starts `text` (after blanks); a trailing `%` divides by 100.
fn number_after(text: &str) -> Option<f64> {
    let t = text.trim_start();
    let len = t
        .char_indices()
        .take_while(|(i, c)| c.is_ascii_digit() || *c == '.' || (*i == 0 && matches!(c, '-' | '+')))
        .map(|(i, c)| i + c.len_utf8())
        .last()?;
    let value: f64 = t[..len].trim_end_matches('.').parse().ok()?;
    if !value.is_finite() {
        return None;
    }
    Some(if t[len..].starts_with('%') {
        value / 100.0
    } else {
        value
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(metric: &str, op: Op, value: f64) -> Criterion {
        Criterion::new(metric, op, value)
    }

    #[test]
    fn planned_text_states_its_criteria() {
        let cases: &[(&str, Vec<Criterion>)] = &[
            ("accuracy >= 0.92", vec![c("accuracy", Op::Ge, 0.92)]),
            (
                "accuracy ≥ 0.92 and gain <= 0.02",
                vec![c("accuracy", Op::Ge, 0.92), c("gain", Op::Le, 0.02)],
            ),
            (
                "min island accuracy >= 0.85",
                vec![c("min island accuracy", Op::Ge, 0.85)],
            ),
            ("Share > 50% of rows", vec![c("Share", Op::Gt, 0.5)]),
            ("loss < -1.5", vec![c("loss", Op::Lt, -1.5)]),
            (
                "k=5 folds. top1.acc >= 0.9 (held out); 0.8 <= f1 <= 0.95",
                vec![c("top1.acc", Op::Ge, 0.9), c("f1", Op::Le, 0.95)],
            ),
            ("c", vec![]),
            ("beats the baseline", vec![]),
            ("accuracy >= high", vec![]),
        ];
        for (text, want) in cases {
            assert_eq!(&parse(text), want, "{text}");
        }
        assert_eq!(normalized(" Min island-accuracy "), "min_island_accuracy");
    }

    #[test]
    fn a_design_may_tighten_the_plan_never_loosen_it() {
        let plan = [c("accuracy", Op::Ge, 0.92), c("gain", Op::Le, 0.02)];
        let keep = [c("accuracy", Op::Ge, 0.92), c("gain", Op::Le, 0.02)];
        // (designed, refused lines, stricter lines, a word the first refusal holds)
        let table: Vec<(Vec<Criterion>, usize, usize, &str)> = vec![
            (keep.to_vec(), 0, 0, ""),
            (
                vec![c("accuracy", Op::Ge, 0.5), keep[1].clone()],
                1,
                0,
                "weaker",
            ),
            (
                vec![c("accuracy", Op::Gt, 0.91), keep[1].clone()],
                1,
                0,
                "weaker",
            ),
            (
                vec![keep[0].clone(), c("gain", Op::Le, 0.05)],
                1,
                0,
                "weaker",
            ),
            (
                vec![c("accuracy", Op::Le, 0.92), keep[1].clone()],
                1,
                0,
                "flips",
            ),
            (
                vec![keep[0].clone(), c("gain", Op::Ge, 0.02)],
                1,
                0,
                "flips",
            ),
            (
                vec![c("cv_accuracy", Op::Ge, 0.92), keep[1].clone()],
                1,
                0,
                "renamed",
            ),
            (vec![keep[0].clone()], 1, 0, "dropped"),
            (vec![c("accuracy", Op::Ge, 0.95), keep[1].clone()], 0, 1, ""),
            (
                vec![c("accuracy", Op::Gt, 0.92), c("gain", Op::Lt, 0.01)],
                0,
                2,
                "",
            ),
            (vec![c("Accuracy", Op::Eq, 0.93), keep[1].clone()], 0, 1, ""),
            (
                vec![
                    keep[0].clone(),
                    keep[1].clone(),
                    c("runtime_s", Op::Le, 60.0),
                ],
                0,
                1,
                "",
            ),
            // A weak duplicate beside a kept one does not loosen an all-of gate.
            (
                vec![c("accuracy", Op::Ge, 0.5), keep[0].clone(), keep[1].clone()],
                0,
                0,
                "",
            ),
        ];
        for (designed, refused, stricter, word) in table {
            let got = conform(&plan, &designed);
            assert_eq!(got.refused.len(), refused, "{designed:?}: {got:?}");
            assert_eq!(got.stricter.len(), stricter, "{designed:?}: {got:?}");
            if refused > 0 {
                assert!(got.refused[0].contains(word), "{designed:?}: {got:?}");
            }
        }
        let weak = conform(&plan, &[c("accuracy", Op::Ge, 0.5), keep[1].clone()]);
        assert_eq!(
            weak.refused,
            ["`accuracy >= 0.5` is weaker than the planned `accuracy >= 0.92`"]
        );
        let strict = conform(&[c("x", Op::Gt, 1.0)], &[c("x", Op::Ge, 1.0)]);
        assert_eq!(strict.refused.len(), 1, "x >= 1 admits 1, x > 1 does not");
        assert_eq!(
            conform(&[], &keep),
            Conformance::default(),
            "nothing planned"
        );
    }
}
