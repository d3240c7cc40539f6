//! Manuscript Drafting (Phase 6): the paper in YouRA's story groups, Foundation, Evidence
//! and Closure, then the abstract last; every drafting prompt carries the whitelist of
//! measured values, and the draft is sanitized against the registry before it is written.
//! The Discussion follows Evidence Check's per-prediction verdicts: the prompt gives them in
//! order, and the section opens with them as Evidence Check judged them (by rule, so no
//! verdict is upgraded in the retelling).

use super::{Produced, StageRunner};
use crate::engine::check::sections;
use crate::engine::ctx::{StageCtx, Vars};
use crate::engine::error::StageError;
use crate::report::registry_yaml::{self, REGISTRY_FILE};
use crate::report::{DEFAULT_TOLERANCE, Registry, sanitize};

pub const PAPER: &str = "paper/06_paper.md";

pub(crate) const GROUPS: [(&str, &[&str]); 4] = [
    ("Foundation", &["Introduction", "Related Work", "Method"]),
    ("Evidence", &["Experiments", "Results"]),
    ("Closure", &["Discussion", "Limitations", "Conclusion"]),
    ("Abstract", &["Abstract"]),
];

pub struct ManuscriptDrafting;

pub fn registry(ctx: &StageCtx<'_>) -> Result<Registry, StageError> {
    registry_yaml::load(&ctx.path(REGISTRY_FILE)).map_err(|e| {
        StageError::MustStop(format!(
            "the ground-truth registry {REGISTRY_FILE} cannot be read ({e}); re-run Evidence Check"
        ))
    })
}

/// Sanitize `paper` against the registry and write it with its sanitizer report.
pub(crate) fn write_sanitized(
    ctx: &StageCtx<'_>,
    rel: &str,
    paper: &str,
    registry: &Registry,
) -> Result<crate::report::SanitizeReport, StageError> {
    let paper = with_sandbox_note(paper, ctx.sandbox);
    // Claims stated after a redesign are named in the Method (issue 40 item 5), in the draft
    // and in every later version of it.
    let post_hoc = ctx.vsa().ok().and_then(|snap| {
        super::post_hoc::note(
            &super::post_hoc::ids(&snap),
            ctx.evidence.rule().min_repeats > 1,
        )
    });
    let paper = super::method_note::with_note(&paper, post_hoc.as_deref());
    let multiple = ctx
        .vsa()
        .ok()
        .and_then(|snap| super::multiplicity::note(&snap, ctx.evidence.rule().confidence));
    let paper = super::method_note::with_note(&paper, multiple.as_deref());
    let selection = ctx
        .vsa()
        .ok()
        .and_then(|snap| super::selection_note::note(&snap));
    let paper = super::method_note::with_note(&paper, selection.as_deref());
    // Where the audit does not find the data real, the Method says so (issue 44 item 4).
    let paper = super::method_note::with_note(&paper, super::data_note::note(ctx.run));
    let report = sanitize(&paper, registry, DEFAULT_TOLERANCE);
    ctx.write(rel, &report.text)?;
    let name = rel
        .rsplit('/')
        .next()
        .unwrap_or(rel)
        .trim_end_matches(".md");
    ctx.write(
        &format!("paper/review/sanitizer_{name}.md"),
        &crate::report::review::sanitizer_report(rel, &report, registry, DEFAULT_TOLERANCE),
    )?;
    Ok(report)
}

/// The paper with its figures drawn from the measured files (written under
/// `paper/figures/`, each linked in Results), its "Deviations from the plan" section
/// (`paper::deviations`) and, when the run retrieved no works, the note that it cites none. A figure that cannot be drawn is reported, not fatal: the paper
/// without it is still true.
pub(crate) fn with_figures_and_references(
    ctx: &StageCtx<'_>,
    paper: &str,
    vsa: &crate::vsa::model::Vsa,
    records: &[crate::paper::refs::Record],
) -> String {
    let gates = crate::paper::figures::gates_of(vsa);
    let paper = match crate::paper::figures::write_all(ctx.run, &gates) {
        Ok(figures) => crate::paper::figures::with_links(paper, &figures),
        Err(e) => {
            ctx.emit(
                crate::rundir::events::Event::new("figures")
                    .message(format!("the paper's figures could not be drawn: {e}")),
            );
            paper.to_string()
        }
    };
    // The run's departures from its plan, with who and why, from the VSA (issue 40 item 5).
    // The whole history: a snapshot after a write elides its older items.
    let deviations = ctx.vsa().ok().and_then(|s| ctx.store.whole(&s).ok());
    let deviations = deviations.map(|s| crate::vsa::deviation::read(&s.doc));
    let paper = crate::paper::deviations::with_section(&paper, &deviations.unwrap_or_default());
    crate::paper::with_reference_note(&paper, records)
}

/// What a reader of the paper must know when the experiments were not confined.
pub(crate) const UNSANDBOXED_NOTE: &str = "Experiments ran without a sandbox (`[exec] sandbox = \"off\"`): the generated code had its user's full access to the machine and its network.";

/// The paper with [`UNSANDBOXED_NOTE`] opening its Method section (or, without one, after
/// the title) when the sandbox was off; unchanged otherwise, and never noted twice.
pub(crate) fn with_sandbox_note(paper: &str, sandbox: crate::exec::SandboxMode) -> String {
    if sandbox != crate::exec::SandboxMode::Off || paper.contains(UNSANDBOXED_NOTE) {
        return paper.to_string();
    }
    super::method_note::opening_method(paper, UNSANDBOXED_NOTE, true)
        .unwrap_or_else(|| paper.to_string())
}

