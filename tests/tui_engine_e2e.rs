//! `youra tui --run` in a real pseudo-terminal: the engine runs the whole demo study on its
//! thread while the panes follow it; quitting returns the terminal. (Its own test binary, so
//! it never shares the machine with the other terminal tests.)

mod common;

use std::io::Write;
use std::time::{Duration, Instant};

use common::pty::*;

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
