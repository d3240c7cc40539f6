//! What a Reflective Memory record leads to: the archive its recovery made and the log of
//! the attempt it records. Also where a sub-hypothesis's experiment logs are, which the
//! Experiments pane reads too (one place that knows the folders).

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use super::archive::{ArchiveMarker, load_archives};
use super::memory::MemoryRecord;

/// A record's links; `None` where the run holds nothing to open.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RecordLinks {
    /// The archive's `_ARCHIVED.md` (else its `README.md`).
    pub archive: Option<PathBuf>,
    /// The experiment log of the record's attempt.
    pub log: Option<PathBuf>,
}

/// The links of each record, in order. Imported records link into the run they came from
/// (their provenance names it), when that run is still there.
pub fn links(
    run_root: &Path,
    records: &[MemoryRecord],
    archives: &[ArchiveMarker],
) -> Vec<RecordLinks> {
    let mut sources: Vec<(String, Vec<ArchiveMarker>)> = Vec::new();
    records
        .iter()
        .map(|r| {
            let (root, archives) = match &r.provenance {
                Some(p) => {
                    if !sources.iter().any(|(s, _)| s == &p.source_run) {
                        let found = load_archives(Path::new(&p.source_run));
                        sources.push((p.source_run.clone(), found));
                    }
                    let a = sources.iter().find(|(s, _)| s == &p.source_run);
                    (
                        Path::new(&p.source_run),
                        a.map_or(&[][..], |(_, a)| a.as_slice()),
                    )
                }
                None => (run_root, archives),
            };
            let archive = archive_for(r, archives);
            RecordLinks {
                archive: archive.and_then(marker_file),
                log: record_log(root, r, archive),
            }
        })
        .collect()
}

fn marker_file(a: &ArchiveMarker) -> Option<PathBuf> {
    if a.has_marker {
        return Some(a.path.join("_ARCHIVED.md"));
    }
    Some(a.path.join("README.md")).filter(|p| p.is_file())
}

/// The archive a record's recovery made: among the archives whose trigger, reason or failure
/// context names the record's hypothesis, the one nearest in time to the record (YouRA
/// archives just before it writes the record, youra's recovery just after), else the newest.
pub(crate) fn archive_for<'a>(
    rec: &MemoryRecord,
    archives: &'a [ArchiveMarker],
) -> Option<&'a ArchiveMarker> {
    let h = rec.hypothesis.as_deref()?;
    let named: Vec<&ArchiveMarker> = archives
        .iter()
        .filter(|a| {
            [&a.trigger, &a.reason, &a.failure_context]
                .iter()
                .any(|v| v.as_deref().is_some_and(|t| names(t, h)))
        })
        .collect();
    let when = |a: &ArchiveMarker| a.archived_at.as_deref().and_then(seconds);
    match rec.date.as_deref().and_then(seconds) {
        Some(at) => named
            .iter()
            .min_by_key(|a| when(a).map_or(i64::MAX, |t| (t - at).abs()))
            .copied(),
        None => named.iter().max_by_key(|a| when(a)).copied(),
    }
}

/// `text` names hypothesis `h` as a whole id (`h-e1` is not named by `h-e1-v2`).
fn names(text: &str, h: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    let part = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_';
    lower.match_indices(h).any(|(i, _)| {
        let before = lower[..i].chars().next_back().is_none_or(|c| !part(c));
        let after = lower[i + h.len()..].chars().next().is_none_or(|c| !part(c));
        before && after
    })
}

/// Seconds since the epoch of a timestamp as records and markers write it
/// (`2026-03-17T04:00:00Z`, `20260317T040000`, `2026-03-17`): its digits, read as
/// `YYYYmmddHHMMSS` with missing time digits as zero.
fn seconds(s: &str) -> Option<i64> {
    let mut digits: String = s.chars().filter(char::is_ascii_digit).take(14).collect();
    if digits.len() < 8 {
        return None;
    }
    while digits.len() < 14 {
        digits.push('0');
    }
    chrono::NaiveDateTime::parse_from_str(&digits, "%Y%m%d%H%M%S")
        .ok()
        .map(|t| t.and_utc().timestamp())
}

