//! Gate criteria as the experiment brief states them: a fenced ```yaml block under
//! "## Gate Criteria" with `criteria:` as a list of {metric, op, value}. Machine-readable,
//! so the gate is judged by rule on measured metrics, never by a model's account.

use crate::yaml::{Node, parse};

pub mod planned;

/// The comparison vocabulary is the plan tree's (`>=`, `>`, `<=`, `<`, `==`, their Unicode
/// and word forms): one parser for gates and rewards.
pub use crate::plan::Op;

#[derive(Debug, Clone, PartialEq)]
pub struct Criterion {
    pub metric: String,
    pub op: Op,
    pub value: f64,
    /// For a comparative claim ("better than X"): the baseline metric measured on the same
    /// repeats; the gate decides on `metric − baseline`, paired repeat by repeat.
    pub baseline: Option<String>,
}

impl Criterion {
    pub fn new(metric: &str, op: Op, value: f64) -> Criterion {
        Criterion {
            metric: metric.into(),
            op,
            value,
            baseline: None,
        }
    }

    /// What the gate measures: `accuracy` or `accuracy - accuracy_majority`.
    pub fn quantity(&self) -> String {
        match &self.baseline {
            Some(b) => format!("{} - {b}", self.metric),
            None => self.metric.clone(),
        }
    }
}

impl std::fmt::Display for Criterion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {} {}", self.quantity(), self.op, self.value)
    }
}

