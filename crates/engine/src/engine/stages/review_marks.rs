//! What a review leaves on the plan tree and how its code changes are shown (decision 0040):
//! the keys a researcher's edit (✎) and a rejection are recorded under on their node, the
//! rejections as the reflector reads them, and unified diffs of two sets of files. Below
//! `review_gate`, `review_edit` and `plan_search`, which all read it (no import loop).

use crate::plan::PlanTree;

/// Where a researcher's edit is recorded on its plan node (`PlanNode::extra`): the tree's ✎.
pub(crate) const EDIT_KEY: &str = crate::vsa::review::NODE_EDIT_KEY;
/// Where a rejection is recorded on its pruned node.
pub(crate) const REJECT_KEY: &str = crate::vsa::review::NODE_REJECT_KEY;

/// Unified diffs of two sets of files (path → bytes), in path order.
pub(crate) fn unified(before: &[(String, Vec<u8>)], after: &[(String, Vec<u8>)]) -> String {
    let mut paths: Vec<&str> = before
        .iter()
        .chain(after)
        .map(|(p, _)| p.as_str())
        .collect();
    paths.sort_unstable();
    paths.dedup();
    let find = |set: &[(String, Vec<u8>)], p: &str| {
        set.iter().find(|(q, _)| q == p).map(|(_, b)| b.clone())
    };
    let mut out = String::new();
    for p in paths {
        let (a, b) = (find(before, p), find(after, p));
        if a == b {
            continue;
        }
        let (ta, tb) = (
            a.as_deref().map(String::from_utf8_lossy),
            b.as_deref().map(String::from_utf8_lossy),
        );
        let from = if a.is_some() {
            format!("a/code/{p}")
        } else {
            "/dev/null".into()
        };
        let to = if b.is_some() {
            format!("b/code/{p}")
        } else {
            "/dev/null".into()
        };
        let (ta, tb) = (ta.unwrap_or_default(), tb.unwrap_or_default());
        let d = similar::TextDiff::from_lines(ta.as_ref(), tb.as_ref());
        out.push_str(&format!("diff --git a/code/{p} b/code/{p}\n"));
        out.push_str(
            &d.unified_diff()
                .context_radius(3)
                .header(&from, &to)
                .to_string(),
        );
    }
    out
}

/// The rejections of `h`'s nodes, for the reflector's expansion prompt (empty when none).
pub(crate) fn rejections_note(tree: &PlanTree, h: &str) -> String {
    let lines: Vec<String> = crate::plan::subtree(tree, h)
        .iter()
        .filter_map(|id| {
            let n = tree.get(id)?;
            let r = n.extra.get(REJECT_KEY)?;
            let plan = n
                .plan
                .as_deref()
                .unwrap_or("")
                .lines()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("");
            Some(format!(
                "- {id} ({}): rejected by {} before it ran: {}",
                plan.trim_start_matches('#').trim(),
                r.get("by")
                    .and_then(|v| v.as_str())
                    .unwrap_or("the researcher"),
                r.get("reason").and_then(|v| v.as_str()).unwrap_or("")
            ))
        })
        .collect();
    match lines.is_empty() {
        true => String::new(),
        false => format!(
            "\n\nThe researcher rejected these plans at review, before they ran; propose children that answer their objections:\n{}\n",
            lines.join("\n")
        ),
    }
}
