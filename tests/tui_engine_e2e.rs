//! `youra demo --fast` in a real pseudo-terminal, as UX.md's second moment: the engine runs
//! the study on its thread until h-m1's escalation waits, the status line says so with its
//! key, `E` opens the card, `a` approves with a typed reason, the engine resumes within a
//! second, Events shows the decision, and the run goes on to a paper. (Its own test binary,
//! so it never shares the machine with the other terminal tests.)

#[path = "it/common/mod.rs"]
mod common;

use std::io::Write;
use std::time::{Duration, Instant};

use common::pty::*;

fn vsa(run: &std::path::Path) -> std::sync::Arc<youra::vsa::store::Snapshot> {
    youra::vsa::store::Store::new(run.join("verification_state.yaml"))
        .load()
        .unwrap()
}

#[test]
fn the_demo_waits_for_the_researcher_who_approves_from_the_card() {
    let home = tempfile::tempdir().unwrap();
    let run = home.path().join("demo");
    let mut s = spawn_youra(
        &["demo", "--fast", "--dir", run.to_str().unwrap()],
        home.path(),
    );
    let type_ = |s: &mut Session, text: &[u8]| {
        s.writer.write_all(text).unwrap();
        s.writer.flush().unwrap();
    };
    // The escalation is the first thing on the status line, with the key that opens it.
    s.screen
        .wait_for_within("Pivot for h-m1 waits: E", Duration::from_secs(120));
    assert!(
        s.screen.text().contains("h-m1 proposes Pivot"),
        "{}",
        s.screen.text()
    );
    // The terminal was called, exactly once for this escalation: one bell, and the title
    // says what waits (read from the pty's byte stream).
    std::thread::sleep(Duration::from_millis(300));
    {
        let raw = s.screen.raw.lock().unwrap().clone();
        let raw = String::from_utf8_lossy(&raw);
        assert_eq!(raw.matches('\u{7}').count(), 1, "one bell: {raw:?}");
        assert_eq!(
            raw.matches("\u{1b}]0;youra: ⚑ h-m1 waits\u{1b}\\").count(),
            1,
            "the title, once"
        );
        assert!(raw.contains("\u{1b}]9;youra: ⚑ h-m1 waits: "), "OSC 9");
        assert!(
            raw.contains("\u{1b}]777;notify;youra: ⚑ h-m1 waits;"),
            "OSC 777"
        );
    }
    type_(&mut s, b"E");
    // Waits for the card's own text: the footer's hints name "criterion" (`] next
    // criterion`) and the Reflection pane names κ_min (its clamp line), both before the card
    // is drawn; the failed check's requirement is the card's alone.
    s.screen.wait_for("required <= 0.01");
    // The measured value as the card rounds it, not the mean's long float.
    s.screen.wait_for("measured 0.0369 ");
    // The failed attempt's chart opens inside the card; Esc returns to the causes.
    type_(&mut s, b"g");
    s.screen.wait_for("accuracy");
    type_(&mut s, b"\x1b");
    std::thread::sleep(Duration::from_millis(300));
    type_(&mut s, b"a");
    std::thread::sleep(Duration::from_millis(300));
    type_(&mut s, b"the bill-first claim is wrong, not the method");
    let pressed = Instant::now();
    type_(&mut s, b"\r");
    // The engine resumes: the escalation is logged and the run is active again.
    loop {
        let snap = vsa(&run);
        if !snap.vsa.workflow.awaits_decision()
            && snap.vsa.workflow.status.as_ref().map(|x| x.as_str()) != Some("AWAITING_APPROVAL")
        {
            break;
        }
        assert!(
            pressed.elapsed() < Duration::from_secs(10),
            "the engine never resumed; the screen:\n{}",
            s.screen.text()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let resumed = pressed.elapsed();
    eprintln!("the engine resumed {} ms after Enter", resumed.as_millis());
    // Within a second on an idle machine; a loaded CI machine gets some slack.
    assert!(resumed < Duration::from_secs(3), "{resumed:?}");
    type_(&mut s, b"4");
    s.screen.wait_for("decision");
    s.screen
        .wait_for_within("· COMPLETED", Duration::from_secs(120));
    // The run's end is the next waiting event: one more bell, no second one for h-m1.
    std::thread::sleep(Duration::from_millis(300));
    {
        let raw = s.screen.raw.lock().unwrap().clone();
        let raw = String::from_utf8_lossy(&raw);
        assert_eq!(
            raw.matches('\u{7}').count(),
            2,
            "a bell for the end: {raw:?}"
        );
        assert_eq!(raw.matches("\u{1b}]0;youra: ⚑ h-m1 waits").count(), 1);
    }
    type_(&mut s, b"q");
    let start = Instant::now();
    while s.child.try_wait().unwrap().is_none() && start.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(100));
        if start.elapsed() > Duration::from_secs(4) {
            type_(&mut s, b"q");
        }
    }
    let status = wait_exit_within(
        &mut s.child,
        &format!("the TUI quits; the screen:\n{}", s.screen.text()),
        Duration::from_secs(30),
    );
    assert!(status.success(), "{status:?}");
    let events = std::fs::read_to_string(run.join("events.jsonl")).unwrap();
    assert!(
        events.contains("\"kind\":\"decision\"")
            && events.contains("the bill-first claim is wrong, not the method"),
        "the decision with its reason"
    );
    assert!(run.join("paper/06_paper_final.md").is_file(), "a paper");
    assert_eq!(
        vsa(&run)
            .vsa
            .hypothesis("h-m2")
            .map(|h| h.status.as_str().to_string()),
        Some("VALIDATED".into()),
        "the redesigned hypothesis ran: post hoc, measured on fresh seeds, and its interval decided"
    );
}