/// The criteria of a brief, or what is wrong with them (with the block's line).
pub(crate) fn from_brief(markdown: &str) -> Result<Vec<Criterion>, String> {
    let section = super::check::section_body(markdown, "Gate Criteria")
        .ok_or("no \"## Gate Criteria\" section")?;
    let start = section
        .find("```yaml")
        .or_else(|| section.find("```yml"))
        .ok_or("the Gate Criteria section has no ```yaml block")?;
    let body = &section[start..];
    let body = &body[body.find('\n').ok_or("empty yaml block")? + 1..];
    let end = body.find("```").ok_or("the ```yaml block is not closed")?;
    let doc = parse(&body.as_bytes()[..end]).map_err(|e| {
        format!(
            "the criteria block is not YAML (block line {}, column {}: {})",
            e.line, e.col, e.message
        )
    })?;
    let list = doc
        .root
        .as_ref()
        .and_then(|r| r.get("criteria"))
        .and_then(Node::as_seq)
        .ok_or("the block has no `criteria:` list")?;
    let mut out = Vec::new();
    for (i, item) in list.iter().enumerate() {
        let metric = item
            .get("metric")
            .and_then(Node::as_str)
            .filter(|m| !m.trim().is_empty());
        let op = item
            .get("op")
            .and_then(Node::as_str)
            .and_then(|o| o.parse::<Op>().ok());
        let value = item
            .get("value")
            .and_then(Node::as_scalar)
            .and_then(|s| s.as_f64());
        let baseline = item
            .get("baseline")
            .and_then(Node::as_str)
            .map(str::trim)
            .filter(|b| !b.is_empty())
            .map(str::to_string);
        match (metric, op, value) {
            (Some(m), Some(op), Some(value)) => out.push(Criterion {
                metric: m.trim().to_string(),
                op,
                value,
                baseline,
            }),
            _ => {
                return Err(format!(
                    "criterion {} needs metric, op (>=, >, <=, <, ==) and a numeric value",
                    i + 1
                ));
            }
        }
    }
    if out.is_empty() {
        return Err("the criteria list is empty".into());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_block_and_refuses_bad_items() {
        let md = "## Gate Criteria\nAccuracy must beat chance.\n```yaml\ncriteria:\n  - metric: accuracy\n    op: \">=\"\n    value: 0.9\n  - {metric: gap, op: \"<\", value: 5}\n```\n## Procedure\n";
        let c = from_brief(md).unwrap();
        assert_eq!(c.len(), 2);
        assert_eq!(c[0], Criterion::new("accuracy", Op::Ge, 0.9));
        assert_eq!(c[1].to_string(), "gap < 5");
        let bad = md.replace("0.9", "high");
        assert!(from_brief(&bad).unwrap_err().contains("criterion 1"));
        assert!(
            from_brief("## Gate Criteria\nnone\n")
                .unwrap_err()
                .contains("```yaml")
        );
        assert!(from_brief("# x").unwrap_err().contains("Gate Criteria"));
    }
}

/// The criteria a gate is judged by, read at judgement time: the VSA's
/// `sub_hypotheses.<h>.gate.criteria` (Experiment Design writes them there; the researcher
/// may edit them), else the brief's block (runs designed before youra kept them in the
/// VSA). `edits` names every criterion that differs from the brief, with who changed it.
#[derive(Debug, Clone, PartialEq)]
pub struct Criteria {
    pub list: Vec<Criterion>,
    pub edits: Vec<String>,
}

pub fn current(
    snap: &crate::vsa::store::Snapshot,
    id: &str,
    brief: &str,
) -> Result<Criteria, String> {
    let from_brief = from_brief(brief);
    let rules = snap
        .vsa
        .hypothesis(id)
        .map(|h| h.gate.rules.clone())
        .unwrap_or_default();
    if rules.is_empty() {
        // A brief without criteria in the VSA (a run designed before youra kept them there)
        // is still held to the plan: its block may be the model's lowered bar.
        let list = from_brief?;
        let plan = planned_text(snap, id).map_or_else(Vec::new, |t| planned::parse(&t));
        let held = planned::conform(&plan, &list);
        if !held.refused.is_empty() {
            return Err(format!(
                "the brief's criteria do not keep the plan's: {}",
                held.refused.join("; ")
            ));
        }
        return Ok(Criteria {
            list,
            edits: Vec::new(),
        });
    }
    let original = from_brief.unwrap_or_default();
    let mut edits = Vec::new();
    for r in &rules {
        let was = original.get(r.index);
        if was.is_some_and(|w| {
            w.metric == r.metric && w.op == r.op && w.value == r.value && w.baseline == r.baseline
        }) {
            continue;
        }
        let prefix = format!("sub_hypotheses.{id}.gate.criteria[{}]", r.index);
        let by = snap
            .vsa
            .history
            .iter()
            .rev()
            .find(|e| e.path.as_deref().is_some_and(|p| p.starts_with(&prefix)));
        let who = by.map_or("an edit outside youra's history".to_string(), |e| {
            format!(
                "{} at {}",
                e.actor.as_deref().unwrap_or("someone"),
                e.timestamp
                    .as_ref()
                    .map_or("an unknown time".into(), |t| t.at.to_rfc3339())
            )
        });
        edits.push(match was {
            Some(w) if w.metric == r.metric && w.op == r.op => {
                format!("{} threshold {} → {} by {who}", r.metric, w.value, r.value)
            }
            Some(w) => format!(
                "criterion {} was `{w}`, judged as `{}` (by {who})",
                r.index + 1,
                crate::vsa::model::GateCriterion::to_string(r)
            ),
            None => format!("criterion `{r}` added by {who}"),
        });
    }
    Ok(Criteria {
        list: rules
            .into_iter()
            .map(|r| Criterion {
                metric: r.metric,
                op: r.op,
                value: r.value,
                baseline: r.baseline,
            })
            .collect(),
        edits,
    })
}

/// The criterion text Verification Planning wrote for `id` (`sub_hypotheses.<id>.gate.criterion`):
/// what the design is held to ([`planned::conform`]).
pub fn planned_text(snap: &crate::vsa::store::Snapshot, id: &str) -> Option<String> {
    snap.doc
        .root
        .as_ref()?
        .get("sub_hypotheses")?
        .get(id)?
        .get("gate")?
        .get("criterion")?
        .as_str()
        .map(str::to_string)
}

/// The criteria as `gate.criteria` holds them: a list of `{metric, op, value}`.
pub fn vsa_node(list: &[Criterion]) -> crate::yaml::NewNode {
    use crate::yaml::NewNode;
    NewNode::Seq(
        list.iter()
            .map(|c| {
                NewNode::Map(
                    vec![
                        (
                            "metric".into(),
                            NewNode::Scalar(crate::yaml::format_scalar(
                                &c.metric,
                                crate::yaml::Style::Plain,
                            )),
                        ),
                        (
                            "op".into(),
                            NewNode::Scalar(crate::yaml::format_scalar(
                                &c.op.to_string(),
                                crate::yaml::Style::SingleQuoted,
                            )),
                        ),
                        ("value".into(), NewNode::Scalar(c.value.to_string())),
                    ]
                    .into_iter()
                    .chain(c.baseline.as_ref().map(|b| {
                        (
                            "baseline".into(),
                            NewNode::Scalar(crate::yaml::format_scalar(
                                b,
                                crate::yaml::Style::Plain,
                            )),
                        )
                    }))
                    .collect(),
                )
            })
            .collect(),
    )
}
