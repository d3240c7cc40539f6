//! Issue 43's newcomer's list, the command-line items: a folder with no run is said to be one
//! ("no run here", one exit status whatever the command), an interrupted run says so in
//! `youra status`, `vsa history` numbers its entries, an alias such as `DONE` is named when
//! it is read, and a youra.toml value of the wrong type is said in words with the key.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The exit status of every command given a folder that holds no run (`cli::NO_RUN`).
const NO_RUN: i32 = 2;

/// `youra` with none of the machine's `YOURA_*` variables and its own config folder.
fn youra(args: &[&str], home: &Path) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_youra"));
    for (k, _) in std::env::vars() {
        if k.starts_with("YOURA_") {
            cmd.env_remove(k);
        }
    }
    cmd.env("YOURA_CONFIG_DIR", home)
        .args(args)
        .output()
        .expect("youra runs")
}

fn out(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap_or_default()
}

/// A fresh `youra init` run in `tmp`, with the config folder beside it.
fn init(tmp: &Path) -> (PathBuf, PathBuf) {
    let home = tmp.join("home");
    let run = tmp.join("run");
    let o = youra(&["init", s(&run), "--topic", "does it work"], &home);
    assert_eq!(o.status.code(), Some(0), "{:?}", out(&o));
    (run, home)
}

#[test]
fn run_and_doctor_on_a_missing_folder_say_no_run_here_with_the_status_all_commands_use() {
    let tmp = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let home = tmp.path().join("home");
    let missing = tmp.path().join("nowhere");
    let empty = tmp.path().join("empty");
    std::fs::create_dir_all(&empty).unwrap_or_else(|e| panic!("{e}"));
    for dir in [&missing, &empty] {
        for cmd in ["run", "doctor"] {
            let o = youra(&[cmd, s(dir)], &home);
            let (stdout, stderr) = out(&o);
            assert_eq!(o.status.code(), Some(NO_RUN), "{cmd}: {stdout}{stderr}");
            assert_eq!(
                stderr.trim(),
                format!(
                    "error: no run here: {}\n  hint: create one with `youra init <dir> --topic …` or `youra demo`",
                    dir.display()
                ),
                "{cmd}"
            );
            assert!(!stdout.contains("replay"), "{cmd}: {stdout}");
        }
    }
    assert!(
        !missing.exists(),
        "nothing made for a folder that is not there"
    );
    assert_eq!(
        std::fs::read_dir(&empty).map(Iterator::count).ok(),
        Some(0),
        "nothing written into an empty folder"
    );
    // Every command that opens a run answers a folder without one the same way.
    let m = s(&missing);
    for args in [
        vec!["status", m],
        vec!["status", m, "--json"],
        vec!["vsa", "get", m, "workflow.status"],
        vec!["vsa", "history", m],
        vec!["steer", m, "pause", "--reason", "r"],
        vec!["memory", "list", m],
        vec!["memory", "import", m, "failure_h-e1_run1", "--into", m],
        vec!["plan", "diff", m, "h-e1", "n-0001"],
        vec!["vsa", "validate", m],
        vec!["tui", m],
        vec!["report", "check", m],
        vec!["report", "html", m],
        vec!["compare", m, m],
    ] {
        let o = youra(&args, &home);
        let (_, stderr) = out(&o);
        assert_eq!(o.status.code(), Some(NO_RUN), "{args:?}: {stderr}");
        assert!(
            stderr.contains("no verification_state.yaml"),
            "{args:?}: {stderr}"
        );
    }
}

