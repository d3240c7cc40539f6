//! The VSA's closed vocabularies, each read tolerantly: canonical names, the drift found in
//! real YouRA files (aliases), and anything else kept verbatim as `Other` with a warning.

use std::fmt;

/// How a raw value was understood.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Parsed<T> {
    Exact(T),
    /// An alias from a drifted file; the reader reports the normalisation.
    Alias(T),
    Unknown,
}

macro_rules! vocabulary {
    ($(#[$meta:meta])* $name:ident { $($variant:ident = $canon:literal $(| $alias:literal)*),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash)]
        pub enum $name {
            $($variant,)+
            /// A value outside the vocabulary, kept as written.
            Other(String),
        }

        impl $name {
            /// Every canonical name, for error messages and completion.
            pub const NAMES: &'static [&'static str] = &[$($canon),+];

            pub fn parse(raw: &str) -> Parsed<Self> {
                let t = raw.trim();
                $(if t == $canon { return Parsed::Exact(Self::$variant); })+
                let norm = t.to_ascii_uppercase().replace(['-', ' '], "_");
                $(if norm == $canon $(|| norm == $alias)* { return Parsed::Alias(Self::$variant); })+
                Parsed::Unknown
            }

            /// The tolerant reading: aliases normalised, the rest kept as `Other`.
            pub fn read(raw: &str) -> Self {
                match Self::parse(raw) {
                    Parsed::Exact(v) | Parsed::Alias(v) => v,
                    Parsed::Unknown => Self::Other(raw.to_string()),
                }
            }

            pub fn as_str(&self) -> &str {
                match self {
                    $(Self::$variant => $canon,)+
                    Self::Other(s) => s,
                }
            }
        }

        /// Serialised by its canonical name, as the VSA writes it.
        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

vocabulary! {
    /// A sub-hypothesis's lifecycle status (YouRA template, plus youra's SKIPPED).
    HypothesisStatus {
        NotStarted = "NOT_STARTED" | "TODO" | "PENDING" | "NEW" | "WAITING",
        Ready = "READY",
        InProgress = "IN_PROGRESS" | "DOING" | "RUNNING" | "STARTED" | "ACTIVE",
        Validated = "VALIDATED" | "PASS" | "PASSED" | "SUCCESS",
        Completed = "COMPLETED" | "DONE" | "COMPLETE",
        Failed = "FAILED" | "FAIL" | "FAILURE",
        Partial = "PARTIAL",
        Blocked = "BLOCKED",
        CascadeFailed = "CASCADE_FAILED",
        CascadeSuperseded = "CASCADE_SUPERSEDED",
        Superseded = "SUPERSEDED",
        Modified = "MODIFIED",
        Skipped = "SKIPPED",
    }
}

vocabulary! {
    /// A stage's status (`phases.<key>.status`) or a sub-hypothesis' loop step's
    /// (`sub_hypotheses.<h>.validation.status`).
    PhaseStatus {
        NotStarted = "NOT_STARTED" | "TODO" | "PENDING",
        InProgress = "IN_PROGRESS" | "RUNNING" | "STARTED",
        Completed = "COMPLETED" | "DONE" | "COMPLETE",
        Failed = "FAILED" | "FAIL",
        Skipped = "SKIPPED" | "SKIP",
    }
}

impl PhaseStatus {
    /// The step is behind the run: completed or skipped.
    pub fn is_done(&self) -> bool {
        matches!(self, PhaseStatus::Completed | PhaseStatus::Skipped)
    }
}

vocabulary! {
    /// What a gate decides: MUST_WORK blocks the main hypothesis, SHOULD_WORK does not.
    GateType {
        MustWork = "MUST_WORK" | "MUST_PASS" | "MUST",
        ShouldWork = "SHOULD_WORK" | "SHOULD_PASS" | "SHOULD",
        DeterminesSuccess = "DETERMINES_SUCCESS",
    }
}

vocabulary! {
    GateResult {
        Pass = "PASS" | "PASSED" | "SUCCESS" | "VALIDATED",
        Partial = "PARTIAL",
        Fail = "FAIL" | "FAILED" | "FAILURE",
        Skipped = "SKIPPED" | "SKIP",
        Inconclusive = "INCONCLUSIVE",
    }
}

vocabulary! {
    /// YouRA's workflow statuses plus youra's PAUSED and AWAITING_APPROVAL.
    WorkflowStatus {
        Active = "ACTIVE" | "RUNNING",
        Stopped = "STOPPED" | "MUST_STOP",
        Routed = "ROUTED",
        Completed = "COMPLETED" | "DONE",
        Failed = "FAILED",
        Paused = "PAUSED",
        AwaitingApproval = "AWAITING_APPROVAL",
    }
}

vocabulary! {
    ExecutionMode {
        Interactive = "INTERACTIVE",
        Unattended = "UNATTENDED",
    }
}

vocabulary! {
    HypothesisType {
        Existence = "EXISTENCE" | "H_E",
        Mechanism = "MECHANISM" | "H_M",
        Condition = "CONDITION" | "H_C",
        Comparison = "COMPARISON" | "H_CP",
    }
}

impl HypothesisStatus {
    /// Validated or completed.
    pub fn is_validated(&self) -> bool {
        matches!(self, Self::Validated | Self::Completed)
    }

    /// Whether a prerequisite with this status and gate lets its dependants start (YouRA §3:
    /// only MUST_WORK gates block; a failed SHOULD_WORK gate is a recorded limitation and its
    /// dependants proceed). A gate of unknown type blocks, as MUST_WORK does.
    pub fn lets_dependants_start(&self, gate: Option<&GateType>) -> bool {
        self.is_validated()
            || (matches!(self, Self::Failed | Self::Partial)
                && matches!(gate, Some(GateType::ShouldWork)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_must_work_failure_blocks_its_dependants() {
        use GateType::{MustWork, ShouldWork};
        use HypothesisStatus as S;
        let cases = [
            (S::Validated, Some(MustWork), true),
            (S::Completed, None, true),
            (S::Failed, Some(ShouldWork), true),
            (S::Partial, Some(ShouldWork), true),
            (S::Failed, Some(MustWork), false),
            (S::Partial, Some(MustWork), false),
            (S::Failed, None, false),
            (S::Blocked, Some(ShouldWork), false),
            (S::Skipped, Some(ShouldWork), false),
            (S::Ready, Some(ShouldWork), false),
            (S::InProgress, Some(MustWork), false),
        ];
        for (status, gate, want) in cases {
            assert_eq!(
                status.lets_dependants_start(gate.as_ref()),
                want,
                "{status:?} {gate:?}"
            );
        }
    }

    /// A post-hoc MUST_WORK claim left INCONCLUSIVE is exploratory: its dependants run (as
    /// exploratory); a pre-registered one, or a post-hoc one that failed, blocks them.
    #[test]
    fn an_exploratory_post_hoc_claim_lets_its_dependants_run() {
        use HypothesisStatus as S;
        let h = |post_hoc: bool, status: S, result: Option<GateResult>| {
            crate::vsa::model::SubHypothesis {
                id: "h-m2".into(),
                kind: None,
                statement: None,
                status,
                gate: crate::vsa::model::Gate {
                    gate_type: Some(GateType::MustWork),
                    result,
                    ..Default::default()
                },
                prerequisites: Vec::new(),
                post_hoc,
                confirmation_seeds: None,
                line: 1,
            }
        };
        let inconclusive = Some(GateResult::Inconclusive);
        let cases = [
            (true, S::Partial, inconclusive.clone(), true),
            (false, S::Partial, inconclusive.clone(), false),
            (true, S::Partial, Some(GateResult::Fail), false),
            (true, S::InProgress, inconclusive, false),
            (true, S::Validated, Some(GateResult::Pass), true),
        ];
        for (post_hoc, status, result, want) in cases {
            let sub = h(post_hoc, status.clone(), result.clone());
            assert_eq!(
                sub.lets_dependants_start(),
                want,
                "{post_hoc} {status:?} {result:?}"
            );
        }
    }

    #[test]
    fn drifted_names_normalise_and_say_so() {
        assert_eq!(
            GateType::parse("MUST_PASS"),
            Parsed::Alias(GateType::MustWork)
        );
        assert_eq!(
            GateType::parse("should_pass"),
            Parsed::Alias(GateType::ShouldWork)
        );
        assert_eq!(
            GateType::parse("MUST_WORK"),
            Parsed::Exact(GateType::MustWork)
        );
        assert_eq!(
            HypothesisStatus::parse("todo"),
            Parsed::Alias(HypothesisStatus::NotStarted)
        );
        assert_eq!(
            HypothesisStatus::parse("PASS"),
            Parsed::Alias(HypothesisStatus::Validated)
        );
        assert_eq!(
            HypothesisStatus::parse("PENDING"),
            Parsed::Alias(HypothesisStatus::NotStarted)
        );
        assert_eq!(
            HypothesisStatus::parse("in progress"),
            Parsed::Alias(HypothesisStatus::InProgress)
        );
        assert_eq!(HypothesisStatus::parse("weird"), Parsed::Unknown);
        assert_eq!(
            HypothesisStatus::read("weird"),
            HypothesisStatus::Other("weird".into())
        );
        assert_eq!(GateResult::read("Failed").as_str(), "FAIL");
    }
}
