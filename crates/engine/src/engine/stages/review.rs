//! Adversarial Fact Review (Phase 6.5): three reviewers (Accuracy Checker, Bored Reviewer,
//! Skeptical Expert) read the paper with the registry and the automatic checks (sanitizer,
//! method provenance); MAJOR findings block convergence and send the paper to a bounded
//! refinement round.

use crate::llm::ReplySchema;
use crate::llm::schema as js;
use serde_json::Value;

use super::{Produced, StageRunner};
use crate::engine::check::Check;
use crate::engine::ctx::{StageCtx, Vars};
use crate::engine::error::StageError;
use crate::engine::reply::str_field;
use crate::llm::Message;
use crate::report::{Corpus, DEFAULT_TOLERANCE, Registry, findings, provenance, sanitize};

pub(crate) const REVISED: &str = "paper/06_paper_reviewed.md";
pub(crate) const SUMMARY: &str = "paper/review/fact_review.md";

pub(crate) const REVIEWERS: [(&str, &str); 3] = [
    (
        "Accuracy Checker",
        "you check every number and named method against the registry and the provenance report",
    ),
    (
        "Bored Reviewer",
        "you skim: you flag claims that are vague, overstated or unsupported at a glance",
    ),
    (
        "Skeptical Expert",
        "you look for confounds, missing baselines and conclusions the evidence does not carry",
    ),
];

pub struct FactReview;

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ReviewFinding {
    pub reviewer: String,
    pub major: bool,
    pub text: String,
}

/// A reviewer's findings: each a claim, what is wrong with it, the fix, MAJOR or MINOR.
pub(crate) fn findings_schema() -> ReplySchema {
    let finding = js::object_with(
        &[
            ("severity", js::one_of(&["MAJOR", "MINOR"])),
            ("claim", js::text()),
            ("problem", js::text()),
        ],
        &[("fix", js::string()), ("section", js::string())],
    );
    ReplySchema::new(
        "review_findings",
        js::object(&[("findings", js::array(finding, 0, None))]),
    )
}

