//! The interval rule of a gate (decision 0033), a pure function: for `>=`, PASS when the
//! interval's lower bound clears the threshold, FAIL when its upper bound misses it, otherwise
//! INCONCLUSIVE; `<=` mirrored; a gain decided the same way on its paired interval.
//!
//! An INCONCLUSIVE says what it asks next, as data the engine acts on: more repeats up to
//! `max_repeats` (in looks of `min_repeats`: 5, 10, 15, 20 at the defaults), then the
//! researcher. Each look after the first is judged at a higher confidence, so that looking
//! again cannot buy a PASS: the first look spends half the error budget (one side of a 95%
//! interval: 2.5%), the top-up looks share the other half (Bonferroni), and a false claim
//! stays under 1 − confidence however many looks a study takes.

use std::fmt;

use serde::Serialize;

use super::stats::{Bounds, IntervalRule, Spec, StatsError, Summary, op_sign, percent};
use crate::vocab::Op;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Verdict {
    Pass,
    Fail,
    /// Never a pass: the engine asks for more repeats or the researcher.
    Inconclusive,
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Verdict::Pass => "PASS",
            Verdict::Fail => "FAIL",
            Verdict::Inconclusive => "INCONCLUSIVE",
        })
    }
}

/// Why the verdict is what it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Reason {
    /// The whole interval is on the criterion's side of the threshold.
    Clears,
    /// The whole interval is on the other side.
    Misses,
    /// The interval holds the threshold: the data cannot tell.
    Straddles,
    /// Fewer repeats than `min_repeats`: the plan's measurement is not complete.
    MoreRepeats,
    /// `==`: an interval can show that a value differs, never that it equals one; state a
    /// tolerance as two criteria (`>= v − ε` and `<= v + ε`).
    EqualityUnprovable,
}

/// What an INCONCLUSIVE asks next (`Done` for PASS and FAIL).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "next", rename_all = "snake_case")]
pub enum Next {
    Done,
    /// Run repeats until there are `want` values and judge again.
    MoreRepeats {
        have: usize,
        want: usize,
    },
    /// At `max_repeats` (or where repeats cannot help): the researcher decides in INTERACTIVE
    /// mode; otherwise it is recorded as inconclusive, never as a pass.
    Researcher,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Decision {
    pub verdict: Verdict,
    pub reason: Reason,
    pub next: Next,
}

impl Decision {
    /// One sentence for a log, a card or the paper: the verdict and the numbers behind it.
    pub fn why(&self, s: &Summary, op: Op, threshold: f64) -> String {
        let at = format!("{} {threshold}", op_sign(op));
        let ci = format!(
            "the {} interval {:.4}–{:.4}",
            percent(s.confidence),
            s.lo,
            s.hi
        );
        let tail = match self.next {
            Next::Done => String::new(),
            Next::MoreRepeats { want, .. } => format!("; run repeats up to {want}"),
            Next::Researcher => "; repeats are at their cap: the researcher decides".into(),
        };
        let what = match self.reason {
            Reason::Clears => format!("{ci} lies wholly within {at}"),
            Reason::Misses => format!("{ci} lies wholly outside {at}"),
            Reason::Straddles => format!("{ci} holds the threshold of {at}"),
            Reason::MoreRepeats => format!("{} repeats of the planned {at} so far", s.repeats),
            Reason::EqualityUnprovable => format!(
                "{ci} holds {threshold}, which cannot prove {at}; state a tolerance as two criteria"
            ),
        };
        format!("{}: {what}{tail}", self.verdict)
    }
}

/// Why no verdict can be given at all.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Refused {
    #[error(
        "{n} measurement where the plan asks for {min} repeats: one value has no spread, so \
         no interval exists; run the experiment on {min} seeds (or folds) and report one value \
         per repeat"
    )]
    TooFewRepeats { n: usize, min: usize },
    #[error("the criterion's threshold {0} is not a finite number; fix the plan's criterion")]
    Threshold(f64),
    #[error("{0}")]
    Values(StatsError),
}

/// `[evidence]` as the rule reads it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Rule {
    pub min_repeats: usize,
    pub max_repeats: usize,
    pub confidence: f64,
    pub interval: IntervalRule,
}

