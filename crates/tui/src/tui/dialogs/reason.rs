//! Asking once before a steering verb: what it does, an optional choice (override's action),
//! and the one-line reason that history records. The `:` line uses the same dialog, typing a
//! verb and its target first.

use ratatui::crossterm::event::{KeyCode, KeyEvent};
use ratatui_textarea::TextArea;

use super::outcome::Outcome;
use crate::steer::{Request, Verb, split_plan_file};
use crate::tui::effect::Effect;
use crate::tui::keymap::Command;

pub struct ReasonDialog {
    /// None on the `:` line until a verb is typed.
    pub verb: Option<Verb>,
    /// `breakpoint … --off`: remove instead of add.
    pub off: bool,
    pub target: Option<String>,
    /// `edit <node> --plan-file <path>` on the `:` line: read when the effect runs.
    pub plan_file: Option<String>,
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
        verb: Option<Verb>,
        target: Option<String>,
        about: String,
        choices: Vec<String>,
    ) -> ReasonDialog {
        ReasonDialog {
            verb,
            off: false,
            target,
            plan_file: None,
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
            None,
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

    pub(crate) fn on_key(&mut self, key: KeyEvent, cmd: Option<Command>) -> Outcome {
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
        let Some(word) = words.next() else {
            return Outcome::Close;
        };
        let verb = match word.parse::<Verb>() {
            Ok(v) if self.verbs.contains(&v.name()) => v,
            _ => {
                self.error = Some(format!("unknown verb `{word}`: {}", self.verbs.join(", ")));
                return Outcome::Stay;
            }
        };
        let mut target: Vec<&str> = words.collect();
        self.off = verb == Verb::Breakpoint && target.last() == Some(&"--off");
        if self.off {
            target.pop();
        }
        let (target, plan_file) = match target.join(" ") {
            t if t.is_empty() => (None, None),
            t if verb == Verb::Edit => {
                let (node, file) = split_plan_file(&t);
                (Some(node), file)
            }
            t => (Some(t), None),
        };
        self.verb = Some(verb);
        self.target = target;
        self.plan_file = plan_file;
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
        let Some(verb) = self.verb else {
            return Outcome::Close;
        };
        self.error = Some("writing…".into());
        let mut request = Request::new(verb, target.as_deref(), &reason);
        request.off = self.off;
        Outcome::Run(Effect::Steer {
            request,
            plan_file: self.plan_file.clone(),
        })
    }
}
