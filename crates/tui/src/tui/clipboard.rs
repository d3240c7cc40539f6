//! `y` copies the focused item over SSH: OSC 52 asks the researcher's own terminal (not the
//! server's) to set its clipboard, as lazygit, k9s and gitui do. [`focused`] decides what is
//! copied from the state (pure); `update` returns it as `Effect::Copy`; [`bytes`] is what the
//! runtime writes. The sequence is written by hand (`ESC ] 52 ; c ; <base64> BEL`): crossterm's
//! `osc52` feature would need a direct crossterm dependency for four lines of encoding.
//!
//! Copied text is cleaned of control and bidi characters (newlines and tabs kept): a log
//! line from an experiment must not paste `ESC [2J` or U+202E into the next terminal.

use super::app::{App, PaneId};
use super::dialogs::overlay::Overlay;
use super::effect::Effect;

/// Terminals cap what one OSC 52 may carry (xterm ≈ 100 kB, tmux's buffer limits): a longer
/// text is cut here, and the footer says so.
const MAX_BYTES: usize = 64 * 1024;

/// What `y` copies now, and how the footer names it (`copied h-m1`); `Err` says why nothing.
pub fn focused(app: &App) -> Result<(String, String), String> {
    let (text, label) = match &app.overlay {
        Some(Overlay::Escalation(_)) => {
            let s = escalation(app).ok_or("no escalation waits")?;
            (s, "the escalation summary".to_string())
        }
        Some(Overlay::Viewer(v)) => {
            let lines: Vec<String> = v
                .lines
                .iter()
                .skip(v.scroll)
                .take(v.height.max(1))
                .map(|l| l.to_string())
                .collect();
            let n = lines.len();
            (
                lines.join("\n"),
                format!("{n} line{} of {}", if n == 1 { "" } else { "s" }, v.title),
            )
        }
        // Over SSH the PDF opens on the researcher's machine, not here: its path is what
        // they take away (`scp host:<path> .`).
        Some(Overlay::Paper(v)) => {
            let pdf = v
                .paper
                .outputs
                .pdf
                .as_ref()
                .ok_or("no PDF yet: Manuscript Refinement writes paper/paper.pdf")?;
            (pdf.display().to_string(), "the PDF's path".to_string())
        }
        Some(_) => return Err("nothing to copy here".into()),
        None => pane_item(app)?,
    };
    let (text, cut) = clip(&clean(&text));
    if text.is_empty() {
        return Err("nothing to copy here".into());
    }
    let label = crate::notice::clean(&label, 60);
    Ok((
        text,
        if cut {
            format!("copied {label} (cut to {} kB)", MAX_BYTES / 1024)
        } else {
            format!("copied {label}")
        },
    ))
}

/// `y`: the focused item to the clipboard, and the footer says what was copied (or why not).
pub fn copy(app: &mut App) -> Vec<Effect> {
    match focused(app) {
        Ok((text, label)) => {
            app.toast = Some((label, false));
            vec![Effect::Copy(text)]
        }
        Err(why) => {
            app.toast = Some((why, true));
            Vec::new()
        }
    }
}

/// The focused pane's item: the run's path, a sub-hypothesis's id, a lesson, an event.
fn pane_item(app: &App) -> Result<(String, String), String> {
    let sel = app.selected(app.focus);
    let none = || format!("nothing selected in {}", app.focus.title());
    match app.focus {
        PaneId::Lifecycle => {
            let p = app.run.root.display().to_string();
            Ok((p.clone(), p))
        }
        PaneId::Gates => {
            let v = &app.data.vsa.as_ref().ok_or_else(none)?.vsa;
            let rows = super::gates_view::dag_rows(v);
            let id = rows.get(sel).map(|(_, h)| h.id.clone()).ok_or_else(none)?;
            Ok((id.clone(), id))
        }
        PaneId::Reflection => {
            let e = super::lessons::selected(app).ok_or_else(none)?;
            Ok((e.record.body.clone(), e.record.id.clone()))
        }
        PaneId::Events => {
            let rows = super::event_pages::visible(app);
            let e = rows.get(sel).ok_or_else(none)?;
            Ok((e.text.clone(), "the event".into()))
        }
        PaneId::Experiments => {
            let ex = app.data.experiments.get(sel).ok_or_else(none)?;
            Ok((ex.hypothesis.clone(), ex.hypothesis.clone()))
        }
        PaneId::Plan => {
            let plan = app.data.plan.as_ref().ok_or_else(none)?;
            let id = plan.rows.get(sel).map(|r| r.id.clone()).ok_or_else(none)?;
            Ok((id.clone(), id))
        }
    }
}

