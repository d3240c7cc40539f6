//! Nothing the sandbox can write is trusted as a path (issue 32, item 6): real experiment
//! code, run by the engine in bubblewrap, plants links and files where youra reads and
//! writes; each attack is a `sandbox_violation` sent to repair, no host file is read or
//! written, the gate comes from the honest repair, and `report check` is not fooled.
//! These need bubblewrap and fail (not skip) without it, like `tests/it/exec.rs`.

use crate::common;

use std::path::Path;

use common::script::{CENTROID_PY, Script, brief, code_reply, replay_run, with_data};
use youra::vsa::store::Store;

fn gate(dir: &Path, h: &str) -> (String, String) {
    let s = Store::new(dir.join("verification_state.yaml"))
        .load()
        .expect("the VSA loads");
    let x = s.vsa.hypothesis(h).expect("the sub-hypothesis");
    let result = x.gate.result.as_ref();
    (
        x.status.as_str().to_string(),
        result.map_or("-".into(), |r| r.as_str().to_string()),
    )
}

fn violations(dir: &Path) -> Vec<String> {
    youra::rundir::events::read(&dir.join("events.jsonl"))
        .into_iter()
        .filter(|e| e.kind == "sandbox_violation")
        .filter_map(|e| e.message)
        .collect()
}

/// The run of `cheat` (attempt 1) then the honest centroid (attempt 2), on h-e1.
fn run_attack(cheat: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    match youra::exec::probe_sandbox(std::env::var("PATH").ok().as_deref()) {
        youra::exec::Availability::Works(_) => {}
        other => panic!("these tests need bubblewrap: `apt-get install -y bubblewrap` ({other:?})"),
    }
    let mut s = Script::default();
    s.scoping().literature().debate(6, true).planning();
    let cheat = code_reply("cheat.py", cheat, &[]);
    let fine = code_reply("centroid.py", CENTROID_PY, &["--standardize"]);
    s.loop_for("h-e1", &brief("accuracy", ">=", 0.92), &[cheat, fine]);
    let (g, dir) = replay_run(&s, "experiment_time_limit_s = 60\n");
    with_data(&dir);
    let end = common::script::run_engine(&dir, true);
    if std::env::var("YOURA_TEST_DEBUG").is_ok() {
        eprintln!("{end:?}");
        for e in youra::rundir::events::read(&dir.join("events.jsonl")) {
            eprintln!("{} {:?} {:?}", e.kind, e.result, e.message);
        }
    }
    (g, dir)
}

/// A host folder holding a better result than any the experiment measured.
fn host_results() -> tempfile::TempDir {
    let host = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        host.path().join("metrics.jsonl"),
        "{\"step\": 1, \"accuracy\": 0.9911}\n",
    )
    .expect("write");
    std::fs::write(
        host.path().join("experiment_results.json"),
        "{\"accuracy\": 0.9911}",
    )
    .expect("write");
    host
}

fn registry_values(dir: &Path) -> (Vec<f64>, Vec<String>) {
    let r = youra::report::registry_build::build(dir).expect("the registry builds");
    (r.entries.iter().map(|e| e.value).collect(), r.warnings)
}

#[test]
fn a_results_folder_swapped_for_a_link_to_a_host_folder_is_never_read() {
    let host = host_results();
    // Measure a failing 0.8832, then swap results/ for a link to the host folder's 0.9911.
    let cheat = format!(
        "import os, json\nr = os.environ['YOURA_RESULTS_DIR']\nopen(r + '/metrics.jsonl', 'w').write(json.dumps({{'step': 1, 'accuracy': 0.8832}}) + '\\n')\nos.rename(r, r + '.real')\nos.symlink({:?}, r)\n",
        host.path().display().to_string()
    );
    let (_g, dir) = run_attack(&cheat);
    let v = violations(&dir);
    assert!(
        v.iter()
            .any(|m| m.contains("h-e1/results was replaced by a symbolic link")),
        "the swap is a violation naming results/: {v:?}"
    );
    // The gate is the honest repair's, not the host's 0.9911.
    assert_eq!(gate(&dir, "h-e1"), ("VALIDATED".into(), "PASS".into()));
    let report = std::fs::read_to_string(dir.join("h-e1/04_validation.md")).unwrap_or_default();
    assert!(!report.contains("0.9911"), "{report}");
    assert!(report.contains("sandbox violation"), "{report}");
    // No host file was moved into attempts/ by the next start, or read into the registry.
    assert!(host.path().join("metrics.jsonl").is_file());
    assert!(host.path().join("experiment_results.json").is_file());
    let (values, _) = registry_values(&dir);
    assert!(!values.contains(&0.9911), "{values:?}");
    let moved = walk(&dir.join("h-e1/results"));
    assert!(
        moved.iter().all(|p| !std::fs::read_to_string(p)
            .unwrap_or_default()
            .contains("0.9911")),
        "{moved:?}"
    );
}

