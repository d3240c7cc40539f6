//! Nothing untrusted reaches a terminal raw (issue 32, item 5). A finished demo run gets
//! hostile text wherever a model, an experiment or a file can put it — VSA statements and a
//! history reason, a memory record's lesson, an event message, log lines, the paper, the
//! run's settings — then every command that reads a run runs on it in a real pseudo-terminal
//! and must write no ESC, BEL, C1 control, DEL or bidi control. `--json` output must still
//! decode to the exact hostile strings. The list of commands is checked against clap's, so a
//! new subcommand fails here until it is listed (run or excused with a reason).

use crate::common;

use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

use clap::CommandFactory;
use common::pty::*;

/// OSC 52 (write the clipboard), CSI 2J (clear the screen), OSC 0 (retitle the window), a
/// right-to-left override, a bidi isolate, a C1 CSI and DEL.
const HOSTILE: &str =
    "X\u{1b}]52;c;aGFjaw==\u{7}\u{1b}[2J\u{1b}]0;title\u{7}\u{202e}evil\u{2066}\u{9b}31m\u{7f}Z";

/// What a terminal must never receive from youra's CLI (a pty adds `\r` itself, so CR is
/// not among them; the unit table in `src/term.rs` covers it).
fn forbidden(c: char) -> bool {
    matches!(c,
        '\u{1b}' | '\u{7}' | '\u{7f}' | '\u{80}'..='\u{9f}' | '\u{61c}' | '\u{200e}' | '\u{200f}'
        | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// How each command ends up in this test: run (its arguments) or excused (why).
enum Case {
    Run(&'static [&'static str]),
    #[allow(dead_code)] // the reason is for the reader
    Excused(&'static str),
}

/// Every leaf subcommand, by its clap path. `{run}` is the hostile run, `{copy}` a replay copy
/// made by the `replay` case, `{fresh}` a run `init` makes, `{h}` the hostile text.
fn cases() -> Vec<(&'static str, Case)> {
    use Case::*;
    vec![
        ("init", Run(&["init", "{fresh}", "--topic", "{h}"])),
        ("status", Run(&["status", "{run}"])),
        (
            "vsa get",
            Run(&["vsa", "get", "{run}", "sub_hypotheses.h-e1.statement"]),
        ),
        (
            "vsa set",
            Run(&[
                "vsa",
                "set",
                "{run}",
                "sub_hypotheses.h-m1.statement",
                "{h}",
                "--reason",
                "{h}",
            ]),
        ),
        ("vsa history", Run(&["vsa", "history", "{run}"])),
        ("vsa validate", Run(&["vsa", "validate", "{run}"])),
        ("vsa repair", Run(&["vsa", "repair", "{run}"])),
        ("memory list", Run(&["memory", "list", "{run}"])),
        (
            "plan diff",
            Run(&["plan", "diff", "{run}", "h-e1", "n-0001"]),
        ),
        (
            "plan checkout",
            Run(&[
                "plan", "checkout", "{run}", "h-e1", "n-0001", "--into", "{fresh}",
            ]),
        ),
        (
            "data fetch",
            Excused(
                "fetches from the network into data/; its URL and name checks escape what they \
                 echo (tests/it/data_fetch.rs)",
            ),
        ),
        (
            "memory show",
            Run(&["memory", "show", "{run}", "failure_h-e1_run1"]),
        ),
        (
            "memory import",
            Run(&[
                "memory",
                "import",
                "{run}",
                "failure_h-e1_run1",
                "--into",
                "{fresh}",
            ]),
        ),
        (
            "steer",
            Run(&["steer", "{run}", "retry", "h-e1", "--reason", "{h}"]),
        ),
        ("report check", Run(&["report", "check", "{run}"])),
        // Writes <run>/report.html (escaped for HTML); the terminal gets only where it went.
        ("report html", Run(&["report", "html", "{run}"])),
        // Before the commands that act on the run's settings (its tool server): they then run
        // as far as they did before `youra trust` existed, and its own listing is checked too.
        ("trust", Run(&["trust", "{run}"])),
        ("tools list", Run(&["tools", "list", "{run}"])),
        ("config show", Run(&["config", "show", "{run}"])),
        ("doctor", Run(&["doctor", "{run}"])),
        ("replay", Run(&["replay", "{run}", "{copy}"])),
        ("compare", Run(&["compare", "{run}", "{copy}"])),
        ("audit", Run(&["audit", "{run}"])),
        ("run", Run(&["run", "{run}"])),
        ("tui", Run(&["tui", "{run}"])),
        (
            "demo",
            Excused("makes its own run from the bundled recording; reads no run"),
        ),
        (
            "bench allocation",
            Excused("a synthetic corpus built in; reads no run"),
        ),
        (
            "bench routing",
            Excused("a synthetic corpus built in; reads no run"),
        ),
        (
            "bench audit",
            Run(&["bench", "audit", "{run}", "--files", "0"]),
        ),
        (
            "bench claims",
            Excused("simulated studies built in; reads no run"),
        ),
        (
            "__paper-pdf",
            Excused("internal: compiles the Typst youra's own parent sends on its stdin"),
        ),
        ("completions", Excused("prints clap's own definitions")),
        ("man", Excused("prints clap's own definitions")),
    ]
}

/// The `--json` forms: each must print JSON with no control or bidi character raw, and
/// those marked `true` must hold the hostile text exactly once decoded.
const JSON: &[(&[&str], bool)] = &[
    (&["status", "{run}", "--json"], true),
    (
        &[
            "vsa",
            "get",
            "{run}",
            "sub_hypotheses.h-e1.statement",
            "--json",
        ],
        true,
    ),
    (&["vsa", "history", "{run}", "--json"], true),
    (&["memory", "list", "{run}", "--json"], false),
    (&["config", "show", "{run}", "--json"], true),
    (&["compare", "{run}", "{copy}", "--json"], false),
    (&["audit", "{run}", "--json"], false),
    (&["report", "check", "{run}", "--json"], true),
    (&["tools", "list", "{run}", "--json"], true),
    (&["doctor", "{run}", "--json"], false),
    (&["run", "{run}", "--json"], false),
    // Last: after a pause, `youra run` would wait for a resume.
    (
        &["steer", "{run}", "pause", "--reason", "{h}", "--json"],
        false,
    ),
];

/// Cases whose output must show the escaped sequence, so the test cannot pass because the
/// hostile text never reached a command at all.
const MUST_SHOW: &[&str] = &[
    "vsa get",
    "vsa set",
    "vsa history",
    "memory show",
    "status",
    "config show",
    "tools list",
    "report check",
];

fn leaves(cmd: &clap::Command, prefix: &str, out: &mut Vec<String>) {
    for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
        let name = format!("{prefix}{}", sub.get_name());
        if sub.has_subcommands() {
            leaves(sub, &format!("{name} "), out);
        } else {
            out.push(name);
        }
    }
}

#[test]
fn every_subcommand_is_listed_here() {
    let mut clap_names = Vec::new();
    leaves(&youra::cli::Cli::command(), "", &mut clap_names);
    clap_names.sort();
    let mut listed: Vec<String> = cases().iter().map(|(n, _)| n.to_string()).collect();
    listed.sort();
    assert_eq!(
        listed, clap_names,
        "a subcommand was added or renamed: list it in tests/it/terminal_safety.rs `cases()` \
         (run on the hostile run, or excused with the reason it reads no run)"
    );
}

/// Write `s` as a TOML basic string, every control and bidi character as `\uXXXX`.
fn toml_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if forbidden(c) || c.is_control() => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out + "\""
}

