//! `y` over a real pseudo-terminal: the binary writes the OSC 52 sequence that sets the
//! researcher's clipboard (the effect is wired to the runtime, not only returned by
//! `update`), and the footer confirms what was copied.

use crate::common;

use std::io::Write;
use std::time::Duration;

use common::pty::*;
use common::*;

#[test]
fn y_writes_osc_52_with_the_selected_hypothesis_and_the_footer_confirms() {
    let (dir, run) = temp_run(&example_run());
    let Session {
        mut child,
        mut writer,
        screen,
        _master,
        ..
    } = spawn_tui(&run, dir.path());
    let mut send = |bytes: &[u8]| {
        writer.write_all(bytes).unwrap();
        writer.flush().unwrap();
        std::thread::sleep(Duration::from_millis(120));
    };
    screen.wait_for("2 Gates");
    screen.wait_for("h-m2");
    // The Gates pane has focus; its first row is h-e1 ("aC1lMQ==" in base64).
    send(b"2y");
    screen.wait_for("copied h-e1");
    let raw = String::from_utf8_lossy(&screen.raw.lock().unwrap()).into_owned();
    // Bare, or wrapped for tmux (ESC doubled) when the test itself runs inside tmux.
    assert!(
        raw.contains("\u{1b}]52;c;aC1lMQ==\u{7}"),
        "OSC 52 for h-e1: {:?}",
        raw.get(raw.len().saturating_sub(400)..).unwrap_or(&raw)
    );
    assert_eq!(raw.matches("]52;c;").count(), 1, "written once");
    send(b"q");
    let status = wait_exit(&mut child, "youra did not quit");
    assert!(status.success());
}
