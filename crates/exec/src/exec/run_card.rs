//! The run card of one attempt (issue 40, item 6): what reproduces it. The exact command,
//! every `YOURA_*` variable the job got (its seeds among them), the interpreter and its
//! packages (the list and its sha256), the machine (CPU, GPUs, driver, CUDA), the sha256 of
//! every file in the folders the job may read (the run's `data/`), and the sandbox settings.
//!
//! A back end builds the card as it starts a job (`build`, both back ends, from the same
//! checked job and environment the process gets); the supervisor writes it as
//! `results/run_card.json` when the job has ended and its processes are gone (`write`), so
//! the experiment never had a chance to edit youra's copy; the collection record then holds
//! its sha256 like the measured files' (`trust::COLLECTED_FILES`), the next attempt moves it
//! to `results/attempts/<n>/` with the others, and readers get it only through
//! `exec::collected` ([`read_all`]): a card the experiment forged is never shown. Probing is
//! bounded and never fatal: what could not be learned is recorded as such
//! (`run_card_probe.rs`).

use std::collections::BTreeMap;
use std::path::Path;

use super::attempts::attempt_numbers;
use super::job::{Job, RESULTS_DIR, RUN_CARD_FILE};
pub use super::run_card_model::{
    DataFile, DataKind, Gpu, Interpreter, Machine, RunCard, SCHEMA, SandboxSettings,
    packages_sha256,
};
use super::run_card_probe as probe;

/// What a back end knows of a job as it starts it.
pub(super) struct CardInputs<'a> {
    pub job: &'a Job,
    /// The canonical workspace (`check_job`).
    pub workspace: &'a Path,
    /// The environment the process gets (`build_env`).
    pub env: &'a [(String, String)],
    /// The bubblewrap the job runs in; none when the sandbox is off.
    pub bwrap: Option<&'a Path>,
    pub backend: &'static str,
}

/// The card of the job `i` describes, as JSON for [`write`]; probing is bounded (seconds)
/// and a failure is recorded in the card, never returned.
pub(super) fn build(i: &CardInputs) -> String {
    let card = card(i);
    serde_json::to_string_pretty(&card).unwrap_or_else(|e| {
        format!("{{\"schema\": {SCHEMA}, \"error\": \"the card could not be written: {e}\"}}")
    })
}

fn card(i: &CardInputs) -> RunCard {
    let job = i.job;
    let get = |name: &str| i.env.iter().rev().find(|(n, _)| n == name).map(|(_, v)| v);
    let mut env: BTreeMap<String, String> = i
        .env
        .iter()
        .filter(|(n, _)| n.starts_with("YOURA_") || job.env.iter().any(|(e, _)| e == n))
        .cloned()
        .collect();
    if let Some(cuda) = get("CUDA_VISIBLE_DEVICES") {
        env.insert("CUDA_VISIBLE_DEVICES".into(), cuda.clone());
    }
    let features = i.bwrap.map(super::harden::features).unwrap_or_default();
    let local = i.backend == "local";
    let cuda = get("CUDA_VISIBLE_DEVICES").cloned().unwrap_or_default();
    RunCard {
        schema: SCHEMA,
        hypothesis: i
            .workspace
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned()),
        started_at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
        backend: i.backend.to_string(),
        argv: job.argv.clone(),
        workdir: job.workdir.display().to_string(),
        env,
        interpreter: probe::interpreter(
            job.argv.first().map_or("", String::as_str),
            get("PATH").map(String::as_str),
            i.workspace,
        ),
        machine: probe::machine(local, (job.gpus > 0).then_some(cuda.as_str())),
        data: job
            .read_only
            .iter()
            .flat_map(|d| probe::data(d))
            .chain(job.inputs.iter().flat_map(|p| probe::input(p)))
            .collect(),
        sandbox: SandboxSettings {
            mode: job.sandbox.as_str().to_string(),
            bubblewrap: i.bwrap.is_some(),
            network: job.network,
            seccomp: i.bwrap.is_some()
                && features.seccomp
                && super::seccomp::native_filter().is_some(),
            disable_userns: i.bwrap.is_some() && features.disable_userns,
            time_limit_s: job.time_limit.as_secs_f64(),
            grace_s: job.grace.as_secs_f64(),
            memory_limit_mb: job.memory_limit.map(|b| b / 1024 / 1024),
            cpu_limit_s: job.cpu_limit.map(|d| d.as_secs_f64()),
            max_processes: job.max_processes,
            gpus_requested: job.gpus,
            read_only: job
                .read_only
                .iter()
                .map(|p| p.display().to_string())
                .collect(),
        },
    }
}

