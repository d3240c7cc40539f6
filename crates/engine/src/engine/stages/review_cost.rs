//! What an experiment about to run is likely to cost, for its review (decision 0040): tokens
//! from the plan nodes of the same sub-hypothesis that have run (else any node of the tree),
//! wall time from the earlier experiments' `experiment_exit` events (same sub-hypothesis
//! first), and the limit as the ceiling. The rule (`estimate_from`) is pure with a table
//! test; the readers only gather its inputs.

use std::path::Path;

use serde::Serialize;

/// The forecast shown on the review card and recorded with the review.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Estimate {
    /// Mean tokens of similar nodes (`None`: none has run).
    pub tokens: Option<u64>,
    /// Mean wall seconds of similar experiments (`None`: none has run).
    pub wall_s: Option<f64>,
    /// `[engine] experiment_time_limit_s`: the most one experiment may take.
    pub limit_s: f64,
    /// How many earlier runs the forecast rests on, and which.
    pub basis: String,
}

impl Estimate {
    /// The wall time `over_cost` compares: the forecast, else the limit (what it may cost).
    pub(crate) fn wall_or_limit(&self) -> f64 {
        self.wall_s.unwrap_or(self.limit_s)
    }

    /// One line: `~12k tokens · ~41 s (limit 900 s) · from 3 nodes of h-e1`.
    pub fn line(&self) -> String {
        let tokens = self.tokens.map_or_else(
            || "tokens unknown".into(),
            |t| format!("~{} tokens", short(t)),
        );
        let wall = self
            .wall_s
            .map_or_else(|| "time unknown".into(), |w| format!("~{w:.0} s"));
        format!(
            "{tokens} · {wall} (limit {:.0} s) · {}",
            self.limit_s, self.basis
        )
    }
}

fn short(n: u64) -> String {
    match n {
        n if n >= 1_000_000 => format!("{:.1}M", n as f64 / 1e6),
        n if n >= 10_000 => format!("{}k", n / 1000),
        n => n.to_string(),
    }
}

fn mean_u(xs: &[u64]) -> Option<u64> {
    (!xs.is_empty()).then(|| xs.iter().sum::<u64>() / xs.len() as u64)
}

fn mean_f(xs: &[f64]) -> Option<f64> {
    (!xs.is_empty()).then(|| xs.iter().sum::<f64>() / xs.len() as f64)
}

/// The rule: the same sub-hypothesis's history when it has one, else the run's.
pub(crate) fn estimate_from(
    h: &str,
    tokens_same: &[u64],
    tokens_other: &[u64],
    walls_same: &[f64],
    walls_other: &[f64],
    limit_s: f64,
) -> Estimate {
    let (tokens, tn, tw) = match mean_u(tokens_same) {
        Some(t) => (Some(t), tokens_same.len(), h.to_string()),
        None => (mean_u(tokens_other), tokens_other.len(), "the run".into()),
    };
    let (wall_s, wn, ww) = match mean_f(walls_same) {
        Some(w) => (Some(w), walls_same.len(), h.to_string()),
        None => (mean_f(walls_other), walls_other.len(), "the run".into()),
    };
    let part = |n: usize, what: &str, of: &str| match n {
        0 => None,
        n => Some(format!("{n} {what} of {of}")),
    };
    let parts: Vec<String> = [part(tn, "nodes", &tw), part(wn, "experiments", &ww)]
        .into_iter()
        .flatten()
        .collect();
    let basis = match parts.is_empty() {
        true => "nothing similar has run yet".into(),
        false => format!("from {}", parts.join(" and ")),
    };
    Estimate {
        tokens,
        wall_s,
        limit_s,
        basis,
    }
}

/// How far this run's earlier forecasts were from what their nodes cost (tokens): the
/// mean absolute error, so a forecast shows whether it has earned trust.
pub(crate) fn track_record(pairs: &[(u64, u64)]) -> Option<String> {
    let errs: Vec<f64> = pairs
        .iter()
        .filter(|(f, _)| *f > 0)
        .map(|(f, a)| ((*a as f64 - *f as f64) / *f as f64).abs() * 100.0)
        .collect();
    let mean = mean_f(&errs)?;
    Some(format!(
        "earlier forecasts off by {mean:.0}% on average ({} nodes)",
        errs.len()
    ))
}