fn youra_ok(args: &[&str]) -> std::process::Output {
    let o = common::youra(args);
    assert!(o.status.success(), "{args:?}: {o:?}");
    o
}

/// A finished demo run with the hostile text planted where models, experiments and files put
/// text: a statement and a history reason (through `vsa set`), a lesson and a root cause, an
/// event, youra.log, an experiment's log, the paper, the run's name and a tool server.
fn hostile_run(tmp: &Path) -> std::path::PathBuf {
    let run = tmp.join("run");
    youra_ok(&[
        "demo",
        "--headless",
        "--fast",
        "--dir",
        run.to_str().unwrap(),
    ]);
    youra_ok(&[
        "vsa",
        "set",
        run.to_str().unwrap(),
        "sub_hypotheses.h-e1.statement",
        HOSTILE,
        "--reason",
        HOSTILE,
    ]);
    youra_ok(&[
        "vsa",
        "set",
        run.to_str().unwrap(),
        "workflow.next_action",
        HOSTILE,
        "--reason",
        "a hand-set next action",
    ]);
    let memory = run.join("memory/failure_h-e1_run1.md");
    let text = std::fs::read_to_string(&memory).unwrap();
    assert!(text.contains("1. standardize the three features"), "{text}");
    let text = text
        .replace(
            "1. standardize the three features",
            &format!("1. {HOSTILE} standardize"),
        )
        .replace(
            "1. [Method s=0.72]",
            &format!("1. [Method s=0.72] {HOSTILE}"),
        );
    std::fs::write(&memory, text).unwrap();

    let events = run.join("events.jsonl");
    let all = std::fs::read_to_string(&events).unwrap();
    let first = all.lines().find(|l| l.contains("\"stage_end\"")).unwrap();
    let mut event: serde_json::Value = serde_json::from_str(first).unwrap();
    event["message"] = serde_json::Value::String(HOSTILE.into());
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&events)
        .unwrap();
    writeln!(file, "{event}").unwrap();

    for log in ["youra.log", "h-e1/results/run.log"] {
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(run.join(log))
            .unwrap();
        writeln!(f, "2026-12-04T04:50:06Z  WARN youra::exec: {HOSTILE}").unwrap();
    }
    for paper in ["paper/06_paper.md", "paper/06_paper_final.md"] {
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(run.join(paper))
            .unwrap();
        writeln!(
            f,
            "\nWe reach 0.9713 accuracy on ImageNet-{HOSTILE} with AdamW."
        )
        .unwrap();
    }
    let toml = run.join("youra.toml");
    let settings = std::fs::read_to_string(&toml).unwrap();
    let settings = settings.replace(
        "name = \"penguins-demo\"",
        &format!("name = {}", toml_string(HOSTILE)),
    ) + &format!(
        "\n[[tools.servers]]\nname = \"probe\"\ncommand = {}\n",
        toml_string(&format!("/nonexistent/{HOSTILE}"))
    );
    std::fs::write(&toml, settings).unwrap();
    run
}

