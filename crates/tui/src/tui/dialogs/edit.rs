//! Editing one VSA field: path (from the selection), value, reason. Refusals come back from
//! the store and show here; forcing past an invariant takes two deliberate presses.

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui_textarea::TextArea;

use super::outcome::Outcome;
use crate::tui::effect::Effect;
use crate::tui::keymap::Command;
use crate::vsa::Base;
use crate::vsa::mutation::{Change, Mutation};

pub struct EditDialog {
    pub fields: [TextArea<'static>; 3],
    pub focus: usize,
    /// Allowed values, when the field is an enum (shown as a hint, cycled with ctrl-n).
    pub choices: Vec<String>,
    pub error: Option<String>,
    /// The store refused on an invariant: ctrl-f once arms force, twice writes.
    pub refused_invariant: bool,
    pub force_armed: bool,
    pub base: Option<Base>,
}

pub const LABELS: [&str; 3] = ["Field", "Value", "Reason"];

fn line(text: &str) -> TextArea<'static> {
    let mut t = TextArea::new(vec![text.to_string()]);
    t.move_cursor(ratatui_textarea::CursorMove::End);
    t
}

impl EditDialog {
    pub fn new(path: &str, value: &str, choices: Vec<String>, base: Option<Base>) -> EditDialog {
        EditDialog {
            fields: [line(path), line(value), line("")],
            focus: 1,
            choices,
            error: None,
            refused_invariant: false,
            force_armed: false,
            base,
        }
    }

    pub fn text(&self, i: usize) -> String {
        self.fields[i].lines().join("\n")
    }

    pub fn refused(&mut self, message: String) {
        self.refused_invariant = message.starts_with("refused:");
        self.force_armed = false;
        self.error = Some(message);
    }

    fn mutation(&self, force: bool) -> Mutation {
        let change = Change::Set {
            path: self.text(0).trim().to_string(),
            value: self.text(1),
        };
        // Who edits: the researcher at this login (`YOURA_NAME`, else user@host).
        let who = crate::vsa::actor::current();
        let mut m = Mutation::new(change, "field_edit", &who, self.text(2).trim());
        m.force = force;
        m.base = self.base.clone();
        m
    }

    pub(crate) fn on_key(&mut self, key: KeyEvent, cmd: Option<Command>) -> Outcome {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        match (cmd, key.code) {
            (Some(Command::Cancel), _) => Outcome::Close,
            (Some(Command::NextField), _) => {
                self.focus = (self.focus + 1) % 3;
                Outcome::Stay
            }
            (Some(Command::PrevField), _) => {
                self.focus = (self.focus + 2) % 3;
                Outcome::Stay
            }
            (Some(Command::Confirm), _) => self.submit(false),
            (_, KeyCode::Char('f')) if ctrl && self.refused_invariant => {
                if self.force_armed {
                    return self.submit(true);
                }
                self.force_armed = true;
                self.error = Some(format!(
                    "{} — press ctrl-f again to write it anyway (recorded as forced)",
                    self.error.clone().unwrap_or_default()
                ));
                Outcome::Stay
            }
            (_, KeyCode::Char('n')) if ctrl && !self.choices.is_empty() => {
                self.cycle_choice();
                Outcome::Stay
            }
            _ => {
                self.fields[self.focus].input(key);
                Outcome::Stay
            }
        }
    }

    fn submit(&mut self, force: bool) -> Outcome {
        if self.text(2).trim().is_empty() {
            self.focus = 2;
            self.error = Some("a reason is required: it is recorded in the history".into());
            return Outcome::Stay;
        }
        self.error = Some("writing…".into());
        Outcome::Run(Effect::Mutate(self.mutation(force)))
    }

    fn cycle_choice(&mut self) {
        let current = self.text(1);
        let i = self
            .choices
            .iter()
            .position(|c| *c == current)
            .map_or(0, |i| (i + 1) % self.choices.len());
        self.fields[1] = line(&self.choices[i]);
    }
}
