//! A model server that goes down does not end the study. Against a loopback port with
//! nothing listening, `youra run` waits (`youra status` says for what and since when); a
//! server started on that port within `[llm] outage_wait_s` lets the run go on to its next
//! call with nobody doing anything. Past the window the run stops as an infrastructure stop,
//! and `youra run` (or `youra steer RUN resume`) goes on once the server answers.

use crate::common::llm_server::{LlmServer, free_port};
use crate::common::script::SCOPING;

use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

fn command(args: &[&str], home: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_youra"));
    for (k, _) in std::env::vars() {
        if k.starts_with("YOURA_") {
            cmd.env_remove(k);
        }
    }
    cmd.env("YOURA_CONFIG_DIR", home).args(args);
    cmd
}

fn youra(args: &[&str], home: &Path) -> Output {
    command(args, home).output().expect("youra runs")
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// The engine in the background, its output in `<home>/run-N.log`; killed when dropped.
struct Engine(Child);

impl Engine {
    fn start(run: &Path, home: &Path, n: u32) -> Engine {
        let log = std::fs::File::create(home.join(format!("run-{n}.log"))).unwrap();
        let child = command(&["run", run.to_str().unwrap()], home)
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .stdin(Stdio::null())
            .spawn()
            .expect("youra run starts");
        Engine(child)
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A run whose every role asks `http://127.0.0.1:<port>/v1` for `m`, waiting `wait_s` for it.
fn run_on(port: u16, wait_s: u32, home: &Path) -> std::path::PathBuf {
    let run = home.join(format!("run-{port}"));
    let url = format!("http://127.0.0.1:{port}/v1");
    let out = youra(
        &[
            "init",
            run.to_str().unwrap(),
            "--topic",
            "Do bill measurements separate penguin species?",
            "--mode",
            "unattended",
            "--provider",
            "openai",
            "--model",
            "m",
            "--base-url",
            &url,
        ],
        home,
    );
    assert!(out.status.success(), "{}", text(&out));
    let path = run.join("youra.toml");
    let toml = std::fs::read_to_string(&path).unwrap();
    assert!(toml.contains("outage_wait_s = 1800"), "{toml}");
    // No quick retries (the wait starts at the first refusal); whole replies in Markdown.
    let toml = toml
        .replace("outage_wait_s = 1800", &format!("outage_wait_s = {wait_s}"))
        .replace(
            "[llm.default]\n",
            "[llm.default]\nmax_retries = 0\nstream = false\nstructured = \"none\"\n",
        );
    let toml = format!(
        "{toml}\n[engine]\ncontroller_retry_wait_s = 0.0\nliterature_search = false\nwait_poll_s = 0.05\n"
    );
    std::fs::write(&path, toml).unwrap();
    run
}

/// The server's replies: the controller's decision, else a Problem Scoping artifact.
fn reply(request: &serde_json::Value) -> String {
    if request.to_string().contains("PHASE_COMPLETE") {
        r#"{"decision": "PHASE_COMPLETE", "reason": "complete"}"#.to_string()
    } else {
        SCOPING.to_string()
    }
}

fn wait_until(what: &str, limit: Duration, mut done: impl FnMut() -> bool) {
    let started = Instant::now();
    while !done() {
        assert!(started.elapsed() < limit, "{what}: not within {limit:?}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn events(run: &Path, kind: &str) -> usize {
    crate::common::events_of(run, kind).len()
}

#[test]
fn an_outage_is_waited_out_and_the_run_goes_on_by_itself() {
    let home = tempfile::tempdir().unwrap();
    let port = free_port();
    let run = run_on(port, 20, home.path());
    let _engine = Engine::start(&run, home.path(), 1);
    let dir = run.to_str().unwrap();
    let endpoint = format!("waiting for http://127.0.0.1:{port}/v1/chat/completions since ");
    let mut status = String::new();
    wait_until(
        "youra status says the run waits",
        Duration::from_secs(15),
        || {
            status = text(&youra(&["status", dir], home.path()));
            status.contains(&endpoint)
        },
    );
    assert!(status.contains("the run goes on by itself"), "{status}");
    assert!(events(&run, "model_waiting") >= 1);
    // The TUI's status line says it too, before the stage.
    let line = tui_status_line(&run);
    assert!(
        line.contains(&format!(
            "⌛ waiting for http://127.0.0.1:{port}/v1/chat/completions since "
        )),
        "{line}"
    );
    // The server comes up within the window: the run goes on, nobody doing anything.
    let server = LlmServer::start(port, &["m"], true, reply);
    wait_until(
        "the run makes its next call",
        Duration::from_secs(30),
        || server.answered() >= 2,
    );
    assert!(
        events(&run, "model_back") >= 1,
        "the end of the wait is an event"
    );
    // The study may stop later on its own account (this server's replies do not make a
    // literature review); it never stopped for the outage.
    let back = &crate::common::events_of(&run, "model_back")[0].time;
    for stop in crate::common::events_of(&run, "stop") {
        let why = stop.message.unwrap_or_default();
        assert!(!why.contains("infrastructure stop"), "{why}");
        assert!(stop.time > *back, "a stop during the wait: {why}");
    }
    let status = text(&youra(&["status", dir], home.path()));
    assert!(!status.contains("waiting for http"), "{status}");
    assert!(!tui_status_line(&run).contains("⌛"), "the wait is over");
}

/// The first line the TUI draws for `run`, 160 columns wide.
fn tui_status_line(run: &Path) -> String {
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;
    use youra::tui::app::App;
    use youra::tui::effect::AppEvent;
    use youra::tui::update::update;
    let found = youra::rundir::discover(run).expect("run");
    let store = youra::vsa::Store::new(&found.vsa);
    let mut app = App::new(
        found.clone(),
        youra::tui::keymap::Keymap::load(&[]).unwrap(),
        youra::tui::theme::Theme::builtin("dark", youra::tui::theme::ColorDepth::TrueColor)
            .unwrap(),
    );
    let data = youra::tui::run_view::read_run(&found, &store);
    update(&mut app, AppEvent::Loaded(Box::new(data)));
    let mut term = Terminal::new(TestBackend::new(160, 10)).unwrap();
    term.draw(|f| youra::tui::draw::draw(&app, f)).unwrap();
    term.backend()
        .to_string()
        .lines()
        .next()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn past_the_window_an_infrastructure_stop_that_youra_run_resumes() {
    let home = tempfile::tempdir().unwrap();
    let port = free_port();
    let run = run_on(port, 2, home.path());
    let dir = run.to_str().unwrap();
    let started = Instant::now();
    let out = youra(&["run", dir], home.path());
    let stopped_after = started.elapsed();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        stopped_after >= Duration::from_secs(2),
        "stopped before its 2 s window: {stopped_after:?}"
    );
    let reason = crate::common::vsa_field(&run, "workflow.stop_reason").unwrap_or_default();
    assert!(reason.starts_with("infrastructure stop: "), "{reason}");
    assert!(reason.contains(&format!("127.0.0.1:{port}")), "{reason}");
    assert_eq!(
        crate::common::vsa_field(&run, "workflow.status").as_deref(),
        Some("STOPPED")
    );
    let status = text(&youra(&["status", dir], home.path()));
    assert!(status.contains("infrastructure stop"), "{status}");
    // The server is back: `youra run` lifts the stop and goes on where it stopped.
    let server = LlmServer::start(port, &["m"], true, reply);
    let _engine = Engine::start(&run, home.path(), 2);
    wait_until(
        "the resumed run calls the model",
        Duration::from_secs(30),
        || server.answered() >= 2,
    );
    assert!(events(&run, "resume") >= 1, "the lift is an event");
    // Whatever the study does next, the outage's stop is gone.
    let reason = crate::common::vsa_field(&run, "workflow.stop_reason").unwrap_or_default();
    assert!(!reason.contains("infrastructure stop"), "{reason}");
}

#[test]
fn steer_resume_resumes_an_infrastructure_stop() {
    let home = tempfile::tempdir().unwrap();
    let port = free_port();
    let run = run_on(port, 0, home.path());
    let dir = run.to_str().unwrap();
    let out = youra(&["run", dir], home.path());
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        crate::common::vsa_field(&run, "workflow.stop_reason")
            .unwrap_or_default()
            .starts_with("infrastructure stop: ")
    );
    let out = youra(
        &["steer", dir, "resume", "--reason", "the server is back"],
        home.path(),
    );
    assert!(out.status.success(), "{}", text(&out));
    let server = LlmServer::start(port, &["m"], true, reply);
    let _engine = Engine::start(&run, home.path(), 1);
    wait_until(
        "the resumed run calls the model",
        Duration::from_secs(30),
        || server.answered() >= 1,
    );
    // The directive was applied, not rejected as "the run is not paused".
    let steer: Vec<_> = crate::common::events_of(&run, "steer");
    assert!(
        steer.iter().any(|e| e.result.as_deref() == Some("applied")),
        "{steer:?}"
    );
}