/// Everything the real binary wrote to its terminal (stdout and stderr), and its exit code.
fn in_pty(args: &[String], home: &Path, tui: bool) -> (Vec<u8>, u32) {
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let Session {
        mut child,
        mut writer,
        screen,
        _master,
        ..
    } = spawn_youra(&refs, home);
    if tui {
        screen.wait_for("Gates");
        std::thread::sleep(Duration::from_millis(500));
        writer.write_all(b"q").unwrap();
        writer.flush().unwrap();
    }
    let status = wait_exit_within(
        &mut child,
        &format!("{args:?} did not end"),
        Duration::from_secs(60),
    );
    // The reader thread drains what the child wrote before it ended.
    let start = Instant::now();
    let mut len = usize::MAX;
    while start.elapsed() < Duration::from_secs(3) {
        std::thread::sleep(Duration::from_millis(150));
        let now = screen.raw.lock().unwrap().len();
        if now == len {
            break;
        }
        len = now;
    }
    let raw = screen.raw.lock().unwrap().clone();
    (raw, status.exit_code())
}

fn expand(args: &[&str], run: &Path, copy: &Path, fresh: &Path) -> Vec<String> {
    args.iter()
        .map(|a| match *a {
            "{run}" => run.display().to_string(),
            "{copy}" => copy.display().to_string(),
            "{fresh}" => fresh.display().to_string(),
            "{h}" => HOSTILE.to_string(),
            other => other.to_string(),
        })
        .collect()
}

