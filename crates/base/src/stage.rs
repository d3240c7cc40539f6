//! The lifecycle's stages (YouRA §3.1, Appendix A): each with the reader-facing name and the
//! YouRA label that real VSA files carry in `workflow.current_phase`.

use std::fmt;

use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum Stage {
    ProblemScoping,
    LiteratureGrounding,
    HypothesisDebate,
    VerificationPlanning,
    ExperimentDesign,
    ImplementationPlanning,
    CodingValidation,
    EvidenceCheck,
    ManuscriptDrafting,
    FactReview,
    ManuscriptRefinement,
}

impl Stage {
    pub const ALL: [Stage; 11] = [
        Stage::ProblemScoping,
        Stage::LiteratureGrounding,
        Stage::HypothesisDebate,
        Stage::VerificationPlanning,
        Stage::ExperimentDesign,
        Stage::ImplementationPlanning,
        Stage::CodingValidation,
        Stage::EvidenceCheck,
        Stage::ManuscriptDrafting,
        Stage::FactReview,
        Stage::ManuscriptRefinement,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Stage::ProblemScoping => "Problem Scoping",
            Stage::LiteratureGrounding => "Literature Grounding",
            Stage::HypothesisDebate => "Hypothesis Debate",
            Stage::VerificationPlanning => "Verification Planning",
            Stage::ExperimentDesign => "Experiment Design",
            Stage::ImplementationPlanning => "Implementation Planning",
            Stage::CodingValidation => "Coding & Validation",
            Stage::EvidenceCheck => "Evidence Check",
            Stage::ManuscriptDrafting => "Manuscript Drafting",
            Stage::FactReview => "Adversarial Fact Review",
            Stage::ManuscriptRefinement => "Manuscript Refinement",
        }
    }

    /// A stable snake_case key: transcript names, call keys, `phases.<key>` in the VSA.
    pub fn key(self) -> &'static str {
        match self {
            Stage::ProblemScoping => "problem_scoping",
            Stage::LiteratureGrounding => "literature_grounding",
            Stage::HypothesisDebate => "hypothesis_debate",
            Stage::VerificationPlanning => "verification_planning",
            Stage::ExperimentDesign => "experiment_design",
            Stage::ImplementationPlanning => "implementation_planning",
            Stage::CodingValidation => "coding_validation",
            Stage::EvidenceCheck => "evidence_check",
            Stage::ManuscriptDrafting => "manuscript_drafting",
            Stage::FactReview => "fact_review",
            Stage::ManuscriptRefinement => "manuscript_refinement",
        }
    }

    /// YouRA's label, as `workflow.current_phase` writes it.
    pub fn label(self) -> &'static str {
        match self {
            Stage::ProblemScoping => "Phase 0",
            Stage::LiteratureGrounding => "Phase 1",
            Stage::HypothesisDebate => "Phase 2A",
            Stage::VerificationPlanning => "Phase 2B",
            Stage::ExperimentDesign => "Phase 2C",
            Stage::ImplementationPlanning => "Phase 3",
            Stage::CodingValidation => "Phase 4",
            Stage::EvidenceCheck => "Phase 4.5",
            Stage::ManuscriptDrafting => "Phase 6",
            Stage::FactReview => "Phase 6.5",
            Stage::ManuscriptRefinement => "Refine",
        }
    }

    /// The stage a `current_phase` value names: a label (`Phase 2A-Dialogue`,
    /// `Phase 6.5.1 (COMPLETED)`), a name, or a snake_case name. `None` when it names none
    /// (`Hypothesis Loop` counts as Coding & Validation's loop, `Phase 5` as Evidence Check's
    /// baseline step).
    pub fn parse(raw: &str) -> Option<Stage> {
        let t = raw.trim();
        let lower = t.to_ascii_lowercase().replace(['_', '-'], " ");
        if let Some(s) = Stage::ALL
            .iter()
            .find(|s| lower.starts_with(&s.name().to_ascii_lowercase()))
        {
            return Some(*s);
        }
        if lower.starts_with("hypothesis loop") {
            return Some(Stage::CodingValidation);
        }
        if lower.starts_with("refine") || lower.contains("manuscript refinement") {
            return Some(Stage::ManuscriptRefinement);
        }
        let rest = lower.strip_prefix("phase")?.trim();
        let code: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '.')
            .collect();
        Some(match code.as_str() {
            "0" => Stage::ProblemScoping,
            "1" => Stage::LiteratureGrounding,
            "2a" | "2" => Stage::HypothesisDebate,
            "2b" => Stage::VerificationPlanning,
            "2c" => Stage::ExperimentDesign,
            "3" => Stage::ImplementationPlanning,
            "4" => Stage::CodingValidation,
            "4.5" | "5" => Stage::EvidenceCheck,
            "6" => Stage::ManuscriptDrafting,
            c if c.starts_with("6.5") => Stage::FactReview,
            _ => return None,
        })
    }
}

impl fmt::Display for Stage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.name(), self.label())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_and_names_parse() {
        assert_eq!(
            Stage::parse("Phase 2A-Dialogue"),
            Some(Stage::HypothesisDebate)
        );
        assert_eq!(
            Stage::parse("Phase 6.5.1 (COMPLETED)"),
            Some(Stage::FactReview)
        );
        assert_eq!(Stage::parse("Phase 4.5"), Some(Stage::EvidenceCheck));
        assert_eq!(Stage::parse("Phase 4"), Some(Stage::CodingValidation));
        assert_eq!(Stage::parse("phase 2c"), Some(Stage::ExperimentDesign));
        assert_eq!(
            Stage::parse("Coding & Validation"),
            Some(Stage::CodingValidation)
        );
        assert_eq!(
            Stage::parse("hypothesis_debate"),
            Some(Stage::HypothesisDebate)
        );
        assert_eq!(
            Stage::parse("Hypothesis Loop"),
            Some(Stage::CodingValidation)
        );
        assert_eq!(Stage::parse("Refine"), Some(Stage::ManuscriptRefinement));
        assert_eq!(Stage::parse("Phase 9"), None);
        assert_eq!(Stage::parse("lunch"), None);
        for s in Stage::ALL {
            assert_eq!(Stage::parse(s.label()), Some(s), "{s}");
            assert_eq!(Stage::parse(s.name()), Some(s), "{s}");
        }
    }
}
