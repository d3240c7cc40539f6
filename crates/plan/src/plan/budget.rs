//! The plan's budget (`plan/budget.json`): every planning, execution and diagnosis token of
//! the search, optionally wall time too, and the researcher's allocation settings. The ledger
//! is the record of what was spent; this file carries the totals selection needs, split by
//! what they were spent on (`SpendKind`) and by sub-hypothesis. `total_tokens` is each
//! sub-hypothesis's own budget (PrimeScientist's B per task): its search starts at r = 1
//! whatever the earlier ones spent (`for_hypothesis`); `used_tokens` stays the run's sum.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::policy::{ALPHA_MAX, MIN_SHARE, Policy};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Budget {
    pub total_tokens: u64,
    #[serde(default)]
    pub used_tokens: u64,
    /// Wall-time budget in seconds; unset means tokens alone decide.
    #[serde(default)]
    pub time_budget_secs: Option<f64>,
    #[serde(default)]
    pub used_secs: f64,
    #[serde(default = "default_alpha_max")]
    pub alpha_max: f64,
    #[serde(default)]
    pub policy: Policy,
    /// Bytes of `ledger.tsv` already charged (`charge.rs`): saved with the totals in one
    /// atomic write, so a restart never charges a row twice.
    #[serde(default)]
    pub ledger_offset: u64,
    /// Tokens charged per plan node: its execution and diagnosis (its planning is charged
    /// to the expansion that made it, under `split.planning`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub node_tokens: BTreeMap<String, u64>,
    /// `used_tokens` by what they were spent on. A budget charged before the split was kept
    /// has a smaller sum; the difference is shown as unsplit.
    #[serde(default, skip_serializing_if = "Split::is_empty")]
    pub split: Split,
    /// `used_tokens` by the sub-hypothesis whose plan node each row names (`charge.rs`).
    /// Missing in a budget charged before issue 41: that budget reads as one for the run.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub hypothesis_tokens: BTreeMap<String, u64>,
    /// Tokens of each sub-hypothesis's root plan drafting (PrimeScientist: the reflector drafts
    /// the root, a charged call): charged once, when its search opens (`charge_root`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub root_tokens: BTreeMap<String, u64>,
    /// Unix seconds at which wall time was last charged; `None` until the first charge and
    /// after a restart (time while no engine ran is not spent on the research).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock_at: Option<f64>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// What a plan-tagged ledger row was spent on. PrimeScientist §3.2 counts U = C_exec + C_refl;
/// youra's attempts also have a diagnosis (failure attribution, its critic, the verdict clamp,
/// the controller's review of the attempt), shown apart so neither side hides it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum SpendKind {
    /// The reflector expanding a node.
    Planning,
    /// The executor writing and running the node's code, the fabrication judge.
    Execution,
    /// Judging an attempt's outcome after it was recorded.
    Diagnosis,
}

impl SpendKind {
    pub const ALL: [SpendKind; 3] = [
        SpendKind::Planning,
        SpendKind::Execution,
        SpendKind::Diagnosis,
    ];

    /// The ledger's `plan_kind` value.
    pub fn name(self) -> &'static str {
        match self {
            SpendKind::Planning => "planning",
            SpendKind::Execution => "execution",
            SpendKind::Diagnosis => "diagnosis",
        }
    }

    pub fn parse(s: &str) -> Option<SpendKind> {
        SpendKind::ALL.into_iter().find(|k| k.name() == s)
    }
}

/// Tokens by [`SpendKind`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Split {
    #[serde(default)]
    pub planning: u64,
    #[serde(default)]
    pub execution: u64,
    #[serde(default)]
    pub diagnosis: u64,
}

impl Split {
    pub fn get(&self, kind: SpendKind) -> u64 {
        match kind {
            SpendKind::Planning => self.planning,
            SpendKind::Execution => self.execution,
            SpendKind::Diagnosis => self.diagnosis,
        }
    }

    pub fn add(&mut self, kind: SpendKind, tokens: u64) {
        let slot = match kind {
            SpendKind::Planning => &mut self.planning,
            SpendKind::Execution => &mut self.execution,
            SpendKind::Diagnosis => &mut self.diagnosis,
        };
        *slot = slot.saturating_add(tokens);
    }