impl StageRunner for ManuscriptDrafting {
    fn run(&self, ctx: &StageCtx<'_>, _: Option<&str>) -> Result<Produced, StageError> {
        let registry = registry(ctx)?;
        let snap = ctx.vsa()?;
        let main = snap.vsa.main_hypothesis.as_ref();
        let title = main
            .and_then(|m| m.title.clone())
            .unwrap_or_else(|| ctx.topic.clone());
        let statement = main.and_then(|m| m.statement.clone()).unwrap_or_default();
        let evidence = ctx.read(super::evidence::ARTIFACT).unwrap_or_default();
        let points = super::evidence::discussion_points(&evidence);
        let discussion = if points.is_empty() {
            "(Evidence Check recorded no per-prediction verdicts)".to_string()
        } else {
            points.join("\n")
        };
        let records = crate::paper::records(ctx.run)
            .map_err(|e| StageError::MustStop(format!("{e}; re-run Literature Grounding")))?;
        let references = crate::engine::literature::Search {
            note: String::new(),
            records: records.clone(),
        }
        .results_markdown();
        let mut drafted: Vec<(&str, String)> = Vec::new();
        for (group, secs) in GROUPS {
            let so_far = drafted
                .iter()
                .map(|(_, t)| t.as_str())
                .collect::<Vec<_>>()
                .join("\n\n");
            let vars: Vars = [
                ("group", group.to_string()),
                ("sections", secs.join(", ")),
                ("main_hypothesis", statement.clone()),
                ("evidence", evidence.clone()),
                ("discussion", discussion.clone()),
                ("whitelist", registry.whitelist()),
                ("references", references.clone()),
                (
                    "drafted",
                    if so_far.is_empty() {
                        "(none yet)".into()
                    } else {
                        so_far
                    },
                ),
            ]
            .into_iter()
            .collect();
            let reply = ctx.ask_sections(
                "executor",
                "system/executor",
                "manuscript_drafting",
                &vars,
                secs,
            )?;
            drafted.push((group, reply.trim().to_string()));
        }
        // The abstract was written last but reads first.
        let abstract_ = drafted.pop().map(|(_, t)| t).unwrap_or_default();
        let body = drafted
            .into_iter()
            .map(|(_, t)| t)
            .collect::<Vec<_>>()
            .join("\n\n");
        let paper = format!("# {title}\n\n{abstract_}\n\n{body}\n");
        let paper = with_verdicts(&paper, &points);
        let paper = with_figures_and_references(ctx, &paper, &snap.vsa, &records);
        let report = write_sanitized(ctx, PAPER, &paper, &registry)?;
        let all: Vec<&str> = GROUPS.iter().flat_map(|(_, s)| s.iter().copied()).collect();
        let mut check = sections(&report.text, &all);
        if !report.replacements.is_empty() {
            ctx.emit(
                crate::rundir::events::Event::new("sanitizer").message(format!(
                    "{} unverified table numbers replaced with ---",
                    report.replacements.len()
                )),
            );
        }
        check.missing.retain(|m| !m.is_empty());
        Ok(Produced::new(PAPER, check))
    }
}

/// The paper with Evidence Check's per-prediction verdicts opening its Discussion (after
/// the heading); unchanged without a Discussion or verdicts, and never inserted twice.
pub(crate) fn with_verdicts(paper: &str, points: &[String]) -> String {
    if points.is_empty() || points.iter().all(|p| paper.contains(p.as_str())) {
        return paper.to_string();
    }
    let mut lines: Vec<&str> = paper.lines().collect();
    let Some(at) = lines.iter().position(|l| {
        l.starts_with('#')
            && l.trim_start_matches('#')
                .trim()
                .eq_ignore_ascii_case("discussion")
    }) else {
        return paper.to_string();
    };
    let block = format!(
        "\nEvidence Check judged each prediction of the main hypothesis on the gates it rests on:\n\n{}\n",
        points.join("\n")
    );
    lines.insert(at + 1, &block);
    let mut out = lines.join("\n");
    if paper.ends_with('\n') {
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::SandboxMode;

    #[test]
    fn the_discussion_opens_with_the_verdicts_once() {
        let points = vec!["- **P1** (gain <= 0.02): refuted; rests on h-m1.".to_string()];
        let paper = "# T\n\n## Results\n\nR.\n\n## Discussion\nMass matters.\n";
        let with = with_verdicts(paper, &points);
        assert_eq!(
            with,
            format!(
                "# T\n\n## Results\n\nR.\n\n## Discussion\n\nEvidence Check judged each prediction of the main hypothesis on the gates it rests on:\n\n{}\n\nMass matters.\n",
                points[0]
            )
        );
        assert_eq!(with_verdicts(&with, &points), with, "once");
        assert_eq!(with_verdicts(paper, &[]), paper);
        assert_eq!(
            with_verdicts("# T\n\nNo discussion.\n", &points),
            "# T\n\nNo discussion.\n"
        );
    }

    #[test]
    fn an_unsandboxed_run_says_so_in_its_method() {
        let paper = "# T\n\nAbstract.\n\n## Method\n\nWe fit.\n";
        assert_eq!(with_sandbox_note(paper, SandboxMode::Required), paper);
        let noted = with_sandbox_note(paper, SandboxMode::Off);
        assert_eq!(
            noted,
            format!("# T\n\nAbstract.\n\n## Method\n\n{UNSANDBOXED_NOTE}\n\nWe fit.\n")
        );
        assert_eq!(with_sandbox_note(&noted, SandboxMode::Off), noted, "once");
        let bare = with_sandbox_note("# T\n\nText.", SandboxMode::Off);
        assert!(
            bare.starts_with(&format!("# T\n\n{UNSANDBOXED_NOTE}")),
            "{bare}"
        );
    }
}