#[test]
fn no_command_writes_control_or_bidi_characters_to_a_terminal() {
    let tmp = tempfile::tempdir().unwrap();
    let run = hostile_run(tmp.path());
    let (copy, fresh) = (tmp.path().join("copy"), tmp.path().join("fresh"));
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let (mut report, mut shown, mut missing) = (Vec::new(), Vec::new(), Vec::new());
    for (name, case) in cases() {
        let Case::Run(args) = case else { continue };
        let args = expand(args, &run, &copy, &fresh);
        let tui = name == "tui";
        let (raw, code) = in_pty(&args, &home, tui);
        let text = String::from_utf8_lossy(&raw);
        if tui {
            // The TUI draws with escape sequences of its own; none of the planted ones may pass.
            for planted in [
                "\u{1b}]52;",
                "\u{1b}]0;title",
                "\u{202e}",
                "\u{2066}",
                "\u{9b}",
            ] {
                assert!(!text.contains(planted), "tui wrote {planted:?}");
            }
            // …and the planted text did reach the screen (drawn without its controls).
            assert!(
                text.contains("aGFjaw==") && text.contains("evil"),
                "tui: {text}"
            );
            assert_eq!(code, 0, "tui: {text}");
            continue;
        }
        let bad: Vec<char> = text.chars().filter(|&c| forbidden(c)).collect();
        assert!(
            bad.is_empty(),
            "`youra {name}` wrote {bad:?} to the terminal:\n{text}"
        );
        report.push(format!("{name}: exit {code}, {} bytes", raw.len()));
        let shows = text.contains("\\u001b]52;c;aGFjaw==\\u0007") && text.contains("\\u202eevil");
        if shows {
            shown.push(name);
        }
        if MUST_SHOW.contains(&name) && !shows {
            missing.push(format!("`youra {name}`:\n{text}"));
        }
    }
    eprintln!("shows the planted text, escaped: {shown:?}");
    assert!(
        missing.is_empty(),
        "these should show the planted text, escaped:\n{}",
        missing.join("\n")
    );
    eprintln!("{}", report.join("\n"));
}

/// Every string in a JSON value, keys included.
fn strings(v: &serde_json::Value, out: &mut Vec<String>) {
    match v {
        serde_json::Value::String(s) => {
            // `config show --json` gives each value as its own JSON text: decode that too.
            if let Ok(inner) = serde_json::from_str::<serde_json::Value>(s) {
                strings(&inner, out);
            }
            out.push(s.clone())
        }
        serde_json::Value::Array(a) => a.iter().for_each(|x| strings(x, out)),
        serde_json::Value::Object(m) => m.iter().for_each(|(k, x)| {
            out.push(k.clone());
            strings(x, out)
        }),
        _ => {}
    }
}

#[test]
fn json_output_is_safe_and_exact() {
    let tmp = tempfile::tempdir().unwrap();
    let run = hostile_run(tmp.path());
    let (copy, fresh) = (tmp.path().join("copy"), tmp.path().join("fresh"));
    youra_ok(&["replay", run.to_str().unwrap(), copy.to_str().unwrap()]);
    let config = common::trust::trusted(&run, &tmp.path().join("config"));
    for (args, holds) in JSON {
        let args = expand(args, &run, &copy, &fresh);
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_youra"))
            .args(&args)
            .env("YOURA_CONFIG_DIR", &config)
            .output()
            .unwrap();
        let out = String::from_utf8(o.stdout).unwrap();
        let bad: Vec<char> = out.chars().filter(|&c| forbidden(c)).collect();
        assert!(bad.is_empty(), "{args:?} printed {bad:?}");
        // One document, or one per line (`vsa history --json`, `config show --json`).
        let docs: Vec<serde_json::Value> = match serde_json::from_str(&out) {
            Ok(v) => vec![v],
            Err(_) => out
                .lines()
                .filter(|l| !l.trim().is_empty())
                .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{args:?}: {e}: {l}")))
                .collect(),
        };
        let mut all = Vec::new();
        docs.iter().for_each(|d| strings(d, &mut all));
        assert!(
            // A quote may be cut to its sentence: OSC 52 and the override, decoded, suffice.
            !holds
                || all
                    .iter()
                    .any(|s| s.contains("\u{1b}]52;c;aGFjaw==\u{7}") && s.contains("\u{202e}evil")),
            "{args:?}: the hostile text, decoded, should be in the JSON exactly:\n{out}"
        );
    }
}

#[test]
fn the_tui_without_a_terminal_says_so_and_does_not_panic() {
    let run = common::example_run();
    for args in [vec!["tui", run.to_str().unwrap()], vec!["demo"]] {
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_youra"))
            .args(&args)
            .env("RUST_BACKTRACE", "1")
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
        assert!(err.contains("the TUI needs a terminal"), "{args:?}: {err}");
        assert!(
            err.contains("stdin and stdout are not one"),
            "{args:?}: {err}"
        );
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}
