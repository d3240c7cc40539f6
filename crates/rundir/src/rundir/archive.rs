//! Archive markers: before YouRA routes a run back (to Phase 0 or Phase 2A) it moves the
//! current artifacts into `_archive/<YYYYmmddTHHMMSS>_<label>/` and writes `_ARCHIVED.md`
//! there. Two marker shapes exist: the deterministic routing one (`Route target`,
//! `Triggered by`, `Files moved`) and a free-form reflection one (`Reason`, `Failure Context`,
//! `Recovery`), so every field is optional and the folder name is the fallback.

use super::markdown::{bold_fields, leading_u32, lookup};
use serde::Serialize;
use std::fs;
use std::path::{Path, PathBuf};

/// One archived snapshot of a run, as its folder and `_ARCHIVED.md` describe it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ArchiveMarker {
    /// The folder name, e.g. `20260317T035502_routing_recovery`.
    pub dir_name: String,
    /// The archive folder (not the marker file).
    pub path: PathBuf,
    /// Whether `_ARCHIVED.md` was there and readable.
    pub has_marker: bool,
    /// The `Archived` value as written, else the folder's leading stamp.
    pub archived_at: Option<String>,
    /// The folder name after the stamp, e.g. `routing_recovery`.
    pub label: String,
    /// `Route target`, else inferred from a `ROUTE_TO_…`/`ROUTED_TO_PHASE_…` token.
    pub route_target: Option<String>,
    pub trigger: Option<String>,
    pub reason: Option<String>,
    pub failure_context: Option<String>,
    pub recovery: Option<String>,
    /// `Files moved`, else the number of other files found under the folder.
    pub files_moved: Option<u32>,
    pub fields: Vec<(String, String)>,
}

/// Reads `<run_root>/_archive/*/`, sorted by folder name; a missing `_archive` yields nothing.
pub fn load_archives(run_root: &Path) -> Vec<ArchiveMarker> {
    let Ok(entries) = fs::read_dir(run_root.join("_archive")) else {
        return Vec::new();
    };
    let mut markers: Vec<_> = entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| load_marker(&e.path(), &e.file_name().to_string_lossy()))
        .collect();
    markers.sort_by(|a, b| a.dir_name.cmp(&b.dir_name));
    markers
}

fn load_marker(dir: &Path, dir_name: &str) -> ArchiveMarker {
    let text = crate::fsutil::read_run_file(dir.join("_ARCHIVED.md")).ok();
    let text = text.as_deref().map(String::from_utf8_lossy);
    let mut marker = parse_marker(dir_name, dir, text.as_deref());
    if marker.files_moved.is_none() {
        marker.files_moved = Some(count_files(dir, 0));
    }
    marker
}

/// Builds a marker from a folder name and the marker text, if any. Pure: `dir` is only
/// stored; `files_moved` stays `None` unless the text states it.
pub(crate) fn parse_marker(dir_name: &str, dir: &Path, text: Option<&str>) -> ArchiveMarker {
    let fields = text.map(bold_fields).unwrap_or_default();
    let (stamp, label) = split_stamp(dir_name);
    let get = |key: &str| lookup(&fields, &[key]).map(str::to_string);
    let values: Vec<&str> = fields.iter().map(|(_, v)| v.as_str()).collect();
    ArchiveMarker {
        dir_name: dir_name.to_string(),
        path: dir.to_path_buf(),
        has_marker: text.is_some(),
        archived_at: get("Archived").or_else(|| stamp.map(str::to_string)),
        label: label.to_string(),
        route_target: get("Route target").or_else(|| infer_route(&values.join("\n"))),
        trigger: get("Triggered by"),
        reason: get("Reason"),
        failure_context: get("Failure Context"),
        recovery: get("Recovery"),
        files_moved: lookup(&fields, &["Files moved"]).and_then(leading_u32),
        fields,
    }
}

/// `20260317T035502_routing_recovery` → (Some("20260317T035502"), "routing_recovery").
fn split_stamp(dir_name: &str) -> (Option<&str>, &str) {
    let b = dir_name.as_bytes();
    let digits =
        |r: std::ops::Range<usize>| b.get(r).is_some_and(|s| s.iter().all(u8::is_ascii_digit));
    if !(digits(0..8) && b.get(8) == Some(&b'T') && digits(9..15)) {
        return (None, dir_name);
    }
    let end = if b.get(15) == Some(&b'Z') { 16 } else { 15 };
    let rest = &dir_name[end..];
    (
        Some(&dir_name[..end]),
        rest.strip_prefix(['_', '-']).unwrap_or(rest),
    )
}

