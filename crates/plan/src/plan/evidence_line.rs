//! One node of the plan tree as a line of the reflector's evidence (`n-0004 [pruned, reward
//! 0.421, gate missed] Bill depth alone — it tested: …`), shared by the node's own evidence
//! (`evidence.rs`) and the whole search's (`evidence_search.rs`), below both.

use super::best::PASSED_KEY;
use super::files::NodeStatus;
use super::tree::PlanNode;

/// A longer log line is cut: a progress bar or a dumped array says nothing more at 10 kB.
pub(super) const LINE_CHARS: usize = 240;

pub(super) fn passed(node: &PlanNode) -> Option<bool> {
    node.packet.as_ref()?.extra.get(PASSED_KEY)?.as_bool()
}

/// `n-0004 [pruned, reward 0.421, gate missed] Bill depth alone — tested: …`.
pub(super) fn entry(n: &PlanNode) -> String {
    let mut tags = vec![n.status.name().to_string()];
    if let Some(p) = n.packet.as_ref().filter(|_| n.status != NodeStatus::Failed) {
        tags.push(format!("reward {:.3}", p.reward));
    }
    match passed(n) {
        Some(true) => tags.push("gate passed".into()),
        Some(false) => tags.push("gate missed".into()),
        None => {}
    }
    if n.vetoed {
        tags.push("vetoed by the researcher".into());
    }
    let title = n
        .plan
        .as_deref()
        .and_then(|p| p.lines().map(str::trim).find(|l| !l.is_empty()))
        .unwrap_or("(plan not read)")
        .trim_start_matches('#')
        .trim();
    let mut line = format!("{} [{}] {}", n.id, tags.join(", "), one_line(title));
    let tested = n.prior.hypothesis.trim();
    if matches!(n.status, NodeStatus::Pruned | NodeStatus::Failed) && !tested.is_empty() {
        line.push_str(&format!(" — it tested: {}", one_line(tested)));
    }
    line
}

pub(super) fn one_line(s: &str) -> String {
    let flat = s.split_whitespace().collect::<Vec<_>>().join(" ");
    match flat.chars().count() > LINE_CHARS {
        true => format!("{}…", flat.chars().take(LINE_CHARS).collect::<String>()),
        false => flat,
    }
}
