//! The VSA's invariants (YouRA §3.2): rules every state must keep, checked before a write.

use serde::Serialize;

use super::enums::{GateType, HypothesisStatus};
use super::model::Vsa;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Invariant {
    /// VALIDATED/COMPLETED needs a satisfied MUST_WORK gate.
    MustWorkGate,
    /// READY/IN_PROGRESS needs every prerequisite validated.
    PrerequisitesFirst,
    /// A prerequisite must name an existing sub-hypothesis.
    KnownPrerequisite,
    /// Prerequisites form a DAG.
    NoCycle,
    /// An id that names a folder is one plain name (`crate::ids`); never overridable.
    SafeId,
}

impl Invariant {
    pub fn name(self) -> &'static str {
        match self {
            Invariant::MustWorkGate => "must-work-gate",
            Invariant::PrerequisitesFirst => "prerequisites-first",
            Invariant::KnownPrerequisite => "known-prerequisite",
            Invariant::NoCycle => "no-cycle",
            Invariant::SafeId => "safe-id",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Violation {
    pub invariant: Invariant,
    pub hypothesis: String,
    pub message: String,
}

/// Every id in `vsa` that names a folder and breaks the safe-id rule: sub-hypothesis ids
/// (`<run>/<id>/`), and a pending recovery's hypothesis and archive name (`_archive/<name>/`).
/// The engine stops on the first before it makes a folder of any.
pub fn unsafe_ids(vsa: &Vsa) -> Vec<Violation> {
    let pending = vsa.workflow.pending_transition.as_ref();
    let ids = vsa
        .sub_hypotheses
        .iter()
        .map(|h| ("sub-hypothesis", h.id.as_str()))
        .chain(pending.map(|t| ("pending transition's hypothesis", t.hypothesis.as_str())))
        .chain(
            pending
                .and_then(|t| t.archive.as_deref())
                .map(|a| ("archive", a)),
        );
    ids.filter_map(|(what, id)| {
        let e = crate::ids::check_id(what, id).err()?;
        Some(Violation {
            invariant: Invariant::SafeId,
            hypothesis: id.to_string(),
            message: e.to_string(),
        })
    })
    .collect()
}

/// Every violation in `vsa`, in hypothesis order, unsafe ids first.
pub fn violations(vsa: &Vsa) -> Vec<Violation> {
    let mut out = unsafe_ids(vsa);
    for h in &vsa.sub_hypotheses {
        let v = |invariant, message| Violation {
            invariant,
            hypothesis: h.id.clone(),
            message,
        };
        let must_work = h.gate.gate_type == Some(GateType::MustWork);
        if h.status.is_validated() && must_work && !h.gate.is_met() {
            out.push(v(
                Invariant::MustWorkGate,
                format!(
                    "{} is {} but its MUST_WORK gate is not satisfied (satisfied: {}, result: {})",
                    h.id,
                    h.status,
                    h.gate.satisfied.map_or("null".into(), |b| b.to_string()),
                    h.gate
                        .result
                        .as_ref()
                        .map_or("null".into(), |r| r.to_string()),
                ),
            ));
        }
        for p in &h.prerequisites {
            match vsa.hypothesis(p) {
                None => out.push(v(
                    Invariant::KnownPrerequisite,
                    format!(
                        "{} lists prerequisite `{p}`, which is not a sub-hypothesis",
                        h.id
                    ),
                )),
                Some(pre)
                    if matches!(
                        h.status,
                        HypothesisStatus::Ready | HypothesisStatus::InProgress
                    ) && !pre.lets_dependants_start() =>
                {
                    out.push(v(
                        Invariant::PrerequisitesFirst,
                        format!(
                            "{} is {} but its prerequisite {p} is {}, neither validated nor a failed SHOULD_WORK gate",
                            h.id, h.status, pre.status
                        ),
                    ));
                }
                Some(_) => {}
            }
        }
    }
    if let Some(cycle) = find_cycle(vsa) {
        out.push(Violation {
            invariant: Invariant::NoCycle,
            hypothesis: cycle[0].clone(),
            message: format!("prerequisites form a cycle: {}", cycle.join(" -> ")),
        });
    }
    out
}

fn find_cycle(vsa: &Vsa) -> Option<Vec<String>> {
    fn visit<'a>(
        vsa: &'a Vsa,
        id: &'a str,
        stack: &mut Vec<&'a str>,
        done: &mut Vec<&'a str>,
    ) -> Option<Vec<String>> {
        if let Some(i) = stack.iter().position(|s| *s == id) {
            let mut c: Vec<String> = stack[i..].iter().map(|s| s.to_string()).collect();
            c.push(id.to_string());
            return Some(c);
        }
        if done.contains(&id) {
            return None;
        }
        stack.push(id);
        for p in vsa
            .hypothesis(id)
            .map(|h| h.prerequisites.as_slice())
            .unwrap_or_default()
        {
            if let Some(c) = visit(vsa, p, stack, done) {
                return Some(c);
            }
        }
        stack.pop();
        done.push(id);
        None
    }
    let mut done = Vec::new();
    vsa.sub_hypotheses
        .iter()
        .find_map(|h| visit(vsa, &h.id, &mut Vec::new(), &mut done))
}

/// Violations in `after` that `before` did not have: what an edit would introduce.
pub fn introduced(before: &Vsa, after: &Vsa) -> Vec<Violation> {
    let old = violations(before);
    violations(after)
        .into_iter()
        .filter(|v| {
            !old.iter()
                .any(|o| o.invariant == v.invariant && o.hypothesis == v.hypothesis)
        })
        .collect()
}