/// The log of a record's attempt, wherever it now is: a pivot after the record moves the
/// hypothesis's folder, logs and all, into its archive, and a new attempt of the same id
/// may have written a log of its own in the live folder since. In order: a log carrying the
/// record's run number (live, then archived); the archive's newest log when the archive
/// was taken after the record (what the record's attempt left); the live folder's newest;
/// the archive's newest.
pub(crate) fn record_log(
    run_root: &Path,
    rec: &MemoryRecord,
    archive: Option<&ArchiveMarker>,
) -> Option<PathBuf> {
    let h = rec.hypothesis.as_deref()?;
    let live = hypothesis_logs(&run_root.join(h));
    let archived = archive.map_or_else(Vec::new, |a| hypothesis_logs(&a.path.join(h)));
    let taken_after = archive.is_some_and(|a| {
        match (
            a.archived_at.as_deref().and_then(seconds),
            rec.date.as_deref().and_then(seconds),
        ) {
            (Some(at), Some(rec)) => at >= rec,
            _ => live.is_empty(),
        }
    });
    numbered_log(&live, rec)
        .or_else(|| numbered_log(&archived, rec))
        .or_else(|| newest(&archived).filter(|_| taken_after))
        .or_else(|| newest(&live))
        .or_else(|| newest(&archived))
}

fn newest(logs: &[(SystemTime, PathBuf)]) -> Option<PathBuf> {
    logs.iter().max_by_key(|(t, _)| *t).map(|(_, p)| p.clone())
}

/// The log among `logs` whose name carries the record's run number (`run2.log`).
fn numbered_log(logs: &[(SystemTime, PathBuf)], rec: &MemoryRecord) -> Option<PathBuf> {
    let n = rec.run?;
    logs.iter()
        .filter(|(_, p)| {
            let name = p
                .file_name()
                .map(|n| n.to_string_lossy().to_ascii_lowercase())
                .unwrap_or_default();
            ["run", "attempt", "attempt_", "run_"].iter().any(|pre| {
                name.split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
                    .any(|w| w == format!("{pre}{n}"))
            })
        })
        .max_by_key(|(t, _)| *t)
        .map(|(_, p)| p.clone())
}

