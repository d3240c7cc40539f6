//! The paper's figures, drawn from the run's own measured files: each sub-hypothesis's metric
//! across its attempts (what the TUI's chart shows, from `h-*/results/attempts/<n>/metrics.jsonl`)
//! and one gate summary (each criterion's measured value against its threshold). Each figure is written as SVG
//! under `paper/figures/` and recorded in `paper/figures/manifest.json` with the path and
//! sha256 of every file it plots, so `youra report check` can verify a figure like a claim.
//! Measured files are read only through `exec::collected` (the collection records), both
//! when drawing and when checking: a file youra did not collect is never plotted, and a
//! manifest naming one (or a path outside the run) is a finding, its source never opened.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::draw::{self, GateBar};
use crate::exec::collected::{self, Refused};

#[path = "figures_curve.rs"]
mod curve_of;
pub use curve_of::{Plot, curve};

/// The most bytes of a figure manifest read (a handed run folder may hold anything there).
const MAX_MANIFEST_BYTES: u64 = 4 * 1024 * 1024;

/// Where the figures and their manifest live, relative to the run.
pub(crate) const FIGURES_DIR: &str = "paper/figures";
pub const MANIFEST: &str = "paper/figures/manifest.json";

/// One measured file a figure plots.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Source {
    /// Relative to the run.
    pub path: String,
    pub sha256: String,
}

/// A figure as the paper cites it and the checker verifies it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Figure {
    /// Relative to `paper/` (what the Markdown links): `figures/h-e1_metric.svg`.
    pub file: String,
    pub caption: String,
    /// The section the figure belongs to.
    pub section: String,
    pub sources: Vec<Source>,
    /// What was left out of the figure (values no chart can draw, rows past the caps,
    /// files youra did not collect).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A sub-hypothesis and what its gate asks, as the figures need them.
#[derive(Debug, Clone, PartialEq)]
pub struct HypothesisGate {
    pub id: String,
    /// Its type as the VSA says it (EXISTENCE, MECHANISM, CONDITION…), for labels a reader
    /// can place without the id's convention.
    pub kind: Option<String>,
    /// `(metric, op, required)` per criterion.
    pub criteria: Vec<(String, String, f64)>,
    /// metric → the value the gate judged.
    pub measured: Vec<(String, f64)>,
    pub passed: Option<bool>,
    /// Per criterion (in `criteria`' order), the interval the gate read and its verdict,
    /// where it read repeats.
    pub intervals: Vec<Option<Judged>>,
    /// Whether the gate read a confirmation run on fresh seeds (a settled search's).
    pub confirmed: bool,
}

/// A criterion's interval `(lo, hi)` as the gate read it, and the interval's verdict.
pub type Judged = ((f64, f64), Option<String>);

impl HypothesisGate {
    /// The id with its type in words, as figures label it: `h-e1 (existence)`.
    pub fn name(&self) -> String {
        match self
            .kind
            .as_deref()
            .map(str::trim)
            .filter(|k| !k.is_empty())
        {
            Some(k) => format!("{} ({})", self.id, k.to_lowercase().replace('_', " ")),
            None => self.id.clone(),
        }
    }
}

/// The sub-hypotheses of the run's VSA with their gates, in VSA order.
pub fn gates_of(vsa: &crate::vsa::model::Vsa) -> Vec<HypothesisGate> {
    vsa.sub_hypotheses
        .iter()
        .map(|h| HypothesisGate {
            id: h.id.clone(),
            kind: h.kind.as_ref().map(|k| k.as_str().to_string()),
            criteria: h
                .gate
                .rules
                .iter()
                .map(|r| (r.metric.clone(), r.op.to_string(), r.value))
                .collect(),
            measured: h
                .gate
                .measured
                .iter()
                .filter_map(|(k, v)| Some((k.clone(), v.trim().parse::<f64>().ok()?)))
                .collect(),
            passed: h.gate.satisfied,
            intervals: h
                .gate
                .rules
                .iter()
                .map(|r| {
                    let e = h.gate.evidence_for(r)?;
                    Some(((e.lo?, e.hi?), e.verdict.as_ref().map(|v| v.to_string())))
                })
                .collect(),
            confirmed: h.confirmation_seeds.is_some(),
        })
        .collect()
}