#[test]
fn an_interrupted_run_says_so_and_how_to_resume() {
    let tmp = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let (run, home) = init(tmp.path());
    let status = |json: bool| {
        let mut args = vec!["status", s(&run)];
        if json {
            args.push("--json");
        }
        let o = youra(&args, &home);
        assert_eq!(o.status.code(), Some(0), "{:?}", out(&o));
        out(&o).0
    };
    let said = format!(
        "interrupted (no engine is running): resume with `youra run {}`",
        run.display()
    );
    // Never started: ACTIVE, and not called interrupted.
    let fresh = status(false);
    assert!(
        fresh.contains("Workflow:   ACTIVE (INTERACTIVE)\n"),
        "{fresh}"
    );
    assert!(!fresh.contains("interrupted"), "{fresh}");
    // An engine killed mid-run leaves its lock record behind, held by nobody.
    let lock = run.join(".youra").join("engine.lock");
    std::fs::create_dir_all(run.join(".youra")).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(&lock, "pid 999999 since 2026-01-01T00:00:00Z")
        .unwrap_or_else(|e| panic!("{e}"));
    let killed = status(false);
    assert!(
        killed.contains(&format!("Workflow:   ACTIVE (INTERACTIVE) — {said}\n")),
        "{killed}"
    );
    assert!(killed.contains("Engine:     not running"), "{killed}");
    let v: serde_json::Value =
        serde_json::from_str(&status(true)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(v["interrupted"], serde_json::Value::String(said.clone()));
    // An engine that holds the lock runs the run: not interrupted.
    let held = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(&lock)
        .unwrap_or_else(|e| panic!("{e}"));
    held.lock().unwrap_or_else(|e| panic!("{e}"));
    let running = status(false);
    assert!(
        running.contains("Engine:     running (pid 999999"),
        "{running}"
    );
    assert!(!running.contains("interrupted"), "{running}");
    let v: serde_json::Value =
        serde_json::from_str(&status(true)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(v["interrupted"], serde_json::Value::Null);
    drop(held);
    // A run that is not ACTIVE (paused by the researcher) is not interrupted either.
    let o = youra(
        &[
            "vsa",
            "set",
            s(&run),
            "workflow.status",
            "PAUSED",
            "--reason",
            "r",
        ],
        &home,
    );
    assert_eq!(o.status.code(), Some(0), "{:?}", out(&o));
    assert!(!status(false).contains("interrupted"));
}

#[test]
fn vsa_history_numbers_each_entry_with_its_revision() {
    let tmp = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let (run, home) = init(tmp.path());
    for (value, reason) in [("first", "one"), ("second", "two")] {
        let o = youra(
            &[
                "vsa",
                "set",
                s(&run),
                "workflow.next_action",
                value,
                "--reason",
                reason,
            ],
            &home,
        );
        assert_eq!(o.status.code(), Some(0), "{:?}", out(&o));
    }
    let o = youra(&["vsa", "history", s(&run)], &home);
    let (text, _) = out(&o);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    // Newest first: `<date> <time>  r2     researcher  workflow.next_action: …`.
    for (line, rev, what) in [
        (lines[0], "r2", "first -> second  (two)"),
        (lines[1], "r1", "-> first  (one)"),
    ] {
        let cols: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(cols.get(2).copied(), Some(rev), "{line}");
        // Nothing names the newcomer: the history says user@host of this login.
        let who = youra::vsa::actor::login();
        assert_eq!(cols.get(3).copied(), Some(who.as_str()), "{line}");
        assert!(line.ends_with(what), "{line}");
    }
    let o = youra(&["vsa", "history", s(&run), "--json"], &home);
    let revs: Vec<serde_json::Value> = out(&o)
        .0
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap_or_default()["revision"].clone()
        })
        .collect();
    assert_eq!(revs, [serde_json::json!(2), serde_json::json!(1)]);
}

#[test]
fn done_is_read_as_completed_and_says_so() {
    let tmp = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let (run, home) = init(tmp.path());
    let set = |value: &str| {
        let o = youra(
            &[
                "vsa",
                "set",
                s(&run),
                "workflow.status",
                value,
                "--reason",
                "r",
            ],
            &home,
        );
        assert_eq!(o.status.code(), Some(0), "{:?}", out(&o));
        out(&o).0
    };
    let said = set("DONE");
    assert_eq!(
        said.lines().collect::<Vec<_>>(),
        [
            "workflow.status: ACTIVE -> COMPLETED (revision 1)",
            "note: `DONE` was read as COMPLETED, the name youra writes (an alias)",
        ],
        "{said}"
    );
    let o = youra(&["vsa", "get", s(&run), "workflow.status"], &home);
    assert_eq!(out(&o).0.trim(), "COMPLETED");
    // The canonical name is written as given: no note.
    let said = set("ACTIVE");
    assert!(!said.contains("note:"), "{said}");
}

