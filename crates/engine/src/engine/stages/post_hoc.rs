//! Claims stated after a redesign or reset (issue 40 item 5). The criteria fixed at the first
//! Verification Planning are the pre-registration; a plan made after a pivot states its
//! sub-hypotheses knowing what the earlier measurements said, so they are post hoc:
//!
//! - Verification Planning marks each (`post_hoc: true`, `stated_after_pivots: N`);
//! - their experiments are asked for fresh seeds (`N × SEED_STRIDE` on), so the measurement
//!   that prompted the redesign is not the one that confirms it;
//! - the paper's Method says which claims are post hoc, and what their measurement can show.

use crate::engine::gates::{FailedCheck, GateOutcome, Verdict};
use crate::evidence::Next;
use crate::vsa::store::Snapshot;
use crate::yaml::NewNode;

/// Seeds of a plan made after `N` pivots start at `N × SEED_STRIDE`: above any seed the
/// earlier plans' looks (`max_repeats` ≤ 1000) and confirmation runs (1 000 000 on, far
/// above) could have used … for all but a thousand pivots, which no run reaches.
pub(crate) const SEED_STRIDE: i64 = 10_000;

/// The fields Verification Planning adds to each sub-hypothesis it states after `pivots`
/// redesigns or resets (none before the first).
pub fn fields(pivots: u32) -> Vec<(String, NewNode)> {
    if pivots == 0 {
        return Vec::new();
    }
    vec![
        ("post_hoc".into(), NewNode::Scalar("true".into())),
        (
            "stated_after_pivots".into(),
            NewNode::Scalar(pivots.to_string()),
        ),
    ]
}

/// The pivots before `id` was stated (0: pre-registered).
pub(crate) fn stated_after(snap: &Snapshot, id: &str) -> u32 {
    super::fields::hypothesis_node(snap, id, &["stated_after_pivots"])
        .and_then(|n| n.as_scalar()?.as_i64())
        .map_or(0, |n| n.clamp(0, 1000) as u32)
}

/// The first seed `id`'s experiments are asked for.
pub(crate) fn seed_base(snap: &Snapshot, id: &str) -> i64 {
    i64::from(stated_after(snap, id)) * SEED_STRIDE
}

/// A post-hoc claim cannot be confirmed by a measurement youra cannot tell from the one that
/// prompted the redesign (issue 40 item 5). With rows per repeat youra checked that every
/// seed was the fresh one it asked for, so the gate stands as judged. Without them (one
/// value per metric, `min_repeats = 1`: the experiment may well have ignored its seeds and
/// measured the old split again, as the demo's does) a PASS is INCONCLUSIVE, each criterion
/// it would have confirmed undecided with why, and nothing more youra can run decides it. A
/// FAIL stands: old data or new, it is no confirmation.
pub(crate) fn unconfirmed(stated_after: u32, rows_checked: bool, gate: GateOutcome) -> GateOutcome {
    if stated_after == 0 || rows_checked || gate.verdict != Verdict::Pass {
        return gate;
    }
    let undecided = gate
        .measured
        .iter()
        .map(|(metric, value)| FailedCheck {
            criterion: metric.clone(),
            required: "a measurement on fresh seeds".into(),
            actual: value.to_string(),
            reason: format!(
                "post hoc: stated after {stated_after} redesign(s), and measured once with no \
                 row per seed, so youra cannot show this is not the measurement that prompted \
                 the redesign; report one row per seed of YOURA_SEEDS ([evidence] min_repeats \
                 > 1) to confirm it"
            ),
        })
        .collect();
    GateOutcome {
        verdict: Verdict::Inconclusive,
        undecided,
        next: Next::Done,
        ..gate
    }
}

/// Whether `id` is a post-hoc claim whose gate is INCONCLUSIVE: exploratory, recorded as
/// such, never a stop of the pre-registered study nor a recovery.
pub fn exploratory(snap: &Snapshot, id: &str, verdict: Verdict) -> bool {
    verdict == Verdict::Inconclusive && stated_after(snap, id) > 0
}

