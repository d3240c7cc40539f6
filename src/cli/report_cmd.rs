//! `youra report check`: does the manuscript claim only what the run measured and executed?
//! Exit 1 when a MAJOR finding exists in the checked paper (`--write` produces a sanitized
//! copy but the paper itself still carries them), 0 otherwise, 2 for usage and I/O errors.
//! `youra report html`: the run as one self-contained HTML file (`crate::webreport`), its
//! paper checked by the same code.

use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};
use color_eyre::eyre::{Result, WrapErr, eyre};

use crate::report::findings::{self, Finding, Severity};
use crate::report::registry::{Origin, Registry};
use crate::report::registry_yaml::{self, REGISTRY_FILE};
use crate::report::{Corpus, DEFAULT_TOLERANCE, provenance, registry_build, sanitize};

#[derive(Debug, Subcommand)]
pub enum ReportCommand {
    /// Check a paper against the run: every table number must be a measured value (1%
    /// relative tolerance) of the claim its row and column name, prose numbers are listed
    /// (a prose number stating another claim's value than its sentence names is MAJOR), and every dataset, model, metric,
    /// statistical test and hyperparameter named must appear in the run's code, configs or
    /// logs. Exit 1 when a MAJOR finding remains, 0 when none, 2 for usage or I/O errors.
    Check(CheckArgs),
    /// Write the run as one self-contained HTML file for people without a terminal: the
    /// lifecycle with times, gates (required vs measured), the plan tree, escalations with
    /// their decisions and reasons, metric charts, memory records, and the paper with its
    /// check results. Nothing in it loads from the network. Exit 0 when written, 2 when the
    /// run cannot be read or the file cannot be written.
    Html(HtmlArgs),
}

#[derive(Debug, Args)]
pub struct HtmlArgs {
    /// Run folder (youra run, YouRA research folder or task folder).
    pub dir: PathBuf,
    /// Where to write the file (default: <run>/report.html).
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Run folder (youra run, YouRA research folder or task folder).
    pub dir: PathBuf,
    /// The paper to check (default: paper/06_paper_final.md, else paper/06_paper.md).
    #[arg(long, value_name = "PATH")]
    pub paper: Option<PathBuf>,
    /// Print machine-readable JSON instead of text.
    #[arg(long)]
    pub json: bool,
    /// Write paper/06_paper_sanitized.md, paper/review/sanitizer_report.md and, when built
    /// from measured results, paper/065_ground_truth.yaml.
    #[arg(long)]
    pub write: bool,
    /// Relative tolerance for table numbers.
    #[arg(long, default_value_t = DEFAULT_TOLERANCE, value_name = "FRACTION")]
    pub tolerance: f64,
}

pub fn run(cmd: ReportCommand) -> Result<i32> {
    let result = match cmd {
        ReportCommand::Check(args) => check(&args),
        ReportCommand::Html(args) => html(&args),
    };
    match result {
        Ok(code) => Ok(code),
        Err(e) => {
            eprintln!("error: {e:#}");
            Ok(2)
        }
    }
}

/// The run folder: what `discover` finds, or the folder itself when it holds no VSA.
fn run_root(dir: &Path) -> Result<PathBuf> {
    match crate::rundir::discover(dir) {
        Ok(run) => Ok(run.root),
        Err(_) if dir.is_dir() => Ok(dir.to_path_buf()),
        Err(e) => Err(eyre!("{e}")),
    }
}

fn paper_path(run: &Path, given: Option<&Path>) -> Result<PathBuf> {
    if let Some(p) = given {
        return Ok(p.to_path_buf());
    }
    ["06_paper_final.md", "06_paper.md"]
        .iter()
        .map(|n| run.join("paper").join(n))
        .find(|p| p.is_file())
        .ok_or_else(|| {
            eyre!(
                "no paper in {}: looked for paper/06_paper_final.md and paper/06_paper.md; give one with --paper PATH",
                run.display()
            )
        })
}

/// The registry and a sentence saying where it came from.
fn ground_truth(run: &Path) -> Result<(Registry, String)> {
    let built = registry_build::build(run).wrap_err("cannot build the ground-truth registry")?;
    for w in &built.warnings {
        eprintln!("warning: {w}");
    }
    // Declared values alone (thresholds, config, dataset sizes) are no results to check
    // against: then the registry file is the ground truth, and they join it.
    let measured = built.entries.iter().any(|e| !e.declared);
    if let (true, Origin::Measured { files }) = (measured, &built.origin) {
        let note = format!(
            "{} values from measured results ({})",
            built.len(),
            files.join(", ")
        );
        return Ok((built, note));
    }
    let file = run.join(REGISTRY_FILE);
    if file.is_file() {
        let mut loaded = registry_yaml::load(&file).wrap_err(
            "no measured results under h-*/results, and the registry file cannot be used",
        )?;
        let known: Vec<String> = loaded.entries.iter().map(|e| e.key.clone()).collect();
        loaded.entries.extend(
            built
                .entries
                .into_iter()
                .filter(|e| e.declared && !known.contains(&e.key)),
        );
        let note = format!(
            "{} values loaded from {REGISTRY_FILE} (no measured results under h-*/results)",
            loaded.len()
        );
        return Ok((loaded, note));
    }
    let note = format!(
        "none: no measured results under h-*/results and no {REGISTRY_FILE}, so every number is unverified"
    );
    Ok((built, note))
}