/// `ROUTE_TO_0`, `ROUTED_TO_PHASE_0` → "Phase 0"; `ROUTE_TO_2A` or a bare "Phase 2A" →
/// "Phase 2A". The earliest token wins.
fn infer_route(text: &str) -> Option<String> {
    let token = ["ROUTED_TO_", "ROUTE_TO_"]
        .iter()
        .filter_map(|pat| text.find(pat).map(|i| (i, &text[i + pat.len()..])))
        .min_by_key(|(i, _)| *i)
        .map(|(_, rest)| rest.strip_prefix("PHASE_").unwrap_or(rest))
        .map(|rest| {
            rest.split(|c: char| !c.is_ascii_alphanumeric())
                .next()
                .unwrap_or("")
        })
        .filter(|phase| !phase.is_empty());
    match token {
        Some(phase) => Some(format!("Phase {}", phase.to_ascii_uppercase())),
        None => text.contains("Phase 2A").then(|| "Phase 2A".to_string()),
    }
}

/// Files under `dir` other than the top-level `_ARCHIVED.md`, not following links (the
/// reader's count and the archiver's, so a written marker always matches what is read).
pub fn count_files(dir: &Path, depth: usize) -> u32 {
    let Ok(entries) = fs::read_dir(dir) else {
        return 0;
    };
    let mut n = 0u32;
    for entry in entries.flatten() {
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() && depth < 16 {
            n = n.saturating_add(count_files(&entry.path(), depth + 1));
        } else if !(depth == 0 && entry.file_name() == "_ARCHIVED.md") {
            n = n.saturating_add(1);
        }
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    fn marker(name: &str, text: Option<&str>) -> ArchiveMarker {
        parse_marker(name, Path::new("x"), text)
    }

    #[test]
    fn routing_variant_fields() {
        let text = "# Archive Record\r\n\r\n**Archived:** 20250101T010203\r\n**Route target:** Phase 2A-Dialogue\r\n**Triggered by:** h-x (SUPERSEDED)\r\n**Files moved:** 9 files";
        let m = marker("20250101T010203_routing_recovery", Some(text));
        assert_eq!(m.archived_at.as_deref(), Some("20250101T010203"));
        assert_eq!(m.label, "routing_recovery");
        assert_eq!(m.route_target.as_deref(), Some("Phase 2A-Dialogue"));
        assert_eq!(m.trigger.as_deref(), Some("h-x (SUPERSEDED)"));
        assert_eq!(m.files_moved, Some(9));
        assert!(m.has_marker);
    }

    #[test]
    fn route_inferred_from_tokens() {
        let m = marker(
            "20250101T000000_reflection_recovery",
            Some("- **Reason:** ROUTE_TO_0 - redo\n"),
        );
        assert_eq!(m.route_target.as_deref(), Some("Phase 0"));
        assert_eq!(m.reason.as_deref(), Some("ROUTE_TO_0 - redo"));
        let m = marker(
            "a",
            Some("**Recovery:** ROUTED_TO_PHASE_2A after reflection"),
        );
        assert_eq!(m.route_target.as_deref(), Some("Phase 2A"));
        let m = marker("a", Some("**Reason:** back to Phase 2A dialogue"));
        assert_eq!(m.route_target.as_deref(), Some("Phase 2A"));
        assert_eq!(marker("a", Some("**Reason:** none")).route_target, None);
    }

    #[test]
    fn folder_name_only() {
        let m = marker("20250101T010203Z-manual", None);
        assert_eq!(m.archived_at.as_deref(), Some("20250101T010203Z"));
        assert_eq!(m.label, "manual");
        assert!(!m.has_marker);
        let odd = marker("2025é", None);
        assert_eq!((odd.archived_at, odd.label.as_str()), (None, "2025é"));
    }

    #[test]
    fn loads_folders_and_counts_files() {
        let root = std::env::temp_dir().join(format!("youra-archive-test-{}", std::process::id()));
        let a = root.join("_archive/20250102T000000_routing_recovery");
        let b = root.join("_archive/20250101T000000_reflection_recovery");
        fs::create_dir_all(a.join("code")).unwrap();
        fs::create_dir_all(&b).unwrap();
        fs::write(a.join("code/x.py"), "x").unwrap();
        fs::write(a.join("04_checkpoint.yaml"), "x").unwrap();
        fs::write(b.join("_ARCHIVED.md"), b"**Files moved:** 3\n\xff").unwrap();
        fs::write(root.join("_archive/stray.txt"), "x").unwrap();
        let markers = load_archives(&root);
        let _ = fs::remove_dir_all(&root);
        let got: Vec<_> = markers
            .iter()
            .map(|m| (m.label.as_str(), m.files_moved))
            .collect();
        assert_eq!(
            got,
            [
                ("reflection_recovery", Some(3)),
                ("routing_recovery", Some(2))
            ]
        );
        assert!(load_archives(Path::new("/nonexistent/youra")).is_empty());
    }
}
