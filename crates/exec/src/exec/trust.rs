//! What youra itself collected from an experiment, recorded outside the workspace the
//! sandbox can write: `<run>/.youra/attempts/<h>/<n>.json`, one per collected job, holding
//! the sha256 of each result file as youra found it when the job ended. The gate judges the
//! outcome youra read; the registry and `report check` count a file under `results/` (or
//! `results/attempts/<n>/`) as measured only when its hash is in a trusted record, so a file
//! the experiment forged (`attempts/77/experiment_results.json`) is never a measurement.
//! Also here: the scan for links planted in a workspace, each a sandbox violation.

use std::collections::{BTreeMap, HashSet};
use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::attempts::{ATTEMPTS_DIR, attempt_numbers};
use super::job::{LOG_FILE, METRICS_FILE, RESULTS_DIR, RESULTS_FILE, RUN_CARD_FILE};

/// Under the run: one folder per sub-hypothesis, one record per collected job.
pub const MANIFEST_DIR: &str = ".youra/attempts";

/// The files whose hashes a record holds (the measured ones, the log and the run card).
pub(crate) const COLLECTED_FILES: [&str; 4] = [METRICS_FILE, RESULTS_FILE, LOG_FILE, RUN_CARD_FILE];

/// The largest collection record read back (one holds a few hashes: kilobytes).
const MAX_RECORD: u64 = 4 * 1024 * 1024;

/// The most bytes hashed per file (what the readers read at most, and then some).
const MAX_HASHED: u64 = 256 * 1024 * 1024;

/// One collected job: `<run>/.youra/attempts/<h>/<n>.json`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Collection {
    pub hypothesis: String,
    /// RFC 3339, when youra collected it.
    pub collected_at: String,
    /// False when the job committed a sandbox violation: its files are known to youra (so
    /// moving them to `attempts/<n>/` is no new violation) but never measured.
    pub trusted: bool,
    #[serde(default)]
    pub violations: Vec<String>,
    /// File name under `results/` → sha256 (hex) of its bytes when collected.
    pub files: BTreeMap<String, String>,
    /// Files the experiment planted under `results/attempts/` (path under the workspace →
    /// sha256): known from now on, so reported once, and never measured.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub planted: BTreeMap<String, String>,
}

/// sha256 of `bytes`, lower-case hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    format!("{:x}", Sha256::digest(bytes))
}

/// Record what youra collected from `workspace/results/` (files read following no link) for
/// sub-hypothesis `h` of `run`. Returns the record's path.
pub fn record(run: &Path, h: &str, workspace: &Path, violations: &[String]) -> io::Result<PathBuf> {
    record_with(run, h, workspace, violations, BTreeMap::new())
}

fn record_with(
    run: &Path,
    h: &str,
    workspace: &Path,
    violations: &[String],
    planted: BTreeMap<String, String>,
) -> io::Result<PathBuf> {
    let mut files = BTreeMap::new();
    for name in COLLECTED_FILES {
        let rel = Path::new(RESULTS_DIR).join(name);
        // Absent, linked or too large: not collected, so never trusted.
        if let Ok(bytes) = crate::fsutil::read_beneath(workspace, &rel, MAX_HASHED) {
            files.insert(name.to_string(), sha256_hex(&bytes));
        }
    }
    let collection = Collection {
        hypothesis: h.to_string(),
        collected_at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        trusted: violations.is_empty(),
        violations: violations.to_vec(),
        files,
        planted,
    };
    let dir = crate::fsutil::create_dirs_nofollow(run, &Path::new(MANIFEST_DIR).join(h))?;
    let json = serde_json::to_vec_pretty(&collection).map_err(io::Error::other)?;
    let n = numbered(&dir).last().map_or(1, |n| n + 1);
    let path = dir.join(format!("{n}.json"));
    crate::fsutil::write_new_atomic(&path, &json)?;
    Ok(path)
}

/// Every record of one sub-hypothesis: which hashes youra collected, trusted or not.
#[derive(Debug, Default, Clone)]
pub struct Manifest {
    trusted: HashSet<(String, String)>,
    known: HashSet<(String, String)>,
}

impl Manifest {
    /// Whether `bytes`, found as `name` under `results/` or an attempt folder, are what youra
    /// collected from a job without a violation.
    pub fn trusts(&self, name: &str, bytes: &[u8]) -> bool {
        self.trusted
            .contains(&(name.to_string(), sha256_hex(bytes)))
    }

    /// Whether youra collected these bytes as `name` at all (a violated job's too).
    pub fn knows(&self, name: &str, bytes: &[u8]) -> bool {
        self.known.contains(&(name.to_string(), sha256_hex(bytes)))
    }
}

