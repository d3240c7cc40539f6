//! The escalation card's data: `workflow.pending_escalation` shaped for reading — fields with
//! `-` where missing, the trajectory's signature first, attributions ranked as the engine chose
//! h* — and the text helpers the card uses. Pure, no drawing: the card pane
//! (`panes::escalation`), the reflection pane and the commands (`a`/`r`/`o`, open the failed
//! attempt's logs, an event expanded) all read it here, so no command calls a renderer.

use crate::vsa::escalation::Escalation;
use crate::vsa::model::Vsa;

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Attribution {
    pub category: String,
    pub severity: String,
    pub description: String,
    pub evidence: String,
    pub fix: String,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Card {
    pub id: String,
    pub raised_at: String,
    pub hypothesis: String,
    pub proposed_action: String,
    pub clamp_verdict: String,
    pub clamp_kappa: Option<String>,
    /// `(feature, value)`: the signature first, then the features in the file's order.
    pub trajectory: Vec<(String, String)>,
    /// Ranked by the critic's severity, highest first.
    pub attributions: Vec<Attribution>,
    /// `(verdict, by, reason)` once decided; `by` names both researchers when two were
    /// required (`ana and bo`).
    pub decision: Option<(String, String, String)>,
    /// First answers waiting for a second researcher: `approved: 1 of 2, by ana`.
    pub approvals: Vec<String>,
}

/// The card of the pending escalation, if one waits (or was just decided and still sits in
/// the file): a view of the VSA's typed [`Escalation`], which ranks the attributions as the
/// engine chose h*; missing fields read `-`.
pub fn card(vsa: &Vsa) -> Option<Card> {
    let e: &Escalation = vsa.workflow.escalation.as_ref()?;
    let o = |v: &Option<String>| v.clone().unwrap_or_else(|| "-".to_string());
    let mut trajectory = e.trajectory.clone();
    // The signature names the failure's shape; the features are its evidence.
    trajectory.sort_by_key(|(k, _)| k != "signature");
    let attributions = e
        .attributions
        .iter()
        .map(|a| {
            let or_dash = |s: &str| {
                if s.is_empty() {
                    "-".into()
                } else {
                    s.to_string()
                }
            };
            Attribution {
                category: or_dash(&a.category),
                severity: a.severity.map_or_else(|| "-".into(), |s| s.to_string()),
                description: or_dash(&a.description),
                evidence: or_dash(&a.evidence),
                fix: or_dash(&a.fix),
            }
        })
        .collect();
    Some(Card {
        id: o(&e.id),
        raised_at: o(&e.raised_at),
        hypothesis: o(&e.hypothesis),
        proposed_action: o(&e.proposed_action),
        clamp_verdict: o(&e.clamp_verdict),
        clamp_kappa: e.clamp_kappa.clone(),
        trajectory,
        attributions,
        decision: e
            .decision
            .as_ref()
            .map(|d| (o(&d.verdict_text), d.who(), o(&d.reason))),
        approvals: e
            .approvals
            .iter()
            .map(|a| {
                let answer = match &a.action {
                    Some(act) => format!("override with {act}"),
                    None => o(&a.verdict_text),
                };
                format!("{answer}: 1 of 2, by {}", o(&a.by))
            })
            .collect(),
    })
}

/// What the Verdict Clamp did with the judge's verdict, in one phrase the card and the
/// Reflection pane share (so one never says "valid" where the other says "too unsure"): the
/// clamp keeps a hypothesis only when the judge found the experiment valid with κ ≥ κ_min
/// (`reflect::routing::clamp`).
pub(crate) fn clamp_words(c: &Card, kappa_min: f64) -> String {
    let verdict = c.clamp_verdict.replace('_', " ");
    let min = feature_text(&kappa_min.to_string());
    let kappa = c
        .clamp_kappa
        .as_deref()
        .and_then(|k| k.trim().parse::<f64>().ok());
    match (c.clamp_verdict.as_str(), kappa) {
        ("-", _) => "no clamp: no judge verdict".into(),
        ("valid", Some(k)) if k >= kappa_min => format!(
            "clamp applies: judge valid, κ {} ≥ κ_min {min} (may keep the hypothesis)",
            feature_text(&k.to_string())
        ),
        ("valid", Some(k)) => format!(
            "no clamp: judge valid, κ {} < κ_min {min} (too unsure)",
            feature_text(&k.to_string())
        ),
        (_, Some(k)) => format!(
            "no clamp: judge {verdict} (κ {})",
            feature_text(&k.to_string())
        ),
        (_, None) => format!("no clamp: judge {verdict}, no κ recorded"),
    }
}

/// Words of `s` in lines of at most `width` characters (long words are cut).
pub fn wrap(s: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut out: Vec<String> = Vec::new();
    let mut cur = String::new();
    for word in s.split_whitespace() {
        let w: String = word.chars().take(width).collect();
        if !cur.is_empty() && cur.chars().count() + 1 + w.chars().count() > width {
            out.push(std::mem::take(&mut cur));
        }
        if !cur.is_empty() {
            cur.push(' ');
        }
        cur.push_str(&w);
    }
    if !cur.is_empty() || out.is_empty() {
        out.push(cur);
    }
    out
}

/// A trajectory feature as the card shows it: numbers to three decimals, words as written.
pub(crate) fn feature_text(v: &str) -> String {
    match v.trim().parse::<f64>() {
        Ok(x) if x.is_finite() => {
            let r = format!("{x:.3}");
            let r = r.trim_end_matches('0').trim_end_matches('.');
            if r == "-0" { "0".into() } else { r.to_string() }
        }
        _ => v.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attributions_are_ranked_as_the_engine_ranks_them() {
        let doc = crate::yaml::parse(
            b"workflow:\n  pending_escalation:\n    id: e1\n    hypothesis: h-m1\n    \
              proposed_action: Pivot\n    trajectory: {decay: 0.1, signature: saturation}\n    \
              attributions:\n    - {category: Method, severity: 0.3, description: a}\n    \
              - {category: Design, severity: 0.8, description: b}\n    \
              - {category: Method, severity: 0.8, description: c}\n",
        )
        .unwrap();
        let vsa = |d: &crate::yaml::Document| crate::vsa::read(d).0;
        let c = card(&vsa(&doc)).expect("a card");
        let ranked: Vec<&str> = c
            .attributions
            .iter()
            .map(|a| a.description.as_str())
            .collect();
        // A tie goes to Design, as h* does (reflect::attribution::rank).
        assert_eq!(ranked, ["b", "c", "a"]);
        assert_eq!(c.trajectory[0], ("signature".into(), "saturation".into()));
        assert_eq!((c.clamp_verdict.as_str(), c.decision), ("-", None));
        let none = crate::yaml::parse(b"workflow:\n  pending_escalation: null\n").unwrap();
        assert_eq!(card(&vsa(&none)), None);
        assert_eq!(wrap("one two three", 7), ["one two", "three"]);
    }

    /// Issue 43: the card said "too unsure to clamp" beside the pane's "clamp valid (κ
    /// 0.55)"; one phrase now, and it never says the clamp applies below κ_min.
    #[test]
    fn the_clamp_is_said_one_way() {
        let card = |v: &str, k: Option<&str>| Card {
            clamp_verdict: v.into(),
            clamp_kappa: k.map(str::to_string),
            ..Card::default()
        };
        let table = [
            (
                card("valid", Some("0.55")),
                "no clamp: judge valid, κ 0.55 < κ_min 0.6 (too unsure)",
            ),
            (
                card("valid", Some("0.6")),
                "clamp applies: judge valid, κ 0.6 ≥ κ_min 0.6 (may keep the hypothesis)",
            ),
            (
                card("not_valid", Some("0.9")),
                "no clamp: judge not valid (κ 0.9)",
            ),
            (card("valid", None), "no clamp: judge valid, no κ recorded"),
            (
                card("valid", Some("high")),
                "no clamp: judge valid, no κ recorded",
            ),
            (card("-", Some("0.9")), "no clamp: no judge verdict"),
        ];
        for (c, want) in table {
            assert_eq!(clamp_words(&c, 0.6), want, "{c:?}");
        }
    }
}
