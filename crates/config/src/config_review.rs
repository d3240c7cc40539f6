//! `[review]` in youra.toml: when the run stops before an experiment so the researcher can
//! read its code, command and estimated cost and approve, edit or reject it (issue 42 item 1,
//! decision 0040). Its own file so `config.rs` stays the run's settings at large; the rule
//! that reads these (`applies`) is pure and table-tested here, the engine's wait lives in
//! `engine/stages/review_gate.rs`.

use serde::{Deserialize, Serialize};

/// When an experiment waits for the researcher's review before it runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BeforeExperiment {
    /// Never (the default: a replay, the demo and an unattended run go on as before).
    #[default]
    Never,
    /// The first experiment of a sub-hypothesis (a new branch of the plan).
    NewBranch,
    /// An experiment whose estimated tokens or wall time pass `over_cost_*`.
    OverCost,
    /// Every experiment.
    Always,
}

impl BeforeExperiment {
    pub fn as_str(self) -> &'static str {
        match self {
            BeforeExperiment::Never => "never",
            BeforeExperiment::NewBranch => "new_branch",
            BeforeExperiment::OverCost => "over_cost",
            BeforeExperiment::Always => "always",
        }
    }
}

/// `[review]`: the policy and `over_cost`'s two thresholds (0 turns that one off).
#[derive(Debug, Clone, Copy, PartialEq, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct ReviewSettings {
    /// `never`, `new_branch`, `over_cost` or `always`; anything else is refused by serde
    /// with the four names and the file's line.
    pub before_experiment: BeforeExperiment,
    /// `over_cost`: review when the estimated tokens of the node pass this (0: never by tokens).
    pub over_cost_tokens: u64,
    /// `over_cost`: review when the estimated wall time passes this many seconds (0: never by time).
    pub over_cost_wall_s: f64,
}

impl Default for ReviewSettings {
    fn default() -> Self {
        ReviewSettings {
            before_experiment: BeforeExperiment::Never,
            over_cost_tokens: 200_000,
            over_cost_wall_s: 3600.0,
        }
    }
}

/// What the engine knows about the experiment about to run, for [`ReviewSettings::applies`].
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Upcoming {
    /// The first experiment of its sub-hypothesis (no gate verdict, no earlier node or attempt).
    pub new_branch: bool,
    /// The researcher approved the rest of this sub-hypothesis's branch at an earlier review.
    pub branch_approved: bool,
    /// Estimated tokens of the node (`None`: no estimate).
    pub tokens: Option<u64>,
    /// Estimated wall time in seconds (`None`: no estimate).
    pub wall_s: Option<f64>,
}

impl ReviewSettings {
    /// Whether the experiment waits for a review: pure, so the table below is the rule.
    pub fn applies(&self, u: &Upcoming) -> bool {
        if u.branch_approved {
            return false;
        }
        match self.before_experiment {
            BeforeExperiment::Never => false,
            BeforeExperiment::Always => true,
            BeforeExperiment::NewBranch => u.new_branch,
            BeforeExperiment::OverCost => {
                let tokens = self.over_cost_tokens > 0
                    && u.tokens.is_some_and(|t| t > self.over_cost_tokens);
                let wall = self.over_cost_wall_s > 0.0
                    && u.wall_s.is_some_and(|w| w > self.over_cost_wall_s);
                tokens || wall
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{BeforeExperiment as B, ReviewSettings, Upcoming};
    use crate::config::load_with;

    #[test]
    fn which_experiments_wait_for_a_review() {
        let up = |new_branch, branch_approved, tokens, wall_s| Upcoming {
            new_branch,
            branch_approved,
            tokens,
            wall_s,
        };
        // (policy, upcoming, waits)
        let table = [
            (
                B::Never,
                up(true, false, Some(10_000_000), Some(1e6)),
                false,
            ),
            (B::Always, up(false, false, None, None), true),
            (B::Always, up(true, true, None, None), false),
            (B::NewBranch, up(true, false, None, None), true),
            (
                B::NewBranch,
                up(false, false, Some(10_000_000), None),
                false,
            ),
            (B::OverCost, up(false, false, Some(200_001), None), true),
            (B::OverCost, up(false, false, Some(200_000), None), false),
            (B::OverCost, up(false, false, None, Some(3600.5)), true),
            (B::OverCost, up(false, false, None, Some(3600.0)), false),
            (B::OverCost, up(true, false, None, None), false),
            (
                B::OverCost,
                up(false, true, Some(1_000_000), Some(1e6)),
                false,
            ),
        ];
        for (policy, u, want) in table {
            let s = ReviewSettings {
                before_experiment: policy,
                ..ReviewSettings::default()
            };
            assert_eq!(s.applies(&u), want, "{policy:?} {u:?}");
        }
        // A threshold of 0 is off, not "everything is over".
        let s = ReviewSettings {
            before_experiment: B::OverCost,
            over_cost_tokens: 0,
            over_cost_wall_s: 0.0,
        };
        assert!(!s.applies(&up(false, false, Some(u64::MAX), Some(1e9))));
    }

    #[test]
    fn review_settings_are_typed_and_checked_with_their_line() {
        let run = tempfile::tempdir().unwrap();
        let write = |text: &str| std::fs::write(run.path().join("youra.toml"), text).unwrap();
        write("");
        let c = load_with(run.path(), None, &[]).unwrap();
        assert_eq!(c.review, ReviewSettings::default());
        assert_eq!(c.review.before_experiment, B::Never);
        write(
            "[review]\nbefore_experiment = \"over_cost\"\nover_cost_tokens = 5000\nover_cost_wall_s = 60\n",
        );
        let c = load_with(run.path(), None, &[]).unwrap();
        assert_eq!(
            (
                c.review.before_experiment,
                c.review.over_cost_tokens,
                c.review.over_cost_wall_s
            ),
            (B::OverCost, 5000, 60.0)
        );
        // (config, what the error must name)
        let table = [
            (
                "[review]\n\nbefore_experiment = \"alway\"\n",
                "youra.toml: line 3",
            ),
            ("[review]\nbefore_experiment = \"alway\"\n", "always"),
            (
                "[review]\nbefore_experiment = \"new-branch\"\n",
                "new_branch",
            ),
            (
                "[review]\nover_cost_wall_s = -1\n",
                "review.over_cost_wall_s = -1",
            ),
            (
                "[review]\nover_cost_tokens = 2000000000000\n",
                "review.over_cost_tokens = 2000000000000",
            ),
            (
                "[review]\nbefore_experiments = \"always\"\n",
                "before_experiments",
            ),
        ];
        for (text, want) in table {
            write(text);
            let e = load_with(run.path(), None, &[]).unwrap_err().to_string();
            assert!(e.contains(want), "{text}: {e}");
        }
    }
}