    pub fn total(&self) -> u64 {
        self.planning
            .saturating_add(self.execution)
            .saturating_add(self.diagnosis)
    }

    pub fn is_empty(&self) -> bool {
        self.total() == 0
    }

    /// `planning 12.3k · execution 20.1k · diagnosis 4.0k`, each with its share of `of`.
    pub fn text(&self, of: u64) -> String {
        SpendKind::ALL
            .iter()
            .map(|&k| {
                let n = self.get(k);
                let share = if of > 0 {
                    format!(" ({:.0}%)", n as f64 * 100.0 / of as f64)
                } else {
                    String::new()
                };
                format!("{} {}{share}", k.name(), compact(n))
            })
            .collect::<Vec<_>>()
            .join(" · ")
    }
}

/// `950`, `12.3k`, `1.50M`: token counts at a glance.
pub fn compact(n: u64) -> String {
    match n {
        0..=999 => n.to_string(),
        1_000..=999_999 => format!("{:.1}k", n as f64 / 1e3),
        _ => format!("{:.2}M", n as f64 / 1e6),
    }
}

fn default_alpha_max() -> f64 {
    ALPHA_MAX
}

impl Budget {
    pub fn tokens(total_tokens: u64) -> Budget {
        Budget {
            total_tokens,
            used_tokens: 0,
            time_budget_secs: None,
            used_secs: 0.0,
            alpha_max: ALPHA_MAX,
            policy: Policy::default(),
            ledger_offset: 0,
            node_tokens: BTreeMap::new(),
            split: Split::default(),
            hypothesis_tokens: BTreeMap::new(),
            root_tokens: BTreeMap::new(),
            clock_at: None,
            extra: Map::new(),
        }
    }

    /// r: the remaining share the alpha rule reads.
    pub fn remaining_share(&self) -> f64 {
        remaining_share(
            self.total_tokens,
            self.used_tokens,
            self.time_budget_secs.map(|t| (t, self.used_secs)),
        )
    }

    /// Tokens sub-hypothesis `h`'s search has spent. A budget charged before the split was
    /// kept (none recorded, some spent) has one budget for the run: its whole spend.
    pub fn spent_by(&self, h: &str) -> u64 {
        if self.hypothesis_tokens.is_empty() {
            return self.used_tokens;
        }
        self.hypothesis_tokens.get(h).copied().unwrap_or(0)
    }

    /// The budget as `h`'s search sees it: its own B (`total_tokens`) less what it spent, so
    /// a later sub-hypothesis starts at r = 1. Time stays the run's (one clock).
    pub fn for_hypothesis(&self, h: &str) -> Budget {
        let mut b = self.clone();
        b.used_tokens = self.spent_by(h);
        b
    }

    /// Charge the drafting of `h`'s root plan (`tokens`, from the call that drafted it) as
    /// planning, to the run and to `h`, once: false when it was charged already, or when the
    /// budget predates the split (charging it there would hide the run's earlier spend).
    pub fn charge_root(&mut self, h: &str, tokens: u64) -> bool {
        let legacy = self.hypothesis_tokens.is_empty() && self.used_tokens > 0;
        if legacy || self.root_tokens.contains_key(h) {
            return false;
        }
        self.root_tokens.insert(h.to_string(), tokens);
        self.used_tokens = self.used_tokens.saturating_add(tokens);
        self.split.add(SpendKind::Planning, tokens);
        let slot = self.hypothesis_tokens.entry(h.to_string()).or_default();
        *slot = slot.saturating_add(tokens);
        true
    }

    /// `h-e1 12.3k · h-e2 4.0k`: what each sub-hypothesis spent, for the ledger's readers.
    pub fn by_hypothesis_text(&self) -> String {
        self.hypothesis_tokens
            .iter()
            .map(|(h, n)| format!("{h} {}", compact(*n)))
            .collect::<Vec<_>>()
            .join(" · ")
    }

    /// Nothing left: the run moves on to Evidence Check with what it has.
    pub fn exhausted(&self) -> bool {
        let tokens = self.used_tokens >= self.total_tokens;
        let time = self
            .time_budget_secs
            .is_some_and(|t| self.used_secs >= t || self.used_secs.is_nan());
        tokens || time
    }

