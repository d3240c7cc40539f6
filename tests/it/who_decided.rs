//! Who decided (issue 42 item 3) and the deviations from the plan (issue 40 item 5), from the
//! researcher's side and from an impostor's: a lab's `[steer] second_approval` holds the run
//! until a second, different name gives the same answer (the same name twice, in any case,
//! still waits), the name comes from `--as`, `YOURA_NAME` or the user's config and never
//! from the run's own youra.toml, and a name full of Typst, TeX, HTML and Markdown marks
//! reaches the paper (Typst, TeX, the PDF), the HTML report and the terminal as text.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use crate::common;

use youra::steer::{DirectiveState, directives};
use youra::vsa::Store;

/// Marks every language youra writes would read: Typst code and strings, TeX commands and
/// groups, HTML tags and entities, Markdown emphasis, links and code.
const HOSTILE: &str =
    "Ana \"{#set text(red)}\" \\input{/etc/passwd} <b>&amp; $x^2$ *em* [l](u) `c` O'Brien";

/// `youra` with none of the machine's `YOURA_*` variables, its own user config folder, and
/// `env` on top.
fn youra(args: &[&str], config: &Path, env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_youra"));
    for (k, _) in std::env::vars() {
        if k.starts_with("YOURA_") {
            cmd.env_remove(k);
        }
    }
    cmd.env("YOURA_CONFIG_DIR", config);
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.args(args).output().expect("youra runs")
}

fn text(o: &Output) -> (String, String) {
    common::text(o)
}

fn snap(run: &Path) -> std::sync::Arc<youra::vsa::Snapshot> {
    Store::new(run.join("verification_state.yaml"))
        .load()
        .unwrap()
}

fn add_toml(run: &Path, section: &str) {
    let path = run.join("youra.toml");
    let mut t = std::fs::read_to_string(&path).unwrap_or_default();
    t.push_str(section);
    std::fs::write(&path, t).unwrap();
}

#[test]
fn one_name_waits_the_same_name_twice_still_waits_a_second_name_decides() {
    let (g, run) = common::temp_run(&common::example_run());
    let cfg = g.path().join("config");
    add_toml(
        &run,
        "\n[steer]\nsecond_approval = [\"approve\", \"reset\"]\n",
    );
    let d = run.to_str().unwrap();
    let steer = |verb: &[&str], name: &str| {
        let mut args = vec!["steer", d];
        args.extend_from_slice(verb);
        args.extend_from_slice(&["--reason", "checked the attributions", "--as", name]);
        youra(&args, &cfg, &[])
    };

    // One name: recorded as 1 of 2, and nothing the engine reads is written.
    let o = steer(&["approve"], "ana");
    assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
    assert!(
        text(&o).0.contains("— 1 of 2 by ana: waits"),
        "{:?}",
        text(&o)
    );
    let esc = snap(&run).vsa.workflow.escalation.clone().unwrap();
    assert_eq!(esc.decision, None, "the engine sees no decision");
    assert_eq!(esc.approvals.len(), 1);
    assert_eq!(esc.approvals[0].by.as_deref(), Some("ana"));
    // The HTML report's escalation says whose answer waits.
    let html = run.join("r.html");
    let o = youra(
        &["report", "html", d, "-o", html.to_str().unwrap()],
        &cfg,
        &[],
    );
    assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
    let html = std::fs::read_to_string(html).unwrap();
    assert!(
        html.contains("approved: 1 of 2, by ana — waits for a second researcher"),
        "the report's escalation names the first answer"
    );
    let status = youra(&["status", d], &cfg, &[]);
    assert!(
        text(&status).0.contains(
            "escalation esc-0001: approved is 1 of 2, given by ana; waits for a second researcher"
        ),
        "{}",
        text(&status).0
    );

    // The same name again, in another case and spacing: refused, and the run still waits.
    let o = steer(&["approve"], " ANA ");
    assert_eq!(o.status.code(), Some(1), "{:?}", text(&o));
    assert!(
        text(&o)
            .1
            .contains("is 1 of 2 and waits for a second researcher: ANA already gave it"),
        "{}",
        text(&o).1
    );
    let esc = snap(&run).vsa.workflow.escalation.clone().unwrap();
    assert_eq!((esc.decision, esc.approvals.len()), (None, 1));

    // YOURA_NAME names the researcher when --as does not; `ana` there is still ana.
    let o = youra(
        &["steer", d, "approve", "--reason", "again"],
        &cfg,
        &[("YOURA_NAME", "ana")],
    );
    assert_eq!(o.status.code(), Some(1), "{:?}", text(&o));

    // A second name: the decision, with both.
    let o = steer(&["approve"], "bo");
    assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
    assert!(
        text(&o).0.contains("2 of 2, by ana and bo"),
        "{}",
        text(&o).0
    );
    let d8 = snap(&run).vsa.workflow.escalation.clone().unwrap();
    let decision = d8.decision.expect("decided");
    assert_eq!(decision.approved_by, ["ana", "bo"]);
    assert_eq!(decision.by.as_deref(), Some("bo"));
    assert_eq!(decision.who(), "ana and bo");

    // A directive the lab listed: needs_second (the engine takes only pending ones).
    let o = steer(&["reset", "h-m1"], "ana");
    assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
    let state = |run: &Path| {
        let s = snap(run);
        let d = directives(&s.doc).pop().unwrap();
        (d.state, d.approved_by)
    };
    assert_eq!(
        state(&run),
        (DirectiveState::NeedsSecond, vec!["ana".to_string()])
    );
    assert_eq!(steer(&["reset", "h-m1"], "Ana").status.code(), Some(1));
    assert_eq!(state(&run).0, DirectiveState::NeedsSecond);
    let o = steer(&["reset", "h-m1"], "bo");
    assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
    assert_eq!(
        state(&run),
        (
            DirectiveState::Pending,
            vec!["ana".to_string(), "bo".to_string()]
        )
    );
    // A verb the lab did not list needs one name.
    let o = steer(&["pause"], "cy");
    assert!(!text(&o).0.contains("1 of 2"), "{}", text(&o).0);
}