#[test]
fn a_config_value_of_the_wrong_type_is_said_in_words_with_its_key_and_line() {
    let tmp = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let (run, home) = init(tmp.path());
    let toml = run.join("youra.toml");
    let text = std::fs::read_to_string(&toml).unwrap_or_default();
    let text = format!("{text}\n[engine]\nexperiment_time_limit_s = \"900\"\n");
    std::fs::write(&toml, &text).unwrap_or_else(|e| panic!("{e}"));
    let line = text.lines().count();
    let o = youra(&["config", "show", s(&run)], &home);
    let (_, stderr) = out(&o);
    assert_eq!(o.status.code(), Some(1), "{stderr}");
    let want = format!(
        "{}: line {line}, column 27 (`experiment_time_limit_s = \"900\"`): \
         `engine.experiment_time_limit_s` takes a number, e.g. 900.0; found the text \"900\": \
         did you mean 900.0 (without quotes)?",
        toml.display()
    );
    assert!(stderr.contains(&want), "{stderr}\nwanted: {want}");
    assert!(!stderr.contains("expected f64"), "{stderr}");
    // A name that is not one: the nearest known one.
    let text = std::fs::read_to_string(&toml).unwrap_or_default();
    let text = text.replace(
        "experiment_time_limit_s = \"900\"",
        "experiment_time_limit_s = 900.0\n\n[exec]\nsandbox = \"of\"",
    );
    std::fs::write(&toml, &text).unwrap_or_else(|e| panic!("{e}"));
    let o = youra(&["config", "show", s(&run)], &home);
    let (_, stderr) = out(&o);
    assert_eq!(o.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "{}: line {}, column 11 (`sandbox = \"of\"`): unknown variant `of`, expected `required` or `off`: did you mean `off`?",
            toml.display(),
            text.lines().count()
        )),
        "{stderr}"
    );
}

#[test]
fn the_readme_command_table_has_every_command() {
    use clap::CommandFactory;
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"))
        .unwrap_or_else(|e| panic!("{e}"));
    let table: Vec<&str> = readme
        .lines()
        .filter(|l| l.starts_with("| `youra "))
        .collect();
    let cli = youra::cli::Cli::command();
    let mut missing = Vec::new();
    for cmd in cli.get_subcommands().filter(|c| !c.is_hide_set()) {
        let name = cmd.get_name();
        let mut forms: Vec<String> = cmd
            .get_subcommands()
            .filter(|c| !c.is_hide_set() && c.get_name() != "help")
            .map(|c| format!("`youra {name} {}", c.get_name()))
            .collect();
        if forms.is_empty() {
            forms.push(format!("`youra {name}"));
        }
        for form in forms {
            if !table.iter().any(|row| row.contains(&form)) {
                missing.push(form);
            }
        }
    }
    assert_eq!(
        missing,
        Vec::<String>::new(),
        "rows missing from README's command table"
    );
    for row in [
        "| `youra plan diff <dir> <hypothesis> <node>`",
        "| `youra plan checkout <dir>",
    ] {
        assert!(table.iter().any(|r| r.starts_with(row)), "{row}");
    }
}

/// One error format across commands (issue 43): whatever fails — a folder with no run, a
/// command that needs a terminal, a broken youra.toml, a misspelt value, an audit of a file
/// — stderr is `error: <what>` then only indented `because:` / `hint:` lines (no
/// "Error:\n   0:" report, no "youra audit:" prefix), and outside text in it is escaped.
#[test]
fn every_command_fails_in_one_format() {
    let tmp = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let (run, home) = init(tmp.path());
    let missing = tmp.path().join("no\u{1b}[31mwhere");
    let file = tmp.path().join("a-file");
    std::fs::write(&file, "x").unwrap_or_else(|e| panic!("{e}"));
    let broken = tmp.path().join("broken");
    std::fs::create_dir_all(&broken).unwrap_or_else(|e| panic!("{e}"));
    std::fs::copy(run.join("youra.toml"), broken.join("youra.toml"))
        .unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(broken.join("youra.toml"), "[engine\nmax_rounds = 3\n")
        .unwrap_or_else(|e| panic!("{e}"));
    let (r, m, f, b) = (s(&run), s(&missing), s(&file), s(&broken));
    let cases: Vec<Vec<&str>> = vec![
        vec!["run", m],
        vec!["doctor", m],
        vec!["status", m],
        vec!["tui", "--run", r],
        vec!["audit", f],
        vec!["config", "show", b],
        vec!["doctor", b],
        vec![
            "vsa",
            "set",
            r,
            "workflow.status",
            "NOT_A_STATUS",
            "--reason",
            "r",
        ],
        vec!["vsa", "history", m],
        vec!["report", "check", m],
        vec!["steer", r, "approve"],
    ];
    for args in cases {
        let o = youra(&args, &home);
        let (_, stderr) = out(&o);
        assert_ne!(o.status.code(), Some(0), "{args:?} fails");
        let mut lines = stderr.lines().filter(|l| !l.starts_with("warning: "));
        let first = lines.next().unwrap_or_default();
        assert!(first.starts_with("error: "), "{args:?}: {stderr}");
        for l in lines {
            assert!(
                l.starts_with("  ") && !l.trim().is_empty(),
                "{args:?}: a line outside the format: {l:?}\n{stderr}"
            );
        }
        assert!(
            !stderr.contains("Error:") && !stderr.contains("youra audit:"),
            "{stderr}"
        );
        assert!(!stderr.contains('\u{1b}'), "{args:?}: escaped: {stderr:?}");
    }
}
