//! A gate decided on repeats as the researcher sees it (issue 40): the Gates pane and the
//! escalation card at 100×30 and 160×48 show each criterion's interval line and verdict,
//! INCONCLUSIVE in its own colour (never a pass's), and a hostile metric name (an escape
//! sequence, braces, a right-to-left override) as visible text.
//!
//! The run is the example run with h-m1's gate rewritten as the engine writes one decided on
//! five seeds (`engine::stages::gate_evidence`): its rank correlation undecided, and a second
//! criterion, on a metric named with an ESC sequence, passed.

use crate::common;

use std::path::PathBuf;

use common::*;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::style::Color;
use youra::tui::app::App;
use youra::tui::draw::draw;
use youra::tui::effect::AppEvent;
use youra::tui::theme::{ColorDepth, Role, Theme};
use youra::tui::update::update;
use youra::vsa::Store;

const OLD_GATE: &str = "    gate:
      type: MUST_WORK
      satisfied: false
      result: FAIL
      failed_checks:
      - criterion: spearman_rho_decay_vs_step
        required: '<= -0.8'
        actual: -0.31
        reason: onset step is flat above decay 1.0
      criteria:
      - {metric: spearman_rho_decay_vs_step, op: <=, value: -0.8}
      measured: {spearman_rho_decay_vs_step: -0.31}
";

/// The metric name as the VSA holds it: ESC [31m, braces, U+202E.
pub const HOSTILE_METRIC: &str = "acc\u{1b}[31m{x}}\u{202e}";

const NEW_GATE: &str = r#"    gate:
      type: MUST_WORK
      satisfied: false
      result: INCONCLUSIVE
      failed_checks: []
      criteria:
      - {metric: spearman_rho_decay_vs_step, op: <=, value: -0.8}
      - {metric: "acc\e[31m{x}}\u202e", op: '>=', value: 0.92}
      measured: {spearman_rho_decay_vs_step: -0.71, "acc\e[31m{x}}\u202e": 0.936}
      evidence:
      - metric: spearman_rho_decay_vs_step
        op: '<='
        threshold: -0.8
        verdict: INCONCLUSIVE
        n: 5
        repeats: 5
        mean: -0.71
        sd: 0.09
        lo: -0.822
        hi: -0.598
        confidence: 0.95
        method: t
        card: -0.710 ± 0.112, n 5, 95% CI -0.822–-0.598 vs ≤ -0.8
        why: 'INCONCLUSIVE: the 95% interval -0.822–-0.598 holds the threshold of ≤ -0.8'
      - metric: "acc\e[31m{x}}\u202e"
        op: '>='
        threshold: 0.92
        verdict: PASS
        n: 5
        repeats: 5
        mean: 0.9356
        sd: 0.0064
        lo: 0.928
        hi: 0.944
        confidence: 0.95
        method: t
        card: 0.936 ± 0.008, n 5, 95% CI 0.928–0.944 vs ≥ 0.92
        why: 'PASS: the lower bound clears'
      undecided:
      - criterion: spearman_rho_decay_vs_step
        required: <= -0.8
        actual: -0.710 ± 0.112, n 5, 95% CI -0.822–-0.598 vs ≤ -0.8
        reason: the 95% interval -0.822–-0.598 holds the threshold of ≤ -0.8
"#;

/// A copy of the example run whose h-m1 gate was decided on repeats.
pub fn inconclusive_run() -> (tempfile::TempDir, PathBuf) {
    let (g, dir) = temp_run(&example_run());
    let path = dir.join("verification_state.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(
        text.contains(OLD_GATE),
        "the example run's h-m1 gate changed"
    );
    std::fs::write(&path, text.replacen(OLD_GATE, NEW_GATE, 1)).unwrap();
    (g, dir)
}

use crate::common::tui::app_for;

fn keys(app: &mut App, keys: &str) {
    for c in keys.chars() {
        let code = match c {
            '\x1b' => KeyCode::Esc,
            c => KeyCode::Char(c),
        };
        update(app, AppEvent::Key(KeyEvent::new(code, KeyModifiers::NONE)));
    }
}

fn terminal(app: &App, w: u16, h: u16) -> Terminal<TestBackend> {
    let mut term = Terminal::new(TestBackend::new(w, h)).unwrap();
    term.draw(|f| draw(app, f)).unwrap();
    term
}

fn screen(app: &App, w: u16, h: u16) -> String {
    terminal(app, w, h).backend().to_string()
}

/// The foreground colour of the first cell of `needle` on screen.
fn fg_of(app: &App, w: u16, h: u16, needle: &str) -> Option<Color> {
    let term = terminal(app, w, h);
    let buf = term.backend().buffer();
    let first = needle.chars().next()?;
    for y in 0..h {
        let row: String = (0..w).map(|x| buf[(x, y)].symbol().to_string()).collect();
        if let Some(at) = row.find(needle) {
            let x = row[..at].chars().count() as u16;
            assert_eq!(buf[(x, y)].symbol(), first.to_string());
            return buf[(x, y)].fg.into();
        }
    }
    None
}

#[test]
fn the_vsa_holds_the_planted_gate() {
    let (_g, dir) = inconclusive_run();
    let s = Store::new(dir.join("verification_state.yaml"))
        .load()
        .unwrap();
    let h = s.vsa.hypothesis("h-m1").unwrap();
    assert_eq!(
        h.gate.result.as_ref().map(|r| r.as_str()),
        Some("INCONCLUSIVE")
    );
    assert_eq!(h.gate.evidence.len(), 2);
    assert_eq!(h.gate.evidence[1].metric.as_deref(), Some(HOSTILE_METRIC));
    assert_eq!(h.gate.rules.len(), 2);
    assert_eq!(h.gate.undecided.len(), 1);
}