/// Writes `json` as `<workspace>/results/run_card.json` once the job has ended: a temp file
/// opened with no link followed, renamed over whatever the experiment left under that name
/// (a link there is replaced, never written through). Errors say what, for the outcome's
/// warnings.
pub(super) fn write(workspace: &Path, json: &str) -> Result<(), String> {
    let results = Path::new(RESULTS_DIR);
    let tmp = format!(".{RUN_CARD_FILE}.{}.tmp", std::process::id());
    let shown = workspace.join(results).join(RUN_CARD_FILE);
    let fail = |e: std::io::Error| format!("the run card {} was not written: {e}", shown.display());
    // A stale temp (or a link planted in its name) goes first: the open refuses links.
    let _ = std::fs::remove_file(workspace.join(results).join(&tmp));
    crate::fsutil::write_beneath(workspace, &results.join(&tmp), json.as_bytes()).map_err(fail)?;
    let dir = crate::fsutil::open_dir_beneath(workspace, results, false).map_err(fail)?;
    crate::fsutil::rename_at(&dir, &tmp, &dir, RUN_CARD_FILE).map_err(|e| {
        let _ = std::fs::remove_file(workspace.join(results).join(&tmp));
        fail(e)
    })
}

/// One attempt's card as a reader finds it.
#[derive(Debug, Clone, PartialEq)]
pub struct AttemptCard {
    pub hypothesis: String,
    /// Relative to the run: `h-e1/results/attempts/2/run_card.json`.
    pub file: String,
    /// The collection record holding its hash (`.youra/attempts/<h>/<n>.json`).
    pub record: Option<u32>,
    /// The card file's own sha256, as the record holds it (none when unreadable).
    pub sha256: Option<String>,
    /// The card, or why it is not shown (not collected by youra, unreadable, malformed).
    pub card: Result<RunCard, String>,
}

/// The most cards read from one run (the paper and the report list them all).
const MAX_CARDS: usize = 2_000;

/// Every attempt's card in `run`, by sub-hypothesis (`h-…` folders) and record, read
/// through `exec::collected`: a card whose sha256 is in no trusted record is listed as
/// refused, never shown. Attempts without a card (run before cards existed) are left out.
pub fn read_all(run: &Path) -> Vec<AttemptCard> {
    let mut ids: Vec<String> = std::fs::read_dir(run)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .filter_map(|e| e.file_name().to_str().map(str::to_string))
        .filter(|n| n.starts_with("h-"))
        .collect();
    ids.sort();
    let mut out = Vec::new();
    for h in ids {
        let records = super::collected::records(run, &h);
        let attempts = run.join(&h).join(RESULTS_DIR).join(super::ATTEMPTS_DIR);
        let mut rels: Vec<String> = attempt_numbers(&attempts)
            .into_iter()
            .map(|n| format!("{}/{n}/{RUN_CARD_FILE}", super::ATTEMPTS_DIR))
            .collect();
        rels.push(RUN_CARD_FILE.to_string());
        let mut cards: Vec<AttemptCard> = Vec::new();
        for card in rels
            .iter()
            .filter_map(|rel| one(run, &h, rel, records.as_deref()))
        {
            // The same bytes twice (an attempt's files put back in `results/`) are one card.
            if card.sha256.is_none() || !cards.iter().any(|c| c.sha256 == card.sha256) {
                cards.push(card);
            }
        }
        cards.sort_by_key(|c| c.record.unwrap_or(u32::MAX));
        out.extend(cards);
        if out.len() >= MAX_CARDS {
            out.truncate(MAX_CARDS);
            break;
        }
    }
    out
}

fn one(
    run: &Path,
    h: &str,
    rel: &str,
    records: Option<&[(u32, super::trust::Collection)]>,
) -> Option<AttemptCard> {
    use super::collected::{Refused, read_with};
    let file = format!("{h}/{RESULTS_DIR}/{rel}");
    let mut sha256 = None;
    let (record, card) = match read_with(run, h, rel, records) {
        Err(Refused::Absent) => return None,
        Err(e) => {
            if let Refused::NotRecorded { sha256: s, .. } = &e {
                sha256 = Some(s.clone());
            }
            (None, Err(e.to_string()))
        }
        Ok(m) if m.truncated => (m.record, Err(format!("{file}: too large; not read"))),
        Ok(m) => (
            {
                sha256 = Some(m.sha256.clone());
                m.record
            },
            serde_json::from_slice::<RunCard>(&m.bytes)
                .map_err(|e| format!("{file}: not a run card ({e})"))
                .and_then(|c| match c.schema {
                    SCHEMA => Ok(c),
                    s => Err(format!("{file}: a card of schema {s}, not {SCHEMA}")),
                }),
        ),
    };
    Some(AttemptCard {
        hypothesis: h.to_string(),
        file,
        record,
        sha256,
        card,
    })
}

#[cfg(test)]
#[path = "run_card_tests.rs"]
mod tests;
