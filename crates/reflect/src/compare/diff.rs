//! Two trails side by side, pure: their steps aligned by key (stage, sub-hypothesis,
//! attempt) in the order the runs took them, each row marked with what differs (the step
//! is missing on one side, its status, the gate's result, a requirement, a measured value,
//! the route), the first divergence, and whether the runs ended alike.

use serde::Serialize;

use super::trail::{Check, Outcome, StepKey, Trail};

/// What differs in one row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Aspect {
    /// Only the first run (a) took this step.
    OnlyA,
    OnlyB,
    Status,
    GateResult,
    Required,
    Measured,
    Route,
}

impl Aspect {
    pub fn as_str(self) -> &'static str {
        match self {
            Aspect::OnlyA => "only in a",
            Aspect::OnlyB => "only in b",
            Aspect::Status => "status",
            Aspect::GateResult => "gate result",
            Aspect::Required => "required",
            Aspect::Measured => "measured",
            Aspect::Route => "route",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Row {
    pub key: StepKey,
    pub a: Option<Outcome>,
    pub b: Option<Outcome>,
    pub differs: Vec<Aspect>,
}

impl Row {
    pub fn diverges(&self) -> bool {
        !self.differs.is_empty()
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Comparison {
    pub rows: Vec<Row>,
    /// The index of the first row that differs.
    pub first_divergence: Option<usize>,
    /// How each run ended (so far): `COMPLETED`, `STOPPED: <reason>`, `PAUSED`.
    pub end: (String, String),
}

impl Comparison {
    pub fn diverged(&self) -> bool {
        self.first_divergence.is_some() || self.end.0 != self.end.1
    }

    /// The rows of one stage, in order (the Lifecycle pane lists them under it).
    pub fn rows_of(&self, stage: crate::stage::Stage) -> impl Iterator<Item = (usize, &Row)> {
        self.rows
            .iter()
            .enumerate()
            .filter(move |(_, r)| r.key.stage == stage)
    }
}

pub fn compare(a: &Trail, b: &Trail) -> Comparison {
    let rows: Vec<Row> = align(a, b)
        .into_iter()
        .map(|key| {
            let find = |t: &Trail| {
                t.steps
                    .iter()
                    .find(|(k, _)| *k == key)
                    .map(|(_, o)| o.clone())
            };
            let (oa, ob) = (find(a), find(b));
            let differs = differences(oa.as_ref(), ob.as_ref());
            Row {
                key,
                a: oa,
                b: ob,
                differs,
            }
        })
        .collect();
    Comparison {
        first_divergence: rows.iter().position(Row::diverges),
        rows,
        end: (a.end(), b.end()),
    }
}

/// Every key of either trail once: a's order, and each step only b took placed after the
/// step b took before it, past the further attempts only a made of that same
/// sub-hypothesis (a refinement stays beside the attempt it refined).
fn align(a: &Trail, b: &Trail) -> Vec<StepKey> {
    let mut keys: Vec<StepKey> = a.steps.iter().map(|(k, _)| k.clone()).collect();
    let in_b = |k: &StepKey| b.steps.iter().any(|(x, _)| x == k);
    let mut after: Option<usize> = None;
    for (k, _) in &b.steps {
        match keys.iter().position(|x| x == k) {
            Some(i) => after = Some(i),
            None => {
                let mut at = after.map_or(0, |i| i + 1);
                if let Some(prev) = after.map(|i| keys[i].clone()) {
                    while keys.get(at).is_some_and(|x| {
                        !in_b(x) && x.hypothesis.is_some() && x.hypothesis == prev.hypothesis
                    }) {
                        at += 1;
                    }
                }
                keys.insert(at, k.clone());
                after = Some(at);
            }
        }
    }
    keys
}

fn differences(a: Option<&Outcome>, b: Option<&Outcome>) -> Vec<Aspect> {
    let (a, b) = match (a, b) {
        (Some(a), Some(b)) => (a, b),
        (Some(_), None) => return vec![Aspect::OnlyA],
        (None, Some(_)) => return vec![Aspect::OnlyB],
        (None, None) => return Vec::new(),
    };
    let mut out = Vec::new();
    if a.status != b.status {
        out.push(Aspect::Status);
    }
    let result = |o: &Outcome| o.gate.as_ref().and_then(|g| g.result.clone());
    if result(a) != result(b) {
        out.push(Aspect::GateResult);
    }
    let checks = |o: &Outcome| {
        o.gate
            .as_ref()
            .map(|g| g.checks.clone())
            .unwrap_or_default()
    };
    let (ca, cb) = (checks(a), checks(b));
    if differ_by(&ca, &cb, |c| c.required.as_deref().map(normalise)) {
        out.push(Aspect::Required);
    }
    if differ_by(&ca, &cb, |c| c.measured.as_deref().map(normalise)) {
        out.push(Aspect::Measured);
    }
    if a.route != b.route {
        out.push(Aspect::Route);
    }
    out
}

/// Whether some metric's `field` differs between the two sides (a metric on one side only
/// differs).
fn differ_by(a: &[Check], b: &[Check], field: impl Fn(&Check) -> Option<String>) -> bool {
    let get = |list: &[Check], m: &str| list.iter().find(|c| c.metric == m).and_then(&field);
    a.iter()
        .chain(b)
        .any(|c| get(a, &c.metric) != get(b, &c.metric))
}

/// Numbers compare by value (`0.920` is `0.92`); anything else as written.
fn normalise(raw: &str) -> String {
    let t = raw.trim();
    let (op, num) = match t.find(|c: char| c.is_ascii_digit() || c == '-' || c == '.') {
        Some(i) => (t[..i].trim(), &t[i..]),
        None => return t.to_string(),
    };
    match num.trim().parse::<f64>() {
        Ok(v) => format!("{op}{v}"),
        Err(_) => t.to_string(),
    }
}

#[cfg(test)]
#[path = "diff_tests.rs"]
mod tests;