/// The gate summary's bars and the files they come from (each hypothesis's final results).
pub fn gate_bars(run: &Path, gates: &[HypothesisGate]) -> (Vec<GateBar>, Vec<Source>) {
    let mut bars = Vec::new();
    let mut sources = Vec::new();
    for h in gates {
        for (i, (metric, op, required)) in h.criteria.iter().enumerate() {
            let measured = h
                .measured
                .iter()
                .find(|(m, _)| m == metric)
                .map(|(_, v)| *v);
            let judged = h.intervals.get(i).cloned().flatten();
            bars.push(GateBar {
                label: format!("{} {metric}", h.name()),
                op: op.clone(),
                required: *required,
                measured,
                passed: h.passed,
                interval: judged.as_ref().map(|(iv, _)| *iv),
                verdict: judged.and_then(|(_, v)| v),
            });
        }
        if let Ok(m) = collected::read(run, &h.id, crate::exec::RESULTS_FILE) {
            sources.push(Source {
                path: m.rel,
                sha256: m.sha256,
            });
        }
    }
    (bars, sources)
}

/// Draw every figure the run's data allows, write them and the manifest, and return them.
/// A hypothesis without metrics gets no curve; a run without gate criteria no summary.
pub fn write_all(run: &Path, gates: &[HypothesisGate]) -> Result<Vec<Figure>, String> {
    let dir = run.join(FIGURES_DIR);
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let mut figures = Vec::new();
    let mut put = |name: &str, svg: String, caption: String, sources, notes| {
        let path = dir.join(name);
        std::fs::write(&path, svg).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        figures.push(Figure {
            file: format!("figures/{name}"),
            caption,
            section: "Results".into(),
            sources,
            notes,
        });
        Ok::<(), String>(())
    };
    for h in gates {
        if let Some(Plot {
            curve: c,
            sources,
            notes,
        }) = curve(run, h)
        {
            // The metric is a key the experiment chose: no bracket may end the image link.
            let metric: String = c
                .metric
                .chars()
                .map(|ch| {
                    if "[]()_*`\\<>#!".contains(ch) {
                        ' '
                    } else {
                        ch
                    }
                })
                .collect();
            let caption = format!(
                "Measured {} of {} across its attempts{}",
                metric.trim(),
                h.id,
                if c.threshold.is_some() {
                    ", with the gate's threshold dashed"
                } else {
                    ""
                }
            );
            put(
                &format!("{}_metric.svg", h.id),
                draw::curves(&c)?,
                caption,
                sources,
                notes,
            )?;
        }
    }
    let (bars, sources) = gate_bars(run, gates);
    if !bars.is_empty() {
        let caption =
            "Gate summary: each criterion's measured value against its threshold".to_string();
        put(
            "gates.svg",
            draw::gates(&bars)?,
            caption,
            sources,
            Vec::new(),
        )?;
    }
    let manifest = serde_json::to_string_pretty(&figures).map_err(|e| e.to_string())?;
    let path = run.join(MANIFEST);
    std::fs::write(&path, manifest + "\n")
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(figures)
}

