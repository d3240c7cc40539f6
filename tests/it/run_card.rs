//! A run card per attempt (issue 40, item 6), with real experiments: a sandboxed Python job
//! leaves a card whose command, seeds, interpreter, package hash, CPU and data hashes match
//! what this test finds by other means (`python3`, `pip`, `sha256sum`, /proc/cpuinfo); the
//! card of the next attempt moves the first to `attempts/1/` and both read back through the
//! collection records. From the attacker's side: an experiment that links `run_card.json`
//! to a host file and plants a card of its own (neither followed nor shown), and hostile
//! names (a package, a data file) and a data link pointing out of the run, recorded as data
//! and shown as text in `paper.typ`, `paper.tex`, the PDF and the HTML report.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use youra::exec::run_card::{AttemptCard, DataKind, RunCard, read_all};
use youra::exec::{Availability, Backend, GpuPool, Job, JobOutcome, LocalBackend, SandboxMode};

/// Prints the file's size and writes a result: it reads the data file named by argv[1].
const EXPERIMENT: &str = "import json, os, sys\nb = open(sys.argv[1], 'rb').read()\nprint('read', len(b))\njson.dump({'accuracy': 0.9}, open(os.environ['YOURA_RESULTS_DIR'] + '/experiment_results.json', 'w'))\n";

const HOSTILE_DATA: &str = "<img src=x onerror=alert(1)> #set text(red) \\input{x} $y$ [z] }.csv";
const HOSTILE_PACKAGE: &str = "<script>alert(2)</script>#strong[x]\\textbf{y}$z$";

struct Run {
    _dir: tempfile::TempDir,
    root: PathBuf,
    run: PathBuf,
    ws: PathBuf,
}

/// `<tmp>/run/h-e1/code/exp.py` and `<tmp>/run/data/penguins.csv`.
fn study() -> Run {
    let dir = tempfile::Builder::new()
        .prefix("youra-card-")
        .tempdir()
        .expect("tempdir");
    let root = dir.path().to_path_buf();
    let run = root.join("run");
    let ws = run.join("h-e1");
    std::fs::create_dir_all(ws.join("code")).expect("mkdir code");
    std::fs::create_dir_all(run.join("data")).expect("mkdir data");
    std::fs::write(ws.join("code/exp.py"), EXPERIMENT).expect("write exp.py");
    std::fs::write(
        run.join("data/penguins.csv"),
        "species,bill\nAdelie,39.1\nGentoo,46.1\n",
    )
    .expect("write data");
    Run {
        _dir: dir,
        root,
        run,
        ws,
    }
}

fn job(r: &Run, python: &str, mode: SandboxMode) -> Job {
    let data = r.run.join("data/penguins.csv");
    let argv = vec![
        python.to_string(),
        "exp.py".to_string(),
        data.display().to_string(),
    ];
    let mut job = Job::new(&r.ws, argv);
    job.sandbox = mode;
    job.time_limit = Duration::from_secs(60);
    job.read_only.push(r.run.join("data"));
    job.env.push(("YOURA_SEEDS".into(), "11,12,13".into()));
    job
}

/// The job run to its end and settled as the engine settles it (`trust::settle`).
fn run_and_settle(r: &Run, job: &Job) -> JobOutcome {
    let backend = LocalBackend::with_gpus(GpuPool::new(Vec::new()));
    let running = backend
        .start(job)
        .unwrap_or_else(|e| panic!("the job did not start: {e}"));
    let mut outcome = running.wait();
    youra::exec::trust::settle(&r.run, "h-e1", &mut outcome).expect("settle");
    outcome
}

fn require_bwrap() {
    match youra::exec::probe_sandbox(std::env::var("PATH").ok().as_deref()) {
        Availability::Works(_) => {}
        other => panic!(
            "this test needs a working bubblewrap: apt-get install -y bubblewrap ({other:?})"
        ),
    }
}

fn shown(cards: &[AttemptCard], i: usize) -> &RunCard {
    match &cards[i].card {
        Ok(c) => c,
        Err(why) => panic!("card {i} not shown: {why}"),
    }
}

