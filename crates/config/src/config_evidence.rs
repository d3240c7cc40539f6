//! `[evidence]` in youra.toml: how many repeats a gated measurement takes and how its interval
//! is computed (issue 40, decision 0033). Its own file so `config.rs` stays the run's settings
//! at large; the rule that reads these lives in `crate::evidence`.

use serde::{Deserialize, Serialize};

use crate::evidence::{IntervalRule, Rule};

/// `[evidence]`: every gated metric is measured on `min_repeats` repeats (seeds, folds or
/// both), summarised by youra with a `confidence` interval, and judged on it; an inconclusive
/// gate takes more repeats, in looks of `min_repeats`, up to `max_repeats`.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct EvidenceSettings {
    /// Repeats of the first look; 1 is today's one-measurement gate.
    pub min_repeats: usize,
    /// The most repeats an inconclusive gate may take before the researcher decides.
    pub max_repeats: usize,
    /// The interval's confidence at the first look (later looks are stricter).
    pub confidence: f64,
    /// `auto` (t; the bootstrap from 20 repeats on for a skewed or bound-hugging sample),
    /// `t` or `bootstrap`. Anything else is refused by serde with the three names.
    pub interval: IntervalRule,
}

impl Default for EvidenceSettings {
    fn default() -> Self {
        let r = Rule::default();
        EvidenceSettings {
            min_repeats: r.min_repeats,
            max_repeats: r.max_repeats,
            confidence: r.confidence,
            interval: r.interval,
        }
    }
}

impl EvidenceSettings {
    /// The rule the gates apply.
    pub fn rule(&self) -> Rule {
        Rule {
            min_repeats: self.min_repeats,
            max_repeats: self.max_repeats,
            confidence: self.confidence,
            interval: self.interval,
        }
    }

    /// What the settings cannot mean together (each number's own range is checked by
    /// `config_check::ranges`).
    pub fn problems(&self) -> Vec<String> {
        let mut out = Vec::new();
        if self.min_repeats > self.max_repeats {
            out.push(format!(
                "[evidence] min_repeats = {} is above max_repeats = {}: give max_repeats >= min_repeats",
                self.min_repeats, self.max_repeats
            ));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use crate::config::load_with;
    use crate::evidence::IntervalRule;

    #[test]
    fn evidence_settings_are_typed_and_checked() {
        let run = tempfile::tempdir().unwrap();
        let write = |text: &str| std::fs::write(run.path().join("youra.toml"), text).unwrap();
        write("");
        let c = load_with(run.path(), None, &[]).unwrap();
        assert_eq!(c.evidence, super::EvidenceSettings::default());
        assert_eq!(
            (
                c.evidence.min_repeats,
                c.evidence.max_repeats,
                c.evidence.confidence
            ),
            (5, 20, 0.95)
        );
        assert_eq!(c.evidence.interval, IntervalRule::Auto);
        write(
            "[evidence]\nmin_repeats = 3\nmax_repeats = 9\nconfidence = 0.99\ninterval = \"bootstrap\"\n",
        );
        let c = load_with(run.path(), None, &[]).unwrap();
        let r = c.evidence.rule();
        assert_eq!(
            (r.min_repeats, r.max_repeats, r.confidence, r.interval),
            (3, 9, 0.99, IntervalRule::Bootstrap)
        );
        // (config, what the error must name)
        let table = [
            ("[evidence]\ninterval = \"normal\"\n", "auto"),
            ("[evidence]\nmin_repeats = 0\n", "evidence.min_repeats = 0"),
            (
                "[evidence]\nmax_repeats = 5000\n",
                "evidence.max_repeats = 5000",
            ),
            ("[evidence]\nconfidence = 1.0\n", "evidence.confidence = 1"),
            ("[evidence]\nconfidence = 95\n", "evidence.confidence = 95"),
            (
                "[evidence]\nconfidence = 0.3\n",
                "evidence.confidence = 0.3",
            ),
            ("[evidence]\nmin_repeats = -1\n", "min_repeats"),
            (
                "[evidence]\nmin_repeats = 10\nmax_repeats = 5\n",
                "min_repeats = 10 is above max_repeats = 5",
            ),
            ("[evidence]\nrepeats = 5\n", "repeats"),
        ];
        for (text, want) in table {
            write(text);
            let e = load_with(run.path(), None, &[]).unwrap_err().to_string();
            assert!(e.contains(want), "{text}: {e}");
        }
    }
}
