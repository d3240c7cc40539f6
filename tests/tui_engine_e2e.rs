//! `youra tui --run` in a real pseudo-terminal: the engine runs the whole demo study on its
//! thread while the panes follow it; quitting returns the terminal. (Its own test binary, so
//! it never shares the machine with the other terminal tests.)

mod common;

use std::io::{Read, Write};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use portable_pty::{CommandBuilder, PtySize, native_pty_system};

struct Screen {
    parser: Arc<Mutex<vt100::Parser>>,
    raw: Arc<Mutex<Vec<u8>>>,
}

impl Screen {
    fn text(&self) -> String {
        self.parser.lock().unwrap().screen().contents()
    }

    fn wait_for(&self, needle: &str) {
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(30) {
            if self.text().contains(needle) {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        panic!("`{needle}` never appeared; the screen:\n{}", self.text());
    }
}

/// `youra tui <run>` in a 100×30 pseudo-terminal, its output parsed as a screen.
struct Session {
    child: Box<dyn portable_pty::Child + Send + Sync>,
    writer: Box<dyn Write + Send>,
    screen: Screen,
    bin: String,
    _master: Box<dyn portable_pty::MasterPty + Send>,
}

fn spawn_tui_with(run: &std::path::Path, home: &std::path::Path, extra: &[&str]) -> Session {
    let pty = native_pty_system()
        .openpty(PtySize {
            rows: 30,
            cols: 100,
            pixel_width: 0,
            pixel_height: 0,
        })
        .unwrap();
    // CI points this at the release build (YOURA_E2E_BIN); locally the test profile's binary.
    let bin =
        std::env::var("YOURA_E2E_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_youra").to_string());
    let mut cmd = CommandBuilder::new(&bin);
    cmd.args(["tui", run.to_str().unwrap()]);
    cmd.args(extra);
    cmd.env("TERM", "xterm-256color");
    cmd.env("HOME", home);
    cmd.env("XDG_CONFIG_HOME", home.join("config"));
    let child = pty.slave.spawn_command(cmd).unwrap();
    drop(pty.slave);
    let mut reader = pty.master.try_clone_reader().unwrap();
    let writer = pty.master.take_writer().unwrap();
    let size = |n| std::num::NonZero::new(n).unwrap();
    let screen = Screen {
        parser: Arc::new(Mutex::new(vt100::Parser::new(size(30), size(100), 0))),
        raw: Arc::new(Mutex::new(Vec::new())),
    };
    let (parser, raw) = (Arc::clone(&screen.parser), Arc::clone(&screen.raw));
    std::thread::spawn(move || {
        let mut buf = [0u8; 8192];
        while let Ok(n) = reader.read(&mut buf) {
            if n == 0 {
                break;
            }
            parser.lock().unwrap().process(&buf[..n]);
            raw.lock().unwrap().extend_from_slice(&buf[..n]);
        }
    });
    Session {
        child,
        writer,
        screen,
        bin,
        _master: pty.master,
    }
}

fn wait_exit_within(
    child: &mut Box<dyn portable_pty::Child + Send + Sync>,
    what: &str,
    limit: Duration,
) -> portable_pty::ExitStatus {
    let start = Instant::now();
    loop {
        if let Some(s) = child.try_wait().unwrap() {
            return s;
        }
        assert!(start.elapsed() < limit, "{what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn tui_run_drives_the_engine_and_the_panes_follow_it() {
    let (_g, run) =
        common::script::replay_run(&common::demo::script(), "experiment_time_limit_s = 60\n");
    common::script::with_data(&run);
    let home = tempfile::tempdir().unwrap();
    let mut s = spawn_tui_with(&run, home.path(), &["--run"]);
    // The whole demo study runs on the engine thread while the UI draws it.
    // The status line, not a history row that mentions a completed phase.
    s.screen.wait_for("· COMPLETED ·");
    s.screen.wait_for("VALIDATED");
    s.writer.write_all(b"q").unwrap();
    s.writer.flush().unwrap();
    // A key typed while the UI is still catching up on the run's last writes may be read
    // with them; ask again if it has not quit after a few seconds.
    let start = Instant::now();
    while s.child.try_wait().unwrap().is_none() && start.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(100));
        if start.elapsed() > Duration::from_secs(4) {
            let _ = s.writer.write_all(b"q");
            let _ = s.writer.flush();
        }
    }
    // A loaded CI machine may still be re-reading the run the engine just finished.
    let status = wait_exit_within(
        &mut s.child,
        &format!(
            "the TUI quits after the run; the screen:\n{}",
            s.screen.text()
        ),
        Duration::from_secs(30),
    );
    assert!(status.success(), "{status:?}");
    let snap = youra::vsa::store::Store::new(run.join("verification_state.yaml"))
        .load()
        .unwrap();
    assert_eq!(
        snap.vsa.workflow.status.as_ref().map(|x| x.as_str()),
        Some("COMPLETED")
    );
    let _ = &s.bin;
}
