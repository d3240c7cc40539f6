//! The audit verdict a run records (`paper/audit.json`), written by the engine when it
//! audits the run's code for the paper (`engine::stages::data_note`) and read by the TUI's
//! Gates pane, which must not run the analyzer while it draws. It lives beside the paper
//! it speaks for, so a reset or redesign archives it with that paper.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::verdict::{Report, Verdict, Weight};

pub const FILE: &str = "paper/audit.json";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Recorded {
    pub verdict: Verdict,
    pub confidence: f64,
    /// The deciding evidence, `file:line — detail`, when the verdict is not Real.
    #[serde(default)]
    pub deciding: Option<String>,
}

impl Recorded {
    pub fn of(report: &Report) -> Recorded {
        let weight = match report.verdict {
            Verdict::Fabricated => Some(Weight::Fabricated),
            Verdict::Synthetic => Some(Weight::Synthetic),
            Verdict::Real | Verdict::Unknown => None,
        };
        let deciding = weight.and_then(|w| {
            report
                .evidence
                .iter()
                .filter(|e| e.weight == w)
                .max_by(|a, b| a.strength.total_cmp(&b.strength))
                .map(|e| format!("{}:{} — {}", e.file, e.line, e.detail))
        });
        Recorded {
            verdict: report.verdict,
            confidence: report.confidence,
            deciding,
        }
    }
}

/// Record `report` as the run's verdict.
pub fn write(run: &Path, report: &Report) -> std::io::Result<()> {
    let json = serde_json::to_vec_pretty(&Recorded::of(report)).map_err(std::io::Error::other)?;
    let path = run.join(FILE);
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    crate::fsutil::write_atomic(&path, &json)
}

/// The run's recorded verdict; `None` when none was recorded or the record does not read.
pub fn read(run: &Path) -> Option<Recorded> {
    let text = crate::fsutil::read_run_text(run.join(FILE)).ok()?;
    serde_json::from_str(&text).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_recorded_verdict_reads_back_and_a_broken_one_reads_as_none() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(read(dir.path()), None);
        let report = crate::audit::analyze(crate::audit::Input {
            code: vec![crate::audit::ctx::TextFile {
                path: "run.py".into(),
                text: "import json\njson.dump({'accuracy': 0.93}, open('results.json', 'w'))\n"
                    .into(),
            }],
            ..crate::audit::Input::default()
        });
        write(dir.path(), &report).unwrap();
        let got = read(dir.path()).unwrap();
        assert_eq!(got.verdict, Verdict::Fabricated);
        assert!(got.deciding.unwrap().starts_with("run.py:2 — "));
        std::fs::write(dir.path().join(FILE), "{not json").unwrap();
        assert_eq!(read(dir.path()), None);
    }
}