/// A reviewer's JSON findings; an unknown severity counts as MAJOR (a reviewer who cannot
/// say how bad it is has not cleared it).
pub(crate) fn parse_findings(reviewer: &str, v: &Value) -> Vec<ReviewFinding> {
    v.get("findings")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .map(|f| ReviewFinding {
                    reviewer: reviewer.to_string(),
                    major: !str_field(f, "severity")
                        .is_some_and(|s| s.eq_ignore_ascii_case("MINOR")),
                    text: format!(
                        "{}: {} (fix: {})",
                        str_field(f, "claim").unwrap_or("?"),
                        str_field(f, "problem").unwrap_or("?"),
                        str_field(f, "fix").unwrap_or("-")
                    ),
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The automatic checks on a paper, as text for the reviewers and as findings.
pub fn automatic(
    ctx: &StageCtx<'_>,
    paper: &str,
    registry: &Registry,
) -> (String, Vec<ReviewFinding>) {
    let s = sanitize(paper, registry, DEFAULT_TOLERANCE);
    let corpus = Corpus::load(ctx.run).unwrap_or_else(|_| Corpus::from_texts(Vec::new()));
    let p = provenance::check(paper, &corpus);
    let mut all = findings::combine(&s, &p);
    // References and figures: a hallucinated citation or a figure without its data is MAJOR.
    all = findings::sorted(
        all.into_iter()
            .chain(crate::paper::check(ctx.run, paper))
            .collect(),
    );
    let text = if all.is_empty() {
        "no automatic findings".to_string()
    } else {
        all.iter()
            .map(|f| {
                format!(
                    "- {} line {}: {} ({})",
                    f.severity.label(),
                    f.line,
                    f.message,
                    f.evidence
                )
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    let out = all
        .iter()
        .map(|f| ReviewFinding {
            reviewer: "automatic checks".into(),
            major: f.severity == crate::report::Severity::Major,
            text: format!("line {}: {}", f.line, f.message),
        })
        .collect();
    (text, out)
}

impl StageRunner for FactReview {
    fn run(&self, ctx: &StageCtx<'_>, _: Option<&str>) -> Result<Produced, StageError> {
        let registry = super::drafting::registry(ctx)?;
        let mut paper = ctx.read(super::drafting::PAPER).ok_or_else(|| {
            StageError::MustStop("paper/06_paper.md is missing; re-run Manuscript Drafting".into())
        })?;
        let rounds = ctx.settings.review_max_rounds.max(1);
        let mut log = vec!["# Adversarial Fact Review\n".to_string()];
        let mut open = Vec::new();
        for round in 1..=rounds {
            let (checks, auto) = automatic(ctx, &paper, &registry);
            let mut found = auto;
            for (name, brief) in REVIEWERS {
                let vars: Vars = [
                    ("round", round.to_string()),
                    ("reviewer", name.to_string()),
                    ("reviewer_brief", brief.to_string()),
                    ("registry", registry.whitelist()),
                    ("checks", checks.clone()),
                    ("paper", paper.clone()),
                ]
                .into_iter()
                .collect();
                let v = ctx.ask_json(
                    "reviewer",
                    "system/reviewer",
                    "fact_review",
                    &vars,
                    &findings_schema(),
                )?;
                found.extend(parse_findings(name, &v));
            }
            let majors = found.iter().filter(|f| f.major).count();
            log.push(format!(
                "## Round {round}: {majors} MAJOR, {} MINOR\n",
                found.len() - majors
            ));
            log.extend(found.iter().map(|f| {
                format!(
                    "- **{}** [{}] {}",
                    if f.major { "MAJOR" } else { "MINOR" },
                    f.reviewer,
                    f.text
                )
            }));
            open = found.into_iter().filter(|f| f.major).collect();
            if open.is_empty() {
                break;
            }
            if round < rounds {
                paper = refine(ctx, &paper, &open, &registry)?;
            }
        }
        ctx.write(REVISED, &paper)?;
        let outcome = if open.is_empty() {
            "Converged: no MAJOR finding remains.".to_string()
        } else {
            format!(
                "Stopped at the round limit ({rounds}) with {} MAJOR findings open.",
                open.len()
            )
        };
        log.push(format!("\n## Outcome\n\n{outcome}\n"));
        ctx.write(SUMMARY, &log.join("\n"))?;
        let missing = if open.is_empty() {
            Vec::new()
        } else {
            vec![format!(
                "a paper without MAJOR findings ({} remain after {rounds} rounds)",
                open.len()
            )]
        };
        Ok(Produced::new(SUMMARY, Check { missing }))
    }
}

/// One refinement round: the executor revises the paper against the findings; the result
/// is sanitized before anyone reads it.
pub fn refine(
    ctx: &StageCtx<'_>,
    paper: &str,
    findings: &[ReviewFinding],
    registry: &Registry,
) -> Result<String, StageError> {
    let list = findings
        .iter()
        .map(|f| format!("- [{}] {}", f.reviewer, f.text))
        .collect::<Vec<_>>()
        .join("\n");
    let vars: Vars = [("findings", list), ("paper", paper.to_string())]
        .into_iter()
        .collect();
    let system = ctx.prompts.render("system/executor", &vars)?;
    let user = ctx.prompts.render("manuscript_refinement", &vars)?;
    let reply = ctx.ask_messages(
        "executor",
        vec![Message::system(system), Message::user(user)],
        false,
    )?;
    Ok(sanitize(reply.content.trim(), registry, DEFAULT_TOLERANCE).text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn findings_default_to_major() {
        let v = serde_json::json!({"findings": [{"severity": "MINOR", "claim": "a"}, {"severity": "MAJOR", "claim": "b"}, {"claim": "c"}]});
        let f = parse_findings("R", &v);
        assert_eq!(
            f.iter().map(|x| x.major).collect::<Vec<_>>(),
            [false, true, true]
        );
        assert!(parse_findings("R", &serde_json::json!({})).is_empty());
    }
}