    /// Charge one call or attempt (saturating: a ledger can overshoot, the count cannot wrap).
    pub fn charge(&mut self, tokens: u64, secs: f64) {
        self.used_tokens = self.used_tokens.saturating_add(tokens);
        if secs.is_finite() && secs > 0.0 {
            self.used_secs += secs;
        }
    }
}

/// r = remaining / total for tokens and, when a time budget is set, for time; the smaller
/// one wins (whichever runs out first ends the search). Clamped into [MIN_SHARE, 1]: an
/// overspent or zero budget reads as almost nothing left, never as negative or NaN.
pub fn remaining_share(total_tokens: u64, used_tokens: u64, time: Option<(f64, f64)>) -> f64 {
    let tokens = share(total_tokens as f64, used_tokens as f64);
    let r = match time {
        Some((budget, used)) => tokens.min(share(budget, used)),
        None => tokens,
    };
    r.clamp(MIN_SHARE, 1.0)
}

fn share(total: f64, used: f64) -> f64 {
    if total.is_nan() || total <= 0.0 || !used.is_finite() {
        return 0.0;
    }
    let r = (total - used.max(0.0)) / total;
    if r.is_nan() { 0.0 } else { r }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remaining_share_table() {
        // (total tokens, used tokens, (time budget, time used), r)
        type Row = (u64, u64, Option<(f64, f64)>, f64);
        let table: &[Row] = &[
            (1000, 0, None, 1.0),
            (1000, 500, None, 0.5),
            (1000, 900, None, 0.1),
            (1000, 990, None, 0.01),
            (1000, 1000, None, MIN_SHARE),
            (1000, 5000, None, MIN_SHARE),
            (0, 0, None, MIN_SHARE),
            // The smaller share wins when both are set.
            (1000, 200, Some((100.0, 50.0)), 0.5),
            (1000, 800, Some((100.0, 50.0)), 0.2),
            (1000, 0, Some((100.0, 0.0)), 1.0),
            (1000, 0, Some((0.0, 0.0)), MIN_SHARE),
            (1000, 0, Some((100.0, f64::NAN)), MIN_SHARE),
            (1000, 0, Some((100.0, -5.0)), 1.0),
        ];
        for &(total, used, time, want) in table {
            let got = remaining_share(total, used, time);
            assert!((got - want).abs() < 1e-12, "{total} {used} {time:?}: {got}");
        }
    }

    #[test]
    fn charging_and_exhaustion() {
        let mut b = Budget::tokens(100);
        assert!(!b.exhausted());
        b.charge(60, 0.0);
        assert_eq!(b.remaining_share(), 0.4);
        b.charge(u64::MAX, f64::NAN);
        assert_eq!(b.used_tokens, u64::MAX);
        assert!(b.exhausted());
        let mut t = Budget::tokens(100);
        t.time_budget_secs = Some(10.0);
        t.charge(1, 10.0);
        assert!(t.exhausted());
    }

    #[test]
    fn split_table() {
        let mut s = Split::default();
        assert!(s.is_empty());
        assert_eq!(s.text(0), "planning 0 · execution 0 · diagnosis 0");
        // (kind, tokens, total after)
        let table = [
            (SpendKind::Planning, 300, 300),
            (SpendKind::Execution, 1_200, 1_500),
            (SpendKind::Diagnosis, 500, 2_000),
            (SpendKind::Planning, 700, 2_700),
        ];
        for (kind, tokens, total) in table {
            s.add(kind, tokens);
            assert_eq!(s.total(), total);
        }
        assert_eq!(s.get(SpendKind::Planning), 1_000);
        assert_eq!(
            s.text(4_000),
            "planning 1.0k (25%) · execution 1.2k (30%) · diagnosis 500 (12%)"
        );
        for k in SpendKind::ALL {
            assert_eq!(SpendKind::parse(k.name()), Some(k));
        }
        assert_eq!(SpendKind::parse("reflection"), None);
        assert_eq!(
            (compact(999), compact(1_500_000)),
            ("999".into(), "1.50M".into())
        );
        let json = serde_json::to_string(&s).unwrap();
        assert_eq!(serde_json::from_str::<Split>(&json).unwrap(), s);
    }

    #[test]
    fn each_sub_hypothesis_has_its_own_budget() {
        let mut b = Budget::tokens(1000);
        // Before any charge every sub-hypothesis starts at r = 1.
        assert_eq!(b.for_hypothesis("h-e1").remaining_share(), 1.0);
        b.used_tokens = 800;
        b.hypothesis_tokens.insert("h-e1".into(), 600);
        b.hypothesis_tokens.insert("h-e2".into(), 200);
        // (sub-hypothesis, spent, r, exhausted)
        let table = [
            ("h-e1", 600, 0.4, false),
            ("h-e2", 200, 0.8, false),
            // A later one starts at r = 1, not at what the earlier ones left (0.2).
            ("h-e3", 0, 1.0, false),
        ];
        for (h, spent, r, exhausted) in table {
            let v = b.for_hypothesis(h);
            assert_eq!(v.used_tokens, spent, "{h}");
            assert!((v.remaining_share() - r).abs() < 1e-12, "{h}");
            assert_eq!(v.exhausted(), exhausted, "{h}");
        }
        // The run's ledger stays whole and honest.
        assert_eq!(b.used_tokens, 800);
        assert_eq!(b.by_hypothesis_text(), "h-e1 600 · h-e2 200");
        b.hypothesis_tokens.insert("h-e1".into(), 1000);
        assert!(b.for_hypothesis("h-e1").exhausted());
        assert!(!b.for_hypothesis("h-e2").exhausted());
    }

    #[test]
    fn the_root_plan_is_charged_once_to_its_sub_hypothesis() {
        let mut b = Budget::tokens(1000);
        // (sub-hypothesis, tokens, charged, its spend after, the run's after)
        let table = [
            ("h-e1", 120, true, 120, 120),
            ("h-e1", 120, false, 120, 120), // a restart: not twice
            ("h-e2", 80, true, 80, 200),
            ("h-e3", 0, true, 0, 200), // nothing recorded: charged as 0, once
        ];
        for (h, tokens, charged, spent, run) in table {
            assert_eq!(b.charge_root(h, tokens), charged, "{h}");
            assert_eq!(b.spent_by(h), spent, "{h}");
            assert_eq!(b.used_tokens, run, "{h}");
        }
        assert_eq!(b.split.planning, 200);
        assert_eq!(b.split.total(), b.used_tokens);
        assert!((b.for_hypothesis("h-e1").remaining_share() - 0.88).abs() < 1e-12);
        // An old budget (spent, no split) is left as it was.
        let mut old = Budget::tokens(1000);
        old.used_tokens = 300;
        assert!(!old.charge_root("h-e1", 50));
        assert_eq!((old.used_tokens, old.spent_by("h-e1")), (300, 300));
    }

    #[test]
    fn an_old_budget_without_the_split_reads_as_one_for_the_run() {
        let old = r#"{"total_tokens": 150000, "used_tokens": 31500, "policy": "adaptive"}"#;
        let b: Budget = serde_json::from_str(old).unwrap();
        assert!(b.hypothesis_tokens.is_empty());
        for h in ["h-e1", "h-e3"] {
            assert_eq!(b.spent_by(h), 31_500);
            assert!((b.for_hypothesis(h).remaining_share() - 0.79).abs() < 1e-12);
        }
        // Saved again it does not grow a split it never had.
        let json = serde_json::to_string(&b).unwrap();
        assert!(!json.contains("hypothesis_tokens"), "{json}");
    }

    #[test]
    fn budget_json_defaults_and_unknown_keys() {
        let b: Budget =
            serde_json::from_str(r#"{"total_tokens": 1500000, "note": "kept"}"#).unwrap();
        assert_eq!(b.alpha_max, 10.0);
        assert_eq!(b.policy, Policy::Adaptive);
        assert_eq!(b.extra["note"], "kept");
        let back: Budget = serde_json::from_str(&serde_json::to_string(&b).unwrap()).unwrap();
        assert_eq!(back, b);
    }
}