#[test]
fn the_name_comes_from_the_researcher_never_from_the_run_folder() {
    let (g, run) = common::temp_run(&common::example_run());
    let cfg = g.path().join("config");
    std::fs::create_dir_all(&cfg).unwrap();
    let d = run.to_str().unwrap();
    // A handed run folder names someone: not read (a warning says so).
    add_toml(&run, "\n[steer]\nname = \"the PI\"\n");
    let last_actor = |run: &Path| {
        let o = youra(
            &["vsa", "get", run.to_str().unwrap(), "history[-1].actor"],
            &cfg,
            &[],
        );
        text(&o).0.trim().to_string()
    };
    let o = youra(&["steer", d, "pause", "--reason", "look"], &cfg, &[]);
    assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
    assert_eq!(last_actor(&run), youra::vsa::actor::login());
    let shown = youra(&["config", "show", d], &cfg, &[]);
    assert!(
        text(&shown)
            .0
            .contains("`[steer] name` is not read from a run's own youra.toml")
            || text(&shown)
                .1
                .contains("`[steer] name` is not read from a run's own youra.toml"),
        "{:?}",
        text(&shown)
    );
    // The user's config names them; YOURA_NAME over it; --as over both.
    std::fs::write(cfg.join("youra.toml"), "[steer]\nname = \"Ana Souza\"\n").unwrap();
    youra(&["steer", d, "resume", "--reason", "r"], &cfg, &[]);
    assert_eq!(last_actor(&run), "Ana Souza");
    youra(
        &["steer", d, "pause", "--reason", "r"],
        &cfg,
        &[("YOURA_NAME", "Bo")],
    );
    assert_eq!(last_actor(&run), "Bo");
    youra(
        &[
            "vsa",
            "set",
            d,
            "workflow.next_action",
            "x",
            "--reason",
            "r",
            "--as",
            "Cy",
        ],
        &cfg,
        &[("YOURA_NAME", "Bo")],
    );
    assert_eq!(last_actor(&run), "Cy");
    // A name that is not one line of plain text is refused where it is given.
    let o = youra(
        &["steer", d, "resume", "--reason", "r", "--as", "a\u{1b}[2Jb"],
        &cfg,
        &[],
    );
    assert_eq!(o.status.code(), Some(2), "{:?}", text(&o));
    assert!(
        text(&o)
            .1
            .contains("--as: a name is one line of plain text")
    );
    // Misspellings are caught like any setting's: the key, and a value that is no verb.
    std::fs::write(
        cfg.join("youra.toml"),
        "[steer]\nsecond_aproval = [\"reset\"]\n",
    )
    .unwrap();
    let o = youra(&["steer", d, "resume", "--reason", "r"], &cfg, &[]);
    assert_eq!(o.status.code(), Some(2), "{:?}", text(&o));
    assert!(text(&o).1.contains("second_aproval"), "{}", text(&o).1);
    std::fs::write(
        cfg.join("youra.toml"),
        "[steer]\nsecond_approval = [\"rest\"]\n",
    )
    .unwrap();
    let o = youra(&["steer", d, "resume", "--reason", "r"], &cfg, &[]);
    assert_eq!(o.status.code(), Some(2), "{:?}", text(&o));
    assert!(
        text(&o).1.contains("did you mean `reset`?"),
        "{}",
        text(&o).1
    );
}

