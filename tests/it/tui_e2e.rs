//! The real binary in a real pseudo-terminal: open the example run, change a gate type in
//! the dialog, see an outside write appear, quit, and find the terminal restored.

use crate::common;

use std::io::Write;
use std::time::{Duration, Instant};

use common::pty::*;
use common::*;

#[test]
fn edit_a_gate_in_the_dialog_see_an_outside_write_quit_restored() {
    let (dir, run) = temp_run(&example_run());
    let vsa = run.join("verification_state.yaml");
    let before = std::fs::read_to_string(&vsa).unwrap();

    let Session {
        mut child,
        mut writer,
        screen,
        bin,
        _master,
    } = spawn_tui(&run, dir.path());
    let mut send = |bytes: &[u8]| {
        writer.write_all(bytes).unwrap();
        writer.flush().unwrap();
        std::thread::sleep(Duration::from_millis(120));
    };

    screen.wait_for("2 Gates");
    screen.wait_for("h-m2");
    send(b"2jjt");
    screen.wait_for("edit a VSA field");
    screen.wait_for("sub_hypotheses.h-m2.gate.type");
    send(b"\x0e"); // ctrl-n: the next allowed value
    screen.wait_for("DETERMINES_SUCCESS");
    send(b"\t");
    send(b"h-m2 decides the claim");
    send(b"\r");
    screen.wait_for("rev 8");

    let after = std::fs::read_to_string(&vsa).unwrap();
    let diff = similar::TextDiff::from_lines(&before, &after);
    let changed: Vec<String> = diff
        .iter_all_changes()
        .filter(|c| c.tag() != similar::ChangeTag::Equal)
        .map(|c| format!("{}{}", c.tag(), c.value().trim_end()))
        .collect();
    let mut removed: Vec<&String> = changed.iter().filter(|c| c.starts_with('-')).collect();
    removed.sort();
    assert_eq!(removed, ["-      type: SHOULD_WORK", "-revision: 7"]);
    let added: Vec<&String> = changed.iter().filter(|c| c.starts_with('+')).collect();
    assert!(added.contains(&&"+      type: DETERMINES_SUCCESS".to_string()));
    assert!(added.contains(&&"+revision: 8".to_string()));
    let history: Vec<&&String> = added
        .iter()
        .filter(|c| !c.contains("type: DETERMINES") && c.as_str() != "+revision: 8")
        .collect();
    assert_eq!(
        history.len(),
        8,
        "one history entry of 8 lines: {history:#?}"
    );
    assert_eq!(history[0].as_str(), "+- event: field_edit");
    assert!(changed.contains(&"+  reason: h-m2 decides the claim".to_string()));

    let out = std::process::Command::new(&bin)
        .args([
            "vsa",
            "set",
            run.to_str().unwrap(),
            "workflow.next_action",
            "outside write lands",
            "--reason",
            "e2e",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    screen.wait_for("next: outside write lands");
    screen.wait_for("rev 9");

    send(b"q");
    let status = wait_exit(&mut child, "youra did not quit");
    assert!(status.success());
    std::thread::sleep(Duration::from_millis(100));
    let raw = screen.raw.lock().unwrap();
    let tail = String::from_utf8_lossy(&raw[raw.len().saturating_sub(200)..]).into_owned();
    assert!(
        tail.contains("\x1b[?1049l"),
        "left the alternate screen: {tail:?}"
    );
    assert!(tail.contains("\x1b[?25h"), "cursor shown again: {tail:?}");
    assert!(!screen.parser.lock().unwrap().screen().alternate_screen());
    assert!(
        run.join(".youra/tui_seen").is_file(),
        "the session remembers what it showed"
    );
}

/// SIGTSTP gives the terminal back, SIGCONT redraws the whole screen, SIGTERM restores and exits.
#[test]
fn suspend_resume_and_terminate_keep_the_terminal_sane() {
    let (dir, run) = temp_run(&example_run());
    let Session {
        mut child,
        screen,
        _master,
        ..
    } = spawn_tui(&run, dir.path());
    let pid = child.process_id().unwrap().to_string();
    let signal = |sig: &str| {
        assert!(
            std::process::Command::new("kill")
                .args([sig, &pid])
                .status()
                .unwrap()
                .success()
        )
    };
    screen.wait_for("2 Gates");
    signal("-TSTP");
    let start = Instant::now();
    while screen.parser.lock().unwrap().screen().alternate_screen() {
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "the terminal was not given back on SIGTSTP"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    signal("-CONT");
    screen.wait_for("2 Gates");
    assert!(screen.parser.lock().unwrap().screen().alternate_screen());
    signal("-TERM");
    let status = wait_exit(&mut child, "youra ignored SIGTERM");
    assert_eq!(status.exit_code(), 143);
    std::thread::sleep(Duration::from_millis(100));
    assert!(
        !screen.parser.lock().unwrap().screen().alternate_screen(),
        "restored on SIGTERM"
    );
}

/// A `q` that arrives while a frame is still due (keys a few milliseconds apart, inside one
/// 16 ms frame) quits at once; it once waited for some later event that never came.
#[test]
fn quit_inside_a_frame_quits_without_another_event() {
    for _ in 0..5 {
        let (dir, run) = temp_run(&example_run());
        let Session {
            mut child,
            mut writer,
            screen,
            _master,
            ..
        } = spawn_tui(&run, dir.path());
        screen.wait_for("2 Gates");
        std::thread::sleep(Duration::from_millis(200));
        for key in [b"j", b"k", b"q"] {
            writer.write_all(key).unwrap();
            writer.flush().unwrap();
            std::thread::sleep(Duration::from_millis(4));
        }
        let status = wait_exit(&mut child, "youra did not quit on a q inside a frame");
        assert!(status.success());
    }
}
