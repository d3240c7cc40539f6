//! Attempt folders an experiment planted (`results/attempts/77/` holding a "measurement"
//! youra never collected) are moved out of the workspace as soon as the violation is
//! recorded (`trust::settle` names them in the record's `planted`): to
//! `<run>/.youra/planted/<h>/<n>-r<record>/`, where the sandbox cannot reach them and no
//! reader of measurements looks. Kept, not deleted: they are the evidence of the violation.

use std::io;
use std::path::{Path, PathBuf};

use super::attempts::ATTEMPTS_DIR;
use super::job::RESULTS_DIR;

/// Where planted attempt folders are kept, under the run.
pub(crate) const PLANTED_DIR: &str = ".youra/planted";

/// Move the attempt folders that `h`'s newest collection record names as planted out of
/// its workspace. Returns one sentence per folder moved (for the run's events).
pub fn move_aside(run: &Path, h: &str) -> io::Result<Vec<String>> {
    let Some((record, c)) = super::collected::records(run, h).and_then(|mut r| r.pop()) else {
        return Ok(Vec::new());
    };
    let mut numbers: Vec<u32> = c.planted.keys().filter_map(|rel| attempt_of(rel)).collect();
    numbers.sort_unstable();
    numbers.dedup();
    if numbers.is_empty() {
        return Ok(Vec::new());
    }
    let attempts = Path::new(h).join(RESULTS_DIR).join(ATTEMPTS_DIR);
    let from = crate::fsutil::open_dir_beneath(run, &attempts, false)?;
    let kept = Path::new(PLANTED_DIR).join(h);
    let to = crate::fsutil::open_dir_beneath(run, &kept, true)?;
    let mut out = Vec::new();
    for n in numbers {
        let name = format!("{n}-r{record}");
        match crate::fsutil::rename_at(&from, &n.to_string(), &to, &name) {
            Ok(()) => out.push(format!(
                "{}: an attempt folder the experiment planted, moved aside to {}; it is never a measurement",
                run.join(&attempts).join(n.to_string()).display(),
                run.join(&kept).join(&name).display()
            )),
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
    }
    Ok(out)
}

/// The attempt number of a planted file's path under the workspace
/// (`results/attempts/77/experiment_results.json` → 77).
fn attempt_of(rel: &str) -> Option<u32> {
    let rest = PathBuf::from(rel);
    let mut parts = rest.iter();
    (parts.next()? == RESULTS_DIR && parts.next()? == ATTEMPTS_DIR)
        .then(|| parts.next()?.to_str()?.parse().ok())
        .flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_planted_attempt_is_moved_aside_once_recorded_and_youra_s_own_stay() {
        let dir = tempfile::tempdir().expect("tempdir");
        let run = dir.path();
        let ws = run.join("h-e1");
        let write = |rel: &str, text: &str| {
            let p = ws.join(rel);
            std::fs::create_dir_all(crate::fsutil::parent(&p)).expect("mkdir");
            std::fs::write(p, text).expect("write");
        };
        // youra's first attempt, collected, then moved to attempts/1 by the executor.
        write("results/metrics.jsonl", "{\"accuracy\": 0.7}\n");
        crate::exec::trust::record(run, "h-e1", &ws, &[]).expect("record");
        std::fs::create_dir_all(ws.join("results/attempts/1")).expect("mkdir");
        std::fs::rename(
            ws.join("results/metrics.jsonl"),
            ws.join("results/attempts/1/metrics.jsonl"),
        )
        .expect("move");
        // The second job measures honestly and plants attempts/77.
        write("results/metrics.jsonl", "{\"accuracy\": 0.8}\n");
        write(
            "results/attempts/77/metrics.jsonl",
            "{\"accuracy\": 0.999}\n",
        );
        let mut outcome = crate::exec::JobOutcome {
            exit: crate::exec::ExitKind::Exited(0),
            duration: std::time::Duration::ZERO,
            log_path: ws.join("results/run.log"),
            metrics: Vec::new(),
            results: None,
            warnings: Vec::new(),
            sandboxed: true,
            gpus: String::new(),
            violations: Vec::new(),
        };
        crate::exec::trust::settle(run, "h-e1", &mut outcome).expect("settle");
        assert!(outcome.violations.iter().any(|v| v.contains("attempts/77")));
        let moved = move_aside(run, "h-e1").expect("moved");
        assert_eq!(moved.len(), 1, "{moved:?}");
        assert!(!ws.join("results/attempts/77").exists());
        assert!(ws.join("results/attempts/1/metrics.jsonl").is_file());
        assert!(
            run.join(".youra/planted/h-e1/77-r2/metrics.jsonl")
                .is_file()
        );
        assert_eq!(
            crate::exec::attempt_numbers(&ws.join("results/attempts")),
            vec![1]
        );
        assert_eq!(attempt_of("results/attempts/../x"), None);
    }
}