/// The manifest as written; a missing one is no figures.
pub fn load_manifest(run: &Path) -> Result<Vec<Figure>, String> {
    let path = run.join(MANIFEST);
    match crate::fsutil::read_capped_string(&path, MAX_MANIFEST_BYTES) {
        Ok(t) => serde_json::from_str(&t).map_err(|e| {
            format!(
                "{} is not a figure manifest ({e}); re-run Manuscript Drafting",
                path.display()
            )
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(e) => Err(format!("cannot read {}: {e}", path.display())),
    }
}

/// The figure links of a Markdown paper: `(line, caption, target)`. Every image the
/// converters would see, as pulldown-cmark resolves it: inline (`![x](f.svg)`) and
/// reference-style (`![x][r]` with `[r]: <…>` anywhere), so none escapes the check.
pub fn links(md: &str) -> Vec<(usize, String, String)> {
    use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
    let line_of = |offset: usize| md[..offset.min(md.len())].matches('\n').count() + 1;
    let mut out = Vec::new();
    // (line, caption so far, target) of the image being read.
    let mut open: Option<(usize, String, String)> = None;
    let options = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH;
    for (event, range) in Parser::new_ext(md, options).into_offset_iter() {
        match event {
            Event::Start(Tag::Image { dest_url, .. }) => {
                open = Some((
                    line_of(range.start),
                    String::new(),
                    dest_url.trim().to_string(),
                ));
            }
            Event::Text(t) | Event::Code(t) => {
                if let Some((_, caption, _)) = open.as_mut() {
                    caption.push_str(&t);
                }
            }
            Event::End(TagEnd::Image) => out.extend(open.take()),
            _ => {}
        }
    }
    out
}

/// What is wrong with the paper's figures: a link to a figure the manifest does not hold, a
/// figure file missing, or a plotted file that is gone or changed since it was drawn.
/// `(line, message, evidence)`; line 0 when the problem is not on a line of the paper.
pub fn problems(run: &Path, md: &str) -> Vec<(usize, String, String)> {
    let figures = match load_manifest(run) {
        Ok(f) => f,
        Err(e) => return vec![(0, "the figure manifest cannot be read".into(), e)],
    };
    let mut out = Vec::new();
    for (line, _, target) in links(md) {
        let Some(f) = figures.iter().find(|f| f.file == target) else {
            out.push((
                line,
                format!("figure {target} is not a figure drawn from the run's data"),
                format!(
                    "{MANIFEST} lists: {}",
                    figures
                        .iter()
                        .map(|f| f.file.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ));
            continue;
        };
        if !run.join("paper").join(&f.file).is_file() {
            out.push((
                line,
                format!("figure {} is missing", f.file),
                "re-run Manuscript Drafting to draw it".into(),
            ));
        }
        if f.sources.is_empty() {
            out.push((
                line,
                format!("figure {} names no measured file", f.file),
                MANIFEST.into(),
            ));
        }
        for s in &f.sources {
            out.extend(source_problem(run, f, s).map(|(m, e)| (line, m, e)));
        }
    }
    out
}

/// What is wrong with one source of figure `f`: not a file youra collected (a path outside
/// the run, a planted or changed file: never opened or never trusted), gone, or changed
/// since the figure was drawn.
fn source_problem(run: &Path, f: &Figure, s: &Source) -> Option<(String, String)> {
    let now = match collected::read_run_rel(run, &s.path) {
        Ok(m) => m.sha256,
        Err(Refused::Absent) => {
            return Some((
                format!("figure {} plots {}, which no longer exists", f.file, s.path),
                "the figure is a claim without its data".into(),
            ));
        }
        Err(Refused::NotMeasured(why)) => {
            return Some((
                format!(
                    "figure {} names {:?} as its data, which is not a measured file of the run",
                    f.file, s.path
                ),
                format!("{why}; re-run Manuscript Drafting"),
            ));
        }
        // Changed since drawn says more than "not collected" (a changed file is in no record).
        Err(Refused::NotRecorded { sha256, .. }) if sha256 != s.sha256 => sha256,
        Err(Refused::NotRecorded { why, .. } | Refused::Unreadable(why)) => {
            return Some((
                format!(
                    "figure {} plots {}, which is not a file youra collected",
                    f.file, s.path
                ),
                why,
            ));
        }
    };
    (now != s.sha256).then(|| {
        (
            format!(
                "figure {} plots {}, which changed since it was drawn",
                f.file, s.path
            ),
            format!(
                "sha256 recorded {}, now {now}; re-run Manuscript Drafting",
                s.sha256
            ),
        )
    })
}

/// The paper with a link to every figure not linked yet, at the end of its Results section
/// (or at the end when it has none). The caption is what the paper cites.
pub fn with_links(md: &str, figures: &[Figure]) -> String {
    let linked: Vec<String> = links(md).into_iter().map(|(_, _, t)| t).collect();
    let missing: Vec<&Figure> = figures
        .iter()
        .filter(|f| !linked.contains(&f.file))
        .collect();
    if missing.is_empty() {
        return md.to_string();
    }
    let block: String = missing
        .iter()
        .map(|f| format!("![{}]({})\n\n", f.caption, f.file))
        .collect();
    let lines: Vec<&str> = md.lines().collect();
    let results = lines.iter().position(|l| {
        l.starts_with('#')
            && l.trim_start_matches('#')
                .trim()
                .eq_ignore_ascii_case("results")
    });
    let end = results.map(|r| {
        lines[r + 1..]
            .iter()
            .position(|l| l.starts_with("# ") || l.starts_with("## "))
            .map_or(lines.len(), |i| r + 1 + i)
    });
    match end {
        Some(at) => {
            let mut head = lines[..at].join("\n");
            head = head.trim_end().to_string();
            let tail = lines[at..].join("\n");
            let mut out = format!("{head}\n\n{}", block);
            out.push_str(&tail);
            if md.ends_with('\n') && !out.ends_with('\n') {
                out.push('\n');
            }
            out
        }
        None => format!("{}\n\n{}", md.trim_end(), block.trim_end()) + "\n",
    }
}

/// The run folder a figure source path is relative to (for messages).
pub fn figure_path(run: &Path, f: &Figure) -> PathBuf {
    run.join("paper").join(&f.file)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_style_images_are_links_too() {
        // A reference-style image used to escape the check (inline images only); its
        // definition may sit anywhere, with a path the model chose.
        let md = "# Results\n\n![Accuracy](figures/fig1.svg)\n\nText ![x][r] more.\n\n\
                  [r]: <../../etc/x\";.svg>\n";
        let found = links(md);
        assert_eq!(
            found,
            vec![
                (3, "Accuracy".to_string(), "figures/fig1.svg".to_string()),
                (5, "x".to_string(), "../../etc/x\";.svg".to_string()),
            ]
        );
        // Code spans and escaped brackets are not images.
        assert!(links("`![a](b.svg)` and \\![c](d.svg)\n").is_empty());
    }
}