/// One paper checked against its run: what `youra report check` prints, and what the HTML
/// report shows.
struct Checked {
    text: String,
    note: String,
    registry: Registry,
    sanitized: sanitize::SanitizeReport,
    prov: provenance::ProvenanceReport,
    all: Vec<Finding>,
}

fn check_paper(run: &Path, paper: &Path, tolerance: f64) -> Result<Checked> {
    let text = crate::fsutil::read_run_text(paper)
        .wrap_err_with(|| format!("cannot read the paper {}", paper.display()))?;
    let (registry, note) = ground_truth(run)?;
    let sanitized = sanitize::sanitize(&text, &registry, tolerance);
    let corpus = Corpus::load(run).wrap_err("cannot read the run's code and logs")?;
    let prov = provenance::check(&text, &corpus);
    // References and figures are claims too (crate::paper::check).
    let all = findings::sorted(
        findings::combine(&sanitized, &prov)
            .into_iter()
            .chain(crate::paper::check(run, &text))
            .collect(),
    );
    Ok(Checked {
        text,
        note,
        registry,
        sanitized,
        prov,
        all,
    })
}

fn check(args: &CheckArgs) -> Result<i32> {
    if !(args.tolerance >= 0.0 && args.tolerance < 1.0) {
        return Err(eyre!(
            "--tolerance must be a fraction in [0, 1), e.g. 0.01 for 1%"
        ));
    }
    let run = run_root(&args.dir)?;
    let paper = paper_path(&run, args.paper.as_deref())?;
    let Checked {
        text,
        note,
        registry,
        sanitized,
        prov,
        all,
    } = check_paper(&run, &paper, args.tolerance)?;
    let shown = display_path(&paper, &run);
    let audit = data_audit(&run, &shown, text);
    let written = if args.write {
        write_outputs(&run, &shown, &sanitized, &registry, args.tolerance)?
    } else {
        Vec::new()
    };
    if args.json {
        let out = serde_json::json!({
            "paper": shown,
            "ground_truth": note,
            "registry_warnings": registry.warnings,
            "findings": all,
            "replacements": sanitized.replacements,
            "unverified_prose": sanitized.unverified_prose,
            "bound_numbers": sanitized.bound,
            "unbound_numbers": sanitized.unbound,
            "declared_numbers": sanitized.declared_numbers,
            "claims": prov.checked,
            "major": count(&all, Severity::Major),
            "minor": count(&all, Severity::Minor),
            "written": written,
            "audit": audit,
        });
        println!("{}", serde_json::to_string_pretty(&out)?);
    } else {
        print_text(&shown, &note, &sanitized, &prov, &all, &written);
        print_audit(&audit);
    }
    Ok(i32::from(findings::has_major(&all)))
}

/// `youra audit`'s verdict on the run's data, with the evidence that decided it (the
/// paper's datasets checked against the code). It informs; the exit status stays the
/// paper check's.
fn data_audit(run: &Path, paper: &str, text: String) -> serde_json::Value {
    use crate::audit::{Options, ctx::TextFile, verdict::Weight};
    let options = Options {
        paper: Some(TextFile {
            path: paper.to_string(),
            text,
        }),
        ..Options::default()
    };
    match crate::audit::audit_folder(run, options) {
        Ok(r) => serde_json::json!({
            "verdict": r.verdict,
            "confidence": r.confidence,
            "evidence": r.evidence.iter().filter(|e| e.weight != Weight::Note).collect::<Vec<_>>(),
        }),
        Err(e) => serde_json::json!({ "verdict": "unknown", "error": e.to_string() }),
    }
}

fn print_audit(audit: &serde_json::Value) {
    let verdict = audit["verdict"].as_str().unwrap_or("unknown");
    println!(
        "data audit: {verdict} (confidence {}); `youra audit <dir>` shows where each metric comes from",
        audit["confidence"]
            .as_f64()
            .map_or("-".into(), |c| format!("{c:.2}"))
    );
    if verdict != "real" {
        for e in audit["evidence"].as_array().into_iter().flatten().take(5) {
            println!(
                "    {}:{} — {} — {}",
                e["file"].as_str().unwrap_or(""),
                e["line"],
                e["rule"].as_str().unwrap_or(""),
                e["detail"].as_str().unwrap_or("")
            );
        }
    }
}

