//! What the paper says when the data behind its results is not real (issue 44 item 4): the
//! same analyzer that guards Coding & Validation (`crate::audit`) reads the run folder, and a
//! verdict other than Real opens the Method with a sentence saying so. A Real verdict adds
//! nothing. The sentence carries no number, so `report check` has nothing to flag in it.

use std::path::Path;

use crate::audit::verdict::Verdict;

/// The Method's sentence for a run whose data the audit does not find real.
pub fn sentence(verdict: Verdict) -> Option<&'static str> {
    match verdict {
        Verdict::Real => None,
        Verdict::Synthetic => Some(
            "Data: youra's audit of the code behind these results finds the data they are \
             computed from generated, not loaded from a real data set; read them as results on \
             synthetic data (`youra audit` on the run folder shows where each metric comes from).",
        ),
        Verdict::Fabricated => Some(
            "Data: youra's audit of the code behind these results finds reported values written \
             into the code rather than computed; they are not evidence (`youra audit` on the \
             run folder shows where each metric comes from).",
        ),
        Verdict::Unknown => Some(
            "Data: youra's audit could not tell where the data behind these results comes \
             from; `youra audit` on the run folder says what it found.",
        ),
    }
}

/// The audit's sentence for `run`, if any (an unreadable folder says nothing here: `report
/// check` and `youra audit` report it).
/// The verdict is recorded in the run (`paper/audit.json`) for the TUI's Gates pane.
pub fn note(run: &Path) -> Option<&'static str> {
    let report = crate::audit::audit_folder(run, crate::audit::Options::default()).ok()?;
    if let Err(e) = crate::audit::record::write(run, &report) {
        tracing::warn!("cannot record the audit verdict in {}: {e}", run.display());
    }
    sentence(report.verdict)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_real_verdict_is_silent() {
        assert_eq!(sentence(Verdict::Real), None);
        for v in [Verdict::Synthetic, Verdict::Fabricated, Verdict::Unknown] {
            let s = sentence(v).unwrap();
            assert!(s.starts_with("Data: youra's audit"), "{s}");
            assert!(!s.chars().any(|c| c.is_ascii_digit()), "no number: {s}");
        }
    }
}