/// The forecast for an experiment of `h`, from the plan tree (if the run searches one) and
/// the run's events.
pub fn estimate(
    run: &Path,
    tree: Option<&crate::plan::PlanTree>,
    h: &str,
    limit_s: f64,
) -> Estimate {
    let (mut ts, mut to, mut checked) = (Vec::new(), Vec::new(), Vec::new());
    if let Some(tree) = tree {
        for n in tree.nodes() {
            let forecast = n
                .extra
                .get(crate::vsa::review::NODE_FORECAST_KEY)
                .and_then(|f| f.get("tokens")?.as_u64());
            if let (Some(f), Some(p)) = (forecast, n.packet.as_ref()) {
                checked.push((f, p.cost_tokens));
            }
            let Some(p) = n.packet.as_ref().filter(|p| p.cost_tokens > 0) else {
                continue;
            };
            match crate::plan::node_code::node_hypothesis(tree, &n.id).as_deref() == Some(h) {
                true => ts.push(p.cost_tokens),
                false => to.push(p.cost_tokens),
            }
        }
    }
    let (mut ws, mut wo) = (Vec::new(), Vec::new());
    let mut tail = crate::rundir::events::EventTail::new(&run.join("events.jsonl"));
    let _ = tail.read(|e| {
        if e.kind != "experiment_exit" {
            return;
        }
        // "12.3s, 4 metric records…" (stages/experiment.rs's exit event)
        let secs = e
            .message
            .as_deref()
            .and_then(|m| m.split_once("s,"))
            .and_then(|(s, _)| s.trim().parse::<f64>().ok())
            .filter(|s| s.is_finite() && *s >= 0.0);
        if let Some(s) = secs {
            match e.hypothesis.as_deref() == Some(h) {
                true => ws.push(s),
                false => wo.push(s),
            }
        }
    });
    let mut e = estimate_from(h, &ts, &to, &ws, &wo, limit_s);
    if let Some(record) = track_record(&checked) {
        e.basis = format!("{}; {record}", e.basis);
    }
    e
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn earlier_forecasts_say_how_far_off_they_were() {
        assert_eq!(track_record(&[]), None);
        assert_eq!(
            track_record(&[(0, 500)]),
            None,
            "a zero forecast has no error"
        );
        assert_eq!(
            track_record(&[(1000, 1250), (2000, 1500)]).as_deref(),
            Some("earlier forecasts off by 25% on average (2 nodes)")
        );
    }

    #[test]
    fn the_same_sub_hypothesis_first_then_the_run() {
        // (tokens same, other, walls same, other) → (tokens, wall, basis contains)
        type Row<'a> = (
            &'a [u64],
            &'a [u64],
            &'a [f64],
            &'a [f64],
            Option<u64>,
            Option<f64>,
            &'a str,
        );
        let table: [Row; 4] = [
            (&[], &[], &[], &[], None, None, "nothing similar"),
            (
                &[1000, 3000],
                &[50],
                &[10.0],
                &[99.0],
                Some(2000),
                Some(10.0),
                "from 2 nodes of h-e1 and 1 experiments of h-e1",
            ),
            (
                &[],
                &[400, 600],
                &[],
                &[4.0, 8.0],
                Some(500),
                Some(6.0),
                "from 2 nodes of the run",
            ),
            (&[7], &[], &[], &[], Some(7), None, "from 1 nodes of h-e1"),
        ];
        for (ts, to, ws, wo, tokens, wall, basis) in table {
            let e = estimate_from("h-e1", ts, to, ws, wo, 900.0);
            assert_eq!(
                (e.tokens, e.wall_s),
                (tokens, wall),
                "{ts:?} {to:?} {ws:?} {wo:?}"
            );
            assert!(e.basis.contains(basis), "{}", e.basis);
        }
        let e = estimate_from("h", &[], &[], &[], &[], 900.0);
        assert_eq!(
            e.wall_or_limit(),
            900.0,
            "no history: the limit is what it may cost"
        );
        assert_eq!(
            estimate_from("h", &[12_000], &[], &[41.2], &[], 900.0).line(),
            "~12k tokens · ~41 s (limit 900 s) · from 1 nodes of h and 1 experiments of h"
        );
    }
}