/// The records of `h` in `run`; `None` when the run has no `.youra/attempts/` at all (made
/// before youra kept records: the caller says its files are trusted as found).
pub fn load(run: &Path, h: &str) -> Option<Manifest> {
    let root = run.join(MANIFEST_DIR);
    if !root.is_dir() {
        return None;
    }
    let mut m = Manifest::default();
    let dir = root.join(h);
    for n in numbered(&dir) {
        // A handed run folder's records are data: a regular file, capped, never blocking.
        let Ok(text) = crate::fsutil::read_capped(dir.join(format!("{n}.json")), MAX_RECORD) else {
            continue;
        };
        let Ok(c) = serde_json::from_slice::<Collection>(&text) else {
            continue;
        };
        for (name, hash) in c.files {
            if c.trusted {
                m.trusted.insert((name.clone(), hash.clone()));
            }
            m.known.insert((name, hash));
        }
        for (rel, hash) in c.planted {
            let name = rel.rsplit('/').next().unwrap_or(&rel).to_string();
            m.known.insert((name, hash));
        }
    }
    Some(m)
}

/// A measured file under `results/attempts/` youra never collected.
#[derive(Debug, Clone, PartialEq)]
pub struct Forged {
    /// Its path under the workspace (`results/attempts/77/experiment_results.json`).
    pub rel: String,
    pub sha256: String,
    /// The violation naming it.
    pub why: String,
}

/// Measured files under `workspace/results/attempts/` youra never collected: the experiment
/// wrote them (a planted attempt), each a sandbox violation.
pub(crate) fn forged_attempts(manifest: &Manifest, workspace: &Path) -> Vec<Forged> {
    let attempts = Path::new(RESULTS_DIR).join(ATTEMPTS_DIR);
    let mut out = Vec::new();
    for n in attempt_numbers(&workspace.join(&attempts)) {
        for name in [METRICS_FILE, RESULTS_FILE] {
            let rel = attempts.join(n.to_string()).join(name);
            let why = match crate::fsutil::read_beneath(workspace, &rel, MAX_HASHED) {
                Ok(bytes) if manifest.knows(name, &bytes) => continue,
                Ok(bytes) => Forged {
                    rel: rel.display().to_string(),
                    sha256: sha256_hex(&bytes),
                    why: format!(
                        "{} was not collected by youra (its sha256 is in no record under {MANIFEST_DIR}/): the experiment wrote it; it is not a measurement",
                        workspace.join(&rel).display()
                    ),
                },
                Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
                Err(e) => Forged {
                    rel: rel.display().to_string(),
                    sha256: String::new(),
                    why: e.to_string(),
                },
            };
            out.push(why);
        }
    }
    out
}

/// The `<n>.json` numbers in `dir`, sorted.
fn numbered(dir: &Path) -> Vec<u32> {
    let mut n: Vec<u32> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .filter_map(|e| e.file_name().to_str()?.strip_suffix(".json")?.parse().ok())
        .collect();
    n.sort_unstable();
    n
}

/// Links planted where youra reads or writes in a workspace: its own entries (the brief,
/// the tasks, `code/`, `results/`), `results/`'s and every attempt folder's. A link there is
/// never followed; each one found is a violation naming it.
pub(crate) fn planted_links(workspace: &Path) -> Vec<String> {
    let results = workspace.join(RESULTS_DIR);
    let attempts = results.join(ATTEMPTS_DIR);
    let mut dirs = vec![workspace.to_path_buf(), results, attempts.clone()];
    for e in std::fs::read_dir(&attempts).into_iter().flatten().flatten() {
        dirs.push(e.path());
    }
    let mut out = Vec::new();
    for dir in dirs {
        // Only a real folder is looked into: a linked one is itself reported from above.
        if !std::fs::symlink_metadata(&dir).is_ok_and(|m| m.is_dir()) {
            continue;
        }
        for e in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            if e.file_type().is_ok_and(|t| t.is_symlink()) {
                let link = e.path();
                out.push(crate::fsutil::PlantedLink { link }.to_string());
            }
        }
    }
    out.sort();
    out
}

/// After a job of sub-hypothesis `h` ended: measured files it planted under
/// `results/attempts/` join its violations, then youra records what it collected (trusted
/// only without violations; planted files are recorded as such, so the next job is not
/// blamed for them). The records folder exists from the first collection on, so a
/// run's later readers are strict. Returns the record's path.
pub fn settle(run: &Path, h: &str, outcome: &mut super::JobOutcome) -> io::Result<PathBuf> {
    crate::fsutil::create_dirs_nofollow(run, &Path::new(MANIFEST_DIR).join(h))?;
    let workspace = run.join(h);
    let manifest = load(run, h).unwrap_or_default();
    let mut planted = BTreeMap::new();
    for f in forged_attempts(&manifest, &workspace) {
        if !outcome.violations.contains(&f.why) {
            outcome.violations.push(f.why);
        }
        if !f.sha256.is_empty() {
            planted.insert(f.rel, f.sha256);
        }
    }
    record_with(run, h, &workspace, &outcome.violations, planted)
}