#[test]
fn a_brief_swapped_for_a_link_to_proc_environ_never_reaches_a_prompt() {
    let cheat = "import os\nw = os.environ['YOURA_WORKSPACE']\nb = w + '/02c_experiment_brief.md'\nos.remove(b)\nos.symlink('/proc/self/environ', b)\nt = w + '/03_tasks.yaml'\nos.remove(t)\nos.symlink('/proc/self/environ', t)\n";
    let (_g, dir) = run_attack(cheat);
    let v = violations(&dir);
    assert!(
        v.iter()
            .any(|m| m.contains("02c_experiment_brief.md was replaced by a symbolic link")),
        "{v:?}"
    );
    assert_eq!(gate(&dir, "h-e1"), ("VALIDATED".into(), "PASS".into()));
    // youra reads its own copy, outside the workspace: the brief it wrote.
    let own = youra::rundir::own::read(&dir, Path::new("h-e1/02c_experiment_brief.md"))
        .expect("youra's copy");
    assert!(own.contains("## Gate Criteria"), "{own}");
    // Nothing of youra's environment went into a prompt or a transcript.
    let path_var = std::env::var("PATH").unwrap_or_default();
    for f in walk(&dir.join("transcripts")) {
        let text = std::fs::read_to_string(&f).unwrap_or_default();
        assert!(
            !text.contains(&format!("PATH={path_var}")),
            "{} holds youra's environment",
            f.display()
        );
    }
}

#[test]
fn an_attempt_the_experiment_wrote_itself_is_not_measured() {
    // Honest code that also plants a "measured" attempt it never ran.
    let cheat = format!(
        "import os\nd = os.environ['YOURA_RESULTS_DIR'] + '/attempts/77'\nos.makedirs(d)\nopen(d + '/experiment_results.json', 'w').write('{{\"accuracy\": 0.9911}}')\n{CENTROID_PY}"
    );
    let (_g, dir) = run_attack(&cheat);
    let v = violations(&dir);
    assert!(
        v.iter()
            .any(|m| m.contains("attempts/77/experiment_results.json was not collected by youra")),
        "{v:?}"
    );
    assert_eq!(gate(&dir, "h-e1"), ("VALIDATED".into(), "PASS".into()));
    // youra's records are outside the workspace; the registry skips the forged file.
    assert!(dir.join(".youra/attempts/h-e1/1.json").is_file());
    let (values, _) = registry_values(&dir);
    assert!(!values.contains(&0.9911), "{values:?}");
    // Issue 39: the planted folder left the workspace when the violation was recorded.
    assert!(!dir.join("h-e1/results/attempts/77").exists());
    assert!(
        dir.join(".youra/planted/h-e1/77-r1/experiment_results.json")
            .is_file()
    );
    // report check: a paper claiming the planted value fails, the measured one passes.
    let check = |value: &str| {
        let paper = dir.join(format!("paper_{value}.md"));
        let text = format!(
            "# Results\n\n| Sub-hypothesis | Metric | Value |\n|---|---|---|\n| h-e1 | accuracy | {value} |\n"
        );
        std::fs::write(&paper, text).expect("write the paper");
        let out = common::youra(&[
            "report",
            "check",
            dir.to_str().unwrap_or_default(),
            "--paper",
            paper.to_str().unwrap_or_default(),
        ]);
        (out.status.code(), common::text(&out).0)
    };
    let (code, out) = check("0.9911");
    assert_eq!(code, Some(1), "the planted value is not measured: {out}");
    let measured = youra::exec::read_metrics(&dir.join("h-e1/results/metrics.jsonl"));
    let acc = measured
        .records
        .iter()
        .rev()
        .find_map(|r| r.values.get("accuracy").copied());
    let (values, _) = registry_values(&dir);
    let honest = values
        .iter()
        .copied()
        .find(|v| Some(*v) == acc)
        .map(|v| format!("{v:.4}"));
    let honest =
        honest.unwrap_or_else(|| panic!("the measured accuracy {acc:?} is in the registry"));
    let (code, out) = check(&honest);
    assert_eq!(code, Some(0), "the measured value {honest} passes: {out}");
}

#[test]
fn a_code_folder_swapped_for_a_link_is_not_written_through_at_the_repair() {
    let host = tempfile::tempdir().expect("tempdir");
    let cheat = format!(
        "import os\nw = os.environ['YOURA_WORKSPACE']\nos.rename(w + '/code', w + '/code.real')\nos.symlink({:?}, w + '/code')\nraise SystemExit(3)\n",
        host.path().display().to_string()
    );
    let (_g, dir) = run_attack(&cheat);
    assert!(
        std::fs::read_dir(host.path())
            .map(|d| d.count())
            .unwrap_or(0)
            == 0,
        "youra wrote nothing into the host folder"
    );
    let v = violations(&dir);
    assert!(
        v.iter()
            .any(|m| m.contains("h-e1/code was replaced by a symbolic link")),
        "{v:?}"
    );
    let code = dir.join("h-e1/code");
    assert!(std::fs::symlink_metadata(&code).is_ok_and(|m| m.is_dir()));
    assert!(code.join("centroid.py").is_file());
    assert_eq!(gate(&dir, "h-e1"), ("VALIDATED".into(), "PASS".into()));
}

/// Every plain file under `dir`, following no link.
fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            match e.file_type() {
                Ok(t) if t.is_dir() => stack.push(e.path()),
                Ok(t) if t.is_file() => out.push(e.path()),
                _ => {}
            }
        }
    }
    out
}
