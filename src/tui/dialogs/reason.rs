//! Asking once before a steering verb: what it does, an optional choice (override's action),
//! and the one-line reason that history records. The `:` line uses the same dialog, typing a
//! verb and its target first.

use ratatui::crossterm::event::{KeyCode, KeyEvent};
use ratatui_textarea::TextArea;

use super::Outcome;
use crate::tui::app::Effect;
use crate::tui::keymap::Command;

pub struct ReasonDialog {
    pub verb: String,
    pub target: Option<String>,
    /// What the verb does, and what it discards.
    pub about: String,
    pub choices: Vec<String>,
    pub choice: usize,
    pub input: TextArea<'static>,
    pub error: Option<String>,
    /// The `:` line: `input` holds `verb [target]`, and Enter turns it into a reason prompt.
    pub command_line: bool,
    pub verbs: Vec<&'static str>,
}

impl ReasonDialog {
    pub fn new(
        verb: &str,
        target: Option<String>,
        about: String,
        choices: Vec<String>,
    ) -> ReasonDialog {
        ReasonDialog {
            verb: verb.to_string(),
            target,
            about,
            choices,
            choice: 0,
            input: TextArea::default(),
            error: None,
            command_line: false,
            verbs: Vec::new(),
        }
    }

    pub fn command_line(verbs: Vec<&'static str>) -> ReasonDialog {
        let mut d = ReasonDialog::new(
            "",
            None,
            "steer the run: type a verb and its target, Tab completes".into(),
            Vec::new(),
        );
        d.command_line = true;
        d.verbs = verbs;
        d
    }

    fn text(&self) -> String {
        self.input.lines().join(" ")
    }

    /// Completions of the verb being typed on the `:` line.
    pub fn completions(&self) -> Vec<&'static str> {
        let t = self.text();
        let word = t.trim_start();
        if word.contains(' ') {
            return Vec::new();
        }
        self.verbs
            .iter()
            .copied()
            .filter(|v| v.starts_with(word))
            .collect()
    }

    pub fn on_key(&mut self, key: KeyEvent, cmd: Option<Command>) -> Outcome {
        match (cmd, key.code) {
            (Some(Command::Cancel), _) => Outcome::Close,
            (Some(Command::NextField), _) if self.command_line => {
                if let [only] = self.completions().as_slice() {
                    self.input = TextArea::new(vec![format!("{only} ")]);
                    self.input.move_cursor(ratatui_textarea::CursorMove::End);
                }
                Outcome::Stay
            }
            (Some(Command::NextField), _) | (_, KeyCode::Right) if !self.choices.is_empty() => {
                self.choice = (self.choice + 1) % self.choices.len();
                Outcome::Stay
            }
            (Some(Command::PrevField), _) | (_, KeyCode::Left) if !self.choices.is_empty() => {
                self.choice = (self.choice + self.choices.len() - 1) % self.choices.len();
                Outcome::Stay
            }
            (Some(Command::Confirm), _) if self.command_line => self.parse_command(),
            (Some(Command::Confirm), _) => self.submit(),
            _ => {
                self.input.input(key);
                Outcome::Stay
            }
        }
    }

    fn parse_command(&mut self) -> Outcome {
        let t = self.text();
        let mut words = t.split_whitespace();
        let Some(verb) = words.next() else {
            return Outcome::Close;
        };
        if !self.verbs.contains(&verb) {
            self.error = Some(format!("unknown verb `{verb}`: {}", self.verbs.join(", ")));
            return Outcome::Stay;
        }
        let target: Vec<&str> = words.collect();
        self.verb = verb.to_string();
        self.target = (!target.is_empty()).then(|| target.join(" "));
        self.about = format!(
            "{verb}{}",
            self.target
                .as_ref()
                .map(|t| format!(" {t}"))
                .unwrap_or_default()
        );
        self.command_line = false;
        self.input = TextArea::default();
        self.error = None;
        Outcome::Stay
    }

    fn submit(&mut self) -> Outcome {
        let reason = self.text().trim().to_string();
        if reason.is_empty() {
            self.error = Some("a reason is required: it is recorded in the history".into());
            return Outcome::Stay;
        }
        let target = match self.choices.get(self.choice) {
            Some(c) => Some(c.clone()),
            None => self.target.clone(),
        };
        self.error = Some("writing…".into());
        Outcome::Run(Effect::Steer {
            verb: self.verb.clone(),
            target,
            reason,
        })
    }
}
