//! What a notice says, decided from one engine event: which events wait for the researcher
//! (an escalation, a MUST_STOP, a breakpoint pause, the run's end), what waits, why, and the
//! exact command that answers it. Pure: no I/O, table-tested below.

use std::path::Path;

use crate::rundir::events::Event;

/// One notice: a short title, why, and the command that answers it (runs as printed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    /// The event kind it came from (`escalation`, `stop`, `breakpoint`, `completed`).
    pub kind: String,
    /// `youra: ⚑ h-m1 waits` — the same words as the TUI's terminal title.
    pub title: String,
    pub why: String,
    pub answer: String,
}

impl Notice {
    /// The whole notice as plain text (ntfy's body, a command's stdin, Slack's `text`).
    pub fn text(&self) -> String {
        format!("{}\n{}\nanswer: {}", self.title, self.why, self.answer)
    }
}

/// Text from models and experiments, safe for a terminal or a notification: control and
/// bidirectional formatting characters removed (a newline or tab becomes a space), and at
/// most `max` characters kept.
pub fn clean(text: &str, max: usize) -> String {
    let mut out = String::with_capacity(text.len().min(max * 4));
    for c in text.chars() {
        if out.chars().count() >= max {
            out.push('…');
            break;
        }
        match c {
            '\n' | '\t' | '\r' => out.push(' '),
            c if crate::term::is_unsafe(c) || c.is_control() => {}
            c => out.push(c),
        }
    }
    out.trim().to_string()
}

/// A path as a shell word: kept bare when it has only safe characters, single-quoted else.
pub fn shell_word(s: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "/._-+:@%,=".contains(c);
    if !s.is_empty() && s.chars().all(safe) {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// The notice an event calls for, or `None` when it does not wait for anyone.
pub fn notice_for(event: &Event, run: &Path) -> Option<Notice> {
    let dir = shell_word(&run.display().to_string());
    let name = run
        .file_name()
        .map(|n| clean(&n.to_string_lossy(), 40))
        .unwrap_or_else(|| "run".into());
    let msg = clean(event.message.as_deref().unwrap_or(""), 300);
    let (title, why, answer) = match event.kind.as_str() {
        "escalation" => {
            let h = clean(event.hypothesis.as_deref().unwrap_or("?"), 40);
            let action = clean(event.action.as_deref().unwrap_or("an action"), 40);
            (
                format!("youra: ⚑ {h} waits"),
                format!("{name}: recovery proposes {action} for {h} ({msg})"),
                format!(
                    "youra steer {dir} approve --reason \"your reason\" (or reject, or override <action>)"
                ),
            )
        }
        // An experiment waiting for review before it runs (decision 0040).
        "review" if event.result.is_none() && event.action.as_deref() != Some("edit") => {
            let h = clean(event.hypothesis.as_deref().unwrap_or("?"), 40);
            (
                format!("youra: ⚑ {h} waits"),
                format!("{name}: {h}'s experiment waits for review ({msg})"),
                format!(
                    "youra steer {dir} review approve --reason \"your reason\" (or reject, branch, edit <file> --file <yours>)"
                ),
            )
        }
        "stop" => (
            format!("youra: ■ {name} MUST_STOP"),
            format!("{name} stopped: {msg}"),
            format!("youra steer {dir} resume (after fixing the cause)"),
        ),
        // A model endpoint that does not answer: the run waits by itself; the researcher
        // may want to restart the server.
        "model_waiting" => (
            format!("youra: ⌛ {name} waits for its model"),
            format!("{name}: {msg}"),
            format!("start the model server; the run goes on by itself (youra status {dir})"),
        ),
        "breakpoint" => {
            let stage = clean(event.stage.as_deref().unwrap_or("a stage"), 60);
            (
                format!("youra: ⏸ {name} paused"),
                format!("{name} paused at the breakpoint before {stage}"),
                format!("youra steer {dir} step (or resume)"),
            )
        }
        "completed" => (
            format!("youra: ✓ {name} complete"),
            format!("{name}: all stages complete"),
            format!("youra report html {dir}"),
        ),
        _ => return None,
    };
    Some(Notice {
        kind: event.kind.clone(),
        title,
        why,
        answer,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(kind: &str) -> Event {
        Event::new(kind)
    }

    #[test]
    fn each_waiting_event_names_what_waits_and_the_command_that_answers() {
        let run = Path::new("/runs/grok");
        let table: Vec<(Event, Option<(&str, &str)>)> = vec![
            (
                ev("escalation")
                    .hypothesis("h-m1")
                    .action("Pivot")
                    .message("esc-1 awaits approval"),
                Some((
                    "youra: ⚑ h-m1 waits",
                    "youra steer /runs/grok approve --reason",
                )),
            ),
            (
                ev("stop").message("budget spent"),
                Some(("youra: ■ grok MUST_STOP", "youra steer /runs/grok resume")),
            ),
            (
                ev("breakpoint").stage("Coding & Validation"),
                Some(("youra: ⏸ grok paused", "youra steer /runs/grok step")),
            ),
            (
                ev("completed"),
                Some(("youra: ✓ grok complete", "youra report html /runs/grok")),
            ),
            (
                ev("review")
                    .hypothesis("h-e1")
                    .action("n-0002")
                    .message("rv-9 waits"),
                Some((
                    "youra: ⚑ h-e1 waits",
                    "youra steer /runs/grok review approve --reason",
                )),
            ),
            // The answer's own event and an edit being applied call no one.
            (ev("review").hypothesis("h-e1").result("approved"), None),
            (ev("review").hypothesis("h-e1").action("edit"), None),
            (ev("stage_start"), None),
            (ev("gate"), None),
            (ev("notify"), None),
        ];
        for (event, want) in table {
            let got = notice_for(&event, run);
            match (got, want) {
                (None, None) => {}
                (Some(n), Some((title, answer))) => {
                    assert_eq!(n.title, title, "{event:?}");
                    assert!(n.answer.starts_with(answer), "{} vs {answer}", n.answer);
                }
                (got, want) => panic!("{event:?}: {got:?} vs {want:?}"),
            }
        }
    }

    #[test]
    fn control_and_bidi_characters_never_reach_a_notice() {
        let table = [
            ("plain", "plain"),
            ("a\u{1b}]52;c;AAAA\u{7}b", "a]52;c;AAAAb"),
            ("evil\u{202e}txt.exe", "eviltxt.exe"),
            ("two\nlines\r\n", "two lines"),
            ("iso\u{2066}late\u{2069}", "isolate"),
            ("c1\u{9b}31m", "c131m"),
        ];
        for (input, want) in table {
            assert_eq!(clean(input, 100), want, "{input:?}");
        }
        let e = ev("escalation")
            .hypothesis("h-\u{202e}m1")
            .message("\u{1b}[2Jspoof");
        let n = notice_for(&e, Path::new("/r/x")).unwrap();
        assert!(
            !n.text()
                .chars()
                .any(|c| crate::term::is_unsafe(c) || c == '\u{1b}')
        );
        assert_eq!(n.title, "youra: ⚑ h-m1 waits");
    }

    #[test]
    fn a_path_with_spaces_is_quoted_once() {
        assert_eq!(shell_word("/runs/a b"), "'/runs/a b'");
        assert_eq!(shell_word("/runs/it's"), r"'/runs/it'\''s'");
        assert_eq!(shell_word("/runs/ok-1"), "/runs/ok-1");
    }
}