fn stdout(program: &str, args: &[&str]) -> Option<String> {
    let out = Command::new(program).args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

/// `sha256sum < path` (on stdin: given an odd name, it prefixes its line with `\\`).
fn sha256sum(path: &Path) -> String {
    let input = std::fs::File::open(path).expect("open for sha256sum");
    let out = Command::new("sha256sum")
        .stdin(input)
        .output()
        .expect("sha256sum runs");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    text.split_whitespace().next().expect("a hash").to_string()
}

fn sha256sum_of(text: &str) -> String {
    let dir = tempfile::tempdir().expect("tempdir");
    let f = dir.path().join("list");
    std::fs::write(&f, text).expect("write");
    sha256sum(&f)
}

/// `pip`'s idea of a name, to compare lists written by two tools.
fn normal(line: &str) -> String {
    line.to_lowercase().replace(['_', '.'], "-")
}

#[test]
fn a_real_attempt_leaves_a_card_that_matches_the_machine_and_its_data() {
    require_bwrap();
    let r = study();
    let j = job(&r, "python3", SandboxMode::Required);
    let outcome = run_and_settle(&r, &j);
    assert!(
        outcome.exit.success(),
        "{:?}: {}",
        outcome.exit,
        std::fs::read_to_string(&outcome.log_path).unwrap_or_default()
    );
    assert!(outcome.violations.is_empty(), "{:?}", outcome.violations);
    let cards = read_all(&r.run);
    assert_eq!(cards.len(), 1, "{cards:?}");
    assert_eq!(cards[0].record, Some(1));
    assert_eq!(cards[0].file, "h-e1/results/run_card.json");
    let c = shown(&cards, 0);
    assert_eq!(c.argv, j.argv);
    assert_eq!(c.hypothesis, "h-e1");
    assert_eq!(
        c.env.get("YOURA_SEEDS").map(String::as_str),
        Some("11,12,13")
    );
    assert!(c.env.contains_key("YOURA_RESULTS_DIR"), "{:?}", c.env);
    // The interpreter, as python3 itself says.
    let version = stdout(
        "python3",
        &["-c", "import platform; print(platform.python_version())"],
    )
    .expect("python3 runs");
    assert_eq!(c.interpreter.version.as_deref(), Some(version.trim()));
    assert!(!c.interpreter.packages.is_empty(), "{:?}", c.interpreter);
    let lines: String = c
        .interpreter
        .packages
        .iter()
        .map(|p| format!("{p}\n"))
        .collect();
    assert_eq!(
        c.interpreter.packages_sha256.as_deref(),
        Some(sha256sum_of(&lines).as_str())
    );
    if let Some(pip) = stdout("python3", &["-m", "pip", "list", "--format=freeze"]) {
        let theirs: Vec<String> = pip.lines().map(normal).collect();
        let ours: Vec<String> = c.interpreter.packages.iter().map(|p| normal(p)).collect();
        assert_eq!(ours, theirs, "the card's list is pip's, in pip's order");
    }
    // The machine, as /proc/cpuinfo says.
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").expect("cpuinfo");
    let model = cpuinfo
        .lines()
        .find(|l| l.starts_with("model name"))
        .and_then(|l| l.split_once(':'))
        .map(|(_, v)| v.trim().to_string());
    if model.is_some() {
        assert_eq!(c.machine.cpu_model, model);
    }
    assert!(c.machine.cpus.is_some_and(|n| n >= 1));
    assert!(c.machine.gpus.is_empty() && c.machine.gpu_error.is_none());
    // The data, as sha256sum says.
    let data = c
        .data
        .iter()
        .find(|d| d.path == "data/penguins.csv")
        .expect("the data file is on the card");
    assert_eq!(data.kind, DataKind::File);
    assert_eq!(
        data.sha256.as_deref(),
        Some(sha256sum(&r.run.join("data/penguins.csv")).as_str())
    );
    let len = std::fs::metadata(r.run.join("data/penguins.csv"))
        .expect("data")
        .len();
    assert_eq!(data.bytes, Some(len));
    // The sandbox as configured.
    assert!(c.sandbox.bubblewrap && !c.sandbox.network);
    assert_eq!(c.sandbox.mode, "required");
    assert_eq!(c.sandbox.time_limit_s, 60.0);
    assert_eq!(
        c.sandbox.read_only,
        [r.run.join("data").display().to_string()]
    );
    // The card's hash is in youra's record, like the measured files'.
    let record = std::fs::read_to_string(r.run.join(".youra/attempts/h-e1/1.json"))
        .expect("the collection record");
    let card_hash = sha256sum(&r.ws.join("results/run_card.json"));
    assert!(record.contains(&card_hash), "{record}");

    // A second attempt: the first card moves to attempts/1/, both read back.
    let outcome = run_and_settle(&r, &j);
    assert!(outcome.exit.success());
    let cards = read_all(&r.run);
    let files: Vec<(&str, Option<u32>)> =
        cards.iter().map(|a| (a.file.as_str(), a.record)).collect();
    assert_eq!(
        files,
        [
            ("h-e1/results/attempts/1/run_card.json", Some(1)),
            ("h-e1/results/run_card.json", Some(2)),
        ]
    );
    assert_eq!(
        sha256sum(&r.ws.join("results/attempts/1/run_card.json")),
        card_hash
    );
    assert!(shown(&cards, 1).started_at >= shown(&cards, 0).started_at);
    assert_eq!(cards[0].sha256.as_deref(), Some(card_hash.as_str()));
    // Attempt 1's files put back in results/ (the same bytes twice) are one card.
    std::fs::copy(
        r.ws.join("results/attempts/1/run_card.json"),
        r.ws.join("results/run_card.json"),
    )
    .expect("copy");
    let cards = read_all(&r.run);
    assert_eq!(cards.len(), 1, "{cards:?}");
    assert_eq!(cards[0].record, Some(1));
}

#[test]
fn a_card_the_experiment_links_or_plants_is_neither_followed_nor_shown() {
    require_bwrap();
    let r = study();
    let secret = r.root.join("secret.txt");
    std::fs::write(&secret, "host file\n").expect("write secret");
    let evil = format!(
        "import json, os\nres = os.environ['YOURA_RESULTS_DIR']\nos.symlink({secret:?}, res + '/run_card.json')\nos.makedirs(res + '/attempts/9', exist_ok=True)\njson.dump({{'schema': 1, 'argv': ['forged']}}, open(res + '/attempts/9/run_card.json', 'w'))\n",
        secret = secret.display().to_string()
    );
    std::fs::write(r.ws.join("code/exp.py"), evil).expect("write exp.py");
    let j = job(&r, "python3", SandboxMode::Required);
    let outcome = run_and_settle(&r, &j);
    assert_eq!(
        std::fs::read_to_string(&secret).expect("secret"),
        "host file\n",
        "the card was written through the link"
    );
    assert!(
        outcome
            .violations
            .iter()
            .any(|v| v.contains("run_card.json")),
        "the planted link is a violation: {:?}",
        outcome.violations
    );
    // youra's own card replaced the link (the file, not what it pointed to)…
    let meta = std::fs::symlink_metadata(r.ws.join("results/run_card.json")).expect("card");
    assert!(meta.is_file());
    let on_disk: RunCard = serde_json::from_slice(
        &std::fs::read(r.ws.join("results/run_card.json")).expect("read card"),
    )
    .expect("youra's card");
    assert_eq!(on_disk.argv, j.argv);
    // …but a violated attempt is not trusted, and the planted card was never collected.
    let cards = read_all(&r.run);
    assert_eq!(cards.len(), 2, "{cards:?}");
    for a in &cards {
        let why = a
            .card
            .as_ref()
            .err()
            .unwrap_or_else(|| panic!("{} shown", a.file));
        assert!(why.contains("not collected by youra"), "{why}");
    }
    let typ = youra::paper::appendix_card::typst(&cards);
    assert!(!typ.contains("forged"), "{typ}");
}

/// A virtual environment outside the run whose only package has a hostile name.
fn hostile_venv(root: &Path) -> PathBuf {
    let venv = root.join("venv");
    let made = Command::new("python3")
        .args(["-m", "venv", "--without-pip"])
        .arg(&venv)
        .status()
        .expect("python3 -m venv");
    assert!(made.success(), "python3 -m venv --without-pip failed");
    let site = std::fs::read_dir(venv.join("lib"))
        .expect("venv lib")
        .flatten()
        .next()
        .expect("lib/pythonX.Y")
        .path()
        .join("site-packages");
    let info = site.join("evil-6.6.6.dist-info");
    std::fs::create_dir_all(&info).expect("mkdir dist-info");
    std::fs::write(
        info.join("METADATA"),
        format!("Metadata-Version: 2.1\nName: {HOSTILE_PACKAGE}\nVersion: 6.6.6\n"),
    )
    .expect("METADATA");
    venv.join("bin/python3")
}

fn no_space(s: &str) -> String {
    s.chars().filter(|c| !c.is_whitespace()).collect()
}

#[test]
fn hostile_names_and_a_data_link_out_of_the_run_are_recorded_and_shown_as_text() {
    let r = study();
    let secret = r.root.join("secret.txt");
    std::fs::write(&secret, "SECRET-CONTENTS\n").expect("write secret");
    std::os::unix::fs::symlink(&secret, r.run.join("data/outside.csv")).expect("symlink");
    std::fs::write(r.run.join("data").join(HOSTILE_DATA), "a,b\n").expect("hostile file");
    let python = hostile_venv(&r.root);
    // Off: the venv lies outside what the sandbox binds; the card says the sandbox was off.
    let j = job(&r, &python.display().to_string(), SandboxMode::Off);
    let outcome = run_and_settle(&r, &j);
    assert!(outcome.exit.success(), "{:?}", outcome.exit);
    let cards = read_all(&r.run);
    assert_eq!(cards.len(), 1, "{cards:?}");
    let c = shown(&cards, 0);
    assert_eq!(
        c.interpreter.packages,
        [format!("{HOSTILE_PACKAGE}==6.6.6")]
    );
    assert!(!c.sandbox.bubblewrap && c.sandbox.mode == "off");
    let link = c
        .data
        .iter()
        .find(|d| d.path == "data/outside.csv")
        .expect("the link is listed");
    assert_eq!(link.kind, DataKind::Link);
    assert_eq!(
        link.target.as_deref(),
        Some(secret.to_str().expect("utf-8"))
    );
    assert_eq!(link.sha256, None);
    let card_text = std::fs::read_to_string(r.ws.join("results/run_card.json")).expect("card");
    assert!(
        !card_text.contains(&sha256sum(&secret)),
        "the link was followed"
    );
    assert!(!card_text.contains("SECRET-CONTENTS"));
    let hostile = c
        .data
        .iter()
        .find(|d| d.path == format!("data/{HOSTILE_DATA}"))
        .expect("the hostile file is listed by its name");
    assert_eq!(
        hostile.sha256.as_deref(),
        Some(sha256sum(&r.run.join("data").join(HOSTILE_DATA)).as_str())
    );

    // The paper: text in paper.typ and paper.tex, and literally in the PDF.
    let published = youra::paper::publish(&r.run, "# A study\n\nBody.\n").expect("publish");
    assert_eq!(published.no_pdf, None, "{published:?}");
    let typ = std::fs::read_to_string(r.run.join("paper/paper.typ")).expect("paper.typ");
    for hostile in [HOSTILE_PACKAGE, HOSTILE_DATA] {
        let literal = youra::paper::typst_md::typst_str(hostile);
        assert!(typ.contains(&literal[1..literal.len() - 1]), "{typ}");
    }
    assert!(typ.contains("Reproducibility"), "{typ}");
    let tex = std::fs::read_to_string(r.run.join("paper/paper.tex")).expect("paper.tex");
    assert!(
        tex.contains(&youra::paper::tex::text(HOSTILE_PACKAGE)),
        "{tex}"
    );
    assert!(
        tex.contains(&youra::paper::tex::text(HOSTILE_DATA)),
        "{tex}"
    );
    for raw in ["\\input{x}", "\\textbf{y}", "$y$", "$z$"] {
        assert!(!tex.contains(raw), "{raw} reached paper.tex as TeX");
    }
    let pdf = stdout(
        "pdftotext",
        &[r.run.join("paper/paper.pdf").to_str().expect("utf-8"), "-"],
    )
    .expect("pdftotext (poppler-utils) must be installed");
    let flat = no_space(&pdf);
    assert!(flat.contains(&no_space(HOSTILE_PACKAGE)), "{pdf}");
    assert!(flat.contains(&no_space(HOSTILE_DATA)), "{pdf}");
    assert!(flat.contains(&no_space("a symbolic link to")), "{pdf}");

    // The report: escaped, one collapsible per attempt.
    let report = youra::webreport::Report {
        run_cards: cards.clone(),
        ..Default::default()
    };
    let html = youra::webreport::page::render(&report);
    assert!(!html.contains("<script>alert"), "markup from the card");
    assert!(!html.contains("<img src=x"), "markup from the card");
    assert!(
        html.contains(&youra::webreport::escape::text(HOSTILE_PACKAGE)),
        "{html}"
    );
    assert!(html.contains(&youra::webreport::escape::text(HOSTILE_DATA)));
    assert_eq!(html.matches("<details><summary>h-e1, attempt 1").count(), 1);
}