/// The waiting escalation in a few lines: who proposes what for which hypothesis, and why.
fn escalation(app: &App) -> Option<String> {
    let v = &app.data.vsa.as_ref()?.vsa;
    let e = v.workflow.escalation.as_ref()?;
    let mut out = format!(
        "escalation {}: {} proposes {}",
        e.id.as_deref().unwrap_or("?"),
        e.hypothesis.as_deref().unwrap_or("?"),
        e.proposed_action.as_deref().unwrap_or("?"),
    );
    if let Some(k) = e.clamp_verdict.as_deref() {
        let kappa = e.clamp_kappa.as_deref().unwrap_or("?");
        out.push_str(&format!("\nclamp: {k} (κ {kappa})"));
    }
    for (i, a) in e.attributions.iter().enumerate() {
        let s = a.severity.map_or("?".into(), |s| format!("{s:.2}"));
        out.push_str(&format!(
            "\n{}. {s} {}: {}",
            i + 1,
            a.category,
            a.description
        ));
    }
    out.push_str(&format!(
        "\nanswer: youra steer {} approve|reject|override --reason …",
        crate::notice::message::shell_word(&app.run.root.display().to_string())
    ));
    Some(out)
}

/// `text` without control or bidi characters; newlines and tabs stay (log lines keep shape).
pub fn clean(text: &str) -> String {
    text.chars()
        .filter(|&c| c == '\n' || c == '\t' || !(crate::term::is_unsafe(c) || c.is_control()))
        .collect()
}

/// At most [`MAX_BYTES`], cut at a character boundary; whether it was cut.
fn clip(text: &str) -> (String, bool) {
    if text.len() <= MAX_BYTES {
        return (text.to_string(), false);
    }
    let mut end = MAX_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    (text[..end].to_string(), true)
}

/// OSC 52 setting the clipboard (`c`) to `text`, passed through tmux (DCS, ESC doubled) when
/// inside it, as `attention::bytes` does for OSC 9.
pub fn bytes(text: &str, in_tmux: bool) -> Vec<u8> {
    let seq = format!("\u{1b}]52;c;{}\u{7}", base64(text.as_bytes()));
    let out = if in_tmux {
        format!(
            "\u{1b}Ptmux;{}\u{1b}\\",
            seq.replace('\u{1b}', "\u{1b}\u{1b}")
        )
    } else {
        seq
    };
    out.into_bytes()
}

/// Standard base64 (RFC 4648, with padding), as OSC 52 takes it.
pub fn base64(data: &[u8]) -> String {
    const ABC: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ABC[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_rfc_4648_vectors() {
        let table = [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
            ("h-m1", "aC1tMQ=="),
            ("κ ≥ 0.9", "zrog4omlIDAuOQ=="),
        ];
        for (plain, encoded) in table {
            assert_eq!(base64(plain.as_bytes()), encoded, "{plain}");
        }
    }

    #[test]
    fn osc52_bytes_bare_and_wrapped_for_tmux() {
        assert_eq!(bytes("h-m1", false), b"\x1b]52;c;aC1tMQ==\x07".to_vec());
        assert_eq!(
            bytes("h-m1", true),
            b"\x1bPtmux;\x1b\x1b]52;c;aC1tMQ==\x07\x1b\\".to_vec()
        );
    }

    #[test]
    fn copied_text_keeps_lines_and_loses_control_and_bidi() {
        assert_eq!(
            clean("a\tb\nc\u{1b}[2J\u{7}\u{202e}\u{2066}\u{9b}d\r"),
            "a\tb\nc[2Jd"
        );
        let (cut, was) = clip(&"é".repeat(MAX_BYTES));
        assert!(was && cut.len() <= MAX_BYTES && cut.chars().all(|c| c == 'é'));
    }
}