/// A demo run folder driven by `youra run` in a child until its escalation waits.
fn waiting_demo(tmp: &Path, cfg: &Path) -> (PathBuf, std::process::Child) {
    let dir = tmp.join("demo");
    youra::cli::engine_cmd::demo_dir(
        Some(dir.clone()),
        youra::cli::engine_cmd::DemoOptions::default(),
    )
    .unwrap();
    add_toml(&dir, "\n[steer]\nsecond_approval = [\"override\"]\n");
    let child = Command::new(env!("CARGO_BIN_EXE_youra"))
        .args(["run", dir.to_str().unwrap()])
        .env("YOURA_CONFIG_DIR", cfg)
        .env_remove("YOURA_NAME")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while snap(&dir).vsa.workflow.escalation.is_none() {
        assert!(start.elapsed() < Duration::from_secs(120), "no escalation");
        std::thread::sleep(Duration::from_millis(100));
    }
    (dir, child)
}

#[test]
fn the_demo_runs_on_after_a_second_name_and_its_paper_lists_the_override_with_who_and_why() {
    let tmp = tempfile::tempdir().unwrap();
    let cfg = tmp.path().join("no-config");
    let (dir, mut child) = waiting_demo(tmp.path(), &cfg);
    let d = dir.to_str().unwrap();
    let why = "the refuted redundancy is the finding";
    let over = |name: &str| {
        youra(
            &[
                "steer", d, "override", "Proceed", "--reason", why, "--as", name,
            ],
            &cfg,
            &[],
        )
    };
    assert_eq!(over("ana").status.code(), Some(0));
    assert_eq!(over("ana").status.code(), Some(1), "the same name twice");
    std::thread::sleep(Duration::from_millis(800));
    assert!(child.try_wait().unwrap().is_none(), "the run waits");
    let esc = snap(&dir)
        .vsa
        .workflow
        .escalation
        .clone()
        .expect("still raised");
    assert_eq!(esc.decision, None);
    // The second name: the run goes on to its paper.
    let o = over(HOSTILE);
    assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        assert!(start.elapsed() < Duration::from_secs(120), "never ended");
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(child.wait().unwrap().success());
    // The engine's decision event and its journal name both researchers.
    let decision = youra::rundir::events::read_counted(&dir.join("events.jsonl"))
        .0
        .into_iter()
        .find(|e| e.kind == "decision")
        .expect("a decision event");
    assert_eq!(
        decision.actor.as_deref(),
        Some(format!("ana and {HOSTILE}").as_str())
    );

    // The paper's section (the checked Markdown): the override, both names, the reason.
    let md = std::fs::read_to_string(dir.join("paper/06_paper_final.md")).unwrap();
    let section = md
        .split("## Deviations from the plan")
        .nth(1)
        .expect("the section")
        .split("\n## ")
        .next()
        .unwrap();
    assert!(section.contains("- **override**"), "{section}");
    assert!(
        section.contains("`Pivot proposed for h-m1 (esc-27); Proceed applied instead`"),
        "{section}"
    );
    assert!(section.contains(&format!("why: `{why}`")), "{section}");
    // The Markdown reads back to the name as typed: text, not markup.
    let parsed: String = pulldown_cmark::Parser::new(section)
        .filter_map(|e| match e {
            pulldown_cmark::Event::Text(t) => Some(t.to_string()),
            _ => None,
        })
        .collect();
    assert!(
        parsed.contains(&format!("by ana and {HOSTILE}: ")),
        "{parsed}"
    );

    // Typst: the name only inside string literals; the PDF shows it as typed.
    let typ = std::fs::read_to_string(dir.join("paper/paper.typ")).unwrap();
    assert!(!typ.contains("{#set text(red)}\" \\input"), "raw in Typst");
    let pdf = Command::new("pdftotext")
        .args([dir.join("paper/paper.pdf").to_str().unwrap(), "-"])
        .output()
        .expect("pdftotext (poppler-utils)");
    let flat = String::from_utf8_lossy(&pdf.stdout)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(flat.contains("Deviations from the plan"), "{flat}");
    for piece in [
        "{#set text(red)}",
        "\\input{/etc/passwd}",
        "<b>&amp;",
        "$x^2$",
        "O'Brien",
    ] {
        assert!(flat.contains(piece), "{piece} in the PDF: {flat}");
    }
    // TeX: no command of the name's own survives.
    let tex = std::fs::read_to_string(dir.join("paper/paper.tex")).unwrap();
    assert!(tex.contains("\\section*{Deviations from the plan}"));
    assert!(!tex.contains("\\input{/etc/passwd}"), "a live \\input");
    assert!(tex.contains("passwd"), "the name is there, escaped");

    // The HTML report's section: escaped, with both names.
    let out = tmp.path().join("r.html");
    let o = youra(
        &["report", "html", d, "-o", out.to_str().unwrap()],
        &cfg,
        &[],
    );
    assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
    let html = std::fs::read_to_string(&out).unwrap();
    let dev = html
        .split("<section id=\"deviations\">")
        .nth(1)
        .unwrap()
        .split("</section>")
        .next()
        .unwrap();
    assert!(
        dev.contains("ana and Ana &quot;{#set text(red)}&quot;"),
        "{dev}"
    );
    assert!(
        dev.contains("&lt;b&gt;&amp;amp;") && !dev.contains("<b>"),
        "{dev}"
    );
    assert!(dev.contains(why), "{dev}");

    // The terminal: the history names them, as text.
    let o = youra(&["vsa", "history", d, "--limit", "400"], &cfg, &[]);
    assert!(text(&o).0.contains(HOSTILE), "the history shows the name");
}