/// The post-hoc sub-hypotheses of the current plan, in plan order.
pub fn ids(snap: &Snapshot) -> Vec<String> {
    snap.vsa
        .sub_hypotheses
        .iter()
        .filter(|h| stated_after(snap, &h.id) > 0)
        .map(|h| h.id.clone())
        .collect()
}

/// The sentence the paper's Method carries when some claims are post hoc.
pub fn note(ids: &[String], repeats: bool) -> Option<String> {
    if ids.is_empty() {
        return None;
    }
    let list = match ids {
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
        [] => return None,
    };
    let what = if repeats {
        "their experiments were asked for seeds that none of the earlier measurements used, so \
         the measurement that prompted the redesign is not the one that confirms them"
    } else {
        "each was judged on one measurement, which cannot show that it differs from the \
         measurement that prompted the redesign: read their results as exploratory"
    };
    Some(format!(
        "Post hoc: {list} {} stated after a redesign of the plan, not pre-registered; {what}.",
        if ids.len() == 1 { "was" } else { "were" }
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn gate(verdict: Verdict) -> GateOutcome {
        let measured = BTreeMap::from([("gain".to_string(), 0.0323)]);
        GateOutcome::recorded(verdict, Vec::new(), measured)
    }

    #[test]
    fn a_post_hoc_pass_needs_rows_youra_checked() {
        // (stated after, rows checked, verdict) → verdict after the rule.
        let table = [
            (0, false, Verdict::Pass, Verdict::Pass),
            (1, true, Verdict::Pass, Verdict::Pass),
            (1, false, Verdict::Pass, Verdict::Inconclusive),
            (3, false, Verdict::Pass, Verdict::Inconclusive),
            (1, false, Verdict::Fail, Verdict::Fail),
            (1, false, Verdict::Partial, Verdict::Partial),
        ];
        for (after, rows, given, want) in table {
            let g = unconfirmed(after, rows, gate(given));
            assert_eq!(g.verdict, want, "{after} {rows} {given:?}");
        }
        let g = unconfirmed(1, false, gate(Verdict::Pass));
        assert_eq!(g.undecided.len(), 1);
        assert_eq!(g.undecided[0].criterion, "gain");
        assert!(
            g.undecided[0]
                .reason
                .starts_with("post hoc: stated after 1 redesign")
        );
        assert_eq!(g.next, Next::Done, "no top-up can make old data fresh");
        assert_eq!(
            g.measured["gain"], 0.0323,
            "the value is kept, only not as a pass"
        );
    }

    #[test]
    fn the_note_names_the_claims_and_what_their_measurement_can_show() {
        let ids = ["h-e2".to_string(), "h-m2".into(), "h-c2".into()];
        let n = note(&ids, true).unwrap();
        assert!(
            n.starts_with("Post hoc: h-e2, h-m2 and h-c2 were stated after a redesign"),
            "{n}"
        );
        assert!(note(&ids[..1], false).unwrap().contains("h-e2 was stated"));
        assert!(note(&ids[..1], false).unwrap().contains("exploratory"));
        assert_eq!(note(&[], true), None);
        let paper = "# T\n\n## Method\nA rule.\n\n## Results\n";
        let once = super::super::method_note::with_note(paper, Some(&n));
        assert!(once.contains("## Method\n\nPost hoc: h-e2"), "{once}");
        assert_eq!(
            super::super::method_note::with_note(&once, Some(&n)),
            once,
            "never twice"
        );
        assert_eq!(
            super::super::method_note::with_note("# T\nno method\n", Some(&n)),
            "# T\nno method\n"
        );
        assert!(fields(0).is_empty());
        assert_eq!(fields(2)[1].0, "stated_after_pivots");
    }
}