#[test]
fn gates_pane_and_card_show_each_interval_at_100x30_and_160x48() {
    let (_g, dir) = inconclusive_run();
    for (name, pressed) in [("gates", "2j"), ("gates_zoomed", "2jz"), ("card", "E")] {
        let mut app = app_for(&dir);
        keys(&mut app, pressed);
        for (w, h) in [(100, 30), (160, 48)] {
            let s = screen(&app, w, h);
            insta::assert_snapshot!(format!("gate_evidence_{name}_{w}x{h}"), s);
            // The hostile name is on screen as text; its ESC and override are not.
            assert!(
                !s.contains('\u{1b}') && !s.contains('\u{202e}'),
                "{name} {w}x{h}"
            );
            // The unzoomed pane is narrow: its lines are clipped (`…`), the others whole.
            if w == 160 && name != "gates" {
                assert!(
                    s.contains("acc\\u001b[31m{x}}\\u202e"),
                    "{name} {w}x{h}: the name as text\n{s}"
                );
                assert!(
                    s.contains("INCONCLUSIVE -0.710 ± 0.112, n 5, 95% CI -0.822–-0.598 vs ≤ -0.8")
                        || s.contains("INCONCLUSIVE spearman_rho_decay_vs_step: -0.710 ± 0.112, n 5, 95% CI -0.822–-0.598 vs ≤ -0.8"),
                    "{name} {w}x{h}\n{s}"
                );
                assert!(
                    s.contains("PASS 0.936 ± 0.008, n 5, 95% CI 0.928–0.944 vs ≥ 0.92")
                        || s.contains("PASS acc\\u001b[31m{x}}\\u202e: 0.936 ± 0.008, n 5, 95% CI 0.928–0.944 vs ≥ 0.92"),
                    "{name} {w}x{h}\n{s}"
                );
            }
        }
    }
}

#[test]
fn inconclusive_is_drawn_in_its_own_colour_never_a_pass() {
    let (_g, dir) = inconclusive_run();
    let theme = Theme::builtin("dark", ColorDepth::TrueColor).unwrap();
    let inconclusive = theme.style(Role::GateInconclusive).fg;
    let passed = theme.style(Role::GatePassed).fg;
    assert_ne!(inconclusive, passed);
    // The zoomed Gates pane: the undecided interval, the passed one, and h-m1's row.
    let mut app = app_for(&dir);
    keys(&mut app, "2jz");
    assert_eq!(
        fg_of(
            &app,
            160,
            48,
            "INCONCLUSIVE spearman_rho_decay_vs_step: -0.710"
        ),
        inconclusive
    );
    assert_eq!(
        fg_of(&app, 160, 48, "PASS acc\\u001b[31m{x}}\\u202e: 0.936"),
        passed
    );
    // On the card, the criterion line of the undecided one is marked undecided, not met.
    let mut app = app_for(&dir);
    keys(&mut app, "E");
    let s = screen(&app, 160, 48);
    let line = s
        .lines()
        .find(|l| l.contains("criterion") && l.contains("spearman_rho_decay_vs_step"))
        .expect("the criterion line");
    assert!(
        line.contains("? undecided") && !line.contains("met"),
        "{line}"
    );
    assert_eq!(
        fg_of(&app, 160, 48, "spearman_rho_decay_vs_step required"),
        inconclusive
    );
}

/// A criterion left undecided without an interval (the rows lacked its metric) but with a
/// single measured value that would meet it: the pane marks it `?`, never `✓`.
#[test]
fn an_undecided_criterion_without_an_interval_is_never_ticked() {
    let (_g, dir) = temp_run(&example_run());
    let path = dir.join("verification_state.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    let gate = OLD_GATE
        .replace("result: FAIL", "result: INCONCLUSIVE")
        .replace("actual: -0.31", "actual: not decided")
        .replace("failed_checks:\n", "failed_checks: []\n      undecided:\n")
        .replace(
            "reason: onset step is flat above decay 1.0",
            "reason: 'no row reports `spearman_rho_decay_vs_step`'",
        )
        .replace(
            "{spearman_rho_decay_vs_step: -0.31}",
            "{spearman_rho_decay_vs_step: -0.9}",
        );
    std::fs::write(&path, text.replacen(OLD_GATE, &gate, 1)).unwrap();
    let mut app = app_for(&dir);
    keys(&mut app, "2jz");
    let s = screen(&app, 160, 48);
    let line = s
        .lines()
        .find(|l| l.contains("spearman_rho_decay_vs_step <= -0.8 · measured -0.9"))
        .unwrap_or_else(|| panic!("the criterion line\n{s}"));
    assert!(line.contains("-0.9 ?") && !line.contains('✓'), "{line}");
    let inconclusive = app.theme.style(Role::GateInconclusive).fg;
    assert_eq!(
        fg_of(
            &app,
            160,
            48,
            "spearman_rho_decay_vs_step <= -0.8 · measured"
        ),
        inconclusive
    );
    assert!(
        s.contains("? spearman_rho_decay_vs_step: no row reports"),
        "{s}"
    );
}