#[test]
fn a_name_written_by_hand_with_escapes_reaches_no_terminal_and_no_card() {
    let (g, run) = common::temp_run(&common::example_run());
    let cfg = g.path().join("config");
    // A hand edit puts ESC [2J, BEL and a bidi override into a first answer's name.
    let vsa = run.join("verification_state.yaml");
    let text_before = std::fs::read_to_string(&vsa).unwrap();
    let with = text_before.replacen(
        "  pending_escalation:\n",
        "  pending_escalation:\n    approvals:\n    - {verdict: approved, by: \"m\\e[2Jal\\a\\u202Eory\", reason: r}\n",
        1,
    );
    assert_ne!(with, text_before);
    std::fs::write(&vsa, with).unwrap();
    let o = youra(&["status", run.to_str().unwrap()], &cfg, &[]);
    let out = text(&o).0;
    assert!(
        out.contains("1 of 2, given by m\\u001b[2Jal\\u0007\\u202eory"),
        "{out}"
    );
    assert!(!out.contains('\u{1b}') && !out.contains('\u{7}') && !out.contains('\u{202e}'));
    // The TUI's card draws the name without them.
    let found = youra::rundir::discover(&run).unwrap();
    let store = Store::new(&found.vsa);
    let mut app = youra::tui::app::App::new(
        found.clone(),
        youra::tui::keymap::Keymap::load(&[]).unwrap(),
        youra::tui::theme::Theme::builtin("dark", youra::tui::theme::ColorDepth::TrueColor)
            .unwrap(),
    );
    youra::tui::update::update(
        &mut app,
        youra::tui::effect::AppEvent::Loaded(Box::new(youra::tui::run_view::read_run(
            &found, &store,
        ))),
    );
    let card = youra::tui::escalation_view::card(&app.data.vsa.as_ref().unwrap().vsa).unwrap();
    assert_eq!(card.approvals.len(), 1);
    // E opens the card.
    youra::tui::update::update(
        &mut app,
        youra::tui::effect::AppEvent::Key(ratatui::crossterm::event::KeyEvent::new(
            ratatui::crossterm::event::KeyCode::Char('E'),
            ratatui::crossterm::event::KeyModifiers::NONE,
        )),
    );
    let mut term = ratatui::Terminal::new(ratatui::backend::TestBackend::new(160, 48)).unwrap();
    term.draw(|f| youra::tui::draw::draw(&app, f)).unwrap();
    let screen: String = term
        .backend()
        .buffer()
        .content()
        .iter()
        .map(|c| c.symbol())
        .collect();
    assert!(
        screen.contains("1 of 2, by m"),
        "the card says who: {screen}"
    );
    assert!(
        !screen.contains('\u{1b}') && !screen.contains('\u{7}') && !screen.contains('\u{202e}'),
        "no control or bidi character reaches the terminal"
    );
}