/// Every `*.log` of a sub-hypothesis (its folder, `results/`, `code/`, `logs/`), with its
/// modification time.
pub fn hypothesis_logs(dir: &Path) -> Vec<(SystemTime, PathBuf)> {
    let mut logs = Vec::new();
    // A sub-hypothesis without a folder yet (most of 500 in a long study) costs one look,
    // not four: this runs per sub-hypothesis on every refresh.
    if !dir.is_dir() {
        return logs;
    }
    for sub in [
        dir.to_path_buf(),
        dir.join("results"),
        dir.join("code"),
        dir.join("logs"),
    ] {
        for e in std::fs::read_dir(&sub).into_iter().flatten().flatten() {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "log") {
                let t = e
                    .metadata()
                    .and_then(|m| m.modified())
                    .unwrap_or(std::time::UNIX_EPOCH);
                logs.push((t, p));
            }
        }
    }
    logs
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rundir::archive::parse_marker;
    use crate::rundir::memory::parse_record;

    fn marker(name: &str, trigger: &str) -> ArchiveMarker {
        let text = format!("**Triggered by:** {trigger}\n");
        parse_marker(
            name,
            Path::new("/r/_archive").join(name).as_path(),
            Some(&text),
        )
    }

    #[test]
    fn the_archive_is_the_nearest_in_time_that_names_the_hypothesis() {
        let archives = [
            marker(
                "20260317T035502_routing_recovery",
                "h-e1 (ROUTED_TO_PHASE_0)",
            ),
            marker(
                "20260317T071603_routing_recovery",
                "h-e1 (LIMITATION_RECORDED)",
            ),
            marker("20260318T000000_routing_recovery", "h-e1-v2 (PIVOT)"),
        ];
        let rec = |date: &str, h: &str| {
            parse_record(
                "failure_x",
                Path::new("x"),
                &format!("**Hypothesis:** {h}\n**Date:** {date}\n"),
            )
        };
        let pick = |date, h| archive_for(&rec(date, h), &archives).map(|a| a.dir_name.clone());
        // YouRA archived at 03:55, then wrote the record at 04:00: the nearest wins.
        assert_eq!(
            pick("2026-03-17T04:00:00Z", "h-e1").as_deref(),
            Some("20260317T035502_routing_recovery")
        );
        assert_eq!(
            pick("2026-03-17T07:00:00Z", "h-e1").as_deref(),
            Some("20260317T071603_routing_recovery")
        );
        assert_eq!(
            pick("2026-05-01", "h-e1").as_deref(),
            Some("20260317T071603_routing_recovery")
        );
        assert_eq!(
            pick("undated", "h-e1").as_deref(),
            Some("20260317T071603_routing_recovery")
        );
        assert_eq!(
            pick("2026-03-17T04:00:00Z", "h-e1-v2").as_deref(),
            Some("20260318T000000_routing_recovery")
        );
        assert_eq!(pick("2026-03-17T04:00:00Z", "h-m1"), None);
        let l = links(
            Path::new("/r"),
            &[rec("2026-03-17T07:00:00Z", "h-e1")],
            &archives,
        );
        assert_eq!(
            l[0].archive.as_deref(),
            Some(Path::new(
                "/r/_archive/20260317T071603_routing_recovery/_ARCHIVED.md"
            ))
        );
    }

    #[test]
    fn the_attempt_log_prefers_the_run_number_then_the_newest() {
        let dir = tempfile::tempdir().unwrap();
        let res = dir.path().join("h-e1/results");
        std::fs::create_dir_all(&res).unwrap();
        std::fs::write(res.join("run1.log"), "first").unwrap();
        std::fs::write(dir.path().join("h-e1/run2.log"), "second").unwrap();
        let rec = |run: u32| {
            parse_record(
                &format!("failure_h-e1_run{run}"),
                Path::new("x"),
                "**Hypothesis:** h-e1\n",
            )
        };
        assert_eq!(
            record_log(dir.path(), &rec(1), None),
            Some(res.join("run1.log"))
        );
        assert_eq!(
            record_log(dir.path(), &rec(2), None),
            Some(dir.path().join("h-e1/run2.log"))
        );
        assert!(record_log(dir.path(), &rec(3), None).is_some());
        assert_eq!(hypothesis_logs(&dir.path().join("h-x")), []);
    }

    /// After a pivot the record's attempt log is in the archive: linked there, not to a
    /// log the redesigned hypothesis (same id) wrote since, and not lost.
    #[test]
    fn after_a_pivot_the_log_is_found_in_the_archive() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let stamp = "20260317T050000_routing_recovery";
        let moved = root.join("_archive").join(stamp).join("h-m1/results");
        std::fs::create_dir_all(&moved).unwrap();
        std::fs::write(moved.join("run.log"), "the failed attempt").unwrap();
        let text = "**Triggered by:** h-m1 (REDESIGN)\n**Archived:** 2026-03-17T05:00:00Z\n";
        let archive = parse_marker(stamp, &root.join("_archive").join(stamp), Some(text));
        let rec = |date: &str| {
            parse_record(
                "failure_h-m1_run2",
                Path::new("x"),
                &format!("**Hypothesis:** h-m1\n**Date:** {date}\n"),
            )
        };
        let before = rec("2026-03-17T04:59:00Z");
        // No live folder (the pivot moved it): the archive's log.
        let l = links(
            root,
            std::slice::from_ref(&before),
            std::slice::from_ref(&archive),
        );
        assert_eq!(l[0].log, Some(moved.join("run.log")));
        // The redesigned h-m1 has run since: the record still leads to its own attempt.
        let live = root.join("h-m1/results");
        std::fs::create_dir_all(&live).unwrap();
        std::fs::write(live.join("run.log"), "the redesign's attempt").unwrap();
        let l = links(
            root,
            std::slice::from_ref(&before),
            std::slice::from_ref(&archive),
        );
        assert_eq!(l[0].log, Some(moved.join("run.log")));
        // A record written after that archive is the live attempt's.
        let after = rec("2026-03-17T06:00:00Z");
        assert_eq!(
            record_log(root, &after, Some(&archive)),
            Some(live.join("run.log"))
        );
    }
}