impl Default for Rule {
    fn default() -> Rule {
        Rule {
            min_repeats: super::MIN_REPEATS,
            max_repeats: super::MAX_REPEATS,
            confidence: super::CONFIDENCE,
            interval: IntervalRule::Auto,
        }
    }
}

impl Rule {
    /// n = 0 has nothing to judge; n = 1 has no interval where the plan asked for more.
    pub(crate) fn admit(&self, n: usize) -> Result<(), Refused> {
        match n {
            0 => Err(Refused::Values(StatsError::Empty)),
            1 if self.min_repeats > 1 => Err(Refused::TooFewRepeats {
                n,
                min: self.min_repeats,
            }),
            _ => Ok(()),
        }
    }

    /// Looks after the first one: ⌈(max − min) / min⌉ (3 at 5 and 20).
    pub(crate) fn top_up_looks(&self) -> usize {
        let step = self.min_repeats.max(1);
        self.max_repeats
            .saturating_sub(self.min_repeats)
            .div_ceil(step)
    }

    /// The confidence of the look at `n` repeats: `confidence` at the first look; at a
    /// top-up look 1 − (1 − confidence) / top-up looks (0.9833 at the defaults).
    pub(crate) fn confidence_at(&self, n: usize) -> f64 {
        let k = self.top_up_looks();
        if n <= self.min_repeats || k == 0 {
            self.confidence
        } else {
            1.0 - (1.0 - self.confidence) / k as f64
        }
    }

    /// The repeats the look after `n` wants: the next multiple of `min_repeats`, at most
    /// `max_repeats`.
    pub(crate) fn next_look(&self, n: usize) -> usize {
        let step = self.min_repeats.max(1);
        if n < self.min_repeats {
            return self.min_repeats;
        }
        (self.min_repeats + ((n - self.min_repeats) / step + 1) * step).min(self.max_repeats)
    }

    /// How the values of the look at `n` repeats are summarised.
    pub fn spec(&self, n: usize, bounds: Option<Bounds>) -> Spec {
        Spec {
            confidence: self.confidence_at(n),
            interval: self.interval,
            bounds,
            cv: None,
        }
    }
}

/// The verdict of `op threshold` on `s`'s interval (a gain's: its `diff`). `s` should be
/// summarised at `rule.confidence_at(s.n)`, as `evidence::judge` does.
pub fn decide(op: Op, threshold: f64, s: &Summary, rule: &Rule) -> Result<Decision, Refused> {
    if !threshold.is_finite() {
        return Err(Refused::Threshold(threshold));
    }
    rule.admit(s.n)?;
    if s.repeats < rule.min_repeats {
        return Ok(Decision {
            verdict: Verdict::Inconclusive,
            reason: Reason::MoreRepeats,
            next: Next::MoreRepeats {
                have: s.repeats,
                want: rule.min_repeats,
            },
        });
    }
    let (lo, hi) = (s.lo, s.hi);
    let (clears, misses) = match op {
        Op::Ge => (lo >= threshold, hi < threshold),
        Op::Gt => (lo > threshold, hi <= threshold),
        Op::Le => (hi <= threshold, lo > threshold),
        Op::Lt => (hi < threshold, lo >= threshold),
        Op::Eq => (false, lo > threshold || hi < threshold),
    };
    let done = |verdict, reason| Decision {
        verdict,
        reason,
        next: Next::Done,
    };
    Ok(if clears {
        done(Verdict::Pass, Reason::Clears)
    } else if misses {
        done(Verdict::Fail, Reason::Misses)
    } else if op == Op::Eq {
        // More repeats narrow the interval but never shrink it to a point.
        Decision {
            verdict: Verdict::Inconclusive,
            reason: Reason::EqualityUnprovable,
            next: Next::Researcher,
        }
    } else {
        Decision {
            verdict: Verdict::Inconclusive,
            reason: Reason::Straddles,
            next: if s.repeats < rule.max_repeats {
                Next::MoreRepeats {
                    have: s.repeats,
                    want: rule.next_look(s.repeats),
                }
            } else {
                Next::Researcher
            },
        }
    })
}

#[cfg(test)]
#[path = "verdict_tests.rs"]
mod tests;