fn count(all: &[Finding], s: Severity) -> usize {
    all.iter().filter(|f| f.severity == s).count()
}

fn display_path(paper: &Path, run: &Path) -> String {
    paper
        .strip_prefix(run)
        .unwrap_or(paper)
        .display()
        .to_string()
}

fn print_text(
    paper: &str,
    note: &str,
    s: &sanitize::SanitizeReport,
    p: &provenance::ProvenanceReport,
    all: &[Finding],
    written: &[String],
) {
    println!("paper: {paper}");
    println!("ground truth: {note}");
    println!(
        "checked: {} table numbers, {} prose numbers ({} stating the claim their context names, {} naming no claim and matching some measured value, {} values the run declared: thresholds, seeds, config, dataset sizes), {} method claims against {} files",
        s.table_numbers,
        s.prose_numbers,
        s.bound.len(),
        s.unbound.len(),
        s.declared_numbers,
        p.checked.len(),
        p.files_searched
    );
    for f in all {
        println!(
            "{paper}:{}:{}: {} {}",
            f.line,
            f.column,
            f.severity.label(),
            f.message
        );
        println!("    {}", f.evidence);
    }
    for w in written {
        println!("wrote {w}");
    }
    println!(
        "{} MAJOR, {} MINOR",
        count(all, Severity::Major),
        count(all, Severity::Minor)
    );
}

/// The sanitized paper, the sanitizer report, and the registry when it was measured.
fn write_outputs(
    run: &Path,
    paper: &str,
    s: &sanitize::SanitizeReport,
    registry: &Registry,
    tolerance: f64,
) -> Result<Vec<String>> {
    let mut out = vec![
        ("paper/06_paper_sanitized.md".to_string(), s.text.clone()),
        (
            "paper/review/sanitizer_report.md".to_string(),
            crate::report::review::sanitizer_report(paper, s, registry, tolerance),
        ),
    ];
    if matches!(registry.origin, Origin::Measured { .. }) && !registry.is_empty() {
        let now = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
        out.push((
            REGISTRY_FILE.to_string(),
            registry_yaml::to_yaml(registry, &now),
        ));
    }
    for (rel, text) in &out {
        let path = run.join(rel);
        let dir = crate::fsutil::parent(&path);
        std::fs::create_dir_all(dir).wrap_err_with(|| {
            format!(
                "cannot create {}; check the run folder is writable",
                dir.display()
            )
        })?;
        crate::fsutil::write_atomic(&path, text.as_bytes()).wrap_err_with(|| {
            format!(
                "cannot write {}; check the run folder is writable",
                path.display()
            )
        })?;
    }
    Ok(out.into_iter().map(|(rel, _)| rel).collect())
}

/// `youra report html`: collect the run, check its paper (when it has one), write the page.
fn html(args: &HtmlArgs) -> Result<i32> {
    let started = std::time::Instant::now();
    let run = crate::rundir::discover(&args.dir).map_err(|e| {
        eyre!("{e}; e.g. `youra report html ~/runs/penguins` for the folder `youra run` or `youra demo` made")
    })?;
    // A run without a paper yet is still worth a report; a paper that cannot be checked
    // is shown with the reason instead of its findings.
    let paper = match paper_path(&run.root, None) {
        Err(_) => None,
        Ok(path) => {
            let file = display_path(&path, &run.root);
            Some(match check_paper(&run.root, &path, DEFAULT_TOLERANCE) {
                Ok(c) => crate::webreport::Paper {
                    file,
                    title: None,
                    markdown: c.text,
                    ground_truth: c.note,
                    findings: c.all,
                },
                Err(e) => crate::webreport::Paper {
                    file,
                    title: None,
                    markdown: crate::fsutil::read_run_text(&path).unwrap_or_default(),
                    ground_truth: format!("not checked: {e:#}"),
                    findings: Vec::new(),
                },
            })
        }
    };
    let report = crate::webreport::collect(&run.root, paper).map_err(|e| eyre!("{e}"))?;
    let page = crate::webreport::page::render(&report);
    let out = args
        .output
        .clone()
        .unwrap_or_else(|| run.root.join("report.html"));
    crate::fsutil::write_atomic(&out, page.as_bytes()).wrap_err_with(|| {
        format!(
            "cannot write {}; give a writable place with -o FILE",
            out.display()
        )
    })?;
    println!(
        "wrote {} ({} KB in {} ms)",
        out.display(),
        page.len().div_ceil(1024),
        started.elapsed().as_millis()
    );
    Ok(0)
}
