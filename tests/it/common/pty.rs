//! The real binary in a pseudo-terminal for the end-to-end tests: spawn `youra tui`, parse
//! its output as a screen, type, and wait for it to exit.
#![allow(dead_code)]

use std::io::{Read, Write};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use portable_pty::{CommandBuilder, PtySize, native_pty_system};

pub struct Screen {
    pub parser: Arc<Mutex<vt100::Parser>>,
    pub raw: Arc<Mutex<Vec<u8>>>,
}

impl Screen {
    pub fn text(&self) -> String {
        self.parser.lock().unwrap().screen().contents()
    }

    pub fn wait_for(&self, needle: &str) {
        self.wait_for_within(needle, Duration::from_secs(30));
    }

    pub fn wait_for_within(&self, needle: &str, limit: Duration) {
        let start = Instant::now();
        while start.elapsed() < limit {
            if self.text().contains(needle) {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        panic!("`{needle}` never appeared; the screen:\n{}", self.text());
    }
}

/// `youra tui <run>` in a 100×30 pseudo-terminal, its output parsed as a screen.
pub struct Session {
    pub child: Box<dyn portable_pty::Child + Send + Sync>,
    pub writer: Box<dyn Write + Send>,
    pub screen: Screen,
    pub bin: String,
    pub _master: Box<dyn portable_pty::MasterPty + Send>,
}

pub fn spawn_tui(run: &std::path::Path, home: &std::path::Path) -> Session {
    spawn_tui_with(run, home, &[])
}

pub fn spawn_tui_with(run: &std::path::Path, home: &std::path::Path, extra: &[&str]) -> Session {
    let mut args = vec!["tui", run.to_str().unwrap()];
    args.extend_from_slice(extra);
    spawn_youra(&args, home)
}

/// The real binary with `args` in a 100×30 pseudo-terminal.
pub fn spawn_youra(args: &[&str], home: &std::path::Path) -> Session {
    spawn_youra_env(args, home, &[])
}

/// As [`spawn_youra`], with variables of its own (`VISUAL` for a scripted editor).
pub fn spawn_youra_env(args: &[&str], home: &std::path::Path, env: &[(&str, &str)]) -> Session {
    let pty = native_pty_system()
        .openpty(PtySize {
            rows: 30,
            cols: 100,
            pixel_width: 0,
            pixel_height: 0,
        })
        .unwrap();
    // The test profile's binary, in CI too; YOURA_E2E_BIN points at another (a release build).
    let bin =
        std::env::var("YOURA_E2E_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_youra").to_string());
    let mut cmd = CommandBuilder::new(&bin);
    cmd.args(args);
    cmd.env("TERM", "xterm-256color");
    cmd.env("HOME", home);
    cmd.env("XDG_CONFIG_HOME", home.join("config"));
    for (k, v) in env {
        cmd.env(k, v);
    }
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

pub fn wait_exit(
    child: &mut Box<dyn portable_pty::Child + Send + Sync>,
    what: &str,
) -> portable_pty::ExitStatus {
    wait_exit_within(child, what, Duration::from_secs(5))
}

pub fn wait_exit_within(
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
