//! Calling the researcher from the TUI: when something starts to wait for them (an
//! escalation, a MUST_STOP, a pause, the run's end) the terminal rings once, shows a desktop
//! notification (OSC 9 and OSC 777, passed through tmux) and its title says what waits
//! (`youra: ⚑ h-m1 waits`). [`of`] decides what waits from the run as read (pure); `update`
//! compares it with the last one, so each waiting event rings exactly once; [`bytes`] is
//! what the runtime writes.

use super::data::Data;
use crate::notice::clean;
use crate::vsa::enums::WorkflowStatus as W;

/// What waits now: `key` tells one waiting event from the next; `title` is the terminal's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Waiting {
    pub key: String,
    pub title: String,
    pub body: String,
}

/// What waits for the researcher in this read of the run, if anything.
pub fn of(data: &Data) -> Option<Waiting> {
    let v = &data.vsa.as_ref()?.vsa;
    let name = clean(v.project_name.as_deref().unwrap_or("run"), 40);
    if let Some(r) = v.workflow.review.as_ref().filter(|r| r.waits()) {
        let h = clean(r.hypothesis.as_deref().unwrap_or("?"), 40);
        return Some(Waiting {
            key: format!("review {}", r.id.as_deref().unwrap_or("")),
            title: format!("youra: ⚑ {h} waits"),
            body: format!("{name}: {h}'s experiment waits for review"),
        });
    }
    if v.workflow.awaits_decision() {
        let e = v.workflow.escalation.as_ref();
        let h = clean(e.and_then(|e| e.hypothesis.as_deref()).unwrap_or("?"), 40);
        let action = clean(
            e.and_then(|e| e.proposed_action.as_deref())
                .unwrap_or("an action"),
            40,
        );
        let id = e.and_then(|e| e.id.clone()).unwrap_or_default();
        return Some(Waiting {
            key: format!("escalation {id} {h}"),
            title: format!("youra: ⚑ {h} waits"),
            body: format!("{name}: recovery proposes {action} for {h}"),
        });
    }
    // The revision that set the status tells this pause (or stop) from an earlier one.
    let since = |status: W| {
        v.history
            .iter()
            .rev()
            .find(|h| {
                h.path.as_deref() == Some("workflow.status")
                    && h.new.as_deref() == Some(status.as_str())
            })
            .and_then(|h| h.revision)
            .unwrap_or(0)
    };
    match v.workflow.status {
        Some(W::Paused) => {
            let why = data
                .pause
                .as_ref()
                .map(|p| clean(&p.reason(), 80))
                .unwrap_or_else(|| "paused".into());
            Some(Waiting {
                key: format!("paused {}", since(W::Paused)),
                title: format!("youra: ⏸ {name} paused"),
                body: format!("{name}: {why}"),
            })
        }
        Some(W::Stopped | W::Failed) => Some(Waiting {
            key: format!("stopped {}", since(W::Stopped)),
            title: format!("youra: ■ {name} MUST_STOP"),
            body: format!(
                "{name}: {}",
                clean(v.workflow.stop_reason.as_deref().unwrap_or("stopped"), 120)
            ),
        }),
        Some(W::Completed) => Some(Waiting {
            key: "completed".into(),
            title: format!("youra: ✓ {name} complete"),
            body: format!("{name}: all stages complete"),
        }),
        _ => None,
    }
}

/// The bytes that call the researcher: a bell, OSC 9 (iTerm2, WezTerm, kitty, Windows
/// Terminal) and OSC 777 (rxvt, foot, VTE), each wrapped for tmux when inside it (tmux
/// passes a DCS-wrapped sequence through with `allow-passthrough on`), and the title (OSC 0).
/// Sequences end with ST, not BEL, so the one BEL here is the bell itself.
pub fn bytes(w: &Waiting, ring: bool, in_tmux: bool) -> Vec<u8> {
    let title = clean(&w.title, 80).replace(';', ",");
    let body = clean(&w.body, 160).replace(';', ",");
    let mut out = String::new();
    if ring {
        out.push('\u{7}');
        let wrap = |seq: String| {
            if in_tmux {
                format!(
                    "\u{1b}Ptmux;{}\u{1b}\\",
                    seq.replace('\u{1b}', "\u{1b}\u{1b}")
                )
            } else {
                seq
            }
        };
        out.push_str(&wrap(format!("\u{1b}]9;{title}: {body}\u{1b}\\")));
        out.push_str(&wrap(format!("\u{1b}]777;notify;{title};{body}\u{1b}\\")));
    }
    out.push_str(&format!("\u{1b}]0;{title}\u{1b}\\"));
    out.into_bytes()
}

/// The title when nothing waits: the run's name.
pub(crate) fn idle_title(data: &Data) -> String {
    let name = data
        .vsa
        .as_ref()
        .and_then(|s| s.vsa.project_name.as_deref())
        .unwrap_or("run");
    format!("youra: {}", clean(name, 40))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w() -> Waiting {
        Waiting {
            key: "k".into(),
            title: "youra: ⚑ h-m1 waits".into(),
            body: "demo: recovery proposes Pivot for h-m1".into(),
        }
    }

    #[test]
    fn one_bell_and_the_title_and_each_osc_wrapped_in_tmux() {
        let table = [
            (true, false, 1, "\u{1b}]9;youra: ⚑ h-m1 waits: demo"),
            (
                true,
                true,
                1,
                "\u{1b}Ptmux;\u{1b}\u{1b}]777;notify;youra: ⚑ h-m1 waits;",
            ),
            (false, false, 0, "\u{1b}]0;youra: ⚑ h-m1 waits\u{1b}\\"),
        ];
        for (ring, tmux, bells, has) in table {
            let b = String::from_utf8(bytes(&w(), ring, tmux)).unwrap();
            assert_eq!(b.matches('\u{7}').count(), bells, "{b:?}");
            assert!(b.contains(has), "{b:?}");
            assert!(b.ends_with("\u{1b}]0;youra: ⚑ h-m1 waits\u{1b}\\"), "{b:?}");
        }
    }

    #[test]
    fn text_from_the_run_cannot_end_the_sequence_early() {
        let mut x = w();
        x.body = "evil\u{7}\u{1b}]52;c;AAAA\u{1b}\\;\u{202e}rtl".into();
        let b = String::from_utf8(bytes(&x, true, false)).unwrap();
        assert_eq!(b.matches('\u{7}').count(), 1, "{b:?}");
        assert!(!b.contains('\u{202e}') && !b.contains("\u{1b}]52"), "{b:?}");
    }
}
